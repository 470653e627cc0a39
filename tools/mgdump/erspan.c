// SPDX-License-Identifier: BSD-2-Clause
#include "erspan.h"

#define ETH_P_8021Q	0x8100
#define ETH_P_8021AD	0x88A8
#define ETH_P_IPV4	0x0800
#define ETH_P_IPV6	0x86DD
#define IPPROTO_GRE_	47
#define GRE_C		0x8000
#define GRE_R		0x4000
#define GRE_K		0x2000
#define GRE_S		0x1000
#define ERSPAN_I_II	0x88BE
#define ERSPAN_III	0x22EB
#define ETH_HLEN_	14

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

int erspan_inner_offset(const uint8_t *f, uint32_t caplen)
{
	uint32_t off = 12, ihl;
	uint16_t type, flags, proto;

	if (caplen < ETH_HLEN_)
		return -1;
	type = be16(f + off);
	while ((type == ETH_P_8021Q || type == ETH_P_8021AD) && off + 6 <= caplen) {
		off += 4;
		type = be16(f + off);
	}
	off += 2;
	if (type == ETH_P_IPV4) {
		if (off + 20 > caplen || (f[off] >> 4) != 4 || f[off + 9] != IPPROTO_GRE_)
			return -1;
		ihl = (uint32_t)(f[off] & 0x0f) * 4;
		if (ihl < 20 || (be16(f + off + 6) & 0x3fff))	/* fragments: not whole */
			return -1;
		off += ihl;
	} else if (type == ETH_P_IPV6) {
		if (off + 40 > caplen || (f[off] >> 4) != 6 || f[off + 6] != IPPROTO_GRE_)
			return -1;
		off += 40;
	} else {
		return -1;
	}

	if (off + 4 > caplen)
		return -1;
	flags = be16(f + off);
	proto = be16(f + off + 2);
	if ((flags & 0x0007) != 0 || (flags & GRE_R))	/* GRE version 0 only */
		return -1;
	off += 4 + ((flags & (GRE_C | GRE_R)) ? 4 : 0) + ((flags & GRE_K) ? 4 : 0) +
	       ((flags & GRE_S) ? 4 : 0);

	if (proto == ERSPAN_I_II && !(flags & GRE_S)) {
		/* type I: no ERSPAN header */
	} else if (proto == ERSPAN_I_II) {
		if (off + 8 > caplen || (f[off] >> 4) != 1)
			return -1;
		off += 8;
	} else if (proto == ERSPAN_III) {
		if (off + 12 > caplen || (f[off] >> 4) != 2)
			return -1;
		off += 12 + ((f[off + 11] & 0x01) ? 8 : 0);	/* O bit: platform subheader */
	} else {
		return -1;
	}
	return off + ETH_HLEN_ <= caplen ? (int)off : -1;
}
