/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A NIC's receive time stamping, through the classic ioctls: what it can do
 * (ETHTOOL_GET_TS_INFO) and what it does (SIOC[GS]HWTSTAMP).  Shared by the
 * mgcap tool and the libpcap module.
 */
#ifndef MGCAP_HWTSTAMP_LIB_H
#define MGCAP_HWTSTAMP_LIB_H

#include <linux/ethtool.h>
#include <linux/net_tstamp.h>

/* Each returns 0, or -1 with errno set (ENODEV, EPERM, EOPNOTSUPP...). */
int mgcap_hwts_info(const char *dev, struct ethtool_ts_info *info);
int mgcap_hwts_get(const char *dev, struct hwtstamp_config *cfg);
/* @cfg in: the request; out: what the driver granted */
int mgcap_hwts_set(const char *dev, struct hwtstamp_config *cfg);

/* 1 if the NIC can stamp received frames in hardware */
int mgcap_hwts_rx_capable(const struct ethtool_ts_info *info);

#endif /* MGCAP_HWTSTAMP_LIB_H */
