/* Makes a 32-bit system call (int $0x80, getpid = 20 in the i386 table)
 * from a 64-bit program. The seccomp filter lists the native ABI alone, so
 * a call of another ABI meets libseccomp's bad-architecture action: the
 * thread, here the whole program, is killed by SIGSYS (RFE). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void) {
	static const char before[] = "calling getpid through int 0x80\n";
	if (write(1, before, sizeof before - 1) < 0) return 1;
	long ret;
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory", "cc", "r8", "r9", "r10", "r11");
	char line[96];
	int n = snprintf(line, sizeof line, "result: escaped, int 0x80 getpid returned %ld\n", ret);
	return write(1, line, n) < 0;
}
