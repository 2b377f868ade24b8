/* Twice the number. */
#include <stdio.h>

int main(void)
{
	long long x;

	if (scanf("%lld", &x) != 1)
		return 1;
	printf("%lld\n", 2 * x);
	return 0;
}
