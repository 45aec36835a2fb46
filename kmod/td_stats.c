// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: what sampling costs, per CPU.  Every CPU's sampling work adds
 * to its own counters, so no lock or cache line is shared between CPUs on
 * the sampling path; a reader of debugfs's stats sums them.  u64_stats
 * makes the sums tear-free on 32-bit kernels and costs nothing on 64-bit.
 */
#include <linux/percpu.h>
#include <linux/u64_stats_sync.h>
#include "topdown.h"

struct td_pcpu_stats {
	struct td_stats s;
	struct u64_stats_sync sync;
};

static DEFINE_PER_CPU(struct td_pcpu_stats, td_pcpu_stats);

/** td_stats_init() - at load, before any CPU samples */
void td_stats_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(&td_pcpu_stats, cpu)->sync);
}

/**
 * td_stats_add() - add @d to the calling CPU's statistics
 * @d: what to add
 *
 * Process context; preemption is off while it adds, so the one writer of
 * each CPU's counters is that CPU.
 */
void td_stats_add(const struct td_stats *d)
{
	struct td_pcpu_stats *p = get_cpu_ptr(&td_pcpu_stats);

	u64_stats_update_begin(&p->sync);
	p->s.samples += d->samples;
	p->s.ticks += d->ticks;
	p->s.cost_ns += d->cost_ns;
	p->s.switch_ns += d->switch_ns;
	p->s.switches += d->switches;
	p->s.read_ns += d->read_ns;
	p->s.reads += d->reads;
	p->s.reread_ns += d->reread_ns;
	p->s.notify_ns += d->notify_ns;
	p->s.ntf_msgs += d->ntf_msgs;
	p->s.errors += d->errors;
	u64_stats_update_end(&p->sync);
	put_cpu_ptr(&td_pcpu_stats);
}

/**
 * td_stats_sum() - every CPU's statistics added up
 * @sum: out
 */
void td_stats_sum(struct td_stats *sum)
{
	unsigned int cpu, start;
	struct td_stats one;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct td_pcpu_stats *p = per_cpu_ptr(&td_pcpu_stats, cpu);

		do {
			start = u64_stats_fetch_begin(&p->sync);
			one = p->s;
		} while (u64_stats_fetch_retry(&p->sync, start));
		sum->samples += one.samples;
		sum->ticks += one.ticks;
		sum->cost_ns += one.cost_ns;
		sum->switch_ns += one.switch_ns;
		sum->switches += one.switches;
		sum->read_ns += one.read_ns;
		sum->reads += one.reads;
		sum->reread_ns += one.reread_ns;
		sum->notify_ns += one.notify_ns;
		sum->ntf_msgs += one.ntf_msgs;
		sum->errors += one.errors;
	}
}
