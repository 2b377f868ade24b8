/* Writes to the read-only root: a new file at /, a directory beside the
 * program, a file in the input's directory. Each must fail with EROFS. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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

static void report(const char *what, int r) {
	if (r < 0) {
		say("%s: %s\n", what, strerrorname_np(errno));
	} else {
		say("%s: ok\n", what);
		escaped = 1;
	}
}

int main(void) {
	report("create /escape", open("/escape", O_WRONLY | O_CREAT | O_EXCL, 0644));
	report("mkdir /hostile/escape", mkdir("/hostile/escape", 0755));
	report("create /run/podjail/escape", open("/run/podjail/escape", O_WRONLY | O_CREAT | O_EXCL, 0644));
	report("symlink /escape-link", symlink("/tmp", "/escape-link"));
	say("result: %s\n", escaped ? "escaped" : "blocked");
	return 0;
}
