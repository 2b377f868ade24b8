/* A plus B: presentation error (prints the sum twice on one line). */
#include <stdio.h>

int main(void)
{
	long long a, b;

	if (scanf("%lld %lld", &a, &b) != 2)
		return 1;
	printf("%lld %lld\n", a + b, a + b);
	return 0;
}
