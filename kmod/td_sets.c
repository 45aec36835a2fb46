// SPDX-License-Identifier: GPL-2.0
/*
 * topdown event sets.
 *
 * perf_event_create_kernel_counter() makes no groups and perf rotates
 * ungrouped events one by one, so two counts that one formula divides would
 * come from different moments.  Instead a level's events count in sets that
 * each fit the free counters, and the module switches whole sets itself
 * (td_schedule.c): within a set every ratio is exact.  The normalizers and
 * as much of Level 1 as leaves a counter free count in every set; an
 * event's formula-mates (td_event.grp) share a set when they fit.
 *
 * A count from one set is scaled to the interval by its reference
 * (td_event.ref) measured in the same windows, count * ref(interval) /
 * ref(windows), so the formulas on the scaled counts give exactly the
 * fractions published.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#else
#include <errno.h>
#endif
#include "td_reg.h"

static unsigned int td_bits(u32 x)
{
	unsigned int n = 0;

	for (; x; x &= x - 1)
		n++;
	return n;
}

/*
 * Whether @e takes its fixed counter: one exists (below @fixed) and no
 * earlier event took it (@fused, updated)
 */
static bool td_takes_fixed(const struct td_event *e, unsigned int fixed,
			   u32 *fused)
{
	if (e->fixed < 0 || (unsigned int)e->fixed >= fixed ||
	    (*fused & (1U << e->fixed)))
		return false;
	*fused |= 1U << e->fixed;
	return true;
}

/**
 * td_sets_fit() - whether events can count at once on the counters
 * @m:      the model
 * @events: bitmap of its events
 * @gp:     general-purpose counters free (counters 0..gp-1)
 * @fixed:  fixed counters free (0..fixed-1)
 *
 * A fixed-counter event takes its fixed counter while that is free (as the
 * x86 and Arm PMU drivers do), else a general-purpose one; where its fixed
 * counter does not exist it counts as td_event.gp_form, if it has one.
 * General-purpose counters go to the most constrained events first, the
 * lowest allowed first: perf's masks are nested (GP0, GP0-3, GP0-7), and
 * for nested masks that order finds an assignment whenever one exists.
 *
 * Return: true if they fit.
 */
bool td_sets_fit(const struct td_model *m, u32 events, unsigned int gp,
		 unsigned int fixed)
{
	u32 all = gp >= 32 ? ~0U : (1U << gp) - 1, used = 0, fused = 0;
	u32 need[TD_MAX_EVENTS];
	unsigned int i, n = 0;

	for (i = 0; i < m->nr_events && i < TD_MAX_EVENTS; i++) {
		const struct td_event *e = td_event_form(&m->events[i], fixed);

		if (!(events & (1U << i)))
			continue;
		if (td_takes_fixed(e, fixed, &fused))
			continue;
		need[n] = e->gp & all;
		if (!need[n])
			return false;
		n++;
	}
	while (n) {
		unsigned int best = 0, j;
		u32 free;

		for (j = 1; j < n; j++)
			if (td_bits(need[j]) < td_bits(need[best]))
				best = j;
		free = need[best] & ~used;
		if (!free)
			return false;
		used |= free & -free;
		need[best] = need[--n];
	}
	return true;
}

/**
 * td_sets_gp_used() - how many general-purpose counters events take
 * @m:      the model
 * @events: bitmap of its events, ones that fit (td_sets_fit())
 * @fixed:  fixed counters free (0..fixed-1)
 *
 * Return: the events that do not take their fixed counter, as
 * td_sets_fit() places them.
 */
unsigned int td_sets_gp_used(const struct td_model *m, u32 events,
			     unsigned int fixed)
{
	unsigned int i, n = 0;
	u32 fused = 0;

	for (i = 0; i < m->nr_events && i < TD_MAX_EVENTS; i++) {
		const struct td_event *e = td_event_form(&m->events[i], fixed);

		if (!(events & (1U << i)))
			continue;
		if (td_takes_fixed(e, fixed, &fused))
			continue;
		n++;
	}
	return n;
}

/* every event of @open outside @with fits with @with on its own */
static bool td_room_for_each(const struct td_model *m, u32 open, u32 with,
			     unsigned int gp, unsigned int fixed)
{
	unsigned int i;

	for (i = 0; i < m->nr_events && i < TD_MAX_EVENTS; i++)
		if ((open & ~with & (1U << i)) &&
		    !td_sets_fit(m, with | (1U << i), gp, fixed))
			return false;
	return true;
}

/* put @g in the first set it fits with, or in a new one; false if none */
static bool td_place(const struct td_model *m, struct td_sets *s, u32 g,
		     unsigned int gp, unsigned int fixed)
{
	unsigned int j;

	for (j = 0; j < s->nr; j++) {
		if (td_sets_fit(m, s->every | s->set[j] | g, gp, fixed)) {
			s->set[j] |= g;
			return true;
		}
	}
	if (s->nr == TD_MAX_SETS || !td_sets_fit(m, s->every | g, gp, fixed))
		return false;
	s->set[s->nr++] = g;
	return true;
}

/*
 * Whether the Level 1 nodes computed from @every alone follow the real
 * ones: each Level 1 event not in it is a correction scaled by one that is
 * (td_event.ref; skl's recovery cycles by UOPS_ISSUED.ANY), so taking it
 * as 0 leaves a node that moves with its parent.
 */
static bool td_nodes_follow(const struct td_model *m, u32 open, u32 every)
{
	unsigned int i, r;

	for (i = 0; i < m->nr_events && i < TD_MAX_EVENTS; i++) {
		if (m->events[i].level != 1 || !(open & ~every & (1U << i)))
			continue;
		r = m->events[i].ref;
		if (!r || r >= TD_MAX_EVENTS || !(every & (1U << r)))
			return false;
	}
	return true;
}

/*
 * The events counted all the time (@s->every): the normalizers (or the
 * normalizer alone) with room for each other event, then as much of Level 1
 * as still leaves that room, then any other event whose fixed counter none
 * of them holds (it costs no general-purpose counter).  -ENOSPC when not
 * even the normalizer leaves room.
 */
static int td_sets_every(const struct td_model *m, u32 open, unsigned int gp,
			 unsigned int fixed, struct td_sets *s)
{
	unsigned int i, j, n = m->nr_events < TD_MAX_EVENTS ? m->nr_events : TD_MAX_EVENTS;
	u32 every = 0;

	for (i = n; i-- > 0;)
		if ((open & (1U << i)) && m->events[i].every) {
			every |= 1U << i;
			s->norm = i;	/* the lowest-numbered one */
		}
	if (!every)
		every = open & (1U << s->norm);
	if (!td_sets_fit(m, every, gp, fixed) ||
	    !td_room_for_each(m, open, every, gp, fixed))
		every = 1U << s->norm;
	if (!td_room_for_each(m, open, every, gp, fixed))
		return -ENOSPC;
	for (i = 0; i < n; i++) {
		u32 with = every | (1U << i);

		if (!(open & ~every & (1U << i)) || m->events[i].level != 1)
			continue;
		if (td_sets_fit(m, with, gp, fixed) && td_room_for_each(m, open, with, gp, fixed))
			every = with;
	}
	for (i = 0; i < n; i++) {
		u32 with = every | (1U << i);
		int f = m->events[i].fixed;

		if (!(open & ~every & (1U << i)) || f < 0 || (unsigned int)f >= fixed)
			continue;
		for (j = 0; j < n; j++)
			if ((every & (1U << j)) && m->events[j].fixed == f)
				break;
		if (j == n && td_sets_fit(m, with, gp, fixed) &&
		    td_room_for_each(m, open, with, gp, fixed))
			every = with;
	}
	s->every = every;
	return 0;
}

/* the rest in sets: each group whole where it fits, else one by one */
static int td_sets_rest(const struct td_model *m, u32 rest, unsigned int gp,
			unsigned int fixed, struct td_sets *s)
{
	unsigned int i, j, n = m->nr_events < TD_MAX_EVENTS ? m->nr_events : TD_MAX_EVENTS;

	for (i = 0; i < n; i++) {
		u32 g = 0;

		if (!(rest & (1U << i)))
			continue;
		for (j = i; j < n; j++)
			if ((rest & (1U << j)) &&
			    (j == i || (m->events[i].grp &&
					m->events[j].grp == m->events[i].grp)))
				g |= 1U << j;
		rest &= ~g;
		if (td_place(m, s, g, gp, fixed))
			continue;
		for (j = i; j < n; j++)
			if ((g & (1U << j)) && !td_place(m, s, 1U << j, gp, fixed))
				return -ENOSPC;
	}
	if (!s->nr)
		s->nr = 1;	/* one set: everything counts all the time */
	return 0;
}

/*
 * Each event's reference: its Level 1 parent node, as the events counted
 * all the time give it in each window (td_nodes_follow()); else its model's
 * event, if that counts in the same windows; else the normalizer.
 */
static void td_sets_refs(const struct td_model *m, u32 open, struct td_sets *s)
{
	unsigned int i, j, n = m->nr_events < TD_MAX_EVENTS ? m->nr_events : TD_MAX_EVENTS;

	for (i = 0; i < n; i++) {
		unsigned int r = m->events[i].ref;
		u32 mine = s->every;

		s->node[i] = TD_NO_NODE;
		if (m->events[i].parent && !(s->every & (1U << i)) &&
		    td_nodes_follow(m, open, s->every))
			s->node[i] = m->events[i].parent - 1;
		for (j = 0; j < s->nr; j++)
			if (s->set[j] & (1U << i))
				mine |= s->set[j];
		s->ref[i] = r < i && (mine & open & (1U << r)) ? r : s->norm;
	}
}

/**
 * td_sets_build() - split the opened events into sets that fit
 * @m:     the model
 * @open:  bitmap of the events opened (the level's, this SMT setting's)
 * @gp:    general-purpose counters free
 * @fixed: fixed counters free
 * @s:     out: the sets
 *
 * Return: 0, or -ENOSPC when not even the normalizer with one other event
 * fits.
 */
int td_sets_build(const struct td_model *m, u32 open, unsigned int gp,
		  unsigned int fixed, struct td_sets *s)
{
	int ret;

	*s = (struct td_sets){ .norm = 0 };
	ret = td_sets_every(m, open, gp, fixed, s);
	if (!ret)
		ret = td_sets_rest(m, open & ~s->every, gp, fixed, s);
	if (ret)
		return ret;
	td_sets_refs(m, open, s);
	return 0;
}

static u64 td_muldiv(u64 a, u64 b, u64 c)
{
	return c ? mul_u64_u64_div_u64(a, b, c) : 0;
}

/**
 * td_sets_scale() - each event's count over the whole interval
 * @m:    the model
 * @s:    its sets
 * @open: the events opened
 * @acc:  per event, its counts over the windows in which it counted
 * @node: each Level 1 node over the interval, in normalizer units
 *        (td_sets_nodes() of the events of @s->every)
 * @predicted: the events with a regression estimate (td_reg.c)
 * @pred: per event of @predicted, the estimate
 * @out:  per event, its count over the interval: an event of @s->every
 *        counted all of it; any other is scaled by its reference, or where
 *        @predicted has it, is the prediction plus its residual so scaled
 *
 * An event that did not count at all gives 0 (its caller says so).
 */
void td_sets_scale(const struct td_model *m, const struct td_sets *s,
		   u32 open, const struct td_acc *acc, const u64 *node,
		   u32 predicted, const struct td_pred *pred, u64 *out)
{
	unsigned int i;

	for (i = 0; i < m->nr_events && i < TD_MAX_EVENTS; i++)
		out[i] = open & s->every & (1U << i) ? acc[i].count : 0;
	/* references have lower numbers: scaled before the events they scale */
	for (i = 0; i < m->nr_events && i < TD_MAX_EVENTS; i++) {
		const struct td_acc *a = &acc[i];
		unsigned int r = s->ref[i];
		u64 num, den, sc;
		s64 res, est;

		if (!(open & ~s->every & (1U << i)))
			continue;
		if (s->node[i] != TD_NO_NODE && a->ref && node[s->node[i]]) {
			num = node[s->node[i]];
			den = a->ref;
		} else if (s->node[i] == TD_NO_NODE && a->ref && r != i) {
			num = out[r];
			den = a->ref;
		} else {
			num = out[s->norm];
			den = a->norm;
		}
		if (!(predicted & (1U << i))) {
			out[i] = td_muldiv(a->count, num, den);
			continue;
		}
		res = (s64)a->count - pred[i].part;
		sc = td_muldiv(res < 0 ? -res : res, num, den);
		est = pred[i].whole + (res < 0 ? -(s64)sc : (s64)sc);
		out[i] = est > 0 ? est : 0;
	}
}

/**
 * td_sets_nodes() - each Level 1 node of some counts, in normalizer units
 * @m:    the model
 * @c:    per event, a count over one span (Level 1's at least)
 * @smt:  the core's other thread is online
 * @norm: the normalizer's count over the span
 * @node: out: per Level 1 node, its fraction times @norm; all 0 when the
 *        span counted no slots
 */
void td_sets_nodes(const struct td_model *m, const u64 *c, bool smt,
		   u64 norm, u64 *node)
{
	struct td_result r;
	unsigned int i;

	if (m->compute(m, c, smt, &r)) {
		for (i = 0; i < TD_NR_L1; i++)
			node[i] = 0;
		return;
	}
	for (i = 0; i < TD_NR_L1; i++)
		node[i] = td_muldiv(norm, r.l1[i], TD_PPM);
}
