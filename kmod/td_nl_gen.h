/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	specs/topdown.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_TOPDOWN_GEN_H
#define _LINUX_TOPDOWN_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/topdown.h>

extern const struct nla_policy topdown_get_info_nl_policy[TOPDOWN_A_INFO_CPU + 1];

extern const struct nla_policy topdown_get_sample_nl_policy[TOPDOWN_A_SAMPLE_CPU + 1];

extern const struct nla_policy topdown_set_config_nl_policy[TOPDOWN_A_CONFIG_END_INTERVAL + 1];

extern const struct nla_policy topdown_get_cpu_nl_policy[TOPDOWN_A_CPU_INFO_CPU + 1];

/* Ops table for topdown */
extern const struct genl_ops topdown_nl_ops[4];

int topdown_nl_get_info_doit(struct sk_buff *skb, struct genl_info *info);
int topdown_nl_get_sample_doit(struct sk_buff *skb, struct genl_info *info);
int topdown_nl_get_sample_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb);
int topdown_nl_set_config_doit(struct sk_buff *skb, struct genl_info *info);
int topdown_nl_get_cpu_doit(struct sk_buff *skb, struct genl_info *info);
int topdown_nl_get_cpu_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

enum {
	TOPDOWN_NLGRP_SAMPLES,
};

#endif /* _LINUX_TOPDOWN_GEN_H */
