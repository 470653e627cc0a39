/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR BSD-2-Clause */
/*
 * mgcap: the one interface shared by the kernel module and user space.
 *
 * Ring layout, record format, character-device ioctls and generic netlink
 * attributes are all defined here and nowhere else.
 *
 * Each receive queue of a captured device has one ring, exposed as the
 * character device /dev/mgcap/IFNAME@QUEUE (devices outside the initial
 * network namespace: /dev/mgcap/nsINUM/IFNAME@QUEUE, INUM being the
 * namespace's inode number).  The node keeps the name the device had when
 * capture started; netlink (MGCAP_QATTR_DEVNODE) always reports it.
 * /sys/class/mgcap/<node name with '!' for '/'>/ has the attributes ifname,
 * queue, mode and netns (the inode number of the device's namespace, as
 * stat(2) of /proc/self/ns/net shows it), so a reader can find the captures
 * of its own namespace without netlink.
 *
 * The frames the device sends go into the ring of the queue whose number
 * is their transmit queue's, modulo the rings' count (unless its capture
 * started MGCAP_ATTR_RECEIVED_ONLY), for the readers that asked for them
 * (MGCAP_IOC_SET_DIRECTIONS).
 *
 * The mmap of a queue device is one control page followed by the data area
 * (mmap offset 0, length mgcap_queue_info.mmap_size, MAP_SHARED).
 * The kernel is the single producer, the reader the single consumer:
 *
 *   producer  free-running byte index, written by the kernel with release
 *             semantics after the record it covers is complete;
 *   consumer  free-running byte index, written by the reader with release
 *             semantics once it no longer needs the bytes before it.
 *
 * Byte index i lives at data[i & (data_size - 1)].  A full ring never
 * overwrites unread bytes: the packet is dropped and counted instead.
 * A record never wraps: where the bytes left before the end of the data
 * area are fewer than a record header, or hold a record flagged
 * MGCAP_REC_F_PAD, the reader skips to the start of the data area.
 *
 * Several readers may have one queue device open at once, up to the module
 * parameter max_readers (MGCAP_READERS_DEFAULT, at most MGCAP_READERS_MAX).
 * The first reads the capture's own ring, which goes on filling while nobody
 * reads it; each further reader gets a ring of its own, of the capture's ring
 * size, from open() until its last close or unmap.  What the first reader
 * left unread at its last close or unmap goes back to the ring, and the
 * kernel writes the control page anew: the next first reader starts with
 * what arrived since, which no reader could touch (where the last one still
 * held a page by other means, the ring has new memory, and nothing unread).
 * Every reader sees every frame, with its own snaplen, stamps, wakeups and
 * counters, and a reader that falls behind fills and drops only in its own
 * ring.  The layout above is the same for both.
 */
#ifndef _UAPI_LINUX_MGCAP_H
#define _UAPI_LINUX_MGCAP_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define MGCAP_GENL_NAME		"mgcap"
#define MGCAP_GENL_VERSION	1

#define MGCAP_DEVNODE_DIR	"/dev/mgcap"

/* Ring data area: a power of two; requests are rounded up. */
#define MGCAP_RING_SIZE_MIN	65536ULL	/* 64 KiB */
#define MGCAP_RING_SIZE_DEFAULT	8388608ULL	/* 8 MiB */
#define MGCAP_RING_SIZE_MAX	1073741824ULL	/* 1 GiB */

#define MGCAP_READERS_DEFAULT	8
#define MGCAP_READERS_MAX	64

/*
 * Bytes of each frame copied into the ring.  The default is capped so a
 * record fits a quarter of the ring.
 */
#define MGCAP_SNAPLEN_MIN	1
#define MGCAP_SNAPLEN_MAX	262144
#define MGCAP_SNAPLEN_DEFAULT	MGCAP_SNAPLEN_MAX

enum mgcap_mode {
	MGCAP_MODE_MIRROR,	/* copy, then pass the packet to the stack */
	MGCAP_MODE_DROP,	/* copy, then consume the packet */
	__MGCAP_MODE_MAX
};

#define MGCAP_RING_MAGIC	0x6d676370	/* "mgcp" */
#define MGCAP_RING_VERSION	1

/* mgcap_ring_ctrl.flags, set by the kernel only */
#define MGCAP_RING_F_DETACHED	_BITUL(0)	/* capture stopped: no more records */
#define MGCAP_RING_F_BAD_CONSUMER _BITUL(1)	/* reader wrote an impossible index */

struct mgcap_ring_ctrl {
	__u32 magic;		/* MGCAP_RING_MAGIC */
	__u32 version;		/* MGCAP_RING_VERSION */
	__u32 flags;		/* MGCAP_RING_F_* */
	__u32 queue;		/* receive queue this ring serves */
	__u64 data_offset;	/* offset of the data area in the mapping */
	__u64 data_size;	/* bytes in the data area, a power of two */
	__u64 reserved0[4];
	/* own cache lines, so producer and consumer do not share one */
	__u64 producer;
	__u64 reserved1[7];
	__u64 consumer;
	/*
	 * Written by the reader alone, for the status dump: records of this
	 * ring it handed out after a newer record of another ring (a merged
	 * read's order missed), from 0 at its open.  The kernel only
	 * reports it.
	 */
	__u64 out_of_order;
	__u64 reserved2[6];
};

/* mgcap_rec.flags */
#define MGCAP_REC_F_HWTSTAMP	_BITUL(0)	/* tstamp_ns is the NIC's clock */
#define MGCAP_REC_F_VLAN	_BITUL(1)	/* an offloaded VLAN tag was re-inserted */
#define MGCAP_REC_F_SWTSTAMP	_BITUL(2)	/* the kernel's stamp follows the frame */
/*
 * Several wire frames merged into one before the capture saw them (GRO,
 * LRO, a NIC's hardware GRO that the capture could not turn off, or that
 * its starter kept: MGCAP_ATTR_KEEP_COALESCING), with one stamp.
 */
#define MGCAP_REC_F_COALESCED	_BITUL(3)
/*
 * The device sent the frame (it was received otherwise): the frame as its
 * driver got it, so a large send of a segmentation offload (TSO, GSO) is
 * one record, flagged MGCAP_REC_F_COALESCED, as AF_PACKET shows it.  Its
 * stamp is the kernel's (no NIC stamps every frame it sends): never
 * MGCAP_REC_F_HWTSTAMP, and 0 for a reader of MGCAP_TSTAMP_HW_AND_SW.  Its
 * queue is the transmit queue the stack chose.
 */
#define MGCAP_REC_F_SENT	_BITUL(4)
#define MGCAP_REC_F_PAD		_BITUL(15)	/* filler up to the end of the data area */

/*
 * One captured frame.  Without MGCAP_REC_F_HWTSTAMP the stamp is the kernel's
 * real time (CLOCK_REALTIME) at capture.  Never zero, but for a reader of
 * MGCAP_TSTAMP_HW_AND_SW, whose records hold 0 where the NIC gave no stamp.
 */
struct mgcap_rec {
	__u32 rec_len;		/* bytes from this header to the next, MGCAP_REC_ALIGN-ed */
	__u32 caplen;		/* frame bytes that follow the header */
	__u32 wirelen;		/* frame length on the wire (with a re-inserted tag) */
	__u16 queue;		/* receive queue the NIC recorded (0: none); sent: transmit queue */
	__u16 flags;		/* MGCAP_REC_F_* */
	__u64 tstamp_ns;	/* nanoseconds since the epoch of its clock */
	__u8 data[];
};

#define MGCAP_REC_ALIGN		8U
#define MGCAP_REC_LEN(caplen) \
	((__u32)((sizeof(struct mgcap_rec) + (caplen) + MGCAP_REC_ALIGN - 1) & \
		 ~(MGCAP_REC_ALIGN - 1)))

/*
 * With MGCAP_REC_F_SWTSTAMP (every record of a reader of
 * MGCAP_TSTAMP_HW_AND_SW), the kernel's real time at capture follows the
 * frame's bytes, at the next 8-byte boundary: the record is 8 bytes longer.
 */
#define MGCAP_REC_SWTSTAMP_OFF(caplen)	MGCAP_REC_LEN(caplen)

/* A record's rec_len: its frame's @caplen bytes, and its stamp after them by @flags. */
static inline __u32 mgcap_rec_len(__u32 caplen, __u16 flags)
{
	return MGCAP_REC_LEN(caplen) + (flags & MGCAP_REC_F_SWTSTAMP ? sizeof(__u64) : 0);
}

static inline __u64 mgcap_rec_swtstamp(const struct mgcap_rec *rec)
{
	return *(const __u64 *)((const __u8 *)rec + MGCAP_REC_SWTSTAMP_OFF(rec->caplen));
}

/*
 * Bytes the producer skips (as padding) before placing a record of rec_len
 * bytes at free-running index @head: records never straddle the end.
 */
static inline __u64 mgcap_ring_skip_before(__u64 head, __u64 data_size, __u32 rec_len)
{
	__u64 room = data_size - (head & (data_size - 1));

	return rec_len > room ? room : 0;
}

/*
 * The padding rule (see above): the record at @at, before @end (the end of
 * the data area, or of what may be read there), or none (a null pointer)
 * where the bytes from @at on are padding.
 */
static inline const struct mgcap_rec *mgcap_ring_rec_at(const __u8 *at, const __u8 *end)
{
	const struct mgcap_rec *rec = (const struct mgcap_rec *)at;

	if (end - at < (long)sizeof(*rec) || (rec->flags & MGCAP_REC_F_PAD))
		return (const struct mgcap_rec *)0;
	return rec;
}

/*
 * Bytes the reader skips at free-running index @tail instead of reading a
 * record: nonzero when the data area ends there.
 */
static inline __u64 mgcap_ring_skip_at(__u64 tail, __u64 data_size, const __u8 *data)
{
	__u64 pos = tail & (data_size - 1);

	return mgcap_ring_rec_at(data + pos, data + data_size) ? 0 : data_size - pos;
}

/*
 * A ring of pcapng blocks (MGCAP_IOC_SET_FORMAT, MGCAP_FORMAT_PCAPNG): for a
 * reader that writes the frames to a pcapng file with no copy of its own.
 * Its records are enhanced packet blocks as the file holds them, in host
 * byte order: the block's header (struct mgcap_pcapng_epb), the frame padded
 * with zeros to 4 bytes, the epb_flags option with the frame's direction
 * (inbound, or outbound for MGCAP_REC_F_SENT), the end of options and the
 * trailing length.  A block never wraps: the end of the data area, and
 * whatever MGCAP_IOC_FILL_PAGE fills, holds a filler block (type
 * MGCAP_PCAPNG_FILLER, zeros), a block type of local use that pcapng's
 * readers skip.  Every index the ring's producer and consumer take is a
 * multiple of 4, and the bytes between two page boundaries are whole
 * blocks only where the kernel was asked to close a page: a writer writes
 * whole pages (O_DIRECT), and asks for the last page's filler before it
 * ends a file.
 *
 * The stamp is the one the file records, in nanoseconds (if_tsresol 9):
 * with MGCAP_TSTAMP_SW the kernel's, with MGCAP_TSTAMP_HW_OR_SW the NIC's
 * where the frame has one, in system time by the ring's stamp line where
 * one is set and covers it (MGCAP_IOC_SET_TSTAMP_LINE), else the kernel's
 * (counted: mgcap_queue_stats.unconverted); without a line, the NIC's own
 * clock.  MGCAP_TSTAMP_HW_AND_SW has no place in a block (one stamp).
 */
enum mgcap_format {
	MGCAP_FORMAT_RECORDS,	/* struct mgcap_rec (the default) */
	MGCAP_FORMAT_PCAPNG,	/* enhanced packet blocks */
	__MGCAP_FORMAT_MAX
};

struct mgcap_format_req {
	__u32 format;		/* enum mgcap_format */
	__u32 interface_id;	/* MGCAP_FORMAT_PCAPNG: the blocks' interface; else 0 */
	__u32 flags;		/* 0 */
	__u32 reserved;		/* 0 */
};

#define MGCAP_PCAPNG_EPB	0x00000006U	/* enhanced packet block */
#define MGCAP_PCAPNG_FILLER	0x80006d67U	/* local use ("mg"): skipped by readers */
#define MGCAP_PCAPNG_OPT_ENDOFOPT	0
#define MGCAP_PCAPNG_OPT_EPB_FLAGS	2	/* 32 bits, bits 0-1 the direction */
#define MGCAP_PCAPNG_EPB_INBOUND	0x1U
#define MGCAP_PCAPNG_EPB_OUTBOUND	0x2U
/* the epb_flags option's bytes in a block: its code and length, its value, the end of options */
#define MGCAP_PCAPNG_EPB_FLAGS_BYTES	12U
/* the smallest block: type, total length, trailing length */
#define MGCAP_PCAPNG_BLOCK_MIN	12U

struct mgcap_pcapng_epb {
	__u32 type;		/* MGCAP_PCAPNG_EPB */
	__u32 total_len;	/* of the whole block, trailing length included */
	__u32 interface_id;
	__u32 ts_high;		/* the stamp's nanoseconds, upper 32 bits */
	__u32 ts_low;
	__u32 caplen;
	__u32 wirelen;
	__u8 data[];
};

/* An enhanced packet block's length: @caplen bytes, and the epb_flags option where @flags. */
static inline __u32 mgcap_pcapng_epb_len(__u32 caplen, __u32 flags)
{
	return (__u32)sizeof(struct mgcap_pcapng_epb) + ((caplen + 3) & ~3U) +
	       (flags ? MGCAP_PCAPNG_EPB_FLAGS_BYTES : 0) + 4;
}

/*
 * Bytes a filler takes before a block of @len bytes at free-running index
 * @head of a pcapng ring: the rest of the data area, where the block does
 * not fit before its end, or would leave a gap there that no block fills.
 */
static inline __u64 mgcap_pcapng_skip_before(__u64 head, __u64 data_size, __u32 len)
{
	__u64 room = data_size - (head & (data_size - 1));

	return len == room || (len < room && room - len >= MGCAP_PCAPNG_BLOCK_MIN) ? 0 : room;
}

/*
 * The filler's bytes that take index @at to the next multiple of @page (a
 * power of two, 16 at least): 0 at one, else up to it, or to the one after
 * where that leaves less than a block (@at a multiple of 4, as every
 * block's length is).  A pcapng ring never comes closer than a block to the
 * end of its data area: its filler never passes it.
 */
static inline __u32 mgcap_pcapng_filler_len(__u64 at, __u32 page)
{
	__u32 gap = (__u32)(-at & (page - 1));

	return gap && gap < MGCAP_PCAPNG_BLOCK_MIN ? gap + page : gap;
}

/*
 * MGCAP_IOC_SET_TSTAMP_LINE: a NIC stamp s with phc_lo <= s <= phc_lo +
 * span_ns is written as sys_lo + ((s - phc_lo) * rate >> 32); span_ns 0
 * removes the line.  A reader that converts the NIC's clock (the samples
 * and the drift model are user space's) sets a new one before the last
 * runs out.  At most MGCAP_TSTAMP_LINE_SPAN_MAX long, its rate within
 * 1000 ppm of 1 (2^32); with span_ns 0, every field 0.
 */
struct mgcap_tstamp_line {
	__s64 phc_lo;		/* the NIC's clock, ns */
	__u64 span_ns;
	__s64 sys_lo;		/* system time at phc_lo, ns since the epoch */
	__u64 rate;		/* system ns per NIC ns, << 32 */
};

#define MGCAP_TSTAMP_LINE_SPAN_MAX	10000000000ULL	/* 10 s */

/* ioctls on /dev/mgcap/... queue devices */
struct mgcap_queue_info {
	__u32 version;		/* MGCAP_RING_VERSION */
	__u32 queue;		/* the queue this device serves */
	__u32 num_queues;	/* rings of the captured device */
	__u32 ifindex;		/* at the time capture started */
	__u64 data_size;	/* ring data area bytes */
	__u64 mmap_size;	/* exact length to mmap */
	__u32 snaplen;		/* this ring's snaplen */
	__u32 mode;		/* enum mgcap_mode */
	char ifname[16];	/* at the time capture started */
	__u32 netns;		/* its network namespace's inode number, as sysfs's netns */
	__u32 reserved;		/* 0 */
};

struct mgcap_queue_stats {
	__u64 captured;		/* records written */
	__u64 bytes;		/* wire bytes of captured frames */
	__u64 dropped;		/* frames lost because the ring was full */
	__u64 fill;		/* unread bytes now */
	__u64 high_water;	/* most unread bytes seen */
	__u64 coalesced;	/* records of received frames with MGCAP_REC_F_COALESCED */
	__u64 sent;		/* records of frames the device sent (MGCAP_REC_F_SENT) */
	/* NIC stamps a pcapng ring's stamp line did not cover: the kernel's instead */
	__u64 unconverted;
};

/*
 * Wakeup coalescing: a sleeping reader is woken once @bytes are unread, or
 * @usecs after the first unread record arrived, whichever comes first.
 * bytes == 1 wakes on every record (libpcap's immediate mode).  Only a
 * reader that poll found with nothing to read is woken: wait level-triggered
 * (poll, select, epoll without EPOLLET).
 */
struct mgcap_wakeup {
	__u32 bytes;
	__u32 usecs;
};

#define MGCAP_WAKEUP_USECS_MAX	1000000U

/*
 * MGCAP_IOC_SET_POLL_MARK: poll reports the ring readable only once this
 * many bytes are unread (1, the default: any record), and a sleeping reader
 * is woken no earlier.  A reader that holds records back (for the order of
 * several rings) waits on their rings this way, to be woken where they fill
 * rather than at once.  Set again at every open; 1 to MGCAP_IOC_INFO's
 * data_size.
 */

/*
 * MGCAP_IOC_SET_DIRECTIONS: which frames this reader's ring takes, some of
 * MGCAP_DIR_*: the frames the device received only, by default, so that a
 * reader from before sent frames were captured never meets one.  Frames of
 * a direction left out take no ring space.  Set again at every open.
 */
#define MGCAP_DIR_RECEIVED	_BITUL(0)
#define MGCAP_DIR_SENT		_BITUL(1)	/* MGCAP_REC_F_SENT */

/* MGCAP_IOC_SET_TSTAMP: which clock stamps this reader's records */
enum mgcap_tstamp_source {
	MGCAP_TSTAMP_HW_OR_SW,	/* the NIC's stamp when the frame has one (default) */
	MGCAP_TSTAMP_SW,	/* always the kernel's real time */
	/*
	 * The NIC's stamp, or 0 where it gave none, and the kernel's real time
	 * after the frame (MGCAP_REC_F_SWTSTAMP): for a reader that converts
	 * the NIC's clock, and needs a stamp where it cannot.  A record's
	 * stamp is then a PHC value or nothing, never system time.
	 */
	MGCAP_TSTAMP_HW_AND_SW,
	__MGCAP_TSTAMP_MAX
};

/*
 * MGCAP_IOC_SET_FILTER: a classic BPF program (struct sock_filter, the same
 * layout as libpcap's struct bpf_insn) that this reader's frames must pass,
 * run on each frame from its MAC header before it takes ring space; len 0
 * (and insns 0) removes it.  A return of 0 rejects the frame; any other
 * keeps it, cut by the reader's snaplen only.  Frames it rejects are counted
 * (MGCAP_RATTR_FILTERED), not dropped.  A frame whose VLAN tag was taken out
 * (by the NIC, or by the stack before mgcap sees it) is let through without
 * running it: the program would see the frame without the tag the record
 * has, so the reader's own filter must decide.  Keep filtering in user
 * space too: records captured before a change were judged by the old
 * program.
 */
struct mgcap_filter {
	__u32 len;		/* instructions, at most MGCAP_FILTER_LEN_MAX; 0: none */
	__u32 reserved;		/* 0 */
	__u64 insns;		/* user pointer to len struct sock_filter; 0 with len 0 */
};

#define MGCAP_FILTER_LEN_MAX	4096	/* BPF_MAXINSNS */

#define MGCAP_IOC_MAGIC		0xb7
#define MGCAP_IOC_INFO		_IOR(MGCAP_IOC_MAGIC, 1, struct mgcap_queue_info)
/* INFO as modules before netns answered it: the struct's first 56 bytes */
#define MGCAP_IOC_INFO_V1	_IOC(_IOC_READ, MGCAP_IOC_MAGIC, 1, 56)
#define MGCAP_IOC_STATS		_IOR(MGCAP_IOC_MAGIC, 2, struct mgcap_queue_stats)
/* STATS as modules before coalesced frames were counted answered it: the first 40 bytes */
#define MGCAP_IOC_STATS_V1	_IOC(_IOC_READ, MGCAP_IOC_MAGIC, 2, 40)
/* ... and before sent frames were captured: the first 48 bytes */
#define MGCAP_IOC_STATS_V2	_IOC(_IOC_READ, MGCAP_IOC_MAGIC, 2, 48)
/* ... and before pcapng rings: the first 56 bytes */
#define MGCAP_IOC_STATS_V3	_IOC(_IOC_READ, MGCAP_IOC_MAGIC, 2, 56)
/* no record published after SET_SNAPLEN returns is longer than it says */
#define MGCAP_IOC_SET_SNAPLEN	_IOW(MGCAP_IOC_MAGIC, 3, __u32)
#define MGCAP_IOC_SET_WAKEUP	_IOW(MGCAP_IOC_MAGIC, 4, struct mgcap_wakeup)
#define MGCAP_IOC_SET_TSTAMP	_IOW(MGCAP_IOC_MAGIC, 5, __u32)
#define MGCAP_IOC_SET_FILTER	_IOW(MGCAP_IOC_MAGIC, 6, struct mgcap_filter)
#define MGCAP_IOC_SET_POLL_MARK	_IOW(MGCAP_IOC_MAGIC, 7, __u32)
#define MGCAP_IOC_SET_DIRECTIONS	_IOW(MGCAP_IOC_MAGIC, 8, __u32)
/*
 * What the ring holds from now on: what it held unread is dropped (not
 * counted), and the indices start again at the next page boundary, both
 * the kernel's (a bad consumer index forgotten).  For a reader that has not
 * begun to read, or has ended all it did with the ring (its writes from
 * the mapping too): the bytes it held are the producer's again.  Set again
 * at every open.
 */
#define MGCAP_IOC_SET_FORMAT	_IOW(MGCAP_IOC_MAGIC, 9, struct mgcap_format_req)
#define MGCAP_IOC_SET_TSTAMP_LINE	_IOW(MGCAP_IOC_MAGIC, 10, struct mgcap_tstamp_line)
/*
 * A pcapng ring's producer index moved to the next page boundary, a filler
 * block before it (none where it is at one), and that index written to the
 * __u64: every block before it is whole there, and a writer that ends a
 * file writes up to it.  EAGAIN where the ring has no room for the filler
 * (write what is there, then ask again).
 */
#define MGCAP_IOC_FILL_PAGE	_IOR(MGCAP_IOC_MAGIC, 11, __u64)

/*
 * MGCAP_IOC_WRITE_PAGES: @len bytes of the ring's data from ring index @at
 * (both whole pages, @len at most the data area; the index wraps at its
 * end as a reader's does) written to @fd, a regular file open for writing,
 * at @pos, as pwrite(2) of the mapping would, but from the ring's own
 * pages: none of the mapping is pinned, and pages that lie one after
 * another go as one vector (with O_DIRECT, one segment).  Returns the
 * bytes written, as pwrite(2): fewer at a full disk.  EBADF: @fd is no
 * file, or not open for writing; ESPIPE: a file without positions;
 * EINVAL: a range, @pos or a kind of file it does not take, @reserved not
 * 0.  The reader holds those bytes (its consumer index) until it returns.
 * It works after the capture's stop too, on what the ring kept.
 */
struct mgcap_write_pages {
	__s32 fd;
	__u32 reserved;		/* 0 */
	__u64 at;
	__u64 len;
	__s64 pos;
};

#define MGCAP_IOC_WRITE_PAGES	_IOW(MGCAP_IOC_MAGIC, 12, struct mgcap_write_pages)

/*
 * The same through io_uring, several in flight: IORING_OP_URING_CMD on the
 * queue's node, cmd_op MGCAP_URING_CMD_WRITE_PAGES, the struct
 * mgcap_write_pages in the entry's cmd (a ring set up with
 * IORING_SETUP_SQE128, not IORING_SETUP_IOPOLL), the rest of the entry's
 * cmd 0 (EINVAL otherwise: room for later fields); its result the bytes
 * written, or -errno.  The write blocks, so it is made in io_uring's
 * workers: ask for that with IOSQE_ASYNC, which also has the entry copied
 * at submission (some 6.10 to 6.13 kernels may otherwise read a command
 * from its entry after the next submissions reused it).  @fd is looked up
 * when the write is made, not at submission: keep it open until the
 * completion (a registered file is not taken).
 */
#define MGCAP_URING_CMD_WRITE_PAGES	1
/* the bytes of an entry's cmd with IORING_SETUP_SQE128: the command, then 0 */
#define MGCAP_URING_CMD_ROOM		80

/*
 * Generic netlink family MGCAP_GENL_NAME.  START, SET and GET reply with
 * the capture: its attributes and, in MGCAP_ATTR_QUEUES, each queue (and
 * its readers).
 *
 * GET of one device answers in one message; where its queues do not fit
 * (their nest ends at 64 KiB: some 600 queues, fewer with readers) it fails
 * with EMSGSIZE, and the dump lists it instead: a dump goes on over as many
 * messages as it takes, one capture's queues split over several, each with
 * the capture's attributes.
 *
 * START and SET report whether the change was made, nothing else: once it
 * is, they succeed.  Where their listing does not fit one message, or no
 * memory can be had for it, the reply carries the capture's attributes
 * without MGCAP_ATTR_QUEUES (GET or the dump lists the queues); at worst no
 * reply comes, only the request's ACK (NLM_F_ACK), which says it succeeded.
 *
 * START, STOP and SET need CAP_NET_ADMIN.  GET and the dump need nothing,
 * and show anyone what the queue nodes' listing would: the devices, their
 * settings, queues and nodes, with the counters of each queue and of each
 * of its readers.  Who reads and how (a reader's PID, COMM, SNAPLEN,
 * FILTERED and FILTER_LEN) only a caller with CAP_NET_ADMIN in the device's
 * network namespace sees (the socket's opener and the asking process both);
 * for others a reader's nest carries its counters alone (the five and
 * COALESCED).
 */
enum mgcap_cmd {
	MGCAP_CMD_UNSPEC,
	/* IFINDEX|IFNAME [RING_SIZE] [SNAPLEN] [MODE] [AUTOSTOP] [KEEP_COALESCING] */
	MGCAP_CMD_START,
	MGCAP_CMD_STOP,		/* IFINDEX|IFNAME */
	MGCAP_CMD_SET,		/* IFINDEX|IFNAME MODE */
	MGCAP_CMD_GET,		/* IFINDEX|IFNAME, or dump: every captured device */
	__MGCAP_CMD_MAX
};

#define MGCAP_CMD_MAX (__MGCAP_CMD_MAX - 1)

enum mgcap_attr {
	MGCAP_ATTR_UNSPEC,
	MGCAP_ATTR_PAD,
	MGCAP_ATTR_IFINDEX,	/* u32 */
	MGCAP_ATTR_IFNAME,	/* string */
	MGCAP_ATTR_MODE,	/* u32, enum mgcap_mode */
	MGCAP_ATTR_RING_SIZE,	/* u64, data bytes per queue */
	MGCAP_ATTR_SNAPLEN,	/* u32 */
	MGCAP_ATTR_NUM_QUEUES,	/* u32, reply only */
	MGCAP_ATTR_QUEUES,	/* nest of MGCAP_ATTR_QUEUE, reply only */
	MGCAP_ATTR_AUTOSTOP,	/* flag: stop once the last reader of every queue closed */
	/* flag: leave the device's coalescing as it is (see MGCAP_COALESCING_GRO) */
	MGCAP_ATTR_KEEP_COALESCING,
	MGCAP_ATTR_COALESCING_OFF,	/* u32, MGCAP_COALESCING_*, reply only */
	/* flag: the frames it receives only, not those it sends (MGCAP_REC_F_SENT) */
	MGCAP_ATTR_RECEIVED_ONLY,
	__MGCAP_ATTR_MAX
};

#define MGCAP_ATTR_MAX (__MGCAP_ATTR_MAX - 1)

/*
 * What merges received frames before the capture sees them, each as
 * ethtool -K names it.  A capture records frames as they were on the wire:
 * while a device is captured, whichever of these it has on and can turn
 * off are off (unless its START had MGCAP_ATTR_KEEP_COALESCING), and
 * MGCAP_ATTR_COALESCING_OFF says which.  The stop turns them on again,
 * each where nobody turned it on meanwhile (after that, it is theirs).
 */
#define MGCAP_COALESCING_GRO		_BITUL(0)	/* gro */
#define MGCAP_COALESCING_LRO		_BITUL(1)	/* lro */
#define MGCAP_COALESCING_GRO_HW		_BITUL(2)	/* rx-gro-hw */
#define MGCAP_COALESCING_GRO_LIST	_BITUL(3)	/* rx-gro-list */
#define MGCAP_COALESCING_GRO_UDP_FWD	_BITUL(4)	/* rx-udp-gro-forwarding */

/* one nest per queue inside MGCAP_ATTR_QUEUES */
#define MGCAP_ATTR_QUEUE	1

enum mgcap_queue_attr {
	MGCAP_QATTR_UNSPEC,
	MGCAP_QATTR_PAD,
	MGCAP_QATTR_ID,		/* u32 */
	MGCAP_QATTR_DEVNODE,	/* string, e.g. "/dev/mgcap/eth0@0" */
	/* the five counters, in the same order as in a reader's nest */
	MGCAP_QATTR_CAPTURED,	/* u64 */
	MGCAP_QATTR_BYTES,	/* u64 */
	MGCAP_QATTR_DROPPED,	/* u64 */
	MGCAP_QATTR_FILL,	/* u64 */
	MGCAP_QATTR_HIGH_WATER,	/* u64 */
	MGCAP_QATTR_NUM_READERS, /* u32, readers that have the queue open */
	MGCAP_QATTR_READERS,	/* nest of MGCAP_ATTR_READER, one per reader */
	MGCAP_QATTR_COALESCED,	/* u64, records of coalesced received frames */
	MGCAP_QATTR_SENT,	/* u64, records of frames the device sent */
	__MGCAP_QATTR_MAX
};

#define MGCAP_QATTR_MAX (__MGCAP_QATTR_MAX - 1)

/*
 * One nest per reader inside MGCAP_QATTR_READERS.  The first reader reads
 * the capture's own ring: its counters are the queue's, from the start of
 * the capture (so FILTERED too counts what earlier first readers' filters
 * rejected).  A further reader's count from its open().
 */
#define MGCAP_ATTR_READER	1

enum mgcap_reader_attr {
	MGCAP_RATTR_UNSPEC,
	MGCAP_RATTR_PAD,
	/* PID to SNAPLEN, FILTERED, FILTER_LEN: to CAP_NET_ADMIN only (see above) */
	MGCAP_RATTR_PID,	/* u32, the process that opened it, in the asker's pid namespace */
	MGCAP_RATTR_COMM,	/* string, that process's name at open; none where PID is 0 */
	MGCAP_RATTR_SNAPLEN,	/* u32 */
	/* the five counters, in the same order as in the queue's nest */
	MGCAP_RATTR_CAPTURED,	/* u64 */
	MGCAP_RATTR_BYTES,	/* u64 */
	MGCAP_RATTR_DROPPED,	/* u64 */
	MGCAP_RATTR_FILL,	/* u64 */
	MGCAP_RATTR_HIGH_WATER,	/* u64 */
	MGCAP_RATTR_FILTERED,	/* u64, frames its kernel filter rejected */
	MGCAP_RATTR_FILTER_LEN,	/* u32, instructions of its kernel filter; 0: none */
	MGCAP_RATTR_OUT_OF_ORDER, /* u64, as the reader counts it (mgcap_ring_ctrl) */
	MGCAP_RATTR_COALESCED,	/* u64, records of coalesced received frames */
	MGCAP_RATTR_SENT,	/* u64, records of frames the device sent */
	__MGCAP_RATTR_MAX
};

#define MGCAP_RATTR_MAX (__MGCAP_RATTR_MAX - 1)

#endif /* _UAPI_LINUX_MGCAP_H */
