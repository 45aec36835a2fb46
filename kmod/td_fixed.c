// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: fixed counters given up to other perf users and taken back.
 */
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include "topdown.h"
#include "td_internal.h"
#include "td_perf.h"
#include "td_compat.h"

/*
 * Whether event @i of @tc is a fixed-counter-only event counted on its
 * fixed counter that has a general-purpose form (TOPDOWN.SLOTS, fixed
 * counter 3 of Ice Lake and later): the module can give that counter up.
 */
static bool td_yields_fixed(const struct td_cpu *tc, unsigned int i)
{
	const struct td_event *e = &tc->model->events[i];

	return e->gp_form && e->fixed >= 0 && (unsigned int)e->fixed < tc->fixed;
}

/*
 * An event of ours on a fixed counter it could give up (td_yields_fixed()):
 * its index, or -1.
 */
int td_fixed_held(const struct td_cpu *tc)
{
	unsigned int i;

	for (i = 0; i < tc->nr; i++)
		if ((tc->open & BIT(i)) && tc->ctr[i].event && td_yields_fixed(tc, i))
			return i;
	return -1;
}

/*
 * An event of ours on a fixed counter it should give up, or -1.  Fixed
 * counter 3 (Ice Lake on) is the only one perf's own topdown can use, so
 * TOPDOWN.SLOTS_P takes over when a flexible group waits on the PMU
 * (rotate_necessary) with none of ours @missing, or when ours is the only
 * event missing (another perf user holds the counter pinned).
 */
int td_fixed_wanted(const struct td_cpu *tc, unsigned int missing)
{
	int i = td_fixed_held(tc);
	struct perf_event *ev;

	if (i < 0)
		return -1;
	ev = tc->ctr[i].event;
	if (!missing)
		return td_perf_group_waits(ev) ? i : -1;
	return missing == 1 && !td_perf_active(ev) ? i : -1;
}

/*
 * Whether the fixed counters given up are free again: a flexible event on
 * each, created and enabled last, gets it only if no other perf group
 * has it or waits before it.
 */
bool td_fixed_free(struct td_cpu *tc)
{
	unsigned int i;

	for (i = 0; i < tc->nr; i++) {
		const struct td_event *e = &tc->model->events[i];
		struct perf_event_attr attr;
		struct perf_event *ev;
		bool got;

		if (!tc->ctr[i].event || !e->gp_form || e->fixed < 0 ||
		    (unsigned int)e->fixed < tc->fixed ||
		    (unsigned int)e->fixed >= tc->fixed_max)
			continue;
		attr = *td_perf_attr(tc->ctr[i].event);
		attr.config = e->config;
		attr.pinned = 0;
		attr.disabled = 1;
		ev = perf_event_create_kernel_counter(&attr, tc->cpu, NULL, NULL, NULL);
		if (IS_ERR(ev))
			return false;
		perf_event_enable(ev);
		got = td_perf_active(ev);
		perf_event_release_kernel(ev);
		if (!got)
			return false;
	}
	return true;
}

/*
 * Which counters others hold, for info: fixed counters whose event perf put
 * on a general-purpose counter (the NMI watchdog holds fixed counter 1 on
 * Intel, the cycle counter on Arm), and the general-purpose counters the
 * sets were built without.  Fixed counters the level does not use are not
 * seen.
 */
void td_find_held(struct td_cpu *tc)
{
	const struct td_model *m = tc->model;
	unsigned int i, moved = 0;
	u32 held = 0;

	for (i = 0; i < tc->nr; i++) {
		const struct td_event *e = &m->events[i];
		struct perf_event *ev = tc->ctr[i].event;
		int idx;

		/* given up to another perf user: counted in its other form */
		if (ev && e->gp_form && e->fixed >= 0 &&
		    (unsigned int)e->fixed >= tc->fixed &&
		    (unsigned int)e->fixed < tc->fixed_max)
			held |= BIT(e->fixed);
		if (!ev || e->fixed < 0 || (unsigned int)e->fixed >= tc->fixed ||
		    !td_perf_active(ev))
			continue;
		idx = td_perf_counter(ev);
		if (idx >= 0 && idx != td_arch_fixed_idx(e->fixed, tc->cfg->pmu_type < 0)) {
			held |= BIT(e->fixed);
			moved++;
		}
	}
	tc->held_fixed = held;
	tc->held_gp = m->gp_counters > tc->gp + moved ?
		m->gp_counters - tc->gp - moved : 0;
}
