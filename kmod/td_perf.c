// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: perf's internals that are not on a fast path (td_perf.h has
 * the rest and says why they are read at all).
 */
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/device.h>
#include <linux/gfp.h>
#include <linux/string.h>
#include "topdown.h"
#include "td_perf.h"

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
