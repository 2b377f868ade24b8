/*
 * Multi-pass output validator (Kattis protocol):
 *
 *     validate input answer feedback_dir/ < team_output
 *
 * The input holds x; the team prints 2x. The validator counts its passes
 * in feedback_dir/passes (the directory persists from pass to pass): after
 * the first and the second it writes feedback_dir/nextpass.in with 2x+1,
 * the next pass's input; the third accepts without one. Exit 42 accepted,
 * 43 rejected, the reason in feedback_dir/judgemessage.txt.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

enum { AC = 42, WA = 43, FAIL = 1, PASSES = 3 };

static char path[4200];
static const char *feedback;

static FILE *fbopen(const char *name, const char *mode)
{
	snprintf(path, sizeof path, "%s%s", feedback, name);
	return fopen(path, mode);
}

static void verdict(int code, const char *fmt, ...)
{
	FILE *f = fbopen("judgemessage.txt", "a");
	va_list ap;

	if (!f)
		exit(FAIL);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
	exit(code);
}

int main(int argc, char **argv)
{
	long long x, y;
	int pass = 0;
	FILE *f;

	if (argc < 4)
		return FAIL;
	feedback = argv[3];
	if ((f = fbopen("passes", "r"))) {
		if (fscanf(f, "%d", &pass) != 1)
			verdict(FAIL, "feedback_dir/passes is unreadable");
		fclose(f);
	}
	pass++;
	if (!(f = fopen(argv[1], "r")) || fscanf(f, "%lld", &x) != 1)
		verdict(FAIL, "pass %d: cannot read x from %s", pass, argv[1]);
	fclose(f);
	if (scanf("%lld", &y) != 1)
		verdict(WA, "pass %d: expected a number", pass);
	if (y != 2 * x)
		verdict(WA, "pass %d: %lld is not twice %lld", pass, y, x);
	if (!(f = fbopen("passes", "w")) || fprintf(f, "%d\n", pass) < 0 || fclose(f) != 0)
		verdict(FAIL, "cannot write feedback_dir/passes");
	if (pass < PASSES) {
		if (!(f = fbopen("nextpass.in", "w")) || fprintf(f, "%lld\n", y + 1) < 0 || fclose(f) != 0)
			verdict(FAIL, "cannot write feedback_dir/nextpass.in");
		return AC;
	}
	verdict(AC, "%d passes, the last on %lld", pass, x);
	return FAIL;
}
