/* Tries to change its execution domain. The seccomp profile allows only
 * the harmless personalities (PER_LINUX, PER_LINUX32, UNAME26, their
 * combinations, and the query 0xffffffff); READ_IMPLIES_EXEC (every
 * readable mapping executable) and ADDR_NO_RANDOMIZE (no ASLR) get the
 * default answer ENOSYS. PER_LINUX32 only makes uname say i686. Exits 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/utsname.h>
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
	say("personality(READ_IMPLIES_EXEC): %s\n", outcome(personality(READ_IMPLIES_EXEC)));
	say("personality(ADDR_NO_RANDOMIZE): %s\n", outcome(personality(ADDR_NO_RANDOMIZE)));
	say("personality(PER_LINUX32): %s\n", outcome(personality(PER_LINUX32)));
	struct utsname u;
	if (uname(&u) == 0) say("uname machine: %s\n", u.machine);
	say("personality(PER_LINUX32|READ_IMPLIES_EXEC): %s\n", outcome(personality(PER_LINUX32 | READ_IMPLIES_EXEC)));
	say("personality(PER_LINUX): %s\n", outcome(personality(PER_LINUX)));
	long now = personality(0xffffffff);
	say("result: personality now %#lx\n", now);
	return 0;
}
