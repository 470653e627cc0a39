// SPDX-License-Identifier: BSD-2-Clause
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "extract_time.h"

/* ".ddd" at *@s (none: 0 ns): the ns, *@s past it; -1 for more than 9 digits or none */
static long fraction(const char **s)
{
	long ns = 0, scale = 100000000;
	const char *p = *s;

	if (*p != '.')
		return 0;
	if (!isdigit((unsigned char)*++p))
		return -1;
	for (; isdigit((unsigned char)*p); p++, scale /= 10) {
		if (!scale)
			return -1;
		ns += (*p - '0') * scale;
	}
	*s = p;
	return ns;
}

int extract_parse_time(const char *s, void *dest)
{
	const char *p = s;
	uint64_t secs = 0;
	struct tm tm;
	time_t t;
	long ns;

	if (isdigit((unsigned char)*p) && !strchr(s, '-')) {
		for (; isdigit((unsigned char)*p); p++) {
			if (secs > (UINT64_MAX / 1000000000ULL - 9) / 10)
				return -1;
			secs = secs * 10 + (uint64_t)(*p - '0');
		}
		ns = fraction(&p);
		if (ns < 0 || *p)
			return -1;
		*(uint64_t *)dest = secs * 1000000000ULL + (uint64_t)ns;
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	p = strptime(s, "%Y-%m-%d", &tm);
	if (!p || (*p != 'T' && *p != ' '))
		return -1;
	p = strptime(p + 1, "%H:%M:%S", &tm);
	if (!p)
		return -1;
	ns = fraction(&p);
	if (ns < 0)
		return -1;
	if (*p == 'Z' && !p[1]) {
		t = timegm(&tm);
	} else if (!*p) {
		tm.tm_isdst = -1;
		t = mktime(&tm);
	} else {
		return -1;
	}
	if (t < 0 || (uint64_t)t > UINT64_MAX / 1000000000ULL - 1)
		return -1;
	*(uint64_t *)dest = (uint64_t)t * 1000000000ULL + (uint64_t)ns;
	return 0;
}
