// SPDX-License-Identifier: GPL-2.0
/*
 * topdown models of Intel's Atom cores: the E-cores of hybrid parts (their
 * own cpu_atom PMU) and the all-E-core servers.  Level 1 as perf's tables,
 * all over slots = width * CPU_CLK_UNHALTED.CORE (0x3c, fixed counter 1):
 *
 * Gracemont (adl-metrics.json's cpu_atom; alderlaken), width 5:
 *   frontend = TOPDOWN_FE_BOUND.ALL, backend = TOPDOWN_BE_BOUND.ALL,
 *   retiring = TOPDOWN_RETIRING.ALL, bad speculation = what they leave.
 *
 * Crestmont (mtl-metrics.json's cpu_atom; sierraforest, grandridge), width
 * 6: each node from its own event, TOPDOWN_FE_BOUND.ALL_P,
 * TOPDOWN_BE_BOUND.ALL_P, TOPDOWN_BAD_SPECULATION.ALL_P, TOPDOWN_RETIRING.ALL_P.
 *
 * Skymont (lnl/arl-metrics.json's cpu_atom, 7.3), width 8: Crestmont's four
 * nodes from other encodings.  The kernel lets 0x0073, 0x019c and 0x02c2 use
 * fixed counters 4, 5 and 6 or any general-purpose counter
 * (intel_skt_event_constraints), so each event says it may take one.
 *
 * Level 2 as perf's TopdownL2, one pair per node but retiring: fetch
 * latency, branch mispredicts and core bound are measured, and each sibling
 * is its parent less that child, so each pair adds up to its parent (perf
 * counts the siblings too; the two agree where the umasks split the
 * parent's count, and this takes two fewer counters).
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

/*
 * Event ids: Level 1, then the Level 2 ones from GRT_L2 or CMT_L2 on (in
 * ATOM_L2_* order): Gracemont has no bad speculation event.
 */
enum { ATOM_CLK, ATOM_FE, ATOM_BE, ATOM_RET, ATOM_BAD };
enum { ATOM_L2_FE_LAT, ATOM_L2_MISP, ATOM_L2_ALLOC, ATOM_NR_L2 };
#define GRT_L2	ATOM_BAD
#define CMT_L2	(ATOM_BAD + 1)
#define GRT_NR	(GRT_L2 + ATOM_NR_L2)
#define CMT_NR	(CMT_L2 + ATOM_NR_L2)

static const struct td_event grt_events[GRT_NR] = {
	[ATOM_CLK] = { "CPU_CLK_UNHALTED.CORE", 0x003c, 1, ALL6, 1, .every = true },
	[ATOM_FE]  = { "TOPDOWN_FE_BOUND.ALL", 0x0071, 1, ALL6, NOFIX },
	[ATOM_BE]  = { "TOPDOWN_BE_BOUND.ALL", 0x0074, 1, ALL6, NOFIX },
	[ATOM_RET] = { "TOPDOWN_RETIRING.ALL", 0x00c2, 1, ALL6, NOFIX },
	[GRT_L2 + ATOM_L2_FE_LAT] = { "TOPDOWN_FE_BOUND.FRONTEND_LATENCY", 0x7271, 2,
				      ALL6, NOFIX, .parent = 1 + TD_FRONTEND_BOUND },
	[GRT_L2 + ATOM_L2_MISP] = { "TOPDOWN_BAD_SPECULATION.MISPREDICT", 0x0473, 2,
				      ALL6, NOFIX, .parent = 1 + TD_BAD_SPECULATION },
	[GRT_L2 + ATOM_L2_ALLOC] = { "TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS", 0x0174, 2,
				      ALL6, NOFIX, .parent = 1 + TD_BACKEND_BOUND },
};

static const struct td_event cmt_events[CMT_NR] = {
	[ATOM_CLK] = { "CPU_CLK_UNHALTED.CORE", 0x003c, 1, ALL8, 1, .every = true },
	[ATOM_FE]  = { "TOPDOWN_FE_BOUND.ALL_P", 0x0071, 1, ALL8, NOFIX },
	[ATOM_BE]  = { "TOPDOWN_BE_BOUND.ALL_P", 0x0074, 1, ALL8, NOFIX },
	[ATOM_RET] = { "TOPDOWN_RETIRING.ALL_P", 0x0072, 1, ALL8, NOFIX },
	[ATOM_BAD] = { "TOPDOWN_BAD_SPECULATION.ALL_P", 0x0073, 1, ALL8, NOFIX },
	[CMT_L2 + ATOM_L2_FE_LAT] = { "TOPDOWN_FE_BOUND.FRONTEND_LATENCY", 0x7271, 2,
				      ALL8, NOFIX, .parent = 1 + TD_FRONTEND_BOUND },
	[CMT_L2 + ATOM_L2_MISP] = { "TOPDOWN_BAD_SPECULATION.MISPREDICT", 0x0473, 2,
				      ALL8, NOFIX, .parent = 1 + TD_BAD_SPECULATION },
	[CMT_L2 + ATOM_L2_ALLOC] = { "TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS", 0x0174, 2,
				      ALL8, NOFIX, .parent = 1 + TD_BACKEND_BOUND },
};

static const struct td_event skt_events[CMT_NR] = {
	[ATOM_CLK] = { "CPU_CLK_UNHALTED.CORE", 0x003c, 1, ALL8, 1, .every = true },
	[ATOM_FE]  = { "TOPDOWN_FE_BOUND.ALL_P", 0x019c, 1, ALL8, 5 },
	[ATOM_BE]  = { "TOPDOWN_BE_BOUND.ALL_P", 0x02a4, 1, ALL8, NOFIX },
	[ATOM_RET] = { "TOPDOWN_RETIRING.ALL_P", 0x02c2, 1, ALL8, 6 },
	[ATOM_BAD] = { "TOPDOWN_BAD_SPECULATION.ALL_P", 0x0073, 1, ALL8, 4 },
	[CMT_L2 + ATOM_L2_FE_LAT] = { "TOPDOWN_FE_BOUND.FRONTEND_LATENCY", 0x7271, 2,
				      ALL8, NOFIX, .parent = 1 + TD_FRONTEND_BOUND },
	[CMT_L2 + ATOM_L2_MISP] = { "TOPDOWN_BAD_SPECULATION.MISPREDICT", 0x0473, 2,
				      ALL8, NOFIX, .parent = 1 + TD_BAD_SPECULATION },
	[CMT_L2 + ATOM_L2_ALLOC] = { "TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS", 0x0174, 2,
				      ALL8, NOFIX, .parent = 1 + TD_BACKEND_BOUND },
};

/* Level 2: the measured child of each pair, its sibling, their parent */
static const struct td_pair atom_pairs[] = {
	{ TD_BRANCH_MISPREDICTS, TD_MACHINE_CLEARS, TD_BAD_SPECULATION },
	{ TD_FETCH_LATENCY, TD_FETCH_BANDWIDTH, TD_FRONTEND_BOUND },
	{ TD_CORE_BOUND, TD_RESOURCE_BOUND, TD_BACKEND_BOUND },
};

static int atom_compute(const struct td_model *m, const u64 *c, bool smt,
			struct td_result *r)
{
	bool crestmont = m->nr_events == CMT_NR;	/* or Skymont */
	const u64 *l2 = c + (crestmont ? CMT_L2 : GRT_L2);
	u64 slots = m->width * c[ATOM_CLK];
	u32 used;

	if (!slots)
		return -ENODATA;
	*r = (struct td_result){ .has_l2 = true };
	r->l1[TD_FRONTEND_BOUND] = td_frac(c[ATOM_FE], slots);
	r->l1[TD_BACKEND_BOUND] = td_frac(c[ATOM_BE], slots);
	r->l1[TD_RETIRING] = td_frac(c[ATOM_RET], slots);
	if (crestmont) {
		/* four measured nodes: rounding apart, they add up to 1 */
		r->l1[TD_BAD_SPECULATION] = td_frac(c[ATOM_BAD], slots);
	} else {
		/* bad speculation = max(1 - (frontend + backend + retiring), 0) */
		used = r->l1[TD_FRONTEND_BOUND] + r->l1[TD_BACKEND_BOUND] +
		       r->l1[TD_RETIRING];
		r->l1[TD_BAD_SPECULATION] = used < TD_PPM ? TD_PPM - used : 0;
	}
	r->l2[TD_FETCH_LATENCY] = td_frac(l2[ATOM_L2_FE_LAT], slots);
	r->l2[TD_BRANCH_MISPREDICTS] = td_frac(l2[ATOM_L2_MISP], slots);
	r->l2[TD_CORE_BOUND] = td_frac(l2[ATOM_L2_ALLOC], slots);
	td_finish(m, r);
	return 0;
}

/* Alder Lake / Raptor Lake E-cores, Alder Lake-N */
const struct td_model td_model_gracemont = {
	.name = "gracemont",
	.vendor = TD_INTEL,
	.width = 5,
	.events = grt_events,
	.nr_events = GRT_NR,
	.pairs = atom_pairs,
	.nr_pairs = ARRAY_SIZE(atom_pairs),
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
	.nr_events = CMT_NR,
	.pairs = atom_pairs,
	.nr_pairs = ARRAY_SIZE(atom_pairs),
	.gp_counters = 8,
	.fixed_counters = 3,
	.compute = atom_compute,
};

/*
 * Lunar Lake and Arrow Lake E-cores: fixed counters 0-6, the last three
 * the topdown ones
 */
const struct td_model td_model_skymont = {
	.name = "skymont",
	.vendor = TD_INTEL,
	.width = 8,
	.events = skt_events,
	.nr_events = CMT_NR,
	.pairs = atom_pairs,
	.nr_pairs = ARRAY_SIZE(atom_pairs),
	.gp_counters = 8,
	.fixed_counters = 7,
	.compute = atom_compute,
};
