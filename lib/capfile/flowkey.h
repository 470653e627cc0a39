/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A frame's flow, as an index keeps it: the header fields of an Ethernet
 * frame that are the same for every packet of a flow (the type, the IP
 * version and header length, the fragment field, the protocol, the
 * addresses and the ports), and from them a frame that stands for the
 * flow.  A filter that reads only those fields (libpcap's "host", "net",
 * "port", "udp", "ip6"... do) gives every packet of the flow the answer it
 * gives that frame; one that reads anything else cannot be answered from
 * the key (flowkey_filter()).
 */
#ifndef MGDUMP_FLOWKEY_H
#define MGDUMP_FLOWKEY_H

#include <stddef.h>
#include <stdint.h>

struct bpf_insn;

/* Fixed size, no padding: hashed, compared and stored as bytes. */
struct flowkey {
	uint16_t ethertype;	/* the frame's type field, host order (0x8100: a tagged frame) */
	uint8_t vihl;		/* IPv4: version and header length, as on the wire; else 0 */
	uint8_t proto;		/* IPv4 protocol, IPv6 next header; 0 for others */
	uint16_t frag;		/* IPv4 flags and fragment offset, host order; else 0 */
	/*
	 * FLOWKEY_IP: the IP header is in the captured bytes; FLOWKEY_TYPE:
	 * the type is, not that; FLOWKEY_SHORT: not even the type is (a frame
	 * of under 14 bytes: nothing of it is the key's)
	 */
	uint8_t l3_known;
	/*
	 * The bytes after it that are the flow's: 4 for TCP, UDP, SCTP and
	 * DCCP (the ports), 2 for ICMP (type and code), none for the others
	 * and for a fragment after the first (its bytes there are data)
	 */
	uint8_t l4_len;
	uint8_t l4[4];		/* those bytes, as on the wire */
	uint8_t src[16], dst[16]; /* IP addresses as on the wire (IPv4: the first 4) */
};

enum { FLOWKEY_TYPE = 0, FLOWKEY_IP = 1, FLOWKEY_SHORT = 2 };

/*
 * The bytes after the IP header that are the flow's, for protocol @proto
 * (struct flowkey's l4_len)
 */
static inline uint8_t flowkey_l4_len(uint8_t proto)
{
	switch (proto) {
	case 6:		/* TCP */
	case 17:	/* UDP */
	case 33:	/* DCCP */
	case 132:	/* SCTP */
		return 4;
	case 1:		/* ICMP */
	case 58:	/* ICMPv6 */
		return 2;
	default:
		return 0;
	}
}

/* The first bytes of a stand-in frame, at most (Ethernet, IPv4 with options, 4 more) */
#define FLOWKEY_FRAME_MAX	(14 + 60 + 4)

/* The flow of an Ethernet frame of @caplen captured bytes (all 0 below 14 bytes). */
void flowkey_of(const uint8_t *frame, uint32_t caplen, struct flowkey *k);

/* Whether @k is one flowkey_of() can make (an index's, read back, may not be). */
int flowkey_valid(const struct flowkey *k);

/*
 * A frame of the flow: its bytes (FLOWKEY_FRAME_MAX at most) into @frame,
 * and into @known a 1 for each byte the key fixes, 0 for the others; its
 * length (0, nothing known, for a key that is not valid).
 */
size_t flowkey_frame(const struct flowkey *k, uint8_t *frame, uint8_t *known);

/*
 * What the classic BPF program @prog (@len instructions, checked by
 * libpcap's compiler or bpf_validate()) answers for every packet of flow
 * @k: 0 if it rejects them all, 1 if it accepts them all, -1 if the key
 * cannot tell (it reads a byte the key does not fix, or the length).
 */
int flowkey_filter(const struct bpf_insn *prog, size_t len, const struct flowkey *k);

#endif /* MGDUMP_FLOWKEY_H */
