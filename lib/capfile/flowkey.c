// SPDX-License-Identifier: BSD-2-Clause
#include <pcap/pcap.h>
#include <string.h>

#include "flowkey.h"

#define ETH_HLEN	14
#define IP6_HLEN	40

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

void flowkey_of(const uint8_t *frame, uint32_t caplen, struct flowkey *k)
{
	const uint8_t *ip = frame + ETH_HLEN;
	uint32_t l4_at = 0;

	memset(k, 0, sizeof(*k));
	if (caplen < ETH_HLEN) {
		k->l3_known = FLOWKEY_SHORT;
		return;
	}
	k->ethertype = get16(frame + 12);
	if (k->ethertype == 0x0800 && caplen >= ETH_HLEN + 20 && (ip[0] & 0xf) >= 5 &&
	    caplen >= ETH_HLEN + 4U * (ip[0] & 0xf)) {
		k->l3_known = FLOWKEY_IP;
		k->vihl = ip[0];
		k->frag = get16(ip + 6);
		k->proto = ip[9];
		memcpy(k->src, ip + 12, 4);
		memcpy(k->dst, ip + 16, 4);
		if (!(k->frag & 0x1fff))
			l4_at = ETH_HLEN + 4U * (ip[0] & 0xf);
	} else if (k->ethertype == 0x86dd && caplen >= ETH_HLEN + IP6_HLEN) {
		k->l3_known = FLOWKEY_IP;
		k->proto = ip[6];
		memcpy(k->src, ip + 8, 16);
		memcpy(k->dst, ip + 24, 16);
		l4_at = ETH_HLEN + IP6_HLEN;
	}
	if (l4_at && caplen >= l4_at + flowkey_l4_len(k->proto)) {
		k->l4_len = flowkey_l4_len(k->proto);
		memcpy(k->l4, frame + l4_at, k->l4_len);
	}
}

int flowkey_valid(const struct flowkey *k)
{
	static const uint8_t zeros[sizeof(*k)];

	switch (k->l3_known) {
	case FLOWKEY_SHORT:
		return !memcmp(k, &(struct flowkey){ .l3_known = FLOWKEY_SHORT }, sizeof(*k));
	case FLOWKEY_TYPE:
		return !k->vihl && !k->proto && !k->frag && !k->l4_len &&
		       !memcmp(k->l4, zeros, sizeof(k->l4)) && !memcmp(k->src, zeros, 32);
	case FLOWKEY_IP:
		if (k->ethertype == 0x0800)
			return (k->vihl & 0xf) >= 5 && k->l4_len <= 4 &&
			       (k->l4_len == 0 || k->l4_len == flowkey_l4_len(k->proto));
		return k->ethertype == 0x86dd && !k->vihl && !k->frag &&
		       (k->l4_len == 0 || k->l4_len == flowkey_l4_len(k->proto));
	default:
		return 0;
	}
}

/* @len bytes at @at of the frame are the key's */
static void fixed(uint8_t *known, size_t at, size_t len)
{
	memset(known + at, 1, len);
}

size_t flowkey_frame(const struct flowkey *k, uint8_t *frame, uint8_t *known)
{
	size_t len = ETH_HLEN, l4_at = 0;
	uint8_t *ip = frame + ETH_HLEN;

	memset(frame, 0, FLOWKEY_FRAME_MAX);
	memset(known, 0, FLOWKEY_FRAME_MAX);
	if (!flowkey_valid(k) || k->l3_known == FLOWKEY_SHORT)
		return 0;
	frame[12] = (uint8_t)(k->ethertype >> 8);
	frame[13] = (uint8_t)k->ethertype;
	fixed(known, 12, 2);
	if (k->l3_known == FLOWKEY_IP && k->ethertype == 0x0800) {
		ip[0] = k->vihl;
		ip[6] = (uint8_t)(k->frag >> 8);
		ip[7] = (uint8_t)k->frag;
		ip[9] = k->proto;
		memcpy(ip + 12, k->src, 4);
		memcpy(ip + 16, k->dst, 4);
		fixed(known, ETH_HLEN, 1);
		fixed(known, ETH_HLEN + 6, 2);
		fixed(known, ETH_HLEN + 9, 1);
		fixed(known, ETH_HLEN + 12, 8);
		l4_at = ETH_HLEN + 4U * (k->vihl & 0xf);
	} else if (k->l3_known == FLOWKEY_IP && k->ethertype == 0x86dd) {
		ip[6] = k->proto;
		memcpy(ip + 8, k->src, 16);
		memcpy(ip + 24, k->dst, 16);
		fixed(known, ETH_HLEN + 6, 1);
		fixed(known, ETH_HLEN + 8, 32);
		l4_at = ETH_HLEN + IP6_HLEN;
	}
	if (l4_at) {
		memcpy(frame + l4_at, k->l4, k->l4_len);
		fixed(known, l4_at, k->l4_len);
		len = l4_at + 4;
	}
	return len;
}

/* whether the @size bytes at @at are all the key's */
static int all_known(const uint8_t *known, size_t frame_len, uint64_t at, uint64_t size)
{
	uint64_t i;

	if (at + size > frame_len)
		return 0;
	for (i = 0; i < size; i++)
		if (!known[at + i])
			return 0;
	return 1;
}

static uint32_t load(const uint8_t *frame, uint64_t at, unsigned int size)
{
	uint32_t v = 0;
	unsigned int i;

	for (i = 0; i < size; i++)
		v = v << 8 | frame[at + i];
	return v;
}

/*
 * Classic BPF, as the kernel and libpcap run it, on the flow's frame; a
 * load of a byte the key does not fix (or of the length, or of anything
 * out of the frame) makes the answer unknown, as does a jump backwards
 * (which the kernel refuses; it ends within @len steps).
 */
int flowkey_filter(const struct bpf_insn *prog, size_t len, const struct flowkey *k)
{
	uint8_t frame[FLOWKEY_FRAME_MAX], known[FLOWKEY_FRAME_MAX];
	size_t frame_len = flowkey_frame(k, frame, known), pc;
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };

	for (pc = 0; pc < len; pc++) {
		const struct bpf_insn *i = &prog[pc];
		unsigned int size = 0;
		uint64_t at;
		uint32_t src;

		switch (BPF_CLASS(i->code)) {
		case BPF_LD:
		case BPF_LDX:
			switch (BPF_MODE(i->code)) {
			case BPF_IMM:
				src = i->k;
				break;
			case BPF_MEM:
				if (i->k >= BPF_MEMWORDS)
					return -1;
				src = mem[i->k];
				break;
			case BPF_ABS:
			case BPF_IND:
				size = BPF_SIZE(i->code) == BPF_W ? 4 : BPF_SIZE(i->code) == BPF_H ? 2 : 1;
				at = (uint64_t)i->k + (BPF_MODE(i->code) == BPF_IND ? x : 0);
				if (!all_known(known, frame_len, at, size))
					return -1;
				src = load(frame, at, size);
				break;
			case BPF_MSH:
				if (!all_known(known, frame_len, i->k, 1))
					return -1;
				src = 4U * (frame[i->k] & 0xf);
				break;
			default:	/* BPF_LEN, and anything else */
				return -1;
			}
			if (BPF_CLASS(i->code) == BPF_LD)
				a = src;
			else
				x = src;
			break;
		case BPF_ST:
		case BPF_STX:
			if (i->k >= BPF_MEMWORDS)
				return -1;
			mem[i->k] = BPF_CLASS(i->code) == BPF_ST ? a : x;
			break;
		case BPF_ALU:
			src = BPF_SRC(i->code) == BPF_X ? x : i->k;
			switch (BPF_OP(i->code)) {
			case BPF_ADD: a += src; break;
			case BPF_SUB: a -= src; break;
			case BPF_MUL: a *= src; break;
			case BPF_DIV: if (!src) return 0; a /= src; break;
			case BPF_MOD: if (!src) return 0; a %= src; break;
			case BPF_AND: a &= src; break;
			case BPF_OR: a |= src; break;
			case BPF_XOR: a ^= src; break;
			case BPF_LSH: a = src < 32 ? a << src : 0; break;
			case BPF_RSH: a = src < 32 ? a >> src : 0; break;
			case BPF_NEG: a = -a; break;
			default: return -1;
			}
			break;
		case BPF_JMP:
			src = BPF_SRC(i->code) == BPF_X ? x : i->k;
			switch (BPF_OP(i->code)) {
			case BPF_JA:
				if ((int32_t)i->k < 0)
					return -1;
				pc += i->k;
				break;
			case BPF_JEQ: pc += a == src ? i->jt : i->jf; break;
			case BPF_JGT: pc += a > src ? i->jt : i->jf; break;
			case BPF_JGE: pc += a >= src ? i->jt : i->jf; break;
			case BPF_JSET: pc += a & src ? i->jt : i->jf; break;
			default: return -1;
			}
			break;
		case BPF_RET:
			return (BPF_RVAL(i->code) == BPF_A ? a : i->k) != 0;
		case BPF_MISC:
			if (BPF_MISCOP(i->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		}
	}
	return -1;	/* ran off the end: not a valid program */
}
