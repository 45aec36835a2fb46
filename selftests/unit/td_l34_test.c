// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of tdnl's Level 3/4 memory nodes (tools/tdnl/l34.c) and
 * of what tdnl works out from a sample (tools/tdnl/calc.c): hand-computed
 * counts for skl, icl and spr, each case's nodes worked out in the comment
 * beside it from perf's metrics (tools/perf/pmu-events/arch/x86/, the
 * skylake, icelake and sapphirerapids metrics.json); and the cases that
 * must be n/a (NAN), never 0.
 */
#include <math.h>
#include <string.h>
#include "kselftest_harness.h"
#include "tdnl.h"

/* percent in 0.0001 % units, rounded: exact for the cases below */
static long p4(double pct)
{
	return (long)(pct * 10000 + 0.5);
}

struct counts {
	const struct td_model *m;
	double c[TDNL_MAX_EVENTS];
	bool have[TDNL_MAX_EVENTS];
};

/* an event's count by its perf name; false if the model has no such event */
static bool put(struct counts *k, const char *name, double v)
{
	unsigned int i;

	for (i = 0; i < k->m->nr_events; i++) {
		if (!strcmp(k->m->events[i].name, name)) {
			k->c[i] = v;
			k->have[i] = true;
			return true;
		}
	}
	return false;
}

static void l34(const struct counts *k, double *pct)
{
	struct td_l34_map map;

	td_l34_map(k->m->events, k->m->nr_events, &map);
	td_l34(k->m->name, &map, k->c, k->have, pct);
}

static void all_na(struct __test_metadata *_metadata, const double *pct)
{
	unsigned int i;

	for (i = 0; i < TD_NR_L34; i++) {
		if (!isnan(pct[i]))
			TH_LOG("%s = %f, not n/a", td_l34_names[i], pct[i]);
		EXPECT_TRUE(isnan(pct[i]));
	}
}

TEST(spr_hand_computed)
{
	/*
	 * clks 1000.  l1 = max((BOUND_ON_LOADS 250 - STALLS_L1D_MISS 170)
	 * / 1000, 0) = 8 %; l2 = (170 - STALLS_L2_MISS 120) / 1000 = 5 %;
	 * l3 = (120 - STALLS_L3_MISS 60) / 1000 = 6 %; dram = 60 / 1000 =
	 * 6 %; store = BOUND_ON_STORES 20 / 1000 = 2 %.  bandwidth =
	 * min(1000, ALL_DATA_RD:c4 30) / 1000 = 3 %; latency =
	 * min(1000, CYCLES_WITH_DATA_RD 80) / 1000 - 3 % = 5 %.
	 */
	struct counts k = { .m = &td_model_spr };
	double r[TD_NR_L34];

	ASSERT_TRUE(put(&k, "CPU_CLK_UNHALTED.THREAD", 1000));
	ASSERT_TRUE(put(&k, "EXE_ACTIVITY.BOUND_ON_LOADS", 250));
	ASSERT_TRUE(put(&k, "MEMORY_ACTIVITY.STALLS_L1D_MISS", 170));
	ASSERT_TRUE(put(&k, "MEMORY_ACTIVITY.STALLS_L2_MISS", 120));
	ASSERT_TRUE(put(&k, "MEMORY_ACTIVITY.STALLS_L3_MISS", 60));
	ASSERT_TRUE(put(&k, "EXE_ACTIVITY.BOUND_ON_STORES", 20));
	ASSERT_TRUE(put(&k, "OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4", 30));
	ASSERT_TRUE(put(&k, "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD", 80));
	l34(&k, r);
	EXPECT_EQ(80000, p4(r[TD_L1_BOUND]));
	EXPECT_EQ(50000, p4(r[TD_L2_BOUND]));
	EXPECT_EQ(60000, p4(r[TD_L3_BOUND]));
	EXPECT_EQ(60000, p4(r[TD_DRAM_BOUND]));
	EXPECT_EQ(20000, p4(r[TD_STORE_BOUND]));
	EXPECT_EQ(30000, p4(r[TD_MEM_BANDWIDTH]));
	EXPECT_EQ(50000, p4(r[TD_MEM_LATENCY]));
}

TEST(spr_clamped)
{
	/*
	 * Multiplexed counters can disagree.  clks 1000: l1 = max((100 -
	 * 150) / 1000, 0) = 0 %; l2 = (150 - 160) / 1000 < 0 -> 0 %;
	 * l3 = (160 - 40) / 1000 = 12 %; dram 4 %; store 1200 / 1000 ->
	 * 100 %; bandwidth = min(1000, 1500) / 1000 = 100 %; latency =
	 * min(1000, 900) / 1000 - 100 % < 0 -> 0 %.
	 */
	struct counts k = { .m = &td_model_spr };
	double r[TD_NR_L34];

	put(&k, "CPU_CLK_UNHALTED.THREAD", 1000);
	put(&k, "EXE_ACTIVITY.BOUND_ON_LOADS", 100);
	put(&k, "MEMORY_ACTIVITY.STALLS_L1D_MISS", 150);
	put(&k, "MEMORY_ACTIVITY.STALLS_L2_MISS", 160);
	put(&k, "MEMORY_ACTIVITY.STALLS_L3_MISS", 40);
	put(&k, "EXE_ACTIVITY.BOUND_ON_STORES", 1200);
	put(&k, "OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4", 1500);
	put(&k, "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD", 900);
	l34(&k, r);
	EXPECT_EQ(0, p4(r[TD_L1_BOUND]));
	EXPECT_EQ(0, p4(r[TD_L2_BOUND]));
	EXPECT_EQ(120000, p4(r[TD_L3_BOUND]));
	EXPECT_EQ(40000, p4(r[TD_DRAM_BOUND]));
	EXPECT_EQ(1000000, p4(r[TD_STORE_BOUND]));
	EXPECT_EQ(1000000, p4(r[TD_MEM_BANDWIDTH]));
	EXPECT_EQ(0, p4(r[TD_MEM_LATENCY]));
}

TEST(skl_hand_computed)
{
	/*
	 * clks 1000.  l1 = (STALLS_MEM_ANY 300 - STALLS_L1D_MISS 200) / 1000
	 * = 10 %.  h = L2_HIT 30 * (1 + FB_HIT 10 / L1_MISS 40) = 37.5;
	 * l2 = h / (h + FB_FULL:c1 12.5) * (200 - STALLS_L2_MISS 120) / 1000
	 * = 0.75 * 8 % = 6 %; l3 = (120 - STALLS_L3_MISS 50) / 1000 = 7 %;
	 * dram = 50 / 1000 + 80 / 1000 - 6 % = 7 %; store = 25 / 1000 =
	 * 2.5 %; bandwidth = 40 / 1000 = 4 %; latency = 100 / 1000 - 4 % =
	 * 6 %.
	 */
	struct counts k = { .m = &td_model_skl };
	double r[TD_NR_L34];

	ASSERT_TRUE(put(&k, "CPU_CLK_UNHALTED.THREAD", 1000));
	ASSERT_TRUE(put(&k, "CYCLE_ACTIVITY.STALLS_MEM_ANY", 300));
	ASSERT_TRUE(put(&k, "CYCLE_ACTIVITY.STALLS_L1D_MISS", 200));
	ASSERT_TRUE(put(&k, "CYCLE_ACTIVITY.STALLS_L2_MISS", 120));
	ASSERT_TRUE(put(&k, "CYCLE_ACTIVITY.STALLS_L3_MISS", 50));
	ASSERT_TRUE(put(&k, "MEM_LOAD_RETIRED.L2_HIT", 30));
	ASSERT_TRUE(put(&k, "MEM_LOAD_RETIRED.FB_HIT", 10));
	ASSERT_TRUE(put(&k, "MEM_LOAD_RETIRED.L1_MISS", 40));
	ASSERT_TRUE(put(&k, "L1D_PEND_MISS.FB_FULL:c1", 12.5));
	ASSERT_TRUE(put(&k, "EXE_ACTIVITY.BOUND_ON_STORES", 25));
	ASSERT_TRUE(put(&k, "OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4", 40));
	ASSERT_TRUE(put(&k, "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD", 100));
	l34(&k, r);
	EXPECT_EQ(100000, p4(r[TD_L1_BOUND]));
	EXPECT_EQ(60000, p4(r[TD_L2_BOUND]));
	EXPECT_EQ(70000, p4(r[TD_L3_BOUND]));
	EXPECT_EQ(70000, p4(r[TD_DRAM_BOUND]));
	EXPECT_EQ(25000, p4(r[TD_STORE_BOUND]));
	EXPECT_EQ(40000, p4(r[TD_MEM_BANDWIDTH]));
	EXPECT_EQ(60000, p4(r[TD_MEM_LATENCY]));
}

TEST(icl_hand_computed)
{
	/*
	 * clks 2000.  l1 = (500 - 300) / 2000 = 10 %.  h = 60 * (1 + 0 / 100)
	 * = 60; l2 = 60 / (60 + FB_FULL_PERIODS 20) * (300 - 200) / 2000 =
	 * 0.75 * 5 % = 3.75 %; l3 = (200 - 100) / 2000 = 5 %; dram =
	 * 100 / 2000 + 100 / 2000 - 3.75 % = 6.25 %; store = 60 / 2000 =
	 * 3 %; bandwidth = min(2000, 3000) / 2000 = 100 %; latency =
	 * min(2000, 2500) / 2000 - 100 % = 0 %.
	 */
	struct counts k = { .m = &td_model_icl };
	double r[TD_NR_L34];

	ASSERT_TRUE(put(&k, "CPU_CLK_UNHALTED.THREAD", 2000));
	ASSERT_TRUE(put(&k, "CYCLE_ACTIVITY.STALLS_MEM_ANY", 500));
	ASSERT_TRUE(put(&k, "CYCLE_ACTIVITY.STALLS_L1D_MISS", 300));
	ASSERT_TRUE(put(&k, "CYCLE_ACTIVITY.STALLS_L2_MISS", 200));
	ASSERT_TRUE(put(&k, "CYCLE_ACTIVITY.STALLS_L3_MISS", 100));
	ASSERT_TRUE(put(&k, "MEM_LOAD_RETIRED.L2_HIT", 60));
	ASSERT_TRUE(put(&k, "MEM_LOAD_RETIRED.FB_HIT", 0));
	ASSERT_TRUE(put(&k, "MEM_LOAD_RETIRED.L1_MISS", 100));
	/* Ice Lake's own fill-buffer event; Skylake's is not in its table */
	ASSERT_TRUE(put(&k, "L1D_PEND_MISS.FB_FULL_PERIODS", 20));
	ASSERT_FALSE(put(&k, "L1D_PEND_MISS.FB_FULL:c1", 20));
	ASSERT_TRUE(put(&k, "EXE_ACTIVITY.BOUND_ON_STORES", 60));
	ASSERT_TRUE(put(&k, "OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4", 3000));
	ASSERT_TRUE(put(&k, "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD", 2500));
	l34(&k, r);
	EXPECT_EQ(100000, p4(r[TD_L1_BOUND]));
	EXPECT_EQ(37500, p4(r[TD_L2_BOUND]));
	EXPECT_EQ(50000, p4(r[TD_L3_BOUND]));
	EXPECT_EQ(62500, p4(r[TD_DRAM_BOUND]));
	EXPECT_EQ(30000, p4(r[TD_STORE_BOUND]));
	EXPECT_EQ(1000000, p4(r[TD_MEM_BANDWIDTH]));
	EXPECT_EQ(0, p4(r[TD_MEM_LATENCY]));
}

/* every event of a model's level 3 counted, at @v each */
static void fill(struct counts *k, double v)
{
	unsigned int i;

	for (i = 0; i < k->m->nr_events; i++) {
		k->c[i] = v;
		k->have[i] = true;
	}
}

TEST(models_without_memory_events_are_na)
{
	/* Zen 4 and Neoverse N2 have no clock-tick memory nodes at all */
	struct counts zen = { .m = &td_model_zen4 };
	struct counts n2 = { .m = &td_model_neoverse_n2 };
	struct td_l34_map map;
	double r[TD_NR_L34];

	fill(&zen, 1000);
	l34(&zen, r);
	all_na(_metadata, r);
	fill(&n2, 1000);
	l34(&n2, r);
	all_na(_metadata, r);
	/* an unknown model name, whatever its events */
	td_l34_map(td_model_spr.events, td_model_spr.nr_events, &map);
	td_l34("foo", &map, zen.c, zen.have, r);
	all_na(_metadata, r);
}

TEST(spr_below_level_3_is_na)
{
	/* level=2: only the events of levels 1 and 2 are in the sample */
	struct counts k = { .m = &td_model_spr };
	double r[TD_NR_L34];
	unsigned int i;

	for (i = 0; i < k.m->nr_events; i++)
		if (k.m->events[i].level <= 2)
			put(&k, k.m->events[i].name, 1000);
	l34(&k, r);
	all_na(_metadata, r);
}

TEST(spr_missing_event_is_na)
{
	/*
	 * STALLS_L3_MISS not counted: l3 and dram are n/a; the others as in
	 * spr_hand_computed.
	 */
	struct counts k = { .m = &td_model_spr };
	double r[TD_NR_L34];

	put(&k, "CPU_CLK_UNHALTED.THREAD", 1000);
	put(&k, "EXE_ACTIVITY.BOUND_ON_LOADS", 250);
	put(&k, "MEMORY_ACTIVITY.STALLS_L1D_MISS", 170);
	put(&k, "MEMORY_ACTIVITY.STALLS_L2_MISS", 120);
	put(&k, "MEMORY_ACTIVITY.STALLS_L3_MISS", 60);
	put(&k, "EXE_ACTIVITY.BOUND_ON_STORES", 20);
	put(&k, "OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4", 30);
	put(&k, "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD", 80);
	k.have[14] = false;
	ASSERT_STREQ("MEMORY_ACTIVITY.STALLS_L3_MISS", k.m->events[14].name);
	l34(&k, r);
	EXPECT_EQ(80000, p4(r[TD_L1_BOUND]));
	EXPECT_EQ(50000, p4(r[TD_L2_BOUND]));
	EXPECT_TRUE(isnan(r[TD_L3_BOUND]));
	EXPECT_TRUE(isnan(r[TD_DRAM_BOUND]));
	EXPECT_EQ(20000, p4(r[TD_STORE_BOUND]));
	EXPECT_EQ(30000, p4(r[TD_MEM_BANDWIDTH]));
	EXPECT_EQ(50000, p4(r[TD_MEM_LATENCY]));
}

TEST(zero_clocks_are_na)
{
	/* no clock ticks: nothing to divide by, so n/a, never 0 */
	struct counts k = { .m = &td_model_skl };
	double r[TD_NR_L34];

	fill(&k, 100);
	put(&k, "CPU_CLK_UNHALTED.THREAD", 0);
	l34(&k, r);
	all_na(_metadata, r);

	k.m = &td_model_spr;
	fill(&k, 0);
	l34(&k, r);
	all_na(_metadata, r);
}

TEST(skl_no_l1_miss_is_na)
{
	/*
	 * L1_MISS 0: FB_HIT / L1_MISS divides by zero, which perf makes NAN,
	 * so l2 and dram (which subtracts l2) are n/a.  clks 1000: l1 =
	 * (300 - 200) / 1000 = 10 %, l3 = (120 - 50) / 1000 = 7 %, store
	 * 100 / 1000 = 10 %, bandwidth 10 %, latency 0 %.
	 */
	struct counts k = { .m = &td_model_skl };
	double r[TD_NR_L34];

	fill(&k, 100);
	put(&k, "CPU_CLK_UNHALTED.THREAD", 1000);
	put(&k, "CYCLE_ACTIVITY.STALLS_MEM_ANY", 300);
	put(&k, "CYCLE_ACTIVITY.STALLS_L1D_MISS", 200);
	put(&k, "CYCLE_ACTIVITY.STALLS_L2_MISS", 120);
	put(&k, "CYCLE_ACTIVITY.STALLS_L3_MISS", 50);
	put(&k, "MEM_LOAD_RETIRED.L1_MISS", 0);
	l34(&k, r);
	EXPECT_EQ(100000, p4(r[TD_L1_BOUND]));
	EXPECT_TRUE(isnan(r[TD_L2_BOUND]));
	EXPECT_EQ(70000, p4(r[TD_L3_BOUND]));
	EXPECT_TRUE(isnan(r[TD_DRAM_BOUND]));
	EXPECT_EQ(100000, p4(r[TD_STORE_BOUND]));
	EXPECT_EQ(100000, p4(r[TD_MEM_BANDWIDTH]));
	EXPECT_EQ(0, p4(r[TD_MEM_LATENCY]));
}

/* ---- tdnl_calc(): deltas over one interval, totals over a gap ---- */

static void model_of(const struct td_model *k, struct tdnl_model *m)
{
	unsigned int i;

	memset(m, 0, sizeof(*m));
	strcpy(m->name, k->name);
	m->width = k->width;
	m->nr_events = k->nr_events;
	for (i = 0; i < k->nr_events; i++)
		m->events[i] = k->events[i];
	td_l34_map(m->events, m->nr_events, &m->l34);
}

static void count(struct tdnl_sample *s, unsigned int id, uint64_t delta,
		  uint64_t total, uint64_t enabled)
{
	s->cnt[id] = (struct tdnl_count){ true, delta, total, enabled, enabled };
}

TEST(calc_one_interval_common_window)
{
	/*
	 * spr, one interval.  The clock was enabled for 1000 ns and counted
	 * 1000; STALLS_L3_MISS, read later, was enabled for 1100 ns and
	 * counted 55.  Over one window (the longest, 1100 ns): clks 1100,
	 * dram = 55 / 1100 = 5 %.  l3 = (STALLS_L2_MISS 110 - 55) / 1100 =
	 * 5 %, both enabled 1100 ns.  Not 5.5 % and 5.5 %: the rates count.
	 */
	struct tdnl_sample s = { .seq = 7, .has_l1 = false };
	struct tdnl_model m;

	model_of(&td_model_spr, &m);
	strcpy(s.model, "spr");
	count(&s, 9, 1000, 5000, 1000);		/* CPU_CLK_UNHALTED.THREAD */
	count(&s, 13, 110, 900, 1100);		/* STALLS_L2_MISS */
	count(&s, 14, 55, 800, 1100);		/* STALLS_L3_MISS */
	ASSERT_STREQ("CPU_CLK_UNHALTED.THREAD", m.events[9].name);
	ASSERT_STREQ("MEMORY_ACTIVITY.STALLS_L2_MISS", m.events[13].name);
	ASSERT_STREQ("MEMORY_ACTIVITY.STALLS_L3_MISS", m.events[14].name);
	tdnl_calc(&s, NULL, &m, 0);
	EXPECT_EQ(0, s.lost);
	EXPECT_EQ(50000, p4(s.l34[TD_DRAM_BOUND]));
	EXPECT_EQ(50000, p4(s.l34[TD_L3_BOUND]));
	EXPECT_TRUE(isnan(s.l34[TD_L1_BOUND]));	/* its events are absent */
}

TEST(calc_gap_uses_totals)
{
	/*
	 * spr at level 3, seq 10 then seq 13: 2 intervals lost.  Over the
	 * span, from the totals: slots 6000 - 0 = 6000, retiring
	 * (UOPS_RETIRED.SLOTS) 2400 -> 40 %, frontend (IDQ_BUBBLES.CORE 1300
	 * - UOP_DROPPING 100) / 6000 = 20 %, backend 1800 / 6000 = 30 %,
	 * bad speculation the rest, 10 %.  heavy 600 / 6000 = 10 %, br
	 * mispredict 300 / 6000 = 5 %, fetch latency (6 * 150 - 100) / 6000
	 * = 13.3333 %, memory 1200 / 6000 = 20 %.  clks 1000: dram =
	 * (STALLS_L3_MISS 140 - 80) / 1000 = 6 %.  The last interval alone
	 * (deltas) would say retiring 10 %: the sample's own Level 1 is
	 * replaced by the span's.
	 */
	static const uint64_t prev_total[17] = {
		[9] = 1000, [14] = 80,
	};
	static const uint64_t total[17] = {
		6000, 2400, 1300, 100, 1800, 600, 300, 150, 1200,
		[9] = 2000, [14] = 140,
	};
	struct tdnl_sample prev = { .seq = 10 }, s = { .seq = 13 };
	struct tdnl_model m;
	unsigned int i;

	model_of(&td_model_spr, &m);
	strcpy(s.model, "spr");
	for (i = 0; i < 17; i++) {
		count(&prev, i, 1, prev_total[i], 500);
		count(&s, i, 1, total[i], 500);
	}
	s.has_l1 = s.has_l2 = true;
	for (i = TD_RETIRING; i <= TD_BACKEND_BOUND; i++)
		s.l1_set[i] = true;
	s.l1[TD_RETIRING] = 100000;
	tdnl_calc(&s, &prev, &m, 0);
	EXPECT_EQ(2, s.lost);
	EXPECT_EQ(400000, s.l1[TD_RETIRING]);
	EXPECT_EQ(200000, s.l1[TD_FRONTEND_BOUND]);
	EXPECT_EQ(300000, s.l1[TD_BACKEND_BOUND]);
	EXPECT_EQ(100000, s.l1[TD_BAD_SPECULATION]);
	EXPECT_EQ(0, s.l1[TD_SMT_CONTENTION]);
	EXPECT_EQ(100000, s.l2[TD_HEAVY_OPERATIONS]);
	EXPECT_EQ(300000, s.l2[TD_LIGHT_OPERATIONS]);
	EXPECT_EQ(50000, s.l2[TD_BRANCH_MISPREDICTS]);
	EXPECT_EQ(133333, s.l2[TD_FETCH_LATENCY]);
	EXPECT_EQ(200000, s.l2[TD_MEMORY_BOUND]);
	EXPECT_EQ(100000, s.l2[TD_CORE_BOUND]);
	EXPECT_EQ(60000, p4(s.l34[TD_DRAM_BOUND]));

	/* the next one in sequence: no gap, the deltas (1 / 1 = 100 %) */
	prev = s;
	s.seq = 14;
	tdnl_calc(&s, &prev, &m, 0);
	EXPECT_EQ(0, s.lost);
	EXPECT_EQ(1000000, p4(s.l34[TD_DRAM_BOUND]));
}

TEST(calc_unknown_model_is_na)
{
	struct tdnl_sample s = { .seq = 1 };

	strcpy(s.model, "newcpu");
	count(&s, 0, 100, 100, 100);
	tdnl_calc(&s, NULL, NULL, 0);
	all_na(_metadata, s.l34);
}

TEST_HARNESS_MAIN
