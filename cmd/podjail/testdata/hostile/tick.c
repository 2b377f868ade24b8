/* Wakes for a moment every millisecond for ever: it always makes a little
 * progress and stays far below the processor ceiling, so only the absolute
 * cap stops it (TLE). */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

int main(void) {
	struct timespec ms = {0, 1000000};
	for (;;) nanosleep(&ms, 0);
}
