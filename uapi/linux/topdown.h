/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	specs/topdown.yaml */
/* YNL-GEN uapi header */

/*
 * Per-CPU Top-Down Microarchitecture Analysis (topdown.ko) over generic
 * netlink.
 *
 * The family "topdown" (TOPDOWN_FAMILY_NAME) exists in the initial network
 * namespace only.  Every command needs CAP_PERFMON or CAP_SYS_ADMIN in the
 * initial user namespace: the counters are a side channel, like perf's
 * CPU-wide events.  Joining the multicast group needs CAP_SYS_ADMIN, the
 * only check genetlink makes on a join.  Others get EPERM.
 *
 * TOPDOWN_CMD_GET_INFO (do) replies with the module's version, level,
 * interval and whether it runs, and one TOPDOWN_A_INFO_MODEL nest per model
 * the module knows, with its events: id, perf name, raw config and level.
 * Its size does not grow with the CPUs: TOPDOWN_CMD_GET_CPU gives a CPU's
 * model, the slots per cycle its fractions are computed with and where
 * they come from, and its state: do, with TOPDOWN_A_CPU_INFO_CPU; or dump,
 * one message per possible CPU.
 *
 * Every interval, each CPU's sampling work computes Level 1 and Level 2
 * from its counts.  TOPDOWN_CMD_GET_SAMPLE replies with a CPU's latest
 * completed interval: do, with TOPDOWN_A_SAMPLE_CPU; or dump, one message
 * per possible CPU.  A sample carries the interval's sequence number, its
 * start and end (CLOCK_MONOTONIC ns), state flags (enum topdown_state),
 * Level 1 and Level 2 in parts per million (Level 1 adds up to exactly
 * 1000000, each Level 2 pair to its parent; both nests are absent when the
 * interval has no valid fractions), and one TOPDOWN_A_SAMPLE_COUNT nest per
 * raw event, whose id is the event's id in the model given by GET_INFO.
 * When a level's events do not fit the free counters, the module counts
 * them in sets that take turns (TOPDOWN_A_SAMPLE_SETS), and each level's
 * TOPDOWN_A_SAMPLE_LEVELn_COUNTED says how much of the interval its least
 * counted event counted.  Each count covers the whole interval: an event
 * counted in part of it is scaled by a reference event counted in the same
 * windows, and the model's formulas applied to the counts give exactly the
 * sample's fractions.  Totals continue across CPU hotplug, so a listener
 * that missed intervals takes the difference of two totals.
 *
 * TOPDOWN_CMD_SET_CONFIG sets the interval (TOPDOWN_INTERVAL_MIN_MS to
 * TOPDOWN_INTERVAL_MAX_MS), the level (1 to TOPDOWN_LEVEL_MAX) and/or
 * whether the module counts (TOPDOWN_A_CONFIG_RUNNING 1 or 0); a value out
 * of range is refused by the policy with ERANGE, the extack naming the
 * attribute and giving the range, and nothing changes.  The module loads
 * stopped (unless its start=1 parameter is given): it holds no counter,
 * every CPU's state is TOPDOWN_STATE_STOPPED, and the family's autoload by
 * any user's lookup takes nothing.
 *
 * TOPDOWN_CMD_SAMPLE_NTF, in the same form as a GET_SAMPLE reply, goes to
 * the multicast group "samples" (TOPDOWN_MCGRP_SAMPLES) from each CPU at
 * the end of each of its intervals: one message per CPU, so the size of a
 * message does not grow with the number of CPUs.  Nothing is built while
 * no one listens.
 *
 * u64 attributes are 64-bit aligned with a pad attribute of their set.
 *
 * Generated from the YNL spec uapi/topdown.yaml by make ynl-gen: the
 * kernel's ynl-gen-c.py, then selftests/netlink/ynl_doc.py for the
 * kernel-doc of the attributes and commands.
 */

#ifndef _UAPI_LINUX_TOPDOWN_H
#define _UAPI_LINUX_TOPDOWN_H

#define TOPDOWN_FAMILY_NAME	"topdown"
#define TOPDOWN_FAMILY_VERSION	1

#define TOPDOWN_INTERVAL_MIN_MS	10
#define TOPDOWN_INTERVAL_MAX_MS	60000
#define TOPDOWN_LEVEL_MAX	3

/**
 * enum topdown_state - State of a CPU's latest interval.
 * @TOPDOWN_STATE_OFFLINE: The CPU is offline; it has no counters.
 * @TOPDOWN_STATE_WAITING: Counters are open; no interval has completed yet.
 * @TOPDOWN_STATE_IDLE: The interval counted no slots; nothing was divided.
 * @TOPDOWN_STATE_UNSUPPORTED: No model for this CPU (give the module model=).
 * @TOPDOWN_STATE_NO_PMU: No PMU takes the events (a VM without PMU
 *   passthrough).
 * @TOPDOWN_STATE_ERROR: A counter could not be created; see the errno
 *   attribute.
 * @TOPDOWN_STATE_NOT_COUNTED: A needed counter never ran in the interval; no
 *   fractions.
 * @TOPDOWN_STATE_MULTIPLEXED: Some counter ran for only part of the interval
 *   (scaled).
 * @TOPDOWN_STATE_SMT_CORE: The formulas took AnyThread (SMT core-wide) counts;
 *   absent: per thread.
 * @TOPDOWN_STATE_STOPPED: The module is stopped (loaded, not started): it
 *   holds no counters.
 * @TOPDOWN_STATE_SKEWED: A snapshot of the interval, taken slow (it could not
 *   read its counters at one moment: the CPU was held up among its reads, a
 *   vCPU the host descheduled, an SMI), spread its reads over more than 0.1 %
 *   of the interval; a change of phase among them can move a fraction by up to
 *   that share of the phase's swing. In an interval shorter than half the set
 *   length (the rest of one after an end put off), any snapshot's reads so
 *   spread. Only with fractions (no other state flag but multiplexed or
 *   smt-core).
 */
enum topdown_state {
	TOPDOWN_STATE_OFFLINE = 1,
	TOPDOWN_STATE_WAITING = 2,
	TOPDOWN_STATE_IDLE = 4,
	TOPDOWN_STATE_UNSUPPORTED = 8,
	TOPDOWN_STATE_NO_PMU = 16,
	TOPDOWN_STATE_ERROR = 32,
	TOPDOWN_STATE_NOT_COUNTED = 64,
	TOPDOWN_STATE_MULTIPLEXED = 128,
	TOPDOWN_STATE_SMT_CORE = 256,
	TOPDOWN_STATE_STOPPED = 512,
	TOPDOWN_STATE_SKEWED = 1024,
};

/**
 * enum topdown_slots_from - Where a CPU's slots per cycle (its width) come
 *   from.
 * @TOPDOWN_SLOTS_FROM_MODEL: The model's constant.
 * @TOPDOWN_SLOTS_FROM_PMMIR: The CPU's own PMMIR_EL1.SLOTS (arm64 PMUv3p4 and
 *   later).
 * @TOPDOWN_SLOTS_FROM_CAPS: The caps/slots attribute of the PMU given as
 *   pmu_type.
 */
enum topdown_slots_from {
	TOPDOWN_SLOTS_FROM_MODEL,
	TOPDOWN_SLOTS_FROM_PMMIR,
	TOPDOWN_SLOTS_FROM_CAPS,
};

/**
 * enum topdown_a_event - attributes: One raw event of a model.
 * @TOPDOWN_A_EVENT_ID: (u32) Index of the event in its model; counts refer to
 *   it.
 * @TOPDOWN_A_EVENT_NAME: (string) The event's name in perf's JSON (":cN" is
 *   with cmask N).
 * @TOPDOWN_A_EVENT_CONFIG: (u64) The raw perf config.
 * @TOPDOWN_A_EVENT_LEVEL: (u32) The lowest level that opens it (1, 2 or 3).
 * @TOPDOWN_A_EVENT_PAD: (pad) Padding, for 64-bit alignment of the u64
 *   attributes.
 * @__TOPDOWN_A_EVENT_MAX: One more than the last.
 * @TOPDOWN_A_EVENT_MAX: The last.
 */
enum topdown_a_event {
	TOPDOWN_A_EVENT_ID = 1,
	TOPDOWN_A_EVENT_NAME,
	TOPDOWN_A_EVENT_CONFIG,
	TOPDOWN_A_EVENT_LEVEL,
	TOPDOWN_A_EVENT_PAD,

	__TOPDOWN_A_EVENT_MAX,
	TOPDOWN_A_EVENT_MAX = (__TOPDOWN_A_EVENT_MAX - 1)
};

/**
 * enum topdown_a_model - attributes: A CPU model and its events.
 * @TOPDOWN_A_MODEL_NAME: (string) As given to the module's model= parameter.
 * @TOPDOWN_A_MODEL_WIDTH: (u32) Pipeline slots per cycle.
 * @TOPDOWN_A_MODEL_CYCLE_BASED: (flag) Level 1 is in cycles (frontend, backend,
 *   not-stalled).
 * @TOPDOWN_A_MODEL_EVENT: (nest of enum topdown_a_event, repeated) The model's
 *   events, in id order.
 * @__TOPDOWN_A_MODEL_MAX: One more than the last.
 * @TOPDOWN_A_MODEL_MAX: The last.
 */
enum topdown_a_model {
	TOPDOWN_A_MODEL_NAME = 1,
	TOPDOWN_A_MODEL_WIDTH,
	TOPDOWN_A_MODEL_CYCLE_BASED,
	TOPDOWN_A_MODEL_EVENT,

	__TOPDOWN_A_MODEL_MAX,
	TOPDOWN_A_MODEL_MAX = (__TOPDOWN_A_MODEL_MAX - 1)
};

/**
 * enum topdown_a_cpu_info - attributes: One possible CPU.
 * @TOPDOWN_A_CPU_INFO_CPU: (u32) The CPU number.
 * @TOPDOWN_A_CPU_INFO_MODEL: (string) Its model's name; absent when
 *   unsupported.
 * @TOPDOWN_A_CPU_INFO_WIDTH: (u32) The slots per cycle its fractions are
 *   computed with: its model's, or its PMU's (see slots-from).
 * @TOPDOWN_A_CPU_INFO_STATE: (u32, flags of enum topdown_state) Flags of its
 *   latest interval.
 * @TOPDOWN_A_CPU_INFO_SLOTS_FROM: (u32, enum topdown_slots_from) Where width
 *   comes from.
 * @__TOPDOWN_A_CPU_INFO_MAX: One more than the last.
 * @TOPDOWN_A_CPU_INFO_MAX: The last.
 */
enum topdown_a_cpu_info {
	TOPDOWN_A_CPU_INFO_CPU = 1,
	TOPDOWN_A_CPU_INFO_MODEL,
	TOPDOWN_A_CPU_INFO_WIDTH,
	TOPDOWN_A_CPU_INFO_STATE,
	TOPDOWN_A_CPU_INFO_SLOTS_FROM,

	__TOPDOWN_A_CPU_INFO_MAX,
	TOPDOWN_A_CPU_INFO_MAX = (__TOPDOWN_A_CPU_INFO_MAX - 1)
};

/**
 * enum topdown_a_info - attributes: The module's configuration, CPUs and
 *   models.
 * @TOPDOWN_A_INFO_VERSION: (string) Module version.
 * @TOPDOWN_A_INFO_LEVEL: (u32) Deepest level counted (1, 2 or 3).
 * @TOPDOWN_A_INFO_INTERVAL_MS: (u32) Sampling interval in milliseconds.
 * @TOPDOWN_A_INFO_CPU: (unused) No longer sent (one nest per possible CPU made
 *   the message grow to about 350 KB at 8192): get-cpu gives each CPU's.
 * @TOPDOWN_A_INFO_MODEL: (nest of enum topdown_a_model, repeated) Every model
 *   the module knows.
 * @TOPDOWN_A_INFO_RUNNING: (u32) 1 while the counters are open (started), 0
 *   while stopped.
 * @__TOPDOWN_A_INFO_MAX: One more than the last.
 * @TOPDOWN_A_INFO_MAX: The last.
 */
enum topdown_a_info {
	TOPDOWN_A_INFO_VERSION = 1,
	TOPDOWN_A_INFO_LEVEL,
	TOPDOWN_A_INFO_INTERVAL_MS,
	TOPDOWN_A_INFO_CPU,
	TOPDOWN_A_INFO_MODEL,
	TOPDOWN_A_INFO_RUNNING,

	__TOPDOWN_A_INFO_MAX,
	TOPDOWN_A_INFO_MAX = (__TOPDOWN_A_INFO_MAX - 1)
};

/**
 * enum topdown_a_level1 - attributes: Level 1 in parts per million, adding up
 *   to exactly 1000000.
 * @TOPDOWN_A_LEVEL1_RETIRING: (u32) Retiring, ppm of the slots; not from a
 *   cycle-based model.
 * @TOPDOWN_A_LEVEL1_BAD_SPECULATION: (u32) Bad speculation, ppm of the slots;
 *   not from a cycle-based model.
 * @TOPDOWN_A_LEVEL1_FRONTEND_BOUND: (u32) Frontend bound, ppm of the slots (of
 *   the cycles, stalled, for a cycle-based model).
 * @TOPDOWN_A_LEVEL1_BACKEND_BOUND: (u32) Backend bound, ppm of the slots (of
 *   the cycles, stalled, for a cycle-based model).
 * @TOPDOWN_A_LEVEL1_SMT_CONTENTION: (u32) SMT contention, ppm of the slots; AMD
 *   Zen only.
 * @TOPDOWN_A_LEVEL1_NOT_STALLED: (u32) Cycles not stalled, ppm; cycle-based
 *   models only (in place of retiring and bad speculation).
 * @__TOPDOWN_A_LEVEL1_MAX: One more than the last.
 * @TOPDOWN_A_LEVEL1_MAX: The last.
 */
enum topdown_a_level1 {
	TOPDOWN_A_LEVEL1_RETIRING = 1,
	TOPDOWN_A_LEVEL1_BAD_SPECULATION,
	TOPDOWN_A_LEVEL1_FRONTEND_BOUND,
	TOPDOWN_A_LEVEL1_BACKEND_BOUND,
	TOPDOWN_A_LEVEL1_SMT_CONTENTION,
	TOPDOWN_A_LEVEL1_NOT_STALLED,

	__TOPDOWN_A_LEVEL1_MAX,
	TOPDOWN_A_LEVEL1_MAX = (__TOPDOWN_A_LEVEL1_MAX - 1)
};

/**
 * enum topdown_a_level2 - attributes: Level 2 in parts per million; each pair
 *   adds up to its parent.  A CPU's model publishes its own pairs: Intel Core
 *   and AMD Zen the first eight; the Atom cores branch-mispredicts and
 *   machine-clears, fetch-latency and fetch-bandwidth, core-bound and
 *   resource-bound; AmpereOne branch-mispredicts and other-mispredicts,
 *   fetch-latency and fetch-bandwidth, memory-bound and core-bound.
 * @TOPDOWN_A_LEVEL2_LIGHT_OPERATIONS: (u32) Part of retiring, ppm; with
 *   heavy-operations it adds up to retiring.
 * @TOPDOWN_A_LEVEL2_HEAVY_OPERATIONS: (u32) Part of retiring, ppm; with
 *   light-operations it adds up to retiring.
 * @TOPDOWN_A_LEVEL2_BRANCH_MISPREDICTS: (u32) Part of bad speculation, ppm;
 *   with machine-clears (other-mispredicts on AmpereOne) it adds up to bad
 *   speculation.
 * @TOPDOWN_A_LEVEL2_MACHINE_CLEARS: (u32) Part of bad speculation, ppm; with
 *   branch-mispredicts it adds up to bad speculation.
 * @TOPDOWN_A_LEVEL2_FETCH_LATENCY: (u32) Part of frontend bound, ppm; with
 *   fetch-bandwidth it adds up to frontend bound.
 * @TOPDOWN_A_LEVEL2_FETCH_BANDWIDTH: (u32) Part of frontend bound, ppm; with
 *   fetch-latency it adds up to frontend bound.
 * @TOPDOWN_A_LEVEL2_MEMORY_BOUND: (u32) Part of backend bound, ppm; with
 *   core-bound it adds up to backend bound (not on the Atom cores).
 * @TOPDOWN_A_LEVEL2_CORE_BOUND: (u32) Part of backend bound, ppm; with
 *   memory-bound (resource-bound on the Atom cores) it adds up to backend
 *   bound.
 * @TOPDOWN_A_LEVEL2_RESOURCE_BOUND: (u32) Part of backend bound, ppm; Atom
 *   cores only (backend bound less core bound).
 * @TOPDOWN_A_LEVEL2_OTHER_MISPREDICTS: (u32) Part of bad speculation, ppm;
 *   AmpereOne only (bad speculation less branch mispredicts).
 * @__TOPDOWN_A_LEVEL2_MAX: One more than the last.
 * @TOPDOWN_A_LEVEL2_MAX: The last.
 */
enum topdown_a_level2 {
	TOPDOWN_A_LEVEL2_LIGHT_OPERATIONS = 1,
	TOPDOWN_A_LEVEL2_HEAVY_OPERATIONS,
	TOPDOWN_A_LEVEL2_BRANCH_MISPREDICTS,
	TOPDOWN_A_LEVEL2_MACHINE_CLEARS,
	TOPDOWN_A_LEVEL2_FETCH_LATENCY,
	TOPDOWN_A_LEVEL2_FETCH_BANDWIDTH,
	TOPDOWN_A_LEVEL2_MEMORY_BOUND,
	TOPDOWN_A_LEVEL2_CORE_BOUND,
	TOPDOWN_A_LEVEL2_RESOURCE_BOUND,
	TOPDOWN_A_LEVEL2_OTHER_MISPREDICTS,

	__TOPDOWN_A_LEVEL2_MAX,
	TOPDOWN_A_LEVEL2_MAX = (__TOPDOWN_A_LEVEL2_MAX - 1)
};

/**
 * enum topdown_a_count - attributes: One raw event's counts, scaled for
 *   multiplexing.
 * @TOPDOWN_A_COUNT_ID: (u32) The event's id in its model.
 * @TOPDOWN_A_COUNT_DELTA: (u64) Count in the interval.
 * @TOPDOWN_A_COUNT_TOTAL: (u64) Cumulative count since load, across CPU
 *   hotplug.
 * @TOPDOWN_A_COUNT_ENABLED: (u64) Nanoseconds enabled in the interval.
 * @TOPDOWN_A_COUNT_RUNNING: (u64) Nanoseconds counting in the interval.
 * @TOPDOWN_A_COUNT_PAD: (pad) Padding, for 64-bit alignment of the u64
 *   attributes.
 * @__TOPDOWN_A_COUNT_MAX: One more than the last.
 * @TOPDOWN_A_COUNT_MAX: The last.
 */
enum topdown_a_count {
	TOPDOWN_A_COUNT_ID = 1,
	TOPDOWN_A_COUNT_DELTA,
	TOPDOWN_A_COUNT_TOTAL,
	TOPDOWN_A_COUNT_ENABLED,
	TOPDOWN_A_COUNT_RUNNING,
	TOPDOWN_A_COUNT_PAD,

	__TOPDOWN_A_COUNT_MAX,
	TOPDOWN_A_COUNT_MAX = (__TOPDOWN_A_COUNT_MAX - 1)
};

/**
 * enum topdown_a_sample - attributes: One CPU's latest completed interval.
 * @TOPDOWN_A_SAMPLE_CPU: (u32) The CPU number.
 * @TOPDOWN_A_SAMPLE_SEQ: (u64) The interval's sequence number, one more each
 *   interval.
 * @TOPDOWN_A_SAMPLE_START_NS: (u64) Start of the interval, CLOCK_MONOTONIC ns.
 * @TOPDOWN_A_SAMPLE_END_NS: (u64) End of the interval, CLOCK_MONOTONIC ns.
 * @TOPDOWN_A_SAMPLE_STATE: (u32, flags of enum topdown_state) State flags.
 * @TOPDOWN_A_SAMPLE_ERRNO: (s32) With the error flag, the negative errno of
 *   counter creation.
 * @TOPDOWN_A_SAMPLE_MODEL: (string) The CPU's model.
 * @TOPDOWN_A_SAMPLE_LEVEL1: (nest of enum topdown_a_level1) Absent when there
 *   are no valid fractions.
 * @TOPDOWN_A_SAMPLE_LEVEL2: (nest of enum topdown_a_level2) Absent when there
 *   are none.
 * @TOPDOWN_A_SAMPLE_COUNT: (nest of enum topdown_a_count, repeated) The raw
 *   counts of the interval.
 * @TOPDOWN_A_SAMPLE_PAD: (pad) Padding, for 64-bit alignment of the u64
 *   attributes.
 * @TOPDOWN_A_SAMPLE_SETS: (u32) Event sets that took turns in the interval (1 =
 *   all at once).
 * @TOPDOWN_A_SAMPLE_LEVEL1_COUNTED: (u32) Least counted Level 1 event's share
 *   of the interval, ppm.
 * @TOPDOWN_A_SAMPLE_LEVEL2_COUNTED: (u32) The same for Level 2 (absent below
 *   level 2).
 * @TOPDOWN_A_SAMPLE_LEVEL3_COUNTED: (u32) The same for Level 3 (absent below
 *   level 3).
 * @TOPDOWN_A_SAMPLE_TOTALS: (nest of enum topdown_a_totals) The cumulative
 *   totals; absent for a CPU with no model.
 * @__TOPDOWN_A_SAMPLE_MAX: One more than the last.
 * @TOPDOWN_A_SAMPLE_MAX: The last.
 */
enum topdown_a_sample {
	TOPDOWN_A_SAMPLE_CPU = 1,
	TOPDOWN_A_SAMPLE_SEQ,
	TOPDOWN_A_SAMPLE_START_NS,
	TOPDOWN_A_SAMPLE_END_NS,
	TOPDOWN_A_SAMPLE_STATE,
	TOPDOWN_A_SAMPLE_ERRNO,
	TOPDOWN_A_SAMPLE_MODEL,
	TOPDOWN_A_SAMPLE_LEVEL1,
	TOPDOWN_A_SAMPLE_LEVEL2,
	TOPDOWN_A_SAMPLE_COUNT,
	TOPDOWN_A_SAMPLE_PAD,
	TOPDOWN_A_SAMPLE_SETS,
	TOPDOWN_A_SAMPLE_LEVEL1_COUNTED,
	TOPDOWN_A_SAMPLE_LEVEL2_COUNTED,
	TOPDOWN_A_SAMPLE_LEVEL3_COUNTED,
	TOPDOWN_A_SAMPLE_TOTALS,

	__TOPDOWN_A_SAMPLE_MAX,
	TOPDOWN_A_SAMPLE_MAX = (__TOPDOWN_A_SAMPLE_MAX - 1)
};

/**
 * enum topdown_a_totals - attributes: Cumulative totals since load, across CPU
 *   hotplug, of the intervals with fractions: the pipeline slots (cycles for a
 *   cycle-based model) and each node's share of them, the interval's fraction
 *   times its slots.  Any span's fraction of a node, on one CPU or summed over
 *   CPUs, is the difference of its totals over the difference of the slots'.
 * @TOPDOWN_A_TOTALS_SLOTS: (u64) Slots, for slot-based models: the slots
 *   event's count, or the cycles times the slots per cycle where the model
 *   counts cycles.
 * @TOPDOWN_A_TOTALS_CYCLES: (u64) Cycles, for cycle-based models (in place of
 *   slots).
 * @TOPDOWN_A_TOTALS_PAD: (pad) Padding, for 64-bit alignment of the u64
 *   attributes.
 * @TOPDOWN_A_TOTALS_RETIRING: (u64) The node's share of the slots (or cycles).
 * @TOPDOWN_A_TOTALS_BAD_SPECULATION: (u64) The node's share of the slots (or
 *   cycles).
 * @TOPDOWN_A_TOTALS_FRONTEND_BOUND: (u64) The node's share of the slots (or
 *   cycles).
 * @TOPDOWN_A_TOTALS_BACKEND_BOUND: (u64) The node's share of the slots (or
 *   cycles).
 * @TOPDOWN_A_TOTALS_SMT_CONTENTION: (u64) The node's share of the slots (or
 *   cycles).
 * @TOPDOWN_A_TOTALS_NOT_STALLED: (u64) The node's share of the slots (or
 *   cycles).
 * @TOPDOWN_A_TOTALS_LIGHT_OPERATIONS: (u64) The node's share of the slots (or
 *   cycles).
 * @TOPDOWN_A_TOTALS_HEAVY_OPERATIONS: (u64) The node's share of the slots (or
 *   cycles).
 * @TOPDOWN_A_TOTALS_BRANCH_MISPREDICTS: (u64) The node's share of the slots (or
 *   cycles).
 * @TOPDOWN_A_TOTALS_MACHINE_CLEARS: (u64) The node's share of the slots (or
 *   cycles).
 * @TOPDOWN_A_TOTALS_FETCH_LATENCY: (u64) The node's share of the slots (or
 *   cycles).
 * @TOPDOWN_A_TOTALS_FETCH_BANDWIDTH: (u64) The node's share of the slots (or
 *   cycles).
 * @TOPDOWN_A_TOTALS_MEMORY_BOUND: (u64) The node's share of the slots (or
 *   cycles).
 * @TOPDOWN_A_TOTALS_CORE_BOUND: (u64) The node's share of the slots (or
 *   cycles).
 * @TOPDOWN_A_TOTALS_RESOURCE_BOUND: (u64) The node's share of the slots (or
 *   cycles).
 * @TOPDOWN_A_TOTALS_OTHER_MISPREDICTS: (u64) The node's share of the slots (or
 *   cycles).
 * @__TOPDOWN_A_TOTALS_MAX: One more than the last.
 * @TOPDOWN_A_TOTALS_MAX: The last.
 */
enum topdown_a_totals {
	TOPDOWN_A_TOTALS_SLOTS = 1,
	TOPDOWN_A_TOTALS_CYCLES,
	TOPDOWN_A_TOTALS_PAD,
	TOPDOWN_A_TOTALS_RETIRING,
	TOPDOWN_A_TOTALS_BAD_SPECULATION,
	TOPDOWN_A_TOTALS_FRONTEND_BOUND,
	TOPDOWN_A_TOTALS_BACKEND_BOUND,
	TOPDOWN_A_TOTALS_SMT_CONTENTION,
	TOPDOWN_A_TOTALS_NOT_STALLED,
	TOPDOWN_A_TOTALS_LIGHT_OPERATIONS,
	TOPDOWN_A_TOTALS_HEAVY_OPERATIONS,
	TOPDOWN_A_TOTALS_BRANCH_MISPREDICTS,
	TOPDOWN_A_TOTALS_MACHINE_CLEARS,
	TOPDOWN_A_TOTALS_FETCH_LATENCY,
	TOPDOWN_A_TOTALS_FETCH_BANDWIDTH,
	TOPDOWN_A_TOTALS_MEMORY_BOUND,
	TOPDOWN_A_TOTALS_CORE_BOUND,
	TOPDOWN_A_TOTALS_RESOURCE_BOUND,
	TOPDOWN_A_TOTALS_OTHER_MISPREDICTS,

	__TOPDOWN_A_TOTALS_MAX,
	TOPDOWN_A_TOTALS_MAX = (__TOPDOWN_A_TOTALS_MAX - 1)
};

/**
 * enum topdown_a_config - attributes: What set-config may change.
 * @TOPDOWN_A_CONFIG_INTERVAL_MS: (u32, 10 to 60000) Sampling interval in
 *   milliseconds, interval-min-ms to interval-max-ms (else ERANGE).
 * @TOPDOWN_A_CONFIG_LEVEL: (u32, 1 to 3) Deepest level counted, 1 to level-max
 *   (else ERANGE).
 * @TOPDOWN_A_CONFIG_RUNNING: (u32, 0 to 1) 1: start counting (open the
 *   counters); 0: stop (close them); others ERANGE.
 * @TOPDOWN_A_CONFIG_END_INTERVAL: (flag) Every counting CPU ends the interval
 *   it is in now and publishes its sample (sample-ntf, with the totals up to
 *   now); the next interval runs to the grid.  Two such cuts bracket an exact
 *   window of the totals: tdnl stat's around a command.  After the other
 *   changes; ENODATA when the module is stopped.
 * @__TOPDOWN_A_CONFIG_MAX: One more than the last.
 * @TOPDOWN_A_CONFIG_MAX: The last.
 */
enum topdown_a_config {
	TOPDOWN_A_CONFIG_INTERVAL_MS = 1,
	TOPDOWN_A_CONFIG_LEVEL,
	TOPDOWN_A_CONFIG_RUNNING,
	TOPDOWN_A_CONFIG_END_INTERVAL,

	__TOPDOWN_A_CONFIG_MAX,
	TOPDOWN_A_CONFIG_MAX = (__TOPDOWN_A_CONFIG_MAX - 1)
};

/**
 * enum topdown_cmd - commands
 * @TOPDOWN_CMD_GET_INFO: The module's version, level, interval, whether it
 *   runs, and its models.  The request takes no attribute: the cpu it lists is
 *   the info set's unused slot (ynl-gen's per-op policy needs one), ignored.
 * @TOPDOWN_CMD_GET_SAMPLE: One CPU's latest interval (do), or every possible
 *   CPU's (dump).
 * @TOPDOWN_CMD_SET_CONFIG: Change the interval, the level and/or whether the
 *   module counts; and/or end every CPU's interval now.
 * @TOPDOWN_CMD_SAMPLE_NTF: A CPU's interval has completed: get-sample's reply
 *   for that CPU, to the multicast group samples, from each CPU at the end of
 *   each of its intervals.
 * @TOPDOWN_CMD_GET_CPU: One possible CPU's model, width and state (do), or
 *   every one's (dump).
 * @__TOPDOWN_CMD_MAX: One more than the last.
 * @TOPDOWN_CMD_MAX: The last.
 */
enum topdown_cmd {
	TOPDOWN_CMD_GET_INFO = 1,
	TOPDOWN_CMD_GET_SAMPLE,
	TOPDOWN_CMD_SET_CONFIG,
	TOPDOWN_CMD_SAMPLE_NTF,
	TOPDOWN_CMD_GET_CPU,

	__TOPDOWN_CMD_MAX,
	TOPDOWN_CMD_MAX = (__TOPDOWN_CMD_MAX - 1)
};

#define TOPDOWN_MCGRP_SAMPLES	"samples"

#endif /* _UAPI_LINUX_TOPDOWN_H */
