// Compiles, but to Solution.class: no Main (CE with the hint).
class Solution {
    public static void main(String[] args) { System.out.println(42); }
}
