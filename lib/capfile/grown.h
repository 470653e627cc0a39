/* SPDX-License-Identifier: BSD-2-Clause */
/* An array grown as it fills: mgdump's tools' one way of doing it. */
#ifndef MGDUMP_GROWN_H
#define MGDUMP_GROWN_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * @p, or @p moved to hold @n items of @size: twice as many as before (256
 * at first), but no more than @limit unless @n is (*@cap updated); NULL:
 * out of memory, @p as it was.
 */
static inline void *mgdump_grown(void *p, size_t *cap, size_t n, size_t size, size_t limit)
{
	size_t want = *cap ? *cap : 256;

	if (n <= *cap)
		return p;
	while (want < n)
		want = want > SIZE_MAX / 2 ? SIZE_MAX : 2 * want;
	if (want > limit)
		want = n > limit ? n : limit;
	if (want > SIZE_MAX / size)
		return NULL;
	p = realloc(p, want * size);
	if (p)
		*cap = want;
	return p;
}

#endif /* MGDUMP_GROWN_H */
