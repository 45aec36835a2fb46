// SPDX-License-Identifier: GPL-2.0
/*
 * topdown models of Arm Neoverse N2 (5 slots) and V2 (8 slots), with the
 * Level 1 formulas of perf's arm64/arm/neoverse-n2-v2/metrics.json (Arm's
 * telemetry formulas, non-r0p0 form):
 *
 *   frontend = STALL_SLOT_FRONTEND / (CPU_CYCLES * slots) - BR_MIS_PRED / CPU_CYCLES
 *   backend  = STALL_SLOT_BACKEND / (CPU_CYCLES * slots) - 3 * BR_MIS_PRED / CPU_CYCLES
 *   retiring = OP_RETIRED / OP_SPEC * (1 - STALL_SLOT / (CPU_CYCLES * slots))
 *   bad_spec = (1 - OP_RETIRED / OP_SPEC) * (1 - STALL_SLOT / (CPU_CYCLES * slots))
 *		+ 4 * BR_MIS_PRED / CPU_CYCLES
 *
 * Arm's method has no slot-based Level 2.
 *
 * Neoverse N1 has no STALL_SLOT events; its Level 1 is cycle based, as
 * perf's arm64/arm/neoverse-n1/metrics.json (Cycle_Accounting):
 *
 *   frontend_stalled_cycles = STALL_FRONTEND / CPU_CYCLES
 *   backend_stalled_cycles  = STALL_BACKEND / CPU_CYCLES
 *
 * and the rest of the cycles are not stalled.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#else
#include <errno.h>
#endif
#include "td_model.h"

/* PMUv3 on these cores: six event counters and the cycle counter */
#define ALL6	0x003f
#define NOFIX	-1

enum {
	ARM_CYCLES, ARM_STALL_SLOT_FRONTEND, ARM_STALL_SLOT_BACKEND,
	ARM_STALL_SLOT, ARM_OP_RETIRED, ARM_OP_SPEC, ARM_BR_MIS_PRED,
	ARM_NR
};

static const struct td_event neoverse_events[ARM_NR] = {
	[ARM_CYCLES]		= { "CPU_CYCLES", 0x11, 1, ALL6, 0, .every = true },
	[ARM_STALL_SLOT_FRONTEND] = { "STALL_SLOT_FRONTEND", 0x3e, 1, ALL6, NOFIX },
	[ARM_STALL_SLOT_BACKEND] = { "STALL_SLOT_BACKEND", 0x3d, 1, ALL6, NOFIX },
	[ARM_STALL_SLOT]	= { "STALL_SLOT", 0x3f, 1, ALL6, NOFIX },
	[ARM_OP_RETIRED]	= { "OP_RETIRED", 0x3a, 1, ALL6, NOFIX },
	[ARM_OP_SPEC]		= { "OP_SPEC", 0x3b, 1, ALL6, NOFIX },
	[ARM_BR_MIS_PRED]	= { "BR_MIS_PRED", 0x10, 1, ALL6, NOFIX },
};

static int neoverse_compute(const struct td_model *m, const u64 *c, bool smt,
			    struct td_result *r)
{
	u64 slots = m->width * c[ARM_CYCLES];
	u64 misp = c[ARM_BR_MIS_PRED];
	u32 busy, ret;

	if (!slots)
		return -ENODATA;
	*r = (struct td_result){ .has_l2 = false };
	/* BR_MIS_PRED / CPU_CYCLES = width * BR_MIS_PRED / slots */
	r->l1[TD_FRONTEND_BOUND] = td_frac_diff(c[ARM_STALL_SLOT_FRONTEND],
						m->width * misp, slots);
	r->l1[TD_BACKEND_BOUND] = td_frac_diff(c[ARM_STALL_SLOT_BACKEND],
					       3 * m->width * misp, slots);
	busy = td_frac_diff(slots, c[ARM_STALL_SLOT], slots);
	ret = c[ARM_OP_SPEC] ? (c[ARM_OP_RETIRED] >= c[ARM_OP_SPEC] ? busy :
		(u32)mul_u64_u64_div_u64(c[ARM_OP_RETIRED], busy,
					 c[ARM_OP_SPEC])) : 0;
	r->l1[TD_RETIRING] = ret;
	r->l1[TD_BAD_SPECULATION] = busy - ret + td_frac(4 * misp, c[ARM_CYCLES]);
	td_fit(r->l1, TD_NR_L1, TD_PPM);
	return 0;
}

const struct td_model td_model_neoverse_n2 = {
	.name = "neoverse-n2",
	.vendor = TD_ARM,
	.width = 5,
	.events = neoverse_events,
	.nr_events = ARM_NR,
	.gp_counters = 6,
	.fixed_counters = 1,
	.compute = neoverse_compute,
};

const struct td_model td_model_neoverse_v2 = {
	.name = "neoverse-v2",
	.vendor = TD_ARM,
	.width = 8,
	.events = neoverse_events,
	.nr_events = ARM_NR,
	.gp_counters = 6,
	.fixed_counters = 1,
	.compute = neoverse_compute,
};

enum { N1_CYCLES, N1_STALL_FRONTEND, N1_STALL_BACKEND, N1_NR };

static const struct td_event n1_events[N1_NR] = {
	[N1_CYCLES]		= { "CPU_CYCLES", 0x11, 1, ALL6, 0, .every = true },
	[N1_STALL_FRONTEND]	= { "STALL_FRONTEND", 0x23, 1, ALL6, NOFIX },
	[N1_STALL_BACKEND]	= { "STALL_BACKEND", 0x24, 1, ALL6, NOFIX },
};

static int n1_compute(const struct td_model *m, const u64 *c, bool smt,
		      struct td_result *r)
{
	u64 cycles = c[N1_CYCLES];
	u32 stalled;

	if (!cycles)
		return -ENODATA;
	*r = (struct td_result){ .has_l2 = false };
	r->l1[TD_FRONTEND_BOUND] = td_frac(c[N1_STALL_FRONTEND], cycles);
	r->l1[TD_BACKEND_BOUND] = td_frac(c[N1_STALL_BACKEND], cycles);
	stalled = r->l1[TD_FRONTEND_BOUND] + r->l1[TD_BACKEND_BOUND];
	r->l1[TD_NOT_STALLED] = stalled < TD_PPM ? TD_PPM - stalled : 0;
	td_fit(r->l1, TD_NR_L1, TD_PPM);
	return 0;
}

const struct td_model td_model_neoverse_n1 = {
	.name = "neoverse-n1",
	.vendor = TD_ARM,
	.width = 4,	/* dispatch width; the formulas do not use it */
	.events = n1_events,
	.nr_events = N1_NR,
	.gp_counters = 6,
	.fixed_counters = 1,
	.cycle_based = true,
	.compute = n1_compute,
};
