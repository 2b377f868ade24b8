/* Sleeps for ever: no progress stops it. */
#include <unistd.h>
int main(void) {
	for (;;) pause();
}
