// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: each CPU's sampling work: slice ends, set switches, interval ends.
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

/* whether a snapshot first tried at tc->snap_wait_ns may still be put off */
static bool td_may_wait(const struct td_cpu *tc, u64 t)
{
	return !tc->snap_wait_ns ||
	       t - tc->snap_wait_ns < TD_SNAP_WAIT_MAX_US * NSEC_PER_USEC;
}

/* a snapshot put off (td_snapshot(): -EAGAIN) at @t: tried again later */
static void td_wait(struct td_cpu *tc, u64 t)
{
	if (!tc->snap_wait_ns)
		tc->snap_wait_ns = t;
	tc->snap_waits++;
	tc->snap_turn_waits += tc->base_wait;
	hrtimer_start(&tc->timer,
		      ns_to_ktime(ktime_get_ns() + TD_SNAP_WAIT_US * NSEC_PER_USEC),
		      HRTIMER_MODE_ABS_PINNED);
}

void td_work(struct work_struct *work)
{
	struct td_cpu *tc = container_of(work, struct td_cpu, work);
	u64 t = ktime_get_ns(), now, sw = 0;
	struct td_stats cost;
	unsigned int gen, full;
	bool sample = false, regrow, waited = false;
	int ret;

	mutex_lock(&tc->lock);
	/* under the lock: a kick queued after this read finds the new one */
	gen = READ_ONCE(tc->cfg->gen);
	if (!tc->active)
		goto unlock;
	full = tc->model->gp_counters;
	if (!tc->started) {
		tc->started = true;
		tc->gen = gen;
		td_begin(tc, full, &now);
		tc->from_ns = now;
		goto arm;
	}
	if (tc->starved) {
		/* an interval with nothing counted: say so, and try again */
		now = ktime_get_ns();
		td_end_interval(tc, now);
		sample = true;
		tc->gen = gen;
		tc->fixed = tc->fixed_max;
		td_begin(tc, full, &now);
		goto arm;
	}
	/*
	 * A turn's start put off (below): the set enabled counts from now on,
	 * its turn shorter by the wait, and ends as planned (td_arm(): but at
	 * least half a slice)
	 */
	if (tc->base_wait) {
		waited = true;	/* not a slice's end */
		ret = td_snapshot(tc, &now, true, td_may_wait(tc, t));
		if (ret == -EAGAIN)
			td_wait(tc, t);
		if (ret)
			goto unlock;
		tc->base_wait = false;
		tc->snap_wait_ns = 0;
		goto arm;
	}
	/*
	 * A slice's end whose reads met stalls in every try (a vCPU the host
	 * keeps descheduling: under TCG on a loaded host, every read 30 us for
	 * a millisecond or more) is tried again a little later rather than
	 * spun on: the window being ended is longer, and its counts and the
	 * next one's are of one moment.  Taken spread, one 10 ms interval in
	 * a few hundred was a point or more off, a steady CPU's as well.
	 */
	ret = td_snapshot(tc, &now, false, td_may_wait(tc, t));
	if (ret == -EAGAIN) {
		td_wait(tc, t);
		waited = true;
		goto unlock;
	}
	if (ret)
		goto unlock;
	tc->snap_wait_ns = 0;
	tc->tick++;
	/*
	 * Planned calm, but the span judged as the window ended left the last
	 * calm interval's range: the phase changed.  The rest of the interval,
	 * from this tick's time to its end on the grid, is sliced as any
	 * other, so that the new phase is seen in many windows of each set
	 * and not in one or two; unless too little of it is left for a turn
	 * of TD_SLICE_MIN_US per set (the interval is not calm then either:
	 * td_calm_end()).
	 */
	if (tc->calm_plan && tc->calm_broken && tc->tick < tc->ticks &&
	    gen == tc->gen) {
		u64 end = tc->t0 + tc->interval_ns;
		u64 due = tc->span_t0 + div64_u64(tc->span_ns * tc->tick, tc->ticks);

		if (end - due >= (u64)tc->sets.nr * TD_SLICE_MIN_US * NSEC_PER_USEC) {
			tc->calm = 0;
			tc->calm_breaks++;
			td_plan_span(tc, due, end - due);
		}
	}
	/*
	 * A new interval length or an end-interval request ends this one
	 * now, but not before every set has had its turn: cut in its first
	 * round, an interval had sets that never counted (not counted; a
	 * cut just after a grid point did so in tdnl stat's window).  It
	 * ends with the round instead, its sets' turns then slice_us each
	 * (at arm: below), whatever the interval's own slices.
	 */
	if (tc->tick >= tc->ticks ||
	    (gen != tc->gen && tc->tick >= tc->sets.nr)) {
		unsigned int missing;

		td_end_interval(tc, now);
		sample = true;
		/*
		 * The next interval on the grid; from now, to the grid, after
		 * a change of the interval or when (much) late
		 */
		if (gen != tc->gen || now > tc->t0 + 2 * tc->interval_ns) {
			tc->t0 = now;
			td_plan(tc, td_grid_len(tc, now));
		} else {
			tc->t0 += tc->interval_ns;
			td_plan(tc, td_ival_ns(tc));
		}
		tc->gen = gen;
		/* a counter taken since, or maybe given back: make the sets again */
		missing = td_missing(tc);
		regrow = !missing && !(tc->seq % TD_REGROW_INTERVALS) &&
			 (tc->gp < full || tc->fixed < tc->fixed_max);
		if (regrow && tc->fixed < tc->fixed_max && td_fixed_free(tc))
			tc->fixed = tc->fixed_max;
		if (missing || regrow || td_fixed_wanted(tc, 0) >= 0) {
			td_begin(tc, regrow ? full : tc->gp, &now);
			tc->from_ns = now;
			goto arm;
		}
	}
	if (tc->sets.nr > 1) {
		u64 s0 = ktime_get_ns();
		unsigned int pos = tc->tick % tc->sets.nr;

		if (!pos)
			td_shuffle(tc);
		if (!tc->tick && tc->calm_plan)
			td_calm_first(tc);
		if (tc->order[pos] == tc->cur)
			goto arm;	/* its turn again: it goes on counting */
		td_enable(tc, tc->sets.set[tc->cur], false);
		tc->cur = tc->order[pos];
		td_enable(tc, tc->sets.set[tc->cur], true);
		if (td_missing(tc)) {
			/* a counter was taken: make the sets again, from now */
			td_begin(tc, tc->gp, &now);
			tc->from_ns = now;
		} else if (td_snapshot(tc, &now, true, true) == -EAGAIN) {
			/*
			 * The new set's starting counts, put off as a slice's
			 * end is: taken spread, at other moments than the
			 * normalizer's, they were the one failure left of
			 * topdown/phases.py at 10 ms on a loaded host (an icl
			 * Level 3 interval 0.82 points off)
			 */
			tc->base_wait = true;
		}
		sw = ktime_get_ns() - s0;
		td_switch_avg(tc, sw);
		if (tc->base_wait) {
			td_wait(tc, s0);
			goto unlock;
		}
	}
arm:
	if (gen != tc->gen)	/* a cut waits for the round: short turns */
		hrtimer_start(&tc->timer,
			      ns_to_ktime(now + (u64)READ_ONCE(tc->cfg->slice_us) * NSEC_PER_USEC),
			      HRTIMER_MODE_ABS_PINNED);
	else
		td_arm(tc, now);
unlock:
	cost = tc->cost;
	tc->cost = (struct td_stats){};
	mutex_unlock(&tc->lock);

	cost.samples = sample;
	cost.ticks = !waited;
	cost.cost_ns = ktime_get_ns() - t;
	cost.switch_ns = sw;
	cost.switches = !!sw;
	td_stats_add(&cost);
}

enum hrtimer_restart td_tick(struct hrtimer *timer)
{
	struct td_cpu *tc = container_of(timer, struct td_cpu, timer);

	queue_work_on(tc->cpu, system_highpri_wq, &tc->work);
	return HRTIMER_NORESTART;
}
