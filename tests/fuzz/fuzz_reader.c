// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer: a ring's reader (lib/mgcap_reader.h) over any data area and
 * any indices, as a reader of the ring could have left them: every record
 * it hands out, read to its last byte (and its stamp after the frame), lies
 * within the data area, whether taken one by one or walked a stretch at a
 * time as the libpcap module walks them.  The mapping is allocated to its
 * exact size, so ASan sees a byte read past it.
 *
 * Input: the consumer and producer indices (8 bytes each, little-endian),
 * then the data area's bytes (its size: the largest power of two they fill,
 * at least 32).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mgcap_reader.h"

#define PAGE	4096
#define STEPS	4096	/* records a walk may take: each moves on, so a ring holds fewer */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

/* What a client does with a record: reads every byte it says it has. */
static void use(const struct mgcap_rec *rec, const uint8_t *area, uint64_t data_size)
{
	uint64_t sum = rec->tstamp_ns;
	uint32_t i;

	if ((const uint8_t *)rec < area || (const uint8_t *)rec + rec->rec_len > area + data_size)
		abort();
	for (i = 0; i < rec->caplen; i++)
		sum += rec->data[i];
	if (rec->flags & MGCAP_REC_F_SWTSTAMP)
		sum += mgcap_rec_swtstamp(rec);
	sink = sum;
}

static void ring_from(uint8_t *map, uint64_t data_size, const uint8_t *data)
{
	struct mgcap_ring_ctrl *ctrl = (struct mgcap_ring_ctrl *)map;

	memset(map, 0, PAGE);
	ctrl->magic = MGCAP_RING_MAGIC;
	ctrl->version = MGCAP_RING_VERSION;
	ctrl->data_offset = PAGE;
	ctrl->data_size = data_size;
	memcpy(&ctrl->consumer, data, 8);
	memcpy(&ctrl->producer, data + 8, 8);
	memcpy(map + PAGE, data + 16, data_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mgcap_reader r;
	const struct mgcap_rec *rec;
	const uint8_t *first;
	uint64_t data_size = 32, len;	/* a power of two, more than a record header */
	uint8_t *map;
	char err[128];
	int steps;

	if (size < 16 + data_size)
		return 0;
	while (data_size * 2 <= size - 16)
		data_size *= 2;
	map = malloc(PAGE + data_size);
	if (!map)
		return 0;

	/* one record at a time */
	ring_from(map, data_size, data);
	if (mgcap_reader_attach(&r, map, PAGE + data_size, err, sizeof(err)) < 0)
		abort();
	for (steps = 0; steps < STEPS && (rec = mgcap_reader_next(&r)) != NULL; steps++)
		use(rec, r.data, data_size);
	if (steps == STEPS)
		abort();	/* a record that does not move the reader on */

	/* a stretch at a time, as the libpcap module walks it */
	ring_from(map, data_size, data);
	if (mgcap_reader_attach(&r, map, PAGE + data_size, err, sizeof(err)) < 0)
		abort();
	for (steps = 0; steps < STEPS && (len = mgcap_reader_stretch(&r, &first)) != 0; steps++) {
		const uint8_t *cur = first, *end = first + len;

		if (first < r.data || end > r.data + data_size)
			abort();
		while ((rec = mgcap_ring_rec_at(cur, end)) != NULL) {
			if (!mgcap_rec_fits(rec, (uint64_t)(end - cur))) {
				mgcap_reader_advance_to(&r, cur);
				mgcap_reader_set_corrupt(&r, r.tail);
				goto done;
			}
			use(rec, r.data, data_size);
			cur += rec->rec_len;
		}
		mgcap_reader_advance_to(&r, end);
	}
	if (steps == STEPS)
		abort();
done:
	free(map);
	return 0;
}
