/*
 * Copyright (c) the mgcap developers.  BSD-2-Clause, as libpcap.
 *
 * The mgcap capture module's private state, for pcap-mgcap.c and the
 * read-path bench (bench/readpath.c), which points it at synthetic rings
 * and calls the read op the patched libpcap's archive holds.
 */
#ifndef PCAP_MGCAP_INT_H
#define PCAP_MGCAP_INT_H

#include "pcap-int.h"
#include "mgcap_adapter.h"
#include "mgcap_hwtstamp.h"
#include "mgcap_merge.h"
#include "mgcap_source.h"

/*
 * How long a record may wait for an empty queue that could still deliver an
 * older one (capped by the read timeout; MGCAP_MERGE_HOLD_MS overrides).
 * Longer keeps the order through longer scheduling delays; shorter needs
 * less ring to absorb traffic while a queue stays idle.
 */
#define MGCAP_MERGE_HOLD_NS	100000000ULL

/* One device of the source. */
struct mgcap_dev {
	struct mgcap_source src;
	uint64_t ifdrop_base;
	int promisc_fd;		/* holds PACKET_MR_PROMISC; the kernel undoes it on close */
	struct mgcap_hwts_claim hwts;	/* the NIC's stamping, taken for adapter stamps */
	struct mgcap_adapter conv;	/* adapter stamps: its clock */
};

struct pcap_mgcap {
	struct mgcap_dev devs[MGCAP_MAX_DEVICES];
	size_t ndevs;
	struct mgcap_merge merge;
	struct mgcap_merge_queue *queues;
	size_t *queue_dev;	/* each queue's device, an index into devs */
	struct mgcap_queue_stats *stats_base;
	int event_fd;		/* pcap_breakloop() wakes a blocked read through it */
	/*
	 * Adapter stamps: fires when a clock sample is due without traffic, so
	 * that a caller that waits on the selectable fd (dumpcap) calls a read,
	 * which takes it.
	 */
	int sample_timer_fd;
	uint64_t sample_timer_at;	/* its expiry (CLOCK_MONOTONIC ns); 0: none */
	/* a merged source: fires when a record held back may go (non-blocking callers) */
	int hold_timer_fd;
	int parked;		/* rings with a held record are readable only at their fill mark */
	int nonblock;
	int nano;		/* nanosecond precision */
	int on_close_list;	/* pcap_add_to_pcaps_to_close(): closed at exit() too */
	int tstamp_type;	/* PCAP_TSTAMP_*: what the stamps are, after any warning */
	int adapter;		/* PCAP_TSTAMP_ADAPTER: converted, the rings gated */
	unsigned long corruptions_seen;	/* mgcap_reader_corruptions when none was ours */
};

/* the read and cleanup ops (not exported from the shared library) */
int pcap_mgcap_read(pcap_t *p, int cnt, pcap_handler cb, u_char *user);
void pcap_mgcap_cleanup(pcap_t *p);

/*
 * pcap-mgcap-tstamp.c: the stamps asked for (p->opt.tstamp_type) set up for
 * every device: 0, a warning (host stamps then), or an error; *@source is
 * what the rings are to stamp with (MGCAP_TSTAMP_*).  Closing reports what
 * the conversion did and gives the NICs' stamping back.
 */
int mgcap_tstamp_setup(pcap_t *p, uint32_t *source);
void mgcap_tstamp_close(pcap_t *p);

/* pcap-mgcap-wait.c: how a read waits (PCAP_ERROR_* with errbuf, or 0) */
int mgcap_wait_open(pcap_t *p);		/* the epoll set, p->fd, and what is in it */
void mgcap_wait_close(pcap_t *p);
/*
 * Sleeps until a ring has records, pcap_breakloop() or a timer fires, or
 * @timeout_ms passes (-1: no limit); @holding: the merge holds a record back.
 */
int mgcap_wait(pcap_t *p, int timeout_ms, int holding);
/* a non-blocking read that delivered nothing: the selectable fd made honest */
int mgcap_wait_settle_for_poll(pcap_t *p, uint64_t now, uint64_t hold_ns);
void mgcap_wait_unpark(pcap_t *p);
/* adapter stamps: the gates opened and the clocks sampled where due; the timer */
void mgcap_wait_sample_clocks(struct pcap_mgcap *pm, uint64_t now);
uint64_t mgcap_wait_sample_due(const struct pcap_mgcap *pm, uint64_t now);
void mgcap_wait_arm_sample_timer(struct pcap_mgcap *pm, uint64_t now);

#endif /* PCAP_MGCAP_INT_H */
