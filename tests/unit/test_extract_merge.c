// SPDX-License-Identifier: BSD-2-Clause
/*
 * mgcap-extract's order: packets come back each once, by stamp, ties by
 * file and offset, with their bytes and what the caller carries, whether
 * they all fit in memory or go through runs in a temporary file, merged in
 * one pass or in several, one of them larger than a run's buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "extract_merge.h"
#include "unit.h"

#define PACKETS		20000
#define BIG		(256U << 10)	/* larger than a cursor's first buffer */

static struct extract_packet sent[PACKETS];

/* the bytes of packet @i: from its number, so that a mix-up shows */
static void fill(uint8_t *data, size_t i, uint32_t caplen)
{
	uint32_t b;

	for (b = 0; b < caplen; b++)
		data[b] = (uint8_t)(i * 31 + b * 7);
}

static int before(const struct extract_packet *a, const struct extract_packet *b)
{
	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns;
	return a->file != b->file ? a->file < b->file : a->offset < b->offset;
}

struct seen {
	size_t n, bad_bytes, out_of_order, not_sent;
	uint8_t came[PACKETS];
	struct extract_packet last;
	uint8_t *expect;
	size_t stop_at;		/* emit says stop there (0: never) */
};

static int check_packet(const struct extract_packet *p, const uint8_t *data, void *arg)
{
	struct seen *s = arg;

	const struct extract_packet *was = &sent[p->ifid];

	if (s->n && before(p, &s->last))
		s->out_of_order++;
	/* (the packet's number is in its ifid) */
	if (p->ifid >= PACKETS || s->came[p->ifid]++ || p->ts_ns != was->ts_ns ||
	    p->file != was->file || p->offset != was->offset || p->wirelen != was->wirelen ||
	    p->epb_flags != was->epb_flags) {
		s->not_sent++;
		return 0;
	}
	fill(s->expect, p->ifid, p->caplen);
	if (p->caplen != was->caplen || memcmp(data, s->expect, p->caplen))
		s->bad_bytes++;
	s->last = *p;
	s->n++;
	return s->stop_at && s->n == s->stop_at ? 7 : 0;
}

/* PACKETS packets with a budget of @budget: how many runs it took */
static size_t merged(size_t budget, struct seen *s)
{
	struct extract_merge *m = extract_merge_new(budget);
	uint8_t *data = malloc(BIG);
	size_t i, runs;
	int rc;

	CU_ASSERT_FATAL(m != NULL && data != NULL);
	srand(5);
	for (i = 0; i < PACKETS; i++) {
		struct extract_packet *p = &sent[i];

		/* few distinct stamps (many ties), files and offsets out of order */
		p->ts_ns = 1000000000ULL + (uint64_t)(rand() % 700) * 1000;
		p->file = (uint32_t)(rand() % 5);
		p->offset = (uint64_t)rand() * 8;
		p->ifid = (uint32_t)i;
		p->caplen = i == PACKETS / 2 ? BIG : (uint32_t)(rand() % 1600);
		p->wirelen = p->caplen + 4;
		p->epb_flags = (uint32_t)rand();
		fill(data, i, p->caplen);
		CU_ASSERT_EQUAL_FATAL(extract_merge_add(m, p, data), 0);
	}
	s->expect = data;
	rc = extract_merge_finish(m, check_packet, s);
	CU_ASSERT_EQUAL(rc, s->stop_at ? 7 : 0);
	runs = extract_merge_runs(m);
	extract_merge_free(m);
	free(data);
	return runs;
}

static void test_in_order_in_memory_and_through_runs(void)
{
	/* 16 MB: in memory; 5 runs merged at once; 17 runs merged 3 at a time, in passes */
	static const size_t budgets[] = { 64U << 20, 4U << 20, 1 };
	static const size_t runs_least[] = { 0, 2, 4 };
	size_t i;

	for (i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
		static struct seen s;
		size_t runs;

		memset(&s, 0, sizeof(s));
		runs = merged(budgets[i], &s);
		CU_ASSERT_EQUAL(s.n, PACKETS);
		CU_ASSERT_EQUAL(s.not_sent, 0);
		CU_ASSERT_EQUAL(s.out_of_order, 0);
		CU_ASSERT_EQUAL(s.bad_bytes, 0);
		CU_ASSERT(i == 0 ? runs == 0 : runs >= runs_least[i]);
	}
}

static void test_emit_stops_it(void)
{
	static struct seen s = { .stop_at = 10 };

	CU_ASSERT(merged(1U << 20, &s) > 0);
	CU_ASSERT_EQUAL(s.n, 10);
}

static void test_nothing(void)
{
	struct extract_merge *m = extract_merge_new(1024);
	static struct seen s;

	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_EQUAL(extract_merge_finish(m, check_packet, &s), 0);
	CU_ASSERT_EQUAL(s.n, 0);
	extract_merge_free(m);
}

void register_extract_merge_tests(void)
{
	static const struct unit_test tests[] = {
		{ "in time order, in memory and through runs", test_in_order_in_memory_and_through_runs },
		{ "what the caller returns stops it", test_emit_stops_it },
		{ "no packets", test_nothing },
	};

	ADD_SUITE("extract order", tests);
}
