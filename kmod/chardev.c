// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap character devices: /dev/mgcap/IFNAME@QUEUE, one per queue.
 *
 * One cdev covers the whole minor range; open() looks the minor up, so a
 * node removed at stop can never reach a freed queue.  Each open is a reader
 * with a ring of its own (reader.c); every file operation acts on that ring.
 */
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>

#include "compat.h"
#include "mgcap.h"

#define MGCAP_MINORS	BIT(16)

static dev_t mgcap_devt;
static struct cdev mgcap_cdev;
static DEFINE_XARRAY_ALLOC(mgcap_minors);
static u32 mgcap_next_minor;	/* under RTNL, as every allocation */
/* What a reader needs to list captures without netlink. */
static ssize_t ifname_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	const struct mgcap_queue *q = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", q->ifname);
}
static DEVICE_ATTR_RO(ifname);

static ssize_t queue_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	const struct mgcap_queue *q = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n", q->index);
}
static DEVICE_ATTR_RO(queue);

static ssize_t mode_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	const struct mgcap_queue *q = dev_get_drvdata(dev);
	bool drop = READ_ONCE(q->mode) == MGCAP_MODE_DROP;

	return sysfs_emit(buf, "%s\n", drop ? "drop" : "mirror");
}
static DEVICE_ATTR_RO(mode);

static ssize_t netns_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	const struct mgcap_queue *q = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n", q->netns_inum);
}
static DEVICE_ATTR_RO(netns);

static struct attribute *mgcap_node_attrs[] = {
	&dev_attr_ifname.attr,
	&dev_attr_netns.attr,
	&dev_attr_queue.attr,
	&dev_attr_mode.attr,
	NULL,
};
ATTRIBUTE_GROUPS(mgcap_node);

static struct class mgcap_class = {
	.name = "mgcap",
	.dev_groups = mgcap_node_groups,
};

static int mgcap_open(struct inode *inode, struct file *file)
{
	struct mgcap_queue *q;

	xa_lock(&mgcap_minors);
	q = xa_load(&mgcap_minors, iminor(inode));
	if (q)
		kref_get(&q->ref);
	xa_unlock(&mgcap_minors);
	if (!q)
		return -ENODEV;

	file->private_data = mgcap_reader_open(q);
	if (IS_ERR(file->private_data)) {
		mgcap_queue_put(q);
		return PTR_ERR(file->private_data);
	}
	return stream_open(inode, file);
}

static int mgcap_release(struct inode *inode, struct file *file)
{
	mgcap_reader_close(file->private_data);
	return 0;
}

static int mgcap_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	vm_flags_clear(vma, VM_MAYEXEC);
	return mgcap_ring_map(file->private_data, vma);
}

static __poll_t mgcap_poll(struct file *file, poll_table *wait)
{
	struct mgcap_ring *ring = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &ring->wq, wait);
	if (mgcap_ring_poll_readable(ring))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (mgcap_ring_has_flag(ring, MGCAP_RING_F_DETACHED))
		mask |= EPOLLHUP;
	if (mgcap_ring_has_flag(ring, MGCAP_RING_F_BAD_CONSUMER))
		mask |= EPOLLERR;
	return mask;
}

/* @len: all of it, or what MGCAP_IOC_INFO_V1's readers know of it */
static long mgcap_ioctl_info(struct mgcap_ring *ring, void __user *arg, size_t len)
{
	const struct mgcap_queue *q = ring->q;
	struct mgcap_queue_info info;

	memset(&info, 0, sizeof(info));
	info.version = MGCAP_RING_VERSION;
	info.queue = q->index;
	info.num_queues = q->num_queues;
	info.ifindex = q->ifindex;
	info.data_size = ring->mask + 1;
	info.mmap_size = ring->mmap_size;
	info.snaplen = READ_ONCE(ring->snaplen);
	info.mode = READ_ONCE(q->mode);
	strscpy(info.ifname, q->ifname, sizeof(info.ifname));
	info.netns = q->netns_inum;
	return copy_to_user(arg, &info, len) ? -EFAULT : 0;
}

/* @len: all of it, or what MGCAP_IOC_STATS_V1's readers know of it */
static long mgcap_ioctl_stats(struct mgcap_ring *ring, void __user *arg, size_t len)
{
	struct mgcap_queue_stats st;

	mgcap_ring_get_stats(ring, &st);
	return copy_to_user(arg, &st, len) ? -EFAULT : 0;
}

static long mgcap_ioctl_set_snaplen(struct mgcap_ring *ring, u32 __user *arg)
{
	u32 snaplen;

	if (get_user(snaplen, arg))
		return -EFAULT;
	if (snaplen < MGCAP_SNAPLEN_MIN || snaplen > ring->default_snaplen)
		return -EINVAL;
	/* the producer cuts records under the lock: none published later is longer */
	spin_lock_bh(&ring->lock);
	WRITE_ONCE(ring->snaplen, snaplen);
	spin_unlock_bh(&ring->lock);
	return 0;
}

static long mgcap_ioctl_set_wakeup(struct mgcap_ring *ring, void __user *arg)
{
	struct mgcap_wakeup wk;

	if (copy_from_user(&wk, arg, sizeof(wk)))
		return -EFAULT;
	if (wk.bytes == 0 || wk.bytes > ring->mask + 1 || wk.usecs > MGCAP_WAKEUP_USECS_MAX)
		return -EINVAL;
	WRITE_ONCE(ring->wake_bytes, wk.bytes);
	WRITE_ONCE(ring->wake_ns, (u64)wk.usecs * NSEC_PER_USEC);
	return 0;
}

static long mgcap_ioctl_set_poll_mark(struct mgcap_ring *ring, u32 __user *arg)
{
	u32 mark;

	if (get_user(mark, arg))
		return -EFAULT;
	if (mark == 0 || mark > ring->mask + 1)
		return -EINVAL;
	WRITE_ONCE(ring->poll_mark, mark);
	/* a reader asleep below a lower mark looks again */
	wake_up_interruptible_poll(&ring->wq, EPOLLIN | EPOLLRDNORM);
	return 0;
}

static long mgcap_ioctl_set_tstamp(struct mgcap_ring *ring, u32 __user *arg)
{
	u32 source;

	if (get_user(source, arg))
		return -EFAULT;
	return mgcap_ring_set_tstamp(ring, source);
}

static long mgcap_ioctl_set_format(struct mgcap_ring *ring, void __user *arg)
{
	struct mgcap_format_req req;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.reserved)
		return -EINVAL;
	return mgcap_ring_set_format(ring, req.format, req.interface_id);
}

static long mgcap_ioctl_fill_page(struct mgcap_ring *ring, u64 __user *arg)
{
	u64 end;
	int err;

	err = mgcap_ring_fill_page(ring, &end);
	return err ?: put_user(end, arg);
}

/*
 * A write of @ring's pages the reader asked for (@req, copied once from
 * user space, checked here): to any regular file it has open for writing
 * at a position (pwrite(2)'s checks: a file without positions is refused).
 */
static long mgcap_write_ring_pages(struct mgcap_ring *ring, const struct mgcap_write_pages *req)
{
	struct file *file;
	long ret;

	if (req->reserved || req->pos < 0)
		return -EINVAL;
	file = fget(req->fd);
	if (!file)
		return -EBADF;
	if (!S_ISREG(file_inode(file)->i_mode))
		ret = -EINVAL;
	else if (!(file->f_mode & FMODE_PWRITE))
		ret = -ESPIPE;
	else
		ret = mgcap_ring_write_pages(ring, req->at, req->len, file, req->pos);
	fput(file);
	return ret;
}

static long mgcap_ioctl_write_pages(struct mgcap_ring *ring, void __user *arg)
{
	struct mgcap_write_pages req;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	return mgcap_write_ring_pages(ring, &req);
}

/*
 * MGCAP_URING_CMD_WRITE_PAGES.  The write blocks, so it is never made
 * where io_uring asks not to block: it then makes it again in one of its
 * workers (with the command copied), and several are in flight at once.
 */
static int mgcap_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags)
{
	u8 cmd[MGCAP_URING_CMD_ROOM];
	struct mgcap_write_pages req;
	long ret;

	BUILD_BUG_ON(MGCAP_URING_CMD_ROOM !=
		     2 * sizeof(struct io_uring_sqe) - offsetof(struct io_uring_sqe, cmd));
	BUILD_BUG_ON(sizeof(req) > MGCAP_URING_CMD_ROOM);
	if (ioucmd->cmd_op != MGCAP_URING_CMD_WRITE_PAGES)
		return -ENOTTY;
	/* (the command is larger than a 64-byte entry's room) */
	if (!(issue_flags & IO_URING_F_SQE128))
		return -EINVAL;
	if (issue_flags & IO_URING_F_NONBLOCK)
		return -EAGAIN;
	/* once: the entry may be user space's memory */
	memcpy(cmd, mgcap_uring_cmd_payload(ioucmd), sizeof(cmd));
	/* (the room after the command is 0: a later version's fields may go there) */
	if (memchr_inv(cmd + sizeof(req), 0, sizeof(cmd) - sizeof(req)))
		return -EINVAL;
	memcpy(&req, cmd, sizeof(req));
	ret = mgcap_write_ring_pages(ioucmd->file->private_data, &req);
	/* (no system call to restart: the write was interrupted) */
	if (ret == -ERESTARTSYS || ret == -ERESTARTNOINTR || ret == -ERESTARTNOHAND ||
	    ret == -ERESTART_RESTARTBLOCK)
		ret = -EINTR;
	/*
	 * Completed here, not by the return: 6.1's io-wq posts no completion
	 * for a command that returns a count of bytes from its worker.
	 */
	io_uring_cmd_done(ioucmd, ret, 0, issue_flags);
	return -EIOCBQUEUED;
}

static long mgcap_ioctl_set_tstamp_line(struct mgcap_ring *ring, void __user *arg)
{
	struct mgcap_tstamp_line line;

	if (copy_from_user(&line, arg, sizeof(line)))
		return -EFAULT;
	return mgcap_ring_set_tstamp_line(ring, &line);
}

static long mgcap_ioctl_set_directions(struct mgcap_ring *ring, u32 __user *arg)
{
	u32 directions;

	if (get_user(directions, arg))
		return -EFAULT;
	if (!directions || directions & ~(MGCAP_DIR_RECEIVED | MGCAP_DIR_SENT))
		return -EINVAL;
	mgcap_sent_tap_set_directions(ring->q->sent_tap, ring, directions);
	return 0;
}

static long mgcap_ioctl_set_filter(struct mgcap_ring *ring, void __user *arg)
{
	struct mgcap_filter f;

	if (copy_from_user(&f, arg, sizeof(f)))
		return -EFAULT;
	return mgcap_filter_set(ring, &f);
}

static long mgcap_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct mgcap_ring *ring = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case MGCAP_IOC_INFO:
		return mgcap_ioctl_info(ring, uarg, sizeof(struct mgcap_queue_info));
	case MGCAP_IOC_INFO_V1:
		BUILD_BUG_ON(offsetof(struct mgcap_queue_info, netns) !=
			     _IOC_SIZE(MGCAP_IOC_INFO_V1));
		return mgcap_ioctl_info(ring, uarg, _IOC_SIZE(MGCAP_IOC_INFO_V1));
	case MGCAP_IOC_STATS:
		return mgcap_ioctl_stats(ring, uarg, sizeof(struct mgcap_queue_stats));
	case MGCAP_IOC_STATS_V1:
		BUILD_BUG_ON(offsetof(struct mgcap_queue_stats, coalesced) !=
			     _IOC_SIZE(MGCAP_IOC_STATS_V1));
		return mgcap_ioctl_stats(ring, uarg, _IOC_SIZE(MGCAP_IOC_STATS_V1));
	case MGCAP_IOC_STATS_V2:
		BUILD_BUG_ON(offsetof(struct mgcap_queue_stats, sent) !=
			     _IOC_SIZE(MGCAP_IOC_STATS_V2));
		return mgcap_ioctl_stats(ring, uarg, _IOC_SIZE(MGCAP_IOC_STATS_V2));
	case MGCAP_IOC_STATS_V3:
		BUILD_BUG_ON(offsetof(struct mgcap_queue_stats, unconverted) !=
			     _IOC_SIZE(MGCAP_IOC_STATS_V3));
		return mgcap_ioctl_stats(ring, uarg, _IOC_SIZE(MGCAP_IOC_STATS_V3));
	case MGCAP_IOC_SET_SNAPLEN:
		if (mgcap_ring_has_flag(ring, MGCAP_RING_F_DETACHED))
			return -ENODEV;
		return mgcap_ioctl_set_snaplen(ring, uarg);
	case MGCAP_IOC_SET_WAKEUP:
		if (mgcap_ring_has_flag(ring, MGCAP_RING_F_DETACHED))
			return -ENODEV;
		return mgcap_ioctl_set_wakeup(ring, uarg);
	case MGCAP_IOC_SET_TSTAMP:
		if (mgcap_ring_has_flag(ring, MGCAP_RING_F_DETACHED))
			return -ENODEV;
		return mgcap_ioctl_set_tstamp(ring, uarg);
	case MGCAP_IOC_SET_FILTER:
		if (mgcap_ring_has_flag(ring, MGCAP_RING_F_DETACHED))
			return -ENODEV;
		return mgcap_ioctl_set_filter(ring, uarg);
	case MGCAP_IOC_SET_POLL_MARK:
		return mgcap_ioctl_set_poll_mark(ring, uarg);
	case MGCAP_IOC_SET_DIRECTIONS:
		if (mgcap_ring_has_flag(ring, MGCAP_RING_F_DETACHED))
			return -ENODEV;
		return mgcap_ioctl_set_directions(ring, uarg);
	case MGCAP_IOC_SET_FORMAT:
		if (mgcap_ring_has_flag(ring, MGCAP_RING_F_DETACHED))
			return -ENODEV;
		return mgcap_ioctl_set_format(ring, uarg);
	case MGCAP_IOC_SET_TSTAMP_LINE:
		if (mgcap_ring_has_flag(ring, MGCAP_RING_F_DETACHED))
			return -ENODEV;
		return mgcap_ioctl_set_tstamp_line(ring, uarg);
	case MGCAP_IOC_FILL_PAGE:
		/* (after a stop too: a writer ends its file with what the ring kept) */
		return mgcap_ioctl_fill_page(ring, uarg);
	case MGCAP_IOC_WRITE_PAGES:
		/* (after a stop too, as FILL_PAGE) */
		return mgcap_ioctl_write_pages(ring, uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations mgcap_fops = {
	.owner = THIS_MODULE,
	.open = mgcap_open,
	.release = mgcap_release,
	.mmap = mgcap_mmap,
	.poll = mgcap_poll,
	.unlocked_ioctl = mgcap_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.uring_cmd = mgcap_uring_cmd,
};

/* "mgcap/eth0@3"; sysfs spells '/' as '!' and devtmpfs turns it back */
static void mgcap_devnode_name(char *buf, size_t len, const struct net_device *dev, u32 queue)
{
	const struct net *net = dev_net(dev);

	if (net_eq(net, &init_net))
		snprintf(buf, len, "mgcap!%s@%u", dev->name, queue);
	else
		snprintf(buf, len, "mgcap!ns%u!%s@%u", net->ns.inum, dev->name, queue);
}

/* Under RTNL, which also serialises the name check against other starts. */
int mgcap_chardev_add(struct mgcap_queue *q, const struct net_device *dev)
{
	char name[sizeof(q->devnode) - sizeof("/dev/")];
	struct device *node;
	u32 minor;
	int err;

	q->netns_inum = dev_net(dev)->ns.inum;
	mgcap_devnode_name(name, sizeof(name), dev, q->index);
	node = class_find_device_by_name(&mgcap_class, name);
	if (node) {
		put_device(node);
		return -EEXIST;
	}

	/*
	 * Cyclically: a node delegated by its number (a container's device
	 * list) must not open the next capture's queue at once, perhaps of
	 * another namespace (1: the numbers wrapped, no error)
	 */
	err = xa_alloc_cyclic(&mgcap_minors, &minor, q, XA_LIMIT(0, MGCAP_MINORS - 1),
			      &mgcap_next_minor, GFP_KERNEL);
	if (err < 0)
		return err;

	node = device_create(&mgcap_class, NULL, MKDEV(MAJOR(mgcap_devt), minor), q,
			     "%s", name);
	if (IS_ERR(node)) {
		xa_erase(&mgcap_minors, minor);
		return PTR_ERR(node);
	}
	q->minor = minor;
	q->node = node;
	snprintf(q->devnode, sizeof(q->devnode), "/dev/%s", name);
	strreplace(q->devnode, '!', '/');
	return 0;
}

void mgcap_chardev_remove(struct mgcap_queue *q)
{
	if (q->minor < 0)
		return;
	xa_erase(&mgcap_minors, q->minor);
	device_destroy(&mgcap_class, MKDEV(MAJOR(mgcap_devt), q->minor));
	q->minor = -1;
	q->node = NULL;
}

int mgcap_chardev_init(void)
{
	int err;

	err = alloc_chrdev_region(&mgcap_devt, 0, MGCAP_MINORS, "mgcap");
	if (err)
		return err;
	cdev_init(&mgcap_cdev, &mgcap_fops);
	mgcap_cdev.owner = THIS_MODULE;
	err = cdev_add(&mgcap_cdev, mgcap_devt, MGCAP_MINORS);
	if (err)
		goto err_region;
	err = class_register(&mgcap_class);
	if (err)
		goto err_cdev;
	return 0;

err_cdev:
	cdev_del(&mgcap_cdev);
err_region:
	unregister_chrdev_region(mgcap_devt, MGCAP_MINORS);
	return err;
}

void mgcap_chardev_exit(void)
{
	class_unregister(&mgcap_class);
	cdev_del(&mgcap_cdev);
	unregister_chrdev_region(mgcap_devt, MGCAP_MINORS);
	xa_destroy(&mgcap_minors);
}
