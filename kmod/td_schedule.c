// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: planning an interval's time slices and the event sets' turns.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "topdown.h"
#include "td_internal.h"

#define TD_MIN_ROUNDS		4
#define TD_TURN_MIN_US		2000	/* td_arm() */

/*
 * The length of an interval that starts at @now, off the grid: every
 * CPU's intervals end on the same grid, the multiples of the interval in
 * CLOCK_MONOTONIC, so the samples of all CPUs cover the same windows (as
 * perf stat -I's lines do) and come out together, and a listener wakes
 * once for all of them.  It runs to the next point of the grid, or to the
 * one after when that is less than half an interval away.
 */
u64 td_grid_len(const struct td_cpu *tc, u64 now)
{
	u64 ival = td_ival_ns(tc), rem, len;

	div64_u64_rem(now, ival, &rem);
	len = ival - rem;
	return len < ival / 2 ? len + ival : len;
}

/*
 * What td_budget_rounds() plans by: an eighth of each new switch's time,
 * that time taken as at most twice the average, so that one switch a
 * hypervisor or an interrupt stretched moves it by an eighth at most,
 * while a CPU that stays slow doubles it within six switches.
 */
void td_switch_avg(struct td_cpu *tc, u64 sw)
{
	u64 avg = tc->switch_avg_ns;

	if (!avg) {
		tc->switch_avg_ns = sw;
		return;
	}
	sw = min(sw, 2 * avg);
	tc->switch_avg_ns = avg - (avg >> 3) + (sw >> 3);
}

static unsigned long td_budget_said;	/* bit 0: dmesg said it this load */

/*
 * At most as many rounds of @tc's sets in @len ns as switch_budget_pct of
 * it allows, at what a switch has cost here lately; at least one.  Where
 * a switch costs about as much as a slice (an emulated or overcommitted
 * CPU: on 64 vCPUs emulated on one host thread a switch took longer than
 * the 1 ms slice, and the CPUs did little but switch), the turns get
 * longer instead of the machine slower.
 */
static u64 td_budget_rounds(struct td_cpu *tc, u64 len, u64 rounds)
{
	u64 most;

	if (!tc->switch_avg_ns)
		return rounds;
	most = div64_u64(len * READ_ONCE(tc->cfg->switch_pct),
			 100 * tc->sets.nr * tc->switch_avg_ns);
	if (rounds <= max_t(u64, most, 1))
		return rounds;
	tc->budget_cuts++;
	/* once a load: pr_info_once() may print twice, CPUs planning together */
	if (!test_and_set_bit(0, &td_budget_said))
		pr_info("cpu%u: a switch of event sets takes %llu us: fewer rounds of turns, switch_budget_pct=%u (info's budget_cuts counts them)\n",
			tc->cpu, div_u64(tc->switch_avg_ns, NSEC_PER_USEC),
			READ_ONCE(tc->cfg->switch_pct));
	return max_t(u64, most, 1);
}

/*
 * How many slices the span of @len ns from @from has: whole rounds of
 * every set.  The span is an interval, or its rest once a calm window
 * broke (td_work()).
 */
void td_plan_span(struct td_cpu *tc, u64 from, u64 len)
{
	u64 slice = (u64)READ_ONCE(tc->cfg->slice_us) * NSEC_PER_USEC;
	unsigned int n = tc->sets.nr;
	u64 rounds = 1;

	/*
	 * Slices of slice_us, but at least TD_MIN_ROUNDS turns of each set
	 * per interval while the slices stay TD_SLICE_MIN_US or longer: a set
	 * seen in a single window misses the phases of a short interval.
	 * And at most TD_REG_WINDOWS turns, longer slices beyond: that is all
	 * a set's regression remembers (td_reg.h), so more windows would
	 * only fit it to the interval's end, and each switch costs a
	 * rescheduling of the CPU's events per event enabled (1 ms slices
	 * were 6 % of each emulated CPU at 1 s intervals, spr Level 3).
	 */
	tc->calm_plan = false;
	if (n > 1) {
		u64 floor = min_t(u64, TD_MIN_ROUNDS,
				  div64_u64(len, n * TD_SLICE_MIN_US * NSEC_PER_USEC));

		rounds = min_t(u64, div64_u64(len, n * slice), TD_REG_WINDOWS);
		rounds = max3(rounds, floor, (u64)1);
		/*
		 * A calm CPU, one turn each: its windows agree, so more of
		 * them only cost switches (each a rescheduling of the CPU's
		 * events per event enabled; a steady spr Level 3 CPU at 100
		 * ms, TCG: the module's work per sample 2496 us with two
		 * turns, 1371 with one).  A phase that starts in such an
		 * interval has only that interval's turns and the regression
		 * on Level 1 for the events that took turns; the next is
		 * sliced again, its windows no longer calm.  Not while
		 * another perf user takes counters: its rotation cuts windows,
		 * and the counts come from the ones it did not cut.
		 */
		tc->calm_plan = tc->calm >= TD_CALM_INTERVALS && !tc->foreign &&
				rounds > TD_CALM_ROUNDS;
		if (tc->calm_plan)
			rounds = TD_CALM_ROUNDS;
		rounds = td_budget_rounds(tc, len, rounds);
	} else if (tc->foreign) {
		/* one set, but windows that perf's rotation does not cut */
		rounds = max_t(u64, div64_u64(len, slice), 1);
	}
	tc->ticks = n * rounds;
	tc->tick = 0;
	tc->span_t0 = from;
	tc->span_ns = len;
}

/* the coming interval, @len ns from td_cpu.t0 */
void td_plan(struct td_cpu *tc, u64 len)
{
	tc->interval_ns = len;
	tc->planned_foreign = tc->foreign;
	td_plan_span(tc, tc->t0, len);
}

/*
 * The end of the slice that starts at @now: as planned on the grid, but a
 * turn at least half its slice (TD_TURN_MIN_US at most) however late the
 * last slice ended.  A timer late by most of a slice left the next turn a
 * few hundred microseconds, the set's only window of a calm interval, and
 * a window's count is off by its reads' offsets, a microsecond or so
 * under TCG: steady spr Level 3 CPUs at 10 ms, 6 intervals of ~38,000, 2-7
 * ms long, whose Level 2 set ran 0.18-0.29 ms, 0.10-0.14 points off.  The
 * interval then ends that much after its grid point, the next one on it.
 */
void td_arm(struct td_cpu *tc, u64 now)
{
	u64 at = tc->span_t0 + div64_u64(tc->span_ns * (tc->tick + 1), tc->ticks);
	u64 turn = min_t(u64, div64_u64(tc->span_ns, 2 * tc->ticks),
			 TD_TURN_MIN_US * NSEC_PER_USEC);

	hrtimer_start(&tc->timer, ns_to_ktime(max(at, now + turn)),
		      HRTIMER_MODE_ABS_PINNED);
}

/*
 * A new order for the sets' turns in the next round.  Each set still gets
 * exactly one slice per round, but its place in the round is random: in a
 * fixed order each set would see the same part of any workload whose
 * period is a multiple of the round's (a loop of 24 ms against two sets of
 * 4 ms), and its counts would be those of that part alone.
 *
 * Letting the set that ended a round start the next (one switch fewer a
 * round with three sets or more) was tried: make bench-accuracy's p90s
 * were about twice as large at 100 ms (spr Level 3 0.013 -> 0.025 pp, icl
 * 0.021 -> 0.038, skl Level 2 0.041 -> 0.072; one run each): a set's two
 * turns then lie side by side and see less of the interval's phases.
 */
void td_shuffle(struct td_cpu *tc)
{
	unsigned int i, j;

	for (i = 0; i < tc->sets.nr; i++)
		tc->order[i] = i;
	for (i = tc->sets.nr; i > 1; i--) {
		j = get_random_u32() % i;	/* swap() evaluates it twice */
		swap(tc->order[i - 1], tc->order[j]);
	}
}

/*
 * A calm interval's one round starts with the set counting as it begins,
 * which goes on counting: n - 1 switches an interval for n sets, not
 * n - 1/n (spr Level 3, steady, 10 ms, in instructions on 1 vCPU: 2.68 ->
 * 2.00 switches and 132 -> 110 us of work a sample).  The set's two turns
 * then lie side by side across the grid point, which a calm CPU's
 * windows, agreeing, do not mind; a phase that breaks the calm re-plans
 * the rest of the interval in rounds of free order (td_work()).
 */
void td_calm_first(struct td_cpu *tc)
{
	unsigned int i;

	for (i = 1; i < tc->sets.nr; i++)
		if (tc->order[i] == tc->cur) {
			swap(tc->order[0], tc->order[i]);
			return;
		}
}

/*
 * Enable the counters of the first set with the ones counted all the time.
 * Where some do not get a counter (the NMI watchdog or another perf user
 * holds one), fewer counters are taken to be free and the sets are made
 * again, until they fit.  Returns 0 or -ENOSPC.
 */
static int td_start_sets(struct td_cpu *tc)
{
	unsigned int missing, used;
	int ret = 0, i;

	for (;;) {
		if (!ret) {
			td_reform(tc);
			td_shuffle(tc);
			tc->cur = tc->order[0];
			td_enable(tc, td_on(tc), true);
			missing = td_missing(tc);
			i = td_fixed_wanted(tc, missing);
			if (!missing && i < 0) {
				td_find_held(tc);
				return 0;
			}
			td_enable(tc, tc->open, false);
			/*
			 * Free: the counters the set tried took, not all it
			 * assumed (a set of 7 of 8, one missing, found 6:
			 * taken as 7, the next set of 7 made the sets again
			 * and its regression started over)
			 */
			used = td_sets_gp_used(tc->model, td_on(tc), tc->fixed);
			if (i < 0 && used > missing) {
				pr_info_ratelimited("cpu%u: %u of its events found no counter: %u general-purpose counters taken as free, not %u\n",
						    tc->cpu, missing, used - missing, tc->gp);
				tc->gp = used - missing;
				tc->restarts++;
				ret = td_sets_build(tc->model, tc->open, tc->gp,
						    tc->fixed, &tc->sets);
				continue;
			}
		} else {
			/* no sets fit: a fixed counter given up may free ours */
			i = -1;
		}
		if (i < 0)
			i = td_fixed_held(tc);
		if (i < 0)
			return ret ?: -ENOSPC;
		pr_info_ratelimited("cpu%u: fixed counter %d left to other perf users: counting %s instead of %s\n",
				    tc->cpu, tc->model->events[i].fixed,
				    tc->model->events[i].gp_form->name,
				    tc->model->events[i].name);
		tc->fixed = tc->model->events[i].fixed;
		tc->gp = tc->model->gp_counters;
		tc->restarts++;
		ret = td_sets_build(tc->model, tc->open, tc->gp, tc->fixed,
				    &tc->sets);
	}
}

/*
 * (Re)start counting from now with @gp general-purpose counters taken as
 * free: a new interval, nothing accumulated.  When not even the normalizer
 * with one more event gets counters, the CPU is "starved": its intervals
 * are not counted, and each one tries again with every counter.
 */
void td_begin(struct td_cpu *tc, unsigned int gp, u64 *now)
{
	struct td_sets old = tc->sets;
	int ret;

	td_enable(tc, tc->open, false);
	tc->gp = gp;
	tc->snap_wait_ns = 0;	/* a snapshot put off: not this one's */
	tc->base_wait = false;
	tc->calm = 0;	/* new sets, or the same after a change: slices again */
	tc->calm_plan = false;
	ret = td_sets_build(tc->model, tc->open, tc->gp, tc->fixed, &tc->sets);
	if (!ret)
		ret = td_start_sets(tc);
	*now = ktime_get_ns();
	tc->starved = ret != 0;
	/*
	 * What the regression learnt stays while the sets do: a CPU short of
	 * a counter tries them all again every TD_REGROW_INTERVALS and comes
	 * back to the same sets.  (struct td_sets has no padding.)
	 */
	if (!tc->starved && tc->sets.nr > 1 &&
	    (!tc->reg || memcmp(&old, &tc->sets, sizeof(old)))) {
		size_t size = td_reg_size(tc->sets.nr, tc->nr);

		if (tc->reg_size < size) {
			kvfree(tc->reg);
			tc->reg = kvmalloc(size, GFP_KERNEL);
			tc->reg_size = tc->reg ? size : 0;
		}
		if (tc->reg)
			td_reg_init(tc->reg, &tc->sets, tc->nr);
	}
	if (tc->starved) {
		td_enable(tc, tc->open, false);
		tc->sets.nr = 1;
		tc->sets.every = 0;
		tc->sets.set[0] = 0;
		tc->cur = 0;
		pr_info_ratelimited("cpu%u: no counters free for %s's normalizer and one more event: not counted\n",
				    tc->cpu, tc->model->name);
	} else {
		td_snapshot(tc, now, true, false);
	}
	/*
	 * The interval starts here, so does the time off counters it counts
	 * (td_foreign()): an attempt above that left events waiting for a
	 * counter is not another perf user's.  (A CPU short of a counter
	 * tries them all every TD_REGROW_INTERVALS; counted in the next
	 * interval, its events missing from the attempt made it multiplexed
	 * and unregressed: 1 in 16.  spr on 6 counters at 10 ms, a phased
	 * CPU's Level 2 in 2 sets, TCG: worst interval of 120 0.7-1.6
	 * points off in three runs, 0.08-0.10 since.)
	 */
	td_base_gaps(tc);
	tc->ival_spread_ns = tc->starved ? 0 : tc->snap_spread_ns;
	tc->ival_reads_ns = tc->starved ? 0 : tc->snap_reads_ns;
	td_clear_acc(tc);
	tc->t0 = *now;
	td_plan(tc, td_grid_len(tc, *now));
}
