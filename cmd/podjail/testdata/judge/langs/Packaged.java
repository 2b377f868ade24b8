// Compiles, but to judge/Main.class (CE with the hint).
package judge;

public class Main {
    public static void main(String[] args) { System.out.println(42); }
}
