// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer: the PHC-to-system-time estimator (lib/mgcap_clock.c) fed
 * samples no PHC gives: windows of any width, clocks that jump anywhere,
 * values at the ends of the 64-bit range.  Each 8 bytes of input after the
 * first are a field; every five fields a sample (four) and a PHC value near
 * it to convert (the fifth).  Whatever it is fed, the estimator
 * must do no undefined arithmetic (UBSan), keep every conversion within the
 * bound asked for, convert on a line of its rate (the next PHC nanosecond
 * on the same line is 0 to 2 system nanoseconds later: the rates differ by
 * less than 1/256), and convert the PHC reading of the last two samples it
 * took to their system time within the bound it gives.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mgcap_clock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int64_t field(const uint8_t **p)
{
	uint64_t v;

	memcpy(&v, *p, sizeof(v));
	*p += sizeof(v);
	return (int64_t)v;
}

/* @phc converted as the estimator promises; @truth: the system time of @phc (none: 0) */
static void check_convert(const struct mgcap_clock *c, int64_t phc, uint64_t max_bound,
			  const int64_t *truth)
{
	struct mgcap_clock_line line;
	int64_t sys, next;
	uint64_t bound;

	if (mgcap_clock_convert(c, phc, max_bound, &sys, &bound))
		return;
	if (bound > max_bound || mgcap_clock_line_for(c, phc, max_bound, &line) ||
	    line.bound_ns != bound)
		abort();
	if (phc < INT64_MAX && mgcap_clock_line_convert(&line, phc + 1, &next) &&
	    (next < sys || next - sys > 2))
		abort();
	if (truth && (sys > *truth ? (uint64_t)sys - (uint64_t)*truth :
		      (uint64_t)*truth - (uint64_t)sys) > bound)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mgcap_clock c;
	const uint8_t *p = data + 1, *end = data + size;
	struct mgcap_clock_sample last;
	int64_t last_truth = 0;
	int have_last = 0;
	uint64_t max_bound;

	if (size < 1)
		return 0;
	/* the bound a caller asks for: 1 ns to about 4 ms */
	max_bound = 1ull << (data[0] % 23);
	mgcap_clock_init(&c);
	while (end - p >= 5 * 8) {
		struct mgcap_clock_sample s;
		int64_t probe, truth;

		s.sys_before = field(&p);
		s.phc = field(&p);
		s.sys_after = field(&p);
		s.mono = field(&p);
		probe = field(&p);
		if (mgcap_clock_add_sample(&c, &s) < 0)
			continue;
		/* a sample's PHC reading was at its window's middle, give or take half of it */
		truth = mgcap_clock_sample_sys(&s);
		check_convert(&c, s.phc, max_bound, &truth);
		if (have_last)
			check_convert(&c, last.phc, max_bound, &last_truth);
		last = s;
		last_truth = truth;
		have_last = 1;
		/* near the sample, where a conversion may succeed, or anywhere */
		check_convert(&c, probe & 1 ? (int64_t)((uint64_t)s.phc - (uint64_t)(probe >> 40)) : probe,
			      max_bound, NULL);
	}
	return 0;
}
