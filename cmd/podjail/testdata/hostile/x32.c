/* Makes an x32 system call (getpid = 39 with the x32 bit 0x40000000) with
 * the syscall instruction. libseccomp's x86_64 filter sends any number with
 * that bit to the bad-architecture action: killed by SIGSYS (RFE). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void) {
	static const char before[] = "calling getpid through the x32 ABI\n";
	if (write(1, before, sizeof before - 1) < 0) return 1;
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(39L | 0x40000000L) : "memory", "cc", "rcx", "r11");
	char line[96];
	int n = snprintf(line, sizeof line, "result: escaped, x32 getpid returned %ld\n", ret);
	return write(1, line, n) < 0;
}
