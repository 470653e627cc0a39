/*
 * Copyright (c) the mgcap developers.  BSD-2-Clause, as libpcap.
 *
 * mgcap capture module: "mgcap:DEV" reads every receive queue of DEV as one
 * stream in time-stamp order; "mgcap:DEV@N" or "mgcap:DEV@1-3,5" a subset;
 * "mgcap:DEV1,DEV2" every queue of several devices (the two directions of a
 * tap), in the order of their stamps in system time where they are
 * converted (adapter), or as they are.
 * Packets are handed to the callback straight from the mapped rings; a
 * batch's ring space goes back to the kernel at the next read, so
 * pcap_next_ex() pointers stay valid until then.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/if_packet.h>

#include "pcap-mgcap-int.h"
#include "pcap-mgcap.h"
#include "mgcap_netdev.h"
#include "mgcap_open.h"
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

static int all_detached(const struct pcap_mgcap *pm)
{
	size_t i;

	for (i = 0; i < pm->merge.n; i++)
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
	for (i = 0; i < pm->merge.n; i++) {
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
 * Hands one record, stamped @ns, to the callback, filtered; 1 if it was
 * delivered.  Once per packet, so inlined into the read loops, with @nano
 * (what activate() set) a constant there.
 */
static inline __attribute__((always_inline))
int deliver(pcap_t *p, const struct mgcap_rec *rec, uint64_t ns, int nano,
	    struct stamp_second *second, pcap_handler cb, u_char *user)
{
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
	h.caplen = rec->caplen;
	h.len = rec->wirelen;
	h.ts.tv_sec = (time_t)second->sec;
	h.ts.tv_usec = (suseconds_t)(nano ? frac : frac / 1000);
	/* looked up each time: the callback may replace (and free) the filter */
	if (p->fcode.bf_insns && !pcap_filter(p->fcode.bf_insns, rec->data, h.len, h.caplen))
		return 0;
	cb(user, &h, rec->data);
	return 1;
}

/*
 * One queue has no order to keep: its records go straight from the ring
 * (the hot path, see BENCHMARKS.md), a stretch at a time, so that each
 * record costs a bounds check and a padding check only.
 */
static inline __attribute__((always_inline))
int deliver_one_queue(pcap_t *p, int max, int nano, int adapter, pcap_handler cb, u_char *user)
{
	struct pcap_mgcap *pm = p->priv;
	struct mgcap_reader *r = &pm->queues[0].r;
	struct stamp_second second = { 0, 0 };
	struct mgcap_adapter *conv = &pm->devs[0].conv;
	const uint8_t *start;
	uint64_t len;
	int left = max, until_release = MGCAP_RELEASE_EVERY;

	while ((len = mgcap_reader_stretch(r, &start)) != 0) {
		const uint8_t *cur = start, *end = start + len;
		int stop = 0, corrupt = 0;

		/* records lie back to back up to end; padding ends the stretch */
		while (end - cur >= (ptrdiff_t)sizeof(struct mgcap_rec)) {
			const struct mgcap_rec *rec = (const struct mgcap_rec *)cur;

			if (rec->flags & MGCAP_REC_F_PAD)
				break;
			if (!mgcap_rec_fits(rec, (uint64_t)(end - cur))) {
				stop = corrupt = 1;
				break;
			}
			/* the callbacks of the records before this one have returned */
			if (!--until_release) {
				mgcap_reader_release_to(r, r->tail + (uint64_t)(cur - start));
				until_release = MGCAP_RELEASE_EVERY;
			}
			cur += rec->rec_len;
			left -= deliver(p, rec, adapter ? mgcap_adapter_stamp(conv, rec) :
					rec->tstamp_ns, nano, &second, cb, user);
			stop = p->break_loop || !left;
			if (stop)
				break;
		}
		mgcap_reader_advance(r, stop ? (uint64_t)(cur - start) : len);
		if (corrupt)
			mgcap_reader_set_corrupt(r, r->tail);
		if (stop)
			break;
	}
	return max - left;
}

/* one loop for each precision and time source, each with the registers to itself */
#define DELIVER_ONE_QUEUE(name, nano, adapter)						\
	static __attribute__((noinline))						\
	int name(pcap_t *p, int max, pcap_handler cb, u_char *user)			\
	{										\
		return deliver_one_queue(p, max, nano, adapter, cb, user);		\
	}
DELIVER_ONE_QUEUE(deliver_one_queue_nsec, 1, 0)
DELIVER_ONE_QUEUE(deliver_one_queue_usec, 0, 0)
DELIVER_ONE_QUEUE(deliver_one_queue_nsec_adapter, 1, 1)
DELIVER_ONE_QUEUE(deliver_one_queue_usec_adapter, 0, 1)

static int deliver_one(pcap_t *p, int max, pcap_handler cb, u_char *user)
{
	struct pcap_mgcap *pm = p->priv;

	if (pm->adapter)
		return pm->nano ? deliver_one_queue_nsec_adapter(p, max, cb, user) :
				  deliver_one_queue_usec_adapter(p, max, cb, user);
	return pm->nano ? deliver_one_queue_nsec(p, max, cb, user) :
			  deliver_one_queue_usec(p, max, cb, user);
}

/* The merge's order with adapter stamps: each record's stamp in system time. */
static uint64_t adapter_key(void *arg, size_t queue, const struct mgcap_rec *rec)
{
	struct pcap_mgcap *pm = arg;
	struct mgcap_adapter *conv = &pm->devs[pm->queue_dev[queue]].conv;

	return mgcap_adapter_stamp(conv, rec);
}

/*
 * Up to @max records of several queues in the order of their stamps (their
 * keys: in system time with adapter stamps); *@wait_ns as mgcap_merge_next().
 * A function of its own, once a read: make bench counts its instructions.
 */
static __attribute__((noinline))
int deliver_merged(pcap_t *p, int max, uint64_t now, uint64_t *wait_ns,
			  pcap_handler cb, u_char *user)
{
	struct pcap_mgcap *pm = p->priv;
	struct stamp_second second = { 0, 0 };
	const struct mgcap_rec *rec;
	size_t q;
	int n = 0;

	int until_release = MGCAP_RELEASE_EVERY;

	while (n < max) {
		/*
		 * Before the next record, never after a delivered one: every
		 * record handed out so far has had its callback, and the one
		 * pcap_next_ex() keeps (a read of one record ends as it is
		 * delivered) stays until the next call.
		 */
		if (!--until_release) {
			mgcap_merge_release(&pm->merge);
			until_release = MGCAP_RELEASE_EVERY;
		}
		rec = mgcap_merge_next(&pm->merge, now, &q, wait_ns);
		if (!rec)
			break;
		n += deliver(p, rec, pm->merge.q[q].last_ts, pm->nano, &second, cb, user);
		if (p->break_loop)
			break;
	}
	return n;
}

int pcap_mgcap_read(pcap_t *p, int cnt, pcap_handler cb, u_char *user)
{
	struct pcap_mgcap *pm = p->priv;
	/* a batch is bounded: its ring space goes back only at the next call */
	int max = cnt > 0 && cnt < MGCAP_BATCH_MAX ? cnt : MGCAP_BATCH_MAX;
	uint64_t deadline = 0;
	int n = 0;

	/* the previous batch is done with: give its space back */
	mgcap_merge_release(&pm->merge);
	if (pm->parked)
		mgcap_wait_unpark(p);
	if (p->opt.timeout > 0)
		deadline = mgcap_now_ns(CLOCK_MONOTONIC) + (uint64_t)p->opt.timeout * 1000000ULL;

	for (;;) {
		uint64_t now = mgcap_now_ns(CLOCK_MONOTONIC), hold_ns = 0, wait_ns;
		/*
		 * Whether the capture ended, looked at before the records: what
		 * the kernel published before it said so is read below.
		 */
		int ended = all_detached(pm);
		int timeout_ms;

		if (p->break_loop) {
			p->break_loop = 0;
			return n ? n : PCAP_ERROR_BREAK;
		}
		/* (the records a read delivered before it met one were delivered) */
		if (corrupt_ring(p))
			return PCAP_ERROR;
		if (pm->adapter) {
			mgcap_wait_sample_clocks(pm, now);
			mgcap_wait_arm_sample_timer(pm, now);
		}
		if (pm->merge.n == 1) {
			n = deliver_one(p, max, cb, user);
		} else {
			/* a ring past its fill mark: nothing waits for the order */
			mgcap_merge_check_fill(&pm->merge);
			n = deliver_merged(p, max, now, &hold_ns, cb, user);
		}
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
		mgcap_merge_release(&pm->merge);
		if (pm->nonblock)
			return mgcap_wait_settle_for_poll(p, now, hold_ns);

		/* sleep until a ring has data, a held record may go, or time is up */
		timeout_ms = -1;
		if (deadline) {
			if (now >= deadline)
				return 0;
			timeout_ms = (int)((deadline - now + 999999) / 1000000);
		}
		wait_ns = hold_ns;
		/* adapter stamps: wake for the next sample, due even without traffic */
		if (pm->adapter) {
			uint64_t due = mgcap_wait_sample_due(pm, now);

			if (!wait_ns || due < wait_ns)
				wait_ns = due ? due : 1;
		}
		if (wait_ns) {
			int wait_ms = (int)((wait_ns + 999999) / 1000000);

			if (timeout_ms < 0 || wait_ms < timeout_ms)
				timeout_ms = wait_ms;
		}
		if (mgcap_wait(p, timeout_ms, hold_ns != 0))
			return PCAP_ERROR;
	}
}

static int pcap_mgcap_inject(pcap_t *p, const void *buf _U_, int size _U_)
{
	snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
		 "mgcap: packet injection is not supported; send on the device itself");
	return PCAP_ERROR;
}

/*
 * The filter runs in the kernel as well, where a frame it rejects costs no
 * ring space and no wakeup.  The copy here stays the final word: records
 * already in a ring were judged by the previous program, and the kernel lets
 * through frames whose VLAN tag it cannot show the program.  A program that
 * keeps every frame (tcpdump installs one when given no expression) is not
 * worth running per frame: it is dropped, as if none had been set.  Where
 * the module cannot take the program (too old, or it refuses it), it must
 * not keep the previous one either: filtering then happens here only, as
 * pcap-linux does when the socket refuses a filter.
 */
static int pcap_mgcap_setfilter(pcap_t *p, struct bpf_program *fp)
{
	struct pcap_mgcap *pm = p->priv;
	const struct bpf_insn *insns;
	struct mgcap_filter kernel = { 0 }, none = { 0 };
	size_t i;

	/* the kernel reads libpcap's instructions as struct sock_filter */
	_Static_assert(sizeof(struct bpf_insn) == 8, "struct bpf_insn is struct sock_filter");
	if (install_bpf_program(p, fp) < 0)
		return -1;
	insns = p->fcode.bf_insns;
	if (p->fcode.bf_len == 1 && insns[0].code == (BPF_RET | BPF_K) && insns[0].k) {
		pcap_freecode(&p->fcode);	/* deliver() then runs none either */
	} else {
		kernel.len = p->fcode.bf_len;
		kernel.insns = (uint64_t)(uintptr_t)insns;
	}
	for (i = 0; i < pm->merge.n; i++) {
		int fd = pm->queues[i].r.fd;

		if (ioctl(fd, MGCAP_IOC_SET_FILTER, &kernel) < 0 && errno != ENOTTY)
			(void)ioctl(fd, MGCAP_IOC_SET_FILTER, &none);
	}
	return 0;
}

static int pcap_mgcap_setdirection(pcap_t *p, pcap_direction_t d)
{
	/* mgcap sees received packets only */
	if (d == PCAP_D_OUT) {
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
			 "mgcap: captures received packets only; direction \"out\" is not supported");
		return PCAP_ERROR;
	}
	p->direction = d;
	return 0;
}

static int pcap_mgcap_getnonblock(pcap_t *p)
{
	return ((struct pcap_mgcap *)p->priv)->nonblock;
}

static int pcap_mgcap_setnonblock(pcap_t *p, int nonblock)
{
	((struct pcap_mgcap *)p->priv)->nonblock = nonblock;
	return 0;
}

static int queue_stats(pcap_t *p, size_t i, struct mgcap_queue_stats *st)
{
	struct pcap_mgcap *pm = p->priv;

	if (ioctl(pm->queues[i].r.fd, MGCAP_IOC_STATS, st) < 0) {
		pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno, "mgcap: MGCAP_IOC_STATS");
		return -1;
	}
	return 0;
}

/*
 * Queue @i's counts from now on, its ring emptied of what an earlier reader
 * left: the counts' base and the discard agree once no frame came between
 * them (a frame counted in the base and then discarded would be received
 * and never delivered), which a few tries find even under a stream.
 */
static int start_queue(pcap_t *p, size_t i)
{
	struct pcap_mgcap *pm = p->priv;
	struct mgcap_queue_stats *base = &pm->stats_base[i], after;
	int tries = 0;

	do {
		if (queue_stats(p, i, base))
			return -1;
		mgcap_reader_discard(&pm->queues[i].r);
		if (queue_stats(p, i, &after))
			return -1;
	} while ((after.captured != base->captured || after.dropped != base->dropped) &&
		 ++tries < 8);
	return 0;
}

static int pcap_mgcap_stats(pcap_t *p, struct pcap_stat *ps)
{
	struct pcap_mgcap *pm = p->priv;
	uint64_t captured = 0, dropped = 0;
	size_t i;

	for (i = 0; i < pm->merge.n; i++) {
		struct mgcap_queue_stats st;

		if (queue_stats(p, i, &st))
			return PCAP_ERROR;
		captured += st.captured - pm->stats_base[i].captured;
		dropped += st.dropped - pm->stats_base[i].dropped;
	}
	/* as on Linux: received counts what the ring dropped too */
	ps->ps_recv = (u_int)(captured + dropped);
	ps->ps_drop = (u_int)dropped;
	ps->ps_ifdrop = 0;
	for (i = 0; i < pm->ndevs; i++)
		ps->ps_ifdrop += (u_int)(mgcap_netdev_drops(pm->devs[i].src.ifname) - pm->devs[i].ifdrop_base);
	return 0;
}

static void pcap_mgcap_breakloop(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	uint64_t one = 1;

	pcap_breakloop_common(p);
	if (pm->event_fd >= 0 && write(pm->event_fd, &one, sizeof(one)) < 0) {
		/* the counter cannot overflow in practice; the flag is set anyway */
	}
}

void pcap_mgcap_cleanup(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	size_t i;

	/* what the order was worth: a capture file cannot say it */
	if (pm->merge.order.out_of_order)
		fprintf(stderr, "mgcap: %s: %llu frames delivered out of stamp order\n",
			p->opt.device, (unsigned long long)pm->merge.order.out_of_order);
	for (i = 0; pm->queues && i < pm->merge.n; i++)
		mgcap_reader_close(&pm->queues[i].r);
	mgcap_merge_free(&pm->merge);
	free(pm->queues);
	free(pm->queue_dev);
	free(pm->stats_base);
	pm->queues = NULL;
	pm->queue_dev = NULL;
	pm->stats_base = NULL;
	pm->merge.n = 0;
	mgcap_wait_close(p);
	for (i = 0; i < pm->ndevs; i++) {
		struct mgcap_dev *dev = &pm->devs[i];

		if (dev->promisc_fd >= 0)
			close(dev->promisc_fd);
		dev->promisc_fd = -1;
	}
	/* after the rings closed: the last reader of a device gives its stamping back */
	mgcap_tstamp_close(p);
	if (pm->on_close_list)
		pcap_remove_from_pcaps_to_close(p);
	pm->on_close_list = 0;
	pcap_cleanup_live_common(p);
}

/* A library call's failure in errbuf, after the source's name: its PCAP_ERROR_*. */
static int lib_error(pcap_t *p, const struct mgcap_error *e)
{
	snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "%s: %s", p->opt.device, e->msg);
	if (e->err == ENODEV)
		return PCAP_ERROR_NO_SUCH_DEVICE;
	return e->err == EPERM || e->err == EACCES ? PCAP_ERROR_PERM_DENIED : PCAP_ERROR;
}

/*
 * Opens @dev's queues the source names, after those opened, starting its
 * capture (a ring of libpcap's buffer size a queue) where nobody captures
 * it; PCAP_ERROR_* with errbuf.
 */
static int open_dev_queues(pcap_t *p, size_t d)
{
	struct pcap_mgcap *pm = p->priv;
	struct mgcap_dev *dev = &pm->devs[d];
	struct mgcap_queue_node *nodes;
	size_t first = pm->merge.n, total;
	struct mgcap_merge_queue *queues;
	struct mgcap_queue_stats *stats_base;
	struct mgcap_error e;
	size_t *queue_dev;
	int count, i, started, status = 0;

	count = mgcap_device_queues(dev->src.ifname, 1, (uint64_t)p->opt.buffer_size, &nodes,
				    &started, &e);
	if (count < 0)
		return lib_error(p, &e);
	/* grown one by one: what is open stays where cleanup finds it */
	total = first + (size_t)count;
	queues = realloc(pm->queues, total * sizeof(*queues));
	if (queues)
		pm->queues = queues;
	queue_dev = realloc(pm->queue_dev, total * sizeof(*queue_dev));
	if (queue_dev)
		pm->queue_dev = queue_dev;
	stats_base = realloc(pm->stats_base, total * sizeof(*stats_base));
	if (stats_base)
		pm->stats_base = stats_base;
	if (!queues || !queue_dev || !stats_base) {
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "mgcap: out of memory");
		free(nodes);
		return PCAP_ERROR;
	}
	for (i = 0; i < count && !status; i++) {
		size_t n = pm->merge.n;

		if (!mgcap_source_has_queue(&dev->src, nodes[i].queue))
			continue;
		memset(&pm->queues[n], 0, sizeof(pm->queues[n]));
		if (mgcap_open_queue(&pm->queues[n].r, nodes[i].devnode, started, &e) < 0) {
			status = lib_error(p, &e);
			break;
		}
		pm->queue_dev[n] = d;
		pm->merge.n = n + 1;	/* so that cleanup closes it */
	}
	free(nodes);
	if (!status && pm->merge.n == first) {
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "%s: %s has no such queue (it has %d)",
			 p->opt.device, dev->src.ifname, count);
		status = PCAP_ERROR_NO_SUCH_DEVICE;
	}
	return status;
}

/* Opens the queues the source names, device by device; PCAP_ERROR_* with errbuf. */
static int open_queues(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	size_t d;
	int status;

	for (d = 0; d < pm->ndevs; d++) {
		status = open_dev_queues(p, d);
		if (status)
			return status;
	}
	return 0;
}

static int set_promisc(pcap_t *p, struct mgcap_dev *dev)
{
	struct packet_mreq mr;

	/* protocol 0: this socket receives nothing, it only holds the membership */
	dev->promisc_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	memset(&mr, 0, sizeof(mr));
	mr.mr_ifindex = (int)if_nametoindex(dev->src.ifname);
	mr.mr_type = PACKET_MR_PROMISC;
	if (dev->promisc_fd < 0 ||
	    setsockopt(dev->promisc_fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0) {
		int err = errno;

		if (err == EPERM || err == EACCES) {
			snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "%s: promiscuous mode takes CAP_NET_RAW; "
				 "without it, capture what the device receives anyway (tcpdump -p)",
				 p->opt.device);
			return PCAP_ERROR_PROMISC_PERM_DENIED;
		}
		pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, err,
					  "%s: cannot set promiscuous mode", p->opt.device);
		return PCAP_ERROR;
	}
	return 0;
}

static uint64_t merge_hold_ns(void)
{
	const char *env = getenv("MGCAP_MERGE_HOLD_MS");
	char *end;
	unsigned long ms;

	if (env && *env) {
		ms = strtoul(env, &end, 10);
		if (!*end && ms <= 60000)
			return (uint64_t)ms * 1000000ULL;
	}
	return MGCAP_MERGE_HOLD_NS;
}

/*
 * When the kernel wakes the reader.  Immediate mode: at every record.
 * Otherwise libpcap's buffer timeout, as AF_PACKET's block timeout: once a
 * quarter of the ring is unread, or the read timeout after the first
 * record; not every millisecond, as each wakeup costs the receiving CPU a
 * timer and an interprocessor interrupt.  Without a timeout, within 1 s.
 */
static struct mgcap_wakeup reader_wakeup(const pcap_t *p, const struct mgcap_reader *r)
{
	struct mgcap_wakeup wake = { .bytes = 1, .usecs = 0 };
	uint64_t usecs = (uint64_t)p->opt.timeout * 1000;

	if (p->opt.immediate)
		return wake;
	/* the merge's fill mark: a held record's ring is drained from there too */
	wake.bytes = (uint32_t)(r->info.data_size / MGCAP_MERGE_FILL_MARK);
	wake.usecs = p->opt.timeout > 0 && usecs < MGCAP_WAKEUP_USECS_MAX ?
		     (uint32_t)usecs : MGCAP_WAKEUP_USECS_MAX;
	return wake;
}

static int activate(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	uint64_t hold = merge_hold_ns();
	uint32_t tstamp_source = MGCAP_TSTAMP_SW;
	int status, warning = 0;
	size_t i;

	if (p->snapshot <= 0 || p->snapshot > MAXIMUM_SNAPLEN)
		p->snapshot = MAXIMUM_SNAPLEN;
	pm->nano = p->opt.tstamp_precision == PCAP_TSTAMP_PRECISION_NANO;

	status = open_queues(p);
	if (status)
		return status;

	warning = mgcap_tstamp_setup(p, &tstamp_source);
	if (warning < 0)
		return warning;
	for (i = 0; i < pm->ndevs && p->opt.promisc; i++) {
		status = set_promisc(p, &pm->devs[i]);
		if (status)
			return status;
	}

	p->bufsize = 0;
	for (i = 0; i < pm->merge.n; i++) {
		struct mgcap_reader *r = &pm->queues[i].r;
		uint32_t snaplen = (uint32_t)p->snapshot < r->info.snaplen ?
				   (uint32_t)p->snapshot : r->info.snaplen;
		struct mgcap_wakeup wake = reader_wakeup(p, r);

		if (ioctl(r->fd, MGCAP_IOC_SET_SNAPLEN, &snaplen) < 0 ||
		    ioctl(r->fd, MGCAP_IOC_SET_TSTAMP, &tstamp_source) < 0 ||
		    ioctl(r->fd, MGCAP_IOC_SET_WAKEUP, &wake) < 0) {
			pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno,
						  "%s: cannot set up queue %u", p->opt.device,
						  r->info.queue);
			return PCAP_ERROR;
		}
		/* a capture starts now, not with what an earlier reader left */
		if (start_queue(p, i))
			return PCAP_ERROR;
		mgcap_reader_set_gated(r, pm->adapter);
		p->bufsize += (int)r->info.data_size;
	}
	for (i = 0; i < pm->ndevs; i++)
		pm->devs[i].ifdrop_base = mgcap_netdev_drops(pm->devs[i].src.ifname);
	/*
	 * The first samples now: what arrives before the first read (mgdump's
	 * threads start after activation) then lies between two samples too.
	 */
	if (pm->adapter)
		mgcap_wait_sample_clocks(pm, mgcap_now_ns(CLOCK_MONOTONIC));

	if (p->opt.timeout > 0 && (uint64_t)p->opt.timeout * 1000000ULL < hold)
		hold = (uint64_t)p->opt.timeout * 1000000ULL;
	if (mgcap_merge_init(&pm->merge, pm->queues, pm->merge.n, hold)) {
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "mgcap: out of memory");
		return PCAP_ERROR;
	}
	/* several clocks, or one converted: the order is that of system time */
	if (pm->adapter) {
		pm->merge.key = adapter_key;
		pm->merge.key_arg = pm;
	}

	status = mgcap_wait_open(p);
	if (status)
		return status;
	p->selectable_fd = p->fd;
	p->linktype = DLT_EN10MB;
	p->read_op = pcap_mgcap_read;
	p->inject_op = pcap_mgcap_inject;
	p->setfilter_op = pcap_mgcap_setfilter;
	p->setdirection_op = pcap_mgcap_setdirection;
	p->set_datalink_op = NULL;
	p->getnonblock_op = pcap_mgcap_getnonblock;
	p->setnonblock_op = pcap_mgcap_setnonblock;
	p->stats_op = pcap_mgcap_stats;
	p->breakloop_op = pcap_mgcap_breakloop;
	p->cleanup_op = pcap_mgcap_cleanup;
	return warning;
}

static int pcap_mgcap_activate(pcap_t *p)
{
	int status = activate(p);

	/* pcap_activate() does not clean up after a failed activate op */
	if (status < 0)
		pcap_mgcap_cleanup(p);
	return status;
}

PCAP_API_DEF int pcap_mgcap_tstamp_report(pcap_t *p, char *buf, size_t len)
{
	struct pcap_mgcap *pm = p->priv;
	size_t i;

	if (p->activate_op != pcap_mgcap_activate || !p->activated)
		return -1;
	if (len)
		buf[0] = '\0';
	/* (no room, no report: @buf is not even a string then) */
	for (i = 0; pm->adapter && len && i < pm->ndevs; i++) {
		size_t used = strlen(buf);

		/* each device's own, after its name when there are several */
		if (pm->ndevs > 1)
			snprintf(buf + used, len - used, "%s%s: ", i ? "; " : "",
				 pm->devs[i].src.ifname);
		used = strlen(buf);
		mgcap_adapter_describe(&pm->devs[i].conv, buf + used, len - used);
	}
	/* what the order was worth, for a capture file's statistics */
	if (len && pm->merge.n > 1) {
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, "%s%llu delivered out of stamp order",
			 used ? "; " : "", (unsigned long long)pm->merge.order.out_of_order);
	}
	return pm->tstamp_type;
}

pcap_t *pcap_mgcap_create(const char *device, char *ebuf, int *is_ours)
{
	struct mgcap_source srcs[MGCAP_MAX_DEVICES];
	struct pcap_mgcap *pm;
	size_t i, with_clocks = 0;
	pcap_t *p;

	*is_ours = mgcap_source_is_ours(device);
	if (!*is_ours)
		return NULL;
	p = PCAP_CREATE_COMMON(ebuf, struct pcap_mgcap);
	if (!p)
		return NULL;
	pm = p->priv;
	pm->event_fd = -1;
	pm->sample_timer_fd = -1;
	pm->hold_timer_fd = -1;
	if (mgcap_source_parse_devices(device, srcs, &pm->ndevs, ebuf, PCAP_ERRBUF_SIZE) < 0) {
		pm->ndevs = 0;
		goto fail;
	}
	for (i = 0; i < pm->ndevs; i++) {
		pm->devs[i].src = srcs[i];
		pm->devs[i].promisc_fd = -1;
		pm->devs[i].conv.phc.fd = -1;
		with_clocks += mgcap_phc_index(srcs[i].ifname) >= 0;
	}

	p->tstamp_type_list = malloc(3 * sizeof(u_int));
	p->tstamp_precision_list = malloc(2 * sizeof(u_int));
	if (!p->tstamp_type_list || !p->tstamp_precision_list) {
		pcap_fmt_errmsg_for_errno(ebuf, PCAP_ERRBUF_SIZE, errno, "malloc");
		goto fail;
	}
	/* ADAPTER converts through the NICs' clocks: only where every one has one */
	p->tstamp_type_list[0] = PCAP_TSTAMP_HOST;
	p->tstamp_type_count = 1;
	if (with_clocks == pm->ndevs)
		p->tstamp_type_list[p->tstamp_type_count++] = PCAP_TSTAMP_ADAPTER;
	p->tstamp_type_list[p->tstamp_type_count++] = PCAP_TSTAMP_ADAPTER_UNSYNCED;
	p->tstamp_precision_list[0] = PCAP_TSTAMP_PRECISION_MICRO;
	p->tstamp_precision_list[1] = PCAP_TSTAMP_PRECISION_NANO;
	p->tstamp_precision_count = 2;
	p->activate_op = pcap_mgcap_activate;
	return p;

fail:
	pcap_close(p);
	return NULL;
}

/* Up, running, connected: as pcap-linux says of the device itself. */
static bpf_u_int32 device_flags(const char *ifname)
{
	int iff = mgcap_netdev_flags(ifname);
	bpf_u_int32 flags = 0;

	if (iff < 0)
		return 0;
	if (iff & IFF_UP)
		flags |= PCAP_IF_UP;
	if (iff & IFF_RUNNING)
		flags |= PCAP_IF_RUNNING | PCAP_IF_CONNECTION_STATUS_CONNECTED;
	else
		flags |= PCAP_IF_CONNECTION_STATUS_DISCONNECTED;
	return flags;
}

/*
 * mgcap:DEV for every Ethernet device of this namespace: those captured now
 * say so; opening any other starts its capture (start_for_reader()).
 */
int pcap_mgcap_findalldevs(pcap_if_list_t *devlistp, char *errbuf)
{
	struct mgcap_queue_node *nodes = NULL;
	struct if_nameindex *ifs, *it;
	int count, i, queues, status = 0;

	count = mgcap_list_queues(MGCAP_SYSFS_CLASS, mgcap_own_netns(), &nodes);
	if (count < 0 && errno != ENOENT) {
		pcap_fmt_errmsg_for_errno(errbuf, PCAP_ERRBUF_SIZE, errno,
					  "mgcap: listing the mgcap queues in " MGCAP_SYSFS_CLASS);
		return PCAP_ERROR;
	}
	ifs = if_nameindex();
	if (!ifs) {
		pcap_fmt_errmsg_for_errno(errbuf, PCAP_ERRBUF_SIZE, errno, "mgcap: if_nameindex");
		free(nodes);
		return PCAP_ERROR;
	}
	for (it = ifs; it->if_index && !status; it++) {
		char name[IF_NAMESIZE + 8], desc[128];
		const char *mode = NULL;

		if (!mgcap_netdev_is_ethernet(it->if_name))
			continue;
		for (i = 0, queues = 0; i < count; i++) {
			if (!strcmp(nodes[i].ifname, it->if_name)) {
				queues++;
				mode = nodes[i].mode;
			}
		}
		if (queues)
			snprintf(desc, sizeof(desc), "mgcap: %s captured now, %d receive queue%s, %s mode",
				 it->if_name, queues, queues == 1 ? "" : "s", mode);
		else
			snprintf(desc, sizeof(desc),
				 "mgcap: %s not captured yet; opening it starts a capture", it->if_name);
		snprintf(name, sizeof(name), MGCAP_SOURCE_PREFIX "%s", it->if_name);
		if (add_dev(devlistp, name, device_flags(it->if_name), desc, errbuf) == NULL)
			status = PCAP_ERROR;
	}
	if_freenameindex(ifs);
	free(nodes);
	return status;
}
