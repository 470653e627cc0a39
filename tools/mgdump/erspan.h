/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where the mirrored frame starts inside an ERSPAN packet, so it can be
 * written (and filtered) as the frame that was mirrored.
 *
 * Outer frame: Ethernet (any 802.1Q/802.1ad tags), IPv4 (options allowed) or
 * IPv6 (no extension headers), GRE (checksum, key and sequence fields
 * allowed), then by GRE protocol:
 *   0x88BE without a sequence number  type I:   the frame follows GRE
 *   0x88BE with a sequence number     type II:  an 8-byte ERSPAN header, version 1
 *                                     (Cisco's common form, the one Gulp's -d strips)
 *   0x22EB                            type III: a 12-byte header, version 2, plus an
 *                                     8-byte platform subheader when its O bit is set
 */
#ifndef MGCAP_ERSPAN_H
#define MGCAP_ERSPAN_H

#include <stdint.h>

/* Offset of the inner Ethernet frame in @frame, or -1 if it is no ERSPAN packet. */
int erspan_inner_offset(const uint8_t *frame, uint32_t caplen);

#endif /* MGCAP_ERSPAN_H */
