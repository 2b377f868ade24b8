/* A plus B: wrong answer (prints a+b+1). */
#include <stdio.h>

int main(void)
{
	long long a, b;

	if (scanf("%lld %lld", &a, &b) != 2)
		return 1;
	/* unsigned arithmetic: wraps instead of overflowing on the largest test */
	printf("%lld\n", (long long)((unsigned long long)a + (unsigned long long)b + 1));
	return 0;
}
