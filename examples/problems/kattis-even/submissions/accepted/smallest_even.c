/*
 * The smallest number of the range, made even where the range allows.
 * It copies its input line with strdup, a POSIX function that GNU C
 * declares in <string.h> and ISO C11 does not: Kattis and DOMjudge compile
 * C as GNU C, and so does podjail for a Kattis package.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	char line[64];
	long long a, b;
	char *copy;

	if (!fgets(line, sizeof line, stdin) || !(copy = strdup(line)))
		return 1;
	if (sscanf(copy, "%lld %lld", &a, &b) != 2)
		return 1;
	free(copy);
	if (a % 2 != 0 && a + 1 <= b)
		a++;
	printf("%lld\n", a);
	return 0;
}
