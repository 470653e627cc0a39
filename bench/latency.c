// SPDX-License-Identifier: BSD-2-Clause
/*
 * latency SOURCE COUNT [immediate|timeout MS]: how long after its arrival
 * each frame reaches a libpcap client, as a live viewer (tcpdump to a
 * terminal) reads it.
 *
 * The test NIC, stamping from its clock (phc_stamps 1), writes into each
 * frame the system time at which it made it (mgt_get_truth()); the latency
 * is the system time when pcap_dispatch() hands the frame over, less that.
 * Prints each frame's latency in ns, one a line, after "latency:" and the
 * source; reads COUNT frames of the test NIC's UDP port and exits.  The
 * client is libpcap's plain one: a blocking read, with immediate mode or
 * with a read timeout (tcpdump's 1000 ms by default).
 */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mgtestnic/mgtestnic_frame.h"

struct reading {
	const char *source;
	unsigned long seen, count;
};

static void usage(void)
{
	fprintf(stderr, "usage: latency SOURCE COUNT [immediate | timeout MS]\n");
	exit(2);
}

static void fail(const char *what, pcap_t *p)
{
	fprintf(stderr, "latency: %s: %s\n", what, p ? pcap_geterr(p) : "");
	exit(1);
}

static void on_frame(u_char *arg, const struct pcap_pkthdr *h, const u_char *frame)
{
	struct reading *r = (struct reading *)arg;
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	if (h->caplen < MGT_TRUTH_OFF + 8) {
		fprintf(stderr, "latency: %s: a frame of %u bytes has no time of arrival\n",
			r->source, h->caplen);
		exit(1);
	}
	printf("latency: %s %lld\n", r->source,
	       (long long)((uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec -
			   mgt_get_truth(frame)));
	r->seen++;
}

int main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE], *end;
	struct reading r = { 0 };
	struct bpf_program prog;
	int immediate = 0, timeout_ms = 1000;
	pcap_t *p;

	if (argc != 3 && argc != 4 && argc != 5)
		usage();
	r.source = argv[1];
	r.count = strtoul(argv[2], &end, 10);
	if (*end || !r.count)
		usage();
	if (argc == 4 && !strcmp(argv[3], "immediate"))
		immediate = 1;
	else if (argc == 5 && !strcmp(argv[3], "timeout"))
		timeout_ms = atoi(argv[4]);
	else if (argc != 3)
		usage();

	p = pcap_create(r.source, err);
	if (!p) {
		fprintf(stderr, "latency: %s\n", err);
		return 1;
	}
	if (pcap_set_snaplen(p, 128) || pcap_set_timeout(p, timeout_ms) ||
	    pcap_set_immediate_mode(p, immediate))
		fail("options", p);
	if (pcap_activate(p) < 0)
		fail("activate", p);
	if (pcap_compile(p, &prog, "udp dst port 5555", 1, PCAP_NETMASK_UNKNOWN) ||
	    pcap_setfilter(p, &prog))
		fail("filter", p);
	pcap_freecode(&prog);
	/* ready: the script sends its first frame only after this */
	fprintf(stderr, "latency: reading %s\n", r.source);
	while (r.seen < r.count)
		if (pcap_dispatch(p, -1, on_frame, (u_char *)&r) < 0)
			fail("read", p);
	fflush(stdout);
	pcap_close(p);
	return 0;
}
