// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: perf's internals, in one place.
 */
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/device.h>
#include <linux/gfp.h>
#include <linux/string.h>
#include "topdown.h"
#include "td_internal.h"

/*
 * An event's count now, on its CPU with interrupts off: what
 * perf_event_read_local() does for the count, which modules cannot call
 * (it is not exported: Module.symvers of 6.1 and 6.12).  An event on a
 * counter is read from its PMU; one that is not holds its count.
 */
u64 td_read_local(struct perf_event *ev)
{
	if (READ_ONCE(ev->oncpu) == smp_processor_id())
		ev->pmu->read(ev);
	return local64_read(&ev->count);
}

/*
 * How long @ev has been enabled but off its counter, ns.  perf's totals
 * hold that gap as of now except while the event waits for a counter
 * (INACTIVE), when only perf_event_read_value() brings them up to date:
 * returns false then.  On the event's CPU with interrupts off, the only
 * place its totals and state change.
 */
bool td_gap_local(struct perf_event *ev, u64 *gap)
{
	if (READ_ONCE(ev->state) == PERF_EVENT_STATE_INACTIVE)
		return false;
	*gap = ev->total_time_enabled - ev->total_time_running;
	return true;
}

/*
 * The slots per cycle in the caps/slots attribute of @ev's PMU, 0 if none,
 * for pmu_type= (tdsim), which has no PMMIR_EL1: arm_pmuv3 shows that
 * register's SLOTS there, and perf's #slots reads it.  show() is called as
 * sysfs does, on a page (sysfs_emit() wants one); the event holds the
 * PMU's module.
 */
unsigned int td_caps_slots(struct perf_event *ev)
{
	const struct attribute_group **g;
	struct device_attribute *da;
	struct attribute **a;
	unsigned int slots = 0;
	char *page;

	for (g = ev->pmu->attr_groups; g && *g; g++) {
		if (!(*g)->name || strcmp((*g)->name, "caps"))
			continue;
		for (a = (*g)->attrs; a && *a; a++) {
			if (strcmp((*a)->name, "slots"))
				continue;
			da = container_of(*a, struct device_attribute, attr);
			if (!da->show || !ev->pmu->dev)
				return 0;
			page = (char *)get_zeroed_page(GFP_KERNEL);
			if (!page)
				return 0;
			if (da->show(ev->pmu->dev, da, page) <= 0 ||
			    kstrtouint(strim(page), 0, &slots))
				slots = 0;
			free_page((unsigned long)page);
			return slots;
		}
	}
	return 0;
}

/**
 * td_perf_read_local() - what perf_event_read_local() does, for a module
 * @ev:      a CPU-wide event of this CPU; interrupts off
 * @value:   out: its count, read from its PMU while it is on a counter
 * @enabled: out: its enabled time, ns, as perf last brought it up to date
 * @running: out: and its running time
 *
 * perf_event_read_local() is not exported to modules, so this reads the
 * event's fields as it does.  While the event counts, both times advance
 * together, and neither while it is disabled: their difference is current
 * then, but not while it waits for a counter.
 *
 * Return: 0; -EAGAIN while it waits for a counter (the times are stale);
 * -EINVAL off its CPU.
 */
int td_perf_read_local(struct perf_event *ev, u64 *value, u64 *enabled,
		       u64 *running)
{
	lockdep_assert_irqs_disabled();
	if (ev->cpu != smp_processor_id())
		return -EINVAL;
	if (READ_ONCE(ev->oncpu) == smp_processor_id())
		ev->pmu->read(ev);
	*value = local64_read(&ev->count);
	*enabled = ev->total_time_enabled;
	*running = ev->total_time_running;
	return READ_ONCE(ev->state) == PERF_EVENT_STATE_INACTIVE ? -EAGAIN : 0;
}
