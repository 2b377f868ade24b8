/* Wakes for a moment every millisecond: it always makes a little
 * progress and never reaches the processor ceiling; the absolute cap stops it. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>
int main(void) {
	struct timespec ms = {0, 1000000};
	for (;;) nanosleep(&ms, 0);
}
