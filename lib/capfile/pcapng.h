/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Writing pcapng (draft-ietf-opsawg-pcapng) blocks into memory: section
 * header, interface description, enhanced packet and interface statistics
 * blocks, in host byte order as the format allows.  Each function returns
 * the bytes written, or 0 when @cap is too small (nothing is written then).
 * And reading back what the packets' readers need: the interfaces, the
 * packets' fields.
 */
#ifndef MGCAP_PCAPNG_H
#define MGCAP_PCAPNG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
/* the enhanced packet block's layout, which the kernel's pcapng rings write too */
#include <linux/mgcap.h>

#define PCAPNG_SHB_TYPE		0x0A0D0D0AU
#define PCAPNG_IDB_TYPE		0x00000001U
#define PCAPNG_EPB_TYPE		MGCAP_PCAPNG_EPB
#define PCAPNG_ISB_TYPE		0x00000005U
#define PCAPNG_BYTE_ORDER_MAGIC	0x1A2B3C4DU

/* The type of the block at @p, from its header. */
static inline uint32_t pcapng_block_type(const uint8_t *p)
{
	uint32_t type;

	memcpy(&type, p, sizeof(type));
	return type;
}

/* The total length of the block at @p, from its header. */
static inline uint32_t pcapng_block_len(const uint8_t *p)
{
	uint32_t len;

	memcpy(&len, p + 4, sizeof(len));
	return len;
}

/*
 * The bytes of the whole blocks at the start of @len bytes at @p, at most
 * @max blocks of them (0: no limit); *@count (if not NULL) gets how many.
 */
size_t pcapng_whole_blocks(const uint8_t *p, size_t len, size_t max, size_t *count);

/*
 * An enhanced packet block's epb_flags (option 2, 32 bits), bits 0-1: the
 * packet's direction.  A block with flags 0 has no such option (the format's
 * 0 there means "not known" anyway).
 */
#define PCAPNG_EPB_FLAGS_INBOUND	MGCAP_PCAPNG_EPB_INBOUND
#define PCAPNG_EPB_FLAGS_OUTBOUND	MGCAP_PCAPNG_EPB_OUTBOUND
#define PCAPNG_EPB_FLAGS_BYTES		MGCAP_PCAPNG_EPB_FLAGS_BYTES

/*
 * Bytes an enhanced packet block of @caplen captured bytes and epb_flags
 * @flags takes: mgcap_pcapng_epb_len(), computed wide (no caplen wraps it).
 */
static inline size_t pcapng_epb_size(uint32_t caplen, uint32_t flags)
{
	return mgcap_pcapng_epb_len(0, flags) + (((size_t)caplen + 3) & ~(size_t)3);
}

/* The time stamp of the enhanced packet block at @p, as pcapng_epb() wrote it. */
static inline uint64_t pcapng_epb_ts(const uint8_t *p)
{
	uint32_t hi, lo;

	memcpy(&hi, p + 12, sizeof(hi));
	memcpy(&lo, p + 16, sizeof(lo));
	return (uint64_t)hi << 32 | lo;
}

/* The interface of the enhanced packet block at @p. */
static inline uint32_t pcapng_epb_ifid(const uint8_t *p)
{
	uint32_t ifid;

	memcpy(&ifid, p + 8, sizeof(ifid));
	return ifid;
}

/* Captured and original length of the enhanced packet block at @p; its data is at @p + 28. */
static inline uint32_t pcapng_epb_caplen(const uint8_t *p)
{
	uint32_t caplen;

	memcpy(&caplen, p + 20, sizeof(caplen));
	return caplen;
}

static inline uint32_t pcapng_epb_wirelen(const uint8_t *p)
{
	uint32_t len;

	memcpy(&len, p + 24, sizeof(len));
	return len;
}

#define PCAPNG_EPB_DATA		sizeof(struct mgcap_pcapng_epb)

/*
 * The epb_flags of the enhanced packet block at @p (its options looked
 * through, whoever wrote them), 0 without; 0 too where its options are not
 * whole.  @p holds the whole block, pcapng_block_len(p) bytes (12 at least).
 */
uint32_t pcapng_epb_flags(const uint8_t *p);

size_t pcapng_shb(uint8_t *buf, size_t cap, const char *user_appl);

/*
 * A filler block (MGCAP_PCAPNG_FILLER, zeros: pcapng's readers skip it) of
 * @len bytes, a multiple of 4 and MGCAP_PCAPNG_BLOCK_MIN at least: what a
 * file written in whole pages holds where its blocks leave a page's end.
 */
size_t pcapng_filler(uint8_t *buf, size_t cap, uint32_t len);


/* if_name, if_description (NULL: none), if_tsresol = 9 (nanoseconds) */
size_t pcapng_idb(uint8_t *buf, size_t cap, uint16_t linktype, uint32_t snaplen,
		  const char *name, const char *description);

/* What an interface description block says, as read back. */
struct pcapng_idb_info {
	uint16_t linktype;
	uint32_t snaplen;
	char name[64];			/* if_name; "" without */
	char description[128];		/* if_description; "" without */
	uint64_t units_per_s;		/* if_tsresol's: 1000000 without */
};

/*
 * Reads the interface description block of @len bytes at @p (host byte
 * order): 0, or -1 when it is not a whole one.
 */
int pcapng_idb_read(const uint8_t *p, size_t len, struct pcapng_idb_info *info);

/*
 * @ts_ns in the interface's resolution (nanoseconds for pcapng_idb's);
 * @flags the epb_flags option's value, 0: no option
 */
size_t pcapng_epb(uint8_t *buf, size_t cap, uint32_t ifid, uint64_t ts_ns,
		  const uint8_t *data, uint32_t caplen, uint32_t len, uint32_t flags);

#define PCAPNG_NOTE_MAX		256
#define PCAPNG_ISB_COMMENT_MAX	(48 + PCAPNG_NOTE_MAX)

struct pcapng_if_stats {
	uint64_t start_ns, end_ns;	/* isb_starttime, isb_endtime */
	uint64_t received;		/* isb_ifrecv: seen by the capture, dropped ones too */
	uint64_t if_dropped;		/* isb_ifdrop: lost by the NIC (pcap's ps_ifdrop) */
	uint64_t os_dropped;		/* isb_osdrop: lost by the OS, the capture ring being
					 * full (pcap's ps_drop) */
	uint64_t delivered;		/* isb_usrdeliv: written to the file */
	uint64_t buffer_dropped;	/* the writer's own losses: in a comment, as the
					 * format has no field for them */
	char note[PCAPNG_NOTE_MAX];	/* more for that comment ("": none), such as
					 * what the time stamps are */
};

/*
 * The most bytes pcapng_isb() writes: its header, 6 counters, the comment
 * option, the end of options, the trailing length.
 */
#define PCAPNG_ISB_MAX	(20 + 6 * 12 + 4 + PCAPNG_ISB_COMMENT_MAX + 4 + 4)

/* The statistics block of interface @ifid at @ts_ns. */
size_t pcapng_isb(uint8_t *buf, size_t cap, uint32_t ifid, uint64_t ts_ns,
		  const struct pcapng_if_stats *st);

#endif /* MGCAP_PCAPNG_H */
