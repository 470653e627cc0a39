// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap-udpcount PORT IDLE_S: counts the UDP datagrams the stack delivers
 * to a socket on PORT, until none arrived for IDLE_S seconds; prints the
 * count.  The receive buffer is large enough to hold a test's whole load,
 * so the count does not depend on how fast this program runs.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd, rcvbuf = 256 << 20, idle_ms;
	unsigned long count = 0;
	char buf[16];

	if (argc != 3) {
		fprintf(stderr, "usage: mgcap-udpcount PORT IDLE_S\n");
		return 2;
	}
	sa.sin_port = htons((unsigned short)atoi(argv[1]));
	idle_ms = atoi(argv[2]) * 1000;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("mgcap-udpcount");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int n = poll(&pfd, 1, idle_ms);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
			count++;
	}
	printf("%lu\n", count);
	return 0;
}
