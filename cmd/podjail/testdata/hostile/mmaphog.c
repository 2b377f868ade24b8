/* Maps 1 GiB of anonymous memory at once (that succeeds: nothing caps the
 * address space) and touches it page by page. memory.max kills it (MLE); it
 * says how far it got every 16 MiB. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
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
	const size_t len = (size_t)1 << 30;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		say("result: mmap failed %s\n", strerrorname_np(errno));
		return 1;
	}
	say("mapped %zu MiB\n", len >> 20);
	for (size_t off = 0; off < len; off += 4096) {
		p[off] = 1;
		if ((off + 4096) % (16 << 20) == 0) say("touched %zu MiB\n", (off + 4096) >> 20);
	}
	say("result: touched all %zu MiB\n", len >> 20);
	return 0;
}
