// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* errno of a failed write or open: whether the disk is full (and room may come) */
static int disk_full(int err)
{
	return err == ENOSPC || err == EDQUOT;
}

/* Paged output's calls but writing pages: -1 with error set where writes are in flight. */
static int writes_in_flight(struct dump_output *o)
{
	if (!o->paged || !paged_writes_in_flight(&o->writes))
		return 0;
	snprintf(o->error, sizeof(o->error), "%s: writes still in flight", o->current);
	o->full = 0;
	return -1;
}

/* blocks went into the file at @offset: into its index too */
static void index_blocks(struct dump_output *o, uint64_t offset, const uint8_t *p, size_t len)
{
	if (o->capindex)
		capindex_blocks(o->capindex, offset, p, len);
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
		/* (paged output's pages are written at their places, not at the file's position) */
		ssize_t n = o->paged ? pwrite(o->fd, p + done, len - done, (off_t)(before + done)) :
				       write(o->fd, p + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? errno : ENOSPC;
			size_t keep = kept ? pcapng_whole_blocks(p, done, 0, NULL) : 0;

			snprintf(o->error, sizeof(o->error), "%s: %s", o->current, strerror(err));
			o->full = disk_full(err);
			if (kept)
				*kept = keep;
			/*
			 * (A torn block that cannot be cut off ends the writing;
			 * standard output's is never cut, its offsets not being ours.)
			 */
			if (done > keep && (o->fd == STDOUT_FILENO ||
					    ftruncate(o->fd, (off_t)(before + keep)) ||
					    lseek(o->fd, (off_t)(before + keep), SEEK_SET) < 0))
				o->full = 0;
			o->file_bytes = before + keep;
			o->bytes_total += keep;
			if (kept)
				index_blocks(o, before, p, keep);
			return -1;
		}
		done += (size_t)n;
	}
	o->file_bytes += len;
	o->bytes_total += len;
	if (kept)
		index_blocks(o, before, p, len);
	return 0;
}

/*
 * Paged output: @pre_len bytes, the @len bytes of blocks at @buf, a filler
 * and @post_len bytes, whole pages together, in one write from memory
 * aligned to a page, as O_DIRECT takes it.
 */
static int write_padded(struct dump_output *o, const uint8_t *pre, size_t pre_len,
			const uint8_t *buf, size_t len, const uint8_t *post, size_t post_len)
{
	size_t used = pre_len + len;
	uint32_t fill = mgcap_pcapng_filler_len(used + post_len, MGCAP_PAGE_SIZE);
	uint8_t *page;
	int ret;

	if (posix_memalign((void **)&page, MGCAP_PAGE_SIZE, used + fill + post_len)) {
		snprintf(o->error, sizeof(o->error), "out of memory");
		return -1;
	}
	if (pre_len)
		memcpy(page, pre, pre_len);
	if (len)
		memcpy(page + pre_len, buf, len);
	pcapng_filler(page + used, fill, fill);
	if (post_len)
		memcpy(page + used + fill, post, post_len);
	ret = write_all(o, page, used + fill + post_len, NULL);
	free(page);
	return ret;
}

/* Paged output's header or statistics, which did not fit their page buffer. */
static int too_many_blocks(struct dump_output *o)
{
	snprintf(o->error, sizeof(o->error), "%s: %zu interfaces' blocks are more than %u bytes",
		 o->current, o->nifs, 4 * MGCAP_PAGE_SIZE);
	return -1;
}

static int write_header(struct dump_output *o)
{
	uint8_t buf[4 * MGCAP_PAGE_SIZE];
	size_t i, n, used = 0;

	n = pcapng_shb(buf, sizeof(buf), o->paged ? "mgdump (mgcap, one copy)" : "mgdump (mgcap)");
	if (!o->paged && write_all(o, buf, n, NULL))
		return -1;
	used = o->paged ? n : 0;
	for (i = 0; i < o->nifs; i++) {
		n = pcapng_idb(buf + used, sizeof(buf) - used, o->ifs[i].linktype,
			       o->ifs[i].snaplen, o->ifs[i].name, o->ifs[i].description);
		if (!n)
			return too_many_blocks(o);
		if (!o->paged && write_all(o, buf, n, NULL))
			return -1;
		used += o->paged ? n : 0;
	}
	if (!o->paged)
		return 0;
	/* (the next page of the ring follows: the filler brings it to a page boundary) */
	if (write_padded(o, NULL, 0, buf, used, o->lead, o->lead_len))
		return -1;
	o->lead_len = 0;
	return 0;
}

static int write_trailer(struct dump_output *o)
{
	struct pcapng_if_stats *stats;
	uint8_t buf[4 * MGCAP_PAGE_SIZE];
	uint64_t now = mgcap_now_ns(CLOCK_REALTIME);
	size_t i, n, used = 0;
	int ret = 0;

	if (!o->collect_stats || !o->nifs) {
		return 0;
	}
	stats = calloc(o->nifs, sizeof(*stats));
	if (!stats) {
		snprintf(o->error, sizeof(o->error), "out of memory");
		return -1;
	}
	o->collect_stats(stats, o->nifs, o->collect_arg);
	for (i = 0; i < o->nifs && !ret; i++) {
		n = pcapng_isb(buf + used, sizeof(buf) - used, (uint32_t)i, now, &stats[i]);
		if (!n)
			ret = too_many_blocks(o);
		else if (o->paged)
			used += n;
		else
			ret = write_all(o, buf, n, NULL);
	}
	free(stats);
	if (!o->paged || ret)
		return ret;
	return write_padded(o, NULL, 0, buf, used, NULL, 0);
}

static uint64_t wall_ns(const struct dump_output *o)
{
	return o->clock_ns ? o->clock_ns() : mgcap_now_ns(CLOCK_REALTIME);
}

/* -G: the name series of the period that holds @now (the path through strftime), and its end. */
static int start_period(struct dump_output *o, uint64_t now)
{
	uint64_t len = (uint64_t)o->rotate_seconds * 1000000000ULL;
	time_t start = (time_t)(now / len * len / 1000000000ULL);
	struct tm tm;

	o->period_end_ns = (now / len + 1) * len;
	o->index = 0;
	if (!localtime_r(&start, &tm) || !strftime(o->series, sizeof(o->series), o->path, &tm)) {
		snprintf(o->error, sizeof(o->error), "%s: empty or too long once its time is put in",
			 o->path);
		return -1;
	}
	return 0;
}

const char *const dump_output_siblings[DUMP_OUTPUT_SIBLINGS] = {
	"", CAPINDEX_SUFFIX, ".gz", ".xz", ".zst", ".bz2", ".lz4"
};

/* 1: a file has @path + @suffix; 0: none; -1: cannot tell (open() then says why) */
static int exists(const char *path, const char *suffix)
{
	char name[4200];

	snprintf(name, sizeof(name), "%s%s", path, suffix);
	if (access(name, F_OK) == 0)
		return 1;
	return errno == ENOENT ? 0 : -1;
}

/* NAME, NAME.part or what a -z compressor made of NAME: 1 if one is there */
static int name_taken(const char *name)
{
	int i, taken = exists(name, ".part");

	for (i = 0; i < DUMP_OUTPUT_SIBLINGS && !taken; i++)
		taken = exists(name, dump_output_siblings[i]);
	return taken;
}

/* how far a rotation looks for a free name before it gives up */
#define NAMES_TRIED	100000

/*
 * The current file started: opened (its name chosen before) if it is not,
 * and its header written.  0, or -1 with error set, and full if the disk
 * had no room: the next write tries again.  A header cut short goes, so
 * that the file never starts with half of one.
 */
static int try_start(struct dump_output *o)
{
	if (o->fd < 0) {
		int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;

		o->direct = o->paged;
		o->fd = open(o->part, flags | (o->paged ? O_DIRECT : 0), 0644);
		if (o->fd < 0 && o->paged && errno == EINVAL) {
			/* (a file system without it, tmpfs before 6.6: through the page cache) */
			o->direct = 0;
			o->fd = open(o->part, flags, 0644);
		}
		if (o->fd < 0) {
			/* the name asked for: the .part beside it is ours to worry about */
			snprintf(o->error, sizeof(o->error), "%s: %s", o->current, strerror(errno));
			o->full = disk_full(errno);
			return -1;
		}
		o->file_bytes = 0;
	}
	if (write_header(o)) {
		/* (cannot start over: not a state to write on from) */
		if (o->fd == STDOUT_FILENO || ftruncate(o->fd, 0) || lseek(o->fd, 0, SEEK_SET))
			o->full = 0;
		o->bytes_total -= o->file_bytes;
		o->file_bytes = 0;
		return -1;
	}
	o->start_pending = 0;
	o->header_bytes = o->file_bytes;
	if (o->capindex && o->part[0]) {
		char part[sizeof(o->current) + 16];

		/* (without one, the file is read whole: nothing is lost) */
		snprintf(part, sizeof(part), "%s%s.part", o->current, CAPINDEX_SUFFIX);
		capindex_begin(o->capindex, part);
	}
	return 0;
}

/*
 * -C with -W on a full disk: the file the current one is to replace goes
 * now rather than once the current one is complete (else a ring on a disk
 * another writer filled would wait forever for room of its own).  1 if it
 * was there and is gone.
 */
static int make_room(struct dump_output *o)
{
	if (!o->rotate_bytes || !o->keep || o->rotate_seconds || !o->part[0])
		return 0;
	capindex_unlink(o->current);
	return unlink(o->current) == 0;
}

/* A file not started (a disk full from its start) goes: no file, not even an empty one. */
static void discard_unstarted(struct dump_output *o)
{
	if (o->capindex)
		capindex_discard(o->capindex);
	if (o->fd >= 0 && o->fd != STDOUT_FILENO) {
		close(o->fd);
		unlink(o->part);
	}
	o->fd = -1;
	o->start_pending = 0;
}

static int start_pending_file(struct dump_output *o)
{
	if (!o->start_pending)
		return 0;
	if (try_start(o) == 0)
		return 0;
	return o->full && make_room(o) ? try_start(o) : -1;
}

static int open_file(struct dump_output *o)
{
	int rotating = o->rotate_bytes || o->rotate_seconds || o->rotated_on_request;
	int ring = o->rotate_bytes && o->keep && !o->rotate_seconds;
	const char *series = o->rotate_seconds ? o->series : o->path;
	unsigned int tried;

	o->fd = -1;
	o->file_bytes = 0;
	if (!strcmp(o->path, "-")) {
		o->fd = STDOUT_FILENO;
		snprintf(o->current, sizeof(o->current), "standard output");
		o->part[0] = '\0';
	} else {
		/*
		 * A rotation takes the next name no file has: a restart's, a
		 * crash's .part, or one a -z command compressed.
		 */
		for (tried = 0;; tried++) {
			dump_output_file_name(o->current, sizeof(o->current), series, o->index,
					      rotating, ring ? o->keep : 0);
			snprintf(o->part, sizeof(o->part), "%s.part", o->current);
			if (!rotating || ring || name_taken(o->current) <= 0)
				break;
			if (tried == NAMES_TRIED) {
				snprintf(o->error, sizeof(o->error), "%s: no free name after %u tries",
					 o->current, NAMES_TRIED);
				return -1;
			}
			o->index++;
		}
	}
	o->start_pending = 1;
	return start_pending_file(o);
}

/*
 * -C with -W: where a ring left by an earlier run goes on, at its first free
 * name or else its oldest file, so that a restart overwrites what the ring
 * would have overwritten next.
 */
static unsigned int ring_start(const struct dump_output *o)
{
	unsigned int i, oldest = 0;
	struct timespec oldest_at = { 0, 0 };

	for (i = 0; i < o->keep; i++) {
		char name[sizeof(o->current)];
		struct stat st;

		dump_output_file_name(name, sizeof(name), o->path, i, 1, o->keep);
		if (stat(name, &st))
			return i;
		if (i == 0 || st.st_mtim.tv_sec < oldest_at.tv_sec ||
		    (st.st_mtim.tv_sec == oldest_at.tv_sec && st.st_mtim.tv_nsec < oldest_at.tv_nsec)) {
			oldest = i;
			oldest_at = st.st_mtim;
		}
	}
	return oldest;
}

int dump_output_open(struct dump_output *o)
{
	o->uring_errno = o->paged && paged_writes_init(&o->writes, o->ring_fd, o->ring_data,
							   o->ring_size) ? errno : 0;
	o->index = 0;
	o->files_done = 0;
	o->bytes_total = 0;
	o->periods_done = 0;
	o->ended = 0;
	o->fd = -1;
	o->error[0] = '\0';
	if (!strcmp(o->path, "-")) {
		o->rotate_bytes = 0;
		o->rotate_seconds = 0;
	}
	if (o->rotate_seconds && start_period(o, wall_ns(o)))
		return -1;
	if (o->rotate_bytes && o->keep && !o->rotate_seconds)
		o->index = ring_start(o);
	if (open_file(o)) {
		/* (a disk full from the start too: no .part left behind) */
		discard_unstarted(o);
		return -1;
	}
	return 0;
}

/*
 * The statistics at the end, on the disk before the name: what goes by the
 * name is complete, whatever happens after.
 */
static int close_file(struct dump_output *o)
{
	int ret;

	o->full = 0;
	if (o->start_pending) {
		discard_unstarted(o);
		return 0;
	}
	ret = write_trailer(o);
	if (ret && o->full) {
		/* a full disk: the file is whole without its statistics */
		ret = 0;
		o->full = 0;
	}
	o->files_done++;
	if (o->fd == STDOUT_FILENO) {
		o->fd = -1;
		return ret;
	}
	if (!ret && fsync(o->fd) && errno != EINVAL) {
		snprintf(o->error, sizeof(o->error), "%s: %s", o->part, strerror(errno));
		ret = -1;
	}
	if (close(o->fd) && !ret) {
		snprintf(o->error, sizeof(o->error), "%s: %s", o->part, strerror(errno));
		ret = -1;
	}
	o->fd = -1;
	/* (a -W ring's earlier file's index goes first: never beside another file) */
	capindex_unlink(o->current);
	if (rename(o->part, o->current)) {
		if (!ret)
			snprintf(o->error, sizeof(o->error), "%s: %s", o->current, strerror(errno));
		/* (the index never goes beside a file that is not its own) */
		if (o->capindex)
			capindex_discard(o->capindex);
		return -1;
	}
	if (o->capindex)
		capindex_end(o->capindex, o->current, o->file_bytes);
	if (o->file_done)
		o->file_done(o->current, o->file_done_arg);
	return ret;
}

static int rotate(struct dump_output *o)
{
	uint64_t now = wall_ns(o);

	if (close_file(o))
		return -1;
	if (o->rotate_seconds && now >= o->period_end_ns) {
		/* -G with -W: that many periods, then the output ends */
		if (o->keep && ++o->periods_done >= o->keep) {
			o->ended = 1;
			return 0;
		}
		if (start_period(o, now))
			return -1;
	} else {
		o->index++;
		/* -C with -W: a ring of files, the oldest overwritten */
		if (o->keep && !o->rotate_seconds && o->index >= o->keep)
			o->index = 0;
	}
	return open_file(o);
}

int dump_output_tick(struct dump_output *o)
{
	if (!o->rotate_seconds || o->ended || (o->fd < 0 && !o->start_pending) ||
	    wall_ns(o) < o->period_end_ns)
		return 0;
	return rotate(o);
}

int dump_output_rotate(struct dump_output *o)
{
	if (writes_in_flight(o))
		return -1;
	/* (a file not started yet is as new as a rotation's would be) */
	if (o->ended || o->start_pending || o->fd < 0 || o->fd == STDOUT_FILENO)
		return 0;
	/* the files that follow a single one's are numbered, none taking a name a file has */
	o->rotated_on_request = 1;
	return rotate(o);
}

/* Paged output: the pages' write asked for, at the file's end, which moves past them now. */
static int write_pages(struct dump_output *o, const uint8_t *pages, size_t len)
{
	if (paged_writes_submit(&o->writes, o->fd, pages, len, o->file_bytes)) {
		snprintf(o->error, sizeof(o->error), "%s: %s", o->current, strerror(errno));
		return -1;
	}
	/* (bytes_total counts them once written: dump_output_reap()) */
	o->file_bytes += len;
	o->kept = len;
	return 0;
}

int dump_output_reap(struct dump_output *o, int wait, uint64_t *written)
{
	struct paged_writes *w = &o->writes;

	*written = paged_writes_reap(w, wait);
	o->bytes_total += *written;
	if (!w->err)
		return 0;
	/* the file ends where the write that failed stopped: what the writes after it put there goes */
	snprintf(o->error, sizeof(o->error), "%s: %s", o->current, strerror(w->err));
	o->full = disk_full(w->err);
	if (ftruncate(o->fd, (off_t)w->failed_at))
		o->full = 0;
	o->file_bytes = w->failed_at;
	w->err = 0;
	return -1;
}

int dump_output_write(struct dump_output *o, const uint8_t *blocks, size_t len)
{
	const uint8_t *start = blocks;
	size_t torn = 0;

	o->kept = 0;
	o->full = 0;
	/* a period's end starts its file (or ends the output: nothing written, 0) */
	if (!o->paged && dump_output_tick(o))
		return -1;
	if (o->ended)
		return 0;
	if (start_pending_file(o))
		return -1;
	if (o->paged)
		return write_pages(o, blocks, len);
	while (len) {
		size_t run = len;

		if (o->rotate_bytes && !o->paged) {
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
				if (o->ended) {
					/* -G with -W: a period ended with this file */
					o->kept = (size_t)(blocks - start);
					return 0;
				}
				continue;
			}
		}
		if (write_all(o, blocks, run, o->paged ? NULL : &torn)) {
			if (o->full && make_room(o)) {
				blocks += torn;
				len -= torn;
				continue;
			}
			o->kept = (size_t)(blocks - start) + torn;
			return -1;
		}
		blocks += run;
		len -= run;
	}
	o->kept = (size_t)(blocks - start);
	return 0;
}

int dump_output_end_page(struct dump_output *o, const uint8_t *bytes, size_t len)
{
	if (writes_in_flight(o))
		return -1;
	if (o->fd < 0 || o->start_pending || len >= MGCAP_PAGE_SIZE) {
		snprintf(o->error, sizeof(o->error), "%s: no file to end", o->path);
		o->full = 0;
		return -1;
	}
	o->full = 0;
	return write_padded(o, bytes, len, NULL, 0, NULL, 0);
}

void dump_output_lead(struct dump_output *o, const uint8_t *bytes, size_t len)
{
	o->lead_len = len < sizeof(o->lead) ? len : 0;
	if (o->lead_len)
		memcpy(o->lead, bytes, len);
}

int dump_output_cut_back(struct dump_output *o, uint64_t whole)
{
	int flags;

	if (writes_in_flight(o))
		return -1;
	if (o->fd < 0 || o->start_pending || whole > o->file_bytes)
		return 0;
	flags = fcntl(o->fd, F_GETFL);
	if (flags < 0 || fcntl(o->fd, F_SETFL, flags & ~O_DIRECT) ||
	    ftruncate(o->fd, (off_t)whole) || lseek(o->fd, (off_t)whole, SEEK_SET) < 0) {
		snprintf(o->error, sizeof(o->error), "%s: %s", o->current, strerror(errno));
		o->full = 0;
		return -1;
	}
	o->bytes_total -= o->file_bytes - whole;
	o->file_bytes = whole;
	o->direct = 0;
	/* (its index has blocks that began in the pages cut off: the file is read whole) */
	if (o->capindex)
		capindex_discard(o->capindex);
	return 0;
}

int dump_output_end_torn(struct dump_output *o, uint64_t whole)
{
	if (dump_output_cut_back(o, whole))
		return -1;
	if (o->fd < 0 || o->start_pending)
		return 0;
	o->rotated_on_request = 1;
	return rotate(o);
}

uint64_t dump_output_room(const struct dump_output *o)
{
	uint64_t used = o->file_bytes + DUMP_OUTPUT_END_PAGES * MGCAP_PAGE_SIZE;

	return used < o->rotate_bytes ? o->rotate_bytes - used : 0;
}

int dump_output_due(const struct dump_output *o, uint64_t pending)
{
	if (o->ended || o->start_pending || o->fd < 0)
		return 0;
	if (o->rotate_seconds && wall_ns(o) >= o->period_end_ns)
		return 1;
	return o->rotate_bytes && o->file_bytes > o->header_bytes &&
	       pending > dump_output_room(o);
}

int dump_output_close(struct dump_output *o)
{
	int ret = 0;

	if (o->paged) {
		uint64_t written;

		/* (the caller's, who ends the file at a whole block where one fails: else, here) */
		while (paged_writes_in_flight(&o->writes) && !ret)
			ret = dump_output_reap(o, 1, &written);
		paged_writes_free(&o->writes);
	}
	if (o->fd < 0 && !o->start_pending)
		return ret;
	return close_file(o) || ret ? -1 : 0;
}
