// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: the core's per-CPU state, and CPU hotplug.
 *
 * Each possible CPU has a struct td_cpu in per-CPU memory.  Its counters
 * live from the hotplug online callback to the offline one; its sampling
 * work (td_work.c) publishes each interval through the core's hook.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/cpu.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include "topdown.h"
#include "td_internal.h"
#include "td_compat.h"

/*
 * One allocation per possible CPU: an array of them all can exceed the
 * largest kmalloc (Debian builds NR_CPUS=8192), and a CPU's sampling
 * touches only its own.
 */
static struct td_cpu __percpu *td_cpus;

struct td_cpu *td_cpu_of(unsigned int cpu)
{
	return per_cpu_ptr(td_cpus, cpu);
}

const char *td_state_name(enum td_state s)
{
	static const char * const names[] = {
		[TD_STATE_OFFLINE] = "offline",
		[TD_STATE_UNSUPPORTED] = "unsupported",
		[TD_STATE_NO_PMU] = "no-pmu",
		[TD_STATE_ERROR] = "error",
		[TD_STATE_WAITING] = "waiting",
		[TD_STATE_OK] = "ok",
		[TD_STATE_IDLE] = "idle",
		[TD_STATE_NOT_COUNTED] = "not-counted",
		[TD_STATE_STOPPED] = "stopped",
	};

	return names[s];
}

/** td_sample_alloc() - room for any CPU's sample, for td_cpu_sample() */
struct td_sample *td_sample_alloc(void)
{
	struct td_sample *s;

	return kzalloc(struct_size(s, counts, TD_MAX_EVENTS), GFP_KERNEL);
}

/**
 * td_cpu_sample() - a CPU's latest interval and state, as it would publish them
 * @cpu: a possible CPU
 * @s:   out, from td_sample_alloc()
 */
void td_cpu_sample(unsigned int cpu, struct td_sample *s)
{
	struct td_cpu *tc = td_cpu_of(cpu);

	mutex_lock(&tc->lock);
	td_fill_sample(tc, s, TD_MAX_EVENTS);
	mutex_unlock(&tc->lock);
}

static void td_smt_work(struct work_struct *work);

static void td_cpu_init(struct td_cpu *tc, unsigned int cpu,
			const struct td_config *cfg, td_publish_t publish)
{
	mutex_init(&tc->lock);
	tc->cpu = cpu;
	tc->cfg = cfg;
	tc->publish = publish;
	tc->state = TD_STATE_STOPPED;
	/* a CPU never online has no identity yet; model= applies to it */
	tc->model = td_cpu_model(tc, cfg->model);
	tc->slots_from = TD_SLOTS_MODEL;
	td_hrtimer_setup(&tc->timer, td_tick, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED);
	INIT_WORK(&tc->work, td_work);
	INIT_WORK(&tc->smt_work, td_smt_work);
}

/**
 * td_core_init() - every possible CPU's state, stopped
 * @cfg:     the configuration, the control layer's
 * @publish: the hook each sample goes out through
 *
 * Return: 0 or -ENOMEM.
 */
int td_core_init(const struct td_config *cfg, td_publish_t publish)
{
	unsigned int cpu;

	td_cpus = alloc_percpu(struct td_cpu);
	if (!td_cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		td_cpu_init(td_cpu_of(cpu), cpu, cfg, publish);
	return 0;
}

/** td_core_exit() - free it all; every CPU's counters are closed */
void td_core_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct td_cpu *tc = td_cpu_of(cpu);

		kfree(tc->ctr);
		kfree(tc->sample);
		kfree(tc->scr.acc);
	}
	free_percpu(td_cpus);
	td_cpus = NULL;
}

/**
 * td_core_stopped() - every CPU's state as the module stops or starts
 * @stopped: stopped, or offline until a CPU's online callback opens it
 *
 * Every CPU's counters are closed.  A start logs each model's counters
 * again.
 */
void td_core_stopped(bool stopped)
{
	unsigned int cpu;

	if (!stopped)
		td_cpu_log_reset();
	for_each_possible_cpu(cpu) {
		struct td_cpu *tc = td_cpu_of(cpu);

		mutex_lock(&tc->lock);
		if (stopped)
			tc->state = TD_STATE_STOPPED;
		else if (tc->state == TD_STATE_STOPPED)
			tc->state = TD_STATE_OFFLINE;
		mutex_unlock(&tc->lock);
	}
}

/**
 * td_cpu_memory() - the bytes of per-CPU state the module allocated
 *
 * As asked of the allocator; debugfs files and perf events are not in it.
 *
 * Return: the sum over the possible CPUs.
 */
size_t td_cpu_memory(void)
{
	size_t sum = num_possible_cpus() * sizeof(struct td_cpu);
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct td_cpu *tc = td_cpu_of(cpu);

		mutex_lock(&tc->lock);
		sum += tc->nr_ctr * sizeof(*tc->ctr) + tc->reg_size;
		if (tc->sample)
			sum += struct_size(tc->sample, counts, tc->nr_ctr);
		if (tc->scr.acc)
			sum += td_scratch_size(tc->nr_ctr);
		mutex_unlock(&tc->lock);
	}
	return sum;
}

/**
 * td_cpu_kick_all() - make every counting CPU start a new interval now
 *
 * After an interval change, so that the new length applies at once.
 */
void td_cpu_kick_all(void)
{
	unsigned int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct td_cpu *tc = td_cpu_of(cpu);

		mutex_lock(&tc->lock);
		if (tc->active)
			queue_work_on(cpu, system_highpri_wq, &tc->work);
		mutex_unlock(&tc->lock);
	}
	cpus_read_unlock();
}

/*
 * Whether another SMT thread of @cpu's core is online, @gone (nr_cpu_ids:
 * none) aside.  A CPU going offline leaves the sibling and online masks
 * only after the CPUHP_AP_ONLINE_DYN callbacks (__cpu_disable()); one
 * coming online is in them before its callbacks run (set_cpu_sibling_map()).
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
 * A sibling came or went, so the SMT-dependent events (skl's AnyThread
 * forms) and formulas change: the interval ends as not counted and the
 * counters are reopened for the new setting, on this CPU, the only place
 * they are read and switched.
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

	if (READ_ONCE(td_cpu_of(cpu)->cfg->closing))
		return;
	for_each_cpu(t, topology_sibling_cpumask(cpu)) {
		struct td_cpu *tc = td_cpu_of(t);

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
	struct td_cpu *tc = td_cpu_of(cpu);
	const struct td_model *m;
	bool active;
	char who[64];

	m = tc->cfg->model ? tc->cfg->model : td_arch_identify(cpu);
	mutex_lock(&tc->lock);
	tc->model = td_cpu_model(tc, m);
	tc->slots_from = TD_SLOTS_MODEL;
	tc->pmu_type = tc->cfg->pmu_type >= 0 ? tc->cfg->pmu_type : PERF_TYPE_RAW;
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
	struct td_cpu *tc = td_cpu_of(cpu);

	mutex_lock(&tc->lock);
	tc->active = false;
	mutex_unlock(&tc->lock);
	/* a work that runs now sees !active and arms nothing */
	cancel_work_sync(&tc->smt_work);
	hrtimer_cancel(&tc->timer);
	cancel_work_sync(&tc->work);
	mutex_lock(&tc->lock);
	td_release(tc);		/* nr and the totals stay, for raw */
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
