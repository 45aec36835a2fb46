/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topdown.ko: per-CPU topdown state shared by the module's files.
 */
#ifndef _TOPDOWN_H
#define _TOPDOWN_H

#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include "linux/topdown.h"
#include "td_reg.h"

/* the limits are the YNL spec's, as its netlink policies (uapi header) */
#define TD_INTERVAL_MIN_MS	TOPDOWN_INTERVAL_MIN_MS
#define TD_INTERVAL_MAX_MS	TOPDOWN_INTERVAL_MAX_MS
#define TD_SLICE_MIN_US		500
#define TD_SLICE_MAX_US		100000

enum td_state {
	TD_STATE_OFFLINE,	/* CPU offline: no counters */
	TD_STATE_UNSUPPORTED,	/* no model for this CPU */
	TD_STATE_NO_PMU,	/* no PMU takes the events (a VM without one) */
	TD_STATE_ERROR,		/* a counter could not be created: see err */
	TD_STATE_WAITING,	/* counters created, no complete interval yet */
	TD_STATE_OK,
	TD_STATE_IDLE,		/* the interval counted no slots */
	TD_STATE_NOT_COUNTED,	/* a needed counter never ran in the interval */
	TD_STATE_STOPPED,	/* the module holds no counters: not started */
};

/*
 * Where a CPU's slots per cycle come from: its model's constant, its own
 * PMMIR_EL1.SLOTS (arm64, the hardware PMU), or the caps/slots of the PMU
 * pmu_type= names (tdsim emulates arm_pmuv3's)
 */
enum td_slots_from {
	TD_SLOTS_MODEL,
	TD_SLOTS_PMMIR,
	TD_SLOTS_CAPS,
};

/**
 * struct td_config - what the control layer sets and the core counts by
 * @interval_ms: the sampling interval
 * @slice_us:  the shortest turn of an event set
 * @switch_pct: the most of a CPU's time switching sets may take
 * @level:     1, 2 or 3: the events opened
 * @gen:       one more at each change of the interval or cut: each CPU
 *             then starts a new interval
 * @pmu_type:  perf type to count on, or -1: the CPU's raw events
 * @count_guest: count guest time too
 * @closing:   the hotplug state is being removed: every CPU closes, none
 *             re-evaluates SMT for its siblings
 * @model:     the model of every CPU (model=), or NULL: each CPU's own
 * @atom_model: with @model, the model of CPUs whose own PMU is another
 *
 * Written by td_control.c alone, under its mutex; read with READ_ONCE()
 * where it may change while a CPU samples.
 */
struct td_config {
	unsigned int interval_ms, slice_us, switch_pct, level, gen;
	int pmu_type;
	bool count_guest, closing;
	const struct td_model *model, *atom_model;
};

/**
 * struct td_sample_count - one event's counts in a sample
 * @name:    the form counted (a fixed-counter event's general-purpose one
 *           when it gave its counter up)
 * @delta:   the interval's count
 * @total:   the count since load
 * @enabled: the interval's length, ns
 * @running: the time it counted, ns
 */
struct td_sample_count {
	const char *name;
	u64 delta, total, enabled, running;
};

/**
 * struct td_sample - what a CPU publishes: its latest interval and state
 * @cpu:       the CPU
 * @state:     see enum td_state
 * @err:       with TD_STATE_ERROR, the errno
 * @multiplexed: sets took turns, or another perf user took a counter
 * @skewed:    its snapshots could not read the counters at one moment
 * @core_wide: counted with AnyThread (SMT core-wide)
 * @model:     the model (its static table), or NULL
 * @width:     the slots per cycle it is counted with
 * @slots_from: where @width comes from
 * @seq:       the interval's sequence number (0: none yet)
 * @start_ns:  its start, CLOCK_MONOTONIC
 * @end_ns:    its end
 * @result:    its fractions, with TD_STATE_OK
 * @level:     the level counted
 * @nr_sets:   the event sets that took turns in it
 * @counted:   per level, the lowest share of it any of its events counted
 * @units_total: slots (cycles for a cycle-based model) since load
 * @l1_total:  each Level 1 node's share of them
 * @l2_total:  and each Level 2 node's
 * @present:   the counts that are events of this CPU's (bits of @counts)
 * @nr:        the counts
 * @counts:    per event of the model, by its index
 */
struct td_sample {
	unsigned int cpu;
	enum td_state state;
	int err;
	bool multiplexed, skewed, core_wide;
	const struct td_model *model;
	unsigned int width;
	enum td_slots_from slots_from;
	u64 seq, start_ns, end_ns;
	struct td_result result;
	unsigned int level, nr_sets;
	u32 counted[3];
	u64 units_total, l1_total[TD_NR_L1], l2_total[TD_NR_L2];
	u32 present;
	unsigned int nr;
	struct td_sample_count counts[];
};

/*
 * the one hook a CPU's sample goes out through, under the CPU's lock;
 * true when it sent it
 */
typedef bool (*td_publish_t)(const struct td_sample *s);

/**
 * struct td_counter - one raw event on one CPU
 * @event:    the kernel counter, or NULL when not created
 * @last:     value at the last snapshot it was counting in
 * @last_ns:  when @last was read, CLOCK_MONOTONIC ns
 * @based:    @last is the start of its current window
 * @last_gap: perf's enabled less running time at the end of the last
 *            interval, ns (td_foreign())
 * @calm_lo:  this interval, an event that took turns: the lowest ratio of
 *            its count to its reference's in a judged span of its
 *            windows (td_calm_event()), ppm
 * @calm_hi:  and the highest (@calm_lo U32_MAX: none measured;
 *            td_calm_end())
 * @calm_ref_lo: the last calm interval's @calm_lo (U32_MAX: none)
 * @calm_ref_hi: and its @calm_hi
 * @calm_count: its count in the windows not yet judged (td_calm_event())
 * @calm_ref: and its reference's
 * @calm_ns:  and their time, ns
 * @foreign_ppm: share of its enabled time in the interval that it ran:
 *            below TD_PPM when another perf user took its counter
 * @acc:      this interval so far: its count, its reference's and the
 *            normalizer's, over the windows in which it counted
 * @acc_run:  the time its windows took in this interval, ns
 * @snap_gap: perf's enabled less running time at the last snapshot, ns
 * @snap_on:  it was on its counter at the last snapshot
 * @whole:    as @acc, over only the windows it counted whole: on its
 *            counter at both ends and @snap_gap unchanged, so that another
 *            perf user's rotation took none of it
 * @whole_run: the time those windows took, ns
 * @by_whole: the last interval's count is from @whole (td_foreign())
 * @by_time:  the last interval's count had no whole window and another perf
 *            user took much of its time: perf's running time alone scaled
 *            it (td_foreign(); counted in td_cpu.time_scaled)
 * @delta:    the last interval's count, over the whole interval
 * @total:    cumulative count since load (continues across hotplug)
 * @d_enabled: the last interval's length, ns (the same for every event)
 * @d_running: the time it counted in the last interval, ns
 */
struct td_counter {
	struct perf_event *event;
	u64 last, last_ns;
	bool based, snap_on, by_whole, by_time;
	u32 foreign_ppm;
	u64 last_gap;
	u32 calm_lo, calm_hi, calm_ref_lo, calm_ref_hi;
	u64 calm_count, calm_ref, calm_ns;
	struct td_acc acc;
	u64 acc_run;
	u64 snap_gap;
	struct td_acc whole;
	u64 whole_run;
	u64 delta, total, d_enabled, d_running;
};

/**
 * struct td_stats - what sampling costs (td_stats.c; debugfs stats)
 * @samples:   intervals completed
 * @ticks:     sampling works run (one per time slice)
 * @cost_ns:   time in the sampling work, all of it
 * @switch_ns: of which switching event sets
 * @switches:  switches of event sets done
 * @read_ns:   of which reading the counters once a snapshot, the first
 *             pass: the floor, what any reader of these counters pays
 *             (with the timestamp taken per counter)
 * @reads:     how many snapshots read all a CPU's counting counters
 * @reread_ns: of which reading them again, the passes after the first
 *             when it took too long to be one moment (td_snapshot())
 * @notify_ns: of which publishing the samples (netlink's notifications)
 * @ntf_msgs:  sample notifications multicast
 * @errors:    counters that could not be created
 */
struct td_stats {
	u64 samples, ticks, cost_ns, switch_ns, read_ns, reads, notify_ns;
	u64 reread_ns, ntf_msgs, switches;
	u64 errors;
};

void td_stats_init(void);
void td_stats_add(const struct td_stats *d);
void td_stats_sum(struct td_stats *sum);

/**
 * struct td_scratch - a CPU's working arrays, an entry per counter, kept off
 * the stack (td_scratch_alloc(), with the counters; the sampling work's,
 * under the CPU's lock)
 * @acc: the interval's accumulators, as td_sets_scale() takes them
 * @v:   a snapshot's reads
 * @ts:  their moments
 * @gap: perf's enabled less running time
 * @d:   a window's counts
 * @w:   and the same over the normalizer's window
 * @c:   the counts the formulas take
 */
struct td_scratch {
	struct td_acc *acc;
	u64 *v, *ts, *gap, *d, *w, *c;
};

/**
 * struct td_plan - an interval's plan: its slices and the sets' turns
 * (td_schedule.c)
 * @cur:      the set counting now
 * @tick:     slices done in this interval
 * @ticks:    slices in the span: the interval, or its rest after a calm
 *            interval broke
 * @order:    the order of the sets' turns in this round (td_shuffle())
 * @t0:       this interval's scheduled start, CLOCK_MONOTONIC ns
 * @interval_ns: its length
 * @span_t0:  the start of the span its slices divide
 * @span_ns:  and its length
 * @gen:      the configuration's generation it was made for
 * @switch_avg_ns: a switch of sets here: a moving average, ns (0: none yet)
 * @budget_cuts: intervals planned with fewer rounds, to keep switching
 *            within switch_budget_pct
 */
struct td_plan {
	unsigned int cur, tick, ticks;
	u8 order[TD_MAX_SETS];
	u64 t0, interval_ns, span_t0, span_ns;
	unsigned int gen;
	u64 switch_avg_ns, budget_cuts;
};

/**
 * struct td_calm - whether Level 1 held still over an interval's windows
 * (td_calm.c)
 * @intervals: calm intervals in a row: from TD_CALM_INTERVALS on, the sets
 *            take TD_CALM_ROUNDS turns each an interval
 * @windows:  this interval's spans judged
 * @spread:   the last interval's widest range of Level 1, ppm (0: fewer
 *            than two spans)
 * @lo:       this interval: each Level 1 node's lowest share in a span
 * @hi:       and its highest, ppm
 * @ref_lo:   the last calm interval's @lo
 * @ref_hi:   and its @hi
 * @node:     Level 1 of the windows not yet judged
 * @norm:     and their normalizer
 * @ns:       and their time, ns
 * @plan:     this interval was planned calm
 * @broken:   and a span of it left the last calm interval's range
 * @breaks:   calm intervals sliced again from such a span on
 */
struct td_calm {
	unsigned int intervals, windows;
	u32 spread, lo[TD_NR_L1], hi[TD_NR_L1];
	u32 ref_lo[TD_NR_L1], ref_hi[TD_NR_L1];
	u64 node[TD_NR_L1], norm, ns;
	bool plan, broken;
	u64 breaks;
};

/**
 * struct td_snap_state - how the CPU's snapshots went (td_snapshot.c,
 * td_work.c)
 * @last_ns:  the last snapshot's end, CLOCK_MONOTONIC ns
 * @min_ns:   the fastest pass over all the counters seen, ns
 * @retries:  passes done again because they took too long
 * @rereads:  single counters read again on a last try
 * @slow:     snapshots taken as they were, their reads no moment
 * @max_ns:   the longest of those, ns
 * @waits:    slice ends and turns' starts put off for such reads
 * @turn_waits: of those, turns' starts
 * @wait_ns:  when the snapshot put off was first tried (0: none)
 * @base_wait: the snapshot put off starts a set's turn
 * @spread_ns: the last snapshot's reads' spread when taken slow, else 0
 * @reads_ns: the last snapshot's reads, first start to last end, ns
 * @ival_spread_ns: the largest @spread_ns of the interval being counted
 * @ival_reads_ns: and the largest @reads_ns
 */
struct td_snap_state {
	u64 last_ns, min_ns, retries, rereads, slow, max_ns;
	u64 waits, turn_waits, wait_ns;
	bool base_wait;
	u64 spread_ns, reads_ns, ival_spread_ns, ival_reads_ns;
};

/**
 * struct td_cpu - topdown state of one possible CPU
 * @lock:     protects everything below
 * @cpu:      the CPU
 * @cfg:      the configuration it counts by (td_control.c's)
 * @publish:  where its samples go
 * @model:    its model (@own), or NULL when unsupported
 * @own:      a copy of the model's table with the width this CPU is
 *            counted with
 * @base:     the model @own was copied from
 * @slots_from: where @own's width comes from
 * @smt:      its core's other thread is online
 * @smt_want: what @smt becomes at @smt_work
 * @any_refused: the PMU refused an AnyThread event: counted per thread
 * @core_wide: the formulas take the AnyThread (core-wide) counts
 * @sample_core_wide: @core_wide when the latest interval was computed
 * @cut:      the interval being counted ends early, not counted
 * @smt_work: opens the counters again when @smt_want differs, on this CPU
 * @timer:    ends each time slice, on this CPU
 * @work:     the sampling work the timer queues, on this CPU
 * @active:   the timer and work may run (counters open, CPU online)
 * @state:    see enum td_state
 * @err:      errno of the failed counter creation
 * @err_event: the event it failed on, or NULL
 * @pmu_type: the perf type its events are opened with
 * @pmu_name: the PMU that took them
 * @nr:       counters in use (the model's events for the level)
 * @open:     bitmap of the events opened
 * @ctr:      the counters, room for @nr_ctr
 * @nr_ctr:   that room (td_ctr_reserve())
 * @sets:     the event sets that take turns
 * @reg:      the regression of their events on the ones counted all the
 *            time (td_reg.c), or NULL
 * @reg_size: its allocation, bytes
 * @gp:       general-purpose counters found free
 * @fixed:    fixed counters taken as free (fewer while one is given up)
 * @fixed_max: fixed counters the PMU has
 * @plan:     the interval's slices and turns
 * @started:  the counters have been enabled
 * @starved:  not even the normalizer and one more event got counters
 * @en_ns:    this interval's counted time so far, ns
 * @from_ns:  the start of the interval being counted, CLOCK_MONOTONIC ns
 * @result:   the latest completed interval's fractions
 * @units_total: slots (cycles for a cycle-based model) since load
 * @l1_total: each Level 1 node's share of them
 * @l2_total: and each Level 2 node's
 * @seq:      the latest interval's sequence number
 * @start_ns: its start, CLOCK_MONOTONIC
 * @end_ns:   its end
 * @mux_ppm:  the lowest share of it that any event counted, ppm
 * @counted:  per level, the lowest share of it the level's events counted
 * @nr_sets:  sets that took turns in it
 * @regressed: of its events that took turns, those estimated by regression
 * @turns:    its events that took turns
 * @time_scaled: its events scaled by perf's running time alone
 *            (td_foreign())
 * @scaled_alone: intervals since load in which an event that took turns
 *            was scaled alone
 * @foreign:  another perf user took a counter from an event of ours in the
 *            last interval
 * @planned_foreign: @foreign as the current interval was planned
 * @held_fixed: bitmap of the fixed counters found held by others
 * @held_gp:  general-purpose counters the sets were made without
 * @restarts: times the sets were rebuilt because a counter was taken
 * @calm:     whether Level 1 held still
 * @snap:     how its snapshots went
 * @skew_ns:  the latest interval's widest snapshot spread, ns
 * @skewed:   and it was more than TD_SKEW_DIV-th of that interval
 * @skewed_intervals: intervals so flagged since load
 * @cost:     this sampling work's costs, added to the statistics at its end
 * @sample:   the latest interval's sample, as published
 * @scr:      the sampling work's arrays, room for @nr_ctr counters
 */
struct td_cpu {
	struct mutex lock;	/* protects everything below */
	unsigned int cpu;
	const struct td_config *cfg;
	td_publish_t publish;
	const struct td_model *model;
	struct td_model own;
	const struct td_model *base;
	enum td_slots_from slots_from;
	bool smt, smt_want, any_refused, core_wide, sample_core_wide, cut;
	struct work_struct smt_work;
	struct hrtimer timer;
	struct work_struct work;
	bool active;
	enum td_state state;
	int err;
	const char *err_event;
	int pmu_type;
	char pmu_name[24];
	unsigned int nr;
	u32 open;
	struct td_counter *ctr;
	unsigned int nr_ctr;
	struct td_sets sets;
	struct td_reg *reg;
	size_t reg_size;
	unsigned int gp, fixed, fixed_max;
	struct td_plan plan;
	bool started, starved;
	u64 en_ns, from_ns;
	struct td_result result;
	u64 units_total, l1_total[TD_NR_L1], l2_total[TD_NR_L2];
	u64 seq, start_ns, end_ns;
	u32 mux_ppm;
	u32 counted[3];
	unsigned int nr_sets;
	unsigned int regressed, turns, time_scaled;
	u64 scaled_alone;
	bool foreign, planned_foreign;
	u32 held_fixed;
	unsigned int held_gp;
	u64 restarts;
	struct td_calm calm;
	struct td_snap_state snap;
	u64 skew_ns, skewed_intervals;
	bool skewed;
	struct td_stats cost;
	struct td_sample *sample;
	struct td_scratch scr;
};

/*
 * Multiplexed: event sets take turns, or some counter ran less than this
 * share of the interval (another perf user took it; a few microseconds of
 * scheduling in perf are not that).
 */
#define TD_MUX_BELOW_PPM	999000U

/*
 * Skewed: a snapshot of the interval (its bounds, or a turn's within it)
 * could not read its counters at one moment, and its reads spread over more
 * than this fraction of the interval.  A change of phase inside them moves
 * a fraction by at most its swing times the share of the interval they
 * spread over.
 */
#define TD_SKEW_DIV		1000U

/*
 * Whether @tc's counters are all closed (offline, or the module stopped):
 * its raw totals are then every opened event's, as they were at the close
 */
static inline bool td_closed(const struct td_cpu *tc)
{
	return tc->state == TD_STATE_OFFLINE || tc->state == TD_STATE_STOPPED;
}

static inline bool td_multiplexed(const struct td_cpu *tc)
{
	return tc->nr_sets > 1 || tc->mux_ppm < TD_MUX_BELOW_PPM;
}

/* td_core.c: the core's state, for the control layer and the front ends */
int td_core_init(const struct td_config *cfg, td_publish_t publish);
void td_core_exit(void);
struct td_cpu *td_cpu_of(unsigned int cpu);
struct td_sample *td_sample_alloc(void);
void td_cpu_sample(unsigned int cpu, struct td_sample *s);
void td_core_stopped(bool stopped);
size_t td_cpu_memory(void);
const char *td_state_name(enum td_state s);
const char *td_slots_from_name(enum td_slots_from from);

/* td_hotplug.c: the CPU hotplug callbacks */
int td_cpu_online(unsigned int cpu);
int td_cpu_offline(unsigned int cpu);
void td_cpu_kick_all(void);

/* td_control.c: start, stop, level, interval */
int td_control_init(const struct td_config *params, td_publish_t publish);
void td_control_exit(void);
int td_control_start(void);
const struct td_config *td_config(void);
int td_set_level(unsigned int level);
void td_set_interval(unsigned int ms);
void td_end_intervals(void);
int td_set_running(bool on);
bool td_running(void);

/* td_debugfs.c, td_netlink.c: the front ends */
int td_debugfs_init(void);
void td_debugfs_exit(void);
int td_nl_init(void);
void td_nl_exit(void);
bool td_nl_publish(const struct td_sample *s);

#endif /* _TOPDOWN_H */
