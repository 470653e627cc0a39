// SPDX-License-Identifier: BSD-2-Clause
/*
 * The PHC-to-system-time estimator over synthetic truths: a PHC with an
 * offset, a frequency error (which may change), steps of either clock; samples
 * every 100 ms whose windows are up to 5 us wide, with the PHC read anywhere
 * inside; a frame every 50 us, converted once the next sample is in (some a
 * sample later still).  Every converted stamp must be within its stated bound
 * of the truth; the rest are the fallbacks, which are counted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mgcap_clock.h"
#include "unit.h"

#define NS_PER_S	1000000000LL
#define T0		1700000000000000000LL	/* system time at the start */
#define RUN_NS		(3 * NS_PER_S)
#define SAMPLE_NS	(100 * 1000000LL)
#define FRAME_NS	50000LL
#define MAX_BOUND_NS	10000ULL		/* what a frame may be off: the VM target */

struct truth {
	int64_t phc_offset;		/* PHC - system time at the start */
	double ppm;			/* the PHC's frequency error */
	double ppm_after;		/* after change_at */
	int64_t change_at;
	int64_t phc_step, phc_step_at;	/* settime of the PHC */
	int64_t sys_step, sys_step_at;	/* a leap second, an NTP step */
	int precise;			/* windows of 0 (PTP_SYS_OFFSET_PRECISE) */
	int steps;			/* steps the estimator must see, at least */
	double min_converted;		/* the share of frames it must convert */
};

/* The PHC at true time @t (ns since the start). */
static int64_t truth_phc(const struct truth *tr, int64_t t)
{
	double drift = t < tr->change_at ? (double)t * tr->ppm * 1e-6 :
		(double)tr->change_at * tr->ppm * 1e-6 +
		(double)(t - tr->change_at) * tr->ppm_after * 1e-6;

	return T0 + tr->phc_offset + t + llround(drift) +
	       (tr->phc_step && t >= tr->phc_step_at ? tr->phc_step : 0);
}

static int64_t truth_sys(const struct truth *tr, int64_t t)
{
	return T0 + t + (tr->sys_step && t >= tr->sys_step_at ? tr->sys_step : 0);
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct outcome {
	uint64_t frames, converted, wrong;
	uint64_t worst_bound, worst_error;
};

static void convert(const struct mgcap_clock *c, const struct truth *tr, int64_t t,
		    struct outcome *o)
{
	int64_t sys, err;
	uint64_t bound;

	o->frames++;
	if (mgcap_clock_convert(c, truth_phc(tr, t), MAX_BOUND_NS, &sys, &bound))
		return;
	o->converted++;
	err = llabs(sys - truth_sys(tr, t));
	if ((uint64_t)err > bound)
		o->wrong++;
	if (bound > o->worst_bound)
		o->worst_bound = bound;
	if ((uint64_t)err > o->worst_error)
		o->worst_error = (uint64_t)err;
}

/* Frame k is stamped at true time (k + 1/2) * FRAME_NS; every 7th is read late. */
static void read_frames(const struct mgcap_clock *c, const struct truth *tr, int64_t from,
			int64_t to, int late, struct outcome *o)
{
	int64_t k;

	for (k = (from + FRAME_NS / 2) / FRAME_NS; k * FRAME_NS + FRAME_NS / 2 < to; k++)
		if ((k % 7 == 0) == late && k * FRAME_NS + FRAME_NS / 2 >= from)
			convert(c, tr, k * FRAME_NS + FRAME_NS / 2, o);
}

static void run(const char *name, const struct truth *tr)
{
	struct mgcap_clock c;
	struct outcome o = { 0 };
	int64_t ts, prev = 0, before_prev = 0;

	mgcap_clock_init(&c);
	for (ts = 0; ts <= RUN_NS; ts += SAMPLE_NS) {
		int64_t window = tr->precise ? 0 : 200 + (int64_t)(next_random() % 4800);
		int64_t at = (int64_t)(next_random() % (uint64_t)(window + 1));
		struct mgcap_clock_sample s = {
			truth_sys(tr, ts), truth_phc(tr, ts + at), truth_sys(tr, ts + window),
			T0 / 2 + ts + at
		};

		CU_ASSERT(mgcap_clock_add_sample(&c, &s) >= 0);
		/* stamped since the last sample, read now; every 7th a sample later */
		read_frames(&c, tr, before_prev, prev, 1, &o);
		read_frames(&c, tr, prev, ts, 0, &o);
		before_prev = prev;
		prev = ts;
	}
	printf("\n    %s: %llu of %llu frames converted, worst bound %llu ns, worst error %llu ns, "
	       "%llu steps", name, (unsigned long long)o.converted, (unsigned long long)o.frames,
	       (unsigned long long)o.worst_bound, (unsigned long long)o.worst_error,
	       (unsigned long long)c.steps);
	CU_ASSERT_EQUAL(o.wrong, 0);
	CU_ASSERT((double)o.converted >= tr->min_converted * (double)o.frames);
	CU_ASSERT(c.steps >= (uint64_t)tr->steps);
	if (!tr->phc_step && !tr->sys_step && tr->ppm == tr->ppm_after) {
		CU_ASSERT_EQUAL(c.steps, 0);	/* no step where there is none */
		/* the frequency error as mgcap show reports it: within 1 ppm */
		CU_ASSERT(c.have_rate && fabs(c.rate + tr->ppm * 1e-6) < 1e-6);
	}
}

#define STEADY(off, f)	{ .phc_offset = (off), .ppm = (f), .ppm_after = (f), .min_converted = 0.9 }

static void test_offsets_and_frequencies(void)
{
	const struct truth steady[] = {
		STEADY(37 * NS_PER_S, 50), STEADY(-37 * NS_PER_S, -50),
		STEADY(37 * NS_PER_S, 500), STEADY(-37 * NS_PER_S, -500), STEADY(0, 0),
		/*
		 * further from system time than a double carries to the ns
		 * (2^53 ns, 104 days): a free-running PHC counting from its
		 * reset, and one set decades ahead
		 */
		STEADY(-T0 + 5 * NS_PER_S, 50), STEADY(-T0 + 5 * NS_PER_S, -500),
		STEADY(30 * 365 * 86400 * NS_PER_S, 50),
	};
	size_t i;

	for (i = 0; i < 2 * sizeof(steady) / sizeof(steady[0]); i++) {
		struct truth tr = steady[i / 2];
		char name[80];

		/* each with wide windows, and with true cross-timestamps */
		tr.precise = i % 2;
		snprintf(name, sizeof(name), "offset %+lld s, %+g ppm%s",
			 (long long)(tr.phc_offset / NS_PER_S), tr.ppm, tr.precise ? ", precise" : "");
		run(name, &tr);
	}
}

static void test_frequency_change(void)
{
	struct truth tr = STEADY(37 * NS_PER_S, 50);

	tr.ppm_after = -50;
	tr.change_at = 1550 * 1000000LL;
	tr.min_converted = 0.8;
	run("+50 ppm, then -50 ppm", &tr);
}

static void test_phc_steps(void)
{
	static const int64_t steps[] = { 3000, -3000, NS_PER_S / 2, -NS_PER_S / 2 };
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct truth tr = STEADY(37 * NS_PER_S, 50);
		char name[64];

		tr.phc_step = steps[i];
		tr.phc_step_at = 1550 * 1000000LL;
		tr.steps = llabs(steps[i]) > 1000000 ? 1 : 0;
		/*
		 * Stepped back, the PHC repeats values its stamps had before: those
		 * are not converted until it has passed them again (half a second).
		 */
		tr.min_converted = steps[i] < -1000000 ? 0.7 : 0.8;
		snprintf(name, sizeof(name), "PHC step %+lld ns", (long long)steps[i]);
		run(name, &tr);
	}
}

static void test_system_steps(void)
{
	struct truth leap = STEADY(37 * NS_PER_S, 50), ntp = STEADY(37 * NS_PER_S, -50);

	leap.sys_step = -NS_PER_S;	/* 23:59:60 repeats a second */
	leap.sys_step_at = 1550 * 1000000LL;
	leap.steps = 1;
	leap.min_converted = 0.8;
	run("leap second", &leap);
	ntp.sys_step = NS_PER_S / 2;
	ntp.sys_step_at = 1234 * 1000000LL;
	ntp.steps = 1;
	ntp.min_converted = 0.8;
	run("system clock stepped 0.5 s", &ntp);
}

/* Refused and unconvertible input. */
static void test_bad_input(void)
{
	struct mgcap_clock c;
	struct mgcap_clock_sample s = { T0 + 10, T0, T0, 0 };
	int64_t sys;
	uint64_t bound;

	mgcap_clock_init(&c);
	CU_ASSERT_EQUAL(mgcap_clock_add_sample(&c, &s), -1);	/* window below zero */
	CU_ASSERT_EQUAL(mgcap_clock_convert(&c, T0, MAX_BOUND_NS, &sys, &bound), -1);
	s = (struct mgcap_clock_sample){ T0, T0, T0 + 100, 0 };
	CU_ASSERT_EQUAL(mgcap_clock_add_sample(&c, &s), 0);
	/* a PHC that goes backwards is a step; nothing converts across it */
	s = (struct mgcap_clock_sample){ T0 + SAMPLE_NS, T0 - SAMPLE_NS, T0 + SAMPLE_NS + 100,
					 SAMPLE_NS };
	CU_ASSERT_EQUAL(mgcap_clock_add_sample(&c, &s), 1);
	CU_ASSERT_EQUAL(mgcap_clock_convert(&c, T0 - SAMPLE_NS / 2, ~0ULL, &sys, &bound), -1);
	CU_ASSERT_EQUAL(mgcap_clock_convert(&c, T0, ~0ULL, &sys, &bound), -1);
	/*
	 * Clocks outside their range, a window over a second: refused, where
	 * their differences once overflowed (the fuzzer's first find)
	 */
	s = (struct mgcap_clock_sample){ INT64_MIN, T0, INT64_MAX, 0 };
	CU_ASSERT_EQUAL(mgcap_clock_add_sample(&c, &s), -1);
	s = (struct mgcap_clock_sample){ T0, MGCAP_CLOCK_NS_MAX, T0, 0 };
	CU_ASSERT_EQUAL(mgcap_clock_add_sample(&c, &s), -1);
	s = (struct mgcap_clock_sample){ T0, T0, T0, -1 };
	CU_ASSERT_EQUAL(mgcap_clock_add_sample(&c, &s), -1);
	s = (struct mgcap_clock_sample){ T0, T0, T0 + MGCAP_CLOCK_WINDOW_MAX + 1, 0 };
	CU_ASSERT_EQUAL(mgcap_clock_add_sample(&c, &s), -1);
	s = (struct mgcap_clock_sample){ T0, T0, T0 + MGCAP_CLOCK_WINDOW_MAX, SAMPLE_NS * 2 };
	CU_ASSERT(mgcap_clock_add_sample(&c, &s) >= 0);
	/*
	 * A PHC at the top of its range, then a step after most of CLOCK_MONOTONIC's:
	 * the reach of the step saturates at the range's end (it overflowed),
	 * and the sample after it too (unit-san's UBSan sees any overflow)
	 */
	mgcap_clock_init(&c);
	s = (struct mgcap_clock_sample){ T0, MGCAP_CLOCK_NS_MAX - 1, T0, 0 };
	CU_ASSERT_EQUAL(mgcap_clock_add_sample(&c, &s), 0);
	s = (struct mgcap_clock_sample){ T0 + SAMPLE_NS, 0, T0 + SAMPLE_NS, MGCAP_CLOCK_NS_MAX - 1 };
	CU_ASSERT_EQUAL(mgcap_clock_add_sample(&c, &s), 1);
	CU_ASSERT_EQUAL(c.before_step, MGCAP_CLOCK_NS_MAX);
	s = (struct mgcap_clock_sample){ T0 + 2 * SAMPLE_NS, SAMPLE_NS, T0 + 2 * SAMPLE_NS,
					 MGCAP_CLOCK_NS_MAX - 1 };
	CU_ASSERT(mgcap_clock_add_sample(&c, &s) >= 0);
	CU_ASSERT_EQUAL(mgcap_clock_convert(&c, SAMPLE_NS / 2, ~0ULL, &sys, &bound), -1);
}

/*
 * The hot path's line converts exactly the stamps of its interval, as
 * mgcap_clock_convert() does; the empty line none.
 */
static void test_line(void)
{
	static const struct truth tr = { .phc_offset = 37 * NS_PER_S, .ppm = -50, .ppm_after = -50,
					 .change_at = RUN_NS };
	struct mgcap_clock_line none = MGCAP_CLOCK_LINE_NONE, line;
	struct mgcap_clock c;
	int64_t t, phc, sys, want, first;
	uint64_t bound;

	mgcap_clock_init(&c);
	for (t = 0; t <= 3 * SAMPLE_NS; t += SAMPLE_NS) {
		struct mgcap_clock_sample s = {
			truth_sys(&tr, t), truth_phc(&tr, t + 500), truth_sys(&tr, t + 1000),
			t + 500
		};

		CU_ASSERT_EQUAL(mgcap_clock_add_sample(&c, &s), 0);
	}
	phc = truth_phc(&tr, 2 * SAMPLE_NS + SAMPLE_NS / 3);
	CU_ASSERT_FALSE(mgcap_clock_line_convert(&none, phc, &sys));
	CU_ASSERT_FALSE(mgcap_clock_line_convert(&none, INT64_MAX, &sys));
	CU_ASSERT_EQUAL_FATAL(mgcap_clock_line_for(&c, phc, MAX_BOUND_NS, &line), 0);
	first = line.lo;
	CU_ASSERT_EQUAL(first, truth_phc(&tr, 2 * SAMPLE_NS + 500));
	CU_ASSERT_EQUAL(line.span, (uint64_t)(truth_phc(&tr, 3 * SAMPLE_NS + 500) - first));
	CU_ASSERT_FALSE(mgcap_clock_line_convert(&line, first - 1, &sys));
	CU_ASSERT_FALSE(mgcap_clock_line_convert(&line, first + (int64_t)line.span + 1, &sys));
	for (phc = first; phc <= first + (int64_t)line.span; phc += (int64_t)line.span / 97) {
		CU_ASSERT_TRUE(mgcap_clock_line_convert(&line, phc, &sys));
		CU_ASSERT_EQUAL(mgcap_clock_convert(&c, phc, MAX_BOUND_NS, &want, &bound), 0);
		CU_ASSERT_EQUAL(sys, want);
		CU_ASSERT_EQUAL(bound, line.bound_ns);
	}
	/* beyond the last sample there is no line */
	CU_ASSERT_EQUAL(mgcap_clock_line_for(&c, first + (int64_t)line.span + 1, ~0ULL, &line), -1);
}

void register_clock_tests(void)
{
	static const struct unit_test tests[] = {
		{ "offsets and frequencies", test_offsets_and_frequencies },
		{ "frequency change", test_frequency_change },
		{ "PHC steps", test_phc_steps },
		{ "system clock steps", test_system_steps },
		{ "bad input", test_bad_input },
		{ "the hot path's line", test_line },
	};

	ADD_SUITE("clock", tests);
}
