/* SPDX-License-Identifier: BSD-2-Clause */
/* mgcap-extract's times: what a user types, as ns since the epoch. */
#ifndef MGDUMP_EXTRACT_TIME_H
#define MGDUMP_EXTRACT_TIME_H

#include <stdint.h>

/*
 * Seconds since the epoch ("1764000000", "1764000000.25"), or a date and
 * time, in local time or with Z in UTC ("2026-11-24T10:00:00",
 * "2026-11-24 10:00:00.5Z"); fractions to the nanosecond.  0 with *@ns
 * (uint64_t) set, or -1 for anything else.
 */
int extract_parse_time(const char *s, void *ns);

#endif /* MGDUMP_EXTRACT_TIME_H */
