/* Reads its whole input, seeks back to the start and reads it again (stdin
 * is the input file the shim opened, not a pipe), and says whether the
 * two reads were equal. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

static char *slurp(size_t *len) {
	size_t cap = 1 << 16;
	char *buf = malloc(cap);
	*len = 0;
	for (;;) {
		if (*len == cap) buf = realloc(buf, cap *= 2);
		ssize_t n = read(0, buf + *len, cap - *len);
		if (n < 0) {
			say("result: read: %s\n", strerrorname_np(errno));
			exit(1);
		}
		if (n == 0) return buf;
		*len += n;
	}
}

int main(void) {
	struct stat st;
	if (fstat(0, &st) == 0) say("stdin: %s\n", S_ISREG(st.st_mode) ? "regular file" : S_ISFIFO(st.st_mode) ? "pipe" : "other");
	size_t a, b;
	char *first = slurp(&a);
	if (lseek(0, 0, SEEK_SET) != 0) {
		say("result: lseek: %s\n", strerrorname_np(errno));
		return 1;
	}
	char *second = slurp(&b);
	if (a == b && memcmp(first, second, a) == 0)
		say("result: both reads equal, %zu bytes\n", a);
	else
		say("result: reads differ, %zu and %zu bytes\n", a, b);
	return 0;
}
