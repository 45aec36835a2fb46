// SPDX-License-Identifier: GPL-2.0
/*
 * tdnl: the clock-tick Level 3/4 memory nodes (L1/L2/L3/DRAM/Store Bound,
 * memory bandwidth and latency), exactly as perf's JSON metrics define
 * them for Skylake, Ice Lake and Sapphire Rapids (the metrics.json of
 * skylake, icelake and sapphirerapids in tools/perf/pmu-events/arch/x86/),
 * and in 7.3's for Granite Rapids and Lion Cove (graniterapids, lunarlake
 * and arrowlake cpu_core), whose DRAM Bound perf calls L3 Miss Bound.
 * The module publishes the raw counts at level=3; the arithmetic is
 * floating point, so it lives here, in userspace.
 *
 * As in perf, a division by zero makes a node n/a (NAN), and so does an
 * event that was not counted.  Unlike perf, each node is then clamped to
 * 0..100 %: multiplexed counters can make a difference slightly negative.
 */
#include <math.h>
#include <string.h>
#include "l34.h"

const char * const td_l34_names[TD_NR_L34] = {
	[TD_L1_BOUND] = "l1_bound",
	[TD_L2_BOUND] = "l2_bound",
	[TD_L3_BOUND] = "l3_bound",
	[TD_DRAM_BOUND] = "dram_bound",
	[TD_STORE_BOUND] = "store_bound",
	[TD_MEM_BANDWIDTH] = "mem_bandwidth",
	[TD_MEM_LATENCY] = "mem_latency",
};

/* as debugfs lists them: DRAM's two under it, store bound last */
const unsigned int td_l34_tree[TD_NR_L34] = {
	TD_L1_BOUND, TD_L2_BOUND, TD_L3_BOUND, TD_DRAM_BOUND,
	TD_MEM_BANDWIDTH, TD_MEM_LATENCY, TD_STORE_BOUND,
};

static const char * const td_l34_event_names[TD_NR_L34_EVENTS] = {
	[TD_E_CLKS] = "CPU_CLK_UNHALTED.THREAD",
	[TD_E_CA_STALLS_L1D_MISS] = "CYCLE_ACTIVITY.STALLS_L1D_MISS",
	[TD_E_CA_STALLS_L2_MISS] = "CYCLE_ACTIVITY.STALLS_L2_MISS",
	[TD_E_CA_STALLS_L3_MISS] = "CYCLE_ACTIVITY.STALLS_L3_MISS",
	[TD_E_CA_STALLS_MEM_ANY] = "CYCLE_ACTIVITY.STALLS_MEM_ANY",
	[TD_E_L2_HIT] = "MEM_LOAD_RETIRED.L2_HIT",
	[TD_E_FB_HIT] = "MEM_LOAD_RETIRED.FB_HIT",
	[TD_E_L1_MISS] = "MEM_LOAD_RETIRED.L1_MISS",
	[TD_E_FB_FULL_C1] = "L1D_PEND_MISS.FB_FULL:c1",
	[TD_E_FB_FULL_PERIODS] = "L1D_PEND_MISS.FB_FULL_PERIODS",
	[TD_E_MA_STALLS_L1D_MISS] = "MEMORY_ACTIVITY.STALLS_L1D_MISS",
	[TD_E_MA_STALLS_L2_MISS] = "MEMORY_ACTIVITY.STALLS_L2_MISS",
	[TD_E_MA_STALLS_L3_MISS] = "MEMORY_ACTIVITY.STALLS_L3_MISS",
	[TD_E_BOUND_ON_LOADS] = "EXE_ACTIVITY.BOUND_ON_LOADS",
	[TD_E_BOUND_ON_STORES] = "EXE_ACTIVITY.BOUND_ON_STORES",
	[TD_E_DATA_RD_C4] = "OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4",
	[TD_E_CYCLES_WITH_DATA_RD] = "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD",
	[TD_E_DATA_RD_C12] = "OFFCORE_REQUESTS_OUTSTANDING.DATA_RD:c12",
	[TD_E_LNC_DATA_RD_C4] = "OFFCORE_REQUESTS_OUTSTANDING.DATA_RD:c4",
	[TD_E_MS_L1] = "MEMORY_STALLS.L1",
	[TD_E_MS_L2] = "MEMORY_STALLS.L2",
	[TD_E_MS_L3] = "MEMORY_STALLS.L3",
	[TD_E_MS_MEM] = "MEMORY_STALLS.MEM",
	[TD_E_UC] = "MEM_LOAD_MISC_RETIRED.UC",
};

/**
 * td_l34_map() - find the formulas' events among a model's, by perf name
 * @ev:  the model's events by id (a NULL name is no event)
 * @nr:  how many ids
 * @map: out: each formula event's id
 *
 * Once per model: looking the names up per sample was about a seventh of
 * tdnl watch's work at Level 3 (strcmp() over the model's events).
 */
void td_l34_map(const struct td_event *ev, unsigned int nr,
		struct td_l34_map *map)
{
	unsigned int i, k;

	for (k = 0; k < TD_NR_L34_EVENTS; k++) {
		map->id[k] = TD_L34_NONE;
		for (i = 0; i < nr && i < TD_L34_NONE; i++)
			if (ev[i].name && !strcmp(ev[i].name, td_l34_event_names[k])) {
				map->id[k] = i;
				break;
			}
	}
}

struct l34_in {
	const struct td_l34_map *map;
	const double *c;
	const bool *have;
};

/* a formula event's count; NAN when the model or sample lacks it */
static double cnt(const struct l34_in *in, enum td_l34_event e)
{
	unsigned int i = in->map->id[e];

	return i != TD_L34_NONE && in->have[i] ? in->c[i] : NAN;
}

/* perf's expr: x / 0 is NAN */
static double dv(double a, double b)
{
	return b == 0 ? NAN : a / b;
}

static double max0(double a)
{
	return a < 0 ? 0 : a;		/* NAN stays NAN */
}

static double min2(double a, double b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	return a < b ? a : b;
}

/* skl, icl: Level 3 from CYCLE_ACTIVITY stalls and the L2 hit share */
static void l3_skl(const struct l34_in *in, enum td_l34_event fb_full,
		   double clks, double *f)
{
	double l1d = cnt(in, TD_E_CA_STALLS_L1D_MISS);
	double l2m = cnt(in, TD_E_CA_STALLS_L2_MISS);
	double l3m = cnt(in, TD_E_CA_STALLS_L3_MISS);
	double hit;

	/* h = L2_HIT * (1 + FB_HIT / L1_MISS) */
	hit = cnt(in, TD_E_L2_HIT) *
	      (1 + dv(cnt(in, TD_E_FB_HIT), cnt(in, TD_E_L1_MISS)));
	f[TD_L1_BOUND] = max0(dv(cnt(in, TD_E_CA_STALLS_MEM_ANY) - l1d, clks));
	/* l2_bound = h / (h + FB_FULL) * (STALLS_L1D_MISS - STALLS_L2_MISS) / clks */
	f[TD_L2_BOUND] = dv(hit, hit + cnt(in, fb_full)) * dv(l1d - l2m, clks);
	f[TD_L3_BOUND] = dv(l2m - l3m, clks);
	/* dram = STALLS_L3_MISS / clks + (L1D_MISS - L2_MISS) / clks - l2_bound */
	f[TD_DRAM_BOUND] = dv(l3m, clks) + dv(l1d - l2m, clks) - f[TD_L2_BOUND];
}

/* spr: Level 3 from EXE_ACTIVITY and MEMORY_ACTIVITY stalls */
static void l3_spr(const struct l34_in *in, double clks, double *f)
{
	double l1d = cnt(in, TD_E_MA_STALLS_L1D_MISS);
	double l2m = cnt(in, TD_E_MA_STALLS_L2_MISS);
	double l3m = cnt(in, TD_E_MA_STALLS_L3_MISS);

	f[TD_L1_BOUND] = max0(dv(cnt(in, TD_E_BOUND_ON_LOADS) - l1d, clks));
	f[TD_L2_BOUND] = dv(l1d - l2m, clks);
	f[TD_L3_BOUND] = dv(l2m - l3m, clks);
	f[TD_DRAM_BOUND] = dv(l3m, clks);
}

/*
 * lioncove: each level's stall cycles (MEMORY_STALLS), l2_bound the L2
 * hits' share, against uncacheable loads, of MEMORY_STALLS.L2
 */
static void l3_lnc(const struct l34_in *in, double clks, double *f)
{
	double hit = cnt(in, TD_E_L2_HIT);

	f[TD_L1_BOUND] = dv(cnt(in, TD_E_MS_L1), clks);
	f[TD_L2_BOUND] = dv(hit, hit + cnt(in, TD_E_UC)) *
			 dv(cnt(in, TD_E_MS_L2), clks);
	f[TD_L3_BOUND] = dv(cnt(in, TD_E_MS_L3), clks);
	f[TD_DRAM_BOUND] = dv(cnt(in, TD_E_MS_MEM), clks);
}

/**
 * td_l34() - the Level 3/4 memory nodes of one span of counts
 * @model: the CPU's model name (skl, icl, spr, gnr or lioncove; any other
 *         gives n/a)
 * @map:   the formulas' events among the model's, from td_l34_map()
 * @c:     each event's count, all over one common window
 * @have:  whether each event was counted
 * @pct:   out: TD_NR_L34 nodes in percent, 0..100, or NAN when n/a
 *
 * Return: the clock ticks the nodes are shares of, or NAN when none.
 */
double td_l34(const char *model, const struct td_l34_map *map,
	      const double *c, const bool *have, double *pct)
{
	const struct l34_in in = { map, c, have };
	enum td_l34_event bw_event = TD_E_DATA_RD_C4;
	double f[TD_NR_L34], clks, bw;
	unsigned int i;

	for (i = 0; i < TD_NR_L34; i++)
		f[i] = NAN;
	clks = cnt(&in, TD_E_CLKS);
	/*
	 * Every node is a share of the thread's clock ticks: without them
	 * (below Level 3) there is none
	 */
	if (isnan(clks)) {
		for (i = 0; i < TD_NR_L34; i++)
			pct[i] = NAN;
		return NAN;
	}
	if (!strcmp(model, "skl")) {
		l3_skl(&in, TD_E_FB_FULL_C1, clks, f);
	} else if (!strcmp(model, "icl")) {
		l3_skl(&in, TD_E_FB_FULL_PERIODS, clks, f);
	} else if (!strcmp(model, "spr")) {
		l3_spr(&in, clks, f);
	} else if (!strcmp(model, "gnr")) {
		l3_spr(&in, clks, f);
		bw_event = TD_E_DATA_RD_C12;
	} else if (!strcmp(model, "lioncove")) {
		l3_lnc(&in, clks, f);
		bw_event = TD_E_LNC_DATA_RD_C4;
	} else {
		clks = NAN;	/* no clock-tick memory nodes on this model */
	}

	f[TD_STORE_BOUND] = dv(cnt(&in, TD_E_BOUND_ON_STORES), clks);
	/* bandwidth = min(clks, ALL_DATA_RD:c4 (gnr: DATA_RD:c12)) / clks */
	bw = dv(min2(clks, cnt(&in, bw_event)), clks);
	f[TD_MEM_BANDWIDTH] = bw;
	/* latency = min(clks, CYCLES_WITH_DATA_RD) / clks - bandwidth */
	f[TD_MEM_LATENCY] =
		dv(min2(clks, cnt(&in, TD_E_CYCLES_WITH_DATA_RD)), clks) - bw;

	for (i = 0; i < TD_NR_L34; i++) {
		double x = f[i];

		if (isnan(x) || isinf(x))
			pct[i] = NAN;
		else
			pct[i] = 100 * (x < 0 ? 0 : x > 1 ? 1 : x);
	}
	return clks;
}
