/* Writes 'x' to stdout for ever, 64 KiB at a time: the output cap stops the
 * run (OLE). */
#include <string.h>
#include <unistd.h>

int main(void) {
	static char buf[64 << 10];
	memset(buf, 'x', sizeof buf);
	for (;;)
		if (write(1, buf, sizeof buf) < 0) return 1;
}
