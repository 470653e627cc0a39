// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap filters: a classic BPF program per reader, run in the receive hook
 * before a frame takes ring space, as AF_PACKET runs a socket's filter.
 *
 * The program comes from user space and is trusted in nothing: the kernel's
 * classic BPF checker (bpf_prog_create_from_user) refuses bad opcodes,
 * jumps out of range and over-long programs, and the result runs on the
 * kernel's own copy.  Replacing or removing it waits for every hook that may
 * still run the old one.
 */
#include <linux/filter.h>
#include <linux/uaccess.h>

#include "mgcap.h"

static void mgcap_filter_replace(struct mgcap_ring *ring, struct bpf_prog *prog)
{
	struct bpf_prog *old;

	spin_lock_bh(&ring->lock);
	old = rcu_replace_pointer(ring->filter, prog, lockdep_is_held(&ring->lock));
	spin_unlock_bh(&ring->lock);
	if (old) {
		/* the hook runs under RCU: none still runs the old program */
		synchronize_rcu();
		bpf_prog_destroy(old);
	}
}

int mgcap_filter_set(struct mgcap_ring *ring, const struct mgcap_filter *f)
{
	struct sock_fprog fprog = {
		.len = f->len,
		.filter = u64_to_user_ptr(f->insns),
	};
	struct bpf_prog *prog = NULL;
	int err;

	BUILD_BUG_ON(MGCAP_FILTER_LEN_MAX != BPF_MAXINSNS);
	if (f->reserved || f->len > MGCAP_FILTER_LEN_MAX)
		return -EINVAL;
	if (f->len) {
		err = bpf_prog_create_from_user(&prog, &fprog, NULL, false);
		if (err)
			return err;
	}
	mgcap_filter_replace(ring, prog);
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
 * it; the push is undone before anyone else sees the skb (AF_PACKET does the
 * same with a shared one).
 */
bool mgcap_filter_rejects(const struct bpf_prog *prog, struct sk_buff *skb, u32 mac_len)
{
	u32 keep;

	__skb_push(skb, mac_len);
	keep = bpf_prog_run_save_cb(prog, skb);
	__skb_pull(skb, mac_len);
	return !keep;
}
