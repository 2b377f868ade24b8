/* Writes one line of N 'x' bytes (argv[1]) with no newline at all, 64 KiB
 * at a time. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc != 2) return 2;
	long long left = atoll(argv[1]);
	static char buf[64 << 10];
	memset(buf, 'x', sizeof buf);
	while (left > 0) {
		size_t n = left < (long long)sizeof buf ? (size_t)left : sizeof buf;
		ssize_t w = write(1, buf, n);
		if (w < 0) return 1;
		left -= w;
	}
	return 0;
}
