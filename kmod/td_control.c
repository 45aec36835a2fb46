// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: the control layer.  Start, stop, level and interval, over the
 * one configuration the core counts by; the front ends (debugfs, netlink)
 * and the module's init call these.  Counters are held only while started:
 * the CPU hotplug state opens them on every online CPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/mutex.h>
#include "topdown.h"

/*
 * td_mutex protects everything here and every write of td_cfg.
 * td_started: a start was asked for (td_hp_active: and the counters are
 * open; not when that failed).
 */
static DEFINE_MUTEX(td_mutex);
static struct td_config td_cfg;
static enum cpuhp_state td_hp_state;
static bool td_hp_active, td_started, td_exiting;

/** td_config() - the configuration; its fields change, read with READ_ONCE() */
const struct td_config *td_config(void)
{
	return &td_cfg;
}

/* open every online CPU's counters, and each CPU's as it comes online */
static int td_hp_setup(void)
{
	int ret;

	td_core_stopped(false);
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "topdown:online",
				td_cpu_online, td_cpu_offline);
	if (ret < 0) {
		td_core_stopped(true);
		return ret;
	}
	td_hp_state = ret;
	td_hp_active = true;
	return 0;
}

static void td_hp_remove(void)
{
	if (td_hp_active) {
		WRITE_ONCE(td_cfg.closing, true);
		cpuhp_remove_state(td_hp_state);
		WRITE_ONCE(td_cfg.closing, false);
	}
	td_hp_active = false;
}

/**
 * td_set_level() - count another level: close and reopen every CPU's counters
 * @level: 1, 2 or 3, checked by the caller
 *
 * The events are ordered by level, so each keeps its index and its total.
 *
 * Return: 0 or the errno of the CPU hotplug state.
 */
int td_set_level(unsigned int level)
{
	int ret = 0;

	mutex_lock(&td_mutex);
	if (td_exiting) {
		ret = -ENODEV;
	} else if (level == td_cfg.level && (td_hp_active || !td_started)) {
		/* nothing to change */
	} else if (!td_started) {
		WRITE_ONCE(td_cfg.level, level);	/* counted from the start */
		pr_info("level %u (stopped)\n", level);
	} else {
		td_hp_remove();
		WRITE_ONCE(td_cfg.level, level);
		ret = td_hp_setup();
		if (ret)
			pr_err("level=%u: cannot set up CPU hotplug: %d; nothing counts\n",
			       level, ret);
		else
			pr_info("level %u\n", level);
	}
	mutex_unlock(&td_mutex);
	return ret;
}

/**
 * td_set_running() - start or stop counting
 * @on: open every CPU's counters, or close them all
 *
 * Stopped, the module holds no counter; the cumulative totals stay and go
 * on at the next start.  The caller has checked the privilege.
 *
 * Return: 0 or the errno of the CPU hotplug state.
 */
int td_set_running(bool on)
{
	int ret = 0;

	mutex_lock(&td_mutex);
	if (td_exiting) {
		ret = -ENODEV;
		goto unlock;
	}
	if (on && !td_hp_active) {
		ret = td_hp_setup();
		if (ret) {
			pr_err("start: cannot set up CPU hotplug: %d; nothing counts\n",
			       ret);
			goto unlock;
		}
		pr_info("started: level %u, interval %u ms\n", td_cfg.level,
			td_cfg.interval_ms);
	} else if (!on && td_started) {
		td_hp_remove();
		td_core_stopped(true);
		pr_info("stopped: no counters held\n");
	}
	td_started = on;
unlock:
	mutex_unlock(&td_mutex);
	return ret;
}

/**
 * td_control_start() - start at load (start=1), as td_set_running() does
 *
 * Nothing is logged: the load line says so.
 *
 * Return: 0 or the errno of the CPU hotplug state.
 */
int td_control_start(void)
{
	int ret;

	mutex_lock(&td_mutex);
	ret = td_hp_setup();
	td_started = !ret;
	mutex_unlock(&td_mutex);
	return ret;
}

/** td_running() - whether the counters are open (started, and it worked) */
bool td_running(void)
{
	bool on;

	mutex_lock(&td_mutex);
	on = td_hp_active;
	mutex_unlock(&td_mutex);
	return on;
}

/**
 * td_set_interval() - a new sampling interval, from now on
 * @ms: the interval, checked by the caller
 *
 * Every CPU ends the interval it is in and starts one of @ms at once.
 */
void td_set_interval(unsigned int ms)
{
	mutex_lock(&td_mutex);
	WRITE_ONCE(td_cfg.interval_ms, ms);
	WRITE_ONCE(td_cfg.gen, td_cfg.gen + 1);
	mutex_unlock(&td_mutex);
	td_cpu_kick_all();
}

/**
 * td_end_intervals() - every counting CPU ends its interval now
 *
 * Each publishes the sample of the interval so far, its totals up to now,
 * and starts the next at once, to the grid: the same as a new interval,
 * with the same length.  Two such cuts bracket an exact window.
 */
void td_end_intervals(void)
{
	mutex_lock(&td_mutex);
	WRITE_ONCE(td_cfg.gen, td_cfg.gen + 1);
	mutex_unlock(&td_mutex);
	td_cpu_kick_all();
}

/**
 * td_control_init() - the core, stopped, with the module's parameters
 * @params:  the configuration to start from, checked by the caller
 * @publish: where the samples go
 *
 * Return: 0 or -ENOMEM.
 */
int td_control_init(const struct td_config *params, td_publish_t publish)
{
	td_cfg = *params;
	return td_core_init(&td_cfg, publish);
}

/**
 * td_control_exit() - close every counter for good
 *
 * Sampling (and so publishing) stops, and no command starts it again;
 * td_core_exit() frees the core once the front ends are gone.
 */
void td_control_exit(void)
{
	mutex_lock(&td_mutex);
	td_exiting = true;
	td_hp_remove();
	mutex_unlock(&td_mutex);
}
