// SPDX-License-Identifier: GPL-2.0
/*
 * tdsim models of Arm Neoverse cores.  N2 (5 slots) and V2 (8 slots) follow
 * perf's arm64/arm/neoverse-n2-v2/metrics.json (Arm's telemetry formulas;
 * N2 r0p0 to r0p2 and V1 below):
 *
 *   frontend = STALL_SLOT_FRONTEND / (CPU_CYCLES * slots) - BR_MIS_PRED / CPU_CYCLES
 *   backend  = STALL_SLOT_BACKEND / (CPU_CYCLES * slots) - 3 * BR_MIS_PRED / CPU_CYCLES
 *   retiring = OP_RETIRED / OP_SPEC * (1 - STALL_SLOT / (CPU_CYCLES * slots))
 *   bad_spec = (1 - OP_RETIRED / OP_SPEC) * (1 - STALL_SLOT / (CPU_CYCLES * slots))
 *              + 4 * BR_MIS_PRED / CPU_CYCLES
 *
 * AmpereOne (perf's ampere/ampereone/metrics.json, the same Level 1 on
 * AmpereOne X) takes retiring as OP_RETIRED / (CPU_CYCLES * slots), bad
 * speculation as (OP_SPEC - OP_RETIRED) over the same, backend bound as
 * STALL_SLOT_BACKEND over the same, and frontend bound as the rest.
 *
 * N1 has no STALL_SLOT events: its topdown is cycle based (STALL_FRONTEND,
 * STALL_BACKEND over CPU_CYCLES).  The Arm raw config is the event number;
 * CPU_CYCLES may also use the dedicated cycle counter (fixed 0 here).
 * N2, V1 and V2 (Armv9.0, 8.4, 9.0) have a PMUv3p4 or later, whose
 * caps/slots says their slots per cycle; N1 (Armv8.2) does not.
 */
#include <linux/kernel.h>
#include "tdsim.h"

#define ALL6	0x003f
#define P(key)	(p->v[TDSIM_##key])
#define ONE	TDSIM_PPM
#define MAX_MISPREDICTS	(ONE / 50)	/* BR_MIS_PRED per cycle, at most */

enum {
	ARM_CYCLES, ARM_INST, ARM_BR_MIS_PRED, ARM_BR_MIS_PRED_RETIRED,
	ARM_STALL_FRONTEND, ARM_STALL_BACKEND, ARM_OP_RETIRED, ARM_OP_SPEC,
	ARM_STALL_SLOT_BACKEND, ARM_STALL_SLOT_FRONTEND, ARM_STALL_SLOT,
	ARM_NR
};

static const struct tdsim_event neoverse_events[ARM_NR] = {
	[ARM_CYCLES] = { 0x11, "CPU_CYCLES", ALL6, 0 },
	[ARM_INST] = { 0x08, "INST_RETIRED", ALL6, -1 },
	[ARM_BR_MIS_PRED] = { 0x10, "BR_MIS_PRED", ALL6, -1 },
	[ARM_BR_MIS_PRED_RETIRED] = { 0x22, "BR_MIS_PRED_RETIRED", ALL6, -1 },
	[ARM_STALL_FRONTEND] = { 0x23, "STALL_FRONTEND", ALL6, -1 },
	[ARM_STALL_BACKEND] = { 0x24, "STALL_BACKEND", ALL6, -1 },
	[ARM_OP_RETIRED] = { 0x3a, "OP_RETIRED", ALL6, -1 },
	[ARM_OP_SPEC] = { 0x3b, "OP_SPEC", ALL6, -1 },
	[ARM_STALL_SLOT_BACKEND] = { 0x3d, "STALL_SLOT_BACKEND", ALL6, -1 },
	[ARM_STALL_SLOT_FRONTEND] = { 0x3e, "STALL_SLOT_FRONTEND", ALL6, -1 },
	[ARM_STALL_SLOT] = { 0x3f, "STALL_SLOT", ALL6, -1 },
};

static void neoverse_rates(const struct tdsim_model *m,
			   const struct tdsim_profile *p,
			   unsigned int siblings, u32 *r)
{
	u32 w = m->width;
	/* mispredicts per cycle; at most bad_spec / 8 so OP_SPEC >= OP_RETIRED */
	u32 b = min(P(BAD_SPECULATION) / 8, MAX_MISPREDICTS);
	u32 busy;	/* 1 - STALL_SLOT / (CPU_CYCLES * slots), ppm */

	r[ARM_CYCLES] = ONE;
	r[ARM_BR_MIS_PRED] = b;
	r[ARM_BR_MIS_PRED_RETIRED] = b - b / 10;
	r[ARM_STALL_SLOT_FRONTEND] = (P(FRONTEND_BOUND) + b) * w;
	r[ARM_STALL_SLOT_BACKEND] = (P(BACKEND_BOUND) + 3 * b) * w;
	r[ARM_STALL_SLOT] = r[ARM_STALL_SLOT_FRONTEND] +
			    r[ARM_STALL_SLOT_BACKEND];
	busy = P(RETIRING) + P(BAD_SPECULATION) - 4 * b;
	/* OP_RETIRED / OP_SPEC = retiring / busy */
	r[ARM_OP_RETIRED] = P(RETIRING) * w;
	r[ARM_OP_SPEC] = busy ? busy * w : w * ONE;
	r[ARM_INST] = r[ARM_OP_RETIRED] - r[ARM_OP_RETIRED] / 10;
	/* cycle-based view: the fraction of cycles stalled at each end */
	r[ARM_STALL_FRONTEND] = P(FRONTEND_BOUND);
	r[ARM_STALL_BACKEND] = P(BACKEND_BOUND);
}

/*
 * N2 r0p0 to r0p2: STALL_SLOT and STALL_SLOT_FRONTEND also count one per
 * cycle, which perf's formulas take off again on those revisions.
 */
static void n2_r0_rates(const struct tdsim_model *m,
			const struct tdsim_profile *p,
			unsigned int siblings, u32 *r)
{
	neoverse_rates(m, p, siblings, r);
	r[ARM_STALL_SLOT_FRONTEND] += ONE;
	r[ARM_STALL_SLOT] += ONE;
}

/*
 * V1 (neoverse-v1/metrics.json): frontend = STALL_SLOT_FRONTEND / (8 *
 * CPU_CYCLES) - 4 * BR_MIS_PRED / CPU_CYCLES, backend = STALL_SLOT_BACKEND
 * / (8 * CPU_CYCLES), retiring and bad speculation as N2's.
 */
static void v1_rates(const struct tdsim_model *m, const struct tdsim_profile *p,
		     unsigned int siblings, u32 *r)
{
	u32 w = m->width;
	u32 b;

	neoverse_rates(m, p, siblings, r);
	b = r[ARM_BR_MIS_PRED];
	r[ARM_STALL_SLOT_FRONTEND] = (P(FRONTEND_BOUND) + 4 * b) * w;
	r[ARM_STALL_SLOT_BACKEND] = P(BACKEND_BOUND) * w;
	r[ARM_STALL_SLOT] = r[ARM_STALL_SLOT_FRONTEND] +
			    r[ARM_STALL_SLOT_BACKEND];
}

/*
 * Neoverse N3 and V3 (perf 7.3's neoverse-n3, neoverse-v3 metrics.json):
 * STALL_FRONTEND_FLUSH cycles go from frontend bound to bad speculation,
 * backend bound is STALL_SLOT_BACKEND's alone:
 *
 *   frontend = STALL_SLOT_FRONTEND / (W * CPU_CYCLES) - STALL_FRONTEND_FLUSH / CPU_CYCLES
 *   bad_spec = (1 - STALL_SLOT / (W * CPU_CYCLES)) * (1 - OP_RETIRED / OP_SPEC)
 *              + STALL_FRONTEND_FLUSH / CPU_CYCLES
 *
 * with W 5 (N3) or 10 (V3) written in, and sbsa.json's retiring and
 * backend bound over #slots: the counts give the profile back at the
 * model's own width (slots= other than W puts the two apart).
 */
enum { V3_STALL_FRONTEND_FLUSH = ARM_NR, V3_NR };

static const struct tdsim_event neoverse_v3_events[V3_NR] = {
	[ARM_CYCLES] = { 0x11, "CPU_CYCLES", ALL6, 0 },
	[ARM_INST] = { 0x08, "INST_RETIRED", ALL6, -1 },
	[ARM_BR_MIS_PRED] = { 0x10, "BR_MIS_PRED", ALL6, -1 },
	[ARM_BR_MIS_PRED_RETIRED] = { 0x22, "BR_MIS_PRED_RETIRED", ALL6, -1 },
	[ARM_STALL_FRONTEND] = { 0x23, "STALL_FRONTEND", ALL6, -1 },
	[ARM_STALL_BACKEND] = { 0x24, "STALL_BACKEND", ALL6, -1 },
	[ARM_OP_RETIRED] = { 0x3a, "OP_RETIRED", ALL6, -1 },
	[ARM_OP_SPEC] = { 0x3b, "OP_SPEC", ALL6, -1 },
	[ARM_STALL_SLOT_BACKEND] = { 0x3d, "STALL_SLOT_BACKEND", ALL6, -1 },
	[ARM_STALL_SLOT_FRONTEND] = { 0x3e, "STALL_SLOT_FRONTEND", ALL6, -1 },
	[ARM_STALL_SLOT] = { 0x3f, "STALL_SLOT", ALL6, -1 },
	[V3_STALL_FRONTEND_FLUSH] = { 0x8162, "STALL_FRONTEND_FLUSH", ALL6, -1 },
};

static void neoverse_v3_rates(const struct tdsim_model *m,
			      const struct tdsim_profile *p,
			      unsigned int siblings, u32 *r)
{
	u32 w = m->width;
	/* flush cycles per cycle; at most bad_spec / 8 so OP_SPEC >= OP_RETIRED */
	u32 f = min(P(BAD_SPECULATION) / 8, MAX_MISPREDICTS);
	u32 busy;

	neoverse_rates(m, p, siblings, r);
	r[V3_STALL_FRONTEND_FLUSH] = f;
	r[ARM_STALL_SLOT_FRONTEND] = (P(FRONTEND_BOUND) + f) * w;
	r[ARM_STALL_SLOT_BACKEND] = P(BACKEND_BOUND) * w;
	r[ARM_STALL_SLOT] = r[ARM_STALL_SLOT_FRONTEND] +
			    r[ARM_STALL_SLOT_BACKEND];
	busy = P(RETIRING) + P(BAD_SPECULATION) - f;
	r[ARM_OP_RETIRED] = P(RETIRING) * w;
	r[ARM_OP_SPEC] = busy ? busy * w : w * ONE;
	r[ARM_INST] = r[ARM_OP_RETIRED] - r[ARM_OP_RETIRED] / 10;
}

/* Armv9.2 cores: PMUv3p4 or later, caps/slots says their width */
const struct tdsim_model tdsim_neoverse_n3 = {
	.name = "neoverse-n3",
	.vendor = TDSIM_ARM,
	.pmmir = true,
	.width = 5,
	.gp_counters = 6,
	.fixed_counters = 1,
	.events = neoverse_v3_events,
	.nr_events = V3_NR,
	.rates = neoverse_v3_rates,
};

const struct tdsim_model tdsim_neoverse_v3 = {
	.name = "neoverse-v3",
	.vendor = TDSIM_ARM,
	.pmmir = true,
	.width = 10,
	.gp_counters = 6,
	.fixed_counters = 1,
	.events = neoverse_v3_events,
	.nr_events = V3_NR,
	.rates = neoverse_v3_rates,
};

/* AmpereOne's own events (core-imp-def.json), after the common ones */
enum {
	AMPERE_GPC_FLUSH = ARM_NR, AMPERE_STALL_BACKEND_TLB,
	AMPERE_STALL_BACKEND_CACHE, AMPERE_NR
};

static const struct tdsim_event ampereone_events[AMPERE_NR] = {
	[ARM_CYCLES] = { 0x11, "CPU_CYCLES", ALL6, 0 },
	[ARM_INST] = { 0x08, "INST_RETIRED", ALL6, -1 },
	[ARM_BR_MIS_PRED] = { 0x10, "BR_MIS_PRED", ALL6, -1 },
	[ARM_BR_MIS_PRED_RETIRED] = { 0x22, "BR_MIS_PRED_RETIRED", ALL6, -1 },
	[ARM_STALL_FRONTEND] = { 0x23, "STALL_FRONTEND", ALL6, -1 },
	[ARM_STALL_BACKEND] = { 0x24, "STALL_BACKEND", ALL6, -1 },
	[ARM_OP_RETIRED] = { 0x3a, "OP_RETIRED", ALL6, -1 },
	[ARM_OP_SPEC] = { 0x3b, "OP_SPEC", ALL6, -1 },
	[ARM_STALL_SLOT_BACKEND] = { 0x3d, "STALL_SLOT_BACKEND", ALL6, -1 },
	[ARM_STALL_SLOT_FRONTEND] = { 0x3e, "STALL_SLOT_FRONTEND", ALL6, -1 },
	[ARM_STALL_SLOT] = { 0x3f, "STALL_SLOT", ALL6, -1 },
	[AMPERE_GPC_FLUSH] = { 0x120, "GPC_FLUSH", ALL6, -1 },
	[AMPERE_STALL_BACKEND_TLB] = { 0xd20e, "STALL_BACKEND_TLB", ALL6, -1 },
	[AMPERE_STALL_BACKEND_CACHE] = { 0xd20d, "STALL_BACKEND_CACHE", ALL6, -1 },
};

/* AmpereOne X: STALL_BACKEND_TLB is 0x8167 (ampereonex/pipeline.json) */
static const struct tdsim_event ampereonex_events[AMPERE_NR] = {
	[ARM_CYCLES] = { 0x11, "CPU_CYCLES", ALL6, 0 },
	[ARM_INST] = { 0x08, "INST_RETIRED", ALL6, -1 },
	[ARM_BR_MIS_PRED] = { 0x10, "BR_MIS_PRED", ALL6, -1 },
	[ARM_BR_MIS_PRED_RETIRED] = { 0x22, "BR_MIS_PRED_RETIRED", ALL6, -1 },
	[ARM_STALL_FRONTEND] = { 0x23, "STALL_FRONTEND", ALL6, -1 },
	[ARM_STALL_BACKEND] = { 0x24, "STALL_BACKEND", ALL6, -1 },
	[ARM_OP_RETIRED] = { 0x3a, "OP_RETIRED", ALL6, -1 },
	[ARM_OP_SPEC] = { 0x3b, "OP_SPEC", ALL6, -1 },
	[ARM_STALL_SLOT_BACKEND] = { 0x3d, "STALL_SLOT_BACKEND", ALL6, -1 },
	[ARM_STALL_SLOT_FRONTEND] = { 0x3e, "STALL_SLOT_FRONTEND", ALL6, -1 },
	[ARM_STALL_SLOT] = { 0x3f, "STALL_SLOT", ALL6, -1 },
	[AMPERE_GPC_FLUSH] = { 0x120, "GPC_FLUSH", ALL6, -1 },
	[AMPERE_STALL_BACKEND_TLB] = { 0x8167, "STALL_BACKEND_TLB", ALL6, -1 },
	[AMPERE_STALL_BACKEND_CACHE] = { 0xd20d, "STALL_BACKEND_CACHE", ALL6, -1 },
};

/*
 * AmpereOne: OP_SPEC is all that issued, STALL_SLOT_* at their own end.
 * Level 2 (td_arm.c): STALL_FRONTEND is the profile's fetch latency in
 * cycles, BR_MIS_PRED_RETIRED / GPC_FLUSH its branch mispredicts' share
 * of bad speculation, STALL_BACKEND_TLB + STALL_BACKEND_CACHE its memory
 * bound in cycles.  Erratum AC03_CPU_29 (STALL_FRONTEND and
 * STALL_SLOT_FRONTEND miscount; its size is not public) is played as both
 * counting the same extra cycles, a quarter of those not frontend bound:
 * perf's frontend_latency takes the excess of STALL_SLOT_FRONTEND over
 * frontend bound off STALL_FRONTEND, and so gives the profile back only
 * if it is computed as perf does.
 */
static void ampereone_rates(const struct tdsim_model *m,
			    const struct tdsim_profile *p,
			    unsigned int siblings, u32 *r)
{
	u32 w = m->width;
	u32 extra = (ONE - P(FRONTEND_BOUND)) / 4;
	u32 flush = P(BAD_SPECULATION) ? MAX_MISPREDICTS : 0;

	neoverse_rates(m, p, siblings, r);
	r[ARM_OP_RETIRED] = P(RETIRING) * w;
	r[ARM_OP_SPEC] = (P(RETIRING) + P(BAD_SPECULATION)) * w;
	r[ARM_STALL_SLOT_FRONTEND] = (P(FRONTEND_BOUND) + extra) * w;
	r[ARM_STALL_SLOT_BACKEND] = P(BACKEND_BOUND) * w;
	r[ARM_STALL_SLOT] = r[ARM_STALL_SLOT_FRONTEND] +
			    r[ARM_STALL_SLOT_BACKEND];
	r[ARM_STALL_FRONTEND] = P(FETCH_LATENCY) + extra;
	r[AMPERE_GPC_FLUSH] = flush;
	r[ARM_BR_MIS_PRED_RETIRED] = flush ? tdsim_ratio(P(BRANCH_MISPREDICTS),
							 P(BAD_SPECULATION),
							 flush) : 0;
	r[AMPERE_STALL_BACKEND_TLB] = P(MEMORY_BOUND) / 10;
	r[AMPERE_STALL_BACKEND_CACHE] = P(MEMORY_BOUND) -
					r[AMPERE_STALL_BACKEND_TLB];
}

/*
 * 4 slots as topdown's model (perf's metrics imply 4, see td_arm.c); the
 * PMU is later than PMUv3p4 (the core is Armv8.6), so caps/slots says them
 */
const struct tdsim_model tdsim_ampereone = {
	.name = "ampereone",
	.vendor = TDSIM_ARM,
	.width = 4,
	.pmmir = true,
	.gp_counters = 6,
	.fixed_counters = 1,
	.events = ampereone_events,
	.nr_events = AMPERE_NR,
	.rates = ampereone_rates,
};

const struct tdsim_model tdsim_ampereonex = {
	.name = "ampereonex",
	.vendor = TDSIM_ARM,
	.width = 4,
	.pmmir = true,
	.gp_counters = 6,
	.fixed_counters = 1,
	.events = ampereonex_events,
	.nr_events = AMPERE_NR,
	.rates = ampereone_rates,
};

const struct tdsim_model tdsim_neoverse_n2 = {
	.name = "neoverse-n2",
	.vendor = TDSIM_ARM,
	.pmmir = true,
	.width = 5,
	.gp_counters = 6,
	.fixed_counters = 1,
	.events = neoverse_events,
	.nr_events = ARM_NR,
	.rates = neoverse_rates,
};

const struct tdsim_model tdsim_neoverse_n2_r0 = {
	.name = "neoverse-n2-r0p2",
	.vendor = TDSIM_ARM,
	.pmmir = true,
	.width = 5,
	.gp_counters = 6,
	.fixed_counters = 1,
	.events = neoverse_events,
	.nr_events = ARM_NR,
	.rates = n2_r0_rates,
};

const struct tdsim_model tdsim_neoverse_v1 = {
	.name = "neoverse-v1",
	.vendor = TDSIM_ARM,
	.pmmir = true,
	.width = 8,
	.gp_counters = 6,
	.fixed_counters = 1,
	.events = neoverse_events,
	.nr_events = ARM_NR,
	.rates = v1_rates,
};

const struct tdsim_model tdsim_neoverse_v2 = {
	.name = "neoverse-v2",
	.vendor = TDSIM_ARM,
	.pmmir = true,
	.width = 8,
	.gp_counters = 6,
	.fixed_counters = 1,
	.events = neoverse_events,
	.nr_events = ARM_NR,
	.rates = neoverse_rates,
};

/*
 * N1: the same rates, but it has no slot events (they fail event init);
 * its PMU is PMUv3p1 (Armv8.2), without PMMIR_EL1: caps/slots 0.
 */
const struct tdsim_model tdsim_neoverse_n1 = {
	.name = "neoverse-n1",
	.vendor = TDSIM_ARM,
	.width = 4,
	.gp_counters = 6,
	.fixed_counters = 1,
	.events = neoverse_events,
	.nr_events = ARM_STALL_BACKEND + 1,
	.rates = neoverse_rates,
};
