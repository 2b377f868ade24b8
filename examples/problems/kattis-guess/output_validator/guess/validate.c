/*
 * Interactive output validator (Kattis protocol):
 *
 *     validate input answer feedback_dir/ [max_guesses N] < team_output > team_input
 *
 * The input holds the secret N (1..1000000). The team prints one guess per
 * line; the validator answers "lower" (N is smaller), "higher" or
 * "correct". More than max_guesses guesses (30 unless given), a guess that
 * is not an integer in range, or the team stopping first is rejected.
 * Exit 42 accepted, 43 rejected, the reason in feedback_dir/judgemessage.txt.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { AC = 42, WA = 43, FAIL = 1, MAXN = 1000000 };

static char feedback[4096];

static void verdict(int code, const char *fmt, ...)
{
	char path[4200];
	FILE *f;
	va_list ap;

	snprintf(path, sizeof path, "%sjudgemessage.txt", feedback);
	if (!(f = fopen(path, "a")))
		exit(FAIL);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
	exit(code);
}

static long number(const char *s)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)s[0]) || strlen(s) > 7)
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	return errno == 0 && *end == '\0' && v >= 1 && v <= MAXN ? v : 0;
}

int main(int argc, char **argv)
{
	long secret, guess, max = 30;
	char tok[32];
	FILE *in;

	/* A team that stops early is rejected, not a reason to die of SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 4)
		return FAIL;
	snprintf(feedback, sizeof feedback, "%s", argv[3]);
	for (int i = 4; i < argc; i++) {
		if (strcmp(argv[i], "max_guesses") != 0 || i + 1 == argc || !(max = number(argv[i + 1])))
			verdict(FAIL, "bad arguments: want max_guesses N");
		i++;
	}
	if (!(in = fopen(argv[1], "r")) || fscanf(in, "%31s", tok) != 1 || !(secret = number(tok)))
		verdict(FAIL, "cannot read the secret from %s", argv[1]);
	for (long n = 1;; n++) {
		if (scanf("%31s", tok) != 1)
			verdict(WA, "the team stopped after %ld guesses (at most %ld)", n - 1, max);
		if (!(guess = number(tok)))
			verdict(WA, "guess %ld is not an integer in 1..%d: \"%s\" (at most %ld guesses)", n, MAXN, tok, max);
		if (n > max)
			verdict(WA, "more than %ld guesses", max);
		printf("%s\n", guess == secret ? "correct" : secret < guess ? "lower" : "higher");
		fflush(stdout);
		if (guess == secret)
			verdict(AC, "found %ld in %ld guesses (at most %ld)", secret, n, max);
	}
}
