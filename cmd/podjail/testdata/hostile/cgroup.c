/* Tries to escape or loosen its cgroup through /sys/fs/cgroup, which the
 * shim needs mounted read-write: raise its own memory.max and pids.max,
 * move itself to the cgroup namespace's root or to the shim's cgroup, kill
 * the shim's cgroup, make a child cgroup. The files and directories belong
 * to root: each must fail with EACCES. It first reads its own memory.max to
 * show it looks at the right cgroup. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void say(const char *fmt, ...) {
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n > 0 && write(1, line, n) < 0) _exit(1);
}

static int escaped;

static void report(const char *what, long r) {
	if (r < 0) {
		say("%s: %s\n", what, strerrorname_np(errno));
	} else {
		say("%s: ok\n", what);
		escaped = 1;
	}
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
	char own[256];
	if (own_cgroup(own, sizeof own) != 0) {
		say("result: no cgroup v2 line in /proc/self/cgroup\n");
		return 1;
	}
	int fd;
	char parent_of[256];
	snprintf(parent_of, sizeof parent_of, "%s", own + 3);
	const char *parent = dirname(parent_of); /* the shim's base cgroup */
	char dir[512], base[512];
	snprintf(dir, sizeof dir, "/sys/fs/cgroup%s", own + 3);
	snprintf(base, sizeof base, "/sys/fs/cgroup%s", strcmp(parent, "/") == 0 ? "" : parent);
	say("cgroup: %s (%s)\n", own + 3, dir);

	char path[600], val[64] = {0};
	snprintf(path, sizeof path, "%s/memory.max", dir);
	fd = open(path, O_RDONLY);
	if (fd >= 0 && read(fd, val, sizeof val - 1) > 0) {
		val[strcspn(val, "\n")] = 0;
		say("memory.max: %s\n", val);
	}
	if (fd >= 0) close(fd);

	report("raise memory.max", write_file(path, "max"));
	snprintf(path, sizeof path, "%s/pids.max", dir);
	report("raise pids.max", write_file(path, "max"));
	char self[32];
	snprintf(self, sizeof self, "%d", getpid());
	report("move to the namespace's root cgroup", write_file("/sys/fs/cgroup/cgroup.procs", self));
	snprintf(path, sizeof path, "%s/shim/cgroup.procs", base);
	report("move to the shim's cgroup", write_file(path, self));
	snprintf(path, sizeof path, "%s/shim/cgroup.kill", base);
	report("kill the shim's cgroup", write_file(path, "1"));
	snprintf(path, sizeof path, "%s/escape", dir);
	report("make a child cgroup", mkdir(path, 0755));
	say("result: %s\n", escaped ? "escaped" : "blocked");
	return 0;
}
