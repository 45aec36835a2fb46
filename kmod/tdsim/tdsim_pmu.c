// SPDX-License-Identifier: GPL-2.0
/*
 * tdsim: the perf PMUs and the clock of the simulated CPUs.
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

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/perf_event.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <linux/topology.h>
#include "tdsim.h"

#define TDSIM_FIXED_IDX		32	/* hw.idx of fixed counter 0 */
#define TDSIM_INTEL_ANY		BIT_ULL(21)	/* AnyThread, format any */
#define TDSIM_NOISE_PERIOD_NS	(10 * NSEC_PER_MSEC)

/*
 * Time is CLOCK_MONOTONIC, the clock topdown.ko and the tests time their
 * reads and windows with, read the NMI-safe way.  (It was the CPU's
 * local_clock(), perf's clock for enabled and running times; but where the
 * TSC is marked unstable, as under QEMU's TCG, local_clock() follows the
 * tick and strays from CLOCK_MONOTONIC by up to a tick: 10 ms windows of a
 * phased workload were then up to 1.7 points off their truth, as counted.)
 *
 * A CPU plays a plan: its steady profile (one phase, forever) or a schedule
 * of phases that repeats from the moment it was written, its epoch.  Every
 * count is a function of the time alone, computed when read (no timer):
 * the whole periods since the epoch, the whole phases before the current
 * one, and the part of the current phase elapsed.  A phase's part is
 * rounded down the same way as its whole, so no part exceeds the whole and
 * counts never go back at a phase boundary.
 */

/* Count of quantity @q over the first @ns of phase @ph. */
static u64 tdsim_phase_count(const struct tdsim_phase *ph, u64 ns,
			     unsigned int q)
{
	u64 cycles = mul_u64_u32_div(ns, ph->p.v[TDSIM_FREQ_MHZ], 1000);

	return mul_u64_u32_div(cycles, ph->rate[q], TDSIM_PPM);
}

/* Count of quantity @q over the first @ns of plan @pl. */
static u64 tdsim_plan_count(const struct tdsim_plan *pl, u64 ns,
			    unsigned int q)
{
	const struct tdsim_phase *ph = pl->ph;
	u64 periods, off;

	if (!pl->period_ns)
		return tdsim_phase_count(ph, ns, q);
	periods = div64_u64_rem(ns, pl->period_ns, &off);
	while (off >= ph->off_ns + ph->ns)
		ph++;
	return periods * pl->per_period[q] + ph->before[q] +
	       tdsim_phase_count(ph, off - ph->off_ns, q);
}

/*
 * The truth per cycle: a cycle, its slots (the width: on skl too, a thread
 * owns width slots per cycle of its own, as skl_rates() counts them), each
 * Level 1/2 fraction of the slots and each clock-tick fraction of the cycle.
 */
static void tdsim_truth_rates(const struct tdsim_model *m,
			      const struct tdsim_profile *p, u32 *r)
{
	u32 slots = m->width * TDSIM_PPM;
	unsigned int k;

	r[TDSIM_TRUTH_CYCLES] = TDSIM_PPM;
	r[TDSIM_TRUTH_SLOTS] = slots;
	for (k = 0; k < TDSIM_NR_FRACTIONS; k++)
		r[TDSIM_TRUTH_KEY(k)] = k < TDSIM_L1_BOUND ?
					tdsim_scale(p->v[k], slots) : p->v[k];
}

/*
 * @cpu and its SMT siblings that are online, less @gone (nr_cpu_ids: none),
 * the CPU whose offline callback runs: it leaves topology_sibling_cpumask()
 * only later, in take_cpu_down() -> __cpu_disable(); on x86
 * native_cpu_disable() -> cpu_disable_common() -> remove_siblinginfo()
 * (arch/x86/kernel/smpboot.c, 6.1 and 6.12).  A CPU coming online is in
 * its siblings' masks before its online callbacks run: start_secondary()
 * -> ap_starting() -> set_cpu_sibling_map() (6.12; smp_callin() in 6.1).
 */
static unsigned int tdsim_siblings(unsigned int cpu, unsigned int gone)
{
	unsigned int t, n = 1;

	for_each_cpu(t, topology_sibling_cpumask(cpu))
		if (t != cpu && t != gone && cpu_online(t))
			n++;
	return min(n, 2U);
}

/*
 * A plan of @nr phases of model @m for @siblings online threads of the
 * core; @ms NULL: the steady profile @p, forever.
 */
static struct tdsim_plan *tdsim_plan_new(const struct tdsim_model *m,
					 unsigned int siblings,
					 const struct tdsim_profile *p,
					 const u32 *ms, unsigned int nr)
{
	struct tdsim_plan *pl;
	unsigned int k, q;

	pl = kzalloc(struct_size(pl, ph, nr), GFP_KERNEL);
	if (!pl)
		return NULL;
	pl->nr = nr;
	pl->siblings = siblings;
	for (k = 0; k < nr; k++) {
		struct tdsim_phase *ph = &pl->ph[k];

		ph->p = p[k];
		ph->ns = ms ? (u64)ms[k] * NSEC_PER_MSEC : 0;
		ph->off_ns = pl->period_ns;
		pl->period_ns += ph->ns;
		m->rates(m, &p[k], siblings, ph->rate);
		tdsim_truth_rates(m, &p[k], ph->rate + TDSIM_Q_TRUTH);
		for (q = 0; q < TDSIM_NR_Q; q++) {
			ph->before[q] = pl->per_period[q];
			pl->per_period[q] += tdsim_phase_count(ph, ph->ns, q);
		}
	}
	memcpy(pl->nominal, pl->ph[0].rate, sizeof(pl->nominal));
	return pl;
}

/* The epoch @back changes before the newest one. */
static struct tdsim_epoch *tdsim_epoch_back(struct tdsim_cpu *sc,
					    unsigned int back)
{
	return &sc->epoch[(sc->head + TDSIM_EPOCHS - back) % TDSIM_EPOCHS];
}

/* Truth @t at @at (not before @e's start) in epoch @e. */
static u64 tdsim_epoch_truth(const struct tdsim_epoch *e, unsigned int t,
			     u64 at)
{
	return e->base[t] + tdsim_plan_count(e->plan, at - e->start,
					     TDSIM_Q_TRUTH + t);
}

/* Count of event @i at @now. */
static u64 tdsim_count(const struct tdsim_cpu *sc, unsigned int i, u64 now)
{
	return sc->base[i] + tdsim_plan_count(sc->plan, now - sc->start, i);
}

/*
 * A plan installed while the CPU was offline starts when the CPU first
 * reads its clock; counts and truth carry on from the plan before it.
 */
static void tdsim_start_pending(struct tdsim_cpu *sc, u64 now)
{
	struct tdsim_epoch *e = &sc->epoch[sc->head];
	struct tdsim_epoch *prev;
	unsigned int i, t;

	if (sc->nr_epochs > 1) {
		prev = tdsim_epoch_back(sc, 1);
		for (i = 0; i < sc->model->nr_events; i++)
			sc->base[i] += tdsim_plan_count(prev->plan,
							now - sc->start, i);
		for (t = 0; t < TDSIM_NR_TRUTH; t++)
			e->base[t] = tdsim_epoch_truth(prev, t, now);
	}
	e->start = now;
	sc->start = now;
	sc->pending = false;
}

/*
 * Called with sc->lock held.  The fast clock may read a few ns earlier
 * than it did (an NMI in a timekeeping update): counts never go back.
 */
static u64 tdsim_now(struct tdsim_cpu *sc)
{
	u64 now = max(ktime_get_mono_fast_ns(), sc->last_now);

	sc->last_now = now;

	if (sc->pending)
		tdsim_start_pending(sc, now);
	return now;
}

/* Jitter every event rate of a steady plan by up to +-noise_ppm of itself. */
static void tdsim_apply_noise(struct tdsim_plan *pl, unsigned int nr,
			      u32 noise)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		s64 j = (s64)(get_random_u32() % (2 * noise + 1)) - noise;
		s64 r = pl->nominal[i] + div_s64((s64)pl->nominal[i] * j,
						 TDSIM_PPM);

		pl->ph[0].rate[i] = clamp_t(s64, r, 0, U32_MAX);
	}
}

/*
 * Called with sc->lock held.  Noise is for the steady profile only: a
 * schedule's counts stay an exact function of the time, as its truth is.
 * The truth never has noise.
 */
static void tdsim_advance(struct tdsim_cpu *sc, u64 now)
{
	u32 noise = READ_ONCE(tdsim_noise_ppm);
	unsigned int i;

	if (!noise || sc->plan->period_ns ||
	    now - sc->start < TDSIM_NOISE_PERIOD_NS)
		return;
	for (i = 0; i < sc->model->nr_events; i++)
		sc->base[i] = tdsim_count(sc, i, now);
	sc->start = now;
	tdsim_apply_noise(sc->plan, sc->model->nr_events,
			  min_t(u32, noise, TDSIM_PPM));
}

struct tdsim_set {
	struct tdsim_cpu *sc;
	const struct tdsim_profile *steady;	/* new steady profile, or NULL */
	struct tdsim_plan *plan;	/* in: the new plan; out: one to free */
};

static void tdsim_set_here(void *arg)
{
	u64 base[TDSIM_NR_TRUTH] = { 0 };
	struct tdsim_set *set = arg;
	struct tdsim_cpu *sc = set->sc;
	struct tdsim_plan *old = NULL;
	struct tdsim_epoch *e;
	unsigned long flags;
	unsigned int i, t;
	u64 now = 0;
	bool here;

	raw_spin_lock_irqsave(&sc->lock, flags);
	here = smp_processor_id() == sc->cpu;
	if (set->steady)
		sc->profile = *set->steady;
	if (here) {
		now = tdsim_now(sc);
		for (i = 0; sc->plan && i < sc->model->nr_events; i++)
			sc->base[i] = tdsim_count(sc, i, now);
		sc->start = now;
		for (t = 0; sc->nr_epochs && t < TDSIM_NR_TRUTH; t++)
			base[t] = tdsim_epoch_truth(&sc->epoch[sc->head], t, now);
	} else if (sc->pending) {
		/* offline, and the plan set before never started: replace it */
		old = sc->plan;
		sc->epoch[sc->head].plan = set->plan;
		goto out;
	}
	if (sc->nr_epochs == TDSIM_EPOCHS)
		old = tdsim_epoch_back(sc, TDSIM_EPOCHS - 1)->plan;
	else
		sc->nr_epochs++;
	sc->head = (sc->head + 1) % TDSIM_EPOCHS;
	e = &sc->epoch[sc->head];
	e->plan = set->plan;
	e->start = now;
	memcpy(e->base, base, sizeof(e->base));
	sc->pending = !here;
out:
	sc->plan = set->plan;
	raw_spin_unlock_irqrestore(&sc->lock, flags);
	set->plan = old;
}

/* Install a plan on its CPU, for its clock; an offline CPU keeps it pending. */
static int tdsim_cpu_set_plan(struct tdsim_cpu *sc,
			      const struct tdsim_profile *steady,
			      const struct tdsim_profile *p, const u32 *ms,
			      unsigned int nr)
{
	struct tdsim_set set = { .sc = sc, .steady = steady };

	cpus_read_lock();
	set.plan = tdsim_plan_new(sc->model, tdsim_siblings(sc->cpu, nr_cpu_ids),
				  p, ms, nr);
	if (!set.plan) {
		cpus_read_unlock();
		return -ENOMEM;
	}
	if (!cpu_online(sc->cpu) ||
	    smp_call_function_single(sc->cpu, tdsim_set_here, &set, 1))
		tdsim_set_here(&set);
	cpus_read_unlock();
	kfree(set.plan);
	return 0;
}

/**
 * tdsim_cpu_set_profile() - install a new steady profile on one CPU
 * @sc: the CPU
 * @p:  a profile that passed tdsim_profile_parse()
 *
 * Counts up to now advance at the old rates, from now on at the new ones.
 * A schedule that was running ends.  Runs on that CPU, for its clock; an
 * offline CPU starts the profile when it next reads its clock.
 *
 * Return: 0 or -ENOMEM.
 */
int tdsim_cpu_set_profile(struct tdsim_cpu *sc, const struct tdsim_profile *p)
{
	return tdsim_cpu_set_plan(sc, p, p, NULL, 1);
}

/**
 * tdsim_cpu_set_schedule() - start a schedule of phases on one CPU
 * @sc: the CPU
 * @p:  the profile of each phase, each passed tdsim_profile_parse()
 * @ms: the duration of each phase, 1..%TDSIM_PHASE_MS_MAX
 * @nr: the number of phases, 1..%TDSIM_MAX_PHASES
 *
 * The schedule repeats from now until the next profile or schedule.
 *
 * Return: 0 or -ENOMEM.
 */
int tdsim_cpu_set_schedule(struct tdsim_cpu *sc, const struct tdsim_profile *p,
			   const u32 *ms, unsigned int nr)
{
	return tdsim_cpu_set_plan(sc, NULL, p, ms, nr);
}

/*
 * The plan of @sc again for @siblings threads, from now: what its core
 * counts changed with a sibling's hotplug.  A schedule starts again from
 * its first phase.  Called from a hotplug callback, with the hotplug lock
 * held (so no profile or schedule write runs: they hold cpus_read_lock()).
 */
static void tdsim_cpu_replan(struct tdsim_cpu *sc, unsigned int siblings)
{
	struct tdsim_set set = { .sc = sc };
	struct tdsim_profile *p;
	u32 ms[TDSIM_MAX_PHASES];
	unsigned int k, nr;
	unsigned long flags;
	bool steady;

	p = kmalloc_array(TDSIM_MAX_PHASES, sizeof(*p), GFP_KERNEL);
	if (!p)
		goto fail;
	raw_spin_lock_irqsave(&sc->lock, flags);
	nr = sc->plan->nr;
	steady = !sc->plan->period_ns;
	for (k = 0; k < nr; k++) {
		p[k] = sc->plan->ph[k].p;
		ms[k] = div_u64(sc->plan->ph[k].ns, NSEC_PER_MSEC);
	}
	raw_spin_unlock_irqrestore(&sc->lock, flags);
	set.plan = tdsim_plan_new(sc->model, siblings, p, steady ? NULL : ms, nr);
	kfree(p);
	if (!set.plan)
		goto fail;
	if (smp_call_function_single(sc->cpu, tdsim_set_here, &set, 1))
		goto fail;
	kfree(set.plan);	/* the oldest epoch's, if one was dropped */
	return;
fail:
	kfree(set.plan);
	pr_warn_ratelimited("cpu%u: cannot count for %u SMT threads: AnyThread events stay as they were\n",
			    sc->cpu, siblings);
}

/* each online SMT sibling of @cpu, less @gone, counts for its threads now */
static void tdsim_hp_siblings(unsigned int cpu, unsigned int gone)
{
	unsigned int t, n;

	for_each_cpu(t, topology_sibling_cpumask(cpu)) {
		struct tdsim_cpu *sc = tdsim_cpu(t);

		if (t == gone || !cpu_online(t))
			continue;
		n = tdsim_siblings(t, gone);
		if (sc->plan->siblings != n)
			tdsim_cpu_replan(sc, n);
	}
}

/**
 * tdsim_cpu_hp_online() - CPU hotplug: @cpu and its siblings count for it
 * @cpu: the CPU coming online; this runs on it
 *
 * Return: 0.
 */
int tdsim_cpu_hp_online(unsigned int cpu)
{
	tdsim_hp_siblings(cpu, nr_cpu_ids);
	return 0;
}

/**
 * tdsim_cpu_hp_offline() - CPU hotplug: @cpu's siblings count without it
 * @cpu: the CPU going offline; this runs on it
 *
 * Return: 0.
 */
int tdsim_cpu_hp_offline(unsigned int cpu)
{
	tdsim_hp_siblings(cpu, cpu);
	return 0;
}

/**
 * tdsim_cpu_release() - free a CPU's plans, at unload
 * @sc: the CPU, no longer used by anyone
 */
void tdsim_cpu_release(struct tdsim_cpu *sc)
{
	unsigned int k;

	for (k = 0; k < sc->nr_epochs; k++)
		kfree(tdsim_epoch_back(sc, k)->plan);
	sc->nr_epochs = 0;
	sc->plan = NULL;
}

struct tdsim_truth_req {
	struct tdsim_cpu *sc;
	u64 at_ns;		/* in: CLOCK_MONOTONIC, 0: now; out: the time used */
	u64 now_ns;		/* out: CLOCK_MONOTONIC now */
	u64 oldest_ns;		/* out: start of the oldest epoch kept */
	u64 *truth;
	int err;
};

static void tdsim_truth_here(void *arg)
{
	struct tdsim_truth_req *req = arg;
	struct tdsim_cpu *sc = req->sc;
	struct tdsim_epoch *e = NULL;
	unsigned long flags;
	unsigned int k, t;
	u64 now;

	raw_spin_lock_irqsave(&sc->lock, flags);
	now = tdsim_now(sc);	/* a plan set while offline starts now */
	req->now_ns = now;
	if (!req->at_ns)
		req->at_ns = now;
	if (req->at_ns > now) {
		req->err = -EINVAL;
		goto out;
	}
	for (k = 0; k < sc->nr_epochs; k++) {
		e = tdsim_epoch_back(sc, k);
		if (e->start <= req->at_ns)
			break;
	}
	if (k == sc->nr_epochs) {
		req->oldest_ns = e->start;
		req->err = -ERANGE;
		goto out;
	}
	for (t = 0; t < TDSIM_NR_TRUTH; t++)
		req->truth[t] = tdsim_epoch_truth(e, t, req->at_ns);
out:
	raw_spin_unlock_irqrestore(&sc->lock, flags);
}

/**
 * tdsim_cpu_truth() - the cumulative truth of a CPU at a moment
 * @sc:    the CPU, online
 * @at_ns: the moment, CLOCK_MONOTONIC ns; 0: now
 * @at:    out: the moment used
 * @truth: out: %TDSIM_NR_TRUTH values, indexed by TDSIM_TRUTH_*
 *
 * The counts' clock is CLOCK_MONOTONIC, so the truth of a moment is exact
 * whatever the TSC does.  The moment may lie in any of the last
 * %TDSIM_EPOCHS epochs.
 *
 * Return: 0; -EINVAL for a moment in the future or before the oldest epoch
 * kept, -ENODEV for an offline CPU, each with a line in the kernel log.
 */
int tdsim_cpu_truth(struct tdsim_cpu *sc, u64 at_ns, u64 *at, u64 *truth)
{
	struct tdsim_truth_req req = { .sc = sc, .at_ns = at_ns, .truth = truth };
	int ret = -ENODEV;

	cpus_read_lock();
	if (cpu_online(sc->cpu))
		ret = smp_call_function_single(sc->cpu, tdsim_truth_here, &req, 1);
	cpus_read_unlock();
	if (ret) {
		pr_info("cpu%u truth: the CPU is offline\n", sc->cpu);
		return -ENODEV;
	}
	if (req.err == -EINVAL)
		pr_info("cpu%u truth: at_ns %llu is in the future (now %llu)\n",
			sc->cpu, req.at_ns, req.now_ns);
	if (req.err == -ERANGE) {
		pr_info("cpu%u truth: at_ns %llu is before the oldest epoch kept (the last %u profile or schedule changes), at %llu\n",
			sc->cpu, req.at_ns, TDSIM_EPOCHS, req.oldest_ns);
		req.err = -EINVAL;
	}
	*at = req.at_ns;
	return req.err;
}

static struct pmu tdsim_pmu;
/* atom_cpus=: the same, for those CPUs (x86 hybrid's cpu_atom); a copy */
static struct pmu tdsim_atom_pmu;

/*
 * What event @i's counter shows at @now: its count less what it counted
 * while the PMU was stopped, and while stopped the count it stopped at.
 * Called with sc->lock held.
 */
static u64 tdsim_shown(const struct tdsim_cpu *sc, unsigned int i, u64 now)
{
	if (sc->frozen && (sc->frozen_mask & BIT_ULL(i)))
		return sc->frozen_val[i] - sc->lost[i];
	return tdsim_count(sc, i, now) - sc->lost[i];
}

static u64 tdsim_read_counter(struct perf_event *event)
{
	struct tdsim_cpu *sc = tdsim_cpu(event->cpu);
	unsigned long flags;
	u64 now, val;

	raw_spin_lock_irqsave(&sc->lock, flags);
	now = tdsim_now(sc);
	tdsim_advance(sc, now);
	val = tdsim_shown(sc, event->hw.config, now);
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
 * perf_pmu_disable() and perf_pmu_enable() of the CPU's own PMU, on that
 * CPU with interrupts off.  A hardware PMU stops every counter of the CPU
 * (x86_pmu_disable() -> x86_pmu.disable_all: Intel clears GLOBAL_CTRL,
 * older AMD each counter's enable bit; Arm clears PMCR_EL0.E), and
 * perf's clock stands still for the events it moves meanwhile: a rotation,
 * or the rescheduling perf_event_enable() does, takes a flexible event off
 * and puts it back at one ctx time (perf_rotate_context(),
 * ctx_time_freeze(), kernel/events/core.c, 6.12).  So the counts of those
 * moments are lost to every event alike.  If tdsim's counters ran on, the
 * pinned ones would count what the moved ones lose, unseen by perf's
 * times: on a slow (debug) kernel, milliseconds in a rotation.
 */
static void tdsim_pmu_disable(struct pmu *pmu)
{
	struct tdsim_cpu *sc = tdsim_cpu(smp_processor_id());
	bool atom = pmu == &tdsim_atom_pmu;
	unsigned long flags;
	unsigned int i;
	u64 now;

	if (!tdsim_freeze || atom != sc->atom)
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
	struct tdsim_cpu *sc = tdsim_cpu(smp_processor_id());
	bool atom = pmu == &tdsim_atom_pmu;
	unsigned long flags;
	unsigned int i;
	u64 now;

	if (atom != sc->atom)
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

/*
 * The CPU's own PMU only, as on x86 hybrid parts: x86_pmu_event_init()
 * refuses an event for a CPU outside the hybrid PMU's supported_cpus with
 * -ENOENT (arch/x86/events/core.c, 6.12), so PERF_TYPE_RAW, which is
 * cpu_core's type, reaches no E-core.  A hybrid part's PMUs also take
 * PERF_TYPE_HARDWARE events (perf_init_event() offers one that its RAW
 * PMU refused to every PMU), so a cycles event finds a CPU's own PMU.
 */
static int tdsim_event_init(struct perf_event *event)
{
	const struct tdsim_model *m;
	struct tdsim_cpu *sc;
	u64 config = event->attr.config;
	unsigned int i;
	bool atom;

	if (event->attr.type != event->pmu->type) {
		if (!tdsim_hybrid || event->attr.type != PERF_TYPE_HARDWARE ||
		    config != PERF_COUNT_HW_CPU_CYCLES)
			return -ENOENT;
		config = 0;	/* below: this CPU's model's cycles */
	}
	if (event->cpu >= 0) {
		sc = tdsim_cpu(event->cpu);
		atom = event->pmu == &tdsim_atom_pmu;
		if (atom != sc->atom)
			return -ENOENT;
		m = sc->model;
		if (!config)
			config = tdsim_cycles_config(m);
	}
	if (atomic_dec_if_positive(&tdsim_fail_event_init) >= 0)
		return -EIO;			/* fault injected by a test */
	if (event->cpu < 0)
		return -EINVAL;			/* CPU-wide events only */
	if (is_sampling_event(event) || has_branch_stack(event))
		return -EOPNOTSUPP;
	if (event->attr.config1 || event->attr.config2)
		return -EINVAL;
	for (i = 0; i < m->nr_events; i++)
		if (m->events[i].config == config)
			break;
	if (i == m->nr_events)
		return -EINVAL;			/* this CPU has no such event */
	/*
	 * A fixed-counter-only event (TOPDOWN.SLOTS's pseudo-encoding) whose
	 * fixed counter this PMU lacks: x86's intel_pmu_check_event_constraints()
	 * leaves its constraint without a counter and validate_event() then
	 * refuses it with -EINVAL (arch/x86/events/{intel/,}core.c, 6.12).
	 */
	if (!m->events[i].gp_mask && m->events[i].fixed >= 0 &&
	    m->events[i].fixed >= (int)sc->fixed_counters)
		return -EINVAL;

	/*
	 * anythread=0: the AnyThread bit (ARCH_PERFMON_EVENTSEL_ANY, config
	 * bit 21) is refused as intel_pmu_hw_config() refuses it when
	 * "x86_pmu.version < 3" (arch/x86/events/intel/core.c, 6.1 and 6.12):
	 * KVM caps its guests' architectural perfmon at version 2
	 * (kvm_init_pmu_capability(), arch/x86/kvm/pmu.h, 6.12).
	 */
	if (!tdsim_anythread && m->vendor == TDSIM_INTEL &&
	    (event->attr.config & TDSIM_INTEL_ANY))
		return -EINVAL;

	event->hw.config = i;
	event->hw.idx = -1;
	return tdsim_mediated_account(event);
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
	struct tdsim_cpu *sc = tdsim_cpu(event->cpu);
	const struct tdsim_event *e = &sc->model->events[event->hw.config];
	unsigned long irqflags;
	int idx = -1;
	u32 free;

	if (atomic_dec_if_positive(&tdsim_fail_add) >= 0)
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
	struct tdsim_cpu *sc = tdsim_cpu(event->cpu);
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
 * A test's stall (stall_every, stall_us): every stall_every-th read of a
 * CPU's counters first waits stall_us, as a read does whose vCPU the host
 * deschedules between two reads (TCG on a loaded host: 20-350 us in the
 * middle of a CPU's reads of all its counters).  Counted per CPU, so a
 * read done again right after a stalled one does not stall too (with
 * stall_every above the reader's rereads).  With stall_crawl_us, every
 * read for that long after such a stall waits too: the vCPU crawls, as
 * under TCG on a host busy with other VMs (every read 30 us for a
 * millisecond or more).  Reads only: perf's scheduling of events is not
 * slowed.
 */
static void tdsim_stall(struct tdsim_cpu *sc)
{
	u32 every = READ_ONCE(tdsim_stall_every);
	u64 now = ktime_get_mono_fast_ns();

	if (now >= sc->crawl_until) {
		if (!every || ++sc->reads % every)
			return;
		sc->crawl_until = now + (u64)READ_ONCE(tdsim_stall_crawl_us) *
					NSEC_PER_USEC;
	}
	udelay(min_t(u32, READ_ONCE(tdsim_stall_us), 1000));
	atomic_inc(&tdsim_stalls);
}

static void tdsim_read(struct perf_event *event)
{
	tdsim_stall(tdsim_cpu(event->cpu));
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
	bool atom = dev_get_drvdata(dev) == &tdsim_atom_pmu;
	cpumask_var_t mask;
	unsigned int cpu;
	ssize_t ret;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	for_each_online_cpu(cpu)
		if (tdsim_cpu(cpu)->atom == atom)
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

/*
 * caps/slots as arm_pmuv3 shows it (drivers/perf/arm_pmuv3.c slots_show():
 * PMMIR_EL1.SLOTS as "0x%08x", 0 on a PMU older than PMUv3p4), for Arm
 * models only; topdown reads it for pmu_type= as perf reads #slots
 */
static ssize_t slots_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "0x%08x\n",
			  tdsim_model->pmmir ? tdsim_model->width : 0);
}
static DEVICE_ATTR_RO(slots);

static struct attribute *tdsim_caps_attrs[] = {
	&dev_attr_slots.attr, NULL,
};

static umode_t tdsim_caps_visible(struct kobject *kobj, struct attribute *attr,
				  int i)
{
	return tdsim_model->vendor == TDSIM_ARM ? attr->mode : 0;
}

static const struct attribute_group tdsim_caps_group = {
	.name = "caps",
	.attrs = tdsim_caps_attrs,
	.is_visible = tdsim_caps_visible,
};

static const struct attribute_group *tdsim_attr_groups[] = {
	&tdsim_format_group, &tdsim_cpumask_group, &tdsim_caps_group, NULL,
};

static struct pmu tdsim_pmu = {
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
	struct tdsim_cpu *sc = tdsim_cpu(event->cpu);
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
	    !tdsim_truth_valid(tdsim_cpu(event->cpu)->model, event->attr.config))
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

	return tdsim_truth_valid(tdsim_model, pa->id) ? attr->mode : 0;
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
 * While perf holds tdsim_truth disabled on a CPU (perf_pmu_disable(): a
 * group's events are added, read or removed together, and with these
 * callbacks perf's default transactions disable it too), every read on
 * that CPU is of one moment, as a hardware PMU's counters stop together.
 * So a group's members agree exactly however long the host stalls the
 * vCPU between them: read a few hundred microseconds apart under TCG, a
 * 1 s group of slots and cycles was 0.01 % off 6 slots per cycle.  Called
 * on the CPU, with interrupts off.
 */
static void tdsim_truth_pmu_disable(struct pmu *pmu)
{
	struct tdsim_cpu *sc = tdsim_cpu(smp_processor_id());
	unsigned long flags;

	raw_spin_lock_irqsave(&sc->lock, flags);
	sc->truth_frozen = tdsim_now(sc);
	raw_spin_unlock_irqrestore(&sc->lock, flags);
}

static void tdsim_truth_pmu_enable(struct pmu *pmu)
{
	struct tdsim_cpu *sc = tdsim_cpu(smp_processor_id());
	unsigned long flags;

	raw_spin_lock_irqsave(&sc->lock, flags);
	sc->truth_frozen = 0;
	raw_spin_unlock_irqrestore(&sc->lock, flags);
}

static struct pmu tdsim_truth_pmu = {
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

/**
 * tdsim_pmu_register() - register the "tdsim" PMU for the chosen model and
 * the "tdsim_truth" PMU
 *
 * Return: 0 or the errno of perf_pmu_register().
 */
int tdsim_pmu_register(void)
{
	int ret;

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
#ifdef PERF_PMU_CAP_MEDIATED_VPMU
	/* perf core's own accounting too, where the kernel has it (7.0+) */
	if (tdsim_mediated)
		tdsim_pmu.capabilities |= PERF_PMU_CAP_MEDIATED_VPMU;
#endif
	tdsim_atom_pmu = tdsim_pmu;	/* before registering fills it in */
	/* raw=1: PERF_TYPE_RAW's, as x86 registers its cpu or cpu_core PMU */
	ret = perf_pmu_register(&tdsim_pmu, "tdsim", tdsim_raw ? PERF_TYPE_RAW : -1);
	if (ret)
		return ret;
	if (tdsim_hybrid) {
		ret = perf_pmu_register(&tdsim_atom_pmu, "tdsim_atom", -1);
		if (ret)
			goto err_tdsim;
	}
	ret = perf_pmu_register(&tdsim_truth_pmu, "tdsim_truth", -1);
	if (!ret)
		return 0;
	if (tdsim_hybrid)
		perf_pmu_unregister(&tdsim_atom_pmu);
err_tdsim:
	perf_pmu_unregister(&tdsim_pmu);
	return ret;
}

/**
 * tdsim_pmu_type() - the perf type of a CPU's PMU, once registered
 * @sc: the CPU
 */
int tdsim_pmu_type(const struct tdsim_cpu *sc)
{
	return sc->atom ? tdsim_atom_pmu.type : tdsim_pmu.type;
}

/**
 * tdsim_cycles_config() - what PERF_COUNT_HW_CPU_CYCLES is on a CPU
 * @m: its model
 *
 * x86 intel_perfmon_event_map 0x003c, amd_zen*_perfmon_event_map 0x0076,
 * armv8_pmuv3_perf_map CPU_CYCLES 0x11.
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

/** tdsim_pmu_unregister() - undo tdsim_pmu_register() */
void tdsim_pmu_unregister(void)
{
	perf_pmu_unregister(&tdsim_truth_pmu);
	if (tdsim_hybrid)
		perf_pmu_unregister(&tdsim_atom_pmu);
	perf_pmu_unregister(&tdsim_pmu);
}
