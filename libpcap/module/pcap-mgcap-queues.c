/*
 * Copyright (c) the mgcap developers.  BSD-2-Clause, as libpcap.
 *
 * The mgcap capture module's queues: those the source names opened (their
 * capture started where nobody captures the device), set up for this
 * handle (the kernel's snaplen, stamps and wakeup; emptied of what an
 * earlier reader left) and counted for pcap_stats().
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "pcap-mgcap-int.h"
#include "mgcap_netdev.h"
#include "mgcap_open.h"

/* Queue @i's counters: 0, or -1 with errno. */
static int queue_stats_of(pcap_t *p, size_t i, struct mgcap_queue_stats *st)
{
	struct pcap_mgcap *pm = p->priv;
	int fd = pm->queues[i].r.fd;

	if (ioctl(fd, MGCAP_IOC_STATS, st) == 0)
		return 0;
	/* a module from before pcapng rings, sent or coalesced frames: none counted */
	memset(st, 0, sizeof(*st));
	if (errno == ENOTTY && ioctl(fd, MGCAP_IOC_STATS_V3, st) == 0)
		return 0;
	if (errno == ENOTTY && ioctl(fd, MGCAP_IOC_STATS_V2, st) == 0)
		return 0;
	if (errno == ENOTTY && ioctl(fd, MGCAP_IOC_STATS_V1, st) == 0)
		return 0;
	return -1;
}

/* The same, or -1 with errbuf. */
static int queue_stats(pcap_t *p, size_t i, struct mgcap_queue_stats *st)
{
	if (queue_stats_of(p, i, st) == 0)
		return 0;
	pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno, "mgcap: MGCAP_IOC_STATS");
	return -1;
}

/*
 * Queue @i's counts from now on, its ring emptied of what an earlier reader
 * left: the counts' base and the discard agree once no frame came between
 * them (a frame counted in the base and then discarded would be received
 * and never delivered), which a few tries find even under a stream.
 */
static int start_queue(pcap_t *p, size_t i)
{
	struct pcap_mgcap *pm = p->priv;
	struct mgcap_queue_stats *base = &pm->stats_base[i], after;
	int tries = 0;

	do {
		if (queue_stats(p, i, base))
			return -1;
		mgcap_reader_discard(&pm->queues[i].r);
		if (queue_stats(p, i, &after))
			return -1;
	} while ((after.captured != base->captured || after.dropped != base->dropped) &&
		 ++tries < 8);
	return 0;
}


int pcap_mgcap_stats(pcap_t *p, struct pcap_stat *ps)
{
	struct pcap_mgcap *pm = p->priv;
	uint64_t captured = 0, dropped = 0;
	size_t i;

	for (i = 0; i < pm->nqueues; i++) {
		struct mgcap_queue_stats st;

		if (queue_stats(p, i, &st))
			return PCAP_ERROR;
		captured += st.captured - pm->stats_base[i].captured;
		dropped += st.dropped - pm->stats_base[i].dropped;
	}
	/* as on Linux: received counts what the ring dropped too */
	ps->ps_recv = (u_int)(captured + dropped);
	ps->ps_drop = (u_int)dropped;
	ps->ps_ifdrop = 0;
	for (i = 0; i < pm->ndevs; i++)
		ps->ps_ifdrop += (u_int)(mgcap_netdev_drops(pm->devs[i].src.ifname) - pm->devs[i].ifdrop_base);
	return 0;
}


int mgcap_queues_records(pcap_t *p, struct mgcap_queue_records *n)
{
	struct pcap_mgcap *pm = p->priv;
	size_t i;

	memset(n, 0, sizeof(*n));
	for (i = 0; i < pm->nqueues; i++) {
		struct mgcap_queue_stats st;

		if (queue_stats_of(p, i, &st))
			return -1;
		n->coalesced += st.coalesced - pm->stats_base[i].coalesced;
		n->sent += st.sent - pm->stats_base[i].sent;
	}
	return 0;
}


/* A library call's failure in errbuf, after the source's name: its PCAP_ERROR_*. */
static int lib_error(pcap_t *p, const struct mgcap_error *e)
{
	snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "%s: %s", p->opt.device, e->msg);
	if (e->err == ENODEV)
		return PCAP_ERROR_NO_SUCH_DEVICE;
	return e->err == EPERM || e->err == EACCES ? PCAP_ERROR_PERM_DENIED : PCAP_ERROR;
}


/*
 * Opens @dev's queues the source names, after those opened, starting its
 * capture (a ring of libpcap's buffer size a queue) where nobody captures
 * it; PCAP_ERROR_* with errbuf.
 */
static int open_dev_queues(pcap_t *p, size_t d)
{
	struct pcap_mgcap *pm = p->priv;
	struct mgcap_dev *dev = &pm->devs[d];
	struct mgcap_queue_node *nodes;
	size_t first = pm->nqueues, total;
	struct mgcap_merge_queue *queues;
	struct mgcap_queue_stats *stats_base;
	struct mgcap_error e;
	size_t *queue_dev;
	int count, i, status = 0;

	count = mgcap_device_queues(dev->src.ifname, 1, (uint64_t)p->opt.buffer_size, &nodes,
				    NULL, &e);
	if (count < 0)
		return lib_error(p, &e);
	/* grown one by one: what is open stays where cleanup finds it */
	total = first + (size_t)count;
	queues = realloc(pm->queues, total * sizeof(*queues));
	if (queues)
		pm->queues = queues;
	queue_dev = realloc(pm->queue_dev, total * sizeof(*queue_dev));
	if (queue_dev)
		pm->queue_dev = queue_dev;
	stats_base = realloc(pm->stats_base, total * sizeof(*stats_base));
	if (stats_base)
		pm->stats_base = stats_base;
	if (!queues || !queue_dev || !stats_base) {
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "mgcap: out of memory");
		free(nodes);
		return PCAP_ERROR;
	}
	for (i = 0; i < count && !status; i++) {
		size_t n = pm->nqueues;

		if (!mgcap_source_has_queue(&dev->src, nodes[i].queue))
			continue;
		memset(&pm->queues[n], 0, sizeof(pm->queues[n]));
		if (mgcap_open_queue(&pm->queues[n].r, nodes[i].devnode, &e) < 0) {
			status = lib_error(p, &e);
			break;
		}
		pm->queue_dev[n] = d;
		pm->nqueues = n + 1;	/* so that cleanup closes it */
	}
	free(nodes);
	if (!status && pm->nqueues == first) {
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "%s: %s has no such queue (it has %d)",
			 p->opt.device, dev->src.ifname, count);
		status = PCAP_ERROR_NO_SUCH_DEVICE;
	}
	return status;
}

int mgcap_queues_open(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	size_t d;
	int status;

	for (d = 0; d < pm->ndevs; d++) {
		status = open_dev_queues(p, d);
		if (status)
			return status;
	}
	return 0;
}


/*
 * When the kernel wakes the reader.  Immediate mode: at every record.
 * Otherwise libpcap's buffer timeout, as AF_PACKET's block timeout: once a
 * quarter of the ring is unread, or the read timeout after the first
 * record; not every millisecond, as each wakeup costs the receiving CPU a
 * timer and an interprocessor interrupt.  Without a timeout, within 1 s.
 */
static struct mgcap_wakeup reader_wakeup(const pcap_t *p, const struct mgcap_reader *r)
{
	struct mgcap_wakeup wake = { .bytes = 1, .usecs = 0 };
	uint64_t usecs = (uint64_t)p->opt.timeout * 1000;

	if (p->opt.immediate)
		return wake;
	/* the merge's fill mark: a held record's ring is drained from there too */
	wake.bytes = (uint32_t)(r->info.data_size / MGCAP_MERGE_FILL_MARK);
	wake.usecs = p->opt.timeout > 0 && usecs < MGCAP_WAKEUP_USECS_MAX ?
		     (uint32_t)usecs : MGCAP_WAKEUP_USECS_MAX;
	return wake;
}


int mgcap_queues_start(pcap_t *p, uint32_t tstamp_source)
{
	struct pcap_mgcap *pm = p->priv;
	size_t i;

	p->bufsize = 0;
	for (i = 0; i < pm->nqueues; i++) {
		struct mgcap_reader *r = &pm->queues[i].r;
		uint32_t snaplen = (uint32_t)p->snapshot < r->info.snaplen ?
				   (uint32_t)p->snapshot : r->info.snaplen;
		struct mgcap_wakeup wake = reader_wakeup(p, r);

		if (ioctl(r->fd, MGCAP_IOC_SET_SNAPLEN, &snaplen) < 0 ||
		    ioctl(r->fd, MGCAP_IOC_SET_TSTAMP, &tstamp_source) < 0 ||
		    ioctl(r->fd, MGCAP_IOC_SET_WAKEUP, &wake) < 0) {
			pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno,
						  "%s: cannot set up queue %u", p->opt.device,
						  r->info.queue);
			return PCAP_ERROR;
		}
		/* a capture starts now, not with what an earlier reader left */
		if (start_queue(p, i))
			return PCAP_ERROR;
		p->bufsize += (int)r->info.data_size;
	}
	for (i = 0; i < pm->ndevs; i++)
		pm->devs[i].ifdrop_base = mgcap_netdev_drops(pm->devs[i].src.ifname);
	return 0;
}

void mgcap_queues_close(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	size_t i;

	for (i = 0; pm->queues && i < pm->nqueues; i++)
		mgcap_reader_close(&pm->queues[i].r);
	mgcap_merge_free(&pm->merge);
	free(pm->queues);
	free(pm->queue_dev);
	free(pm->stats_base);
	pm->queues = NULL;
	pm->queue_dev = NULL;
	pm->stats_base = NULL;
	pm->nqueues = 0;
	memset(&pm->merge, 0, sizeof(pm->merge));
}
