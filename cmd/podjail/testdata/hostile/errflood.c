/* Floods stderr (the shim makes it /dev/null): says where fd 2 goes, writes
 * 64 MiB to it, says how much was written, exits 0 (AC). */
#define _GNU_SOURCE
#include <errno.h>
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

int main(void) {
	char target[128] = {0};
	if (readlink("/proc/self/fd/2", target, sizeof target - 1) < 0)
		snprintf(target, sizeof target, "readlink: %s", strerrorname_np(errno));
	say("stderr: %s\n", target);
	static char buf[64 << 10];
	memset(buf, 'e', sizeof buf);
	long long total = 0;
	for (int i = 0; i < 1024; i++) {
		ssize_t n = write(2, buf, sizeof buf);
		if (n < 0) {
			say("result: write to stderr: %s after %lld bytes\n", strerrorname_np(errno), total);
			return 0;
		}
		total += n;
	}
	say("result: wrote %lld bytes to stderr\n", total);
	return 0;
}
