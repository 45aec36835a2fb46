// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: calm detection: whether Level 1 and the events that take turns held still.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include "topdown.h"
#include "td_internal.h"

/* whether Level 1's events are all counted all the time, with other sets */
bool td_l1_always(const struct td_cpu *tc)
{
	unsigned int i;

	if (tc->sets.nr < 2)
		return false;
	for (i = 0; i < tc->nr; i++)
		if ((tc->open & ~tc->sets.every & BIT(i)) &&
		    tc->model->events[i].level <= 1)
			return false;
	return true;
}

/* how long the windows judged together are at least, ns (TD_CALM_JUDGES) */
static u64 td_calm_span(const struct td_cpu *tc)
{
	return div64_u64(tc->plan.interval_ns * 3, 4 * TD_CALM_JUDGES);
}

/*
 * Level 1 of one window, @node in normalizer units over @norm and @span
 * ns: added to the windows not yet judged; once they are long enough
 * (TD_CALM_JUDGES), their Level 1 widens the interval's range of each
 * node (td_cpu.calm_lo/hi) for td_calm_end()
 */
void td_calm_window(struct td_cpu *tc, const u64 *node, u64 norm,
		    u64 span)
{
	unsigned int j;

	for (j = 0; j < TD_NR_L1; j++)
		tc->calm.node[j] += node[j];
	tc->calm.norm += norm;
	tc->calm.ns += span;
	if (tc->calm.ns < td_calm_span(tc))
		return;
	norm = tc->calm.norm;
	for (j = 0; j < TD_NR_L1 && norm; j++) {
		u32 f = td_frac(tc->calm.node[j], norm);

		tc->calm.lo[j] = min(tc->calm.lo[j], f);
		tc->calm.hi[j] = max(tc->calm.hi[j], f);
		/* planned calm: still within the last calm interval's range? */
		if (tc->calm.plan &&
		    max(tc->calm.ref_hi[j], f) - min(tc->calm.ref_lo[j], f) > TD_CALM_PPM)
			tc->calm.broken = true;
	}
	if (norm)
		tc->calm.windows++;
	memset(tc->calm.node, 0, sizeof(tc->calm.node));
	tc->calm.norm = 0;
	tc->calm.ns = 0;
}

/*
 * An event that took turns, over one window of @span ns: added to its
 * windows not yet judged; once they are long enough (as Level 1's, but of
 * its own turns: an eighth of its share of the interval), their ratio
 * widens its range
 */
void td_calm_event(struct td_cpu *tc, struct td_counter *k, u64 count,
		   u64 ref, u64 span)
{
	u64 r;
	u32 q, hi;

	k->calm_count += count;
	k->calm_ref += ref;
	k->calm_ns += span;
	if (k->calm_ns * tc->sets.nr < td_calm_span(tc))
		return;
	r = mul_u64_u64_div_u64(k->calm_count, TD_PPM, k->calm_ref);
	q = min_t(u64, r, U32_MAX);
	k->calm_count = 0;
	k->calm_ref = 0;
	k->calm_ns = 0;
	k->calm_lo = min(k->calm_lo, q);
	k->calm_hi = max(k->calm_hi, q);
	/* (an event that counted 0 in every window was measured too) */
	if (tc->calm.plan && k->calm_ref_lo != U32_MAX) {
		hi = max(k->calm_ref_hi, q);
		if (hi - min(k->calm_ref_lo, q) > hi / TD_CALM_EVENT_DIV)
			tc->calm.broken = true;
	}
}

/*
 * The interval is over: count the calm ones in a row (td_cpu.calm).  Any
 * other resets the count, as do fewer than two spans judged and a planned
 * calm interval that a span left (td_cpu.calm_broken): with one turn each,
 * an event's single span cannot widen its own range.
 */
void td_calm_end(struct td_cpu *tc)
{
	bool calm = tc->calm.windows >= 2 && !tc->calm.broken;
	u32 spread = 0;
	unsigned int j;

	for (j = 0; j < TD_NR_L1 && calm; j++)
		spread = max(spread, tc->calm.hi[j] - tc->calm.lo[j]);
	calm = calm && spread <= TD_CALM_PPM;
	for (j = 0; j < tc->nr && calm; j++) {
		const struct td_counter *k = &tc->ctr[j];

		if (k->calm_lo != U32_MAX &&
		    k->calm_hi - k->calm_lo > k->calm_hi / TD_CALM_EVENT_DIV)
			calm = false;
	}
	tc->calm.intervals = calm ? min(tc->calm.intervals + 1, 255U) : 0;
	tc->calm.spread = tc->calm.windows >= 2 ? spread : 0;
	if (!calm)
		return;
	/* the range the next interval's windows are held to while calm */
	memcpy(tc->calm.ref_lo, tc->calm.lo, sizeof(tc->calm.ref_lo));
	memcpy(tc->calm.ref_hi, tc->calm.hi, sizeof(tc->calm.ref_hi));
	for (j = 0; j < tc->nr; j++) {
		tc->ctr[j].calm_ref_lo = tc->ctr[j].calm_lo;
		tc->ctr[j].calm_ref_hi = tc->ctr[j].calm_hi;
	}
}
