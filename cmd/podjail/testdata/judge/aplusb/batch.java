import java.util.Scanner;

// CMS runs the class named after the task's codename: "batch".
public class batch {
	public static void main(String[] args) {
		Scanner in = new Scanner(System.in);
		System.out.println(in.nextLong() + in.nextLong());
	}
}
