/*
 * Output validator (Kattis protocol):
 *
 *     validate input answer feedback_dir/ [even] < team_output
 *
 * The input holds a and b; the team prints one integer x with a <= x <= b,
 * and an even one when the argument `even` is given. Exit 42 accepted, 43
 * rejected with the reason in feedback_dir/judgemessage.txt; anything else
 * is the validator's own failure.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "range.h"

enum { AC = 42, WA = 43, FAIL = 1 };

static const char *feedback;

static void verdict(int code, const char *fmt, ...)
{
	char path[4096];
	FILE *f;
	va_list ap;

	snprintf(path, sizeof path, "%sjudgemessage.txt", feedback ? feedback : "");
	if (feedback && (f = fopen(path, "a"))) {
		va_start(ap, fmt);
		vfprintf(f, fmt, ap);
		va_end(ap);
		fputc('\n', f);
		fclose(f);
	} else if (code != FAIL) {
		code = FAIL;
	}
	exit(code);
}

int main(int argc, char **argv)
{
	long long a, b, x;
	int even = 0;
	char tok[32], extra[2];
	FILE *in;

	if (argc < 4)
		return FAIL;
	feedback = argv[3];
	for (int i = 4; i < argc; i++) {
		if (strcmp(argv[i], "even") != 0)
			verdict(FAIL, "unknown argument %s", argv[i]);
		even = 1;
	}
	if (!(in = fopen(argv[1], "r")) || fscanf(in, "%lld %lld", &a, &b) != 2)
		verdict(FAIL, "cannot read a and b from %s", argv[1]);
	if (scanf("%31s", tok) != 1 || !integer(tok, &x))
		verdict(WA, "expected one integer");
	if (scanf("%1s", extra) == 1)
		verdict(WA, "more than one token");
	if (x < a || x > b)
		verdict(WA, "%lld is not in [%lld, %lld]", x, a, b);
	if (even && x % 2 != 0)
		verdict(WA, "%lld is odd, and this group wants an even number", x);
	verdict(AC, "%lld is fine", x);
	return FAIL;
}
