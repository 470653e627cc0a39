// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer: the client's parser of the family's replies (lib/mgcap_nl_reply.c)
 * fed what a kernel never sends.  The input is a run of messages, each a
 * 2-byte length and then its generic netlink header and attributes; each
 * goes to mgcap_nl_parse_reply() in a netlink header of its own, as one
 * receive of a dump would bring them, the next ones after a refused one too
 * (the client skips it and reads on).  What the list then holds must be
 * what the parser promises, and free without a leak.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>

#include "mgcap_nl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* what the parser promises of a list, whatever it was fed */
static void check_list(const struct mgcap_nl_list *l)
{
	size_t i;
	uint32_t q;

	for (i = 0; i < l->count; i++) {
		const struct mgcap_nl_dev *d = &l->devs[i];

		if (d->num_parsed > d->num_queues || !d->queues)
			abort();
		for (q = 0; q < d->num_parsed; q++)
			if (d->queues[q].num_readers && !d->queues[q].readers)
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mgcap_nl_list l = { 0 };

	while (size >= 2) {
		size_t len = (size_t)data[0] << 8 | data[1];
		struct nlmsghdr *nlh;

		data += 2;
		size -= 2;
		if (len > size)
			len = size;
		/* a buffer of the message's own size: ASan sees any byte read past it */
		nlh = malloc(NLMSG_HDRLEN + len);
		if (!nlh)
			break;
		memset(nlh, 0, NLMSG_HDRLEN);
		nlh->nlmsg_len = (uint32_t)(NLMSG_HDRLEN + len);
		memcpy((uint8_t *)nlh + NLMSG_HDRLEN, data, len);
		/* a refused message, as libnl's NL_SKIP: the dump's next ones still come */
		mgcap_nl_parse_reply(nlh, &l);
		free(nlh);
		data += len;
		size -= len;
	}
	check_list(&l);
	mgcap_nl_free_list(&l);
	return 0;
}
