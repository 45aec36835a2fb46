// SPDX-License-Identifier: GPL-2.0
/*
 * tdnl: what tdnl works out from a sample's raw counts.
 *
 * The Level 3/4 memory nodes always (l34.c).  And when notifications were
 * lost, Level 1/2 over the whole span since the last sample received, with
 * the module's own formulas (kmod/td_*.c, built here too): the module
 * publishes cumulative totals, so nothing is lost but resolution.
 */
#include <math.h>
#include <string.h>
#include "linux/topdown.h"
#include "tdnl.h"

/* the built-in model, if it has exactly the module's events */
static const struct td_model *kmodel(const struct tdnl_model *m)
{
	unsigned int i, j;

	for (i = 0; i < td_nr_models; i++) {
		const struct td_model *k = td_models[i];

		if (strcmp(k->name, m->name) || k->nr_events != m->nr_events)
			continue;
		for (j = 0; j < k->nr_events; j++)
			if (!m->events[j].name ||
			    strcmp(k->events[j].name, m->events[j].name))
				return NULL;
		return k;
	}
	return NULL;
}

/*
 * One interval: its deltas, each scaled to the longest enabled time.  The
 * counters are read one after another, so their windows differ a little;
 * the module's own formulas take the same common window.
 */
static void deltas(const struct tdnl_sample *s, double *c, bool *have)
{
	uint64_t window = 0;
	unsigned int i;

	for (i = 0; i < TDNL_MAX_EVENTS; i++) {
		const struct tdnl_count *k = &s->cnt[i];

		have[i] = k->present && k->running && k->enabled;
		if (have[i] && k->enabled > window)
			window = k->enabled;
	}
	for (i = 0; i < TDNL_MAX_EVENTS; i++)
		c[i] = have[i] ? (double)s->cnt[i].delta * window /
				 s->cnt[i].enabled : 0;
}

/* a span of intervals: the differences of the totals; false if none */
static bool totals(const struct tdnl_sample *s, const struct tdnl_sample *prev,
		   double *c, bool *have)
{
	unsigned int i;

	for (i = 0; i < TDNL_MAX_EVENTS; i++) {
		const struct tdnl_count *k = &s->cnt[i], *p = &prev->cnt[i];

		if (k->present && p->present && k->total < p->total)
			return false;	/* not the same module */
		have[i] = k->present && p->present && k->running;
		c[i] = have[i] ? (double)(k->total - p->total) : 0;
	}
	return true;
}

/*
 * Level 1/2 over the span, with the module's formulas and the width the
 * CPU is counted with (its PMU's slots per cycle where the module read
 * them), as the module gives them to the formulas: in a copy of the model
 */
static void relevel(struct tdnl_sample *s, const struct tdnl_model *m,
		    unsigned int width, const double *c, const bool *have)
{
	const struct td_model *k = m ? kmodel(m) : NULL;
	u64 cnt[TDNL_MAX_EVENTS] = {};
	struct td_model own;
	struct td_result r;
	/* the formulas the module used: the AnyThread ones where it says so */
	bool smt = s->state & TOPDOWN_STATE_SMT_CORE;
	unsigned int i;

	if (!k || !s->has_l1)
		return;
	for (i = 0; i < k->nr_events; i++)
		cnt[i] = have[i] ? (u64)c[i] : 0;
	own = *k;
	if (width)
		own.width = width;
	if (own.compute(&own, cnt, smt, &r))
		return;		/* no slots in the span: keep the last interval */
	for (i = 0; i < TD_NR_L1; i++)
		if (s->l1_set[i])
			s->l1[i] = r.l1[i];
	if (s->has_l2 && r.has_l2)
		memcpy(s->l2, r.l2, sizeof(s->l2));
}

/**
 * tdnl_calc() - Level 3/4 of a sample, and Level 1/2 over lost intervals
 * @s:    the sample; its lost, l34 and (after a gap) l1, l2 are set
 * @prev: the CPU's previous sample received, or NULL
 * @m:    the CPU's model from GET_INFO, or NULL
 * @width: the CPU's width from GET_INFO, 0 for the model's
 *
 * With no sample before, or the one just before, the nodes come from the
 * interval's deltas.  After a gap, from the differences of the totals over
 * the whole span, Level 1/2 included, and the sample's start becomes the
 * previous sample's end.
 */
void tdnl_calc(struct tdnl_sample *s, const struct tdnl_sample *prev,
	       const struct tdnl_model *m, unsigned int width)
{
	double c[TDNL_MAX_EVENTS];
	bool have[TDNL_MAX_EVENTS];
	unsigned int i;

	s->lost = 0;
	if (prev && s->seq > prev->seq + 1 && totals(s, prev, c, have)) {
		s->lost = s->seq - prev->seq - 1;
		s->start_ns = prev->end_ns;	/* what the figures now cover */
		relevel(s, m, width, c, have);
	} else {
		deltas(s, c, have);
	}
	s->clocks = NAN;
	if (m) {
		s->clocks = td_l34(s->model, &m->l34, c, have, s->l34);
	} else {
		for (i = 0; i < TD_NR_L34; i++)
			s->l34[i] = NAN;
	}
}
