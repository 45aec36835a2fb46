// SPDX-License-Identifier: GPL-2.0
/*
 * topdown models of Arm cores, after perf's pmu-events metrics.json.
 *
 * Neoverse N2 (5 slots), V1 and V2 (8 slots), from neoverse-n2-v2 (N2 r0p0
 * to r0p2 take CPU_CYCLES off STALL_SLOT and STALL_SLOT_FRONTEND first) and
 * neoverse-v1 (4 * BR_MIS_PRED all from frontend bound, none from backend):
 *
 *   frontend = STALL_SLOT_FRONTEND / (CPU_CYCLES * slots) - BR_MIS_PRED / CPU_CYCLES
 *   backend  = STALL_SLOT_BACKEND / (CPU_CYCLES * slots) - 3 * BR_MIS_PRED / CPU_CYCLES
 *   retiring = OP_RETIRED / OP_SPEC * (1 - STALL_SLOT / (CPU_CYCLES * slots))
 *   bad_spec = (1 - OP_RETIRED / OP_SPEC) * (1 - STALL_SLOT / (CPU_CYCLES * slots))
 *		+ 4 * BR_MIS_PRED / CPU_CYCLES
 *
 * Arm's method has no slot-based Level 2.  Neoverse N1 has no STALL_SLOT
 * events: its Level 1 is cycle based (neoverse-n1's Cycle_Accounting),
 * STALL_FRONTEND and STALL_BACKEND over CPU_CYCLES, the rest not stalled.
 *
 * AmpereOne and AmpereOne X (ampere/ampereone{,x}), slots from the PMU
 * (#slots, PMMIR_EL1.SLOTS):
 *
 *   retired_fraction                   = OP_RETIRED / (CPU_CYCLES * slots)
 *   slots_lost_misspeculation_fraction = (OP_SPEC - OP_RETIRED) / (CPU_CYCLES * slots)
 *   backend_bound  = STALL_SLOT_BACKEND / (slots * CPU_CYCLES)
 *   frontend_bound = the rest
 *
 * Frontend bound is the rest because the event JSON marks STALL_SLOT_FRONTEND
 * and STALL_FRONTEND "Impacted by errata, use metrics instead" (AC03_CPU_29).
 * TopdownL2 splits three nodes, each sibling being the rest of its parent:
 *
 *   frontend_latency  = (STALL_FRONTEND - (STALL_SLOT_FRONTEND
 *                        - frontend_bound * CPU_CYCLES * slots) / slots)
 *                       / CPU_CYCLES
 *   branch_mispredict = BR_MIS_PRED_RETIRED / GPC_FLUSH
 *                       * slots_lost_misspeculation_fraction
 *   backend_memory    = (STALL_BACKEND_TLB + STALL_BACKEND_CACHE) / CPU_CYCLES
 *
 * Frontend latency and backend memory are clamped to their parent here,
 * where perf's could go negative.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#else
#include <errno.h>
#endif
#include "td_model.h"

/* PMUv3 on these cores: six event counters and the cycle counter */
#define ALL6	0x003f
#define NOFIX	-1

enum {
	ARM_CYCLES, ARM_STALL_SLOT_FRONTEND, ARM_STALL_SLOT_BACKEND,
	ARM_STALL_SLOT, ARM_OP_RETIRED, ARM_OP_SPEC, ARM_BR_MIS_PRED,
	ARM_NR
};

static const struct td_event neoverse_events[ARM_NR] = {
	[ARM_CYCLES]		= { "CPU_CYCLES", 0x11, 1, ALL6, 0, .every = true },
	[ARM_STALL_SLOT_FRONTEND] = { "STALL_SLOT_FRONTEND", 0x3e, 1, ALL6, NOFIX },
	[ARM_STALL_SLOT_BACKEND] = { "STALL_SLOT_BACKEND", 0x3d, 1, ALL6, NOFIX },
	[ARM_STALL_SLOT]	= { "STALL_SLOT", 0x3f, 1, ALL6, NOFIX },
	[ARM_OP_RETIRED]	= { "OP_RETIRED", 0x3a, 1, ALL6, NOFIX },
	[ARM_OP_SPEC]		= { "OP_SPEC", 0x3b, 1, ALL6, NOFIX },
	[ARM_BR_MIS_PRED]	= { "BR_MIS_PRED", 0x10, 1, ALL6, NOFIX },
};

/*
 * Level 1 of the slot-based Neoverse formulas.  @stall_less_cycles: the
 * N2 r0p0-r0p2 form, whose STALL_SLOT and STALL_SLOT_FRONTEND count one
 * more per cycle; @misp_fe and @misp_be: the BR_MIS_PRED per cycle taken
 * from frontend and backend bound into bad speculation (N2/V2: 1 and 3;
 * V1: 4 and 0).
 */
static int neoverse_l1(const struct td_model *m, const u64 *c,
		       bool stall_less_cycles, unsigned int misp_fe,
		       unsigned int misp_be, struct td_result *r)
{
	u64 cycles = c[ARM_CYCLES], slots = m->width * cycles;
	u64 misp = c[ARM_BR_MIS_PRED];
	u64 stall = c[ARM_STALL_SLOT], stall_fe = c[ARM_STALL_SLOT_FRONTEND];
	u32 busy, ret;

	if (!slots)
		return -ENODATA;
	if (stall_less_cycles) {
		stall = stall > cycles ? stall - cycles : 0;
		stall_fe = stall_fe > cycles ? stall_fe - cycles : 0;
	}
	*r = (struct td_result){ .has_l2 = false };
	/* BR_MIS_PRED / CPU_CYCLES = width * BR_MIS_PRED / slots */
	r->l1[TD_FRONTEND_BOUND] = td_frac_diff(stall_fe,
						misp_fe * m->width * misp, slots);
	r->l1[TD_BACKEND_BOUND] = td_frac_diff(c[ARM_STALL_SLOT_BACKEND],
					       misp_be * m->width * misp, slots);
	busy = td_frac_diff(slots, stall, slots);
	ret = c[ARM_OP_SPEC] ? (c[ARM_OP_RETIRED] >= c[ARM_OP_SPEC] ? busy :
		(u32)mul_u64_u64_div_u64(c[ARM_OP_RETIRED], busy,
					 c[ARM_OP_SPEC])) : 0;
	r->l1[TD_RETIRING] = ret;
	r->l1[TD_BAD_SPECULATION] = busy - ret +
		td_frac((misp_fe + misp_be) * misp, cycles);
	td_fit(r->l1, TD_NR_L1, TD_PPM);
	return 0;
}

static int neoverse_compute(const struct td_model *m, const u64 *c, bool smt,
			    struct td_result *r)
{
	return neoverse_l1(m, c, false, 1, 3, r);
}

/*
 * perf's N2 expressions take (STALL_SLOT - CPU_CYCLES) and
 * (STALL_SLOT_FRONTEND - CPU_CYCLES) unless
 * strcmp_cpuid_str(0x410fd493) | strcmp_cpuid_str(0x410fd490) ^ 1, which
 * reads A | !B (^ binds tighter; each is "this part, at or above this
 * revision"): on N2 r0p0 to r0p2 only.
 */
static int n2_r0_compute(const struct td_model *m, const u64 *c, bool smt,
			 struct td_result *r)
{
	return neoverse_l1(m, c, true, 1, 3, r);
}

/*
 * V1 (perf's arm64/arm/neoverse-v1/metrics.json, 8 slots written in):
 * frontend less 4 * BR_MIS_PRED / CPU_CYCLES, backend and retiring as
 * sbsa.json's, bad speculation plus the same.
 */
static int v1_compute(const struct td_model *m, const u64 *c, bool smt,
		      struct td_result *r)
{
	return neoverse_l1(m, c, false, 4, 0, r);
}

const struct td_model td_model_neoverse_n2 = {
	.name = "neoverse-n2",
	.vendor = TD_ARM,
	.width = 5,
	.events = neoverse_events,
	.nr_events = ARM_NR,
	.gp_counters = 6,
	.fixed_counters = 1,
	.compute = neoverse_compute,
};

/* Neoverse N2 r0p0 to r0p2 */
const struct td_model td_model_neoverse_n2_r0 = {
	.name = "neoverse-n2-r0p2",
	.vendor = TD_ARM,
	.width = 5,
	.events = neoverse_events,
	.nr_events = ARM_NR,
	.gp_counters = 6,
	.fixed_counters = 1,
	.compute = n2_r0_compute,
};

const struct td_model td_model_neoverse_v1 = {
	.name = "neoverse-v1",
	.vendor = TD_ARM,
	.width = 8,
	.events = neoverse_events,
	.nr_events = ARM_NR,
	.gp_counters = 6,
	.fixed_counters = 1,
	.compute = v1_compute,
};

const struct td_model td_model_neoverse_v2 = {
	.name = "neoverse-v2",
	.vendor = TD_ARM,
	.width = 8,
	.events = neoverse_events,
	.nr_events = ARM_NR,
	.gp_counters = 6,
	.fixed_counters = 1,
	.compute = neoverse_compute,
};

/*
 * Neoverse N3 and V3 (perf 7.3's arm64/arm/neoverse-n3 and neoverse-v3
 * metrics.json): frontend bound and bad speculation are overridden with
 * the core's width written in (N3 5, V3 10) and STALL_FRONTEND_FLUSH, the
 * cycles the frontend recovers from a flush, moved from frontend bound to
 * bad speculation; retiring and backend bound are sbsa.json's, over
 * #slots (the PMU's, else the model's width, as for the other cores):
 *
 *   frontend = STALL_SLOT_FRONTEND / (W * CPU_CYCLES) - STALL_FRONTEND_FLUSH / CPU_CYCLES
 *   bad_spec = (1 - STALL_SLOT / (W * CPU_CYCLES)) * (1 - OP_RETIRED / OP_SPEC)
 *              + STALL_FRONTEND_FLUSH / CPU_CYCLES
 *   retiring = OP_RETIRED / OP_SPEC * (1 - STALL_SLOT / (#slots * CPU_CYCLES))
 *   backend  = STALL_SLOT_BACKEND / (#slots * CPU_CYCLES)
 *
 * Their Topdown_Frontend and Topdown_Backend groups are shares of the
 * stall cycles, not slot nodes under Level 1: no Level 2 here.
 */
enum {
	V3_CYCLES, V3_STALL_SLOT_FRONTEND, V3_STALL_SLOT_BACKEND, V3_STALL_SLOT,
	V3_OP_RETIRED, V3_OP_SPEC, V3_STALL_FRONTEND_FLUSH, V3_NR
};

static const struct td_event neoverse_v3_events[V3_NR] = {
	[V3_CYCLES]		= { "CPU_CYCLES", 0x11, 1, ALL6, 0, .every = true },
	[V3_STALL_SLOT_FRONTEND] = { "STALL_SLOT_FRONTEND", 0x3e, 1, ALL6, NOFIX },
	[V3_STALL_SLOT_BACKEND]	= { "STALL_SLOT_BACKEND", 0x3d, 1, ALL6, NOFIX },
	[V3_STALL_SLOT]		= { "STALL_SLOT", 0x3f, 1, ALL6, NOFIX },
	[V3_OP_RETIRED]		= { "OP_RETIRED", 0x3a, 1, ALL6, NOFIX },
	[V3_OP_SPEC]		= { "OP_SPEC", 0x3b, 1, ALL6, NOFIX },
	[V3_STALL_FRONTEND_FLUSH] = { "STALL_FRONTEND_FLUSH", 0x8162, 1, ALL6, NOFIX },
};

/* OP_RETIRED / OP_SPEC of @busy, at most @busy */
static u32 neoverse_retired(const u64 *c, unsigned int ret, unsigned int spec,
			    u32 busy)
{
	if (!c[spec])
		return 0;
	if (c[ret] >= c[spec])
		return busy;
	return (u32)mul_u64_u64_div_u64(c[ret], busy, c[spec]);
}

/* @lit: the width perf's overrides write in */
static int neoverse_v3_l1(const struct td_model *m, const u64 *c,
			  unsigned int lit, struct td_result *r)
{
	u64 cycles = c[V3_CYCLES], slots = m->width * cycles;
	u64 lit_slots = lit * cycles, flush = c[V3_STALL_FRONTEND_FLUSH];
	u64 stall = c[V3_STALL_SLOT];
	u32 busy, lit_busy;

	if (!slots)
		return -ENODATA;
	*r = (struct td_result){ .has_l2 = false };
	/* FLUSH / CPU_CYCLES = W * FLUSH / (W * CPU_CYCLES) */
	r->l1[TD_FRONTEND_BOUND] = td_frac_diff(c[V3_STALL_SLOT_FRONTEND],
						lit * flush, lit_slots);
	r->l1[TD_BACKEND_BOUND] = td_frac(c[V3_STALL_SLOT_BACKEND], slots);
	busy = td_frac_diff(slots, stall, slots);
	lit_busy = td_frac_diff(lit_slots, stall, lit_slots);
	r->l1[TD_RETIRING] = neoverse_retired(c, V3_OP_RETIRED, V3_OP_SPEC, busy);
	r->l1[TD_BAD_SPECULATION] = lit_busy -
		neoverse_retired(c, V3_OP_RETIRED, V3_OP_SPEC, lit_busy) +
		td_frac(flush, cycles);
	td_fit(r->l1, TD_NR_L1, TD_PPM);
	return 0;
}

static int n3_compute(const struct td_model *m, const u64 *c, bool smt,
		      struct td_result *r)
{
	return neoverse_v3_l1(m, c, 5, r);
}

static int v3_compute(const struct td_model *m, const u64 *c, bool smt,
		      struct td_result *r)
{
	return neoverse_v3_l1(m, c, 10, r);
}

const struct td_model td_model_neoverse_n3 = {
	.name = "neoverse-n3",
	.vendor = TD_ARM,
	.width = 5,
	.events = neoverse_v3_events,
	.nr_events = V3_NR,
	.gp_counters = 6,
	.fixed_counters = 1,
	.compute = n3_compute,
};

const struct td_model td_model_neoverse_v3 = {
	.name = "neoverse-v3",
	.vendor = TD_ARM,
	.width = 10,
	.events = neoverse_v3_events,
	.nr_events = V3_NR,
	.gp_counters = 6,
	.fixed_counters = 1,
	.compute = v3_compute,
};

enum {
	AMPERE_CYCLES, AMPERE_STALL_SLOT_BACKEND, AMPERE_OP_RETIRED,
	AMPERE_OP_SPEC, AMPERE_STALL_FRONTEND, AMPERE_STALL_SLOT_FRONTEND,
	AMPERE_BR_MIS_PRED_RETIRED, AMPERE_GPC_FLUSH, AMPERE_STALL_BACKEND_TLB,
	AMPERE_STALL_BACKEND_CACHE, AMPERE_NR
};

/*
 * The same on AmpereOne and AmpereOne X.  Each Level 2 term's events go
 * into one set (@grp) and are taken as their share of the parent node.
 */
static const struct td_event ampereone_events[AMPERE_NR] = {
	[AMPERE_CYCLES]		= { "CPU_CYCLES", 0x11, 1, ALL6, 0, .every = true },
	[AMPERE_STALL_SLOT_BACKEND] = { "STALL_SLOT_BACKEND", 0x3d, 1, ALL6, NOFIX },
	[AMPERE_OP_RETIRED]	= { "OP_RETIRED", 0x3a, 1, ALL6, NOFIX },
	[AMPERE_OP_SPEC]	= { "OP_SPEC", 0x3b, 1, ALL6, NOFIX },
	[AMPERE_STALL_FRONTEND]	= { "STALL_FRONTEND", 0x23, 2, ALL6, NOFIX, .grp = 1,
				    .parent = 1 + TD_FRONTEND_BOUND },
	[AMPERE_STALL_SLOT_FRONTEND] = { "STALL_SLOT_FRONTEND", 0x3e, 2, ALL6, NOFIX,
					 .grp = 1, .parent = 1 + TD_FRONTEND_BOUND },
	[AMPERE_BR_MIS_PRED_RETIRED] = { "BR_MIS_PRED_RETIRED", 0x22, 2, ALL6, NOFIX,
					 .grp = 2, .parent = 1 + TD_BAD_SPECULATION },
	[AMPERE_GPC_FLUSH]	= { "GPC_FLUSH", 0x120, 2, ALL6, NOFIX, .grp = 2,
				    .parent = 1 + TD_BAD_SPECULATION },
	[AMPERE_STALL_BACKEND_TLB] = { "STALL_BACKEND_TLB", 0xd20e, 2, ALL6, NOFIX,
				       .grp = 3, .parent = 1 + TD_BACKEND_BOUND },
	[AMPERE_STALL_BACKEND_CACHE] = { "STALL_BACKEND_CACHE", 0xd20d, 2, ALL6, NOFIX,
					 .grp = 3, .parent = 1 + TD_BACKEND_BOUND },
};

/* AmpereOne X: STALL_BACKEND_TLB is 0x8167 (ampereonex/pipeline.json) */
static const struct td_event ampereonex_events[AMPERE_NR] = {
	[AMPERE_CYCLES]		= { "CPU_CYCLES", 0x11, 1, ALL6, 0, .every = true },
	[AMPERE_STALL_SLOT_BACKEND] = { "STALL_SLOT_BACKEND", 0x3d, 1, ALL6, NOFIX },
	[AMPERE_OP_RETIRED]	= { "OP_RETIRED", 0x3a, 1, ALL6, NOFIX },
	[AMPERE_OP_SPEC]	= { "OP_SPEC", 0x3b, 1, ALL6, NOFIX },
	[AMPERE_STALL_FRONTEND]	= { "STALL_FRONTEND", 0x23, 2, ALL6, NOFIX, .grp = 1,
				    .parent = 1 + TD_FRONTEND_BOUND },
	[AMPERE_STALL_SLOT_FRONTEND] = { "STALL_SLOT_FRONTEND", 0x3e, 2, ALL6, NOFIX,
					 .grp = 1, .parent = 1 + TD_FRONTEND_BOUND },
	[AMPERE_BR_MIS_PRED_RETIRED] = { "BR_MIS_PRED_RETIRED", 0x22, 2, ALL6, NOFIX,
					 .grp = 2, .parent = 1 + TD_BAD_SPECULATION },
	[AMPERE_GPC_FLUSH]	= { "GPC_FLUSH", 0x120, 2, ALL6, NOFIX, .grp = 2,
				    .parent = 1 + TD_BAD_SPECULATION },
	[AMPERE_STALL_BACKEND_TLB] = { "STALL_BACKEND_TLB", 0x8167, 2, ALL6, NOFIX,
				       .grp = 3, .parent = 1 + TD_BACKEND_BOUND },
	[AMPERE_STALL_BACKEND_CACHE] = { "STALL_BACKEND_CACHE", 0xd20d, 2, ALL6, NOFIX,
					 .grp = 3, .parent = 1 + TD_BACKEND_BOUND },
};

/* Level 2: the measured child of each pair, its sibling, their parent */
static const struct td_pair ampereone_pairs[] = {
	{ TD_BRANCH_MISPREDICTS, TD_OTHER_MISPREDICTS, TD_BAD_SPECULATION },
	{ TD_FETCH_LATENCY, TD_FETCH_BANDWIDTH, TD_FRONTEND_BOUND },
	{ TD_MEMORY_BOUND, TD_CORE_BOUND, TD_BACKEND_BOUND },
};

static int ampereone_compute(const struct td_model *m, const u64 *c, bool smt,
			     struct td_result *r)
{
	u64 cycles = c[AMPERE_CYCLES], slots = m->width * cycles;
	s64 lat;
	u32 used;

	if (!slots)
		return -ENODATA;
	*r = (struct td_result){ .has_l2 = true };
	r->l1[TD_RETIRING] = td_frac(c[AMPERE_OP_RETIRED], slots);
	r->l1[TD_BAD_SPECULATION] = td_frac_diff(c[AMPERE_OP_SPEC],
						 c[AMPERE_OP_RETIRED], slots);
	r->l1[TD_BACKEND_BOUND] = td_frac(c[AMPERE_STALL_SLOT_BACKEND], slots);
	used = r->l1[TD_RETIRING] + r->l1[TD_BAD_SPECULATION] +
	       r->l1[TD_BACKEND_BOUND];
	r->l1[TD_FRONTEND_BOUND] = used < TD_PPM ? TD_PPM - used : 0;
	/* children of the fitted Level 1 */
	td_fit(r->l1, TD_NR_L1, TD_PPM);
	lat = (s64)td_frac(c[AMPERE_STALL_FRONTEND], cycles) +
	      r->l1[TD_FRONTEND_BOUND] -
	      td_frac(c[AMPERE_STALL_SLOT_FRONTEND], slots);
	r->l2[TD_FETCH_LATENCY] = lat > 0 ? (u32)lat : 0;
	r->l2[TD_BRANCH_MISPREDICTS] = td_share(c[AMPERE_BR_MIS_PRED_RETIRED],
						c[AMPERE_GPC_FLUSH],
						r->l1[TD_BAD_SPECULATION]);
	r->l2[TD_MEMORY_BOUND] = td_frac(c[AMPERE_STALL_BACKEND_TLB] +
					 c[AMPERE_STALL_BACKEND_CACHE], cycles);
	td_finish(m, r);
	return 0;
}

/*
 * Slots per cycle come from PMMIR_EL1.SLOTS, as perf's #slots; the fallback
 * of 4 is what perf's own pipe_utilization metrics imply.
 */
const struct td_model td_model_ampereone = {
	.name = "ampereone",
	.vendor = TD_ARM,
	.width = 4,
	.events = ampereone_events,
	.nr_events = AMPERE_NR,
	.pairs = ampereone_pairs,
	.nr_pairs = ARRAY_SIZE(ampereone_pairs),
	.gp_counters = 6,
	.fixed_counters = 1,
	.compute = ampereone_compute,
};

const struct td_model td_model_ampereonex = {
	.name = "ampereonex",
	.vendor = TD_ARM,
	.width = 4,
	.events = ampereonex_events,
	.nr_events = AMPERE_NR,
	.pairs = ampereone_pairs,
	.nr_pairs = ARRAY_SIZE(ampereone_pairs),
	.gp_counters = 6,
	.fixed_counters = 1,
	.compute = ampereone_compute,
};

enum { N1_CYCLES, N1_STALL_FRONTEND, N1_STALL_BACKEND, N1_NR };

static const struct td_event n1_events[N1_NR] = {
	[N1_CYCLES]		= { "CPU_CYCLES", 0x11, 1, ALL6, 0, .every = true },
	[N1_STALL_FRONTEND]	= { "STALL_FRONTEND", 0x23, 1, ALL6, NOFIX },
	[N1_STALL_BACKEND]	= { "STALL_BACKEND", 0x24, 1, ALL6, NOFIX },
};

static int n1_compute(const struct td_model *m, const u64 *c, bool smt,
		      struct td_result *r)
{
	u64 cycles = c[N1_CYCLES];
	u32 stalled;

	if (!cycles)
		return -ENODATA;
	*r = (struct td_result){ .has_l2 = false };
	r->l1[TD_FRONTEND_BOUND] = td_frac(c[N1_STALL_FRONTEND], cycles);
	r->l1[TD_BACKEND_BOUND] = td_frac(c[N1_STALL_BACKEND], cycles);
	stalled = r->l1[TD_FRONTEND_BOUND] + r->l1[TD_BACKEND_BOUND];
	r->l1[TD_NOT_STALLED] = stalled < TD_PPM ? TD_PPM - stalled : 0;
	td_fit(r->l1, TD_NR_L1, TD_PPM);
	return 0;
}

const struct td_model td_model_neoverse_n1 = {
	.name = "neoverse-n1",
	.vendor = TD_ARM,
	.width = 4,	/* dispatch width; the formulas do not use it */
	.events = n1_events,
	.nr_events = N1_NR,
	.gp_counters = 6,
	.fixed_counters = 1,
	.cycle_based = true,
	.compute = n1_compute,
};
