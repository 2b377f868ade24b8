/* Tries to reach the network: TCP to a public address, to the usual
 * gateways (Podman's bridge 10.88.0.1, QEMU's and pasta's 10.0.2.2), to
 * loopback and over IPv6; UDP to a public resolver; Podman's socket. The
 * container has no network (loopback only): a public or gateway address
 * gives ENETUNREACH. Exits 0 (AC) saying whether anything connected. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void say(const char *fmt, ...) {
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n > 0 && write(1, line, n) < 0) _exit(1);
}

static int escaped;

static void tcp4(const char *ip, int port) {
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) {
		say("socket(AF_INET): %s\n", strerrorname_np(errno));
		return;
	}
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, ip, &sa.sin_addr);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		say("connect %s:%d: %s\n", ip, port, strerrorname_np(errno));
	} else {
		say("connect %s:%d: ok\n", ip, port);
		if (strncmp(ip, "127.", 4) != 0) escaped = 1;
	}
	close(fd);
}

static void tcp6(const char *ip, int port) {
	int fd = socket(AF_INET6, SOCK_STREAM, 0);
	if (fd < 0) {
		say("socket(AF_INET6): %s\n", strerrorname_np(errno));
		return;
	}
	struct sockaddr_in6 sa = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	inet_pton(AF_INET6, ip, &sa.sin6_addr);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		say("connect [%s]:%d: %s\n", ip, port, strerrorname_np(errno));
	} else {
		say("connect [%s]:%d: ok\n", ip, port);
		escaped = 1;
	}
	close(fd);
}

static void udp4(const char *ip, int port) {
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		say("socket(AF_INET, SOCK_DGRAM): %s\n", strerrorname_np(errno));
		return;
	}
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, ip, &sa.sin_addr);
	if (sendto(fd, "x", 1, 0, (struct sockaddr *)&sa, sizeof sa) < 0) {
		say("sendto udp %s:%d: %s\n", ip, port, strerrorname_np(errno));
	} else {
		say("sendto udp %s:%d: ok\n", ip, port);
		escaped = 1;
	}
	close(fd);
}

static void unixsock(const char *path) {
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0) {
		say("socket(AF_UNIX): %s\n", strerrorname_np(errno));
		return;
	}
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		say("connect %s: %s\n", path, strerrorname_np(errno));
	} else {
		say("connect %s: ok\n", path);
		escaped = 1;
	}
	close(fd);
}

int main(void) {
	tcp4("1.1.1.1", 80);
	tcp4("10.88.0.1", 80);
	tcp4("10.0.2.2", 80);
	tcp4("127.0.0.1", 80);
	tcp6("2606:4700:4700::1111", 80);
	udp4("1.1.1.1", 53);
	unixsock("/run/podman/podman.sock");
	say("result: %s\n", escaped ? "escaped" : "blocked");
	return 0;
}
