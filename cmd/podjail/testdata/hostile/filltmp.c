/* Fills the scratch tmpfs /tmp (16 MiB, and RLIMIT_FSIZE is 16 MiB too).
 *
 *   filltmp one    one file, 64 KiB at a time, saying every MiB written. The
 *                  file reaches exactly 16 MiB, filling the tmpfs; the next
 *                  write starts at the file size limit, which the kernel
 *                  checks before allocating a block: SIGXFSZ kills it (RTE).
 *   filltmp many   files of 8 MiB each (under the file size limit) until a
 *                  write fails: ENOSPC once 16 MiB are written; says so and
 *                  exits 0 (AC).
 *   filltmp check  says whether /tmp is empty and how much of it is free (a
 *                  fresh run must find an empty scratch).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
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

static int one(void) {
	int fd = open("/tmp/fill", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		say("result: open /tmp/fill: %s\n", strerrorname_np(errno));
		return 1;
	}
	size_t total = 0;
	for (;;) {
		ssize_t n = write(fd, buf, sizeof buf);
		if (n < 0) {
			say("result: %s after %zu bytes\n", strerrorname_np(errno), total);
			return 0;
		}
		total += n;
		if (total % (1 << 20) == 0) say("wrote %zu MiB\n", total >> 20);
	}
}

static int many(void) {
	size_t total = 0;
	for (int i = 0; i < 64; i++) {
		char name[32];
		snprintf(name, sizeof name, "/tmp/fill.%d", i);
		int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0) {
			say("result: open %s: %s after %zu MiB\n", name, strerrorname_np(errno), total >> 20);
			return 0;
		}
		for (size_t inFile = 0; inFile < (8 << 20);) {
			ssize_t n = write(fd, buf, sizeof buf);
			if (n < 0) {
				say("result: full %s after %zu MiB\n", strerrorname_np(errno), total >> 20);
				return 0;
			}
			inFile += n;
			total += n;
		}
		close(fd);
	}
	say("result: wrote %zu MiB without an error\n", total >> 20);
	return 0;
}

static int check(void) {
	DIR *d = opendir("/tmp");
	if (d == NULL) {
		say("result: opendir /tmp: %s\n", strerrorname_np(errno));
		return 1;
	}
	int entries = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) entries++;
	closedir(d);
	struct statvfs fs;
	if (statvfs("/tmp", &fs) != 0) {
		say("result: statvfs /tmp: %s\n", strerrorname_np(errno));
		return 1;
	}
	say("result: /tmp %s, %llu bytes free\n", entries == 0 ? "empty" : "not empty",
	    (unsigned long long)fs.f_bfree * fs.f_bsize);
	return 0;
}

int main(int argc, char **argv) {
	memset(buf, 'x', sizeof buf);
	if (argc == 2 && strcmp(argv[1], "one") == 0) return one();
	if (argc == 2 && strcmp(argv[1], "many") == 0) return many();
	if (argc == 2 && strcmp(argv[1], "check") == 0) return check();
	say("usage: filltmp one|many|check\n");
	return 2;
}
