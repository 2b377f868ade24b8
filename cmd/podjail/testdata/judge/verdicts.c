/* One program for every verdict: the first word of its input says what
 * to do (TestJudgeVerdicts), so that one build serves every test.
 *   ac     the sum of the two numbers after it
 *   wa     a wrong first token, then a gigabyte: the judge stops it at once
 *   spin   burns processor time for ever: the processor ceiling stops it
 *   sleep  sleeps for ever: no progress stops it
 *   tick   wakes for a moment every millisecond, always making a little
 *          progress and never reaching the processor ceiling: the
 *          absolute cap stops it
 *   hog    a gigabyte, touched a megabyte at a time: MLE
 *   flood  the right answer, then blank lines for ever: the comparator
 *          finds no difference, so the output limit stops it (OLE)
 *   exit3  exits with code 3
 *   segv   writes through a null pointer */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile char sink; /* hog's pages are used: no compiler drops them */

static int wrong_then_flood(void) {
	static char buf[1 << 16];
	memset(buf, '1', sizeof buf);
	for (size_t i = 1; i < sizeof buf; i += 2) buf[i] = ' ';
	printf("41\n");
	fflush(stdout);
	for (long i = 0; i < (1L << 30) / (long)sizeof buf; i++)
		if (write(1, buf, sizeof buf) < 0) return 1;
	return 0;
}

int main(void) {
	char what[16];
	long long a, b;
	if (scanf("%15s %lld %lld", what, &a, &b) != 3) return 1;
	if (!strcmp(what, "ac")) {
		printf("%lld\n", a + b);
	} else if (!strcmp(what, "wa")) {
		return wrong_then_flood();
	} else if (!strcmp(what, "spin")) {
		volatile unsigned long x = 0;
		for (;;) x++;
	} else if (!strcmp(what, "sleep")) {
		for (;;) pause();
	} else if (!strcmp(what, "tick")) {
		struct timespec ms = {0, 1000000};
		for (;;) nanosleep(&ms, 0);
	} else if (!strcmp(what, "hog")) {
		for (int i = 0; i < 1024; i++) {
			char *p = malloc(1 << 20);
			if (!p) return 2;
			memset(p, 1, 1 << 20);
			sink = p[i];
		}
	} else if (!strcmp(what, "flood")) {
		fputs("42\n", stdout);
		for (;;) fputs("\n\n\n\n\n\n\n\n", stdout);
	} else if (!strcmp(what, "exit3")) {
		return 3;
	} else if (!strcmp(what, "segv")) {
		*(volatile int *)0 = 1;
	}
	return 0;
}
