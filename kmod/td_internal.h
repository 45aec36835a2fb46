/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topdown: what the files of the core share among themselves (not the
 * front ends: topdown.h is theirs).
 */
#ifndef _TD_INTERNAL_H
#define _TD_INTERNAL_H

#include "topdown.h"

/*
 * Calm: Level 1, counted all the time, stayed within a range of
 * TD_CALM_PPM over the interval's judged spans (windows of at least half
 * TD_SLICE_MIN_US, added up: TD_CALM_JUDGES), for TD_CALM_INTERVALS
 * intervals in a row.  A calm CPU's sets take TD_CALM_ROUNDS turns each
 * an interval (td_plan_span()).
 */
#define TD_CALM_PPM		2000
#define TD_CALM_INTERVALS	2
#define TD_CALM_ROUNDS		1
#define TD_CALM_SPAN_NS		(TD_SLICE_MIN_US * NSEC_PER_USEC / 2)
/*
 * Level 1 is judged over windows added up to three quarters of an eighth
 * of the interval at least (td_calm_span(): a calm interval's one turn of
 * each of 8 sets, less its switches, is one span): a short window's count
 * is off by its reads' offsets, too much to judge it alone.
 */
#define TD_CALM_JUDGES		8
/*
 * and each event that took turns kept its ratio to its reference within
 * 1/TD_CALM_EVENT_DIV of itself over its judged spans: a phase that moves
 * only such events (Level 3 memory nodes under a steady Level 1) is not
 * calm.  (In a calm interval, one turn each, an event has one span: its
 * ratio is held to the last calm interval's range instead, and a break
 * makes the interval not calm: td_calm_end().)
 */
#define TD_CALM_EVENT_DIV	100

/* the events counting now: the ones counted all the time and the set's */
static inline u32 td_on(const struct td_cpu *tc)
{
	return tc->sets.every | tc->sets.set[tc->plan.cur];
}

/* the interval's length, ns */
static inline u64 td_ival_ns(const struct td_cpu *tc)
{
	return (u64)READ_ONCE(tc->cfg->interval_ms) * NSEC_PER_MSEC;
}

/* td_identify_x86.c, td_identify_arm64.c */
const struct td_model *td_arch_identify(unsigned int cpu);
void td_arch_describe(unsigned int cpu, char *buf, size_t len);
bool td_arch_implements(unsigned int cpu, u64 config);
unsigned int td_arch_pmmir_slots(unsigned int cpu);
int td_arch_fixed_idx(unsigned int n, bool own_pmu);

/* td_identify.c */
void td_set_slots(struct td_cpu *tc, const struct td_model *m);
const struct td_model *td_cpu_model(struct td_cpu *tc,
				    const struct td_model *m);

/* td_counters.c */
void td_release(struct td_cpu *tc);
void td_enable(struct td_cpu *tc, u32 mask, bool on);
unsigned int td_missing(const struct td_cpu *tc);
void td_reform(struct td_cpu *tc);
void td_open(struct td_cpu *tc);
void td_cpu_log_reset(void);

/* td_fixed.c */
int td_fixed_held(const struct td_cpu *tc);
int td_fixed_wanted(const struct td_cpu *tc, unsigned int missing);
bool td_fixed_free(struct td_cpu *tc);
void td_find_held(struct td_cpu *tc);

/* td_calm.c */
bool td_l1_always(const struct td_cpu *tc);
void td_calm_window(struct td_cpu *tc, const u64 *node, u64 norm,
		    u64 span);
void td_calm_event(struct td_cpu *tc, struct td_counter *k, u64 count,
		   u64 ref, u64 span);
void td_calm_end(struct td_cpu *tc);

/* td_snapshot.c */
int td_snapshot(struct td_cpu *tc, u64 *now, bool switched,
		bool may_wait);
void td_read_gaps(struct td_cpu *tc);
void td_base_gaps(struct td_cpu *tc);
size_t td_scratch_size(unsigned int nr);
int td_scratch_alloc(struct td_cpu *tc, unsigned int nr);

/* td_sample.c */
void td_clear_acc(struct td_cpu *tc);
void td_end_interval(struct td_cpu *tc, u64 now);
void td_fill_sample(const struct td_cpu *tc, struct td_sample *s,
		    unsigned int room);

/* td_schedule.c */
u64 td_grid_len(const struct td_cpu *tc, u64 now);
void td_switch_avg(struct td_cpu *tc, u64 sw);
void td_plan_span(struct td_cpu *tc, u64 from, u64 len);
void td_plan(struct td_cpu *tc, u64 len);
void td_arm(struct td_cpu *tc, u64 now);
void td_shuffle(struct td_cpu *tc);
void td_calm_first(struct td_cpu *tc);
void td_begin(struct td_cpu *tc, unsigned int gp, u64 *now);

/* td_work.c */
void td_work(struct work_struct *work);
enum hrtimer_restart td_tick(struct hrtimer *timer);

#endif /* _TD_INTERNAL_H */
