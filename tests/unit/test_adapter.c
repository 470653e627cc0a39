// SPDX-License-Identifier: BSD-2-Clause
/*
 * Adapter stamps without a PHC: records of a ring read with
 * MGCAP_TSTAMP_HW_AND_SW, converted through an estimator fed by hand.
 * What converts, what falls back to the kernel's stamp (and is counted),
 * what the NIC did not stamp, and when the reader samples while idle.
 */
#include <string.h>

#include "mgcap_adapter.h"
#include "synthetic_ring.h"
#include "unit.h"

#define T0		1700000000000000000LL
#define OFFSET		37000000000LL		/* the PHC ahead of system time */
#define MS		1000000LL

/* An adapter whose clock has samples at T0 + k ms, k = 0..n - 1, exact. */
static void fed(struct mgcap_adapter *a, int n)
{
	int k;

	memset(a, 0, sizeof(*a));
	a->phc.fd = -1;
	a->line = MGCAP_CLOCK_LINE_NONE;
	mgcap_clock_init(&a->clock);
	for (k = 0; k < n; k++) {
		struct mgcap_clock_sample s = { T0 + k * MS, T0 + OFFSET + k * MS, T0 + k * MS,
						k * MS };

		CU_ASSERT_EQUAL(mgcap_clock_add_sample(&a->clock, &s), 0);
	}
}

/* A record as the kernel writes it for MGCAP_TSTAMP_HW_AND_SW. */
static const struct mgcap_rec *record(struct synthetic_ring *s, uint64_t nic, uint64_t sys)
{
	uint8_t frame[60] = { 0 };
	uint64_t at = s->head;

	if (synthetic_ring_put_both(s, frame, 60, 60, 0, nic ? MGCAP_REC_F_HWTSTAMP : 0, nic, sys))
		return NULL;
	return (const struct mgcap_rec *)(s->data + (at & (s->ctrl->data_size - 1)));
}

static void test_conversion_and_fallbacks(void)
{
	struct synthetic_ring s;
	struct mgcap_adapter a;
	const struct mgcap_rec *rec;

	CU_ASSERT_FATAL(synthetic_ring_init(&s, 1 << 16, 0) == 0);
	fed(&a, 3);
	/* between two samples: converted, exactly here, and the line kept */
	rec = record(&s, T0 + OFFSET + MS / 2, T0 + MS / 2 + 700);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
	CU_ASSERT_EQUAL(mgcap_rec_swtstamp(rec), T0 + MS / 2 + 700);
	CU_ASSERT_EQUAL(mgcap_adapter_stamp(&a, rec), (uint64_t)(T0 + MS / 2));
	CU_ASSERT_EQUAL(a.line.lo, T0 + OFFSET);
	rec = record(&s, T0 + OFFSET + MS / 4, T0 + MS / 4 + 900);
	CU_ASSERT_EQUAL(mgcap_adapter_stamp(&a, rec), (uint64_t)(T0 + MS / 4));
	/* in the second interval: the slow path finds its line */
	rec = record(&s, T0 + OFFSET + 3 * MS / 2, T0 + 3 * MS / 2 + 800);
	CU_ASSERT_EQUAL(mgcap_adapter_stamp(&a, rec), (uint64_t)(T0 + 3 * MS / 2));
	CU_ASSERT_EQUAL(a.line.lo, T0 + OFFSET + MS);
	CU_ASSERT_EQUAL(a.fallbacks, 0);
	/* after the last sample: no line; the kernel's stamp, counted */
	rec = record(&s, T0 + OFFSET + 5 * MS / 2, T0 + 5 * MS / 2 + 600);
	CU_ASSERT_EQUAL(mgcap_adapter_stamp(&a, rec), (uint64_t)(T0 + 5 * MS / 2 + 600));
	CU_ASSERT_EQUAL(a.fallbacks, 1);
	/* the NIC gave no stamp: the kernel's, not counted */
	rec = record(&s, 0, T0 + 777);
	CU_ASSERT_EQUAL(mgcap_adapter_stamp(&a, rec), (uint64_t)(T0 + 777));
	CU_ASSERT_EQUAL(a.fallbacks, 1);
	CU_ASSERT(a.worst_bound_ns > 0 && a.worst_bound_ns <= MGCAP_ADAPTER_MAX_BOUND_NS);
	synthetic_ring_free(&s);
}

/*
 * Idle samples: 1 ms apart at first, then a quarter of the time since the
 * first, up to a second; a sample the PHC refuses (no PHC here) is counted
 * and leaves the estimator alone.
 */
static void test_idle_schedule(void)
{
	struct mgcap_adapter a;
	char report[256];

	fed(&a, 0);
	CU_ASSERT_EQUAL(mgcap_adapter_sample_due(&a, 5 * MS), 0);	/* none yet: now */
	a.clock.samples = 1;
	a.base_mono = 0;
	a.last_sample_mono = 0 + 1;
	CU_ASSERT_EQUAL(mgcap_adapter_sample_due(&a, 1), (uint64_t)MS);
	a.last_sample_mono = 40 * MS;
	CU_ASSERT_EQUAL(mgcap_adapter_sample_due(&a, 40 * MS), (uint64_t)(10 * MS));
	CU_ASSERT_EQUAL(mgcap_adapter_sample_due(&a, 45 * MS), (uint64_t)(5 * MS));
	CU_ASSERT_EQUAL(mgcap_adapter_sample_due(&a, 60 * MS), 0);
	a.last_sample_mono = 100000 * MS;
	CU_ASSERT_EQUAL(mgcap_adapter_sample_due(&a, 100000 * MS), MGCAP_ADAPTER_IDLE_SAMPLE_NS);
	/* nothing came and none is due: no sample */
	CU_ASSERT_EQUAL(mgcap_adapter_sample(&a, 0, 100000 * MS + 1), 0);
	CU_ASSERT_EQUAL(a.sample_errors, 0);
	/* something came: a sample, which the missing PHC refuses */
	CU_ASSERT_EQUAL(mgcap_adapter_sample(&a, 1, 100000 * MS + 2), -1);
	CU_ASSERT_EQUAL(a.sample_errors, 1);
	CU_ASSERT_EQUAL(a.clock.samples, 1);
	mgcap_adapter_describe(&a, report, sizeof(report));
	CU_ASSERT_PTR_NOT_NULL(strstr(report, ", 1 samples refused (Bad file descriptor)"));
}

void register_adapter_tests(void)
{
	static const struct unit_test tests[] = {
		{ "conversion and fallbacks", test_conversion_and_fallbacks },
		{ "idle sampling", test_idle_schedule },
	};

	ADD_SUITE("adapter stamps", tests);
}
