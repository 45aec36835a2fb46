// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: each CPU's sampling work: slice ends, set switches, interval ends.
 *
 * A level whose events do not fit the free counters is counted in sets
 * (td_sets.c) that take turns in time slices (td_schedule.c).  A pinned
 * hrtimer ends each slice and queues this work on the CPU, because
 * perf_event_enable() and perf_event_disable() sleep.  At each slice end
 * the work reads all the CPU's counting events at one moment
 * (td_snapshot.c), then switches sets and reads the new set's starting
 * values the same way; the normalizers and most of Level 1 stay enabled
 * across switches.  At the interval's end td_sample.c publishes it.
 */
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/workqueue.h>
#include "topdown.h"
#include "td_internal.h"

/*
 * A slice's end, or a turn's start, whose tries all met stalls is put off
 * TD_SNAP_WAIT_US, again and again for TD_SNAP_WAIT_MAX_US from its first
 * try (td_work()), before it is taken as it is
 */
#define TD_SNAP_WAIT_US		250
#define TD_SNAP_WAIT_MAX_US	5000

/*
 * every 16 intervals, a CPU short of counters (general-purpose, or a fixed
 * one given up) tries all of them again
 */
#define TD_REGROW_INTERVALS	16

/* whether a snapshot first tried at tc->snap.wait_ns may still be put off */
static bool td_may_wait(const struct td_cpu *tc, u64 t)
{
	return !tc->snap.wait_ns ||
	       t - tc->snap.wait_ns < TD_SNAP_WAIT_MAX_US * NSEC_PER_USEC;
}

/* a snapshot put off (td_snapshot(): -EAGAIN) at @t: tried again later */
static void td_wait(struct td_cpu *tc, u64 t)
{
	if (!tc->snap.wait_ns)
		tc->snap.wait_ns = t;
	tc->snap.waits++;
	tc->snap.turn_waits += tc->snap.base_wait;
	hrtimer_start(&tc->timer,
		      ns_to_ktime(ktime_get_ns() + TD_SNAP_WAIT_US * NSEC_PER_USEC),
		      HRTIMER_MODE_ABS_PINNED);
}

/* one run of a CPU's sampling work */
struct td_step {
	u64 t;			/* its start */
	u64 now;		/* the moment of its last snapshot */
	u64 sw;			/* the time a switch of sets took, ns (0: none) */
	unsigned int gen;	/* the configuration's generation it runs for */
	bool sample;		/* it ended an interval */
	bool waited;		/* it put a snapshot off: no slice ended */
};

/* the first run after the counters opened: the first interval starts */
static bool td_step_start(struct td_cpu *tc, struct td_step *st)
{
	tc->started = true;
	tc->plan.gen = st->gen;
	td_begin(tc, tc->model->gp_counters, &st->now);
	tc->from_ns = st->now;
	return true;
}

/* an interval with nothing counted: say so, and try every counter again */
static bool td_step_starved(struct td_cpu *tc, struct td_step *st)
{
	st->now = ktime_get_ns();
	td_end_interval(tc, st->now);
	st->sample = true;
	tc->plan.gen = st->gen;
	tc->fixed = tc->fixed_max;
	td_begin(tc, tc->model->gp_counters, &st->now);
	return true;
}

/*
 * A turn's start put off: the set enabled counts from now on, its turn
 * shorter by the wait, and ends as planned
 */
static bool td_step_turn(struct td_cpu *tc, struct td_step *st)
{
	int ret;

	st->waited = true;	/* not a slice's end */
	ret = td_snapshot(tc, &st->now, true, td_may_wait(tc, st->t));
	if (ret == -EAGAIN)
		td_wait(tc, st->t);
	if (ret)
		return false;
	tc->snap.base_wait = false;
	tc->snap.wait_ns = 0;
	return true;
}

/*
 * Planned calm, but the window just judged left the last calm interval's
 * range: the rest of the interval is sliced as any other, unless too
 * little of it is left for a turn of each set.
 */
static void td_step_calm_break(struct td_cpu *tc, unsigned int gen)
{
	u64 end, due;

	if (!tc->calm.plan || !tc->calm.broken || tc->plan.tick >= tc->plan.ticks ||
	    gen != tc->plan.gen)
		return;
	end = tc->plan.t0 + tc->plan.interval_ns;
	due = tc->plan.span_t0 + div64_u64(tc->plan.span_ns * tc->plan.tick, tc->plan.ticks);
	if (end - due >= (u64)tc->sets.nr * TD_SLICE_MIN_US * NSEC_PER_USEC) {
		tc->calm.intervals = 0;
		tc->calm.breaks++;
		td_plan_span(tc, due, end - due);
	}
}

/*
 * The interval is over: published, and the next one planned on the grid
 * (from now after a change of the interval, or when much late).  A counter
 * taken since, or maybe given back, makes the sets again: true then.
 */
static bool td_step_end(struct td_cpu *tc, struct td_step *st)
{
	unsigned int full = tc->model->gp_counters, missing;
	bool regrow;

	td_end_interval(tc, st->now);
	st->sample = true;
	if (st->gen != tc->plan.gen || st->now > tc->plan.t0 + 2 * tc->plan.interval_ns) {
		tc->plan.t0 = st->now;
		td_plan(tc, td_grid_len(tc, st->now));
	} else {
		tc->plan.t0 += tc->plan.interval_ns;
		td_plan(tc, td_ival_ns(tc));
	}
	tc->plan.gen = st->gen;
	missing = td_missing(tc);
	regrow = !missing && !(tc->seq % TD_REGROW_INTERVALS) &&
		 (tc->gp < full || tc->fixed < tc->fixed_max);
	if (regrow && tc->fixed < tc->fixed_max && td_fixed_free(tc))
		tc->fixed = tc->fixed_max;
	if (!missing && !regrow && td_fixed_wanted(tc, 0) < 0)
		return false;
	td_begin(tc, regrow ? full : tc->gp, &st->now);
	tc->from_ns = st->now;
	return true;
}

/*
 * The next set's turn: its starting counts read as a slice's end is, and
 * put off the same way when they are no moment (td_step_turn())
 */
static bool td_step_switch(struct td_cpu *tc, struct td_step *st)
{
	unsigned int pos = tc->plan.tick % tc->sets.nr;
	u64 s0 = ktime_get_ns();

	if (!pos)
		td_shuffle(tc);
	if (!tc->plan.tick && tc->calm.plan)
		td_calm_first(tc);
	if (tc->plan.order[pos] == tc->plan.cur)
		return true;	/* its turn again: it goes on counting */
	td_enable(tc, tc->sets.set[tc->plan.cur], false);
	tc->plan.cur = tc->plan.order[pos];
	td_enable(tc, tc->sets.set[tc->plan.cur], true);
	if (td_missing(tc)) {
		/* a counter was taken: make the sets again, from now */
		td_begin(tc, tc->gp, &st->now);
		tc->from_ns = st->now;
	} else if (td_snapshot(tc, &st->now, true, true) == -EAGAIN) {
		tc->snap.base_wait = true;
	}
	st->sw = ktime_get_ns() - s0;
	td_switch_avg(tc, st->sw);
	if (!tc->snap.base_wait)
		return true;
	td_wait(tc, s0);
	return false;
}

/*
 * A slice's end.  One whose reads met stalls in every try is tried again a
 * little later rather than spun on (td_wait()).  A new interval length or
 * cut ends the interval, but not before every set had its turn.
 */
static bool td_step_slice(struct td_cpu *tc, struct td_step *st)
{
	int ret;

	ret = td_snapshot(tc, &st->now, false, td_may_wait(tc, st->t));
	if (ret == -EAGAIN) {
		td_wait(tc, st->t);
		st->waited = true;
	}
	if (ret)
		return false;
	tc->snap.wait_ns = 0;
	tc->plan.tick++;
	td_step_calm_break(tc, st->gen);
	if ((tc->plan.tick >= tc->plan.ticks ||
	     (st->gen != tc->plan.gen && tc->plan.tick >= tc->sets.nr)) && td_step_end(tc, st))
		return true;
	return tc->sets.nr > 1 ? td_step_switch(tc, st) : true;
}

/* the timer for the slice's end; a cut waits for the round: short turns */
static void td_step_arm(struct td_cpu *tc, const struct td_step *st)
{
	u64 slice = (u64)READ_ONCE(tc->cfg->slice_us) * NSEC_PER_USEC;

	if (st->gen != tc->plan.gen)
		hrtimer_start(&tc->timer, ns_to_ktime(st->now + slice),
			      HRTIMER_MODE_ABS_PINNED);
	else
		td_arm(tc, st->now);
}

static bool td_step(struct td_cpu *tc, struct td_step *st)
{
	if (!tc->started)
		return td_step_start(tc, st);
	if (tc->starved)
		return td_step_starved(tc, st);
	if (tc->snap.base_wait)
		return td_step_turn(tc, st);
	return td_step_slice(tc, st);
}

/* the sampling work: each slice's end, on the CPU; its cost to the stats */
void td_work(struct work_struct *work)
{
	struct td_cpu *tc = container_of(work, struct td_cpu, work);
	struct td_step st = { .t = ktime_get_ns() };
	struct td_stats cost;

	mutex_lock(&tc->lock);
	/* under the lock: a kick queued after this read finds the new one */
	st.gen = READ_ONCE(tc->cfg->gen);
	if (tc->active && td_step(tc, &st))
		td_step_arm(tc, &st);
	cost = tc->cost;
	tc->cost = (struct td_stats){};
	mutex_unlock(&tc->lock);

	cost.samples = st.sample;
	cost.ticks = !st.waited;
	cost.cost_ns = ktime_get_ns() - st.t;
	cost.switch_ns = st.sw;
	cost.switches = !!st.sw;
	td_stats_add(&cost);
}

enum hrtimer_restart td_tick(struct hrtimer *timer)
{
	struct td_cpu *tc = container_of(timer, struct td_cpu, timer);

	queue_work_on(tc->cpu, system_highpri_wq, &tc->work);
	return HRTIMER_NORESTART;
}
