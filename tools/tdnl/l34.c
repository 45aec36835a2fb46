// SPDX-License-Identifier: GPL-2.0
/*
 * tdnl: the clock-tick Level 3/4 memory nodes (L1/L2/L3/DRAM/Store Bound,
 * memory bandwidth and latency), exactly as perf's JSON metrics define
 * them for Skylake, Ice Lake and Sapphire Rapids (the metrics.json of
 * skylake, icelake and sapphirerapids in tools/perf/pmu-events/arch/x86/).
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

struct l34_in {
	const struct td_event *ev;
	unsigned int nr;
	const double *c;
	const bool *have;
};

/* an event's count by its perf name; NAN when the model or sample lacks it */
static double cnt(const struct l34_in *in, const char *name)
{
	unsigned int i;

	for (i = 0; i < in->nr; i++)
		if (in->ev[i].name && !strcmp(in->ev[i].name, name))
			return in->have[i] ? in->c[i] : NAN;
	return NAN;
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
static void l3_skl(const struct l34_in *in, const char *fb_full, double clks,
		   double *f)
{
	double l1d = cnt(in, "CYCLE_ACTIVITY.STALLS_L1D_MISS");
	double l2m = cnt(in, "CYCLE_ACTIVITY.STALLS_L2_MISS");
	double l3m = cnt(in, "CYCLE_ACTIVITY.STALLS_L3_MISS");
	double hit;

	/* h = L2_HIT * (1 + FB_HIT / L1_MISS) */
	hit = cnt(in, "MEM_LOAD_RETIRED.L2_HIT") *
	      (1 + dv(cnt(in, "MEM_LOAD_RETIRED.FB_HIT"),
		      cnt(in, "MEM_LOAD_RETIRED.L1_MISS")));
	f[TD_L1_BOUND] = max0(dv(cnt(in, "CYCLE_ACTIVITY.STALLS_MEM_ANY") - l1d,
				 clks));
	/* l2_bound = h / (h + FB_FULL) * (STALLS_L1D_MISS - STALLS_L2_MISS) / clks */
	f[TD_L2_BOUND] = dv(hit, hit + cnt(in, fb_full)) * dv(l1d - l2m, clks);
	f[TD_L3_BOUND] = dv(l2m - l3m, clks);
	/* dram = STALLS_L3_MISS / clks + (L1D_MISS - L2_MISS) / clks - l2_bound */
	f[TD_DRAM_BOUND] = dv(l3m, clks) + dv(l1d - l2m, clks) - f[TD_L2_BOUND];
}

/* spr: Level 3 from EXE_ACTIVITY and MEMORY_ACTIVITY stalls */
static void l3_spr(const struct l34_in *in, double clks, double *f)
{
	double l1d = cnt(in, "MEMORY_ACTIVITY.STALLS_L1D_MISS");
	double l2m = cnt(in, "MEMORY_ACTIVITY.STALLS_L2_MISS");
	double l3m = cnt(in, "MEMORY_ACTIVITY.STALLS_L3_MISS");

	f[TD_L1_BOUND] = max0(dv(cnt(in, "EXE_ACTIVITY.BOUND_ON_LOADS") - l1d,
				 clks));
	f[TD_L2_BOUND] = dv(l1d - l2m, clks);
	f[TD_L3_BOUND] = dv(l2m - l3m, clks);
	f[TD_DRAM_BOUND] = dv(l3m, clks);
}

/**
 * td_l34() - the Level 3/4 memory nodes of one span of counts
 * @model: the CPU's model name (skl, icl or spr; any other gives n/a)
 * @ev:    the model's events by id (a NULL name is no event)
 * @nr:    how many ids
 * @c:     each event's count, all over one common window
 * @have:  whether each event was counted
 * @pct:   out: TD_NR_L34 nodes in percent, 0..100, or NAN when n/a
 *
 * Return: the clock ticks the nodes are shares of, or NAN when none.
 */
double td_l34(const char *model, const struct td_event *ev, unsigned int nr,
	      const double *c, const bool *have, double *pct)
{
	const struct l34_in in = { ev, nr, c, have };
	double f[TD_NR_L34], clks, bw;
	unsigned int i;

	for (i = 0; i < TD_NR_L34; i++)
		f[i] = NAN;
	clks = cnt(&in, "CPU_CLK_UNHALTED.THREAD");
	/*
	 * Every node is a share of the thread's clock ticks: without them
	 * (below Level 3) there is none, and no name to look up per sample
	 */
	if (isnan(clks)) {
		for (i = 0; i < TD_NR_L34; i++)
			pct[i] = NAN;
		return NAN;
	}
	if (!strcmp(model, "skl"))
		l3_skl(&in, "L1D_PEND_MISS.FB_FULL:c1", clks, f);
	else if (!strcmp(model, "icl"))
		l3_skl(&in, "L1D_PEND_MISS.FB_FULL_PERIODS", clks, f);
	else if (!strcmp(model, "spr"))
		l3_spr(&in, clks, f);
	else
		clks = NAN;	/* no clock-tick memory nodes on this model */

	f[TD_STORE_BOUND] = dv(cnt(&in, "EXE_ACTIVITY.BOUND_ON_STORES"), clks);
	/* bandwidth = min(clks, ALL_DATA_RD:c4) / clks */
	bw = dv(min2(clks, cnt(&in, "OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4")),
		clks);
	f[TD_MEM_BANDWIDTH] = bw;
	/* latency = min(clks, CYCLES_WITH_DATA_RD) / clks - bandwidth */
	f[TD_MEM_LATENCY] =
		dv(min2(clks, cnt(&in, "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD")),
		   clks) - bw;

	for (i = 0; i < TD_NR_L34; i++) {
		double x = f[i];

		if (isnan(x) || isinf(x))
			pct[i] = NAN;
		else
			pct[i] = 100 * (x < 0 ? 0 : x > 1 ? 1 : x);
	}
	return clks;
}
