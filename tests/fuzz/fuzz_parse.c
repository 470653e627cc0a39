// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer: the parsers of what users type (lib/cli/parse.c,
 * lib/mgcap_source.c, lib/mgcap_netdev.c) on any string.  The first byte
 * picks the parser, the rest is the string.  What a parser accepts must
 * mean what it says: a size or a duration reads back the same from its
 * plain number, a number lies in its range, a queue list names queues
 * below the limit only, a device list has no device twice.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgcap_netdev.h"
#include "mgcap_source.h"
#include "parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* @v printed as a plain number must parse to @v again */
static void check_plain(int (*parse)(const char *, uint64_t *), uint64_t v)
{
	char plain[32];
	uint64_t again;

	snprintf(plain, sizeof(plain), "%" PRIu64, v);
	if (parse(plain, &again) || again != v)
		abort();
}

static void check_source(const char *s)
{
	struct mgcap_source src;
	char err[128];
	unsigned int q;

	if (mgcap_source_parse(s, &src, err, sizeof(err))) {
		if (!err[0])
			abort();	/* a refusal always says why */
		return;
	}
	if (!src.ifname[0] || memchr(src.ifname, 0, sizeof(src.ifname)) == NULL)
		abort();
	for (q = 0; q < MGCAP_MAX_QUEUES && !src.all_queues; q++)
		if (mgcap_source_has_queue(&src, q) && !strchr(s, '@'))
			abort();
}

static void check_devices(const char *s)
{
	struct mgcap_source srcs[MGCAP_MAX_DEVICES];
	char err[128];
	size_t n = 0, i, j;

	if (mgcap_source_parse_devices(s, srcs, &n, err, sizeof(err))) {
		if (!err[0])
			abort();
		return;
	}
	if (n < 1 || n > MGCAP_MAX_DEVICES)
		abort();
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (!strcmp(srcs[i].ifname, srcs[j].ifname))
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	uint64_t v;
	uint32_t u, lo, hi;

	if (size < 1)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (data[0] % 6) {
	case 0:
		if (!mgcap_parse_size(s, &v))
			check_plain(mgcap_parse_size, v);
		break;
	case 1:
		if (!mgcap_parse_duration(s, &v))
			check_plain(mgcap_parse_duration, v);
		break;
	case 2:
		lo = data[0] / 6;
		hi = lo + 1000000;
		if (!mgcap_parse_u32(s, lo, hi, &u) && (u < lo || u > hi))
			abort();
		break;
	case 3:
		if (mgcap_parse_mode(s) >= 0 && strcmp(mgcap_mode_name((uint32_t)mgcap_parse_mode(s)), s))
			abort();
		if (!mgcap_check_ifname(s) && (strlen(s) == 0 || strlen(s) >= IF_NAMESIZE))
			abort();
		break;
	case 4:
		check_source(s);
		break;
	case 5:
		check_devices(s);
		break;
	}
	free(s);
	return 0;
}
