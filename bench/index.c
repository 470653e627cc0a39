// SPDX-License-Identifier: BSD-2-Clause
/*
 * What mgdump's index (--index) costs its writer, and what it saves a
 * search.  Both go through mgdump's own writer (dump_output, capindex), in
 * one thread, as bench/writer.c does.
 *
 *   index cost FLOWS PACKETS DIR
 *	PACKETS frames of 64 bytes on the wire, of FLOWS UDP flows in turn,
 *	into DIR/cost.pcapng with its index.  Run under callgrind counting
 *	capindex_blocks(): its instructions over PACKETS are what the index
 *	costs a packet.
 *   index hour DIR
 *	An hour of a link into DIR, a file a minute (-G 60) with its index:
 *	HOUR_RATE packets a second in the test NIC's IMIX, an eighth of them
 *	one flow's (UDP source port 10000), the rest spread over 999 others.
 *	Prints the flow's packets in the hour's middle second, for the
 *	extraction that follows (bench/run.sh), as "from,to,packets".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "blockring.h"
#include "capindex.h"
#include "dump_output.h"
#include "pcapng.h"

#define BUFFER_BYTES	(4U << 20)
/* a write every 10 ms of stamps at most, as mgdump's writer, woken by its readers' batches */
#define WRITE_EVERY_NS	10000000ULL
#define HOUR_S		3600ULL
#define HOUR_RATE	500ULL
#define HOUR_FLOWS	1000U
#define FLOW_PORT	10000U

static void die(const char *what)
{
	fprintf(stderr, "index: %s\n", what);
	exit(1);
}

/* the stamps: the hour's packets are spread over it; its files rotate by them */
static uint64_t now_ns;

static uint64_t packet_clock(void)
{
	return now_ns;
}

struct recording {
	struct dump_interface ifc;
	struct dump_output out;
	struct blockring ring;
	uint64_t written_ns;	/* the stamp at the last write */
};

static void drain(struct recording *r)
{
	const uint8_t *data;
	size_t n;

	r->written_ns = now_ns;
	while ((n = blockring_peek(&r->ring, &data)) != 0) {
		if (dump_output_write(&r->out, data, n))
			die(r->out.error);
		blockring_release(&r->ring, n);
	}
	if (dump_output_tick(&r->out))
		die(r->out.error);
}

static void recording_open(struct recording *r, const char *path, uint32_t rotate_seconds)
{
	static const uint8_t ethernet = 1;

	memset(r, 0, sizeof(*r));
	snprintf(r->ifc.name, sizeof(r->ifc.name), "bench0@0");
	r->ifc.linktype = DLT_EN10MB;
	r->ifc.snaplen = 262144;
	r->out = (struct dump_output){ .path = path, .rotate_seconds = rotate_seconds,
				       .ifs = &r->ifc, .nifs = 1, .clock_ns = packet_clock,
				       .fd = -1 };
	r->out.capindex = capindex_writer_new(&ethernet, 1);
	if (!r->out.capindex || blockring_init(&r->ring, BUFFER_BYTES))
		die("out of memory");
	if (dump_output_open(&r->out))
		die(r->out.error);
}

/* the test NIC's frame @seq of @len bytes, from UDP port @sport */
static void record(struct recording *r, uint64_t seq, uint32_t len, uint16_t sport)
{
	/* (as mgdump writes an mgcap source's packets: with their direction) */
	uint32_t block = (uint32_t)pcapng_epb_size(len, PCAPNG_EPB_FLAGS_INBOUND);
	uint8_t frame[MGT_FRAME_MAX], *p;

	mgt_build_frame(frame, len, 0, 0, seq, 1);
	mgt_put16(frame + 34, sport);
	p = blockring_reserve(&r->ring, block);
	if (!p) {
		drain(r);
		p = blockring_reserve(&r->ring, block);
	}
	pcapng_epb(p, block, 0, now_ns, frame, len, len, PCAPNG_EPB_FLAGS_INBOUND);
	blockring_commit(&r->ring, block);
	if (blockring_fill(&r->ring) >= BUFFER_BYTES / 2 || now_ns - r->written_ns >= WRITE_EVERY_NS)
		drain(r);
}

static void recording_close(struct recording *r)
{
	drain(r);
	if (dump_output_close(&r->out))
		die(r->out.error);
	capindex_writer_free(r->out.capindex);
	blockring_free(&r->ring);
}

static unsigned long number(const char *what, const char *arg, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || !v || v > max) {
		fprintf(stderr, "index: bad %s '%s' (1 to %lu)\n", what, arg, max);
		exit(2);
	}
	return v;
}

static void cost(unsigned long flows, unsigned long packets, const char *dir)
{
	struct recording r;
	char path[4096];
	unsigned long i;

	snprintf(path, sizeof(path), "%s/cost.pcapng", dir);
	now_ns = mgt_hwtstamp(0, 0);
	recording_open(&r, path, 0);
	r.written_ns = now_ns;
	for (i = 0; i < packets; i++) {
		now_ns = mgt_hwtstamp(0, i);
		record(&r, i, 60, (uint16_t)(FLOW_PORT + i % flows));
	}
	recording_close(&r);
}

/* a frame's flow: one in eight the bench's (FLOW_PORT), the others spread */
static uint16_t hour_flow(uint64_t seq)
{
	uint64_t h = seq * 0x9e3779b97f4a7c15ULL;

	return (uint16_t)(FLOW_PORT + (h >> 60 < 2 ? 0 : 1 + (h >> 32) % (HOUR_FLOWS - 1)));
}

static void hour(const char *dir)
{
	const uint64_t start = 1700000000000000000ULL, gap = 1000000000ULL / HOUR_RATE;
	const uint64_t from = start + HOUR_S / 2 * 1000000000ULL, to = from + 1000000000ULL;
	struct recording r;
	char path[4096];
	uint64_t seq, wanted = 0;

	snprintf(path, sizeof(path), "%s/hour-%%H%%M%%S.pcapng", dir);
	now_ns = start;
	recording_open(&r, path, 60);
	r.written_ns = now_ns;
	for (seq = 0; seq < HOUR_S * HOUR_RATE; seq++) {
		uint16_t sport = hour_flow(seq);

		now_ns = start + seq * gap;
		record(&r, seq, mgt_frame_len(MGT_FRAME_LEN_IMIX, seq), sport);
		wanted += sport == FLOW_PORT && now_ns >= from && now_ns < to;
	}
	recording_close(&r);
	printf("%llu.%09llu,%llu.%09llu,%llu\n", (unsigned long long)(from / 1000000000ULL),
	       (unsigned long long)(from % 1000000000ULL),
	       (unsigned long long)(to / 1000000000ULL), (unsigned long long)(to % 1000000000ULL),
	       (unsigned long long)wanted);
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "cost")) {
		cost(number("flows", argv[2], 50000), number("packets", argv[3], 100000000),
		     argv[4]);
	} else if (argc == 3 && !strcmp(argv[1], "hour")) {
		hour(argv[2]);
	} else {
		fprintf(stderr, "usage: index cost FLOWS PACKETS DIR | index hour DIR\n");
		return 2;
	}
	return 0;
}
