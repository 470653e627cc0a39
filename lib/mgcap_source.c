// SPDX-License-Identifier: BSD-2-Clause
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mgcap_source.h"

/*
 * Where DEV:mgcap[@QUEUES] has its suffix (the first ':', as the kernel
 * finds DEV), or NULL: another name.
 */
static const char *suffix_of(const char *name)
{
	const char *colon = strchr(name, ':');
	size_t len = strlen(MGCAP_SOURCE_SUFFIX);

	if (!colon || colon == name || strncmp(colon, MGCAP_SOURCE_SUFFIX, len) != 0 ||
	    (colon[len] != '\0' && colon[len] != '@'))
		return NULL;
	return colon;
}

/* mgcap:DEV[...], the name that may list devices */
static int has_prefix(const char *name)
{
	return strncmp(name, MGCAP_SOURCE_PREFIX, strlen(MGCAP_SOURCE_PREFIX)) == 0;
}

int mgcap_source_is_ours(const char *name)
{
	return name && (has_prefix(name) || suffix_of(name));
}

static int parse_queue_number(const char **p, unsigned int *q)
{
	unsigned long v = 0;
	const char *s = *p;

	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (unsigned long)(*s++ - '0');
		if (v >= MGCAP_MAX_QUEUES)
			return -1;
	}
	*p = s;
	*q = (unsigned int)v;
	return 0;
}

int mgcap_source_parse(const char *name, struct mgcap_source *src, char *err, size_t errlen)
{
	const char *dev, *at, *p, *suffix = NULL;
	size_t len;

	memset(src, 0, sizeof(*src));
	if (!mgcap_source_is_ours(name)) {
		snprintf(err, errlen, "not an mgcap source name (mgcap:DEV[@QUEUES])");
		return -1;
	}
	dev = name;
	if (has_prefix(name))
		dev += strlen(MGCAP_SOURCE_PREFIX);
	else
		suffix = suffix_of(name);
	at = strchr(suffix ? suffix : dev, '@');
	len = suffix ? (size_t)(suffix - dev) : at ? (size_t)(at - dev) : strlen(dev);
	if (len == 0 || len >= sizeof(src->ifname) || memchr(dev, '/', len) || memchr(dev, ':', len)) {
		snprintf(err, errlen, "%s: bad device name", name);
		return -1;
	}
	memcpy(src->ifname, dev, len);
	if (!at) {
		src->all_queues = 1;
		return 0;
	}
	/* LIST := RANGE [',' RANGE]...; RANGE := N | N-M */
	p = at + 1;
	for (;;) {
		unsigned int first, last, q;

		if (parse_queue_number(&p, &first))
			goto bad;
		last = first;
		if (*p == '-') {
			p++;
			if (parse_queue_number(&p, &last) || last < first)
				goto bad;
		}
		for (q = first; q <= last; q++)
			src->queues[q / 8] |= (uint8_t)(1U << (q % 8));
		if (*p == '\0')
			return 0;
		if (*p++ != ',')
			goto bad;
	}
bad:
	snprintf(err, errlen, "%s: bad queue list after '@' (like 2, 1-3 or 1-3,5; below %u)",
		 name, MGCAP_MAX_QUEUES);
	return -1;
}

int mgcap_source_parse_devices(const char *name, struct mgcap_source *srcs, size_t *n,
			       char *err, size_t errlen)
{
	const char *dev = name + strlen(MGCAP_SOURCE_PREFIX), *comma;
	size_t i;

	*n = 0;
	/* (DEV:mgcap names one device, with its queues) */
	if (!has_prefix(name) || strchr(dev, '@') || !strchr(dev, ','))
		return mgcap_source_parse(name, &srcs[(*n)++], err, errlen);
	for (;; dev = comma + 1) {
		char one[sizeof(MGCAP_SOURCE_PREFIX) + IF_NAMESIZE];
		size_t len;

		comma = strchr(dev, ',');
		len = comma ? (size_t)(comma - dev) : strlen(dev);
		if (*n == MGCAP_MAX_DEVICES) {
			snprintf(err, errlen, "%s: more than %d devices", name, MGCAP_MAX_DEVICES);
			return -1;
		}
		if (len == 0 || len >= IF_NAMESIZE) {
			snprintf(err, errlen, "%s: bad device name in the list", name);
			return -1;
		}
		snprintf(one, sizeof(one), "%s%.*s", MGCAP_SOURCE_PREFIX, (int)len, dev);
		if (mgcap_source_parse(one, &srcs[*n], err, errlen) < 0)
			return -1;
		for (i = 0; i < *n; i++) {
			if (!strcmp(srcs[i].ifname, srcs[*n].ifname)) {
				snprintf(err, errlen, "%s: %s is listed twice", name, srcs[i].ifname);
				return -1;
			}
		}
		(*n)++;
		if (!comma)
			return 0;
	}
}

int mgcap_source_has_queue(const struct mgcap_source *src, unsigned int queue)
{
	if (src->all_queues)
		return 1;
	return queue < MGCAP_MAX_QUEUES && (src->queues[queue / 8] >> (queue % 8) & 1);
}

static int read_attr(const char *dir, const char *entry, const char *attr, char *buf, size_t len)
{
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, entry, attr);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static int by_device_then_queue(const void *a, const void *b)
{
	const struct mgcap_queue_node *x = a, *y = b;
	int c = strcmp(x->ifname, y->ifname);

	if (c)
		return c;
	return (x->queue > y->queue) - (x->queue < y->queue);
}

int mgcap_list_queues(const char *sysfs_class, uint64_t netns_inum,
		      struct mgcap_queue_node **out)
{
	struct mgcap_queue_node *nodes = NULL, *grown;
	struct dirent *de;
	size_t n = 0, cap = 0;
	DIR *d;

	*out = NULL;
	d = opendir(sysfs_class);
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		struct mgcap_queue_node node;
		char ns[32], queue[16], *c;

		if (de->d_name[0] == '.' || strlen(de->d_name) + sizeof("/dev/") > sizeof(node.devnode))
			continue;
		memset(&node, 0, sizeof(node));
		if (read_attr(sysfs_class, de->d_name, "netns", ns, sizeof(ns)) ||
		    strtoull(ns, NULL, 10) != netns_inum ||
		    read_attr(sysfs_class, de->d_name, "ifname", node.ifname, sizeof(node.ifname)) ||
		    read_attr(sysfs_class, de->d_name, "queue", queue, sizeof(queue)) ||
		    read_attr(sysfs_class, de->d_name, "mode", node.mode, sizeof(node.mode)))
			continue;	/* not a queue node, or removed meanwhile */
		node.queue = (unsigned int)strtoul(queue, NULL, 10);
		memcpy(node.devnode, "/dev/", 5);
		memcpy(node.devnode + 5, de->d_name, strlen(de->d_name) + 1);
		for (c = node.devnode; *c; c++)
			if (*c == '!')
				*c = '/';
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(nodes, cap * sizeof(*nodes));
			if (!grown) {
				free(nodes);
				closedir(d);
				errno = ENOMEM;
				return -1;
			}
			nodes = grown;
		}
		nodes[n++] = node;
	}
	closedir(d);
	if (n)
		qsort(nodes, n, sizeof(*nodes), by_device_then_queue);
	*out = nodes;
	return (int)n;
}

int mgcap_count_queues(const struct mgcap_queue_node *nodes, int n, const char *ifname)
{
	int i, count = 0;

	for (i = 0; i < n; i++)
		count += !strcmp(nodes[i].ifname, ifname);
	return count;
}

uint64_t mgcap_own_netns(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) == 0 ? (uint64_t)st.st_ino : 0;
}
