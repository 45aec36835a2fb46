// SPDX-License-Identifier: GPL-2.0
/*
 * td_perf_test: holds td_perf_read_local() (kmod/td_perf.h), which reads
 * perf's internals because perf_event_read_local() is not exported, to
 * perf_event_read_value() on the kernel it is built for.  It counts @type's
 * event @config on CPU 0 for a moment, then disables it, so that it does
 * not move, and reads it both ways: the module loads only when the value,
 * enabled and running times agree, and says what it read.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/smp.h>
#include "td_perf.h"

static int type = -1;
module_param(type, int, 0444);
MODULE_PARM_DESC(type, "the perf PMU type to count on (tdsim's)");

static unsigned long long config;
module_param(config, ullong, 0444);
MODULE_PARM_DESC(config, "the event");

struct td_read {
	struct perf_event *ev;
	u64 value, enabled, running;
	int ret;
};

/* on CPU 0 with interrupts off, as the module's snapshots read */
static void td_read_here(void *arg)
{
	struct td_read *r = arg;

	r->ret = td_perf_read_local(r->ev, &r->value, &r->enabled, &r->running);
}

static int __init td_perf_test_init(void)
{
	struct perf_event_attr attr = {
		.type = type,
		.size = sizeof(attr),
		.config = config,
		.pinned = 1,
	};
	struct td_read r = {};
	u64 value, enabled, running;
	bool same;

	r.ev = perf_event_create_kernel_counter(&attr, 0, NULL, NULL, NULL);
	if (IS_ERR(r.ev)) {
		pr_err("type %d config %#llx: no counter: %ld\n", type, config,
		       PTR_ERR(r.ev));
		return PTR_ERR(r.ev);
	}
	msleep(50);
	perf_event_disable(r.ev);
	smp_call_function_single(0, td_read_here, &r, 1);
	value = perf_event_read_value(r.ev, &enabled, &running);
	perf_event_release_kernel(r.ev);
	same = !r.ret && r.value == value && r.enabled == enabled &&
	       r.running == running;
	pr_info("%s: value %llu %llu enabled %llu %llu running %llu %llu (td_perf_read_local: %d)\n",
		same ? "same" : "differ", r.value, value, r.enabled, enabled,
		r.running, running, r.ret);
	return same ? 0 : -EINVAL;
}

static void __exit td_perf_test_exit(void)
{
}

module_init(td_perf_test_init);
module_exit(td_perf_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("topdown: td_perf_read_local() against perf_event_read_value()");
