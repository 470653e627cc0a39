/* SPDX-License-Identifier: BSD-2-Clause */
/* Parsing of command-line values; pure functions, unit-tested on the host. */
#ifndef MGCAP_PARSE_H
#define MGCAP_PARSE_H

#include <stdint.h>

/* "65536", "64K", "8M", "1G", "8MiB", "2T": bytes.  0 on success, -1 if malformed. */
int mgcap_parse_size(const char *s, uint64_t *bytes);

/* "90", "90s", "15m", "12h", "7d", "2w": seconds.  0 on success, -1 if malformed. */
int mgcap_parse_duration(const char *s, uint64_t *seconds);

/* A decimal unsigned integer in [min, max].  0 on success, -1 otherwise. */
int mgcap_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *v);

/* "mirror" or "drop": enum mgcap_mode, or -1. */
int mgcap_parse_mode(const char *s);
const char *mgcap_mode_name(uint32_t mode);

#endif /* MGCAP_PARSE_H */
