// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of kmod/td_sets.c: which events count all the time, how
 * the rest are split into sets that fit the counters, each event's
 * reference, and the scaling of a set's counts to the whole interval.
 */
#include <string.h>
#include "kselftest_harness.h"
#include "td_reg.h"

static const struct td_model * const models[] = {
	&td_model_skl, &td_model_icl, &td_model_spr, &td_model_zen4,
	&td_model_zen5, &td_model_neoverse_n1, &td_model_neoverse_n2,
	&td_model_neoverse_n2_r0, &td_model_neoverse_v1, &td_model_neoverse_v2,
	&td_model_ampereone, &td_model_ampereonex, &td_model_gracemont,
	&td_model_crestmont, &td_model_gnr, &td_model_lioncove,
	&td_model_skymont, &td_model_zen6, &td_model_neoverse_n3,
	&td_model_neoverse_v3,
};

/* an event's id by its perf name; -1 if the model has none */
static int ev(const struct td_model *m, const char *name)
{
	unsigned int i;

	for (i = 0; i < m->nr_events; i++)
		if (!strcmp(m->events[i].name, name))
			return i;
	return -1;
}

#define BIT_OF(m, name)	(1U << ev(m, name))

static u32 level_mask(const struct td_model *m, unsigned int level)
{
	unsigned int n = td_model_nr_events(m, level);

	return n >= 32 ? ~0U : (1U << n) - 1;
}

TEST(fit_follows_counter_constraints)
{
	const struct td_model *m = &td_model_spr;
	u32 l1 = level_mask(m, 1);
	u32 gp4 = BIT_OF(m, "MEMORY_ACTIVITY.STALLS_L1D_MISS") |
		  BIT_OF(m, "MEMORY_ACTIVITY.STALLS_L2_MISS") |
		  BIT_OF(m, "MEMORY_ACTIVITY.STALLS_L3_MISS") |
		  BIT_OF(m, "OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4");

	/* slots on fixed 3, four on general-purpose counters */
	EXPECT_TRUE(td_sets_fit(m, l1, 4, 4));
	EXPECT_FALSE(td_sets_fit(m, l1, 3, 4));
	/*
	 * without fixed counter 3 (a KVM guest) TOPDOWN.SLOTS counts as
	 * TOPDOWN.SLOTS_P on a general-purpose counter: Level 1 takes 5
	 */
	EXPECT_TRUE(td_sets_fit(m, l1, 8, 3));
	EXPECT_TRUE(td_sets_fit(m, l1, 5, 3));
	EXPECT_FALSE(td_sets_fit(m, l1, 4, 3));
	EXPECT_STREQ("TOPDOWN.SLOTS_P",
		     td_event_form(&m->events[ev(m, "TOPDOWN.SLOTS")], 3)->name);
	EXPECT_STREQ("TOPDOWN.SLOTS",
		     td_event_form(&m->events[ev(m, "TOPDOWN.SLOTS")], 4)->name);
	/* four GP0-3 events and four any-counter ones: 8 counters do */
	EXPECT_TRUE(td_sets_fit(m, l1 | gp4, 8, 4));
	/* five GP0-3 events do not, however many counters */
	EXPECT_FALSE(td_sets_fit(m, gp4 | BIT_OF(m, "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD"),
				 8, 4));
	/* CPU_CLK_UNHALTED.THREAD falls back from fixed 1 to a GP counter */
	EXPECT_TRUE(td_sets_fit(m, BIT_OF(m, "CPU_CLK_UNHALTED.THREAD"), 1, 0));
}

/* every set fits, the sets and the continuous events cover what is open once */
static void check_sets(struct __test_metadata *_metadata,
		       const struct td_model *m, u32 open, unsigned int gp,
		       unsigned int fixed, const struct td_sets *s)
{
	u32 seen = s->every;
	unsigned int j;

	ASSERT_GE(s->nr, 1);
	EXPECT_TRUE(s->every & (1U << s->norm));
	for (j = 0; j < s->nr; j++) {
		EXPECT_TRUE(td_sets_fit(m, s->every | s->set[j], gp, fixed));
		EXPECT_EQ(0, seen & s->set[j]);
		seen |= s->set[j];
		if (s->nr > 1)
			EXPECT_NE(0, s->set[j]);
	}
	EXPECT_EQ(open, seen);
}

TEST(gp_used_counts_what_no_fixed_counter_takes)
{
	const struct td_model *m = &td_model_spr;
	u32 l1 = level_mask(m, 1);
	u32 clk = BIT_OF(m, "CPU_CLK_UNHALTED.THREAD");

	/* slots on fixed 3: four general-purpose counters taken */
	EXPECT_EQ(4, td_sets_gp_used(m, l1, 4));
	/* a KVM guest's 3 fixed counters: TOPDOWN.SLOTS_P takes a fifth */
	EXPECT_EQ(5, td_sets_gp_used(m, l1, 3));
	/* the thread's cycles on fixed 1, while there is one */
	EXPECT_EQ(5, td_sets_gp_used(m, l1 | clk, 3));
	EXPECT_EQ(6, td_sets_gp_used(m, l1 | clk, 1));
	EXPECT_EQ(0, td_sets_gp_used(m, 0, 4));
	/* Zen has no fixed counters: each of Level 2's 12 events takes one */
	EXPECT_EQ(12, td_sets_gp_used(&td_model_zen4, level_mask(&td_model_zen4, 2), 0));
}

TEST(every_model_level_and_budget)
{
	unsigned int i, level, less;

	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		const struct td_model *m = models[i];

		for (level = 1; level <= 3; level++) {
			for (less = 0; less <= 2; less++) {
				u32 open = level_mask(m, level) & ~m->smt_only;
				unsigned int gp = m->gp_counters - less;
				struct td_sets s;

				ASSERT_EQ(0, td_sets_build(m, open, gp, m->fixed_counters, &s))
					TH_LOG("%s level %u gp %u", m->name, level, gp);
				check_sets(_metadata, m, open, gp, m->fixed_counters, &s);
				/* Level 1 alone, every counter: one set, all the time */
				if (!less && level == 1)
					EXPECT_EQ(level_mask(m, 1) & open,
						  s.every & level_mask(m, 1) & open)
						TH_LOG("%s level %u", m->name, level);
			}
		}
	}
}

TEST(spr_level3_three_sets)
{
	const struct td_model *m = &td_model_spr;
	struct td_sets s;

	ASSERT_EQ(0, td_sets_build(m, level_mask(m, 3), 8, 4, &s));
	EXPECT_EQ(3, s.nr);
	EXPECT_EQ(level_mask(m, 1) | BIT_OF(m, "CPU_CLK_UNHALTED.THREAD"), s.every);
	EXPECT_EQ(ev(m, "TOPDOWN.SLOTS"), s.norm);
	/* children scale by their Level 1 parent, counted all the time */
	EXPECT_EQ(TD_RETIRING, s.node[ev(m, "UOPS_RETIRED.HEAVY")]);
	EXPECT_EQ(TD_BAD_SPECULATION, s.node[ev(m, "TOPDOWN.BR_MISPREDICT_SLOTS")]);
	EXPECT_EQ(TD_BACKEND_BOUND, s.node[ev(m, "TOPDOWN.MEMORY_BOUND_SLOTS")]);
	EXPECT_EQ(TD_NO_NODE, s.node[ev(m, "UOPS_RETIRED.SLOTS")]);
	EXPECT_EQ(ev(m, "CPU_CLK_UNHALTED.THREAD"),
		  s.ref[ev(m, "MEMORY_ACTIVITY.STALLS_L2_MISS")]);
	/* the memory stall chain of l1..dram_bound counts in one set */
	{
		u32 chain = BIT_OF(m, "EXE_ACTIVITY.BOUND_ON_LOADS") |
			    BIT_OF(m, "MEMORY_ACTIVITY.STALLS_L1D_MISS") |
			    BIT_OF(m, "MEMORY_ACTIVITY.STALLS_L2_MISS") |
			    BIT_OF(m, "MEMORY_ACTIVITY.STALLS_L3_MISS");
		unsigned int j, holding = 0;

		for (j = 0; j < s.nr; j++)
			holding += (s.set[j] & chain) == chain;
		EXPECT_EQ(1, holding);
	}
}

TEST(skl_fixed_counter_events_and_partial_parent_nodes)
{
	/* INST_RETIRED.ANY has fixed counter 0 to itself: it costs nothing */
	const struct td_model *m = &td_model_skl;
	u32 open = level_mask(m, 2) & ~m->smt_only;
	struct td_sets s;
	unsigned int j;

	ASSERT_EQ(0, td_sets_build(m, open, 4, 3, &s));
	EXPECT_TRUE(s.every & BIT_OF(m, "INST_RETIRED.ANY"));
	EXPECT_TRUE(s.every & BIT_OF(m, "CPU_CLK_UNHALTED.THREAD"));
	for (j = 0; j < s.nr; j++)
		EXPECT_EQ(0, s.set[j] & BIT_OF(m, "INST_RETIRED.ANY"));
	/*
	 * Level 1's recovery cycles take turns, scaled by UOPS_ISSUED.ANY:
	 * the backend node without them still follows backend bound
	 */
	EXPECT_EQ(0, s.every & BIT_OF(m, "INT_MISC.RECOVERY_CYCLES"));
	EXPECT_EQ(TD_BACKEND_BOUND, s.node[ev(m, "CYCLE_ACTIVITY.STALLS_MEM_ANY")]);
	EXPECT_EQ(TD_BAD_SPECULATION, s.node[ev(m, "BR_MISP_RETIRED.ALL_BRANCHES")]);
	/* at Level 3 UOPS_ISSUED.ANY takes turns too: no node, the cycles */
	ASSERT_EQ(0, td_sets_build(m, level_mask(m, 3), 4, 3, &s));
	EXPECT_EQ(0, s.every & BIT_OF(m, "UOPS_ISSUED.ANY"));
	EXPECT_EQ(TD_NO_NODE, s.node[ev(m, "CYCLE_ACTIVITY.STALLS_L1D_MISS")]);
	EXPECT_EQ(ev(m, "CPU_CLK_UNHALTED.THREAD"),
		  s.ref[ev(m, "CYCLE_ACTIVITY.STALLS_L1D_MISS")]);
	/* with fixed counter 0 taken, it takes its turn on a general one */
	ASSERT_EQ(0, td_sets_build(m, open, 4, 0, &s));
	EXPECT_EQ(0, s.every & BIT_OF(m, "INST_RETIRED.ANY"));
}

TEST(zen4_level1_one_counter_fewer)
{
	/* the NMI watchdog holds one of six: two events take turns */
	const struct td_model *m = &td_model_zen4;
	struct td_sets s;

	ASSERT_EQ(0, td_sets_build(m, level_mask(m, 1), 5, 0, &s));
	EXPECT_EQ(2, s.nr);
	EXPECT_EQ(BIT_OF(m, "ls_not_halted_cyc") |
		  BIT_OF(m, "de_no_dispatch_per_slot.no_ops_from_frontend") |
		  BIT_OF(m, "de_no_dispatch_per_slot.backend_stalls") |
		  BIT_OF(m, "de_src_op_disp.all"), s.every);
	/* retired ops scale as their share of dispatched ops */
	EXPECT_EQ(ev(m, "de_src_op_disp.all"), s.ref[ev(m, "ex_ret_ops")]);
	EXPECT_EQ(s.norm, s.ref[ev(m, "de_no_dispatch_per_slot.smt_contention")]);
	/* with all six, one set */
	ASSERT_EQ(0, td_sets_build(m, level_mask(m, 1), 6, 0, &s));
	EXPECT_EQ(1, s.nr);
	EXPECT_EQ(level_mask(m, 1), s.every);
	/* not even the normalizer and one more: no sets */
	EXPECT_EQ(-ENOSPC, td_sets_build(m, level_mask(m, 1), 1, 0, &s));
}

TEST(nodes_of_a_span)
{
	/* spr: 1000 slots, 300 retired, 200 frontend, 400 backend: 10 % bad */
	const struct td_model *m = &td_model_spr;
	u64 c[TD_MAX_EVENTS] = { 0 }, node[TD_NR_L1];

	c[ev(m, "TOPDOWN.SLOTS")] = 1000;
	c[ev(m, "UOPS_RETIRED.SLOTS")] = 300;
	c[ev(m, "IDQ_BUBBLES.CORE")] = 200;
	c[ev(m, "TOPDOWN.BACKEND_BOUND_SLOTS")] = 400;
	td_sets_nodes(m, c, false, 1000, node);
	EXPECT_EQ(300, node[TD_RETIRING]);
	EXPECT_EQ(100, node[TD_BAD_SPECULATION]);
	EXPECT_EQ(200, node[TD_FRONTEND_BOUND]);
	EXPECT_EQ(400, node[TD_BACKEND_BOUND]);
	/* no slots: nothing */
	c[ev(m, "TOPDOWN.SLOTS")] = 0;
	td_sets_nodes(m, c, false, 0, node);
	EXPECT_EQ(0, node[TD_RETIRING]);
}

TEST(scale_by_reference_in_the_same_windows)
{
	const struct td_model *m = &td_model_spr;
	int slots = ev(m, "TOPDOWN.SLOTS"), ret = ev(m, "UOPS_RETIRED.SLOTS");
	int heavy = ev(m, "UOPS_RETIRED.HEAVY");
	int misp = ev(m, "TOPDOWN.BR_MISPREDICT_SLOTS");
	struct td_acc acc[TD_MAX_EVENTS] = { 0 };
	u64 out[TD_MAX_EVENTS], node[TD_NR_L1] = { 0 };
	u32 open = level_mask(m, 2);
	struct td_sets s;

	ASSERT_EQ(0, td_sets_build(m, open, 5, 4, &s));	/* L2 takes turns */
	ASSERT_GT(s.nr, 1);
	acc[slots].count = 6000;
	acc[ret].count = 1800;
	/* the interval's retiring and bad speculation, in slots */
	node[TD_RETIRING] = 1800;
	node[TD_BAD_SPECULATION] = 600;
	/* heavy: 100 retired slots in windows where 400 retired: 25 % */
	acc[heavy] = (struct td_acc){ .count = 100, .ref = 400, .norm = 1000 };
	/* mispredicts: 50 of 200 bad-speculation slots in their windows */
	acc[misp] = (struct td_acc){ .count = 50, .ref = 200, .norm = 2000 };
	td_sets_scale(m, &s, open, acc, node, 0, NULL, out);
	EXPECT_EQ(6000, out[slots]);
	EXPECT_EQ(1800, out[ret]);
	EXPECT_EQ(450, out[heavy]);	/* 25 % of 1800 */
	EXPECT_EQ(150, out[misp]);	/* 25 % of 600 */
	/* an event that did not count stays 0 */
	acc[heavy] = (struct td_acc){ 0 };
	td_sets_scale(m, &s, open, acc, node, 0, NULL, out);
	EXPECT_EQ(0, out[heavy]);
}

TEST(scale_a_regression_estimate_by_its_residual)
{
	const struct td_model *m = &td_model_spr;
	int heavy = ev(m, "UOPS_RETIRED.HEAVY");
	int misp = ev(m, "TOPDOWN.BR_MISPREDICT_SLOTS");
	struct td_acc acc[TD_MAX_EVENTS] = { 0 };
	struct td_pred pred[TD_MAX_EVENTS] = { 0 };
	u64 out[TD_MAX_EVENTS], node[TD_NR_L1] = { 0 };
	u32 open = level_mask(m, 2);
	struct td_sets s;

	ASSERT_EQ(0, td_sets_build(m, open, 5, 4, &s));
	node[TD_RETIRING] = 1800;
	node[TD_BAD_SPECULATION] = 600;
	acc[heavy] = (struct td_acc){ .count = 100, .ref = 400, .norm = 1000 };
	acc[misp] = (struct td_acc){ .count = 50, .ref = 200, .norm = 2000 };
	/* heavy predicted 500 over the interval, 90 in its windows: +10 */
	pred[heavy] = (struct td_pred){ .whole = 500, .part = 90 };
	/* mispredicts predicted 100, 60 in its windows: -10 */
	pred[misp] = (struct td_pred){ .whole = 100, .part = 60 };
	td_sets_scale(m, &s, open, acc, node, 1U << heavy | 1U << misp, pred, out);
	/* the residual scaled by the parent: 10 * 1800 / 400, -10 * 600 / 200 */
	EXPECT_EQ(545, out[heavy]);
	EXPECT_EQ(70, out[misp]);
	/* a prediction below the residual's share is 0, never negative */
	pred[misp] = (struct td_pred){ .whole = 10, .part = 60 };
	td_sets_scale(m, &s, open, acc, node, 1U << misp, pred, out);
	EXPECT_EQ(0, out[misp]);
	/* an event not in @predicted is scaled alone */
	EXPECT_EQ(450, out[heavy]);
}

/*
 * Lion Cove: TOPDOWN.BAD_SPEC_SLOTS (Level 1) and BR_MISPREDICT_SLOTS
 * (Level 2) both need GP0, so Level 2 takes two sets however many
 * counters; Level 1 alone fits.  Skymont: frontend, retiring and bad
 * speculation on fixed counters 5, 6, 4 leave Level 1 one GP counter.
 */
TEST(gp0_pairs_and_topdown_fixed_counters)
{
	const struct td_model *m = &td_model_lioncove;
	struct td_sets s;

	ASSERT_EQ(0, td_sets_build(m, level_mask(m, 1), 10, 4, &s));
	EXPECT_EQ(1, s.nr);
	ASSERT_EQ(0, td_sets_build(m, level_mask(m, 2), 10, 4, &s));
	EXPECT_EQ(2, s.nr);
	EXPECT_FALSE(td_sets_fit(m, BIT_OF(m, "TOPDOWN.BAD_SPEC_SLOTS") |
				 BIT_OF(m, "TOPDOWN.BR_MISPREDICT_SLOTS"), 10, 4));
	m = &td_model_skymont;
	EXPECT_EQ(1, td_sets_gp_used(m, level_mask(m, 1), 7));
	EXPECT_EQ(4, td_sets_gp_used(m, level_mask(m, 2), 7));
	/* a KVM guest's 3 fixed counters: all but the cycles on GP ones */
	EXPECT_EQ(7, td_sets_gp_used(m, level_mask(m, 2), 3));
	ASSERT_EQ(0, td_sets_build(m, level_mask(m, 2), 8, 7, &s));
	EXPECT_EQ(1, s.nr);
}

TEST_HARNESS_MAIN
