// SPDX-License-Identifier: BSD-2-Clause
/*
 * mgdump: every packet of an mgcap device to pcapng, losing nothing a
 * buffer can absorb.  Its options: mgdump_options below.
 *
 * One reader thread per receive queue (libpcap source mgcap:DEV@N, or DEV
 * itself for any other libpcap device) formats enhanced packet blocks into
 * its own part of a large buffer; one writer thread writes them out.  A slow
 * disk is absorbed by the buffer; beyond it, packets are dropped and counted
 * apart from the ring's drops.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>

#include "blockring.h"
#include "dump_output.h"
#include "erspan.h"
#include "mgcap_adapter.h"
#include "mgcap_nl.h"
#include "mgcap_source.h"
#include "mgcap_time.h"
#include "options.h"
#include "parse.h"
#include "pcapng.h"

#define MAX_READERS 64

struct reader {
	pthread_t thread;
	pcap_t *pcap;
	struct blockring ring;
	uint32_t ifid;
	int cpu;		/* -1: not pinned */
	uint64_t captured;	/* blocks put in the buffer */
	uint64_t written;	/* by the writer */
	struct pcap_stat last;	/* for the statistics blocks */
	int tstamp_type;	/* PCAP_TSTAMP_*: what its stamps are */
	uint32_t ns_per_frac;	/* ns in a unit of ts.tv_usec: 1, or 1000 from a source without ns */
};

static struct {
	const char *devs[MGCAP_MAX_DEVICES], *path, *filter;
	size_t ndevs;
	int mgcap_only[MGCAP_MAX_DEVICES];	/* -i mgcap:DEV */
	uint64_t rotate_bytes, buffer_bytes, count;
	unsigned int keep, duration_s, snaplen;
	int merged, writer_cpu, quiet, decap;
	int tstamp;		/* PCAP_TSTAMP_*; -1: adapter where the NIC has a clock */
	int cpus[MAX_READERS], ncpus;
} opt = { .path = NULL, .snaplen = 96, .buffer_bytes = 256ULL << 20, .writer_cpu = -1,
	  .tstamp = -1 };

static struct reader readers[MAX_READERS];
/*
 * The writer sleeps while every buffer is empty; a reader that has put
 * blocks in wakes it, once a batch and only when it sleeps.  Without a
 * signal it still wakes every WRITER_NAP_MS for the status line, -G and
 * stopping.
 */
#define WRITER_NAP_MS	100
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int sleeping;
} writer_wake = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
static struct dump_interface ifs[MAX_READERS];
static size_t nreaders;
static volatile sig_atomic_t stopping;
static int readers_joined;	/* their handles may be asked anything now */
/* reader threads still running: the writer's last pass waits for them */
static unsigned int readers_running;
static uint64_t start_ns;
/* the mgcap libpcap's report on a handle's stamps, if that is the libpcap in use */
static int (*tstamp_report)(pcap_t *p, char *buf, size_t len);

/* A CPU given with --cpus or --writer-cpu must be one this process may use. */
static int check_cpu(int cpu, const char *option)
{
	cpu_set_t allowed;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0 && CPU_ISSET(cpu, &allowed))
		return 0;
	fprintf(stderr, "mgdump: CPU %d (%s) is not available to this process\n", cpu, option);
	return -1;
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

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct reader *r = (struct reader *)user;
	uint32_t len = (uint32_t)pcapng_epb_size(h->caplen);
	uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000ULL +
		      (uint64_t)h->ts.tv_usec * r->ns_per_frac;
	uint32_t caplen = h->caplen, wirelen = h->len;
	uint8_t *p;

	if (opt.decap) {
		int off = erspan_inner_offset(bytes, caplen);

		if (off > 0) {
			bytes += off;
			caplen -= (uint32_t)off;
			wirelen -= (uint32_t)off;
			len = (uint32_t)pcapng_epb_size(caplen);
		}
	}
	p = blockring_reserve(&r->ring, len);
	if (!p)
		return;		/* counted by the ring: a buffer drop */
	pcapng_epb(p, len, r->ifid, ts, bytes, caplen, wirelen);
	blockring_commit(&r->ring, len);
	r->captured++;
}

static void wake_writer(void)
{
	/* pairs with the writer's fence: it sees our blocks, or we see it asleep */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&writer_wake.sleeping, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&writer_wake.lock);
	pthread_cond_signal(&writer_wake.cond);
	pthread_mutex_unlock(&writer_wake.lock);
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;

	while (!stopping) {
		int n = pcap_dispatch(r->pcap, -1, on_packet, (u_char *)r);

		if (n == PCAP_ERROR) {
			fprintf(stderr, "mgdump: %s\n", pcap_geterr(r->pcap));
			stopping = 1;
		}
		if (n)
			wake_writer();
	}
	/* its last blocks are in the buffer: pairs with the writer's last pass */
	__atomic_sub_fetch(&readers_running, 1, __ATOMIC_RELEASE);
	wake_writer();
	return NULL;
}

static int buffers_empty(void)
{
	size_t i;

	for (i = 0; i < nreaders; i++)
		if (blockring_fill(&readers[i].ring))
			return 0;
	return 1;
}

/* The writer found nothing: sleep until a reader has blocks, or a nap's end. */
static void writer_sleep(void)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += WRITER_NAP_MS * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&writer_wake.lock);
	__atomic_store_n(&writer_wake.sleeping, 1, __ATOMIC_RELAXED);
	/* pairs with wake_writer(): a block committed before it is seen here */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (buffers_empty() && !stopping)
		pthread_cond_timedwait(&writer_wake.cond, &writer_wake.lock, &until);
	__atomic_store_n(&writer_wake.sleeping, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&writer_wake.lock);
}

static void on_signal(int sig)
{
	size_t i;

	(void)sig;
	stopping = 1;
	for (i = 0; i < nreaders; i++)
		pcap_breakloop(readers[i].pcap);
}

/*
 * What the stamps of @r are, for a statistics block.  At the end, with what
 * the conversion of adapter stamps did (its counters belong to the reader
 * thread until then).
 */
static void tstamp_note(struct reader *r, char *buf, size_t len)
{
	char report[PCAPNG_NOTE_MAX - 48];

	if (!readers_joined || !tstamp_report || tstamp_report(r->pcap, report, sizeof(report)) < 0)
		report[0] = '\0';
	snprintf(buf, len, "time stamps: %s%s%s", pcap_tstamp_type_val_to_name(r->tstamp_type),
		 report[0] ? ", " : "", report);
}

/* Statistics for the closing blocks of a file: the counters as of now. */
static void collect_stats(struct pcapng_if_stats *st, size_t n, void *arg)
{
	uint64_t now = mgcap_now_ns(CLOCK_REALTIME);
	size_t i;

	(void)arg;
	for (i = 0; i < n && i < nreaders; i++) {
		struct reader *r = &readers[i];

		pcap_stats(r->pcap, &r->last);
		st[i].start_ns = start_ns;
		st[i].end_ns = now;
		st[i].received = r->last.ps_recv;
		st[i].if_dropped = r->last.ps_ifdrop;
		st[i].os_dropped = r->last.ps_drop;
		st[i].delivered = r->written;
		st[i].buffer_dropped = __atomic_load_n(&r->ring.dropped, __ATOMIC_RELAXED);
		tstamp_note(r, st[i].note, sizeof(st[i].note));
	}
}

/* --tstamp, or for an mgcap source adapter where it has a clock, else adapter_unsynced */
static int wanted_tstamp(pcap_t *p, const char *name)
{
	int *types, n, i, type = PCAP_TSTAMP_ADAPTER_UNSYNCED;

	if (opt.tstamp >= 0 || !mgcap_source_is_ours(name))
		return opt.tstamp >= 0 ? opt.tstamp : PCAP_TSTAMP_HOST;
	n = pcap_list_tstamp_types(p, &types);
	for (i = 0; i < n; i++)
		if (types[i] == PCAP_TSTAMP_ADAPTER)
			type = PCAP_TSTAMP_ADAPTER;
	if (n > 0)
		pcap_free_tstamp_types(types);
	return type;
}

static pcap_t *open_source(struct reader *r, const char *name, char *err)
{
	pcap_t *p = pcap_create(name, err);
	int status, type;

	if (!p)
		return NULL;
	pcap_set_snaplen(p, (int)opt.snaplen);
	pcap_set_timeout(p, 100);
	pcap_set_promisc(p, 1);
	pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
	type = wanted_tstamp(p, name);
	r->tstamp_type = PCAP_TSTAMP_HOST;
	if (type != PCAP_TSTAMP_HOST) {
		status = pcap_set_tstamp_type(p, type);
		if (status == 0)
			r->tstamp_type = type;
		else
			fprintf(stderr, "mgdump: %s: time stamps %s: %s\n", name,
				pcap_tstamp_type_val_to_name(type), pcap_statustostr(status));
	}
	status = pcap_activate(p);
	if (status < 0) {
		const char *why = pcap_geterr(p);

		/* libpcap's own message may or may not name the device */
		if (!why[0])
			why = pcap_statustostr(status);
		if (strstr(why, name))
			snprintf(err, PCAP_ERRBUF_SIZE, "%s", why);
		else
			snprintf(err, PCAP_ERRBUF_SIZE, "%s: %s", name, why);
		pcap_close(p);
		return NULL;
	}
	if (status > 0)
		fprintf(stderr, "mgdump: %s: %s\n", name,
			status == PCAP_WARNING ? pcap_geterr(p) : pcap_statustostr(status));
	/* most of libpcap's other sources refuse nanoseconds: theirs are scaled */
	r->ns_per_frac = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO ? 1 : 1000;
	/* after a warning, the mgcap libpcap says what the stamps really are */
	if (tstamp_report) {
		char report[PCAPNG_NOTE_MAX];

		type = tstamp_report(p, report, sizeof(report));
		if (type >= 0)
			r->tstamp_type = type;
	}
	return p;
}

/*
 * -i mgcap:DEV on a device nobody captures: start its capture, which the
 * kernel stops once our readers (and any other) closed.  0 or -1.
 */
static int start_capture(const char *dev)
{
	struct mgcap_nl_error e;

	if (mgcap_nl_start_for_readers(dev, 0, &e) == 0)
		return 0;
	fprintf(stderr, "mgdump: cannot start capturing %s: %s\n", dev, mgcap_nl_strerror(&e));
	return -1;
}

/* Adds @name as a source and interface; 0, or -1 when there are too many. */
static int add_source(char sources[][IF_NAMESIZE + 16], size_t *count, const char *source,
		      const char *name, const char *description)
{
	if (*count == MAX_READERS) {
		fprintf(stderr, "mgdump: more than %d queues to read\n", MAX_READERS);
		return -1;
	}
	snprintf(sources[*count], sizeof(sources[0]), "%s", source);
	snprintf(ifs[*count].name, sizeof(ifs[0].name), "%s", name);
	snprintf(ifs[*count].description, sizeof(ifs[0].description), "%s", description);
	(*count)++;
	return 0;
}

/*
 * What to read: every queue of each captured mgcap device (mgcap:DEV@N
 * each), or each device's merged stream (--merged: mgcap:DEV), or one other
 * libpcap device (not with -i mgcap:DEV, nor with several -i).  0 sources:
 * an error was said.
 */
static size_t plan_sources(char sources[][IF_NAMESIZE + 16])
{
	struct mgcap_queue_node *nodes = NULL;
	int n = mgcap_list_queues(MGCAP_SYSFS_CLASS, mgcap_own_netns(), &nodes), i;
	char source[IF_NAMESIZE + 16], name[32], desc[96];
	size_t count = 0, d;

	/* no class directory: no module, so not an mgcap device */
	if (n < 0 && errno != ENOENT) {
		fprintf(stderr, "mgdump: listing the mgcap queues in " MGCAP_SYSFS_CLASS ": %s\n",
			strerror(errno));
		return 0;
	}
	for (d = 0; d < opt.ndevs; d++) {
		const char *dev = opt.devs[d];
		int captured = mgcap_count_queues(nodes, n, dev) > 0;

		if (opt.mgcap_only[d] && !captured) {
			free(nodes);
			nodes = NULL;
			if (start_capture(dev))
				return 0;
			n = mgcap_list_queues(MGCAP_SYSFS_CLASS, mgcap_own_netns(), &nodes);
			captured = mgcap_count_queues(nodes, n, dev) > 0;
			if (!captured) {
				fprintf(stderr, "mgdump: mgcap:%s: its capture stopped at once\n", dev);
				free(nodes);
				return 0;
			}
		}
		if (!captured && opt.ndevs > 1) {
			fprintf(stderr, "mgdump: %s is not captured by mgcap (several -i read "
				"mgcap devices only)\n", dev);
			free(nodes);
			return 0;
		}
		if (!captured) {	/* any libpcap device: the one -i */
			add_source(sources, &count, dev, dev, "");
			break;
		}
		if (opt.merged) {
			snprintf(source, sizeof(source), "mgcap:%.15s", dev);
			snprintf(desc, sizeof(desc), "mgcap:%.15s, every receive queue in stamp order",
				 dev);
			if (add_source(sources, &count, source, dev, desc))
				count = 0;
			continue;
		}
		for (i = 0; i < n; i++) {
			if (strcmp(nodes[i].ifname, dev))
				continue;
			snprintf(source, sizeof(source), "mgcap:%.15s@%u", dev, nodes[i].queue);
			snprintf(name, sizeof(name), "%.15s@%u", dev, nodes[i].queue);
			snprintf(desc, sizeof(desc), "mgcap:%.15s@%u, receive queue %u", dev,
				 nodes[i].queue, nodes[i].queue);
			if (add_source(sources, &count, source, name, desc)) {
				free(nodes);
				return 0;
			}
		}
	}
	free(nodes);
	return count;
}

/* The interface's description says what its stamps are: pcapng has no field for it. */
static void tstamp_description(struct dump_interface *ifc, int type)
{
	size_t n = strlen(ifc->description);

	snprintf(ifc->description + n, sizeof(ifc->description) - n, "%stime stamps: %s",
		 n ? "; " : "", pcap_tstamp_type_val_to_name(type));
}

static int open_readers(void)
{
	char sources[MAX_READERS][IF_NAMESIZE + 16], err[PCAP_ERRBUF_SIZE];
	size_t i;

	nreaders = plan_sources(sources);
	if (!nreaders)
		return -1;
	for (i = 0; i < nreaders; i++) {
		struct reader *r = &readers[i];
		struct bpf_program prog;

		r->pcap = open_source(r, sources[i], err);
		if (!r->pcap) {
			fprintf(stderr, "mgdump: %s\n", err);
			return -1;
		}
		if (opt.filter) {
			if (pcap_compile(r->pcap, &prog, opt.filter, 1, PCAP_NETMASK_UNKNOWN) ||
			    pcap_setfilter(r->pcap, &prog)) {
				fprintf(stderr, "mgdump: bad filter '%s': %s\n", opt.filter,
					pcap_geterr(r->pcap));
				return -1;
			}
			pcap_freecode(&prog);
		}
		tstamp_description(&ifs[i], r->tstamp_type);
		ifs[i].linktype = (uint16_t)pcap_datalink(r->pcap);
		ifs[i].snaplen = (uint32_t)pcap_snapshot(r->pcap);
		r->ifid = (uint32_t)i;
		r->cpu = opt.ncpus ? opt.cpus[i % (size_t)opt.ncpus] : -1;
		if (blockring_init(&r->ring, opt.buffer_bytes / nreaders)) {
			fprintf(stderr, "mgdump: cannot allocate %" PRIu64 " MiB of buffer\n",
				opt.buffer_bytes >> 20);
			return -1;
		}
	}
	return 0;
}

static void status_line(uint64_t *last_pkts, uint64_t *last_bytes, uint64_t bytes, int final)
{
	uint64_t pkts = 0, ring_drops = 0, buf_drops = 0, fill = 0, hwm = 0, cap = 0;
	size_t i;

	for (i = 0; i < nreaders; i++) {
		struct pcap_stat st;

		if (pcap_stats(readers[i].pcap, &st) == 0)
			ring_drops += st.ps_drop;
		pkts += readers[i].written;
		buf_drops += __atomic_load_n(&readers[i].ring.dropped, __ATOMIC_RELAXED);
		fill += blockring_fill(&readers[i].ring);
		hwm += __atomic_load_n(&readers[i].ring.high_water, __ATOMIC_RELAXED);
		cap += readers[i].ring.size;
	}
	if (final) {
		uint64_t read = 0;

		fprintf(stderr, "mgdump: %" PRIu64 " packets written, %" PRIu64 " bytes; dropped: %"
			PRIu64 " in the rings, %" PRIu64 " in the buffer; buffer high-water %" PRIu64
			"%%\n", pkts, bytes, ring_drops, buf_drops, cap ? hwm * 100 / cap : 0);
		/* the readers are gone: every packet they read is in the file, but -c's surplus */
		for (i = 0; i < nreaders; i++)
			read += readers[i].captured;
		if (!opt.count && read != pkts)
			fprintf(stderr, "mgdump: %" PRIu64 " packets read were not written\n",
				read - pkts);
	} else {
		fprintf(stderr, "\r%" PRIu64 " pkt/s %.1f MB/s drops ring %" PRIu64 " buffer %" PRIu64
			" buffer %" PRIu64 "%% (high %" PRIu64 "%%)   ", pkts - *last_pkts,
			(double)(bytes - *last_bytes) / 1e6, ring_drops, buf_drops,
			cap ? fill * 100 / cap : 0, cap ? hwm * 100 / cap : 0);
	}
	*last_pkts = pkts;
	*last_bytes = bytes;
}

/* The writer: drains every reader's buffer into the output. */
/*
 * --merged over several devices: each reader's blocks are in stamp order
 * (its device's queues merged by libpcap), and they go out oldest first
 * across the readers, a block at a time through a staging buffer.  A reader
 * with nothing buffered may still bring an older block, so the oldest waits
 * for it; but a reader idle for DEVICE_HOLD_NS holds nothing back any more
 * (a quiet port of a tap must not stop the other).  Stopping waits for
 * nothing.
 */
#define DEVICE_HOLD_NS	200000000ULL
static struct {
	uint64_t last_ts[MAX_READERS];	/* of the last block written from each reader */
	uint64_t empty_since[MAX_READERS];	/* 0: it has blocks */
	uint64_t pending[MAX_READERS];	/* blocks staged, not yet written */
	uint8_t buf[1 << 20];
	size_t len;
} in_order;

static int flush_in_order(struct dump_output *out)
{
	size_t i;
	int ret = in_order.len ? dump_output_write(out, in_order.buf, in_order.len) : 0;

	for (i = 0; i < nreaders; i++) {
		if (!ret)
			readers[i].written += in_order.pending[i];
		in_order.pending[i] = 0;
	}
	in_order.len = 0;
	if (ret)
		fprintf(stderr, "mgdump: %s\n", out->error);
	return ret;
}

/*
 * Writes what can go in order now; *@idle cleared if anything went, *@held
 * set when the oldest block waits for a reader with nothing buffered.
 */
static int write_in_order(struct dump_output *out, uint64_t *total, uint64_t *bytes, int *idle,
			  int *held)
{
	while (!opt.count || *total < opt.count) {
		const uint8_t *data, *best_data = NULL;
		size_t i, best = 0, len;
		uint64_t best_ts = 0, ts, now = mgcap_now_ns(CLOCK_REALTIME);
		int waits = 0;

		for (i = 0; i < nreaders; i++) {
			if (!blockring_peek(&readers[i].ring, &data)) {
				if (!in_order.empty_since[i])
					in_order.empty_since[i] = now;
				continue;
			}
			in_order.empty_since[i] = 0;
			ts = pcapng_epb_ts(data);
			if (!best_data || ts < best_ts) {
				best_data = data;
				best_ts = ts;
				best = i;
			}
		}
		if (!best_data)
			break;
		for (i = 0; i < nreaders; i++)
			if (in_order.empty_since[i] && now - in_order.empty_since[i] < DEVICE_HOLD_NS &&
			    in_order.last_ts[i] < best_ts)
				waits = 1;
		if (waits && !stopping) {
			*held = 1;
			break;
		}
		*idle = 0;
		len = pcapng_block_len(best_data);
		if (in_order.len + len > sizeof(in_order.buf) && flush_in_order(out))
			return -1;
		memcpy(in_order.buf + in_order.len, best_data, len);
		in_order.len += len;
		in_order.pending[best]++;
		blockring_release(&readers[best].ring, len);
		in_order.last_ts[best] = best_ts;
		(*total)++;
		*bytes += len;
	}
	return flush_in_order(out);
}

static int write_loop(struct dump_output *out)
{
	uint64_t total = 0, bytes = 0, last_pkts = 0, last_bytes = 0;
	uint64_t next_status = mgcap_now_ns(CLOCK_REALTIME) + 1000000000ULL, end = 0;
	int tty = isatty(STDERR_FILENO) && !opt.quiet && strcmp(opt.path, "-");
	int ret = 0;

	if (opt.duration_s)
		end = start_ns + (uint64_t)opt.duration_s * 1000000000ULL;
	for (;;) {
		/*
		 * Done once stopping with no reader left: a reader still in its
		 * batch when the stop came puts blocks in after a pass that
		 * found the buffers empty.
		 */
		int idle = 1, held = 0;
		int done = stopping && !__atomic_load_n(&readers_running, __ATOMIC_ACQUIRE);
		size_t i;

		if (opt.merged && nreaders > 1) {
			if (write_in_order(out, &total, &bytes, &idle, &held)) {
				stopping = 1;
				return -1;
			}
			if (opt.count && total >= opt.count)
				stopping = done = 1;
		}
		for (i = 0; i < nreaders && !(opt.merged && nreaders > 1); i++) {
			struct reader *r = &readers[i];
			const uint8_t *data;
			size_t n = blockring_peek(&r->ring, &data), take, blocks;

			if (!n)
				continue;
			idle = 0;
			take = pcapng_whole_blocks(data, n, opt.count ? opt.count - total : 0, &blocks);
			if (take && dump_output_write(out, data, take)) {
				/* what did make it into the file counts as written */
				pcapng_whole_blocks(data, out->kept, 0, &blocks);
				r->written += blocks;
				fprintf(stderr, "mgdump: %s\n", out->error);
				stopping = 1;
				return -1;
			}
			blockring_release(&r->ring, take);
			r->written += blocks;
			total += blocks;
			bytes += take;
			if (opt.count && total >= opt.count)
				stopping = done = 1;
		}
		if (tty && mgcap_now_ns(CLOCK_REALTIME) >= next_status) {
			status_line(&last_pkts, &last_bytes, bytes, 0);
			next_status += 1000000000ULL;
		}
		if (end && mgcap_now_ns(CLOCK_REALTIME) >= end)
			stopping = 1;
		if (done && idle)
			break;
		if (done && opt.count && total >= opt.count)
			break;
		if (held)	/* blocks are there, but must wait: the buffers would not let it sleep */
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		else if (idle)
			writer_sleep();
	}
	if (tty)
		fputc('\n', stderr);
	if (!opt.quiet)
		status_line(&last_pkts, &last_bytes, bytes, 1);
	return ret;
}

enum { OPT_CPUS = OPT_LONG_ONLY, OPT_WRITER_CPU, OPT_MERGED, OPT_TSTAMP };

static const struct tool_option mgdump_options[] = {
	{ 'i', "interface", "DEV", "DEV's mgcap queues, else the libpcap device; mgcap:DEV starts a capture; again for more" },
	{ 'w', "write", "FILE", "the pcapng file to write, - for standard output" },
	{ 'C', "file-size", "MB", "a new file every MB million bytes: FILE, FILE1, FILE2, ..." },
	{ 'W', "file-count", "N", "with -C, keep at most N files, reusing their names" },
	{ 's', "snaplen", "SNAPLEN", "bytes kept of each packet (default 96)" },
	{ 'c', "count", "COUNT", "stop after COUNT packets" },
	{ 'G', "seconds", "SECONDS", "stop after SECONDS seconds" },
	{ 'B', "buffer-size", "MB", "buffer between the readers and the writer (default 256)" },
	{ 'd', "decapsulate", NULL, "write the frame inside ERSPAN packets (types I, II, III)" },
	{ OPT_CPUS, "cpus", "LIST", "CPUs for the reader threads, one per queue, round robin" },
	{ OPT_WRITER_CPU, "writer-cpu", "N", "the CPU for the writer thread" },
	{ OPT_MERGED, "merged", NULL, "one interface a device, all in time-stamp order" },
	{ OPT_TSTAMP, "tstamp", "TYPE", "time stamps: adapter, adapter_unsynced or host (see below)" },
	{ 'q', "quiet", NULL, "no status line" },
	TOOL_OPTION_HELP,
	TOOL_OPTION_VERSION,
	{ 0 },
};

static const struct tool_help mgdump_help = {
	.name = "mgdump",
	.synopsis = "-i DEV -w FILE|- [OPTION...] [FILTER...]",
	.summary = "Records every packet of a device to pcapng: one reader thread per receive\n"
		   "queue, a large buffer, one writer thread.  FILTER is a pcap-filter(7)\n"
		   "expression.",
	.options = mgdump_options,
	.notes = "Time stamps: adapter is the NIC's clock converted to system time, the\n"
		 "default where the NIC has a clock (PHC); adapter_unsynced is its raw time,\n"
		 "the default for other mgcap devices; host is the kernel's.  Each interface's\n"
		 "description says which it got, and its statistics what the conversion did.\n"
		 "\n"
		 "Several -i read several mgcap devices, such as the two ports of a tap: each\n"
		 "queue its own interface, or with --merged each device, and then all of them\n"
		 "in the order of their stamps (in system time with adapter stamps).\n"
		 "\n"
		 "Exit status: 0 when it stopped as asked (-c, -G, SIGINT, SIGTERM), 1 when\n"
		 "capturing or writing failed, 2 for bad arguments.",
};

static int parse_cpus(const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL;
	uint32_t cpu;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (mgcap_parse_u32(tok, 0, CPU_SETSIZE - 1, &cpu) || opt.ncpus == MAX_READERS) {
			free(copy);
			return -1;
		}
		opt.cpus[opt.ncpus++] = (int)cpu;
	}
	free(copy);
	return opt.ncpus ? 0 : -1;
}

static int parse_args(int argc, char **argv)
{
	struct tool_getopt g = { 0 };
	static char filter[4096];
	uint32_t v;
	uint64_t mb;
	int c;

	while ((c = tool_getopt(argc, argv, &mgdump_help, &g)) != -1) {
		switch (c) {
		case 'i':
			if (opt.ndevs == MGCAP_MAX_DEVICES) {
				fprintf(stderr, "mgdump: more than %d devices (-i)\n", MGCAP_MAX_DEVICES);
				return -1;
			}
			opt.devs[opt.ndevs++] = optarg;
			break;
		case 'w': opt.path = optarg; break;
		case 'C':
			if (mgcap_parse_u32(optarg, 1, 1000000, &v))
				goto bad;
			opt.rotate_bytes = (uint64_t)v * 1000000ULL;	/* tcpdump's -C unit */
			break;
		case 'W':
			if (mgcap_parse_u32(optarg, 1, 100000, &opt.keep))
				goto bad;
			break;
		case 's':
			if (mgcap_parse_u32(optarg, 1, 262144, &opt.snaplen))
				goto bad;
			break;
		case 'c':
			if (mgcap_parse_u32(optarg, 1, UINT32_MAX, &v))
				goto bad;
			opt.count = v;
			break;
		case 'G':
			if (mgcap_parse_u32(optarg, 1, 10000000, &opt.duration_s))
				goto bad;
			break;
		case 'B':
			if (mgcap_parse_size(optarg, &mb) || mb < 1 || mb > 65536)
				goto bad;
			opt.buffer_bytes = mb << 20;
			break;
		case OPT_CPUS:
			if (parse_cpus(optarg))
				goto bad;
			break;
		case OPT_WRITER_CPU:
			if (mgcap_parse_u32(optarg, 0, CPU_SETSIZE - 1, &v))
				goto bad;
			opt.writer_cpu = (int)v;
			break;
		case OPT_MERGED: opt.merged = 1; break;
		case OPT_TSTAMP:
			opt.tstamp = pcap_tstamp_type_name_to_val(optarg);
			if (opt.tstamp != PCAP_TSTAMP_HOST && opt.tstamp != PCAP_TSTAMP_ADAPTER &&
			    opt.tstamp != PCAP_TSTAMP_ADAPTER_UNSYNCED)
				goto bad;
			break;
		case 'd': opt.decap = 1; break;
		case 'q': opt.quiet = 1; break;
		default: return -1;	/* getopt said which */
		}
	}
	for (c = 0; c < (int)opt.ndevs; c++) {
		const char *dev = opt.devs[c];
		int k;

		if (!strncmp(dev, MGCAP_SOURCE_PREFIX, strlen(MGCAP_SOURCE_PREFIX))) {
			dev += strlen(MGCAP_SOURCE_PREFIX);
			opt.mgcap_only[c] = 1;
			if (mgcap_check_ifname(dev)) {
				fprintf(stderr, "mgdump: -i mgcap:DEV takes a device name, not '%s'\n",
					dev);
				return -1;
			}
		}
		opt.devs[c] = dev;
		for (k = 0; k < c; k++) {
			if (!strcmp(opt.devs[k], dev)) {
				fprintf(stderr, "mgdump: -i %s given twice\n", dev);
				return -1;
			}
		}
	}
	if (!opt.ndevs || !opt.path) {
		fprintf(stderr, "mgdump: %s\n", !opt.ndevs ? "no device (-i DEV)" : "no output (-w FILE or -w -)");
		return -1;
	}
	if (opt.keep && !opt.rotate_bytes) {
		fprintf(stderr, "mgdump: -W needs -C\n");
		return -1;
	}
	filter[0] = '\0';
	for (; optind < argc; optind++) {
		if (strlen(filter) + strlen(argv[optind]) + 2 > sizeof(filter)) {
			fprintf(stderr, "mgdump: filter too long\n");
			return -1;
		}
		if (filter[0])
			strcat(filter, " ");
		strcat(filter, argv[optind]);
	}
	opt.filter = filter[0] ? filter : NULL;
	for (c = 0; c < opt.ncpus; c++)
		if (check_cpu(opt.cpus[c], "--cpus"))
			return -1;
	if (opt.writer_cpu >= 0 && check_cpu(opt.writer_cpu, "--writer-cpu"))
		return -1;
	return 0;
bad:
	fprintf(stderr, "mgdump: bad value '%s' for %s\n", optarg,
		tool_option_spelling(mgdump_options, c));
	return -1;
}

/* One thread per reader, each on its CPU; the writer is this thread. */
static int start_threads(size_t *started)
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
	if (opt.writer_cpu >= 0) {
		cpu_set_t set;

		only_cpu(&set, opt.writer_cpu);
		err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		if (err) {
			fprintf(stderr, "mgdump: cannot pin the writer to CPU %d: %s\n",
				opt.writer_cpu, strerror(err));
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct dump_output out;
	struct sigaction sa;
	size_t i, started;
	int ret;

	if (parse_args(argc, argv))
		return 2;
	/* POSIX's way to take a function from dlsym() */
	*(void **)&tstamp_report = dlsym(RTLD_DEFAULT, MGCAP_TSTAMP_REPORT_SYMBOL);
	if (open_readers())
		return 1;
	memset(&out, 0, sizeof(out));
	out.path = opt.path;
	out.rotate_bytes = opt.rotate_bytes;
	out.keep = opt.keep;
	out.ifs = ifs;
	out.nifs = nreaders;
	out.collect_stats = collect_stats;
	if (dump_output_open(&out)) {
		fprintf(stderr, "mgdump: %s\n", out.error);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	start_ns = mgcap_now_ns(CLOCK_REALTIME);
	ret = start_threads(&started);
	if (!ret)
		ret = write_loop(&out);
	stopping = 1;
	for (i = 0; i < nreaders; i++)
		pcap_breakloop(readers[i].pcap);
	for (i = 0; i < started; i++)
		pthread_join(readers[i].thread, NULL);
	readers_joined = 1;
	if (dump_output_close(&out) && !ret) {
		fprintf(stderr, "mgdump: %s\n", out.error);
		ret = -1;
	}
	/* a signal now would break the loop of a handle being closed */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	for (i = 0; i < nreaders; i++) {
		pcap_close(readers[i].pcap);
		blockring_free(&readers[i].ring);
	}
	return ret ? 1 : 0;
}
