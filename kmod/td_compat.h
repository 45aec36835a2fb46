/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topdown: what differs between the kernels it builds on.  Kbuild tests
 * the kernel's headers for each feature (not for version numbers) and
 * defines TD_HAVE_*.
 */
#ifndef _TD_COMPAT_H
#define _TD_COMPAT_H

/*
 * Who may join the "samples" group.  genl_family.bind (v6.7) lets the
 * family ask for CAP_PERFMON or CAP_SYS_ADMIN, as for its commands; the
 * multicast group flag GENL_MCAST_CAP_SYS_ADMIN (v6.7, and backported, as
 * in Debian's 6.1) can only ask for CAP_SYS_ADMIN.  A kernel with neither
 * cannot keep the samples from unprivileged listeners: no notifications.
 * (td_netlink.c sets .bind under TD_HAVE_GENL_BIND.)
 */
#if defined(TD_HAVE_GENL_BIND)
#define TD_MCGRP_FLAGS		0
#define TD_CAN_NOTIFY		true
#elif defined(TD_HAVE_GENL_MCAST_CAP)
#define TD_MCGRP_FLAGS		GENL_MCAST_CAP_SYS_ADMIN
#define TD_CAN_NOTIFY		true
#else
#define TD_MCGRP_FLAGS		0
#define TD_CAN_NOTIFY		false
#endif

#endif /* _TD_COMPAT_H */
