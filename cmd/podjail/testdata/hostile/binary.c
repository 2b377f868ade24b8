/* Writes binary output: 64 KiB where byte i is (i ^ (i >> 8)) & 0xff, so
 * every value, NUL included, comes many times; then bytes that look like a
 * Docker attach frame header (stream 1, length 16), NULs, CR LF, a terminal
 * escape and invalid UTF-8. The test rebuilds the same bytes. */
#include <unistd.h>

int main(void) {
	static unsigned char buf[65536];
	for (unsigned i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(i ^ (i >> 8));
	static const unsigned char tail[] = {1, 0, 0, 0, 0, 0, 0, 16, 0, '\r', '\n', 0x1b, '[', '2', 'J', 0xff, 0xfe, 0};
	if (write(1, buf, sizeof buf) != sizeof buf) return 1;
	if (write(1, tail, sizeof tail) != sizeof tail) return 1;
	return 0;
}
