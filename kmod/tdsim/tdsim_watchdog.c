// SPDX-License-Identifier: GPL-2.0
/*
 * tdsim watchdog=1: tdsim holds a counter of every online CPU where the
 * kernel's perf-based hard lockup detector would (kernel/watchdog_perf.c,
 * 6.12: wd_hw_attr, a pinned CPU-wide PERF_COUNT_HW_CPU_CYCLES event made
 * when the CPU comes online).  perf maps that to the vendor's cycles event
 * (tdsim_cycles_config()), on the CPU's own PMU, and places it:
 *
 * - Intel: on fixed counter 1 (x86's __perf_sched_find_counter() tries the
 *   fixed counters first);
 * - AMD: on a general-purpose counter, the only kind there is;
 * - Arm: on the cycle counter (armv8pmu_get_event_idx() "always prefer[s]
 *   to place a cycle counter into the cycle counter"), so the CPU_CYCLES
 *   of anyone else takes a general-purpose one.  (Debian's arm64 kernels
 *   use the buddy detector, which holds no counter; kernels built with
 *   HARDLOCKUP_DETECTOR_PERF and pseudo-NMIs do.)
 *
 * Made first, pinned, tdsim_add() places it the same way.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include "tdsim.h"

static enum cpuhp_state tdsim_wd_state;
static struct tdsim *tdsim_wd_sim;	/* whose PMU the events are on */

static int tdsim_wd_online(unsigned int cpu)
{
	struct tdsim_cpu *sc = tdsim_cpu(tdsim_wd_sim, cpu);
	struct perf_event_attr attr = {
		.type = tdsim_pmu_type(tdsim_wd_sim, sc),
		.size = sizeof(attr),
		.config = tdsim_cycles_config(sc->model),
		.pinned = 1,
	};
	struct perf_event *ev;

	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	if (IS_ERR(ev)) {
		pr_info("cpu%u: watchdog's cycles event not created: %ld\n",
			cpu, PTR_ERR(ev));
		return 0;
	}
	/*
	 * An event holds a reference to its PMU's module: drop the one of
	 * our own events, or tdsim could never be unloaded.  They are all
	 * released before the PMU goes away (tdsim_watchdog_stop()).
	 */
	module_put(THIS_MODULE);
	sc->wd = ev;
	return 0;
}

static int tdsim_wd_offline(unsigned int cpu)
{
	struct tdsim_cpu *sc = tdsim_cpu(tdsim_wd_sim, cpu);

	if (sc->wd) {
		__module_get(THIS_MODULE);	/* the reference the release drops */
		perf_event_release_kernel(sc->wd);
		sc->wd = NULL;
	}
	return 0;
}

/**
 * tdsim_watchdog_start() - hold the watchdog's counter on each online CPU,
 * and on each CPU that comes online
 * @sim: the simulator, its PMUs registered
 *
 * Return: 0 or the errno of cpuhp_setup_state().
 */
int tdsim_watchdog_start(struct tdsim *sim)
{
	int ret;

	tdsim_wd_sim = sim;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "tdsim:watchdog",
				tdsim_wd_online, tdsim_wd_offline);
	if (ret < 0)
		return ret;
	tdsim_wd_state = ret;
	return 0;
}

/** tdsim_watchdog_stop() - release them, before the PMU is unregistered */
void tdsim_watchdog_stop(void)
{
	if (tdsim_wd_state)
		cpuhp_remove_state(tdsim_wd_state);
	tdsim_wd_state = 0;
}
