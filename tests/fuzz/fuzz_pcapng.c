// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer: mgdump's pcapng blocks (lib/capfile/pcapng.c).  The first
 * half of the input is a buffer of any bytes given to pcapng_whole_blocks(),
 * which must never count a byte past its end nor a block shorter than a
 * block's header, and whose packet blocks' options pcapng_epb_flags() must
 * look through without a byte outside the block; the rest drives the
 * writer (names, lengths, stamps, flags, counters, and a buffer too small
 * or not), whose every block must then read back whole (aligned, its
 * trailing length its length, its flags those written), in exactly the
 * bytes it said it wrote.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcapng.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The blocks pcapng_whole_blocks() counted lie within @len and end where it
 * says; with @ours (the writer's bytes), they are all of @len, each aligned
 * and ending in its length.
 */
static void check_whole(const uint8_t *p, size_t len, int ours)
{
	size_t count = 0, n = pcapng_whole_blocks(p, len, 0, &count), off = 0, i;

	if (n > len || (ours && n != len))
		abort();
	for (i = 0; i < count; i++) {
		uint32_t blen, trailer;

		if (off + 12 > n)
			abort();
		blen = pcapng_block_len(p + off);
		if (blen < 12 || off + blen > n)
			abort();
		memcpy(&trailer, p + off + blen - 4, sizeof(trailer));
		if (ours && (blen % 4 || trailer != blen))
			abort();
		if (pcapng_block_type(p + off) == PCAPNG_EPB_TYPE) {
			/* alone in a buffer of its size: ASan sees a byte read past the block */
			uint8_t *block = malloc(blen);

			if (block) {
				uint32_t flags;

				memcpy(block, p + off, blen);
				flags = pcapng_epb_flags(block);
				/* (the writer's: the flags it was given, also in the stamp) */
				if (ours && flags != (uint32_t)pcapng_epb_ts(block) >> 24)
					abort();
				free(block);
			}
		}
		off += blen;
	}
	if (off != n)
		abort();
}

/* a string of up to @max bytes from the input */
static const char *take_string(const uint8_t **p, const uint8_t *end, char *buf, size_t max)
{
	size_t n = end > *p ? (size_t)(**p) % max : 0;

	if ((size_t)(end - *p) < n + 1)
		n = 0;
	else
		(*p)++;
	memcpy(buf, *p, n);
	buf[n] = '\0';
	*p += n;
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t half = size / 2, cap, used = 0, n;
	const uint8_t *p = data + half, *end = data + size;
	uint8_t *copy = malloc(half ? half : 1), *out;
	char name[300], desc[300];
	struct pcapng_if_stats st;
	uint32_t caplen, len, flags;
	int with_desc;

	if (!copy)
		return 0;
	memcpy(copy, data, half);
	check_whole(copy, half, 0);
	free(copy);

	if (end - p < 4)
		return 0;
	cap = (size_t)(p[0] | p[1] << 8);
	p += 2;
	out = malloc(cap ? cap : 1);
	if (!out)
		return 0;
	n = pcapng_shb(out, cap, take_string(&p, end, name, sizeof(name)));
	used += n;
	take_string(&p, end, name, sizeof(name));
	/* a byte that says whether a description follows */
	with_desc = end > p && *p++ & 1;
	n = pcapng_idb(out + used, cap - used, 1, 262144, name,
		       with_desc ? take_string(&p, end, desc, sizeof(desc)) : NULL);
	used += n;
	while (end - p >= 4) {
		caplen = (uint32_t)(p[0] | p[1] << 8);
		len = caplen + p[2];
		/* (any byte: other bits than the direction's are carried as well) */
		flags = p[3];
		p += 4;
		if (caplen > (size_t)(end - p))
			caplen = (uint32_t)(end - p);
		/* (the flags in the stamp's low bits too, for check_whole() to compare) */
		n = pcapng_epb(out + used, cap - used, 0,
			       (uint64_t)caplen << 40 | flags << 24 | len, p, caplen, len, flags);
		if (n && n != pcapng_epb_size(caplen, flags))
			abort();
		used += n;
		p += caplen;
	}
	memset(&st, 0, sizeof(st));
	st.received = size;
	st.buffer_dropped = half;
	memcpy(st.note, name, sizeof(st.note) - 1);
	n = pcapng_isb(out + used, cap - used, 0, size, &st);
	used += n;
	if (used > cap)
		abort();
	check_whole(out, used, 1);
	free(out);
	return 0;
}
