// SPDX-License-Identifier: BSD-2-Clause
/*
 * The order's ranks: keys far apart (clocks that disagree by years), keys
 * that go back below the base the ranks count from (a clock stepped), and
 * the largest keys, against the plain way (the oldest head of all, ties by
 * source), record for record.  No hold: only the order is at stake.
 */
#include <stdlib.h>

#include "mgcap_order.h"
#include "unit.h"

enum { MOST_SOURCES = 100, MOST_KEYS = 400 };

/* each source's keys, handed out from head on */
struct keyed_sources {
	uint64_t key[MOST_SOURCES][MOST_KEYS];
	size_t len[MOST_SOURCES], head[MOST_SOURCES];
};

static int look_at_keys(void *arg, size_t src, uint64_t now_ns, uint64_t *key,
			uint64_t *visible_at)
{
	struct keyed_sources *ks = arg;

	if (ks->head[src] == ks->len[src])
		return 0;
	*key = ks->key[src][ks->head[src]];
	*visible_at = now_ns;
	return 1;
}

/* the plain way: the oldest head, ties by source (the largest key taken a nanosecond older) */
static long oldest_head(const struct keyed_sources *ks, const size_t *head, size_t n)
{
	uint64_t best_key = 0;
	long best = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t key;

		if (head[i] == ks->len[i])
			continue;
		key = ks->key[i][head[i]];
		key -= key == MGCAP_ORDER_NONE;
		if (best < 0 || key < best_key) {
			best = (long)i;
			best_key = key;
		}
	}
	return best;
}

static uint32_t next_random(uint32_t *seed)
{
	*seed ^= *seed << 13;
	*seed ^= *seed >> 17;
	*seed ^= *seed << 5;
	return *seed;
}

/*
 * @n sources, each on a clock of its own (@far: years apart, from near 0
 * to near the largest key), now and then stepping back by more than all
 * the keys between; batches at random.  The order hands out what the plain
 * way does, and counts as late what comes after a newer key.
 */
static void agree_on_keys(size_t n, int far, uint32_t seed)
{
	static struct keyed_sources ks;
	size_t head[MOST_SOURCES] = { 0 }, i, k, total = 0;
	uint64_t newest = 0, late = 0;
	struct mgcap_order o;

	for (i = 0; i < n; i++) {
		uint64_t key = far ? (uint64_t)next_random(&seed) << 32 | next_random(&seed) :
				     (1ULL << 60) + next_random(&seed) % 1000;

		ks.len[i] = next_random(&seed) % MOST_KEYS;
		ks.head[i] = 0;
		for (k = 0; k < ks.len[i]; k++) {
			uint32_t r = next_random(&seed);

			/* steps of a few ns, ties, now and then back far (below any base) */
			if (r % 50 == 0 && key > (1ULL << 59))
				key -= 1ULL << 59;
			else if (r % 50 == 1)
				key = MGCAP_ORDER_NONE - r % 3;	/* the largest keys */
			else
				key += r % 4 < 2 ? r % 4 : (r >> 8) % 100;
			ks.key[i][k] = key;
		}
		total += ks.len[i];
	}
	CU_ASSERT_FATAL(mgcap_order_init(&o, n, 0, 0, look_at_keys, &ks) == 0);
	for (k = 0; k < total; k++) {
		uint64_t wait, key;
		long want = oldest_head(&ks, head, n), got;

		if (next_random(&seed) % 7 == 0)
			mgcap_order_begin_batch(&o);
		got = mgcap_order_next(&o, 1000, &wait);

		CU_ASSERT_EQUAL_FATAL(got, want);
		key = ks.key[got][head[got]];
		key -= key == MGCAP_ORDER_NONE;
		CU_ASSERT_EQUAL_FATAL(o.src[got].last_key, key);
		if (key < newest)
			late++;
		else
			newest = key;
		CU_ASSERT_EQUAL_FATAL(o.out_of_order, late);
		head[got]++;
		ks.head[got]++;		/* (the caller takes the record from the source) */
	}
	mgcap_order_begin_batch(&o);
	CU_ASSERT_EQUAL(mgcap_order_next(&o, 1000, &k), -1);
	mgcap_order_free(&o);
}

static void test_keys_near_and_stepping_back(void)
{
	static const size_t sources[] = { 1, 2, 3, 5, 16, 64, 100 };
	size_t i;

	for (i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		agree_on_keys(sources[i], 0, 4242 + (uint32_t)i);
}

static void test_keys_years_apart(void)
{
	static const size_t sources[] = { 1, 2, 3, 5, 16, 64, 100 };
	size_t i;

	for (i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		agree_on_keys(sources[i], 1, 777 + (uint32_t)i);
}

void register_order_tests(void)
{
	static const struct unit_test tests[] = {
		{ "keys near each other, stepping back", test_keys_near_and_stepping_back },
		{ "keys years apart", test_keys_years_apart },
	};

	ADD_SUITE("order", tests);
}
