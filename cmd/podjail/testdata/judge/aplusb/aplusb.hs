main :: IO ()
main = do
  s <- getContents
  print (sum (map read (words s)) :: Integer)
