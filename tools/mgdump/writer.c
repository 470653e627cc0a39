// SPDX-License-Identifier: BSD-2-Clause
/*
 * The writer: drains every reader's buffer into the output, each reader's
 * blocks as they come, or with --merged over several devices all of them in
 * stamp order (mgcap_order.h, the merge libpcap's module uses too).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mgcap_order.h"
#include "mgcap_time.h"
#include "mgdump.h"
#include "pcapng.h"
#include "service.h"

/* set up by main.c; the writer runs them */
struct postrotate postrotate;
struct retention retention;

/*
 * The writer sleeps while every buffer is empty (run.c); without a wake-up
 * it still wakes every WRITER_NAP_MS for the status line, -G and stopping.
 */
#define WRITER_NAP_MS	100
#define COUNTERS_EVERY_NS	5000000000ULL	/* --stats, --prometheus */

static int buffers_empty(void)
{
	size_t i;

	for (i = 0; i < nreaders; i++)
		if (blockring_fill(&readers[i].ring))
			return 0;
	return 1;
}

/* whether the writer, having found nothing, may sleep until a reader has blocks */
static int nothing_to_do(void)
{
	return buffers_empty() && !stopping;
}

void mgdump_file_stats(struct pcapng_if_stats *st, size_t n, void *arg)
{
	struct mgdump_sample s;

	(void)arg;
	mgdump_sample_counts(&s);
	mgdump_collect_stats(st, n, &s);
}

/* (sampled even with neither file: libpcap's 32-bit counters are carried on before they wrap) */
void mgdump_report_counters(const struct dump_output *out)
{
	struct mgdump_sample s;

	mgdump_sample_counts(&s);
	mgdump_write_counters(out, &retention, &s);
}

static void status_line(uint64_t *last_pkts, uint64_t *last_bytes, uint64_t bytes, int final)
{
	struct mgdump_sample s;

	mgdump_sample_counts(&s);
	mgdump_status_line(last_pkts, last_bytes, bytes, final, &s);
}

/*
 * --merged over several devices: each reader's blocks are in stamp order
 * (its device's queues merged by libpcap), and they go out oldest first
 * across the readers, a block at a time through a staging buffer.  A device
 * with nothing buffered may still bring an older block, so the oldest waits
 * for it, DEVICE_HOLD_NS at most (a quiet port of a tap must not stop the
 * other); stopping waits for nothing.  An idle device is no quicker: its
 * reader hands over on libpcap's read timeout (100 ms), and its libpcap
 * merge may hold a record too, so it holds as long as any.
 */
#define DEVICE_HOLD_NS	200000000ULL
static struct {
	struct mgcap_order order;
	uint64_t seen_head[MAX_READERS];	/* a reader's buffer's head at a look ... */
	uint64_t seen_head_at[MAX_READERS];	/* ... and when it was taken */
	uint8_t buf[1 << 20];			/* blocks staged, not yet written */
	size_t len, blocks;
} in_order;

/*
 * The order's look at a reader: its oldest block's stamp, and when the block
 * became visible: blocks behind a fresh look at the buffer's head became
 * visible then (not when they reached the front, or each would wait a hold
 * of its own).
 */
static int look_at_reader(void *arg, size_t i, uint64_t now_ns, uint64_t *key,
			  uint64_t *visible_at)
{
	struct blockring *ring = &readers[i].ring;
	const uint8_t *data;

	(void)arg;
	if (!blockring_peek(ring, &data))
		return 0;
	if (ring->tail >= in_order.seen_head[i]) {
		uint64_t head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);

		if (head != in_order.seen_head[i]) {
			in_order.seen_head[i] = head;
			in_order.seen_head_at[i] = now_ns;
		}
	}
	*key = pcapng_epb_ts(data);
	*visible_at = in_order.seen_head_at[i];
	return 1;
}

/*
 * A full disk (another writer's, or a file system without --max-disk) does
 * not end the run: what does not fit is dropped and counted, and so is
 * what comes until the next try, FULL_RETRY_NS later.  The readers read on
 * meanwhile, so that what is dropped is what the disk had no room for.
 */
#define FULL_RETRY_NS	1000000000ULL
static struct {
	uint64_t retry_at;	/* CLOCK_MONOTONIC; 0: the disk has room */
	uint64_t dropped;	/* since it filled */
} full;

/* A write failed: 0 for a full disk (dropping until the next try), or -1 (it said why). */
static int write_failed(struct dump_output *out)
{
	if (!out->full) {
		fprintf(stderr, "mgdump: %s\n", out->error);
		return -1;
	}
	if (!full.retry_at)
		fprintf(stderr, "mgdump: %s: dropping packets until there is room, trying "
			"again each second\n", out->error);
	full.retry_at = mgcap_now_ns(CLOCK_MONOTONIC) + FULL_RETRY_NS;
	return 0;
}

/* Whether the disk was full less than FULL_RETRY_NS ago: no write is tried. */
static int waiting_for_room(void)
{
	return full.retry_at && mgcap_now_ns(CLOCK_MONOTONIC) < full.retry_at;
}

/* A write went. */
static void room_again(const struct dump_output *out)
{
	if (!full.retry_at)
		return;
	fprintf(stderr, "mgdump: %s: writing again; %" PRIu64 " packets dropped while the disk "
		"was full\n", out->current, full.dropped);
	full.retry_at = 0;
	full.dropped = 0;
}

static void drop_for_full_disk(struct reader *r, uint64_t blocks)
{
	r->disk_dropped += blocks;
	full.dropped += blocks;
}

/*
 * The staged blocks out, each counted for its reader (its interface) as
 * written, or dropped for a full disk; those after the end of the output
 * (-W with -G) are neither.
 */
static int flush_in_order(struct dump_output *out, uint64_t *total, uint64_t *bytes)
{
	size_t kept = 0, off;
	int ret = 0, dropping = 1;

	if (!in_order.len)
		return 0;
	if (!waiting_for_room()) {
		ret = dump_output_write(out, in_order.buf, in_order.len);
		kept = out->kept;
		dropping = ret && out->full;
		/* (what went may have filled the disk again) */
		if (kept)
			room_again(out);
		if (ret)
			ret = write_failed(out);
	}
	for (off = 0; off < in_order.len; off += pcapng_block_len(in_order.buf + off)) {
		struct reader *r = &readers[pcapng_epb_ifid(in_order.buf + off)];

		if (off < kept) {
			r->written++;
			(*total)++;
		} else if (dropping) {
			drop_for_full_disk(r, 1);
		}
	}
	*bytes += kept;
	in_order.len = 0;
	in_order.blocks = 0;
	return ret;
}

/*
 * Blocks a batch of the order writes at most: then the readers with nothing
 * buffered are looked at again (within a batch, only the one written from),
 * the fill marks again, and the writer's loop does its rounds (the
 * watchdog, the counters), as libpcap's module ends a read at 4096 records.
 */
#define IN_ORDER_BATCH	4096

/*
 * Writes what can go in order now, a batch; *@idle cleared if anything
 * went, *@held set when the oldest block waits for a reader with nothing
 * buffered.
 */
static int write_in_order(struct dump_output *out, uint64_t *total, uint64_t *bytes, int *idle,
			  int *held)
{
	size_t i, batch = 0;

	if (stopping)
		in_order.order.hold_ns = 0;
	/* a batch: the readers with nothing buffered are looked at again */
	mgcap_order_begin_batch(&in_order.order);
	/* a buffer past half full: nothing waits for the order */
	in_order.order.rush = 0;
	for (i = 0; i < nreaders; i++)
		if (blockring_fill(&readers[i].ring) >= readers[i].ring.size / 2)
			in_order.order.rush = 1;
	while ((!cfg.count || *total + in_order.blocks < cfg.count) && batch++ < IN_ORDER_BATCH) {
		uint64_t wait_ns;
		long best = mgcap_order_next_with(&in_order.order, mgcap_now_ns(CLOCK_MONOTONIC),
						  &wait_ns, look_at_reader);
		const uint8_t *data;
		size_t len;

		if (best < 0) {
			*held = wait_ns != 0;
			break;
		}
		*idle = 0;
		blockring_peek(&readers[best].ring, &data);
		len = pcapng_block_len(data);
		if (in_order.len + len > sizeof(in_order.buf) && flush_in_order(out, total, bytes))
			return -1;
		memcpy(in_order.buf + in_order.len, data, len);
		in_order.len += len;
		in_order.blocks++;
		blockring_release(&readers[best].ring, len);
	}
	return flush_in_order(out, total, bytes);
}

/* Each reader's blocks as they are, whole blocks at a time: 0, or -1 (it said why). */
static int write_as_read(struct dump_output *out, uint64_t *total, uint64_t *bytes, int *idle)
{
	size_t i;

	for (i = 0; i < nreaders; i++) {
		struct reader *r = &readers[i];
		const uint8_t *data;
		size_t n = blockring_peek(&r->ring, &data), take, blocks, kept;
		int failed;

		if (!n)
			continue;
		*idle = 0;
		take = pcapng_whole_blocks(data, n, cfg.count ? cfg.count - *total : 0, &blocks);
		if (waiting_for_room()) {
			blockring_release(&r->ring, take);
			drop_for_full_disk(r, blocks);
			continue;
		}
		if (!take)
			continue;
		failed = dump_output_write(out, data, take);
		/* what made it into the file counts as written: all of it, but on a failure or the end */
		kept = blocks;
		if (out->kept != take)
			pcapng_whole_blocks(data, out->kept, 0, &kept);
		r->written += kept;
		*total += kept;
		*bytes += out->kept;
		/* (what went may have filled the disk again) */
		if (out->kept)
			room_again(out);
		if (failed && write_failed(out))
			return -1;
		if (out->ended) {
			/* -W with -G: the last period is written, these blocks of it */
			blockring_release(&r->ring, out->kept);
			return 0;
		}
		/* (a full disk's: what did not go is dropped) */
		blockring_release(&r->ring, take);
		drop_for_full_disk(r, blocks - kept);
		if (cfg.count && *total >= cfg.count)
			break;
	}
	return 0;
}

int mgdump_write_loop(struct dump_output *out)
{
	uint64_t total = 0, bytes = 0, last_pkts = 0, last_bytes = 0;
	uint64_t next_status = mgcap_now_ns(CLOCK_REALTIME) + 1000000000ULL, end = 0;
	uint64_t next_expiry = 0, next_counters = 0, next_alive = 0, watchdog_ns, mono;
	int tty = isatty(STDERR_FILENO) && !cfg.quiet && strcmp(cfg.path, "-");
	int merged = cfg.merged && nreaders > 1;

	if (merged && mgcap_order_init(&in_order.order, nreaders, DEVICE_HOLD_NS, DEVICE_HOLD_NS,
				       look_at_reader, NULL)) {
		fprintf(stderr, "mgdump: out of memory\n");
		return -1;
	}
	if (cfg.duration_s)
		end = start_ns + (uint64_t)cfg.duration_s * 1000000000ULL;
	/* under systemd with WatchdogSec=: the writer's passes say it is alive */
	watchdog_ns = mgdump_service_watchdog_ns();
	for (;;) {
		/*
		 * Done once stopping with no reader left: a reader still in its
		 * batch when the stop came puts blocks in after a pass that
		 * found the buffers empty.
		 */
		int idle = 1, held = 0;
		int done = stopping && !mgdump_readers_running();
		int failed;

		/* a new file at SIGHUP, or at a -G period's end even with nothing to write */
		if (rotate_requested) {
			rotate_requested = 0;
			failed = dump_output_rotate(out);
		} else {
			failed = dump_output_tick(out);
		}
		if (failed && write_failed(out)) {
			mgdump_request_stop(0);
			return -1;
		}
		if (out->ended) {
			/* -W with -G: the last period is written, what came after is not */
			mgdump_request_stop(0);
			break;
		}
		if (postrotate.command)
			postrotate_poll(&postrotate);
		mono = mgcap_now_ns(CLOCK_MONOTONIC);
		if (watchdog_ns && mono >= next_alive) {
			mgdump_service_notify("WATCHDOG=1");
			next_alive = mono + watchdog_ns / 2;
		}
		/* (also so that libpcap's 32-bit counters are carried on before they wrap) */
		if (mono >= next_counters) {
			mgdump_report_counters(out);
			next_counters = mono + COUNTERS_EVERY_NS;
		}
		if (retention.max_age_s && mono >= next_expiry) {
			retention_expire(&retention);
			next_expiry = mono + 1000000000ULL;
		}
		failed = merged ? write_in_order(out, &total, &bytes, &idle, &held) :
				  write_as_read(out, &total, &bytes, &idle);

		if (failed) {
			mgdump_request_stop(0);
			return -1;
		}
		if (cfg.count && total >= cfg.count) {
			mgdump_request_stop(0);
			done = 1;
		}
		if (tty && mgcap_now_ns(CLOCK_REALTIME) >= next_status) {
			status_line(&last_pkts, &last_bytes, bytes, 0);
			next_status += 1000000000ULL;
		}
		if (end && mgcap_now_ns(CLOCK_REALTIME) >= end && !stopping)
			mgdump_request_stop(1);
		if (done && (idle || (cfg.count && total >= cfg.count)))
			break;
		if (held)	/* blocks are there, but must wait: the buffers would not let it sleep */
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		else if (idle)
			mgdump_writer_sleep(WRITER_NAP_MS, nothing_to_do);
	}
	if (tty)
		fputc('\n', stderr);
	if (!cfg.quiet)
		status_line(&last_pkts, &last_bytes, bytes, 1);
	if (merged && in_order.order.out_of_order)
		fprintf(stderr, "mgdump: %" PRIu64 " packets written out of stamp order across "
			"the devices\n", in_order.order.out_of_order);
	if (merged)
		mgcap_order_free(&in_order.order);
	return 0;
}
