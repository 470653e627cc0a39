/* SPDX-License-Identifier: GPL-2.0 */
/* The few kernel API differences between the supported kernels (6.1 .. 6.12). */
#ifndef MGCAP_COMPAT_H
#define MGCAP_COMPAT_H

#include <linux/version.h>
#include <linux/fs.h>
#include <linux/mm.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void vm_flags_clear(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags &= ~flags;
}

static inline void vm_flags_set(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags |= flags;
}
#endif

/* io_uring's commands: their header, and where a command's bytes are */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#include <linux/io_uring/cmd.h>
#define mgcap_uring_cmd_payload(ioucmd) io_uring_sqe_cmd((ioucmd)->sqe)
#else
#include <linux/io_uring.h>
#define mgcap_uring_cmd_payload(ioucmd) ((ioucmd)->cmd)
#endif

/*
 * A write of the kernel's own pages to a file, as pwrite(2) makes it: from
 * 6.8 on, vfs_iter_write() takes the file system's freeze protection
 * itself (taken twice, it would wait behind a freeze that waits for it).
 */
static inline ssize_t mgcap_vfs_iter_write(struct file *file, struct iov_iter *iter,
					   loff_t *pos)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 8, 0)
	ssize_t ret;

	file_start_write(file);
	ret = vfs_iter_write(file, iter, pos, 0);
	file_end_write(file);
	return ret;
#else
	return vfs_iter_write(file, iter, pos, 0);
#endif
}

#endif /* MGCAP_COMPAT_H */
