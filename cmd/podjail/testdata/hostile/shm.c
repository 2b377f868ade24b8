/* Shared memory files: first /dev/shm, which a read-only container root
 * without read-write tmpfs leaves read-only (EROFS); should it be writable,
 * 8 MiB files fill it. Then memfds of 8 MiB each (under the file size limit)
 * for ever: their pages are charged to the program's cgroup, so memory.max
 * kills it (MLE). It says how far it got every 8 MiB. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

static char buf[64 << 10];

/* fill8 writes 8 MiB to fd; 0 or the errno of the write that failed. */
static int fill8(int fd) {
	for (size_t done = 0; done < (8 << 20);) {
		ssize_t n = write(fd, buf, sizeof buf);
		if (n < 0) return errno;
		done += n;
	}
	return 0;
}

int main(void) {
	memset(buf, 'x', sizeof buf);
	size_t total = 0;
	for (int i = 0; i < 64; i++) {
		char name[32];
		snprintf(name, sizeof name, "/dev/shm/fill.%d", i);
		int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0) {
			say("/dev/shm: %s after %zu MiB\n", strerrorname_np(errno), total >> 20);
			break;
		}
		int err = fill8(fd);
		close(fd);
		if (err != 0) {
			say("/dev/shm: %s after %zu MiB\n", strerrorname_np(err), total >> 20);
			break;
		}
		total += 8 << 20;
	}
	total = 0;
	for (;;) {
		int fd = memfd_create("fill", 0);
		if (fd < 0) {
			say("result: memfd_create: %s after %zu MiB\n", strerrorname_np(errno), total >> 20);
			return 0;
		}
		int err = fill8(fd);
		if (err != 0) {
			say("result: memfd write: %s after %zu MiB\n", strerrorname_np(err), total >> 20);
			return 0;
		}
		total += 8 << 20;
		say("memfd: %zu MiB\n", total >> 20);
	}
}
