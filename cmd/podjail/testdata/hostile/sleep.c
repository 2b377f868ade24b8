/* Sleeps for ever, deaf to the polite signals: the no-progress deadline
 * stops the run (TLE). */
#define _GNU_SOURCE
#include <signal.h>
#include <unistd.h>

int main(void) {
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	for (;;) pause();
}
