/* Tries io_uring, a second way to do I/O that a seccomp filter cannot see
 * call by call. The profile does not list io_uring_setup, io_uring_enter
 * or io_uring_register: its default action answers ENOSYS. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/io_uring.h>
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
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	long r = syscall(SYS_io_uring_setup, 8, &p);
	say("io_uring_setup: %s\n", r < 0 ? strerrorname_np(errno) : "ok");
	escaped |= r >= 0;
	r = syscall(SYS_io_uring_enter, 0, 0, 0, 0, NULL, 0);
	say("io_uring_enter: %s\n", r < 0 ? strerrorname_np(errno) : "ok");
	r = syscall(SYS_io_uring_register, 0, 0, NULL, 0);
	say("io_uring_register: %s\n", r < 0 ? strerrorname_np(errno) : "ok");
	say("result: %s\n", escaped ? "escaped" : "blocked");
	return 0;
}
