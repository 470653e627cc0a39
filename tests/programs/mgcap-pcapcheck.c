// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap-pcapcheck FILE... --queues Q --count K [--sw-after NS] [--snaplen S] [--vlan TCI]
 *                 [--only-queue N] [--unmerged] [--truth BOUND_NS [--fallbacks N]
 *                 | --raw-offset NS] [--devices D]
 *
 * Reads capture files (pcap or pcapng, through libpcap; several files in
 * order, as a rotation wrote them) written by a stock
 * tool capturing the mgtestnic generators through mgcap, and checks it
 * holds exactly the generated frames: K per queue, each queue's sequence
 * unbroken, every byte, the exact hardware stamp (or, with --sw-after, a
 * host stamp taken after NS), and the whole file in stamp order (ties by queue) unless
 * --unmerged.
 *
 * With the test NIC's PHC stamps (phc_stamps), each frame carries the
 * system time of its stamp: --truth checks every stamp is that within
 * BOUND_NS (adapter stamps, converted) and reports the errors, but for at
 * most N (--fallbacks: stamps the reader could not convert and gave the
 * kernel's software stamp), which must be within FALLBACK_TOLERANCE_NS;
 * --raw-offset
 * that it is the PHC's raw time, NS ahead of it (adapter_unsynced; within
 * RAW_TOLERANCE_NS, what the PHC's frequency error moves it in a test).
 * --devices: frames of test NICs 0 to D - 1 (mgcap:mgt0,mgt1), K per queue
 * of each.
 */
#include <getopt.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgtestnic/mgtestnic_frame.h"

#define MAX_QUEUES 64
#define MAX_DEVICES 4
#define RAW_TOLERANCE_NS 10000000LL
#define FALLBACK_TOLERANCE_NS 10000000LL

static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("pcapcheck: FAIL: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "queues", required_argument, NULL, 'q' },
		{ "count", required_argument, NULL, 'c' },
		{ "sw-after", required_argument, NULL, 's' },
		{ "snaplen", required_argument, NULL, 'l' },
		{ "vlan", required_argument, NULL, 'v' },
		{ "only-queue", required_argument, NULL, 'o' },
		{ "unmerged", no_argument, NULL, 'u' },
		{ "frame-len", required_argument, NULL, 'f' },
		{ "truth", required_argument, NULL, 't' },
		{ "raw-offset", required_argument, NULL, 'r' },
		{ "fallbacks", required_argument, NULL, 'b' },
		{ "devices", required_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int queues = 0, snaplen = 262144, vlan = 0, q;
	__u32 frame_len = 128;
	int unmerged = 0, only = -1, c;
	uint64_t sw = 0;	/* host stamps: none before this (ns since the epoch) */
	/* by stream: device * queues + queue */
	uint64_t seen[MAX_DEVICES * MAX_QUEUES] = { 0 }, next_seq[MAX_DEVICES * MAX_QUEUES] = { 0 };
	uint64_t count = 0, total = 0;
	unsigned int devices = 1, dev, sq;
	uint64_t last_ts = 0;
	unsigned int last_q = 0;
	int truth = 0;		/* frames carry the truth: --truth or --raw-offset */
	uint64_t truth_bound = 0, worst_error = 0, fallbacks = 0, beyond = 0;
	int64_t raw_offset = 0;
	double error_sum = 0;
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *p;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'q': queues = strtoul(optarg, NULL, 0); break;
		case 'c': count = strtoull(optarg, NULL, 0); break;
		case 's': sw = strtoull(optarg, NULL, 0); break;
		case 'l': snaplen = strtoul(optarg, NULL, 0); break;
		case 'v': vlan = strtoul(optarg, NULL, 0); break;
		case 'o': only = atoi(optarg); break;
		case 'u': unmerged = 1; break;
		case 'f':
			if (!mgt_parse_frame_len(optarg, &frame_len))
				fail("--frame-len %s: neither imix nor %u to %u bytes", optarg,
				     MGT_FRAME_MIN, MGT_FRAME_MAX);
			break;
		case 't': truth = 't'; truth_bound = strtoull(optarg, NULL, 0); break;
		case 'r': truth = 'r'; raw_offset = strtoll(optarg, NULL, 0); break;
		case 'b': fallbacks = strtoull(optarg, NULL, 0); break;
		case 'D': devices = strtoul(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (optind >= argc || !queues || queues > MAX_QUEUES || !count || !devices ||
	    devices > MAX_DEVICES)
		goto usage;
next_file:
	p = pcap_open_offline_with_tstamp_precision(argv[optind], PCAP_TSTAMP_PRECISION_NANO, err);
	if (!p)
		fail("%s", err);
	if (pcap_datalink(p) != DLT_EN10MB)
		fail("link type %d, expected Ethernet", pcap_datalink(p));

	while ((c = pcap_next_ex(p, &h, &data)) == 1) {
		uint8_t wire[MGT_FRAME_MAX + 4];
		unsigned int off = vlan ? 4 : 0, i, wirelen, caplen;
		uint64_t seq = 0, ts = (uint64_t)h->ts.tv_sec * 1000000000ULL + (uint64_t)h->ts.tv_usec;

		if (h->caplen < 12 + off + MGT_HDR_LEN + 10 - 12)
			fail("frame %" PRIu64 ": only %u bytes captured", total, h->caplen);
		q = data[11];
		dev = data[5];	/* the test NIC's index ends its address */
		if (q >= queues || (only >= 0 && q != (unsigned int)only) || dev >= devices)
			fail("frame %" PRIu64 ": from device %u queue %u", total, dev, q);
		sq = dev * queues + q;
		if (h->caplen >= MGT_HDR_LEN + off + 8) {
			for (i = 0; i < 8; i++)
				seq = seq << 8 | data[MGT_HDR_LEN + off + i];
		} else {
			seq = next_seq[sq];	/* snaplen below the payload: trust the order */
		}
		if (seen[sq] && seq != next_seq[sq])
			fail("device %u queue %u: seq %" PRIu64 " after %" PRIu64, dev, q, seq,
			     next_seq[sq] - 1);
		next_seq[sq] = seq + 1;
		seen[sq]++;

		wirelen = mgt_build_wire_frame(wire, mgt_frame_len(frame_len, seq), dev, q, seq, 1,
					       (__u16)vlan);
		caplen = wirelen < snaplen ? wirelen : snaplen;
		if (h->len != wirelen || h->caplen != caplen)
			fail("queue %u seq %" PRIu64 ": len %u caplen %u, expected %u %u", q, seq,
			     h->len, h->caplen, wirelen, caplen);
		if (truth) {
			int64_t want, error;

			if (caplen < off + MGT_TRUTH_OFF + 8)
				fail("queue %u seq %" PRIu64 ": the truth was not captured", q, seq);
			/* the bytes after the addresses, shifted by a re-inserted tag */
			want = (int64_t)mgt_get_truth(data + off) + (truth == 'r' ? raw_offset : 0);
			memcpy(wire + off + MGT_TRUTH_OFF, data + off + MGT_TRUTH_OFF, 8);
			error = (int64_t)ts - want;
			if (truth == 't' && (uint64_t)llabs(error) > truth_bound &&
			    (++beyond > fallbacks || llabs(error) > FALLBACK_TOLERANCE_NS))
				fail("queue %u seq %" PRIu64 ": stamp %" PRIu64 " is %" PRId64
				     " ns from the truth %" PRId64 " (bound %" PRIu64 ")", q, seq, ts,
				     error, want, truth_bound);
			if (truth == 'r' && llabs(error) > RAW_TOLERANCE_NS)
				fail("queue %u seq %" PRIu64 ": stamp %" PRIu64 " is not the raw clock, "
				     "%" PRId64 " ns ahead of the truth %" PRId64, q, seq, ts,
				     raw_offset, want - raw_offset);
			/* the errors of the converted stamps: fallbacks are counted apart */
			if (truth == 'r' || (uint64_t)llabs(error) <= truth_bound) {
				if ((uint64_t)llabs(error) > worst_error)
					worst_error = (uint64_t)llabs(error);
				error_sum += (double)llabs(error);
			}
		}
		if (memcmp(data, wire, caplen))
			fail("queue %u seq %" PRIu64 ": frame bytes differ", q, seq);
		if (!sw && !truth && ts != mgt_hwtstamp(q, seq))
			fail("queue %u seq %" PRIu64 ": stamp %" PRIu64 ", expected %" PRIu64, q, seq,
			     ts, mgt_hwtstamp(q, seq));
		if (sw && ts < sw)
			fail("queue %u seq %" PRIu64 ": stamp %" PRIu64 " is not a host stamp of this run",
			     q, seq, ts);
		/* ties go by the merge's queue order: device, then queue */
		if (!unmerged && total && (ts < last_ts || (ts == last_ts && sq < last_q)))
			fail("queue %u seq %" PRIu64 ": stamp %" PRIu64 " before the previous %" PRIu64
			     " (queue %u)", q, seq, ts, last_ts, last_q);
		last_ts = ts;
		last_q = sq;
		total++;
	}
	if (c == -1)
		fail("%s: %s", argv[optind], pcap_geterr(p));
	pcap_close(p);
	if (++optind < argc)
		goto next_file;
	for (sq = 0; sq < devices * queues; sq++) {
		uint64_t want = only < 0 || sq % queues == (unsigned int)only ? count : 0;

		if (seen[sq] != want)
			fail("device %u queue %u: %" PRIu64 " frames, expected %" PRIu64, sq / queues,
			     sq % queues, seen[sq], want);
	}
	printf("pcapcheck: OK (%" PRIu64 " frames%s)\n", total, unmerged ? "" : ", in stamp order");
	if (truth == 't')
		printf("pcapcheck: %" PRIu64 " stamps within %" PRIu64 " ns of the truth: worst %"
		       PRIu64 " ns, mean %.0f ns; %" PRIu64 " beyond (of %" PRIu64
		       " fallbacks allowed)\n", total - beyond, truth_bound, worst_error,
		       total > beyond ? error_sum / (double)(total - beyond) : 0.0, beyond,
		       fallbacks);
	if (truth == 'r')
		printf("pcapcheck: every stamp is the raw clock, %" PRId64 " ns ahead (worst %" PRIu64
		       " ns off)\n", raw_offset, worst_error);
	return 0;
usage:
	fprintf(stderr, "usage: mgcap-pcapcheck FILE... --queues Q --count K [--sw-after NS] [--snaplen S]\n"
		"       [--vlan TCI] [--only-queue N] [--unmerged] [--frame-len L|imix]\n"
		"       [--truth BOUND_NS [--fallbacks N] | --raw-offset NS] [--devices D]\n");
	return 2;
}
