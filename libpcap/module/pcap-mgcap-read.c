/*
 * Copyright (c) the mgcap developers.  BSD-2-Clause, as libpcap.
 *
 * The mgcap capture module's read ops: a lone queue's records straight
 * from its ring, several queues' through their merge in stamp order.  One
 * is chosen at activation (mgcap_read_setup()), for each precision and
 * time source its own, as pcap-linux chooses its op by the ring's version.
 * Packets are handed to the callback straight from the mapped rings; a
 * batch's ring space goes back to the kernel at the next read, so
 * pcap_next_ex() pointers stay valid until then.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pcap-mgcap-int.h"
#include "mgcap_time.h"

/* Records handed out by one read at most. */
#define MGCAP_BATCH_MAX		4096
/*
 * A read gives back what it delivered every this many records, as
 * AF_PACKET gives back each block it is done with: a record's data is the
 * callback's only while the callback runs, but for the last one of a read
 * (pcap_next_ex() keeps it until the next call).  A reader that writes its
 * batch out slowly (tcpdump -w) then leaves the ring room for what comes
 * meanwhile.
 */
#define MGCAP_RELEASE_EVERY	64

/*
 * Gives the kernel back the ring space of every record handed out so far:
 * their callbacks have returned.  A merge (@merged: a constant where
 * inlined) keeps the records it looked at but did not hand out.
 */
static inline void give_back(struct pcap_mgcap *pm, int merged)
{
	if (merged)
		mgcap_merge_release(&pm->merge);
	else
		mgcap_reader_release(&pm->queues[0].r);
}

static int all_detached(const struct pcap_mgcap *pm)
{
	size_t i;

	for (i = 0; i < pm->nqueues; i++)
		if (!mgcap_reader_detached(&pm->queues[i].r))
			return 0;
	return 1;
}

/*
 * Whether a ring's reading ended at a record or an index no kernel wrote
 * (its reader wrote it): the error said in errbuf.  Looked for once a
 * read, at a cost only once a reader in the process met one: a merged
 * read's other queues would go on delivering, while the order gave up on
 * the ring that filled.
 */
static int corrupt_ring(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	unsigned long seen = __atomic_load_n(&mgcap_reader_corruptions, __ATOMIC_RELAXED);
	uint64_t at;
	size_t i;

	if (seen == pm->corruptions_seen)
		return 0;
	for (i = 0; i < pm->nqueues; i++) {
		const struct mgcap_reader *r = &pm->queues[i].r;

		if (mgcap_reader_corrupt(r, &at)) {
			snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
				 "%s: the ring of %s queue %u is corrupt at index %" PRIu64
				 " (a record or index no kernel wrote): reading ends",
				 p->opt.device, r->info.ifname, r->info.queue, at);
			return 1;
		}
	}
	pm->corruptions_seen = seen;	/* another handle's */
	return 0;
}

/* The second a stamp falls in, remembered: stamps mostly share it with the last one. */
struct stamp_second {
	uint64_t start_ns;
	uint64_t sec;
};

/*
 * Hands one record, stamped @ns, to the callback, in the direction asked
 * for and filtered; 1 if it was delivered.  Once per packet, so inlined
 * into the read loops, with @nano (what activate() set) a constant there.
 */
static inline __attribute__((always_inline))
int deliver(pcap_t *p, const struct mgcap_rec *rec, uint64_t ns, int nano,
	    struct stamp_second *second, pcap_handler cb, u_char *user)
{
	struct pcap_mgcap *pm = p->priv;
	const struct bpf_insn *filter;
	struct pcap_pkthdr h;
	uint32_t frac;

	if (ns - second->start_ns >= 1000000000ULL) {
		second->sec = ns / 1000000000ULL;
		second->start_ns = second->sec * 1000000000ULL;
	}
	frac = (uint32_t)(ns - second->start_ns);
	/*
	 * No clamp to the snaplen: once MGCAP_IOC_SET_SNAPLEN has returned, the
	 * kernel publishes no longer record, and activate() discarded older ones.
	 */
	_Static_assert(offsetof(struct pcap_pkthdr, len) ==
		       offsetof(struct pcap_pkthdr, caplen) + sizeof(h.caplen) &&
		       offsetof(struct mgcap_rec, wirelen) ==
		       offsetof(struct mgcap_rec, caplen) + sizeof(rec->caplen) &&
		       sizeof(h.caplen) == sizeof(rec->caplen) && sizeof(h.len) == sizeof(rec->wirelen),
		       "the lengths lie together in both, in the same order");
	/* h.caplen = rec->caplen and h.len = rec->wirelen, in one copy */
	memcpy(&h.caplen, &rec->caplen, sizeof(h.caplen) + sizeof(h.len));
	h.ts.tv_sec = (time_t)second->sec;
	h.ts.tv_usec = (suseconds_t)(nano ? frac : frac / 1000);
	/* each time: the callback may set a filter or direction (and free the filter) */
	if (pm->judge_each) {
		if ((rec->flags ^ pm->dir_xor) & pm->dir_mask)
			return 0;
		filter = p->fcode.bf_insns;
		/* (one that asks the direction: the program for this record's) */
		if (filter && pm->dir_fcode[0])
			filter = pm->dir_fcode[!!(rec->flags & MGCAP_REC_F_SENT)];
		if (filter && !pcap_filter(filter, rec->data, h.len, h.caplen))
			return 0;
	}
	pm->handed = rec;
	cb(user, &h, rec->data);
	return 1;
}

/*
 * Up to @max records of a lone queue: no order to keep, so they go
 * straight from the ring (the hot path, see BENCHMARKS.md), a stretch at a
 * time, so that each record costs a bounds check and a padding check only.
 * As pcap-linux walks a block's packets, the records are walked a number
 * at a time that neither the batch nor the next give-back can run out
 * within, and only then are the counts looked at.
 */
static inline __attribute__((always_inline))
int deliver_one_queue(pcap_t *p, int max, int nano, int adapter, pcap_handler cb, u_char *user)
{
	struct pcap_mgcap *pm = p->priv;
	struct mgcap_reader *r = &pm->queues[0].r;
	struct stamp_second second = { 0, 0 };
	struct mgcap_adapter *conv = &pm->devs[0].conv;
	const uint8_t *start;
	/*
	 * Records before the next give-back, as merged reads count them: the
	 * first comes before the MGCAP_RELEASE_EVERY-th record.  The first
	 * record looks at the counts.
	 */
	int left = max, until_release = MGCAP_RELEASE_EVERY - 1, walk = 1, walked = 0;
	uint64_t len;

	while ((len = mgcap_reader_stretch(r, &start)) != 0) {
		const uint8_t *cur = start, *end = start + len;
		const struct mgcap_rec *rec;

		/* records lie back to back up to end; padding ends the stretch */
		while ((rec = mgcap_ring_rec_at(cur, end)) != NULL) {
			if (!mgcap_rec_fits(rec, (uint64_t)(end - cur))) {
				mgcap_reader_advance_to(r, cur);
				mgcap_reader_set_corrupt(r, r->tail);
				return max - left;
			}
			if (!--walk) {
				/* the batch is full: the last record stays until the next read */
				if (!left) {
					mgcap_reader_advance_to(r, cur);
					return max;
				}
				/* the callbacks of the records before this one have returned */
				until_release -= walked;
				if (!until_release) {
					mgcap_reader_advance_to(r, cur);
					give_back(pm, 0);
					until_release = MGCAP_RELEASE_EVERY;
				}
				walk = walked = left < until_release ? left : until_release;
			}
			cur += rec->rec_len;
			left -= deliver(p, rec, adapter ? mgcap_adapter_stamp(conv, rec) :
					rec->tstamp_ns, nano, &second, cb, user);
			if (p->break_loop) {
				mgcap_reader_advance_to(r, cur);
				return max - left;
			}
		}
		mgcap_reader_advance_to(r, end);
	}
	return max - left;
}

/*
 * Up to @max records of several queues in the order of their stamps (their
 * keys: in system time with adapter stamps, @keyed); *@hold_ns as
 * mgcap_merge_next()'s *wait_ns.
 */
static inline __attribute__((always_inline))
int deliver_merged(pcap_t *p, int max, uint64_t now, uint64_t *hold_ns, int keyed,
		   pcap_handler cb, u_char *user)
{
	struct pcap_mgcap *pm = p->priv;
	struct stamp_second second = { 0, 0 };
	struct mgcap_merge_run run;
	const struct mgcap_rec *rec;
	int n = 0, until_release = MGCAP_RELEASE_EVERY, walk, walked, drained = 0;
	uint64_t taken = 0;
	size_t q;

	/* a batch begun: the empty rings looked at; past a fill mark, nothing waits */
	mgcap_merge_begin_read(&pm->merge);
	while (n < max) {
		/*
		 * Before the next record, never after a delivered one: every
		 * record handed out so far has had its callback, and the one
		 * pcap_next_ex() keeps (a read of one record ends as it is
		 * delivered) stays until the next call.
		 */
		if (!--until_release) {
			give_back(pm, 1);
			until_release = MGCAP_RELEASE_EVERY;
		}
		rec = mgcap_merge_next_keyed(&pm->merge, now, &q, hold_ns, keyed);
		if (!rec) {
			drained = 1;
			break;
		}
		taken++;
		n += deliver(p, rec, pm->merge.q[q].last_ts, pm->nano, &second, cb, user);
		if (p->break_loop)
			break;
		/*
		 * The records after it that are older than every other queue's
		 * go without a match, as many as neither the batch nor the next
		 * give-back can run out within (as a lone queue's are walked).
		 */
		if (!mgcap_merge_run_begin(&pm->merge, q, &run))
			continue;
		walked = walk = max - n < until_release - 1 ? max - n : until_release - 1;
		until_release -= walk;
		while (walk && (rec = mgcap_merge_run_next(&pm->merge, &run, keyed)) != NULL) {
			walk--;
			n += deliver(p, rec, run.key, pm->nano, &second, cb, user);
			if (p->break_loop)
				break;
		}
		until_release += walk;	/* what the run did not take */
		taken += walked - walk;
		mgcap_merge_run_end(&pm->merge, &run);
		if (p->break_loop)
			break;
	}
	mgcap_merge_end_read(&pm->merge, taken, drained);
	return n;
}

/* a batch of records: how many were delivered; *@hold_ns, how long one is held back */
typedef int deliver_fn(pcap_t *p, int max, uint64_t now, uint64_t *hold_ns,
		       pcap_handler cb, u_char *user);

/*
 * The read op, as pcap-linux's pcap_read_linux_mmap_v3(): what the last
 * batch held goes back; records are delivered when there are any, else
 * the read waits for them (unless non-blocking) until its timeout; the
 * capture's end and a pcap_breakloop() end it.  Inlined into each op, with
 * its batch's function a constant there.
 */
static inline __attribute__((always_inline))
int read_records(pcap_t *p, int cnt, pcap_handler cb, u_char *user, deliver_fn *deliver_batch,
		 int merged)
{
	struct pcap_mgcap *pm = p->priv;
	/* a batch is bounded: its ring space goes back only at the next call */
	int max = cnt > 0 && cnt < MGCAP_BATCH_MAX ? cnt : MGCAP_BATCH_MAX, n;
	uint64_t timeout_at = UINT64_MAX;

	pm->read_once = 1;
	/* the previous batch is done with */
	give_back(pm, merged);
	if (pm->parked)
		mgcap_wait_unpark(p);
	if (p->opt.timeout > 0)
		timeout_at = mgcap_now_ns(CLOCK_MONOTONIC) + (uint64_t)p->opt.timeout * 1000000ULL;

	for (;;) {
		uint64_t now = mgcap_now_ns(CLOCK_MONOTONIC), hold_ns = 0, deadline;
		/*
		 * Whether the capture ended, looked at before the records: what
		 * the kernel published before it said so is read below.
		 */
		int ended = all_detached(pm);

		if (p->break_loop) {
			p->break_loop = 0;
			return PCAP_ERROR_BREAK;
		}
		/* (the records a read delivered before it met one were delivered) */
		if (corrupt_ring(p))
			return PCAP_ERROR;
		mgcap_tstamp_before_read(pm, now);
		n = deliver_batch(p, max, now, &hold_ns, cb, user);
		if (n)
			return n;
		if (p->break_loop)
			continue;
		if (ended && !hold_ns) {
			snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
				 "%s: the capture was stopped", p->opt.device);
			return PCAP_ERROR;
		}
		/*
		 * Nothing was delivered by this call, so whatever it read the
		 * filter rejected: its space goes back now, or its ring would
		 * stay readable, and full, until the next call.
		 */
		give_back(pm, merged);
		if (pm->nonblock)
			return mgcap_wait_settle_for_poll(p, now, hold_ns);
		if (now >= timeout_at)
			return 0;
		/* until a ring has data, a held record may go, a sample is due, or time is up */
		deadline = mgcap_tstamp_next_sample(pm, now);
		if (hold_ns && now + hold_ns < deadline)
			deadline = now + hold_ns;
		if (timeout_at < deadline)
			deadline = timeout_at;
		if (mgcap_wait(p, now, deadline, hold_ns != 0))
			return PCAP_ERROR;
	}
}

/* a lone queue's batch, for each precision and time source, each with the registers to itself */
#define DELIVER_ONE_QUEUE(name, nano, adapter)						\
	static __attribute__((noinline))						\
	int name(pcap_t *p, int max, uint64_t now _U_, uint64_t *hold_ns _U_,		\
		 pcap_handler cb, u_char *user)						\
	{										\
		return deliver_one_queue(p, max, nano, adapter, cb, user);		\
	}
DELIVER_ONE_QUEUE(deliver_one_queue_nsec, 1, 0)
DELIVER_ONE_QUEUE(deliver_one_queue_usec, 0, 0)
DELIVER_ONE_QUEUE(deliver_one_queue_nsec_adapter, 1, 1)
DELIVER_ONE_QUEUE(deliver_one_queue_usec_adapter, 0, 1)

/* several queues' batch, by their stamps or by their keys (adapter stamps) */
#define DELIVER_SEVERAL_QUEUES(name, keyed)						\
	static __attribute__((noinline))						\
	int name(pcap_t *p, int max, uint64_t now, uint64_t *hold_ns,			\
		 pcap_handler cb, u_char *user)						\
	{										\
		return deliver_merged(p, max, now, hold_ns, keyed, cb, user);		\
	}
DELIVER_SEVERAL_QUEUES(deliver_several_queues, 0)
DELIVER_SEVERAL_QUEUES(deliver_several_queues_keyed, 1)

/* the read ops (bench/run.sh counts pcap_mgcap_read_*) */
#define READ_OP(name, deliver_batch, merged)						\
	static int name(pcap_t *p, int cnt, pcap_handler cb, u_char *user)		\
	{										\
		return read_records(p, cnt, cb, user, deliver_batch, merged);		\
	}
READ_OP(pcap_mgcap_read_nsec, deliver_one_queue_nsec, 0)
READ_OP(pcap_mgcap_read_usec, deliver_one_queue_usec, 0)
READ_OP(pcap_mgcap_read_nsec_adapter, deliver_one_queue_nsec_adapter, 0)
READ_OP(pcap_mgcap_read_usec_adapter, deliver_one_queue_usec_adapter, 0)
READ_OP(pcap_mgcap_read_merged, deliver_several_queues, 1)
READ_OP(pcap_mgcap_read_merged_adapter, deliver_several_queues_keyed, 1)

int mgcap_read_setup(pcap_t *p, uint64_t hold_ns)
{
	struct pcap_mgcap *pm = p->priv;

	if (pm->nqueues == 1) {
		if (pm->ts.adapter)
			p->read_op = pm->nano ? pcap_mgcap_read_nsec_adapter :
						pcap_mgcap_read_usec_adapter;
		else
			p->read_op = pm->nano ? pcap_mgcap_read_nsec : pcap_mgcap_read_usec;
		return 0;
	}
	if (mgcap_merge_init(&pm->merge, pm->queues, pm->nqueues, hold_ns)) {
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "mgcap: out of memory");
		return PCAP_ERROR;
	}
	/* several clocks, or one converted: the order is that of system time */
	if (pm->ts.adapter) {
		pm->merge.key = mgcap_tstamp_merge_key;
		pm->merge.key_arg = pm;
	}
	p->read_op = pm->ts.adapter ? pcap_mgcap_read_merged_adapter : pcap_mgcap_read_merged;
	return 0;
}
