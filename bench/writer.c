// SPDX-License-Identifier: BSD-2-Clause
/*
 * mgdump's pcapng writer against libpcap's pcap_dump(), writing the same
 * packets to a file on tmpfs.  The pcapng side is mgdump's own path, done
 * in one thread: each packet formatted as an enhanced packet block in the
 * block ring, the ring written out with dump_output_write() when half full.
 *
 *   writer DIR SIZE...   CSV on stdout: writer,size,pass,packets,mb_per_s,ns_per_packet
 */
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "mgcap_time.h"
#include "blockring.h"
#include "dump_output.h"
#include "pcapng.h"

#define PASSES		7
#define FILE_BYTES	(256ULL << 20)	/* per pass, so that a pass takes a while */
#define BUFFER_BYTES	(4ULL << 20)

static void die(const char *what)
{
	fprintf(stderr, "writer: %s\n", what);
	exit(1);
}

static void drain(struct blockring *ring, struct dump_output *out)
{
	const uint8_t *data;
	size_t n;

	while ((n = blockring_peek(ring, &data)) != 0) {
		if (dump_output_write(out, data, n))
			die(out->error);
		blockring_release(ring, n);
	}
}

/* @frame of @len bytes, @n times; the nanoseconds it took */
static uint64_t pass_pcapng(const char *path, const uint8_t *frame, uint32_t len, uint64_t n)
{
	struct dump_interface ifc = { .name = "bench0@0", .linktype = 1, .snaplen = 262144 };
	struct dump_output out = { .path = path, .ifs = &ifc, .nifs = 1, .fd = -1 };
	/* (as mgdump writes an mgcap source's packets: with their direction) */
	uint32_t block = (uint32_t)pcapng_epb_size(len, PCAPNG_EPB_FLAGS_INBOUND);
	struct blockring ring;
	uint64_t start = mgcap_now_ns(CLOCK_MONOTONIC), i;

	if (blockring_init(&ring, BUFFER_BYTES))
		die("out of memory");
	if (dump_output_open(&out))
		die(out.error);
	for (i = 0; i < n; i++) {
		uint8_t *p = blockring_reserve(&ring, block);

		if (!p)
			die("block ring full");
		pcapng_epb(p, block, 0, mgt_hwtstamp(0, i), frame, len, len,
			   PCAPNG_EPB_FLAGS_INBOUND);
		blockring_commit(&ring, block);
		if (blockring_fill(&ring) >= BUFFER_BYTES / 2)
			drain(&ring, &out);
	}
	drain(&ring, &out);
	if (dump_output_close(&out))
		die(out.error);
	blockring_free(&ring);
	return mgcap_now_ns(CLOCK_MONOTONIC) - start;
}

static uint64_t pass_pcap_dump(const char *path, const uint8_t *frame, uint32_t len, uint64_t n)
{
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 262144,
							    PCAP_TSTAMP_PRECISION_NANO);
	uint64_t start = mgcap_now_ns(CLOCK_MONOTONIC), i;
	pcap_dumper_t *d;

	if (!dead)
		die("pcap_open_dead failed");
	d = pcap_dump_open(dead, path);
	if (!d)
		die(pcap_geterr(dead));
	for (i = 0; i < n; i++) {
		struct pcap_pkthdr h = bench_pkthdr(i, len);

		pcap_dump((u_char *)d, &h, frame);
	}
	if (pcap_dump_flush(d))
		die("pcap_dump_flush failed");
	pcap_dump_close(d);
	pcap_close(dead);
	return mgcap_now_ns(CLOCK_MONOTONIC) - start;
}

int main(int argc, char **argv)
{
	char path[4096];
	uint8_t frame[MGT_FRAME_MAX];
	int i, pass;

	if (argc < 3) {
		fprintf(stderr, "usage: writer DIR SIZE...\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/writer-bench.out", argv[1]);
	printf("writer,size,pass,packets,mb_per_s,ns_per_packet\n");
	for (i = 2; i < argc; i++) {
		uint32_t size = bench_frame_size("writer", argv[i]);
		uint32_t len = size - 4;	/* as captured: no FCS */
		uint64_t n = FILE_BYTES / pcapng_epb_size(len, PCAPNG_EPB_FLAGS_INBOUND);
		mgt_build_frame(frame, len, 0, 0, 1, 1);
		/* alternate, so that drifts of a noisy machine hit both alike */
		for (pass = 1; pass <= PASSES; pass++) {
			uint64_t a = pass_pcapng(path, frame, len, n);
			uint64_t b = pass_pcap_dump(path, frame, len, n);
			double bytes = (double)n * len;

			printf("pcapng,%u,%d,%" PRIu64 ",%.1f,%.2f\n", size, pass, n,
			       bytes / (double)a * 1e3, (double)a / (double)n);
			printf("pcap_dump,%u,%d,%" PRIu64 ",%.1f,%.2f\n", size, pass, n,
			       bytes / (double)b * 1e3, (double)b / (double)n);
			fflush(stdout);
		}
	}
	unlink(path);
	return 0;
}
