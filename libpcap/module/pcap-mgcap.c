/*
 * Copyright (c) the mgcap developers.  BSD-2-Clause, as libpcap.
 *
 * mgcap capture module: "mgcap:DEV" reads every receive queue of DEV as one
 * stream in time-stamp order; "mgcap:DEV@N" or "mgcap:DEV@1-3,5" a subset;
 * "mgcap:DEV1,DEV2" every queue of several devices (the two directions of a
 * tap), in the order of their stamps in system time where they are
 * converted (adapter), or as they are.
 * This file is the handle: created, activated (its queues opened and set
 * up, pcap-mgcap-queues.c; its stamps, pcap-mgcap-tstamp.c; its read op,
 * pcap-mgcap-read.c; its wait, pcap-mgcap-wait.c; its filter and
 * direction, pcap-mgcap-filter.c), its ops and its close.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/if_packet.h>

#include "pcap-mgcap-int.h"
#include "pcap-mgcap.h"
#include "mgcap_netdev.h"
#include "mgcap_open.h"

static int pcap_mgcap_inject(pcap_t *p, const void *buf _U_, int size _U_)
{
	snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
		 "mgcap: packet injection is not supported; send on the device itself");
	return PCAP_ERROR;
}

static int pcap_mgcap_getnonblock(pcap_t *p)
{
	return ((struct pcap_mgcap *)p->priv)->nonblock;
}

static int pcap_mgcap_setnonblock(pcap_t *p, int nonblock)
{
	((struct pcap_mgcap *)p->priv)->nonblock = nonblock;
	return 0;
}

static void pcap_mgcap_breakloop(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	uint64_t one = 1;

	pcap_breakloop_common(p);
	if (pm->event_fd >= 0 && write(pm->event_fd, &one, sizeof(one)) < 0) {
		/* the counter cannot overflow in practice; the flag is set anyway */
	}
}

void pcap_mgcap_cleanup(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	struct mgcap_queue_records n;
	size_t i;

	/* what the order was worth: a capture file cannot say it */
	if (pm->merge.order.out_of_order)
		fprintf(stderr, "mgcap: %s: %llu frames delivered out of stamp order\n",
			p->opt.device, (unsigned long long)pm->merge.order.out_of_order);
	/*
	 * Opened non-blocking and closed unread: what Argus does with a source
	 * whose name the kernel does not know (SIOCGIFFLAGS looks "mgcap:eth0"
	 * up as "mgcap"), silently.  Said here, as Argus cannot.
	 */
	if (p->activated && pm->nonblock && !pm->read_once && pm->ndevs == 1 &&
	    strncmp(p->opt.device, MGCAP_SOURCE_PREFIX, strlen(MGCAP_SOURCE_PREFIX)) == 0) {
		const char *queues = strchr(p->opt.device, '@');

		fprintf(stderr, "mgcap: %s: closed before any read; a program that asks the kernel "
			"about its source by name (Argus) finds no device \"mgcap\": name it %s%s%s\n",
			p->opt.device, pm->devs[0].src.ifname, MGCAP_SOURCE_SUFFIX,
			queues ? queues : "");
	}
	/* nor which records held several wire frames behind one stamp */
	if (p->activated && mgcap_queues_records(p, &n) == 0 && n.coalesced)
		fprintf(stderr, "mgcap: %s: %llu records of coalesced frames (GRO or LRO on: "
			"see mgcap show)\n", p->opt.device, (unsigned long long)n.coalesced);
	mgcap_queues_close(p);
	mgcap_wait_close(p);
	mgcap_filter_close(p);
	for (i = 0; i < pm->ndevs; i++) {
		struct mgcap_dev *dev = &pm->devs[i];

		if (dev->promisc_fd >= 0)
			close(dev->promisc_fd);
		dev->promisc_fd = -1;
	}
	/* after the rings closed: the last reader of a device gives its stamping back */
	mgcap_tstamp_close(p);
	if (pm->on_close_list)
		pcap_remove_from_pcaps_to_close(p);
	pm->on_close_list = 0;
	pcap_cleanup_live_common(p);
}

static int set_promisc(pcap_t *p, struct mgcap_dev *dev)
{
	struct packet_mreq mr;

	/* protocol 0: this socket receives nothing, it only holds the membership */
	dev->promisc_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	memset(&mr, 0, sizeof(mr));
	mr.mr_ifindex = (int)if_nametoindex(dev->src.ifname);
	mr.mr_type = PACKET_MR_PROMISC;
	if (dev->promisc_fd < 0 ||
	    setsockopt(dev->promisc_fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0) {
		int err = errno;

		if (err == EPERM || err == EACCES) {
			snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "%s: promiscuous mode takes CAP_NET_RAW; "
				 "without it, capture what the device receives anyway (tcpdump -p)",
				 p->opt.device);
			return PCAP_ERROR_PROMISC_PERM_DENIED;
		}
		pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, err,
					  "%s: cannot set promiscuous mode", p->opt.device);
		return PCAP_ERROR;
	}
	return 0;
}

static uint64_t merge_hold_ns(void)
{
	const char *env = getenv("MGCAP_MERGE_HOLD_MS");
	char *end;
	unsigned long ms;

	if (env && *env) {
		ms = strtoul(env, &end, 10);
		if (!*end && ms <= 60000)
			return (uint64_t)ms * 1000000ULL;
	}
	return MGCAP_MERGE_HOLD_NS;
}

static int activate(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	uint64_t hold = merge_hold_ns();
	uint32_t tstamp_source = MGCAP_TSTAMP_SW;
	int status, warning = 0;
	size_t i;

	if (p->snapshot <= 0 || p->snapshot > MAXIMUM_SNAPLEN)
		p->snapshot = MAXIMUM_SNAPLEN;
	pm->nano = p->opt.tstamp_precision == PCAP_TSTAMP_PRECISION_NANO;

	status = mgcap_queues_open(p);
	if (status)
		return status;

	warning = mgcap_tstamp_setup(p, &tstamp_source);
	if (warning < 0)
		return warning;
	for (i = 0; i < pm->ndevs && p->opt.promisc; i++) {
		status = set_promisc(p, &pm->devs[i]);
		if (status)
			return status;
	}
	/* (before the start, which empties the rings of what came before) */
	mgcap_filter_setup(p);
	if (mgcap_queues_start(p, tstamp_source))
		return PCAP_ERROR;

	if (p->opt.timeout > 0 && (uint64_t)p->opt.timeout * 1000000ULL < hold)
		hold = (uint64_t)p->opt.timeout * 1000000ULL;
	if (mgcap_read_setup(p, hold) || mgcap_tstamp_start(p))
		return PCAP_ERROR;

	status = mgcap_wait_open(p);
	if (status)
		return status;
	p->selectable_fd = p->fd;
	p->linktype = DLT_EN10MB;
	p->inject_op = pcap_mgcap_inject;
	p->setfilter_op = pcap_mgcap_setfilter;
	p->setdirection_op = pcap_mgcap_setdirection;
	p->set_datalink_op = NULL;
	p->getnonblock_op = pcap_mgcap_getnonblock;
	p->setnonblock_op = pcap_mgcap_setnonblock;
	p->stats_op = pcap_mgcap_stats;
	p->breakloop_op = pcap_mgcap_breakloop;
	p->cleanup_op = pcap_mgcap_cleanup;
	return warning;
}

static int pcap_mgcap_activate(pcap_t *p)
{
	int status = activate(p);

	/* pcap_activate() does not clean up after a failed activate op */
	if (status < 0)
		pcap_mgcap_cleanup(p);
	return status;
}

PCAP_API_DEF int pcap_mgcap_tstamp_report(pcap_t *p, char *buf, size_t len)
{
	struct pcap_mgcap *pm = p->priv;
	struct mgcap_queue_records n;
	size_t i;

	if (p->activate_op != pcap_mgcap_activate || !p->activated)
		return -1;
	if (len)
		buf[0] = '\0';
	/* (no room, no report: @buf is not even a string then) */
	for (i = 0; pm->ts.adapter && len && i < pm->ndevs; i++) {
		size_t used = strlen(buf);

		/* each device's own, after its name when there are several */
		if (pm->ndevs > 1)
			snprintf(buf + used, len - used, "%s%s: ", i ? "; " : "",
				 pm->devs[i].src.ifname);
		used = strlen(buf);
		mgcap_adapter_describe(&pm->devs[i].conv, buf + used, len - used);
	}
	/* what the order was worth, for a capture file's statistics */
	if (len && pm->nqueues > 1) {
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, "%s%llu delivered out of stamp order",
			 used ? "; " : "", (unsigned long long)pm->merge.order.out_of_order);
	}
	/* what the records held: coalesced received frames, sent ones */
	if (len && mgcap_queues_records(p, &n) == 0) {
		size_t used = strlen(buf);

		if (n.coalesced)
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%llu records of coalesced frames",
						 used ? "; " : "", (unsigned long long)n.coalesced);
		if (n.sent && used < len)
			snprintf(buf + used, len - used, "%s%llu records of sent frames",
				 used ? "; " : "", (unsigned long long)n.sent);
	}
	return pm->ts.type;
}

PCAP_API_DEF int pcap_mgcap_direction(pcap_t *p)
{
	const struct mgcap_rec *handed;

	if (p->activate_op != pcap_mgcap_activate || !p->activated)
		return -1;
	handed = ((struct pcap_mgcap *)p->priv)->handed;
	return handed && handed->flags & MGCAP_REC_F_SENT ? PCAP_D_OUT : PCAP_D_IN;
}

PCAP_API_DEF int64_t pcap_mgcap_coalesced(pcap_t *p)
{
	struct mgcap_queue_records n;

	if (p->activate_op != pcap_mgcap_activate || !p->activated || mgcap_queues_records(p, &n))
		return -1;
	return (int64_t)n.coalesced;
}

int pcap_mgcap_is_source(const char *device)
{
	return mgcap_source_is_ours(device);
}

pcap_t *pcap_mgcap_create(const char *device, char *ebuf, int *is_ours)
{
	struct mgcap_source srcs[MGCAP_MAX_DEVICES];
	struct pcap_mgcap *pm;
	size_t i, with_clocks = 0, stamping = 0;
	struct ethtool_ts_info info;
	pcap_t *p;

	*is_ours = mgcap_source_is_ours(device);
	if (!*is_ours)
		return NULL;
	p = PCAP_CREATE_COMMON(ebuf, struct pcap_mgcap);
	if (!p)
		return NULL;
	pm = p->priv;
	pm->event_fd = -1;
	pm->ts.timer_fd = -1;
	pm->hold_timer_fd = -1;
	if (mgcap_source_parse_devices(device, srcs, &pm->ndevs, ebuf, PCAP_ERRBUF_SIZE) < 0) {
		pm->ndevs = 0;
		goto fail;
	}
	for (i = 0; i < pm->ndevs; i++) {
		pm->devs[i].src = srcs[i];
		pm->devs[i].promisc_fd = -1;
		pm->devs[i].conv.phc.fd = -1;
		if (mgcap_hwts_info(srcs[i].ifname, &info) == 0) {
			with_clocks += info.phc_index >= 0;
			stamping += mgcap_hwts_rx_capable(&info);
		}
	}

	p->tstamp_type_list = malloc(3 * sizeof(u_int));
	p->tstamp_precision_list = malloc(2 * sizeof(u_int));
	if (!p->tstamp_type_list || !p->tstamp_precision_list) {
		pcap_fmt_errmsg_for_errno(ebuf, PCAP_ERRBUF_SIZE, errno, "malloc");
		goto fail;
	}
	/*
	 * Adapter stamps only where every NIC stamps every received frame, as
	 * pcap-linux lists them (an 82576 stamps PTP frames only); ADAPTER
	 * converts through the NICs' clocks: only where every one has one.
	 */
	p->tstamp_type_list[0] = PCAP_TSTAMP_HOST;
	p->tstamp_type_count = 1;
	if (stamping == pm->ndevs) {
		if (with_clocks == pm->ndevs)
			p->tstamp_type_list[p->tstamp_type_count++] = PCAP_TSTAMP_ADAPTER;
		p->tstamp_type_list[p->tstamp_type_count++] = PCAP_TSTAMP_ADAPTER_UNSYNCED;
	}
	p->tstamp_precision_list[0] = PCAP_TSTAMP_PRECISION_MICRO;
	p->tstamp_precision_list[1] = PCAP_TSTAMP_PRECISION_NANO;
	p->tstamp_precision_count = 2;
	p->activate_op = pcap_mgcap_activate;
	return p;

fail:
	pcap_close(p);
	return NULL;
}

/* Up, running, connected: as pcap-linux says of the device itself. */
static bpf_u_int32 device_flags(const char *ifname)
{
	int iff = mgcap_netdev_flags(ifname);
	bpf_u_int32 flags = 0;

	if (iff < 0)
		return 0;
	if (iff & IFF_UP)
		flags |= PCAP_IF_UP;
	if (iff & IFF_RUNNING)
		flags |= PCAP_IF_RUNNING | PCAP_IF_CONNECTION_STATUS_CONNECTED;
	else
		flags |= PCAP_IF_CONNECTION_STATUS_DISCONNECTED;
	return flags;
}

/*
 * mgcap:DEV for every Ethernet device of this namespace: those captured now
 * say so; opening any other starts its capture (start_for_reader()).
 */
int pcap_mgcap_findalldevs(pcap_if_list_t *devlistp, char *errbuf)
{
	struct mgcap_queue_node *nodes = NULL;
	struct if_nameindex *ifs, *it;
	int count, i, queues, status = 0;

	count = mgcap_list_queues(MGCAP_SYSFS_CLASS, mgcap_own_netns(), &nodes);
	if (count < 0 && errno != ENOENT) {
		pcap_fmt_errmsg_for_errno(errbuf, PCAP_ERRBUF_SIZE, errno,
					  "mgcap: listing the mgcap queues in " MGCAP_SYSFS_CLASS);
		return PCAP_ERROR;
	}
	ifs = if_nameindex();
	if (!ifs) {
		pcap_fmt_errmsg_for_errno(errbuf, PCAP_ERRBUF_SIZE, errno, "mgcap: if_nameindex");
		free(nodes);
		return PCAP_ERROR;
	}
	for (it = ifs; it->if_index && !status; it++) {
		char name[IF_NAMESIZE + 8], desc[128];
		const char *mode = NULL;

		if (!mgcap_netdev_is_ethernet(it->if_name))
			continue;
		for (i = 0, queues = 0; i < count; i++) {
			if (!strcmp(nodes[i].ifname, it->if_name)) {
				queues++;
				mode = nodes[i].mode;
			}
		}
		if (queues)
			snprintf(desc, sizeof(desc), "mgcap: %s captured now, %d receive queue%s, %s mode",
				 it->if_name, queues, queues == 1 ? "" : "s", mode);
		else
			snprintf(desc, sizeof(desc),
				 "mgcap: %s not captured yet; opening it starts a capture", it->if_name);
		snprintf(name, sizeof(name), MGCAP_SOURCE_PREFIX "%s", it->if_name);
		if (add_dev(devlistp, name, device_flags(it->if_name), desc, errbuf) == NULL)
			status = PCAP_ERROR;
	}
	if_freenameindex(ifs);
	free(nodes);
	return status;
}
