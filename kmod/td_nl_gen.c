// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	specs/topdown.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "td_nl_gen.h"

#include <uapi/linux/topdown.h>

/* Integer value ranges */
static const struct netlink_range_validation topdown_a_config_interval_ms_range = {
	.min	= TOPDOWN_INTERVAL_MIN_MS,
	.max	= TOPDOWN_INTERVAL_MAX_MS,
};

/* TOPDOWN_CMD_GET_INFO - do */
const struct nla_policy topdown_get_info_nl_policy[TOPDOWN_A_INFO_CPU + 1] = {
};

/* TOPDOWN_CMD_GET_SAMPLE - do */
const struct nla_policy topdown_get_sample_nl_policy[TOPDOWN_A_SAMPLE_CPU + 1] = {
	[TOPDOWN_A_SAMPLE_CPU] = { .type = NLA_U32, },
};

/* TOPDOWN_CMD_SET_CONFIG - do */
const struct nla_policy topdown_set_config_nl_policy[TOPDOWN_A_CONFIG_END_INTERVAL + 1] = {
	[TOPDOWN_A_CONFIG_INTERVAL_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &topdown_a_config_interval_ms_range),
	[TOPDOWN_A_CONFIG_LEVEL] = NLA_POLICY_RANGE(NLA_U32, 1, TOPDOWN_LEVEL_MAX),
	[TOPDOWN_A_CONFIG_RUNNING] = NLA_POLICY_MAX(NLA_U32, 1),
	[TOPDOWN_A_CONFIG_END_INTERVAL] = { .type = NLA_FLAG, },
};

/* TOPDOWN_CMD_GET_CPU - do */
const struct nla_policy topdown_get_cpu_nl_policy[TOPDOWN_A_CPU_INFO_CPU + 1] = {
	[TOPDOWN_A_CPU_INFO_CPU] = { .type = NLA_U32, },
};

/* Ops table for topdown */
const struct genl_ops topdown_nl_ops[4] = {
	{
		.cmd		= TOPDOWN_CMD_GET_INFO,
		.doit		= topdown_nl_get_info_doit,
		.policy		= topdown_get_info_nl_policy,
		.maxattr	= TOPDOWN_A_INFO_CPU,
	},
	{
		.cmd		= TOPDOWN_CMD_GET_SAMPLE,
		.doit		= topdown_nl_get_sample_doit,
		.dumpit		= topdown_nl_get_sample_dumpit,
		.policy		= topdown_get_sample_nl_policy,
		.maxattr	= TOPDOWN_A_SAMPLE_CPU,
	},
	{
		.cmd		= TOPDOWN_CMD_SET_CONFIG,
		.doit		= topdown_nl_set_config_doit,
		.policy		= topdown_set_config_nl_policy,
		.maxattr	= TOPDOWN_A_CONFIG_END_INTERVAL,
	},
	{
		.cmd		= TOPDOWN_CMD_GET_CPU,
		.doit		= topdown_nl_get_cpu_doit,
		.dumpit		= topdown_nl_get_cpu_dumpit,
		.policy		= topdown_get_cpu_nl_policy,
		.maxattr	= TOPDOWN_A_CPU_INFO_CPU,
	},
};

static const struct genl_multicast_group topdown_nl_mcgrps[] = {
	[TOPDOWN_NLGRP_SAMPLES] = { "samples", },
};
