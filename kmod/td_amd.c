// SPDX-License-Identifier: GPL-2.0
/*
 * topdown models of AMD Zen 4 (6 dispatch slots), Zen 5 and Zen 6 (8), with
 * perf's PipelineL1/PipelineL2 metrics (tools/perf/pmu-events/arch/x86/
 * amdzen4, amdzen5; amdzen6 in 7.3).  Level 1 needs exactly the six core
 * counters of a Zen thread.  Zen 6's formulas and encodings are Zen 5's;
 * its JSON names the resync event 0x19f bp_fe_redir.resync.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#else
#include <errno.h>
#endif
#include "td_model.h"

/* the core counters of a Zen thread: six, any event on any */
#define ALL6	0x003f
#define NOFIX	-1

/*
 * Level 1 in the order it stays counted all the time when a counter is
 * missing (the NMI watchdog holds one): smt_contention, usually the
 * smallest node, is the first to be time-sliced; retired ops are scaled as
 * their share of dispatched ops.
 */
enum {
	ZEN_CYCLES, ZEN_FE, ZEN_BE, ZEN_DISP, ZEN_RET_OPS, ZEN_SMT,
	ZEN_FE_LAT, ZEN_BRN_MISP, ZEN_RESYNC, ZEN_NOT_COMPLETE,
	ZEN_LOAD_NOT_COMPLETE, ZEN_UCODE_OPS,
	ZEN_NR
};

static const struct td_event zen4_events[ZEN_NR] = {
	[ZEN_CYCLES]		= { "ls_not_halted_cyc", 0x76, 1, ALL6, NOFIX, .every = true },
	[ZEN_FE]		= { "de_no_dispatch_per_slot.no_ops_from_frontend",
				    0x1000001a0, 1, ALL6, NOFIX },
	[ZEN_BE]		= { "de_no_dispatch_per_slot.backend_stalls", 0x100001ea0, 1,
				    ALL6, NOFIX },
	[ZEN_DISP]		= { "de_src_op_disp.all", 0x07aa, 1, ALL6, NOFIX },
	[ZEN_RET_OPS]		= { "ex_ret_ops", 0xc1, 1, ALL6, NOFIX, .ref = ZEN_DISP },
	[ZEN_SMT]		= { "de_no_dispatch_per_slot.smt_contention", 0x1000060a0, 1,
				    ALL6, NOFIX },
	[ZEN_FE_LAT]		= { "de_no_dispatch_per_slot.no_ops_from_frontend:c6",
				    0x1060001a0, 2, ALL6, NOFIX,
				    .parent = 1 + TD_FRONTEND_BOUND },
	[ZEN_BRN_MISP]		= { "ex_ret_brn_misp", 0xc3, 2, ALL6, NOFIX, .grp = 1,
				    .parent = 1 + TD_BAD_SPECULATION },
	[ZEN_RESYNC]		= { "resyncs_or_nc_redirects", 0x96, 2, ALL6, NOFIX, .grp = 1,
				    .parent = 1 + TD_BAD_SPECULATION },
	[ZEN_NOT_COMPLETE]	= { "ex_no_retire.not_complete", 0x02d6, 2, ALL6, NOFIX,
				    .grp = 2,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ZEN_LOAD_NOT_COMPLETE]	= { "ex_no_retire.load_not_complete", 0xa2d6, 2, ALL6, NOFIX,
				    .grp = 2,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ZEN_UCODE_OPS]		= { "ex_ret_ucode_ops", 0x1000000c2, 2, ALL6, NOFIX,
				    .ref = ZEN_RET_OPS },
};

static const struct td_event zen5_events[ZEN_NR] = {
	[ZEN_CYCLES]		= { "ls_not_halted_cyc", 0x76, 1, ALL6, NOFIX, .every = true },
	[ZEN_FE]		= { "de_no_dispatch_per_slot.no_ops_from_frontend",
				    0x1000001a0, 1, ALL6, NOFIX },
	[ZEN_BE]		= { "de_no_dispatch_per_slot.backend_stalls", 0x100001ea0, 1,
				    ALL6, NOFIX },
	[ZEN_DISP]		= { "de_src_op_disp.all", 0x07aa, 1, ALL6, NOFIX },
	[ZEN_RET_OPS]		= { "ex_ret_ops", 0xc1, 1, ALL6, NOFIX, .ref = ZEN_DISP },
	[ZEN_SMT]		= { "de_no_dispatch_per_slot.smt_contention", 0x1000060a0, 1,
				    ALL6, NOFIX },
	[ZEN_FE_LAT]		= { "de_no_dispatch_per_slot.no_ops_from_frontend:c8",
				    0x1080001a0, 2, ALL6, NOFIX,
				    .parent = 1 + TD_FRONTEND_BOUND },
	[ZEN_BRN_MISP]		= { "ex_ret_brn_misp", 0xc3, 2, ALL6, NOFIX, .grp = 1,
				    .parent = 1 + TD_BAD_SPECULATION },
	[ZEN_RESYNC]		= { "bp_redirects.resync", 0x019f, 2, ALL6, NOFIX, .grp = 1,
				    .parent = 1 + TD_BAD_SPECULATION },
	[ZEN_NOT_COMPLETE]	= { "ex_no_retire.not_complete", 0x02d6, 2, ALL6, NOFIX,
				    .grp = 2,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ZEN_LOAD_NOT_COMPLETE]	= { "ex_no_retire.load_not_complete", 0xa2d6, 2, ALL6, NOFIX,
				    .grp = 2,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ZEN_UCODE_OPS]		= { "ex_ret_ucode_ops", 0x1000000c2, 2, ALL6, NOFIX,
				    .ref = ZEN_RET_OPS },
};

static const struct td_event zen6_events[ZEN_NR] = {
	[ZEN_CYCLES]		= { "ls_not_halted_cyc", 0x76, 1, ALL6, NOFIX, .every = true },
	[ZEN_FE]		= { "de_no_dispatch_per_slot.no_ops_from_frontend",
				    0x1000001a0, 1, ALL6, NOFIX },
	[ZEN_BE]		= { "de_no_dispatch_per_slot.backend_stalls", 0x100001ea0, 1,
				    ALL6, NOFIX },
	[ZEN_DISP]		= { "de_src_op_disp.all", 0x07aa, 1, ALL6, NOFIX },
	[ZEN_RET_OPS]		= { "ex_ret_ops", 0xc1, 1, ALL6, NOFIX, .ref = ZEN_DISP },
	[ZEN_SMT]		= { "de_no_dispatch_per_slot.smt_contention", 0x1000060a0, 1,
				    ALL6, NOFIX },
	[ZEN_FE_LAT]		= { "de_no_dispatch_per_slot.no_ops_from_frontend:c8",
				    0x1080001a0, 2, ALL6, NOFIX,
				    .parent = 1 + TD_FRONTEND_BOUND },
	[ZEN_BRN_MISP]		= { "ex_ret_brn_misp", 0xc3, 2, ALL6, NOFIX, .grp = 1,
				    .parent = 1 + TD_BAD_SPECULATION },
	[ZEN_RESYNC]		= { "bp_fe_redir.resync", 0x019f, 2, ALL6, NOFIX, .grp = 1,
				    .parent = 1 + TD_BAD_SPECULATION },
	[ZEN_NOT_COMPLETE]	= { "ex_no_retire.not_complete", 0x02d6, 2, ALL6, NOFIX,
				    .grp = 2,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ZEN_LOAD_NOT_COMPLETE]	= { "ex_no_retire.load_not_complete", 0xa2d6, 2, ALL6, NOFIX,
				    .grp = 2,
				    .parent = 1 + TD_BACKEND_BOUND },
	[ZEN_UCODE_OPS]		= { "ex_ret_ucode_ops", 0x1000000c2, 2, ALL6, NOFIX,
				    .ref = ZEN_RET_OPS },
};

/* total_dispatch_slots = width * ls_not_halted_cyc; each node is X / slots */
static int zen_compute(const struct td_model *m, const u64 *c, bool smt,
		       struct td_result *r)
{
	u64 slots = m->width * c[ZEN_CYCLES];

	if (!slots)
		return -ENODATA;
	*r = (struct td_result){ .has_l2 = true };
	r->l1[TD_RETIRING] = td_frac(c[ZEN_RET_OPS], slots);
	r->l1[TD_FRONTEND_BOUND] = td_frac(c[ZEN_FE], slots);
	r->l1[TD_BACKEND_BOUND] = td_frac(c[ZEN_BE], slots);
	r->l1[TD_SMT_CONTENTION] = td_frac(c[ZEN_SMT], slots);
	/* bad speculation = (de_src_op_disp.all - ex_ret_ops) / slots */
	r->l1[TD_BAD_SPECULATION] = td_frac_diff(c[ZEN_DISP], c[ZEN_RET_OPS],
						 slots);
	/* all five are measured: fit them to exactly the whole first */
	td_fit(r->l1, TD_NR_L1, TD_PPM);

	/* latency = width * no_ops_from_frontend:c<width> / slots */
	r->l2[TD_FETCH_LATENCY] = td_frac(m->width * c[ZEN_FE_LAT], slots);
	r->l2[TD_BRANCH_MISPREDICTS] =
		td_share(c[ZEN_BRN_MISP], c[ZEN_BRN_MISP] + c[ZEN_RESYNC],
			 r->l1[TD_BAD_SPECULATION]);
	r->l2[TD_MEMORY_BOUND] = td_share(c[ZEN_LOAD_NOT_COMPLETE],
					  c[ZEN_NOT_COMPLETE],
					  r->l1[TD_BACKEND_BOUND]);
	/* heavy operations are the microcoded ones */
	r->l2[TD_HEAVY_OPERATIONS] = td_share(c[ZEN_UCODE_OPS], c[ZEN_RET_OPS],
					      r->l1[TD_RETIRING]);
	td_finish(m, r);
	return 0;
}

const struct td_model td_model_zen4 = {
	.name = "zen4",
	.vendor = TD_AMD,
	.width = 6,
	.events = zen4_events,
	.nr_events = ZEN_NR,
	.gp_counters = 6,
	.fixed_counters = 0,
	.pairs = td_core_pairs,
	.nr_pairs = TD_NR_CORE_PAIRS,
	.compute = zen_compute,
};

const struct td_model td_model_zen5 = {
	.name = "zen5",
	.vendor = TD_AMD,
	.width = 8,
	.events = zen5_events,
	.nr_events = ZEN_NR,
	.gp_counters = 6,
	.fixed_counters = 0,
	.pairs = td_core_pairs,
	.nr_pairs = TD_NR_CORE_PAIRS,
	.compute = zen_compute,
};

const struct td_model td_model_zen6 = {
	.name = "zen6",
	.vendor = TD_AMD,
	.width = 8,
	.events = zen6_events,
	.nr_events = ZEN_NR,
	.gp_counters = 6,
	.fixed_counters = 0,
	.pairs = td_core_pairs,
	.nr_pairs = TD_NR_CORE_PAIRS,
	.compute = zen_compute,
};
