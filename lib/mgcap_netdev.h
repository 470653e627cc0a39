/* SPDX-License-Identifier: BSD-2-Clause */
/* A network device: what can name one, and what it says of itself (type, flags, drops). */
#ifndef MGCAP_NETDEV_H
#define MGCAP_NETDEV_H

#include <stdint.h>

/* 0 if @s can name a network interface (1..IFNAMSIZ-1 bytes, no '/' or spaces). */
int mgcap_check_ifname(const char *s);

/* 1 if @ifname is an Ethernet device (the only kind mgcap captures), else 0. */
int mgcap_netdev_is_ethernet(const char *ifname);

/* Its IFF_* flags (SIOCGIFFLAGS), or -1 with errno. */
int mgcap_netdev_flags(const char *ifname);

/* What the NIC dropped before any capture saw it: rx_dropped + rx_missed_errors. */
uint64_t mgcap_netdev_drops(const char *ifname);

#endif /* MGCAP_NETDEV_H */
