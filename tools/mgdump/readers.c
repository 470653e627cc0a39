// SPDX-License-Identifier: BSD-2-Clause
/*
 * The reader threads: each reads its libpcap handle and formats its packets
 * as enhanced packet blocks into its own buffer, then wakes the writer.
 */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "erspan.h"
#include "mgdump.h"
#include "pcapng.h"

/* reader threads still running: the writer's last pass waits for them */
static unsigned int readers_running;
static int readers_joined;	/* their handles may be asked anything now */
/* a stop wanted no drain (or a second signal came): drains end */
static volatile sig_atomic_t no_drain;


/*
 * The epb_flags of a packet libpcap handed over in @direction (PCAP_D_*):
 * pcapng's direction bits have libpcap's values, but neither format says
 * it keeps them so.
 */
static uint32_t direction_flags(int direction)
{
	switch (direction) {
	case PCAP_D_IN:
		return PCAPNG_EPB_FLAGS_INBOUND;
	case PCAP_D_OUT:
		return PCAPNG_EPB_FLAGS_OUTBOUND;
	default:
		return 0;	/* not known: no flags written */
	}
}

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct reader *r = (struct reader *)user;
	uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000ULL +
		      (uint64_t)h->ts.tv_usec * r->ns_per_frac;
	uint32_t caplen = h->caplen, wirelen = h->len, len, flags = 0;
	uint8_t *p;

	r->seen++;
	/*
	 * An mgcap source says whether its device received or sent each
	 * packet; libpcap's others do not (AF_PACKET's callback is not told)
	 */
	if (r->directions) {
		int direction = packet_direction(r->pcap);

		flags = direction_flags(direction);
		if (direction == PCAP_D_OUT)
			__atomic_store_n(&r->sent, r->sent + 1, __ATOMIC_RELAXED);
	}
	/* (by stamp, not by place: the ring's order is not the stamps' across CPUs) */
	if (ts < r->from_ns)
		return;		/* from before its filter */
	if (cfg.decap) {
		int off = erspan_inner_offset(bytes, caplen);

		if (off > 0) {
			bytes += off;
			caplen -= (uint32_t)off;
			wirelen -= (uint32_t)off;
			/* the carrier's direction is not the mirrored frame's */
			flags = 0;
		}
	}
	len = (uint32_t)pcapng_epb_size(caplen, flags);
	p = blockring_reserve(&r->ring, len);
	if (!p)
		return;		/* counted by the ring: a buffer drop */
	pcapng_epb(p, len, r->ifid, ts, bytes, caplen, wirelen, flags);
	blockring_commit(&r->ring, len);
	r->captured++;
}

/* a reader's counters as of its stop if it drained, or as of now; 0, or -1 */
static int reader_counts(struct reader *r, struct mgdump_counts *c)
{
	struct pcap_stat st;
	int ret;

	/* every reader gone: their drains are over (readers_running pairs with that) */
	if (!mgdump_readers_running() && r->drained) {
		*c = r->at_stop;
		return 0;
	}
	pthread_mutex_lock(&r->counts_lock);
	ret = pcap_stats(r->pcap, &st);
	if (ret == 0) {
		/* what each grew since the last look, modulo 2^32 */
		r->counts.received += (u_int)(st.ps_recv - r->raw.ps_recv);
		r->counts.dropped += (u_int)(st.ps_drop - r->raw.ps_drop);
		r->counts.if_dropped += (u_int)(st.ps_ifdrop - r->raw.ps_ifdrop);
		r->raw = st;
	}
	if (ret == 0 && r->mgcap && coalesced_count) {
		int64_t coalesced = coalesced_count(r->pcap);

		if (coalesced >= 0)
			r->counts.coalesced = (uint64_t)coalesced;
	}
	*c = r->counts;
	pthread_mutex_unlock(&r->counts_lock);
	return ret < 0 ? -1 : 0;
}

/*
 * After a stop: what the ring took before it and the reader has not read
 * yet goes to the buffer too, up to the ring's count at the stop, so that
 * written + dropped in the buffer + dropped in the ring = received then.
 * It ends: each read delivers (up to a count it cannot pass), or delivers
 * nothing within the read timeout (the ring ran dry, or a filter in user
 * space rejects what comes), or is broken by a stop without a drain.
 */
static void drain(struct reader *r)
{
	if (no_drain || reader_counts(r, &r->at_stop) < 0)
		return;
	r->drained = 1;
	while (!no_drain && r->seen < r->at_stop.received - r->at_stop.dropped) {
		uint64_t left = r->at_stop.received - r->at_stop.dropped - r->seen;
		int n = pcap_dispatch(r->pcap, left > INT_MAX ? INT_MAX : (int)left, on_packet,
				      (u_char *)r);

		if (n == PCAP_ERROR_BREAK)
			continue;	/* the stop's own pcap_breakloop(), or a drain's */
		if (n <= 0)
			break;
		mgdump_wake_writer();
	}
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	int failed = 0;

	while (!stopping) {
		int n = pcap_dispatch(r->pcap, -1, on_packet, (u_char *)r);

		if (n == PCAP_ERROR) {
			fprintf(stderr, "mgdump: %s\n", pcap_geterr(r->pcap));
			failed = 1;
			/* the other sources' frames are written still */
			mgdump_request_stop(1);
		}
		if (n)
			mgdump_wake_writer();
	}
	/*
	 * (Not AF_PACKET's: its count has packets libpcap never hands over, the
	 * outgoing copies it skips, and an empty block is never handed over.)
	 */
	if (!failed && r->mgcap)
		drain(r);
	/* its last blocks are in the buffer: pairs with the writer's last pass */
	__atomic_sub_fetch(&readers_running, 1, __ATOMIC_RELEASE);
	mgdump_wake_writer();
	return NULL;
}

int mgdump_readers_running(void)
{
	return __atomic_load_n(&readers_running, __ATOMIC_ACQUIRE) != 0;
}

void mgdump_sample_counts(struct mgdump_sample *s)
{
	size_t i;

	s->joined = readers_joined;
	s->directions = 0;
	for (i = 0; i < nreaders; i++) {
		/* (before libpcap's counters: what it counts, they have counted by then) */
		s->sent[i] = __atomic_load_n(&readers[i].sent, __ATOMIC_RELAXED);
		s->directions |= readers[i].directions;
		s->counts[i] = (struct mgdump_counts){ 0 };
		s->fresh[i] = reader_counts(&readers[i], &s->counts[i]) == 0;
	}
}

static void only_cpu(cpu_set_t *set, int cpu)
{
	CPU_ZERO(set);
	CPU_SET(cpu, set);
}

/* Thread attributes pinning a thread to @cpu (-1: anywhere). */
static int pinned_attr(pthread_attr_t *attr, int cpu)
{
	cpu_set_t set;
	int err = pthread_attr_init(attr);

	if (err || cpu < 0)
		return err;
	only_cpu(&set, cpu);
	return pthread_attr_setaffinity_np(attr, sizeof(set), &set);
}

/* One thread per reader, each on its CPU. */
int mgdump_start_readers(size_t *started)
{
	pthread_attr_t attr;
	int err;

	for (*started = 0; *started < nreaders; (*started)++) {
		struct reader *r = &readers[*started];

		err = pinned_attr(&attr, r->cpu);
		if (!err) {
			__atomic_add_fetch(&readers_running, 1, __ATOMIC_RELAXED);
			err = pthread_create(&r->thread, &attr, reader_main, r);
			if (err)
				__atomic_sub_fetch(&readers_running, 1, __ATOMIC_RELAXED);
			pthread_attr_destroy(&attr);
		}
		if (err) {
			fprintf(stderr, "mgdump: cannot start the reader of %s: %s\n",
				ifs[*started].name, strerror(err));
			return -1;
		}
	}
	return 0;
}

/* The writer is the main thread: on its CPU, if one was given. */
int mgdump_pin_writer(void)
{
	cpu_set_t set;
	int err;

	if (cfg.writer_cpu < 0)
		return 0;
	only_cpu(&set, cfg.writer_cpu);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (err) {
		fprintf(stderr, "mgdump: cannot pin the writer to CPU %d: %s\n", cfg.writer_cpu,
			strerror(err));
		return -1;
	}
	return 0;
}

/*
 * Stops every reader, including one waiting in a read that would not end
 * by itself (AF_PACKET's, on an idle device).  Safe in a signal handler, as
 * pcap_breakloop() is.
 */
void mgdump_request_stop(int drain)
{
	size_t i;

	if (!drain)
		no_drain = 1;
	stopping = 1;
	for (i = 0; i < nreaders; i++)
		if (readers[i].pcap)	/* (a signal may come while they open) */
			pcap_breakloop(readers[i].pcap);
}

void mgdump_stop_readers(size_t started)
{
	size_t i;

	mgdump_request_stop(0);
	for (i = 0; i < started; i++)
		pthread_join(readers[i].thread, NULL);
	readers_joined = 1;
}
