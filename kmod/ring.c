// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap ring: the producer side of one receive queue's shared ring.
 *
 * The layout and the index protocol are described in <linux/mgcap.h>.
 * Nothing the reader can write (the whole mapping is writable so that it
 * can store its consumer index) is trusted: the kernel keeps its own copy of
 * the producer index and validates the consumer index on every use.
 */
#include <linux/if_vlan.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "compat.h"
#include "mgcap.h"

/* Wakeup defaults; a reader changes them with MGCAP_IOC_SET_WAKEUP. */
#define MGCAP_WAKE_BYTES_MAX	(64U << 10)
#define MGCAP_WAKE_USECS	1000U

static enum hrtimer_restart mgcap_ring_wake_timer(struct hrtimer *timer)
{
	struct mgcap_ring *ring = container_of(timer, struct mgcap_ring, wake_timer);

	WRITE_ONCE(ring->reader_waiting, false);
	wake_up_interruptible_poll(&ring->wq, EPOLLIN | EPOLLRDNORM);
	return HRTIMER_NORESTART;
}

void mgcap_ring_reset_reader_settings(struct mgcap_ring *ring)
{
	WRITE_ONCE(ring->snaplen, ring->default_snaplen);
	WRITE_ONCE(ring->wake_bytes, min_t(u64, MGCAP_WAKE_BYTES_MAX, (ring->mask + 1) / 4));
	WRITE_ONCE(ring->wake_ns, (u64)MGCAP_WAKE_USECS * NSEC_PER_USEC);
	WRITE_ONCE(ring->poll_mark, 1);
	WRITE_ONCE(ring->tstamp_source, MGCAP_TSTAMP_HW_OR_SW);
	WRITE_ONCE(ring->directions, MGCAP_DIR_RECEIVED);
}

/* Bytes of every ring together, whoever reads them; those of unprivileged readers */
static atomic64_t mgcap_ring_bytes = ATOMIC64_INIT(0);
static atomic64_t mgcap_ring_bytes_unprivileged = ATOMIC64_INIT(0);

/*
 * A ring is refused, never left to the OOM killer: all rings together take
 * at most half of the RAM, and a new one at most half of what is available
 * now.  The rings of readers without CAP_NET_ADMIN (members of the group
 * mgcap) take at most a quarter of that together, so that they never
 * leave a START or a privileged reader without a ring.  (A further
 * reader's ring is charged to its memory cgroup, too.)
 */
static bool mgcap_ring_charge(u64 size, bool unprivileged)
{
	u64 limit = (u64)totalram_pages() << (PAGE_SHIFT - 1);

	if (size >> PAGE_SHIFT > si_mem_available() / 2)
		return false;
	if (unprivileged &&
	    atomic64_add_return(size, &mgcap_ring_bytes_unprivileged) > limit / 4) {
		atomic64_sub(size, &mgcap_ring_bytes_unprivileged);
		return false;
	}
	if (atomic64_add_return(size, &mgcap_ring_bytes) > limit) {
		atomic64_sub(size, &mgcap_ring_bytes);
		if (unprivileged)
			atomic64_sub(size, &mgcap_ring_bytes_unprivileged);
		return false;
	}
	return true;
}

static void mgcap_ring_uncharge(u64 size, bool unprivileged)
{
	atomic64_sub(size, &mgcap_ring_bytes);
	if (unprivileged)
		atomic64_sub(size, &mgcap_ring_bytes_unprivileged);
}

/*
 * The control page as the kernel vouches for it: its layout, flags and
 * indices from the kernel's own copies, nothing unread.  Under the ring
 * lock, or before anyone can see the ring; field by field, so that a look
 * at the consumer index without the lock never finds it anywhere else.
 */
static void mgcap_ring_write_ctrl(struct mgcap_ring *ring)
{
	struct mgcap_ring_ctrl *ctrl = ring->ctrl;

	ctrl->magic = MGCAP_RING_MAGIC;
	ctrl->version = MGCAP_RING_VERSION;
	ctrl->flags = ring->flags;
	ctrl->queue = ring->q->index;
	ctrl->data_offset = PAGE_SIZE;
	ctrl->data_size = ring->mask + 1;
	memset(ctrl->reserved0, 0, sizeof(ctrl->reserved0));
	WRITE_ONCE(ctrl->producer, ring->head);
	memset(ctrl->reserved1, 0, sizeof(ctrl->reserved1));
	WRITE_ONCE(ctrl->consumer, ring->head);
	WRITE_ONCE(ctrl->out_of_order, 0);
	memset(ctrl->reserved2, 0, sizeof(ctrl->reserved2));
}

/*
 * A ring's memory, zeroed, so no byte a reader can see was ever
 * uninitialised.  A further reader's is charged to its memory cgroup (the
 * capture's belongs to the capture, not to whoever started it), and its
 * pages and their charge are refused beyond it rather than OOM-killed.
 */
static int mgcap_ring_alloc_mem(struct mgcap_ring_mem *mem, size_t size, unsigned int how)
{
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN;

	if (how & MGCAP_RING_READER)
		gfp |= __GFP_ACCOUNT | __GFP_RETRY_MAYFAIL;
	return mgcap_ring_mem_alloc(mem, size, gfp);
}

static void mgcap_ring_set_mem(struct mgcap_ring *ring, const struct mgcap_ring_mem *mem)
{
	ring->mem = *mem;
	ring->ctrl = mem->addr;
	ring->data = (u8 *)mem->addr + PAGE_SIZE;
}

/*
 * @ring, zeroed by its owner, for @q, with @data_size bytes of data.
 * @how: MGCAP_RING_READER, MGCAP_RING_UNPRIVILEGED (see mgcap_ring_charge()).
 * 0, or -ENOMEM.
 */
int mgcap_ring_init(struct mgcap_ring *ring, struct mgcap_queue *q, u64 data_size, u32 snaplen,
		    unsigned int how)
{
	bool unprivileged = how & MGCAP_RING_UNPRIVILEGED;
	struct mgcap_ring_mem mem;

	/* the ABI: producer and consumer each on a cache line of their own */
	BUILD_BUG_ON(offsetof(struct mgcap_ring_ctrl, producer) != 64);
	BUILD_BUG_ON(offsetof(struct mgcap_ring_ctrl, consumer) != 128);
	BUILD_BUG_ON(offsetof(struct mgcap_ring_ctrl, out_of_order) != 136);
	BUILD_BUG_ON(sizeof(struct mgcap_ring_ctrl) > PAGE_SIZE);
	BUILD_BUG_ON(sizeof(struct mgcap_rec) != 24);
	/* mgcap_ring_capture() zeroes a record's padding with one u64 store */
	BUILD_BUG_ON(sizeof(u64) != MGCAP_REC_ALIGN);

	if (!mgcap_ring_charge(PAGE_SIZE + data_size, unprivileged))
		return -ENOMEM;
	if (mgcap_ring_alloc_mem(&mem, PAGE_SIZE + data_size, how)) {
		mgcap_ring_uncharge(PAGE_SIZE + data_size, unprivileged);
		return -ENOMEM;
	}
	ring->unprivileged = unprivileged;
	ring->mmap_size = PAGE_SIZE + data_size;
	mgcap_ring_set_mem(ring, &mem);
	ring->mask = data_size - 1;
	ring->q = q;
	ring->default_snaplen = snaplen;
	spin_lock_init(&ring->lock);
	init_waitqueue_head(&ring->wq);
	hrtimer_init(&ring->wake_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	ring->wake_timer.function = mgcap_ring_wake_timer;
	mgcap_ring_reset_reader_settings(ring);
	mgcap_ring_write_ctrl(ring);
	return 0;
}

/* What mgcap_ring_init() took, once no hook and no reader can reach @ring. */
void mgcap_ring_destroy(struct mgcap_ring *ring)
{
	struct mgcap_filter_prog *filter = rcu_dereference_protected(ring->filter, true);

	if (filter)
		mgcap_filter_free(filter);
	put_pid(ring->reader_pid);
	mgcap_ring_uncharge(ring->mmap_size, ring->unprivileged);
	hrtimer_cancel(&ring->wake_timer);
	mgcap_ring_mem_free(&ring->mem);
}

/* The whole ring into @vma. */
int mgcap_ring_map(struct mgcap_ring *ring, struct vm_area_struct *vma)
{
	int err;

	if (vma->vm_pgoff != 0 || vma->vm_end - vma->vm_start != ring->mmap_size)
		return -EINVAL;
	err = mgcap_ring_mem_map(&ring->mem, vma);
	if (err)
		return err;
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}

/*
 * MGCAP_IOC_WRITE_PAGES for @ring's reader: @at and @len whole pages, @len
 * within the data area (checked here: they are the reader's).  Its memory
 * stays while the reader's ioctl runs: only a new first reader renews it.
 */
ssize_t mgcap_ring_write_pages(struct mgcap_ring *ring, u64 at, u64 len, struct file *file,
			       loff_t pos)
{
	if (!len || (at | len) & ~PAGE_MASK || len > ring->mask + 1)
		return -EINVAL;
	return mgcap_ring_mem_write(&ring->mem, (at & ring->mask) >> PAGE_SHIFT,
				    len >> PAGE_SHIFT, file, pos);
}

/*
 * Before a new first reader of the queue's own ring, while nothing maps it:
 * where its last reader left a page held (mgcap_ring_mem_held()), the ring gets new
 * memory, empty (what arrived since the close was open to that writer),
 * and the old goes to whoever holds it.  0, or -ENOMEM.
 */
int mgcap_ring_renew_held(struct mgcap_ring *ring)
{
	struct mgcap_ring_mem fresh, old;

	if (!mgcap_ring_mem_held(&ring->mem))
		return 0;
	if (mgcap_ring_alloc_mem(&fresh, ring->mmap_size, 0))
		return -ENOMEM;
	spin_lock_bh(&ring->lock);
	old = ring->mem;
	mgcap_ring_set_mem(ring, &fresh);
	mgcap_ring_write_ctrl(ring);
	spin_unlock_bh(&ring->lock);
	/* (every other use of the memory is under the lock, or the reader's own) */
	mgcap_ring_mem_free(&old);
	return 0;
}

/*
 * Under the ring lock: @format from the next page boundary on (see
 * MGCAP_IOC_SET_FORMAT), nothing unread; the caller writes the control page.
 */
static void mgcap_ring_change_format(struct mgcap_ring *ring, u32 format, u32 interface_id)
{
	lockdep_assert_held(&ring->lock);
	ring->format = format;
	ring->interface_id = interface_id;
	WRITE_ONCE(ring->head, ALIGN(ring->head, PAGE_SIZE));
}

/*
 * Every change of the ring's flags goes through here, under the ring lock:
 * the kernel's own copy first, then the one the reader sees (which it may
 * overwrite, so the kernel never reads it back).
 */
static void mgcap_ring_change_flags(struct mgcap_ring *ring, u32 set, u32 clear)
{
	u32 flags;

	lockdep_assert_held(&ring->lock);
	flags = (ring->flags & ~clear) | set;
	WRITE_ONCE(ring->flags, flags);
	WRITE_ONCE(ring->ctrl->flags, flags);
}

bool mgcap_ring_has_flag(const struct mgcap_ring *ring, u32 flag)
{
	return READ_ONCE(ring->flags) & flag;
}

/*
 * The reader of the queue's own ring has gone, and with its last close
 * its last mapping.  The next one must not parse what this one left: an
 * index it put anywhere, records it rewrote.  So the kernel takes the
 * control page back (its layout, flags and producer index from its own
 * copies, without the reader's error and counts) and gives what was unread
 * back to the ring: the next reader starts where this one left the ring,
 * at a record the kernel wrote, and reads what arrived since, which no
 * reader could touch (a page it still held by other means gets the ring
 * new memory first: mgcap_ring_renew_held()).
 */
void mgcap_ring_reader_gone(struct mgcap_ring *ring)
{
	spin_lock_bh(&ring->lock);
	mgcap_ring_change_flags(ring, 0, MGCAP_RING_F_BAD_CONSUMER);
	ring->line.span_ns = 0;
	if (ring->format != MGCAP_FORMAT_RECORDS)
		mgcap_ring_change_format(ring, MGCAP_FORMAT_RECORDS, 0);
	mgcap_ring_write_ctrl(ring);
	spin_unlock_bh(&ring->lock);
}

/*
 * What the ring holds from now on (MGCAP_IOC_SET_FORMAT): 0, or -EINVAL for
 * a format it does not know, or pcapng blocks for a reader of two stamps.
 */
int mgcap_ring_set_format(struct mgcap_ring *ring, u32 format, u32 interface_id)
{
	int err = 0;

	if (format >= __MGCAP_FORMAT_MAX || (format == MGCAP_FORMAT_RECORDS && interface_id))
		return -EINVAL;
	spin_lock_bh(&ring->lock);
	if (format == MGCAP_FORMAT_PCAPNG &&
	    READ_ONCE(ring->tstamp_source) == MGCAP_TSTAMP_HW_AND_SW) {
		err = -EINVAL;
	} else {
		u64 out_of_order = READ_ONCE(ring->ctrl->out_of_order);

		/* (the indices are the kernel's again: whatever the reader wrote is gone) */
		mgcap_ring_change_flags(ring, 0, MGCAP_RING_F_BAD_CONSUMER);
		mgcap_ring_change_format(ring, format, interface_id);
		mgcap_ring_write_ctrl(ring);
		WRITE_ONCE(ring->ctrl->out_of_order, out_of_order);
	}
	spin_unlock_bh(&ring->lock);
	return err;
}

/* MGCAP_IOC_SET_TSTAMP: 0, or -EINVAL (a pcapng ring has room for one stamp). */
int mgcap_ring_set_tstamp(struct mgcap_ring *ring, u32 source)
{
	int err = 0;

	if (source >= __MGCAP_TSTAMP_MAX)
		return -EINVAL;
	spin_lock_bh(&ring->lock);
	if (source == MGCAP_TSTAMP_HW_AND_SW && ring->format == MGCAP_FORMAT_PCAPNG)
		err = -EINVAL;
	else
		WRITE_ONCE(ring->tstamp_source, source);
	spin_unlock_bh(&ring->lock);
	return err;
}

/* MGCAP_IOC_SET_TSTAMP_LINE: 0, or -EINVAL for a line the producer may not convert on. */
int mgcap_ring_set_tstamp_line(struct mgcap_ring *ring, const struct mgcap_tstamp_line *line)
{
	if (!mgcap_pcapng_line_valid(line))
		return -EINVAL;
	spin_lock_bh(&ring->lock);
	ring->line = *line;
	spin_unlock_bh(&ring->lock);
	return 0;
}

/*
 * MGCAP_IOC_FILL_PAGE: 0 with *@end the page boundary; -EINVAL for a ring
 * of records, -EAGAIN where the filler finds no room, -EIO where the
 * reader's index is impossible.
 */
int mgcap_ring_fill_page(struct mgcap_ring *ring, u64 *end)
{
	u64 data_size = ring->mask + 1, head, used;
	int err = 0;
	u32 len;

	BUILD_BUG_ON(MGCAP_RING_SIZE_MIN % PAGE_SIZE);
	spin_lock_bh(&ring->lock);
	head = ring->head;
	len = mgcap_pcapng_filler_len(head, PAGE_SIZE);
	/* pairs with the reader's release store: it is done with those bytes */
	used = head - smp_load_acquire(&ring->ctrl->consumer);
	if (ring->format != MGCAP_FORMAT_PCAPNG) {
		err = -EINVAL;
	} else if (used > data_size) {
		mgcap_ring_change_flags(ring, MGCAP_RING_F_BAD_CONSUMER, 0);
		err = -EIO;
	} else if (used + len > data_size) {
		err = -EAGAIN;
	} else if (WARN_ON_ONCE((head & ring->mask) + len > data_size)) {
		/* (never: no block comes closer than one to the data area's end) */
		err = -EIO;
	}
	if (!err && len) {
		mgcap_pcapng_filler(ring->data + (head & ring->mask), len);
		head += len;
		/* the filler is complete before the reader can see the new index */
		smp_store_release(&ring->ctrl->producer, head);
		WRITE_ONCE(ring->head, head);
	}
	*end = head;
	spin_unlock_bh(&ring->lock);
	return err;
}

/* The capture stopped: no producer runs any more (RCU grace period passed). */
void mgcap_ring_detach(struct mgcap_ring *ring)
{
	spin_lock_bh(&ring->lock);
	mgcap_ring_change_flags(ring, MGCAP_RING_F_DETACHED, 0);
	spin_unlock_bh(&ring->lock);
	hrtimer_cancel(&ring->wake_timer);
	wake_up_interruptible_all(&ring->wq);
}

/* Unread bytes as the kernel sees them; a lying reader gets a full ring. */
static u64 mgcap_ring_fill(const struct mgcap_ring *ring, u64 head, u64 tail)
{
	u64 used = head - tail;

	return used > ring->mask + 1 ? ring->mask + 1 : used;
}

void mgcap_ring_get_stats(struct mgcap_ring *ring, struct mgcap_queue_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->captured = READ_ONCE(ring->captured);
	st->bytes = READ_ONCE(ring->bytes);
	st->dropped = READ_ONCE(ring->dropped);
	st->high_water = READ_ONCE(ring->high_water);
	st->coalesced = READ_ONCE(ring->coalesced);
	st->sent = READ_ONCE(ring->sent);
	st->unconverted = READ_ONCE(ring->unconverted);
	/* under the lock: the memory may be renewed (mgcap_ring_renew_held()) */
	spin_lock_bh(&ring->lock);
	st->fill = mgcap_ring_fill(ring, ring->head, READ_ONCE(ring->ctrl->consumer));
	spin_unlock_bh(&ring->lock);
}

/* The reader's out-of-order count, from its control page (see above). */
u64 mgcap_ring_out_of_order(struct mgcap_ring *ring)
{
	u64 n;

	spin_lock_bh(&ring->lock);
	n = READ_ONCE(ring->ctrl->out_of_order);
	spin_unlock_bh(&ring->lock);
	return n;
}

/*
 * For poll: whether the reader has records to read, and if not, marks it
 * waiting for the producer to wake.  Under the ring lock, as the producer
 * looks for a waiting reader after it published a record: one of the two
 * sees what the other did, and the producer's path needs no barrier of its
 * own for it.
 */
bool mgcap_ring_poll_readable(struct mgcap_ring *ring)
{
	bool readable;
	u64 used;

	spin_lock_bh(&ring->lock);
	used = ring->head - READ_ONCE(ring->ctrl->consumer);
	/* (a lying consumer's ring is readable: its reader learns of it) */
	readable = used && (used >= READ_ONCE(ring->poll_mark) || used > ring->mask + 1);
	if (!readable)
		WRITE_ONCE(ring->reader_waiting, true);
	spin_unlock_bh(&ring->lock);
	return readable;
}

static void mgcap_copy_piece(u8 **dst, u32 *left, const void *src, u32 len)
{
	len = min(len, *left);
	memcpy(*dst, src, len);
	*dst += len;
	*left -= len;
}

/* The rest of the frame from @offset (relative to skb->data), linear or not. */
static void mgcap_copy_rest(u8 *dst, const struct sk_buff *skb, int offset, u32 len)
{
	if (len && skb_copy_bits(skb, offset, dst, len))
		memset(dst, 0, len);	/* cannot happen: caplen <= wire length */
}

/*
 * A tagged frame's first @caplen bytes: the addresses, the offloaded VLAN
 * tag put back where the EtherType was (TPID, TCI), then the rest.  Out of
 * line: its local tag would cost the common path a stack canary.
 */
static noinline void mgcap_copy_tagged(u8 *dst, const struct sk_buff *skb, const u8 *mac,
				       u32 mac_len, u32 caplen)
{
	struct vlan_hdr tag;
	u32 left = caplen;

	tag.h_vlan_TCI = htons(skb_vlan_tag_get(skb));
	tag.h_vlan_encapsulated_proto = skb->vlan_proto;
	mgcap_copy_piece(&dst, &left, mac, 2 * ETH_ALEN);
	mgcap_copy_piece(&dst, &left, &tag.h_vlan_encapsulated_proto, 2);
	mgcap_copy_piece(&dst, &left, &tag.h_vlan_TCI, 2);
	mgcap_copy_piece(&dst, &left, mac + 2 * ETH_ALEN, mac_len - 2 * ETH_ALEN);
	mgcap_copy_rest(dst, skb, 0, left);
}

/*
 * Copy the first @caplen bytes of the frame as it was on the wire: the MAC
 * header (which the stack has already pulled), an offloaded VLAN tag put
 * back after the addresses, then the rest, linear or not.
 */
static void mgcap_copy_frame(u8 *dst, const struct sk_buff *skb, u32 mac_len,
			     bool vlan, u32 caplen)
{
	/* @mac_len is skb->data - the MAC header, or 0 if it was never set */
	const u8 *mac = skb->data - mac_len;

	if (unlikely(vlan))
		mgcap_copy_tagged(dst, skb, mac, mac_len, caplen);
	else if (caplen <= mac_len + skb_headlen(skb))
		memcpy(dst, mac, caplen);	/* the MAC header lies just before skb->data */
	else
		mgcap_copy_rest(dst, skb, -(int)mac_len, caplen);
}

/*
 * A driver may keep its own data in the stamp's place (tsnep): the stamp
 * then comes from that driver.  skb->dev is it, or a device above it that
 * asks it (a bond), where it has ndo_get_tstamp; else (a VLAN's device)
 * the driver is the one the frame's NAPI instance belongs to, as
 * net/socket.c finds it (kernels without busy polling have no NAPI ids:
 * PREEMPT_RT before 6.10).  Where no driver can be asked, the place holds
 * a pointer, never a time: the frame has no stamp.
 */
static noinline ktime_t mgcap_driver_hwtstamp(struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;

	if (!dev->netdev_ops->ndo_get_tstamp)
		dev = dev_get_by_napi_id(skb_napi_id(skb));
	if (!dev || !dev->netdev_ops->ndo_get_tstamp)
		return 0;
	return dev->netdev_ops->ndo_get_tstamp(dev, skb_hwtstamps(skb), false);
}

/* The NIC's stamp of a received frame; 0: none. */
static ktime_t mgcap_skb_hwtstamp(struct sk_buff *skb)
{
	if (unlikely(skb_shinfo(skb)->tx_flags & SKBTX_HW_TSTAMP_NETDEV))
		return mgcap_driver_hwtstamp(skb);
	return skb_hwtstamps(skb)->hwtstamp;
}

/*
 * The kernel's stamp of a frame: CLOCK_REALTIME, the clock AF_PACKET stamps
 * with, read through the timekeeper's NMI-safe latch rather than its
 * seqcount.  A reader never waits for an update in progress (it reads the
 * other copy, and retries only if an update raced it), and a frame's stamp
 * costs 11 instructions less.  The price, and why timekeeping.rst keeps
 * most drivers off it: a CPU that reads during an update may still use the
 * copy from before it, and return a time a little earlier than one another
 * CPU already returned.  Stamps of different CPUs are not in order anyway
 * (each is taken before the ring's lock, and RPS spreads a queue over
 * CPUs): the readers' merge orders them.
 */
static u64 mgcap_kernel_tstamp_ns(void)
{
	return ktime_get_real_fast_ns();
}

/*
 * The record of the frame at free-running index @head + @skip, its room
 * checked, after the padding of @skip bytes to the data area's end.
 */
static __always_inline void mgcap_ring_put_rec(struct mgcap_ring *ring, u64 head, u64 skip,
					       u32 rec_len, const struct sk_buff *skb,
					       u32 mac_len, bool vlan, u32 caplen, u32 wirelen,
					       u16 queue, u16 flags, u64 tstamp_ns,
					       u64 sw_tstamp_ns)
{
	struct mgcap_rec *rec;

	if (skip >= sizeof(*rec)) {
		rec = (struct mgcap_rec *)(ring->data + (head & ring->mask));
		memset(rec, 0, sizeof(*rec));
		rec->rec_len = skip;
		rec->flags = MGCAP_REC_F_PAD;
	}
	rec = (struct mgcap_rec *)(ring->data + ((head + skip) & ring->mask));
	/*
	 * Zero the last 8 bytes of the frame's part first, so that the padding
	 * after the frame is zero once the copy is done: records are 8-byte
	 * aligned and at least as long as the header, so this one store covers
	 * any padding.
	 */
	*(u64 *)((u8 *)rec + MGCAP_REC_LEN(caplen) - sizeof(u64)) = 0;
	if (flags & MGCAP_REC_F_SWTSTAMP)
		*(u64 *)((u8 *)rec + MGCAP_REC_SWTSTAMP_OFF(caplen)) = sw_tstamp_ns;
	rec->rec_len = rec_len;
	rec->caplen = caplen;
	rec->wirelen = wirelen;
	rec->queue = queue;
	rec->flags = flags;
	rec->tstamp_ns = tstamp_ns;
	mgcap_copy_frame(rec->data, skb, mac_len, vlan, caplen);
}

/*
 * A pcapng ring's block of the frame at free-running index @head + @skip,
 * its room checked, after a filler of @skip bytes to the data area's end:
 * the stamp the file records (the NIC's on the reader's line, where it has
 * a line), the block around the frame's bytes.  Out of line: records are
 * the common path.
 */
static noinline void mgcap_ring_put_epb(struct mgcap_ring *ring, u64 head, u64 skip, u32 len,
					const struct sk_buff *skb, u32 mac_len, bool vlan,
					u32 caplen, u32 wirelen, u16 flags, u64 tstamp_ns)
{
	u8 *at = ring->data + ((head + skip) & ring->mask);

	if (skip)
		mgcap_pcapng_filler(ring->data + (head & ring->mask), skip);
	if ((flags & MGCAP_REC_F_HWTSTAMP) && ring->line.span_ns &&
	    !mgcap_pcapng_line_convert(&ring->line, tstamp_ns, &tstamp_ns)) {
		tstamp_ns = mgcap_kernel_tstamp_ns();
		WRITE_ONCE(ring->unconverted, ring->unconverted + 1);
	}
	/*
	 * (MGCAP_TSTAMP_HW_AND_SW's 0 for no NIC stamp: its reader cannot have
	 * a pcapng ring, but the producer read its source before the lock)
	 */
	if (!tstamp_ns)
		tstamp_ns = mgcap_kernel_tstamp_ns();
	mgcap_pcapng_epb_write((struct mgcap_pcapng_epb *)at, len, ring->interface_id, tstamp_ns,
			       caplen, wirelen, flags & MGCAP_REC_F_SENT);
	mgcap_copy_frame(at + sizeof(struct mgcap_pcapng_epb), skb, mac_len, vlan, caplen);
}

/* Under RCU: the receive hook or the tap of sent frames, for one reader's ring. */
void mgcap_ring_capture(struct mgcap_ring *ring, struct sk_buff *skb, u16 queue)
{
	u32 mac_len = skb_mac_header_was_set(skb) ? skb->data - skb_mac_header(skb) : 0;
	bool vlan = skb_vlan_tag_present(skb) && mac_len >= ETH_HLEN;
	const struct mgcap_filter_prog *filter = rcu_dereference(ring->filter);
	bool sent = skb->pkt_type == PACKET_OUTGOING;
	u32 wirelen = mac_len + skb->len + (vlan ? VLAN_HLEN : 0);
	u64 data_size = ring->mask + 1;
	u64 head, tail, used, skip, tstamp_ns, sw_tstamp_ns = 0;
	ktime_t hwtstamp;
	u32 caplen, rec_len, source;
	u16 flags;
	bool wake = false, arm_timer = false, pcapng;

	if (unlikely(!(READ_ONCE(ring->directions) &
		       (sent ? MGCAP_DIR_SENT : MGCAP_DIR_RECEIVED))))
		return;
	/*
	 * A tag taken out of the frame (by the NIC, or by the stack before any
	 * rx_handler) the program would miss: the reader's own filter decides.
	 */
	if (unlikely(filter) && !vlan && mgcap_filter_rejects(filter->prog, skb, mac_len)) {
		atomic64_inc(&ring->filtered);
		return;
	}
	source = READ_ONCE(ring->tstamp_source);
	/* (a sent frame's stamp, where the NIC makes one, comes after it left) */
	hwtstamp = source == MGCAP_TSTAMP_SW || unlikely(sent) ? 0 : mgcap_skb_hwtstamp(skb);
	flags = (vlan ? MGCAP_REC_F_VLAN : 0) | (hwtstamp ? MGCAP_REC_F_HWTSTAMP : 0) |
		(unlikely(skb_is_gso(skb)) ? MGCAP_REC_F_COALESCED : 0) |
		(unlikely(sent) ? MGCAP_REC_F_SENT : 0);
	if (unlikely(source == MGCAP_TSTAMP_HW_AND_SW)) {
		tstamp_ns = ktime_to_ns(hwtstamp);
		sw_tstamp_ns = mgcap_kernel_tstamp_ns();
		flags |= MGCAP_REC_F_SWTSTAMP;
	} else {
		tstamp_ns = hwtstamp ? ktime_to_ns(hwtstamp) : mgcap_kernel_tstamp_ns();
	}

	spin_lock(&ring->lock);
	/* under the lock: no record published after MGCAP_IOC_SET_SNAPLEN is longer */
	caplen = min(wirelen, ring->snaplen);
	pcapng = ring->format == MGCAP_FORMAT_PCAPNG;
	/* (a pcapng block's epb_flags: every frame has a direction) */
	rec_len = unlikely(pcapng) ? mgcap_pcapng_epb_len(caplen, MGCAP_PCAPNG_EPB_INBOUND) :
				     mgcap_rec_len(caplen, flags);
	head = ring->head;
	/* pairs with the reader's release store: it is done with those bytes */
	tail = smp_load_acquire(&ring->ctrl->consumer);
	used = head - tail;
	if (unlikely(used > data_size)) {
		/* the first time: wake the reader, whose poll now says EPOLLERR */
		wake = !(ring->flags & MGCAP_RING_F_BAD_CONSUMER);
		mgcap_ring_change_flags(ring, MGCAP_RING_F_BAD_CONSUMER, 0);
		goto drop;
	}
	if (unlikely(pcapng)) {
		skip = mgcap_pcapng_skip_before(head, data_size, rec_len);
		/* (never: no block comes closer than one to the data area's end) */
		if (unlikely(skip && WARN_ON_ONCE(skip < MGCAP_PCAPNG_BLOCK_MIN)))
			goto drop;
	} else {
		skip = mgcap_ring_skip_before(head, data_size, rec_len);
	}
	if (used + skip + rec_len > data_size)
		goto drop;

	if (unlikely(pcapng))
		mgcap_ring_put_epb(ring, head, skip, rec_len, skb, mac_len, vlan, caplen, wirelen,
				   flags, tstamp_ns);
	else
		mgcap_ring_put_rec(ring, head, skip, rec_len, skb, mac_len, vlan, caplen, wirelen,
				   queue, flags, tstamp_ns, sw_tstamp_ns);
	head += skip + rec_len;

	/* the record is complete before the reader can see the new index */
	smp_store_release(&ring->ctrl->producer, head);
	WRITE_ONCE(ring->head, head);
	WRITE_ONCE(ring->captured, ring->captured + 1);
	WRITE_ONCE(ring->bytes, ring->bytes + wirelen);
	if (unlikely(sent))
		WRITE_ONCE(ring->sent, ring->sent + 1);
	else if (unlikely(flags & MGCAP_REC_F_COALESCED))
		WRITE_ONCE(ring->coalesced, ring->coalesced + 1);
	used = head - tail;
	if (used > ring->high_water)
		WRITE_ONCE(ring->high_water, used);

	/* under the lock, as mgcap_ring_poll_readable() marks a sleeper */
	if (READ_ONCE(ring->reader_waiting)) {
		u64 wake_ns = READ_ONCE(ring->wake_ns), mark = READ_ONCE(ring->poll_mark);

		/* at the wakeup's bytes, or each record without its timer; never below the mark */
		if (wake_ns && READ_ONCE(ring->wake_bytes) > mark)
			mark = READ_ONCE(ring->wake_bytes);
		if (used >= mark) {
			WRITE_ONCE(ring->reader_waiting, false);
			wake = true;
		} else if (wake_ns && used >= READ_ONCE(ring->poll_mark)) {
			/* (below the poll mark, the timer would wake nobody) */
			arm_timer = !hrtimer_is_queued(&ring->wake_timer);
		}
	}
	spin_unlock(&ring->lock);

	if (wake)
		wake_up_interruptible_poll(&ring->wq, EPOLLIN | EPOLLRDNORM);
	else if (arm_timer)
		hrtimer_start(&ring->wake_timer, ns_to_ktime(READ_ONCE(ring->wake_ns)),
			      HRTIMER_MODE_REL);
	return;

drop:
	WRITE_ONCE(ring->dropped, ring->dropped + 1);
	spin_unlock(&ring->lock);
	if (unlikely(wake))
		wake_up_interruptible_poll(&ring->wq, EPOLLERR);
}
