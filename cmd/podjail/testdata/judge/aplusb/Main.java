import java.util.Scanner;

// Judge0 and podjail run the class named Main.
public class Main {
	public static void main(String[] args) {
		Scanner in = new Scanner(System.in);
		System.out.println(in.nextLong() + in.nextLong());
	}
}
