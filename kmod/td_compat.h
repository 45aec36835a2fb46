/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topdown: what differs between the kernels it builds on.  Kbuild tests
 * the kernel's headers for each feature (not for version numbers) and
 * defines TD_HAVE_*.
 */
#ifndef _TD_COMPAT_H
#define _TD_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#if defined(CONFIG_X86) && defined(TD_HAVE_ASM_CPUID_API_H)
#include <asm/cpuid/api.h>	/* cpuid_eax(), out of <asm/processor.h> since 6.15 */
#endif

/*
 * Who may join the "samples" group.  The multicast group flag
 * GENL_MCAST_CAP_SYS_ADMIN (v6.7, and backported, as in Debian's 6.1) makes
 * genetlink refuse the join without CAP_SYS_ADMIN.  It cannot ask for
 * CAP_PERFMON, and genl_family.bind cannot either: genl_bind() ignores its
 * return value (6.12), so a bind hook would let anyone listen.  A kernel
 * without the flag cannot keep the samples from unprivileged listeners: no
 * notifications there.
 */
#ifdef TD_HAVE_GENL_MCAST_CAP
#define TD_MCGRP_FLAGS		GENL_MCAST_CAP_SYS_ADMIN
#define TD_CAN_NOTIFY		true
#else
#define TD_MCGRP_FLAGS		0
#define TD_CAN_NOTIFY		false
#endif

/* kzalloc_obj() (7.0): a zeroed object of the type of what it is given */
#ifndef kzalloc_obj
#define kzalloc_obj(p, gfp)	kzalloc(sizeof(p), gfp)
#endif

/* hrtimer_setup() (6.13) sets the callback with the rest; hrtimer_init() is gone */
static inline void td_hrtimer_setup(struct hrtimer *t,
				    enum hrtimer_restart (*fn)(struct hrtimer *),
				    clockid_t clock, enum hrtimer_mode mode)
{
#ifdef TD_HAVE_HRTIMER_SETUP
	hrtimer_setup(t, fn, clock, mode);
#else
	hrtimer_init(t, clock, mode);
	t->function = fn;
#endif
}

#endif /* _TD_COMPAT_H */
