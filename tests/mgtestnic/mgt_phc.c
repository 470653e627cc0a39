// SPDX-License-Identifier: GPL-2.0
/* The test NIC's clock: see mgt_phc.h. */
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/timekeeping.h>

#include "mgt_phc.h"

/* adjfine's limit, and the largest error the sysfs knob takes */
#define MGT_PHC_MAX_PPB		1000000

static s64 mgt_phc_scale(s64 d, s64 ppb)
{
	s32 rem;
	s64 sec = div_s64_rem(d, NSEC_PER_SEC, &rem);

	/* in two parts, so that hours at 1000 ppm do not overflow */
	return sec * ppb + div_s64((s64)rem * ppb, NSEC_PER_SEC);
}

/* The PHC at CLOCK_MONOTONIC_RAW @raw, under either side of the lock. */
static s64 mgt_phc_line(const struct mgt_phc *phc, s64 raw)
{
	return phc->anchor_phc + (raw - phc->anchor_raw) +
	       mgt_phc_scale(raw - phc->anchor_raw, phc->ppb);
}

static s64 mgt_phc_at(struct mgt_phc *phc, s64 raw)
{
	unsigned int seq;
	s64 t;

	do {
		seq = read_seqbegin(&phc->lock);
		t = mgt_phc_line(phc, raw);
	} while (read_seqretry(&phc->lock, seq));
	return t;
}

/* Under the write lock: a new line from now, at @phc_now. */
static void mgt_phc_reanchor(struct mgt_phc *phc, s64 raw, s64 phc_now)
{
	phc->anchor_raw = raw;
	phc->anchor_phc = phc_now;
	phc->ppb = phc->error_ppb + phc->adj_ppb;
}

static struct mgt_phc *mgt_phc_of(struct ptp_clock_info *info)
{
	return container_of(info, struct mgt_phc, info);
}

static int mgt_phc_gettimex64(struct ptp_clock_info *info, struct timespec64 *ts,
			      struct ptp_system_timestamp *sts)
{
	struct mgt_phc *phc = mgt_phc_of(info);
	s64 raw;

	/* without sts it is the plain read PTP_SYS_OFFSET and clock_gettime use */
	if (sts && READ_ONCE(phc->best) < MGT_PHC_EXTENDED)
		return -EOPNOTSUPP;
	ptp_read_system_prets(sts);
	raw = ktime_get_raw_ns();
	ptp_read_system_postts(sts);
	*ts = ns_to_timespec64(mgt_phc_at(phc, raw));
	return 0;
}

static int mgt_phc_getcrosststamp(struct ptp_clock_info *info,
				  struct system_device_crosststamp *cts)
{
	struct mgt_phc *phc = mgt_phc_of(info);
	struct system_time_snapshot snap;

	if (READ_ONCE(phc->best) < MGT_PHC_PRECISE)
		return -EOPNOTSUPP;
	ktime_get_snapshot(&snap);
	cts->device = ns_to_ktime(mgt_phc_at(phc, ktime_to_ns(snap.raw)));
	cts->sys_realtime = snap.real;
	cts->sys_monoraw = snap.raw;
	return 0;
}

static int mgt_phc_settime64(struct ptp_clock_info *info, const struct timespec64 *ts)
{
	struct mgt_phc *phc = mgt_phc_of(info);

	write_seqlock_bh(&phc->lock);
	mgt_phc_reanchor(phc, ktime_get_raw_ns(), timespec64_to_ns(ts));
	write_sequnlock_bh(&phc->lock);
	return 0;
}

void mgt_phc_step(struct mgt_phc *phc, s64 delta_ns)
{
	s64 raw;

	write_seqlock_bh(&phc->lock);
	raw = ktime_get_raw_ns();
	mgt_phc_reanchor(phc, raw, mgt_phc_line(phc, raw) + delta_ns);
	write_sequnlock_bh(&phc->lock);
}

static int mgt_phc_adjtime(struct ptp_clock_info *info, s64 delta)
{
	mgt_phc_step(mgt_phc_of(info), delta);
	return 0;
}

/* Under the write lock: the new rate from now on. */
static void mgt_phc_set_rate(struct mgt_phc *phc, s64 error_ppb, s64 adj_ppb)
{
	s64 raw = ktime_get_raw_ns();
	s64 now = mgt_phc_line(phc, raw);

	phc->error_ppb = error_ppb;
	phc->adj_ppb = adj_ppb;
	mgt_phc_reanchor(phc, raw, now);
}

static int mgt_phc_adjfine(struct ptp_clock_info *info, long scaled_ppm)
{
	struct mgt_phc *phc = mgt_phc_of(info);

	write_seqlock_bh(&phc->lock);
	mgt_phc_set_rate(phc, phc->error_ppb, scaled_ppm_to_ppb(scaled_ppm));
	write_sequnlock_bh(&phc->lock);
	return 0;
}

int mgt_phc_set_error(struct mgt_phc *phc, s64 ppb)
{
	if (ppb < -MGT_PHC_MAX_PPB || ppb > MGT_PHC_MAX_PPB)
		return -ERANGE;
	write_seqlock_bh(&phc->lock);
	mgt_phc_set_rate(phc, ppb, phc->adj_ppb);
	write_sequnlock_bh(&phc->lock);
	return 0;
}

u64 mgt_phc_now(struct mgt_phc *phc, u64 *sys_ns)
{
	struct system_time_snapshot snap;

	ktime_get_snapshot(&snap);
	*sys_ns = ktime_to_ns(snap.real);
	return mgt_phc_at(phc, ktime_to_ns(snap.raw));
}

s64 mgt_phc_offset(struct mgt_phc *phc)
{
	u64 sys, now = mgt_phc_now(phc, &sys);

	return (s64)(now - sys);
}

void mgt_phc_set_offset(struct mgt_phc *phc, s64 offset_ns)
{
	struct system_time_snapshot snap;

	write_seqlock_bh(&phc->lock);
	ktime_get_snapshot(&snap);
	mgt_phc_reanchor(phc, ktime_to_ns(snap.raw), ktime_to_ns(snap.real) + offset_ns);
	write_sequnlock_bh(&phc->lock);
}

static const struct ptp_clock_info mgt_phc_info = {
	.owner = THIS_MODULE,
	.name = "mgtestnic",
	.max_adj = MGT_PHC_MAX_PPB,
	.gettimex64 = mgt_phc_gettimex64,
	.getcrosststamp = mgt_phc_getcrosststamp,
	.settime64 = mgt_phc_settime64,
	.adjtime = mgt_phc_adjtime,
	.adjfine = mgt_phc_adjfine,
};

int mgt_phc_register(struct mgt_phc *phc, struct device *parent, s64 offset_ns)
{
	seqlock_init(&phc->lock);
	phc->info = mgt_phc_info;
	phc->best = MGT_PHC_PRECISE;
	phc->error_ppb = 0;
	phc->adj_ppb = 0;
	mgt_phc_set_offset(phc, offset_ns);
	phc->clock = ptp_clock_register(&phc->info, parent);
	if (IS_ERR(phc->clock)) {
		int err = PTR_ERR(phc->clock);

		phc->clock = NULL;
		return err;
	}
	return 0;
}

void mgt_phc_unregister(struct mgt_phc *phc)
{
	if (phc->clock)
		ptp_clock_unregister(phc->clock);
	phc->clock = NULL;
}

int mgt_phc_index(struct mgt_phc *phc)
{
	return phc->clock ? ptp_clock_index(phc->clock) : -1;
}
