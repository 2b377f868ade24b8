/* Binary search, flushing after every guess. */
#include <stdio.h>

int main(void)
{
	long lo = 1, hi = 1000000;
	char reply[16];

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;

		printf("%ld\n", mid);
		fflush(stdout);
		if (scanf("%15s", reply) != 1 || reply[0] == 'c')
			return 0;
		if (reply[0] == 'l')
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return 0;
}
