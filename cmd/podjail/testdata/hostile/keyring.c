/* The kernel's keyrings are not per container: the user keyring of uid
 * 65534 is one for every run of the same user namespace (rootful: the
 * host's). containers/common's seccomp profile refuses add_key and
 * request_key (ENOSYS, not listed) but allows keyctl.
 *
 *   keyring plant NAME  tries add_key and request_key, then makes a keyring
 *                       named NAME (keyctl JOIN_SESSION_KEYRING) and links it
 *                       into the user keyring, saying what each call did
 *   keyring find NAME   lists the user keyring and says whether a keyring
 *                       named NAME is there: a later run must not find what
 *                       an earlier one left
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/keyctl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
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

static long keyctl(int cmd, unsigned long a2, unsigned long a3, unsigned long a4) {
	return syscall(SYS_keyctl, cmd, a2, a3, a4, 0UL);
}

static int plant(const char *name) {
	say("add_key: %s\n", outcome(syscall(SYS_add_key, "user", name, "x", 1UL, (long)KEY_SPEC_SESSION_KEYRING)));
	say("request_key: %s\n", outcome(syscall(SYS_request_key, "user", name, NULL, 0L)));
	say("keyctl(GET_KEYRING_ID, @u): %s\n", outcome(keyctl(KEYCTL_GET_KEYRING_ID, (unsigned long)KEY_SPEC_USER_KEYRING, 1, 0)));
	long k = keyctl(KEYCTL_JOIN_SESSION_KEYRING, (unsigned long)name, 0, 0);
	say("keyctl(JOIN_SESSION_KEYRING): %s\n", outcome(k));
	if (k >= 0) say("keyctl(LINK, @u): %s\n", outcome(keyctl(KEYCTL_LINK, k, (unsigned long)KEY_SPEC_USER_KEYRING, 0)));
	return 0;
}

static int find(const char *name) {
	int32_t ids[1024];
	long n = keyctl(KEYCTL_READ, (unsigned long)KEY_SPEC_USER_KEYRING, (unsigned long)ids, sizeof ids);
	if (n < 0) {
		say("result: not found (keyctl(READ, @u): %s)\n", strerrorname_np(errno));
		return 0;
	}
	if (n > (long)sizeof ids) n = sizeof ids;
	for (long i = 0; i < n / (long)sizeof ids[0]; i++) {
		char desc[512] = {0};
		if (keyctl(KEYCTL_DESCRIBE, (unsigned long)ids[i], (unsigned long)desc, sizeof desc - 1) < 0) continue;
		const char *last = strrchr(desc, ';');
		if (last != NULL && strcmp(last + 1, name) == 0) {
			say("result: found %s\n", desc);
			return 0;
		}
	}
	say("result: not found (%ld keys in @u)\n", n / (long)sizeof ids[0]);
	return 0;
}

int main(int argc, char **argv) {
	if (argc == 3 && strcmp(argv[1], "plant") == 0) return plant(argv[2]);
	if (argc == 3 && strcmp(argv[1], "find") == 0) return find(argv[2]);
	say("usage: keyring plant|find NAME\n");
	return 2;
}
