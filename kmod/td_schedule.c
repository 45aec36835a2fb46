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
 * Intervals end on one CLOCK_MONOTONIC grid, so all CPUs' samples cover the
 * same windows and a listener wakes once; a stub shorter than half an
 * interval joins the next one.
 */
u64 td_grid_len(const struct td_cpu *tc, u64 now)
{
	u64 ival = td_ival_ns(tc), rem, len;

	div64_u64_rem(now, ival, &rem);
	len = ival - rem;
	return len < ival / 2 ? len + ival : len;
}

/*
 * Average switch cost, each sample clamped to twice the average: a switch
 * stretched by a hypervisor or an interrupt moves it little.
 */
void td_switch_avg(struct td_cpu *tc, u64 sw)
{
	u64 avg = tc->plan.switch_avg_ns;

	if (!avg) {
		tc->plan.switch_avg_ns = sw;
		return;
	}
	sw = min(sw, 2 * avg);
	tc->plan.switch_avg_ns = avg - (avg >> 3) + (sw >> 3);
}

static unsigned long td_budget_said;	/* bit 0: dmesg said it this load */

/*
 * Cap the rounds so that switching takes at most switch_budget_pct of @len:
 * on an emulated or overcommitted CPU, longer turns rather than a slower
 * machine.  At least one.
 */
static u64 td_budget_rounds(struct td_cpu *tc, u64 len, u64 rounds)
{
	u64 most;

	if (!tc->plan.switch_avg_ns)
		return rounds;
	most = div64_u64(len * READ_ONCE(tc->cfg->switch_pct),
			 100 * tc->sets.nr * tc->plan.switch_avg_ns);
	if (rounds <= max_t(u64, most, 1))
		return rounds;
	tc->plan.budget_cuts++;
	/* once a load: pr_info_once() may print twice, CPUs planning together */
	if (!test_and_set_bit(0, &td_budget_said))
		pr_info("cpu%u: a switch of event sets takes %llu us: fewer rounds of turns, switch_budget_pct=%u (info's budget_cuts counts them)\n",
			tc->cpu, div_u64(tc->plan.switch_avg_ns, NSEC_PER_USEC),
			READ_ONCE(tc->cfg->switch_pct));
	return max_t(u64, most, 1);
}

/*
 * Plan the span of @len ns from @from as whole rounds of every set.  The
 * span is an interval, or its rest once a calm window broke (td_work()).
 */
void td_plan_span(struct td_cpu *tc, u64 from, u64 len)
{
	u64 slice = (u64)READ_ONCE(tc->cfg->slice_us) * NSEC_PER_USEC;
	unsigned int n = tc->sets.nr;
	u64 rounds = 1;

	/*
	 * At least TD_MIN_ROUNDS turns per set, so that a set sees a short
	 * interval's phases, and at most TD_REG_WINDOWS, all that a set's
	 * regression keeps (td_reg.h): each switch reschedules every event.
	 */
	tc->calm.plan = false;
	if (n > 1) {
		u64 floor = min_t(u64, TD_MIN_ROUNDS,
				  div64_u64(len, n * TD_SLICE_MIN_US * NSEC_PER_USEC));

		rounds = min_t(u64, div64_u64(len, n * slice), TD_REG_WINDOWS);
		rounds = max3(rounds, floor, (u64)1);
		/*
		 * A calm CPU's windows agree: one turn each saves switches.
		 * Not while another perf user's rotation cuts windows.
		 */
		tc->calm.plan = tc->calm.intervals >= TD_CALM_INTERVALS && !tc->foreign &&
				rounds > TD_CALM_ROUNDS;
		if (tc->calm.plan)
			rounds = TD_CALM_ROUNDS;
		rounds = td_budget_rounds(tc, len, rounds);
	} else if (tc->foreign) {
		/* one set, but windows that perf's rotation does not cut */
		rounds = max_t(u64, div64_u64(len, slice), 1);
	}
	tc->plan.ticks = n * rounds;
	tc->plan.tick = 0;
	tc->plan.span_t0 = from;
	tc->plan.span_ns = len;
}

/* the coming interval, @len ns from td_cpu.t0 */
void td_plan(struct td_cpu *tc, u64 len)
{
	tc->plan.interval_ns = len;
	tc->planned_foreign = tc->foreign;
	td_plan_span(tc, tc->plan.t0, len);
}

/*
 * End the slice that starts at @now at its planned point, but give the turn
 * at least half a slice (at most TD_TURN_MIN_US) however late the timer was:
 * a very short window's count is mostly its reads' offsets.
 */
void td_arm(struct td_cpu *tc, u64 now)
{
	const struct td_plan *p = &tc->plan;
	u64 at = p->span_t0 + div64_u64(p->span_ns * (p->tick + 1), p->ticks);
	u64 turn = min_t(u64, div64_u64(p->span_ns, 2 * p->ticks),
			 TD_TURN_MIN_US * NSEC_PER_USEC);

	hrtimer_start(&tc->timer, ns_to_ktime(max(at, now + turn)),
		      HRTIMER_MODE_ABS_PINNED);
}

/*
 * A new random order of the sets' turns: in a fixed order a set would see
 * only the same part of a workload whose period is a multiple of a round.
 * Letting the last set start the next round saves a switch, but sees less.
 */
void td_shuffle(struct td_cpu *tc)
{
	unsigned int i, j;

	for (i = 0; i < tc->sets.nr; i++)
		tc->plan.order[i] = i;
	for (i = tc->sets.nr; i > 1; i--) {
		j = get_random_u32() % i;	/* swap() evaluates it twice */
		swap(tc->plan.order[i - 1], tc->plan.order[j]);
	}
}

/*
 * A calm interval's single round starts with the set already counting, one
 * switch fewer; calm windows do not mind that set's two turns lying side by
 * side across the grid point.
 */
void td_calm_first(struct td_cpu *tc)
{
	unsigned int i;

	for (i = 1; i < tc->sets.nr; i++)
		if (tc->plan.order[i] == tc->plan.cur) {
			swap(tc->plan.order[0], tc->plan.order[i]);
			return;
		}
}

/*
 * Enable the first set with the events counted all the time.  Where some
 * get no counter (the NMI watchdog or another perf user holds one), fewer
 * counters are taken as free and the sets rebuilt.  Returns 0 or -ENOSPC.
 */
static int td_start_sets(struct td_cpu *tc)
{
	unsigned int missing, used;
	int ret = 0, i;

	for (;;) {
		if (!ret) {
			td_reform(tc);
			td_shuffle(tc);
			tc->plan.cur = tc->plan.order[0];
			td_enable(tc, td_on(tc), true);
			missing = td_missing(tc);
			i = td_fixed_wanted(tc, missing);
			if (!missing && i < 0) {
				td_find_held(tc);
				return 0;
			}
			td_enable(tc, tc->open, false);
			/*
			 * Free: what the set did take, or the next set would
			 * rebuild the sets and restart the regression.
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

/* a regression for the new sets, sized for them (NULL when that failed) */
static void td_reg_renew(struct td_cpu *tc)
{
	size_t size = td_reg_size(tc->sets.nr, tc->nr);

	if (tc->reg_size < size) {
		kvfree(tc->reg);
		tc->reg = kvmalloc(size, GFP_KERNEL);
		tc->reg_size = tc->reg ? size : 0;
	}
	if (tc->reg)
		td_reg_init(tc->reg, &tc->sets, tc->nr);
}

/*
 * (Re)start counting from now with @gp general-purpose counters taken as
 * free.  When not even the normalizer and one more event get counters, the
 * CPU is "starved": not counted, and each interval retries with them all.
 */
void td_begin(struct td_cpu *tc, unsigned int gp, u64 *now)
{
	struct td_sets old = tc->sets;
	int ret;

	td_enable(tc, tc->open, false);
	tc->gp = gp;
	tc->snap.wait_ns = 0;	/* a snapshot put off: not this one's */
	tc->snap.base_wait = false;
	tc->calm.intervals = 0;	/* new sets, or the same after a change: slices again */
	tc->calm.plan = false;
	ret = td_sets_build(tc->model, tc->open, tc->gp, tc->fixed, &tc->sets);
	if (!ret)
		ret = td_start_sets(tc);
	*now = ktime_get_ns();
	tc->starved = ret != 0;
	/*
	 * Keep what the regression learnt while the sets stay: a CPU short of a
	 * counter retries every TD_REGROW_INTERVALS and comes back to the same
	 * sets.  (struct td_sets has no padding.)
	 */
	if (!tc->starved && tc->sets.nr > 1 &&
	    (!tc->reg || memcmp(&old, &tc->sets, sizeof(old))))
		td_reg_renew(tc);
	if (tc->starved) {
		td_enable(tc, tc->open, false);
		tc->sets.nr = 1;
		tc->sets.every = 0;
		tc->sets.set[0] = 0;
		tc->plan.cur = 0;
		pr_info_ratelimited("cpu%u: no counters free for %s's normalizer and one more event: not counted\n",
				    tc->cpu, tc->model->name);
	} else {
		td_snapshot(tc, now, true, false);
	}
	/*
	 * The interval and its time off counters (td_foreign()) start here:
	 * events an attempt above left waiting are not another perf user's.
	 */
	td_base_gaps(tc);
	tc->snap.ival_spread_ns = tc->starved ? 0 : tc->snap.spread_ns;
	tc->snap.ival_reads_ns = tc->starved ? 0 : tc->snap.reads_ns;
	td_clear_acc(tc);
	tc->plan.t0 = *now;
	td_plan(tc, td_grid_len(tc, *now));
}
