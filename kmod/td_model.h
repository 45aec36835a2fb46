/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topdown CPU models: the raw events each needs, per level, and the
 * formulas that turn one interval's scaled counts into Level 1 and Level 2
 * fractions (ppm).  Built in the kernel and in userspace (unit tests).
 */
#ifndef _TD_MODEL_H
#define _TD_MODEL_H

#include "td_math.h"

enum td_vendor {
	TD_INTEL,
	TD_AMD,
	TD_ARM,
};

/*
 * Level 1 nodes; smt_contention exists on AMD Zen only.  A cycle-based model
 * (Neoverse N1) gives frontend and backend as stalled cycles and the rest as
 * not_stalled.
 */
enum td_l1 {
	TD_RETIRING,
	TD_BAD_SPECULATION,
	TD_FRONTEND_BOUND,
	TD_BACKEND_BOUND,
	TD_SMT_CONTENTION,
	TD_NOT_STALLED,
	TD_NR_L1,
};

/*
 * Level 2 nodes, in pairs that add up to their Level 1 parent.  Each model
 * publishes its own pairs (struct td_pair); Intel Core and AMD Zen have the
 * first eight.
 */
enum td_l2 {
	TD_LIGHT_OPERATIONS,
	TD_HEAVY_OPERATIONS,
	TD_BRANCH_MISPREDICTS,
	TD_MACHINE_CLEARS,
	TD_FETCH_LATENCY,
	TD_FETCH_BANDWIDTH,
	TD_MEMORY_BOUND,
	TD_CORE_BOUND,
	TD_RESOURCE_BOUND,
	TD_OTHER_MISPREDICTS,
	TD_NR_L2,
};

/**
 * struct td_pair - one Level 2 pair of a model
 * @child:   the node its formulas measure
 * @sibling: the other node: @parent less @child
 * @parent:  their Level 1 node (enum td_l1)
 */
struct td_pair {
	u8 child, sibling, parent;
};

/**
 * struct td_event - one raw event a model opens
 * @name:   its name in perf's JSON (":cN" = with cmask N)
 * @config: the raw perf config
 * @level:  the lowest level that needs it (1, 2 or 3)
 * @gp:     the general-purpose counters it may use (perf's JSON "Counter");
 *          0 for a fixed-counter-only event
 * @fixed:  the fixed counter that can hold it, or -1
 * @every:  a normalizer (slots or cycles), counted in every event set; the
 *          first opened one is the sets'
 * @slots:  counts pipeline slots (a normalizer that does not count cycles)
 * @grp:    events with the same non-zero @grp feed one formula term and go
 *          into one event set when they fit together
 * @ref:    the lower-numbered event this one is part of (its Level 1
 *          parent's): a count from some sets only is scaled by @ref's count
 *          in the same windows; 0, or @ref in another set: the normalizer
 * @parent: 1 + the Level 1 node this one is part of (enum td_l1), where that
 *          node is no single event (bad speculation): scaled by the node as
 *          the always-counted events give it; takes precedence over @ref
 * @gp_form: the general-purpose form of a fixed-counter-only event
 *          (TOPDOWN.SLOTS_P for TOPDOWN.SLOTS), for a PMU without that
 *          fixed counter (KVM gives guests 3)
 *
 * The sets are built from @gp, @fixed, @every and @grp (td_sets.c).
 */
struct td_event {
	const char *name;
	u64 config;
	unsigned int level;
	u16 gp;
	s8 fixed;
	bool every;
	bool slots;
	u8 grp;
	u8 ref;
	u8 parent;
	const struct td_event *gp_form;
};

/* the event counted for @e where @fixed fixed counters exist */
static inline const struct td_event *td_event_form(const struct td_event *e,
						   unsigned int fixed)
{
	if (e->gp_form && e->fixed >= 0 && (unsigned int)e->fixed >= fixed)
		return e->gp_form;
	return e;
}

/**
 * struct td_result - one interval's fractions
 * @l1:     Level 1 in ppm, adding up to exactly TD_PPM
 * @l2:     Level 2 in ppm, the nodes of the model's pairs, each pair adding
 *          up to its parent
 * @has_l2: the model has a Level 2
 */
struct td_result {
	u32 l1[TD_NR_L1];
	u32 l2[TD_NR_L2];
	bool has_l2;
};

/**
 * struct td_model - a CPU model
 * @name:      as given to model=
 * @vendor:    CPU vendor
 * @width:     pipeline slots per cycle
 * @events:    the events, ordered by level
 * @nr_events: how many
 * @smt_only:  bitmap of events only needed when SMT is on (AnyThread)
 * @nosmt_only: bitmap of events only needed when SMT is off
 * @cycle_based: Level 1 is in cycles, not slots (see enum td_l1)
 * @pairs:     its Level 2 pairs, parents in enum td_l1 order; NULL: no Level 2
 * @nr_pairs:  how many
 * @gp_counters: general-purpose counters of its PMU, per thread
 * @fixed_counters: fixed counters of its PMU (Arm: the cycle counter)
 * @compute:   the formulas: @c holds one scaled delta per event, @smt is
 *             true when the core's other thread is online; returns 0, or
 *             -ENODATA when no slots were counted (idle: nothing to divide)
 */
struct td_model {
	const char *name;
	enum td_vendor vendor;
	unsigned int width;
	const struct td_event *events;
	unsigned int nr_events;
	u32 smt_only, nosmt_only;
	bool cycle_based;
	const struct td_pair *pairs;
	unsigned int nr_pairs;
	unsigned int gp_counters, fixed_counters;
	int (*compute)(const struct td_model *m, const u64 *c, bool smt,
		       struct td_result *r);
};

extern const struct td_model td_model_skl, td_model_icl, td_model_spr;
extern const struct td_model td_model_gnr, td_model_lioncove;
extern const struct td_model td_model_zen4, td_model_zen5, td_model_zen6;
extern const struct td_model td_model_neoverse_n1, td_model_neoverse_n2;
extern const struct td_model td_model_neoverse_v2, td_model_neoverse_v1;
extern const struct td_model td_model_neoverse_n2_r0, td_model_ampereone;
extern const struct td_model td_model_ampereonex;
extern const struct td_model td_model_neoverse_n3, td_model_neoverse_v3;
extern const struct td_model td_model_gracemont, td_model_crestmont;
extern const struct td_model td_model_skymont;
extern const struct td_model * const td_models[];
extern const unsigned int td_nr_models;

#define TD_NR_CORE_PAIRS	4
extern const struct td_pair td_core_pairs[TD_NR_CORE_PAIRS];
extern const u8 td_l2_parent[TD_NR_L2];
extern const char * const td_l1_names[TD_NR_L1];
extern const char * const td_l2_names[TD_NR_L2];

/*
 * td_model_x86(): the CPU's vendor, and on hybrid parts its CPUID 0x1a EAX:
 * the core type in bits 31:24, the native model ID in 23:0 (which tells
 * Arrow Lake H's two kinds of Atom core apart).
 */
enum td_x86_vendor { TD_X86_INTEL, TD_X86_AMD };
#define TD_NOT_HYBRID	(-1)
#define TD_CORE_ATOM	0x20
#define TD_CORE_CORE	0x40
#define TD_NATIVE_CMT	0x2	/* Crestmont (intel-family.h's native IDs) */
#define TD_NATIVE_SKT	0x3	/* Skymont */
#define TD_HYBRID(type, native)	((int)((type) << 24 | (native)))

const struct td_model *td_model_x86(enum td_x86_vendor vendor, unsigned int family,
				    unsigned int model, int hybrid);
const struct td_model *td_model_arm(u32 midr);
unsigned int td_model_nr_events(const struct td_model *m, unsigned int level);
bool td_model_has_l1(const struct td_model *m, enum td_l1 node);
bool td_model_has_l2(const struct td_model *m, enum td_l2 node);
const struct td_model *td_model_find(const char *name);
void td_model_names(char *buf, size_t len);
void td_finish(const struct td_model *m, struct td_result *r);

#endif /* _TD_MODEL_H */
