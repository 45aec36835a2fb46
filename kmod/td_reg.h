/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topdown regression estimates: an event that takes turns is estimated
 * over the whole interval from how it moves with the events counted all
 * the time, learnt in the windows where it counted.  Built in the kernel
 * and in userspace (unit tests).
 */
#ifndef _TD_REG_H
#define _TD_REG_H

#include "td_sets.h"

/* regressors: the normalizer and up to 7 more events counted all the time */
#define TD_REG_MAX	8
#define TD_REG_TRI	(TD_REG_MAX * (TD_REG_MAX + 1) / 2)

/*
 * A window weighs 1/2^TD_REG_DECAY_SHIFT less at each newer one of its
 * set: a set's regression remembers about its last TD_REG_WINDOWS windows
 */
#define TD_REG_DECAY_SHIFT	5
#define TD_REG_WINDOWS		BIT(TD_REG_DECAY_SHIFT)

/**
 * struct td_reg_set - what one set's windows taught
 * @gram:   the regressors' rates (per normalizer count, Q16) multiplied
 *          pairwise and summed over its windows, each window weighing
 *          less by 1/2^TD_REG_DECAY_SHIFT at each newer one; packed lower
 *          triangle, >> 8
 * @x:      this interval: each regressor's count over the set's windows
 * @broken: this interval: a window of the set lacked a regressor's count,
 *          so @x does not match its events' counts (no estimate)
 * @seen:   windows learnt from since td_reg_init(), up to TD_REG_SEEN_MAX
 */
struct td_reg_set {
	u64 gram[TD_REG_TRI];
	u64 x[TD_REG_MAX];
	bool broken;
	u8 seen;
};

#define TD_REG_SEEN_MAX	255

/**
 * struct td_pred - an event's regression estimate
 * @whole: its count over the interval, as the regression predicts it
 * @part:  its count over its own windows, as the regression predicts it
 *         (what it really counted there, less this, is the residual)
 */
struct td_pred {
	s64 whole, part;
};

/**
 * struct td_reg - one CPU's regression state, sized for its sets and
 * events (td_reg_size())
 * @nx:  regressors
 * @xi:  each one's event (@xi[0]: the normalizer)
 * @nr_sets:   sets it learns for
 * @nr_events: events it estimates
 * @xy:  per event, each regressor's rate times the event's rate, summed
 *       like @gram over the windows where the event counted (in the
 *       allocation, after @set)
 * @pred: per event, the last interval's estimates (after @xy)
 * @m:   td_reg_predict()'s matrix, kept off the stack
 * @set: per set
 */
struct td_reg {
	unsigned int nx;
	u8 xi[TD_REG_MAX];
	unsigned int nr_sets, nr_events;
	u64 (*xy)[TD_REG_MAX];
	struct td_pred *pred;
	s64 m[TD_REG_MAX][TD_REG_MAX];
	struct td_reg_set set[];
};

size_t td_reg_size(unsigned int nr_sets, unsigned int nr_events);
void td_reg_init(struct td_reg *r, const struct td_sets *s,
		 unsigned int nr_events);
void td_reg_begin(struct td_reg *r);
void td_reg_add(struct td_reg *r, const struct td_sets *s, unsigned int set,
		u32 had, const u64 *w);
u32 td_reg_predict(struct td_reg *r, const struct td_sets *s,
		   unsigned int set, u32 events, const u64 *total,
		   struct td_pred *p);

#endif /* _TD_REG_H */
