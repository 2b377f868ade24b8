/*
 * Interactor for "Guess the number", testlib-style exit codes without
 * testlib:
 *
 *     interactor input          (stdin/stdout connected to the solution)
 *
 * argv[1] is the test input: the secret N, 1 <= N <= 1000000. The solution
 * prints one guess per line; the interactor answers "<" (N is smaller than
 * the guess), ">" (N is larger) or "=" (found), flushing each answer.
 *
 * Exit codes: 0 accepted ("=" within 25 guesses), 1 wrong answer (too many
 * guesses, a guess that is not an integer in 1..1000000, or the solution
 * stopped before finding N), 3 interactor failure (bad input file). A
 * one-line reason goes to stderr.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OK = 0, WA = 1, FAIL = 3 };
enum { MAXN = 1000000, MAXGUESSES = 25 };

static void quit(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", code == OK ? "ok" : code == WA ? "wrong answer" : "fail");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

/* number parses a token as an integer in 1..MAXN; 0 if it is not one. */
static long number(const char *s)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)s[0]) || strlen(s) > 7)
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 1 || v > MAXN)
		return 0;
	return v;
}

int main(int argc, char **argv)
{
	FILE *in;
	char tok[32];
	long secret, guess;

	/* A solution that exits early must give WA, not kill us with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2)
		quit(FAIL, "usage: %s input", argv[0]);
	if (!(in = fopen(argv[1], "r")))
		quit(FAIL, "cannot open input %s: %s", argv[1], strerror(errno));
	if (fscanf(in, "%31s", tok) != 1 || !(secret = number(tok)))
		quit(FAIL, "input must hold the secret number in 1..%d", MAXN);
	fclose(in);

	for (int n = 1;; n++) {
		if (scanf("%31s", tok) != 1)
			quit(WA, "the solution stopped after %d guesses without finding %ld", n - 1, secret);
		if (!(guess = number(tok)))
			quit(WA, "guess %d is not an integer in 1..%d: \"%s\"", n, MAXN, tok);
		if (n > MAXGUESSES)
			quit(WA, "more than %d guesses", MAXGUESSES);
		if (guess == secret) {
			printf("=\n");
			fflush(stdout);
			quit(OK, "found %ld in %d guesses", secret, n);
		}
		printf("%s\n", secret < guess ? "<" : ">");
		if (fflush(stdout) != 0)
			quit(WA, "the solution stopped reading after %d guesses", n);
	}
}
