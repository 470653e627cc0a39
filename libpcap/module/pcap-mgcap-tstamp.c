/*
 * Copyright (c) the mgcap developers.  BSD-2-Clause, as libpcap.
 *
 * The mgcap capture module's time stamps: the NIC's (adapter_unsynced), or
 * the NIC's converted to system time through its clock (adapter), taken at
 * activation and given back at close; what the conversion did, reported.
 * Adapter stamps also gate the rings and sample each clock before a read
 * (see mgcap_adapter.h), with a timer for the samples due without traffic.
 * Host stamps need none of it: the read's calls (mgcap_tstamp_before_read(),
 * mgcap_tstamp_next_sample()) cost them a test.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/timerfd.h>

#include "pcap-mgcap-int.h"
#include "mgcap_time.h"

/*
 * Adapter stamps: the NIC must stamp every received frame (rx_filter ALL),
 * taken for the readers and given back after the last (mgcap_hwtstamp.h).
 * Returns 0, a warning, or an error.
 */
static int setup_adapter_stamps(pcap_t *p, struct mgcap_dev *dev)
{
	struct pcap_mgcap *pm = p->priv;
	struct ethtool_ts_info info;

	if (mgcap_hwts_info(dev->src.ifname, &info) < 0 || !mgcap_hwts_rx_capable(&info))
		return PCAP_WARNING_TSTAMP_TYPE_NOTSUP;
	/* tcpdump exits without pcap_close(): give back at exit() too */
	if (!pm->on_close_list) {
		if (!pcap_do_addexit(p))
			return PCAP_ERROR;
		pcap_add_to_pcaps_to_close(p);
		pm->on_close_list = 1;
	}
	if (mgcap_hwts_take(dev->src.ifname, MGCAP_HWTS_READERS, &dev->hwts) < 0) {
		if (errno == EPERM || errno == EACCES) {
			snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
				 "%s: not permitted to enable hardware time stamping", p->opt.device);
			return PCAP_ERROR_PERM_DENIED;
		}
		return PCAP_WARNING_TSTAMP_TYPE_NOTSUP;
	}
	return dev->hwts.made.rx_filter == HWTSTAMP_FILTER_ALL ? 0 :
	       PCAP_WARNING_TSTAMP_TYPE_NOTSUP;
}

/*
 * Adapter stamps in system time: the NIC's clock, opened now (tcpdump drops
 * its privileges after activation).  Without it, host stamps and a warning
 * that says why.
 */
static int setup_conversion(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	char err[PCAP_ERRBUF_SIZE - 64];
	size_t i;

	for (i = 0; i < pm->ndevs; i++) {
		if (mgcap_adapter_open(&pm->devs[i].conv, pm->devs[i].src.ifname, err,
				       sizeof(err)) < 0) {
			snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "%s: %s; using host time stamps",
				 p->opt.device, err);
			while (i--)
				mgcap_adapter_close(&pm->devs[i].conv);
			return PCAP_WARNING;
		}
	}
	pm->ts.adapter = 1;
	/* the report at close: tcpdump exits without pcap_close() */
	if (!pm->on_close_list && pcap_do_addexit(p)) {
		pcap_add_to_pcaps_to_close(p);
		pm->on_close_list = 1;
	}
	return 0;
}

int mgcap_tstamp_setup(pcap_t *p, uint32_t *source)
{
	struct pcap_mgcap *pm = p->priv;
	int warning = 0;
	size_t i;

	*source = MGCAP_TSTAMP_SW;
	/* the NIC's stamps only where every device stamps: one kind of stamp a handle */
	if (p->opt.tstamp_type == PCAP_TSTAMP_ADAPTER_UNSYNCED ||
	    p->opt.tstamp_type == PCAP_TSTAMP_ADAPTER) {
		for (i = 0; i < pm->ndevs && !warning; i++)
			warning = setup_adapter_stamps(p, &pm->devs[i]);
		if (warning < 0)
			return warning;
		if (warning == 0)
			*source = MGCAP_TSTAMP_HW_OR_SW;
	}
	if (p->opt.tstamp_type == PCAP_TSTAMP_ADAPTER && *source == MGCAP_TSTAMP_HW_OR_SW) {
		warning = setup_conversion(p);
		*source = warning ? MGCAP_TSTAMP_SW : MGCAP_TSTAMP_HW_AND_SW;
	}
	pm->ts.type = *source == MGCAP_TSTAMP_SW ? PCAP_TSTAMP_HOST : p->opt.tstamp_type;
	return warning;
}

uint64_t mgcap_tstamp_merge_key(void *arg, size_t queue, const struct mgcap_rec *rec)
{
	struct pcap_mgcap *pm = arg;

	return mgcap_adapter_stamp(&pm->devs[pm->queue_dev[queue]].conv, rec);
}

uint64_t mgcap_tstamp_sample_due(const struct pcap_mgcap *pm, uint64_t now)
{
	uint64_t due = UINT64_MAX;
	size_t i;

	for (i = 0; i < pm->ndevs; i++) {
		uint64_t d = mgcap_adapter_sample_due(&pm->devs[i].conv, now);

		if (d < due)
			due = d;
	}
	return due;
}

/*
 * The sample timer set to fire by the next sample due (CLOCK_MONOTONIC, as
 * @now).  Only where it would fire too late, or has fired: a sample moves
 * the next one later, and a timer that fires early costs a read that finds
 * nothing due, where re-arming it after every sample cost a system call a
 * read.
 */
static void arm_sample_timer(struct pcap_mgcap *pm, uint64_t now)
{
	uint64_t at = now + mgcap_tstamp_sample_due(pm, now);
	struct itimerspec its = { { 0, 0 }, { (time_t)(at / 1000000000ULL),
					       (long)(at % 1000000000ULL) } };

	if (pm->ts.timer_at > now && pm->ts.timer_at <= at)
		return;
	if (timerfd_settime(pm->ts.timer_fd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
		pm->ts.timer_at = at;
}

/*
 * Lets the rings' new records through their gates, then samples each
 * device's clock where due: every record read afterwards lies between two
 * samples.
 */
static void sample_clocks(struct pcap_mgcap *pm, uint64_t now)
{
	int moved = 0;
	size_t i;

	for (i = 0; i < pm->nqueues; i++)
		moved |= mgcap_reader_open_gate(&pm->queues[i].r);
	for (i = 0; i < pm->ndevs; i++)
		(void)mgcap_adapter_sample(&pm->devs[i].conv, moved, now);
}

void mgcap_tstamp_sample(struct pcap_mgcap *pm, uint64_t now)
{
	sample_clocks(pm, now);
	arm_sample_timer(pm, now);
}

int mgcap_tstamp_start(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	size_t i;

	if (!pm->ts.adapter)
		return 0;
	for (i = 0; i < pm->nqueues; i++)
		mgcap_reader_set_gated(&pm->queues[i].r, 1);
	/*
	 * The first samples now: what arrives before the first read (mgdump's
	 * threads start after activation) then lies between two samples too.
	 */
	sample_clocks(pm, mgcap_now_ns(CLOCK_MONOTONIC));
	pm->ts.timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (pm->ts.timer_fd < 0) {
		pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno,
					  "mgcap: the clock's sample timer");
		return PCAP_ERROR;
	}
	arm_sample_timer(pm, mgcap_now_ns(CLOCK_MONOTONIC));
	return 0;
}

/*
 * What the conversion did, on stderr: always when stamps fell back (a
 * capture file cannot say which), and with MGCAP_ADAPTER_STATS set.
 */
static void adapter_report(const struct mgcap_dev *dev)
{
	char line[512];

	if (!dev->conv.fallbacks && !dev->conv.sample_errors && !getenv("MGCAP_ADAPTER_STATS"))
		return;
	mgcap_adapter_describe(&dev->conv, line, sizeof(line));
	fprintf(stderr, "mgcap: %s: adapter stamps: %s\n", dev->src.ifname, line);
}

void mgcap_tstamp_close(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	size_t i;

	for (i = 0; i < pm->ndevs; i++) {
		struct mgcap_dev *dev = &pm->devs[i];

		if (pm->ts.adapter)
			adapter_report(dev);
		mgcap_adapter_close(&dev->conv);
		if (dev->hwts.taken)
			(void)mgcap_hwts_readers_gone(dev->src.ifname, &dev->hwts);
		dev->hwts.taken = 0;
	}
	pm->ts.adapter = 0;
	if (pm->ts.timer_fd >= 0)
		close(pm->ts.timer_fd);
	pm->ts.timer_fd = -1;
	pm->ts.timer_at = 0;
}
