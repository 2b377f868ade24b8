/* Allocates with malloc in 64 KiB pieces (below glibc's mmap threshold, so
 * from the brk heap) and touches them, for ever. memory.max kills it (MLE);
 * it says how far it got every 16 MiB, and what malloc said should it ever
 * return NULL (it must not: nothing caps the address space). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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
	const size_t piece = 64 << 10;
	size_t total = 0;
	for (;;) {
		char *p = malloc(piece);
		if (p == NULL) {
			say("result: malloc returned NULL after %zu MiB (%s)\n", total >> 20, strerrorname_np(errno));
			return 1;
		}
		memset(p, 1, piece);
		total += piece;
		if (total % (16 << 20) == 0) say("allocated %zu MiB\n", total >> 20);
	}
}
