// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: the model a CPU is counted with, and its width in slots per cycle.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/perf_event.h>
#include "topdown.h"
#include "td_internal.h"
#include "td_perf.h"

const char *td_slots_from_name(enum td_slots_from from)
{
	static const char * const names[] = {
		[TD_SLOTS_MODEL] = "model",
		[TD_SLOTS_PMMIR] = "pmmir",
		[TD_SLOTS_CAPS] = "caps",
	};

	return names[from];
}

/*
 * The width @tc's slot-based Arm model is counted with: the PMU's slots
 * per cycle where it says them, as perf's #slots, else the model's
 * constant.  Only PMMIR_EL1.SLOTS (8 bits) or caps/slots can be larger
 * than 0; a value the PMU gives that is above 255 is not a PMMIR field.
 */
void td_set_slots(struct td_cpu *tc, const struct td_model *m)
{
	unsigned int slots = 0;

	tc->slots_from = TD_SLOTS_MODEL;
	if (m->vendor != TD_ARM || m->cycle_based)
		return;
	if (tc->cfg->pmu_type < 0) {
		slots = td_arch_pmmir_slots(tc->cpu);
		tc->slots_from = TD_SLOTS_PMMIR;
	} else if (tc->nr && tc->ctr[0].event) {
		slots = td_caps_slots(tc->ctr[0].event);
		tc->slots_from = TD_SLOTS_CAPS;
	}
	if (!slots || slots > 255) {
		if (slots)
			pr_info_ratelimited("cpu%u: the PMU says %u slots per cycle, not a PMMIR_EL1.SLOTS value: %s's %u taken\n",
					    tc->cpu, slots, m->name, m->width);
		tc->slots_from = TD_SLOTS_MODEL;
		return;
	}
	tc->own.width = slots;
	if (slots != m->width)
		pr_info_ratelimited("cpu%u: %u slots per cycle from %s, not %s's %u\n",
				    tc->cpu, slots,
				    td_slots_from_name(tc->slots_from),
				    m->name, m->width);
}

/* @tc's copy of @m, with @m's width until the PMU says otherwise */
const struct td_model *td_cpu_model(struct td_cpu *tc,
				    const struct td_model *m)
{
	if (!m)
		return NULL;
	tc->own = *m;
	tc->base = m;
	return &tc->own;
}
