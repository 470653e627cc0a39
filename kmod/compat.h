/* SPDX-License-Identifier: GPL-2.0 */
/* The few kernel API differences between the supported kernels (6.1 .. 6.12). */
#ifndef MGCAP_COMPAT_H
#define MGCAP_COMPAT_H

#include <linux/version.h>
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

#endif /* MGCAP_COMPAT_H */
