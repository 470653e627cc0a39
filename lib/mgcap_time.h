/* SPDX-License-Identifier: BSD-2-Clause */
/* The time now in ns, for every part that reads a clock (one helper, not one each). */
#ifndef MGCAP_TIME_H
#define MGCAP_TIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t mgcap_now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif /* MGCAP_TIME_H */
