/* SPDX-License-Identifier: BSD-2-Clause */
/* What a network device says of itself: its type, flags and drop counters. */
#ifndef MGCAP_NETDEV_H
#define MGCAP_NETDEV_H

#include <stdint.h>

/* 1 if @ifname is an Ethernet device (the only kind mgcap captures), else 0. */
int mgcap_netdev_is_ethernet(const char *ifname);

/* Its IFF_* flags (SIOCGIFFLAGS), or -1 with errno. */
int mgcap_netdev_flags(const char *ifname);

/* What the NIC dropped before any capture saw it: rx_dropped + rx_missed_errors. */
uint64_t mgcap_netdev_drops(const char *ifname);

#endif /* MGCAP_NETDEV_H */
