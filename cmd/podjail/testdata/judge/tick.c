/* Wakes for a moment every millisecond: it always makes a little
 * progress and never reaches the processor ceiling; the absolute cap stops it. */
#include <unistd.h>
int main(void) {
	for (;;) usleep(1000);
}
