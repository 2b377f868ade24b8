/* Copies itself to the scratch /tmp (mounted noexec), makes the copy
 * executable and tries to run it, then to map it executable. Both must
 * fail (execve EACCES, mmap PROT_EXEC EPERM). Run as "noexec escaped" by a
 * successful exec, it says so. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
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

int main(int argc, char **argv) {
	if (argc == 2 && strcmp(argv[1], "escaped") == 0) {
		say("result: escaped, running from /tmp\n");
		return 0;
	}
	int in = open("/proc/self/exe", O_RDONLY);
	int out = open("/tmp/copy", O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (in < 0 || out < 0) {
		say("result: copy failed: %s\n", strerrorname_np(errno));
		return 1;
	}
	static char buf[64 << 10];
	ssize_t n;
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, n) != n) {
			say("result: copy failed: %s\n", strerrorname_np(errno));
			return 1;
		}
	close(in);
	fchmod(out, 0755);
	close(out);
	say("copied to /tmp/copy\n");

	int escaped = 0;
	char *args[] = {"/tmp/copy", "escaped", NULL};
	char *env[] = {NULL};
	execve("/tmp/copy", args, env);
	say("execve /tmp/copy: %s\n", strerrorname_np(errno));

	int fd = open("/tmp/copy", O_RDONLY);
	void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		say("mmap PROT_EXEC /tmp/copy: %s\n", strerrorname_np(errno));
	} else {
		say("mmap PROT_EXEC /tmp/copy: ok\n");
		escaped = 1;
	}
	say("result: %s\n", escaped ? "escaped" : "blocked");
	return 0;
}
