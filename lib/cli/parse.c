// SPDX-License-Identifier: BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/mgcap.h>

#include "parse.h"

/* The decimal number @s starts with (no sign, no space): 0 and *@end after it, or -1. */
static int leading_number(const char *s, unsigned long long *v, char **end)
{
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, end, 10);
	return errno ? -1 : 0;
}

int mgcap_parse_size(const char *s, uint64_t *bytes)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (leading_number(s, &v, &end))
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		shift = 10;
		end++;
		break;
	case 'M':
		shift = 20;
		end++;
		break;
	case 'G':
		shift = 30;
		end++;
		break;
	case 'T':
		shift = 40;
		end++;
		break;
	default:
		break;
	}
	if (shift && (!strcmp(end, "iB") || !strcmp(end, "B")))
		end += strlen(end);
	else if (!shift && !strcmp(end, "B"))
		end++;
	if (*end || v > (UINT64_MAX >> shift))
		return -1;
	*bytes = (uint64_t)v << shift;
	return 0;
}

int mgcap_parse_duration(const char *s, uint64_t *seconds)
{
	static const struct {
		char unit;
		uint64_t seconds;
	} units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 604800 } };
	unsigned long long v;
	uint64_t scale = 1;
	char *end;
	size_t i;

	if (leading_number(s, &v, &end))
		return -1;
	for (i = 0; *end && i < sizeof(units) / sizeof(units[0]); i++) {
		if (*end == units[i].unit) {
			scale = units[i].seconds;
			end++;
			break;
		}
	}
	if (*end || v > UINT64_MAX / scale)
		return -1;
	*seconds = v * scale;
	return 0;
}

int mgcap_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *v)
{
	unsigned long long n;
	char *end;

	if (leading_number(s, &n, &end) || *end || n < min || n > max)
		return -1;
	*v = (uint32_t)n;
	return 0;
}

int mgcap_parse_mode(const char *s)
{
	if (s && !strcmp(s, "mirror"))
		return MGCAP_MODE_MIRROR;
	if (s && !strcmp(s, "drop"))
		return MGCAP_MODE_DROP;
	return -1;
}

const char *mgcap_mode_name(uint32_t mode)
{
	switch (mode) {
	case MGCAP_MODE_MIRROR:
		return "mirror";
	case MGCAP_MODE_DROP:
		return "drop";
	default:
		return "unknown";
	}
}
