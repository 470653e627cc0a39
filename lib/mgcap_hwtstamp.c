// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/sockios.h>

#include "mgcap_hwtstamp.h"

static int dev_ioctl(const char *dev, unsigned long req, void *data)
{
	struct ifreq ifr;
	int fd, ret, saved;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = data;
	ret = ioctl(fd, req, &ifr);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

int mgcap_hwts_info(const char *dev, struct ethtool_ts_info *info)
{
	memset(info, 0, sizeof(*info));
	info->cmd = ETHTOOL_GET_TS_INFO;
	return dev_ioctl(dev, SIOCETHTOOL, info);
}

int mgcap_hwts_get(const char *dev, struct hwtstamp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	return dev_ioctl(dev, SIOCGHWTSTAMP, cfg);
}

int mgcap_hwts_set(const char *dev, struct hwtstamp_config *cfg)
{
	return dev_ioctl(dev, SIOCSHWTSTAMP, cfg);
}

int mgcap_hwts_rx_capable(const struct ethtool_ts_info *info)
{
	return (info->so_timestamping & SOF_TIMESTAMPING_RX_HARDWARE) &&
	       (info->so_timestamping & SOF_TIMESTAMPING_RAW_HARDWARE) &&
	       (info->rx_filters & (1U << HWTSTAMP_FILTER_ALL));
}
