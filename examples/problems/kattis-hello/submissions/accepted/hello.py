print("Hello " + input().strip() + "!")
