// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: reading all of a CPU's counters at one moment.
 */
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/irqflags.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "topdown.h"
#include "td_internal.h"
#include "td_perf.h"

/*
 * A snapshot's tries (td_snapshot()): at most TD_SNAP_MAX_TRIES; on the
 * last, a read that a stall stretched is read again alone, up to
 * TD_SNAP_REREADS times
 */
#define TD_SNAP_MAX_TRIES	4
#define TD_SNAP_REREADS		3
#define TD_SNAP_SLACK_NS	2000

/*
 * One pass over a CPU's counting counters, interrupts off: the moment of
 * each read, the span of them all, and how they went
 */
struct td_pass {
	u32 on;			/* the counters read */
	u32 running;		/* of those, the ones on their counter */
	u64 t0, t1;		/* the pass's start and end */
	u64 lo, hi;		/* the earliest and the latest read's moment */
	u64 first, end;		/* the first kept read's start, the last's end */
	u64 spread;		/* taken slow: from @first to @end, else 0 */
	u64 slack;		/* a read that took longer was held up */
	unsigned int try;	/* 1 for the first */
	bool cut;		/* a read took too long: the pass is no moment */
	bool stretched;		/* a read stayed too long, read again alone */
};

/*
 * Counter @i, read from @p->t1 on: its moment is the middle of its
 * shortest read.  A read that took longer than a whole pass should (an
 * NMI, an SMI, a vCPU the host descheduled) leaves the counts before it at
 * another moment than those after: the pass is cut, unless @reread, the
 * last try of a snapshot that cannot wait, reads it again alone.
 */
static void td_pass_read(struct td_cpu *tc, struct td_pass *p, unsigned int i,
			 bool reread)
{
	struct perf_event *ev = tc->ctr[i].event;
	u64 best = U64_MAX, after, r, v = 0, ts = 0, en, run, gap;
	unsigned int n;
	bool on;

	for (n = 1; ; n++) {
		/* its times are current unless it waits for a counter */
		on = !td_perf_read_local(ev, &r, &en, &run);
		gap = on ? en - run : 0;
		after = ktime_get_ns();
		if (after - p->t1 < best) {
			best = after - p->t1;
			v = r;
			ts = p->t1 + best / 2;
		}
		if (after - p->t1 <= p->slack)
			break;
		if (!reread) {
			p->cut = true;
			break;
		}
		if (n == TD_SNAP_REREADS) {
			p->stretched = true;
			break;
		}
		tc->snap.rereads++;
		p->t1 = after;
	}
	tc->scr.v[i] = v;
	tc->scr.ts[i] = ts;
	p->lo = min(p->lo, ts);
	p->hi = max(p->hi, ts);
	p->first = min(p->first, ts - best / 2);
	p->end = max(p->end, ts - best / 2 + best);
	tc->scr.gap[i] = gap;
	if (on)
		p->running |= BIT(i);
	p->t1 = after;
}

/* one pass, on the CPU with interrupts off; -ENXIO off it */
static int td_pass(struct td_cpu *tc, struct td_pass *p, bool reread)
{
	/* a local copy: the reads' calls cannot see it, so it stays in registers */
	struct td_pass q = {
		.on = p->on, .try = p->try, .lo = U64_MAX, .first = U64_MAX,
		.slack = TD_SNAP_SLACK_NS + tc->snap.min_ns,
	};
	unsigned long flags;
	unsigned int i;

	local_irq_save(flags);
	if (smp_processor_id() != tc->cpu) {
		local_irq_restore(flags);
		return -ENXIO;
	}
	q.t0 = ktime_get_ns();
	q.t1 = q.t0;
	for (i = 0; i < tc->nr && !q.cut; i++)
		if ((q.on & BIT(i)) && tc->ctr[i].event)
			td_pass_read(tc, &q, i, reread);
	local_irq_restore(flags);
	*p = q;
	/* the first pass is what any reader pays; the passes after are ours */
	if (p->try == 1 && !tc->snap.wait_ns)
		tc->cost.read_ns += p->t1 - p->t0;
	else
		tc->cost.reread_ns += p->t1 - p->t0;
	return 0;
}

/*
 * Passes until one is one moment: nothing stopped the CPU between its
 * reads, so it took little longer than the fastest seen.  Interrupts are
 * allowed between tries.  A last try still too long is left for later
 * (@may_wait: -EAGAIN), or taken as it is, each read alone, and counted
 * slow when its reads lie further apart than a pass may take.
 */
static int td_passes(struct td_cpu *tc, struct td_pass *p, bool may_wait)
{
	bool last;
	u64 limit;
	int ret;

	p->spread = 0;
	for (p->try = 1; ; p->try++) {
		last = p->try == TD_SNAP_MAX_TRIES;
		ret = td_pass(tc, p, last && !may_wait);
		if (ret)
			return ret;
		if (p->cut && last)
			return -EAGAIN;
		if (p->cut) {
			tc->snap.retries++;
			continue;
		}
		if (!tc->snap.min_ns || p->t1 - p->t0 < tc->snap.min_ns)
			tc->snap.min_ns = p->t1 - p->t0;
		limit = 2 * tc->snap.min_ns + TD_SNAP_SLACK_NS;
		if (p->t1 - p->t0 <= limit)
			return 0;
		if (last && may_wait)
			return -EAGAIN;
		if (last)
			break;
		tc->snap.retries++;
	}
	if (p->stretched || p->hi - p->lo > limit) {
		tc->snap.slow++;
		tc->snap.max_ns = max(tc->snap.max_ns, p->t1 - p->t0);
		p->spread = p->end > p->first ? p->end - p->first : 0;
	}
	return 0;
}

/* the window since the last snapshot, per counter that counted in it */
struct td_window {
	u32 had;		/* counted through the window */
	u32 whole;		/* and no other perf user took any of it */
	u32 aligned;		/* counted all the time: ends at the normalizer's moment */
	u64 span;		/* the window's length, ns */
	u64 norm_ns;		/* the normalizer's window, ns (0: none) */
	bool calm;		/* long enough, and no switch: calm judges it */
	u64 node[TD_NR_L1];	/* its Level 1, in normalizer units */
};

/*
 * Each counter's count of the window, taken over the normalizer's window
 * (@x->w): a child and its parent divided over a short slice must cover the
 * same time.  One counted all the time and read after the normalizer ends
 * its window there too (@aligned), so its windows still add up to its raw
 * count; not over a switch (@switched), whose span perf held the PMU
 * disabled for.
 */
static void td_window_counts(struct td_cpu *tc, const struct td_pass *p,
			     struct td_window *wn, bool switched)
{
	const struct td_sets *s = &tc->sets;
	struct td_scratch *x = &tc->scr;
	unsigned int i;
	u64 ns;

	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];

		if (!(p->on & BIT(i)) || !k->event || !k->based)
			continue;
		wn->had |= BIT(i);
		x->d[i] = x->v[i] - k->last;
		if (k->snap_on && (p->running & BIT(i)) && x->gap[i] == k->snap_gap)
			wn->whole |= BIT(i);
	}
	if (wn->had & BIT(s->norm)) {
		tc->en_ns += wn->span;
		wn->norm_ns = x->ts[s->norm] - tc->ctr[s->norm].last_ns;
	}
	for (i = 0; i < tc->nr; i++) {
		if (!(wn->had & BIT(i)))
			continue;
		ns = x->ts[i] - tc->ctr[i].last_ns;
		x->w[i] = x->d[i];
		if (wn->norm_ns && ns && ns != wn->norm_ns)
			x->w[i] = mul_u64_u64_div_u64(x->d[i], wn->norm_ns, ns);
		if (wn->norm_ns && ns >= wn->norm_ns && (s->every & BIT(i)) && !switched)
			wn->aligned |= BIT(i);
	}
}

/*
 * The window's Level 1 nodes, from the counters counted all the time: they
 * scale the events of the set that counted, and calm judges them
 */
static void td_window_nodes(struct td_cpu *tc, struct td_window *wn)
{
	const struct td_sets *s = &tc->sets;
	struct td_scratch *x = &tc->scr;
	bool judge = wn->calm && td_l1_always(tc);
	unsigned int i;

	for (i = 0; i < tc->nr; i++)
		if ((wn->had & ~s->every & BIT(i)) && s->node[i] != TD_NO_NODE)
			break;
	if ((i == tc->nr && !judge) || (wn->had & s->every) != (s->every & tc->open))
		return;
	memset(x->c, 0, tc->nr_ctr * sizeof(*x->c));
	for (i = 0; i < tc->nr; i++)
		if (s->every & BIT(i))
			x->c[i] = x->w[i];
	td_sets_nodes(tc->model, x->c, tc->core_wide, x->d[s->norm], wn->node);
	if (judge)
		td_calm_window(tc, wn->node, x->d[s->norm], wn->span);
}

static void td_acc_add(struct td_acc *to, const struct td_acc *a)
{
	to->count += a->count;
	to->ref += a->ref;
	to->norm += a->norm;
}

/* the window's counts added to each counter's interval */
static void td_window_add(struct td_cpu *tc, const struct td_window *wn)
{
	const struct td_sets *s = &tc->sets;
	struct td_scratch *x = &tc->scr;
	unsigned int i;

	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];
		struct td_acc a = { 0 };

		if (!(wn->had & BIT(i)))
			continue;
		a.count = s->every & BIT(i) && !(wn->aligned & BIT(i)) ? x->d[i] : x->w[i];
		if (s->node[i] != TD_NO_NODE)
			a.ref = wn->node[s->node[i]];
		else if (wn->had & BIT(s->ref[i]))
			a.ref = x->w[s->ref[i]];
		if (wn->had & BIT(s->norm))
			a.norm = x->d[s->norm];
		td_acc_add(&k->acc, &a);
		k->acc_run += wn->span;
		if (!(s->every & BIT(i)) && a.ref && wn->calm)
			td_calm_event(tc, k, a.count, a.ref, wn->span);
		if (wn->whole & BIT(i)) {
			td_acc_add(&k->whole, &a);
			k->whole_run += wn->span;
		}
	}
}

/* the next window starts where this one ended */
static void td_window_next(struct td_cpu *tc, const struct td_pass *p,
			   const struct td_window *wn)
{
	struct td_scratch *x = &tc->scr;
	unsigned int i, norm = tc->sets.norm;

	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];

		if (!(p->on & BIT(i)) || !k->event)
			continue;
		if (wn->aligned & BIT(i)) {
			k->last += x->w[i];	/* at most its read: ns >= norm_ns */
			k->last_ns = x->ts[norm];
		} else {
			k->last = x->v[i];
			k->last_ns = x->ts[i];
		}
		k->based = true;
		k->snap_on = p->running & BIT(i);
		k->snap_gap = x->gap[i];
	}
	tc->snap.last_ns = p->t1;
}

/*
 * Read every counting event at one moment (td_passes()); each one that was
 * counting since the last snapshot adds its window's count, and its
 * reference's and the normalizer's over the same window, to its interval.
 * @now is the snapshot's moment: the normalizer's read.
 * @switched: the window was a switch of sets or a (re)start: not one calm
 * judges, and perf held the PMU disabled for most of it.
 * @may_wait: a snapshot that was no moment may be left, nothing taken, for
 * the caller to try later.
 * Returns 0, -EAGAIN so, or -ENXIO off the CPU (never expected: the work
 * is bound, and cancelled before the CPU goes).
 */
int td_snapshot(struct td_cpu *tc, u64 *now, bool switched, bool may_wait)
{
	struct td_pass p = { .on = td_on(tc) };
	struct td_window wn = {};
	unsigned int norm = tc->sets.norm;
	int ret;

	tc->snap.spread_ns = 0;
	ret = td_passes(tc, &p, may_wait);
	if (ret)
		return ret;
	tc->cost.reads++;
	tc->snap.spread_ns = p.spread;
	tc->snap.ival_spread_ns = max(tc->snap.ival_spread_ns, p.spread);
	tc->snap.reads_ns = p.end > p.first ? p.end - p.first : 0;
	tc->snap.ival_reads_ns = max(tc->snap.ival_reads_ns, tc->snap.reads_ns);
	*now = (p.on & BIT(norm)) && tc->ctr[norm].event ? tc->scr.ts[norm] : p.t1;
	wn.span = p.t1 - tc->snap.last_ns;
	wn.calm = wn.span >= TD_CALM_SPAN_NS && !switched;
	td_window_counts(tc, &p, &wn, switched);
	td_window_nodes(tc, &wn);
	if (tc->reg && tc->sets.nr > 1)
		td_reg_add(tc->reg, &tc->sets, tc->plan.cur, wn.had, tc->scr.w);
	td_window_add(tc, &wn);
	td_window_next(tc, &p, &wn);
	return 0;
}

/*
 * Each open event's enabled less running time now (td_perf_read_local());
 * perf's own reckoning, which sleeps, for one waiting for its counter.
 */
void td_read_gaps(struct td_cpu *tc)
{
	u64 *gap = tc->scr.gap;
	u32 stale = 0;
	unsigned long flags;
	unsigned int i;

	local_irq_save(flags);
	for (i = 0; i < tc->nr; i++) {
		struct perf_event *ev = tc->ctr[i].event;
		u64 en, run;

		if (!(tc->open & BIT(i)) || !ev)
			continue;
		if (td_perf_read_local(ev, NULL, &en, &run))
			stale |= BIT(i);
		else
			gap[i] = en - run;
	}
	local_irq_restore(flags);
	for (i = 0; i < tc->nr; i++) {
		u64 en, run;

		if (stale & BIT(i)) {
			perf_event_read_value(tc->ctr[i].event, &en, &run);
			gap[i] = en - run;
		}
	}
}

/* the time each event was off its counter so far is not the next interval's */
void td_base_gaps(struct td_cpu *tc)
{
	unsigned int i;

	td_read_gaps(tc);
	for (i = 0; i < tc->nr; i++)
		if ((tc->open & BIT(i)) && tc->ctr[i].event)
			tc->ctr[i].last_gap = tc->scr.gap[i];
}

/* the bytes of @nr counters' scratch (struct td_scratch) */
size_t td_scratch_size(unsigned int nr)
{
	return nr * (6 * sizeof(u64) + sizeof(struct td_acc));
}

/**
 * td_scratch_alloc() - @tc's working arrays for @nr counters, off the stack
 * @tc: the CPU; its old arrays are freed
 * @nr: the counters
 *
 * Return: 0 or -ENOMEM (the old arrays kept).
 */
int td_scratch_alloc(struct td_cpu *tc, unsigned int nr)
{
	struct td_scratch *x = &tc->scr;
	struct td_acc *acc = kzalloc(td_scratch_size(nr), GFP_KERNEL);
	u64 *u = (u64 *)(acc + nr);

	if (!acc)
		return -ENOMEM;
	kfree(x->acc);
	x->acc = acc;
	x->v = u;
	x->ts = u + nr;
	x->gap = u + 2 * nr;
	x->d = u + 3 * nr;
	x->w = u + 4 * nr;
	x->c = u + 5 * nr;
	return 0;
}
