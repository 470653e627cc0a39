/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the host benchmarks share: frame sizes as the VM benchmarks count
 * them (on the wire, with the FCS), the packet header both libpcap writers
 * get, and the clock.
 */
#ifndef MGCAP_BENCH_H
#define MGCAP_BENCH_H

#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mgtestnic/mgtestnic_frame.h"

/* A frame size argument, 64 to 1518; exits with a one-line error otherwise. */
static inline uint32_t bench_frame_size(const char *prog, const char *arg)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (*end || v < MGT_FRAME_MIN + 4 || v > 1518) {
		fprintf(stderr, "%s: bad frame size '%s' (64 to 1518)\n", prog, arg);
		exit(2);
	}
	return (uint32_t)v;
}

/* Packet @seq of @len bytes, stamped as the test NIC stamps queue 0, in nanoseconds. */
static inline struct pcap_pkthdr bench_pkthdr(uint64_t seq, uint32_t len)
{
	uint64_t ns = mgt_hwtstamp(0, seq);
	struct pcap_pkthdr h = {
		.ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			.tv_usec = (suseconds_t)(ns % 1000000000ULL) },
		.caplen = len,
		.len = len,
	};

	return h;
}

#endif /* MGCAP_BENCH_H */
