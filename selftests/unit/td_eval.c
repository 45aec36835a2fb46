// SPDX-License-Identifier: GPL-2.0
/*
 * td_eval: a model's formulas on counts, for perf_metrics.py to check
 * against perf's JSON.
 *
 *   td_eval events MODEL            its events' names, one per line
 *   td_eval eval MODEL WIDTH SMT    reads lines of counts (one per event,
 *                                   in order), prints for each one line
 *                                   of NODE=VALUE: Level 1 and 2 in ppm
 *                                   as compute() gives them (WIDTH 0: the
 *                                   model's own), Level 3/4 in percent as
 *                                   tdnl computes them
 *   td_eval x86                     reads lines of VENDOR FAMILY MODEL
 *                                   HYBRID (VENDOR 0 Intel, 1 AMD; HYBRID
 *                                   the CPUID 0x1a EAX or -1), prints
 *                                   td_model_x86()'s model or "none" for
 *                                   each
 *
 * The events are listed as "NAME CONFIG LEVEL".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "td_model.h"
#include "l34.h"

#define MAX_EVENTS	64

static int eval(const struct td_model *base, unsigned int width, bool smt)
{
	struct td_model m = *base;
	double d[MAX_EVENTS], pct[TD_NR_L34];
	bool have[MAX_EVENTS];
	struct td_l34_map map;
	u64 c[MAX_EVENTS];
	char line[4096];
	unsigned int i;

	if (width)
		m.width = width;
	td_l34_map(m.events, m.nr_events, &map);
	while (fgets(line, sizeof(line), stdin)) {
		struct td_result r;
		char *p = line;

		for (i = 0; i < m.nr_events; i++) {
			c[i] = strtoull(p, &p, 10);
			d[i] = (double)c[i];
			have[i] = true;
		}
		if (m.compute(&m, c, smt, &r)) {
			printf("nodata\n");
			continue;
		}
		for (i = 0; i < TD_NR_L1; i++)
			if (td_model_has_l1(&m, i))
				printf("%s=%u ", td_l1_names[i], r.l1[i]);
		for (i = 0; r.has_l2 && i < TD_NR_L2; i++)
			if (td_model_has_l2(&m, i))
				printf("%s=%u ", td_l2_names[i], r.l2[i]);
		if (!isnan(td_l34(m.name, &map, d, have, pct)))
			for (i = 0; i < TD_NR_L34; i++)
				printf("%s=%.12g ", td_l34_names[i], pct[i]);
		printf("\n");
		fflush(stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct td_model *m = argc > 2 ? td_model_find(argv[2]) : NULL;
	unsigned int i;

	if (argc == 2 && !strcmp(argv[1], "x86")) {
		unsigned int vendor, family, model;
		int hybrid;

		while (scanf("%u %i %i %i", &vendor, &family, &model, &hybrid) == 4) {
			m = td_model_x86(vendor ? TD_X86_AMD : TD_X86_INTEL, family,
					 model, hybrid);
			printf("%s\n", m ? m->name : "none");
		}
		return 0;
	}
	if (!m || m->nr_events > MAX_EVENTS) {
		fprintf(stderr, "usage: td_eval events|eval MODEL [WIDTH SMT]\n");
		return 2;
	}
	if (!strcmp(argv[1], "events")) {
		for (i = 0; i < m->nr_events; i++)
			printf("%s %#llx %u\n", m->events[i].name,
			       m->events[i].config, m->events[i].level);
		return 0;
	}
	if (!strcmp(argv[1], "eval") && argc == 5)
		return eval(m, atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr, "usage: td_eval events|eval MODEL [WIDTH SMT]\n");
	return 2;
}
