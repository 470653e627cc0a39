// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/ptp_clock.h>

#include "mgcap_hwtstamp.h"
#include "mgcap_phc.h"
#include "mgcap_time.h"

int mgcap_phc_index(const char *ifname)
{
	struct ethtool_ts_info info;

	if (mgcap_hwts_info(ifname, &info) < 0)
		return -1;
	if (info.phc_index < 0) {
		errno = ENODEV;
		return -1;
	}
	return info.phc_index;
}

static int64_t pct_ns(const struct ptp_clock_time *t)
{
	return t->sec * 1000000000LL + t->nsec;
}

/* The reading with the narrowest window of @n (before, phc, after) triples. */
static void narrowest(struct mgcap_clock_sample *s, const struct ptp_clock_time *before,
		      const struct ptp_clock_time *phc, const struct ptp_clock_time *after,
		      size_t stride, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		int64_t b = pct_ns(before + i * stride), a = pct_ns(after + i * stride);

		if (i == 0 || a - b < s->sys_after - s->sys_before) {
			s->sys_before = b;
			s->phc = pct_ns(phc + i * stride);
			s->sys_after = a;
		}
	}
}

static int sample_by(int fd, enum mgcap_phc_method method, struct mgcap_clock_sample *s)
{
	switch (method) {
	case MGCAP_PHC_PRECISE: {
		struct ptp_sys_offset_precise x;

		memset(&x, 0, sizeof(x));
		if (ioctl(fd, PTP_SYS_OFFSET_PRECISE, &x) < 0)
			return -1;
		s->sys_before = s->sys_after = pct_ns(&x.sys_realtime);
		s->phc = pct_ns(&x.device);
		return 0;
	}
	case MGCAP_PHC_EXTENDED: {
		struct ptp_sys_offset_extended x;

		/* the reserved words stay 0: CLOCK_REALTIME on every kernel */
		memset(&x, 0, sizeof(x));
		x.n_samples = MGCAP_PHC_READINGS;
		if (ioctl(fd, PTP_SYS_OFFSET_EXTENDED, &x) < 0)
			return -1;
		narrowest(s, &x.ts[0][0], &x.ts[0][1], &x.ts[0][2], 3, x.n_samples);
		return 0;
	}
	case MGCAP_PHC_BASIC: {
		struct ptp_sys_offset x;

		memset(&x, 0, sizeof(x));
		x.n_samples = MGCAP_PHC_READINGS;
		if (ioctl(fd, PTP_SYS_OFFSET, &x) < 0)
			return -1;
		/* system, PHC, system, PHC, ..., system */
		narrowest(s, &x.ts[0], &x.ts[1], &x.ts[2], 2, x.n_samples);
		return 0;
	}
	}
	errno = EINVAL;
	return -1;
}

int mgcap_phc_sample(struct mgcap_phc *phc, struct mgcap_clock_sample *s)
{
	int64_t real, mono;

	while (sample_by(phc->fd, phc->method, s) < 0) {
		if ((errno != EOPNOTSUPP && errno != ENOTTY) || phc->method == MGCAP_PHC_BASIC)
			return -1;
		phc->method++;
	}
	/*
	 * CLOCK_MONOTONIC at the reading, for the estimator's step logic:
	 * real and monotonic time advance alike, so the reading's distance
	 * from a pair read now carries over.
	 */
	real = (int64_t)mgcap_now_ns(CLOCK_REALTIME);
	mono = (int64_t)mgcap_now_ns(CLOCK_MONOTONIC);
	s->mono = mono - (real - mgcap_clock_sample_sys(s));
	return 0;
}

int mgcap_phc_open(struct mgcap_phc *phc, int index, char *err, size_t errlen)
{
	struct mgcap_clock_sample s;
	char path[32];

	snprintf(path, sizeof(path), "/dev/ptp%d", index);
	phc->index = index;
	phc->method = MGCAP_PHC_PRECISE;
	phc->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (phc->fd < 0) {
		snprintf(err, errlen, "cannot open the NIC's clock %s: %s", path, strerror(errno));
		return -1;
	}
	if (mgcap_phc_sample(phc, &s) < 0) {
		int saved = errno;

		snprintf(err, errlen, "cannot read the NIC's clock %s: %s", path, strerror(errno));
		mgcap_phc_close(phc);
		errno = saved;
		return -1;
	}
	return 0;
}

void mgcap_phc_close(struct mgcap_phc *phc)
{
	if (phc->fd >= 0)
		close(phc->fd);
	phc->fd = -1;
}

const char *mgcap_phc_method_name(enum mgcap_phc_method method)
{
	static const char *const names[] = {
		[MGCAP_PHC_PRECISE] = "PTP_SYS_OFFSET_PRECISE",
		[MGCAP_PHC_EXTENDED] = "PTP_SYS_OFFSET_EXTENDED",
		[MGCAP_PHC_BASIC] = "PTP_SYS_OFFSET",
	};

	return (unsigned int)method < sizeof(names) / sizeof(names[0]) ? names[method] : "?";
}

void mgcap_phc_measure(const char *ifname, struct mgcap_phc_status *st)
{
	struct timespec gap = { 0, MGCAP_PHC_MEASURE_GAP_NS };
	struct mgcap_clock_sample s;
	struct mgcap_clock c;
	struct mgcap_phc phc;
	char err[128];
	int i;

	memset(st, 0, sizeof(*st));
	st->index = mgcap_phc_index(ifname);
	if (st->index < 0) {
		st->err = errno == ENODEV ? 0 : errno;
		return;
	}
	if (mgcap_phc_open(&phc, st->index, err, sizeof(err)) < 0) {
		st->err = errno;
		return;
	}
	mgcap_clock_init(&c);
	for (i = 0; i < MGCAP_PHC_MEASURE_SAMPLES; i++) {
		if (i)
			nanosleep(&gap, NULL);
		if (mgcap_phc_sample(&phc, &s) < 0) {
			st->err = errno;
			break;
		}
		/* a step while measuring starts the rate again: what it says stays true */
		mgcap_clock_add_sample(&c, &s);
	}
	st->method = phc.method;
	mgcap_phc_close(&phc);
	if (st->err)
		return;
	st->offset_ns = s.phc - mgcap_clock_sample_sys(&s);
	st->window_ns = s.sys_after - s.sys_before;
	/* the estimator's rate is d(sys - phc) / d(phc): the PHC runs fast when it falls */
	st->freq_ppb = c.have_rate ? -c.rate * 1e9 : 0;
	st->freq_unc_ppb = c.have_rate ? c.rate_unc * 1e9 : 1e6;
}
