/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel API differences mgtestnic meets between 6.1 and 6.12. */
#ifndef MGTESTNIC_COMPAT_H
#define MGTESTNIC_COMPAT_H

#include <linux/version.h>

/* 6.11 gave ethtool's get_ts_info a kernel-only structure */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define mgt_ts_info kernel_ethtool_ts_info
#else
#define mgt_ts_info ethtool_ts_info
#endif

#endif /* MGTESTNIC_COMPAT_H */
