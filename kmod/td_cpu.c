// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: the per-CPU counter set and its sampling.
 *
 * Counters are created in the CPU hotplug online callback and released in
 * the offline one.  Sampling is a delayed work on each CPU, in process
 * context, because perf_event_read_value() sleeps.  The counters are not a
 * group, so each is scaled by its own enabled / running time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/topology.h>
#ifdef CONFIG_X86
#include <asm/processor.h>
#include <asm/cpufeature.h>
#endif
#ifdef CONFIG_ARM64
#include <asm/cputype.h>
#endif
#include "topdown.h"

/* This CPU's model from its identity; called on the CPU itself. */
static const struct td_model *td_identify(unsigned int cpu)
{
#ifdef CONFIG_X86
	struct cpuinfo_x86 *c = &cpu_data(cpu);

	if (c->x86_vendor == X86_VENDOR_INTEL && c->x86 == 6) {
		switch (c->x86_model) {
		case 0x4e: case 0x5e: case 0x8e: case 0x9e:	/* Skylake client */
		case 0xa5: case 0xa6: case 0x55:		/* CML, SKX/CLX */
			return &td_model_skl;
		case 0x7d: case 0x7e: case 0x6a: case 0x6c:	/* ICL, ICX */
		case 0x8c: case 0x8d:				/* TGL */
			return &td_model_icl;
		case 0x8f: case 0xcf: case 0xad: case 0xae:	/* SPR, EMR, GNR */
			return &td_model_spr;
		case 0x97: case 0x9a: case 0xb7: case 0xba: case 0xbf:
			/* Alder/Raptor Lake: P-cores only (CPUID 0x1a: 0x40 Core) */
			if (c->cpuid_level >= 0x1a && (cpuid_eax(0x1a) >> 24) == 0x40)
				return &td_model_spr;
			return NULL;
		}
	}
	if (c->x86_vendor == X86_VENDOR_AMD) {
		/* perf's mapfile: family 0x19 models 00-0f, 20-2f, 40-5f are Zen 3 */
		if (c->x86 == 0x19 && c->x86_model >= 0x60)
			return &td_model_zen4;
		if (c->x86 == 0x19 && (c->x86_model & 0xf0) == 0x10)
			return &td_model_zen4;
		if (c->x86 == 0x1a)
			return &td_model_zen5;
	}
#endif
#ifdef CONFIG_ARM64
	u32 midr = read_cpuid_id();

	/* hybrid parts differ per CPU, so this reads the CPU's own MIDR_EL1 */
	if (MIDR_IMPLEMENTOR(midr) == ARM_CPU_IMP_ARM) {
		switch (MIDR_PARTNUM(midr)) {
		case 0xd0c:	/* Neoverse N1 */
			return &td_model_neoverse_n1;
		case 0xd49:	/* Neoverse N2 */
			return &td_model_neoverse_n2;
		case 0xd4f:	/* Neoverse V2 */
			return &td_model_neoverse_v2;
		}
	}
#endif
	return NULL;
}

static void td_describe(unsigned int cpu, char *buf, size_t len)
{
#ifdef CONFIG_X86
	struct cpuinfo_x86 *c = &cpu_data(cpu);

	scnprintf(buf, len, "%s family %#x model %#x", c->x86_vendor_id,
		  c->x86, c->x86_model);
#elif defined(CONFIG_ARM64)
	u32 midr = read_cpuid_id();

	scnprintf(buf, len, "MIDR %#010x (implementer %#x part %#x)", midr,
		  MIDR_IMPLEMENTOR(midr), MIDR_PARTNUM(midr));
#else
	scnprintf(buf, len, "unknown");
#endif
}

static void td_release(struct td_cpu *tc)
{
	unsigned int i;

	for (i = 0; i < tc->nr; i++) {
		if (tc->ctr[i].event)
			perf_event_release_kernel(tc->ctr[i].event);
		tc->ctr[i].event = NULL;
	}
}

static void td_sample(struct work_struct *work)
{
	struct td_cpu *tc = container_of(to_delayed_work(work), struct td_cpu,
					 work);
	u64 t0 = ktime_get_ns(), c[TD_MAX_EVENTS], window = 0;
	bool not_counted = false;
	u32 mux = TD_PPM;
	unsigned int i;
	int ret;

	mutex_lock(&tc->lock);
	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];
		u64 en, run, val;

		c[i] = 0;
		if (!k->event)
			continue;	/* not needed with this SMT setting */
		val = perf_event_read_value(k->event, &en, &run);

		k->d_enabled = en - k->read_enabled;
		k->d_running = run - k->running;
		k->read_enabled = en;
		if (!k->d_running) {
			/* not counted: flagged, never taken for 0 */
			k->delta = 0;
			if (tc->model->events[i].level <= 2)
				not_counted = true;
		} else {
			/* since the last read in which it ran: maybe several intervals */
			u64 span = en - k->enabled, count = val - k->value;

			if (k->d_running < span)
				count = mul_u64_u64_div_u64(count, span, k->d_running);
			k->total += count;
			/* this interval's share of it, at the span's rate */
			k->delta = span == k->d_enabled ? count :
				   mul_u64_u64_div_u64(count, k->d_enabled, span);
			k->value = val;
			k->enabled = en;
			k->running = run;
		}
		mux = min(mux, td_frac(k->d_running, k->d_enabled));
		window = max(window, k->d_enabled);
	}
	/*
	 * Ungrouped counters are read one after another, so their windows
	 * differ in length (by a lot when the reader is preempted); the
	 * formulas get every count as a rate over one common window, so that
	 * a counter read late does not look like more of its event.
	 */
	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];

		if (k->event && k->d_enabled && k->d_enabled != window)
			c[i] = mul_u64_u64_div_u64(k->delta, window, k->d_enabled);
		else if (k->event)
			c[i] = k->delta;
	}
	tc->start_ns = tc->end_ns;
	tc->end_ns = ktime_get_ns();
	tc->seq++;
	tc->mux_ppm = mux;
	if (not_counted) {
		tc->state = TD_STATE_NOT_COUNTED;
	} else {
		ret = tc->model->compute(tc->model, c, tc->smt, &tc->result);
		tc->state = ret ? TD_STATE_IDLE : TD_STATE_OK;
		if (td_level < 2)	/* its events were not opened */
			tc->result.has_l2 = false;
	}
	td_nl_notify(tc);
	mutex_unlock(&tc->lock);

	spin_lock(&td_stats_lock);
	td_stats.samples++;
	td_stats.cost_ns += ktime_get_ns() - t0;
	spin_unlock(&td_stats_lock);
	schedule_delayed_work_on(tc->cpu, &tc->work,
				 msecs_to_jiffies(READ_ONCE(td_interval_ms)));
}

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
	tc->model = td_forced_model;
	INIT_DELAYED_WORK(&tc->work, td_sample);
}

/**
 * td_cpu_online() - CPU hotplug: create the counters, start sampling
 * @cpu: the CPU coming online; this runs on it
 *
 * Never fails: a CPU without counters comes online all the same, and says
 * why in its info file.
 */
int td_cpu_online(unsigned int cpu)
{
	struct td_cpu *tc = td_cpu(cpu);
	struct perf_event_attr attr = {
		.type = td_pmu_type >= 0 ? td_pmu_type : PERF_TYPE_RAW,
		.size = sizeof(attr),
	};
	const struct td_model *m;
	unsigned int i, nr;
	char who[64];

	m = td_forced_model ? td_forced_model : td_identify(cpu);
	mutex_lock(&tc->lock);
	tc->model = m;
	tc->smt = cpumask_weight(topology_sibling_cpumask(cpu)) > 1;
	tc->err = 0;
	tc->nr = 0;
	if (!m) {
		tc->state = TD_STATE_UNSUPPORTED;
		mutex_unlock(&tc->lock);
		td_describe(cpu, who, sizeof(who));
		pr_info_once("cpu%u: %s is not supported (give model=)\n", cpu, who);
		return 0;
	}
	nr = min_t(unsigned int, td_model_nr_events(m, td_level), TD_MAX_EVENTS);
	for (i = 0; i < nr; i++) {
		struct td_counter *k = &tc->ctr[i];
		/*
		 * Level 1 and 2 open one form of an SMT-dependent event, so
		 * Level 1 fits; Level 3 multiplexes anyway and opens both, as
		 * tdnl's per-thread formulas need CPU_CLK_UNHALTED.THREAD.
		 */
		u32 skip = td_level >= 3 ? 0 :
			   tc->smt ? m->nosmt_only : m->smt_only;
		struct perf_event *ev;

		k->value = 0;
		k->enabled = 0;
		k->running = 0;
		k->read_enabled = 0;
		k->delta = 0;
		k->d_enabled = 0;
		k->d_running = 0;
		tc->nr = i + 1;
		if (skip & (1U << i))
			continue;
		attr.config = m->events[i].config;
		ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
		if (IS_ERR(ev)) {
			tc->err = PTR_ERR(ev);
			break;
		}
		k->event = ev;
	}
	if (tc->err) {
		td_release(tc);
		tc->nr = 0;
		/*
		 * -ENOENT: no PMU claims the event type (PERF_TYPE_RAW with no
		 * hardware PMU, as in a VM without PMU passthrough, or a
		 * pmu_type that does not exist).  The module stays loaded and
		 * says so; every other error is the counter's own.
		 */
		tc->state = tc->err == -ENOENT ? TD_STATE_NO_PMU : TD_STATE_ERROR;
		mutex_unlock(&tc->lock);
		spin_lock(&td_stats_lock);
		td_stats.errors++;
		spin_unlock(&td_stats_lock);
		if (tc->err == -ENOENT)
			pr_info_ratelimited("cpu%u: no PMU takes %s events (a VM without PMU passthrough?): state no-pmu\n",
					    cpu, td_pmu_type >= 0 ? "pmu_type's" : "raw");
		else
			pr_info_ratelimited("cpu%u: cannot count %s (%#llx): %d\n",
					    cpu, m->events[i].name,
					    m->events[i].config, tc->err);
		return 0;
	}
	tc->state = TD_STATE_WAITING;
	tc->mux_ppm = TD_PPM;
	tc->end_ns = ktime_get_ns();
	mutex_unlock(&tc->lock);
	schedule_delayed_work_on(cpu, &tc->work,
				 msecs_to_jiffies(READ_ONCE(td_interval_ms)));
	return 0;
}

/**
 * td_cpu_offline() - CPU hotplug: stop sampling, release the counters
 * @cpu: the CPU going offline
 *
 * Cumulative totals stay; the next online continues them.
 */
int td_cpu_offline(unsigned int cpu)
{
	struct td_cpu *tc = td_cpu(cpu);

	cancel_delayed_work_sync(&tc->work);
	mutex_lock(&tc->lock);
	td_release(tc);		/* nr and the totals stay, for raw */
	tc->state = TD_STATE_OFFLINE;
	mutex_unlock(&tc->lock);
	return 0;
}
