#define _POSIX_C_SOURCE 200809L
/* A wrong first token, then a gigabyte: the judge must stop it at once. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(void) {
	static char buf[1 << 16];
	memset(buf, '1', sizeof buf);
	for (size_t i = 1; i < sizeof buf; i += 2) buf[i] = ' ';
	printf("41\n");
	fflush(stdout);
	for (long i = 0; i < (1L << 30) / (long)sizeof buf; i++)
		if (write(1, buf, sizeof buf) < 0) return 1;
	return 0;
}
