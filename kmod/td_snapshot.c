// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: reading all of a CPU's counters at one moment.
 */
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/irqflags.h>
#include <linux/math64.h>
#include "topdown.h"
#include "td_internal.h"

/*
 * A snapshot's tries (td_snapshot()): at most TD_SNAP_MAX_TRIES; on the
 * last, a read that a stall stretched is read again alone, up to
 * TD_SNAP_REREADS times
 */
#define TD_SNAP_MAX_TRIES	4
#define TD_SNAP_REREADS		3
#define TD_SNAP_SLACK_NS	2000

/*
 * Read every counting event in one section with interrupts off: one moment
 * for all.  Each event that was counting since the last snapshot adds its
 * count, and its reference's and the normalizer's over the same span, to
 * its interval's accumulators, and the span's length to its counted time.
 * @switched: the span since the last snapshot was a switch of sets or a
 * (re)start, the events enabled in it: not a window calm judges.
 * @may_wait: a snapshot whose reads were not one moment after all its
 * tries may be left, nothing of it taken, for the caller to try later.
 * Returns -EAGAIN so, -ENXIO off the CPU (never expected: the work is bound
 * and is cancelled before the CPU goes), else 0.
 */
int td_snapshot(struct td_cpu *tc, u64 *now, bool switched,
		bool may_wait)
{
	u64 v[TD_MAX_EVENTS], d[TD_MAX_EVENTS], node[TD_NR_L1] = { 0 };
	u64 ts[TD_MAX_EVENTS], w[TD_MAX_EVENTS], gap[TD_MAX_EVENTS], norm_ns = 0;
	const struct td_sets *s = &tc->sets;
	u32 on = td_on(tc), had = 0, running, whole = 0, aligned = 0;
	unsigned int i, n, tries;
	unsigned long flags;
	u64 t0, t1, after, span, best, limit, lo, hi, first, end, spread = 0;
	bool stretched, calm_window, last, cut;

	tc->snap_spread_ns = 0;	/* none taken yet */
	for (tries = 1; ; tries++) {
		last = tries == TD_SNAP_MAX_TRIES;
		cut = false;
		running = 0;
		local_irq_save(flags);
		if (smp_processor_id() != tc->cpu) {
			local_irq_restore(flags);
			return -ENXIO;
		}
		t0 = ktime_get_ns();
		t1 = t0;
		lo = U64_MAX;
		hi = 0;
		first = U64_MAX;
		end = 0;
		stretched = false;
		for (i = 0; i < tc->nr && !cut; i++) {
			if (!(on & BIT(i)) || !tc->ctr[i].event)
				continue;
			best = U64_MAX;
			for (n = 1; ; n++) {
				u64 r = td_read_local(tc->ctr[i].event);

				after = ktime_get_ns();
				/*
				 * read between t1 and now: taken as the
				 * middle; of reads that were all stretched,
				 * the shortest (the last of three, taken as
				 * it was, once took 5 ms under TCG: a 17 ms
				 * interval's frontend bound 3 points off)
				 */
				if (after - t1 < best) {
					best = after - t1;
					v[i] = r;
					ts[i] = t1 + best / 2;
				}
				if (after - t1 <= TD_SNAP_SLACK_NS + tc->snap_min_ns)
					break;
				/*
				 * A read that took longer than a whole pass
				 * should (a stall before it or in it: an NMI,
				 * an SMI, a vCPU the host descheduled) leaves
				 * the counts before it at another moment than
				 * those after: the pass is cut and done again,
				 * or left for later (@may_wait).  Only on the
				 * last try of a snapshot that cannot wait is
				 * the read done again alone, so that its count
				 * has a moment of its own whatever stretched
				 * the others: taken as the middle of a long
				 * one, the count of a 0.5 ms window was 5 %
				 * off.
				 */
				if (!last || may_wait) {
					cut = true;
					break;
				}
				if (n == TD_SNAP_REREADS) {
					stretched = true;
					break;
				}
				tc->snap_rereads++;
				t1 = after;
			}
			lo = min(lo, ts[i]);
			hi = max(hi, ts[i]);
			/* the read kept: from ts - best / 2 to ts + best / 2 */
			first = min(first, ts[i] - best / 2);
			end = max(end, ts[i] - best / 2 + best);
			if (td_gap_local(tc->ctr[i].event, &gap[i]))
				running |= BIT(i);
			else
				gap[i] = 0;
			t1 = after;
		}
		local_irq_restore(flags);
		/*
		 * The first pass is the floor: one read of all the counters,
		 * as any reader pays it once an interval (cold, when the CPU
		 * was idle); the passes after it, and those of a slice's end
		 * put off (td_work()), are the module's own cost
		 */
		if (tries == 1 && !tc->snap_wait_ns)
			tc->cost.read_ns += t1 - t0;
		else
			tc->cost.reread_ns += t1 - t0;
		if (cut && last)
			return -EAGAIN;	/* (@may_wait) */
		if (cut) {
			tc->snap_retries++;
			continue;
		}
		/*
		 * The reads are one moment only if nothing stopped the CPU
		 * between them: read again when they took much longer than
		 * the fastest read seen, with interrupts allowed between the
		 * tries.  If the last try is still long, a slice's end is
		 * left for later (@may_wait: td_work()), any other snapshot
		 * taken as it is, each read alone (above).
		 */
		if (!tc->snap_min_ns || t1 - t0 < tc->snap_min_ns)
			tc->snap_min_ns = t1 - t0;
		limit = 2 * tc->snap_min_ns + TD_SNAP_SLACK_NS;
		if (t1 - t0 <= limit)
			break;
		if (last && may_wait)
			return -EAGAIN;
		if (last) {
			/*
			 * taken as it is: slow if a read stayed stretched, or
			 * the reads kept lie further apart than a pass may
			 * take (a slice's end put off for all of
			 * TD_SNAP_WAIT_MAX_US in tdsim's crawls: its reads
			 * kept up to 1.3 ms apart, the 10 ms intervals it
			 * bounded up to 7 points off, and not counted so)
			 */
			if (stretched || hi - lo > limit) {
				tc->snap_slow++;
				tc->snap_max_ns = max(tc->snap_max_ns, t1 - t0);
				spread = end > first ? end - first : 0;
			}
			break;
		}
		tc->snap_retries++;
	}
	tc->cost.reads++;
	tc->snap_spread_ns = spread;
	tc->ival_spread_ns = max(tc->ival_spread_ns, spread);
	tc->snap_reads_ns = end > first ? end - first : 0;
	tc->ival_reads_ns = max(tc->ival_reads_ns, tc->snap_reads_ns);
	/*
	 * The moment of the snapshot is the normalizer's read: the window
	 * each count is taken over (below) and so the interval's bounds.  A
	 * slow section (a vCPU preempted in the middle) otherwise puts the
	 * bounds tens of microseconds after the counts.
	 */
	*now = (on & BIT(s->norm)) && tc->ctr[s->norm].event ? ts[s->norm] : t1;
	span = t1 - tc->snap_ns;

	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];

		if (!(on & BIT(i)) || !k->event || !k->based)
			continue;
		had |= BIT(i);
		d[i] = v[i] - k->last;
		if (k->snap_on && (running & BIT(i)) && gap[i] == k->snap_gap)
			whole |= BIT(i);
	}
	if (had & BIT(s->norm)) {
		tc->en_ns += span;
		norm_ns = ts[s->norm] - tc->ctr[s->norm].last_ns;
	}
	/*
	 * Each event's count of the window, taken over the normalizer's
	 * window: the reads are spread over the section (a stall between two
	 * of them, an NMI or a descheduled vCPU, spreads them further), and a
	 * child and its parent divided over a short slice must cover the same
	 * time.
	 *
	 * An event counted all the time and read after the normalizer
	 * (@aligned) also ends its window at the normalizer's moment: its
	 * count there, its read less its rate times the time between, is
	 * where its next window starts.  So its windows still add up to its
	 * raw count, without a gap or an overlap, and an interval's count is
	 * over the normalizer's interval.  Taken raw, a section that a stall
	 * stretched after the first reads left such counts of a 10 ms
	 * interval up to 3.5 % off the slots', and the next interval's as far
	 * the other way (TCG with the host loaded: 4-8 intervals in 18,000 more
	 * than 0.3 points off, the snapshot's third try 20-350 us long).
	 * One read before the normalizer's moment (or whose window began
	 * later) keeps its raw count: its rate would have to be run forwards
	 * past its read.  So does the span of a switch (@switched): perf
	 * held the PMU disabled for most of it, so the rate over the span is
	 * not the rate between the two reads, and a baseline moved by it
	 * carried the error into the next window (a steady spr Level 3 CPU
	 * at 100 ms under TCG: its windows' Level 1 a median 0.024-0.039
	 * points off the windows' median, 0.008-0.010 without).
	 */
	for (i = 0; i < tc->nr; i++) {
		u64 ns = ts[i] - tc->ctr[i].last_ns;

		if (!(had & BIT(i)))
			continue;
		w[i] = d[i];
		if (norm_ns && ns && ns != norm_ns)
			w[i] = mul_u64_u64_div_u64(d[i], norm_ns, ns);
		if (norm_ns && ns >= norm_ns && (s->every & BIT(i)) && !switched)
			aligned |= BIT(i);
	}
	/* the Level 1 nodes of the span, for the events scaled by one */
	for (i = 0; i < tc->nr; i++)
		if ((had & ~s->every & BIT(i)) && s->node[i] != TD_NO_NODE)
			break;
	/*
	 * (For calm alone, only over a window long enough to judge, and not
	 * the span of a switch (@switched), whose snapshot then skips the
	 * model: perf held the PMU disabled for most of it, rescheduling the
	 * events enabled, and tdsim's counters stood still as hardware's do,
	 * so the microseconds between two reads weighed as much as the span's
	 * counting.  Under TCG a switch takes 250 us or more, and a steady
	 * spr Level 3 CPU's Level 1 then spread 0.35-3.5 points over its
	 * windows: never calm.)
	 */
	calm_window = span >= TD_CALM_SPAN_NS && !switched;
	if ((i < tc->nr || (calm_window && td_l1_always(tc))) &&
	    (had & s->every) == (s->every & tc->open)) {
		u64 c[TD_MAX_EVENTS] = { 0 };

		for (i = 0; i < tc->nr; i++)
			if (s->every & BIT(i))
				c[i] = w[i];
		td_sets_nodes(tc->model, c, tc->core_wide, d[s->norm], node);
		if (calm_window && td_l1_always(tc))
			td_calm_window(tc, node, d[s->norm], span);
	}
	if (tc->reg && s->nr > 1)
		td_reg_add(tc->reg, s, tc->cur, had, w);
	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];
		struct td_acc a = { 0 };

		if (!(had & BIT(i)))
			continue;
		a.count = s->every & BIT(i) && !(aligned & BIT(i)) ? d[i] : w[i];
		if (s->node[i] != TD_NO_NODE)
			a.ref = node[s->node[i]];
		else if (had & BIT(s->ref[i]))
			a.ref = w[s->ref[i]];
		if (had & BIT(s->norm))
			a.norm = d[s->norm];
		k->acc.count += a.count;
		k->acc.ref += a.ref;
		k->acc.norm += a.norm;
		k->acc_run += span;
		if (!(s->every & BIT(i)) && a.ref && calm_window)
			td_calm_event(tc, k, a.count, a.ref, span);
		if (whole & BIT(i)) {
			k->whole.count += a.count;
			k->whole.ref += a.ref;
			k->whole.norm += a.norm;
			k->whole_run += span;
		}
	}
	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];

		if (!(on & BIT(i)) || !k->event)
			continue;
		if (aligned & BIT(i)) {
			k->last += w[i];	/* at most v[i]: ns >= norm_ns */
			k->last_ns = ts[s->norm];
		} else {
			k->last = v[i];
			k->last_ns = ts[i];
		}
		k->based = true;
		k->snap_on = running & BIT(i);
		k->snap_gap = gap[i];
	}
	tc->snap_ns = t1;
	return 0;
}

/*
 * Each open event's enabled less running time now (td_gap_local()); perf's
 * own reckoning, which sleeps, for one waiting for its counter.
 */
void td_read_gaps(struct td_cpu *tc, u64 *gap)
{
	u32 stale = 0;
	unsigned long flags;
	unsigned int i;

	local_irq_save(flags);
	for (i = 0; i < tc->nr; i++) {
		struct perf_event *ev = tc->ctr[i].event;

		if ((tc->open & BIT(i)) && ev &&
		    (smp_processor_id() != tc->cpu || !td_gap_local(ev, &gap[i])))
			stale |= BIT(i);
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
	u64 gap[TD_MAX_EVENTS];
	unsigned int i;

	td_read_gaps(tc, gap);
	for (i = 0; i < tc->nr; i++)
		if ((tc->open & BIT(i)) && tc->ctr[i].event)
			tc->ctr[i].last_gap = gap[i];
}
