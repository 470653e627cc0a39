/*
 * Copyright (c) the mgcap developers.  BSD-2-Clause, as libpcap.
 *
 * The mgcap capture module's private state and the calls between its
 * files, for them and the read-path bench (bench/readpath.c), which points
 * it at synthetic rings and calls the read op the patched libpcap's archive
 * holds.
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

/* What the handle's stamps are, and what adapter stamps need (pcap-mgcap-tstamp.c). */
struct mgcap_tstamp {
	int type;		/* PCAP_TSTAMP_*: what the stamps are, after any warning */
	int adapter;		/* PCAP_TSTAMP_ADAPTER: converted, the rings gated */
	/*
	 * Adapter stamps: fires when a clock sample is due without traffic, so
	 * that a caller that waits on the selectable fd (dumpcap) calls a read,
	 * which takes it.  -1: none (host stamps).
	 */
	int timer_fd;
	uint64_t timer_at;	/* its expiry (CLOCK_MONOTONIC ns); 0: none */
};

struct pcap_mgcap {
	struct mgcap_dev devs[MGCAP_MAX_DEVICES];
	size_t ndevs;
	/*
	 * The queues read, of every device: a reader each (in the merge's
	 * type, as a merge of several reads them in place), its device (an
	 * index into devs) and the base of its counts.
	 */
	struct mgcap_merge_queue *queues;
	size_t *queue_dev;
	struct mgcap_queue_stats *stats_base;
	size_t nqueues;
	struct mgcap_merge merge;	/* several queues only: their stamp order */
	struct mgcap_tstamp ts;
	int event_fd;		/* pcap_breakloop() wakes a blocked read through it */
	/* a merged source: fires when a record held back may go (non-blocking callers) */
	int hold_timer_fd;
	int parked;		/* rings with a held record are readable only at their fill mark */
	int nonblock;
	int read_once;		/* a read op ran (see pcap_mgcap_cleanup()) */
	int nano;		/* nanosecond precision */
	int on_close_list;	/* pcap_add_to_pcaps_to_close(): closed at exit() too */
	unsigned long corruptions_seen;	/* mgcap_reader_corruptions when none was ours */
	/*
	 * The direction (pcap-mgcap-filter.c): the records handed out are
	 * those whose flags, exclusive-or dir_xor, have no bit of dir_mask
	 */
	uint16_t dir_mask, dir_xor;
	int judge_each;		/* a filter or one direction: deliver() looks at each record */
	/* the record last handed out, in its ring while its callback runs: pcap_mgcap_direction() */
	const struct mgcap_rec *handed;
	/* a filter that asks the direction: a program for received, one for sent frames */
	struct bpf_insn *dir_fcode[2];
};

void pcap_mgcap_cleanup(pcap_t *p);

/*
 * pcap-mgcap-queues.c: the source's queues opened, set up (the kernel's
 * snaplen, stamps and wakeup; emptied) and counted; PCAP_ERROR_* with
 * errbuf, or 0.
 */
int mgcap_queues_open(pcap_t *p);
int mgcap_queues_start(pcap_t *p, uint32_t tstamp_source);
void mgcap_queues_close(pcap_t *p);
int pcap_mgcap_stats(pcap_t *p, struct pcap_stat *ps);
/*
 * Records of coalesced received frames (MGCAP_REC_F_COALESCED) and of sent
 * ones (MGCAP_REC_F_SENT) since the queues started: 0, or -1 (errbuf left
 * as it is: a report, not an error)
 */
struct mgcap_queue_records {
	uint64_t coalesced, sent;
};
int mgcap_queues_records(pcap_t *p, struct mgcap_queue_records *n);

/*
 * pcap-mgcap-filter.c: the filter and the direction ops; the direction at
 * activate (after the stamps' setup: with the NIC's raw clock, received
 * frames only), and the filter's copies freed at close.
 */
int pcap_mgcap_setfilter(pcap_t *p, struct bpf_program *fp);
int pcap_mgcap_setdirection(pcap_t *p, pcap_direction_t d);
void mgcap_filter_setup(pcap_t *p);
void mgcap_filter_close(pcap_t *p);

/*
 * pcap-mgcap-read.c: the read op for the queues opened (a merge of them,
 * if several), chosen once, as pcap-linux chooses its own by the ring's
 * version: PCAP_ERROR with errbuf, or 0.  @hold_ns: how long a merge may
 * hold a record back (MGCAP_MERGE_HOLD_NS, or shorter).
 */
int mgcap_read_setup(pcap_t *p, uint64_t hold_ns);

/*
 * pcap-mgcap-tstamp.c: the stamps asked for (p->opt.tstamp_type) set up for
 * every device: 0, a warning (host stamps then), or an error; *@source is
 * what the rings are to stamp with (MGCAP_TSTAMP_*).  Starting them, once
 * the queues are read: adapter stamps gate the rings and take the first
 * samples (PCAP_ERROR with errbuf, or 0).  Closing reports what the
 * conversion did and gives the NICs' stamping back.
 */
int mgcap_tstamp_setup(pcap_t *p, uint32_t *source);
int mgcap_tstamp_start(pcap_t *p);
void mgcap_tstamp_close(pcap_t *p);
/* adapter stamps: the merge's order, each record's stamp in system time */
uint64_t mgcap_tstamp_merge_key(void *pm, size_t queue, const struct mgcap_rec *rec);
void mgcap_tstamp_sample(struct pcap_mgcap *pm, uint64_t now);
uint64_t mgcap_tstamp_sample_due(const struct pcap_mgcap *pm, uint64_t now);

/*
 * Before a read: with adapter stamps, the rings' gates opened and each
 * clock sampled where due (every record read then lies between two
 * samples), and the timer set for the next sample.  Host stamps: nothing.
 */
static inline void mgcap_tstamp_before_read(struct pcap_mgcap *pm, uint64_t now)
{
	if (pm->ts.adapter)
		mgcap_tstamp_sample(pm, now);
}

/* When (CLOCK_MONOTONIC ns) a read must look again for a sample: UINT64_MAX, never. */
static inline uint64_t mgcap_tstamp_next_sample(const struct pcap_mgcap *pm, uint64_t now)
{
	uint64_t due;

	if (!pm->ts.adapter)
		return UINT64_MAX;
	due = mgcap_tstamp_sample_due(pm, now);
	return now + (due ? due : 1);
}

/* pcap-mgcap-wait.c: how a read waits (PCAP_ERROR_* with errbuf, or 0) */
int mgcap_wait_open(pcap_t *p);		/* the epoll set, p->fd, and what is in it */
void mgcap_wait_close(pcap_t *p);
/*
 * Sleeps until a ring has records, pcap_breakloop() or a timer fires, or
 * CLOCK_MONOTONIC passes @deadline (UINT64_MAX: no limit; @now: the
 * caller's last look at it); @holding: the merge holds a record back.
 */
int mgcap_wait(pcap_t *p, uint64_t now, uint64_t deadline, int holding);
/* a non-blocking read that delivered nothing: the selectable fd made honest */
int mgcap_wait_settle_for_poll(pcap_t *p, uint64_t now, uint64_t hold_ns);
void mgcap_wait_unpark(pcap_t *p);

#endif /* PCAP_MGCAP_INT_H */
