// SPDX-License-Identifier: GPL-2.0
/*
 * tdsim: the perf PMUs of the simulated CPUs.
 *
 * "tdsim": CPU-wide counting events only, on a model's raw encodings, with
 * a fixed number of general-purpose and fixed counters so that perf's own
 * multiplexing takes over when more events are opened than fit (add()
 * returns -EAGAIN, as the x86 PMU does when no counter is free).
 *
 * "tdsim_truth": the cumulative ground truth (cycles, slots, each node) as
 * counting events, for measuring perf's own intervals exactly.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include "tdsim.h"

#define TDSIM_FIXED_IDX		32	/* hw.idx of fixed counter 0 */
#define TDSIM_INTEL_ANY		BIT_ULL(21)	/* AnyThread, format any */

static struct tdsim_pmu *tdsim_pmu_of(struct pmu *pmu)
{
	return container_of(pmu, struct tdsim_pmu, pmu);
}

/* the simulator of @event's PMU */
static struct tdsim *tdsim_of(struct perf_event *event)
{
	return tdsim_pmu_of(event->pmu)->sim;
}

static struct tdsim_cpu *tdsim_event_cpu(struct perf_event *event)
{
	return tdsim_cpu(tdsim_of(event), event->cpu);
}

/* the CPU of a PMU callback that runs on it */
static struct tdsim_cpu *tdsim_this_cpu(struct pmu *pmu)
{
	return tdsim_cpu(tdsim_pmu_of(pmu)->sim, smp_processor_id());
}

/*
 * What the event's counter shows now: its count less what it counted while
 * the PMU was stopped, and while stopped the count it stopped at.
 */
static u64 tdsim_read_counter(struct perf_event *event)
{
	struct tdsim_cpu *sc = tdsim_event_cpu(event);
	u32 noise = READ_ONCE(tdsim_of(event)->noise_ppm);
	unsigned long flags;
	u64 val;

	raw_spin_lock_irqsave(&sc->lock, flags);
	val = tdsim_read_count(sc, event->hw.config, noise);
	if (sc->frozen && (sc->frozen_mask & BIT_ULL(event->hw.config)))
		val = sc->frozen_val[event->hw.config];
	val -= sc->lost[event->hw.config];
	raw_spin_unlock_irqrestore(&sc->lock, flags);
	return val;
}

/* Called with sc->lock held: quantity @i stands still until enabled. */
static void tdsim_freeze_q(struct tdsim_cpu *sc, unsigned int i, u64 now)
{
	if (sc->frozen_mask & BIT_ULL(i))
		return;
	sc->frozen_val[i] = tdsim_count(sc, i, now);
	sc->frozen_mask |= BIT_ULL(i);
}

/*
 * perf_pmu_disable() of the CPU's own PMU, on it with IRQs off: counters
 * stop, as a hardware PMU's do, while perf's clock stands still for the
 * events it moves; running on, pinned events would count what moved ones
 * lose.
 */
static void tdsim_pmu_disable(struct pmu *pmu)
{
	struct tdsim_pmu *tp = tdsim_pmu_of(pmu);
	struct tdsim_cpu *sc = tdsim_this_cpu(pmu);
	unsigned long flags;
	unsigned int i;
	u64 now;

	if (!tp->sim->freeze || tp->atom != sc->atom)
		return;
	raw_spin_lock_irqsave(&sc->lock, flags);
	now = tdsim_now(sc);
	sc->frozen = true;
	for (i = 0; i < sc->model->nr_events; i++)
		if (sc->added[i])
			tdsim_freeze_q(sc, i, now);
	raw_spin_unlock_irqrestore(&sc->lock, flags);
}

static void tdsim_pmu_enable(struct pmu *pmu)
{
	struct tdsim_cpu *sc = tdsim_this_cpu(pmu);
	unsigned long flags;
	unsigned int i;
	u64 now;

	if (tdsim_pmu_of(pmu)->atom != sc->atom)
		return;
	raw_spin_lock_irqsave(&sc->lock, flags);
	now = tdsim_now(sc);
	for (i = 0; i < sc->model->nr_events; i++)
		if (sc->frozen_mask & BIT_ULL(i))
			sc->lost[i] += tdsim_count(sc, i, now) - sc->frozen_val[i];
	sc->frozen_mask = 0;
	sc->frozen = false;
	raw_spin_unlock_irqrestore(&sc->lock, flags);
}

static void tdsim_update(struct perf_event *event, u64 now)
{
	u64 prev = local64_xchg(&event->hw.prev_count, now);

	local64_add(now - prev, &event->count);
}

static void tdsim_event_update(struct perf_event *event)
{
	tdsim_update(event, tdsim_read_counter(event));
}

/* @config's index among model @m's events, or -EINVAL: it has no such event */
static int tdsim_event_index(const struct tdsim_model *m, u64 config)
{
	unsigned int i;

	for (i = 0; i < m->nr_events; i++)
		if (m->events[i].config == config)
			return i;
	return -EINVAL;
}

/*
 * What x86 refuses with -EINVAL: a fixed-counter-only event whose counter
 * the PMU lacks (validate_event()), and with anythread=0 the AnyThread
 * bit, as a KVM guest's perfmon version 2 does (intel_pmu_hw_config()).
 */
static bool tdsim_event_refused(const struct tdsim *sim,
				const struct tdsim_cpu *sc, unsigned int i,
				u64 config)
{
	const struct tdsim_event *e = &sc->model->events[i];

	if (!e->gp_mask && e->fixed >= 0 && e->fixed >= (int)sc->fixed_counters)
		return true;
	return !sim->anythread && sc->model->vendor == TDSIM_INTEL &&
	       (config & TDSIM_INTEL_ANY);
}

/*
 * The CPU's own PMU only, as x86's hybrid PMUs refuse other CPUs' events
 * with -ENOENT; they also take PERF_TYPE_HARDWARE cycles, so such an event
 * finds each CPU's own PMU.
 */
static int tdsim_event_init(struct perf_event *event)
{
	struct tdsim_pmu *tp = tdsim_pmu_of(event->pmu);
	struct tdsim *sim = tp->sim;
	u64 config = event->attr.config;
	struct tdsim_cpu *sc;
	int i;

	if (event->attr.type != event->pmu->type) {
		if (!sim->hybrid || event->attr.type != PERF_TYPE_HARDWARE ||
		    config != PERF_COUNT_HW_CPU_CYCLES)
			return -ENOENT;
		config = 0;	/* below: this CPU's model's cycles */
	}
	if (event->cpu >= 0) {
		sc = tdsim_cpu(sim, event->cpu);
		if (tp->atom != sc->atom)
			return -ENOENT;
		if (!config)
			config = tdsim_cycles_config(sc->model);
	}
	if (atomic_dec_if_positive(&sim->fail_event_init) >= 0)
		return -EIO;			/* fault injected by a test */
	if (event->cpu < 0)
		return -EINVAL;			/* CPU-wide events only */
	if (is_sampling_event(event) || has_branch_stack(event))
		return -EOPNOTSUPP;
	if (event->attr.config1 || event->attr.config2)
		return -EINVAL;
	i = tdsim_event_index(sc->model, config);
	if (i < 0 || tdsim_event_refused(sim, sc, i, event->attr.config))
		return -EINVAL;
	event->hw.config = i;
	event->hw.idx = -1;
	return sim->mediated ? tdsim_mediated_account(event) : 0;
}

static void tdsim_start(struct perf_event *event, int flags)
{
	local64_set(&event->hw.prev_count, tdsim_read_counter(event));
	event->hw.state = 0;
}

static void tdsim_stop(struct perf_event *event, int flags)
{
	if (event->hw.state & PERF_HES_STOPPED)
		return;
	tdsim_event_update(event);
	event->hw.state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

/*
 * Take a counter the event may use: its fixed counter if free, else the
 * highest free general-purpose counter it allows, which leaves the low,
 * constrained counters (GP0 only, GP0-3) to the events that need them.
 */
static int tdsim_add(struct perf_event *event, int flags)
{
	struct tdsim_cpu *sc = tdsim_event_cpu(event);
	const struct tdsim_event *e = &sc->model->events[event->hw.config];
	unsigned long irqflags;
	int idx = -1;
	u32 free;

	if (atomic_dec_if_positive(&tdsim_of(event)->fail_add) >= 0)
		return -EAGAIN;			/* fault injected by a test */

	raw_spin_lock_irqsave(&sc->lock, irqflags);
	if (e->fixed >= 0 && e->fixed < sc->fixed_counters &&
	    !(sc->fixed_used & BIT(e->fixed))) {
		sc->fixed_used |= BIT(e->fixed);
		idx = TDSIM_FIXED_IDX + e->fixed;
	} else {
		free = e->gp_mask & ~sc->gp_used & (BIT(sc->gp_counters) - 1);
		if (free) {
			idx = fls(free) - 1;
			sc->gp_used |= BIT(idx);
		}
	}
	if (idx >= 0) {
		sc->added[event->hw.config]++;
		/* added while perf holds the PMU disabled: it starts stopped */
		if (sc->frozen)
			tdsim_freeze_q(sc, event->hw.config, tdsim_now(sc));
	}
	raw_spin_unlock_irqrestore(&sc->lock, irqflags);
	if (idx < 0)
		return -EAGAIN;

	event->hw.idx = idx;
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		tdsim_start(event, PERF_EF_RELOAD);
	perf_event_update_userpage(event);
	return 0;
}

static void tdsim_del(struct perf_event *event, int flags)
{
	struct tdsim_cpu *sc = tdsim_event_cpu(event);
	int idx = event->hw.idx;
	unsigned long irqflags;

	tdsim_stop(event, PERF_EF_UPDATE);
	raw_spin_lock_irqsave(&sc->lock, irqflags);
	if (idx >= TDSIM_FIXED_IDX)
		sc->fixed_used &= ~BIT(idx - TDSIM_FIXED_IDX);
	else if (idx >= 0)
		sc->gp_used &= ~BIT(idx);
	if (idx >= 0)
		sc->added[event->hw.config]--;
	raw_spin_unlock_irqrestore(&sc->lock, irqflags);
	event->hw.idx = -1;
	perf_event_update_userpage(event);
}

/*
 * stall_every, stall_us and stall_crawl_us: a read waits as one does whose
 * vCPU the host deschedules, and then every read for a while after it,
 * as a vCPU crawls on a busy host.  Counted per CPU, so a reread right
 * after a stalled read does not stall too.  Reads only, not perf's
 * scheduling of events.
 */
static void tdsim_stall(struct tdsim *sim, struct tdsim_cpu *sc)
{
	u32 every = READ_ONCE(sim->stall_every);
	u64 now = ktime_get_mono_fast_ns();

	if (now >= sc->crawl_until) {
		if (!every || ++sc->reads % every)
			return;
		sc->crawl_until = now + (u64)READ_ONCE(sim->stall_crawl_us) *
					NSEC_PER_USEC;
	}
	udelay(min_t(u32, READ_ONCE(sim->stall_us), 1000));
	atomic_inc(&sim->stalls);
}

static void tdsim_read(struct perf_event *event)
{
	tdsim_stall(tdsim_of(event), tdsim_event_cpu(event));
	tdsim_event_update(event);
}

/* sysfs: format/ as the emulated CPU's raw encoding, and cpumask. */

static ssize_t tdsim_format_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct dev_ext_attribute *ea =
		container_of(attr, struct dev_ext_attribute, attr);

	return sysfs_emit(buf, "%s\n", (const char *)ea->var);
}

#define TDSIM_FORMAT(_var, _name, _fmt)					\
	static struct dev_ext_attribute _var = {			\
		.attr = __ATTR(_name, 0444, tdsim_format_show, NULL),	\
		.var = (void *)(_fmt),					\
	}

TDSIM_FORMAT(intel_event, event, "config:0-7");
TDSIM_FORMAT(amd_event, event, "config:0-7,32-35");
TDSIM_FORMAT(arm_event, event, "config:0-15");
TDSIM_FORMAT(x86_umask, umask, "config:8-15");
TDSIM_FORMAT(x86_edge, edge, "config:18");
TDSIM_FORMAT(intel_any, any, "config:21");
TDSIM_FORMAT(x86_inv, inv, "config:23");
TDSIM_FORMAT(x86_cmask, cmask, "config:24-31");

static struct attribute *intel_format_attrs[] = {
	&intel_event.attr.attr, &x86_umask.attr.attr, &x86_edge.attr.attr,
	&intel_any.attr.attr, &x86_inv.attr.attr, &x86_cmask.attr.attr, NULL,
};

static struct attribute *amd_format_attrs[] = {
	&amd_event.attr.attr, &x86_umask.attr.attr, &x86_edge.attr.attr,
	&x86_inv.attr.attr, &x86_cmask.attr.attr, NULL,
};

static struct attribute *arm_format_attrs[] = {
	&arm_event.attr.attr, NULL,
};

static struct attribute_group tdsim_format_group = {
	.name = "format",
};

/* the online CPUs of this PMU (perf core sets the PMU as drvdata) */
static ssize_t cpumask_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct tdsim_pmu *tp = tdsim_pmu_of(dev_get_drvdata(dev));
	cpumask_var_t mask;
	unsigned int cpu;
	ssize_t ret;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	for_each_online_cpu(cpu)
		if (tdsim_cpu(tp->sim, cpu)->atom == tp->atom)
			cpumask_set_cpu(cpu, mask);
	ret = sysfs_emit(buf, "%*pbl\n", cpumask_pr_args(mask));
	free_cpumask_var(mask);
	return ret;
}
static DEVICE_ATTR_RO(cpumask);

static struct attribute *tdsim_cpumask_attrs[] = {
	&dev_attr_cpumask.attr, NULL,
};

static const struct attribute_group tdsim_cpumask_group = {
	.attrs = tdsim_cpumask_attrs,
};

/* caps/slots as arm_pmuv3 shows PMMIR_EL1.SLOTS (0 before PMUv3p4), Arm only */
static ssize_t slots_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	const struct tdsim_model *m = tdsim_pmu_of(dev_get_drvdata(dev))->sim->model;

	return sysfs_emit(buf, "0x%08x\n", m->pmmir ? m->width : 0);
}
static DEVICE_ATTR_RO(slots);

static struct attribute *tdsim_caps_attrs[] = {
	&dev_attr_slots.attr, NULL,
};

static umode_t tdsim_caps_visible(struct kobject *kobj, struct attribute *attr,
				  int i)
{
	struct tdsim_pmu *tp = tdsim_pmu_of(dev_get_drvdata(kobj_to_dev(kobj)));

	return tp->sim->model->vendor == TDSIM_ARM ? attr->mode : 0;
}

static const struct attribute_group tdsim_caps_group = {
	.name = "caps",
	.attrs = tdsim_caps_attrs,
	.is_visible = tdsim_caps_visible,
};

static const struct attribute_group *tdsim_attr_groups[] = {
	&tdsim_format_group, &tdsim_cpumask_group, &tdsim_caps_group, NULL,
};

static const struct pmu tdsim_pmu_ops = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_invalid_context,
	.capabilities	= PERF_PMU_CAP_NO_INTERRUPT,
	.attr_groups	= tdsim_attr_groups,
	.pmu_enable	= tdsim_pmu_enable,
	.pmu_disable	= tdsim_pmu_disable,
	.event_init	= tdsim_event_init,
	.add		= tdsim_add,
	.del		= tdsim_del,
	.start		= tdsim_start,
	.stop		= tdsim_stop,
	.read		= tdsim_read,
};

/*
 * tdsim_truth: a second PMU whose events count the cumulative truth of their
 * CPU (config: TDSIM_TRUTH_*).  It uses no counter, so add() never fails and
 * perf never multiplexes it: added next to tdsim's events, each of perf's
 * intervals gets its exact truth.
 */

static u64 tdsim_truth_read_now(struct perf_event *event)
{
	struct tdsim_cpu *sc = tdsim_event_cpu(event);
	unsigned long flags;
	u64 now, val;

	raw_spin_lock_irqsave(&sc->lock, flags);
	now = sc->truth_frozen ? sc->truth_frozen : tdsim_now(sc);
	val = tdsim_epoch_truth(&sc->epoch[sc->head], event->hw.config, now);
	raw_spin_unlock_irqrestore(&sc->lock, flags);
	return val;
}

static int tdsim_truth_event_init(struct perf_event *event)
{
	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	if (event->cpu < 0)
		return -EINVAL;			/* CPU-wide events only */
	if (is_sampling_event(event) || has_branch_stack(event))
		return -EOPNOTSUPP;
	if (event->attr.config1 || event->attr.config2 ||
	    !tdsim_truth_valid(tdsim_event_cpu(event)->model, event->attr.config))
		return -EINVAL;
	event->hw.config = event->attr.config;
	event->hw.idx = -1;
	return 0;
}

static void tdsim_truth_start(struct perf_event *event, int flags)
{
	local64_set(&event->hw.prev_count, tdsim_truth_read_now(event));
	event->hw.state = 0;
}

static void tdsim_truth_stop(struct perf_event *event, int flags)
{
	if (event->hw.state & PERF_HES_STOPPED)
		return;
	tdsim_update(event, tdsim_truth_read_now(event));
	event->hw.state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int tdsim_truth_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		tdsim_truth_start(event, PERF_EF_RELOAD);
	return 0;
}

static void tdsim_truth_del(struct perf_event *event, int flags)
{
	tdsim_truth_stop(event, PERF_EF_UPDATE);
}

static void tdsim_truth_read(struct perf_event *event)
{
	tdsim_update(event, tdsim_truth_read_now(event));
}

/* sysfs: format/event, events/<name> = "config=<index>", cpumask. */

TDSIM_FORMAT(truth_event, event, "config:0-7");

static struct attribute *tdsim_truth_format_attrs[] = {
	&truth_event.attr.attr, NULL,
};

static const struct attribute_group tdsim_truth_format_group = {
	.name = "format",
	.attrs = tdsim_truth_format_attrs,
};

static ssize_t tdsim_truth_event_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	struct perf_pmu_events_attr *pa =
		container_of(attr, struct perf_pmu_events_attr, attr);

	return sysfs_emit(buf, "config=%llu\n", pa->id);
}

#define TDSIM_TRUTH_EVENT(_name, _t) \
	PMU_EVENT_ATTR_ID(_name, tdsim_truth_event_show, _t)

static struct attribute *tdsim_truth_event_attrs[] = {
	TDSIM_TRUTH_EVENT(cycles, TDSIM_TRUTH_CYCLES),
	TDSIM_TRUTH_EVENT(slots, TDSIM_TRUTH_SLOTS),
	TDSIM_TRUTH_EVENT(retiring, TDSIM_TRUTH_KEY(TDSIM_RETIRING)),
	TDSIM_TRUTH_EVENT(bad_speculation,
			  TDSIM_TRUTH_KEY(TDSIM_BAD_SPECULATION)),
	TDSIM_TRUTH_EVENT(frontend_bound,
			  TDSIM_TRUTH_KEY(TDSIM_FRONTEND_BOUND)),
	TDSIM_TRUTH_EVENT(backend_bound, TDSIM_TRUTH_KEY(TDSIM_BACKEND_BOUND)),
	TDSIM_TRUTH_EVENT(smt_contention,
			  TDSIM_TRUTH_KEY(TDSIM_SMT_CONTENTION)),
	TDSIM_TRUTH_EVENT(heavy_operations,
			  TDSIM_TRUTH_KEY(TDSIM_HEAVY_OPERATIONS)),
	TDSIM_TRUTH_EVENT(branch_mispredicts,
			  TDSIM_TRUTH_KEY(TDSIM_BRANCH_MISPREDICTS)),
	TDSIM_TRUTH_EVENT(fetch_latency, TDSIM_TRUTH_KEY(TDSIM_FETCH_LATENCY)),
	TDSIM_TRUTH_EVENT(memory_bound, TDSIM_TRUTH_KEY(TDSIM_MEMORY_BOUND)),
	TDSIM_TRUTH_EVENT(l1_bound, TDSIM_TRUTH_KEY(TDSIM_L1_BOUND)),
	TDSIM_TRUTH_EVENT(l2_bound, TDSIM_TRUTH_KEY(TDSIM_L2_BOUND)),
	TDSIM_TRUTH_EVENT(l3_bound, TDSIM_TRUTH_KEY(TDSIM_L3_BOUND)),
	TDSIM_TRUTH_EVENT(dram_bound, TDSIM_TRUTH_KEY(TDSIM_DRAM_BOUND)),
	TDSIM_TRUTH_EVENT(store_bound, TDSIM_TRUTH_KEY(TDSIM_STORE_BOUND)),
	TDSIM_TRUTH_EVENT(mem_bandwidth, TDSIM_TRUTH_KEY(TDSIM_MEM_BANDWIDTH)),
	TDSIM_TRUTH_EVENT(mem_latency, TDSIM_TRUTH_KEY(TDSIM_MEM_LATENCY)),
	NULL,
};

/* smt_contention only where the model has it */
static umode_t tdsim_truth_event_visible(struct kobject *kobj,
					 struct attribute *attr, int i)
{
	struct perf_pmu_events_attr *pa =
		container_of(attr, struct perf_pmu_events_attr, attr.attr);

	struct tdsim_pmu *tp = tdsim_pmu_of(dev_get_drvdata(kobj_to_dev(kobj)));

	return tdsim_truth_valid(tp->sim->model, pa->id) ? attr->mode : 0;
}

static const struct attribute_group tdsim_truth_events_group = {
	.name = "events",
	.attrs = tdsim_truth_event_attrs,
	.is_visible = tdsim_truth_event_visible,
};

static const struct attribute_group *tdsim_truth_attr_groups[] = {
	&tdsim_truth_format_group, &tdsim_truth_events_group,
	&tdsim_cpumask_group, NULL,
};

/*
 * While perf holds tdsim_truth disabled on a CPU (a group's add, read or
 * del), every read there is of one moment, so a group's members agree
 * exactly however long the vCPU stalls between them.  On the CPU, IRQs off.
 */
static void tdsim_truth_pmu_disable(struct pmu *pmu)
{
	struct tdsim_cpu *sc = tdsim_this_cpu(pmu);
	unsigned long flags;

	raw_spin_lock_irqsave(&sc->lock, flags);
	sc->truth_frozen = tdsim_now(sc);
	raw_spin_unlock_irqrestore(&sc->lock, flags);
}

static void tdsim_truth_pmu_enable(struct pmu *pmu)
{
	struct tdsim_cpu *sc = tdsim_this_cpu(pmu);
	unsigned long flags;

	raw_spin_lock_irqsave(&sc->lock, flags);
	sc->truth_frozen = 0;
	raw_spin_unlock_irqrestore(&sc->lock, flags);
}

static const struct pmu tdsim_truth_pmu_ops = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_invalid_context,
	.capabilities	= PERF_PMU_CAP_NO_INTERRUPT,
	.attr_groups	= tdsim_truth_attr_groups,
	.pmu_enable	= tdsim_truth_pmu_enable,
	.pmu_disable	= tdsim_truth_pmu_disable,
	.event_init	= tdsim_truth_event_init,
	.add		= tdsim_truth_add,
	.del		= tdsim_truth_del,
	.start		= tdsim_truth_start,
	.stop		= tdsim_truth_stop,
	.read		= tdsim_truth_read,
};

/* @tp, a copy of @ops, registered as @name of @type for @sim */
static int tdsim_pmu_add(struct tdsim *sim, struct tdsim_pmu *tp,
			 const struct pmu *ops, bool atom, const char *name,
			 int type)
{
	tp->pmu = *ops;
	tp->sim = sim;
	tp->atom = atom;
#ifdef PERF_PMU_CAP_MEDIATED_VPMU
	/* perf core's own accounting too, where the kernel has it (7.0+) */
	if (sim->mediated && ops == &tdsim_pmu_ops)
		tp->pmu.capabilities |= PERF_PMU_CAP_MEDIATED_VPMU;
#endif
	return perf_pmu_register(&tp->pmu, name, type);
}

/**
 * tdsim_pmu_register() - register the "tdsim" PMU for the chosen model,
 * "tdsim_atom" for atom_cpus=, and the "tdsim_truth" PMU
 * @sim: the simulator, its settings made
 *
 * Return: 0 or the errno of perf_pmu_register().
 */
int tdsim_pmu_register(struct tdsim *sim)
{
	int ret;

	switch (sim->model->vendor) {
	case TDSIM_INTEL:
		tdsim_format_group.attrs = intel_format_attrs;
		break;
	case TDSIM_AMD:
		tdsim_format_group.attrs = amd_format_attrs;
		break;
	case TDSIM_ARM:
		tdsim_format_group.attrs = arm_format_attrs;
		break;
	}
	/* raw=1: PERF_TYPE_RAW's, as x86 registers its cpu or cpu_core PMU */
	ret = tdsim_pmu_add(sim, &sim->pmu, &tdsim_pmu_ops, false, "tdsim",
			    sim->raw ? PERF_TYPE_RAW : -1);
	if (ret)
		return ret;
	if (sim->hybrid) {
		ret = tdsim_pmu_add(sim, &sim->atom_pmu, &tdsim_pmu_ops, true,
				    "tdsim_atom", -1);
		if (ret)
			goto err_tdsim;
	}
	ret = tdsim_pmu_add(sim, &sim->truth_pmu, &tdsim_truth_pmu_ops, false,
			    "tdsim_truth", -1);
	if (!ret)
		return 0;
	if (sim->hybrid)
		perf_pmu_unregister(&sim->atom_pmu.pmu);
err_tdsim:
	perf_pmu_unregister(&sim->pmu.pmu);
	return ret;
}

/**
 * tdsim_pmu_type() - the perf type of a CPU's PMU, once registered
 * @sim: the simulator
 * @sc:  the CPU
 *
 * Return: the type perf_pmu_register() gave it.
 */
int tdsim_pmu_type(const struct tdsim *sim, const struct tdsim_cpu *sc)
{
	return sc->atom ? sim->atom_pmu.pmu.type : sim->pmu.pmu.type;
}

/**
 * tdsim_cycles_config() - what PERF_COUNT_HW_CPU_CYCLES is on a CPU
 * @m: its model
 *
 * x86 intel_perfmon_event_map 0x003c, amd_zen*_perfmon_event_map 0x0076,
 * armv8_pmuv3_perf_map CPU_CYCLES 0x11.
 *
 * Return: the raw event code.
 */
u64 tdsim_cycles_config(const struct tdsim_model *m)
{
	switch (m->vendor) {
	case TDSIM_INTEL:
		return 0x003c;
	case TDSIM_AMD:
		return 0x0076;
	default:
		return 0x11;
	}
}

/**
 * tdsim_pmu_unregister() - undo tdsim_pmu_register()
 * @sim: the simulator
 */
void tdsim_pmu_unregister(struct tdsim *sim)
{
	perf_pmu_unregister(&sim->truth_pmu.pmu);
	if (sim->hybrid)
		perf_pmu_unregister(&sim->atom_pmu.pmu);
	perf_pmu_unregister(&sim->pmu.pmu);
}
