/*
 * Copyright (c) the mgcap developers.  BSD-2-Clause, as libpcap.
 *
 * What the mgcap capture module hands out: the filter (in the kernel, and
 * here) and the direction (received frames, sent ones, or both, as
 * pcap-linux's default).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/filter.h>
#include <linux/if_packet.h>

#include "pcap-mgcap-int.h"

/*
 * "inbound" and "outbound" compile, on Linux, to a load of the kernel's
 * packet type (an ancillary load, SKF_AD_PKTTYPE), which the kernel's
 * filter answers from the frame's sk_buff and libpcap's own interpreter
 * cannot (it rejects the frame).  The copy here runs as one program for
 * each direction, with that load made the constant it has there.
 */
static int loads_packet_type(const struct bpf_insn *insn)
{
	return BPF_CLASS(insn->code) == BPF_LD && BPF_MODE(insn->code) == BPF_ABS &&
	       insn->k == (bpf_u_int32)(SKF_AD_OFF + SKF_AD_PKTTYPE);
}

static void free_direction_programs(struct pcap_mgcap *pm)
{
	free(pm->dir_fcode[0]);
	free(pm->dir_fcode[1]);
	pm->dir_fcode[0] = pm->dir_fcode[1] = NULL;
}

/* 0, or -1 with errbuf: no memory for them */
static int make_direction_programs(pcap_t *p)
{
	static const bpf_u_int32 packet_type[2] = { PACKET_HOST, PACKET_OUTGOING };
	struct pcap_mgcap *pm = p->priv;
	size_t i, len = p->fcode.bf_len;
	int sent;

	free_direction_programs(pm);
	for (i = 0; i < len && !loads_packet_type(&p->fcode.bf_insns[i]); i++)
		;
	if (i == len)
		return 0;
	for (sent = 0; sent < 2; sent++) {
		struct bpf_insn *prog = malloc(len * sizeof(*prog));

		if (!prog) {
			free_direction_programs(pm);
			pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno,
						     "mgcap: the filter for each direction");
			return -1;
		}
		memcpy(prog, p->fcode.bf_insns, len * sizeof(*prog));
		for (i = 0; i < len; i++) {
			if (loads_packet_type(&prog[i])) {
				prog[i].code = BPF_LD | BPF_IMM;
				prog[i].k = packet_type[sent];
			}
		}
		pm->dir_fcode[sent] = prog;
	}
	return 0;
}

/*
 * Whether deliver() judges each record: a filter, or one direction only.
 * Neither (tcpdump's default) costs the read one test a record.
 */
static void judge_each_record(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;

	pm->judge_each = p->fcode.bf_insns != NULL || pm->dir_mask;
}

/*
 * The filter runs in the kernel as well, where a frame it rejects costs no
 * ring space and no wakeup.  The copy here stays the final word: records
 * already in a ring were judged by the previous program, and the kernel lets
 * through frames whose VLAN tag it cannot show the program.  A program that
 * keeps every frame (tcpdump installs one when given no expression) is not
 * worth running per frame: it is dropped, as if none had been set.  Where
 * the module cannot take the program (too old, or it refuses it), it must
 * not keep the previous one either: filtering then happens here only, as
 * pcap-linux does when the socket refuses a filter.
 */
int pcap_mgcap_setfilter(pcap_t *p, struct bpf_program *fp)
{
	struct pcap_mgcap *pm = p->priv;
	const struct bpf_insn *insns;
	struct mgcap_filter kernel = { 0 }, none = { 0 };
	size_t i;
	int failed;

	/* the kernel reads libpcap's instructions as struct sock_filter */
	_Static_assert(sizeof(struct bpf_insn) == 8, "struct bpf_insn is struct sock_filter");
	if (install_bpf_program(p, fp) < 0)
		return -1;
	insns = p->fcode.bf_insns;
	if (p->fcode.bf_len == 1 && insns[0].code == (BPF_RET | BPF_K) && insns[0].k) {
		pcap_freecode(&p->fcode);	/* deliver() then runs none either */
	} else {
		kernel.len = p->fcode.bf_len;
		kernel.insns = (uint64_t)(uintptr_t)insns;
	}
	failed = make_direction_programs(p);
	if (failed) {
		/* no filter here: none in the kernel either */
		pcap_freecode(&p->fcode);
		kernel = none;
	}
	judge_each_record(p);
	for (i = 0; i < pm->nqueues; i++) {
		int fd = pm->queues[i].r.fd;

		if (ioctl(fd, MGCAP_IOC_SET_FILTER, &kernel) < 0 && errno != ENOTTY)
			(void)ioctl(fd, MGCAP_IOC_SET_FILTER, &none);
	}
	return failed;
}

/*
 * The kernel takes into each ring the frames of @directions (MGCAP_DIR_*)
 * only: the others take no ring space.  A module from before sent frames
 * were captured knows no such call, and takes the received ones.
 */
static void kernel_directions(struct pcap_mgcap *pm, uint32_t directions)
{
	size_t i;

	for (i = 0; i < pm->nqueues; i++)
		(void)ioctl(pm->queues[i].r.fd, MGCAP_IOC_SET_DIRECTIONS, &directions);
}

/*
 * Which records the reads hand out: those the kernel took for the
 * direction, and of what the rings held before a change, those whose
 * flags, exclusive-or dir_xor, have no bit of dir_mask set.  Sent frames
 * have the kernel's stamps only: with the NIC's own clock (adapter_unsynced,
 * a clock of its own, unconverted) they would not fit among the received
 * ones, so such a handle has received frames only.
 */
int pcap_mgcap_setdirection(pcap_t *p, pcap_direction_t d)
{
	static const uint32_t directions[] = {
		[PCAP_D_INOUT] = MGCAP_DIR_RECEIVED | MGCAP_DIR_SENT,
		[PCAP_D_IN] = MGCAP_DIR_RECEIVED,
		[PCAP_D_OUT] = MGCAP_DIR_SENT,
	};
	struct pcap_mgcap *pm = p->priv;
	uint32_t wanted;

	if ((unsigned int)d >= sizeof(directions) / sizeof(directions[0])) {
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "mgcap: no direction %d", (int)d);
		return PCAP_ERROR;
	}
	if (d != PCAP_D_IN && pm->ts.type == PCAP_TSTAMP_ADAPTER_UNSYNCED) {
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
			 "mgcap: sent frames have no stamps of the NIC's clock: with adapter_unsynced "
			 "stamps, direction \"in\" only (adapter stamps have both)");
		return PCAP_ERROR;
	}
	wanted = directions[d];
	/* the record's sent flag decides, unless both are wanted; it must be set for sent only */
	pm->dir_mask = wanted == (MGCAP_DIR_RECEIVED | MGCAP_DIR_SENT) ? 0 : MGCAP_REC_F_SENT;
	pm->dir_xor = wanted == MGCAP_DIR_SENT ? MGCAP_REC_F_SENT : 0;
	judge_each_record(p);
	kernel_directions(pm, wanted);
	p->direction = d;
	return 0;
}

/* At activate, the queues open: both directions, as pcap-linux, where the stamps allow. */
void mgcap_filter_setup(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;

	(void)pcap_mgcap_setdirection(p, pm->ts.type == PCAP_TSTAMP_ADAPTER_UNSYNCED ?
				      PCAP_D_IN : PCAP_D_INOUT);
}

void mgcap_filter_close(pcap_t *p)
{
	free_direction_programs(p->priv);
}
