// SPDX-License-Identifier: GPL-2.0
/*
 * topdown models of Intel cores, with Intel TMA's general-purpose-counter
 * formulas (a kernel counter cannot be grouped, so PERF_METRICS is out) as
 * perf's JSON (tools/perf/pmu-events/arch/x86) and pmu-tools define them.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#else
#include <errno.h>
#endif
#include "td_model.h"

/* perf's JSON "Counter": which general-purpose counters an event may use */
#define ALL8	0x00ff
#define ALL4	0x000f
#define GP0	0x0001
#define NOFIX	-1

/* x * frac(ppm) */
static u32 td_of(u32 frac, u32 x)
{
	return (u32)((u64)frac * x / TD_PPM);
}

/* ---- Sapphire Rapids and later: width 6 ---- */

enum {
	SPR_SLOTS, SPR_RETIRE_SLOTS, SPR_IDQ_BUBBLES, SPR_UOP_DROPPING,
	SPR_BE_SLOTS,
	SPR_HEAVY, SPR_BR_MISP_SLOTS, SPR_IDQ_CYC0, SPR_MEM_SLOTS,
	SPR_CLK, SPR_BOUND_ON_LOADS, SPR_BOUND_ON_STORES, SPR_STALLS_L1D_MISS,
	SPR_STALLS_L2_MISS, SPR_STALLS_L3_MISS, SPR_ORO_C4, SPR_ORO_CYCLES,
	SPR_NR
};

/*
 * TOPDOWN.SLOTS counts only on fixed counter 3; where that counter does not
 * exist (KVM gives guests 3 fixed counters, and x86's validate_event()
 * refuses the event with -EINVAL) the same count comes from TOPDOWN.SLOTS_P
 * on a general-purpose counter (spr and icl JSON: "0,1,2,3,4,5,6,7").
 */
static const struct td_event slots_p = {
	"TOPDOWN.SLOTS_P", 0x01a4, 1, ALL8, NOFIX, .every = true, .slots = true
};

static const struct td_event spr_events[SPR_NR] = {
	[SPR_SLOTS]		= { "TOPDOWN.SLOTS", 0x0400, 1, 0, 3, .every = true,
				    .slots = true, .gp_form = &slots_p },
	[SPR_RETIRE_SLOTS]	= { "UOPS_RETIRED.SLOTS", 0x02c2, 1, ALL8, NOFIX },
	[SPR_IDQ_BUBBLES]	= { "IDQ_BUBBLES.CORE", 0x019c, 1, ALL8, NOFIX },
	[SPR_UOP_DROPPING]	= { "INT_MISC.UOP_DROPPING", 0x10ad, 1, ALL8, NOFIX },
	[SPR_BE_SLOTS]		= { "TOPDOWN.BACKEND_BOUND_SLOTS", 0x02a4, 1, ALL8, NOFIX },
	[SPR_HEAVY]		= { "UOPS_RETIRED.HEAVY", 0x01c2, 2, ALL8, NOFIX,
				    .parent = 1 + TD_RETIRING },
	[SPR_BR_MISP_SLOTS]	= { "TOPDOWN.BR_MISPREDICT_SLOTS", 0x08a4, 2, GP0, NOFIX,
				    .parent = 1 + TD_BAD_SPECULATION },
	[SPR_IDQ_CYC0]		= { "IDQ_BUBBLES.CYCLES_0_UOPS_DELIV.CORE", 0x0600019c, 2,
				    ALL8, NOFIX, .parent = 1 + TD_FRONTEND_BOUND },
	[SPR_MEM_SLOTS]		= { "TOPDOWN.MEMORY_BOUND_SLOTS", 0x10a4, 2, ALL8, NOFIX,
				    .parent = 1 + TD_BACKEND_BOUND },
	/* Level 3: the memory nodes, computed by tdnl (spr-metrics.json) */
	[SPR_CLK]		= { "CPU_CLK_UNHALTED.THREAD", 0x003c, 3, ALL8, 1,
				    .every = true },
	[SPR_BOUND_ON_LOADS]	= { "EXE_ACTIVITY.BOUND_ON_LOADS", 0x050021a6, 3, ALL8, NOFIX,
				    .grp = 1, .ref = SPR_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SPR_BOUND_ON_STORES]	= { "EXE_ACTIVITY.BOUND_ON_STORES", 0x020040a6, 3, ALL8, NOFIX,
				    .ref = SPR_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SPR_STALLS_L1D_MISS]	= { "MEMORY_ACTIVITY.STALLS_L1D_MISS", 0x03000347, 3, ALL4,
				    NOFIX, .grp = 1, .ref = SPR_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SPR_STALLS_L2_MISS]	= { "MEMORY_ACTIVITY.STALLS_L2_MISS", 0x05000547, 3, ALL4,
				    NOFIX, .grp = 1, .ref = SPR_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SPR_STALLS_L3_MISS]	= { "MEMORY_ACTIVITY.STALLS_L3_MISS", 0x09000947, 3, ALL4,
				    NOFIX, .grp = 1, .ref = SPR_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SPR_ORO_C4]		= { "OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4",
				    0x04000820, 3, ALL4, NOFIX, .grp = 2, .ref = SPR_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SPR_ORO_CYCLES]	= { "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD",
				    0x01000820, 3, ALL4, NOFIX, .grp = 2, .ref = SPR_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
};

static int spr_compute(const struct td_model *m, const u64 *c, bool smt,
		       struct td_result *r)
{
	u64 slots = c[SPR_SLOTS];
	u32 used;

	if (!slots)
		return -ENODATA;
	*r = (struct td_result){ .has_l2 = true };
	r->l1[TD_RETIRING] = td_frac(c[SPR_RETIRE_SLOTS], slots);
	r->l1[TD_FRONTEND_BOUND] = td_frac_diff(c[SPR_IDQ_BUBBLES],
						c[SPR_UOP_DROPPING], slots);
	r->l1[TD_BACKEND_BOUND] = td_frac(c[SPR_BE_SLOTS], slots);
	/* bad speculation = max(1 - (frontend + backend + retiring), 0) */
	used = r->l1[TD_RETIRING] + r->l1[TD_FRONTEND_BOUND] +
	       r->l1[TD_BACKEND_BOUND];
	r->l1[TD_BAD_SPECULATION] = used < TD_PPM ? TD_PPM - used : 0;

	r->l2[TD_HEAVY_OPERATIONS] = td_frac(c[SPR_HEAVY], slots);
	r->l2[TD_BRANCH_MISPREDICTS] = td_frac(c[SPR_BR_MISP_SLOTS], slots);
	/* fetch latency = (6 * CYC0 - UOP_DROPPING) / slots */
	r->l2[TD_FETCH_LATENCY] = td_frac_diff(m->width * c[SPR_IDQ_CYC0],
					       c[SPR_UOP_DROPPING], slots);
	r->l2[TD_MEMORY_BOUND] = td_frac(c[SPR_MEM_SLOTS], slots);
	td_finish(m, r);
	return 0;
}

const struct td_model td_model_spr = {
	.name = "spr",
	.vendor = TD_INTEL,
	.width = 6,
	.events = spr_events,
	.nr_events = SPR_NR,
	.gp_counters = 8,
	.fixed_counters = 4,
	.pairs = td_core_pairs,
	.nr_pairs = TD_NR_CORE_PAIRS,
	.compute = spr_compute,
};

/*
 * Granite Rapids (gnr-metrics.json, 7.3 only): spr's Level 1 and 2.  Its
 * memory bandwidth counts cycles with 12 or more data reads outstanding,
 * not 4 (DATA_RD:c12, the encoding spr names ALL_DATA_RD), and Level 3's
 * tma_l3_miss_bound is spr's tma_dram_bound.
 */
static const struct td_event gnr_events[SPR_NR] = {
	[SPR_SLOTS]		= { "TOPDOWN.SLOTS", 0x0400, 1, 0, 3, .every = true,
				    .slots = true, .gp_form = &slots_p },
	[SPR_RETIRE_SLOTS]	= { "UOPS_RETIRED.SLOTS", 0x02c2, 1, ALL8, NOFIX },
	[SPR_IDQ_BUBBLES]	= { "IDQ_BUBBLES.CORE", 0x019c, 1, ALL8, NOFIX },
	[SPR_UOP_DROPPING]	= { "INT_MISC.UOP_DROPPING", 0x10ad, 1, ALL8, NOFIX },
	[SPR_BE_SLOTS]		= { "TOPDOWN.BACKEND_BOUND_SLOTS", 0x02a4, 1, ALL8, NOFIX },
	[SPR_HEAVY]		= { "UOPS_RETIRED.HEAVY", 0x01c2, 2, ALL8, NOFIX,
				    .parent = 1 + TD_RETIRING },
	[SPR_BR_MISP_SLOTS]	= { "TOPDOWN.BR_MISPREDICT_SLOTS", 0x08a4, 2, GP0, NOFIX,
				    .parent = 1 + TD_BAD_SPECULATION },
	[SPR_IDQ_CYC0]		= { "IDQ_BUBBLES.CYCLES_0_UOPS_DELIV.CORE", 0x0600019c, 2,
				    ALL8, NOFIX, .parent = 1 + TD_FRONTEND_BOUND },
	[SPR_MEM_SLOTS]		= { "TOPDOWN.MEMORY_BOUND_SLOTS", 0x10a4, 2, ALL8, NOFIX,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SPR_CLK]		= { "CPU_CLK_UNHALTED.THREAD", 0x003c, 3, ALL8, 1,
				    .every = true },
	[SPR_BOUND_ON_LOADS]	= { "EXE_ACTIVITY.BOUND_ON_LOADS", 0x050021a6, 3, ALL8, NOFIX,
				    .grp = 1, .ref = SPR_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SPR_BOUND_ON_STORES]	= { "EXE_ACTIVITY.BOUND_ON_STORES", 0x020040a6, 3, ALL8, NOFIX,
				    .ref = SPR_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SPR_STALLS_L1D_MISS]	= { "MEMORY_ACTIVITY.STALLS_L1D_MISS", 0x03000347, 3, ALL4,
				    NOFIX, .grp = 1, .ref = SPR_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SPR_STALLS_L2_MISS]	= { "MEMORY_ACTIVITY.STALLS_L2_MISS", 0x05000547, 3, ALL4,
				    NOFIX, .grp = 1, .ref = SPR_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SPR_STALLS_L3_MISS]	= { "MEMORY_ACTIVITY.STALLS_L3_MISS", 0x09000947, 3, ALL4,
				    NOFIX, .grp = 1, .ref = SPR_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SPR_ORO_C4]		= { "OFFCORE_REQUESTS_OUTSTANDING.DATA_RD:c12",
				    0x0c000820, 3, ALL4, NOFIX, .grp = 2, .ref = SPR_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SPR_ORO_CYCLES]	= { "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD",
				    0x01000820, 3, ALL4, NOFIX, .grp = 2, .ref = SPR_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
};

const struct td_model td_model_gnr = {
	.name = "gnr",
	.vendor = TD_INTEL,
	.width = 6,
	.events = gnr_events,
	.nr_events = SPR_NR,
	.gp_counters = 8,
	.fixed_counters = 4,
	.pairs = td_core_pairs,
	.nr_pairs = TD_NR_CORE_PAIRS,
	.compute = spr_compute,
};

/*
 * ---- Lion Cove (Arrow Lake, Lunar Lake P-cores, cpu_core): width 8 ----
 *
 * perf's lnl- and arl-metrics.json (7.3) take Level 1 and the measured
 * Level 2 children from PERF_METRICS; here each is its general-purpose
 * event over TOPDOWN.SLOTS.  Unlike spr, bad speculation is measured
 * (TOPDOWN.BAD_SPEC_SLOTS), INT_MISC.UOP_DROPPING is not taken off and
 * fetch latency uses cmask 8.  BAD_SPEC_SLOTS and BR_MISPREDICT_SLOTS both
 * need GP0, so Level 2 takes turns.  Level 3's l2_bound is the L2 hits'
 * share (against MEM_LOAD_MISC_RETIRED.UC) of MEMORY_STALLS.L2.
 */
#define ALL10	0x03ff
#define GP3	0x0008

enum {
	LNC_SLOTS, LNC_RETIRE_SLOTS, LNC_BAD_SPEC_SLOTS, LNC_IDQ_BUBBLES,
	LNC_BE_SLOTS,
	LNC_HEAVY, LNC_BR_MISP_SLOTS, LNC_IDQ_CYC0, LNC_MEM_SLOTS,
	LNC_CLK, LNC_STALLS_L1, LNC_STALLS_L2, LNC_L2_HIT, LNC_UC,
	LNC_STALLS_L3, LNC_STALLS_MEM, LNC_BOUND_ON_STORES, LNC_ORO_C4,
	LNC_ORO_CYCLES,
	LNC_NR
};

static const struct td_event lnc_slots_p = {
	"TOPDOWN.SLOTS_P", 0x01a4, 1, ALL10, NOFIX, .every = true, .slots = true
};

static const struct td_event lnc_events[LNC_NR] = {
	[LNC_SLOTS]		= { "TOPDOWN.SLOTS", 0x0400, 1, 0, 3, .every = true,
				    .slots = true, .gp_form = &lnc_slots_p },
	[LNC_RETIRE_SLOTS]	= { "UOPS_RETIRED.SLOTS", 0x02c2, 1, ALL10, NOFIX },
	[LNC_BAD_SPEC_SLOTS]	= { "TOPDOWN.BAD_SPEC_SLOTS", 0x04a4, 1, GP0, NOFIX },
	[LNC_IDQ_BUBBLES]	= { "IDQ_BUBBLES.CORE", 0x019c, 1, ALL10, NOFIX },
	[LNC_BE_SLOTS]		= { "TOPDOWN.BACKEND_BOUND_SLOTS", 0x02a4, 1, ALL10, NOFIX },
	[LNC_HEAVY]		= { "UOPS_RETIRED.HEAVY", 0x01c2, 2, ALL10, NOFIX,
				    .ref = LNC_RETIRE_SLOTS },
	[LNC_BR_MISP_SLOTS]	= { "TOPDOWN.BR_MISPREDICT_SLOTS", 0x08a4, 2, GP0, NOFIX,
				    .ref = LNC_BAD_SPEC_SLOTS },
	[LNC_IDQ_CYC0]		= { "IDQ_BUBBLES.CYCLES_0_UOPS_DELIV.CORE", 0x0800019c, 2,
				    ALL10, NOFIX, .ref = LNC_IDQ_BUBBLES },
	[LNC_MEM_SLOTS]		= { "TOPDOWN.MEMORY_BOUND_SLOTS", 0x10a4, 2, GP3, NOFIX,
				    .ref = LNC_BE_SLOTS },
	/* Level 3: the memory nodes, computed by tdnl (lnl/arl-metrics.json) */
	[LNC_CLK]		= { "CPU_CLK_UNHALTED.THREAD", 0x003c, 3, ALL10, 1,
				    .every = true },
	[LNC_STALLS_L1]		= { "MEMORY_STALLS.L1", 0x0146, 3, ALL10, NOFIX,
				    .ref = LNC_CLK, .parent = 1 + TD_BACKEND_BOUND },
	[LNC_STALLS_L2]		= { "MEMORY_STALLS.L2", 0x0246, 3, ALL10, NOFIX,
				    .grp = 1, .ref = LNC_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[LNC_L2_HIT]		= { "MEM_LOAD_RETIRED.L2_HIT", 0x02d1, 3, ALL4, NOFIX,
				    .grp = 1, .ref = LNC_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[LNC_UC]		= { "MEM_LOAD_MISC_RETIRED.UC", 0x04d4, 3, ALL4, NOFIX,
				    .grp = 1, .ref = LNC_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[LNC_STALLS_L3]		= { "MEMORY_STALLS.L3", 0x0446, 3, ALL10, NOFIX,
				    .ref = LNC_CLK, .parent = 1 + TD_BACKEND_BOUND },
	[LNC_STALLS_MEM]	= { "MEMORY_STALLS.MEM", 0x0846, 3, ALL10, NOFIX,
				    .ref = LNC_CLK, .parent = 1 + TD_BACKEND_BOUND },
	[LNC_BOUND_ON_STORES]	= { "EXE_ACTIVITY.BOUND_ON_STORES", 0x020040a6, 3, ALL10,
				    NOFIX, .ref = LNC_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[LNC_ORO_C4]		= { "OFFCORE_REQUESTS_OUTSTANDING.DATA_RD:c4",
				    0x04000820, 3, ALL4, NOFIX, .grp = 2, .ref = LNC_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[LNC_ORO_CYCLES]	= { "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD",
				    0x01000820, 3, ALL4, NOFIX, .grp = 2, .ref = LNC_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
};

static int lnc_compute(const struct td_model *m, const u64 *c, bool smt,
		       struct td_result *r)
{
	u64 slots = c[LNC_SLOTS];

	if (!slots)
		return -ENODATA;
	*r = (struct td_result){ .has_l2 = true };
	/* four measured nodes: rounding apart, they add up to 1 */
	r->l1[TD_RETIRING] = td_frac(c[LNC_RETIRE_SLOTS], slots);
	r->l1[TD_BAD_SPECULATION] = td_frac(c[LNC_BAD_SPEC_SLOTS], slots);
	r->l1[TD_FRONTEND_BOUND] = td_frac(c[LNC_IDQ_BUBBLES], slots);
	r->l1[TD_BACKEND_BOUND] = td_frac(c[LNC_BE_SLOTS], slots);

	r->l2[TD_HEAVY_OPERATIONS] = td_frac(c[LNC_HEAVY], slots);
	r->l2[TD_BRANCH_MISPREDICTS] = td_frac(c[LNC_BR_MISP_SLOTS], slots);
	r->l2[TD_FETCH_LATENCY] = td_frac(m->width * c[LNC_IDQ_CYC0], slots);
	r->l2[TD_MEMORY_BOUND] = td_frac(c[LNC_MEM_SLOTS], slots);
	td_finish(m, r);
	return 0;
}

const struct td_model td_model_lioncove = {
	.name = "lioncove",
	.vendor = TD_INTEL,
	.width = 8,
	.events = lnc_events,
	.nr_events = LNC_NR,
	.gp_counters = 10,
	.fixed_counters = 4,
	.pairs = td_core_pairs,
	.nr_pairs = TD_NR_CORE_PAIRS,
	.compute = lnc_compute,
};

/*
 * Memory Bound on Skylake and Ice Lake (perf's tma_memory_bound):
 * (STALLS_MEM_ANY + BOUND_ON_STORES) / (STALLS_TOTAL + 1_PORTS_UTIL +
 * retiring * 2_PORTS_UTIL + BOUND_ON_STORES) * backend_bound
 */
static u32 td_memory_bound(u64 mem_any, u64 stores, u64 total, u64 ports1,
			   u64 ports2, u32 retiring, u32 backend)
{
	u64 den = total + ports1 + ports2 * retiring / TD_PPM + stores;

	return td_share(mem_any + stores, den, backend);
}

/* Branch Mispredicts = BR_MISP / (BR_MISP + MACHINE_CLEARS) * bad_speculation */
static u32 td_mispredicts(u64 misp, u64 clears, u32 bad_spec)
{
	return td_share(misp, misp + clears, bad_spec);
}

/* ---- Ice Lake / Ice Lake-X / Tiger Lake: width 5 ---- */

enum {
	ICL_SLOTS, ICL_RETIRE_SLOTS, ICL_IDQ_NOT_DELIV, ICL_UOP_DROPPING,
	ICL_BE_SLOTS, ICL_CLEARS_COUNT,
	ICL_IDQ_CYC0, ICL_BR_MISP, ICL_MACHINE_CLEARS, ICL_STALLS_MEM_ANY,
	ICL_BOUND_ON_STORES, ICL_STALLS_TOTAL, ICL_PORTS_1, ICL_PORTS_2,
	ICL_UOPS_ISSUED, ICL_MS_UOPS, ICL_DEC0, ICL_DEC0_C1, ICL_MITE_UOPS,
	ICL_CLK, ICL_STALLS_L1D_MISS, ICL_STALLS_L2_MISS, ICL_STALLS_L3_MISS,
	ICL_L2_HIT, ICL_FB_HIT, ICL_L1_MISS, ICL_FB_FULL_PERIODS, ICL_ORO_C4,
	ICL_ORO_CYCLES,
	ICL_NR
};

static const struct td_event icl_events[ICL_NR] = {
	[ICL_SLOTS]		= { "TOPDOWN.SLOTS", 0x0400, 1, 0, 3, .every = true,
				    .slots = true, .gp_form = &slots_p },
	[ICL_RETIRE_SLOTS]	= { "UOPS_RETIRED.SLOTS", 0x02c2, 1, ALL8, NOFIX },
	[ICL_IDQ_NOT_DELIV]	= { "IDQ_UOPS_NOT_DELIVERED.CORE", 0x019c, 1, ALL8, NOFIX },
	[ICL_UOP_DROPPING]	= { "INT_MISC.UOP_DROPPING", 0x100d, 1, ALL8, NOFIX },
	[ICL_BE_SLOTS]		= { "TOPDOWN.BACKEND_BOUND_SLOTS", 0x02a4, 1, ALL8, NOFIX },
	[ICL_CLEARS_COUNT]	= { "INT_MISC.CLEARS_COUNT", 0x0104010d, 1, ALL8, NOFIX },
	[ICL_IDQ_CYC0]		= { "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE",
				    0x0500019c, 2, ALL8, NOFIX,
				    .parent = 1 + TD_FRONTEND_BOUND },
	[ICL_BR_MISP]		= { "BR_MISP_RETIRED.ALL_BRANCHES", 0x00c5, 2, ALL8, NOFIX,
				    .grp = 1,
				    .parent = 1 + TD_BAD_SPECULATION },
	[ICL_MACHINE_CLEARS]	= { "MACHINE_CLEARS.COUNT", 0x010401c3, 2, ALL8, NOFIX,
				    .grp = 1,
				    .parent = 1 + TD_BAD_SPECULATION },
	[ICL_STALLS_MEM_ANY]	= { "CYCLE_ACTIVITY.STALLS_MEM_ANY", 0x140014a3, 2, ALL8,
				    NOFIX, .grp = 2,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ICL_BOUND_ON_STORES]	= { "EXE_ACTIVITY.BOUND_ON_STORES", 0x020040a6, 2, ALL8,
				    NOFIX, .grp = 2,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ICL_STALLS_TOTAL]	= { "CYCLE_ACTIVITY.STALLS_TOTAL", 0x040004a3, 2, ALL8, NOFIX,
				    .grp = 2,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ICL_PORTS_1]		= { "EXE_ACTIVITY.1_PORTS_UTIL", 0x02a6, 2, ALL8, NOFIX,
				    .grp = 2,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ICL_PORTS_2]		= { "EXE_ACTIVITY.2_PORTS_UTIL", 0x04a6, 2, ALL8, NOFIX,
				    .grp = 2,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ICL_UOPS_ISSUED]	= { "UOPS_ISSUED.ANY", 0x010e, 2, ALL8, NOFIX, .grp = 3,
				    .ref = ICL_RETIRE_SLOTS },
	[ICL_MS_UOPS]		= { "IDQ.MS_UOPS", 0x3079, 2, ALL4, NOFIX, .grp = 3,
				    .ref = ICL_RETIRE_SLOTS },
	[ICL_DEC0]		= { "UOPS_DECODED.DEC0", 0x0156, 2, ALL4, NOFIX, .grp = 4,
				    .ref = ICL_RETIRE_SLOTS },
	[ICL_DEC0_C1]		= { "UOPS_DECODED.DEC0:c1", 0x01000156, 2, ALL4, NOFIX,
				    .grp = 4, .ref = ICL_RETIRE_SLOTS },
	[ICL_MITE_UOPS]		= { "IDQ.MITE_UOPS", 0x0479, 2, ALL4, NOFIX, .grp = 4,
				    .ref = ICL_RETIRE_SLOTS },
	/* Level 3: the memory nodes, computed by tdnl (icl-metrics.json) */
	[ICL_CLK]		= { "CPU_CLK_UNHALTED.THREAD", 0x003c, 3, ALL8, 1,
				    .every = true },
	[ICL_STALLS_L1D_MISS]	= { "CYCLE_ACTIVITY.STALLS_L1D_MISS", 0x0c000ca3, 3, ALL4,
				    NOFIX, .grp = 5, .ref = ICL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ICL_STALLS_L2_MISS]	= { "CYCLE_ACTIVITY.STALLS_L2_MISS", 0x050005a3, 3, ALL4,
				    NOFIX, .grp = 5, .ref = ICL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ICL_STALLS_L3_MISS]	= { "CYCLE_ACTIVITY.STALLS_L3_MISS", 0x060006a3, 3, ALL4,
				    NOFIX, .grp = 5, .ref = ICL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ICL_L2_HIT]		= { "MEM_LOAD_RETIRED.L2_HIT", 0x02d1, 3, ALL4, NOFIX,
				    .grp = 6, .ref = ICL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ICL_FB_HIT]		= { "MEM_LOAD_RETIRED.FB_HIT", 0x40d1, 3, ALL4, NOFIX,
				    .grp = 6, .ref = ICL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ICL_L1_MISS]		= { "MEM_LOAD_RETIRED.L1_MISS", 0x08d1, 3, ALL4, NOFIX,
				    .grp = 6, .ref = ICL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ICL_FB_FULL_PERIODS]	= { "L1D_PEND_MISS.FB_FULL_PERIODS", 0x01040248, 3, ALL4,
				    NOFIX, .ref = ICL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ICL_ORO_C4]		= { "OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4",
				    0x04000860, 3, ALL4, NOFIX, .grp = 7, .ref = ICL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ICL_ORO_CYCLES]	= { "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD",
				    0x01000860, 3, ALL4, NOFIX, .grp = 7, .ref = ICL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
};

static int icl_compute(const struct td_model *m, const u64 *c, bool smt,
		       struct td_result *r)
{
	u64 slots = c[ICL_SLOTS];
	u32 used, ret, ms, few;

	if (!slots)
		return -ENODATA;
	*r = (struct td_result){ .has_l2 = true };
	ret = td_frac(c[ICL_RETIRE_SLOTS], slots);
	r->l1[TD_RETIRING] = ret;
	r->l1[TD_FRONTEND_BOUND] = td_frac_diff(c[ICL_IDQ_NOT_DELIV],
						c[ICL_UOP_DROPPING], slots);
	/* backend = (BACKEND_BOUND_SLOTS + 5 * CLEARS_COUNT) / slots */
	r->l1[TD_BACKEND_BOUND] = td_frac(c[ICL_BE_SLOTS] +
					  m->width * c[ICL_CLEARS_COUNT], slots);
	used = ret + r->l1[TD_FRONTEND_BOUND] + r->l1[TD_BACKEND_BOUND];
	r->l1[TD_BAD_SPECULATION] = used < TD_PPM ? TD_PPM - used : 0;

	r->l2[TD_FETCH_LATENCY] = td_frac_diff(m->width * c[ICL_IDQ_CYC0],
					       c[ICL_UOP_DROPPING], slots);
	r->l2[TD_BRANCH_MISPREDICTS] =
		td_mispredicts(c[ICL_BR_MISP], c[ICL_MACHINE_CLEARS],
			       r->l1[TD_BAD_SPECULATION]);
	r->l2[TD_MEMORY_BOUND] =
		td_memory_bound(c[ICL_STALLS_MEM_ANY], c[ICL_BOUND_ON_STORES],
				c[ICL_STALLS_TOTAL], c[ICL_PORTS_1],
				c[ICL_PORTS_2], ret, r->l1[TD_BACKEND_BOUND]);
	/*
	 * heavy = MS_UOPS * UOPS_RETIRED.SLOTS / UOPS_ISSUED.ANY / slots
	 *	 + retiring * (DEC0 - DEC0:c1) / MITE_UOPS
	 */
	ms = c[ICL_UOPS_ISSUED] ?
	     td_frac(mul_u64_u64_div_u64(c[ICL_MS_UOPS], c[ICL_RETIRE_SLOTS],
					 c[ICL_UOPS_ISSUED]), slots) : 0;
	few = td_of(td_frac_diff(c[ICL_DEC0], c[ICL_DEC0_C1],
				 c[ICL_MITE_UOPS]), ret);
	r->l2[TD_HEAVY_OPERATIONS] = ms + few;
	td_finish(m, r);
	return 0;
}

const struct td_model td_model_icl = {
	.name = "icl",
	.vendor = TD_INTEL,
	.width = 5,
	.events = icl_events,
	.nr_events = ICL_NR,
	.gp_counters = 8,
	.fixed_counters = 4,
	.pairs = td_core_pairs,
	.nr_pairs = TD_NR_CORE_PAIRS,
	.compute = icl_compute,
};

/* ---- Skylake / Skylake-X / Cascade Lake: width 4 ---- */

enum {
	SKL_CLK, SKL_CLK_ANY, SKL_RETIRE_SLOTS, SKL_IDQ_NOT_DELIV,
	SKL_UOPS_ISSUED, SKL_RECOVERY, SKL_RECOVERY_ANY,
	SKL_INST, SKL_MACRO_FUSED, SKL_IDQ_CYC0, SKL_BR_MISP,
	SKL_MACHINE_CLEARS, SKL_STALLS_MEM_ANY, SKL_BOUND_ON_STORES,
	SKL_STALLS_TOTAL, SKL_PORTS_1, SKL_PORTS_2,
	SKL_STALLS_L1D_MISS, SKL_STALLS_L2_MISS, SKL_STALLS_L3_MISS,
	SKL_L2_HIT, SKL_FB_HIT, SKL_L1_MISS, SKL_FB_FULL, SKL_ORO_C4,
	SKL_ORO_CYCLES,
	SKL_NR
};

static const struct td_event skl_events[SKL_NR] = {
	[SKL_CLK]		= { "CPU_CLK_UNHALTED.THREAD", 0x003c, 1, ALL4, 1,
				    .every = true },
	[SKL_CLK_ANY]		= { "CPU_CLK_UNHALTED.THREAD_ANY", 0x0020003c, 1, ALL4, 1,
				    .every = true },
	[SKL_RETIRE_SLOTS]	= { "UOPS_RETIRED.RETIRE_SLOTS", 0x02c2, 1, ALL4, NOFIX },
	[SKL_IDQ_NOT_DELIV]	= { "IDQ_UOPS_NOT_DELIVERED.CORE", 0x019c, 1, ALL4, NOFIX },
	[SKL_UOPS_ISSUED]	= { "UOPS_ISSUED.ANY", 0x010e, 1, ALL4, NOFIX },
	[SKL_RECOVERY]		= { "INT_MISC.RECOVERY_CYCLES", 0x010d, 1, ALL4, NOFIX,
				    .ref = SKL_UOPS_ISSUED },
	[SKL_RECOVERY_ANY]	= { "INT_MISC.RECOVERY_CYCLES_ANY", 0x0020010d, 1, ALL4,
				    NOFIX, .ref = SKL_UOPS_ISSUED },
	[SKL_INST]		= { "INST_RETIRED.ANY", 0x00c0, 2, ALL4, 0, .grp = 1,
				    .ref = SKL_RETIRE_SLOTS },
	[SKL_MACRO_FUSED]	= { "UOPS_RETIRED.MACRO_FUSED", 0x04c2, 2, ALL4, NOFIX,
				    .grp = 1, .ref = SKL_RETIRE_SLOTS },
	[SKL_IDQ_CYC0]		= { "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE",
				    0x0400019c, 2, ALL4, NOFIX, .ref = SKL_IDQ_NOT_DELIV },
	[SKL_BR_MISP]		= { "BR_MISP_RETIRED.ALL_BRANCHES", 0x00c5, 2, ALL4, NOFIX,
				    .grp = 2,
				    .parent = 1 + TD_BAD_SPECULATION },
	[SKL_MACHINE_CLEARS]	= { "MACHINE_CLEARS.COUNT", 0x010401c3, 2, ALL4, NOFIX,
				    .grp = 2,
				    .parent = 1 + TD_BAD_SPECULATION },
	[SKL_STALLS_MEM_ANY]	= { "CYCLE_ACTIVITY.STALLS_MEM_ANY", 0x140014a3, 2, ALL4,
				    NOFIX, .grp = 3,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SKL_BOUND_ON_STORES]	= { "EXE_ACTIVITY.BOUND_ON_STORES", 0x40a6, 2, ALL4, NOFIX,
				    .grp = 3,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SKL_STALLS_TOTAL]	= { "CYCLE_ACTIVITY.STALLS_TOTAL", 0x040004a3, 2, ALL4,
				    NOFIX, .grp = 3,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SKL_PORTS_1]		= { "EXE_ACTIVITY.1_PORTS_UTIL", 0x02a6, 2, ALL4, NOFIX,
				    .grp = 3,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SKL_PORTS_2]		= { "EXE_ACTIVITY.2_PORTS_UTIL", 0x04a6, 2, ALL4, NOFIX,
				    .grp = 3,
				    .parent = 1 + TD_BACKEND_BOUND },
	/*
	 * Level 3: the memory nodes, computed by tdnl (skl-metrics.json);
	 * their clocks are CPU_CLK_UNHALTED.THREAD, opened at Level 3
	 * whatever the SMT setting.
	 */
	[SKL_STALLS_L1D_MISS]	= { "CYCLE_ACTIVITY.STALLS_L1D_MISS", 0x0c000ca3, 3, ALL4,
				    NOFIX, .grp = 4, .ref = SKL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SKL_STALLS_L2_MISS]	= { "CYCLE_ACTIVITY.STALLS_L2_MISS", 0x050005a3, 3, ALL4,
				    NOFIX, .grp = 4, .ref = SKL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SKL_STALLS_L3_MISS]	= { "CYCLE_ACTIVITY.STALLS_L3_MISS", 0x060006a3, 3, ALL4,
				    NOFIX, .grp = 4, .ref = SKL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SKL_L2_HIT]		= { "MEM_LOAD_RETIRED.L2_HIT", 0x02d1, 3, ALL4, NOFIX,
				    .grp = 5, .ref = SKL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SKL_FB_HIT]		= { "MEM_LOAD_RETIRED.FB_HIT", 0x40d1, 3, ALL4, NOFIX,
				    .grp = 5, .ref = SKL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SKL_L1_MISS]		= { "MEM_LOAD_RETIRED.L1_MISS", 0x08d1, 3, ALL4, NOFIX,
				    .grp = 5, .ref = SKL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SKL_FB_FULL]		= { "L1D_PEND_MISS.FB_FULL:c1", 0x01000248, 3, ALL4, NOFIX,
				    .ref = SKL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SKL_ORO_C4]		= { "OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4",
				    0x04000860, 3, ALL4, NOFIX, .grp = 6, .ref = SKL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
	[SKL_ORO_CYCLES]	= { "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD",
				    0x01000860, 3, ALL4, NOFIX, .grp = 6, .ref = SKL_CLK,
				    .parent = 1 + TD_BACKEND_BOUND },
};

/*
 * perf's skl-metrics.json, core wide: slots = 4 * CORE_CLKS, CORE_CLKS =
 * THREAD_ANY / 2 with SMT on, else THREAD; recovery cycles likewise.
 */
static int skl_compute(const struct td_model *m, const u64 *c, bool smt,
		       struct td_result *r)
{
	u64 slots = smt ? m->width * c[SKL_CLK_ANY] / 2 : m->width * c[SKL_CLK];
	u64 rec = smt ? c[SKL_RECOVERY_ANY] / 2 : c[SKL_RECOVERY];
	u64 issued = c[SKL_UOPS_ISSUED];
	u32 ret, used;

	if (!slots)
		return -ENODATA;
	*r = (struct td_result){ .has_l2 = true };
	ret = td_frac(c[SKL_RETIRE_SLOTS], slots);
	r->l1[TD_RETIRING] = ret;
	r->l1[TD_FRONTEND_BOUND] = td_frac(c[SKL_IDQ_NOT_DELIV], slots);
	/* bad spec = (ISSUED - RETIRE_SLOTS + 4 * recovery) / slots */
	r->l1[TD_BAD_SPECULATION] = td_frac_diff(issued + m->width * rec,
						 c[SKL_RETIRE_SLOTS], slots);
	/* backend = 1 - frontend - (ISSUED + 4 * recovery) / slots */
	used = r->l1[TD_FRONTEND_BOUND] + td_frac(issued + m->width * rec, slots);
	r->l1[TD_BACKEND_BOUND] = used < TD_PPM ? TD_PPM - used : 0;

	/* heavy = (RETIRE_SLOTS + MACRO_FUSED - INST_RETIRED.ANY) / slots */
	r->l2[TD_HEAVY_OPERATIONS] = td_frac_diff(c[SKL_RETIRE_SLOTS] +
						  c[SKL_MACRO_FUSED],
						  c[SKL_INST], slots);
	r->l2[TD_FETCH_LATENCY] = td_frac(m->width * c[SKL_IDQ_CYC0], slots);
	/* children of the fitted Level 1: computed after td_fit in td_finish */
	td_fit(r->l1, TD_NR_L1, TD_PPM);
	r->l2[TD_BRANCH_MISPREDICTS] =
		td_mispredicts(c[SKL_BR_MISP], c[SKL_MACHINE_CLEARS],
			       r->l1[TD_BAD_SPECULATION]);
	r->l2[TD_MEMORY_BOUND] =
		td_memory_bound(c[SKL_STALLS_MEM_ANY], c[SKL_BOUND_ON_STORES],
				c[SKL_STALLS_TOTAL], c[SKL_PORTS_1],
				c[SKL_PORTS_2], ret, r->l1[TD_BACKEND_BOUND]);
	td_finish(m, r);
	return 0;
}

const struct td_model td_model_skl = {
	.name = "skl",
	.vendor = TD_INTEL,
	.width = 4,
	.events = skl_events,
	.nr_events = SKL_NR,
	.gp_counters = 4,	/* per thread (Skylake: with SMT; 8 without) */
	.fixed_counters = 3,
	/* so Level 1 fits the 4 counters of a thread: AnyThread only with SMT */
	.smt_only = (1U << SKL_CLK_ANY) | (1U << SKL_RECOVERY_ANY),
	.nosmt_only = (1U << SKL_CLK) | (1U << SKL_RECOVERY),
	.pairs = td_core_pairs,
	.nr_pairs = TD_NR_CORE_PAIRS,
	.compute = skl_compute,
};
