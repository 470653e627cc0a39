/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mgdump's output: one pcapng file, stdout, or a rotation of files.  Each
 * file is a complete section: a header block, one interface block per
 * source, the packets, and a statistics block per interface at its end.
 * Writes are whole blocks; a write that fails is cut back to the last whole
 * block, so a file is never left with a torn block.
 */
#ifndef MGDUMP_OUTPUT_H
#define MGDUMP_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "pcapng.h"

struct dump_interface {
	char name[32];		/* "eth0@2" */
	char description[128];
	uint16_t linktype;
	uint32_t snaplen;
};

struct dump_output {
	const char *path;		/* file, or "-" for stdout */
	uint64_t rotate_bytes;		/* 0: no rotation (tcpdump's -C, in bytes) */
	unsigned int keep;		/* files kept when rotating (tcpdump's -W); 0: all */
	const struct dump_interface *ifs;
	size_t nifs;
	/* the counters for a file's closing statistics blocks (NULL: none) */
	void (*collect_stats)(struct pcapng_if_stats *stats, size_t n, void *arg);
	void *collect_arg;
	int fd;
	unsigned int index;		/* rotation: the file being written */
	uint64_t file_bytes;
	uint64_t header_bytes;		/* of the current file */
	uint64_t files_done;
	size_t kept;			/* after a failed dump_output_write() */
	char current[4096];
	char error[4400];
};

/* Opens the first file and writes its header blocks; 0, or -1 with error set. */
int dump_output_open(struct dump_output *o);

/*
 * Writes @len bytes of whole blocks, rotating between blocks when the file
 * would exceed rotate_bytes.  0, or -1 with error set and kept: how many of
 * the bytes (whole blocks, from the start) are in the output all the same.
 */
int dump_output_write(struct dump_output *o, const uint8_t *blocks, size_t len);

/* Writes the closing statistics blocks and closes; 0, or -1 with error set. */
int dump_output_close(struct dump_output *o);

/* The name of file @index, as tcpdump -C / -W name them. */
void dump_output_file_name(char *buf, size_t len, const char *path, unsigned int index,
			   int rotating, unsigned int keep);

#endif /* MGDUMP_OUTPUT_H */
