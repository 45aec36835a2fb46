// SPDX-License-Identifier: GPL-2.0
/*
 * tdsim: CPU hotplug changes what a core counts for its SMT siblings.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include "td_compat.h"
#include "tdsim.h"

/*
 * The plan of @sc again for @siblings threads, from now: what its core
 * counts changed with a sibling's hotplug.  A schedule starts again from
 * its first phase.  Called from a hotplug callback, with the hotplug lock
 * held (so no profile or schedule write runs: they hold cpus_read_lock()).
 */
static void tdsim_cpu_replan(struct tdsim_cpu *sc, unsigned int siblings)
{
	struct tdsim_plan *plan = NULL;
	struct tdsim_phases *ph;

	ph = kzalloc_obj(*ph, GFP_KERNEL);
	if (ph) {
		tdsim_cpu_phases(sc, ph);
		plan = tdsim_plan_new(sc->model, siblings, ph->p,
				      ph->steady ? NULL : ph->ms, ph->nr);
		kfree(ph);
	}
	if (plan && !tdsim_cpu_install(sc, plan))
		return;
	pr_warn_ratelimited("cpu%u: cannot count for %u SMT threads: AnyThread events stay as they were\n",
			    sc->cpu, siblings);
}

/* each online SMT sibling of @cpu, less @gone, counts for its threads now */
static void tdsim_hp_siblings(struct tdsim *sim, unsigned int cpu,
			      unsigned int gone)
{
	unsigned int t, n;

	for_each_cpu(t, topology_sibling_cpumask(cpu)) {
		struct tdsim_cpu *sc = tdsim_cpu(sim, t);

		if (t == gone || !cpu_online(t))
			continue;
		n = tdsim_siblings(t, gone);
		if (sc->plan->siblings != n)
			tdsim_cpu_replan(sc, n);
	}
}

/**
 * tdsim_cpu_hp_online() - CPU hotplug: @cpu and its siblings count for it
 * @sim: the simulator
 * @cpu: the CPU coming online; this runs on it
 *
 * Return: 0.
 */
int tdsim_cpu_hp_online(struct tdsim *sim, unsigned int cpu)
{
	tdsim_hp_siblings(sim, cpu, nr_cpu_ids);
	return 0;
}

/**
 * tdsim_cpu_hp_offline() - CPU hotplug: @cpu's siblings count without it
 * @sim: the simulator
 * @cpu: the CPU going offline; this runs on it
 *
 * Return: 0.
 */
int tdsim_cpu_hp_offline(struct tdsim *sim, unsigned int cpu)
{
	tdsim_hp_siblings(sim, cpu, cpu);
	return 0;
}
