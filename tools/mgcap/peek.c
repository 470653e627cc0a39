// SPDX-License-Identifier: BSD-2-Clause
/*
 * `mgcap peek`: a look at what a capture holds, for people.  It is a reader
 * like any other: the records it prints are consumed.
 */
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>

#include "mgcap_netdev.h"
#include "mgcap_nl.h"
#include "mgcap_reader.h"
#include "parse.h"
#include "peek.h"

__attribute__((format(printf, 4, 5)))
static size_t put(char *buf, size_t len, size_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (at >= len)
		return at;
	va_start(ap, fmt);
	n = vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
	return n < 0 ? at : at + (size_t)n;
}

static size_t put_ipv4_udp(char *buf, size_t len, size_t at, const uint8_t *ip, uint32_t avail)
{
	uint32_t ihl;

	if (avail < 20)
		return at;
	ihl = (ip[0] & 0x0f) * 4;
	at = put(buf, len, at, " IPv4 %u.%u.%u.%u > %u.%u.%u.%u", ip[12], ip[13], ip[14], ip[15],
		 ip[16], ip[17], ip[18], ip[19]);
	if ((ip[9] == 17 || ip[9] == 6) && avail >= ihl + 4)
		at = put(buf, len, at, " %s %u > %u", ip[9] == 17 ? "UDP" : "TCP",
			 ip[ihl] << 8 | ip[ihl + 1], ip[ihl + 2] << 8 | ip[ihl + 3]);
	else
		at = put(buf, len, at, " proto %u", ip[9]);
	return at;
}

void mgcap_peek_format(char *buf, size_t len, const struct mgcap_rec *rec)
{
	const uint8_t *f = rec->data;
	uint32_t cap = rec->caplen, off = 12;
	uint16_t type;
	size_t at;

	at = put(buf, len, 0, "%" PRIu64 ".%09" PRIu64 " %s q%u len %u cap %u%s%s",
		 (uint64_t)(rec->tstamp_ns / 1000000000ULL), (uint64_t)(rec->tstamp_ns % 1000000000ULL),
		 (rec->flags & MGCAP_REC_F_HWTSTAMP) ? "hw" : "sw", rec->queue, rec->wirelen, cap,
		 (rec->flags & MGCAP_REC_F_COALESCED) ? " coalesced" : "",
		 (rec->flags & MGCAP_REC_F_SENT) ? " sent" : "");
	if (cap < 14)
		return;
	at = put(buf, len, at, "  %02x:%02x:%02x:%02x:%02x:%02x > %02x:%02x:%02x:%02x:%02x:%02x",
		 f[6], f[7], f[8], f[9], f[10], f[11], f[0], f[1], f[2], f[3], f[4], f[5]);
	type = f[off] << 8 | f[off + 1];
	while ((type == 0x8100 || type == 0x88a8) && cap >= off + 6) {
		at = put(buf, len, at, " vlan %u", (f[off + 2] << 8 | f[off + 3]) & 0x0fff);
		off += 4;
		type = f[off] << 8 | f[off + 1];
	}
	off += 2;
	if (type == 0x0800)
		put_ipv4_udp(buf, len, at, f + off, cap > off ? cap - off : 0);
	else
		put(buf, len, at, " ethertype 0x%04x", type);
}

static int peek_queues(struct mgcap_reader *r, size_t n, uint64_t count)
{
	struct pollfd pfd[256];
	uint64_t shown = 0, at;
	char line[256];
	size_t i;
	time_t until = time(NULL) + 5;

	for (i = 0; i < n; i++) {
		pfd[i].fd = r[i].fd;
		pfd[i].events = POLLIN;
	}
	while (shown < count && time(NULL) < until) {
		int any = 0;

		for (i = 0; i < n && shown < count; i++) {
			const struct mgcap_rec *rec;

			while (shown < count && (rec = mgcap_reader_next(&r[i])) != NULL) {
				mgcap_peek_format(line, sizeof(line), rec);
				puts(line);
				shown++;
				any = 1;
			}
			mgcap_reader_release(&r[i]);
			if (mgcap_reader_corrupt(&r[i], &at)) {
				fprintf(stderr, "mgcap: peek: the ring of %s queue %u is corrupt at index %"
					PRIu64 " (a record or index no kernel wrote)\n",
					r[i].info.ifname, r[i].info.queue, at);
				return 1;
			}
		}
		if (!any)
			poll(pfd, n, 200);
	}
	if (!shown)
		printf("(nothing captured within 5 s)\n");
	return 0;
}

int mgcap_cmd_peek(int argc, char **argv)
{
	struct mgcap_reader r[256];
	struct mgcap_nl_list l;
	struct mgcap_nl_error e;
	char dev[IF_NAMESIZE + 8], err[256], *at;
	uint32_t count = 20, q, first = 0, last;
	size_t n = 0, i;
	int ret;

	if (argc != 1 && !(argc == 3 && !strcmp(argv[1], "count") &&
			   !mgcap_parse_u32(argv[2], 1, UINT32_MAX, &count))) {
		fprintf(stderr, "usage: mgcap peek DEV[@QUEUE] [count N]\n");
		return 2;
	}
	snprintf(dev, sizeof(dev), "%s", argv[0]);
	at = strchr(dev, '@');
	if (at) {
		*at++ = '\0';
		if (mgcap_parse_u32(at, 0, 65535, &first)) {
			fprintf(stderr, "mgcap: peek: bad queue '%s'\n", at);
			return 2;
		}
	}
	if (mgcap_check_ifname(dev)) {
		fprintf(stderr, "mgcap: peek: invalid device name '%s'\n", dev);
		return 2;
	}
	if (mgcap_nl_get(dev, &l, &e)) {
		fprintf(stderr, "mgcap: peek %s: %s\n", dev, mgcap_nl_strerror(&e));
		return 1;
	}
	last = at ? first : l.devs[0].num_queues - 1;
	if (first >= l.devs[0].num_queues) {
		fprintf(stderr, "mgcap: peek %s: no queue %u (it has %u)\n", dev, first,
			l.devs[0].num_queues);
		mgcap_nl_free_list(&l);
		return 1;
	}
	for (q = first; q <= last && n < sizeof(r) / sizeof(r[0]); q++, n++) {
		uint32_t both = MGCAP_DIR_RECEIVED | MGCAP_DIR_SENT;

		if (mgcap_reader_open(&r[n], l.devs[0].queues[q].devnode, err, sizeof(err)) < 0) {
			fprintf(stderr, "mgcap: peek: %s\n", err);
			for (i = 0; i < n; i++)
				mgcap_reader_close(&r[i]);
			mgcap_nl_free_list(&l);
			return 1;
		}
		/* both directions, each record says which (a module without sent frames: received) */
		(void)ioctl(r[n].fd, MGCAP_IOC_SET_DIRECTIONS, &both);
	}
	mgcap_nl_free_list(&l);
	ret = peek_queues(r, n, count);
	for (i = 0; i < n; i++)
		mgcap_reader_close(&r[i]);
	return ret;
}
