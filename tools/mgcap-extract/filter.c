// SPDX-License-Identifier: BSD-2-Clause
/* The filter, compiled once for each link type the files have. */
#include "extract.h"

const struct bpf_program *extract_filter_for(struct extract *x, int linktype)
{
	const char *text = x->filter_text ? x->filter_text : "";
	const char *name = pcap_datalink_val_to_name(linktype);
	pcap_t *dead;
	size_t i, n = x->ncompiled;

	for (i = 0; i < n; i++)
		if (x->compiled[i].linktype == linktype)
			return &x->compiled[i].prog;
	if (n == sizeof(x->compiled) / sizeof(x->compiled[0])) {
		fprintf(stderr, "mgcap-extract: files of more than %zu link types\n", n);
		exit(1);
	}
	dead = pcap_open_dead(linktype, SNAPLEN_MAX);
	if (!dead || pcap_compile(dead, &x->compiled[n].prog, text, 1, PCAP_NETMASK_UNKNOWN)) {
		fprintf(stderr, "mgcap-extract: bad filter '%s' for link type %s: %s\n", text,
			name ? name : "?", dead ? pcap_geterr(dead) : "out of memory");
		exit(2);
	}
	pcap_close(dead);
	x->compiled[n].linktype = linktype;
	x->ncompiled++;
	return &x->compiled[n].prog;
}
