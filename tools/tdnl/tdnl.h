/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdnl: the userspace client of topdown.ko's generic netlink family
 * (uapi/linux/topdown.h).  What the files share.
 */
#ifndef _TDNL_H
#define _TDNL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <linux/netlink.h>
#include "td_model.h"
#include "l34.h"

/* CLOCK_MONOTONIC now, ns (stat's windows, watch's pacing) */
static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define TDNL_NAME_LEN	32	/* a model's name */
#define TDNL_MAX_EVENTS	64	/* event ids tdnl keeps; the module has 32 */
#define TDNL_MAX_CPUS	8192	/* Debian's CONFIG_NR_CPUS */

/* exit statuses */
#define TDNL_EXIT_OK	0
#define TDNL_EXIT_ERR	1
#define TDNL_EXIT_USAGE	2

enum tdnl_fmt {
	TDNL_TEXT,
	TDNL_JSON,
	TDNL_CSV,
};

/* ---- what the kernel sends (msg.c) ---- */

struct tdnl_model {
	char name[TDNL_NAME_LEN];
	unsigned int width;
	bool cycle_based;
	unsigned int nr_events;			/* highest id + 1 */
	struct td_event events[TDNL_MAX_EVENTS];	/* by id; name NULL if none */
	struct td_l34_map l34;			/* the Level 3/4 formulas' ids */
};

struct tdnl_cpu_info {
	unsigned int cpu;
	char model[TDNL_NAME_LEN];		/* "" when unsupported */
	unsigned int width;			/* the slots per cycle it is counted with */
	unsigned int slots_from;		/* enum topdown_slots_from */
	uint32_t state;				/* enum topdown_state flags */
};

struct tdnl_info {
	char version[32];
	unsigned int level, interval_ms;
	unsigned int running;			/* 1: started, 0: stopped */
	struct tdnl_cpu_info *cpus;
	unsigned int nr_cpus;
	struct tdnl_model *models;
	unsigned int nr_models;
};

struct tdnl_count {
	bool present;
	uint64_t delta, total, enabled, running;
};

/* the module's cumulative totals (TOPDOWN_A_SAMPLE_TOTALS) */
struct tdnl_totals {
	bool present;
	bool cycles;				/* in cycles, not slots */
	uint64_t units;				/* the slots (or cycles) */
	bool l1_set[TD_NR_L1], l2_set[TD_NR_L2];
	uint64_t l1[TD_NR_L1], l2[TD_NR_L2];	/* each node's share */
};

struct tdnl_sample {
	unsigned int cpu;
	uint64_t seq, start_ns, end_ns;
	uint32_t state;
	bool has_errno;
	int err;
	char model[TDNL_NAME_LEN];
	bool has_l1, has_l2;
	bool l1_set[TD_NR_L1];			/* the model measures it */
	uint32_t l1[TD_NR_L1];			/* ppm */
	bool l2_set[TD_NR_L2];			/* the model publishes it */
	uint32_t l2[TD_NR_L2];			/* ppm */
	struct tdnl_count cnt[TDNL_MAX_EVENTS];	/* by event id */
	uint32_t sets;				/* event sets taking turns; 0: not sent */
	bool counted_set[3];
	uint32_t counted[3];			/* per level, share counted, ppm */
	struct tdnl_totals tot;

	/* worked out by tdnl (calc.c) */
	uint64_t lost;				/* intervals missed before this one */
	double l34[TD_NR_L34];			/* percent, NAN when n/a */
	double clocks;				/* their clock ticks, NAN when none */
};

int tdnl_parse_cpu(const struct nlmsghdr *nlh, struct tdnl_info *info);
int tdnl_parse_info(const struct nlmsghdr *nlh, struct tdnl_info *info);
void tdnl_free_info(struct tdnl_info *info);
int tdnl_parse_sample(const struct nlmsghdr *nlh, struct tdnl_sample *s);
const struct tdnl_model *tdnl_find_model(const struct tdnl_info *info,
					 const char *name);
unsigned int tdnl_cpu_width(const struct tdnl_info *info, unsigned int cpu);
const char *tdnl_state_name(unsigned int bit);
const char *tdnl_slots_from_name(unsigned int from);

/* a reader's notification (tdnl_sample_ntf()); struct tdnl_nl is nl.c's */
struct tdnl_nl;

#define TDNL_NTF_DUMP	0x1	/* GET_SAMPLE replies are samples too */
#define TDNL_NTF_STRICT	0x2	/* a malformed sample fails the read */
#define TDNL_CB_SAMPLE	2	/* not one of libmnl's MNL_CB_ERROR, _STOP, _OK */

int tdnl_sample_ntf(const struct nlmsghdr *nlh, const struct tdnl_nl *nl,
		    unsigned int flags, struct tdnl_sample *s, bool *gone);
void tdnl_calc_after(struct tdnl_sample *s, const struct tdnl_sample *prev,
		     const struct tdnl_info *info);
int tdnl_keep(struct tdnl_sample **last, const struct tdnl_sample *s);

/* ---- netlink (nl.c) ---- */

struct mnl_socket;

struct tdnl_nl {
	struct mnl_socket *sk;
	unsigned int portid, seq;
	uint16_t family;			/* topdown's genl id */
	uint32_t mcgrp;				/* its "samples" group */
	uint16_t ctrl_family;			/* nlctrl, for DELFAMILY */
	uint32_t ctrl_mcgrp;			/* its "notify" group */
	char *buf;
	size_t bufsz;
	size_t drained;				/* bytes tdnl_nl_drain() read */
};

/* the callback of a request: one per reply message */
typedef int (*tdnl_cb_t)(const struct nlmsghdr *nlh, void *data);

int tdnl_nl_open(struct tdnl_nl *nl);
int tdnl_nl_watch(struct tdnl_nl *nl, struct tdnl_nl *from);
void tdnl_nl_close(struct tdnl_nl *nl);
struct nlmsghdr *tdnl_nl_msg(struct tdnl_nl *nl, uint8_t cmd, uint16_t flags);
int tdnl_nl_talk(struct tdnl_nl *nl, struct nlmsghdr *nlh, tdnl_cb_t cb,
		 void *data);
int tdnl_nl_error(int err, const char *what);
int tdnl_nl_error_attrs(int err, const char *what, const char *const *names,
			unsigned int n);
int tdnl_nl_drain(struct tdnl_nl *nl, tdnl_cb_t cb, void *data);

/* ---- Level 1/2 over a span, Level 3/4 (calc.c) ---- */

void tdnl_calc(struct tdnl_sample *s, const struct tdnl_sample *prev,
	       const struct tdnl_model *m, unsigned int width);

/* ---- the commands' shared parts (tdnl.c) ---- */

int tdnl_bad(const char *f, ...) __attribute__((format(printf, 1, 2)));
enum tdnl_fmt tdnl_format(void);
bool tdnl_cpulist(const char *s, unsigned char *map);
bool tdnl_selected(const unsigned char *map, unsigned int cpu);
int tdnl_open_with_info(struct tdnl_nl *nl, struct tdnl_info *info);
void tdnl_no_pmu(void);
int tdnl_get_info(struct tdnl_nl *nl, struct tdnl_info *info, bool quiet);

/* ---- tdnl export: Prometheus metrics over HTTP (export.c) ---- */

#define TDNL_EXPORT_LISTEN	"127.0.0.1:9739"

int tdnl_cmd_export(int argc, char **argv);

/* ---- tdnl stat, diff and explain (stat.c, diff.c, explain.c) ---- */

/* the window's topdown of the selected CPUs of one model, added up */
struct tdnl_group {
	char model[TDNL_NAME_LEN];
	const struct tdnl_model *m;		/* from GET_INFO; NULL from a file */
	unsigned int width, nr;			/* slots per cycle; CPUs */
	uint64_t units;				/* slots (or cycles) counted */
	bool cycles;
	double l1[TD_NR_L1], l2[TD_NR_L2];	/* percent of the slots; NAN: n/a */
	bool l1_set[TD_NR_L1], l2_set[TD_NR_L2];
	double l34[TD_NR_L34], clocks;		/* percent of clock ticks; NAN: n/a */
	uint64_t ev[TDNL_MAX_EVENTS];		/* each raw event's count */
	bool ev_set[TDNL_MAX_EVENTS];
	unsigned int intervals, not_counted, multiplexed, skewed;
	uint64_t lost;
};

int tdnl_measure(const unsigned char *cpus, unsigned int ms, struct tdnl_group **g,
		 unsigned int *ng, unsigned int *level, double *secs);
int tdnl_cmd_stat(int argc, char **argv);
int tdnl_cmd_diff(int argc, char **argv);
int tdnl_cmd_explain(int argc, char **argv);
int tdnl_cmd_top(int argc, char **argv);

/* ---- flagged nodes: perf's thresholds (flags.c) ---- */

/* a tree in percent (Levels 1/2 of slots, 3/4 of clock ticks); NAN: n/a */
struct tdnl_tree {
	double l1[TD_NR_L1], l2[TD_NR_L2], l34[TD_NR_L34];
};

struct tdnl_flags {
	bool l1[TD_NR_L1], l2[TD_NR_L2], l34[TD_NR_L34];
};

bool tdnl_has_thresholds(const char *model);
double tdnl_threshold(const char *model, const char *node);
void tdnl_flag(const char *model, const struct tdnl_tree *tree, struct tdnl_flags *f);
void tdnl_print_thresholds(void);
bool tdnl_colour(void);
const char *tdnl_hi(bool flagged);
const char *tdnl_lo(bool flagged);

/* ---- --perf-names (names.c) ---- */

extern bool tdnl_perf_names;
const char *tdnl_name(const char *model, const char *node);

/* ---- output (out.c) ---- */

void tdnl_out_info(const struct tdnl_info *info, enum tdnl_fmt fmt);
void tdnl_out_use(const struct tdnl_info *info, bool raw);
void tdnl_out_begin(enum tdnl_fmt fmt, bool watch, const char *model);
void tdnl_out_sample(const struct tdnl_sample *s, enum tdnl_fmt fmt,
		     bool watch);
void tdnl_out_end(enum tdnl_fmt fmt, bool watch);
void tdnl_out_flush(void);

#endif /* _TDNL_H */
