/* Fork bomb: every process forks for ever. The program cgroup's pids.max
 * (--pids) makes fork fail with EAGAIN once the limit is reached; the
 * processes then spin on the failing fork until the processor ceiling stops
 * the run (TLE). The first process says once that fork failed. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void) {
	pid_t first = getpid();
	int told = 0;
	for (;;) {
		if (fork() < 0 && !told && getpid() == first) {
			char line[64];
			int n = snprintf(line, sizeof line, "result: fork failed %s\n", strerrorname_np(errno));
			if (write(1, line, n) < 0) return 1;
			told = 1;
		}
	}
}
