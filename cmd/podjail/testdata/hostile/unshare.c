/* Tries to gain privileges through namespaces. In the container's own
 * namespaces mount and unshare(CLONE_NEWNS) need CAP_SYS_ADMIN: EPERM.
 * unshare(CLONE_NEWUSER | CLONE_NEWNS) is not refused by the seccomp profile
 * (containers/common's default allows unshare) and the kernel allows
 * unprivileged user namespaces, so it may succeed: the program then holds
 * every capability, but only over its new namespaces. From there it tries
 * what would matter: mount a tmpfs (its own business), remount / read-write
 * (locked: EPERM), loosen its cgroup (root's files: EACCES), kill the shim
 * (EPERM). Exits 0 (AC) saying whether anything outside was reached. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static void say(const char *fmt, ...) {
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n > 0 && write(1, line, n) < 0) _exit(1);
}

static const char *outcome(long r) { return r < 0 ? strerrorname_np(errno) : "ok"; }

static int escaped;

/* outside says what a call that must fail did; success is an escape. */
static void outside(const char *what, long r) {
	say("%s: %s\n", what, outcome(r));
	if (r >= 0) escaped = 1;
}

/* own_cgroup puts "0::/PATH" of /proc/self/cgroup in buf (cgroup v2's line). */
static int own_cgroup(char *buf, size_t size) {
	char all[4096] = {0};
	int fd = open("/proc/self/cgroup", O_RDONLY);
	if (fd < 0) return -1;
	ssize_t n = read(fd, all, sizeof all - 1);
	close(fd);
	if (n <= 0) return -1;
	for (char *line = strtok(all, "\n"); line != NULL; line = strtok(NULL, "\n"))
		if (strncmp(line, "0::/", 4) == 0) {
			snprintf(buf, size, "%s", line);
			return 0;
		}
	return -1;
}

static long write_file(const char *path, const char *val) {
	int fd = open(path, O_WRONLY);
	if (fd < 0) return -1;
	long r = write(fd, val, strlen(val));
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

int main(void) {
	outside("mount /tmp", mount("none", "/tmp", "tmpfs", 0, "size=1m"));
	outside("unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
	long r = unshare(CLONE_NEWUSER | CLONE_NEWNS);
	say("unshare(CLONE_NEWUSER|CLONE_NEWNS): %s\n", outcome(r));
	if (r == 0) {
		say("mount /tmp in the new namespaces: %s\n", outcome(mount("none", "/tmp", "tmpfs", 0, "size=1m")));
		outside("remount / read-write", mount(NULL, "/", NULL, MS_REMOUNT, NULL));
		outside("remount / read-write (bind)", mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND, NULL));
		char own[256], path[600];
		if (own_cgroup(own, sizeof own) == 0) {
			snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", strcmp(own + 3, "/") == 0 ? "" : own + 3);
			outside("write memory.max", write_file(path, "max"));
		}
		outside("kill(1)", kill(1, SIGKILL));
	}
	say("result: %s\n", escaped ? "escaped" : "contained");
	return 0;
}
