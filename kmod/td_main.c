// SPDX-License-Identifier: GPL-2.0
/*
 * topdown.ko: always-on Top-Down Microarchitecture Analysis.  Module
 * parameters, the CPU hotplug state and load / unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include "topdown.h"

static char *model;
module_param(model, charp, 0444);
MODULE_PARM_DESC(model, "use this model on every CPU instead of the CPU's identity (see debugfs models)");

static char *atom_model;
module_param(atom_model, charp, 0444);
MODULE_PARM_DESC(atom_model, "with model=: the model of CPUs whose own PMU is another one (a hybrid part's E-cores, tdsim's atom_cpus=)");

int td_pmu_type = -1;
module_param_named(pmu_type, td_pmu_type, int, 0444);
MODULE_PARM_DESC(pmu_type, "perf PMU type to count on (default: the CPU's raw events); tdsim's for tests");

unsigned int td_level = 2;
module_param_named(level, td_level, uint, 0444);
MODULE_PARM_DESC(level, "1, 2 or 3: which events to open (3 adds the memory events for tdnl)");

unsigned int td_interval_ms = 1000;
module_param_named(interval_ms, td_interval_ms, uint, 0444);
MODULE_PARM_DESC(interval_ms, "sampling interval, 10-60000 ms (also in debugfs)");

unsigned int td_slice_us = 1000;
module_param_named(slice_us, td_slice_us, uint, 0444);
MODULE_PARM_DESC(slice_us, "shortest time slice of each event set when a level does not fit the counters (longer beyond 32 rounds an interval), 500-100000 us");

unsigned int td_switch_pct = 50;
module_param_named(switch_budget_pct, td_switch_pct, uint, 0444);
MODULE_PARM_DESC(switch_budget_pct, "most of each CPU's time that switching event sets may take, 1-100 %: fewer rounds of turns beyond (default 50)");

/*
 * Host time only by default: on 7.0+ an event that counts guest time keeps
 * KVM from giving any VM a mediated PMU (-EBUSY), and cannot be created
 * while such a VM runs (-EOPNOTSUPP).  With exclude_guest, a guest that
 * takes the PMU leaves the host's counters stopped while it runs, so its
 * time is neither counted nor lost: the sample's running ratio shows it.
 */
bool td_count_guest;
module_param_named(count_guest, td_count_guest, bool, 0444);
MODULE_PARM_DESC(count_guest, "count guest time too (default 0: host only; 1 blocks VMs with a mediated PMU on 7.0+ kernels, and fails while one runs)");

/*
 * Loading takes no counter: MODULE_ALIAS_GENL_FAMILY lets any user's lookup
 * of the family load the module (genetlink calls request_module() with no
 * permission check), and counters taken at load would make everyone's perf
 * multiplex.  They are opened by a start from a user with CAP_PERFMON or
 * CAP_SYS_ADMIN (set-config running, `tdnl start`), or by start=1 here.
 */
static bool start;
module_param(start, bool, 0444);
MODULE_PARM_DESC(start, "open the counters at load (default: stopped until a user with CAP_PERFMON or CAP_SYS_ADMIN starts it: tdnl start)");

/* one more at each change of the interval: each CPU then starts a new one */
unsigned int td_gen;

const struct td_model *td_forced_model, *td_forced_atom_model;

/*
 * The hotplug state is being removed: every CPU's counters close, and no
 * CPU re-evaluates SMT for its siblings.  Written under td_config_mutex.
 */
bool td_closing;

/*
 * Each CPU's state in its own per-CPU memory: one allocation per possible
 * CPU rather than one array of them all, which went past the largest
 * kmalloc with a page allocator WARNING at 1024 possible CPUs (Debian
 * builds NR_CPUS=8192); and a CPU's sampling touches only its own.
 */
static struct td_cpu __percpu *td_cpus;

/*
 * protects td_hp_state, td_hp_active, td_started and td_exiting: a level
 * change closes and reopens every CPU.  td_started: a start was asked for
 * (td_hp_active: and the counters are open; not when that failed).
 */
static DEFINE_MUTEX(td_config_mutex);
static enum cpuhp_state td_hp_state;
static bool td_hp_active, td_started, td_exiting;

static void td_cpus_free(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		td_cpu_free(per_cpu_ptr(td_cpus, cpu));
	free_percpu(td_cpus);
}

struct td_cpu *td_cpu(unsigned int cpu)
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

const char *td_slots_from_name(enum td_slots_from from)
{
	static const char * const names[] = {
		[TD_SLOTS_MODEL] = "model",
		[TD_SLOTS_PMMIR] = "pmmir",
		[TD_SLOTS_CAPS] = "caps",
	};

	return names[from];
}

static void td_cpus_stopped(bool stopped)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		td_cpu_stopped(td_cpu(cpu), stopped);
}

/* a CPU coming online: its files if it was not present at load, counters */
static int td_hp_online(unsigned int cpu)
{
	td_debugfs_cpu(cpu);
	return td_cpu_online(cpu);
}

/* open every online CPU's counters, and each CPU's as it comes online */
static int td_hp_setup(void)
{
	int ret;

	td_cpus_stopped(false);
	td_cpu_log_reset();
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "topdown:online",
				td_hp_online, td_cpu_offline);
	if (ret < 0) {
		td_cpus_stopped(true);
		return ret;
	}
	td_hp_state = ret;
	td_hp_active = true;
	return 0;
}

static void td_hp_remove(void)
{
	if (td_hp_active) {
		WRITE_ONCE(td_closing, true);
		cpuhp_remove_state(td_hp_state);
		WRITE_ONCE(td_closing, false);
	}
	td_hp_active = false;
}

/**
 * td_set_level() - count another level: close and reopen every CPU's counters
 * @level: 1, 2 or 3, checked by the caller
 *
 * The events are ordered by level, so each keeps its index and its
 * cumulative total.  Returns 0 or the errno of the CPU hotplug state.
 */
int td_set_level(unsigned int level)
{
	int ret = 0;

	mutex_lock(&td_config_mutex);
	if (td_exiting) {
		ret = -ENODEV;
		goto unlock;
	}
	if (level == READ_ONCE(td_level) && (td_hp_active || !td_started))
		goto unlock;
	if (!td_started) {
		/* counted from the start */
		WRITE_ONCE(td_level, level);
		pr_info("level %u (stopped)\n", level);
		goto unlock;
	}
	td_hp_remove();
	WRITE_ONCE(td_level, level);
	ret = td_hp_setup();
	if (ret)
		pr_err("level=%u: cannot set up CPU hotplug: %d; nothing counts\n",
		       level, ret);
	else
		pr_info("level %u\n", level);
unlock:
	mutex_unlock(&td_config_mutex);
	return ret;
}

/**
 * td_set_running() - start or stop counting
 * @on: open every CPU's counters, or close them all
 *
 * Stopped, the module holds no counter and each CPU's state is stopped;
 * the cumulative totals stay and go on at the next start.  The caller has
 * checked the privilege.  Returns 0 or the errno of the CPU hotplug state.
 */
int td_set_running(bool on)
{
	int ret = 0;

	mutex_lock(&td_config_mutex);
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
		pr_info("started: level %u, interval %u ms\n",
			READ_ONCE(td_level), READ_ONCE(td_interval_ms));
	} else if (!on && td_started) {
		td_hp_remove();
		td_cpus_stopped(true);
		pr_info("stopped: no counters held\n");
	}
	td_started = on;
unlock:
	mutex_unlock(&td_config_mutex);
	return ret;
}

/** td_running() - whether the counters are open (started, and it worked) */
bool td_running(void)
{
	bool on;

	mutex_lock(&td_config_mutex);
	on = td_hp_active;
	mutex_unlock(&td_config_mutex);
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
	mutex_lock(&td_config_mutex);
	WRITE_ONCE(td_interval_ms, ms);
	WRITE_ONCE(td_gen, td_gen + 1);
	mutex_unlock(&td_config_mutex);
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
	mutex_lock(&td_config_mutex);
	WRITE_ONCE(td_gen, td_gen + 1);
	mutex_unlock(&td_config_mutex);
	td_cpu_kick_all();
}

static int __init topdown_init(void)
{
	char names[192];
	unsigned int cpu;
	int ret;

	td_model_names(names, sizeof(names));
	if (model) {
		td_forced_model = td_model_find(model);
		if (!td_forced_model) {
			pr_err("model=%s: unknown model (the models: %s)\n", model,
			       names);
			return -EINVAL;
		}
	}
	if (atom_model) {
		td_forced_atom_model = td_model_find(atom_model);
		if (!td_forced_atom_model) {
			pr_err("atom_model=%s: unknown model (the models: %s)\n",
			       atom_model, names);
			return -EINVAL;
		}
		if (!td_forced_model) {
			pr_err("atom_model=%s: goes with model=\n", atom_model);
			return -EINVAL;
		}
	}
	if (td_level < 1 || td_level > TOPDOWN_LEVEL_MAX) {
		pr_err("level=%u: must be 1..%u\n", td_level, TOPDOWN_LEVEL_MAX);
		return -EINVAL;
	}
	if (td_interval_ms < TD_INTERVAL_MIN_MS ||
	    td_interval_ms > TD_INTERVAL_MAX_MS) {
		pr_err("interval_ms=%u: must be %u..%u\n", td_interval_ms,
		       TD_INTERVAL_MIN_MS, TD_INTERVAL_MAX_MS);
		return -EINVAL;
	}
	if (td_slice_us < TD_SLICE_MIN_US || td_slice_us > TD_SLICE_MAX_US) {
		pr_err("slice_us=%u: must be %u..%u\n", td_slice_us,
		       TD_SLICE_MIN_US, TD_SLICE_MAX_US);
		return -EINVAL;
	}

	if (td_switch_pct < 1 || td_switch_pct > 100) {
		pr_err("switch_budget_pct=%u: must be 1..100\n", td_switch_pct);
		return -EINVAL;
	}

	td_cpus = alloc_percpu(struct td_cpu);
	if (!td_cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		td_cpu_init(per_cpu_ptr(td_cpus, cpu), cpu);

	td_stats_init();
	td_debugfs_init();
	/* before the first sample: the sampling work notifies through it */
	ret = td_nl_init();
	if (ret) {
		pr_err("genl_register_family: %d\n", ret);
		goto err_debugfs;
	}
	td_cpus_stopped(true);
	if (start) {
		ret = td_hp_setup();
		if (ret) {
			pr_err("cpuhp_setup_state: %d\n", ret);
			goto err_nl;
		}
		td_started = true;
	}
	pr_info("%s: level %u, interval %u ms, slice %u us, %s%s%s%s%s\n",
		start ? "started" : "loaded, stopped until started (tdnl start)",
		td_level, td_interval_ms, td_slice_us,
		td_count_guest ? "guest time counted" : "host time only",
		td_forced_model ? ", model=" : "",
		td_forced_model ? td_forced_model->name : "",
		td_forced_atom_model ? ", atom_model=" : "",
		td_forced_atom_model ? td_forced_atom_model->name : "");
	return 0;

err_nl:
	td_nl_exit();
err_debugfs:
	td_debugfs_exit();
	td_cpus_free();
	return ret;
}

static void __exit topdown_exit(void)
{
	/* sampling (and so notifying) stops, and no command sets it up again */
	mutex_lock(&td_config_mutex);
	td_exiting = true;
	td_hp_remove();
	mutex_unlock(&td_config_mutex);
	/* waits for commands in flight; then no reader is left in any file */
	td_nl_exit();
	td_debugfs_exit();
	td_cpus_free();
}

module_init(topdown_init);
module_exit(topdown_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("topdown: always-on Top-Down Microarchitecture Analysis");
MODULE_VERSION(TD_VERSION);
