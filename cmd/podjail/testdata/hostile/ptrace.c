/* Tries to take hold of pid 1, the shim (root): ptrace attach and seize,
 * reading its memory, and taking a copy of its stderr (where the report
 * goes) through a pidfd. Each must fail with EPERM. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static void say(const char *fmt, ...) {
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n > 0 && write(1, line, n) < 0) _exit(1);
}

static int escaped;

static void report(const char *what, long r) {
	if (r < 0) {
		say("%s: %s\n", what, strerrorname_np(errno));
	} else {
		say("%s: ok\n", what);
		escaped = 1;
	}
}

int main(void) {
	report("ptrace(PTRACE_ATTACH, 1)", ptrace(PTRACE_ATTACH, 1, NULL, NULL));
	report("ptrace(PTRACE_SEIZE, 1)", ptrace(PTRACE_SEIZE, 1, NULL, NULL));
	char buf[16];
	struct iovec local = {buf, sizeof buf}, remote = {(void *)0x400000, sizeof buf};
	report("process_vm_readv(1)", process_vm_readv(1, &local, 1, &remote, 1, 0));
	long pidfd = syscall(SYS_pidfd_open, 1, 0);
	say("pidfd_open(1): %s\n", pidfd < 0 ? strerrorname_np(errno) : "ok");
	if (pidfd >= 0) report("pidfd_getfd(1, 2)", syscall(SYS_pidfd_getfd, pidfd, 2, 0));
	say("result: %s\n", escaped ? "escaped" : "blocked");
	return 0;
}
