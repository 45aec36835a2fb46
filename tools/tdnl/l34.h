/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdnl: the clock-tick Level 3/4 memory nodes of Intel TMA, from the raw
 * counts topdown.ko publishes at level=3.
 */
#ifndef _TDNL_L34_H
#define _TDNL_L34_H

#include <stdbool.h>
#include "td_model.h"

/* Level 3 under memory_bound, then Level 4 under dram_bound */
enum td_l34 {
	TD_L1_BOUND,
	TD_L2_BOUND,
	TD_L3_BOUND,
	TD_DRAM_BOUND,
	TD_STORE_BOUND,
	TD_MEM_BANDWIDTH,
	TD_MEM_LATENCY,
	TD_NR_L34,
};

#define TD_FIRST_L4	TD_MEM_BANDWIDTH

extern const char * const td_l34_names[TD_NR_L34];

double td_l34(const char *model, const struct td_event *ev, unsigned int nr,
	      const double *c, const bool *have, double *pct);

#endif /* _TDNL_L34_H */
