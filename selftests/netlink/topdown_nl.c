// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "topdown" (uapi/linux/topdown.h), tested with
 * the kselftest harness in a guest where run.sh has loaded tdsim.ko and
 * topdown.ko with model=spr, level $TD_NL_LEVEL and interval_ms
 * $TD_NL_INTERVAL_MS (2 and 100 unless set).  Every error is checked for its
 * errno and, where the module sets one, its exact extack message.
 *
 * Plain AF_NETLINK sockets; libmnl only builds and walks the attributes.
 * Each test runs in its own process (the harness forks), so the privilege
 * and namespace tests drop what they need to in the test process itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>

#include "kselftest_harness.h"
#include "linux/topdown.h"

#define MAX_CPUS	8192	/* NR_CPUS of Debian's kernels */
#define TB_MAX		32	/* more than any attribute set's last type */
#define PPM		1000000
#define NOBODY		65534
#define EPERM_MSG	"topdown needs CAP_PERFMON or CAP_SYS_ADMIN"
/* spr's events: 17 in all, 9 up to level 2 (kmod/td_intel.c) */
#define SPR_EVENTS	17
#define SPR_EVENTS_L2	9
#define STATE_ERRORS	(TOPDOWN_STATE_OFFLINE | TOPDOWN_STATE_WAITING | \
			 TOPDOWN_STATE_IDLE | TOPDOWN_STATE_UNSUPPORTED | \
			 TOPDOWN_STATE_NO_PMU | TOPDOWN_STATE_ERROR | \
			 TOPDOWN_STATE_NOT_COUNTED)
/* where a request's first attribute starts, for NLMSGERR_ATTR_OFFS */
#define ATTR1_OFFS	(NLMSG_HDRLEN + GENL_HDRLEN)

/* ------------------------------------------------------------ netlink --- */

struct nl {
	int fd;
	unsigned int seq;
	unsigned int batches;	/* datagrams of the last request's replies */
	char ext[256];		/* the last error's extack message, or "" */
	int offs;		/* its NLMSGERR_ATTR_OFFS, or -1 */
	int64_t pol_min, pol_max;	/* its NLMSGERR_ATTR_POLICY range, or -1 */
	char *buf;		/* receive buffer */
	size_t len;
};

static int nl_open(struct nl *nl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1, rcvbuf = 1 << 20;

	memset(nl, 0, sizeof(*nl));
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		return -errno;
	/* a port id: an unbound socket (0) gets no notifications */
	if (bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one))) {
		close(nl->fd);
		return -errno;
	}
	/* room for a burst of notifications; capped at rmem_max unprivileged */
	if (setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	return 0;
}

static void nl_close(struct nl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	free(nl->buf);
	nl->fd = -1;
	nl->buf = NULL;
}

/* A request to family: NLM_F_REQUEST | NLM_F_ACK and flags. */
static struct nlmsghdr *nl_req(struct nl *nl, void *buf, uint16_t family,
			       uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = family == GENL_ID_CTRL ? 1 : TOPDOWN_FAMILY_VERSION;
	return nlh;
}

/* One datagram, however large: its size first (MSG_PEEK | MSG_TRUNC). */
static ssize_t nl_recv(struct nl *nl, int flags)
{
	ssize_t n = recv(nl->fd, NULL, 0, MSG_PEEK | MSG_TRUNC | flags);

	if (n < 0)
		return -errno;
	if ((size_t)n > nl->len) {
		free(nl->buf);
		nl->len = n;
		nl->buf = malloc(n);
		if (!nl->buf)
			return -ENOMEM;
	}
	n = recv(nl->fd, nl->buf, nl->len, flags);
	return n < 0 ? -errno : n;
}

/* The error of an NLMSG_ERROR or NLMSG_DONE; its extack into nl. */
static void parse_nest(const struct nlattr *nest, const struct nlattr **tb);
static int64_t get_u64(const struct nlattr *a);

static int nl_error(struct nl *nl, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	size_t off;
	int err;

	if (nlh->nlmsg_type == NLMSG_DONE) {
		err = *(const int *)e;
		off = sizeof(int);
	} else {
		err = e->error;
		off = sizeof(*e);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(e->msg);
	}
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return err;
	mnl_attr_for_each(a, nlh, off) {
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG)
			snprintf(nl->ext, sizeof(nl->ext), "%.*s",
				 (int)mnl_attr_get_payload_len(a),
				 (const char *)mnl_attr_get_payload(a));
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_OFFS)
			nl->offs = mnl_attr_get_u32(a);
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_POLICY) {
			const struct nlattr *p[TB_MAX];

			parse_nest(a, p);
			nl->pol_min = get_u64(p[NL_POLICY_TYPE_ATTR_MIN_VALUE_U]);
			nl->pol_max = get_u64(p[NL_POLICY_TYPE_ATTR_MAX_VALUE_U]);
		}
	}
	return err;
}

typedef int (*reply_cb)(const struct nlmsghdr *nlh, void *data);

/*
 * Sends req and reads its replies, each to cb, up to the ack (do) or the
 * end (dump).  Returns 0 or the negative errno; the extack is in nl->ext.
 */
static int nl_talk(struct nl *nl, struct nlmsghdr *req, reply_cb cb, void *data)
{
	nl->ext[0] = 0;
	nl->offs = -1;
	nl->pol_min = -1;
	nl->pol_max = -1;
	nl->batches = 0;
	if (send(nl->fd, req, req->nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		const struct nlmsghdr *nlh;
		ssize_t n = nl_recv(nl, 0);
		int len = n;

		bool replies = false;

		if (n < 0)
			return n;
		for (nlh = (void *)nl->buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_seq != req->nlmsg_seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR ||
			    nlh->nlmsg_type == NLMSG_DONE) {
				nl->batches += replies;
				return nl_error(nl, nlh);
			}
			replies = true;
			if (cb && cb(nlh, data))
				return -EBADMSG;
		}
		nl->batches += replies;
	}
}

#define TB_INIT(tb)	memset(tb, 0, sizeof(const struct nlattr *) * TB_MAX)

static int tb_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_get_type(a) < TB_MAX)
		tb[mnl_attr_get_type(a)] = a;
	return MNL_CB_OK;
}

static void parse_genl(const struct nlmsghdr *nlh, const struct nlattr **tb)
{
	TB_INIT(tb);
	mnl_attr_parse(nlh, GENL_HDRLEN, tb_cb, tb);
}

static void parse_nest(const struct nlattr *nest, const struct nlattr **tb)
{
	TB_INIT(tb);
	mnl_attr_parse_nested(nest, tb_cb, tb);
}

static uint8_t genl_cmd(const struct nlmsghdr *nlh)
{
	return ((const struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd;
}

/* a u32 of exactly 4 bytes, or -1 */
static int64_t get_u32(const struct nlattr *a)
{
	return a && mnl_attr_validate(a, MNL_TYPE_U32) == 0 ?
	       (int64_t)mnl_attr_get_u32(a) : -1;
}

static int64_t get_u64(const struct nlattr *a)
{
	return a && mnl_attr_validate(a, MNL_TYPE_U64) == 0 ?
	       (int64_t)mnl_attr_get_u64(a) : -1;
}

static const char *get_str(const struct nlattr *a)
{
	return a && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0 ?
	       mnl_attr_get_str(a) : NULL;
}

/* The one reply of a do request, kept. */
struct reply {
	unsigned int n;
	struct nlmsghdr *nlh;
};

static int keep_cb(const struct nlmsghdr *nlh, void *data)
{
	struct reply *r = data;

	r->n++;
	free(r->nlh);
	r->nlh = malloc(nlh->nlmsg_len);
	if (!r->nlh)
		return -1;
	memcpy(r->nlh, nlh, nlh->nlmsg_len);
	return 0;
}

static void reply_free(struct reply *r)
{
	free(r->nlh);
	memset(r, 0, sizeof(*r));
}

/* ---------------------------------------------------- the controller --- */

struct family {
	int id;
	uint32_t version;
	int grp;		/* "samples", or -1 */
	unsigned int nr_grps;
	uint32_t op_flags[8];	/* by command, for commands < 8 */
	unsigned int nr_ops;
};

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TB_MAX], *a, *b;
	struct family *f = data;

	parse_genl(nlh, tb);
	f->id = tb[CTRL_ATTR_FAMILY_ID] &&
		mnl_attr_validate(tb[CTRL_ATTR_FAMILY_ID], MNL_TYPE_U16) == 0 ?
		mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]) : -1;
	f->version = get_u32(tb[CTRL_ATTR_VERSION]);
	if (tb[CTRL_ATTR_MCAST_GROUPS])
		mnl_attr_for_each_nested(a, tb[CTRL_ATTR_MCAST_GROUPS]) {
			const struct nlattr *g[TB_MAX];
			const char *name;

			parse_nest(a, g);
			name = get_str(g[CTRL_ATTR_MCAST_GRP_NAME]);
			f->nr_grps++;
			if (name && !strcmp(name, TOPDOWN_MCGRP_SAMPLES))
				f->grp = get_u32(g[CTRL_ATTR_MCAST_GRP_ID]);
		}
	if (tb[CTRL_ATTR_OPS])
		mnl_attr_for_each_nested(b, tb[CTRL_ATTR_OPS]) {
			const struct nlattr *o[TB_MAX];
			int64_t id;

			parse_nest(b, o);
			id = get_u32(o[CTRL_ATTR_OP_ID]);
			f->nr_ops++;
			if (id >= 0 && id < 8)
				f->op_flags[id] = get_u32(o[CTRL_ATTR_OP_FLAGS]);
		}
	return 0;
}

/* CTRL_CMD_GETFAMILY by name: 0 or the negative errno */
static int resolve(struct nl *nl, const char *name, struct family *f)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	memset(f, 0, sizeof(*f));
	f->id = -1;
	f->grp = -1;
	nlh = nl_req(nl, buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	return nl_talk(nl, nlh, family_cb, f);
}

/* whether a CTRL_CMD_GETFAMILY dump lists the family */
static int names_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TB_MAX];
	const char *name;

	parse_genl(nlh, tb);
	name = get_str(tb[CTRL_ATTR_FAMILY_NAME]);
	if (name && !strcmp(name, TOPDOWN_FAMILY_NAME))
		*(int *)data = 1;
	return 0;
}

static int family_listed(struct nl *nl)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int found = 0, err;

	err = nl_talk(nl, nl_req(nl, buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
				 NLM_F_DUMP), names_cb, &found);
	return err ? err : found;
}

static int join(int fd, int grp)
{
	return setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp,
			  sizeof(grp)) ? -errno : 0;
}

/* ------------------------------------------------------------ topdown --- */

struct sample {
	uint8_t cmd;
	int64_t cpu, state, seq, start_ns, end_ns;
	const char *model;
	bool has_l1, has_l2;
	int64_t l1[TOPDOWN_A_LEVEL1_MAX + 1];	/* -1: absent */
	int64_t l2[TOPDOWN_A_LEVEL2_MAX + 1];
	unsigned int nr_l1, nr_counts;
	bool counts_ok;			/* ids ascending, every value there */
};

/* 0, or -1 when a mandatory attribute is missing or of the wrong size */
static int parse_sample(const struct nlmsghdr *nlh, struct sample *s)
{
	const struct nlattr *tb[TB_MAX], *n[TB_MAX], *a;
	int64_t last = -1;
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i <= TOPDOWN_A_LEVEL1_MAX; i++)
		s->l1[i] = -1;
	for (i = 0; i <= TOPDOWN_A_LEVEL2_MAX; i++)
		s->l2[i] = -1;
	s->cmd = genl_cmd(nlh);
	parse_genl(nlh, tb);
	s->cpu = get_u32(tb[TOPDOWN_A_SAMPLE_CPU]);
	s->state = get_u32(tb[TOPDOWN_A_SAMPLE_STATE]);
	s->seq = get_u64(tb[TOPDOWN_A_SAMPLE_SEQ]);
	s->start_ns = get_u64(tb[TOPDOWN_A_SAMPLE_START_NS]);
	s->end_ns = get_u64(tb[TOPDOWN_A_SAMPLE_END_NS]);
	s->model = get_str(tb[TOPDOWN_A_SAMPLE_MODEL]);
	if (tb[TOPDOWN_A_SAMPLE_LEVEL1]) {
		s->has_l1 = true;
		parse_nest(tb[TOPDOWN_A_SAMPLE_LEVEL1], n);
		for (i = 1; i <= TOPDOWN_A_LEVEL1_MAX; i++) {
			s->l1[i] = get_u32(n[i]);
			s->nr_l1 += !!n[i];
		}
	}
	if (tb[TOPDOWN_A_SAMPLE_LEVEL2]) {
		s->has_l2 = true;
		parse_nest(tb[TOPDOWN_A_SAMPLE_LEVEL2], n);
		for (i = 1; i <= TOPDOWN_A_LEVEL2_MAX; i++)
			s->l2[i] = get_u32(n[i]);
	}
	s->counts_ok = true;
	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		int64_t id;

		if (mnl_attr_get_type(a) != TOPDOWN_A_SAMPLE_COUNT)
			continue;
		parse_nest(a, n);
		id = get_u32(n[TOPDOWN_A_COUNT_ID]);
		s->nr_counts++;
		if (id <= last || get_u64(n[TOPDOWN_A_COUNT_DELTA]) < 0 ||
		    get_u64(n[TOPDOWN_A_COUNT_TOTAL]) < 0 ||
		    get_u64(n[TOPDOWN_A_COUNT_ENABLED]) < 0 ||
		    get_u64(n[TOPDOWN_A_COUNT_RUNNING]) < 0)
			s->counts_ok = false;
		last = id;
	}
	return s->cpu < 0 || s->state < 0 || s->seq < 0 || s->start_ns < 0 ||
	       s->end_ns < 0 ? -1 : 0;
}

/* Level 1 adds up to 1000000 and each Level 2 pair to its parent. */
static bool levels_add_up(const struct sample *s)
{
	int64_t sum = 0;
	int i;

	for (i = 1; i <= TOPDOWN_A_LEVEL1_MAX; i++)
		sum += s->l1[i] > 0 ? s->l1[i] : 0;
	return s->has_l1 && s->has_l2 && sum == PPM &&
	       s->l2[TOPDOWN_A_LEVEL2_LIGHT_OPERATIONS] +
	       s->l2[TOPDOWN_A_LEVEL2_HEAVY_OPERATIONS] ==
	       s->l1[TOPDOWN_A_LEVEL1_RETIRING] &&
	       s->l2[TOPDOWN_A_LEVEL2_BRANCH_MISPREDICTS] +
	       s->l2[TOPDOWN_A_LEVEL2_MACHINE_CLEARS] ==
	       s->l1[TOPDOWN_A_LEVEL1_BAD_SPECULATION] &&
	       s->l2[TOPDOWN_A_LEVEL2_FETCH_LATENCY] +
	       s->l2[TOPDOWN_A_LEVEL2_FETCH_BANDWIDTH] ==
	       s->l1[TOPDOWN_A_LEVEL1_FRONTEND_BOUND] &&
	       s->l2[TOPDOWN_A_LEVEL2_MEMORY_BOUND] +
	       s->l2[TOPDOWN_A_LEVEL2_CORE_BOUND] ==
	       s->l1[TOPDOWN_A_LEVEL1_BACKEND_BOUND];
}

struct info {
	const char *version;
	int64_t level, interval_ms, running;
	unsigned int info_cpu_nests;	/* GET_INFO's: none since GET_CPU */
	unsigned int nr_cpus, cpu_seen[MAX_CPUS];
	unsigned int bad_cpu;		/* CPU nests without a valid cpu */
	const char *cpu_model[MAX_CPUS];
	int64_t cpu_width[MAX_CPUS], cpu_state[MAX_CPUS];
	int spr_events;			/* -1: no model spr */
	int spr_events_l2;
	bool spr_ids_ok;		/* ids 0..n-1 in order, every field there */
	int64_t spr_width;
};

static void parse_info(const struct nlmsghdr *nlh, struct info *in)
{
	const struct nlattr *tb[TB_MAX], *a, *e;

	memset(in, 0, sizeof(*in));
	in->spr_events = -1;
	parse_genl(nlh, tb);
	in->version = get_str(tb[TOPDOWN_A_INFO_VERSION]);
	in->level = get_u32(tb[TOPDOWN_A_INFO_LEVEL]);
	in->interval_ms = get_u32(tb[TOPDOWN_A_INFO_INTERVAL_MS]);
	in->running = get_u32(tb[TOPDOWN_A_INFO_RUNNING]);
	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		const struct nlattr *n[TB_MAX];

		in->info_cpu_nests += mnl_attr_get_type(a) == TOPDOWN_A_INFO_CPU;
		if (mnl_attr_get_type(a) == TOPDOWN_A_INFO_MODEL) {
			const char *name;

			parse_nest(a, n);
			name = get_str(n[TOPDOWN_A_MODEL_NAME]);
			if (!name || strcmp(name, "spr"))
				continue;
			in->spr_width = get_u32(n[TOPDOWN_A_MODEL_WIDTH]);
			in->spr_events = 0;
			in->spr_ids_ok = true;
			mnl_attr_for_each_nested(e, a) {
				const struct nlattr *ev[TB_MAX];
				int64_t level;

				if (mnl_attr_get_type(e) != TOPDOWN_A_MODEL_EVENT)
					continue;
				parse_nest(e, ev);
				level = get_u32(ev[TOPDOWN_A_EVENT_LEVEL]);
				if (get_u32(ev[TOPDOWN_A_EVENT_ID]) != in->spr_events ||
				    !get_str(ev[TOPDOWN_A_EVENT_NAME]) ||
				    get_u64(ev[TOPDOWN_A_EVENT_CONFIG]) < 0 ||
				    level < 1 || level > 3)
					in->spr_ids_ok = false;
				in->spr_events++;
				in->spr_events_l2 += level >= 1 && level <= 2;
			}
		}
	}
}

/* one GET_CPU message (a dump's) into @data, a struct info */
static int cpu_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TB_MAX];
	struct info *in = data;
	int64_t cpu;

	if (genl_cmd(nlh) != TOPDOWN_CMD_GET_CPU) {
		in->bad_cpu++;
		return 0;
	}
	parse_genl(nlh, tb);
	cpu = get_u32(tb[TOPDOWN_A_CPU_INFO_CPU]);
	in->nr_cpus++;
	if (cpu < 0 || cpu >= MAX_CPUS) {
		in->bad_cpu++;
		return 0;
	}
	in->cpu_seen[cpu]++;
	/* the dump's messages are gone after the callback: a copy */
	free((void *)in->cpu_model[cpu]);
	in->cpu_model[cpu] = get_str(tb[TOPDOWN_A_CPU_INFO_MODEL]) ?
			     strdup(get_str(tb[TOPDOWN_A_CPU_INFO_MODEL])) : NULL;
	in->cpu_width[cpu] = get_u32(tb[TOPDOWN_A_CPU_INFO_WIDTH]);
	in->cpu_state[cpu] = get_u32(tb[TOPDOWN_A_CPU_INFO_STATE]);
	return 0;
}

/* every possible CPU's model, width and state: a GET_CPU dump into @in */
static int dump_cpus(struct nl *nl, int family, struct info *in)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int c;

	for (c = 0; c < MAX_CPUS; c++)
		free((void *)in->cpu_model[c]);
	memset(in->cpu_seen, 0, sizeof(in->cpu_seen));
	memset(in->cpu_model, 0, sizeof(in->cpu_model));
	in->nr_cpus = 0;
	in->bad_cpu = 0;
	return nl_talk(nl, nl_req(nl, buf, family, TOPDOWN_CMD_GET_CPU, NLM_F_DUMP),
		       cpu_cb, in);
}

static int get_info(struct nl *nl, int family, struct reply *r)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	reply_free(r);
	return nl_talk(nl, nl_req(nl, buf, family, TOPDOWN_CMD_GET_INFO, 0),
		       keep_cb, r);
}

static int get_sample(struct nl *nl, int family, int64_t cpu, struct reply *r)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	reply_free(r);
	nlh = nl_req(nl, buf, family, TOPDOWN_CMD_GET_SAMPLE, 0);
	if (cpu >= 0)
		mnl_attr_put_u32(nlh, TOPDOWN_A_SAMPLE_CPU, cpu);
	return nl_talk(nl, nlh, keep_cb, r);
}

/* interval_ms and level: < 0 leaves the attribute out */
static int set_config(struct nl *nl, int family, int64_t ms, int64_t level)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	nlh = nl_req(nl, buf, family, TOPDOWN_CMD_SET_CONFIG, 0);
	if (ms >= 0)
		mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_INTERVAL_MS, ms);
	if (level >= 0)
		mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_LEVEL, level);
	return nl_talk(nl, nlh, NULL, NULL);
}

/* A GET_SAMPLE dump, by CPU. */
struct dump {
	unsigned int n, bad, unordered;
	int64_t last_cpu;
	unsigned int seen[MAX_CPUS];
	struct sample s[MAX_CPUS];
};

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump *d = data;
	struct sample s;

	d->n++;
	if (parse_sample(nlh, &s) || s.cpu >= MAX_CPUS ||
	    s.cmd != TOPDOWN_CMD_GET_SAMPLE || !(nlh->nlmsg_flags & NLM_F_MULTI)) {
		d->bad++;
		return 0;
	}
	d->unordered += s.cpu <= d->last_cpu;
	d->last_cpu = s.cpu;
	d->seen[s.cpu]++;
	d->s[s.cpu] = s;
	d->s[s.cpu].model = NULL;	/* points into the receive buffer */
	return 0;
}

static int dump_samples(struct nl *nl, int family, struct dump *d)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	memset(d, 0, sizeof(*d));
	d->last_cpu = -1;
	return nl_talk(nl, nl_req(nl, buf, family, TOPDOWN_CMD_GET_SAMPLE,
				  NLM_F_DUMP), dump_cb, d);
}

/* ------------------------------------------------------- the machine --- */

/* A CPU list file ("0-3,8"): CPUs into set, returns how many, or -1. */
static int read_cpus(const char *path, bool *set)
{
	unsigned int a, b;
	int n = 0, c, got;
	char sep;
	FILE *f;

	memset(set, 0, MAX_CPUS * sizeof(*set));
	f = fopen(path, "r");
	if (!f)
		return -1;
	for (;;) {
		if (fscanf(f, "%u", &a) != 1)
			break;
		b = a;
		got = fscanf(f, "%c", &sep);
		if (got == 1 && sep == '-') {
			if (fscanf(f, "%u", &b) != 1)
				break;
			got = fscanf(f, "%c", &sep);
		}
		for (c = a; c <= (int)b && c < MAX_CPUS; c++, n++)
			set[c] = true;
		if (got != 1 || sep != ',')
			break;
	}
	fclose(f);
	return n;
}

static int64_t env_or(const char *name, int64_t dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoll(v, NULL, 10) : dflt;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* uid and gid nobody, no groups; with keep, CAP_PERFMON (only) stays */
static int drop_privileges(uint32_t keep)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};

	if (keep && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return -errno;
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return -errno;
	if (keep) {
		d[CAP_TO_INDEX(keep)].effective = CAP_TO_MASK(keep);
		d[CAP_TO_INDEX(keep)].permitted = CAP_TO_MASK(keep);
		if (syscall(SYS_capset, &h, d))
			return -errno;
	}
	/* what is left: exactly keep, or nothing */
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return -errno;
	if (d[0].effective != (keep && keep < 32 ? CAP_TO_MASK(keep) : 0) ||
	    d[1].effective != (keep >= 32 ? CAP_TO_MASK(keep) : 0))
		return -EPERM;
	return 0;
}

/* Notifications of family on nl within ms (0: those queued); the last in *last */
static int count_ntf(struct nl *nl, int ms, int family, struct sample *last)
{
	uint64_t end = now_ms() + ms;
	int n = 0;

	for (;;) {
		struct pollfd p = { .fd = nl->fd, .events = POLLIN };
		int64_t left = end - now_ms();
		const struct nlmsghdr *nlh;
		ssize_t len;
		int l;

		/* after the time is up, only what is queued */
		if (poll(&p, 1, left > 0 ? left : 0) <= 0)
			return n;
		len = nl_recv(nl, MSG_DONTWAIT);
		if (len < 0)
			return len == -EAGAIN ? n : len;
		l = len;
		for (nlh = (void *)nl->buf; mnl_nlmsg_ok(nlh, l);
		     nlh = mnl_nlmsg_next(nlh, &l)) {
			if (nlh->nlmsg_type != family)
				continue;
			n++;
			if (last && parse_sample(nlh, last))
				last->cpu = -1;
		}
	}
}

/* ------------------------------------------------------------ fixture --- */

FIXTURE(td)
{
	struct nl nl;
	struct family f;
	int64_t level, interval_ms;	/* as loaded */
	bool possible[MAX_CPUS], online[MAX_CPUS];
	int nr_possible, nr_online;
	bool restore;			/* the test changes the configuration */
};

FIXTURE_SETUP(td)
{
	int err;

	self->level = env_or("TD_NL_LEVEL", 2);
	self->interval_ms = env_or("TD_NL_INTERVAL_MS", 100);
	self->nr_possible = read_cpus("/sys/devices/system/cpu/possible", self->possible);
	self->nr_online = read_cpus("/sys/devices/system/cpu/online", self->online);
	ASSERT_LT(0, self->nr_possible);
	ASSERT_LT(0, self->nr_online);
	ASSERT_EQ(0, nl_open(&self->nl));
	err = resolve(&self->nl, TOPDOWN_FAMILY_NAME, &self->f);
	ASSERT_EQ(0, err) {
		TH_LOG("family %s: %s (is topdown.ko loaded?)",
		       TOPDOWN_FAMILY_NAME, strerror(-err));
	}
	ASSERT_LT(0, self->f.id);
}

FIXTURE_TEARDOWN(td)
{
	struct nl nl;

	nl_close(&self->nl);
	if (!self->restore || nl_open(&nl))
		return;
	EXPECT_EQ(0, set_config(&nl, self->f.id, self->interval_ms, self->level));
	nl_close(&nl);
}

/*
 * Waits until every online CPU has completed an interval at the current
 * level (after load or a level change they are waiting): true if so.
 */
static bool wait_sampled(FIXTURE_DATA(td) *self)
{
	static struct dump d;
	int c, i, waiting;

	for (i = 0; i < 100; i++) {
		if (dump_samples(&self->nl, self->f.id, &d))
			return false;
		for (c = 0, waiting = 0; c < MAX_CPUS; c++)
			waiting += self->online[c] &&
				   (!d.seen[c] || d.s[c].state & TOPDOWN_STATE_WAITING);
		if (!waiting)
			return true;
		usleep(50000);
	}
	return false;
}

/* ---------------------------------------------------------------- tests --- */

/* 1: the controller resolves the family, its version, ops and group */
TEST_F(td, family)
{
	struct family *f = &self->f;

	EXPECT_EQ(TOPDOWN_FAMILY_VERSION, f->version);
	EXPECT_EQ(1, f->nr_grps);
	EXPECT_LT(0, f->grp);
	/* four commands; SAMPLE_NTF is a notification, no command */
	EXPECT_EQ(4, f->nr_ops);
	EXPECT_EQ(GENL_CMD_CAP_DO,
		  f->op_flags[TOPDOWN_CMD_GET_INFO] & (GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP));
	EXPECT_EQ(GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP,
		  f->op_flags[TOPDOWN_CMD_GET_SAMPLE] & (GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP));
	EXPECT_EQ(GENL_CMD_CAP_DO,
		  f->op_flags[TOPDOWN_CMD_SET_CONFIG] & (GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP));
	EXPECT_EQ(0, f->op_flags[TOPDOWN_CMD_SAMPLE_NTF]);
	EXPECT_EQ(GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP,
		  f->op_flags[TOPDOWN_CMD_GET_CPU] & (GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP));
	EXPECT_EQ(1, family_listed(&self->nl));
}

/*
 * 2: GET_INFO: configuration, running, the spr model, no CPU (its size does
 * not grow with them); a GET_CPU dump: every possible CPU once
 */
TEST_F(td, info)
{
	int c, nests = 0, models = 0, states = 0;
	static struct info in;
	struct reply r = {};

	ASSERT_EQ(0, get_info(&self->nl, self->f.id, &r));
	ASSERT_EQ(1, r.n);
	EXPECT_EQ(TOPDOWN_CMD_GET_INFO, genl_cmd(r.nlh));
	parse_info(r.nlh, &in);
	ASSERT_NE(NULL, in.version);
	EXPECT_LT(0, strlen(in.version));
	EXPECT_EQ(self->level, in.level);
	EXPECT_EQ(self->interval_ms, in.interval_ms);
	EXPECT_EQ(1, in.running);
	EXPECT_EQ(0, in.info_cpu_nests);
	ASSERT_EQ(0, dump_cpus(&self->nl, self->f.id, &in));
	EXPECT_EQ(0, in.bad_cpu);
	EXPECT_EQ(self->nr_possible, in.nr_cpus);
	/* counted over the CPUs, with the first one wrong logged */
	for (c = 0; c < MAX_CPUS; c++) {
		int64_t st = in.cpu_state[c];

		if (in.cpu_seen[c] != self->possible[c] && !nests++)
			TH_LOG("cpu%d: %u nests, possible %d", c,
			       in.cpu_seen[c], self->possible[c]);
		if (!in.cpu_seen[c])
			continue;
		/* model=spr: every CPU's model, online or not */
		if ((!in.cpu_model[c] || strcmp(in.cpu_model[c], "spr") ||
		     in.cpu_width[c] != 6) && !models++)
			TH_LOG("cpu%d (%s): model %s, width %lld", c,
			       self->online[c] ? "online" : "offline",
			       in.cpu_model[c] ?: "absent", (long long)in.cpu_width[c]);
		if ((self->online[c] ? st & STATE_ERRORS & ~TOPDOWN_STATE_WAITING :
		     !(st & TOPDOWN_STATE_OFFLINE)) && !states++)
			TH_LOG("cpu%d: state %#llx", c, (long long)st);
	}
	EXPECT_EQ(0, nests);
	EXPECT_EQ(0, models);
	EXPECT_EQ(0, states);
	EXPECT_EQ(SPR_EVENTS, in.spr_events);
	EXPECT_EQ(SPR_EVENTS_L2, in.spr_events_l2);
	EXPECT_TRUE(in.spr_ids_ok);
	EXPECT_EQ(6, in.spr_width);
	reply_free(&r);
}

/* 3: GET_SAMPLE dump: every possible CPU once; the levels add up */
TEST_F(td, sample_dump)
{
	int c, seen = 0, offline = 0, states = 0, levels = 0, counts = 0;
	static struct dump d;

	ASSERT_TRUE(wait_sampled(self));
	ASSERT_EQ(0, dump_samples(&self->nl, self->f.id, &d));
	EXPECT_EQ(0, d.bad);
	EXPECT_EQ(0, d.unordered);
	EXPECT_EQ(self->nr_possible, d.n);
	/* counted over the CPUs, with the first one wrong logged */
	for (c = 0; c < MAX_CPUS; c++) {
		const struct sample *s = &d.s[c];

		if (d.seen[c] != self->possible[c] && !seen++)
			TH_LOG("cpu%d: %u samples, possible %d", c, d.seen[c],
			       self->possible[c]);
		if (!d.seen[c])
			continue;
		if (!self->online[c]) {
			if ((!(s->state & TOPDOWN_STATE_OFFLINE) || s->has_l1) &&
			    !offline++)
				TH_LOG("offline cpu%d: state %#llx, level 1 %d", c,
				       (long long)s->state, s->has_l1);
			continue;
		}
		if ((s->state & STATE_ERRORS || s->seq <= 0 ||
		     s->start_ns >= s->end_ns) && !states++)
			TH_LOG("cpu%d: state %#llx, seq %lld, %lld..%lld ns", c,
			       (long long)s->state, (long long)s->seq,
			       (long long)s->start_ns, (long long)s->end_ns);
		/* spr measures the four classic nodes, no others */
		if ((s->nr_l1 != 4 || !levels_add_up(s)) && !levels++)
			TH_LOG("cpu%d: L1 %lld %lld %lld %lld (%u), L2 %lld+%lld %lld+%lld %lld+%lld %lld+%lld",
			       c, (long long)s->l1[1], (long long)s->l1[2],
			       (long long)s->l1[3], (long long)s->l1[4], s->nr_l1,
			       (long long)s->l2[1], (long long)s->l2[2],
			       (long long)s->l2[3], (long long)s->l2[4],
			       (long long)s->l2[5], (long long)s->l2[6],
			       (long long)s->l2[7], (long long)s->l2[8]);
		if ((s->nr_counts != SPR_EVENTS_L2 || !s->counts_ok) && !counts++)
			TH_LOG("cpu%d: %u counts", c, s->nr_counts);
	}
	EXPECT_EQ(0, seen);
	EXPECT_EQ(0, offline);
	EXPECT_EQ(0, states);
	EXPECT_EQ(0, levels);
	EXPECT_EQ(0, counts);
}

/* 4: GET_SAMPLE do: cpu 0, the last possible CPU; no cpu or a bad one */
TEST_F(td, sample_do)
{
	uint32_t bad[] = { 0 /* the last possible + 1 */, 4096, 0xffffffff };
	struct reply r = {};
	struct sample s;
	unsigned int i;
	int last = 0;

	ASSERT_TRUE(wait_sampled(self));
	ASSERT_EQ(0, get_sample(&self->nl, self->f.id, 0, &r));
	ASSERT_EQ(1, r.n);
	ASSERT_EQ(0, parse_sample(r.nlh, &s));
	EXPECT_EQ(TOPDOWN_CMD_GET_SAMPLE, s.cmd);
	EXPECT_EQ(0, s.cpu);
	EXPECT_EQ(0, s.state & STATE_ERRORS);
	ASSERT_NE(NULL, s.model);
	EXPECT_STREQ("spr", s.model);
	EXPECT_TRUE(levels_add_up(&s));

	for (i = 0; i < MAX_CPUS; i++)
		if (self->possible[i])
			last = i;
	ASSERT_EQ(0, get_sample(&self->nl, self->f.id, last, &r));
	ASSERT_EQ(1, r.n);
	ASSERT_EQ(0, parse_sample(r.nlh, &s));
	EXPECT_EQ(last, s.cpu);
	if (!self->online[last])
		EXPECT_NE(0, s.state & TOPDOWN_STATE_OFFLINE);

	EXPECT_EQ(-EINVAL, get_sample(&self->nl, self->f.id, -1, &r));
	EXPECT_STREQ("missing attribute: cpu", self->nl.ext);
	EXPECT_EQ(0, r.n);

	bad[0] = last + 1;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		uint32_t cpu = bad[i];

		if (cpu < MAX_CPUS && self->possible[cpu])
			continue;	/* 4096 with possible_cpus=8192 */
		EXPECT_EQ(-EINVAL, get_sample(&self->nl, self->f.id, cpu, &r)) {
			TH_LOG("cpu %u", cpu);
		}
		EXPECT_STREQ("cpu: not a possible CPU", self->nl.ext);
		EXPECT_EQ(ATTR1_OFFS, self->nl.offs);
		EXPECT_EQ(0, r.n);
	}
	reply_free(&r);
}

/* 5: the "samples" group: each CPU every interval, no gaps */
TEST_F(td, notifications)
{
	struct cpu_ntf {
		unsigned int n;
		uint64_t seq, first_end, end;
	} *cn;
	unsigned int gaps = 0, bad = 0, offline = 0, breaks = 0, total = 0;
	uint64_t end;
	struct nl sub;
	int c;

	cn = calloc(MAX_CPUS, sizeof(*cn));
	ASSERT_NE(NULL, cn);
	ASSERT_EQ(0, nl_open(&sub));
	ASSERT_EQ(0, join(sub.fd, self->f.grp));
	self->restore = true;
	ASSERT_EQ(0, set_config(&self->nl, self->f.id, 200, -1));

	/* the intervals scheduled before the change run out first: skip 0.5 s */
	count_ntf(&sub, 500, self->f.id, NULL);
	end = now_ms() + 2000;
	while (now_ms() < end) {
		struct pollfd p = { .fd = sub.fd, .events = POLLIN };
		const struct nlmsghdr *nlh;
		ssize_t len;
		int l;

		if (poll(&p, 1, 100) <= 0)
			continue;
		len = nl_recv(&sub, MSG_DONTWAIT);
		ASSERT_LT(0, len) {
			TH_LOG("recv: %s", strerror(-len));
		}
		l = len;
		for (nlh = (void *)sub.buf; mnl_nlmsg_ok(nlh, l);
		     nlh = mnl_nlmsg_next(nlh, &l)) {
			struct sample s;
			struct cpu_ntf *x;

			total++;
			if (nlh->nlmsg_type != self->f.id || parse_sample(nlh, &s) ||
			    s.cmd != TOPDOWN_CMD_SAMPLE_NTF || s.cpu >= MAX_CPUS) {
				bad++;
				continue;
			}
			offline += !self->online[s.cpu];
			x = &cn[s.cpu];
			if (x->n) {
				gaps += s.seq != x->seq + 1;
				/* one interval ends where the next starts */
				breaks += (uint64_t)s.start_ns != x->end;
			} else {
				x->first_end = s.end_ns;
			}
			x->n++;
			x->seq = s.seq;
			x->end = s.end_ns;
		}
	}
	EXPECT_LT(0, total);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, gaps);
	EXPECT_EQ(0, breaks);
	EXPECT_EQ(0, offline);
	for (c = 0; c < MAX_CPUS; c++) {
		double avg;

		if (!self->online[c])
			continue;
		/* 2 s at 200 ms: about 10 */
		EXPECT_LE(7, cn[c].n) {
			TH_LOG("cpu%d: %u notifications in 2 s", c, cn[c].n);
		}
		if (cn[c].n < 2)
			continue;
		avg = (cn[c].end - cn[c].first_end) / 1e6 / (cn[c].n - 1);
		EXPECT_TRUE(avg >= 140 && avg <= 260) {
			TH_LOG("cpu%d: intervals of %.1f ms on average", c, avg);
		}
	}
	nl_close(&sub);
	free(cn);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * A CPU's notification and GET_SAMPLE's reply are the same sample, built by
 * the same code: byte for byte, their attributes must be the same for the
 * same interval.  At 1 s, the reply asked for right after a notification
 * is of the same interval (same seq); at each level, for the intervals
 * begun after the change (set-config reopens the counters before it
 * returns): the cut one's notification has the old level's counts, and
 * GET_SAMPLE, until the next interval ends, the same seq with the new
 * level's events.
 */
TEST_F_TIMEOUT(td, ntf_as_built, 120)
{
	static const int64_t levels[] = { 3, 1, 2 };
	unsigned int li, same, differ;
	struct reply r = {};
	struct nl sub;

	ASSERT_EQ(0, nl_open(&sub));
	ASSERT_EQ(0, join(sub.fd, self->f.grp));
	self->restore = true;
	for (li = 0; li < ARRAY_SIZE(levels); li++) {
		uint64_t changed, end;

		ASSERT_EQ(0, set_config(&self->nl, self->f.id, 1000, levels[li]));
		changed = mono_ns();
		end = now_ms() + 12000;
		same = 0;
		differ = 0;
		while (same < 3 && now_ms() < end) {
			struct pollfd p = { .fd = sub.fd, .events = POLLIN };
			const struct nlmsghdr *nlh, *got = NULL;
			size_t hdr = NLMSG_HDRLEN + GENL_HDRLEN;
			struct sample ns, rs;
			ssize_t len;
			int l;

			if (poll(&p, 1, 1000) <= 0)
				continue;
			len = nl_recv(&sub, MSG_DONTWAIT);
			ASSERT_LT(0, len);
			l = len;
			for (nlh = (void *)sub.buf; mnl_nlmsg_ok(nlh, l);
			     nlh = mnl_nlmsg_next(nlh, &l)) {
				if (nlh->nlmsg_type == self->f.id &&
				    !parse_sample(nlh, &ns) && ns.cpu == 0)
					got = nlh;
			}
			if (!got)
				continue;
			parse_sample(got, &ns);
			if ((uint64_t)ns.start_ns < changed)
				continue;	/* the interval the change cut */
			ASSERT_EQ(0, get_sample(&self->nl, self->f.id, 0, &r));
			ASSERT_EQ(0, parse_sample(r.nlh, &rs));
			if (rs.seq != ns.seq)
				continue;	/* the next interval ended between */
			if (got->nlmsg_len == r.nlh->nlmsg_len &&
			    !memcmp((const char *)got + hdr, (const char *)r.nlh + hdr,
				    got->nlmsg_len - hdr)) {
				same++;
				continue;
			}
			differ++;
			TH_LOG("level %lld seq %lld: notification %u bytes, get-sample %u",
			       (long long)levels[li], (long long)ns.seq,
			       got->nlmsg_len, r.nlh->nlmsg_len);
		}
		EXPECT_EQ(0, differ);
		EXPECT_LE(3, same) {
			TH_LOG("level %lld: %u notifications compared",
			       (long long)levels[li], same);
		}
	}
	reply_free(&r);
	nl_close(&sub);
}

/* 6: SET_CONFIG: bad values refused, changing nothing; level 3 and back */
TEST_F(td, set_config)
{
	static struct info in;
	struct reply r = {};
	struct sample s;
	int i, n;

	self->restore = true;
	/*
	 * the policy's checks, from the spec: ERANGE (the core's errno for a
	 * range), its message, the attribute, the range
	 */
	EXPECT_EQ(-ERANGE, set_config(&self->nl, self->f.id, 9, -1));
	EXPECT_STREQ("integer out of range", self->nl.ext);
	EXPECT_EQ(ATTR1_OFFS, self->nl.offs);
	EXPECT_EQ(TOPDOWN_INTERVAL_MIN_MS, self->nl.pol_min);
	EXPECT_EQ(TOPDOWN_INTERVAL_MAX_MS, self->nl.pol_max);
	EXPECT_EQ(-ERANGE, set_config(&self->nl, self->f.id, 60001, -1));
	EXPECT_STREQ("integer out of range", self->nl.ext);
	EXPECT_EQ(-ERANGE, set_config(&self->nl, self->f.id, -1, 0));
	EXPECT_STREQ("integer out of range", self->nl.ext);
	EXPECT_EQ(ATTR1_OFFS, self->nl.offs);
	EXPECT_EQ(1, self->nl.pol_min);
	EXPECT_EQ(TOPDOWN_LEVEL_MAX, self->nl.pol_max);
	EXPECT_EQ(-ERANGE, set_config(&self->nl, self->f.id, -1, 4));
	EXPECT_STREQ("integer out of range", self->nl.ext);
	EXPECT_EQ(-EINVAL, set_config(&self->nl, self->f.id, -1, -1));
	EXPECT_STREQ("nothing to set: give interval-ms, level, running or end-interval",
		     self->nl.ext);

	/* a good interval with a bad level: nothing changes */
	EXPECT_EQ(-ERANGE, set_config(&self->nl, self->f.id, 500, 7));
	EXPECT_STREQ("integer out of range", self->nl.ext);
	EXPECT_EQ(ATTR1_OFFS + NLA_HDRLEN + 4, self->nl.offs);
	ASSERT_EQ(0, get_info(&self->nl, self->f.id, &r));
	parse_info(r.nlh, &in);
	EXPECT_EQ(self->interval_ms, in.interval_ms);
	EXPECT_EQ(self->level, in.level);

	/* the bounds are allowed */
	EXPECT_EQ(0, set_config(&self->nl, self->f.id, 10, -1));
	ASSERT_EQ(0, get_info(&self->nl, self->f.id, &r));
	parse_info(r.nlh, &in);
	EXPECT_EQ(10, in.interval_ms);
	EXPECT_EQ(0, set_config(&self->nl, self->f.id, self->interval_ms, -1));

	/* level 3 opens all of spr's events, level 2 the first 9 */
	for (n = 3; n >= 2; n--) {
		unsigned int want = n == 3 ? SPR_EVENTS : SPR_EVENTS_L2;

		ASSERT_EQ(0, set_config(&self->nl, self->f.id, -1, n));
		ASSERT_EQ(0, get_info(&self->nl, self->f.id, &r));
		parse_info(r.nlh, &in);
		EXPECT_EQ(n, in.level);
		EXPECT_TRUE(wait_sampled(self));
		for (i = 0; i < 40; i++) {
			ASSERT_EQ(0, get_sample(&self->nl, self->f.id, 0, &r));
			ASSERT_EQ(0, parse_sample(r.nlh, &s));
			if (s.nr_counts == want)
				break;
			usleep(50000);
		}
		EXPECT_EQ(want, s.nr_counts) {
			TH_LOG("level %d: cpu0 has %u counts", n, s.nr_counts);
		}
		EXPECT_TRUE(s.counts_ok);
		EXPECT_EQ(0, s.state & STATE_ERRORS);
	}
	reply_free(&r);
}

/* set-config with running (0 or 1) and/or end-interval; < 0 leaves running out */
static int set_run_cut(struct nl *nl, int family, int64_t running, bool cut)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	nlh = nl_req(nl, buf, family, TOPDOWN_CMD_SET_CONFIG, 0);
	if (running >= 0)
		mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_RUNNING, running);
	if (cut)
		mnl_attr_put(nlh, TOPDOWN_A_CONFIG_END_INTERVAL, 0, NULL);
	return nl_talk(nl, nlh, NULL, NULL);
}

/*
 * 6b: end-interval: at a 60 s interval, cpu0's next sample comes at once,
 * ending after the request; refused with ENODATA while stopped, and the
 * module still stopped after it
 */
TEST_F(td, end_interval)
{
	static struct info in;
	struct reply r = {};
	struct sample s;
	int64_t seq0;
	uint64_t t;
	int i;

	self->restore = true;
	/* the change of interval itself ends every interval: let it pass */
	ASSERT_EQ(0, set_config(&self->nl, self->f.id, TOPDOWN_INTERVAL_MAX_MS, -1));
	usleep(300000);
	ASSERT_EQ(0, get_sample(&self->nl, self->f.id, 0, &r));
	ASSERT_EQ(0, parse_sample(r.nlh, &s));
	seq0 = s.seq;
	t = mono_ns();
	ASSERT_EQ(0, set_run_cut(&self->nl, self->f.id, -1, true));
	for (i = 0; i < 40; i++) {
		ASSERT_EQ(0, get_sample(&self->nl, self->f.id, 0, &r));
		ASSERT_EQ(0, parse_sample(r.nlh, &s));
		if (s.seq > seq0)
			break;
		usleep(25000);
	}
	EXPECT_EQ(seq0 + 1, s.seq) {
		TH_LOG("cpu0's seq %lld, %lld before the cut", (long long)s.seq, (long long)seq0);
	}
	EXPECT_LE(t, (uint64_t)s.end_ns);
	EXPECT_GT(t + 1000000000ULL, (uint64_t)s.end_ns);

	/* stopped: nothing to end, and it stays stopped */
	ASSERT_EQ(0, set_run_cut(&self->nl, self->f.id, 0, false));
	EXPECT_EQ(-ENODATA, set_run_cut(&self->nl, self->f.id, -1, true));
	EXPECT_STREQ("end-interval: the module is stopped, no interval runs", self->nl.ext);
	EXPECT_EQ(ATTR1_OFFS, self->nl.offs);
	ASSERT_EQ(0, get_info(&self->nl, self->f.id, &r));
	parse_info(r.nlh, &in);
	EXPECT_EQ(0, in.running);
	/* starting and ending at once: the cut is of the new run */
	EXPECT_EQ(0, set_run_cut(&self->nl, self->f.id, 1, true));
	ASSERT_EQ(0, get_info(&self->nl, self->f.id, &r));
	parse_info(r.nlh, &in);
	EXPECT_EQ(1, in.running);
	reply_free(&r);
}

/* Sends nlh (a raw message) and returns the errno of its ack. */
static int raw_talk(struct nl *nl, struct nlmsghdr *nlh)
{
	struct reply r = {};
	int err = nl_talk(nl, nlh, keep_cb, &r);

	if (!err && r.n)
		err = 1;	/* a reply: accepted */
	reply_free(&r);
	return err;
}

/*
 * 7: malformed requests are refused by the genetlink core, with the same
 * errno and message on 6.1 and 6.12 (and the kernel log stays clean).
 */
TEST_F(td, malformed)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct nlattr *a;
	uint16_t two = 2;

	/* an unknown attribute type, in a do and in a dump */
	nlh = nl_req(&self->nl, buf, self->f.id, TOPDOWN_CMD_GET_SAMPLE, 0);
	mnl_attr_put_u32(nlh, TOPDOWN_A_SAMPLE_CPU, 0);
	mnl_attr_put_u32(nlh, 200, 0);
	EXPECT_EQ(-EINVAL, raw_talk(&self->nl, nlh));
	EXPECT_STREQ("Unknown attribute type", self->nl.ext);
	EXPECT_EQ(ATTR1_OFFS + NLA_HDRLEN + 4, self->nl.offs);
	nlh = nl_req(&self->nl, buf, self->f.id, TOPDOWN_CMD_GET_SAMPLE, NLM_F_DUMP);
	mnl_attr_put_u32(nlh, 200, 0);
	EXPECT_EQ(-EINVAL, raw_talk(&self->nl, nlh));
	EXPECT_STREQ("Unknown attribute type", self->nl.ext);

	/* a u32 of 2 bytes; a nest where a u32 belongs */
	nlh = nl_req(&self->nl, buf, self->f.id, TOPDOWN_CMD_GET_SAMPLE, 0);
	mnl_attr_put(nlh, TOPDOWN_A_SAMPLE_CPU, sizeof(two), &two);
	EXPECT_EQ(-EINVAL, raw_talk(&self->nl, nlh));
	EXPECT_STREQ("invalid attribute length", self->nl.ext);
	EXPECT_EQ(ATTR1_OFFS, self->nl.offs);
	nlh = nl_req(&self->nl, buf, self->f.id, TOPDOWN_CMD_SET_CONFIG, 0);
	mnl_attr_put(nlh, TOPDOWN_A_CONFIG_LEVEL, sizeof(two), &two);
	EXPECT_EQ(-EINVAL, raw_talk(&self->nl, nlh));
	EXPECT_STREQ("invalid attribute length", self->nl.ext);
	nlh = nl_req(&self->nl, buf, self->f.id, TOPDOWN_CMD_GET_SAMPLE, 0);
	a = mnl_attr_nest_start(nlh, TOPDOWN_A_SAMPLE_CPU);
	mnl_attr_put_u32(nlh, 1, 0);
	mnl_attr_nest_end(nlh, a);
	EXPECT_EQ(-EINVAL, raw_talk(&self->nl, nlh));
	EXPECT_STREQ("invalid attribute length", self->nl.ext);

	/*
	 * GET_INFO's policy has only the unused slot: the core rejects
	 * every attribute, up to it as unsupported, past it as unknown
	 */
	nlh = nl_req(&self->nl, buf, self->f.id, TOPDOWN_CMD_GET_INFO, 0);
	mnl_attr_put_u32(nlh, TOPDOWN_A_INFO_VERSION, 1);
	EXPECT_EQ(-EINVAL, raw_talk(&self->nl, nlh));
	EXPECT_STREQ("Unsupported attribute", self->nl.ext);
	nlh = nl_req(&self->nl, buf, self->f.id, TOPDOWN_CMD_GET_INFO, 0);
	mnl_attr_put_u32(nlh, TOPDOWN_A_INFO_MODEL, 2);
	EXPECT_EQ(-EINVAL, raw_talk(&self->nl, nlh));
	EXPECT_STREQ("Unknown attribute type", self->nl.ext);
	/* GET_CPU: a missing or impossible CPU */
	nlh = nl_req(&self->nl, buf, self->f.id, TOPDOWN_CMD_GET_CPU, 0);
	EXPECT_EQ(-EINVAL, raw_talk(&self->nl, nlh));
	EXPECT_STREQ("missing attribute: cpu", self->nl.ext);
	nlh = nl_req(&self->nl, buf, self->f.id, TOPDOWN_CMD_GET_CPU, 0);
	mnl_attr_put_u32(nlh, TOPDOWN_A_CPU_INFO_CPU, MAX_CPUS);
	EXPECT_EQ(-EINVAL, raw_talk(&self->nl, nlh));
	EXPECT_STREQ("cpu: not a possible CPU", self->nl.ext);

	/* unknown commands, and dumps of do-only commands */
	nlh = nl_req(&self->nl, buf, self->f.id, 99, 0);
	EXPECT_EQ(-EOPNOTSUPP, raw_talk(&self->nl, nlh));
	EXPECT_STREQ("", self->nl.ext);
	nlh = nl_req(&self->nl, buf, self->f.id, TOPDOWN_CMD_SAMPLE_NTF, 0);
	EXPECT_EQ(-EOPNOTSUPP, raw_talk(&self->nl, nlh));
	nlh = nl_req(&self->nl, buf, self->f.id, TOPDOWN_CMD_GET_INFO, NLM_F_DUMP);
	EXPECT_EQ(-EOPNOTSUPP, raw_talk(&self->nl, nlh));
	nlh = nl_req(&self->nl, buf, self->f.id, TOPDOWN_CMD_SET_CONFIG, NLM_F_DUMP);
	EXPECT_EQ(-EOPNOTSUPP, raw_talk(&self->nl, nlh));

	/* the genl header: reserved byte set; too short for one */
	nlh = nl_req(&self->nl, buf, self->f.id, TOPDOWN_CMD_GET_INFO, 0);
	((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->reserved = 1;
	EXPECT_EQ(-EINVAL, raw_talk(&self->nl, nlh));
	EXPECT_STREQ("genlmsghdr.reserved field is not 0", self->nl.ext);
	nlh = nl_req(&self->nl, buf, self->f.id, TOPDOWN_CMD_GET_INFO, 0);
	nlh->nlmsg_len = NLMSG_HDRLEN + 2;
	EXPECT_EQ(-EINVAL, raw_talk(&self->nl, nlh));

	/* and the family still answers */
	nlh = nl_req(&self->nl, buf, self->f.id, TOPDOWN_CMD_GET_INFO, 0);
	EXPECT_EQ(1, raw_talk(&self->nl, nlh));
}

/* every command is refused with EPERM and says why */
static void expect_all_eperm(struct __test_metadata *_metadata, struct nl *nl,
			     int family)
{
	static struct dump d;
	struct reply r = {};

	EXPECT_EQ(-EPERM, get_info(nl, family, &r));
	EXPECT_STREQ(EPERM_MSG, nl->ext);
	EXPECT_EQ(0, r.n);
	EXPECT_EQ(-EPERM, get_sample(nl, family, 0, &r));
	EXPECT_STREQ(EPERM_MSG, nl->ext);
	EXPECT_EQ(0, r.n);
	EXPECT_EQ(-EPERM, dump_samples(nl, family, &d));
	EXPECT_STREQ(EPERM_MSG, nl->ext);
	EXPECT_EQ(0, d.n);
	EXPECT_EQ(-EPERM, set_config(nl, family, 100, -1));
	EXPECT_STREQ(EPERM_MSG, nl->ext);
	reply_free(&r);
}

/* 8: nobody, no capabilities: the family resolves, nothing else works */
TEST_F(td, unprivileged)
{
	struct nl root_sub, nl;
	struct family f;
	struct sample s;
	int err;

	/* a listener of root's, so that samples are being sent meanwhile */
	ASSERT_EQ(0, nl_open(&root_sub));
	ASSERT_EQ(0, join(root_sub.fd, self->f.grp));
	ASSERT_EQ(0, drop_privileges(0));

	ASSERT_EQ(0, nl_open(&nl));
	ASSERT_EQ(0, resolve(&nl, TOPDOWN_FAMILY_NAME, &f));
	EXPECT_EQ(self->f.id, f.id);
	EXPECT_EQ(self->f.grp, f.grp);
	expect_all_eperm(_metadata, &nl, f.id);

	/* a socket root opened: the caller needs the capability as well */
	expect_all_eperm(_metadata, &self->nl, f.id);

	/* the group: refused, and nothing arrives within 1 s */
	err = join(nl.fd, f.grp);
	EXPECT_EQ(-EPERM, err);
	EXPECT_EQ(0, count_ntf(&nl, 1000, f.id, NULL));
	/* meanwhile root's listener got samples */
	EXPECT_LT(0, count_ntf(&root_sub, 0, f.id, &s));
	nl_close(&nl);
	nl_close(&root_sub);
}

/* 8: nobody with CAP_PERFMON only: commands work; the group needs CAP_SYS_ADMIN */
TEST_F(td, perfmon_only)
{
	struct reply r = {};
	struct sample s;
	struct nl nl;
	int err;

	ASSERT_EQ(0, drop_privileges(CAP_PERFMON));
	ASSERT_EQ(0, nl_open(&nl));
	EXPECT_EQ(0, get_info(&nl, self->f.id, &r));
	EXPECT_EQ(1, r.n);
	EXPECT_EQ(0, get_sample(&nl, self->f.id, 0, &r));
	EXPECT_EQ(1, r.n);
	/* the same interval: allowed, and changes nothing */
	EXPECT_EQ(0, set_config(&nl, self->f.id, self->interval_ms, -1));

	/*
	 * kmod/td_compat.h: genetlink's only enforced check on a join is the
	 * group's GENL_MCAST_CAP_SYS_ADMIN (6.12 ignores what a family's
	 * bind hook returns), so CAP_PERFMON alone cannot listen.
	 */
	err = join(nl.fd, self->f.grp);
	EXPECT_EQ(-EPERM, err);
	EXPECT_EQ(0, count_ntf(&nl, 1000, self->f.id, &s));
	reply_free(&r);
	nl_close(&nl);
}

/* 9: the family exists in the initial network namespace only */
TEST_F(td, netns)
{
	struct reply r = {};
	struct family f;
	struct nl nl;

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_EQ(0, nl_open(&nl));
	EXPECT_EQ(-ENOENT, resolve(&nl, TOPDOWN_FAMILY_NAME, &f));
	EXPECT_EQ(0, family_listed(&nl));
	/* the id known from outside leads nowhere either */
	EXPECT_EQ(-ENOENT, get_info(&nl, self->f.id, &r));
	EXPECT_EQ(0, r.n);
	/* nor does the group */
	join(nl.fd, self->f.grp);
	EXPECT_EQ(0, count_ntf(&nl, 500, self->f.id, NULL));
	nl_close(&nl);
}

/*
 * 10: many possible CPUs (boot with possible_cpus=1024 or more): GET_INFO
 * is one small message; the dumps span several batches and still give each
 * CPU once, in order.
 */
TEST_F(td, scale)
{
	static struct dump d;
	static struct info in;
	struct reply r = {};
	unsigned int batches;

	ASSERT_EQ(0, get_info(&self->nl, self->f.id, &r));
	ASSERT_EQ(1, r.n);
	EXPECT_EQ(1, self->nl.batches);
	EXPECT_EQ(0, r.nlh->nlmsg_flags & NLM_F_MULTI);
	parse_info(r.nlh, &in);
	EXPECT_EQ(0, in.info_cpu_nests);
	/* every model's events (10 KB), nothing per CPU */
	EXPECT_GT(16384, r.nlh->nlmsg_len);
	ksft_print_msg("%d possible CPUs: GET_INFO is %u bytes\n",
		       self->nr_possible, r.nlh->nlmsg_len);
	ASSERT_EQ(0, dump_cpus(&self->nl, self->f.id, &in));
	EXPECT_EQ(self->nr_possible, in.nr_cpus);
	EXPECT_EQ(0, in.bad_cpu);
	ksft_print_msg("the GET_CPU dump came in %u batches\n", self->nl.batches);

	ASSERT_EQ(0, dump_samples(&self->nl, self->f.id, &d));
	batches = self->nl.batches;
	EXPECT_EQ(self->nr_possible, d.n);
	EXPECT_EQ(0, d.bad);
	EXPECT_EQ(0, d.unordered);
	ksft_print_msg("the dump came in %u batches\n", batches);
	reply_free(&r);
	if (batches < 2)
		SKIP(return, "the dump fit in one batch: boot with possible_cpus=8192");
}

TEST_HARNESS_MAIN
