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

/* the events the nodes' formulas read, over all models (l34.c) */
enum td_l34_event {
	TD_E_CLKS,
	TD_E_CA_STALLS_L1D_MISS,
	TD_E_CA_STALLS_L2_MISS,
	TD_E_CA_STALLS_L3_MISS,
	TD_E_CA_STALLS_MEM_ANY,
	TD_E_L2_HIT,
	TD_E_FB_HIT,
	TD_E_L1_MISS,
	TD_E_FB_FULL_C1,
	TD_E_FB_FULL_PERIODS,
	TD_E_MA_STALLS_L1D_MISS,
	TD_E_MA_STALLS_L2_MISS,
	TD_E_MA_STALLS_L3_MISS,
	TD_E_BOUND_ON_LOADS,
	TD_E_BOUND_ON_STORES,
	TD_E_DATA_RD_C4,
	TD_E_CYCLES_WITH_DATA_RD,
	TD_E_DATA_RD_C12,
	TD_E_LNC_DATA_RD_C4,
	TD_E_MS_L1,
	TD_E_MS_L2,
	TD_E_MS_L3,
	TD_E_MS_MEM,
	TD_E_UC,
	TD_NR_L34_EVENTS,
};

#define TD_L34_NONE	0xff

/* which of a model's event ids each formula event is; TD_L34_NONE if none */
struct td_l34_map {
	unsigned char id[TD_NR_L34_EVENTS];
};

extern const char * const td_l34_names[TD_NR_L34];
/* the nodes in the tree's order, for printing under memory_bound */
extern const unsigned int td_l34_tree[TD_NR_L34];

void td_l34_map(const struct td_event *ev, unsigned int nr,
		struct td_l34_map *map);
double td_l34(const char *model, const struct td_l34_map *map,
	      const double *c, const bool *have, double *pct);

#endif /* _TDNL_L34_H */
