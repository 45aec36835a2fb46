#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""topdown.ko on workloads that change phase every few milliseconds.

cpu1 plays a tdsim schedule of two or three profiles (phases of 2 to 25 ms,
at different clock rates), cpu0 a steady profile.  tdnl -j watch gives each
interval's Level 1/2 (the module's) and Level 3/4 (tdnl's, from the raw
counts); tdsim's cumulative ground truth, read at the interval's own start
and end (cpuN/truth), gives the exact truth of that window.  Per level, the
error of an interval is its worst node's, in percentage points.

Configurations: spr level=3 and icl level=3 (Level 2 and 3 take turns in
event sets), skl level=2 (Level 1 and 2 take turns on 4 counters), zen4
level=1 with one counter fewer (as under the NMI watchdog), at intervals of
10, 100 and 1000 ms.

Asserted, issue 9's targets: the steady CPU, every interval within 0.5 pp
at every level; the phased CPU, Level 1 p90 <= 0.1 pp and max <= 0.5 pp,
whether it counts all the time or takes turns (zen4), and Levels 2-4
p90 <= 2 pp, at every interval; of the intervals not flagged skewed (a
snapshot of theirs read its counters spread over more than 0.1 % of the
interval: under TCG, a vCPU the host held up among the reads), at least half
of them all.  Where events take turns the module
estimates them by regression on the events counted all the time
(kmod/td_reg.c); tdsim's rates are exact mixtures of its profiles' rates, so
that regression can be exact here, as it cannot be on a real workload.
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import (IDEAL_PMU, L1, L2, L3, L4, SIM, TD, Tap, fractions_given,  # noqa: E402
                    fully_regressed, load, read_kv, settle, unload, window_truth,
                    write_profile, zen_text)

tap = Tap("topdown_phases")

# In each profile memory_bound is the sum of its Level 3 children: on skl and
# icl perf's memory_bound is backend_bound times a ratio of stall cycles whose
# numerator is that sum, so only then is the formula of a mix of profiles the
# mix of their memory_bound (tdsim_intel.c), and the truth what perfect
# counting would give.
MEM = "l1_bound=3 l2_bound=1 l3_bound=1 dram_bound=2 store_bound=1 mem_bandwidth=1 mem_latency=1"
PROFILES = {
    # compute bound, 2 GHz
    "A": "retiring=60 bad_speculation=5 frontend_bound=15 backend_bound=20 "
         "heavy_operations=10 branch_mispredicts=4 fetch_latency=8 memory_bound=8 "
         + MEM + " freq_mhz=2000",
    # memory bound, 3 GHz
    "B": "retiring=15 bad_speculation=5 frontend_bound=10 backend_bound=70 "
         "heavy_operations=2 branch_mispredicts=3 fetch_latency=6 memory_bound=55 "
         "l1_bound=10 l2_bound=6 l3_bound=8 dram_bound=27 store_bound=4 "
         "mem_bandwidth=12 mem_latency=10 freq_mhz=3000",
    # frontend and bad speculation, 1.5 GHz
    "C": "retiring=25 bad_speculation=25 frontend_bound=40 backend_bound=10 "
         "heavy_operations=5 branch_mispredicts=20 fetch_latency=30 memory_bound=5 "
         "l1_bound=2 l2_bound=1 l3_bound=0.5 dram_bound=1 store_bound=0.5 "
         "mem_bandwidth=0.5 mem_latency=0.5 freq_mhz=1500",
}
STEADY = ("retiring=30 bad_speculation=10 frontend_bound=20 backend_bound=40 "
          "heavy_operations=5 branch_mispredicts=8 fetch_latency=12 memory_bound=25 "
          "l1_bound=8 l2_bound=4 l3_bound=3 dram_bound=6 store_bound=2 "
          "mem_bandwidth=2 mem_latency=3 freq_mhz=2000")
# (model, level, tdsim arguments, schedule as (profile, ms), ...)
CONFIGS = [
    ("spr", 3, [], [("A", 2), ("B", 25), ("C", 3)]),
    ("skl", 2, [], [("A", 7), ("B", 11)]),
    ("zen4", 1, ["counters=5"], [("A", 5), ("C", 2), ("B", 17)]),
    ("icl", 3, [], [("B", 25), ("A", 3), ("C", 9)]),
]
# interval (ms), intervals per CPU to collect
INTERVALS = [(10, 120), (100, 30), (1000, 5)]
def watch(n, timeout):
    """n lines of tdnl -j watch"""
    p = subprocess.Popen(["tdnl", "-j", "watch", "-n", str(n)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
    return [json.loads(x) for x in out.splitlines() if x.startswith("{")]


def level_error(obj, want, key, nodes):
    """worst node error of one level, pp; None if the sample lacks it"""
    got = obj.get(key) or {}
    errs = [abs(got[k] - want[k]) for k in nodes
            if k in want and got.get(k) is not None]
    return max(errs) if errs else None


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


SNAP_KEYS = ("restarts", "scaled_alone", "snapshot_min_ns", "snapshot_retries", "snapshot_rereads",
             "snapshot_slow", "snapshot_slow_max_ns", "snapshot_waits", "snapshot_turn_waits",
             "skewed_intervals")


def explain(worst, key, nodes, before, after):
    """a failed interval: its nodes against the truth, its events, and what
    the CPU's snapshot counters did over the run"""
    e, obj, want = worst
    print(f"# worst interval seq {obj.get('seq')} [{obj['start_ns']}, {obj['end_ns']}]: "
          f"{e:.3f} pp; state {obj.get('state')}, sets {obj.get('sets')}, "
          f"counted {obj.get('counted')}", flush=True)
    got = obj.get(key) or {}
    print("#   " + ", ".join(f"{k} {got.get(k)} (truth {want.get(k, float('nan')):.3f})"
                            for k in nodes), flush=True)
    for name, ev in (obj.get("events") or {}).items():
        print(f"#   {name}: {ev}", flush=True)
    print("#   info " + ", ".join(f"{k} {before.get(k)} -> {after.get(k)}"
                                  for k in SNAP_KEYS), flush=True)


def run_config(model, level, sim_args, sched):
    zen = model.startswith("zen")
    slice_us = os.environ.get("TD_SLICE_US")
    # the slices' accuracy at their full rounds, whatever the host's speed:
    # icl's 8 sets at 10 ms (2 rounds of 0.625 ms slices, a switch about
    # 0.2 ms under TCG) are near the default budget (50 %), which would
    # plan one round on a host a third slower (switching.py tests it)
    err = load(model, f"level={level}", "interval_ms=100", "switch_budget_pct=100",
               *([f"slice_us={slice_us}"] if slice_us else []),
               sim_args=(IDEAL_PMU, *sim_args))
    tag = f"{model} level={level}{' ' + ' '.join(sim_args) if sim_args else ''}"
    if not tap(not err, f"{tag}: tdsim and topdown load {err}"):
        return
    steady = zen_text(STEADY) if zen else STEADY
    write_profile(0, steady)
    text = "; ".join(f"ms={ms} " + (zen_text(PROFILES[p]) if zen else PROFILES[p])
                     for p, ms in sched)
    with open(f"{SIM}/cpu1/schedule", "w") as f:
        f.write(text)
    sname = "+".join(f"{p}{ms}" for p, ms in sched)
    levels = [("level1", L1 + (["smt_contention"] if zen else []))]
    if level >= 2:
        levels.append(("level2", L2))
    if level >= 3:
        levels += [("level3", L3), ("level4", L4)]
    only_ivals = os.environ.get("TD_PHASES_INTERVALS", "").split()
    for ival, n in INTERVALS:
        if only_ivals and str(ival) not in only_ivals:
            continue
        with open(f"{TD}/interval_ms", "w") as f:
            f.write(str(ival))
        settle([0, 1], 2)
        info = read_kv(f"{TD}/cpu1/info")
        l1_all = float(info.get("counted_level1", "0")) >= 0.999
        lines = watch(2 * n, timeout=max(30, 4 * n * ival / 1000))
        info0 = read_kv(f"{TD}/cpu0/info")
        errs = {c: {k: [] for k, _ in levels} for c in (0, 1)}
        worst = {}	# (cpu, level): (error, sample, truth), for a failure's story
        bad_state = 0
        skewed = {0: 0, 1: 0}
        for obj in lines:
            c = obj["cpu"]
            state = set(obj.get("state") or [])
            if not fractions_given(state):
                bad_state += 1
                continue
            # a snapshot of it read its counters spread over more than
            # 0.1 % of it (the vCPU held up among the reads): the module
            # says it may be off, and the others are judged
            if "skewed" in state:
                skewed[c] += 1
                continue
            want = window_truth(c, obj["start_ns"], obj["end_ns"])
            for key, nodes in levels:
                e = level_error(obj, want, key, nodes)
                if e is not None:
                    errs[c][key].append(e)
                    if e > worst.get((c, key), (-1,))[0]:
                        worst[c, key] = (e, obj, want)
        sets = {o.get("sets") for o in lines}
        l1c = {round(o.get("counted", {}).get("level1", -1), 3) for o in lines if o["cpu"] == 1}
        tap(sets == {int(info.get("sets", 0))} and
            (not l1_all or l1c == {1.0}) and all(0 < c <= 1 for c in l1c),
            f"{tag} {ival} ms: every sample says sets {sets} (info {info.get('sets')}), "
            f"Level 1 counted {sorted(l1c)[:3]}")
        # every event that took turns in the last interval was estimated by
        # regression (none is scaled alone once the sets have been seen)
        after = read_kv(f"{TD}/cpu1/info")
        if int(info.get("sets", "1")) > 1:
            tap(fully_regressed(after),
                f"{tag} {ival} ms: regressed {after.get('regressed')} "
                f"(scaled_alone {after.get('scaled_alone')} intervals since load)")
        tap(len(lines) == 2 * n and bad_state == 0,
            f"{tag} {ival} ms: {len(lines)} of {2 * n} intervals, {bad_state} not ok "
            f"(sets {info.get('sets')}, Level 1 counted {info.get('counted_level1')})")
        info0_after = read_kv(f"{TD}/cpu0/info")
        print(f"# {tag} {ival} ms cpu0 snapshots: " +
              ", ".join(f"{k} {info0.get(k)} -> {info0_after.get(k)}" for k in SNAP_KEYS),
              flush=True)
        # the steady CPU: every interval exact at every level
        for key, nodes in levels:
            es = errs[0][key]
            passed = tap(len(es) >= n // 2 and max(es) <= 0.5,
                         f"{tag} {ival} ms steady cpu0 {key}: {len(es)} intervals "
                         f"({skewed[0]} skewed left out), max error "
                         f"{max(es) if es else float('nan'):.3f} pp (<= 0.5)")
            # the worst interval, explained when it failed, or when it is
            # above TD_PHASES_EXPLAIN (pp) though it passed
            above = es and max(es) > float(os.environ.get("TD_PHASES_EXPLAIN", "inf"))
            if es and (not passed or above):
                explain(worst[0, key], key, nodes, info0, info0_after)
        # the phased CPU
        for key, _ in levels:
            es = errs[1][key]
            p50, p90, mx = pct(es, 50), pct(es, 90), max(es) if es else float("nan")
            if key == "level1":
                ok, lim = p90 <= 0.1 and mx <= 0.5, "p90 <= 0.1, max <= 0.5"
            else:
                ok, lim = p90 <= 2, "p90 <= 2"
            passed = tap(len(es) >= n // 2 and ok,
                         f"{tag} {ival} ms phases {sname} cpu1 {key}: {len(es)} intervals "
                         f"({skewed[1]} skewed left out), "
                         f"p50 {p50:.3f} p90 {p90:.3f} max {mx:.3f} pp ({lim}"
                         f"{'' if l1_all else ', Level 1 takes turns'})")
            above = es and mx > float(os.environ.get("TD_PHASES_EXPLAIN", "inf"))
            if es and (not passed or above):
                explain(worst[1, key], key, dict(levels)[key], info, after)
            print(f"# RESULT model={model} level={level} sim={','.join(sim_args) or '-'} "
                  f"interval={ival} key={key} n={len(es)} p50={p50:.4f} p90={p90:.4f} "
                  f"max={mx:.4f}", flush=True)
    unload()


def main():
    if not os.path.exists("/sys/module/tdsim") and not os.environ.get("TD_KO_DIR"):
        tap.skip_all("not in the VM")
    start = time.monotonic()
    only = os.environ.get("TD_PHASES_ONLY", "").split()
    for model, level, sim_args, sched in CONFIGS:
        if only and model not in only:
            continue
        run_config(model, level, sim_args, sched)
    print(f"# phases took {time.monotonic() - start:.0f} s")
    tap.summary()


if __name__ == "__main__":
    main()
