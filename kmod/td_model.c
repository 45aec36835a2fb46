// SPDX-License-Identifier: GPL-2.0
/* topdown: what every model shares. */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#else
#include <stdio.h>
#include <string.h>
#endif
#include "td_model.h"

/* an Intel family 6 core's model; @atom, @native: its CPUID 0x1a core type */
static const struct td_model *td_model_intel6(unsigned int model, bool atom,
					      unsigned int native)
{
	switch (model) {
	case 0x4e: case 0x5e: case 0x8e: case 0x9e:	/* skylake */
	case 0xa5: case 0xa6: case 0x55:		/* skylake, skylakex */
		return &td_model_skl;
	case 0x7d: case 0x7e: case 0x6a: case 0x6c:	/* icelake, icelakex */
	case 0x8c: case 0x8d:				/* tigerlake */
	case 0xa7:	/* rocketlake: icl-metrics.json's Level 1/2 */
		return &td_model_icl;
	case 0xad: case 0xae:				/* graniterapids */
		return &td_model_gnr;
	case 0x8f: case 0xcf:				/* sapphirerapids, EMR */
		return &td_model_spr;
	case 0x97: case 0x9a: case 0xb7: case 0xba: case 0xbf:	/* alderlake */
		/* cpu_core's Level 1/2 are spr's, cpu_atom's Gracemont's */
		if (atom)
			return &td_model_gracemont;
		return &td_model_spr;
	case 0xaa: case 0xac: case 0xb5:	/* meteorlake (0xb5: ARL-U) */
		if (atom)
			return &td_model_crestmont;
		return &td_model_spr;
	case 0xc5: case 0xc6: case 0xbd:		/* arrowlake, lunarlake */
		/*
		 * Arrow Lake H's low-power E-cores are Crestmont (their
		 * PMU is cpu_lowpower; arl-metrics.json has no table for
		 * it, mtl-metrics.json's cpu_atom is theirs)
		 */
		if (atom && model == 0xc5 && native == TD_NATIVE_CMT)
			return &td_model_crestmont;
		if (atom)
			return &td_model_skymont;
		return &td_model_lioncove;
	case 0xbe:			/* alderlaken: E-cores only */
		return &td_model_gracemont;
	case 0xaf: case 0xb6:		/* sierraforest, grandridge */
		return &td_model_crestmont;
	}
	return NULL;
}

static const struct td_model *td_model_amd(unsigned int family, unsigned int model)
{
	/* mapfile: family 0x19 models 00-0f, 20-2f, 40-5f are Zen 3 */
	if (family == 0x19) {
		switch (model >> 4) {
		case 0x0: case 0x2: case 0x4: case 0x5:
			return NULL;
		}
		return &td_model_zen4;
	}
	if (family == 0x1a) {
		switch (model >> 4) {
		case 0x0: case 0x1: case 0x2: case 0x4: case 0x6: case 0x7:
			return &td_model_zen5;
		}
		return &td_model_zen6;
	}
	return NULL;
}

/**
 * td_model_x86() - the model of an x86 CPU, as perf's x86/mapfile.csv maps it
 * @vendor: Intel or AMD
 * @family: its family
 * @model:  its model number
 * @hybrid: on a hybrid part (X86_FEATURE_HYBRID_CPU) this core's CPUID 0x1a
 *          EAX (TD_HYBRID()), else TD_NOT_HYBRID
 *
 * AMD family 0x1a follows 7.3's mapfile, which gives some models to amdzen6
 * (6.12's gives them all to amdzen5).
 *
 * Return: the model, or NULL (unknown CPUs are not supported).
 */
const struct td_model *td_model_x86(enum td_x86_vendor vendor, unsigned int family,
				    unsigned int model, int hybrid)
{
	bool atom = hybrid >= 0 && (unsigned int)hybrid >> 24 == TD_CORE_ATOM;
	unsigned int native = hybrid >= 0 ? hybrid & 0xffffff : 0;

	if (vendor == TD_X86_INTEL && family == 6)
		return td_model_intel6(model, atom, native);
	if (vendor == TD_X86_AMD)
		return td_model_amd(family, model);
	return NULL;
}

/**
 * td_model_arm() - the model of an Arm CPU, as perf's arm64/mapfile.csv maps it
 * @midr: the CPU's MIDR_EL1
 *
 * Neoverse N2 r0p0 to r0p2 have a model of their own, as perf's N2
 * expressions differ for them (td_arm.c).  N3 and V3 are in 7.3's mapfile
 * only; AmpereOne X is AmpereOne with one event number apart.
 *
 * Return: the model, or NULL.
 */
const struct td_model *td_model_arm(u32 midr)
{
	unsigned int implementer = midr >> 24, variant = (midr >> 20) & 0xf;
	unsigned int part = (midr >> 4) & 0xfff, revision = midr & 0xf;

	if (implementer == 0xc0 && part == 0xac3)
		return &td_model_ampereone;
	if (implementer == 0xc0 && part == 0xac4)
		return &td_model_ampereonex;
	if (implementer != 0x41)	/* Arm */
		return NULL;
	switch (part) {
	case 0xd0c:	/* Neoverse N1 */
		return &td_model_neoverse_n1;
	case 0xd40:	/* Neoverse V1 */
		return &td_model_neoverse_v1;
	case 0xd49:	/* Neoverse N2 */
		if (!variant && revision <= 2)
			return &td_model_neoverse_n2_r0;
		return &td_model_neoverse_n2;
	case 0xd4f:	/* Neoverse V2 */
		return &td_model_neoverse_v2;
	case 0xd8e:	/* Neoverse N3 (7.3's mapfile) */
		return &td_model_neoverse_n3;
	case 0xd83:	/* Neoverse V3 */
		return &td_model_neoverse_v3;
	}
	return NULL;
}

/**
 * td_model_nr_events() - how many of a model's events a level needs
 * @m:     the model
 * @level: 1, 2 or 3
 *
 * Return: the number of events, those of the lower levels coming first.
 */
unsigned int td_model_nr_events(const struct td_model *m, unsigned int level)
{
	unsigned int i;

	for (i = 0; i < m->nr_events; i++)
		if (m->events[i].level > level)
			break;
	return i;
}

/**
 * td_model_has_l1() - whether a model measures a Level 1 node
 * @m:    the model
 * @node: the node
 *
 * Nodes a model does not measure are 0 in its results, shown as n/a or not
 * at all.
 *
 * Return: true if @m measures @node.
 */
bool td_model_has_l1(const struct td_model *m, enum td_l1 node)
{
	switch (node) {
	case TD_RETIRING:
	case TD_BAD_SPECULATION:
		return !m->cycle_based;
	case TD_SMT_CONTENTION:
		return m->vendor == TD_AMD;
	case TD_NOT_STALLED:
		return m->cycle_based;
	default:
		return true;
	}
}

/* the node names debugfs and tdnl print, as perf's metric names in snake case */
const char * const td_l1_names[TD_NR_L1] = {
	[TD_RETIRING] = "retiring",
	[TD_BAD_SPECULATION] = "bad_speculation",
	[TD_FRONTEND_BOUND] = "frontend_bound",
	[TD_BACKEND_BOUND] = "backend_bound",
	[TD_SMT_CONTENTION] = "smt_contention",
	[TD_NOT_STALLED] = "not_stalled",
};

const char * const td_l2_names[TD_NR_L2] = {
	[TD_LIGHT_OPERATIONS] = "light_operations",
	[TD_HEAVY_OPERATIONS] = "heavy_operations",
	[TD_BRANCH_MISPREDICTS] = "branch_mispredicts",
	[TD_MACHINE_CLEARS] = "machine_clears",
	[TD_FETCH_LATENCY] = "fetch_latency",
	[TD_FETCH_BANDWIDTH] = "fetch_bandwidth",
	[TD_MEMORY_BOUND] = "memory_bound",
	[TD_CORE_BOUND] = "core_bound",
	[TD_RESOURCE_BOUND] = "resource_bound",
	[TD_OTHER_MISPREDICTS] = "other_mispredicts",
};

/* each Level 2 node's Level 1 parent, whichever model publishes it */
const u8 td_l2_parent[TD_NR_L2] = {
	[TD_LIGHT_OPERATIONS] = TD_RETIRING,
	[TD_HEAVY_OPERATIONS] = TD_RETIRING,
	[TD_BRANCH_MISPREDICTS] = TD_BAD_SPECULATION,
	[TD_MACHINE_CLEARS] = TD_BAD_SPECULATION,
	[TD_OTHER_MISPREDICTS] = TD_BAD_SPECULATION,
	[TD_FETCH_LATENCY] = TD_FRONTEND_BOUND,
	[TD_FETCH_BANDWIDTH] = TD_FRONTEND_BOUND,
	[TD_MEMORY_BOUND] = TD_BACKEND_BOUND,
	[TD_CORE_BOUND] = TD_BACKEND_BOUND,
	[TD_RESOURCE_BOUND] = TD_BACKEND_BOUND,
};

/* every model, for model= and for tdnl, which shares these tables */
const struct td_model * const td_models[] = {
	&td_model_skl, &td_model_icl, &td_model_spr, &td_model_zen4,
	&td_model_zen5, &td_model_neoverse_n1, &td_model_neoverse_n2,
	&td_model_neoverse_n2_r0, &td_model_neoverse_v1, &td_model_neoverse_v2,
	&td_model_gracemont, &td_model_crestmont, &td_model_ampereone,
	&td_model_ampereonex, &td_model_gnr, &td_model_lioncove,
	&td_model_skymont, &td_model_zen6, &td_model_neoverse_n3,
	&td_model_neoverse_v3,
};

const unsigned int td_nr_models = ARRAY_SIZE(td_models);

/* the model named @name (as model= takes it), or NULL */
const struct td_model *td_model_find(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < td_nr_models; i++)
		if (!strcmp(name, td_models[i]->name))
			return td_models[i];
	return NULL;
}

/* every model's name, space separated, in @buf of @len (for error messages) */
void td_model_names(char *buf, size_t len)
{
	size_t at = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < td_nr_models && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%s", i ? " " : "",
			       td_models[i]->name);
}

/* Level 2 of Intel Core and AMD Zen: the measured child, its sibling, parent */
const struct td_pair td_core_pairs[TD_NR_CORE_PAIRS] = {
	{ TD_HEAVY_OPERATIONS, TD_LIGHT_OPERATIONS, TD_RETIRING },
	{ TD_BRANCH_MISPREDICTS, TD_MACHINE_CLEARS, TD_BAD_SPECULATION },
	{ TD_FETCH_LATENCY, TD_FETCH_BANDWIDTH, TD_FRONTEND_BOUND },
	{ TD_MEMORY_BOUND, TD_CORE_BOUND, TD_BACKEND_BOUND },
};

/* whether @m publishes Level 2 node @node */
bool td_model_has_l2(const struct td_model *m, enum td_l2 node)
{
	unsigned int i;

	for (i = 0; m && i < m->nr_pairs; i++)
		if (m->pairs[i].child == node || m->pairs[i].sibling == node)
			return true;
	return false;
}

/**
 * td_finish() - make a model's raw fractions publishable
 * @m: the model, for its Level 2 pairs
 * @r: in: l1[] as the formulas gave them (each within 0..TD_PPM) and, for
 *     Level 2, the measured child of each pair; out: Level 1 adding up to
 *     exactly TD_PPM, each Level 2 pair adding up to its parent
 *
 * Multiplexed counters sample different windows, so the raw Level 1 can add
 * up to a little more or less than the whole; it is scaled to fit.
 */
void td_finish(const struct td_model *m, struct td_result *r)
{
	unsigned int i;

	td_fit(r->l1, TD_NR_L1, TD_PPM);
	if (!r->has_l2)
		return;
	for (i = 0; i < m->nr_pairs; i++) {
		const struct td_pair *p = &m->pairs[i];

		td_split(r->l1[p->parent], r->l2[p->child], &r->l2[p->child],
			 &r->l2[p->sibling]);
	}
}
