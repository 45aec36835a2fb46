// SPDX-License-Identifier: GPL-2.0
/*
 * Flagged nodes: perf's thresholds, which nodes of a tree are over them,
 * and how a flagged node is shown on a terminal.  explain follows the
 * flagged path; show and watch colour the flagged nodes.
 *
 * The thresholds are perf's MetricThreshold, for the models perf gives
 * them (tools/perf/pmu-events/arch/x86/{sapphirerapids,icelake,skylake}
 * for the Core tree, {alderlaken,sierraforest} for the Atom one, in
 * linux-source-6.12; graniterapids, lunarlake and arrowlake in 7.3);
 * selftests/tdnl/thresholds.py keeps this table equal to those files.  perf's expressions also require the parent to be over
 * its own ("tma_memory_bound > 0.2 & tma_backend_bound > 0.2"), except for
 * three (light and heavy operations, fetch bandwidth: @alone).  perf gives no
 * thresholds for Zen or the Arm cores: there nothing is flagged.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tdnl.h"

/*
 * A node's threshold, as a fraction (perf's): over @above, or @or_node over
 * @or_above; and, unless @alone, its parent over its own.
 */
struct threshold {
	const char *node;
	double above;
	const char *or_node;
	double or_above;
	bool alone;
};

static const struct threshold core_thresholds[] = {
	{ .node = "retiring", .above = 0.7, .or_node = "heavy_operations", .or_above = 0.1 },
	{ .node = "bad_speculation", .above = 0.15 },
	{ .node = "frontend_bound", .above = 0.15 },
	{ .node = "backend_bound", .above = 0.2 },
	{ .node = "light_operations", .alone = true, .above = 0.6 },
	{ .node = "heavy_operations", .alone = true, .above = 0.1 },
	{ .node = "branch_mispredicts", .above = 0.1 },
	{ .node = "machine_clears", .above = 0.1 },
	{ .node = "fetch_latency", .above = 0.1 },
	{ .node = "fetch_bandwidth", .alone = true, .above = 0.2 },
	{ .node = "memory_bound", .above = 0.2 },
	{ .node = "core_bound", .above = 0.1 },
	{ .node = "l1_bound", .above = 0.1 },
	{ .node = "l2_bound", .above = 0.05 },
	{ .node = "l3_bound", .above = 0.05 },
	{ .node = "dram_bound", .above = 0.1 },
	{ .node = "store_bound", .above = 0.2 },
	{ .node = "mem_bandwidth", .above = 0.2 },
	{ .node = "mem_latency", .above = 0.1 },
	{ .node = NULL }
};

/* perf's Atom tree names fetch latency and bandwidth tma_ifetch_* */
static const struct threshold atom_thresholds[] = {
	{ .node = "retiring", .above = 0.75 },
	{ .node = "bad_speculation", .above = 0.15 },
	{ .node = "frontend_bound", .above = 0.2 },
	{ .node = "backend_bound", .above = 0.1 },
	{ .node = "branch_mispredicts", .above = 0.05 },
	{ .node = "machine_clears", .above = 0.05 },
	{ .node = "fetch_latency", .above = 0.15 },
	{ .node = "fetch_bandwidth", .above = 0.1 },
	{ .node = "core_bound", .above = 0.1 },
	{ .node = "resource_bound", .above = 0.2 },
	{ .node = NULL }
};

static const struct {
	const char *model;
	const struct threshold *t;
} tables[] = {
	{ "spr", core_thresholds },
	{ "icl", core_thresholds },
	{ "skl", core_thresholds },
	{ "gracemont", atom_thresholds },
	{ "crestmont", atom_thresholds },
	/* 7.3's graniterapids, lunarlake and arrowlake: the same */
	{ "gnr", core_thresholds },
	{ "lioncove", core_thresholds },
	{ "skymont", atom_thresholds },
};

static const struct threshold *table_of(const char *model)
{
	unsigned int i;

	for (i = 0; model && i < ARRAY_SIZE(tables); i++)
		if (!strcmp(tables[i].model, model))
			return tables[i].t;
	return NULL;
}

static const struct threshold *threshold_of(const struct threshold *t, const char *node)
{
	for (; t && t->node; t++)
		if (!strcmp(t->node, node))
			return t;
	return NULL;
}

bool tdnl_has_thresholds(const char *model)
{
	return table_of(model);
}

double tdnl_threshold(const char *model, const char *node)
{
	const struct threshold *t = threshold_of(table_of(model), node);

	return t ? 100 * t->above : NAN;
}

/* @pct over @name's threshold, @parent flagged or not needed; n/a, never */
static bool over(const struct threshold *table, const char *name, double pct,
		 const struct tdnl_tree *tree, bool parent)
{
	const struct threshold *t = threshold_of(table, name);
	unsigned int i;

	if (!t || isnan(pct) || (!parent && !t->alone))
		return false;
	if (pct / 100 > t->above)
		return true;
	if (t->or_node)
		for (i = 0; i < TD_NR_L2; i++)
			if (!strcmp(td_l2_names[i], t->or_node) && !isnan(tree->l2[i]) &&
			    tree->l2[i] / 100 > t->or_above)
				return true;
	return false;
}

/**
 * tdnl_flag() - which nodes of a tree are over perf's thresholds
 * @model: the model's name (none flagged where perf has no thresholds)
 * @tree: the nodes, in percent, NAN where n/a
 * @f: the flags
 *
 * A Level 2 node's parent is its Level 1 node; Level 3's is memory bound,
 * Level 4's DRAM bound.
 */
void tdnl_flag(const char *model, const struct tdnl_tree *tree, struct tdnl_flags *f)
{
	const struct threshold *table = table_of(model);
	unsigned int i;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < TD_NR_L1; i++)
		f->l1[i] = over(table, td_l1_names[i], tree->l1[i], tree, true);
	for (i = 0; i < TD_NR_L2; i++)
		f->l2[i] = over(table, td_l2_names[i], tree->l2[i], tree, f->l1[td_l2_parent[i]]);
	for (i = 0; i < TD_FIRST_L4; i++)
		f->l34[i] = over(table, td_l34_names[i], tree->l34[i], tree,
				 f->l2[TD_MEMORY_BOUND]);
	for (i = TD_FIRST_L4; i < TD_NR_L34; i++)
		f->l34[i] = over(table, td_l34_names[i], tree->l34[i], tree,
				 f->l34[TD_DRAM_BOUND]);
}

/* the table, for selftests/tdnl/thresholds.py: "model node above alone|under-parent [or_node or_above]" */
void tdnl_print_thresholds(void)
{
	const struct threshold *t;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tables); i++)
		for (t = tables[i].t; t->node; t++) {
			printf("%s %s %g %s", tables[i].model, t->node, t->above,
			       t->alone ? "alone" : "under-parent");
			if (t->or_node)
				printf(" %s %g", t->or_node, t->or_above);
			printf("\n");
		}
}

/*
 * Flagged nodes in bold red on a terminal: never into a pipe or a file,
 * nor with NO_COLOR set (no-color.org) or TERM=dumb.
 */
bool tdnl_colour(void)
{
	static int on = -1;
	const char *nc, *term;

	if (on >= 0)	/* asked per cell of every sample: once is enough */
		return on;
	nc = getenv("NO_COLOR");
	term = getenv("TERM");
	on = isatty(STDOUT_FILENO) && !(nc && nc[0]) && !(term && !strcmp(term, "dumb"));
	return on;
}

const char *tdnl_hi(bool flagged)
{
	return flagged && tdnl_colour() ? "\033[1;31m" : "";
}

const char *tdnl_lo(bool flagged)
{
	return flagged && tdnl_colour() ? "\033[0m" : "";
}
