// SPDX-License-Identifier: GPL-2.0
/*
 * tdsim: the perf PMU.  CPU-wide counting events only, on a model's raw
 * encodings, with a fixed number of general-purpose and fixed counters so
 * that perf's own multiplexing takes over when more events are opened than
 * fit (add() returns -EAGAIN, as the x86 PMU does when no counter is free).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/perf_event.h>
#include <linux/cpu.h>
#include <linux/random.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/topology.h>
#include "tdsim.h"

#define TDSIM_FIXED_IDX		32	/* hw.idx of fixed counter 0 */
#define TDSIM_NOISE_PERIOD_NS	(10 * NSEC_PER_MSEC)

/*
 * Time is the CPU's own local_clock(), the clock perf measures enabled and
 * running time with: a simulated counter then counts exactly while perf
 * says it runs, as a real one does.  So every use is on the CPU itself.
 */
static u64 tdsim_now(struct tdsim_cpu *sc)
{
	u64 now = local_clock();

	if (!sc->epoch_valid) {	/* profile set while the CPU was offline */
		sc->epoch_ns = now;
		sc->epoch_valid = true;
	}
	return now;
}

/* Count of event @i at @now: the base plus cycles elapsed times its rate. */
static u64 tdsim_count(const struct tdsim_cpu *sc, unsigned int i, u64 now)
{
	u64 cycles = mul_u64_u32_div(now - sc->epoch_ns,
				     sc->profile.v[TDSIM_FREQ_MHZ], 1000);

	return sc->base[i] + mul_u64_u32_div(cycles, sc->rate[i], TDSIM_PPM);
}

static void tdsim_rebase(struct tdsim_cpu *sc, u64 now)
{
	unsigned int i;

	for (i = 0; i < tdsim_model->nr_events; i++)
		sc->base[i] = tdsim_count(sc, i, now);
	sc->epoch_ns = now;
}

/* Jitter every rate by up to +-noise_ppm of itself. */
static void tdsim_apply_noise(struct tdsim_cpu *sc, u32 noise)
{
	unsigned int i;

	for (i = 0; i < tdsim_model->nr_events; i++) {
		s64 j = (s64)(get_random_u32() % (2 * noise + 1)) - noise;
		s64 r = sc->nominal[i] + div_s64((s64)sc->nominal[i] * j,
						 TDSIM_PPM);

		sc->rate[i] = clamp_t(s64, r, 0, U32_MAX);
	}
}

/* Called with sc->lock held. */
static void tdsim_advance(struct tdsim_cpu *sc, u64 now)
{
	u32 noise = READ_ONCE(tdsim_noise_ppm);

	if (!noise || now - sc->epoch_ns < TDSIM_NOISE_PERIOD_NS)
		return;
	tdsim_rebase(sc, now);
	tdsim_apply_noise(sc, min_t(u32, noise, TDSIM_PPM));
}

struct tdsim_set {
	struct tdsim_cpu *sc;
	const struct tdsim_profile *p;
};

static void tdsim_set_here(void *arg)
{
	struct tdsim_set *set = arg;
	struct tdsim_cpu *sc = set->sc;
	const struct tdsim_profile *p = set->p;
	unsigned int siblings = cpumask_weight(topology_sibling_cpumask(sc->cpu));
	unsigned long flags;
	u64 now;

	siblings = clamp(siblings, 1U, 2U);
	raw_spin_lock_irqsave(&sc->lock, flags);
	if (smp_processor_id() == sc->cpu) {
		now = tdsim_now(sc);
		tdsim_rebase(sc, now);
	} else {
		sc->epoch_valid = false;	/* offline: no counts to keep */
	}
	sc->profile = *p;
	memset(sc->nominal, 0, sizeof(sc->nominal));
	tdsim_model->rates(tdsim_model, p, siblings, sc->nominal);
	memcpy(sc->rate, sc->nominal, sizeof(sc->rate));
	raw_spin_unlock_irqrestore(&sc->lock, flags);
}

/**
 * tdsim_cpu_set_profile() - install a new ground truth on one CPU
 * @sc: the CPU
 * @p:  a profile that passed tdsim_profile_parse()
 *
 * Counts up to now advance at the old rates, from now on at the new ones.
 * Runs on that CPU, for its clock; an offline CPU just takes the profile.
 */
void tdsim_cpu_set_profile(struct tdsim_cpu *sc, const struct tdsim_profile *p)
{
	struct tdsim_set set = { .sc = sc, .p = p };

	cpus_read_lock();
	if (!cpu_online(sc->cpu) ||
	    smp_call_function_single(sc->cpu, tdsim_set_here, &set, 1))
		tdsim_set_here(&set);
	cpus_read_unlock();
}

static u64 tdsim_read_counter(struct perf_event *event)
{
	struct tdsim_cpu *sc = tdsim_cpu(event->cpu);
	unsigned long flags;
	u64 now, val;

	raw_spin_lock_irqsave(&sc->lock, flags);
	now = tdsim_now(sc);
	tdsim_advance(sc, now);
	val = tdsim_count(sc, event->hw.config, now);
	raw_spin_unlock_irqrestore(&sc->lock, flags);
	return val;
}

static void tdsim_event_update(struct perf_event *event)
{
	u64 now = tdsim_read_counter(event);
	u64 prev = local64_xchg(&event->hw.prev_count, now);

	local64_add(now - prev, &event->count);
}

static int tdsim_event_init(struct perf_event *event)
{
	const struct tdsim_model *m = tdsim_model;
	unsigned int i;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	if (atomic_dec_if_positive(&tdsim_fail_event_init) >= 0)
		return -EIO;			/* fault injected by a test */
	if (event->cpu < 0)
		return -EINVAL;			/* CPU-wide events only */
	if (is_sampling_event(event) || has_branch_stack(event))
		return -EOPNOTSUPP;
	if (event->attr.config1 || event->attr.config2)
		return -EINVAL;
	for (i = 0; i < m->nr_events; i++)
		if (m->events[i].config == event->attr.config)
			break;
	if (i == m->nr_events)
		return -EINVAL;			/* this CPU has no such event */

	event->hw.config = i;
	event->hw.idx = -1;
	return 0;
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
	const struct tdsim_event *e = &tdsim_model->events[event->hw.config];
	struct tdsim_cpu *sc = tdsim_cpu(event->cpu);
	unsigned long irqflags;
	int idx = -1;
	u32 free;

	if (atomic_dec_if_positive(&tdsim_fail_add) >= 0)
		return -EAGAIN;			/* fault injected by a test */

	raw_spin_lock_irqsave(&sc->lock, irqflags);
	if (e->fixed >= 0 && e->fixed < tdsim_model->fixed_counters &&
	    !(sc->fixed_used & BIT(e->fixed))) {
		sc->fixed_used |= BIT(e->fixed);
		idx = TDSIM_FIXED_IDX + e->fixed;
	} else {
		free = e->gp_mask & ~sc->gp_used & (BIT(tdsim_gp_counters) - 1);
		if (free) {
			idx = fls(free) - 1;
			sc->gp_used |= BIT(idx);
		}
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
	struct tdsim_cpu *sc = tdsim_cpu(event->cpu);
	int idx = event->hw.idx;
	unsigned long irqflags;

	tdsim_stop(event, PERF_EF_UPDATE);
	raw_spin_lock_irqsave(&sc->lock, irqflags);
	if (idx >= TDSIM_FIXED_IDX)
		sc->fixed_used &= ~BIT(idx - TDSIM_FIXED_IDX);
	else if (idx >= 0)
		sc->gp_used &= ~BIT(idx);
	raw_spin_unlock_irqrestore(&sc->lock, irqflags);
	event->hw.idx = -1;
	perf_event_update_userpage(event);
}

static void tdsim_read(struct perf_event *event)
{
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

static ssize_t cpumask_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return cpumap_print_to_pagebuf(true, buf, cpu_online_mask);
}
static DEVICE_ATTR_RO(cpumask);

static struct attribute *tdsim_cpumask_attrs[] = {
	&dev_attr_cpumask.attr, NULL,
};

static const struct attribute_group tdsim_cpumask_group = {
	.attrs = tdsim_cpumask_attrs,
};

static const struct attribute_group *tdsim_attr_groups[] = {
	&tdsim_format_group, &tdsim_cpumask_group, NULL,
};

static struct pmu tdsim_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_invalid_context,
	.capabilities	= PERF_PMU_CAP_NO_INTERRUPT,
	.attr_groups	= tdsim_attr_groups,
	.event_init	= tdsim_event_init,
	.add		= tdsim_add,
	.del		= tdsim_del,
	.start		= tdsim_start,
	.stop		= tdsim_stop,
	.read		= tdsim_read,
};

/**
 * tdsim_pmu_register() - register the "tdsim" PMU for the chosen model
 *
 * Return: 0 or the errno of perf_pmu_register().
 */
int tdsim_pmu_register(void)
{
	switch (tdsim_model->vendor) {
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
	return perf_pmu_register(&tdsim_pmu, "tdsim", -1);
}

/** tdsim_pmu_unregister() - undo tdsim_pmu_register() */
void tdsim_pmu_unregister(void)
{
	perf_pmu_unregister(&tdsim_pmu);
}
