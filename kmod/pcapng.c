// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap pcapng: a pcapng ring's blocks (see <linux/mgcap.h>), as the files
 * of a reader that writes them with no copy of its own hold them, and the
 * stamp line that puts a NIC's stamps in system time for them.
 */
#include <linux/math64.h>
#include <linux/string.h>

#include "mgcap.h"

/* A filler block of @len bytes (at least MGCAP_PCAPNG_BLOCK_MIN, a multiple of 4) at @at. */
void mgcap_pcapng_filler(u8 *at, u32 len)
{
	u32 hdr[2] = { MGCAP_PCAPNG_FILLER, len };

	memcpy(at, hdr, sizeof(hdr));
	memset(at + sizeof(hdr), 0, len - sizeof(hdr) - sizeof(len));
	memcpy(at + len - sizeof(len), &len, sizeof(len));
}

/*
 * A block's header, of @caplen bytes of a frame of @wirelen and its
 * direction, and the end of the block after the frame: the padding to 4
 * bytes, the options and the trailing length.  The frame's bytes, between
 * them, are the caller's.
 */
void mgcap_pcapng_epb_write(struct mgcap_pcapng_epb *epb, u32 len, u32 interface_id,
			    u64 tstamp_ns, u32 caplen, u32 wirelen, bool sent)
{
	/* each option's code and length 16 bits, in the host's order as the block's fields */
	struct {
		u16 code, len;
		u32 flags;
		u16 end_code, end_len;
		u32 total_len;
	} tail = { MGCAP_PCAPNG_OPT_EPB_FLAGS, sizeof(u32),
		   sent ? MGCAP_PCAPNG_EPB_OUTBOUND : MGCAP_PCAPNG_EPB_INBOUND,
		   MGCAP_PCAPNG_OPT_ENDOFOPT, 0, len };
	u8 *end = (u8 *)epb + len;

	BUILD_BUG_ON(sizeof(tail) != MGCAP_PCAPNG_EPB_FLAGS_BYTES + sizeof(u32));
	/* the padding's word first, so that the frame overwrites all of it but the padding */
	if (caplen & 3)
		memset(epb->data + (caplen & ~3U), 0, 4);
	epb->type = MGCAP_PCAPNG_EPB;
	epb->total_len = len;
	epb->interface_id = interface_id;
	epb->ts_high = upper_32_bits(tstamp_ns);
	epb->ts_low = lower_32_bits(tstamp_ns);
	epb->caplen = caplen;
	epb->wirelen = wirelen;
	memcpy(end - sizeof(tail), &tail, sizeof(tail));
}

/* Whether user space's @line is one the producer may convert on. */
bool mgcap_pcapng_line_valid(const struct mgcap_tstamp_line *line)
{
	u64 one = 1ULL << 32, off = one / 1000;

	if (!line->span_ns)	/* none: removes it */
		return !line->phc_lo && !line->sys_lo && !line->rate;
	return line->span_ns <= MGCAP_TSTAMP_LINE_SPAN_MAX && line->phc_lo >= 0 &&
	       line->sys_lo >= 0 && line->rate >= one - off && line->rate <= one + off;
}

/* @phc in system time on @line: true with *@sys, or false where the line does not cover it. */
bool mgcap_pcapng_line_convert(const struct mgcap_tstamp_line *line, s64 phc, u64 *sys)
{
	u64 off = (u64)phc - (u64)line->phc_lo;

	if (phc < line->phc_lo || off > line->span_ns)
		return false;
	*sys = (u64)line->sys_lo + mul_u64_u64_shr(off, line->rate, 32);
	return true;
}
