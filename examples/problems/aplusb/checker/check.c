/*
 * Checker for "A plus B", testlib calling convention without testlib:
 *
 *     check input output answer
 *
 * Exit codes: 0 accepted, 1 wrong answer, 2 presentation error (the output
 * is not exactly one integer), 3 checker failure (a file cannot be opened
 * or the answer file is broken). A one-line reason goes to stderr.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OK = 0, WA = 1, PE = 2, FAIL = 3 };

static void quit(int code, const char *fmt, ...)
{
	va_list ap;
	static const char *names[] = {"ok", "wrong answer", "presentation error", "fail"};

	fprintf(stderr, "%s: ", names[code]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

/* next reads the next whitespace-separated token into buf (at most size-1
 * bytes). It returns 0 at end of file, -1 if the token is too long, else 1. */
static int next(FILE *f, char *buf, size_t size)
{
	int c;
	size_t n = 0;

	while ((c = getc(f)) != EOF && isspace(c))
		;
	if (c == EOF)
		return 0;
	while (c != EOF && !isspace(c)) {
		if (n + 1 >= size)
			return -1;
		buf[n++] = (char)c;
		c = getc(f);
	}
	buf[n] = '\0';
	return 1;
}

/* parse reads a token as a signed 64-bit integer: an optional '-' and
 * 1 to 19 digits, in range. It returns 1 on success. */
static int parse(const char *s, long long *v)
{
	const char *d = s[0] == '-' ? s + 1 : s;
	char *end;

	if (*d == '\0' || strlen(d) > 19)
		return 0;
	for (const char *p = d; *p; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno == 0 && *end == '\0';
}

int main(int argc, char **argv)
{
	FILE *in, *out, *ans;
	char tok[64];
	long long want, got;
	int r;

	if (argc < 4)
		quit(FAIL, "usage: %s input output answer", argv[0]);
	if (!(in = fopen(argv[1], "r")))
		quit(FAIL, "cannot open input %s: %s", argv[1], strerror(errno));
	if (!(out = fopen(argv[2], "r")))
		quit(FAIL, "cannot open output %s: %s", argv[2], strerror(errno));
	if (!(ans = fopen(argv[3], "r")))
		quit(FAIL, "cannot open answer %s: %s", argv[3], strerror(errno));
	fclose(in);

	if (next(ans, tok, sizeof tok) != 1 || !parse(tok, &want))
		quit(FAIL, "answer file does not start with an integer");

	r = next(out, tok, sizeof tok);
	if (r == 0)
		quit(PE, "expected an integer, found end of output");
	if (r < 0)
		quit(PE, "expected an integer, found a token longer than %d bytes", (int)sizeof tok - 1);
	if (!parse(tok, &got))
		quit(PE, "expected an integer, found \"%s\"", tok);
	if (next(out, tok, sizeof tok) != 0)
		quit(PE, "expected only one integer, found more output after it");
	if (got != want)
		quit(WA, "expected %lld, found %lld", want, got);
	quit(OK, "%lld", got);
	return 0;
}
