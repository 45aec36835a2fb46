// SPDX-License-Identifier: GPL-2.0
/*
 * tdsim models of Intel cores: Skylake (width 4), Ice Lake (5), Sapphire
 * Rapids and Granite Rapids (6), Lion Cove (8); the Atom cores below.
 *
 * Each table lists the raw events perf's JSON (tools/perf/pmu-events/arch/x86)
 * uses for TMA Levels 1 to 4 with their counter constraints; each rates()
 * sets the count per cycle of every event so that perf's formulas applied to
 * the counts give the profile back.  The formula each rate serves is noted
 * beside it.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include "tdsim.h"

#define ALL4	0x000f		/* JSON "Counter": "0,1,2,3" */
#define ALL8	0x00ff		/* "0,1,2,3,4,5,6,7" */
#define GP0	0x0001		/* "0" */
#define NOFIX	-1

#define P(key)	(p->v[TDSIM_##key])
#define ONE	TDSIM_PPM

/* Loads per cycle behind the Skylake/Ice Lake L2 Bound ratio (any values do). */
#define L1_MISS_RATE	20000U
#define FB_HIT_RATE	4000U	/* LOAD_L2_HIT a multiple of FB_SHARE */
#define L2_HIT_RATE	10000U
/* 1 / FB_SHARE of the L2 Bound ratio's cycles go to DRAM Bound (FB full) */
#define FB_SHARE	8U
/* EXE_ACTIVITY.2_PORTS_UTIL per cycle */
#define PORTS_2		(ONE / 50)
/*
 * Branch events per slot of Bad Speculation: BR_MISP + MACHINE_CLEARS is
 * proportional to bad speculation, so that the split of a mix of profiles
 * is the mix of their splits (with a constant number of events per cycle
 * a profile with little bad speculation would weigh as much as one with
 * much, and phased truth would not be perf's formula of the counts).
 */
#define BRANCH_PER_SLOT	8U

/*
 * Bad speculation split, as tma_branch_mispredicts =
 * BR_MISP / (BR_MISP + MACHINE_CLEARS) * tma_bad_speculation.
 */
static void intel_branch_split(const struct tdsim_model *m,
			       const struct tdsim_profile *p, u32 *misp,
			       u32 *clears)
{
	u32 s = m->width * ONE;
	u32 bm = min(P(BRANCH_MISPREDICTS), P(BAD_SPECULATION));

	/* no bad speculation, no branch events: perf's split is 0 / 0 then */
	*misp = tdsim_scale(bm, s) / BRANCH_PER_SLOT;
	*clears = tdsim_scale(P(BAD_SPECULATION) - bm, s) / BRANCH_PER_SLOT;
}

struct intel_mem {
	u32 stalls_mem_any, stalls_total, ports_1, ports_2, stores;
	u32 stalls_l1d_miss, stalls_l2_miss, stalls_l3_miss;
	u32 l2_hit, fb_hit, l1_miss, fb_full;
	u32 oro_c4, oro_cycles, oro_all;
};

/*
 * Skylake / Ice Lake memory events.  tma_memory_bound =
 * (STALLS_MEM_ANY + BOUND_ON_STORES) / (STALLS_TOTAL + 1_PORTS_UTIL +
 * retiring * 2_PORTS_UTIL + BOUND_ON_STORES) * backend_bound, so the
 * denominator D is chosen as M * backend_bound / memory_bound.  M is fixed
 * by the Level 3 nodes (their sum), so perf's memory_bound of a mix of
 * profiles is the mix of theirs only where memory_bound / M is the same in
 * each: a property of the profiles, as it is of real phases.  The L2 Bound
 * ratio is split by the fill-buffer-full share so that tma_l2_bound and
 * tma_dram_bound each come out exact.
 */
static void intel_mem_from_stalls(const struct tdsim_profile *p,
				  struct intel_mem *m)
{
	u32 load = P(L1_BOUND) + P(L2_BOUND) + P(L3_BOUND) + P(DRAM_BOUND);
	u32 extra = min(P(L2_BOUND) / FB_SHARE, P(DRAM_BOUND));
	u64 all = (u64)load + P(STORE_BOUND);
	u64 d, slack, lh;

	if (P(MEMORY_BOUND))
		d = div64_u64(all * P(BACKEND_BOUND), P(MEMORY_BOUND));
	else
		d = all + ONE / 10;	/* numerator is 0: any denominator */
	slack = d - all;

	m->stalls_mem_any = load;
	m->stores = P(STORE_BOUND);
	m->stalls_total = min_t(u64, load + slack / 2, U32_MAX);
	/*
	 * retiring * 2_PORTS_UTIL is linear in a mix of profiles only when
	 * 2_PORTS_UTIL is the same per cycle in all of them: PORTS_2 per
	 * cycle, where the slack allows it (it does unless memory_bound is
	 * nearly all of backend_bound).
	 */
	m->ports_2 = 0;
	if ((u64)P(RETIRING) * PORTS_2 <= slack / 2 * ONE)
		m->ports_2 = PORTS_2;
	m->ports_1 = min_t(u64, slack - slack / 2 -
			   (u64)P(RETIRING) * m->ports_2 / ONE, U32_MAX);

	m->stalls_l3_miss = P(DRAM_BOUND) - extra;
	m->stalls_l2_miss = P(L3_BOUND) + m->stalls_l3_miss;
	m->stalls_l1d_miss = P(L2_BOUND) + extra + m->stalls_l2_miss;

	m->l1_miss = L1_MISS_RATE;
	m->fb_hit = FB_HIT_RATE;
	m->l2_hit = L2_HIT_RATE;
	/* LOAD_L2_HIT = L2_HIT * (1 + FB_HIT / L1_MISS) */
	lh = (u64)L2_HIT_RATE * (L1_MISS_RATE + FB_HIT_RATE) / L1_MISS_RATE;
	/*
	 * FB_FULL per cycle is the same in every profile, so that the L2 Bound
	 * split is the same share in a mix of them; unless DRAM Bound is too
	 * small to give L2 Bound its share.
	 */
	if (extra == P(L2_BOUND) / FB_SHARE)
		m->fb_full = lh / FB_SHARE;
	else
		m->fb_full = div64_u64(lh * extra, P(L2_BOUND));

	/* tma_mem_bandwidth, tma_mem_latency: cycles with >= 4 / >= 1 reads */
	m->oro_c4 = P(MEM_BANDWIDTH);
	m->oro_cycles = P(MEM_BANDWIDTH) + P(MEM_LATENCY);
	m->oro_all = 4 * m->oro_c4 + 2 * P(MEM_LATENCY);
}

/* ---- Skylake / Skylake-X / Cascade Lake: width 4, 4 GP counters with HT ---- */

enum {
	SKL_INST, SKL_CLK, SKL_CLK_ANY, SKL_REF_TSC, SKL_REF_XCLK, SKL_ONE_THREAD,
	SKL_UOPS_ISSUED, SKL_RETIRE_SLOTS, SKL_MACRO_FUSED,
	SKL_IDQ_NOT_DELIV, SKL_IDQ_CYC0, SKL_RECOVERY, SKL_RECOVERY_ANY,
	SKL_BR_MISP, SKL_MACHINE_CLEARS,
	SKL_STALLS_TOTAL, SKL_STALLS_MEM_ANY, SKL_PORTS_1, SKL_PORTS_2,
	SKL_BOUND_ON_STORES,
	SKL_STALLS_L1D_MISS, SKL_STALLS_L2_MISS, SKL_STALLS_L3_MISS,
	SKL_L2_HIT, SKL_FB_HIT, SKL_L1_MISS, SKL_FB_FULL,
	SKL_ORO_ALL, SKL_ORO_C4, SKL_ORO_CYCLES,
	SKL_NR
};

static const struct tdsim_event skl_events[SKL_NR] = {
	[SKL_INST]		= { 0x00c0, "INST_RETIRED.ANY", ALL4, 0 },
	[SKL_CLK]		= { 0x003c, "CPU_CLK_UNHALTED.THREAD", ALL4, 1 },
	[SKL_CLK_ANY]		= { 0x0020003c, "CPU_CLK_UNHALTED.THREAD_ANY", ALL4, 1 },
	[SKL_REF_TSC]		= { 0x0300, "CPU_CLK_UNHALTED.REF_TSC", 0, 2 },
	[SKL_REF_XCLK]		= { 0x013c, "CPU_CLK_UNHALTED.REF_XCLK", ALL4, NOFIX },
	[SKL_ONE_THREAD]	= { 0x023c, "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", ALL4, NOFIX },
	[SKL_UOPS_ISSUED]	= { 0x010e, "UOPS_ISSUED.ANY", ALL4, NOFIX },
	[SKL_RETIRE_SLOTS]	= { 0x02c2, "UOPS_RETIRED.RETIRE_SLOTS", ALL4, NOFIX },
	[SKL_MACRO_FUSED]	= { 0x04c2, "UOPS_RETIRED.MACRO_FUSED", ALL4, NOFIX },
	[SKL_IDQ_NOT_DELIV]	= { 0x019c, "IDQ_UOPS_NOT_DELIVERED.CORE", ALL4, NOFIX },
	[SKL_IDQ_CYC0] = { 0x0400019c,
		"IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", ALL4, NOFIX },
	[SKL_RECOVERY]		= { 0x010d, "INT_MISC.RECOVERY_CYCLES", ALL4, NOFIX },
	[SKL_RECOVERY_ANY]	= { 0x0020010d, "INT_MISC.RECOVERY_CYCLES_ANY", ALL4, NOFIX },
	[SKL_BR_MISP]		= { 0x00c5, "BR_MISP_RETIRED.ALL_BRANCHES", ALL4, NOFIX },
	[SKL_MACHINE_CLEARS]	= { 0x010401c3, "MACHINE_CLEARS.COUNT", ALL4, NOFIX },
	[SKL_STALLS_TOTAL]	= { 0x040004a3, "CYCLE_ACTIVITY.STALLS_TOTAL", ALL4, NOFIX },
	[SKL_STALLS_MEM_ANY]	= { 0x140014a3, "CYCLE_ACTIVITY.STALLS_MEM_ANY", ALL4, NOFIX },
	[SKL_PORTS_1]		= { 0x02a6, "EXE_ACTIVITY.1_PORTS_UTIL", ALL4, NOFIX },
	[SKL_PORTS_2]		= { 0x04a6, "EXE_ACTIVITY.2_PORTS_UTIL", ALL4, NOFIX },
	[SKL_BOUND_ON_STORES]	= { 0x40a6, "EXE_ACTIVITY.BOUND_ON_STORES", ALL4, NOFIX },
	[SKL_STALLS_L1D_MISS]	= { 0x0c000ca3, "CYCLE_ACTIVITY.STALLS_L1D_MISS", ALL4, NOFIX },
	[SKL_STALLS_L2_MISS]	= { 0x050005a3, "CYCLE_ACTIVITY.STALLS_L2_MISS", ALL4, NOFIX },
	[SKL_STALLS_L3_MISS]	= { 0x060006a3, "CYCLE_ACTIVITY.STALLS_L3_MISS", ALL4, NOFIX },
	[SKL_L2_HIT]		= { 0x02d1, "MEM_LOAD_RETIRED.L2_HIT", ALL4, NOFIX },
	[SKL_FB_HIT]		= { 0x40d1, "MEM_LOAD_RETIRED.FB_HIT", ALL4, NOFIX },
	[SKL_L1_MISS]		= { 0x08d1, "MEM_LOAD_RETIRED.L1_MISS", ALL4, NOFIX },
	[SKL_FB_FULL]		= { 0x01000248, "L1D_PEND_MISS.FB_FULL:c1", ALL4, NOFIX },
	[SKL_ORO_ALL] = { 0x0860,
		"OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD", ALL4, NOFIX },
	[SKL_ORO_C4] = { 0x04000860,
		"OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4", ALL4, NOFIX },
	[SKL_ORO_CYCLES] = { 0x01000860,
		"OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD", ALL4, NOFIX },
};

/*
 * perf (skl-metrics.json), core-wide: SLOTS = 4 * CORE_CLKS with CORE_CLKS =
 * THREAD_ANY / 2 when SMT is on, else THREAD; recovery cycles likewise.
 *
 * tdsim's SMT: a thread owns width slots per cycle of its own, and an
 * AnyThread event counts the sum of the core's threads' counts: both
 * threads' while the sibling is online, the thread's own once it is
 * offline.  Both threads run the same profile, so THREAD_ANY / 2 is the
 * thread's clock with the sibling online and half of it without (where
 * the AnyThread formulas, kept by mistake, would halve the slots).  This
 * makes the AnyThread and the per-thread formulas agree while both threads
 * are online; Intel documents THREAD_ANY as the cycles in which either
 * thread is unhalted, where a busy sibling takes half of a thread's slots
 * and only the AnyThread (or ONE_THREAD_ACTIVE) forms see it.
 */
static void skl_rates(const struct tdsim_model *m, const struct tdsim_profile *p,
		      unsigned int siblings, u32 *r)
{
	u32 s = m->width * ONE;			/* slots per cycle, ppm */
	u32 ret = tdsim_scale(P(RETIRING), s);
	u32 bs = tdsim_scale(P(BAD_SPECULATION), s);
	u32 rec = bs / 8;			/* 4 * recovery = half of bad spec */
	struct intel_mem mem;

	intel_mem_from_stalls(p, &mem);

	r[SKL_CLK] = ONE;
	r[SKL_CLK_ANY] = ONE * siblings;
	r[SKL_REF_TSC] = ONE;
	r[SKL_REF_XCLK] = 100 * ONE / P(FREQ_MHZ);	/* 100 MHz crystal */
	r[SKL_ONE_THREAD] = siblings > 1 ? 0 : r[SKL_REF_XCLK];
	/* retiring = RETIRE_SLOTS / SLOTS */
	r[SKL_RETIRE_SLOTS] = ret;
	/* bad_spec = (ISSUED - RETIRE_SLOTS + 4 * RECOVERY) / SLOTS */
	r[SKL_RECOVERY] = rec;
	r[SKL_RECOVERY_ANY] = rec * siblings;
	r[SKL_UOPS_ISSUED] = ret + bs - 4 * rec;
	/* frontend = IDQ_UOPS_NOT_DELIVERED.CORE / SLOTS; fetch_lat = 4 * CYC0 / SLOTS */
	r[SKL_IDQ_NOT_DELIV] = tdsim_scale(P(FRONTEND_BOUND), s);
	r[SKL_IDQ_CYC0] = tdsim_scale(P(FETCH_LATENCY), s) / 4;
	/* heavy = (RETIRE_SLOTS + MACRO_FUSED - INST_RETIRED.ANY) / SLOTS */
	r[SKL_MACRO_FUSED] = ret / 10;
	r[SKL_INST] = ret + r[SKL_MACRO_FUSED] - tdsim_scale(P(HEAVY_OPERATIONS), s);
	intel_branch_split(m, p, &r[SKL_BR_MISP], &r[SKL_MACHINE_CLEARS]);

	r[SKL_STALLS_TOTAL] = mem.stalls_total;
	r[SKL_STALLS_MEM_ANY] = mem.stalls_mem_any;
	r[SKL_PORTS_1] = mem.ports_1;
	r[SKL_PORTS_2] = mem.ports_2;
	r[SKL_BOUND_ON_STORES] = mem.stores;
	r[SKL_STALLS_L1D_MISS] = mem.stalls_l1d_miss;
	r[SKL_STALLS_L2_MISS] = mem.stalls_l2_miss;
	r[SKL_STALLS_L3_MISS] = mem.stalls_l3_miss;
	r[SKL_L2_HIT] = mem.l2_hit;
	r[SKL_FB_HIT] = mem.fb_hit;
	r[SKL_L1_MISS] = mem.l1_miss;
	r[SKL_FB_FULL] = mem.fb_full;
	r[SKL_ORO_ALL] = mem.oro_all;
	r[SKL_ORO_C4] = mem.oro_c4;
	r[SKL_ORO_CYCLES] = mem.oro_cycles;
}

const struct tdsim_model tdsim_skl = {
	.name = "skl",
	.vendor = TDSIM_INTEL,
	.width = 4,
	.gp_counters = 4,
	.fixed_counters = 3,
	.mem_from_stalls = true,
	.events = skl_events,
	.nr_events = SKL_NR,
	.rates = skl_rates,
};

/* ---- Ice Lake / Ice Lake-X / Tiger Lake: width 5, 8 GP counters ---- */

enum {
	ICL_INST, ICL_CLK, ICL_REF_TSC, ICL_SLOTS, ICL_SLOTS_P,
	ICL_RETIRE_SLOTS, ICL_UOPS_ISSUED, ICL_IDQ_NOT_DELIV, ICL_IDQ_CYC0,
	ICL_UOP_DROPPING, ICL_RECOVERY, ICL_CLEARS_COUNT, ICL_BE_SLOTS,
	ICL_BR_MISP, ICL_MACHINE_CLEARS,
	ICL_MS_UOPS, ICL_MITE_UOPS, ICL_DEC0, ICL_DEC0_C1,
	ICL_STALLS_TOTAL, ICL_STALLS_MEM_ANY, ICL_PORTS_1, ICL_PORTS_2,
	ICL_BOUND_ON_STORES,
	ICL_STALLS_L1D_MISS, ICL_STALLS_L2_MISS, ICL_STALLS_L3_MISS,
	ICL_L2_HIT, ICL_FB_HIT, ICL_L1_MISS, ICL_FB_FULL_PERIODS,
	ICL_ORO_ALL, ICL_ORO_C4, ICL_ORO_CYCLES,
	ICL_NR
};

static const struct tdsim_event icl_events[ICL_NR] = {
	[ICL_INST]		= { 0x00c0, "INST_RETIRED.ANY", ALL8, 0 },
	[ICL_CLK]		= { 0x003c, "CPU_CLK_UNHALTED.THREAD", ALL8, 1 },
	[ICL_REF_TSC]		= { 0x0300, "CPU_CLK_UNHALTED.REF_TSC", 0, 2 },
	[ICL_SLOTS]		= { 0x0400, "TOPDOWN.SLOTS", 0, 3 },
	[ICL_SLOTS_P]		= { 0x01a4, "TOPDOWN.SLOTS_P", ALL8, NOFIX },
	[ICL_RETIRE_SLOTS]	= { 0x02c2, "UOPS_RETIRED.SLOTS", ALL8, NOFIX },
	[ICL_UOPS_ISSUED]	= { 0x010e, "UOPS_ISSUED.ANY", ALL8, NOFIX },
	[ICL_IDQ_NOT_DELIV]	= { 0x019c, "IDQ_UOPS_NOT_DELIVERED.CORE", ALL8, NOFIX },
	[ICL_IDQ_CYC0] = { 0x0500019c,
		"IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", ALL8, NOFIX },
	[ICL_UOP_DROPPING]	= { 0x100d, "INT_MISC.UOP_DROPPING", ALL8, NOFIX },
	[ICL_RECOVERY]		= { 0x010d, "INT_MISC.RECOVERY_CYCLES", ALL8, NOFIX },
	[ICL_CLEARS_COUNT]	= { 0x0104010d, "INT_MISC.CLEARS_COUNT", ALL8, NOFIX },
	[ICL_BE_SLOTS]		= { 0x02a4, "TOPDOWN.BACKEND_BOUND_SLOTS", ALL8, NOFIX },
	[ICL_BR_MISP]		= { 0x00c5, "BR_MISP_RETIRED.ALL_BRANCHES", ALL8, NOFIX },
	[ICL_MACHINE_CLEARS]	= { 0x010401c3, "MACHINE_CLEARS.COUNT", ALL8, NOFIX },
	[ICL_MS_UOPS]		= { 0x3079, "IDQ.MS_UOPS", ALL4, NOFIX },
	[ICL_MITE_UOPS]		= { 0x0479, "IDQ.MITE_UOPS", ALL4, NOFIX },
	[ICL_DEC0]		= { 0x0156, "UOPS_DECODED.DEC0", ALL4, NOFIX },
	[ICL_DEC0_C1]		= { 0x01000156, "UOPS_DECODED.DEC0:c1", ALL4, NOFIX },
	[ICL_STALLS_TOTAL]	= { 0x040004a3, "CYCLE_ACTIVITY.STALLS_TOTAL", ALL8, NOFIX },
	[ICL_STALLS_MEM_ANY]	= { 0x140014a3, "CYCLE_ACTIVITY.STALLS_MEM_ANY", ALL8, NOFIX },
	[ICL_PORTS_1]		= { 0x02a6, "EXE_ACTIVITY.1_PORTS_UTIL", ALL8, NOFIX },
	[ICL_PORTS_2]		= { 0x04a6, "EXE_ACTIVITY.2_PORTS_UTIL", ALL8, NOFIX },
	[ICL_BOUND_ON_STORES]	= { 0x020040a6, "EXE_ACTIVITY.BOUND_ON_STORES", ALL8, NOFIX },
	[ICL_STALLS_L1D_MISS]	= { 0x0c000ca3, "CYCLE_ACTIVITY.STALLS_L1D_MISS", ALL4, NOFIX },
	[ICL_STALLS_L2_MISS]	= { 0x050005a3, "CYCLE_ACTIVITY.STALLS_L2_MISS", ALL4, NOFIX },
	[ICL_STALLS_L3_MISS]	= { 0x060006a3, "CYCLE_ACTIVITY.STALLS_L3_MISS", ALL4, NOFIX },
	[ICL_L2_HIT]		= { 0x02d1, "MEM_LOAD_RETIRED.L2_HIT", ALL4, NOFIX },
	[ICL_FB_HIT]		= { 0x40d1, "MEM_LOAD_RETIRED.FB_HIT", ALL4, NOFIX },
	[ICL_L1_MISS]		= { 0x08d1, "MEM_LOAD_RETIRED.L1_MISS", ALL4, NOFIX },
	[ICL_FB_FULL_PERIODS]	= { 0x01040248, "L1D_PEND_MISS.FB_FULL_PERIODS", ALL4, NOFIX },
	[ICL_ORO_ALL] = { 0x0860,
		"OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD", ALL4, NOFIX },
	[ICL_ORO_C4] = { 0x04000860,
		"OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4", ALL4, NOFIX },
	[ICL_ORO_CYCLES] = { 0x01000860,
		"OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD", ALL4, NOFIX },
};

/*
 * Intel TMA's general-purpose-counter formulas for Ice Lake (the branch taken
 * without PERF_METRICS) and perf's icl-metrics.json for Level 2.
 */
static void icl_rates(const struct tdsim_model *m, const struct tdsim_profile *p,
		      unsigned int siblings, u32 *r)
{
	u32 w = m->width;
	u32 s = w * ONE;
	u32 ret = tdsim_scale(P(RETIRING), s);
	u32 heavy = tdsim_scale(P(HEAVY_OPERATIONS), s);
	u32 be = tdsim_scale(P(BACKEND_BOUND), s);
	u32 drop = tdsim_scale(P(FETCH_LATENCY), s) / 20;
	u32 clears = be / 50;		/* 5 * CLEARS_COUNT = 10 % of backend */
	struct intel_mem mem;
	u32 ms, few;

	intel_mem_from_stalls(p, &mem);

	r[ICL_CLK] = ONE;
	r[ICL_REF_TSC] = ONE;
	r[ICL_SLOTS] = s;
	r[ICL_SLOTS_P] = s;
	/* retiring = UOPS_RETIRED.SLOTS / SLOTS */
	r[ICL_RETIRE_SLOTS] = ret;
	r[ICL_INST] = ret - ret / 10;
	/* frontend = (IDQ_UOPS_NOT_DELIVERED.CORE - UOP_DROPPING) / SLOTS */
	r[ICL_UOP_DROPPING] = drop;
	r[ICL_IDQ_NOT_DELIV] = tdsim_scale(P(FRONTEND_BOUND), s) + drop;
	/* fetch_latency = (5 * CYC0 - UOP_DROPPING) / SLOTS */
	r[ICL_IDQ_CYC0] = (tdsim_scale(P(FETCH_LATENCY), s) + drop) / w;
	/* backend = (BACKEND_BOUND_SLOTS + 5 * CLEARS_COUNT) / SLOTS */
	r[ICL_CLEARS_COUNT] = clears;
	r[ICL_BE_SLOTS] = be - 5 * clears;
	r[ICL_RECOVERY] = tdsim_scale(P(BAD_SPECULATION), ONE) / 2;
	intel_branch_split(m, p, &r[ICL_BR_MISP], &r[ICL_MACHINE_CLEARS]);

	/*
	 * heavy = MS_UOPS * UOPS_RETIRED.SLOTS / UOPS_ISSUED.ANY / SLOTS
	 *	 + retiring * (DEC0 - DEC0:c1) / MITE_UOPS
	 * Half of heavy comes from the microcode sequencer.  UOPS_ISSUED.ANY
	 * and IDQ.MITE_UOPS are proportional to the uops retired, so that both
	 * terms are linear in a mix of profiles.
	 */
	ms = heavy / 2;
	few = heavy - ms;
	r[ICL_UOPS_ISSUED] = 2 * ret;
	r[ICL_MS_UOPS] = 2 * ms;
	r[ICL_MITE_UOPS] = ret;
	r[ICL_DEC0_C1] = ONE / 4;
	r[ICL_DEC0] = r[ICL_DEC0_C1] + few;

	r[ICL_STALLS_TOTAL] = mem.stalls_total;
	r[ICL_STALLS_MEM_ANY] = mem.stalls_mem_any;
	r[ICL_PORTS_1] = mem.ports_1;
	r[ICL_PORTS_2] = mem.ports_2;
	r[ICL_BOUND_ON_STORES] = mem.stores;
	r[ICL_STALLS_L1D_MISS] = mem.stalls_l1d_miss;
	r[ICL_STALLS_L2_MISS] = mem.stalls_l2_miss;
	r[ICL_STALLS_L3_MISS] = mem.stalls_l3_miss;
	r[ICL_L2_HIT] = mem.l2_hit;
	r[ICL_FB_HIT] = mem.fb_hit;
	r[ICL_L1_MISS] = mem.l1_miss;
	r[ICL_FB_FULL_PERIODS] = mem.fb_full;
	r[ICL_ORO_ALL] = mem.oro_all;
	r[ICL_ORO_C4] = mem.oro_c4;
	r[ICL_ORO_CYCLES] = mem.oro_cycles;
}

const struct tdsim_model tdsim_icl = {
	.name = "icl",
	.vendor = TDSIM_INTEL,
	.width = 5,
	.gp_counters = 8,
	.fixed_counters = 4,
	.mem_from_stalls = true,
	.events = icl_events,
	.nr_events = ICL_NR,
	.rates = icl_rates,
};

/* ---- Sapphire / Emerald / Granite Rapids, ADL/RPL P-core: width 6, 8 GP ---- */

enum {
	SPR_INST, SPR_CLK, SPR_REF_TSC, SPR_SLOTS, SPR_SLOTS_P,
	SPR_RETIRE_SLOTS, SPR_HEAVY, SPR_MS, SPR_UOPS_ISSUED,
	SPR_IDQ_BUBBLES, SPR_IDQ_CYC0, SPR_UOP_DROPPING, SPR_RECOVERY,
	SPR_CLEARS_COUNT, SPR_BE_SLOTS, SPR_BAD_SPEC_SLOTS, SPR_BR_MISP_SLOTS,
	SPR_MEM_SLOTS, SPR_BR_MISP, SPR_MACHINE_CLEARS,
	SPR_BOUND_ON_LOADS, SPR_BOUND_ON_STORES,
	SPR_STALLS_L1D_MISS, SPR_STALLS_L2_MISS, SPR_STALLS_L3_MISS,
	SPR_ORO_ALL, SPR_ORO_C4, SPR_ORO_CYCLES,
	SPR_NR
};

static const struct tdsim_event spr_events[SPR_NR] = {
	[SPR_INST]		= { 0x00c0, "INST_RETIRED.ANY", ALL8, 0 },
	[SPR_CLK]		= { 0x003c, "CPU_CLK_UNHALTED.THREAD", ALL8, 1 },
	[SPR_REF_TSC]		= { 0x0300, "CPU_CLK_UNHALTED.REF_TSC", 0, 2 },
	[SPR_SLOTS]		= { 0x0400, "TOPDOWN.SLOTS", 0, 3 },
	[SPR_SLOTS_P]		= { 0x01a4, "TOPDOWN.SLOTS_P", ALL8, NOFIX },
	[SPR_RETIRE_SLOTS]	= { 0x02c2, "UOPS_RETIRED.SLOTS", ALL8, NOFIX },
	[SPR_HEAVY]		= { 0x01c2, "UOPS_RETIRED.HEAVY", ALL8, NOFIX },
	[SPR_MS]		= { 0x04c2, "UOPS_RETIRED.MS", ALL8, NOFIX },
	[SPR_UOPS_ISSUED]	= { 0x01ae, "UOPS_ISSUED.ANY", ALL8, NOFIX },
	[SPR_IDQ_BUBBLES]	= { 0x019c, "IDQ_BUBBLES.CORE", ALL8, NOFIX },
	[SPR_IDQ_CYC0] = { 0x0600019c,
		"IDQ_BUBBLES.CYCLES_0_UOPS_DELIV.CORE", ALL8, NOFIX },
	[SPR_UOP_DROPPING]	= { 0x10ad, "INT_MISC.UOP_DROPPING", ALL8, NOFIX },
	[SPR_RECOVERY]		= { 0x01ad, "INT_MISC.RECOVERY_CYCLES", ALL8, NOFIX },
	[SPR_CLEARS_COUNT]	= { 0x010401ad, "INT_MISC.CLEARS_COUNT", ALL8, NOFIX },
	[SPR_BE_SLOTS]		= { 0x02a4, "TOPDOWN.BACKEND_BOUND_SLOTS", ALL8, NOFIX },
	[SPR_BAD_SPEC_SLOTS]	= { 0x04a4, "TOPDOWN.BAD_SPEC_SLOTS", GP0, NOFIX },
	[SPR_BR_MISP_SLOTS]	= { 0x08a4, "TOPDOWN.BR_MISPREDICT_SLOTS", GP0, NOFIX },
	[SPR_MEM_SLOTS]		= { 0x10a4, "TOPDOWN.MEMORY_BOUND_SLOTS", ALL8, NOFIX },
	[SPR_BR_MISP]		= { 0x00c5, "BR_MISP_RETIRED.ALL_BRANCHES", ALL8, NOFIX },
	[SPR_MACHINE_CLEARS]	= { 0x010401c3, "MACHINE_CLEARS.COUNT", ALL8, NOFIX },
	[SPR_BOUND_ON_LOADS]	= { 0x050021a6, "EXE_ACTIVITY.BOUND_ON_LOADS", ALL8, NOFIX },
	[SPR_BOUND_ON_STORES]	= { 0x020040a6, "EXE_ACTIVITY.BOUND_ON_STORES", ALL8, NOFIX },
	[SPR_STALLS_L1D_MISS]	= { 0x03000347, "MEMORY_ACTIVITY.STALLS_L1D_MISS", ALL4, NOFIX },
	[SPR_STALLS_L2_MISS]	= { 0x05000547, "MEMORY_ACTIVITY.STALLS_L2_MISS", ALL4, NOFIX },
	[SPR_STALLS_L3_MISS]	= { 0x09000947, "MEMORY_ACTIVITY.STALLS_L3_MISS", ALL4, NOFIX },
	[SPR_ORO_ALL] = { 0x0820,
		"OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD", ALL4, NOFIX },
	[SPR_ORO_C4] = { 0x04000820,
		"OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4", ALL4, NOFIX },
	[SPR_ORO_CYCLES] = { 0x01000820,
		"OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD", ALL4, NOFIX },
};

/* Intel TMA's GP-counter formulas for SPR; memory nodes from spr-metrics.json. */
static void spr_rates(const struct tdsim_model *m, const struct tdsim_profile *p,
		      unsigned int siblings, u32 *r)
{
	u32 w = m->width;
	u32 s = w * ONE;
	u32 ret = tdsim_scale(P(RETIRING), s);
	u32 bs = tdsim_scale(P(BAD_SPECULATION), s);
	u32 drop = tdsim_scale(P(FETCH_LATENCY), s) / 20;
	u32 load = P(L1_BOUND) + P(L2_BOUND) + P(L3_BOUND) + P(DRAM_BOUND);

	r[SPR_CLK] = ONE;
	r[SPR_REF_TSC] = ONE;
	r[SPR_SLOTS] = s;
	r[SPR_SLOTS_P] = s;
	r[SPR_RETIRE_SLOTS] = ret;
	r[SPR_INST] = ret - ret / 10;
	r[SPR_HEAVY] = tdsim_scale(P(HEAVY_OPERATIONS), s);
	r[SPR_MS] = r[SPR_HEAVY] / 2;
	r[SPR_UOPS_ISSUED] = ret + bs / 2;
	/* frontend = (IDQ_BUBBLES.CORE - UOP_DROPPING) / SLOTS */
	r[SPR_UOP_DROPPING] = drop;
	r[SPR_IDQ_BUBBLES] = tdsim_scale(P(FRONTEND_BOUND), s) + drop;
	/* fetch_latency = (6 * CYC0 - UOP_DROPPING) / SLOTS */
	r[SPR_IDQ_CYC0] = (tdsim_scale(P(FETCH_LATENCY), s) + drop) / w;
	r[SPR_RECOVERY] = bs / (2 * w);
	r[SPR_CLEARS_COUNT] = r[SPR_RECOVERY] / 20;
	r[SPR_BE_SLOTS] = tdsim_scale(P(BACKEND_BOUND), s);
	r[SPR_BAD_SPEC_SLOTS] = bs;
	r[SPR_BR_MISP_SLOTS] = tdsim_scale(P(BRANCH_MISPREDICTS), s);
	r[SPR_MEM_SLOTS] = tdsim_scale(P(MEMORY_BOUND), s);
	intel_branch_split(m, p, &r[SPR_BR_MISP], &r[SPR_MACHINE_CLEARS]);

	/* l1 = BOUND_ON_LOADS - STALLS_L1D_MISS, l2 = L1D - L2, l3 = L2 - L3 */
	r[SPR_BOUND_ON_LOADS] = load;
	r[SPR_STALLS_L1D_MISS] = load - P(L1_BOUND);
	r[SPR_STALLS_L2_MISS] = P(L3_BOUND) + P(DRAM_BOUND);
	r[SPR_STALLS_L3_MISS] = P(DRAM_BOUND);
	r[SPR_BOUND_ON_STORES] = P(STORE_BOUND);
	r[SPR_ORO_C4] = P(MEM_BANDWIDTH);
	r[SPR_ORO_CYCLES] = P(MEM_BANDWIDTH) + P(MEM_LATENCY);
	r[SPR_ORO_ALL] = 4 * P(MEM_BANDWIDTH) + 2 * P(MEM_LATENCY);
}

const struct tdsim_model tdsim_spr = {
	.name = "spr",
	.vendor = TDSIM_INTEL,
	.width = 6,
	.gp_counters = 8,
	.fixed_counters = 4,
	.events = spr_events,
	.nr_events = SPR_NR,
	.rates = spr_rates,
};

/*
 * Granite Rapids: spr's events, but perf 7.3's gnr-metrics.json names
 * OFFCORE_REQUESTS_OUTSTANDING 0x20/0x08 DATA_RD and takes memory
 * bandwidth at 12 reads outstanding (:c12) where spr takes 4.
 */
static const struct tdsim_event gnr_events[SPR_NR] = {
	[SPR_INST]		= { 0x00c0, "INST_RETIRED.ANY", ALL8, 0 },
	[SPR_CLK]		= { 0x003c, "CPU_CLK_UNHALTED.THREAD", ALL8, 1 },
	[SPR_REF_TSC]		= { 0x0300, "CPU_CLK_UNHALTED.REF_TSC", 0, 2 },
	[SPR_SLOTS]		= { 0x0400, "TOPDOWN.SLOTS", 0, 3 },
	[SPR_SLOTS_P]		= { 0x01a4, "TOPDOWN.SLOTS_P", ALL8, NOFIX },
	[SPR_RETIRE_SLOTS]	= { 0x02c2, "UOPS_RETIRED.SLOTS", ALL8, NOFIX },
	[SPR_HEAVY]		= { 0x01c2, "UOPS_RETIRED.HEAVY", ALL8, NOFIX },
	[SPR_MS]		= { 0x04c2, "UOPS_RETIRED.MS", ALL8, NOFIX },
	[SPR_UOPS_ISSUED]	= { 0x01ae, "UOPS_ISSUED.ANY", ALL8, NOFIX },
	[SPR_IDQ_BUBBLES]	= { 0x019c, "IDQ_BUBBLES.CORE", ALL8, NOFIX },
	[SPR_IDQ_CYC0] = { 0x0600019c,
		"IDQ_BUBBLES.CYCLES_0_UOPS_DELIV.CORE", ALL8, NOFIX },
	[SPR_UOP_DROPPING]	= { 0x10ad, "INT_MISC.UOP_DROPPING", ALL8, NOFIX },
	[SPR_RECOVERY]		= { 0x01ad, "INT_MISC.RECOVERY_CYCLES", ALL8, NOFIX },
	[SPR_CLEARS_COUNT]	= { 0x010401ad, "INT_MISC.CLEARS_COUNT", ALL8, NOFIX },
	[SPR_BE_SLOTS]		= { 0x02a4, "TOPDOWN.BACKEND_BOUND_SLOTS", ALL8, NOFIX },
	[SPR_BAD_SPEC_SLOTS]	= { 0x04a4, "TOPDOWN.BAD_SPEC_SLOTS", GP0, NOFIX },
	[SPR_BR_MISP_SLOTS]	= { 0x08a4, "TOPDOWN.BR_MISPREDICT_SLOTS", GP0, NOFIX },
	[SPR_MEM_SLOTS]		= { 0x10a4, "TOPDOWN.MEMORY_BOUND_SLOTS", ALL8, NOFIX },
	[SPR_BR_MISP]		= { 0x00c5, "BR_MISP_RETIRED.ALL_BRANCHES", ALL8, NOFIX },
	[SPR_MACHINE_CLEARS]	= { 0x010401c3, "MACHINE_CLEARS.COUNT", ALL8, NOFIX },
	[SPR_BOUND_ON_LOADS]	= { 0x050021a6, "EXE_ACTIVITY.BOUND_ON_LOADS", ALL8, NOFIX },
	[SPR_BOUND_ON_STORES]	= { 0x020040a6, "EXE_ACTIVITY.BOUND_ON_STORES", ALL8, NOFIX },
	[SPR_STALLS_L1D_MISS]	= { 0x03000347, "MEMORY_ACTIVITY.STALLS_L1D_MISS", ALL4, NOFIX },
	[SPR_STALLS_L2_MISS]	= { 0x05000547, "MEMORY_ACTIVITY.STALLS_L2_MISS", ALL4, NOFIX },
	[SPR_STALLS_L3_MISS]	= { 0x09000947, "MEMORY_ACTIVITY.STALLS_L3_MISS", ALL4, NOFIX },
	[SPR_ORO_ALL] = { 0x0820,
		"OFFCORE_REQUESTS_OUTSTANDING.DATA_RD", ALL4, NOFIX },
	[SPR_ORO_C4] = { 0x0c000820,
		"OFFCORE_REQUESTS_OUTSTANDING.DATA_RD:c12", ALL4, NOFIX },
	[SPR_ORO_CYCLES] = { 0x01000820,
		"OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD", ALL4, NOFIX },
};

/* spr's, with 12 reads outstanding in each bandwidth-bound cycle */
static void gnr_rates(const struct tdsim_model *m, const struct tdsim_profile *p,
		      unsigned int siblings, u32 *r)
{
	spr_rates(m, p, siblings, r);
	r[SPR_ORO_ALL] = 12 * P(MEM_BANDWIDTH) + 2 * P(MEM_LATENCY);
}

const struct tdsim_model tdsim_gnr = {
	.name = "gnr",
	.vendor = TDSIM_INTEL,
	.width = 6,
	.gp_counters = 8,
	.fixed_counters = 4,
	.events = gnr_events,
	.nr_events = SPR_NR,
	.rates = gnr_rates,
};

/*
 * ---- Lion Cove (Arrow Lake, Lunar Lake P-cores): width 8, 10 GP ----
 * perf 7.3's lnl/arl-metrics.json: each Level 1 node and measured Level 2
 * child its own slots event over TOPDOWN.SLOTS, fetch latency 8 *
 * IDQ_BUBBLES.CYCLES_0_UOPS_DELIV.CORE (cmask 8); Level 3 the
 * MEMORY_STALLS cycles, l2_bound the L2 hits' share of MEMORY_STALLS.L2.
 */
#define ALL10	0x03ff		/* "0,1,2,3,4,5,6,7,8,9" */
#define GP3	0x0008		/* "3" */
/* L2 hits and uncacheable loads per cycle: the share l2_bound takes */
#define LNC_L2_HIT_RATE	16000U
#define LNC_UC_RATE	2000U

enum {
	LNC_INST, LNC_CLK, LNC_REF_TSC, LNC_SLOTS, LNC_SLOTS_P,
	LNC_RETIRE_SLOTS, LNC_HEAVY, LNC_BAD_SPEC_SLOTS, LNC_BR_MISP_SLOTS,
	LNC_IDQ_BUBBLES, LNC_IDQ_CYC0, LNC_BE_SLOTS, LNC_MEM_SLOTS,
	LNC_STALLS_L1, LNC_STALLS_L2, LNC_STALLS_L3, LNC_STALLS_MEM,
	LNC_L2_HIT, LNC_UC, LNC_BOUND_ON_STORES,
	LNC_ORO_ALL, LNC_ORO_C4, LNC_ORO_CYCLES,
	LNC_NR
};

static const struct tdsim_event lnc_events[LNC_NR] = {
	[LNC_INST]		= { 0x00c0, "INST_RETIRED.ANY", ALL10, 0 },
	[LNC_CLK]		= { 0x003c, "CPU_CLK_UNHALTED.THREAD", ALL10, 1 },
	[LNC_REF_TSC]		= { 0x0300, "CPU_CLK_UNHALTED.REF_TSC", 0, 2 },
	[LNC_SLOTS]		= { 0x0400, "TOPDOWN.SLOTS", 0, 3 },
	[LNC_SLOTS_P]		= { 0x01a4, "TOPDOWN.SLOTS_P", ALL10, NOFIX },
	[LNC_RETIRE_SLOTS]	= { 0x02c2, "UOPS_RETIRED.SLOTS", ALL10, NOFIX },
	[LNC_HEAVY]		= { 0x01c2, "UOPS_RETIRED.HEAVY", ALL10, NOFIX },
	[LNC_BAD_SPEC_SLOTS]	= { 0x04a4, "TOPDOWN.BAD_SPEC_SLOTS", GP0, NOFIX },
	[LNC_BR_MISP_SLOTS]	= { 0x08a4, "TOPDOWN.BR_MISPREDICT_SLOTS", GP0, NOFIX },
	[LNC_IDQ_BUBBLES]	= { 0x019c, "IDQ_BUBBLES.CORE", ALL10, NOFIX },
	[LNC_IDQ_CYC0] = { 0x0800019c,
		"IDQ_BUBBLES.CYCLES_0_UOPS_DELIV.CORE", ALL10, NOFIX },
	[LNC_BE_SLOTS]		= { 0x02a4, "TOPDOWN.BACKEND_BOUND_SLOTS", ALL10, NOFIX },
	[LNC_MEM_SLOTS]		= { 0x10a4, "TOPDOWN.MEMORY_BOUND_SLOTS", GP3, NOFIX },
	[LNC_STALLS_L1]		= { 0x0146, "MEMORY_STALLS.L1", ALL10, NOFIX },
	[LNC_STALLS_L2]		= { 0x0246, "MEMORY_STALLS.L2", ALL10, NOFIX },
	[LNC_STALLS_L3]		= { 0x0446, "MEMORY_STALLS.L3", ALL10, NOFIX },
	[LNC_STALLS_MEM]	= { 0x0846, "MEMORY_STALLS.MEM", ALL10, NOFIX },
	[LNC_L2_HIT]		= { 0x02d1, "MEM_LOAD_RETIRED.L2_HIT", ALL4, NOFIX },
	[LNC_UC]		= { 0x04d4, "MEM_LOAD_MISC_RETIRED.UC", ALL4, NOFIX },
	[LNC_BOUND_ON_STORES]	= { 0x020040a6, "EXE_ACTIVITY.BOUND_ON_STORES", ALL10, NOFIX },
	[LNC_ORO_ALL] = { 0x0820,
		"OFFCORE_REQUESTS_OUTSTANDING.DATA_RD", ALL4, NOFIX },
	[LNC_ORO_C4] = { 0x04000820,
		"OFFCORE_REQUESTS_OUTSTANDING.DATA_RD:c4", ALL4, NOFIX },
	[LNC_ORO_CYCLES] = { 0x01000820,
		"OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD", ALL4, NOFIX },
};

static void lnc_rates(const struct tdsim_model *m, const struct tdsim_profile *p,
		      unsigned int siblings, u32 *r)
{
	u32 w = m->width;
	u32 s = w * ONE;

	r[LNC_CLK] = ONE;
	r[LNC_REF_TSC] = ONE;
	r[LNC_SLOTS] = s;
	r[LNC_SLOTS_P] = s;
	r[LNC_RETIRE_SLOTS] = tdsim_scale(P(RETIRING), s);
	r[LNC_INST] = r[LNC_RETIRE_SLOTS] - r[LNC_RETIRE_SLOTS] / 10;
	r[LNC_HEAVY] = tdsim_scale(P(HEAVY_OPERATIONS), s);
	r[LNC_BAD_SPEC_SLOTS] = tdsim_scale(P(BAD_SPECULATION), s);
	r[LNC_BR_MISP_SLOTS] = tdsim_scale(P(BRANCH_MISPREDICTS), s);
	r[LNC_IDQ_BUBBLES] = tdsim_scale(P(FRONTEND_BOUND), s);
	/* fetch_latency = 8 * CYC0 / SLOTS */
	r[LNC_IDQ_CYC0] = tdsim_scale(P(FETCH_LATENCY), s) / w;
	r[LNC_BE_SLOTS] = tdsim_scale(P(BACKEND_BOUND), s);
	r[LNC_MEM_SLOTS] = tdsim_scale(P(MEMORY_BOUND), s);

	/* l2_bound = L2_HIT / (L2_HIT + UC) * MEMORY_STALLS.L2 / clks */
	r[LNC_L2_HIT] = LNC_L2_HIT_RATE;
	r[LNC_UC] = LNC_UC_RATE;
	r[LNC_STALLS_L2] = tdsim_ratio(P(L2_BOUND), LNC_L2_HIT_RATE,
				       LNC_L2_HIT_RATE + LNC_UC_RATE);
	r[LNC_STALLS_L1] = P(L1_BOUND);
	r[LNC_STALLS_L3] = P(L3_BOUND);
	r[LNC_STALLS_MEM] = P(DRAM_BOUND);
	r[LNC_BOUND_ON_STORES] = P(STORE_BOUND);
	r[LNC_ORO_C4] = P(MEM_BANDWIDTH);
	r[LNC_ORO_CYCLES] = P(MEM_BANDWIDTH) + P(MEM_LATENCY);
	r[LNC_ORO_ALL] = 4 * P(MEM_BANDWIDTH) + 2 * P(MEM_LATENCY);
}

const struct tdsim_model tdsim_lioncove = {
	.name = "lioncove",
	.vendor = TDSIM_INTEL,
	.width = 8,
	.gp_counters = 10,
	.fixed_counters = 4,
	.events = lnc_events,
	.nr_events = LNC_NR,
	.rates = lnc_rates,
};

/*
 * Atom cores (td_atom.c): Level 1 from TOPDOWN_*.ALL(_P) over width *
 * CPU_CLK_UNHALTED.CORE, as perf's alderlake and meteorlake cpu_atom,
 * sierraforest and grandridge tables; Gracemont's bad speculation is what
 * the other three leave.  No SMT on these cores.  Level 2 splits
 * TOPDOWN_FE_BOUND.ALL by its umasks into FRONTEND_LATENCY (0x72, the
 * profile's fetch_latency) and FRONTEND_BANDWIDTH (0x8d, the rest),
 * TOPDOWN_BAD_SPECULATION.ALL into MISPREDICT (the profile's
 * branch_mispredicts) and MACHINE_CLEARS, and TOPDOWN_BE_BOUND.ALL into
 * ALLOC_RESTRICTIONS (core bound) and the rest: perf's resource bound,
 * whose children are the memory and other scheduler stalls, so the
 * profile's memory_bound plays it.
 */
enum {
	ATOM_INST, ATOM_CLK, ATOM_REF_TSC, ATOM_FE, ATOM_BE, ATOM_RET, ATOM_BAD,
	ATOM_FE_LAT, ATOM_FE_BW, ATOM_MISP, ATOM_CLEARS, ATOM_ALLOC, ATOM_NR
};

#define ALL6	0x003f

static const struct tdsim_event grt_events[ATOM_NR] = {
	[ATOM_INST]	= { 0x00c0, "INST_RETIRED.ANY", ALL6, 0 },
	[ATOM_CLK]	= { 0x003c, "CPU_CLK_UNHALTED.CORE", ALL6, 1 },
	[ATOM_REF_TSC]	= { 0x0300, "CPU_CLK_UNHALTED.REF_TSC", 0, 2 },
	[ATOM_FE]	= { 0x0071, "TOPDOWN_FE_BOUND.ALL", ALL6, NOFIX },
	[ATOM_BE]	= { 0x0074, "TOPDOWN_BE_BOUND.ALL", ALL6, NOFIX },
	[ATOM_RET]	= { 0x00c2, "TOPDOWN_RETIRING.ALL", ALL6, NOFIX },
	[ATOM_BAD]	= { 0x0073, "TOPDOWN_BAD_SPECULATION.ALL", ALL6, NOFIX },
	[ATOM_FE_LAT]	= { 0x7271, "TOPDOWN_FE_BOUND.FRONTEND_LATENCY", ALL6, NOFIX },
	[ATOM_FE_BW]	= { 0x8d71, "TOPDOWN_FE_BOUND.FRONTEND_BANDWIDTH", ALL6, NOFIX },
	[ATOM_MISP]	= { 0x0473, "TOPDOWN_BAD_SPECULATION.MISPREDICT", ALL6, NOFIX },
	[ATOM_CLEARS]	= { 0x0373, "TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS", ALL6, NOFIX },
	[ATOM_ALLOC]	= { 0x0174, "TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS", ALL6, NOFIX },
};

static const struct tdsim_event cmt_events[ATOM_NR] = {
	[ATOM_INST]	= { 0x00c0, "INST_RETIRED.ANY", ALL8, 0 },
	[ATOM_CLK]	= { 0x003c, "CPU_CLK_UNHALTED.CORE", ALL8, 1 },
	[ATOM_REF_TSC]	= { 0x0300, "CPU_CLK_UNHALTED.REF_TSC", 0, 2 },
	[ATOM_FE]	= { 0x0071, "TOPDOWN_FE_BOUND.ALL_P", ALL8, NOFIX },
	[ATOM_BE]	= { 0x0074, "TOPDOWN_BE_BOUND.ALL_P", ALL8, NOFIX },
	[ATOM_RET]	= { 0x0072, "TOPDOWN_RETIRING.ALL_P", ALL8, NOFIX },
	[ATOM_BAD]	= { 0x0073, "TOPDOWN_BAD_SPECULATION.ALL_P", ALL8, NOFIX },
	[ATOM_FE_LAT]	= { 0x7271, "TOPDOWN_FE_BOUND.FRONTEND_LATENCY", ALL8, NOFIX },
	[ATOM_FE_BW]	= { 0x8d71, "TOPDOWN_FE_BOUND.FRONTEND_BANDWIDTH", ALL8, NOFIX },
	[ATOM_MISP]	= { 0x0473, "TOPDOWN_BAD_SPECULATION.MISPREDICT", ALL8, NOFIX },
	[ATOM_CLEARS]	= { 0x0373, "TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS", ALL8, NOFIX },
	[ATOM_ALLOC]	= { 0x0174, "TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS", ALL8, NOFIX },
};

static void atom_rates(const struct tdsim_model *m, const struct tdsim_profile *p,
		       unsigned int siblings, u32 *r)
{
	u32 s = m->width * ONE;

	r[ATOM_CLK] = ONE;
	r[ATOM_REF_TSC] = ONE;
	r[ATOM_FE] = tdsim_scale(P(FRONTEND_BOUND), s);
	r[ATOM_BE] = tdsim_scale(P(BACKEND_BOUND), s);
	r[ATOM_RET] = tdsim_scale(P(RETIRING), s);
	r[ATOM_BAD] = tdsim_scale(P(BAD_SPECULATION), s);
	r[ATOM_INST] = r[ATOM_RET] - r[ATOM_RET] / 10;
	r[ATOM_FE_LAT] = tdsim_scale(P(FETCH_LATENCY), s);
	r[ATOM_FE_BW] = r[ATOM_FE] - r[ATOM_FE_LAT];
	r[ATOM_MISP] = tdsim_scale(P(BRANCH_MISPREDICTS), s);
	r[ATOM_CLEARS] = r[ATOM_BAD] - r[ATOM_MISP];
	r[ATOM_ALLOC] = r[ATOM_BE] - tdsim_scale(P(MEMORY_BOUND), s);
}

/* Alder Lake / Raptor Lake E-cores, Alder Lake-N */
const struct tdsim_model tdsim_gracemont = {
	.name = "gracemont",
	.vendor = TDSIM_INTEL,
	.width = 5,
	.gp_counters = 6,
	.fixed_counters = 3,
	.events = grt_events,
	.nr_events = ATOM_NR,
	.rates = atom_rates,
};

/* Meteor Lake E-cores, Sierra Forest, Grand Ridge */
const struct tdsim_model tdsim_crestmont = {
	.name = "crestmont",
	.vendor = TDSIM_INTEL,
	.width = 6,
	.gp_counters = 8,
	.fixed_counters = 3,
	.events = cmt_events,
	.nr_events = ATOM_NR,
	.rates = atom_rates,
};

/*
 * Skymont (Lunar Lake, Arrow Lake E-cores): Crestmont's nodes, width 8,
 * from other encodings (lunarlake/arrowlake cpu_atom JSON of 7.3).  Fixed
 * counters 4-6 count bad speculation, frontend bound and retiring: the
 * JSON's TOPDOWN_*.ALL pseudo-encodings, or the _P encodings, which may
 * also use a general-purpose counter (intel_skt_event_constraints).
 */
enum { SKT_BAD_FIXED = ATOM_NR, SKT_FE_FIXED, SKT_RET_FIXED, SKT_NR };

static const struct tdsim_event skt_events[SKT_NR] = {
	[ATOM_INST]	= { 0x00c0, "INST_RETIRED.ANY", ALL8, 0 },
	[ATOM_CLK]	= { 0x003c, "CPU_CLK_UNHALTED.CORE", ALL8, 1 },
	[ATOM_REF_TSC]	= { 0x0300, "CPU_CLK_UNHALTED.REF_TSC", 0, 2 },
	[ATOM_FE]	= { 0x019c, "TOPDOWN_FE_BOUND.ALL_P", ALL8, 5 },
	[ATOM_BE]	= { 0x02a4, "TOPDOWN_BE_BOUND.ALL_P", ALL8, NOFIX },
	[ATOM_RET]	= { 0x02c2, "TOPDOWN_RETIRING.ALL_P", ALL8, 6 },
	[ATOM_BAD]	= { 0x0073, "TOPDOWN_BAD_SPECULATION.ALL_P", ALL8, 4 },
	[ATOM_FE_LAT]	= { 0x7271, "TOPDOWN_FE_BOUND.FRONTEND_LATENCY", ALL8, NOFIX },
	[ATOM_FE_BW]	= { 0x8d71, "TOPDOWN_FE_BOUND.FRONTEND_BANDWIDTH", ALL8, NOFIX },
	[ATOM_MISP]	= { 0x0473, "TOPDOWN_BAD_SPECULATION.MISPREDICT", ALL8, NOFIX },
	[ATOM_CLEARS]	= { 0x0373, "TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS", ALL8, NOFIX },
	[ATOM_ALLOC]	= { 0x0174, "TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS", ALL8, NOFIX },
	[SKT_BAD_FIXED]	= { 0x0500, "TOPDOWN_BAD_SPECULATION.ALL", 0, 4 },
	[SKT_FE_FIXED]	= { 0x0600, "TOPDOWN_FE_BOUND.ALL", 0, 5 },
	[SKT_RET_FIXED]	= { 0x0700, "TOPDOWN_RETIRING.ALL", 0, 6 },
};

static void skt_rates(const struct tdsim_model *m, const struct tdsim_profile *p,
		      unsigned int siblings, u32 *r)
{
	atom_rates(m, p, siblings, r);
	r[SKT_BAD_FIXED] = r[ATOM_BAD];
	r[SKT_FE_FIXED] = r[ATOM_FE];
	r[SKT_RET_FIXED] = r[ATOM_RET];
}

const struct tdsim_model tdsim_skymont = {
	.name = "skymont",
	.vendor = TDSIM_INTEL,
	.width = 8,
	.gp_counters = 8,
	.fixed_counters = 7,
	.events = skt_events,
	.nr_events = SKT_NR,
	.rates = skt_rates,
};
