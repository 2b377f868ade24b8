// One program per behaviour, chosen by the test's first word (TestJudgeLanguages).
import java.util.*;

public class Main {
    static class Node { long[] payload = new long[1 << 20]; Node next; } // an inner class: Main$Node.class

    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        String what = in.next();
        switch (what) {
            case "ac", "wa" -> {
                long a = in.nextLong(), b = in.nextLong();
                System.out.println(a + b - (what.equals("wa") ? 1 : 0));
            }
            case "cpus" -> System.out.println(Runtime.getRuntime().availableProcessors());
            case "rte" -> throw new IllegalStateException("asked to fail");
            case "tle" -> { long x = 0; while (true) x += System.nanoTime() & 1; }
            case "mle" -> { Node head = null; while (true) { Node n = new Node(); n.next = head; head = n; } }
            default -> System.exit(9);
        }
    }
}
