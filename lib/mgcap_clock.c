// SPDX-License-Identifier: BSD-2-Clause
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mgcap_clock.h"

void mgcap_clock_init(struct mgcap_clock *c)
{
	memset(c, 0, sizeof(*c));
}

static void add_interval(struct mgcap_clock *c, const struct mgcap_clock_interval *iv)
{
	if (c->n_iv == MGCAP_CLOCK_INTERVALS) {
		memmove(&c->iv[0], &c->iv[1], (MGCAP_CLOCK_INTERVALS - 1) * sizeof(c->iv[0]));
		c->n_iv--;
	}
	c->iv[c->n_iv++] = *iv;
}

/*
 * The interval from the last sample to (@sys, @phc, @half), on the line
 * through both, if the arithmetic can carry it: the PHC advanced at most
 * 2^32 ns and the two clocks' rates differ by less than 1/256, so that a
 * stamp's distance times the slope fits in 64 bits (2^32 * 2^24).
 */
static void add_line(struct mgcap_clock *c, int64_t sys, int64_t phc, double bound)
{
	struct mgcap_clock_interval iv;
	int64_t dphc = phc - c->last_phc, dsys = sys - c->last_sys;

	if (dphc <= 0 || dphc > (1LL << 32) || llabs(dsys - dphc) > dphc / 256 || !(bound < 1e18))
		return;
	iv.phc_a = c->last_phc;
	iv.phc_b = phc;
	iv.min_phc = c->have_step && c->before_step >= iv.phc_a ? c->before_step + 1 : iv.phc_a;
	iv.sys_a = c->last_sys;
	iv.slope = (int64_t)((__int128)(dsys - dphc) * ((__int128)1 << 32) / dphc);
	iv.bound_ns = (uint64_t)ceil(bound) + 3;	/* + the slope's and two shifts' rounding */
	add_interval(c, &iv);
}

/* in [0, MGCAP_CLOCK_NS_MAX) */
static int in_range(int64_t ns)
{
	return ns >= 0 && ns < MGCAP_CLOCK_NS_MAX;
}

int mgcap_clock_add_sample(struct mgcap_clock *c, const struct mgcap_clock_sample *s)
{
	int64_t window, sys, half, dphc, dsys, elapsed, reach;
	double moved, unc, stray;
	int step = 0;

	if (!in_range(s->sys_before) || !in_range(s->sys_after) || !in_range(s->phc) ||
	    !in_range(s->mono))
		return -1;
	window = s->sys_after - s->sys_before;
	if (window < 0 || window > MGCAP_CLOCK_WINDOW_MAX)
		return -1;
	sys = mgcap_clock_sample_sys(s);
	half = (window + 1) / 2;
	if (half < MGCAP_CLOCK_MIN_HALF_NS)
		half = MGCAP_CLOCK_MIN_HALF_NS;
	c->samples++;
	c->last_window = window;
	if (!c->have_last)
		goto rebase;

	dphc = s->phc - c->last_phc;
	dsys = sys - c->last_sys;
	/* how far the offset sys - phc moved beyond what the drift model says */
	moved = (double)(dsys - dphc);
	unc = (c->have_rate ? c->rate_unc : MGCAP_CLOCK_MAX_RATE) * fabs((double)dphc);
	stray = fabs(moved - (c->have_rate ? c->rate * (double)dphc : 0.0));
	step = dphc <= 0 || dsys <= 0 || stray > (double)(half + c->last_half) + unc;
	if (!step) {
		add_line(c, sys, s->phc, (double)(half > c->last_half ? half : c->last_half) +
			 stray + unc);
		/*
		 * the offsets subtracted as integers first: a PHC may be further
		 * from system time than a double carries to the ns (2^53 ns)
		 */
		c->rate = (double)((sys - s->phc) - (c->base_sys - c->base_phc)) /
			  (double)(s->phc - c->base_phc);
		c->rate_unc = (double)(half + c->base_half) / (double)(s->phc - c->base_phc);
		c->have_rate = 1;
		c->last_sys = sys;
		c->last_phc = s->phc;
		c->last_half = half;
		c->last_mono = s->mono;
		return 0;
	}

	/*
	 * A step of either clock.  No PHC value read before it exceeds the last
	 * sample's plus the time that can have passed since, at the fastest
	 * rate: stamps up to there may be from before it, and are refused.
	 */
	c->steps++;
	elapsed = s->mono - c->last_mono + half + c->last_half;
	/* (CLOCK_MONOTONIC may itself be slewed by up to 500 ppm) */
	reach = (int64_t)fmin(ceil((double)elapsed * (1 + MGCAP_CLOCK_MAX_RATE + 5e-4)),
			      MGCAP_CLOCK_NS_MAX);
	/* (no PHC reading in range lies beyond MGCAP_CLOCK_NS_MAX: it saturates there) */
	c->before_step = reach < MGCAP_CLOCK_NS_MAX - c->last_phc ? c->last_phc + 1 + reach :
								      MGCAP_CLOCK_NS_MAX;
	c->have_step = 1;
	/*
	 * The interval across the step converts on its line, which strays from
	 * either side's truth by no more than the sample did.
	 */
	c->n_iv = 0;
	add_line(c, sys, s->phc, (double)(half > c->last_half ? half : c->last_half) +
		 stray + unc);
	if (c->n_iv)
		c->iv[0].min_phc = c->iv[0].phc_a;
rebase:
	c->have_last = 1;
	c->last_sys = c->base_sys = sys;
	c->last_phc = c->base_phc = s->phc;
	c->last_half = c->base_half = half;
	c->last_mono = s->mono;
	c->have_rate = 0;
	return step;
}

/* The interval that converts @phc within @max_bound_ns, or NULL. */
static const struct mgcap_clock_interval *
interval_for(const struct mgcap_clock *c, int64_t phc, uint64_t max_bound_ns)
{
	const struct mgcap_clock_interval *iv;
	unsigned int i = c->n_iv;

	/* the newest interval that holds it: stamps arrive a little after their time */
	for (;;) {
		if (i == 0)
			return NULL;
		iv = &c->iv[--i];
		if (phc > iv->phc_b)
			return NULL;
		if (phc >= iv->phc_a)
			break;
	}
	if (phc < iv->min_phc || iv->bound_ns > max_bound_ns)
		return NULL;
	return iv;
}

int mgcap_clock_line_for(const struct mgcap_clock *c, int64_t phc, uint64_t max_bound_ns,
			 struct mgcap_clock_line *line)
{
	const struct mgcap_clock_interval *iv = interval_for(c, phc, max_bound_ns);
	int64_t d;

	if (!iv)
		return -1;
	d = iv->min_phc - iv->phc_a;
	line->lo = iv->min_phc;
	line->span = (uint64_t)(iv->phc_b - iv->min_phc);
	line->sys_lo = iv->sys_a + d + ((d * iv->slope) >> 32);
	line->rate = (uint64_t)((1LL << 32) + iv->slope);
	line->bound_ns = iv->bound_ns;
	return 0;
}

int mgcap_clock_convert(const struct mgcap_clock *c, int64_t phc, uint64_t max_bound_ns,
			int64_t *sys, uint64_t *bound_ns)
{
	struct mgcap_clock_line line;

	if (mgcap_clock_line_for(c, phc, max_bound_ns, &line) < 0)
		return -1;
	mgcap_clock_line_convert(&line, phc, sys);
	*bound_ns = line.bound_ns;
	return 0;
}
