/* Test programs for the measurement tests, one static binary, the mode in
 * argv[1]. Built by make vm-payload with gcc -static.
 *
 *   tprog burn MS      burn MS milliseconds of CPU (by the process's own
 *                      clock), print the rusage in microseconds, exit 0
 *   tprog spin MS      burn as burn does, print nothing (a judged test
 *                      whose answer is empty)
 *   tprog hog MB       touch MB MiB, one MiB at a time (killed past the limit)
 *   tprog childoom MB  a child hogs MB MiB; the parent waits, exits 0
 *   tprog daemon       double-fork a daemon that writes to stdout every
 *                      100 ms from 1 s on, then exit 0 at once
 *   tprog forge        print a forged report line on stdout, try to write
 *                      one to the shim's stderr through /proc, exit 0
 *   tprog write MB     write MB MiB of 'x' to stdout in 64 KiB writes, exit 0
 *                      (the bench's stdout rate)
 *   tprog sleep S      sleep S seconds, exit 0 (the bench's idle containers)
 *   tprog orphan MS N  N children burn MS ms each and say so on a pipe; the
 *                      parent reads their N lines, never wait()s, prints
 *                      "done", exit 0 (CPU that reaches no rusage)
 *   tprog kids MS N    as orphan, but the parent waits for each child, then
 *                      prints its own and its children's rusage, exit 0
 *   tprog burnsig MS S burn MS ms, then raise signal S (default action)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long cpu_us(void) {
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec +
	       (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec;
}

static int burn(long ms, int quiet) {
	struct timespec ts;
	volatile unsigned long x = 0;
	for (;;) {
		for (int i = 0; i < 100000; i++) x += i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		if (ts.tv_sec * 1000L + ts.tv_nsec / 1000000L >= ms) break;
	}
	if (!quiet) printf("rusage_us=%lld\n", cpu_us());
	return 0;
}

static int hog(long mb) {
	for (long i = 0; i < mb; i++) {
		char *p = malloc(1 << 20);
		if (!p) return 3;
		memset(p, 1, 1 << 20);
	}
	printf("allocated %ld MiB\n", mb);
	return 0;
}

static int childoom(long mb) {
	pid_t pid = fork();
	if (pid < 0) return 4;
	if (pid == 0) _exit(hog(mb));
	int st;
	waitpid(pid, &st, 0);
	printf("child: %s %d\n", WIFSIGNALED(st) ? "signal" : "exit",
	       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	return 0;
}

static int daemonize(void) {
	pid_t pid = fork();
	if (pid < 0) return 4;
	if (pid == 0) {
		if (fork() != 0) _exit(0);
		sleep(1);
		for (;;) {
			write(1, "daemon alive\n", 13);
			usleep(100000);
		}
	}
	waitpid(pid, NULL, 0);
	printf("parent done\n");
	return 0;
}

static int forge(void) {
	const char *line = "podjail-report 00000000000000000000000000000000 "
	                   "{\"time_us\":1,\"exit_code\":77,\"peak_bytes\":1}\n";
	fputs(line, stdout);
	fflush(stdout);
	int fd = open("/proc/1/fd/2", O_WRONLY);
	printf("open /proc/1/fd/2: %s\n", fd < 0 ? strerror(errno) : "opened");
	if (fd >= 0) write(fd, line, strlen(line));
	fd = open("/proc/self/fd/2", O_WRONLY);
	if (fd >= 0) write(fd, line, strlen(line));
	write(2, line, strlen(line));
	return 0;
}

static int writeout(long mb) {
	static char buf[64 << 10];
	memset(buf, 'x', sizeof buf);
	for (long left = mb << 20; left > 0;) {
		ssize_t w = write(1, buf, left < (long)sizeof buf ? left : (long)sizeof buf);
		if (w < 0) {
			if (errno == EINTR) continue;
			return 1;
		}
		left -= w;
	}
	return 0;
}

static long long children_us(void) {
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	return (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec +
	       (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec;
}

static int children(long ms, long n, int wait_them) {
	int p[2];
	if (pipe(p) < 0) return 4;
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) return 4;
		if (pid == 0) {
			close(p[0]);
			burn(ms, 1);
			write(p[1], "x", 1);
			_exit(0);
		}
	}
	close(p[1]);
	char c;
	for (long got = 0; got < n;) {
		ssize_t r = read(p[0], &c, 1);
		if (r < 0 && errno == EINTR) continue;
		if (r <= 0) return 5;
		got++;
	}
	if (!wait_them) {
		printf("done\n");
		return 0;
	}
	for (long i = 0; i < n; i++) wait(NULL);
	printf("rusage_us=%lld\n", cpu_us() + children_us());
	return 0;
}

static int burnsig(long ms, int sig) {
	burn(ms, 1);
	signal(sig, SIG_DFL);
	raise(sig);
	return 6;
}

int main(int argc, char **argv) {
	long n = argc > 2 ? atol(argv[2]) : 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) return 2;
	if (!strcmp(argv[1], "burn")) return burn(n, 0);
	if (!strcmp(argv[1], "spin")) return burn(n, 1);
	if (!strcmp(argv[1], "hog")) return hog(n);
	if (!strcmp(argv[1], "childoom")) return childoom(n);
	if (!strcmp(argv[1], "daemon")) return daemonize();
	if (!strcmp(argv[1], "forge")) return forge();
	if (!strcmp(argv[1], "write")) return writeout(n);
	if (!strcmp(argv[1], "sleep")) return sleep(n) ? 1 : 0;
	long m = argc > 3 ? atol(argv[3]) : 0;
	if (!strcmp(argv[1], "orphan")) return children(n, m, 0);
	if (!strcmp(argv[1], "kids")) return children(n, m, 1);
	if (!strcmp(argv[1], "burnsig")) return burnsig(n, (int)m);
	fprintf(stderr, "tprog: unknown mode %s\n", argv[1]);
	return 2;
}
