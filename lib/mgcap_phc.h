/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A NIC's PTP hardware clock (/dev/ptpN), sampled against CLOCK_REALTIME
 * for mgcap_clock.  Each sample uses the best cross-timestamp the driver
 * offers: PTP_SYS_OFFSET_PRECISE (a true cross-timestamp), else
 * PTP_SYS_OFFSET_EXTENDED (system time read right around the clock's
 * latch), else PTP_SYS_OFFSET (around the whole read); of several readings
 * it keeps the one with the narrowest window, as phc2sys does.
 */
#ifndef MGCAP_PHC_H
#define MGCAP_PHC_H

#include <stddef.h>
#include <stdint.h>

#include "mgcap_clock.h"

enum mgcap_phc_method {
	MGCAP_PHC_PRECISE,
	MGCAP_PHC_EXTENDED,
	MGCAP_PHC_BASIC,
};

/* readings per sample where the method has a window to narrow */
#define MGCAP_PHC_READINGS	5

struct mgcap_phc {
	int fd;
	int index;			/* N of /dev/ptpN */
	enum mgcap_phc_method method;	/* the best the driver took last */
};

/* The PHC of @ifname's NIC, or -1 when it has none (ENODEV). */
int mgcap_phc_index(const char *ifname);

/*
 * Opens /dev/ptp@index read-only (sampling needs no more) and finds the
 * best method by taking a sample.  0, or -1 with errno and @err set.
 */
int mgcap_phc_open(struct mgcap_phc *phc, int index, char *err, size_t errlen);
void mgcap_phc_close(struct mgcap_phc *phc);

/*
 * One sample; a method the driver stops taking (EOPNOTSUPP) gives way to
 * the next.  0, or -1 with errno set.
 */
int mgcap_phc_sample(struct mgcap_phc *phc, struct mgcap_clock_sample *s);

const char *mgcap_phc_method_name(enum mgcap_phc_method method);

/* A NIC's clock against system time, as `mgcap show` reports it. */
struct mgcap_phc_status {
	int index;			/* N of /dev/ptpN; -1: the NIC has none */
	int err;			/* errno when it could not be read, else 0 */
	enum mgcap_phc_method method;
	int64_t offset_ns;		/* PHC minus system time, at the last sample */
	double freq_ppb, freq_unc_ppb;	/* the PHC's rate against system time */
	int64_t window_ns;		/* of the last sample */
};

/* Samples @ifname's clock MGCAP_PHC_MEASURE_SAMPLES times, GAP_NS apart. */
#define MGCAP_PHC_MEASURE_SAMPLES	5
#define MGCAP_PHC_MEASURE_GAP_NS	25000000L
void mgcap_phc_measure(const char *ifname, struct mgcap_phc_status *st);

#endif /* MGCAP_PHC_H */
