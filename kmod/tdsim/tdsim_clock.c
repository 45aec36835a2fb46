// SPDX-License-Identifier: GPL-2.0
/*
 * tdsim: the clock of the simulated CPUs, what each counts and its truth.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <linux/topology.h>
#include "tdsim.h"

#define TDSIM_NOISE_PERIOD_NS	(10 * NSEC_PER_MSEC)

/*
 * Time is CLOCK_MONOTONIC, read the NMI-safe way: the clock topdown.ko and
 * the tests time their windows with (local_clock() strays from it by up to
 * a tick where the TSC is unstable).
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
 * @cpu and its online SMT siblings, less @gone (nr_cpu_ids: none): a CPU
 * going offline is still in the sibling mask while its offline callback
 * runs; one coming online is already there.
 */
unsigned int tdsim_siblings(unsigned int cpu, unsigned int gone)
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
struct tdsim_plan *tdsim_plan_new(const struct tdsim_model *m,
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
u64 tdsim_epoch_truth(const struct tdsim_epoch *e, unsigned int t, u64 at)
{
	return e->base[t] + tdsim_plan_count(e->plan, at - e->start,
					     TDSIM_Q_TRUTH + t);
}

/* Count of event @i at @now. */
u64 tdsim_count(const struct tdsim_cpu *sc, unsigned int i, u64 now)
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
static inline u64 tdsim_clock(struct tdsim_cpu *sc)
{
	u64 now = max(ktime_get_mono_fast_ns(), sc->last_now);

	sc->last_now = now;

	if (sc->pending)
		tdsim_start_pending(sc, now);
	return now;
}

u64 tdsim_now(struct tdsim_cpu *sc)
{
	return tdsim_clock(sc);
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
 * Called with sc->lock held; @noise: noise_ppm.  Noise is for the steady
 * profile only: a schedule's counts stay an exact function of the time, as
 * its truth is.  The truth never has noise.
 */
void tdsim_advance(struct tdsim_cpu *sc, u64 now, u32 noise)
{
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

/*
 * Quantity @i now, the clock advanced: a counter read's one call here, as
 * a hardware read is one instruction.  Called with sc->lock held.
 */
u64 tdsim_read_count(struct tdsim_cpu *sc, unsigned int i, u32 noise)
{
	u64 now = tdsim_clock(sc);

	if (noise)
		tdsim_advance(sc, now, noise);
	return sc->base[i] + tdsim_plan_count(sc->plan, now - sc->start, i);
}

struct tdsim_set {
	struct tdsim_cpu *sc;
	const struct tdsim_profile *steady;	/* new steady profile, or NULL */
	struct tdsim_plan *plan;	/* in: the new plan; out: one to free */
};

/* the new epoch takes the oldest's slot, never the newest's */
static_assert(TDSIM_EPOCHS > 1);

/*
 * Called with sc->lock held: a new epoch of @plan from @now, its truth
 * carrying on from the newest; not @here (offline): pending, from 0.
 * Return: the plan of the epoch it drops, or NULL.
 */
static struct tdsim_plan *tdsim_epoch_push(struct tdsim_cpu *sc,
					   struct tdsim_plan *plan, u64 now,
					   bool here)
{
	const struct tdsim_epoch *prev = &sc->epoch[sc->head];
	struct tdsim_plan *old = NULL;
	struct tdsim_epoch *e;
	unsigned int t;

	if (sc->nr_epochs == TDSIM_EPOCHS)
		old = tdsim_epoch_back(sc, TDSIM_EPOCHS - 1)->plan;
	sc->head = (sc->head + 1) % TDSIM_EPOCHS;
	e = &sc->epoch[sc->head];
	for (t = 0; t < TDSIM_NR_TRUTH; t++)
		e->base[t] = here && sc->nr_epochs ?
			     tdsim_epoch_truth(prev, t, now) : 0;
	if (sc->nr_epochs < TDSIM_EPOCHS)
		sc->nr_epochs++;
	e->plan = plan;
	e->start = now;
	sc->pending = !here;
	return old;
}

static void tdsim_set_here(void *arg)
{
	struct tdsim_set *set = arg;
	struct tdsim_cpu *sc = set->sc;
	struct tdsim_plan *old;
	unsigned long flags;
	unsigned int i;
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
	}
	if (!here && sc->pending) {
		/* offline, and the plan set before never started: replace it */
		old = sc->plan;
		sc->epoch[sc->head].plan = set->plan;
	} else {
		old = tdsim_epoch_push(sc, set->plan, now, here);
	}
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
 * tdsim_cpu_install() - install a plan on an online CPU, from now
 * @sc:   the CPU
 * @plan: from tdsim_plan_new(); freed if not installed
 *
 * Return: 0, or the errno of the IPI.
 */
int tdsim_cpu_install(struct tdsim_cpu *sc, struct tdsim_plan *plan)
{
	struct tdsim_set set = { .sc = sc, .plan = plan };
	int ret = smp_call_function_single(sc->cpu, tdsim_set_here, &set, 1);

	/* not installed: the new plan; else the oldest epoch's, if dropped */
	kfree(set.plan);
	return ret;
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

/**
 * tdsim_cpu_phases() - the phases a CPU plays now
 * @sc: the CPU
 * @ph: out: its plan's phases
 */
void tdsim_cpu_phases(struct tdsim_cpu *sc, struct tdsim_phases *ph)
{
	unsigned long flags;
	unsigned int k;

	raw_spin_lock_irqsave(&sc->lock, flags);
	ph->nr = sc->plan->nr;
	ph->steady = !sc->plan->period_ns;
	for (k = 0; k < ph->nr; k++) {
		ph->p[k] = sc->plan->ph[k].p;
		ph->ms[k] = div_u64(sc->plan->ph[k].ns, NSEC_PER_MSEC);
	}
	raw_spin_unlock_irqrestore(&sc->lock, flags);
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
