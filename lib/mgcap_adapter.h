/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Adapter stamps (libpcap's PCAP_TSTAMP_ADAPTER): a NIC's hardware stamps
 * converted to system time, for a reader of that NIC's rings.
 *
 * The reader gates its rings (mgcap_reader_set_gated) and, before each
 * read, opens the gates and then takes a clock sample: every record it
 * reads was captured before the newest sample, so its stamp lies between
 * two samples, and a step of either clock is seen before any stamp from
 * after the step is converted.  Readers that read in bursts pay one sample
 * (one ioctl) per burst; the hot path is mgcap_adapter_stamp()'s line.
 *
 * A stamp that cannot be converted within the bound (no interval around
 * it, one across a step, or too uncertain) gets the kernel's stamp of the
 * same frame (MGCAP_TSTAMP_HW_AND_SW), and is counted; so does a frame the
 * NIC did not stamp, uncounted.
 */
#ifndef MGCAP_ADAPTER_H
#define MGCAP_ADAPTER_H

#include <stddef.h>
#include <stdint.h>
#include <linux/mgcap.h>

#include "mgcap_clock.h"
#include "mgcap_phc.h"

/* The most a converted stamp may be off; the rest fall back. */
#define MGCAP_ADAPTER_MAX_BOUND_NS	10000ULL
/*
 * Without traffic, samples are taken 1 ms apart at first, then a quarter
 * of the time since the start (or the last step) apart, up to 1 s: the
 * drift model is sound within milliseconds, and intervals stay short
 * enough to convert in.
 */
#define MGCAP_ADAPTER_FIRST_SAMPLE_NS	1000000ULL
#define MGCAP_ADAPTER_IDLE_SAMPLE_NS	1000000000ULL

struct mgcap_adapter {
	struct mgcap_clock_line line;	/* the interval the last stamp converted in */
	struct mgcap_phc phc;
	struct mgcap_clock clock;
	uint64_t last_sample_mono;	/* CLOCK_MONOTONIC ns; 0: none yet */
	uint64_t base_mono;		/* of the first sample since the start or a step */
	uint64_t fallbacks;		/* stamps given the kernel's instead */
	uint64_t sample_errors;		/* samples the PHC refused */
	uint64_t worst_bound_ns;	/* of any stamp converted */
	int64_t worst_window_ns;	/* of any sample */
	int sample_errno;		/* of the last refused sample */
};

/*
 * Opens @ifname's PHC.  0; or -1 with errno (ENODEV: the NIC has no PHC)
 * and a one-line reason in @err.
 */
int mgcap_adapter_open(struct mgcap_adapter *a, const char *ifname, char *err, size_t errlen);
void mgcap_adapter_close(struct mgcap_adapter *a);

/*
 * After the reader opened its gates (@moved: any let something through):
 * takes a sample if anything came or the last one is old.  0, or -1 when
 * the PHC refused (counted; the records let through then fall back).
 */
int mgcap_adapter_sample(struct mgcap_adapter *a, int moved, uint64_t now_mono_ns);

/* How long the reader may sleep before the next sample is due (ns); 0: now. */
uint64_t mgcap_adapter_sample_due(const struct mgcap_adapter *a, uint64_t now_mono_ns);

uint64_t mgcap_adapter_stamp_slow(struct mgcap_adapter *a, const struct mgcap_rec *rec);

/*
 * @rec's stamp in system time (ns since the epoch), on a->line where it
 * holds.  A batch loop reads the line's fields from memory as operands
 * (the callback between stamps may change any memory): a copy in locals
 * spilled to the stack and cost two loads more a stamp.
 */
static inline uint64_t mgcap_adapter_stamp(struct mgcap_adapter *a, const struct mgcap_rec *rec)
{
	int64_t sys;

	/* a record without the NIC's stamp holds 0 (MGCAP_TSTAMP_HW_AND_SW): on no line */
	if (__builtin_expect(mgcap_clock_line_convert(&a->line, (int64_t)rec->tstamp_ns, &sys), 1))
		return (uint64_t)sys;
	return mgcap_adapter_stamp_slow(a, rec);
}

/* One line on what the conversion did: method, samples, windows, bounds, fallbacks. */
void mgcap_adapter_describe(const struct mgcap_adapter *a, char *buf, size_t len);

/*
 * The mgcap libpcap says what the stamps of a handle are, for mgcap's own
 * tools; they find it with dlsym(), as another libpcap lacks it:
 *   int pcap_mgcap_tstamp_report(pcap_t *p, char *buf, size_t len)
 * returns the PCAP_TSTAMP_* type the stamps really are (another when
 * activation warned), with adapter stamps what the conversion did in @buf
 * (mgcap_adapter_describe), and for a merged source how many records it
 * delivered out of stamp order, how many records held coalesced frames
 * where any did and how many held frames the device sent where any did,
 * else ""; or -1 when @p is not an mgcap source.
 */
#define MGCAP_TSTAMP_REPORT_SYMBOL	"pcap_mgcap_tstamp_report"
/*
 *   int64_t pcap_mgcap_coalesced(pcap_t *p)
 * returns how many records of @p's queues held coalesced frames since the
 * capture's start (MGCAP_REC_F_COALESCED), or -1 when @p is not an mgcap
 * source or its counters cannot be read.
 */
#define MGCAP_COALESCED_SYMBOL		"pcap_mgcap_coalesced"
/*
 *   int pcap_mgcap_direction(pcap_t *p)
 * returns the direction of the packet @p last handed to a callback (or
 * returned by pcap_next_ex()), while its data is valid (in the callback;
 * until the next call of pcap_next_ex()): PCAP_D_IN, received, or
 * PCAP_D_OUT, sent by the device (MGCAP_REC_F_SENT); -1 when @p is not
 * an mgcap source.
 */
#define MGCAP_DIRECTION_SYMBOL		"pcap_mgcap_direction"

#endif /* MGCAP_ADAPTER_H */
