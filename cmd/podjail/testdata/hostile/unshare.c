/* Tries to gain privileges through namespaces. mount and unshare(CLONE_NEWNS)
 * need CAP_SYS_ADMIN in the container's namespaces: EPERM. A new user
 * namespace would give the program every capability over namespaces of its
 * own; the shim's namespace filter (shim/doc.go, step nsfilter) refuses it:
 * unshare and clone with any CLONE_NEW* flag and setns are EPERM, clone3 is
 * ENOSYS (its flags are out of the filter's sight; libcs fall back to clone).
 * Threads (pthread_create, which tries clone3 first) and fork still work.
 * Should a user namespace be granted all the same, it tries what would
 * matter from there: remount / read-write, loosen its cgroup, kill the
 * shim. Exits 0 (AC) saying whether anything was reached. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

/* struct clone_args of linux/sched.h, version 0. */
struct clone_args0 {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

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

/* child_exits ends a child a forking call should never have made. */
static long child_exits(long r) {
	if (r == 0) _exit(0);
	if (r > 0) waitpid(r, NULL, 0);
	return r;
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

static void *work(void *arg) {
	volatile unsigned long x = (uintptr_t)arg;
	for (int i = 0; i < 100000; i++) x = x * 6364136223846793005UL + 1;
	return arg;
}

int main(void) {
	outside("mount /tmp", mount("none", "/tmp", "tmpfs", 0, "size=1m"));
	outside("unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
	outside("unshare(CLONE_NEWUSER)", unshare(CLONE_NEWUSER));
	outside("clone(CLONE_NEWUSER)", child_exits(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, NULL)));
	int ns = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
	outside("setns(/proc/self/ns/user)", ns < 0 ? -1 : setns(ns, CLONE_NEWUSER));
	if (ns >= 0) close(ns);
	struct clone_args0 args = {.flags = CLONE_NEWUSER, .exit_signal = SIGCHLD};
	outside("clone3(CLONE_NEWUSER)", child_exits(syscall(SYS_clone3, &args, sizeof args)));

	/* What must still work: threads, then a fork. */
	pthread_t th[4];
	int ok = 1, made = 0;
	for (; made < 4; made++)
		if (pthread_create(&th[made], NULL, work, (void *)(uintptr_t)made) != 0) {
			ok = 0;
			break;
		}
	for (int i = 0; i < made; i++) {
		void *r;
		if (pthread_join(th[i], &r) != 0 || r != (void *)(uintptr_t)i) ok = 0;
	}
	say("pthread_create: %s\n", ok ? "ok" : "failed");
	pid_t pid = fork();
	if (pid == 0) _exit(7);
	int st = 0;
	if (pid < 0)
		say("fork: %s\n", strerrorname_np(errno));
	else
		say("fork: %s\n", waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 7 ? "ok" : "bad status");

	long r = unshare(CLONE_NEWUSER | CLONE_NEWNS);
	outside("unshare(CLONE_NEWUSER|CLONE_NEWNS)", r);
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
