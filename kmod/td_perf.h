/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topdown: perf's internals, in one place (with td_caps_slots() in
 * td_perf.c).
 *
 * The module reads a few fields of struct perf_event that perf keeps to
 * itself, because what it needs (perf_event_read_local()) is not exported
 * to modules.  Each is read here alone, behind a function that says what
 * it means, so that a kernel that changes one breaks this file and no
 * other; selftests/kmod/td_perf_test holds the read to perf's own.  They
 * are inline because a snapshot reads every counter through them with
 * interrupts off.
 */
#ifndef _TD_PERF_H
#define _TD_PERF_H

#include <linux/perf_event.h>
#include <linux/lockdep.h>
#include <linux/smp.h>

unsigned int td_caps_slots(struct perf_event *ev);

/**
 * td_perf_read_local() - what perf_event_read_local() does, for a module
 * @ev:      a CPU-wide event of this CPU; interrupts off
 * @value:   out: its count, read from its PMU while it is on a counter;
 *           NULL: the times alone
 * @enabled: out: its enabled time, ns, as perf last brought it up to date
 * @running: out: and its running time
 *
 * perf_event_read_local() is not exported to modules, so this reads the
 * event's fields as it does.  While the event counts, both times advance
 * together, and neither while it is disabled: their difference is current
 * then, but not while it waits for a counter.
 *
 * Return: 0; -EAGAIN while it waits for a counter (the times are stale);
 * -EINVAL off its CPU.
 */
static inline int td_perf_read_local(struct perf_event *ev, u64 *value,
				     u64 *enabled, u64 *running)
{
	lockdep_assert_irqs_disabled();
	if (ev->cpu != smp_processor_id())
		return -EINVAL;
	if (value && READ_ONCE(ev->oncpu) == smp_processor_id())
		ev->pmu->read(ev);
	if (value)
		*value = local64_read(&ev->count);
	*enabled = ev->total_time_enabled;
	*running = ev->total_time_running;
	return READ_ONCE(ev->state) == PERF_EVENT_STATE_INACTIVE ? -EAGAIN : 0;
}

/* whether @ev is on a counter now (perf scheduled it in) */
static inline bool td_perf_active(const struct perf_event *ev)
{
	return READ_ONCE(ev->state) == PERF_EVENT_STATE_ACTIVE;
}

/* the counter perf put @ev on (perf's hw.idx), or -1 */
static inline int td_perf_counter(const struct perf_event *ev)
{
	return READ_ONCE(ev->hw.idx);
}

/* the attributes @ev was created with */
static inline const struct perf_event_attr *
td_perf_attr(const struct perf_event *ev)
{
	return &ev->attr;
}

/* the PMU that took @ev */
static inline const struct pmu *td_perf_pmu(const struct perf_event *ev)
{
	return ev->pmu;
}

/*
 * Whether a flexible group of @ev's PMU found no counter at its last
 * scheduling: perf sets rotate_necessary for that (merge_sched_in()), in
 * the event's context before 6.2 and in its PMU's part of the context
 * since.  Read without perf's lock: a hint, acted on at the next interval.
 */
static inline bool td_perf_group_waits(const struct perf_event *ev)
{
#ifdef TD_HAVE_PERF_PMU_CTX
	return READ_ONCE(ev->pmu_ctx->rotate_necessary);
#else
	return READ_ONCE(ev->ctx->rotate_necessary);
#endif
}

#endif /* _TD_PERF_H */
