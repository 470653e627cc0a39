/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The index beside a pcapng file mgdump wrote (NAME.idx beside NAME): where
 * in the file each stretch of time is, and which flows each stretch holds,
 * so that a search for a time range and a filter reads only the stretches
 * that may hold what it looks for (mgcap-extract).
 *
 * The file is cut into spans: runs of whole blocks, each ending at a write
 * once it holds CAPINDEX_SPAN_BYTES or its packets' stamps cover
 * CAPINDEX_SPAN_NS.  The index is a header, then records as the spans
 * end: each flow the first time a span holds it (its key and a number, in
 * order from 0), then the span (where it is, its packets' first and last
 * stamps, and the numbers of its flows); last, the file's size, its
 * packets and their stamps' range.  Stamps are the file's own, nanoseconds
 * (mgdump's interfaces' resolution); host byte order, as mgdump's pcapng.
 * It is written as its file is, under NAME.idx.part, and renamed once the
 * file is complete; a file without one is read whole.
 */
#ifndef MGDUMP_CAPINDEX_H
#define MGDUMP_CAPINDEX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "flowkey.h"

#define CAPINDEX_MAGIC		"mgcapidx"
#define CAPINDEX_VERSION	1
#define CAPINDEX_SUFFIX		".idx"
#define CAPINDEX_RECORD_ALIGN	8U	/* each record starts at a multiple of it */
#define CAPINDEX_SPAN_NS	100000000ULL	/* 100 ms */
#define CAPINDEX_SPAN_BYTES	(1U << 20)
/* flows a file's index tells apart; a span with more is read whatever is asked */
#define CAPINDEX_FLOWS_MAX	(1U << 20)

struct capindex_header {
	char magic[8];		/* CAPINDEX_MAGIC, without its NUL */
	uint32_t version;	/* CAPINDEX_VERSION */
	uint32_t record_align;	/* CAPINDEX_RECORD_ALIGN */
};

enum capindex_record_type {
	CAPINDEX_FLOW = 1,	/* struct capindex_flow */
	CAPINDEX_SPAN = 2,	/* struct capindex_span, then its flows' numbers */
	CAPINDEX_END = 3,	/* struct capindex_end: the last record */
};

struct capindex_record {
	uint32_t type;		/* enum capindex_record_type */
	uint32_t len;		/* of the record, this header too, a multiple of 8 */
};

struct capindex_flow {
	struct capindex_record rec;
	uint32_t id;		/* the flows' count before it */
	struct flowkey key;
};

struct capindex_span {
	struct capindex_record rec;
	uint64_t offset;	/* in the file, of its first block */
	uint64_t length;	/* bytes of its blocks */
	uint64_t first_ns, last_ns; /* the oldest and newest stamp of its packets */
	uint32_t packets;
	uint32_t flags;		/* CAPINDEX_SPAN_F_* */
	uint32_t nflows;	/* the flow numbers that follow */
	uint32_t pad;
	/* uint32_t flows[nflows], then padding to 8 */
};

/*
 * Last: the file's size once complete (an index of another file, or of a
 * file cut short, is not its), and the oldest and newest stamp in it (a
 * search of another time passes the file by, reading this alone).
 */
struct capindex_end {
	struct capindex_record rec;
	uint64_t file_bytes;
	uint64_t packets;
	uint64_t first_ns, last_ns;	/* of the packets, if any */
};

/*
 * Some of its packets have no flow numbered (not Ethernet, or past
 * CAPINDEX_FLOWS_MAX): read it for any search
 */
#define CAPINDEX_SPAN_F_UNINDEXED	1U

/* --- writing, beside the file (mgdump) --------------------------------------- */

struct capindex_writer;

/* interfaces a writer tells apart by link type; those after are not Ethernet to it */
#define CAPINDEX_IFS_MAX	256

/*
 * For files of @nifs interfaces, @is_ethernet[ifid] saying which are
 * Ethernet (whose packets have flows); NULL: out of memory.
 */
struct capindex_writer *capindex_writer_new(const uint8_t *is_ethernet, size_t nifs);
void capindex_writer_free(struct capindex_writer *w);

/*
 * A new file's index, written to @part_path: 0, or -1 (errno set; the
 * file then has none).
 */
int capindex_begin(struct capindex_writer *w, const char *part_path);

/*
 * Whole blocks went into the file at @offset: their enhanced packet blocks
 * are indexed.  A packet of an interface that is not Ethernet has no flow:
 * its span is read for any search.  A span ends after them if it is long
 * enough.
 */
void capindex_blocks(struct capindex_writer *w, uint64_t offset, const uint8_t *blocks,
		     size_t len);

/*
 * The file is complete under @path, @file_bytes long: its index is finished
 * and renamed to @path + CAPINDEX_SUFFIX.  0, or -1 (the index removed: the
 * file has none).
 */
int capindex_end(struct capindex_writer *w, const char *path, uint64_t file_bytes);

/* The file goes without its index (a failure, a file never started). */
void capindex_discard(struct capindex_writer *w);

/* The index of the file at @path removed, if it has one (the file goes, or is replaced). */
void capindex_unlink(const char *path);

/* --- reading (mgcap-extract) -------------------------------------------------- */

struct capindex {
	uint8_t *data;			/* the whole index, which the rest points into */
	const struct flowkey **flows;
	size_t nflows;
	const struct capindex_span **spans;	/* each with its flow numbers after it */
	size_t nspans;
	uint64_t bytes;			/* the index's own size */
	struct capindex_end end;
};

/*
 * Reads the end of the index at @path into @end: 0, 1 when there is none,
 * -1 when it is not one (the message, naming what, in @err).  Whether it is
 * its file's: file_bytes is the file's size.
 */
int capindex_load_end(const char *path, struct capindex_end *end, char *err, size_t errlen);

/*
 * Reads all of the index at @path, as capindex_load_end() (its end in
 * idx->end): every flow one flowkey_of() can make, the spans in the order
 * of the file, none over another, within the file's size.
 */
int capindex_load(const char *path, struct capindex *idx, char *err, size_t errlen);
void capindex_release(struct capindex *idx);

/* The flow numbers of span @s. */
static inline const uint32_t *capindex_span_flows(const struct capindex_span *s)
{
	return (const uint32_t *)(s + 1);
}

#endif /* MGDUMP_CAPINDEX_H */
