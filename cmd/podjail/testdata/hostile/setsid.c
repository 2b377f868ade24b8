/* Tries to leave the process group and session a group kill reaches
 * (setsid, setpgid: seccomp answers ENOSYS), then forks a child that does
 * the same and would say it escaped a second later; the parent exits at
 * once. The shim kills the child when the parent ends: its line must never
 * appear, and the run is AC. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
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

static const char *outcome(long r) { return r < 0 ? strerrorname_np(errno) : "ok"; }

int main(void) {
	say("setsid: %s\n", outcome(setsid()));
	say("setpgid: %s\n", outcome(setpgid(0, 0)));
	pid_t child = fork();
	if (child < 0) {
		say("result: fork: %s\n", strerrorname_np(errno));
		return 1;
	}
	if (child == 0) {
		setsid();
		setpgid(0, 0);
		for (;;) {
			sleep(1);
			say("result: escaped, the child outlived its parent\n");
		}
	}
	say("parent exits\n");
	return 0;
}
