/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mgcap kernel module: internal interfaces between its parts.
 *
 * One feature per file, and the files call each other in one direction
 * only: each may use what the files below it define, never what one above
 * it does (scripts/check-kmod-calls.sh checks it, from this list).
 *
 *   main.c      module init and exit, ifname=, the netdev notifier
 *   netlink.c   the generic netlink family: requests and replies
 *   capture.c   the capture list, the receive hook, start, mode and stop;
 *               the autostop's stop (its work) and the capture's reference
 *   coalescing.c  the device's GRO and LRO, off while it is captured
 *   chardev.c   the queue nodes: open, mmap, poll, ioctl, sysfs attributes
 *   reader.c    the readers of a queue, max_readers, the readers' workqueue;
 *               the autostop's reader count, its timer and its release
 *   queue.c     one receive queue: its ring, its readers' list, its lifetime
 *   tap.c       the tap of sent frames, in place while a reader takes them
 *   ring.c      one reader's ring: the producer (hook side), counters,
 *               flags, wakeups, its format, when its memory is renewed
 *   ring_mem.c  a ring's pages: in runs, mapped into the kernel and a reader
 *   pcapng.c    a pcapng ring's blocks and its stamp line
 *   filter.c    a reader's classic BPF filter
 *
 * What a lower file must have done by a higher one comes through data it is
 * handed (a work item's function, a pointer it keeps), never a call upwards.
 */
#ifndef MGCAP_H
#define MGCAP_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/mgcap.h>

struct bpf_prog;

/* A reader's filter, freed an RCU grace period after it is replaced. */
struct mgcap_filter_prog {
	struct bpf_prog *prog;
	u32 len;			/* classic instructions, as the reader gave them */
	struct rcu_head rcu;
};

struct mgcap_queue;

/* A ring's pages (ring_mem.c), mapped into the kernel at @addr, in order */
struct mgcap_ring_mem {
	void *addr;
	struct page **pages;
	u8 *run_left;		/* each page's: it and the pages after it in its run */
	unsigned int nr_pages;
};

/*
 * One reader's ring: its memory and indices, its counters, its reader's
 * settings and filter, its wake-up.  A queue's first reader reads the ring
 * the queue holds, which keeps filling between readers; a further reader
 * has one of its own, listed on the queue, for as long as it has the queue
 * open (reader.c).
 */
struct mgcap_ring {
	spinlock_t lock;		/* producers: one queue may run on several CPUs */
	u64 head;			/* producer index; the kernel's own copy */
	u64 mask;			/* data_size - 1 */
	struct mgcap_ring_ctrl *ctrl;	/* mem.addr: the first page */
	u8 *data;			/* mem.addr + PAGE_SIZE */
	struct mgcap_ring_mem mem;	/* what readers map */
	size_t mmap_size;
	bool unprivileged;		/* a reader's without CAP_NET_ADMIN (mgcap_ring_charge()) */
	struct mgcap_queue *q;		/* the queue it captures */

	u32 snaplen;			/* the reader's, else default_snaplen */
	u32 default_snaplen;
	u32 wake_bytes;
	u64 wake_ns;
	u32 poll_mark;			/* unread bytes poll calls readable */
	u32 tstamp_source;		/* enum mgcap_tstamp_source, per reader */
	u32 directions;			/* MGCAP_DIR_*: the frames it takes, per reader */
	/* enum mgcap_format, and a pcapng ring's interface and stamp line: under lock */
	u32 format;
	u32 interface_id;
	struct mgcap_tstamp_line line;	/* span_ns 0: none */
	struct mgcap_filter_prog __rcu *filter;	/* the reader's; NULL: every frame */
	atomic64_t filtered;		/* frames it rejected; no lock on that path */

	/* counters: written under lock, read with READ_ONCE() */
	u64 captured;
	u64 bytes;
	u64 dropped;
	u64 high_water;
	u64 coalesced;			/* received records of several wire frames */
	u64 sent;			/* records of frames the device sent */
	u64 unconverted;		/* NIC stamps its line did not cover */

	u32 flags;			/* MGCAP_RING_F_*, the kernel's copy: under lock */
	bool reader_waiting;		/* set under lock by poll, cleared by whoever wakes */
	wait_queue_head_t wq;
	struct hrtimer wake_timer;

	/* its reader, under the queue's readers_lock */
	struct pid *reader_pid;
	char reader_comm[TASK_COMM_LEN];
	/* a further reader's: its node on the queue's list, its free after RCU */
	struct list_head reader_node;
	struct rcu_work free_work;
};

/*
 * One receive queue of a capture: its node, its readers, and the ring its
 * first reader reads.  Refcounted: the capture holds one reference while
 * attached, each open reader another, so a queue and its ring outlive a
 * stop, an unregistered device or a moved device for as long as a reader
 * has it open or mapped.
 */
struct mgcap_queue {
	struct kref ref;
	/* the hook's: the first reader's ring, then the further readers' (RCU) */
	struct mgcap_ring ring;
	struct list_head more_readers;
	struct mutex readers_lock;	/* changes of more_readers and num_readers */
	u32 num_readers;		/* with the first; read with READ_ONCE() */
	bool first_reader;		/* a reader reads the ring */
	/* its capture's, no reference (see mgcap_autostop) */
	struct mgcap_autostop *autostop;
	struct mgcap_sent_tap *sent_tap;	/* its capture's, a reference; NULL: none */

	u32 index;
	u32 num_queues;
	u32 ifindex;
	u32 netns_inum;			/* the device's namespace, as /proc/PID/ns/net shows it */
	char ifname[IFNAMSIZ];
	u32 mode;			/* the capture's mode, for MGCAP_IOC_INFO */
	int minor;
	struct device *node;
	char devnode[64];
};

/*
 * A capture started for a reader (MGCAP_ATTR_AUTOSTOP) stops once no reader
 * has any of its queues open: MGCAP_AUTOSTOP_LINGER after its last reader
 * closed (a program that probes a device, then captures, finds it still
 * there), or when none opened one within MGCAP_AUTOSTOP_GRACE of the start
 * (the starter died or was refused).  The capture holds a reference until
 * it stopped, each open reader one until its close (a reader may outlive
 * the capture), and a pending stop one; the capture's queues point to it
 * without one, for readers to find it at open, while the capture runs.
 * capture.c creates it and owns the stop; reader.c counts the readers,
 * schedules and cancels the stop and frees it.
 */
#define MGCAP_AUTOSTOP_GRACE	(30 * HZ)
#define MGCAP_AUTOSTOP_LINGER	HZ
struct mgcap_autostop {
	struct kref ref;		/* the capture's, each reader's, a queued stop's */
	atomic_t readers;		/* open readers of every queue; INT_MIN: stopping */
	struct delayed_work stop;	/* capture.c's work, under RTNL */
};

/*
 * The tap of a capture's sent frames (tap.c): registered while the capture
 * runs and @readers, the readers whose rings take sent frames, is not 0.
 * The capture's reference, and one of each of its queues.
 */
struct mgcap_sent_tap {
	struct kref ref;
	struct mutex lock;		/* all below but @pt's function and @cap */
	u32 readers;
	bool running;			/* from the start's end to the stop */
	bool registered;
	unsigned long removed;		/* the RCU state at its last removal */
	struct packet_type pt;		/* the capture's function, for its device */
	struct mgcap_capture *cap;	/* until the capture stops (never used after) */
};

/* A captured net device: its queues and how packets go on after capture. */
struct mgcap_capture {
	struct list_head list;		/* mgcap_captures, under RTNL */
	struct net_device *dev;
	netdevice_tracker dev_tracker;
	u32 mode;			/* enum mgcap_mode, READ_ONCE() in the hot path */
	u32 num_queues;
	u64 ring_size;
	u32 snaplen;
	struct mgcap_autostop *autostop;	/* NULL: stays until stopped */
	struct nf_hook_ops vlan_hook;	/* its VLAN devices' frames (capture.c) ... */
	bool vlan_hooked;		/* ... once registered */
	bool keep_coalescing;		/* MGCAP_START_KEEP_COALESCING */
	struct mgcap_sent_tap *sent_tap;	/* what the device sends; NULL: not taken */
	netdev_features_t coalescing_off;	/* to give back at the stop (coalescing.c) */
	struct mgcap_queue *queues[];
};

/* capture.c, all under RTNL */
struct mgcap_capture *mgcap_capture_find(const struct net_device *dev);
/* mgcap_capture_start()'s @flags */
#define MGCAP_START_AUTOSTOP		BIT(0)	/* stop once its last reader closed */
#define MGCAP_START_KEEP_COALESCING	BIT(1)	/* leave GRO and LRO as they are */
#define MGCAP_START_RECEIVED_ONLY	BIT(2)	/* no tap for what the device sends */
int mgcap_capture_start(struct net_device *dev, u64 ring_size, u32 snaplen,
			u32 mode, u32 flags, struct netlink_ext_ack *extack);
int mgcap_capture_set_mode(struct mgcap_capture *cap, u32 mode);
int mgcap_capture_watch_vlans(struct mgcap_capture *cap);
void mgcap_capture_stop(struct mgcap_capture *cap);
void mgcap_capture_stop_all(void);
extern struct list_head mgcap_captures;

/* coalescing.c, under RTNL */
void mgcap_coalescing_turn_off(struct mgcap_capture *cap);
void mgcap_coalescing_changed(struct mgcap_capture *cap);
void mgcap_coalescing_give_back(struct mgcap_capture *cap);
u32 mgcap_coalescing_uapi(const struct mgcap_capture *cap);

/* queue.c */
struct mgcap_queue *mgcap_queue_create(u32 index, u64 ring_size, u32 snaplen);
void mgcap_queue_put(struct mgcap_queue *q);

/* tap.c */
struct mgcap_sent_tap *mgcap_sent_tap_create(struct mgcap_capture *cap,
					     const struct packet_type *template);
void mgcap_sent_tap_get(struct mgcap_sent_tap *tap);
void mgcap_sent_tap_put(struct mgcap_sent_tap *tap);
void mgcap_sent_tap_set_directions(struct mgcap_sent_tap *tap, struct mgcap_ring *ring,
				   u32 directions);
void mgcap_sent_tap_run(struct mgcap_sent_tap *tap);
void mgcap_sent_tap_stop(struct mgcap_sent_tap *tap);

/* ring_mem.c */
int mgcap_ring_mem_alloc(struct mgcap_ring_mem *mem, size_t size, gfp_t gfp);
void mgcap_ring_mem_free(struct mgcap_ring_mem *mem);
int mgcap_ring_mem_map(const struct mgcap_ring_mem *mem, struct vm_area_struct *vma);
bool mgcap_ring_mem_held(const struct mgcap_ring_mem *mem);
ssize_t mgcap_ring_mem_write(const struct mgcap_ring_mem *mem, unsigned int first,
			     unsigned int nr, struct file *file, loff_t pos);

/* ring.c */
#define MGCAP_RING_READER	BIT(0)	/* a further reader's */
#define MGCAP_RING_UNPRIVILEGED	BIT(1)	/* ... without CAP_NET_ADMIN */
int mgcap_ring_init(struct mgcap_ring *ring, struct mgcap_queue *q, u64 data_size, u32 snaplen,
		    unsigned int how);
void mgcap_ring_destroy(struct mgcap_ring *ring);
int mgcap_ring_map(struct mgcap_ring *ring, struct vm_area_struct *vma);
int mgcap_ring_renew_held(struct mgcap_ring *ring);
ssize_t mgcap_ring_write_pages(struct mgcap_ring *ring, u64 at, u64 len, struct file *file,
			       loff_t pos);
u64 mgcap_ring_out_of_order(struct mgcap_ring *ring);
void mgcap_ring_capture(struct mgcap_ring *ring, struct sk_buff *skb, u16 queue);
void mgcap_ring_detach(struct mgcap_ring *ring);
void mgcap_ring_get_stats(struct mgcap_ring *ring, struct mgcap_queue_stats *st);
void mgcap_ring_reset_reader_settings(struct mgcap_ring *ring);
bool mgcap_ring_poll_readable(struct mgcap_ring *ring);
bool mgcap_ring_has_flag(const struct mgcap_ring *ring, u32 flag);
void mgcap_ring_reader_gone(struct mgcap_ring *ring);
int mgcap_ring_set_format(struct mgcap_ring *ring, u32 format, u32 interface_id);
int mgcap_ring_set_tstamp(struct mgcap_ring *ring, u32 source);
int mgcap_ring_set_tstamp_line(struct mgcap_ring *ring, const struct mgcap_tstamp_line *line);
int mgcap_ring_fill_page(struct mgcap_ring *ring, u64 *end);

/* pcapng.c */
void mgcap_pcapng_filler(u8 *at, u32 len);
void mgcap_pcapng_epb_write(struct mgcap_pcapng_epb *epb, u32 len, u32 interface_id,
			    u64 tstamp_ns, u32 caplen, u32 wirelen, bool sent);
bool mgcap_pcapng_line_valid(const struct mgcap_tstamp_line *line);
bool mgcap_pcapng_line_convert(const struct mgcap_tstamp_line *line, s64 phc, u64 *sys);

/* reader.c */
extern unsigned int mgcap_max_readers;
int mgcap_readers_init(void);
void mgcap_readers_exit(void);
struct mgcap_ring *mgcap_reader_open(struct mgcap_queue *q);
void mgcap_reader_close(struct mgcap_ring *ring);
void mgcap_readers_detach(struct mgcap_queue *q);
void mgcap_readers_capture(struct mgcap_queue *q, struct sk_buff *skb, u16 queue);
void mgcap_autostop_schedule(struct mgcap_autostop *as, unsigned long delay);
void mgcap_autostop_cancel(struct mgcap_autostop *as);
void mgcap_autostop_put(struct mgcap_autostop *as);

/* filter.c */
int mgcap_filter_set(struct mgcap_ring *ring, const struct mgcap_filter *f);
void mgcap_filter_remove(struct mgcap_ring *ring);
void mgcap_filter_free(struct mgcap_filter_prog *filter);
bool mgcap_filter_rejects(const struct bpf_prog *prog, struct sk_buff *skb, u32 mac_len);

/* chardev.c */
int mgcap_chardev_init(void);
void mgcap_chardev_exit(void);
int mgcap_chardev_add(struct mgcap_queue *q, const struct net_device *dev);
void mgcap_chardev_remove(struct mgcap_queue *q);

/* netlink.c */
int mgcap_netlink_init(void);
void mgcap_netlink_exit(void);

#endif /* MGCAP_H */
