// SPDX-License-Identifier: GPL-2.0
/*
 * topdown models of Intel's Atom cores: the E-cores of hybrid parts (their
 * own cpu_atom PMU) and the all-E-core servers.  Level 1 as perf's tables
 * (linux-source-6.12 tools/perf/pmu-events/arch/x86), all over slots =
 * width * CPU_CLK_UNHALTED.CORE:
 *
 * Gracemont (alderlake cpu_atom, adl-metrics.json; alderlaken), width 5:
 *   frontend = TOPDOWN_FE_BOUND.ALL, backend = TOPDOWN_BE_BOUND.ALL,
 *   retiring = TOPDOWN_RETIRING.ALL, bad speculation = what they leave.
 *
 * Crestmont (meteorlake cpu_atom, mtl-metrics.json; sierraforest,
 * grandridge), width 6: each node from its own event,
 *   TOPDOWN_FE_BOUND.ALL_P, TOPDOWN_BE_BOUND.ALL_P,
 *   TOPDOWN_BAD_SPECULATION.ALL_P, TOPDOWN_RETIRING.ALL_P.
 *
 * perf's Atom Level 2 splits the nodes differently from the Core one
 * (backend into core and resource bound, retiring into base and MS uops),
 * so the Core names of this module's Level 2 do not fit it: Level 1 only.
 * CPU_CLK_UNHALTED.CORE is perf's fixed-counter-1 event (jevents.py: event
 * 0x3c); the others have umask 0.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#else
#include <errno.h>
#endif
#include "td_model.h"

#define ALL6	0x003f
#define ALL8	0x00ff
#define NOFIX	-1

enum { ATOM_CLK, ATOM_FE, ATOM_BE, ATOM_RET, ATOM_BAD, ATOM_NR };

static const struct td_event grt_events[ATOM_NR - 1] = {
	[ATOM_CLK] = { "CPU_CLK_UNHALTED.CORE", 0x003c, 1, ALL6, 1, .every = true },
	[ATOM_FE]  = { "TOPDOWN_FE_BOUND.ALL", 0x0071, 1, ALL6, NOFIX },
	[ATOM_BE]  = { "TOPDOWN_BE_BOUND.ALL", 0x0074, 1, ALL6, NOFIX },
	[ATOM_RET] = { "TOPDOWN_RETIRING.ALL", 0x00c2, 1, ALL6, NOFIX },
};

static const struct td_event cmt_events[ATOM_NR] = {
	[ATOM_CLK] = { "CPU_CLK_UNHALTED.CORE", 0x003c, 1, ALL8, 1, .every = true },
	[ATOM_FE]  = { "TOPDOWN_FE_BOUND.ALL_P", 0x0071, 1, ALL8, NOFIX },
	[ATOM_BE]  = { "TOPDOWN_BE_BOUND.ALL_P", 0x0074, 1, ALL8, NOFIX },
	[ATOM_RET] = { "TOPDOWN_RETIRING.ALL_P", 0x0072, 1, ALL8, NOFIX },
	[ATOM_BAD] = { "TOPDOWN_BAD_SPECULATION.ALL_P", 0x0073, 1, ALL8, NOFIX },
};

static int atom_compute(const struct td_model *m, const u64 *c, bool smt,
			struct td_result *r)
{
	u64 slots = m->width * c[ATOM_CLK];
	u32 used;

	if (!slots)
		return -ENODATA;
	*r = (struct td_result){ .has_l2 = false };
	r->l1[TD_FRONTEND_BOUND] = td_frac(c[ATOM_FE], slots);
	r->l1[TD_BACKEND_BOUND] = td_frac(c[ATOM_BE], slots);
	r->l1[TD_RETIRING] = td_frac(c[ATOM_RET], slots);
	if (m->nr_events > ATOM_BAD) {
		/* four measured nodes: rounding apart, they add up to 1 */
		r->l1[TD_BAD_SPECULATION] = td_frac(c[ATOM_BAD], slots);
		td_fit(r->l1, TD_NR_L1, TD_PPM);
		return 0;
	}
	/* bad speculation = max(1 - (frontend + backend + retiring), 0) */
	used = r->l1[TD_FRONTEND_BOUND] + r->l1[TD_BACKEND_BOUND] +
	       r->l1[TD_RETIRING];
	r->l1[TD_BAD_SPECULATION] = used < TD_PPM ? TD_PPM - used : 0;
	td_fit(r->l1, TD_NR_L1, TD_PPM);
	return 0;
}

/* Alder Lake / Raptor Lake E-cores, Alder Lake-N */
const struct td_model td_model_gracemont = {
	.name = "gracemont",
	.vendor = TD_INTEL,
	.width = 5,
	.events = grt_events,
	.nr_events = ATOM_NR - 1,
	.gp_counters = 6,
	.fixed_counters = 3,
	.compute = atom_compute,
};

/* Meteor Lake E-cores, Sierra Forest, Grand Ridge */
const struct td_model td_model_crestmont = {
	.name = "crestmont",
	.vendor = TD_INTEL,
	.width = 6,
	.events = cmt_events,
	.nr_events = ATOM_NR,
	.gp_counters = 8,
	.fixed_counters = 3,
	.compute = atom_compute,
};
