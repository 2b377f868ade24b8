/* Tries perf_event_open on itself (a software clock) and on pid 1. The
 * seccomp profile answers EPERM without CAP_SYS_ADMIN or CAP_PERFMON. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void say(const char *fmt, ...) {
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n > 0 && write(1, line, n) < 0) _exit(1);
}

int main(void) {
	int escaped = 0;
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof a;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	long r = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	say("perf_event_open(self): %s\n", r < 0 ? strerrorname_np(errno) : "ok");
	escaped |= r >= 0;
	r = syscall(SYS_perf_event_open, &a, 1, -1, -1, 0);
	say("perf_event_open(1): %s\n", r < 0 ? strerrorname_np(errno) : "ok");
	escaped |= r >= 0;
	say("result: %s\n", escaped ? "escaped" : "blocked");
	return 0;
}
