#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-accuracy: topdown.ko and Debian's perf stat on the same tdsim
schedule, each interval against tdsim's ground truth of its own window.

Per configuration (spr level=3, icl level=3, skl level=2, zen4 level=1 on
counters=5) and interval (10, 100, 1000 ms), cpu1 plays a phased schedule
(selftests/topdown/phases.py's):

1. topdown.ko at that level and interval: tdnl -j watch -c 1; the truth of
   each sample's window [start_ns, end_ns] from tdsim's cpu1/truth.
2. rmmod topdown, then perf stat -I <ms> -C 1 with one event group per
   level, each led by its normalizer (TOPDOWN.SLOTS for spr/icl Level 1/2,
   CPU_CLK_UNHALTED.THREAD for skl and for Level 3, ls_not_halted_cyc on
   Zen), as perf's metric groups divide within a group.  A level whose
   events do not fit the counters (each event's counter mask and fixed
   counter from kmod/td_*.c, the tdsim model's counter count) is split into
   several groups, each with its own normalizer; perf multiplexes them.
   The tdsim_truth events, added ungrouped (they use no counter), give the
   truth of each of perf's intervals.  perf's nodes: tdformulas.py (perf's
   formulas) on the scaled counts, an event of group g rescaled to the
   Level 1 group's window as count_g * norm_L1 / norm_g (the Level 1 group
   also counts CPU_CLK_UNHALTED.THREAD, on its fixed counter, for the
   Level 3 groups of spr and icl).

The error of an interval at a level is its worst node's, in percentage
points.  The table gives p50 / p90 / max per configuration, interval and
level for both, and the targets: topdown.ko ahead (lower p90) and at most
half of perf's p90.  Before that, per model, perf on a steady profile must
give the profile within 0.5 pp at every level (checks the formulas and the
groups).  A benchmark: a missed target is printed, not an exit status;
the exit status is 1 only when the harness failed (a module did not load,
perf or tdnl did not run or gave too few intervals).

TD_BENCH_ONLY="spr zen4" runs only those models; TD_SLICE_US=1000 loads
topdown.ko with that slice_us, TD_BENCH_ARGS="switch_budget_pct=5" with
those parameters besides; TD_BENCH_DEBUG=1 prints
the counts of perf's worst interval of each run (always printed when an
error exceeds 100 pp).
"""
import json
import os
import platform
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import (IDEAL_PMU, L1, L2, L3, L4, SIM, TD, all_cpus, fractions_given,  # noqa: E402
                    load, read_kv, settle, sh, truth_pct, unload, want_of, window_truth, write_profile)
import tdformulas  # noqa: E402

TOP = os.path.dirname(os.path.abspath(__file__)) + "/../.."

# the schedules and profiles of selftests/topdown/phases.py, whose tests run
# only as a script
sys.path.insert(0, TOP + "/selftests/topdown")
from phases import CONFIGS, PROFILES, STEADY, zen_text  # noqa: E402

# interval (ms), intervals to collect from each tool
INTERVALS = [(10, 200), (100, 50), (1000, 10)]
# perf on the steady profile: (interval ms, intervals).  Long intervals: tdsim
# starts and stops a group's counters one by one (no pmu_disable/enable), so
# a vCPU preempted while perf schedules a group in or out leaves its events
# counting over windows a few ms apart (seen: 2.7 pp in one 100 ms interval).
STEADY_RUN = (1000, 3)
STEADY_MAX = 0.5			# pp, every level, every interval
SKEW_MAX = 0.01			# see sweep_skew(): a node of the truth off by at most ~0.5 pp

SOURCE = {"spr": "td_intel.c", "icl": "td_intel.c", "skl": "td_intel.c",
          "zen4": "td_amd.c"}
# each level's normalizer, as perf's metrics divide (tma_info_thread_slots,
# tma_info_thread_clks, total_dispatch_slots)
NORM = {"spr": {1: "TOPDOWN.SLOTS", 2: "TOPDOWN.SLOTS", 3: "CPU_CLK_UNHALTED.THREAD"},
        "icl": {1: "TOPDOWN.SLOTS", 2: "TOPDOWN.SLOTS", 3: "CPU_CLK_UNHALTED.THREAD"},
        "skl": {1: "CPU_CLK_UNHALTED.THREAD", 2: "CPU_CLK_UNHALTED.THREAD",
                3: "CPU_CLK_UNHALTED.THREAD"},
        "zen4": {1: "ls_not_halted_cyc", 2: "ls_not_halted_cyc"}}
LEVEL_NODES = {"level1": L1, "level2": L2, "level3": L3, "level4": L4}
harness_failed = []


def fail(msg):
    """a harness failure: printed now, the exit status at the end"""
    harness_failed.append(msg)
    print(f"# HARNESS FAILURE: {msg}", flush=True)


# ---- the module's event tables: counters each event may use ----

def td_table(model):
    """(events, gp counters, fixed counters) of the model in kmod/td_*.c:
    events as {name: {config, mask, fixed, grp}}"""
    src = open(f"{TOP}/kmod/{SOURCE[model]}").read()
    masks = {k: int(v, 16) for k, v in re.findall(r"#define\s+(\w+)\s+(0x[0-9a-fA-F]+)", src)}
    masks.update({"0": 0})
    table = re.search(r"td_event\s+%s_events\[\w+\]\s*=\s*\{(.*?)\n\};" % model, src, re.S)
    events = {}
    for name, cfg, _lvl, mask, fixed, rest in re.findall(
            r'\{\s*"([^"]+)",\s*(0x[0-9a-fA-F]+),\s*(\d+),\s*(\w+),\s*(-?\w+)([^}]*)\}',
            table.group(1)):
        grp = re.search(r"\.grp\s*=\s*(\d+)", rest)
        events[name] = {"config": int(cfg, 16), "mask": masks[mask],
                        "fixed": -1 if fixed == "NOFIX" else int(fixed),
                        "grp": int(grp.group(1)) if grp else None}
    body = re.search(r"td_model\s+td_model_%s\s*=\s*\{(.*?)\n\};" % model, src, re.S).group(1)
    gp = int(re.search(r"\.gp_counters\s*=\s*(\d+)", body).group(1))
    fx = int(re.search(r"\.fixed_counters\s*=\s*(\d+)", body).group(1))
    return events, gp, fx


def fits(order, table, gp, fx):
    """whether tdsim can add these events in this order (tdsim_add: the
    event's fixed counter if free, else the highest free allowed GP one)"""
    gp_used, fx_used = 0, 0
    for name in order:
        e = table[name]
        if 0 <= e["fixed"] < fx and not fx_used & (1 << e["fixed"]):
            fx_used |= 1 << e["fixed"]
            continue
        free = e["mask"] & ~gp_used & ((1 << gp) - 1)
        if not free:
            return False
        gp_used |= 1 << (free.bit_length() - 1)
    return True


def group_order(norm, names, table, gp):
    """the normalizer leads; the most constrained events next, so the
    greedy allocation leaves them their counters"""
    return [norm] + sorted(names, key=lambda n: bin(table[n]["mask"] & ((1 << gp) - 1)).count("1"))


def build_groups(model, level, gp_override=None):
    """[(level, [leader, events...]), ...]: each level's events in as few
    groups as fit, keeping the module's formula groups (.grp) together"""
    table, gp, fx = td_table(model)
    gp = gp_override if gp_override is not None else gp
    groups = []
    for lvl, names in tdformulas.needed_events(model, level).items():
        norm = NORM[model][lvl]
        names = [n for n in names if n != norm]
        clusters = []
        for n in names:
            g = table[n]["grp"]
            for c in clusters:
                if g is not None and table[c[0]]["grp"] == g:
                    c.append(n)
                    break
            else:
                clusters.append([n])
        mine = []

        def place(evs):
            for m in mine:
                if fits(group_order(norm, m + evs, table, gp), table, gp, fx):
                    m += evs
                    return True
            if fits(group_order(norm, evs, table, gp), table, gp, fx):
                mine.append(list(evs))
                return True
            return False
        for c in clusters:
            if not place(c):
                for n in c:		# a formula group too big for the PMU
                    if not place([n]):
                        raise RuntimeError(f"{model}: {n} fits no counter")
        groups += [(lvl, group_order(norm, m, table, gp)) for m in mine]
    # The Level 1 group also counts the deeper levels' normalizers where
    # they fit (CPU_CLK_UNHALTED.THREAD on its fixed counter), so every
    # group rescales to the Level 1 group's window, the CLK-led ones too.
    first = groups[0][1]
    extra = [n for n in dict.fromkeys(g[0] for _, g in groups) if n not in first]
    if extra and fits(group_order(first[0], first[1:] + extra, table, gp), table, gp, fx):
        groups[0] = (1, group_order(first[0], first[1:] + extra, table, gp))
    return groups, table


# ---- perf stat ----

def truth_keys():
    """the truth events, cycles last (it closes perf's sweep of reads)"""
    keys = os.listdir("/sys/bus/event_source/devices/tdsim_truth/events")
    return sorted(keys, key=lambda k: (k == "cycles", k))


def perf_stat(groups, table, ms, n):
    """perf stat -I ms -C 1 on the groups and the truth events: a list of
    intervals, each {(group, event) or "truth/key": (count or None, pct)}"""
    args = ["perf", "stat", "-I", str(ms), "-C", "1", "-x,", "--interval-count", str(n),
            "-e", "tdsim_truth/cycles,name=truth.first/"]
    names = {}
    for gi, (_, evs) in enumerate(groups):
        spec = []
        for ei, ev in enumerate(evs):
            nm = f"g{gi}e{ei}"
            names[nm] = (gi, ev)
            spec.append(f"tdsim/config={table[ev]['config']:#x},name={nm}/")
        args += ["-e", "{" + ",".join(spec) + "}"]
    for k in truth_keys():
        args += ["-e", f"tdsim_truth/{k},name=truth.{k}/"]
    r = sh(*args, timeout=30 + 3 * n * ms / 1000)
    rows = {}
    for line in r.stderr.splitlines():
        f = line.split(",")
        if len(f) < 6 or not re.match(r"^\s*\d+\.\d+$", f[0]):
            continue
        key = names.get(f[3]) or (f[3] if f[3].startswith("truth.") else None)
        if key is None:
            continue
        try:
            val = float(f[1])
        except ValueError:
            val = None	# <not counted>
        rows.setdefault(f[0].strip(), {})[key] = (val, float(f[5] or 0))
    return r, [rows[t] for t in sorted(rows, key=float)]


def perf_counts(groups, row):
    """the count of each event for the formulas: count_g * ref / norm_g, ref
    the normalizer's count in the first group that counted it (the Level 1
    group where it has it)"""
    norms = {evs[0] for _, evs in groups}
    ref, c = {}, {}
    for gi, (_, evs) in enumerate(groups):
        norm = row.get((gi, evs[0]), (None,))[0]
        if not norm:
            continue		# this group did not run in this interval
        for ev in evs:
            if ev in norms and ev not in ref and row.get((gi, ev), (None,))[0]:
                ref[ev] = c[ev] = row[(gi, ev)][0]
        scale = ref[evs[0]] / norm
        for ev in evs[1:]:
            val = row.get((gi, ev), (None,))[0]
            if val is not None and ev not in c:
                c[ev] = val * scale
    return c


def level_error(got, want, key, zen):
    """worst node error of one level, pp; None if got lacks the level"""
    nodes = LEVEL_NODES[key] + (["smt_contention"] if zen and key == "level1" else [])
    lv = got.get(key) or {}
    errs = [abs(lv[k] - want[k]) for k in nodes if k in want and lv.get(k) is not None]
    return max(errs) if errs else None


def level_keys(model, level):
    keys = ["level1"] + (["level2"] if level >= 2 else [])
    if level >= 3 and model in tdformulas.HAS_L34:
        keys += ["level3", "level4"]
    return keys


def sweep_skew(row):
    """perf reads its events one by one, the truth's cycles first and last:
    how much longer or shorter the last read's interval was than the first's,
    as a fraction.  Beyond SKEW_MAX, perf's reads of that interval (a vCPU
    descheduled between two reads) cover different windows: neither its
    counts nor the truth events describe one window."""
    a, b = row.get("truth.first", (None,))[0], row.get("truth.cycles", (None,))[0]
    return abs(b / a - 1) if a and b else 1


def perf_errors(model, level, groups, table, ms, n, want=None):
    """(per level the error of each of perf's intervals, None where not
    computable, against want or else the interval's truth; intervals
    skipped for a skewed sweep of reads), or None when perf failed"""
    r, rows = perf_stat(groups, table, ms, n)
    if r.returncode or len(rows) < n:
        fail(f"{model} perf stat -I {ms}: rc {r.returncode}, {len(rows)} of {n} intervals "
             f"({r.stderr.strip()[-300:]})")
        return None
    out = {k: [] for k in level_keys(model, level)}
    worst = (0, None)
    skipped = 0
    for row in rows:
        if sweep_skew(row) > SKEW_MAX:
            skipped += 1
            continue
        c = perf_counts(groups, row)
        got = tdformulas.levels(model, lambda name: c[name], level)
        if want is None:
            d = {k[6:]: v[0] for k, v in row.items() if isinstance(k, str)}
            w = truth_pct(d)
        else:
            w = want
        for k in out:
            out[k].append(level_error(got, w, k, model.startswith("zen")))
            if (out[k][-1] or 0) > worst[0]:
                worst = (out[k][-1], k, row, got, w)
    # an error beyond 100 pp (a node beyond 0..100 %), or on a steady
    # profile beyond STEADY_MAX: show the counts
    if worst[1] and (os.environ.get("TD_BENCH_DEBUG") or worst[0] > 100 or
                     (want is not None and worst[0] > STEADY_MAX)):
        print(f"# {model} {ms} ms: worst perf interval {worst[0]:.3f} pp at {worst[1]}: "
              f"counts {worst[2]}; perf {worst[3]}; truth {worst[4]}")
    return out, skipped


# ---- topdown.ko ----

def topdown_errors(model, level, ms, n):
    with open(f"{TD}/interval_ms", "w") as f:
        f.write(str(ms))
    if not settle([1], 2):
        fail(f"{model} topdown.ko at {ms} ms: cpu1 completes no intervals")
        return None
    s0, w0 = read_kv(f"{TD}/stats"), time.monotonic()
    p = subprocess.Popen(["tdnl", "-j", "watch", "-c", "1", "-n", str(n)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = p.communicate(timeout=30 + 3 * n * ms / 1000)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    s1, w1 = read_kv(f"{TD}/stats"), time.monotonic()
    ticks = int(s1["ticks"]) - int(s0["ticks"])
    cost = int(s1["cost_ns"]) - int(s0["cost_ns"])
    ncpu = len(all_cpus())
    if ticks:
        print(f"# {model} {ms} ms: the module's sampling work {cost / ticks / 1000:.1f} us a "
              f"slice, {ticks / (w1 - w0) / ncpu:.0f} slices/s per CPU, "
              f"{100 * cost / 1e9 / (w1 - w0) / ncpu:.2f} % of each CPU (measured)", flush=True)
    lines = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
    if len(lines) < n:
        fail(f"{model} tdnl watch at {ms} ms: {len(lines)} of {n} intervals ({err.strip()})")
        return None
    res = {k: [] for k in level_keys(model, level)}
    for obj in lines:
        # skewed (a snapshot's reads spread) are counted in: the bench
        # weighs the module's numbers as they come
        ok = fractions_given(obj.get("state"))
        want = window_truth(1, obj["start_ns"], obj["end_ns"])
        for k in res:
            res[k].append(level_error(obj, want, k, model.startswith("zen")) if ok else None)
    return res


# ---- the run ----

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


def stats(errs):
    """(p50, p90, max, intervals, not computable)"""
    ok = [e for e in errs if e is not None]
    return pct(ok, 50), pct(ok, 90), max(ok, default=float("nan")), len(ok), len(errs) - len(ok)


def show_groups(groups):
    return "  ".join("L%d{%s}" % (lvl, ",".join(evs)) for lvl, evs in groups)


def td_args():
    """topdown.ko's parameters besides level and interval, from the environment"""
    slice_us = os.environ.get("TD_SLICE_US")
    return ([f"slice_us={slice_us}"] if slice_us else []) + \
        os.environ.get("TD_BENCH_ARGS", "").split()


def run_config(model, level, sim_args, sched, results, missed):
    zen = model.startswith("zen")
    tag = f"{model} level={level}" + (" " + " ".join(sim_args) if sim_args else "")
    gp = int(sim_args[0].split("=")[1]) if sim_args else None
    groups, table = build_groups(model, level, gp)
    print(f"# {tag}: perf groups: {show_groups(groups)}", flush=True)
    err = load(model, f"level={level}", "interval_ms=100", *td_args(),
               sim_args=(IDEAL_PMU, *sim_args))
    if err:
        fail(f"{tag}: {err}")
        unload()
        return
    fix = zen_text if zen else (lambda t: t)
    write_profile(0, fix(STEADY))
    with open(f"{SIM}/cpu1/schedule", "w") as f:
        f.write("; ".join(f"ms={ms} " + fix(PROFILES[p]) for p, ms in sched))
    sname = "+".join(f"{p}{ms}" for p, ms in sched)
    td = {ms: topdown_errors(model, level, ms, n) for ms, n in INTERVALS}
    info = read_kv(f"{TD}/cpu1/info")
    print(f"# {tag}: topdown.ko sets {info.get('sets')}, Level 1 counted "
          f"{info.get('counted_level1')}", flush=True)
    sh("rmmod", "topdown")
    try:
        mux = open("/sys/bus/event_source/devices/tdsim/perf_event_mux_interval_ms").read().strip()
    except OSError:
        mux = "?"
    print(f"# {tag}: perf rotates tdsim's groups every {mux} ms (perf_event_mux_interval_ms)",
          flush=True)
    pf = {ms: perf_errors(model, level, groups, table, ms, n) for ms, n in INTERVALS}
    # the formulas and groups on a steady profile: perf gives it back
    write_profile(1, fix(STEADY))
    time.sleep(0.05)
    steady = perf_errors(model, level, groups, table, *STEADY_RUN,
                         want=want_of(fix(STEADY)))
    if steady:
        steady, skipped = steady
        worst = {k: max((e for e in v if e is not None), default=float("nan"))
                 for k, v in steady.items()}
        bad = [k for k, v in worst.items() if not v <= STEADY_MAX] + \
              [k for k, v in steady.items() if None in v]
        print(f"# {tag}: perf on the steady profile, {STEADY_RUN[1]} x {STEADY_RUN[0]} ms "
              f"({skipped} skipped for a skewed sweep): max error " +
              " ".join(f"{k} {v:.3f}" for k, v in worst.items()) +
              f" pp -> {'ok' if not bad else 'MISSED'} (<= {STEADY_MAX} at every level)",
              flush=True)
        if bad:
            missed.append(f"{tag}: perf on the steady profile beyond {STEADY_MAX} pp or n/a "
                          f"at {', '.join(sorted(set(bad)))}")
    unload()
    for ms, _ in INTERVALS:
        for key in level_keys(model, level):
            t = stats(td[ms][key]) if td[ms] else None
            p = stats(pf[ms][0][key]) + (pf[ms][1],) if pf[ms] else None
            results.append((tag, sname, ms, key, t, p))


def main():
    if not os.environ.get("TD_KO_DIR"):
        print("bench-accuracy: run it in the VM (make bench-accuracy)")
        return 4
    start = time.monotonic()
    unload()
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                if ln.startswith("model name")), "?")
    perf_v = sh("perf", "--version").stdout.strip()
    print(f"# machine: {platform.node()} {platform.machine()}, {cpu}, "
          f"{os.cpu_count()} CPUs; kernel {platform.release()} ({platform.version()}); "
          f"{perf_v}" + (f"; topdown.ko loaded with {' '.join(td_args())}"
                         if td_args() else ""), flush=True)
    results, missed = [], []
    only = os.environ.get("TD_BENCH_ONLY", "").split()
    for model, level, sim_args, sched in CONFIGS:
        if only and model not in only:
            continue
        run_config(model, level, sim_args, sched, results, missed)
    print()
    print("Error per interval, worst node, pp, against tdsim's truth of the interval's window "
          "(n: intervals; n/a: not computable;")
    print(f"skew: perf's intervals left out: its first and last reads {SKEW_MAX * 100:g} % of "
          "the interval or more out of step, so no one window)")
    hdr = (f"{'configuration':24} {'schedule':10} {'ms':>4} {'level':5} | "
           f"{'topdown.ko p50':>14} {'p90':>7} {'max':>7} {'n':>4} {'n/a':>3} | "
           f"{'perf p50':>8} {'p90':>7} {'max':>7} {'n':>4} {'n/a':>3} {'skew':>4} | "
           "ahead  <=half")
    print(hdr)
    print("-" * len(hdr))
    mark = {True: "yes", False: "NO", None: "-"}

    def cols(s, width):
        if not s:
            return f"{'failed':>{width}} {'':>7} {'':>7} {'':>4} {'':>3}"
        return f"{s[0]:{width}.3f} {s[1]:7.3f} {s[2]:7.3f} {s[3]:4d} {s[4]:3d}"
    for tag, sname, ms, key, t, p in results:
        ahead = half = None
        if t and p:
            ahead = t[1] < p[1]
            half = t[1] <= p[1] / 2
            if not ahead or not half:
                missed.append(f"{tag} {ms} ms {key}: topdown.ko p90 {t[1]:.3f} pp vs perf "
                              f"{p[1]:.3f} pp ({'ahead' if ahead else 'NOT ahead'}, "
                              f"{'within' if half else 'NOT within'} half)")
        skew = f"{p[5]:4d}" if p else f"{'':4}"
        print(f"{tag:24} {sname:10} {ms:4d} {'L' + key[-1]:5} | {cols(t, 14)} | {cols(p, 8)} "
              f"{skew} | {mark[ahead]:6} {mark[half]}")
    print()
    for m in missed:
        print(f"# MISSED: {m}")
    if not missed:
        print("# every target met")
    for m in harness_failed:
        print(f"# HARNESS FAILURE: {m}")
    print(f"# bench-accuracy took {time.monotonic() - start:.0f} s")
    return 1 if harness_failed else 0


if __name__ == "__main__":
    sys.exit(main())
