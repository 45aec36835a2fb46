/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topdown.ko: per-CPU topdown state shared by the module's files.
 */
#ifndef _TOPDOWN_H
#define _TOPDOWN_H

#include <linux/mutex.h>
#include <linux/workqueue.h>
#include "td_model.h"

#define TD_VERSION	"0.4"
#define TD_MAX_EVENTS	32	/* the smt_only bitmaps are u32 */
#define TD_INTERVAL_MIN_MS	10
#define TD_INTERVAL_MAX_MS	60000

enum td_state {
	TD_STATE_OFFLINE,	/* CPU offline: no counters */
	TD_STATE_UNSUPPORTED,	/* no model for this CPU */
	TD_STATE_NO_PMU,	/* no PMU takes the events (a VM without one) */
	TD_STATE_ERROR,		/* a counter could not be created: see err */
	TD_STATE_WAITING,	/* counters created, no complete interval yet */
	TD_STATE_OK,
	TD_STATE_IDLE,		/* the interval counted no slots */
	TD_STATE_NOT_COUNTED,	/* a needed counter never ran in the interval */
};

/**
 * struct td_counter - one raw event on one CPU
 * @event:    the kernel counter, or NULL when not created
 * @value:    raw value at the last read in which the counter had run
 * @enabled:  enabled time at that read, ns
 * @running:  running time at that read, ns
 * @read_enabled: enabled time at the last read, ns
 * @delta:    the last interval's count, scaled by enabled / running
 * @total:    cumulative scaled count since load (continues across hotplug)
 * @d_enabled: the last interval's enabled time
 * @d_running: the last interval's running time
 *
 * A counter that did not run in an interval keeps value, enabled and
 * running: the next interval in which it runs scales its count over the
 * whole span, so the total misses nothing.
 */
struct td_counter {
	struct perf_event *event;
	u64 value, enabled, running, read_enabled;
	u64 delta, total, d_enabled, d_running;
};

/**
 * struct td_cpu - topdown state of one possible CPU
 * @lock:     protects everything below
 * @cpu:      the CPU
 * @model:    its model, or NULL when unsupported
 * @smt:      its core's other thread is online
 * @work:     the sampling work, on this CPU
 * @state:    see enum td_state
 * @err:      errno of the failed counter creation
 * @nr:       counters in use (the model's events for the level)
 * @ctr:      the counters
 * @result:   the latest completed interval
 * @seq:      its sequence number
 * @start_ns: its start, CLOCK_MONOTONIC
 * @end_ns:   its end
 * @mux_ppm:  lowest running / enabled of its counters, ppm
 */
struct td_cpu {
	struct mutex lock;	/* protects everything below */
	unsigned int cpu;
	const struct td_model *model;
	bool smt;
	struct delayed_work work;
	enum td_state state;
	int err;
	unsigned int nr;
	struct td_counter ctr[TD_MAX_EVENTS];
	struct td_result result;
	u64 seq, start_ns, end_ns;
	u32 mux_ppm;
};

extern unsigned int td_interval_ms;
extern unsigned int td_level;
extern int td_pmu_type;
extern const struct td_model *td_forced_model;
extern const struct td_model * const td_models[];
extern const unsigned int td_nr_models;

/* statistics, under td_stats_lock */
struct td_stats {
	u64 samples, cost_ns, errors;
};

extern struct td_stats td_stats;
extern spinlock_t td_stats_lock;

struct td_cpu *td_cpu(unsigned int cpu);
const char *td_state_name(enum td_state s);
int td_set_level(unsigned int level);

/* td_cpu.c */
int td_cpu_online(unsigned int cpu);
int td_cpu_offline(unsigned int cpu);
void td_cpu_init(struct td_cpu *tc, unsigned int cpu);

/* td_netlink.c */
int td_nl_init(void);
void td_nl_exit(void);
void td_nl_notify(struct td_cpu *tc);

/* td_debugfs.c */
void td_debugfs_init(void);
void td_debugfs_exit(void);

#endif /* _TOPDOWN_H */
