// SPDX-License-Identifier: BSD-2-Clause
/*
 * What mgdump reads: every queue of each captured mgcap device (mgcap:DEV@N
 * each), or each device's merged stream (--merged: mgcap:DEV), or one other
 * libpcap device; each opened as a libpcap handle with its reader and its
 * pcapng interface.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "mgcap_open.h"
#include "mgcap_time.h"
#include "mgdump.h"
#include "pcapng.h"

struct reader readers[MAX_READERS];
struct dump_interface ifs[MAX_READERS];
size_t nreaders;
int (*tstamp_report)(pcap_t *p, char *buf, size_t len);
int64_t (*coalesced_count)(pcap_t *p);
int (*packet_direction)(pcap_t *p);

#define SOURCE_MAX	(IF_NAMESIZE + 16)

/* Adds @source as a reader and interface @name; 0, or -1 when there are too many. */
static int add_source(char sources[][SOURCE_MAX], const char *source, const char *name,
		      const char *description)
{
	if (nreaders == MAX_READERS) {
		fprintf(stderr, "mgdump: more than %d queues to read\n", MAX_READERS);
		return -1;
	}
	snprintf(sources[nreaders], SOURCE_MAX, "%s", source);
	snprintf(ifs[nreaders].name, sizeof(ifs[0].name), "%s", name);
	snprintf(ifs[nreaders].description, sizeof(ifs[0].description), "%s", description);
	nreaders++;
	return 0;
}

/*
 * @dev's sources: its queues, or its merged stream, where mgcap captures it
 * (with -i mgcap:DEV, after starting its capture where nobody does), else
 * @dev itself for libpcap (only as the one -i).  0, or -1 (it said why).
 */
static int plan_device(char sources[][SOURCE_MAX], size_t d)
{
	const char *dev = cfg.devs[d];
	char source[SOURCE_MAX], name[32], desc[96];
	struct mgcap_queue_node *nodes;
	struct mgcap_error e;
	int n, i, started, ret = 0;

	n = mgcap_device_queues(dev, cfg.mgcap_only[d], 0, &nodes, &started, &e);
	if (n < 0) {
		fprintf(stderr, "mgdump: %s%s: %s\n", cfg.mgcap_only[d] ? MGCAP_SOURCE_PREFIX : "",
			dev, e.msg);
		return -1;
	}
	if (!n && cfg.ndevs > 1) {
		fprintf(stderr, "mgdump: %s is not captured by mgcap (several -i read "
			"mgcap devices only)\n", dev);
		return -1;
	}
	if (!n)		/* any libpcap device: the one -i */
		return add_source(sources, dev, dev, "");
	if (cfg.merged) {
		snprintf(source, sizeof(source), MGCAP_SOURCE_PREFIX "%.15s", dev);
		snprintf(desc, sizeof(desc), "mgcap:%.15s, every receive queue in stamp order", dev);
		ret = add_source(sources, source, dev, desc);
	}
	for (i = 0; i < n && !cfg.merged && !ret; i++) {
		snprintf(source, sizeof(source), MGCAP_SOURCE_PREFIX "%.15s@%u", dev, nodes[i].queue);
		snprintf(name, sizeof(name), "%.15s@%u", dev, nodes[i].queue);
		snprintf(desc, sizeof(desc), "mgcap:%.15s@%u, receive queue %u", dev,
			 nodes[i].queue, nodes[i].queue);
		ret = add_source(sources, source, name, desc);
	}
	free(nodes);
	return ret;
}

/* --tstamp, or for an mgcap source adapter where it has a clock, else adapter_unsynced */
static int wanted_tstamp(pcap_t *p, const char *name)
{
	int *types, n, i, type = PCAP_TSTAMP_ADAPTER_UNSYNCED;

	if (cfg.tstamp >= 0 || !mgcap_source_is_ours(name))
		return cfg.tstamp >= 0 ? cfg.tstamp : PCAP_TSTAMP_HOST;
	n = pcap_list_tstamp_types(p, &types);
	for (i = 0; i < n; i++)
		if (types[i] == PCAP_TSTAMP_ADAPTER)
			type = PCAP_TSTAMP_ADAPTER;
	if (n > 0)
		pcap_free_tstamp_types(types);
	return type;
}

static pcap_t *open_source(struct reader *r, const char *name, char *err)
{
	pcap_t *p = pcap_create(name, err);
	int status, type;

	if (!p)
		return NULL;
	pcap_set_snaplen(p, (int)cfg.snaplen);
	pcap_set_timeout(p, 100);
	pcap_set_promisc(p, !cfg.no_promisc);
	pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
	type = wanted_tstamp(p, name);
	r->tstamp_type = PCAP_TSTAMP_HOST;
	if (type != PCAP_TSTAMP_HOST) {
		status = pcap_set_tstamp_type(p, type);
		if (status == 0)
			r->tstamp_type = type;
		else
			fprintf(stderr, "mgdump: %s: time stamps %s: %s\n", name,
				pcap_tstamp_type_val_to_name(type), pcap_statustostr(status));
	}
	status = pcap_activate(p);
	if (status < 0) {
		const char *why = pcap_geterr(p);

		/* libpcap's own message may or may not name the device */
		if (!why[0])
			why = pcap_statustostr(status);
		if (strstr(why, name))
			snprintf(err, PCAP_ERRBUF_SIZE, "%s", why);
		else
			snprintf(err, PCAP_ERRBUF_SIZE, "%s: %s", name, why);
		pcap_close(p);
		return NULL;
	}
	if (status > 0)
		fprintf(stderr, "mgdump: %s: %s\n", name,
			status == PCAP_WARNING ? pcap_geterr(p) : pcap_statustostr(status));
	/* most of libpcap's other sources refuse nanoseconds: theirs are scaled */
	r->ns_per_frac = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO ? 1 : 1000;
	/* after a warning, the mgcap libpcap says what the stamps really are */
	if (tstamp_report) {
		char report[PCAPNG_NOTE_MAX];

		type = tstamp_report(p, report, sizeof(report));
		if (type >= 0)
			r->tstamp_type = type;
	}
	return p;
}

/* The interface's description says what its stamps are: pcapng has no field for it. */
static void tstamp_description(struct dump_interface *ifc, int type)
{
	size_t n = strlen(ifc->description);

	snprintf(ifc->description + n, sizeof(ifc->description) - n, "%stime stamps: %s",
		 n ? "; " : "", pcap_tstamp_type_val_to_name(type));
}

static int host_stamps(int type)
{
	return type == PCAP_TSTAMP_HOST || type == PCAP_TSTAMP_HOST_LOWPREC ||
	       type == PCAP_TSTAMP_HOST_HIPREC;
}

static int set_filter(pcap_t *p)
{
	struct bpf_program prog;

	if (pcap_compile(p, &prog, cfg.filter, 1, PCAP_NETMASK_UNKNOWN) ||
	    pcap_setfilter(p, &prog)) {
		fprintf(stderr, "mgdump: bad filter '%s': %s\n", cfg.filter, pcap_geterr(p));
		return -1;
	}
	pcap_freecode(&prog);
	return 0;
}

/* the readers' buffers, one mapping shared out */
static uint8_t *buffer;

int mgdump_open_readers(void)
{
	char sources[MAX_READERS][SOURCE_MAX], err[PCAP_ERRBUF_SIZE];
	uint64_t share;
	size_t i;

	/*
	 * The buffer first: faulting it in takes a while (about a second for
	 * 256 MiB under emulation), and meanwhile a ring opened before would
	 * fill unread, and a capture started for mgdump would end for want of
	 * a reader (the kernel's grace for its first reader).
	 */
	buffer = blockring_alloc(cfg.buffer_bytes);
	if (!buffer) {
		fprintf(stderr, "mgdump: cannot allocate %" PRIu64 " MiB of buffer\n",
			cfg.buffer_bytes >> 20);
		return -1;
	}
	for (i = 0; i < cfg.ndevs; i++)
		if (plan_device(sources, i))
			return -1;
	/* whole cache lines each, against the largest block: snaplen's, with its direction */
	share = cfg.buffer_bytes / nreaders & ~(uint64_t)63;
	if (share < pcapng_epb_size(cfg.snaplen, PCAPNG_EPB_FLAGS_OUTBOUND))
		fprintf(stderr, "mgdump: -B %" PRIu64 " leaves each of %zu readers %" PRIu64
			" KiB, too little for a packet of %u bytes: longer packets are dropped\n",
			cfg.buffer_bytes >> 20, nreaders, share >> 10, cfg.snaplen);
	for (i = 0; i < nreaders; i++)
		blockring_attach(&readers[i].ring, buffer + i * share, share);
	for (i = 0; i < nreaders; i++) {
		struct reader *r = &readers[i];

		r->pcap = open_source(r, sources[i], err);
		if (!r->pcap) {
			fprintf(stderr, "mgdump: %s\n", err);
			return -1;
		}
		r->mgcap = !strncmp(sources[i], MGCAP_SOURCE_PREFIX, strlen(MGCAP_SOURCE_PREFIX));
		/* (asked once: -1 for a handle that is not the mgcap libpcap's) */
		r->directions = packet_direction && packet_direction(r->pcap) >= 0;
		pthread_mutex_init(&r->counts_lock, NULL);
		/* not for a -z command: AF_PACKET's socket is not close-on-exec */
		if (pcap_get_selectable_fd(r->pcap) >= 0)
			(void)fcntl(pcap_get_selectable_fd(r->pcap), F_SETFD, FD_CLOEXEC);
		if (cfg.filter && set_filter(r->pcap))
			return -1;
		/*
		 * libpcap puts a filter on an AF_PACKET socket by rejecting
		 * everything first, then putting on the filter: what comes in
		 * between is lost unseen, after what came before the filter.
		 * So that a recording has no such hole near its start, it
		 * starts after the filter, where the stamps say (where they
		 * are host time; the mgcap libpcap's sources filter without a
		 * gap).
		 */
		if (cfg.filter && !r->mgcap && host_stamps(r->tstamp_type))
			r->from_ns = mgcap_now_ns(CLOCK_REALTIME);
		tstamp_description(&ifs[i], r->tstamp_type);
		ifs[i].linktype = (uint16_t)pcap_datalink(r->pcap);
		ifs[i].snaplen = (uint32_t)pcap_snapshot(r->pcap);
		r->ifid = (uint32_t)i;
		r->cpu = cfg.ncpus ? cfg.cpus[i % (size_t)cfg.ncpus] : -1;
	}
	return 0;
}

void mgdump_free_buffer(void)
{
	if (buffer)
		blockring_unmap(buffer, cfg.buffer_bytes);
	buffer = NULL;
}
