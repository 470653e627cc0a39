/*
 * Copyright (c) the mgcap developers.  BSD-2-Clause, as libpcap.
 *
 * How the mgcap capture module's read waits: one epoll set of the rings,
 * pcap_breakloop()'s event, the clocks' sample timer (adapter stamps, see
 * pcap-mgcap-tstamp.c) and the hold timer (a merged source), which is also
 * the selectable fd; and what keeps that fd honest for non-blocking callers.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

#include "pcap-mgcap-int.h"

/* Takes a wakeup event or the sample timer's expiry, so that it stops being ready. */
static int take_event(pcap_t *p, int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN) {
		pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno,
					  "mgcap: reading the wakeup event");
		return PCAP_ERROR;
	}
	return 0;
}

/*
 * What epoll found ready: the wakeup event and the timers taken, so that
 * they stop being ready; a hung-up ring left out of the set.
 */
static int take_ready(pcap_t *p, const struct epoll_event *ev, int ready)
{
	struct pcap_mgcap *pm = p->priv;
	int i;

	for (i = 0; i < ready; i++) {
		int fd = ev[i].data.fd;

		if (fd == pm->event_fd || fd == pm->ts.timer_fd || fd == pm->hold_timer_fd) {
			if (take_event(p, fd))
				return PCAP_ERROR;
		} else if (ev[i].events & EPOLLERR) {
			/*
			 * The kernel found a read index past what it wrote,
			 * which this reader never gives back: the ring stays
			 * refused until it is opened again.
			 */
			snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "%s: a ring's read index was "
				 "overwritten by something other than this reader; its frames "
				 "are dropped until it is opened again", p->opt.device);
			return PCAP_ERROR;
		} else if (ev[i].events & EPOLLHUP) {
			/*
			 * A device's capture ended while another's goes on: its
			 * rings stay hung up and would end every wait at once.
			 * What they still hold is read from the mappings.
			 */
			(void)epoll_ctl(p->fd, EPOLL_CTL_DEL, fd, NULL);
		}
	}
	return 0;
}

/*
 * Sleeps until a ring has records, pcap_breakloop() or the sample timer
 * fires, or CLOCK_MONOTONIC passes @deadline.  While the merge holds a
 * record back, its ring stays readable (the record's space is not given
 * back), so the rings cannot wake the wait; and an empty queue's next
 * record, which may let it go, wakes no one before the kernel's wakeup
 * threshold.  The wait then sleeps on the events alone, a millisecond at
 * most, and the caller looks at the queues again: a ring filling meanwhile
 * reaches its fill mark (then nothing waits) long before it is full.
 */
int mgcap_wait(pcap_t *p, uint64_t now, uint64_t deadline, int holding)
{
	struct pcap_mgcap *pm = p->priv;
	struct epoll_event ev[4];
	int ready, i, timeout_ms = -1;

	/* whole milliseconds, rounded up: a wait never ends before its deadline */
	if (deadline != UINT64_MAX)
		timeout_ms = deadline <= now ? 0 :
			     deadline - now >= (uint64_t)INT_MAX * 1000000ULL ? INT_MAX :
			     (int)((deadline - now + 999999) / 1000000);
	if (holding) {
		struct pollfd events[2] = { { pm->event_fd, POLLIN, 0 },
					    { pm->ts.timer_fd, POLLIN, 0 } };
		if (timeout_ms < 0 || timeout_ms > 1)
			timeout_ms = 1;
		/* a timer fd of -1 (no adapter stamps) is left out by poll() */
		if (poll(events, 2, timeout_ms) < 0 && errno != EINTR) {
			pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno, "mgcap: poll");
			return PCAP_ERROR;
		}
		for (i = 0; i < 2; i++)
			if ((events[i].revents & POLLIN) && take_event(p, events[i].fd))
				return PCAP_ERROR;
		return 0;
	}
	ready = epoll_wait(p->fd, ev, 4, timeout_ms);
	if (ready < 0 && errno != EINTR) {
		pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno, "mgcap: epoll_wait");
		return PCAP_ERROR;
	}
	return take_ready(p, ev, ready);
}

/* Where poll calls ring @i readable: at its fill mark while parked, else at any record. */
static void set_poll_mark(struct pcap_mgcap *pm, size_t i, int parked)
{
	const struct mgcap_reader *r = &pm->queues[i].r;
	uint32_t mark = parked ? (uint32_t)(r->info.data_size / MGCAP_MERGE_FILL_MARK) : 1;

	/* (a hung-up ring refuses nothing here; a failure leaves the mark as it was) */
	(void)ioctl(r->fd, MGCAP_IOC_SET_POLL_MARK, &mark);
}

/*
 * A non-blocking read that delivered nothing leaves the selectable fd
 * readable only where the next read will deliver: the wakeup event and the
 * timers taken, hung-up rings left out, and the rings whose next record is
 * held back for the order parked, with the hold timer set for when the
 * record may go.  A parked ring is readable again only at its fill mark,
 * where the read hands out everything (order never costs a frame).  The
 * next read unparks them.
 */
int mgcap_wait_settle_for_poll(pcap_t *p, uint64_t now, uint64_t hold_ns)
{
	struct pcap_mgcap *pm = p->priv;
	struct epoll_event ev[16];
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	size_t i;

	if (take_ready(p, ev, epoll_wait(p->fd, ev, 16, 0)))
		return PCAP_ERROR;
	if (!hold_ns)
		return 0;
	for (i = 0; i < pm->nqueues; i++)
		if (pm->queues[i].next)
			set_poll_mark(pm, i, 1);
	pm->parked = 1;
	its.it_value.tv_sec = (time_t)((now + hold_ns) / 1000000000ULL);
	its.it_value.tv_nsec = (long)((now + hold_ns) % 1000000000ULL);
	if (timerfd_settime(pm->hold_timer_fd, TFD_TIMER_ABSTIME, &its, NULL) < 0) {
		pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno, "mgcap: the hold timer");
		return PCAP_ERROR;
	}
	return 0;
}

/* The rings mgcap_wait_settle_for_poll() parked, readable at any record again. */
void mgcap_wait_unpark(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	size_t i;

	for (i = 0; i < pm->nqueues; i++)
		set_poll_mark(pm, i, 0);
	pm->parked = 0;
}

static int add_to_epoll(pcap_t *p, int fd)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = fd;
	if (epoll_ctl(p->fd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno, "mgcap: epoll_ctl");
		return PCAP_ERROR;
	}
	return 0;
}

int mgcap_wait_open(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	size_t i;

	p->fd = epoll_create1(EPOLL_CLOEXEC);
	pm->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (p->fd < 0 || pm->event_fd < 0) {
		pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno, "mgcap: epoll/eventfd");
		return PCAP_ERROR;
	}
	for (i = 0; i < pm->nqueues; i++)
		if (add_to_epoll(p, pm->queues[i].r.fd))
			return PCAP_ERROR;
	if (add_to_epoll(p, pm->event_fd))
		return PCAP_ERROR;
	/* a non-blocking caller's wakeup for a record held back for the order */
	if (pm->nqueues > 1) {
		pm->hold_timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (pm->hold_timer_fd < 0 || add_to_epoll(p, pm->hold_timer_fd)) {
			pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno,
						  "mgcap: the hold timer");
			return PCAP_ERROR;
		}
	}
	/* adapter stamps: a caller waiting on the fd reads when a sample is due */
	if (pm->ts.timer_fd >= 0 && add_to_epoll(p, pm->ts.timer_fd))
		return PCAP_ERROR;
	return 0;
}

void mgcap_wait_close(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;

	if (pm->event_fd >= 0)
		close(pm->event_fd);
	pm->event_fd = -1;
	if (pm->hold_timer_fd >= 0)
		close(pm->hold_timer_fd);
	pm->hold_timer_fd = -1;
}
