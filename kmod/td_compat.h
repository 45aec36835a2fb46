/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topdown: what differs between the kernels it builds on.  Kbuild tests
 * the kernel's headers for each feature (not for version numbers) and
 * defines TD_HAVE_*.
 */
#ifndef _TD_COMPAT_H
#define _TD_COMPAT_H

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

#endif /* _TD_COMPAT_H */
