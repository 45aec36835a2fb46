// SPDX-License-Identifier: GPL-2.0
/*
 * topdown.ko: always-on Top-Down Microarchitecture Analysis.  The module's
 * parameters, and load / unload: the core under its control layer, then
 * the front ends (debugfs, the netlink family) on top.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include "topdown.h"

static char *model;
module_param(model, charp, 0444);
MODULE_PARM_DESC(model, "use this model on every CPU instead of the CPU's identity (see debugfs models)");

static char *atom_model;
module_param(atom_model, charp, 0444);
MODULE_PARM_DESC(atom_model, "with model=: the model of CPUs whose own PMU is another one (a hybrid part's E-cores, tdsim's atom_cpus=)");

static int pmu_type = -1;
module_param(pmu_type, int, 0444);
MODULE_PARM_DESC(pmu_type, "perf PMU type to count on (default: the CPU's raw events); tdsim's for tests");

static unsigned int level = 2;
module_param(level, uint, 0444);
MODULE_PARM_DESC(level, "1, 2 or 3: which events to open (3 adds the memory events for tdnl)");

static unsigned int interval_ms = 1000;
module_param(interval_ms, uint, 0444);
MODULE_PARM_DESC(interval_ms, "sampling interval, 10-60000 ms (also in debugfs)");

static unsigned int slice_us = 1000;
module_param(slice_us, uint, 0444);
MODULE_PARM_DESC(slice_us, "shortest time slice of each event set when a level does not fit the counters (longer beyond 32 rounds an interval), 500-100000 us");

static unsigned int switch_budget_pct = 50;
module_param(switch_budget_pct, uint, 0444);
MODULE_PARM_DESC(switch_budget_pct, "most of each CPU's time that switching event sets may take, 1-100 %: fewer rounds of turns beyond (default 50)");

/*
 * Host time only by default: on 7.0+ an event that counts guest time keeps
 * KVM from giving any VM a mediated PMU (-EBUSY), and cannot be created
 * while such a VM runs (-EOPNOTSUPP).  With exclude_guest, a guest that
 * takes the PMU leaves the host's counters stopped while it runs, so its
 * time is neither counted nor lost: the sample's running ratio shows it.
 */
static bool count_guest;
module_param(count_guest, bool, 0444);
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

/* a model parameter's model, or an error naming the models */
static int td_param_model(const char *param, const char *name,
			  const struct td_model **m)
{
	char names[192];

	*m = NULL;
	if (!name)
		return 0;
	*m = td_model_find(name);
	if (*m)
		return 0;
	td_model_names(names, sizeof(names));
	pr_err("%s=%s: unknown model (the models: %s)\n", param, name, names);
	return -EINVAL;
}

/* the parameters as a configuration, each checked against its range */
static int td_params(struct td_config *cfg)
{
	int ret;

	ret = td_param_model("model", model, &cfg->model);
	if (!ret)
		ret = td_param_model("atom_model", atom_model, &cfg->atom_model);
	if (ret)
		return ret;
	if (cfg->atom_model && !cfg->model) {
		pr_err("atom_model=%s: goes with model=\n", atom_model);
		return -EINVAL;
	}
	if (level < 1 || level > TOPDOWN_LEVEL_MAX) {
		pr_err("level=%u: must be 1..%u\n", level, TOPDOWN_LEVEL_MAX);
		return -EINVAL;
	}
	if (interval_ms < TD_INTERVAL_MIN_MS || interval_ms > TD_INTERVAL_MAX_MS) {
		pr_err("interval_ms=%u: must be %u..%u\n", interval_ms,
		       TD_INTERVAL_MIN_MS, TD_INTERVAL_MAX_MS);
		return -EINVAL;
	}
	if (slice_us < TD_SLICE_MIN_US || slice_us > TD_SLICE_MAX_US) {
		pr_err("slice_us=%u: must be %u..%u\n", slice_us,
		       TD_SLICE_MIN_US, TD_SLICE_MAX_US);
		return -EINVAL;
	}
	if (switch_budget_pct < 1 || switch_budget_pct > 100) {
		pr_err("switch_budget_pct=%u: must be 1..100\n", switch_budget_pct);
		return -EINVAL;
	}
	cfg->level = level;
	cfg->interval_ms = interval_ms;
	cfg->slice_us = slice_us;
	cfg->switch_pct = switch_budget_pct;
	cfg->pmu_type = pmu_type;
	cfg->count_guest = count_guest;
	return 0;
}

static int __init topdown_init(void)
{
	struct td_config cfg = {};
	int ret;

	ret = td_params(&cfg);
	if (ret)
		return ret;
	td_stats_init();
	ret = td_control_init(&cfg, td_nl_publish);
	if (ret)
		return ret;
	ret = td_debugfs_init();
	if (ret)
		goto err_core;
	/* before the first sample: each one is published through it */
	ret = td_nl_init();
	if (ret) {
		pr_err("genl_register_family: %d\n", ret);
		goto err_debugfs;
	}
	if (start) {
		ret = td_control_start();
		if (ret) {
			pr_err("cpuhp_setup_state: %d\n", ret);
			goto err_nl;
		}
	}
	pr_info("%s: level %u, interval %u ms, slice %u us, %s%s%s%s%s\n",
		start ? "started" : "loaded, stopped until started (tdnl start)",
		level, interval_ms, slice_us,
		count_guest ? "guest time counted" : "host time only",
		cfg.model ? ", model=" : "", cfg.model ? cfg.model->name : "",
		cfg.atom_model ? ", atom_model=" : "",
		cfg.atom_model ? cfg.atom_model->name : "");
	return 0;

err_nl:
	td_control_exit();
	td_nl_exit();
err_debugfs:
	td_debugfs_exit();
err_core:
	td_core_exit();
	return ret;
}

static void __exit topdown_exit(void)
{
	td_control_exit();
	/* waits for commands in flight; then no reader is left in any file */
	td_nl_exit();
	td_debugfs_exit();
	td_core_exit();
}

module_init(topdown_init);
module_exit(topdown_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("topdown: always-on Top-Down Microarchitecture Analysis");
MODULE_VERSION(TD_VERSION);
