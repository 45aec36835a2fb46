// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: the interval's end: its counts scaled and estimated, its sample published.
 */
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/bitops.h>
#include <linux/math64.h>
#include <linux/timekeeping.h>
#include <linux/string.h>
#include "topdown.h"
#include "td_internal.h"

/*
 * Once an interval: did another perf user take a counter from an event for
 * part of its windows?  The growth of its enabled-but-not-running time
 * says, and the interval is flagged multiplexed.  Such a count is taken
 * from the windows it counted whole (td_counter.whole), a ratio to its
 * reference over the same windows; only when it had none is it scaled by
 * perf's running time, which assumes it counted at one rate while off.
 * A window is whole when the event was on its counter at both ends and the
 * gap did not grow: while perf moves events it holds the PMU disabled,
 * which stops every counter.
 */
static void td_foreign(struct td_cpu *tc)
{
	const u64 *gap = tc->scr.gap;
	unsigned int i;

	td_read_gaps(tc);
	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];
		u64 lost;

		k->foreign_ppm = TD_PPM;
		if (!(tc->open & BIT(i)) || !k->event)
			continue;
		lost = gap[i] - k->last_gap;
		k->last_gap = gap[i];
		/* its windows' time is what it was enabled for in the interval */
		if (lost)
			k->foreign_ppm = lost < k->acc_run ?
					 TD_PPM - td_frac(lost, k->acc_run) : 0;
	}
	tc->foreign = false;
	tc->time_scaled = 0;
	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];
		u32 r = tc->ctr[tc->sets.ref[i]].foreign_ppm;
		u32 n = tc->ctr[tc->sets.norm].foreign_ppm;

		k->by_whole = false;
		k->by_time = false;
		if (k->foreign_ppm < TD_PPM)
			tc->foreign = true;
		/* the events counted all the time give the interval's own counts */
		if (k->foreign_ppm < TD_PPM && k->whole_run && r == TD_PPM &&
		    n == TD_PPM && !(tc->sets.every & BIT(i))) {
			k->acc = k->whole;
			k->acc_run = k->whole_run;
			k->by_whole = true;
			continue;
		}

		if (k->foreign_ppm < TD_MUX_BELOW_PPM && !(tc->sets.every & BIT(i))) {
			k->by_time = true;
			tc->time_scaled++;
		}
		if (k->foreign_ppm < TD_PPM && k->foreign_ppm)
			k->acc.count = mul_u64_u64_div_u64(k->acc.count, TD_PPM,
							   k->foreign_ppm);
		if (r < TD_PPM && r)
			k->acc.ref = mul_u64_u64_div_u64(k->acc.ref, TD_PPM, r);
		if (n < TD_PPM && n)
			k->acc.norm = mul_u64_u64_div_u64(k->acc.norm, TD_PPM, n);
	}
}

void td_clear_acc(struct td_cpu *tc)
{
	unsigned int i;

	for (i = 0; i < tc->nr; i++) {
		tc->ctr[i].acc = (struct td_acc){ 0 };
		tc->ctr[i].acc_run = 0;
		tc->ctr[i].whole = (struct td_acc){ 0 };
		tc->ctr[i].whole_run = 0;
		tc->ctr[i].calm_lo = U32_MAX;
		tc->ctr[i].calm_hi = 0;
		tc->ctr[i].calm_count = 0;
		tc->ctr[i].calm_ref = 0;
		tc->ctr[i].calm_ns = 0;
	}
	tc->en_ns = 0;
	for (i = 0; i < TD_NR_L1; i++) {
		tc->calm.lo[i] = U32_MAX;
		tc->calm.hi[i] = 0;
	}
	tc->calm.windows = 0;
	tc->calm.broken = false;
	memset(tc->calm.node, 0, sizeof(tc->calm.node));
	tc->calm.norm = 0;
	tc->calm.ns = 0;
	if (tc->reg)
		td_reg_begin(tc->reg);
}

/*
 * The cumulative totals of an interval with fractions: its slots (cycles
 * for a cycle-based model) and each node's share of them.  Where the
 * normalizer counts cycles, the slots are those cycles times the slots
 * per cycle the CPU is counted with, as the formulas take them.
 */
static void td_add_totals(struct td_cpu *tc, u64 norm)
{
	const struct td_model *m = tc->model;
	u64 units = norm;
	unsigned int i;

	if (!m->cycle_based && !m->events[tc->sets.norm].slots)
		units = norm * m->width;
	tc->units_total += units;
	for (i = 0; i < TD_NR_L1; i++)
		tc->l1_total[i] += mul_u64_u32_div(units, tc->result.l1[i], TD_PPM);
	for (i = 0; tc->result.has_l2 && i < TD_NR_L2; i++)
		tc->l2_total[i] += mul_u64_u32_div(units, tc->result.l2[i], TD_PPM);
}

/* the sample's state flags and the model it was counted with */
static void td_fill_state(const struct td_cpu *tc, struct td_sample *s)
{
	bool counted = tc->state == TD_STATE_OK || tc->state == TD_STATE_IDLE ||
		       tc->state == TD_STATE_NOT_COUNTED;

	s->cpu = tc->cpu;
	s->state = tc->state;
	s->err = tc->err;
	s->multiplexed = counted && td_multiplexed(tc);
	s->skewed = tc->state == TD_STATE_OK && tc->skewed;
	s->core_wide = !td_closed(tc) && tc->sample_core_wide;
	s->model = tc->model ? tc->base : NULL;
	s->width = tc->model ? tc->model->width : 0;
	s->slots_from = tc->slots_from;
	s->seq = tc->seq;
	s->start_ns = tc->start_ns;
	s->end_ns = tc->end_ns;
	s->level = READ_ONCE(tc->cfg->level);
	s->nr_sets = tc->nr_sets;
	memcpy(s->counted, tc->counted, sizeof(s->counted));
}

/**
 * td_fill_sample() - @tc's latest interval and state as a sample
 * @tc:   the CPU, under its lock
 * @s:    out
 * @room: the counts @s has room for
 *
 * Its events are those of the CPU's model and level; while its counters
 * are closed (offline, stopped) every event it opened, with its totals.
 */
void td_fill_sample(const struct td_cpu *tc, struct td_sample *s,
		    unsigned int room)
{
	unsigned int i;

	td_fill_state(tc, s);
	s->result = tc->result;
	s->units_total = tc->units_total;
	memcpy(s->l1_total, tc->l1_total, sizeof(s->l1_total));
	memcpy(s->l2_total, tc->l2_total, sizeof(s->l2_total));
	s->present = 0;
	s->nr = tc->model ? min(tc->nr, room) : 0;
	for (i = 0; i < s->nr; i++) {
		const struct td_counter *k = &tc->ctr[i];
		struct td_sample_count *c = &s->counts[i];

		if (!k->event && !td_closed(tc))
			continue;	/* not opened with this SMT setting */
		s->present |= BIT(i);
		c->name = td_event_form(&tc->model->events[i], tc->fixed)->name;
		c->delta = k->delta;
		c->total = k->total;
		c->enabled = k->d_enabled;
		c->running = k->d_running;
	}
}

/* the interval just ended goes out, as one sample */
static void td_publish(struct td_cpu *tc)
{
	if (!tc->publish || !tc->sample)
		return;
	td_fill_sample(tc, tc->sample, tc->nr_ctr);
	tc->cost.ntf_msgs += tc->publish(tc->sample);
}

/*
 * The interval's count of each event (@tc->scr.c): Level 1 from the events
 * counted all the time, the others scaled by them, or estimated by the
 * regression on them; not while another perf user took counters (then
 * they are scaled as perf scales them).
 */
static void td_estimate(struct td_cpu *tc)
{
	const struct td_model *m = tc->model;
	struct td_scratch *x = &tc->scr;
	u64 node[TD_NR_L1] = { 0 };
	u32 predicted = 0;
	unsigned int i;

	memset(x->c, 0, tc->nr_ctr * sizeof(*x->c));
	for (i = 0; i < tc->nr; i++)
		x->acc[i] = tc->ctr[i].acc;
	for (i = 0; i < tc->nr; i++)
		if (tc->sets.every & tc->open & BIT(i))
			x->c[i] = x->acc[i].count;
	if (tc->open & ~tc->sets.every)
		td_sets_nodes(m, x->c, tc->core_wide, x->c[tc->sets.norm], node);
	for (i = 0; i < tc->nr; i++)
		if (tc->ctr[i].foreign_ppm < TD_MUX_BELOW_PPM)
			break;
	if (tc->reg && tc->sets.nr > 1 && i == tc->nr)
		for (i = 0; i < tc->sets.nr; i++)
			predicted |= td_reg_predict(tc->reg, &tc->sets, i,
						    tc->open & ~tc->sets.every,
						    x->c, tc->reg->pred);
	td_sets_scale(m, &tc->sets, tc->open, x->acc, node, predicted,
		      tc->reg ? tc->reg->pred : NULL, x->c);
	tc->turns = tc->sets.nr > 1 ? hweight32(tc->open & ~tc->sets.every) : 0;
	tc->regressed = hweight32(predicted);
	tc->scaled_alone += tc->regressed < tc->turns;
}

/* what an interval's counts say of how it was counted */
struct td_counted {
	u32 mux;		/* the lowest share of it any event counted */
	bool not_counted;	/* a Level 1 or 2 event did not count: no levels */
	bool l2_by_time;	/* a Level 2 event was scaled by time alone */
};

/*
 * Each event's raw counts of the interval, and its share of it counted.
 * An interval planned before another perf user was seen gave each set a
 * window or a few, and one cut by perf has only perf's running time to
 * scale it, which runs on while perf holds the PMU disabled: its level is
 * not published, and the next interval is read in slices.
 */
static void td_count_end(struct td_cpu *tc, struct td_counted *ct)
{
	const struct td_model *m = tc->model;
	unsigned int i;

	for (i = 0; i < 3; i++)
		tc->counted[i] = TD_PPM;
	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];
		unsigned int lvl = m->events[i].level;
		u32 share;

		if (!(tc->open & BIT(i)))
			continue;
		k->delta = tc->scr.c[i];
		k->total += k->delta;
		k->d_enabled = tc->en_ns;
		/* the time its windows took, less what another perf user took */
		k->d_running = min(k->acc_run, tc->en_ns);
		if (k->foreign_ppm < TD_PPM && !k->by_whole)
			k->d_running = mul_u64_u64_div_u64(k->d_running,
							   k->foreign_ppm, TD_PPM);
		share = td_frac(k->d_running, tc->en_ns);
		if (lvl >= 1 && lvl <= 3)
			tc->counted[lvl - 1] = min(tc->counted[lvl - 1], share);
		ct->mux = min(ct->mux, share);
		if (!k->d_running && lvl <= 2)
			ct->not_counted = true;	/* flagged, never taken for 0 */
		if (!tc->planned_foreign && k->by_time && lvl <= 2) {
			if (lvl <= 1)
				ct->not_counted = true;
			else
				ct->l2_by_time = true;
		}
	}
}

/*
 * Skewed when a snapshot of the interval read its counters spread over
 * more than TD_SKEW_DIV-th of it.  What is left of an interval after an end
 * put off can be short: under half its length, its passes' spreads count.
 */
static void td_skew_end(struct td_cpu *tc, u64 now)
{
	tc->skew_ns = tc->snap.ival_spread_ns;
	if (2 * (now - tc->start_ns) < td_ival_ns(tc))
		tc->skew_ns = max(tc->skew_ns, tc->snap.ival_reads_ns);
	tc->skewed = tc->skew_ns * TD_SKEW_DIV > now - tc->start_ns;
	tc->skewed_intervals += tc->skewed;
	/* the snapshot that ends it starts the next */
	tc->snap.ival_spread_ns = tc->snap.spread_ns;
	tc->snap.ival_reads_ns = tc->snap.reads_ns;
}

/* the interval's fractions and state, and the totals it adds to */
static void td_result_end(struct td_cpu *tc, const struct td_counted *ct)
{
	const struct td_model *m = tc->model;
	int ret;

	if (ct->not_counted || tc->starved || tc->cut) {
		tc->state = TD_STATE_NOT_COUNTED;
		return;
	}
	ret = m->compute(m, tc->scr.c, tc->core_wide, &tc->result);
	tc->state = ret ? TD_STATE_IDLE : TD_STATE_OK;
	if (tc->cfg->level < 2 || ct->l2_by_time)
		tc->result.has_l2 = false;
	/* the totals are of intervals counted at every level opened */
	if (!ret && !ct->l2_by_time)
		td_add_totals(tc, tc->scr.c[tc->sets.norm]);
}

/* The interval is over: scale, compute, publish. */
void td_end_interval(struct td_cpu *tc, u64 now)
{
	struct td_counted ct = { .mux = TD_PPM };
	u64 t;

	td_foreign(tc);
	td_estimate(tc);
	td_count_end(tc, &ct);
	td_calm_end(tc);
	td_clear_acc(tc);
	tc->start_ns = tc->from_ns;
	tc->end_ns = now;
	tc->from_ns = now;
	td_skew_end(tc, now);
	tc->seq++;
	tc->mux_ppm = ct.mux;
	tc->nr_sets = tc->sets.nr;
	tc->sample_core_wide = tc->core_wide;
	td_result_end(tc, &ct);
	t = ktime_get_ns();
	td_publish(tc);
	tc->cost.notify_ns += ktime_get_ns() - t;
}
