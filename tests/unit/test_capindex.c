// SPDX-License-Identifier: BSD-2-Clause
/*
 * mgdump's index: a flow's answer to a filter is libpcap's answer for every
 * packet of the flow whenever it gives one; the index reads back as written,
 * and a damaged one is refused; mgcap-extract's times.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capindex.h"
#include "extract_time.h"
#include "flowkey.h"
#include "pcapng.h"
#include "unit.h"

/* a small pool of each, so that filters meet flows that match */
static const uint8_t v4[][4] = { { 192, 0, 2, 1 }, { 192, 0, 2, 2 }, { 198, 51, 100, 7 } };
static const uint16_t ports[] = { 9, 53, 443, 10000, 10100 };
static const uint8_t protos[] = { 6, 17, 1, 58, 47, 132 };

/* A frame of random headers from the pools; its whole length, *@caplen maybe less. */
static uint32_t random_frame(uint8_t *f, uint32_t *caplen)
{
	uint32_t len, l4;
	int kind = rand() % 8;

	uint32_t tag = kind == 7 && rand() % 2 ? 4 : 0;

	memset(f, 0, 128);
	for (len = 0; len < 12; len++)
		f[len] = (uint8_t)(rand() % 3);	/* MACs from a pool too */
	if (tag) {			/* an IPv4 frame behind an 802.1Q tag */
		f[12] = 0x81;
		f[15] = (uint8_t)(rand() % 3);
		kind = 0;
	}
	if (kind < 5) {			/* IPv4, sometimes with options, sometimes a fragment */
		uint8_t *ip = f + 14 + tag;
		int ihl = 5 + (rand() % 4 == 0 ? 1 + rand() % 2 : 0);
		static const uint16_t frags[] = { 0, 0x4000, 0x2000, 0x0010, 0x2010 };

		f[12 + tag] = 0x08;
		ip[0] = (uint8_t)(0x40 | ihl);
		ip[2] = 0;
		ip[3] = (uint8_t)(40 + rand() % 200);
		ip[4] = (uint8_t)rand();
		ip[6] = (uint8_t)(frags[rand() % 5] >> 8);
		ip[7] = (uint8_t)frags[rand() % 5];
		ip[8] = (uint8_t)(1 + rand() % 64);
		ip[9] = protos[rand() % 6];
		memcpy(ip + 12, v4[rand() % 3], 4);
		memcpy(ip + 16, v4[rand() % 3], 4);
		l4 = 14 + tag + 4U * (uint32_t)ihl;
	} else if (kind < 7) {		/* IPv6 */
		uint8_t *ip = f + 14;

		f[12] = 0x86;
		f[13] = 0xdd;
		ip[0] = 0x60;
		ip[1] = (uint8_t)rand();
		ip[6] = protos[rand() % 6];
		ip[7] = 64;
		ip[8] = 0x20;
		ip[9] = 0x01;
		ip[10] = 0x0d;
		ip[11] = 0xb8;
		ip[23] = (uint8_t)(rand() % 3);
		memcpy(ip + 24, ip + 8, 15);
		ip[39] = (uint8_t)(rand() % 3);
		l4 = 54;
	} else {			/* ARP, or a tagged frame */
		f[12] = rand() % 2 ? 0x08 : 0x81;
		f[13] = f[12] == 0x08 ? 0x06 : 0x00;
		l4 = 14;
	}
	if (l4 > 14) {
		uint16_t sp = ports[rand() % 5], dp = ports[rand() % 5];

		f[l4] = (uint8_t)(sp >> 8);
		f[l4 + 1] = (uint8_t)sp;
		f[l4 + 2] = (uint8_t)(dp >> 8);
		f[l4 + 3] = (uint8_t)dp;
		f[l4 + 13] = (uint8_t)rand();	/* TCP flags' byte, or data */
	}
	len = 100;
	/* one in 5 cut short somewhere in its headers, before its type too */
	*caplen = rand() % 5 ? len : (uint32_t)rand() % len;
	return len;
}

static const char *const flow_filters[] = {
	"udp", "tcp", "ip6", "ip", "arp", "udp dst port 9", "port 53",
	"host 192.0.2.1", "src host 192.0.2.2 and dst host 198.51.100.7",
	"ip6 and udp port 443", "net 2001:db8::/32", "icmp", "tcp src portrange 400-500",
	"not udp", "ip proto 47", "ether[12] = 8",
};
/* filters that read what a flow does not fix: the key cannot answer them for all */
static const char *const packet_filters[] = {
	"len > 80", "ether host 00:01:02:00:01:02", "tcp[13] & 2 != 0", "ip[8] > 32",
};

static struct bpf_program compile(const char *filter)
{
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 262144);
	struct bpf_program prog;

	CU_ASSERT_FATAL(dead != NULL);
	CU_ASSERT_FATAL(pcap_compile(dead, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) == 0);
	pcap_close(dead);
	return prog;
}

/*
 * Answers given for @filter over @frames random frames, each checked
 * against libpcap; *@whole_undecided: whole IP frames it gave none for (ARP's
 * addresses, which "host" reads, are not a flow's)
 */
static int check_filter(const char *filter, int frames, int *whole_undecided)
{
	struct bpf_program prog = compile(filter);
	int i, decided = 0;

	*whole_undecided = 0;
	for (i = 0; i < frames; i++) {
		uint8_t f[128];
		uint32_t caplen, len = random_frame(f, &caplen);
		struct pcap_pkthdr h = { .caplen = caplen, .len = len };
		struct flowkey k;
		int answer, libpcap;

		flowkey_of(f, caplen, &k);
		answer = flowkey_filter(prog.bf_insns, prog.bf_len, &k);
		libpcap = pcap_offline_filter(&prog, &h, f) != 0;
		if (answer >= 0) {
			decided++;
			if (answer != libpcap)
				fprintf(stderr, "\n%s: frame %d (caplen %u): the flow said %d, libpcap %d\n",
					filter, i, caplen, answer, libpcap);
			CU_ASSERT_EQUAL(answer, libpcap);
		} else if (caplen == len && k.l3_known) {
			(*whole_undecided)++;
		}
	}
	pcap_freecode(&prog);
	return decided;
}

static void test_flow_answers_as_libpcap(void)
{
	size_t i;
	int undecided;

	srand(7);
	/* a flow filter answers every whole IP frame from its key (the index then prunes) */
	for (i = 0; i < sizeof(flow_filters) / sizeof(flow_filters[0]); i++) {
		check_filter(flow_filters[i], 3000, &undecided);
		if (undecided)
			fprintf(stderr, "\n%s: %d whole frames undecided\n", flow_filters[i], undecided);
		CU_ASSERT_EQUAL(undecided, 0);
	}
	/* the others are answered only where what they read is the key's, and never wrongly */
	for (i = 0; i < sizeof(packet_filters) / sizeof(packet_filters[0]); i++) {
		int decided = check_filter(packet_filters[i], 3000, &undecided);

		CU_ASSERT(undecided > 0);
		CU_ASSERT(decided < 3000);
	}
}

/* --- the index, written and read back ------------------------------------------ */

static char dir[] = "/tmp/mgcap-capindex-XXXXXX";

/* an enhanced packet block of a UDP frame to @dport at @ts into @buf; its size */
static size_t udp_epb(uint8_t *buf, uint32_t ifid, uint64_t ts, uint16_t dport)
{
	uint8_t f[64] = { 0 };

	f[12] = 0x08;
	f[14] = 0x45;
	f[23] = 17;
	memcpy(f + 26, v4[0], 4);
	memcpy(f + 30, v4[1], 4);
	f[34] = 0x27;
	f[36] = (uint8_t)(dport >> 8);
	f[37] = (uint8_t)dport;
	return pcapng_epb(buf, 256, ifid, ts, f, sizeof(f), sizeof(f), PCAPNG_EPB_FLAGS_INBOUND);
}

static void write_index(const char *path, int ifs_ethernet)
{
	uint8_t eth[2] = { 1, (uint8_t)ifs_ethernet }, blocks[4096];
	struct capindex_writer *w = capindex_writer_new(eth, 2);
	char part[256];
	uint64_t offset = 100;
	size_t n = 0;
	int i;

	CU_ASSERT_FATAL(w != NULL);
	snprintf(part, sizeof(part), "%s.idx.part", path);
	CU_ASSERT_EQUAL_FATAL(capindex_begin(w, part), 0);
	/* span 1: 0..108 ms, ports 9 and 53; span 2: from 200 ms, port 53 (and interface 1's) */
	for (i = 0; i < 10; i++)
		n += udp_epb(blocks + n, 0, 1000000000ULL + (uint64_t)i * 12000000, i % 2 ? 53 : 9);
	capindex_blocks(w, offset, blocks, n);
	offset += n;
	n = 0;
	for (i = 0; i < 25; i++)
		n += udp_epb(blocks + n, (uint32_t)(i == 3), 1200000000ULL + (uint64_t)i * 5000000,
			     53);
	capindex_blocks(w, offset, blocks, n);
	offset += n;
	CU_ASSERT_EQUAL(capindex_end(w, path, offset + 40), 0);
	CU_ASSERT(access(part, F_OK) != 0);
	capindex_writer_free(w);
}

/* a packet at 5 s; apart from it, a block that is not a packet; apart again, one at 6 s */
static void write_index_with_empty_span(const char *path)
{
	uint8_t eth = 1, blocks[512];
	struct capindex_writer *w = capindex_writer_new(&eth, 1);
	char part[300];
	size_t n;

	CU_ASSERT_FATAL(w != NULL);
	snprintf(part, sizeof(part), "%s.idx.part", path);
	CU_ASSERT_EQUAL_FATAL(capindex_begin(w, part), 0);
	n = udp_epb(blocks, 0, 5000000000ULL, 9);
	capindex_blocks(w, 100, blocks, n);
	n = pcapng_idb(blocks, sizeof(blocks), 1, 262144, "x", NULL);
	capindex_blocks(w, 1000, blocks, n);
	n = udp_epb(blocks, 0, 6000000000ULL, 9);
	capindex_blocks(w, 2000, blocks, n);
	CU_ASSERT_EQUAL(capindex_end(w, path, 2000 + n), 0);
	capindex_writer_free(w);
}

static void test_index_reads_back(void)
{
	char path[256], idxpath[300], err[512];
	struct capindex idx;
	struct capindex_end end;
	const uint32_t *flows;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/rec", dir);
	snprintf(idxpath, sizeof(idxpath), "%s.idx", path);
	write_index(path, 1);
	CU_ASSERT_EQUAL_FATAL(capindex_load(idxpath, &idx, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(idx.nflows, 2);
	CU_ASSERT_EQUAL(idx.nspans, 2);
	CU_ASSERT_EQUAL(idx.flows[0]->l4[3], 9);
	CU_ASSERT_EQUAL(idx.flows[1]->l4[3], 53);
	CU_ASSERT_EQUAL(idx.spans[0]->offset, 100);
	CU_ASSERT_EQUAL(idx.spans[0]->packets, 10);
	CU_ASSERT_EQUAL(idx.spans[0]->first_ns, 1000000000ULL);
	CU_ASSERT_EQUAL(idx.spans[0]->last_ns, 1108000000ULL);
	CU_ASSERT_EQUAL(idx.spans[0]->nflows, 2);
	CU_ASSERT_EQUAL(idx.spans[1]->offset, idx.spans[0]->offset + idx.spans[0]->length);
	CU_ASSERT_EQUAL(idx.spans[1]->packets, 25);
	CU_ASSERT_EQUAL(idx.spans[1]->nflows, 1);
	flows = capindex_span_flows(idx.spans[1]);
	CU_ASSERT_EQUAL(flows[0], 1);
	CU_ASSERT_EQUAL(idx.spans[0]->flags, 0);
	CU_ASSERT_EQUAL(idx.spans[1]->flags, 0);
	CU_ASSERT_EQUAL(idx.end.file_bytes, idx.spans[1]->offset + idx.spans[1]->length + 40);
	CU_ASSERT_EQUAL(idx.end.first_ns, 1000000000ULL);
	CU_ASSERT_EQUAL(idx.end.last_ns, 1320000000ULL);
	capindex_release(&idx);
	CU_ASSERT_EQUAL(capindex_load_end(idxpath, &end, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(end.last_ns, 1320000000ULL);
	/* a packet of a link that is not Ethernet: its span is read for any search */
	write_index(path, 0);
	CU_ASSERT_EQUAL_FATAL(capindex_load(idxpath, &idx, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(idx.spans[0]->flags, 0);
	CU_ASSERT_EQUAL(idx.spans[1]->flags, CAPINDEX_SPAN_F_UNINDEXED);
	capindex_release(&idx);
	/* a span of other blocks alone has no stamps, and takes none from the file's */
	write_index_with_empty_span(path);
	CU_ASSERT_EQUAL_FATAL(capindex_load(idxpath, &idx, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(idx.nspans, 3);
	CU_ASSERT_EQUAL(idx.spans[1]->packets, 0);
	CU_ASSERT_EQUAL(idx.spans[1]->first_ns, 0);
	CU_ASSERT_EQUAL(idx.spans[1]->last_ns, 0);
	CU_ASSERT_EQUAL(idx.end.packets, 2);
	CU_ASSERT_EQUAL(idx.end.first_ns, 5000000000ULL);
	CU_ASSERT_EQUAL(idx.end.last_ns, 6000000000ULL);
	capindex_release(&idx);
	snprintf(err, sizeof(err), "%s/none.idx", dir);
	CU_ASSERT_EQUAL(capindex_load(err, &idx, err, sizeof(err)), 1);
}

/*
 * A frame of one of many flows: IPv4 TCP or UDP (mostly; a few with
 * options, fragments or other protocols) between addresses and ports of
 * a wide range, its TTL, length and checksum random (a flow's packets
 * differ there)
 */
static uint32_t many_flows_frame(uint8_t *f, uint32_t *caplen)
{
	uint8_t *ip = f + 14;
	uint32_t l4;

	memset(f, 0, 128);
	f[12] = 0x08;
	ip[0] = rand() % 16 ? 0x45 : 0x46;
	ip[1] = (uint8_t)rand();
	ip[3] = (uint8_t)rand();
	ip[5] = (uint8_t)rand();
	ip[6] = rand() % 16 ? 0x40 : 0x20;
	ip[7] = rand() % 32 ? 0 : (uint8_t)rand();
	ip[8] = (uint8_t)rand();
	ip[9] = rand() % 16 ? (rand() % 2 ? 6 : 17) : protos[rand() % 6];
	ip[10] = (uint8_t)rand();
	ip[11] = (uint8_t)rand();
	ip[12] = 198;
	ip[13] = 51;
	ip[14] = 100;
	ip[15] = (uint8_t)(rand() % 4);
	memcpy(ip + 16, v4[rand() % 3], 4);
	l4 = 14 + 4U * (ip[0] & 0xf);
	f[l4] = (uint8_t)(rand() % 40);
	f[l4 + 1] = (uint8_t)rand();
	f[l4 + 2] = 0;
	f[l4 + 3] = (uint8_t)(rand() % 4);
	*caplen = rand() % 64 ? 100 : 30 + (uint32_t)rand() % 12;
	return 100;
}

/*
 * Whether @k is among the flows of span @s; *@listed gets the index of
 * the span's flow that is (for a count of those its packets named).
 */
static int span_has(const struct capindex *idx, const struct capindex_span *s,
		    const struct flowkey *k, uint32_t *listed)
{
	for (*listed = 0; *listed < s->nflows; (*listed)++)
		if (!memcmp(idx->flows[capindex_span_flows(s)[*listed]], k, sizeof(*k)))
			return 1;
	return 0;
}

/*
 * Every packet's flow is among its span's, and each flow of a span is one
 * of its packets': over random frames of pooled and of many flows (which
 * grow the flows' table and its cache past their first size), written in
 * writes of random sizes.
 */
static void test_spans_hold_their_packets_flows(void)
{
	enum { PACKETS = 60000, EPB_MAX = 32 + 100 + PCAPNG_EPB_FLAGS_BYTES };
	uint8_t *blocks = malloc((size_t)PACKETS * EPB_MAX), eth = 1, *named;
	struct capindex_writer *w = capindex_writer_new(&eth, 1);
	char path[256], idxpath[300], err[512];
	size_t len = 0, at, i, span = 0;
	uint64_t first = 0, last = 0, file_first = UINT64_MAX, file_last = 0;
	char tmp[] = "/tmp/mgcap-capindex-spans-XXXXXX";
	struct capindex idx;

	CU_ASSERT_FATAL(blocks != NULL && w != NULL);
	CU_ASSERT_FATAL(mkdtemp(tmp) != NULL);
	snprintf(path, sizeof(path), "%s/rec", tmp);
	snprintf(idxpath, sizeof(idxpath), "%s.idx", path);
	CU_ASSERT_EQUAL_FATAL(capindex_begin(w, idxpath), 0);
	srand(11);
	for (i = 0; i < PACKETS; i++) {
		uint8_t f[128];
		uint32_t caplen, wire = i % 3 ? many_flows_frame(f, &caplen) :
						 random_frame(f, &caplen);

		/*
		 * (a packet a millisecond, one in three late by up to 30; with
		 * a direction or none, as mgdump's sources give it)
		 */
		len += pcapng_epb(blocks + len, EPB_MAX, 0,
				  1000000000ULL + 1000000ULL * i - (rand() % 3 ? 0 : rand() % 30000000),
				  f, caplen, wire, (uint32_t)(i % 3));
	}
	for (at = 0; at < len;) {
		size_t take = pcapng_whole_blocks(blocks + at, len - at, 1 + rand() % 100, NULL);

		capindex_blocks(w, at, blocks + at, take);
		at += take;
	}
	CU_ASSERT_EQUAL_FATAL(capindex_end(w, path, len), 0);
	capindex_writer_free(w);
	CU_ASSERT_EQUAL_FATAL(capindex_load(idxpath, &idx, err, sizeof(err)), 0);
	CU_ASSERT(idx.nflows > 20000);
	CU_ASSERT(idx.nspans > 400);
	CU_ASSERT_EQUAL(idx.end.packets, PACKETS);
	named = calloc(idx.nspans ? idx.spans[0]->nflows + 1 : 1, 1);
	for (at = 0; at < len && span < idx.nspans; at += pcapng_block_len(blocks + at)) {
		const struct capindex_span *s = idx.spans[span];
		uint64_t ts = pcapng_epb_ts(blocks + at);
		struct flowkey k;
		uint32_t listed;

		CU_ASSERT_FATAL(at >= s->offset && at < s->offset + s->length);
		/* (its stamps are the span's, the oldest and newest among them) */
		first = at == s->offset ? ts : (ts < first ? ts : first);
		last = at == s->offset ? ts : (ts > last ? ts : last);
		flowkey_of(blocks + at + PCAPNG_EPB_DATA, pcapng_epb_caplen(blocks + at), &k);
		if (!span_has(&idx, s, &k, &listed)) {
			fprintf(stderr, "\npacket at %zu: its flow is not its span's\n", at);
			CU_FAIL("a packet's flow not in its span");
		} else {
			named[listed] = 1;
		}
		if (at + pcapng_block_len(blocks + at) == s->offset + s->length) {
			/* (the span's last packet: its every flow was some packet's) */
			CU_ASSERT_EQUAL(memchr(named, 0, s->nflows), NULL);
			CU_ASSERT_EQUAL(s->first_ns, first);
			CU_ASSERT_EQUAL(s->last_ns, last);
			file_first = first < file_first ? first : file_first;
			file_last = last > file_last ? last : file_last;
			span++;
			free(named);
			named = calloc(span < idx.nspans ? idx.spans[span]->nflows + 1 : 1, 1);
		}
	}
	CU_ASSERT_EQUAL(span, idx.nspans);
	CU_ASSERT_EQUAL(at, len);
	CU_ASSERT_EQUAL(idx.end.first_ns, file_first);
	CU_ASSERT_EQUAL(idx.end.last_ns, file_last);
	free(named);
	free(blocks);
	capindex_release(&idx);
	unit_remove_dir(tmp);
}

/* rewrites byte @at of the index (or cuts it to @at bytes when @value < 0) */
static void damage(const char *path, long at, int value)
{
	FILE *f = fopen(path, "r+");

	CU_ASSERT_FATAL(f != NULL);
	if (value < 0) {
		CU_ASSERT(ftruncate(fileno(f), at) == 0);
	} else {
		fseek(f, at, SEEK_SET);
		fputc(value, f);
	}
	fclose(f);
}

static void test_damaged_index_refused(void)
{
	char path[256], idxpath[300], err[512];
	struct capindex idx;
	/* where, what (-1: cut there), and what the refusal says */
	static const struct {
		long at;
		int value;
		const char *says;
	} cases[] = {
		{ 0, 'X', "not an mgdump index" },
		{ 16 + 8, 5, "a flow out of its order" },
		{ 16 + 56 + 56 + 56, 9, "a span with a flow not numbered" },
		{ 16 + 4, 0x0f, "bad length" },
		{ 16 + 56 + 56 + 3, -1, "cut short" },
		{ 16 + 56 + 56 + 64, -1, "no end" },
		/* a key no frame has (l4_len 200: past the stand-in frame) */
		{ 16 + 12 + 7, 200, "a flow no frame has" },
		/* the second span's offset before the first span's end */
		{ 16 + 56 + 56 + 64 + 8, 0, "out of the file's order" },
		/* the file's size (in the end) before the last span's end */
		{ 16 + 56 + 56 + 64 + 64 + 9, 0, "past the end of its file" },
	};
	size_t i;

	snprintf(path, sizeof(path), "%s/rec", dir);
	snprintf(idxpath, sizeof(idxpath), "%s.idx", path);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_index(path, 1);
		damage(idxpath, cases[i].at, cases[i].value);
		err[0] = '\0';
		CU_ASSERT_EQUAL(capindex_load(idxpath, &idx, err, sizeof(err)), -1);
		if (!strstr(err, cases[i].says))
			fprintf(stderr, "\ncase %zu: '%s' does not say '%s'\n", i, err, cases[i].says);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].says));
	}
	unlink(idxpath);
	rmdir(dir);
}

static void test_times(void)
{
	static const struct {
		const char *s;
		int ok;
		uint64_t ns;
	} cases[] = {
		{ "1764000000", 1, 1764000000000000000ULL },
		{ "1764000000.25", 1, 1764000000250000000ULL },
		{ "1764000000.000000001", 1, 1764000000000000001ULL },
		{ "2026-11-24T10:00:00Z", 1, 1795514400000000000ULL },
		{ "2026-11-24 10:00:00.5Z", 1, 1795514400500000000ULL },
		{ "1764000000.0000000001", 0, 0 },
		{ "1764000000.", 0, 0 },
		{ "17640x", 0, 0 },
		{ "2026-11-24", 0, 0 },
		{ "2026-11-24T10:00:00+01", 0, 0 },
		{ "99999999999999999999", 0, 0 },
		{ "", 0, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t ns = 0;
		int rc = extract_parse_time(cases[i].s, &ns);

		CU_ASSERT_EQUAL(rc, cases[i].ok ? 0 : -1);
		if (cases[i].ok)
			CU_ASSERT_EQUAL(ns, cases[i].ns);
	}
}

void register_capindex_tests(void)
{
	static const struct unit_test tests[] = {
		{ "a flow's answer to a filter is libpcap's for its every packet",
		  test_flow_answers_as_libpcap },
		{ "the index reads back as written", test_index_reads_back },
		{ "every packet's flow is its span's, and every flow of a span a packet's",
		  test_spans_hold_their_packets_flows },
		{ "a damaged index is refused, saying how", test_damaged_index_refused },
		{ "extraction times", test_times },
	};

	ADD_SUITE("capindex", tests);
}
