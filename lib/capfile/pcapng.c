// SPDX-License-Identifier: BSD-2-Clause
#include <stdio.h>
#include <string.h>

#include "pcapng.h"

#define OPT_ENDOFOPT		MGCAP_PCAPNG_OPT_ENDOFOPT
#define OPT_COMMENT		1
#define OPT_SHB_USERAPPL	4
#define OPT_IF_NAME		2
#define OPT_IF_DESCRIPTION	3
#define OPT_IF_TSRESOL		9
#define OPT_EPB_FLAGS		MGCAP_PCAPNG_OPT_EPB_FLAGS
#define OPT_ISB_STARTTIME	2
#define OPT_ISB_ENDTIME		3
#define OPT_ISB_IFRECV		4
#define OPT_ISB_IFDROP		5
#define OPT_ISB_OSDROP		7
#define OPT_ISB_USRDELIV	8

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static size_t opt_size(size_t len)
{
	return 4 + pad4(len);
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
	return p + 4;
}

static uint8_t *put_opt(uint8_t *p, uint16_t code, const void *val, size_t len)
{
	uint16_t hdr[2] = { code, (uint16_t)len };

	memcpy(p, hdr, 4);
	memcpy(p + 4, val, len);
	memset(p + 4 + len, 0, pad4(len) - len);
	return p + 4 + pad4(len);
}

static uint8_t *put_u64_opt(uint8_t *p, uint16_t code, uint64_t v)
{
	return put_opt(p, code, &v, 8);
}

/* timestamps are split in two 32-bit halves, high first, in block order */
static uint8_t *put_ts(uint8_t *p, uint64_t ts)
{
	p = put32(p, (uint32_t)(ts >> 32));
	return put32(p, (uint32_t)ts);
}

static uint8_t *put_ts_opt(uint8_t *p, uint16_t code, uint64_t ts)
{
	uint32_t v[2] = { (uint32_t)(ts >> 32), (uint32_t)ts };

	return put_opt(p, code, v, 8);
}

/* closes a block: end-of-options, then the trailing length */
static size_t finish(uint8_t *start, uint8_t *p, int with_options)
{
	size_t total;

	if (with_options)
		p = put32(p, OPT_ENDOFOPT);
	total = (size_t)(p - start) + 4;
	put32(start + 4, (uint32_t)total);
	put32(p, (uint32_t)total);
	return total;
}

size_t pcapng_shb(uint8_t *buf, size_t cap, const char *user_appl)
{
	size_t appl = user_appl ? strlen(user_appl) : 0;
	size_t need = 28 + (appl ? opt_size(appl) + 4 : 0);
	uint8_t *p = buf;
	uint64_t section_length = UINT64_MAX;	/* not given */
	uint16_t version[2] = { 1, 0 };

	if (cap < need)
		return 0;
	p = put32(p, PCAPNG_SHB_TYPE);
	p += 4;
	p = put32(p, PCAPNG_BYTE_ORDER_MAGIC);
	memcpy(p, version, 4);
	p += 4;
	memcpy(p, &section_length, 8);
	p += 8;
	if (appl)
		p = put_opt(p, OPT_SHB_USERAPPL, user_appl, appl);
	return finish(buf, p, appl != 0);
}

size_t pcapng_idb(uint8_t *buf, size_t cap, uint16_t linktype, uint32_t snaplen,
		  const char *name, const char *description)
{
	size_t nlen = name ? strlen(name) : 0, dlen = description ? strlen(description) : 0;
	size_t need = 20 + opt_size(1) + 4 + (nlen ? opt_size(nlen) : 0) + (dlen ? opt_size(dlen) : 0);
	uint16_t lt[2] = { linktype, 0 };
	uint8_t tsresol = 9, *p = buf;

	if (cap < need)
		return 0;
	p = put32(p, PCAPNG_IDB_TYPE);
	p += 4;
	memcpy(p, lt, 4);
	p += 4;
	p = put32(p, snaplen);
	if (nlen)
		p = put_opt(p, OPT_IF_NAME, name, nlen);
	if (dlen)
		p = put_opt(p, OPT_IF_DESCRIPTION, description, dlen);
	p = put_opt(p, OPT_IF_TSRESOL, &tsresol, 1);
	return finish(buf, p, 1);
}

size_t pcapng_filler(uint8_t *buf, size_t cap, uint32_t len)
{
	if (cap < len || len < MGCAP_PCAPNG_BLOCK_MIN || len % 4)
		return 0;
	memset(buf, 0, len);
	put32(buf, MGCAP_PCAPNG_FILLER);
	put32(buf + 4, len);
	put32(buf + len - 4, len);
	return len;
}

size_t pcapng_epb(uint8_t *buf, size_t cap, uint32_t ifid, uint64_t ts_ns,
		  const uint8_t *data, uint32_t caplen, uint32_t len, uint32_t flags)
{
	/* once per packet in mgdump: whole words, no per-field calls */
	uint32_t total = (uint32_t)pcapng_epb_size(caplen, flags);
	uint32_t head[7] = { PCAPNG_EPB_TYPE, total, ifid, (uint32_t)(ts_ns >> 32),
			     (uint32_t)ts_ns, caplen, len };

	if (cap < total)
		return 0;
	memcpy(buf, head, sizeof(head));
	/* zero the padding's word, then the data overwrites all but the padding */
	if (caplen & 3)
		memset(buf + sizeof(head) + (caplen & ~3U), 0, 4);
	memcpy(buf + sizeof(head), data, caplen);
	/* (PCAPNG_EPB_FLAGS_BYTES of them, before the trailing length) */
	if (flags)
		put32(put_opt(buf + total - 4 - PCAPNG_EPB_FLAGS_BYTES, OPT_EPB_FLAGS, &flags, 4),
		      OPT_ENDOFOPT);
	memcpy(buf + total - 4, &total, 4);
	return total;
}

uint32_t pcapng_epb_flags(const uint8_t *p)
{
	uint32_t total = pcapng_block_len(p), flags;
	size_t at, end = total - 4;

	/* (the caplen is read only from a block that has its field) */
	if (total < PCAPNG_EPB_DATA + 4 || pcapng_epb_caplen(p) > total - PCAPNG_EPB_DATA - 4)
		return 0;
	for (at = PCAPNG_EPB_DATA + pad4(pcapng_epb_caplen(p)); at + 4 <= end;) {
		uint16_t hdr[2];

		memcpy(hdr, p + at, 4);
		if (hdr[0] == OPT_ENDOFOPT || pad4(hdr[1]) > end - at - 4)
			break;
		if (hdr[0] == OPT_EPB_FLAGS && hdr[1] == 4) {
			memcpy(&flags, p + at + 4, 4);
			return flags;
		}
		at += 4 + pad4(hdr[1]);
	}
	return 0;
}

size_t pcapng_isb(uint8_t *buf, size_t cap, uint32_t ifid, uint64_t ts_ns,
		  const struct pcapng_if_stats *st)
{
	char comment[PCAPNG_ISB_COMMENT_MAX];
	int n = snprintf(comment, sizeof(comment), "buffer drops: %llu%s%.*s",
			 (unsigned long long)st->buffer_dropped, st->note[0] ? "; " : "",
			 PCAPNG_NOTE_MAX - 1, st->note);
	size_t clen = n < 0 ? 0 : (size_t)n < sizeof(comment) ? (size_t)n : sizeof(comment) - 1;
	/* header, 6 counters, the comment, end of options, trailing length */
	size_t need = 20 + 6 * opt_size(8) + opt_size(clen) + 4 + 4;	/* <= PCAPNG_ISB_MAX */
	uint8_t *p = buf;

	if (cap < need)
		return 0;
	p = put32(p, PCAPNG_ISB_TYPE);
	p += 4;
	p = put32(p, ifid);
	p = put_ts(p, ts_ns);
	p = put_ts_opt(p, OPT_ISB_STARTTIME, st->start_ns);
	p = put_ts_opt(p, OPT_ISB_ENDTIME, st->end_ns);
	p = put_u64_opt(p, OPT_ISB_IFRECV, st->received);
	p = put_u64_opt(p, OPT_ISB_IFDROP, st->if_dropped);
	p = put_u64_opt(p, OPT_ISB_OSDROP, st->os_dropped);
	p = put_u64_opt(p, OPT_ISB_USRDELIV, st->delivered);
	p = put_opt(p, OPT_COMMENT, comment, clen);
	return finish(buf, p, 1);
}

size_t pcapng_whole_blocks(const uint8_t *p, size_t len, size_t max, size_t *count)
{
	size_t bytes = 0, n = 0;

	/* a block is 12 bytes at least (type, two lengths): no length 0 loops */
	while ((!max || n < max) && len - bytes >= 12) {
		uint32_t block = pcapng_block_len(p + bytes);

		if (block < 12 || block > len - bytes)
			break;
		bytes += block;
		n++;
	}
	if (count)
		*count = n;
	return bytes;
}

int pcapng_idb_read(const uint8_t *p, size_t len, struct pcapng_idb_info *info)
{
	uint32_t total, snaplen;
	uint16_t linktype;
	size_t at = 16;

	memset(info, 0, sizeof(*info));
	info->units_per_s = 1000000;
	if (len < 20)
		return -1;
	total = pcapng_block_len(p);
	if (pcapng_block_type(p) != PCAPNG_IDB_TYPE || total != len || total % 4)
		return -1;
	memcpy(&linktype, p + 8, 2);
	memcpy(&snaplen, p + 12, 4);
	info->linktype = linktype;
	info->snaplen = snaplen;
	while (at + 4 <= len - 4) {
		uint16_t hdr[2];
		const uint8_t *val = p + at + 4;

		memcpy(hdr, p + at, 4);
		if (hdr[0] == OPT_ENDOFOPT)
			break;
		if (at + 4 + pad4(hdr[1]) > len - 4)
			return -1;
		if (hdr[0] == OPT_IF_NAME)
			snprintf(info->name, sizeof(info->name), "%.*s", (int)hdr[1], (const char *)val);
		else if (hdr[0] == OPT_IF_DESCRIPTION)
			snprintf(info->description, sizeof(info->description), "%.*s", (int)hdr[1],
				 (const char *)val);
		else if (hdr[0] == OPT_IF_TSRESOL && hdr[1] >= 1) {
			unsigned int exp = val[0] & 0x7f;
			uint64_t units = 1;

			/* 2^exp or 10^exp units a second: beyond 2^63 not a clock */
			if (exp > (val[0] & 0x80 ? 63U : 19U))
				return -1;
			while (exp--)
				units *= val[0] & 0x80 ? 2 : 10;
			info->units_per_s = units;
		}
		at += 4 + pad4(hdr[1]);
	}
	return 0;
}
