/* The smallest program a judge runs: its peak memory is what a run of
 * nothing costs. Built static (make vm-payload). */
int main(void) { return 0; }
