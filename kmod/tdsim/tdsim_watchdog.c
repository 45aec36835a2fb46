// SPDX-License-Identifier: GPL-2.0
/*
 * tdsim watchdog=1: hold a pinned CPU-wide cycles event on every online
 * CPU, as the perf-based hard lockup detector does, so tests see a PMU
 * with one counter taken: fixed counter 1 on Intel, a general-purpose one
 * on AMD, the cycle counter on Arm.  Made first and pinned, tdsim_add()
 * places it there.
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
