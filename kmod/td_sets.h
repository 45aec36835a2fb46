/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topdown event sets: how a level's events are split into sets that each
 * fit the counters that are free, and how the counts of sets that ran for
 * part of an interval are scaled to the whole of it.  Built in the kernel
 * and in userspace (unit tests).
 */
#ifndef _TD_SETS_H
#define _TD_SETS_H

#include "td_model.h"

#define TD_MAX_EVENTS	32	/* the event bitmaps are u32 */
#define TD_MAX_SETS	TD_MAX_EVENTS

/**
 * struct td_sets - one CPU's event sets
 * @every: events counted all the time: the normalizers and as much of
 *         Level 1 as leaves a counter for the other events
 * @set:   each set's own events; one set at a time counts with @every
 * @nr:    how many sets (1 when everything fits at once; @set[0] is then 0)
 * @norm:  the normalizer, in @every: slots, or cycles
 * @ref:   per event, the event its count is scaled with: its model's ref
 *         when that one counts with it, else @norm
 * @node:  per event, the Level 1 node it is scaled with (its model's
 *         parent, as the events of @every give it), or TD_NO_NODE
 */
struct td_sets {
	u32 every;
	u32 set[TD_MAX_SETS];
	unsigned int nr;
	unsigned int norm;
	u8 ref[TD_MAX_EVENTS];
	s8 node[TD_MAX_EVENTS];
};

#define TD_NO_NODE	(-1)

/**
 * struct td_acc - one event's counts over the windows of an interval in
 * which it counted
 * @count: its own count
 * @ref:   its reference's count in the same windows (or its Level 1
 *         node's, in normalizer units)
 * @norm:  the normalizer's count in the same windows
 */
struct td_acc {
	u64 count, ref, norm;
};

bool td_sets_fit(const struct td_model *m, u32 events, unsigned int gp,
		 unsigned int fixed);
unsigned int td_sets_gp_used(const struct td_model *m, u32 events,
			     unsigned int fixed);
int td_sets_build(const struct td_model *m, u32 open, unsigned int gp,
		  unsigned int fixed, struct td_sets *s);
struct td_pred;
void td_sets_scale(const struct td_model *m, const struct td_sets *s,
		   u32 open, const struct td_acc *acc, const u64 *node,
		   u32 predicted, const struct td_pred *pred, u64 *out);
void td_sets_nodes(const struct td_model *m, const u64 *c, bool smt,
		   u64 norm, u64 *node);

#endif /* _TD_SETS_H */
