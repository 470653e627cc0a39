// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap filters: a classic BPF program per reader, run in the receive hook
 * before a frame takes ring space, as AF_PACKET runs a socket's filter.
 *
 * The program comes from user space and is trusted in nothing: the kernel's
 * classic BPF checker (bpf_prog_create_from_user) refuses bad opcodes,
 * jumps out of range and over-long programs, and the result runs on the
 * kernel's own copy.  A replaced program is freed after an RCU grace period
 * (the hook runs under RCU), without waiting for it: the reader's close and
 * the netlink paths that queue behind it stay quick.
 */
#include <linux/filter.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mgcap.h"

void mgcap_filter_free(struct mgcap_filter_prog *filter)
{
	bpf_prog_destroy(filter->prog);
	kfree(filter);
}

static void mgcap_filter_free_rcu(struct rcu_head *head)
{
	mgcap_filter_free(container_of(head, struct mgcap_filter_prog, rcu));
}

static void mgcap_filter_replace(struct mgcap_ring *ring, struct mgcap_filter_prog *filter)
{
	struct mgcap_filter_prog *old;

	spin_lock_bh(&ring->lock);
	old = rcu_replace_pointer(ring->filter, filter, lockdep_is_held(&ring->lock));
	spin_unlock_bh(&ring->lock);
	if (old)
		call_rcu(&old->rcu, mgcap_filter_free_rcu);
}

int mgcap_filter_set(struct mgcap_ring *ring, const struct mgcap_filter *f)
{
	struct sock_fprog fprog = {
		.len = f->len,
		.filter = u64_to_user_ptr(f->insns),
	};
	struct mgcap_filter_prog *filter = NULL;
	int err;

	BUILD_BUG_ON(MGCAP_FILTER_LEN_MAX != BPF_MAXINSNS);
	if (f->reserved || f->len > MGCAP_FILTER_LEN_MAX || (!f->len && f->insns))
		return -EINVAL;
	if (f->len) {
		filter = kzalloc(sizeof(*filter), GFP_KERNEL);
		if (!filter)
			return -ENOMEM;
		err = bpf_prog_create_from_user(&filter->prog, &fprog, NULL, false);
		if (err) {
			kfree(filter);
			return err;
		}
		filter->len = f->len;
	}
	mgcap_filter_replace(ring, filter);
	return 0;
}

/* The reader left: the next one starts without its filter. */
void mgcap_filter_remove(struct mgcap_ring *ring)
{
	if (rcu_access_pointer(ring->filter))
		mgcap_filter_replace(ring, NULL);
}

/*
 * Under RCU, in the hook: does @prog reject the frame?  It sees the frame
 * from its MAC header, @mac_len bytes before skb->data, as a capture reads
 * it; data and len are put back before anyone else sees the skb (AF_PACKET
 * does the same with a shared one).  What a program returns besides 0 does
 * not cut the record: the reader's snaplen does.  The hooks run with bottom
 * halves off (the receive softirq, the transmit path's taps), where the CPU
 * cannot change under the program, and a classic program never
 * touches skb->cb: plain bpf_prog_run(), without pinning or saving cb.
 */
bool mgcap_filter_rejects(const struct bpf_prog *prog, struct sk_buff *skb, u32 mac_len)
{
	unsigned char *data = skb->data;
	unsigned int len = skb->len;
	u32 keep;

	__skb_push(skb, mac_len);
	keep = bpf_prog_run(prog, skb);
	skb->data = data;
	skb->len = len;
	return !keep;
}
