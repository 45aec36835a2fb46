/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdsim: a simulated PMU for testing topdown.ko where no hardware PMU exists.
 *
 * tdsim registers a real perf PMU that accepts the raw event encodings of one
 * chosen CPU model.  Each CPU has a ground-truth profile (the topdown
 * fractions it should show); every event advances at the rate that model's
 * formulas need to give that profile back.  Like netdevsim, it exists only so
 * tests can drive the real code paths.
 */
#ifndef _TDSIM_H
#define _TDSIM_H

#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/atomic.h>

#define TDSIM_PPM		1000000U	/* fractions are parts per million */
#define TDSIM_MAX_EVENTS	48
#define TDSIM_MAX_GP		16
#define TDSIM_MAX_FIXED		4

enum tdsim_vendor {
	TDSIM_INTEL,
	TDSIM_AMD,
	TDSIM_ARM,
};

/* Ground truth, all fractions in ppm, as written to cpuN/profile. */
enum tdsim_key {
	/* Level 1: slot fractions, adding up to exactly 100 % */
	TDSIM_RETIRING,
	TDSIM_BAD_SPECULATION,
	TDSIM_FRONTEND_BOUND,
	TDSIM_BACKEND_BOUND,
	TDSIM_SMT_CONTENTION,		/* AMD Zen only */
	/* Level 2: each at most its parent */
	TDSIM_HEAVY_OPERATIONS,
	TDSIM_BRANCH_MISPREDICTS,
	TDSIM_FETCH_LATENCY,
	TDSIM_MEMORY_BOUND,
	/* Intel clock-tick memory nodes (fractions of cycles) */
	TDSIM_L1_BOUND,
	TDSIM_L2_BOUND,
	TDSIM_L3_BOUND,
	TDSIM_DRAM_BOUND,
	TDSIM_STORE_BOUND,
	TDSIM_MEM_BANDWIDTH,
	TDSIM_MEM_LATENCY,
	TDSIM_NR_FRACTIONS,
	TDSIM_FREQ_MHZ = TDSIM_NR_FRACTIONS,	/* not a fraction */
	TDSIM_NR_KEYS,
};

struct tdsim_profile {
	u32 v[TDSIM_NR_KEYS];
};

/**
 * struct tdsim_event - one raw event the emulated CPU counts
 * @config:  raw perf config, exactly as perf's JSON encodes it
 * @name:    the event's name in perf's JSON
 * @gp_mask: general-purpose counters it may use (0: fixed counter only)
 * @fixed:   fixed counter that can hold it, or -1
 */
struct tdsim_event {
	u64 config;
	const char *name;
	u16 gp_mask;
	s8 fixed;
};

/* Slot accounting of one CPU: rate[i] is event i's count per cycle, in ppm. */
struct tdsim_model {
	const char *name;
	enum tdsim_vendor vendor;
	unsigned int width;		/* pipeline slots per cycle */
	unsigned int gp_counters;	/* default general-purpose counters */
	unsigned int fixed_counters;
	bool smt_contention;		/* profile has smt_contention */
	bool mem_from_stalls;		/* memory_bound derives from stall cycles */
	const struct tdsim_event *events;
	unsigned int nr_events;
	/* @siblings: SMT threads sharing the core (all run the same profile) */
	void (*rates)(const struct tdsim_model *m, const struct tdsim_profile *p,
		      unsigned int siblings, u32 *rate);
};

/* Per-CPU simulated PMU state. */
struct tdsim_cpu {
	/* protects everything below; taken from PMU callbacks with IRQs off */
	raw_spinlock_t lock;
	unsigned int cpu;
	struct tdsim_profile profile;
	u64 epoch_ns;			/* when base[] was last rebased */
	bool epoch_valid;		/* epoch_ns is on this CPU's clock */
	u64 base[TDSIM_MAX_EVENTS];	/* counts at epoch_ns */
	u32 rate[TDSIM_MAX_EVENTS];	/* current per-cycle rate, ppm */
	u32 nominal[TDSIM_MAX_EVENTS];	/* rate without noise */
	u32 gp_used;			/* bitmap of busy GP counters */
	u32 fixed_used;			/* bitmap of busy fixed counters */
};

extern const struct tdsim_model *tdsim_model;
extern unsigned int tdsim_gp_counters;
extern atomic_t tdsim_fail_event_init;
extern atomic_t tdsim_fail_add;
extern u32 tdsim_noise_ppm;

struct tdsim_cpu *tdsim_cpu(unsigned int cpu);

/* tdsim_intel.c, tdsim_amd.c, tdsim_arm.c */
extern const struct tdsim_model tdsim_skl, tdsim_icl, tdsim_spr;
extern const struct tdsim_model tdsim_zen4, tdsim_zen5;
extern const struct tdsim_model tdsim_neoverse_n1, tdsim_neoverse_n2;
extern const struct tdsim_model tdsim_neoverse_v2;

/* tdsim_profile.c */
void tdsim_profile_default(const struct tdsim_model *m,
			   struct tdsim_profile *p);
int tdsim_profile_parse(const struct tdsim_model *m, const char *buf,
			struct tdsim_profile *p);
int tdsim_profile_print(const struct tdsim_model *m,
			const struct tdsim_profile *p, char *buf, size_t len);
u32 tdsim_scale(u32 frac, u32 mul);
u32 tdsim_ratio(u64 num, u64 den, u32 mul);

/* tdsim_pmu.c */
void tdsim_cpu_set_profile(struct tdsim_cpu *sc, const struct tdsim_profile *p);
int tdsim_pmu_register(void);
void tdsim_pmu_unregister(void);

#endif /* _TDSIM_H */
