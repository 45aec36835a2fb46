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
#include <linux/build_bug.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>

#define TDSIM_PPM		1000000U	/* fractions are parts per million */
#define TDSIM_MAX_EVENTS	48	/* <= 64: struct tdsim_cpu's frozen_mask */
static_assert(TDSIM_MAX_EVENTS <= 64);
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
	bool pmmir;			/* Arm: PMUv3p4+, caps/slots says the width */
	const struct tdsim_event *events;
	unsigned int nr_events;
	/* @siblings: SMT threads sharing the core (all run the same profile) */
	void (*rates)(const struct tdsim_model *m, const struct tdsim_profile *p,
		      unsigned int siblings, u32 *rate);
};

/*
 * Cumulative ground truth of a CPU: cycles, slots, then each profile
 * fraction integrated over time, in slots (Levels 1 and 2) or in cycles
 * (the clock-tick memory nodes).  The index is also tdsim_truth's config.
 */
#define TDSIM_TRUTH_CYCLES	0
#define TDSIM_TRUTH_SLOTS	1
#define TDSIM_TRUTH_KEY(key)	(2 + (key))
#define TDSIM_NR_TRUTH		TDSIM_TRUTH_KEY(TDSIM_NR_FRACTIONS)

/*
 * Everything a CPU counts: the model's events, then the truth.  A rate is
 * a count per cycle in ppm.
 */
#define TDSIM_Q_TRUTH		TDSIM_MAX_EVENTS
#define TDSIM_NR_Q		(TDSIM_Q_TRUTH + TDSIM_NR_TRUTH)

#define TDSIM_MAX_PHASES	8
#define TDSIM_PHASE_MS_MAX	10000U

/**
 * struct tdsim_phase - one phase of a plan
 * @p:      its profile
 * @off_ns: where it starts in the period
 * @ns:     how long it lasts; 0: forever (the steady profile)
 * @rate:   count per cycle of every quantity, ppm
 * @before: counts of the phases before it in the period
 */
struct tdsim_phase {
	struct tdsim_profile p;
	u64 off_ns;
	u64 ns;
	u32 rate[TDSIM_NR_Q];
	u64 before[TDSIM_NR_Q];
};

/**
 * struct tdsim_phases - a plan's phases as profiles and durations
 * @nr:     how many
 * @steady: the steady profile, one phase forever (@ms[0] 0)
 * @p:      each one's profile
 * @ms:     and its duration
 */
struct tdsim_phases {
	unsigned int nr;
	bool steady;
	struct tdsim_profile p[TDSIM_MAX_PHASES];
	u32 ms[TDSIM_MAX_PHASES];
};

/**
 * struct tdsim_plan - what a CPU plays from an epoch on
 * @nr:         number of phases
 * @period_ns:  sum of the phase durations; 0: the steady profile, one
 *              phase forever
 * @per_period: counts of one whole period
 * @nominal:    the steady phase's event rates without noise
 * @siblings:   the online SMT threads of the core (1 or 2) it counts for
 * @ph:         the phases
 */
struct tdsim_plan {
	unsigned int nr;
	unsigned int siblings;
	u64 period_ns;
	u64 per_period[TDSIM_NR_Q];
	u32 nominal[TDSIM_MAX_EVENTS];
	struct tdsim_phase ph[];
};

/**
 * struct tdsim_epoch - a plan and when it started
 * @plan:  owned by the epoch
 * @start: tdsim_now() at the start (CLOCK_MONOTONIC ns)
 * @base:  the truth at @start
 */
struct tdsim_epoch {
	struct tdsim_plan *plan;
	u64 start;
	u64 base[TDSIM_NR_TRUTH];
};

/* Epochs kept, so that the truth of a moment before the latest change is exact. */
#define TDSIM_EPOCHS		8

/* Per-CPU simulated PMU state. */
struct tdsim_cpu {
	unsigned int cpu;
	/*
	 * The PMU the CPU belongs to ("tdsim_atom" for atom_cpus=, as an
	 * E-core's is cpu_atom), its model and its counters; set at load.
	 */
	bool atom;
	const struct tdsim_model *model;
	unsigned int gp_counters, fixed_counters;
	/* cpuN/truth shows this moment (ktime), 0: now; READ/WRITE_ONCE */
	u64 truth_at;
	/*
	 * reads of its counters, for stall_every, and until when (ktime) a
	 * stall's crawl lasts (stall_crawl_us); on the CPU, IRQs off
	 */
	unsigned int reads;
	u64 crawl_until;
	/* protects everything below; taken from PMU callbacks with IRQs off */
	raw_spinlock_t lock;
	struct tdsim_profile profile;	/* the steady profile */
	struct tdsim_plan *plan;	/* playing now: epoch[head].plan */
	/*
	 * The counts run from @start, at @base.  That is the epoch's start,
	 * except that noise rebases the counts of a steady profile.
	 */
	u64 start;
	u64 base[TDSIM_MAX_EVENTS];
	u64 last_now;	/* the latest tdsim_now(): time never goes back */
	u64 truth_frozen;	/* tdsim_truth disabled by perf: its moment, or 0 */
	/*
	 * perf holds the CPU's own PMU disabled: its counters stand still, as
	 * a hardware PMU's do.  @frozen_val holds each quantity an added event
	 * counts (@frozen_mask) as it stood; @lost, what each counted while
	 * stopped, which no event sees; @added, the events added per quantity.
	 */
	bool frozen;
	u64 frozen_mask;
	u64 frozen_val[TDSIM_MAX_EVENTS];
	u64 lost[TDSIM_MAX_EVENTS];
	u8 added[TDSIM_MAX_EVENTS];
	/* truth history: a ring of @nr_epochs, the newest at @head */
	struct tdsim_epoch epoch[TDSIM_EPOCHS];
	unsigned int head;
	unsigned int nr_epochs;
	bool pending;		/* epoch[head] set while offline: no start yet */
	u32 gp_used;			/* bitmap of busy GP counters */
	u32 fixed_used;			/* bitmap of busy fixed counters */
	struct perf_event *wd;		/* watchdog=1: the counter it holds */
};

struct tdsim;

/**
 * struct tdsim_pmu - one of tdsim's perf PMUs
 * @pmu:  perf's; its callbacks find the rest with container_of()
 * @sim:  the simulator it belongs to
 * @atom: tdsim_atom, the PMU of atom_cpus=
 */
struct tdsim_pmu {
	struct pmu pmu;
	struct tdsim *sim;
	bool atom;
};

/**
 * struct tdsim - the simulator: its settings, fault knobs, CPUs and PMUs
 * @own:             the model emulated, with slots= and pmmir= applied
 * @model:           the "tdsim" PMU's model: @own
 * @atom_model:      atom_cpus='s model, or NULL
 * @atom_cpus:       the CPUs of tdsim_atom
 * @hybrid:          atom_cpus= given
 * @raw:             raw=1: "tdsim" is PERF_TYPE_RAW's PMU
 * @anythread:       accept Intel's AnyThread bit
 * @freeze:          counters stand still while perf holds the PMU disabled
 * @mediated:        a mediated vPMU can take the PMU
 * @gp_counters:     the "tdsim" PMU's general-purpose counters per CPU
 * @fixed_counters:  and its fixed counters
 * @fail_event_init: debugfs: fail the next N event inits
 * @fail_add:        debugfs: fail the next N counter adds
 * @noise_ppm:       debugfs: jitter of every steady rate; READ_ONCE
 * @stall_every:     debugfs: every Nth read of a CPU's counters stalls
 * @stall_us:        debugfs: for this long
 * @stall_crawl_us:  debugfs: and every read this long after it too
 * @stalls:          debugfs: the reads that stalled
 * @cpus:            each CPU's state
 * @pmu:             "tdsim"
 * @atom_pmu:        "tdsim_atom", with @hybrid
 * @truth_pmu:       "tdsim_truth"
 *
 * The settings are fixed at load; the knobs change at any time.
 */
struct tdsim {
	struct tdsim_model own;
	const struct tdsim_model *model;
	const struct tdsim_model *atom_model;
	struct cpumask atom_cpus;
	bool hybrid;
	bool raw;
	bool anythread;
	bool freeze;
	bool mediated;
	unsigned int gp_counters;
	unsigned int fixed_counters;
	atomic_t fail_event_init;
	atomic_t fail_add;
	u32 noise_ppm;
	u32 stall_every, stall_us, stall_crawl_us;
	atomic_t stalls;
	struct tdsim_cpu __percpu *cpus;
	struct tdsim_pmu pmu, atom_pmu, truth_pmu;
};

static inline struct tdsim_cpu *tdsim_cpu(struct tdsim *sim, unsigned int cpu)
{
	return per_cpu_ptr(sim->cpus, cpu);
}

/* tdsim_intel.c, tdsim_amd.c, tdsim_arm.c */
extern const struct tdsim_model tdsim_skl, tdsim_icl, tdsim_spr;
extern const struct tdsim_model tdsim_gnr, tdsim_lioncove, tdsim_skymont;
extern const struct tdsim_model tdsim_zen4, tdsim_zen5, tdsim_zen6;
extern const struct tdsim_model tdsim_neoverse_n1, tdsim_neoverse_n2;
extern const struct tdsim_model tdsim_neoverse_v2, tdsim_neoverse_v1;
extern const struct tdsim_model tdsim_neoverse_n2_r0, tdsim_ampereone;
extern const struct tdsim_model tdsim_ampereonex;
extern const struct tdsim_model tdsim_neoverse_n3, tdsim_neoverse_v3;
extern const struct tdsim_model tdsim_gracemont, tdsim_crestmont;

/* tdsim_profile.c */
void tdsim_profile_default(const struct tdsim_model *m,
			   struct tdsim_profile *p);
int tdsim_profile_parse(const struct tdsim_model *m, const char *buf,
			struct tdsim_profile *p, const char *what);
int tdsim_profile_print(const struct tdsim_model *m,
			const struct tdsim_profile *p, char sep, char *buf,
			size_t len);
int tdsim_schedule_parse(const struct tdsim_model *m, const char *buf,
			 const struct tdsim_profile *steady,
			 struct tdsim_profile *p, u32 *ms);
bool tdsim_truth_valid(const struct tdsim_model *m, u64 t);
const char *tdsim_truth_name(unsigned int t);
u32 tdsim_scale(u32 frac, u32 mul);
u32 tdsim_ratio(u64 num, u64 den, u32 mul);

/* tdsim_clock.c */
unsigned int tdsim_siblings(unsigned int cpu, unsigned int gone);
struct tdsim_plan *tdsim_plan_new(const struct tdsim_model *m,
				  unsigned int siblings,
				  const struct tdsim_profile *p,
				  const u32 *ms, unsigned int nr);
u64 tdsim_epoch_truth(const struct tdsim_epoch *e, unsigned int t, u64 at);
u64 tdsim_count(const struct tdsim_cpu *sc, unsigned int i, u64 now);
u64 tdsim_now(struct tdsim_cpu *sc);
void tdsim_advance(struct tdsim_cpu *sc, u64 now, u32 noise);
u64 tdsim_read_count(struct tdsim_cpu *sc, unsigned int i, u32 noise);
int tdsim_cpu_install(struct tdsim_cpu *sc, struct tdsim_plan *plan);
void tdsim_cpu_phases(struct tdsim_cpu *sc, struct tdsim_phases *ph);
int tdsim_cpu_set_profile(struct tdsim_cpu *sc, const struct tdsim_profile *p);
int tdsim_cpu_set_schedule(struct tdsim_cpu *sc, const struct tdsim_profile *p,
			   const u32 *ms, unsigned int nr);
int tdsim_cpu_truth(struct tdsim_cpu *sc, u64 at_ns, u64 *at, u64 *truth);
void tdsim_cpu_release(struct tdsim_cpu *sc);

/* tdsim_hotplug.c */
int tdsim_cpu_hp_online(struct tdsim *sim, unsigned int cpu);
int tdsim_cpu_hp_offline(struct tdsim *sim, unsigned int cpu);

/* tdsim_pmu.c */
int tdsim_pmu_register(struct tdsim *sim);
void tdsim_pmu_unregister(struct tdsim *sim);
int tdsim_pmu_type(const struct tdsim *sim, const struct tdsim_cpu *sc);
u64 tdsim_cycles_config(const struct tdsim_model *m);

/* tdsim_watchdog.c */
int tdsim_watchdog_start(struct tdsim *sim);
void tdsim_watchdog_stop(void);

/* tdsim_mediated.c */
struct dentry;
int tdsim_mediated_account(struct perf_event *event);
void tdsim_mediated_debugfs(struct dentry *dir, struct tdsim *sim);

#endif /* _TDSIM_H */
