// SPDX-License-Identifier: GPL-2.0
/*
 * tdnl explain: follow the dominant path down the topdown tree, flag each
 * node over its threshold, and say in plain words what the bottleneck is
 * and what usually helps.
 *
 * The thresholds are perf's MetricThreshold (flags.c).  Where perf gives
 * none (Zen, the Arm cores) the path is the largest node at each level,
 * with nothing flagged, and explain says so.
 *
 * Level 3/4 are shares of clock ticks, not of slots, and can overlap:
 * they are shown as such, with their share of the parent's slots beside
 * them (the parent's slots split in proportion to the children's clock
 * ticks), and a note.  The words are ours.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include "tdnl.h"

/* what a node means, and what usually helps: ours */
static const struct {
	const char *node, *title, *means, *helps;
} words[] = {
	{ "retiring", "Retiring",
	  "most slots retire useful work: the code runs well on this core",
	  "do less work: a better algorithm, vectorise (SIMD), avoid redundant computation" },
	{ "light_operations", "Light operations",
	  "simple instructions retire at a high rate",
	  "vectorise, or cut instructions: a better algorithm or compiler flags (-O2/-O3, -march)" },
	{ "heavy_operations", "Heavy operations",
	  "instructions of several micro-operations, or from the microcode sequencer (divisions, string instructions, assists)",
	  "avoid divisions and long-latency instructions in hot loops; look for floating-point assists (denormals)" },
	{ "bad_speculation", "Bad speculation",
	  "slots are spent on work that is thrown away",
	  "find the mispredicted branches (perf record -e branch-misses)" },
	{ "branch_mispredicts", "Branch mispredicts",
	  "the branch predictor guesses wrong and the pipeline is flushed",
	  "make branches predictable: sort data, use branchless code (cmov, masks), profile-guided optimisation" },
	{ "machine_clears", "Machine clears",
	  "the pipeline is flushed for other reasons: memory ordering, self-modifying code, false sharing",
	  "look for false sharing between threads and for 4K aliasing of loads and stores" },
	{ "other_mispredicts", "Other mispredicts",
	  "mispredictions other than branch directions",
	  "as for branch mispredicts" },
	{ "frontend_bound", "Frontend bound",
	  "the frontend does not deliver enough instructions to the backend",
	  "shrink the hot code, lay it out better (PGO, LTO, BOLT)" },
	{ "fetch_latency", "Fetch latency",
	  "instruction fetch stalls: instruction cache and TLB misses, branch resteers",
	  "make the hot code smaller and contiguous (PGO, BOLT, hot/cold splitting); huge pages for code" },
	{ "fetch_bandwidth", "Fetch bandwidth",
	  "the decoders or the micro-op cache deliver too few instructions a cycle",
	  "avoid long instruction encodings and code that misses the micro-op cache; align hot loops" },
	{ "backend_bound", "Backend bound",
	  "the backend cannot take more work: it waits on memory or on execution units",
	  "see which of memory or core it is" },
	{ "memory_bound", "Memory bound",
	  "loads and stores wait on the memory hierarchy",
	  "improve locality: block (tile) loops, use smaller data types, prefetch" },
	{ "core_bound", "Core bound",
	  "execution units or dependency chains limit the work",
	  "break long dependency chains, vectorise, balance the work across execution ports" },
	{ "resource_bound", "Resource bound",
	  "the backend's resources (buffers, queues) are full",
	  "as for memory bound, then core bound" },
	{ "l1_bound", "L1 bound",
	  "loads wait though the data is in the L1 cache: DTLB misses, store forwarding, 4K aliasing",
	  "avoid store-to-load forwarding stalls; huge pages for data" },
	{ "l2_bound", "L2 bound",
	  "loads miss L1 and hit L2",
	  "block loops for L1; reduce the working set" },
	{ "l3_bound", "L3 bound",
	  "loads miss L2 and hit the last-level cache, or contend for it",
	  "block loops for L2; avoid sharing cache lines between cores" },
	{ "dram_bound", "DRAM bound",
	  "loads miss every cache and wait on memory",
	  "reduce the working set; block (tile) loops for the caches" },
	{ "store_bound", "Store bound",
	  "stores fill the store buffer",
	  "fewer stores, or streaming (non-temporal) stores for large outputs" },
	{ "mem_bandwidth", "Memory bandwidth",
	  "the memory bus is saturated",
	  "move less data: tile loops so that data is reused from the caches, compress data, use fewer threads on the same memory" },
	{ "mem_latency", "Memory latency",
	  "single accesses wait on DRAM's latency",
	  "prefetch, or make the accesses regular (arrays, not pointer chasing)" },
	{ "smt_contention", "SMT contention",
	  "the other hardware thread of the core takes slots",
	  "pin the workload away from busy siblings" },
	{ "not_stalled", "Not stalled",
	  "cycles in which the pipeline was not stalled (retiring and bad speculation together)",
	  "do less work" },
};

static int word(const char *node)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcmp(words[i].node, node))
			return i;
	return -1;
}

/* one node of the tree, as explain sees it */
struct node {
	const char *name;
	int level;		/* 1-4 */
	double pct;		/* of slots (1, 2) or of clock ticks (3, 4) */
	double slots_pct;	/* levels 3/4: its share of the parent's slots */
	bool flagged;
};

/* the largest of some candidates: flagged ones first when there is a table */
static int pick(const struct node *c, int n, bool table)
{
	int i, best = -1;

	for (i = 0; i < n; i++) {
		if (isnan(c[i].pct) || (table && !c[i].flagged))
			continue;
		if (best < 0 || c[i].pct > c[best].pct)
			best = i;
	}
	return best;
}

/* the group's flagged nodes (tdnl_flag()) */
static void flags_of(const struct tdnl_group *g, struct tdnl_flags *f)
{
	struct tdnl_tree t;
	unsigned int i;

	for (i = 0; i < TD_NR_L1; i++)
		t.l1[i] = g->l1_set[i] ? g->l1[i] : NAN;
	for (i = 0; i < TD_NR_L2; i++)
		t.l2[i] = g->l2_set[i] ? g->l2[i] : NAN;
	memcpy(t.l34, g->l34, sizeof(t.l34));
	tdnl_flag(g->model, &t, f);
}

/* the children of @parent (a Level 1 node's index, or -1: Level 1) */
static int children(const struct tdnl_group *g, const struct tdnl_flags *f, int parent,
		    struct node *c)
{
	unsigned int i;
	int n = 0;

	if (parent < 0) {
		for (i = 0; i < TD_NR_L1; i++)
			if (g->l1_set[i] && !isnan(g->l1[i]))
				c[n++] = (struct node){ .name = td_l1_names[i], .level = 1,
					.pct = g->l1[i], .slots_pct = NAN, .flagged = f->l1[i] };
		return n;
	}
	for (i = 0; i < TD_NR_L2; i++)
		if (g->l2_set[i] && !isnan(g->l2[i]) && td_l2_parent[i] == parent)
			c[n++] = (struct node){ .name = td_l2_names[i], .level = 2,
				.pct = g->l2[i], .slots_pct = NAN, .flagged = f->l2[i] };
	return n;
}

/* Level 3 (under memory bound) or 4 (under DRAM bound), clock ticks */
static int clock_children(const struct tdnl_group *g, const struct tdnl_flags *f,
			  int from, int to, double parent_slots, struct node *c)
{
	double sum = 0;
	int i, n = 0;

	for (i = from; i < to; i++)
		if (!isnan(g->l34[i]))
			sum += g->l34[i];
	for (i = from; i < to; i++)
		if (!isnan(g->l34[i]))
			c[n++] = (struct node){ .name = td_l34_names[i],
				.level = from < TD_FIRST_L4 ? 3 : 4, .pct = g->l34[i],
				.slots_pct = sum > 0 ? parent_slots * g->l34[i] / sum : NAN,
				.flagged = f->l34[i] };
	return n;
}

/*
 * The path: at most 4 nodes; returns its length.  With perf's thresholds,
 * the largest flagged node at each level under the last (or, no Level 1
 * node flagged, a Level 2 one flagged on its own, under its parent); with
 * none, the largest.
 */
static int walk(const struct tdnl_group *g, struct node *path)
{
	bool table = tdnl_has_thresholds(g->model);
	struct node c[TD_NR_L2 + TD_NR_L34];
	struct tdnl_flags f;
	int n, k, depth = 0;
	unsigned int i, p;

	flags_of(g, &f);
	n = children(g, &f, -1, c);
	k = pick(c, n, table);
	if (k < 0 && table) {
		/* light or heavy operations, fetch bandwidth: flagged alone */
		for (p = 0; p < TD_NR_L1 && k < 0; p++) {
			struct node l2[TD_NR_L2];
			int m = children(g, &f, p, l2), j = pick(l2, m, table);

			if (j < 0)
				continue;
			for (k = 0; k < n && strcmp(c[k].name, td_l1_names[p]); k++)
				;
			if (k == n)
				k = -1;
		}
	}
	if (k < 0)
		return 0;
	path[depth++] = c[k];
	for (i = 0; i < TD_NR_L1 && strcmp(td_l1_names[i], c[k].name); i++)
		;
	n = children(g, &f, i, c);
	k = pick(c, n, table);
	if (k < 0)
		return depth;
	path[depth++] = c[k];
	if (strcmp(c[k].name, "memory_bound"))
		return depth;
	n = clock_children(g, &f, 0, TD_FIRST_L4, c[k].pct, c);
	k = pick(c, n, table);
	if (k < 0)
		return depth;
	path[depth++] = c[k];
	if (strcmp(c[k].name, "dram_bound"))
		return depth;
	n = clock_children(g, &f, TD_FIRST_L4, TD_NR_L34, c[k].slots_pct, c);
	k = pick(c, n, table);
	if (k >= 0)
		path[depth++] = c[k];
	return depth;
}

static void text_group(const struct tdnl_group *g, unsigned int level, double secs)
{
	bool table = tdnl_has_thresholds(g->model);
	struct node path[4], l1[TD_NR_L1];
	int n = walk(g, path), i, w, nl1;
	struct tdnl_flags f;

	printf("\n %u CPU%s, %s, level %u, over %.2f s:\n", g->nr, g->nr == 1 ? "" : "s",
	       g->model, level, secs);
	if (!g->units) {
		printf("  nothing was counted (idle, or not counted)\n");
		return;
	}
	for (i = 0; i < n; i++) {
		double t = tdnl_threshold(g->model, path[i].name);

		w = word(path[i].name);
		printf("  %*s%s%s %.1f %%%s of %s", 2 * i, "", tdnl_hi(path[i].flagged),
		       w >= 0 ? words[w].title : path[i].name, path[i].pct, tdnl_lo(path[i].flagged),
		       path[i].level <= 2 ? (g->cycles ? "cycles" : "slots") : "clock ticks");
		if (!isnan(path[i].slots_pct))
			printf(" (about %.1f %% of the slots)", path[i].slots_pct);
		if (!isnan(t))
			printf(", %s perf's threshold (%g %%)", path[i].flagged ? "over" : "under", t);
		printf("\n");
		if (w >= 0)
			printf("  %*s  %s\n", 2 * i, "", words[w].means);
	}
	if (n) {
		w = word(path[n - 1].name);
		printf("\n  Bottleneck: %s.\n", w >= 0 ? words[w].title : path[n - 1].name);
		if (w >= 0)
			printf("  What usually helps: %s.\n", words[w].helps);
	}
	if (!table)
		printf("\n  perf has no thresholds for %s: the path is the largest node at each level,\n"
		       "  and nothing is flagged.\n", g->model);
	else if (!n)
		printf("  No Level 1 node is over perf's threshold: nothing stands out.\n");
	if (n >= 3)
		printf("\n  Levels 3/4 are shares of clock ticks, not of slots, and can overlap;\n"
		       "  the slots beside them split the parent's in proportion.\n");
	flags_of(g, &f);
	nl1 = children(g, &f, -1, l1);
	printf("\n  Level 1:");
	for (i = 0; i < nl1; i++)
		printf(" %s%s %.1f%s%s", tdnl_hi(l1[i].flagged), tdnl_name(g->model, l1[i].name), l1[i].pct,
		       l1[i].flagged ? "*" : "", tdnl_lo(l1[i].flagged));
	printf("%s\n", table ? "   (* over perf's threshold)" : "");
	if (g->not_counted || g->multiplexed || g->lost)
		printf("  Of %u intervals: %u not counted (missing here), %u multiplexed, %llu lost.\n",
		       g->intervals, g->not_counted, g->multiplexed, (unsigned long long)g->lost);
}

static void json_group(const struct tdnl_group *g, bool first)
{
	struct node path[4];
	int n = walk(g, path), i;

	printf("%s{\"model\":\"%s\",\"cpus\":%u,\"thresholds\":%s,\"path\":[", first ? "" : ",",
	       g->model, g->nr, tdnl_has_thresholds(g->model) ? "\"perf\"" : "null");
	for (i = 0; i < n; i++) {
		printf("%s{\"node\":\"%s\",\"level\":%d,\"percent\":%.4f,\"of\":\"%s\",\"flagged\":%s",
		       i ? "," : "", tdnl_name(g->model, path[i].name), path[i].level, path[i].pct,
		       path[i].level <= 2 ? (g->cycles ? "cycles" : "slots") : "clock ticks",
		       path[i].flagged ? "true" : "false");
		if (!isnan(path[i].slots_pct))
			printf(",\"slots_percent\":%.4f", path[i].slots_pct);
		printf("}");
	}
	printf("],\"not_counted\":%u,\"multiplexed\":%u,\"lost\":%llu}", g->not_counted,
	       g->multiplexed, (unsigned long long)g->lost);
}

/* a saved tdnl stat result into groups; false (said) if it is not one */
static bool from_file(const char *path, struct tdnl_group **out, unsigned int *ng,
		      unsigned int *level, double *secs)
{
	static const char *const lv[] = { "level1", "level2", "level3", "level4" };
	json_object *o, *gs, *v, *l;
	struct tdnl_group *g;
	struct stat st;
	size_t i;
	unsigned int k;

	errno = 0;
	if (stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size > (64 << 20)) {
		fprintf(stderr, "tdnl: explain: '%s' is not a file saved by tdnl stat -o (%s)\n",
			path, errno ? strerror(errno) : "not a regular file, or too large");
		return false;
	}
	o = json_object_from_file(path);
	if (!o || !json_object_object_get_ex(o, "groups", &gs) ||
	    !json_object_is_type(gs, json_type_array) || !json_object_array_length(gs)) {
		fprintf(stderr, "tdnl: explain: '%s' is not a tdnl stat result\n", path);
		json_object_put(o);
		return false;
	}
	*level = json_object_object_get_ex(o, "level", &v) ? json_object_get_int(v) : 0;
	*secs = json_object_object_get_ex(o, "elapsed_s", &v) ? json_object_get_double(v) : 0;
	*ng = json_object_array_length(gs);
	g = calloc(*ng, sizeof(*g));
	if (!g) {
		json_object_put(o);
		return false;
	}
	for (i = 0; i < *ng; i++) {
		json_object *x = json_object_array_get_idx(gs, i);

		for (k = 0; k < TD_NR_L1; k++)
			g[i].l1[k] = NAN;
		for (k = 0; k < TD_NR_L2; k++)
			g[i].l2[k] = NAN;
		for (k = 0; k < TD_NR_L34; k++)
			g[i].l34[k] = NAN;
		if (json_object_object_get_ex(x, "model", &v))
			snprintf(g[i].model, sizeof(g[i].model), "%s", json_object_get_string(v));
		g[i].nr = json_object_object_get_ex(x, "cpus", &v) ? json_object_get_int(v) : 0;
		g[i].cycles = json_object_object_get_ex(x, "cycles", &v);
		g[i].units = json_object_object_get_ex(x, g[i].cycles ? "cycles" : "slots", &v) ?
			     json_object_get_int64(v) : 0;
		g[i].intervals = json_object_object_get_ex(x, "intervals", &v) ? json_object_get_int(v) : 0;
		g[i].not_counted = json_object_object_get_ex(x, "not_counted", &v) ?
				   json_object_get_int(v) : 0;
		g[i].multiplexed = json_object_object_get_ex(x, "multiplexed", &v) ?
				   json_object_get_int(v) : 0;
		g[i].lost = json_object_object_get_ex(x, "lost", &v) ? json_object_get_int64(v) : 0;
		for (k = 0; k < 4; k++) {
			if (!json_object_object_get_ex(x, lv[k], &l) ||
			    !json_object_is_type(l, json_type_object))
				continue;
			json_object_object_foreach(l, name, val) {
				unsigned int j;

				if (!json_object_is_type(val, json_type_double) &&
				    !json_object_is_type(val, json_type_int))
					continue;
				for (j = 0; k == 0 && j < TD_NR_L1; j++)
					if (!strcmp(td_l1_names[j], name)) {
						g[i].l1[j] = json_object_get_double(val);
						g[i].l1_set[j] = true;
					}
				for (j = 0; k == 1 && j < TD_NR_L2; j++)
					if (!strcmp(td_l2_names[j], name)) {
						g[i].l2[j] = json_object_get_double(val);
						g[i].l2_set[j] = true;
					}
				for (j = 0; k >= 2 && j < TD_NR_L34; j++)
					if (!strcmp(td_l34_names[j], name))
						g[i].l34[j] = json_object_get_double(val);
			}
		}
	}
	json_object_put(o);
	*out = g;
	return true;
}

/**
 * tdnl_cmd_explain() - tdnl explain [-c CPULIST] [-t MS] [--from A.json]
 * @argc: the arguments after "explain"
 * @argv: them
 *
 * Return: 0, 1 when there was nothing to explain (said), 2 on bad usage.
 */
int tdnl_cmd_explain(int argc, char **argv)
{
	unsigned char cpus[TDNL_MAX_CPUS / 8];
	const char *from = NULL;
	struct tdnl_group *g = NULL;
	unsigned long ms = 1000;
	unsigned int ng = 0, level = 0, i;
	double secs = 0;
	int a, ret;

	memset(cpus, 0xff, sizeof(cpus));
	for (a = 0; a < argc; a++) {
		if (!strcmp(argv[a], "-c") && a + 1 < argc) {
			memset(cpus, 0, sizeof(cpus));
			if (!tdnl_cpulist(argv[++a], cpus))
				return tdnl_bad("explain: bad CPU list '%s'", argv[a]);
		} else if (!strcmp(argv[a], "-t") && a + 1 < argc) {
			char *end;

			errno = 0;
			ms = strtoul(argv[++a], &end, 10);
			if (*end || errno || argv[a][0] < '0' || argv[a][0] > '9' || !ms ||
			    ms > 3600000)
				return tdnl_bad("explain: -t: '%s' is not 1..3600000 ms", argv[a]);
		} else if (!strcmp(argv[a], "--from") && a + 1 < argc) {
			from = argv[++a];
		} else if (!strcmp(argv[a], "--thresholds")) {
			tdnl_print_thresholds();
			return 0;
		} else if (!strcmp(argv[a], "-c") || !strcmp(argv[a], "-t") ||
			   !strcmp(argv[a], "--from")) {
			return tdnl_bad("explain: %s needs a value", argv[a]);
		} else {
			return tdnl_bad("explain: unexpected '%s'", argv[a]);
		}
	}
	if (from) {
		if (!from_file(from, &g, &ng, &level, &secs))
			return TDNL_EXIT_ERR;
	} else {
		ret = tdnl_measure(cpus, ms, &g, &ng, &level, &secs);
		if (ret) {
			free(g);
			return ret;
		}
	}
	if (tdnl_format() == TDNL_JSON) {
		printf("[");
		for (i = 0; i < ng; i++)
			json_group(&g[i], !i);
		printf("]\n");
	} else {
		for (i = 0; i < ng; i++)
			text_group(&g[i], level, secs);
		printf("\n");
	}
	free(g);
	return 0;
}
