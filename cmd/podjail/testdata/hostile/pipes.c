/* Opens the run's pipes the shim holds: the control pipe (the go, an
 * interactor's stream), the stdout pipe and the status pipe (the shim's
 * armed line and report: a forged report starts there), each for reading and for
 * writing (non-blocking: an open must never wait). Each must fail with
 * EACCES: they are root's, mode 0600, and the program is 65534. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
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

static void try_open(const char *path, int flags, const char *how) {
	int fd = open(path, flags | O_NONBLOCK);
	if (fd < 0) {
		say("open %s for %s: %s\n", path, how, strerrorname_np(errno));
		return;
	}
	say("open %s for %s: ok\n", path, how);
	escaped = 1;
	close(fd);
}

int main(void) {
	try_open("/run/podjail/control", O_RDONLY, "reading");
	try_open("/run/podjail/control", O_WRONLY, "writing");
	try_open("/run/podjail/stdout", O_RDONLY, "reading");
	try_open("/run/podjail/stdout", O_WRONLY, "writing");
	try_open("/run/podjail/status", O_RDONLY, "reading");
	try_open("/run/podjail/status", O_WRONLY, "writing");
	say("result: %s\n", escaped ? "ESCAPED" : "blocked");
	return 0;
}
