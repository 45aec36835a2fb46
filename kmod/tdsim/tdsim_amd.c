// SPDX-License-Identifier: GPL-2.0
/*
 * tdsim models of AMD Zen 4 (6 dispatch slots), Zen 5 and Zen 6 (8): the
 * events of perf's PipelineL1/PipelineL2 metrics (tools/perf/pmu-events/
 * arch/x86/amdzen4, amdzen5; amdzen6 in 7.3).  AMD's raw config puts
 * event bits 8-11 at config 32-35.
 */
#include <linux/kernel.h>
#include "tdsim.h"

#define ALL6	0x003f
#define P(key)	(p->v[TDSIM_##key])
#define ONE	TDSIM_PPM
/*
 * The denominators of the Level 2 splits are proportional to the parent
 * node (mispredicts + resyncs to bad speculation, not_complete to backend
 * bound), so that the split of a mix of profiles is the mix of their splits
 * and a phased workload's truth is perf's formula of its counts.
 */
#define BRANCH_PER_SLOT	8U	/* mispredicts + resyncs per bad-speculation slot */
#define NOT_COMPLETE_PER_SLOT	4U	/* not_complete per backend-bound slot */

enum {
	ZEN_CYCLES, ZEN_INSTR, ZEN_FE, ZEN_FE_LAT, ZEN_BE, ZEN_SMT, ZEN_DISP,
	ZEN_RET_OPS, ZEN_BRN_MISP, ZEN_RESYNC, ZEN_NOT_COMPLETE,
	ZEN_LOAD_NOT_COMPLETE, ZEN_UCODE_OPS,
	ZEN_NR
};

static const struct tdsim_event zen4_events[ZEN_NR] = {
	[ZEN_CYCLES]		= { 0x76, "ls_not_halted_cyc", ALL6, -1 },
	[ZEN_INSTR]		= { 0xc0, "ex_ret_instr", ALL6, -1 },
	[ZEN_FE] = { 0x1000001a0,
		"de_no_dispatch_per_slot.no_ops_from_frontend", ALL6, -1 },
	[ZEN_FE_LAT] = { 0x1060001a0,
		"de_no_dispatch_per_slot.no_ops_from_frontend:c6", ALL6, -1 },
	[ZEN_BE] = { 0x100001ea0,
		"de_no_dispatch_per_slot.backend_stalls", ALL6, -1 },
	[ZEN_SMT] = { 0x1000060a0,
		"de_no_dispatch_per_slot.smt_contention", ALL6, -1 },
	[ZEN_DISP]		= { 0x07aa, "de_src_op_disp.all", ALL6, -1 },
	[ZEN_RET_OPS]		= { 0xc1, "ex_ret_ops", ALL6, -1 },
	[ZEN_BRN_MISP]		= { 0xc3, "ex_ret_brn_misp", ALL6, -1 },
	[ZEN_RESYNC]		= { 0x96, "resyncs_or_nc_redirects", ALL6, -1 },
	[ZEN_NOT_COMPLETE]	= { 0x02d6, "ex_no_retire.not_complete", ALL6, -1 },
	[ZEN_LOAD_NOT_COMPLETE]	= { 0xa2d6, "ex_no_retire.load_not_complete", ALL6, -1 },
	[ZEN_UCODE_OPS]		= { 0x1000000c2, "ex_ret_ucode_ops", ALL6, -1 },
};

static const struct tdsim_event zen5_events[ZEN_NR] = {
	[ZEN_CYCLES]		= { 0x76, "ls_not_halted_cyc", ALL6, -1 },
	[ZEN_INSTR]		= { 0xc0, "ex_ret_instr", ALL6, -1 },
	[ZEN_FE] = { 0x1000001a0,
		"de_no_dispatch_per_slot.no_ops_from_frontend", ALL6, -1 },
	[ZEN_FE_LAT] = { 0x1080001a0,
		"de_no_dispatch_per_slot.no_ops_from_frontend:c8", ALL6, -1 },
	[ZEN_BE] = { 0x100001ea0,
		"de_no_dispatch_per_slot.backend_stalls", ALL6, -1 },
	[ZEN_SMT] = { 0x1000060a0,
		"de_no_dispatch_per_slot.smt_contention", ALL6, -1 },
	[ZEN_DISP]		= { 0x07aa, "de_src_op_disp.all", ALL6, -1 },
	[ZEN_RET_OPS]		= { 0xc1, "ex_ret_ops", ALL6, -1 },
	[ZEN_BRN_MISP]		= { 0xc3, "ex_ret_brn_misp", ALL6, -1 },
	[ZEN_RESYNC]		= { 0x019f, "bp_redirects.resync", ALL6, -1 },
	[ZEN_NOT_COMPLETE]	= { 0x02d6, "ex_no_retire.not_complete", ALL6, -1 },
	[ZEN_LOAD_NOT_COMPLETE]	= { 0xa2d6, "ex_no_retire.load_not_complete", ALL6, -1 },
	[ZEN_UCODE_OPS]		= { 0x1000000c2, "ex_ret_ucode_ops", ALL6, -1 },
};

/* Zen 6 (7.3's amdzen6): Zen 5's encodings, 0x19f named bp_fe_redir.resync */
static const struct tdsim_event zen6_events[ZEN_NR] = {
	[ZEN_CYCLES]		= { 0x76, "ls_not_halted_cyc", ALL6, -1 },
	[ZEN_INSTR]		= { 0xc0, "ex_ret_instr", ALL6, -1 },
	[ZEN_FE] = { 0x1000001a0,
		"de_no_dispatch_per_slot.no_ops_from_frontend", ALL6, -1 },
	[ZEN_FE_LAT] = { 0x1080001a0,
		"de_no_dispatch_per_slot.no_ops_from_frontend:c8", ALL6, -1 },
	[ZEN_BE] = { 0x100001ea0,
		"de_no_dispatch_per_slot.backend_stalls", ALL6, -1 },
	[ZEN_SMT] = { 0x1000060a0,
		"de_no_dispatch_per_slot.smt_contention", ALL6, -1 },
	[ZEN_DISP]		= { 0x07aa, "de_src_op_disp.all", ALL6, -1 },
	[ZEN_RET_OPS]		= { 0xc1, "ex_ret_ops", ALL6, -1 },
	[ZEN_BRN_MISP]		= { 0xc3, "ex_ret_brn_misp", ALL6, -1 },
	[ZEN_RESYNC]		= { 0x019f, "bp_fe_redir.resync", ALL6, -1 },
	[ZEN_NOT_COMPLETE]	= { 0x02d6, "ex_no_retire.not_complete", ALL6, -1 },
	[ZEN_LOAD_NOT_COMPLETE]	= { 0xa2d6, "ex_no_retire.load_not_complete", ALL6, -1 },
	[ZEN_UCODE_OPS]		= { 0x1000000c2, "ex_ret_ucode_ops", ALL6, -1 },
};

/* total_dispatch_slots = width * ls_not_halted_cyc; every L1 node is X / slots. */
static void zen_rates(const struct tdsim_model *m, const struct tdsim_profile *p,
		      unsigned int siblings, u32 *r)
{
	u32 s = m->width * ONE;
	u32 ret = tdsim_scale(P(RETIRING), s);
	u32 misp, mem;

	r[ZEN_CYCLES] = ONE;
	r[ZEN_RET_OPS] = ret;
	r[ZEN_INSTR] = ret - ret / 10;
	r[ZEN_FE] = tdsim_scale(P(FRONTEND_BOUND), s);
	/* latency = width * no_ops_from_frontend:c<width> / slots */
	r[ZEN_FE_LAT] = P(FETCH_LATENCY);
	r[ZEN_BE] = tdsim_scale(P(BACKEND_BOUND), s);
	r[ZEN_SMT] = tdsim_scale(P(SMT_CONTENTION), s);
	/* bad_speculation = (de_src_op_disp.all - ex_ret_ops) / slots */
	r[ZEN_DISP] = ret + tdsim_scale(P(BAD_SPECULATION), s);
	/* mispredicts = bad_spec * misp / (misp + resync) */
	misp = min(P(BRANCH_MISPREDICTS), P(BAD_SPECULATION));
	r[ZEN_BRN_MISP] = tdsim_scale(misp, s) / BRANCH_PER_SLOT;
	r[ZEN_RESYNC] = tdsim_scale(P(BAD_SPECULATION) - misp, s) / BRANCH_PER_SLOT;
	/* memory = backend * load_not_complete / not_complete */
	mem = min(P(MEMORY_BOUND), P(BACKEND_BOUND));
	r[ZEN_NOT_COMPLETE] = tdsim_scale(P(BACKEND_BOUND), s) / NOT_COMPLETE_PER_SLOT;
	r[ZEN_LOAD_NOT_COMPLETE] = tdsim_scale(mem, s) / NOT_COMPLETE_PER_SLOT;
	/* microcode = retiring * ucode_ops / ret_ops: heavy ops are microcoded */
	r[ZEN_UCODE_OPS] = tdsim_scale(P(HEAVY_OPERATIONS), s);
}

const struct tdsim_model tdsim_zen4 = {
	.name = "zen4",
	.vendor = TDSIM_AMD,
	.width = 6,
	.gp_counters = 6,
	.smt_contention = true,
	.events = zen4_events,
	.nr_events = ZEN_NR,
	.rates = zen_rates,
};

const struct tdsim_model tdsim_zen5 = {
	.name = "zen5",
	.vendor = TDSIM_AMD,
	.width = 8,
	.gp_counters = 6,
	.smt_contention = true,
	.events = zen5_events,
	.nr_events = ZEN_NR,
	.rates = zen_rates,
};

const struct tdsim_model tdsim_zen6 = {
	.name = "zen6",
	.vendor = TDSIM_AMD,
	.width = 8,
	.gp_counters = 6,
	.smt_contention = true,
	.events = zen6_events,
	.nr_events = ZEN_NR,
	.rates = zen_rates,
};
