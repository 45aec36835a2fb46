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
 * Each CPU's sampling work builds its own sample message at the end of each
 * interval (none while no one listens); the messages of a grid point go out
 * together, several in one multicast datagram (struct td_burst below).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
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

/* enum topdown_state flags of a CPU; under tc->lock */
static u32 td_nl_state(const struct td_cpu *tc)
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
	u32 f = flags[tc->state];

	if ((tc->state == TD_STATE_OK || tc->state == TD_STATE_IDLE ||
	     tc->state == TD_STATE_NOT_COUNTED) && td_multiplexed(tc))
		f |= TOPDOWN_STATE_MULTIPLEXED;
	if (tc->state == TD_STATE_OK && tc->skewed)	/* fractions given */
		f |= TOPDOWN_STATE_SKEWED;
	if (!td_closed(tc) && tc->sample_core_wide)
		f |= TOPDOWN_STATE_SMT_CORE;
	return f;
}

/*
 * A sample message is written through a td_nlw.  Building, it puts
 * attributes into an skb as nla_put() does, and notes where each one went
 * (its offset in the message: a slot).  Patching, it writes only the
 * values, through those slots in the same order: while a CPU's message
 * keeps its shape (the same attributes in the same order, the same model),
 * nothing that does not change is written again, and nothing is walked to
 * find where a value goes.  The writers are inlined: a call or two per
 * attribute was most of the work.  (A Level 1 notification, timed in
 * instructions: 5.7 us walking and checking each attribute, 5.1 through
 * the slots, 3.5 with the writers inlined; Level 2 8.7, 7.7, 5.3.)
 * Each slot patched must hold the attribute the builder would put there,
 * of the same type and length, and the message must have as many slots as
 * are patched; otherwise the patch is marked bad and the caller builds the
 * message afresh.  Every attribute but the values' nests' ends is a slot,
 * nests included, and a top-level attribute's type says what it is: a
 * message of another shape differs from the slots' types at its first
 * attribute that moved, or in how many slots it has.
 */
struct td_nlw {
	struct sk_buff *skb;	/* building: the message; NULL: patching */
	u8 *msg;		/* patching: the message */
	u16 *off;		/* the slots' offsets in the message (NULL: none) */
	unsigned int n, nr;	/* slots so far; room (building), or had */
	bool bad;		/* no room (building); another shape (patching) */
};

/*
 * building: @a, just put, is the next slot; past the room, or past what an
 * offset holds (a sample takes a few KB), none are noted: no slots then
 */
static void td_nlw_note(struct td_nlw *w, const struct nlattr *a)
{
	size_t off = (const u8 *)a - w->skb->data;

	if (off > U16_MAX)
		w->nr = 0;
	if (w->off && w->n < w->nr)
		w->off[w->n] = off;
	w->n++;
}

/* patching: the next slot's attribute, if it is @type of @len (-1: any) */
static __always_inline struct nlattr *td_nlw_next(struct td_nlw *w, int type, int len)
{
	struct nlattr *a;

	if (w->bad || w->n >= w->nr) {
		w->bad = true;
		return NULL;
	}
	a = (struct nlattr *)(w->msg + w->off[w->n++]);
	if (nla_type(a) != type || (len >= 0 && nla_len(a) != len)) {
		w->bad = true;
		return NULL;
	}
	return a;
}

static __always_inline void td_nlw_u32(struct td_nlw *w, int type, u32 v)
{
	struct nlattr *a;

	if (w->skb) {
		a = (struct nlattr *)skb_tail_pointer(w->skb);
		w->bad |= !!nla_put_u32(w->skb, type, v);
		td_nlw_note(w, a);
		return;
	}
	a = td_nlw_next(w, type, sizeof(u32));
	if (a)
		*(u32 *)nla_data(a) = v;
}

static __always_inline void td_nlw_u64(struct td_nlw *w, int type, u64 v, int pad)
{
	struct nlattr *a;

	if (w->skb) {
		/* after the pad attribute, where the builder needs one */
		w->bad |= !!nla_put_u64_64bit(w->skb, type, v, pad);
		a = (struct nlattr *)(skb_tail_pointer(w->skb) -
				      nla_total_size(sizeof(u64)));
		td_nlw_note(w, a);
		return;
	}
	a = td_nlw_next(w, type, sizeof(u64));
	if (a)
		memcpy(nla_data(a), &v, sizeof(v));	/* 4-byte aligned */
}

static void td_nlw_string(struct td_nlw *w, int type, const char *s)
{
	size_t len = strlen(s) + 1;
	struct nlattr *a;

	if (w->skb) {
		a = (struct nlattr *)skb_tail_pointer(w->skb);
		w->bad |= !!nla_put_string(w->skb, type, s);
		td_nlw_note(w, a);
		return;
	}
	a = td_nlw_next(w, type, len);
	if (a && memcmp(nla_data(a), s, len))
		w->bad = true;
}

static struct nlattr *td_nlw_nest_start(struct td_nlw *w, int type)
{
	struct nlattr *a;

	if (!w->skb)
		return td_nlw_next(w, type, -1);
	a = nla_nest_start(w->skb, type);
	w->bad |= !a;
	if (a)
		td_nlw_note(w, a);
	return a;
}

/* building: the nest's length (patching: it holds the same slots) */
static void td_nlw_nest_end(struct td_nlw *w, struct nlattr *a)
{
	if (w->skb && a)
		nla_nest_end(w->skb, a);
}

static void td_nl_put_levels(struct td_nlw *w, const struct td_cpu *tc)
{
	static const int l1_attr[TD_NR_L1] = {
		[TD_RETIRING] = TOPDOWN_A_LEVEL1_RETIRING,
		[TD_BAD_SPECULATION] = TOPDOWN_A_LEVEL1_BAD_SPECULATION,
		[TD_FRONTEND_BOUND] = TOPDOWN_A_LEVEL1_FRONTEND_BOUND,
		[TD_BACKEND_BOUND] = TOPDOWN_A_LEVEL1_BACKEND_BOUND,
		[TD_SMT_CONTENTION] = TOPDOWN_A_LEVEL1_SMT_CONTENTION,
		[TD_NOT_STALLED] = TOPDOWN_A_LEVEL1_NOT_STALLED,
	};
	static const int l2_attr[TD_NR_L2] = {
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
	struct nlattr *nest;
	unsigned int i;

	nest = td_nlw_nest_start(w, TOPDOWN_A_SAMPLE_LEVEL1);
	for (i = 0; i < TD_NR_L1; i++)
		if (td_model_has_l1(tc->model, i))
			td_nlw_u32(w, l1_attr[i], tc->result.l1[i]);
	td_nlw_nest_end(w, nest);
	if (!tc->result.has_l2)
		return;
	nest = td_nlw_nest_start(w, TOPDOWN_A_SAMPLE_LEVEL2);
	for (i = 0; i < TD_NR_L2; i++)
		if (td_model_has_l2(tc->model, i))
			td_nlw_u32(w, l2_attr[i], tc->result.l2[i]);
	td_nlw_nest_end(w, nest);
}

static void td_nl_put_counts(struct td_nlw *w, const struct td_cpu *tc)
{
	unsigned int i;

	for (i = 0; i < tc->nr && !w->bad; i++) {
		const struct td_counter *k = &tc->ctr[i];
		struct nlattr *nest;

		if (!k->event && !td_closed(tc))
			continue;	/* not opened with this SMT setting */
		nest = td_nlw_nest_start(w, TOPDOWN_A_SAMPLE_COUNT);
		td_nlw_u32(w, TOPDOWN_A_COUNT_ID, i);
		td_nlw_u64(w, TOPDOWN_A_COUNT_DELTA, k->delta, TOPDOWN_A_COUNT_PAD);
		td_nlw_u64(w, TOPDOWN_A_COUNT_TOTAL, k->total, TOPDOWN_A_COUNT_PAD);
		td_nlw_u64(w, TOPDOWN_A_COUNT_ENABLED, k->d_enabled,
			   TOPDOWN_A_COUNT_PAD);
		td_nlw_u64(w, TOPDOWN_A_COUNT_RUNNING, k->d_running,
			   TOPDOWN_A_COUNT_PAD);
		td_nlw_nest_end(w, nest);
	}
}

/* the cumulative totals: the slots (or cycles) and each node's share */
static void td_nl_put_totals(struct td_nlw *w, const struct td_cpu *tc)
{
	static const int l1_attr[TD_NR_L1] = {
		[TD_RETIRING] = TOPDOWN_A_TOTALS_RETIRING,
		[TD_BAD_SPECULATION] = TOPDOWN_A_TOTALS_BAD_SPECULATION,
		[TD_FRONTEND_BOUND] = TOPDOWN_A_TOTALS_FRONTEND_BOUND,
		[TD_BACKEND_BOUND] = TOPDOWN_A_TOTALS_BACKEND_BOUND,
		[TD_SMT_CONTENTION] = TOPDOWN_A_TOTALS_SMT_CONTENTION,
		[TD_NOT_STALLED] = TOPDOWN_A_TOTALS_NOT_STALLED,
	};
	static const int l2_attr[TD_NR_L2] = {
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
	struct nlattr *nest;
	unsigned int i;

	nest = td_nlw_nest_start(w, TOPDOWN_A_SAMPLE_TOTALS);
	td_nlw_u64(w, tc->model->cycle_based ?
		   TOPDOWN_A_TOTALS_CYCLES : TOPDOWN_A_TOTALS_SLOTS,
		   tc->units_total, TOPDOWN_A_TOTALS_PAD);
	for (i = 0; i < TD_NR_L1; i++)
		if (td_model_has_l1(tc->model, i))
			td_nlw_u64(w, l1_attr[i], tc->l1_total[i],
				   TOPDOWN_A_TOTALS_PAD);
	for (i = 0; i < TD_NR_L2; i++)
		if (td_model_has_l2(tc->model, i))
			td_nlw_u64(w, l2_attr[i], tc->l2_total[i],
				   TOPDOWN_A_TOTALS_PAD);
	td_nlw_nest_end(w, nest);
}

/* how the interval was counted: sets, and each level's counted share */
static void td_nl_put_counted(struct td_nlw *w, const struct td_cpu *tc)
{
	static const int attr[3] = {
		TOPDOWN_A_SAMPLE_LEVEL1_COUNTED,
		TOPDOWN_A_SAMPLE_LEVEL2_COUNTED,
		TOPDOWN_A_SAMPLE_LEVEL3_COUNTED,
	};
	unsigned int i, lvl = READ_ONCE(td_level);

	td_nlw_u32(w, TOPDOWN_A_SAMPLE_SETS, tc->nr_sets);
	for (i = 0; i < 3 && i < lvl; i++)
		td_nlw_u32(w, attr[i], tc->counted[i]);
}

/* a sample's attributes, built or patched (td_nlw); under tc->lock */
static void td_nl_put_sample(struct td_nlw *w, const struct td_cpu *tc)
{
	td_nlw_u32(w, TOPDOWN_A_SAMPLE_CPU, tc->cpu);
	td_nlw_u64(w, TOPDOWN_A_SAMPLE_SEQ, tc->seq, TOPDOWN_A_SAMPLE_PAD);
	td_nlw_u64(w, TOPDOWN_A_SAMPLE_START_NS, tc->start_ns,
		   TOPDOWN_A_SAMPLE_PAD);
	td_nlw_u64(w, TOPDOWN_A_SAMPLE_END_NS, tc->end_ns, TOPDOWN_A_SAMPLE_PAD);
	td_nlw_u32(w, TOPDOWN_A_SAMPLE_STATE, td_nl_state(tc));
	if (tc->state == TD_STATE_ERROR)
		td_nlw_u32(w, TOPDOWN_A_SAMPLE_ERRNO, (u32)tc->err);
	if (tc->model)
		td_nlw_string(w, TOPDOWN_A_SAMPLE_MODEL, tc->model->name);
	if (tc->state == TD_STATE_OK)
		td_nl_put_levels(w, tc);
	if (tc->model) {
		td_nl_put_counts(w, tc);
		td_nl_put_totals(w, tc);
	}
	if (tc->seq)
		td_nl_put_counted(w, tc);
}

/* one sample message; under tc->lock */
static int td_nl_fill_sample(struct sk_buff *skb, const struct td_cpu *tc,
			     u32 portid, u32 seq, int flags, u8 cmd)
{
	struct td_nlw w = { .skb = skb };
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &td_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	td_nl_put_sample(&w, tc);
	if (w.bad) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * @tc's notification built afresh in tc->ntf, its slots noted in
 * tc->ntf_off (none when they did not fit: it is then built every time)
 */
static int td_nl_fill_ntf(struct td_cpu *tc)
{
	struct td_nlw w = { .skb = tc->ntf, .off = tc->ntf_off,
			    .nr = tc->ntf_room };
	void *hdr;

	tc->ntf_slots = 0;
	hdr = genlmsg_put(tc->ntf, 0, 0, &td_genl_family, 0,
			  TOPDOWN_CMD_SAMPLE_NTF);
	if (!hdr)
		return -EMSGSIZE;
	td_nl_put_sample(&w, tc);
	if (w.bad) {
		genlmsg_cancel(tc->ntf, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(tc->ntf, hdr);
	if (w.n <= w.nr)
		tc->ntf_slots = w.n;
	return 0;
}

/*
 * @tc's values written into its notification built before, in place
 * through its slots; false when the message has another shape now (or
 * none was built)
 */
static bool td_nl_patch_ntf(const struct td_cpu *tc)
{
	struct td_nlw w = { .msg = tc->ntf->data, .off = tc->ntf_off,
			    .nr = tc->ntf_slots };

	if (!w.nr)
		return false;
	td_nl_put_sample(&w, tc);
	return !w.bad && w.n == w.nr;
}

/*
 * The most a CPU's sample message takes (td_nl_fill_sample()), so a
 * notification allocates what it needs, not a page: its receivers' socket
 * buffers are charged the allocation, and a small one lets many CPUs'
 * notifications queue up before a slow listener sees ENOBUFS.  @slots:
 * the most attributes it has, each a slot of its notification (td_nlw),
 * if not NULL.
 */
static size_t td_nl_sample_size(const struct td_cpu *tc, unsigned int *slots)
{
	/* cpu, state, errno; levels; counts' ids; sets, counted */
	unsigned int u32s = 3 + TD_NR_L1 + TD_NR_L2 + tc->nr + 4;
	/* seq, start, end; counts' delta..running; totals */
	unsigned int u64s = 3 + tc->nr * 4 + 1 + TD_NR_L1 + TD_NR_L2;
	/* levels 1 and 2, counts, totals */
	unsigned int nests = 2 + tc->nr + 1;

	if (slots)
		*slots = u32s + u64s + nests + 1;	/* and model */
	return u32s * nla_total_size(sizeof(u32)) +
	       u64s * nla_total_size_64bit(sizeof(u64)) +
	       nests * nla_total_size(0) +
	       (tc->model ? nla_total_size(strlen(tc->model->name) + 1) : 0);
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
	struct sk_buff *msg;
	struct td_cpu *tc;
	u32 cpu;
	int ret;

	if (!td_nl_capable(skb)) {
		NL_SET_ERR_MSG(info->extack, TD_EPERM_MSG);
		return -EPERM;
	}
	ret = td_nl_cpu_arg(info->attrs[TOPDOWN_A_SAMPLE_CPU], info->extack, &cpu);
	if (ret)
		return ret;
	tc = td_cpu(cpu);
	mutex_lock(&tc->lock);
	msg = genlmsg_new(td_nl_sample_size(tc, NULL), GFP_KERNEL);
	if (!msg) {
		mutex_unlock(&tc->lock);
		return -ENOMEM;
	}
	ret = td_nl_fill_sample(msg, tc, info->snd_portid, info->snd_seq, 0,
				TOPDOWN_CMD_GET_SAMPLE);
	mutex_unlock(&tc->lock);
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
	unsigned int cpu;

	if (!td_nl_capable(cb->skb)) {
		NL_SET_ERR_MSG(cb->extack, TD_EPERM_MSG);
		return -EPERM;
	}
	for (cpu = cb->args[0]; cpu < nr_cpu_ids; cpu++) {
		struct td_cpu *tc = td_cpu(cpu);
		int ret;

		if (!cpu_possible(cpu))
			continue;
		mutex_lock(&tc->lock);
		ret = td_nl_fill_sample(skb, tc, NETLINK_CB(cb->skb).portid,
					cb->nlh->nlmsg_seq, NLM_F_MULTI,
					TOPDOWN_CMD_GET_SAMPLE);
		mutex_unlock(&tc->lock);
		if (ret)
			break;	/* full: this CPU goes first in the next skb */
	}
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
static int td_nl_fill_cpu(struct sk_buff *skb, struct td_cpu *tc, u32 portid,
			  u32 seq, int flags)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &td_genl_family, flags,
			  TOPDOWN_CMD_GET_CPU);
	if (!hdr)
		return -EMSGSIZE;
	mutex_lock(&tc->lock);
	if (nla_put_u32(skb, TOPDOWN_A_CPU_INFO_CPU, tc->cpu) ||
	    (tc->model &&
	     (nla_put_string(skb, TOPDOWN_A_CPU_INFO_MODEL, tc->model->name) ||
	      nla_put_u32(skb, TOPDOWN_A_CPU_INFO_WIDTH, tc->model->width) ||
	      nla_put_u32(skb, TOPDOWN_A_CPU_INFO_SLOTS_FROM,
			  td_nl_slots_from(tc->slots_from)))) ||
	    nla_put_u32(skb, TOPDOWN_A_CPU_INFO_STATE, td_nl_state(tc))) {
		mutex_unlock(&tc->lock);
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	mutex_unlock(&tc->lock);
	genlmsg_end(skb, hdr);
	return 0;
}

int topdown_nl_get_cpu_doit(struct sk_buff *skb, struct genl_info *info)
{
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
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	ret = td_nl_fill_cpu(msg, td_cpu(cpu), info->snd_portid, info->snd_seq, 0);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: the next CPU; a message per possible CPU, as get-sample's */
int topdown_nl_get_cpu_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	unsigned int cpu;

	if (!td_nl_capable(cb->skb)) {
		NL_SET_ERR_MSG(cb->extack, TD_EPERM_MSG);
		return -EPERM;
	}
	for (cpu = cb->args[0]; cpu < nr_cpu_ids; cpu++) {
		if (!cpu_possible(cpu))
			continue;
		if (td_nl_fill_cpu(skb, td_cpu(cpu), NETLINK_CB(cb->skb).portid,
				   cb->nlh->nlmsg_seq, NLM_F_MULTI))
			break;	/* full: this CPU goes first in the next skb */
	}
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
	    nla_put_u32(msg, TOPDOWN_A_INFO_LEVEL, READ_ONCE(td_level)) ||
	    nla_put_u32(msg, TOPDOWN_A_INFO_INTERVAL_MS,
			READ_ONCE(td_interval_ms)) ||
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

/*
 * One multicast per burst.  Every CPU's interval ends on the same grid, so
 * the CPUs' samples come within a few works of each other.  Each CPU builds
 * its message in its own buffer (tc->ntf, kept while someone listens, so
 * nothing is allocated per sample) and appends a copy to its group's burst;
 * the burst goes out when every sampling CPU of the group has added to it
 * (counted when a CPU stops sampling, too) or when the next message would
 * not fit.  One allocation, one multicast and one wake-up of each listener
 * per grid point and group rather than per CPU; each sample stays one
 * netlink message, so listeners parse what they did.  No timer: a CPU late
 * to its grid point still adds to the burst it belongs to, and one that
 * (re)started its counters and so has no sample there completes it with
 * its next one.
 *
 * A group is TD_BURST_CPUS CPUs by number, each with its own lock: with
 * one burst for all, 64 vCPUs (emulated on one host thread) spent 288 us
 * of each sample's 466 us of notification waiting for its lock, all of
 * them arriving at the grid point together; and a burst of 16 samples of
 * Level 2 fills the datagram anyway.
 */
/* a burst's buffer: within an order-2 allocation, under tdnl's 32 KiB slot */
#define TD_BURST_MAX		SKB_WITH_OVERHEAD(16384)
#define TD_BURST_CPUS		16

struct td_burst {
	spinlock_t lock;	/* protects everything but sampling */
	struct sk_buff *skb;	/* the burst being gathered; NULL: none */
	unsigned int n;		/* its messages, with those sent when it filled */
	u64 msgs, dgrams;	/* so far: messages, datagrams they went in */
	atomic_t sampling;	/* the group's CPUs sampling now */
};

static struct td_burst *td_bursts;	/* td_nr_bursts groups of CPUs */
static unsigned int td_nr_bursts;

static struct td_burst *td_burst_of(unsigned int cpu)
{
	return &td_bursts[cpu / TD_BURST_CPUS];
}

/* the CPUs a burst waits for: its group's sampling ones (at least one) */
static unsigned int td_burst_cpus(struct td_burst *b)
{
	return max(atomic_read(&b->sampling), 1);
}

static void td_burst_send(struct sk_buff *skb)
{
	if (skb)
		genlmsg_multicast(&td_genl_family, skb, 0, TOPDOWN_NLGRP_SAMPLES, GFP_KERNEL);
}

/* under b->lock: take the burst to send it */
static struct sk_buff *td_burst_take(struct td_burst *b)
{
	struct sk_buff *skb = b->skb;

	if (skb)
		b->dgrams++;
	b->skb = NULL;
	return skb;
}

/* under b->lock: take it as the grid point's last, the count restarts */
static struct sk_buff *td_burst_end(struct td_burst *b)
{
	b->n = 0;
	return td_burst_take(b);
}

/* a burst's buffer for about @cpus messages of @len bytes, or NULL */
static struct sk_buff *td_burst_alloc(size_t len, unsigned int cpus)
{
	size_t want = clamp_t(size_t, (size_t)cpus * len, len,
			      max_t(size_t, len, TD_BURST_MAX));
	struct sk_buff *skb;

	skb = alloc_skb(want, GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY);
	if (!skb && want > len)
		skb = alloc_skb(len, GFP_KERNEL | __GFP_NOWARN);
	return skb;
}

/*
 * @tc's message in its own buffer: its values written in place while it
 * keeps its shape, else built again, the buffer (re)sized; under tc->lock
 */
static int td_nl_build(struct td_cpu *tc)
{
	unsigned int room;
	size_t size;

	if (tc->ntf && td_nl_patch_ntf(tc))
		return 0;
	size = td_nl_sample_size(tc, &room);
	if (tc->ntf && (skb_tailroom(tc->ntf) + tc->ntf->len < size ||
			tc->ntf_room < room))
		td_nl_cpu_release(tc);
	if (!tc->ntf) {
		tc->ntf_off = kmalloc_array(room, sizeof(*tc->ntf_off),
					    GFP_KERNEL | __GFP_NOWARN);
		tc->ntf = genlmsg_new(size, GFP_KERNEL | __GFP_NOWARN);
		if (!tc->ntf || !tc->ntf_off) {
			td_nl_cpu_release(tc);
			return -ENOMEM;
		}
		tc->ntf_room = room;
	}
	skb_trim(tc->ntf, 0);
	tc->cost.ntf_built++;
	return td_nl_fill_ntf(tc);
}

/**
 * td_nl_notify() - multicast a CPU's just completed interval
 * @tc: the CPU, under tc->lock
 *
 * Called by the CPU's sampling work.  Builds nothing while no one listens,
 * and then gives back the CPU's message buffer and drops a burst no one
 * will read.
 */
void td_nl_notify(struct td_cpu *tc)
{
	struct sk_buff *full = NULL, *send = NULL, *spare = NULL;
	struct td_burst *b = td_burst_of(tc->cpu);
	unsigned int cpus = td_burst_cpus(b);
	size_t len;

	if (!TD_CAN_NOTIFY ||
	    !genl_has_listeners(&td_genl_family, &init_net, TOPDOWN_NLGRP_SAMPLES)) {
		td_nl_cpu_release(tc);
		/* racy peek: a burst seen late is dropped at the next sample */
		if (data_race(b->skb)) {
			spin_lock(&b->lock);
			full = b->skb;
			b->skb = NULL;
			b->n = 0;
			spin_unlock(&b->lock);
			kfree_skb(full);
		}
		return;
	}
	if (td_nl_build(tc))
		return;
	len = tc->ntf->len;
again:
	spin_lock(&b->lock);
	/* full: it goes now, and the grid point's next messages in another */
	if (b->skb && skb_tailroom(b->skb) < len)
		full = td_burst_take(b);
	if (!b->skb) {
		if (!spare) {
			unsigned int left = cpus - min(b->n, cpus - 1);

			spin_unlock(&b->lock);
			td_burst_send(full);
			full = NULL;
			spare = td_burst_alloc(len, left);
			if (!spare)
				return;
			goto again;
		}
		b->skb = spare;
		spare = NULL;
	}
	skb_put_data(b->skb, tc->ntf->data, len);
	b->msgs++;
	if (++b->n >= cpus)
		send = td_burst_end(b);
	spin_unlock(&b->lock);
	td_burst_send(full);
	td_burst_send(send);
	kfree_skb(spare);
}

/**
 * td_nl_sampling() - a CPU starts or stops sampling
 * @cpu: the CPU
 * @on:  starts; else stops, and a burst that waited for it goes out now
 *
 * Process context.
 */
void td_nl_sampling(unsigned int cpu, bool on)
{
	struct td_burst *b = td_burst_of(cpu);
	struct sk_buff *send = NULL;

	if (on) {
		atomic_inc(&b->sampling);
		return;
	}
	atomic_dec(&b->sampling);
	spin_lock(&b->lock);
	if (b->n >= td_burst_cpus(b))
		send = td_burst_end(b);
	spin_unlock(&b->lock);
	td_burst_send(send);
}

/**
 * td_nl_burst_stats() - what the notifications took so far
 * @msgs:   sample messages
 * @dgrams: datagrams they went out in
 */
void td_nl_burst_stats(u64 *msgs, u64 *dgrams)
{
	unsigned int i;

	*msgs = 0;
	*dgrams = 0;
	for (i = 0; i < td_nr_bursts; i++) {
		spin_lock(&td_bursts[i].lock);
		*msgs += td_bursts[i].msgs;
		*dgrams += td_bursts[i].dgrams;
		spin_unlock(&td_bursts[i].lock);
	}
}

/** td_nl_memory() - the bytes of the bursts' state, as asked of kcalloc() */
size_t td_nl_memory(void)
{
	return td_nr_bursts * sizeof(*td_bursts);
}

/**
 * td_nl_cpu_release() - free a CPU's message buffer
 * @tc: the CPU, under tc->lock or no longer sampling
 */
void td_nl_cpu_release(struct td_cpu *tc)
{
	kfree_skb(tc->ntf);
	tc->ntf = NULL;
	kfree(tc->ntf_off);
	tc->ntf_off = NULL;
	tc->ntf_room = 0;
	tc->ntf_slots = 0;
}

/**
 * td_nl_cpu_memory() - the bytes of a CPU's message buffer
 * @tc: the CPU, under tc->lock
 *
 * Return: its truesize and its slots' offsets; 0 while no one listens.
 */
size_t td_nl_cpu_memory(const struct td_cpu *tc)
{
	return tc->ntf ? tc->ntf->truesize + tc->ntf_room * sizeof(*tc->ntf_off) : 0;
}

/** td_nl_init() - the bursts' state; register the family */
int td_nl_init(void)
{
	unsigned int i;
	int ret;

	td_nr_bursts = DIV_ROUND_UP(nr_cpu_ids, TD_BURST_CPUS);
	td_bursts = kcalloc(td_nr_bursts, sizeof(*td_bursts), GFP_KERNEL);
	if (!td_bursts)
		return -ENOMEM;
	for (i = 0; i < td_nr_bursts; i++)
		spin_lock_init(&td_bursts[i].lock);
	if (!TD_CAN_NOTIFY)
		pr_info("no sample notifications: this kernel cannot restrict who joins a multicast group\n");
	ret = genl_register_family(&td_genl_family);
	if (ret) {
		kfree(td_bursts);
		td_bursts = NULL;
	}
	return ret;
}

/**
 * td_nl_exit() - send the last burst; unregister, waiting for commands in flight
 *
 * Sampling has stopped: nothing adds to a burst any more.
 */
void td_nl_exit(void)
{
	struct sk_buff *skb;
	unsigned int i;

	for (i = 0; i < td_nr_bursts; i++) {
		spin_lock(&td_bursts[i].lock);
		skb = td_burst_end(&td_bursts[i]);
		spin_unlock(&td_bursts[i].lock);
		td_burst_send(skb);
	}
	genl_unregister_family(&td_genl_family);
	kfree(td_bursts);
	td_bursts = NULL;
}

MODULE_ALIAS_GENL_FAMILY(TOPDOWN_FAMILY_NAME);
