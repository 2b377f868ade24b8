/* Says it is closing its standard streams, closes them, and burns processor
 * time for ever. The container's stdout stays open (the shim holds it), so
 * the runner sees no end of output; the processor ceiling stops the run
 * (TLE) and the runner does not hang. */
#include <unistd.h>

int main(void) {
	static const char msg[] = "result: closing stdout\n";
	if (write(1, msg, sizeof msg - 1) < 0) return 1;
	close(0);
	close(1);
	close(2);
	volatile unsigned long x = 0;
	for (;;) x++;
}
