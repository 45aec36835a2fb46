// SPDX-License-Identifier: GPL-2.0
/*
 * tdnl --perf-names: the nodes under perf's metric names, so that scripts
 * written for `perf stat -M` read ours.  perf names them per family
 * (tools/perf/pmu-events/arch in linux-source-6.12, and 7.3 for the CPUs
 * 6.12 lacks): tma_* on Intel (the Atom tree's fetch nodes are
 * tma_ifetch_*; Granite Rapids' and Lion Cove's DRAM Bound is
 * tma_l3_miss_bound), Zen 4's and Zen 5's (and 6's) own pipeline names,
 * the Arm cores' Level 1 (arm64/sbsa.json) as ours, and AmpereOne's.  A
 * node perf does not name keeps ours.
 * selftests/tdnl/cli.sh checks every name against perf's JSON.
 */
#include <stdio.h>
#include <string.h>
#include "tdnl.h"

bool tdnl_perf_names;

struct alias {
	const char *node, *perf;
};

static const struct alias zen4[] = {
	{ "light_operations", "retiring_fastpath" },
	{ "heavy_operations", "retiring_microcode" },
	{ "branch_mispredicts", "bad_speculation_mispredicts" },
	{ "machine_clears", "bad_speculation_pipeline_restarts" },
	{ "fetch_latency", "frontend_bound_latency" },
	{ "fetch_bandwidth", "frontend_bound_bandwidth" },
	{ "memory_bound", "backend_bound_memory" },
	{ "core_bound", "backend_bound_cpu" },
	{ NULL, NULL }
};

static const struct alias zen5[] = {
	{ "light_operations", "retiring_from_fastpath" },
	{ "heavy_operations", "retiring_from_microcode" },
	{ "branch_mispredicts", "bad_speculation_from_mispredicts" },
	{ "machine_clears", "bad_speculation_from_pipeline_restarts" },
	{ "fetch_latency", "frontend_bound_by_latency" },
	{ "fetch_bandwidth", "frontend_bound_by_bandwidth" },
	{ "memory_bound", "backend_bound_by_memory" },
	{ "core_bound", "backend_bound_by_cpu" },
	{ NULL, NULL }
};

static const struct alias l3_miss[] = {
	{ "dram_bound", "tma_l3_miss_bound" },
	{ NULL, NULL }
};

static const struct alias atom[] = {
	{ "fetch_latency", "tma_ifetch_latency" },
	{ "fetch_bandwidth", "tma_ifetch_bandwidth" },
	{ NULL, NULL }
};

static const struct alias ampere[] = {
	{ "retiring", "retired_fraction" },
	{ "bad_speculation", "slots_lost_misspeculation_fraction" },
	{ "branch_mispredicts", "branch_mispredict" },
	{ "other_mispredicts", "other_miss_pred" },
	{ "fetch_latency", "frontend_latency" },
	{ "fetch_bandwidth", "frontend_bandwidth" },
	{ "memory_bound", "backend_memory" },
	{ "core_bound", "backend_core" },
	{ NULL, NULL }
};

static const char *lookup(const struct alias *a, const char *node)
{
	for (; a->node; a++)
		if (!strcmp(a->node, node))
			return a->perf;
	return NULL;
}

/**
 * tdnl_name() - how a node is printed
 * @model: the CPU's model ("" when unknown)
 * @node:  our name (td_l1_names[], td_l2_names[], td_l34_names[])
 *
 * Return: @node, or with --perf-names perf's name for it on @model where
 * perf has one.  Points into static storage, good for four calls.
 */
const char *tdnl_name(const char *model, const char *node)
{
	static char bufs[4][TDNL_NAME_LEN + 8];	/* a few per printf() */
	static unsigned int next;
	const char *p = NULL;
	char *buf;

	if (!tdnl_perf_names || !model)
		return node;
	if (!strcmp(model, "skl") || !strcmp(model, "icl") || !strcmp(model, "spr") ||
	    !strcmp(model, "gnr") || !strcmp(model, "lioncove") ||
	    !strcmp(model, "gracemont") || !strcmp(model, "crestmont") ||
	    !strcmp(model, "skymont")) {
		if (!strcmp(model, "gnr") || !strcmp(model, "lioncove"))
			p = lookup(l3_miss, node);
		else if (strstr(model, "mont"))
			p = lookup(atom, node);
		if (!p) {
			buf = bufs[next++ % ARRAY_SIZE(bufs)];
			snprintf(buf, sizeof(bufs[0]), "tma_%s", node);
			p = buf;
		}
	} else if (!strcmp(model, "zen4")) {
		p = lookup(zen4, node);
	} else if (!strcmp(model, "zen5") || !strcmp(model, "zen6")) {
		p = lookup(zen5, node);
	} else if (!strcmp(model, "ampereone") || !strcmp(model, "ampereonex")) {
		p = lookup(ampere, node);
	}
	return p ? p : node;
}
