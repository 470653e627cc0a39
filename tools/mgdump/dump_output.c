// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dump_output.h"
#include "mgcap_time.h"

void dump_output_file_name(char *buf, size_t len, const char *path, unsigned int index,
			   int rotating, unsigned int keep)
{
	/*
	 * As tcpdump: -C alone names the files name, name1, name2...; with -W
	 * they are name0 .. name(W-1), zero-padded to the width of W.
	 */
	if (rotating && keep) {
		int width = snprintf(NULL, 0, "%u", keep - 1);

		snprintf(buf, len, "%s%0*u", path, width, index);
	} else if (!rotating || index == 0) {
		snprintf(buf, len, "%s", path);
	} else {
		snprintf(buf, len, "%s%u", path, index);
	}
}

/*
 * All of it, or -1 with the file cut back to its last whole block: @kept
 * (NULL: @p is not blocks, none of it stays) gets the bytes of @p's whole
 * blocks that stay in the file.
 */
static int write_all(struct dump_output *o, const uint8_t *p, size_t len, size_t *kept)
{
	uint64_t before = o->file_bytes;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(o->fd, p + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? errno : ENOSPC;
			size_t keep = kept ? pcapng_whole_blocks(p, done, 0, NULL) : 0;

			snprintf(o->error, sizeof(o->error), "%s: %s", o->current, strerror(err));
			if (kept)
				*kept = keep;
			if (ftruncate(o->fd, (off_t)(before + keep)) == 0)
				lseek(o->fd, (off_t)(before + keep), SEEK_SET);
			o->file_bytes = before + keep;
			return -1;
		}
		done += (size_t)n;
	}
	o->file_bytes += len;
	return 0;
}

static int write_header(struct dump_output *o)
{
	uint8_t buf[512];
	size_t i, n;

	n = pcapng_shb(buf, sizeof(buf), "mgdump (mgcap)");
	if (write_all(o, buf, n, NULL))
		return -1;
	for (i = 0; i < o->nifs; i++) {
		n = pcapng_idb(buf, sizeof(buf), o->ifs[i].linktype, o->ifs[i].snaplen,
			       o->ifs[i].name, o->ifs[i].description);
		if (write_all(o, buf, n, NULL))
			return -1;
	}
	return 0;
}

static int write_trailer(struct dump_output *o)
{
	struct pcapng_if_stats *stats;
	uint8_t buf[PCAPNG_ISB_MAX];
	uint64_t now = mgcap_now_ns(CLOCK_REALTIME);
	size_t i, n;
	int ret = 0;

	if (!o->collect_stats || !o->nifs)
		return 0;
	stats = calloc(o->nifs, sizeof(*stats));
	if (!stats) {
		snprintf(o->error, sizeof(o->error), "out of memory");
		return -1;
	}
	o->collect_stats(stats, o->nifs, o->collect_arg);
	for (i = 0; i < o->nifs && !ret; i++) {
		n = pcapng_isb(buf, sizeof(buf), (uint32_t)i, now, &stats[i]);
		ret = write_all(o, buf, n, NULL);
	}
	free(stats);
	return ret;
}

static int open_file(struct dump_output *o)
{
	int rotating = o->rotate_bytes != 0;

	if (!strcmp(o->path, "-")) {
		o->fd = STDOUT_FILENO;
		snprintf(o->current, sizeof(o->current), "standard output");
	} else {
		dump_output_file_name(o->current, sizeof(o->current), o->path, o->index, rotating,
				      o->keep);
		o->fd = open(o->current, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (o->fd < 0) {
			snprintf(o->error, sizeof(o->error), "%s: %s", o->current, strerror(errno));
			return -1;
		}
	}
	o->file_bytes = 0;
	if (write_header(o))
		return -1;
	o->header_bytes = o->file_bytes;
	return 0;
}

int dump_output_open(struct dump_output *o)
{
	o->index = 0;
	o->files_done = 0;
	o->error[0] = '\0';
	if (!strcmp(o->path, "-"))
		o->rotate_bytes = 0;
	return open_file(o);
}

static int close_file(struct dump_output *o)
{
	int ret = write_trailer(o);

	if (o->fd != STDOUT_FILENO && close(o->fd) && !ret) {
		snprintf(o->error, sizeof(o->error), "%s: %s", o->current, strerror(errno));
		ret = -1;
	}
	o->fd = -1;
	return ret;
}

static int rotate(struct dump_output *o)
{
	if (close_file(o))
		return -1;
	o->files_done++;
	o->index++;
	/* -W: a ring of files, the oldest overwritten */
	if (o->keep && o->index >= o->keep)
		o->index = 0;
	return open_file(o);
}

int dump_output_write(struct dump_output *o, const uint8_t *blocks, size_t len)
{
	const uint8_t *start = blocks;
	size_t torn = 0;

	o->kept = 0;
	while (len) {
		size_t run = len;

		if (o->rotate_bytes) {
			/* whole blocks that fit with the closing statistics; one at least */
			uint64_t limit = o->rotate_bytes - o->nifs * PCAPNG_ISB_MAX;

			run = 0;
			while (run < len && (o->file_bytes + run + pcapng_block_len(blocks + run) <= limit ||
					     (run == 0 && o->file_bytes == o->header_bytes)))
				run += pcapng_block_len(blocks + run);
			if (run == 0) {
				if (rotate(o)) {
					o->kept = (size_t)(blocks - start);
					return -1;
				}
				continue;
			}
		}
		if (write_all(o, blocks, run, &torn)) {
			o->kept = (size_t)(blocks - start) + torn;
			return -1;
		}
		blocks += run;
		len -= run;
	}
	return 0;
}

int dump_output_close(struct dump_output *o)
{
	if (o->fd < 0)
		return 0;
	return close_file(o);
}
