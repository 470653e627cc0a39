/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Opening a device's captured queues, as every reader does (the libpcap
 * module, mgdump): find them in sysfs, start a capture for readers where
 * nobody captures the device, and open each node once udev has given it to
 * the capture group.
 */
#ifndef MGCAP_OPEN_H
#define MGCAP_OPEN_H

#include <stdint.h>

#include "mgcap_error.h"
#include "mgcap_reader.h"
#include "mgcap_source.h"

/*
 * @ifname's captured queues in this network namespace: their count, with
 * *@nodes (malloc()ed, by queue; NULL when none).  Where nobody captures
 * @ifname and @start is set, a capture for readers is started first (mirror
 * mode, a ring of @ring_size a queue, 0: the kernel's default; the kernel
 * stops it after its last reader), and *@started (if not NULL) is set.  Without @start,
 * such a device has 0 queues.  -1 with @e: ENODEV (no such device), EPERM
 * (starting it takes CAP_NET_ADMIN), or what listing or starting met.
 */
int mgcap_device_queues(const char *ifname, int start, uint64_t ring_size,
			struct mgcap_queue_node **nodes, int *started, struct mgcap_error *e);

/*
 * Opens and maps the queue @devnode.  A node created a moment ago belongs
 * to root until udev has given it to the capture group (the packages'
 * rule): while udev has not handled it yet, EACCES is waited out (25 s at
 * most).  0, or -1 with @e (errno EACCES/EPERM when not permitted).
 */
int mgcap_open_queue(struct mgcap_reader *r, const char *devnode, struct mgcap_error *e);

#endif /* MGCAP_OPEN_H */
