// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: CPU hotplug and SMT siblings: counters opened and closed with the CPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/topology.h>
#include <linux/slab.h>
#include "topdown.h"
#include "td_core.h"
#include "td_compat.h"

static void td_smt_work(struct work_struct *work);

/**
 * td_cpu_init() - set up the state of a possible CPU, offline
 * @tc:  its state
 * @cpu: the CPU
 */
void td_cpu_init(struct td_cpu *tc, unsigned int cpu)
{
	mutex_init(&tc->lock);
	tc->cpu = cpu;
	tc->state = TD_STATE_OFFLINE;
	/* a CPU never online has no identity yet; model= applies to it */
	tc->model = td_cpu_model(tc, td_forced_model);
	tc->slots_from = TD_SLOTS_MODEL;
	td_hrtimer_setup(&tc->timer, td_tick, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED);
	INIT_WORK(&tc->work, td_work);
	INIT_WORK(&tc->smt_work, td_smt_work);
}

/**
 * td_cpu_stopped() - a CPU's state as the module stops or starts
 * @tc:      the CPU, its counters closed
 * @stopped: stopped, or offline until it is set up again
 */
void td_cpu_stopped(struct td_cpu *tc, bool stopped)
{
	mutex_lock(&tc->lock);
	if (stopped)
		tc->state = TD_STATE_STOPPED;
	else if (tc->state == TD_STATE_STOPPED)
		tc->state = TD_STATE_OFFLINE;
	mutex_unlock(&tc->lock);
}

/*
 * Whether another SMT thread of @cpu's core is online, @gone (nr_cpu_ids:
 * none) aside: the CPU whose offline callback runs.  That CPU leaves
 * topology_sibling_cpumask() and cpu_online_mask only after the
 * CPUHP_AP_ONLINE_DYN callbacks, in take_cpu_down() -> __cpu_disable()
 * (x86: native_cpu_disable() -> cpu_disable_common() ->
 * remove_siblinginfo(), arch/x86/kernel/smpboot.c, 6.1 and 6.12).  A CPU
 * coming online is in its siblings' masks before its online callbacks
 * run (set_cpu_sibling_map(), from smp_callin() in 6.1 and ap_starting()
 * in 6.12).
 */
static bool td_smt(unsigned int cpu, unsigned int gone)
{
	unsigned int t;

	for_each_cpu(t, topology_sibling_cpumask(cpu))
		if (t != cpu && t != gone && cpu_online(t))
			return true;
	return false;
}

/*
 * A sibling of this CPU came or went: with the other SMT setting, the
 * SMT-dependent events (skl's AnyThread forms) and formulas change.  The
 * interval being counted ends, published as not counted (its counts are
 * of the old formulas, and the simulated or real core changed under them),
 * and the counters are opened again for the new setting, on this CPU: its
 * counters are read and switched only from here.
 */
static void td_smt_work(struct work_struct *work)
{
	struct td_cpu *tc = container_of(work, struct td_cpu, smt_work);
	u64 now;

	mutex_lock(&tc->lock);
	if (!tc->active || tc->smt == tc->smt_want)
		goto unlock;
	if (!tc->model->smt_only || tc->any_refused) {
		tc->smt = tc->smt_want;	/* the same events and formulas */
		goto unlock;
	}
	/* the sampling work finds no timer armed: it runs after this */
	hrtimer_cancel(&tc->timer);
	if (tc->started) {
		if (tc->starved || td_snapshot(tc, &now, false, false))
			now = ktime_get_ns();
		tc->cut = true;
		td_end_interval(tc, now);
		tc->cut = false;
	}
	td_enable(tc, tc->open, false);
	td_release(tc);
	tc->smt = tc->smt_want;
	pr_info("cpu%u: SMT sibling %s: counting %s\n", tc->cpu,
		tc->smt ? "online" : "offline",
		tc->smt ? "with AnyThread (core-wide)" : "per thread");
	td_open(tc);
	if (tc->active)
		queue_work_on(tc->cpu, system_highpri_wq, &tc->work);
unlock:
	mutex_unlock(&tc->lock);
}

/*
 * A CPU came or goes (@gone when it goes): each SMT sibling of @cpu
 * re-evaluates its SMT setting in a work on itself, never from here.
 * Nothing when the hotplug state itself is removed (unload, a level
 * change): every CPU is closed then anyway.
 */
static void td_kick_siblings(unsigned int cpu, unsigned int gone)
{
	unsigned int t;

	if (READ_ONCE(td_closing))
		return;
	for_each_cpu(t, topology_sibling_cpumask(cpu)) {
		struct td_cpu *tc = td_cpu(t);

		if (t == cpu || t == gone || !cpu_online(t))
			continue;
		mutex_lock(&tc->lock);
		tc->smt_want = td_smt(t, gone);
		if (tc->active)
			queue_work_on(t, system_highpri_wq, &tc->smt_work);
		else
			tc->smt = tc->smt_want;	/* no counters to change */
		mutex_unlock(&tc->lock);
	}
}

/**
 * td_cpu_memory() - the bytes of per-CPU state the module allocated
 *
 * Every possible CPU's struct td_cpu, its counters and its regression
 * state, and the notification bursts of each group of CPUs, as asked of
 * the allocator (which rounds up); debugfs files and the perf events are
 * not in it.
 *
 * Return: the sum over the possible CPUs.
 */
size_t td_cpu_memory(void)
{
	size_t sum = num_possible_cpus() * sizeof(struct td_cpu);
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct td_cpu *tc = td_cpu(cpu);

		mutex_lock(&tc->lock);
		sum += tc->nr_ctr * sizeof(*tc->ctr) + tc->reg_size;
		sum += td_nl_cpu_memory(tc);
		mutex_unlock(&tc->lock);
	}
	return sum + td_nl_memory();
}

/**
 * td_cpu_free() - at unload, a CPU's counters
 * @tc: the CPU, its events released (offline or never online)
 */
void td_cpu_free(struct td_cpu *tc)
{
	td_nl_cpu_release(tc);
	kfree(tc->ctr);
	tc->ctr = NULL;
	tc->nr_ctr = 0;
}

/**
 * td_cpu_online() - CPU hotplug: create the counters, start sampling
 * @cpu: the CPU coming online; this runs on it
 *
 * Never fails: a CPU without counters comes online all the same, and says
 * why in its info file.  Its SMT siblings count with AnyThread from now on.
 *
 * Return: 0.
 */
int td_cpu_online(unsigned int cpu)
{
	struct td_cpu *tc = td_cpu(cpu);
	const struct td_model *m;
	bool active;
	char who[64];

	m = td_forced_model ? td_forced_model : td_arch_identify(cpu);
	mutex_lock(&tc->lock);
	tc->model = td_cpu_model(tc, m);
	tc->slots_from = TD_SLOTS_MODEL;
	tc->pmu_type = td_pmu_type >= 0 ? td_pmu_type : PERF_TYPE_RAW;
	tc->smt = td_smt(cpu, nr_cpu_ids);
	tc->smt_want = tc->smt;
	if (!m) {
		tc->state = TD_STATE_UNSUPPORTED;
		tc->nr = 0;
		tc->open = 0;
		mutex_unlock(&tc->lock);
		td_arch_describe(cpu, who, sizeof(who));
		pr_info_once("cpu%u: %s is not supported (give model=)\n", cpu, who);
		return 0;
	}
	td_open(tc);
	active = tc->active;
	mutex_unlock(&tc->lock);
	/* the work enables the counters, on this CPU */
	if (active)
		queue_work_on(cpu, system_highpri_wq, &tc->work);
	td_kick_siblings(cpu, nr_cpu_ids);
	return 0;
}

/**
 * td_cpu_offline() - CPU hotplug: stop sampling, release the counters
 * @cpu: the CPU going offline
 *
 * Cumulative totals stay; the next online continues them.
 *
 * Return: 0.
 */
int td_cpu_offline(unsigned int cpu)
{
	struct td_cpu *tc = td_cpu(cpu);
	bool was;

	mutex_lock(&tc->lock);
	was = tc->active;
	tc->active = false;
	mutex_unlock(&tc->lock);
	if (was)
		td_nl_sampling(cpu, false);
	/* a work that runs now sees !active and arms nothing */
	cancel_work_sync(&tc->smt_work);
	hrtimer_cancel(&tc->timer);
	cancel_work_sync(&tc->work);
	mutex_lock(&tc->lock);
	td_release(tc);		/* nr and the totals stay, for raw */
	td_nl_cpu_release(tc);
	kvfree(tc->reg);
	tc->reg = NULL;
	tc->reg_size = 0;
	tc->state = TD_STATE_OFFLINE;
	tc->started = false;
	mutex_unlock(&tc->lock);
	/* its siblings count without it, from before it leaves their masks */
	td_kick_siblings(cpu, cpu);
	return 0;
}
