// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mgcap_adapter.h"
#include "mgcap_time.h"

int mgcap_adapter_open(struct mgcap_adapter *a, const char *ifname, char *err, size_t errlen)
{
	int index;

	memset(a, 0, sizeof(*a));
	a->phc.fd = -1;
	a->line = MGCAP_CLOCK_LINE_NONE;
	mgcap_clock_init(&a->clock);
	index = mgcap_phc_index(ifname);
	if (index < 0) {
		int saved = errno;

		snprintf(err, errlen, "%s has no hardware clock (PHC)%s%s", ifname,
			 saved == ENODEV ? "" : ": ", saved == ENODEV ? "" : strerror(saved));
		errno = saved;
		return -1;
	}
	return mgcap_phc_open(&a->phc, index, err, errlen);
}

void mgcap_adapter_close(struct mgcap_adapter *a)
{
	mgcap_phc_close(&a->phc);
}

/*
 * How far apart samples are taken without traffic.  A quarter of the drift
 * model's baseline: its rate error over the interval is then a quarter of
 * the sample windows.
 */
static uint64_t idle_period(const struct mgcap_adapter *a)
{
	uint64_t period = (a->last_sample_mono - a->base_mono) / 4;

	if (period < MGCAP_ADAPTER_FIRST_SAMPLE_NS)
		return MGCAP_ADAPTER_FIRST_SAMPLE_NS;
	return period < MGCAP_ADAPTER_IDLE_SAMPLE_NS ? period : MGCAP_ADAPTER_IDLE_SAMPLE_NS;
}

uint64_t mgcap_adapter_sample_due(const struct mgcap_adapter *a, uint64_t now_mono_ns)
{
	uint64_t since = now_mono_ns - a->last_sample_mono, period = idle_period(a);

	if (!a->last_sample_mono)
		return 0;
	return since < period ? period - since : 0;
}

int mgcap_adapter_sample(struct mgcap_adapter *a, int moved, uint64_t now_mono_ns)
{
	struct mgcap_clock_sample s;
	int step;

	if (!moved && mgcap_adapter_sample_due(a, now_mono_ns))
		return 0;
	a->last_sample_mono = now_mono_ns;
	if (mgcap_phc_sample(&a->phc, &s) < 0)
		step = -errno;
	else if ((step = mgcap_clock_add_sample(&a->clock, &s)) < 0)
		step = -ERANGE;		/* a clock out of range, a window below 0 or over 1 s */
	if (step < 0) {
		a->sample_errors++;
		a->sample_errno = -step;
		return -1;
	}
	if (step || a->clock.samples == 1)
		a->base_mono = now_mono_ns;
	if (s.sys_after - s.sys_before > a->worst_window_ns)
		a->worst_window_ns = s.sys_after - s.sys_before;
	/* after a step the line may be one that no longer holds */
	a->line = MGCAP_CLOCK_LINE_NONE;
	return 0;
}

uint64_t mgcap_adapter_stamp_slow(struct mgcap_adapter *a, const struct mgcap_rec *rec)
{
	int64_t sys = 0;

	/* the NIC did not stamp this one: the kernel did */
	if (!(rec->flags & MGCAP_REC_F_HWTSTAMP))
		return rec->flags & MGCAP_REC_F_SWTSTAMP ? mgcap_rec_swtstamp(rec) : rec->tstamp_ns;
	if (mgcap_clock_line_for(&a->clock, (int64_t)rec->tstamp_ns, MGCAP_ADAPTER_MAX_BOUND_NS,
				 &a->line) == 0) {
		if (a->line.bound_ns > a->worst_bound_ns)
			a->worst_bound_ns = a->line.bound_ns;
		mgcap_clock_line_convert(&a->line, (int64_t)rec->tstamp_ns, &sys);
		return (uint64_t)sys;
	}
	a->fallbacks++;
	if (rec->flags & MGCAP_REC_F_SWTSTAMP)
		return mgcap_rec_swtstamp(rec);
	/* a ring not set to MGCAP_TSTAMP_HW_AND_SW: the time it is read */
	return mgcap_now_ns(CLOCK_REALTIME);
}

void mgcap_adapter_describe(const struct mgcap_adapter *a, char *buf, size_t len)
{
	int n;

	n = snprintf(buf, len, "/dev/ptp%d by %s, %" PRIu64 " samples (widest window %" PRId64
		     " ns), %" PRIu64 " steps, worst bound %" PRIu64 " ns, %" PRIu64
		     " stamps fell back to the kernel's",
		     a->phc.index, mgcap_phc_method_name(a->phc.method), a->clock.samples,
		     a->worst_window_ns, a->clock.steps, a->worst_bound_ns, a->fallbacks);
	if (a->sample_errors && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", %" PRIu64 " samples refused (%s)",
			 a->sample_errors, strerror(a->sample_errno));
}
