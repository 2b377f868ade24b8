/* Tries bpf(): make a map, load a socket filter program. The seccomp
 * profile answers EPERM without CAP_SYS_ADMIN or CAP_BPF. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void say(const char *fmt, ...) {
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n > 0 && write(1, line, n) < 0) _exit(1);
}

int main(void) {
	int escaped = 0;
	union bpf_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	long r = syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof attr);
	say("bpf(BPF_MAP_CREATE): %s\n", r < 0 ? strerrorname_np(errno) : "ok");
	escaped |= r >= 0;

	struct bpf_insn prog[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	memset(&attr, 0, sizeof attr);
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (uint64_t)(uintptr_t)prog;
	attr.insn_cnt = 2;
	attr.license = (uint64_t)(uintptr_t) "GPL";
	r = syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof attr);
	say("bpf(BPF_PROG_LOAD): %s\n", r < 0 ? strerrorname_np(errno) : "ok");
	escaped |= r >= 0;
	say("result: %s\n", escaped ? "escaped" : "blocked");
	return 0;
}
