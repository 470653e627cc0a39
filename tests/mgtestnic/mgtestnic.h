/* SPDX-License-Identifier: GPL-2.0 */
/* mgtestnic: what its parts share (mgtestnic_main.c, mgt_sysfs.c). */
#ifndef MGTESTNIC_H
#define MGTESTNIC_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <linux/sysfs.h>
#include <linux/types.h>

#include "mgt_phc.h"

struct mgt_queue {
	struct napi_struct napi;
	struct net_device *dev;
	u16 index;
	u64 seq;			/* next frame's sequence number; NAPI only */
	atomic64_t pending;
	u8 *scratch;			/* frame under construction when non-linear */
	/*
	 * Paced (rate_pps): frame k of a run is due k / rate after its start;
	 * NAPI makes what is due and sleeps on the timer until the next.
	 */
	struct hrtimer pace_timer;
	atomic_t pace_restart;		/* set by generate on an idle queue */
	u64 pace_start_ns, pace_sent;	/* NAPI only */
};

/* A device's private part; the sysfs attributes set what its frames are. */
struct mgt_priv {
	u32 dev_index;
	u32 frame_len;
	u32 flows;
	u64 rate_pps;			/* each queue's frames a second; 0: as fast as it goes */
	u16 vlan_tci;
	bool nonlinear;
	bool netdev_tstamp;		/* the stamp's place holds the driver's data (tsnep) */
	bool hwtstamp_rx;
	bool hwtstamp_tx;		/* kept for SIOCGHWTSTAMP only */
	bool phc_stamps;
	struct mgt_queue *q;
	struct mgt_phc phc;
};

/* /sys/class/net/mgtN/mgtestnic/ (mgt_sysfs.c) */
extern const struct attribute_group mgt_attr_group;

#endif /* MGTESTNIC_H */
