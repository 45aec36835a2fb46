// SPDX-License-Identifier: GPL-2.0
/*
 * tdnl: topdown's messages into plain structs.  Attributes tdnl does not
 * know (a newer module) are skipped; one of the wrong size fails the
 * message with EBADMSG.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include "linux/topdown.h"
#include "tdnl.h"

/* enum topdown_state, bit by bit, as the YNL spec names them */
static const char * const state_names[] = {
	"offline", "waiting", "idle", "unsupported", "no-pmu", "error",
	"not-counted", "multiplexed", "smt-core", "stopped", "skewed",
};

/**
 * tdnl_state_name() - the name of a state flag
 * @bit: its bit number (TOPDOWN_STATE_IDLE is bit 2)
 *
 * Return: the name, or NULL for a bit tdnl does not know.
 */
const char *tdnl_state_name(unsigned int bit)
{
	return bit < ARRAY_SIZE(state_names) ?
	       state_names[bit] : NULL;
}

static int check(const struct nlattr *a, enum mnl_attr_data_type type)
{
	if (mnl_attr_validate(a, type) < 0) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

/*
 * A sample's attributes, walked and checked inline: libmnl's mnl_attr_*()
 * are calls into the shared library, five or six per attribute, and were
 * half of tdnl watch's time per sample (perf record on a parse loop).  The
 * same checks as mnl_attr_ok() and mnl_attr_validate().
 */
static inline bool attr_ok(const struct nlattr *a, const void *end)
{
	long left = (const char *)end - (const char *)a;

	return left >= (long)sizeof(*a) && a->nla_len >= sizeof(*a) &&
	       a->nla_len <= left;
}

#define for_each_attr(a, from, end) \
	for ((a) = (const void *)(from); attr_ok(a, end); \
	     (a) = (const void *)((const char *)(a) + MNL_ALIGN((a)->nla_len)))

static inline uint16_t attr_type(const struct nlattr *a)
{
	return a->nla_type & NLA_TYPE_MASK;
}

static inline unsigned int attr_len(const struct nlattr *a)
{
	return a->nla_len - MNL_ATTR_HDRLEN;
}

static inline const void *attr_data(const struct nlattr *a)
{
	return (const char *)a + MNL_ATTR_HDRLEN;
}

/* a u32 or u64 of exactly its size, or EBADMSG */
static inline int get_fixed(const struct nlattr *a, void *v, unsigned int size)
{
	if (attr_len(a) != size) {
		errno = EBADMSG;
		return -1;
	}
	memcpy(v, attr_data(a), size);
	return 0;
}

/* a NUL-terminated string attribute, cut to @size (once a sample: no printf) */
static void copy_str(char *dst, size_t size, const struct nlattr *a)
{
	size_t len = strnlen(mnl_attr_get_str(a), size - 1);

	memcpy(dst, mnl_attr_get_str(a), len);
	dst[len] = '\0';
}

static int parse_event(const struct nlattr *nest, struct tdnl_model *m)
{
	struct td_event e = {};
	const struct nlattr *a;
	const char *name = NULL;
	int id = -1;

	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case TOPDOWN_A_EVENT_ID:
			if (check(a, MNL_TYPE_U32))
				return -1;
			id = mnl_attr_get_u32(a);
			break;
		case TOPDOWN_A_EVENT_NAME:
			if (check(a, MNL_TYPE_NUL_STRING))
				return -1;
			name = mnl_attr_get_str(a);
			break;
		case TOPDOWN_A_EVENT_CONFIG:
			if (check(a, MNL_TYPE_U64))
				return -1;
			e.config = mnl_attr_get_u64(a);
			break;
		case TOPDOWN_A_EVENT_LEVEL:
			if (check(a, MNL_TYPE_U32))
				return -1;
			e.level = mnl_attr_get_u32(a);
			break;
		}
	}
	if (id < 0 || id >= TDNL_MAX_EVENTS || !name)
		return 0;	/* nothing a count could refer to */
	e.name = strdup(name);
	if (!e.name)
		return -1;
	free((char *)m->events[id].name);
	m->events[id] = e;
	if ((unsigned int)id >= m->nr_events)
		m->nr_events = id + 1;
	return 0;
}

/*
 * A new zeroed entry at the end of the array *arr of *nr entries of @size
 * bytes.  The array grows in powers of two: a GET_INFO lists every
 * possible CPU, 1024 or more.
 */
static void *append(void **arr, unsigned int *nr, size_t size)
{
	unsigned int n = *nr;
	char *p = *arr;

	if (!(n & (n - 1))) {	/* 0, 1, 2, 4, ...: full */
		p = realloc(p, (n ? 2 * n : 1) * size);
		if (!p)
			return NULL;
		*arr = p;
	}
	(*nr)++;
	return memset(p + n * size, 0, size);
}

static int parse_model(const struct nlattr *nest, struct tdnl_info *info)
{
	struct tdnl_model *m;
	const struct nlattr *a;

	m = append((void **)&info->models, &info->nr_models, sizeof(*m));
	if (!m)
		return -1;
	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case TOPDOWN_A_MODEL_NAME:
			if (check(a, MNL_TYPE_NUL_STRING))
				return -1;
			copy_str(m->name, sizeof(m->name), a);
			break;
		case TOPDOWN_A_MODEL_WIDTH:
			if (check(a, MNL_TYPE_U32))
				return -1;
			m->width = mnl_attr_get_u32(a);
			break;
		case TOPDOWN_A_MODEL_CYCLE_BASED:
			m->cycle_based = true;
			break;
		case TOPDOWN_A_MODEL_EVENT:
			if (check(a, MNL_TYPE_NESTED) || parse_event(a, m))
				return -1;
			break;
		}
	}
	td_l34_map(m->events, m->nr_events, &m->l34);
	return 0;
}

/**
 * tdnl_parse_cpu() - a GET_CPU reply (one of a dump's): a CPU added to @info
 * @nlh:  the message
 * @info: where the CPUs go
 *
 * Return: 0, or -1 with errno set (EBADMSG, ENOMEM).
 */
int tdnl_parse_cpu(const struct nlmsghdr *nlh, struct tdnl_info *info)
{
	struct tdnl_cpu_info *c;
	const struct nlattr *a;

	c = append((void **)&info->cpus, &info->nr_cpus, sizeof(*c));
	if (!c)
		return -1;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case TOPDOWN_A_CPU_INFO_CPU:
			if (check(a, MNL_TYPE_U32))
				return -1;
			c->cpu = mnl_attr_get_u32(a);
			break;
		case TOPDOWN_A_CPU_INFO_MODEL:
			if (check(a, MNL_TYPE_NUL_STRING))
				return -1;
			copy_str(c->model, sizeof(c->model), a);
			break;
		case TOPDOWN_A_CPU_INFO_WIDTH:
			if (check(a, MNL_TYPE_U32))
				return -1;
			c->width = mnl_attr_get_u32(a);
			break;
		case TOPDOWN_A_CPU_INFO_STATE:
			if (check(a, MNL_TYPE_U32))
				return -1;
			c->state = mnl_attr_get_u32(a);
			break;
		case TOPDOWN_A_CPU_INFO_SLOTS_FROM:
			if (check(a, MNL_TYPE_U32))
				return -1;
			c->slots_from = mnl_attr_get_u32(a);
			break;
		}
	}
	return 0;
}

/**
 * tdnl_parse_info() - a GET_INFO reply (the CPUs are GET_CPU's)
 * @nlh:  the message
 * @info: out; free with tdnl_free_info(), also after an error
 *
 * Return: 0, or -1 with errno set.
 */
int tdnl_parse_info(const struct nlmsghdr *nlh, struct tdnl_info *info)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case TOPDOWN_A_INFO_VERSION:
			if (check(a, MNL_TYPE_NUL_STRING))
				return -1;
			copy_str(info->version, sizeof(info->version), a);
			break;
		case TOPDOWN_A_INFO_LEVEL:
			if (check(a, MNL_TYPE_U32))
				return -1;
			info->level = mnl_attr_get_u32(a);
			break;
		case TOPDOWN_A_INFO_INTERVAL_MS:
			if (check(a, MNL_TYPE_U32))
				return -1;
			info->interval_ms = mnl_attr_get_u32(a);
			break;
		case TOPDOWN_A_INFO_RUNNING:
			if (check(a, MNL_TYPE_U32))
				return -1;
			info->running = mnl_attr_get_u32(a);
			break;
		case TOPDOWN_A_INFO_MODEL:
			if (check(a, MNL_TYPE_NESTED) || parse_model(a, info))
				return -1;
			break;
		}
	}
	return 0;
}

/** tdnl_free_info() - free what tdnl_parse_info() allocated */
void tdnl_free_info(struct tdnl_info *info)
{
	unsigned int i, j;

	for (i = 0; i < info->nr_models; i++)
		for (j = 0; j < info->models[i].nr_events; j++)
			free((char *)info->models[i].events[j].name);
	free(info->models);
	free(info->cpus);
	memset(info, 0, sizeof(*info));
}

/**
 * tdnl_cpu_width() - the slots per cycle a CPU is counted with
 * @info: GET_INFO's reply
 * @cpu:  the CPU
 *
 * Return: its width (its PMU's where the module read one), or 0 if
 * GET_INFO did not say.
 */
unsigned int tdnl_cpu_width(const struct tdnl_info *info, unsigned int cpu)
{
	unsigned int i;

	for (i = 0; i < info->nr_cpus; i++)
		if (info->cpus[i].cpu == cpu)
			return info->cpus[i].width;
	return 0;
}

/**
 * tdnl_slots_from_name() - where a CPU's width comes from, as a word
 * @from: enum topdown_slots_from
 *
 * Return: "model", "pmmir", "caps" or "?".
 */
const char *tdnl_slots_from_name(unsigned int from)
{
	static const char * const names[] = {
		[TOPDOWN_SLOTS_FROM_MODEL] = "model",
		[TOPDOWN_SLOTS_FROM_PMMIR] = "pmmir",
		[TOPDOWN_SLOTS_FROM_CAPS] = "caps",
	};

	return from < sizeof(names) / sizeof(names[0]) ? names[from] : "?";
}

/**
 * tdnl_find_model() - a model of GET_INFO by name
 * @info: the reply
 * @name: the model's name, as in a sample
 *
 * Return: the model, or NULL.
 */
const struct tdnl_model *tdnl_find_model(const struct tdnl_info *info,
					 const char *name)
{
	unsigned int i;

	for (i = 0; i < info->nr_models; i++)
		if (!strcmp(info->models[i].name, name))
			return &info->models[i];
	return NULL;
}

/* a nest of u32 ppm values: attribute type N goes to v[N - 1] */
static int parse_ppm(const struct nlattr *nest, uint32_t *v, bool *set,
		     unsigned int n)
{
	const void *end = (const char *)nest + nest->nla_len;
	const struct nlattr *a;

	for_each_attr(a, attr_data(nest), end) {
		unsigned int type = attr_type(a);

		if (type < 1 || type > n)
			continue;
		if (get_fixed(a, &v[type - 1], sizeof(v[type - 1])))
			return -1;
		if (set)
			set[type - 1] = true;
	}
	return 0;
}

static int parse_count(const struct nlattr *nest, struct tdnl_sample *s)
{
	const void *end = (const char *)nest + nest->nla_len;
	struct tdnl_count k = { .present = true };
	const struct nlattr *a;
	uint32_t id = UINT32_MAX;

	for_each_attr(a, attr_data(nest), end) {
		uint64_t *v;

		switch (attr_type(a)) {
		case TOPDOWN_A_COUNT_ID:
			if (get_fixed(a, &id, sizeof(id)))
				return -1;
			continue;
		case TOPDOWN_A_COUNT_DELTA:
			v = &k.delta;
			break;
		case TOPDOWN_A_COUNT_TOTAL:
			v = &k.total;
			break;
		case TOPDOWN_A_COUNT_ENABLED:
			v = &k.enabled;
			break;
		case TOPDOWN_A_COUNT_RUNNING:
			v = &k.running;
			break;
		default:
			continue;
		}
		if (get_fixed(a, v, sizeof(*v)))
			return -1;
	}
	if (id < TDNL_MAX_EVENTS)
		s->cnt[id] = k;
	return 0;
}

/* the totals' node attributes: enum td_l1, then enum td_l2 */
#define TOTALS_L1	TOPDOWN_A_TOTALS_RETIRING
#define TOTALS_L2	TOPDOWN_A_TOTALS_LIGHT_OPERATIONS
_Static_assert((int)TOPDOWN_A_TOTALS_NOT_STALLED == TOTALS_L1 + (int)TD_NOT_STALLED &&
	       (int)TOTALS_L2 == TOTALS_L1 + (int)TD_NR_L1 &&
	       (int)TOPDOWN_A_TOTALS_MAX == TOTALS_L2 + (int)TD_NR_L2 - 1,
	       "totals attributes");

static int parse_totals(const struct nlattr *nest, struct tdnl_totals *t)
{
	const void *end = (const char *)nest + nest->nla_len;
	const struct nlattr *a;

	t->present = true;
	for_each_attr(a, attr_data(nest), end) {
		unsigned int type = attr_type(a);
		uint64_t *v;

		if (type == TOPDOWN_A_TOTALS_SLOTS ||
		    type == TOPDOWN_A_TOTALS_CYCLES) {
			v = &t->units;
			t->cycles = type == TOPDOWN_A_TOTALS_CYCLES;
		} else if (type >= TOTALS_L1 && type < TOTALS_L2) {
			v = &t->l1[type - TOTALS_L1];
			t->l1_set[type - TOTALS_L1] = true;
		} else if (type >= TOTALS_L2 && type <= TOPDOWN_A_TOTALS_MAX) {
			v = &t->l2[type - TOTALS_L2];
			t->l2_set[type - TOTALS_L2] = true;
		} else {
			continue;
		}
		if (get_fixed(a, v, sizeof(*v)))
			return -1;
	}
	return 0;
}

/* enum td_l1 and enum td_l2 are the attribute types minus one */
_Static_assert((int)TOPDOWN_A_LEVEL1_MAX == (int)TD_NR_L1 &&
	       (int)TOPDOWN_A_LEVEL1_NOT_STALLED == (int)TD_NOT_STALLED + 1,
	       "Level 1 attributes");
_Static_assert((int)TOPDOWN_A_LEVEL2_MAX == (int)TD_NR_L2 &&
	       (int)TOPDOWN_A_LEVEL2_OTHER_MISPREDICTS == (int)TD_OTHER_MISPREDICTS + 1,
	       "Level 2 attributes");

/**
 * tdnl_parse_sample() - a GET_SAMPLE reply or a SAMPLE_NTF
 * @nlh: the message
 * @s:   out
 *
 * Return: 0, or -1 with errno set.
 */
int tdnl_parse_sample(const struct nlmsghdr *nlh, struct tdnl_sample *s)
{
	const void *end = (const char *)nlh + nlh->nlmsg_len;
	const struct nlattr *a;
	uint32_t v = 0;

	memset(s, 0, sizeof(*s));
	for_each_attr(a, (const char *)mnl_nlmsg_get_payload(nlh) +
		      MNL_ALIGN(sizeof(struct genlmsghdr)), end) {
		switch (attr_type(a)) {
		case TOPDOWN_A_SAMPLE_CPU:
			if (get_fixed(a, &v, sizeof(v)))
				return -1;
			s->cpu = v;
			break;
		case TOPDOWN_A_SAMPLE_SEQ:
			if (get_fixed(a, &s->seq, sizeof(s->seq)))
				return -1;
			break;
		case TOPDOWN_A_SAMPLE_START_NS:
			if (get_fixed(a, &s->start_ns, sizeof(s->start_ns)))
				return -1;
			break;
		case TOPDOWN_A_SAMPLE_END_NS:
			if (get_fixed(a, &s->end_ns, sizeof(s->end_ns)))
				return -1;
			break;
		case TOPDOWN_A_SAMPLE_STATE:
			if (get_fixed(a, &s->state, sizeof(s->state)))
				return -1;
			break;
		case TOPDOWN_A_SAMPLE_ERRNO:
			if (get_fixed(a, &v, sizeof(v)))
				return -1;
			s->err = (int)v;
			s->has_errno = true;
			break;
		case TOPDOWN_A_SAMPLE_MODEL:
			if (check(a, MNL_TYPE_NUL_STRING))
				return -1;
			copy_str(s->model, sizeof(s->model), a);
			break;
		case TOPDOWN_A_SAMPLE_LEVEL1:
			if (check(a, MNL_TYPE_NESTED) ||
			    parse_ppm(a, s->l1, s->l1_set, TD_NR_L1))
				return -1;
			s->has_l1 = true;
			break;
		case TOPDOWN_A_SAMPLE_LEVEL2:
			if (check(a, MNL_TYPE_NESTED) ||
			    parse_ppm(a, s->l2, s->l2_set, TD_NR_L2))
				return -1;
			s->has_l2 = true;
			break;
		case TOPDOWN_A_SAMPLE_COUNT:
			if (check(a, MNL_TYPE_NESTED) || parse_count(a, s))
				return -1;
			break;
		case TOPDOWN_A_SAMPLE_SETS:
			if (get_fixed(a, &v, sizeof(v)))
				return -1;
			s->sets = v;
			break;
		case TOPDOWN_A_SAMPLE_LEVEL1_COUNTED:
		case TOPDOWN_A_SAMPLE_LEVEL2_COUNTED:
		case TOPDOWN_A_SAMPLE_LEVEL3_COUNTED: {
			unsigned int l = attr_type(a) -
					 TOPDOWN_A_SAMPLE_LEVEL1_COUNTED;

			if (get_fixed(a, &s->counted[l], sizeof(s->counted[l])))
				return -1;
			s->counted_set[l] = true;
			break;
		}
		case TOPDOWN_A_SAMPLE_TOTALS:
			if (check(a, MNL_TYPE_NESTED) || parse_totals(a, &s->tot))
				return -1;
			break;
		}
	}
	return 0;
}

/* the controller says the family is gone: rmmod */
static bool family_gone(const struct nlmsghdr *nlh, const struct tdnl_nl *nl)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;

	if (!nl->ctrl_family || nlh->nlmsg_type != nl->ctrl_family ||
	    genl->cmd != CTRL_CMD_DELFAMILY)
		return false;
	mnl_attr_for_each(a, nlh, sizeof(*genl))
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
		    !mnl_attr_validate(a, MNL_TYPE_U16) &&
		    mnl_attr_get_u16(a) == nl->family)
			return true;
	return false;
}

_Static_assert(TDNL_CB_SAMPLE != MNL_CB_OK && TDNL_CB_SAMPLE != MNL_CB_STOP &&
	       TDNL_CB_SAMPLE != MNL_CB_ERROR, "a sample is not a callback's return");

/**
 * tdnl_sample_ntf() - a message of the samples socket, as a sample
 * @nlh:   the message
 * @nl:    the socket it came on, for the family ids
 * @flags: TDNL_NTF_DUMP, TDNL_NTF_STRICT
 * @s:     out
 * @gone:  set when the family was unregistered
 *
 * What every reader's callback (stat, top, export, watch) does first.
 *
 * Return: TDNL_CB_SAMPLE, *s then a sample of a CPU below TDNL_MAX_CPUS;
 * else what the callback returns: MNL_CB_OK to pass the message by,
 * MNL_CB_STOP when the family is gone, MNL_CB_ERROR (errno set) for a
 * malformed sample under TDNL_NTF_STRICT.
 */
int tdnl_sample_ntf(const struct nlmsghdr *nlh, const struct tdnl_nl *nl,
		    unsigned int flags, struct tdnl_sample *s, bool *gone)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*genl))
		return MNL_CB_OK;
	if (family_gone(nlh, nl)) {
		*gone = true;
		return MNL_CB_STOP;
	}
	if (nlh->nlmsg_type != nl->family ||
	    (genl->cmd != TOPDOWN_CMD_SAMPLE_NTF &&
	     !((flags & TDNL_NTF_DUMP) && genl->cmd == TOPDOWN_CMD_GET_SAMPLE)))
		return MNL_CB_OK;
	if (tdnl_parse_sample(nlh, s))
		return flags & TDNL_NTF_STRICT ? MNL_CB_ERROR : MNL_CB_OK;
	/* the readers index by-CPU tables with it */
	return s->cpu < TDNL_MAX_CPUS ? TDNL_CB_SAMPLE : MNL_CB_OK;
}

/**
 * tdnl_calc_after() - tdnl_calc() with GET_INFO's model and width
 * @s:    the sample
 * @prev: the CPU's last sample received, or NULL
 * @info: GET_INFO's reply
 *
 * A sample no later than @prev's is of a module loaded again: no span.
 */
void tdnl_calc_after(struct tdnl_sample *s, const struct tdnl_sample *prev,
		     const struct tdnl_info *info)
{
	if (prev && s->seq <= prev->seq)
		prev = NULL;
	tdnl_calc(s, prev, tdnl_find_model(info, s->model),
		  tdnl_cpu_width(info, s->cpu));
}

/**
 * tdnl_keep() - a copy of a sample as a CPU's last one
 * @last: the CPU's slot, NULL until its first sample
 * @s:    the sample
 *
 * Return: 0, or -1 with errno set (ENOMEM).
 */
int tdnl_keep(struct tdnl_sample **last, const struct tdnl_sample *s)
{
	if (!*last) {
		*last = malloc(sizeof(**last));
		if (!*last)
			return -1;
	}
	**last = *s;
	return 0;
}
