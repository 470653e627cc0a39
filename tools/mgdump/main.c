// SPDX-License-Identifier: BSD-2-Clause
/*
 * mgdump: every packet of an mgcap device to pcapng, losing nothing a
 * buffer can absorb (its parts: mgdump.h).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mgcap_adapter.h"
#include "mgcap_time.h"
#include "mgdump.h"
#include "privileges.h"
#include "service.h"

/* A finished file: its -z command, then (or else at once) its place among the files kept. */
static void on_file_done(const char *path, void *arg)
{
	(void)arg;
	if (postrotate.command)
		postrotate_file_done(path, &postrotate);
	else if (retention.list[0])
		retention_file_done(path, &retention);
}

static void on_hangup(int sig)
{
	(void)sig;
	rotate_requested = 1;
}

/*
 * The first signal stops with a drain of the rings; another, a second or
 * more later, at once.  (One signal may come twice: timeout(1) sends it to
 * its child and to its process group.)
 */
static volatile sig_atomic_t stop_at_once;

static void on_signal(int sig)
{
	static volatile sig_atomic_t signals;
	static struct timespec first;
	struct timespec now;

	(void)sig;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!signals++) {
		first = now;
		mgdump_request_stop(1);
	} else if (now.tv_sec - first.tv_sec > 1 ||
		   (now.tv_sec - first.tv_sec == 1 && now.tv_nsec >= first.tv_nsec)) {
		stop_at_once = 1;
		mgdump_request_stop(0);
	}
}

/* --max-disk and --max-age: the files kept so far, as -Z's user; 0, or -1 (it said why) */
static int open_retention(void)
{
	if (!cfg.max_disk_bytes && !cfg.max_disk_percent && !cfg.max_age_s)
		return 0;
	retention.max_bytes = cfg.max_disk_bytes;
	retention.max_percent = cfg.max_disk_percent;
	retention.max_age_s = cfg.max_age_s;
	if (retention_open(&retention, cfg.path)) {
		fprintf(stderr, "mgdump: %s\n", retention.error);
		return -1;
	}
	postrotate.on_ran = retention_file_done;
	postrotate.on_ran_arg = &retention;
	return 0;
}

/* What is left of --max-disk and --max-age at the end: the last files counted too. */
static void close_retention(void)
{
	if (retention.list[0]) {
		retention_apply(&retention);
		retention_free(&retention);
	}
}

/* --per-queue: the same steps, a thread and a file for each queue (queue_files.c) */
static int per_queue_main(void)
{
	int ret;

	if (mgdump_per_queue_open())
		return 1;
	if (open_retention()) {
		mgdump_per_queue_close();
		return 1;
	}
	ret = mgdump_per_queue_run(on_file_done);
	close_retention();
	return ret;
}

int main(int argc, char **argv)
{
	struct dump_output out;
	struct sigaction sa;
	size_t i, started = 0;
	int ret, stamping_owed = 0;

	if (mgdump_parse_args(argc, argv))
		return 2;
	/* from the start: a stop while the sources open ends the run once they are */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_hangup;
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* POSIX's way to take a function from dlsym() */
	*(void **)&tstamp_report = dlsym(RTLD_DEFAULT, MGCAP_TSTAMP_REPORT_SYMBOL);
	*(void **)&coalesced_count = dlsym(RTLD_DEFAULT, MGCAP_COALESCED_SYMBOL);
	*(void **)&packet_direction = dlsym(RTLD_DEFAULT, MGCAP_DIRECTION_SYMBOL);
	postrotate.command = cfg.postrotate;
	postrotate.abandon = &stop_at_once;
	if (cfg.per_queue)
		return per_queue_main();
	if (mgdump_open_readers())
		return 1;
	/*
	 * As tcpdump: the capture opened, the files are made as -Z's user,
	 * with what is left of the privileges (privileges.c)
	 */
	for (i = 0; i < nreaders; i++)
		stamping_owed |= readers[i].mgcap && readers[i].tstamp_type != PCAP_TSTAMP_HOST;
	if (mgdump_drop_privileges(cfg.user, stamping_owed))
		return 1;
	memset(&out, 0, sizeof(out));
	out.path = cfg.path;
	out.rotate_bytes = cfg.rotate_bytes;
	out.keep = cfg.keep;
	out.ifs = ifs;
	out.nifs = nreaders;
	out.rotate_seconds = cfg.rotate_seconds;
	out.collect_stats = mgdump_file_stats;
	out.file_done = on_file_done;
	if (open_retention())
		return 1;
	if (cfg.index && strcmp(cfg.path, "-")) {
		uint8_t ethernet[MAX_READERS];

		for (i = 0; i < nreaders; i++)
			ethernet[i] = ifs[i].linktype == DLT_EN10MB;
		out.capindex = capindex_writer_new(ethernet, nreaders);
		if (!out.capindex) {
			fprintf(stderr, "mgdump: out of memory\n");
			return 1;
		}
	}
	if (dump_output_open(&out)) {
		fprintf(stderr, "mgdump: %s\n", out.error);
		return 1;
	}
	start_ns = mgcap_now_ns(CLOCK_REALTIME);
	ret = mgdump_start_readers(&started);
	if (!ret)
		ret = mgdump_pin_writer();
	if (!ret) {
		/* (Type=notify: systemd waits for this) */
		mgdump_service_notify("READY=1");
		ret = mgdump_write_loop(&out);
	}
	mgdump_service_notify("STOPPING=1");
	mgdump_stop_readers(started);
	if (dump_output_close(&out) && !ret) {
		fprintf(stderr, "mgdump: %s\n", out.error);
		ret = -1;
	}
	capindex_writer_free(out.capindex);
	mgdump_report_counters(&out);
	/* the last file's command too */
	if (postrotate.command)
		postrotate_finish(&postrotate);
	close_retention();
	/* a signal now would break the loop of a handle being closed */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	for (i = 0; i < nreaders; i++)
		pcap_close(readers[i].pcap);
	mgdump_free_buffer();
	return ret ? 1 : 0;
}
