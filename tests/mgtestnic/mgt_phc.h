/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test NIC's clock (PHC).  Its time runs at a chosen offset and
 * frequency error from the system clock, so that converting its stamps to
 * system time has something to do, and a test knows the truth: each stamp
 * comes with CLOCK_REALTIME read at the same instant.
 *
 * The clock is a line over CLOCK_MONOTONIC_RAW, which nothing steps or
 * slews: phc = anchor_phc + d + d * ppb / 10^9, d = raw - anchor_raw.  Every
 * change (settime, adjtime, adjfine, the sysfs knobs) starts a new line at
 * the current time, so the clock never jumps except where it is stepped.
 */
#ifndef MGT_PHC_H
#define MGT_PHC_H

#include <linux/ptp_clock_kernel.h>
#include <linux/seqlock.h>

/* The best cross-timestamp a PHC offers; each includes the ones below. */
enum mgt_phc_method {
	MGT_PHC_BASIC,		/* PTP_SYS_OFFSET only: no gettimex64 */
	MGT_PHC_EXTENDED,	/* gettimex64: PTP_SYS_OFFSET_EXTENDED */
	MGT_PHC_PRECISE,	/* getcrosststamp: PTP_SYS_OFFSET_PRECISE */
};

struct mgt_phc {
	struct ptp_clock_info info;
	struct ptp_clock *clock;
	seqlock_t lock;		/* over the line; written in process context */
	s64 anchor_raw;
	s64 anchor_phc;
	s64 ppb;		/* error_ppb + adj_ppb */
	s64 error_ppb;		/* the clock's own, chosen through sysfs */
	s64 adj_ppb;		/* what adjfine (phc2sys, phc_ctl freq) asked */
	enum mgt_phc_method best;
};

int mgt_phc_register(struct mgt_phc *phc, struct device *parent, s64 offset_ns);
void mgt_phc_unregister(struct mgt_phc *phc);
int mgt_phc_index(struct mgt_phc *phc);

/* The PHC's time now, and CLOCK_REALTIME (ns) at the same instant. */
u64 mgt_phc_now(struct mgt_phc *phc, u64 *sys_ns);

/* PHC minus CLOCK_REALTIME now; a step to CLOCK_REALTIME + @offset_ns. */
s64 mgt_phc_offset(struct mgt_phc *phc);
void mgt_phc_set_offset(struct mgt_phc *phc, s64 offset_ns);
/* A step by @delta_ns, as PTP's adjtime. */
void mgt_phc_step(struct mgt_phc *phc, s64 delta_ns);
/* The clock's own frequency error (what adjfine adds comes on top). */
int mgt_phc_set_error(struct mgt_phc *phc, s64 ppb);

#endif /* MGT_PHC_H */
