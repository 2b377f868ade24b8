/* kill(-1, SIGKILL) from the submission. Linux sends it to every process
 * the caller may signal in its pid namespace but pid 1 (the shim, root
 * anyway) and the caller itself: here that is only a child forked first.
 * The program survives, cannot signal the shim (EPERM), then kills its own
 * process group (itself; the shim in that group refuses): the run ends RTE
 * by SIGKILL and the shim still reports. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
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
	pid_t child = fork();
	if (child < 0) {
		say("result: fork: %s\n", strerrorname_np(errno));
		return 1;
	}
	if (child == 0)
		for (;;) pause();
	say("kill(-1): %s\n", outcome(kill(-1, SIGKILL)));
	int st;
	if (waitpid(child, &st, 0) == child)
		say("child: %s %d\n", WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	say("kill(1): %s\n", outcome(kill(1, SIGKILL)));
	say("result: survived kill(-1)\n");
	kill(0, SIGKILL);
	say("result: still alive after kill(0)\n");
	return 3;
}
