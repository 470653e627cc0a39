/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mgcap-extract's parts and the run they share.  main.c reads the command
 * line into the run; files.c finds the files and chooses how each is read
 * (through its index, or whole); scan.c reads the packets and judges each
 * by the range and the filter (filter.c compiles it for each link type);
 * output.c writes what was found, in time order.
 */
#ifndef MGDUMP_EXTRACT_H
#define MGDUMP_EXTRACT_H

#include <errno.h>
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capindex.h"
#include "extract_merge.h"
#include "pcapng.h"

#define IFS_MAX		256
#define SNAPLEN_MAX	EXTRACT_MERGE_CAPLEN_MAX	/* as much as pcapng readers take of a packet */

struct extract {
	/* what was asked */
	const char *inputs[1024];
	size_t ninputs;
	const char *out;
	uint64_t from_ns, to_ns;
	uint64_t memory;
	int no_index, quiet;
	char *filter_text;
	/* the filter, compiled for each link type met (and for Ethernet, for the flows) */
	struct {
		int linktype;
		struct bpf_program prog;
	} compiled[16];
	size_t ncompiled;
	/* the output's interfaces: each file's, by name, link type and snaplen */
	struct pcapng_idb_info out_ifs[IFS_MAX];
	size_t nout_ifs;
	/* the packets found, until they are written in time order */
	struct extract_merge *found;
	size_t npackets;
	/* what was read, against what a whole scan reads */
	uint64_t bytes_read, bytes_all, files, files_indexed;
};

/* A file being read. */
struct input {
	struct extract *x;
	const char *path;
	uint32_t number;		/* among the files met: ties of stamps go by it */
	int fd;
	uint64_t size;
	uint32_t out_ifid[IFS_MAX];	/* by the file's interface number */
	int linktype[IFS_MAX];
	uint64_t units_per_s[IFS_MAX];
	size_t nifs;
	uint64_t header_end;		/* where the first packet (or other block) is */
};

/* @p, or the end of the run when there was no memory for it */
static inline void *extract_needed(void *p)
{
	if (!p) {
		fprintf(stderr, "mgcap-extract: out of memory\n");
		exit(1);
	}
	return p;
}

/* the order's failure (errno set): said, and the end of the run */
static inline void extract_order_failed(const char *doing)
{
	if (errno == ENOMEM)
		fprintf(stderr, "mgcap-extract: out of memory\n");
	else
		fprintf(stderr, "mgcap-extract: %s in %s: %s\n", doing, extract_merge_dir(),
			strerror(errno));
	exit(1);
}

/* filter.c: the filter for packets of @linktype (a bad one ends the run) */
const struct bpf_program *extract_filter_for(struct extract *x, int linktype);

/* files.c: the packets of a directory's files, or of a file, found */
void extract_read_input(struct extract *x, const char *path);

/*
 * scan.c: the section header and interface blocks at the start of the
 * file: 0, or -1 when it is not pcapng (nothing said; the caller passes it
 * over)
 */
int extract_read_header(struct input *in);
/* what a whole scan reads: the file from its first packet on */
void extract_read_whole(struct input *in);
/*
 * The spans of the file that may hold what is asked, read (runs of them
 * that touch, at once) and judged.
 */
void extract_read_by_index(struct input *in, const struct capindex *idx);

/* output.c: what was found, written to x->out in time order */
void extract_write_output(struct extract *x);

#endif /* MGDUMP_EXTRACT_H */
