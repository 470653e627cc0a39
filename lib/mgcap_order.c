// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>

#include "mgcap_order.h"

int mgcap_order_init(struct mgcap_order *o, size_t n, uint64_t hold_ns, uint64_t idle_lag_ns,
		     mgcap_order_look_fn look, void *arg)
{
	size_t i;

	o->n = n;
	o->hold_ns = hold_ns;
	o->idle_lag_ns = idle_lag_ns;
	o->look = look;
	o->arg = arg;
	/* n + 1: never calloc(0), which may return NULL */
	o->src = calloc(n + 1, sizeof(*o->src));
	o->heap = calloc(n + 1, sizeof(*o->heap));
	o->empty = calloc(n + 1, sizeof(*o->empty));
	if (!o->src || !o->heap || !o->empty) {
		mgcap_order_free(o);
		return -1;
	}
	o->heap_n = 0;
	o->top_stale = 0;
	o->rush = 0;
	o->out_of_order = 0;
	o->newest_out = 0;
	o->empty_n = n;
	for (i = 0; i < n; i++) {
		o->empty[i] = i;
		o->src[i].quiet_from = MGCAP_ORDER_PENDING;
		o->src[i].idle_from = 0;
	}
	return 0;
}

void mgcap_order_free(struct mgcap_order *o)
{
	free(o->src);
	free(o->heap);
	free(o->empty);
	o->src = NULL;
	o->heap = NULL;
	o->empty = NULL;
	o->heap_n = o->empty_n = 0;
}

long mgcap_order_next(struct mgcap_order *o, uint64_t now_ns, uint64_t *wait_ns)
{
	return mgcap_order_next_with(o, now_ns, wait_ns, o->look);
}
