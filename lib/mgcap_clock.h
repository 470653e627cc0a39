/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A NIC clock (PHC) related to system time, to convert hardware stamps
 * (libpcap's PCAP_TSTAMP_ADAPTER).  Pure logic: the caller takes the samples
 * (cross-timestamps of the PHC against CLOCK_REALTIME, the narrowest of a
 * few) and feeds them in order.
 *
 * A stamp is converted only between two samples that bracket it, on the
 * line through them.  Each conversion comes with a bound on its error: half
 * the wider window of the two samples, plus how far the later sample strayed
 * from the drift model (a step or a change of frequency inside the interval
 * bends the truth away from the line by no more than that), plus the
 * model's frequency uncertainty over the interval.  A sample that strays
 * more than its windows explain is a step of either clock (ptp4l's settime,
 * a leap second, an NTP step): the drift model starts again, the intervals
 * before it are forgotten, and PHC values that a stamp from before the step
 * could have are never converted again (after a backward step the PHC
 * repeats them).  What cannot be converted within the caller's bound falls
 * back to the caller (the kernel's software stamp, counted).
 */
#ifndef MGCAP_CLOCK_H
#define MGCAP_CLOCK_H

#include <stdint.h>

/* One cross-timestamp: the PHC read between two reads of system time. */
struct mgcap_clock_sample {
	int64_t sys_before;	/* ns since the epoch */
	int64_t phc;		/* ns on the PHC's own scale (often TAI) */
	int64_t sys_after;
	int64_t mono;		/* CLOCK_MONOTONIC then, which never steps: how much
				 * time passed across a step of either clock */
};

/* The system time the sample's PHC reading is taken to be at: its window's middle. */
static inline int64_t mgcap_clock_sample_sys(const struct mgcap_clock_sample *s)
{
	return s->sys_before + (s->sys_after - s->sys_before) / 2;
}

/*
 * Intervals kept, for stamps read after later samples were taken.  Samples
 * must come less than 2^32 ns (4.29 s) apart: a longer interval is not
 * converted.
 */
#define MGCAP_CLOCK_INTERVALS	64
/*
 * A window is never taken as narrower than this either side: even a true
 * cross-timestamp (PTP_SYS_OFFSET_PRECISE, window 0) carries the clocks'
 * rounding and the system clock's tick-by-tick rate adjustments.
 */
#define MGCAP_CLOCK_MIN_HALF_NS	25
/* The largest frequency error a PHC may have against system time (1000 ppm). */
#define MGCAP_CLOCK_MAX_RATE	1e-3

struct mgcap_clock_interval {
	int64_t phc_a, phc_b;	/* the PHC at its two samples */
	int64_t min_phc;	/* lowest stamp it converts (above a step's) */
	int64_t sys_a;		/* system time at phc_a */
	int64_t slope;		/* sys - phc drift, 2^-32 ns per ns */
	uint64_t bound_ns;	/* error bound of a stamp converted in it */
};

struct mgcap_clock {
	struct mgcap_clock_interval iv[MGCAP_CLOCK_INTERVALS];	/* oldest first */
	unsigned int n_iv;
	/* the last sample: midpoint system time, PHC, half window */
	int have_last;
	int64_t last_sys, last_phc, last_half, last_mono;
	/* the drift model: the first sample since the last step, and the rate */
	int64_t base_sys, base_phc, base_half;
	int have_rate;
	double rate;		/* d(sys - phc) / d(phc): the PHC's frequency error */
	double rate_unc;	/* its uncertainty, from the windows over the baseline */
	/* PHC values at or below this may be from before the last step */
	int64_t before_step;
	int have_step;
	/* for mgcap show and the counters */
	uint64_t samples, steps;
	int64_t last_window;
};

void mgcap_clock_init(struct mgcap_clock *c);

/*
 * What a sample may hold: every clock's nanoseconds below 2^62 (the year
 * 2116 for system time; no clock is set before 0), so that no difference
 * or sum of two overflows; a window of at most a second (the kernel's
 * slowest cross-timestamp takes microseconds).
 */
#define MGCAP_CLOCK_NS_MAX	(1LL << 62)
#define MGCAP_CLOCK_WINDOW_MAX	1000000000LL

/*
 * The next sample, taken after every earlier one.  1 if it reveals a step
 * since the previous one, 0 if not, -1 if refused (a clock outside its
 * range, a negative or wider window).
 */
int mgcap_clock_add_sample(struct mgcap_clock *c, const struct mgcap_clock_sample *s);

/*
 * @phc in system time: 0 with *sys and *bound_ns, or -1 when it cannot be
 * converted within @max_bound_ns (no samples around it yet, or no longer;
 * before a step; or too uncertain).
 */
int mgcap_clock_convert(const struct mgcap_clock *c, int64_t phc, uint64_t max_bound_ns,
			int64_t *sys, uint64_t *bound_ns);

/*
 * One interval as a reader's hot path keeps it: stamps lo .. lo + span
 * convert on its line, from the system time at lo, with no search.
 */
struct mgcap_clock_line {
	int64_t lo;
	uint64_t span;
	int64_t sys_lo;		/* system time at lo */
	uint64_t rate;		/* 2^32 + the interval's slope: system ns per PHC ns, << 32 */
	uint64_t bound_ns;
};

/* A line that converts nothing. */
#define MGCAP_CLOCK_LINE_NONE	((struct mgcap_clock_line){ .lo = INT64_MIN })

/* The line that converts @phc: 0, or -1 where mgcap_clock_convert() fails. */
int mgcap_clock_line_for(const struct mgcap_clock *c, int64_t phc, uint64_t max_bound_ns,
			 struct mgcap_clock_line *line);

/* 1 with *@sys if @phc is on @line, else 0. */
static inline int mgcap_clock_line_convert(const struct mgcap_clock_line *line, int64_t phc,
					   int64_t *sys)
{
	uint64_t d = (uint64_t)phc - (uint64_t)line->lo;

	if (d > line->span)
		return 0;
	/*
	 * d <= span < 2^32 and rate < 2^33: the product shifted fits in 64
	 * bits; on x86-64 the line is one multiply, a shift and an add.
	 */
	*sys = line->sys_lo + (int64_t)(uint64_t)(((unsigned __int128)d * line->rate) >> 32);
	return 1;
}

#endif /* MGCAP_CLOCK_H */
