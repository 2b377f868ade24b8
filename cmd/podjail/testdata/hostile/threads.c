/* Four threads burn processor time for ever while the main thread waits.
 * The CPU quota gives the run one core in all; the processor ceiling stops
 * it (TLE), and the time charged is every thread's. */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>

static void *spin(void *arg) {
	volatile unsigned long x = 0;
	(void)arg;
	for (;;) x++;
	return NULL;
}

int main(void) {
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, spin, NULL) != 0) {
			static const char msg[] = "result: pthread_create failed\n";
			return write(1, msg, sizeof msg - 1) < 0 ? 2 : 1;
		}
	static const char msg[] = "result: 4 threads spinning\n";
	if (write(1, msg, sizeof msg - 1) < 0) return 1;
	for (;;) pause();
}
