#define _POSIX_C_SOURCE 200809L
/* Sleeps for ever: no progress stops it. */
#include <unistd.h>
int main(void) {
	for (;;) pause();
}
