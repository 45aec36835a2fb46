// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: the generic netlink family "topdown" (uapi/linux/topdown.h,
 * spec uapi/topdown.yaml).
 *
 * The counters are a side channel, like perf's CPU-wide events, so every
 * command needs CAP_PERFMON or CAP_SYS_ADMIN in the initial user namespace.
 * Joining the "samples" group needs CAP_SYS_ADMIN: the only check on joining
 * that genetlink enforces (td_compat.h).  The family is not netnsok: it
 * exists in the initial network namespace only.
 *
 * Each CPU's sampling work publishes its sample at the end of each
 * interval: one notification, multicast on the "samples" group (nothing
 * while no one listens).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include "linux/topdown.h"
#include "td_compat.h"
#include "td_nl_gen.h"
#include "topdown.h"

static struct genl_family td_genl_family;

/* the opener of the socket and the caller both: as netlink_capable() */
static bool td_nl_capable(const struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_PERFMON) ||
	       netlink_capable(skb, CAP_SYS_ADMIN);
}

#define TD_EPERM_MSG	"topdown needs CAP_PERFMON or CAP_SYS_ADMIN"

/* enum topdown_state flags of a sample */
static u32 td_nl_state(const struct td_sample *s)
{
	static const u32 flags[] = {
		[TD_STATE_OFFLINE] = TOPDOWN_STATE_OFFLINE,
		[TD_STATE_UNSUPPORTED] = TOPDOWN_STATE_UNSUPPORTED,
		[TD_STATE_NO_PMU] = TOPDOWN_STATE_NO_PMU,
		[TD_STATE_ERROR] = TOPDOWN_STATE_ERROR,
		[TD_STATE_WAITING] = TOPDOWN_STATE_WAITING,
		[TD_STATE_OK] = 0,
		[TD_STATE_IDLE] = TOPDOWN_STATE_IDLE,
		[TD_STATE_NOT_COUNTED] = TOPDOWN_STATE_NOT_COUNTED,
		[TD_STATE_STOPPED] = TOPDOWN_STATE_STOPPED,
	};
	u32 f = flags[s->state];

	if (s->multiplexed)
		f |= TOPDOWN_STATE_MULTIPLEXED;
	if (s->skewed)
		f |= TOPDOWN_STATE_SKEWED;
	if (s->core_wide)
		f |= TOPDOWN_STATE_SMT_CORE;
	return f;
}

static const int td_l1_attr[TD_NR_L1] = {
	[TD_RETIRING] = TOPDOWN_A_LEVEL1_RETIRING,
	[TD_BAD_SPECULATION] = TOPDOWN_A_LEVEL1_BAD_SPECULATION,
	[TD_FRONTEND_BOUND] = TOPDOWN_A_LEVEL1_FRONTEND_BOUND,
	[TD_BACKEND_BOUND] = TOPDOWN_A_LEVEL1_BACKEND_BOUND,
	[TD_SMT_CONTENTION] = TOPDOWN_A_LEVEL1_SMT_CONTENTION,
	[TD_NOT_STALLED] = TOPDOWN_A_LEVEL1_NOT_STALLED,
};

static const int td_l2_attr[TD_NR_L2] = {
	[TD_LIGHT_OPERATIONS] = TOPDOWN_A_LEVEL2_LIGHT_OPERATIONS,
	[TD_HEAVY_OPERATIONS] = TOPDOWN_A_LEVEL2_HEAVY_OPERATIONS,
	[TD_BRANCH_MISPREDICTS] = TOPDOWN_A_LEVEL2_BRANCH_MISPREDICTS,
	[TD_MACHINE_CLEARS] = TOPDOWN_A_LEVEL2_MACHINE_CLEARS,
	[TD_FETCH_LATENCY] = TOPDOWN_A_LEVEL2_FETCH_LATENCY,
	[TD_FETCH_BANDWIDTH] = TOPDOWN_A_LEVEL2_FETCH_BANDWIDTH,
	[TD_MEMORY_BOUND] = TOPDOWN_A_LEVEL2_MEMORY_BOUND,
	[TD_CORE_BOUND] = TOPDOWN_A_LEVEL2_CORE_BOUND,
	[TD_RESOURCE_BOUND] = TOPDOWN_A_LEVEL2_RESOURCE_BOUND,
	[TD_OTHER_MISPREDICTS] = TOPDOWN_A_LEVEL2_OTHER_MISPREDICTS,
};

static const int td_l1_total_attr[TD_NR_L1] = {
	[TD_RETIRING] = TOPDOWN_A_TOTALS_RETIRING,
	[TD_BAD_SPECULATION] = TOPDOWN_A_TOTALS_BAD_SPECULATION,
	[TD_FRONTEND_BOUND] = TOPDOWN_A_TOTALS_FRONTEND_BOUND,
	[TD_BACKEND_BOUND] = TOPDOWN_A_TOTALS_BACKEND_BOUND,
	[TD_SMT_CONTENTION] = TOPDOWN_A_TOTALS_SMT_CONTENTION,
	[TD_NOT_STALLED] = TOPDOWN_A_TOTALS_NOT_STALLED,
};

static const int td_l2_total_attr[TD_NR_L2] = {
	[TD_LIGHT_OPERATIONS] = TOPDOWN_A_TOTALS_LIGHT_OPERATIONS,
	[TD_HEAVY_OPERATIONS] = TOPDOWN_A_TOTALS_HEAVY_OPERATIONS,
	[TD_BRANCH_MISPREDICTS] = TOPDOWN_A_TOTALS_BRANCH_MISPREDICTS,
	[TD_MACHINE_CLEARS] = TOPDOWN_A_TOTALS_MACHINE_CLEARS,
	[TD_FETCH_LATENCY] = TOPDOWN_A_TOTALS_FETCH_LATENCY,
	[TD_FETCH_BANDWIDTH] = TOPDOWN_A_TOTALS_FETCH_BANDWIDTH,
	[TD_MEMORY_BOUND] = TOPDOWN_A_TOTALS_MEMORY_BOUND,
	[TD_CORE_BOUND] = TOPDOWN_A_TOTALS_CORE_BOUND,
	[TD_RESOURCE_BOUND] = TOPDOWN_A_TOTALS_RESOURCE_BOUND,
	[TD_OTHER_MISPREDICTS] = TOPDOWN_A_TOTALS_OTHER_MISPREDICTS,
};

/* @s's Level 1 and, where it has one, Level 2 */
static int td_nl_put_levels(struct sk_buff *skb, const struct td_sample *s)
{
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(skb, TOPDOWN_A_SAMPLE_LEVEL1);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < TD_NR_L1; i++)
		if (td_model_has_l1(s->model, i) &&
		    nla_put_u32(skb, td_l1_attr[i], s->result.l1[i]))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	if (!s->result.has_l2)
		return 0;
	nest = nla_nest_start(skb, TOPDOWN_A_SAMPLE_LEVEL2);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < TD_NR_L2; i++)
		if (td_model_has_l2(s->model, i) &&
		    nla_put_u32(skb, td_l2_attr[i], s->result.l2[i]))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int td_nl_put_count(struct sk_buff *skb, unsigned int id,
			   const struct td_sample_count *c)
{
	struct nlattr *nest = nla_nest_start(skb, TOPDOWN_A_SAMPLE_COUNT);

	if (!nest ||
	    nla_put_u32(skb, TOPDOWN_A_COUNT_ID, id) ||
	    nla_put_u64_64bit(skb, TOPDOWN_A_COUNT_DELTA, c->delta, TOPDOWN_A_COUNT_PAD) ||
	    nla_put_u64_64bit(skb, TOPDOWN_A_COUNT_TOTAL, c->total, TOPDOWN_A_COUNT_PAD) ||
	    nla_put_u64_64bit(skb, TOPDOWN_A_COUNT_ENABLED, c->enabled,
			      TOPDOWN_A_COUNT_PAD) ||
	    nla_put_u64_64bit(skb, TOPDOWN_A_COUNT_RUNNING, c->running,
			      TOPDOWN_A_COUNT_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* the cumulative totals: the slots (or cycles) and each node's share */
static int td_nl_put_totals(struct sk_buff *skb, const struct td_sample *s)
{
	struct nlattr *nest = nla_nest_start(skb, TOPDOWN_A_SAMPLE_TOTALS);
	unsigned int i;

	if (!nest ||
	    nla_put_u64_64bit(skb, s->model->cycle_based ?
			      TOPDOWN_A_TOTALS_CYCLES : TOPDOWN_A_TOTALS_SLOTS,
			      s->units_total, TOPDOWN_A_TOTALS_PAD))
		return -EMSGSIZE;
	for (i = 0; i < TD_NR_L1; i++)
		if (td_model_has_l1(s->model, i) &&
		    nla_put_u64_64bit(skb, td_l1_total_attr[i], s->l1_total[i],
				      TOPDOWN_A_TOTALS_PAD))
			return -EMSGSIZE;
	for (i = 0; i < TD_NR_L2; i++)
		if (td_model_has_l2(s->model, i) &&
		    nla_put_u64_64bit(skb, td_l2_total_attr[i], s->l2_total[i],
				      TOPDOWN_A_TOTALS_PAD))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* how the interval was counted: sets, and each level's counted share */
static int td_nl_put_counted(struct sk_buff *skb, const struct td_sample *s)
{
	static const int attr[3] = {
		TOPDOWN_A_SAMPLE_LEVEL1_COUNTED,
		TOPDOWN_A_SAMPLE_LEVEL2_COUNTED,
		TOPDOWN_A_SAMPLE_LEVEL3_COUNTED,
	};
	unsigned int i;

	if (nla_put_u32(skb, TOPDOWN_A_SAMPLE_SETS, s->nr_sets))
		return -EMSGSIZE;
	for (i = 0; i < 3 && i < s->level; i++)
		if (nla_put_u32(skb, attr[i], s->counted[i]))
			return -EMSGSIZE;
	return 0;
}

/* the model's part of a sample: levels, counts, totals */
static int td_nl_put_model_part(struct sk_buff *skb, const struct td_sample *s)
{
	unsigned int i;

	if (nla_put_string(skb, TOPDOWN_A_SAMPLE_MODEL, s->model->name) ||
	    (s->state == TD_STATE_OK && td_nl_put_levels(skb, s)))
		return -EMSGSIZE;
	for (i = 0; i < s->nr; i++)
		if ((s->present & BIT(i)) && td_nl_put_count(skb, i, &s->counts[i]))
			return -EMSGSIZE;
	return td_nl_put_totals(skb, s);
}

/* a sample's attributes, in the order the spec lists them */
static int td_nl_put_sample(struct sk_buff *skb, const struct td_sample *s)
{
	if (nla_put_u32(skb, TOPDOWN_A_SAMPLE_CPU, s->cpu) ||
	    nla_put_u64_64bit(skb, TOPDOWN_A_SAMPLE_SEQ, s->seq, TOPDOWN_A_SAMPLE_PAD) ||
	    nla_put_u64_64bit(skb, TOPDOWN_A_SAMPLE_START_NS, s->start_ns,
			      TOPDOWN_A_SAMPLE_PAD) ||
	    nla_put_u64_64bit(skb, TOPDOWN_A_SAMPLE_END_NS, s->end_ns,
			      TOPDOWN_A_SAMPLE_PAD) ||
	    nla_put_u32(skb, TOPDOWN_A_SAMPLE_STATE, td_nl_state(s)) ||
	    (s->state == TD_STATE_ERROR &&
	     nla_put_u32(skb, TOPDOWN_A_SAMPLE_ERRNO, (u32)s->err)))
		return -EMSGSIZE;
	if (s->model && td_nl_put_model_part(skb, s))
		return -EMSGSIZE;
	if (s->seq && td_nl_put_counted(skb, s))
		return -EMSGSIZE;
	return 0;
}

/* one sample message */
static int td_nl_fill_sample(struct sk_buff *skb, const struct td_sample *s,
			     u32 portid, u32 seq, int flags, u8 cmd)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &td_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (td_nl_put_sample(skb, s)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * The most a sample message takes, so a notification allocates what it
 * needs, not a page: its receivers' socket buffers are charged the
 * allocation, and a small one lets many CPUs' notifications queue up
 * before a slow listener sees ENOBUFS.
 */
static size_t td_nl_sample_size(const struct td_sample *s)
{
	/* cpu, state, errno; levels; counts' ids; sets, counted */
	unsigned int u32s = 3 + TD_NR_L1 + TD_NR_L2 + s->nr + 4;
	/* seq, start, end; counts' delta..running; totals */
	unsigned int u64s = 3 + s->nr * 4 + 1 + TD_NR_L1 + TD_NR_L2;
	/* levels 1 and 2, counts, totals */
	unsigned int nests = 2 + s->nr + 1;

	return u32s * nla_total_size(sizeof(u32)) +
	       u64s * nla_total_size_64bit(sizeof(u64)) +
	       nests * nla_total_size(0) +
	       (s->model ? nla_total_size(strlen(s->model->name) + 1) : 0);
}

/* a possible CPU's number from @attr, or an extack naming it */
static int td_nl_cpu_arg(const struct nlattr *attr, struct netlink_ext_ack *extack,
			 u32 *cpu)
{
	if (!attr) {
		NL_SET_ERR_MSG(extack, "missing attribute: cpu");
		return -EINVAL;
	}
	*cpu = nla_get_u32(attr);
	if (*cpu >= nr_cpu_ids || !cpu_possible(*cpu)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "cpu: not a possible CPU");
		return -EINVAL;
	}
	return 0;
}

int topdown_nl_get_sample_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct td_sample *s;
	struct sk_buff *msg;
	u32 cpu;
	int ret;

	if (!td_nl_capable(skb)) {
		NL_SET_ERR_MSG(info->extack, TD_EPERM_MSG);
		return -EPERM;
	}
	ret = td_nl_cpu_arg(info->attrs[TOPDOWN_A_SAMPLE_CPU], info->extack, &cpu);
	if (ret)
		return ret;
	s = td_sample_alloc();
	if (!s)
		return -ENOMEM;
	td_cpu_sample(cpu, s);
	msg = genlmsg_new(td_nl_sample_size(s), GFP_KERNEL);
	ret = msg ? td_nl_fill_sample(msg, s, info->snd_portid, info->snd_seq, 0,
				      TOPDOWN_CMD_GET_SAMPLE) : -ENOMEM;
	kfree(s);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/*
 * cb->args[0]: the next CPU.  The capability is checked here rather than in
 * a .start callback: 6.1 gives .start no extack, so its EPERM would come
 * without a message.
 */
int topdown_nl_get_sample_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct td_sample *s;
	unsigned int cpu;

	if (!td_nl_capable(cb->skb)) {
		NL_SET_ERR_MSG(cb->extack, TD_EPERM_MSG);
		return -EPERM;
	}
	s = td_sample_alloc();
	if (!s)
		return -ENOMEM;
	for (cpu = cb->args[0]; cpu < nr_cpu_ids; cpu++) {
		if (!cpu_possible(cpu))
			continue;
		td_cpu_sample(cpu, s);
		if (td_nl_fill_sample(skb, s, NETLINK_CB(cb->skb).portid,
				      cb->nlh->nlmsg_seq, NLM_F_MULTI,
				      TOPDOWN_CMD_GET_SAMPLE))
			break;	/* full: this CPU goes first in the next skb */
	}
	kfree(s);
	cb->args[0] = cpu;
	return skb->len;
}

static size_t td_nl_info_size(void)
{
	size_t size = nla_total_size(sizeof(TD_VERSION)) + 3 * nla_total_size(4);
	unsigned int i, j;

	for (i = 0; i < td_nr_models; i++) {
		const struct td_model *m = td_models[i];

		size += 2 * nla_total_size(0) + nla_total_size(strlen(m->name) + 1) +
			nla_total_size(4);
		for (j = 0; j < m->nr_events; j++)
			size += nla_total_size(0) + 2 * nla_total_size(4) +
				nla_total_size(strlen(m->events[j].name) + 1) +
				nla_total_size_64bit(8);
	}
	return size;
}

static int td_nl_put_model(struct sk_buff *skb, const struct td_model *m)
{
	struct nlattr *nest, *ev;
	unsigned int j;

	nest = nla_nest_start(skb, TOPDOWN_A_INFO_MODEL);
	if (!nest ||
	    nla_put_string(skb, TOPDOWN_A_MODEL_NAME, m->name) ||
	    nla_put_u32(skb, TOPDOWN_A_MODEL_WIDTH, m->width) ||
	    (m->cycle_based && nla_put_flag(skb, TOPDOWN_A_MODEL_CYCLE_BASED)))
		return -EMSGSIZE;
	for (j = 0; j < m->nr_events; j++) {
		const struct td_event *e = &m->events[j];

		ev = nla_nest_start(skb, TOPDOWN_A_MODEL_EVENT);
		if (!ev ||
		    nla_put_u32(skb, TOPDOWN_A_EVENT_ID, j) ||
		    nla_put_string(skb, TOPDOWN_A_EVENT_NAME, e->name) ||
		    nla_put_u64_64bit(skb, TOPDOWN_A_EVENT_CONFIG, e->config,
				      TOPDOWN_A_EVENT_PAD) ||
		    nla_put_u32(skb, TOPDOWN_A_EVENT_LEVEL, e->level))
			return -EMSGSIZE;
		nla_nest_end(skb, ev);
	}
	nla_nest_end(skb, nest);
	return 0;
}

static u32 td_nl_slots_from(enum td_slots_from from)
{
	switch (from) {
	case TD_SLOTS_PMMIR:
		return TOPDOWN_SLOTS_FROM_PMMIR;
	case TD_SLOTS_CAPS:
		return TOPDOWN_SLOTS_FROM_CAPS;
	default:
		return TOPDOWN_SLOTS_FROM_MODEL;
	}
}

/* one get-cpu message: a CPU's model, width, state */
static int td_nl_fill_cpu(struct sk_buff *skb, const struct td_sample *s,
			  u32 portid, u32 seq, int flags)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &td_genl_family, flags,
			  TOPDOWN_CMD_GET_CPU);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TOPDOWN_A_CPU_INFO_CPU, s->cpu) ||
	    (s->model &&
	     (nla_put_string(skb, TOPDOWN_A_CPU_INFO_MODEL, s->model->name) ||
	      nla_put_u32(skb, TOPDOWN_A_CPU_INFO_WIDTH, s->width) ||
	      nla_put_u32(skb, TOPDOWN_A_CPU_INFO_SLOTS_FROM,
			  td_nl_slots_from(s->slots_from)))) ||
	    nla_put_u32(skb, TOPDOWN_A_CPU_INFO_STATE, td_nl_state(s))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

int topdown_nl_get_cpu_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct td_sample *s;
	struct sk_buff *msg;
	u32 cpu;
	int ret;

	if (!td_nl_capable(skb)) {
		NL_SET_ERR_MSG(info->extack, TD_EPERM_MSG);
		return -EPERM;
	}
	ret = td_nl_cpu_arg(info->attrs[TOPDOWN_A_CPU_INFO_CPU], info->extack, &cpu);
	if (ret)
		return ret;
	s = td_sample_alloc();
	msg = s ? genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL) : NULL;
	if (!msg) {
		kfree(s);
		return -ENOMEM;
	}
	td_cpu_sample(cpu, s);
	ret = td_nl_fill_cpu(msg, s, info->snd_portid, info->snd_seq, 0);
	kfree(s);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: the next CPU; a message per possible CPU, as get-sample's */
int topdown_nl_get_cpu_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct td_sample *s;
	unsigned int cpu;

	if (!td_nl_capable(cb->skb)) {
		NL_SET_ERR_MSG(cb->extack, TD_EPERM_MSG);
		return -EPERM;
	}
	s = td_sample_alloc();
	if (!s)
		return -ENOMEM;
	for (cpu = cb->args[0]; cpu < nr_cpu_ids; cpu++) {
		if (!cpu_possible(cpu))
			continue;
		td_cpu_sample(cpu, s);
		if (td_nl_fill_cpu(skb, s, NETLINK_CB(cb->skb).portid,
				   cb->nlh->nlmsg_seq, NLM_F_MULTI))
			break;	/* full: this CPU goes first in the next skb */
	}
	kfree(s);
	cb->args[0] = cpu;
	return skb->len;
}

int topdown_nl_get_info_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	unsigned int i;
	void *hdr;

	if (!td_nl_capable(skb)) {
		NL_SET_ERR_MSG(info->extack, TD_EPERM_MSG);
		return -EPERM;
	}
	msg = genlmsg_new(td_nl_info_size(), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &td_genl_family, 0,
				TOPDOWN_CMD_GET_INFO);
	if (!hdr)
		goto nospace;
	if (nla_put_string(msg, TOPDOWN_A_INFO_VERSION, TD_VERSION) ||
	    nla_put_u32(msg, TOPDOWN_A_INFO_LEVEL, READ_ONCE(td_config()->level)) ||
	    nla_put_u32(msg, TOPDOWN_A_INFO_INTERVAL_MS,
			READ_ONCE(td_config()->interval_ms)) ||
	    nla_put_u32(msg, TOPDOWN_A_INFO_RUNNING, td_running()))
		goto nospace;
	for (i = 0; i < td_nr_models; i++)
		if (td_nl_put_model(msg, td_models[i]))
			goto nospace;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

nospace:
	/* td_nl_info_size() is an upper bound: a bug, not a user error */
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/*
 * The values' ranges are the policy's (td_nl_gen.c, from the spec's
 * checks): a value out of range never gets here, and nothing changed.
 */
int topdown_nl_set_config_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *ival = info->attrs[TOPDOWN_A_CONFIG_INTERVAL_MS];
	struct nlattr *level = info->attrs[TOPDOWN_A_CONFIG_LEVEL];
	struct nlattr *run = info->attrs[TOPDOWN_A_CONFIG_RUNNING];
	struct nlattr *cut = info->attrs[TOPDOWN_A_CONFIG_END_INTERVAL];
	bool on = run && nla_get_u32(run);
	int ret;

	if (!td_nl_capable(skb)) {
		NL_SET_ERR_MSG(info->extack, TD_EPERM_MSG);
		return -EPERM;
	}
	if (!ival && !level && !run && !cut) {
		NL_SET_ERR_MSG(info->extack,
			       "nothing to set: give interval-ms, level, running or end-interval");
		return -EINVAL;
	}
	/* refused before anything changes: a cut of nothing is no window */
	if (cut && !(run ? on : td_running())) {
		NL_SET_ERR_MSG_ATTR(info->extack, cut,
				    "end-interval: the module is stopped, no interval runs");
		return -ENODATA;
	}
	/* a stop first and a start last: neither opens what the other closes */
	if (run && !on) {
		ret = td_set_running(false);
		if (ret)
			goto run_err;
	}
	if (ival)
		td_set_interval(nla_get_u32(ival));
	if (level) {
		ret = td_set_level(nla_get_u32(level));
		if (ret) {
			NL_SET_ERR_MSG_ATTR(info->extack, level,
					    "level: could not reopen the counters");
			return ret;
		}
	}
	if (run && on) {
		ret = td_set_running(true);
		if (ret)
			goto run_err;
	}
	if (cut)
		td_end_intervals();
	return 0;

run_err:
	NL_SET_ERR_MSG_ATTR(info->extack, run,
			    "running: could not open or close the counters");
	return ret;
}

/*
 * The policies and ops (td_nl_gen.c) are ynl-gen's, from the spec.  Each
 * command checks the capability itself, since GENL_ADMIN_PERM would ask
 * for CAP_NET_ADMIN.  The group is ours: ynl-gen's has no flags.
 */
static const struct genl_multicast_group td_mcgrps[] = {
	[TOPDOWN_NLGRP_SAMPLES] = {
		.name = TOPDOWN_MCGRP_SAMPLES,
		.flags = TD_MCGRP_FLAGS,
	},
};

static struct genl_family td_genl_family __ro_after_init = {
	.name		= TOPDOWN_FAMILY_NAME,
	.version	= TOPDOWN_FAMILY_VERSION,
	.netnsok	= false,
	/* no genl_mutex: every command takes the locks it needs */
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= topdown_nl_ops,
	.n_ops		= ARRAY_SIZE(topdown_nl_ops),
	.mcgrps		= td_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(td_mcgrps),
};

/**
 * td_nl_publish() - multicast a CPU's sample, the core's publish hook
 * @s: the sample, under its CPU's lock in its sampling work
 *
 * A message a sample, built afresh and sent alone; nothing while no one
 * listens.
 *
 * Return: whether it was sent.
 */
bool td_nl_publish(const struct td_sample *s)
{
	struct sk_buff *skb;

	if (!TD_CAN_NOTIFY ||
	    !genl_has_listeners(&td_genl_family, &init_net, TOPDOWN_NLGRP_SAMPLES))
		return false;
	skb = genlmsg_new(td_nl_sample_size(s), GFP_KERNEL | __GFP_NOWARN);
	if (!skb)
		return false;
	if (td_nl_fill_sample(skb, s, 0, 0, 0, TOPDOWN_CMD_SAMPLE_NTF)) {
		nlmsg_free(skb);
		return false;
	}
	genlmsg_multicast(&td_genl_family, skb, 0, TOPDOWN_NLGRP_SAMPLES, GFP_KERNEL);
	return true;
}

/** td_nl_init() - register the family */
int td_nl_init(void)
{
	if (!TD_CAN_NOTIFY)
		pr_info("no sample notifications: this kernel cannot restrict who joins a multicast group\n");
	return genl_register_family(&td_genl_family);
}

/** td_nl_exit() - unregister the family, waiting for commands in flight */
void td_nl_exit(void)
{
	genl_unregister_family(&td_genl_family);
}

MODULE_ALIAS_GENL_FAMILY(TOPDOWN_FAMILY_NAME);
