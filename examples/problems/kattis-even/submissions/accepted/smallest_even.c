/* The smallest number of the range, made even where the range allows. */
#include <stdio.h>

int main(void)
{
	long long a, b;

	if (scanf("%lld %lld", &a, &b) != 2)
		return 1;
	if (a % 2 != 0 && a + 1 <= b)
		a++;
	printf("%lld\n", a);
	return 0;
}
