// SPDX-License-Identifier: BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "mgcap_netdev.h"

int mgcap_check_ifname(const char *s)
{
	size_t len = s ? strlen(s) : 0;
	size_t i;

	if (len == 0 || len >= IF_NAMESIZE)
		return -1;
	for (i = 0; i < len; i++)
		if (s[i] == '/' || isspace((unsigned char)s[i]))
			return -1;
	return 0;
}

/* The first line of /sys/class/net/@ifname/@attr, or "" when unreadable. */
static void read_attr(const char *ifname, const char *attr, char *buf, size_t len)
{
	char path[64 + IF_NAMESIZE];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, attr);
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
}

int mgcap_netdev_is_ethernet(const char *ifname)
{
	char type[16];

	read_attr(ifname, "type", type, sizeof(type));
	return type[0] && atoi(type) == ARPHRD_ETHER;
}

int mgcap_netdev_flags(const char *ifname)
{
	struct ifreq ifr;
	int fd, ret, saved;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	ret = ioctl(fd, SIOCGIFFLAGS, &ifr);
	saved = errno;
	close(fd);
	errno = saved;
	return ret < 0 ? -1 : (unsigned short)ifr.ifr_flags;
}

uint64_t mgcap_netdev_drops(const char *ifname)
{
	static const char *const names[] = { "statistics/rx_dropped",
					     "statistics/rx_missed_errors" };
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char v[32];

		read_attr(ifname, names[i], v, sizeof(v));
		sum += strtoull(v, NULL, 10);
	}
	return sum;
}
