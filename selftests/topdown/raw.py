#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""topdown.ko level=3 on tdsim: cpuN/raw must be consistent with the
ground-truth profile.  Per model: every event of the level is listed and
counted; the clock rate is the profile's freq_mhz; slots are width x cycles
(within 1 %, counted all the time or in a set that takes turns);
totals grow by the deltas, and at 10 ms intervals every set counts in every
interval and the totals miss nothing;
and, for the Intel models, perf's clock-tick
Level 3/4 memory formulas (skl/icl/spr-metrics.json; 7.3's gnr, lnl/arl
for gnr and lioncove), applied here in Python
to the raw deltas, give the profile's memory nodes within 1 point.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import (IDEAL_PMU, TD, Tap, all_cpus, load, read_kv, seq, settle, unload,  # noqa: E402
                    want_of, write_profile)
from tdformulas import memory_nodes  # noqa: E402

tap = Tap("topdown_raw")
# events opened at level 3 (docs/hardware.md, *Events per model and level*;
# skl opens both SMT forms)
LEVEL3_EVENTS = {"skl": 26, "icl": 29, "spr": 17, "zen4": 12, "zen5": 12,
                 "neoverse-n1": 3, "neoverse-n2": 7, "neoverse-n2-r0p2": 7,
                 "neoverse-v1": 7, "neoverse-v2": 7, "ampereone": 10,
                 "ampereonex": 10, "gracemont": 7, "crestmont": 8, "gnr": 17,
                 "lioncove": 19, "skymont": 8, "zen6": 12, "neoverse-n3": 7,
                 "neoverse-v3": 7}
CLOCK = {"skl": "CPU_CLK_UNHALTED.THREAD", "icl": "CPU_CLK_UNHALTED.THREAD",
         "spr": "CPU_CLK_UNHALTED.THREAD", "zen4": "ls_not_halted_cyc",
         "zen5": "ls_not_halted_cyc", "neoverse-n1": "CPU_CYCLES",
         "neoverse-n2": "CPU_CYCLES", "neoverse-n2-r0p2": "CPU_CYCLES",
         "neoverse-v1": "CPU_CYCLES", "neoverse-v2": "CPU_CYCLES",
         "ampereone": "CPU_CYCLES", "ampereonex": "CPU_CYCLES",
         "gracemont": "CPU_CLK_UNHALTED.CORE",
         "crestmont": "CPU_CLK_UNHALTED.CORE", "gnr": "CPU_CLK_UNHALTED.THREAD",
         "lioncove": "CPU_CLK_UNHALTED.THREAD", "skymont": "CPU_CLK_UNHALTED.CORE",
         "zen6": "ls_not_halted_cyc", "neoverse-n3": "CPU_CYCLES",
         "neoverse-v3": "CPU_CYCLES"}
WIDTH = {"icl": 5, "spr": 6, "gnr": 6, "lioncove": 8}
PROFILES = [
    "retiring=30 bad_speculation=10 frontend_bound=20 backend_bound=40 "
    "heavy_operations=5 branch_mispredicts=8 fetch_latency=12 memory_bound=25 "
    "l1_bound=8 l2_bound=4 l3_bound=3 dram_bound=6 store_bound=2 "
    "mem_bandwidth=2 mem_latency=3 freq_mhz=2000",
    "retiring=20 bad_speculation=5 frontend_bound=15 backend_bound=60 "
    "heavy_operations=2 branch_mispredicts=4 fetch_latency=10 memory_bound=45 "
    "l1_bound=10 l2_bound=6 l3_bound=5 dram_bound=15 store_bound=4 "
    "mem_bandwidth=7 mem_latency=5 freq_mhz=3100",
]
MEM_NODES = ["l1_bound", "l2_bound", "l3_bound", "dram_bound", "store_bound",
             "mem_bandwidth", "mem_latency"]


def parse_raw(text):
    """cpuN/raw's text: name -> (delta, total, enabled_ns, running_ns)"""
    out = {}
    for line in text.splitlines():
        f = line.split()
        out[f[0]] = tuple(int(x) for x in f[1:5])
    return out


def raw(cpu):
    """name -> (delta, total, enabled_ns, running_ns)"""
    return parse_raw(open(f"{TD}/cpu{cpu}/raw").read())


def snapshot(cpu):
    """(seq, raw) of one interval: raw read between two equal seq reads"""
    for _ in range(20):
        before = seq(cpu)
        r = raw(cpu)
        if seq(cpu) == before:
            return before, r
    return -1, {}


def check_model(model, cpus):
    err = load(model, "level=3", "interval_ms=500", sim_args=(IDEAL_PMU,))
    if err:
        tap(False, f"{model}: tdsim and topdown level=3 load ({err})")
        return
    for rnd, prof in enumerate(PROFILES):
        want = want_of(prof)
        text = prof + (" smt_contention=0" if model.startswith("zen") else "")
        for cpu in cpus:
            write_profile(cpu, text)
        settle(cpus, 3)
        for cpu in cpus:
            tag = f"{model} cpu{cpu} profile {rnd}"
            r = raw(cpu)
            tap(len(r) == LEVEL3_EVENTS[model],
                f"{tag}: raw lists the {LEVEL3_EVENTS[model]} events of level 3 ({len(r)})")
            tap(all(en > 0 and 0 < run <= en for _, _, en, run in r.values()),
                f"{tag}: every event counted (0 < running <= enabled)")
            d, _, en, run = r[CLOCK[model]]
            mhz = d / en * 1000
            tol = 1
            tap(abs(mhz / want["freq_mhz"] - 1) * 100 < tol,
                f"{tag}: {CLOCK[model]} runs at {mhz:.1f} MHz (profile "
                f"{want['freq_mhz']:.0f}; within {tol} %, ran {run / en * 100:.1f} % of the time)")
            if model in WIDTH:
                sd, _, sen, srun = r["TOPDOWN.SLOTS"]
                ratio = (sd / sen) / (d / en)
                tol = 1
                tap(abs(ratio / WIDTH[model] - 1) * 100 < tol,
                    f"{tag}: TOPDOWN.SLOTS = {ratio:.3f} x cycles (width {WIDTH[model]}, "
                    f"within {tol} %)")
            if model in ("skl", "icl", "spr", "gnr", "lioncove"):
                got = memory_nodes(model, r)
                err = max(abs(got[k] - want[k]) for k in MEM_NODES)
                tap(err <= 1.0, f"{tag}: perf's memory formulas on raw within 1 point "
                    f"(max error {err:.3f}; " +
                    " ".join(f"{k}={got[k]:.2f}" for k in MEM_NODES) + ")")
        # totals: the next interval's total is this total plus its delta
        for cpu in cpus:
            seq0, r0 = snapshot(cpu)
            for _ in range(200):
                time.sleep(0.02)
                if seq(cpu) > seq0:
                    break
            seq1, r = snapshot(cpu)
            ok = seq1 == seq0 + 1 and all(r[k][1] == r0[k][1] + r[k][0] for k in r)
            tap(ok, f"{model} cpu{cpu} profile {rnd}: each total grows by the next "
                f"interval's delta (seq {seq0} -> {seq1})")
    unload()


def check_not_counted_totals(cpus):
    """
    spr level=3 every 10 ms: 17 events on 12 counters, in 3 sets that take
    turns, one slice each per interval.  Every interval counts every set
    (none not-counted), and the totals over 5 s miss nothing: cycles at
    freq_mhz, slots = 6 x cycles within 1 %, retiring =
    UOPS_RETIRED.SLOTS / slots within 0.1 point.  (Before the module made
    its own sets, perf rotated the 17 events one by one: 70 % of these
    intervals had a counter that never ran, and each rotation's time was
    lost to the counts, 1.7-3.2 %.)
    """
    tag = "spr level=3 interval_ms=10"
    err = load("spr", "level=3", "interval_ms=10", sim_args=(IDEAL_PMU,))
    if err:
        tap(False, f"{tag}: tdsim and topdown load ({err})")
        return
    prof = PROFILES[0]
    want = want_of(prof)
    for cpu in cpus:
        write_profile(cpu, prof)
    settle(cpus, 3)

    def consistent(c):
        """end_ns and raw of one interval: info, raw and info again, read
        with pread on files held open (an open of a debugfs file is most of
        a read's cost under emulation: 50 tries of three opens each all
        straddled a 10 ms interval once, on a loaded host), until both
        infos show one interval; for at most 2 s"""
        fi = os.open(f"{TD}/cpu{c}/info", os.O_RDONLY)
        fr = os.open(f"{TD}/cpu{c}/raw", os.O_RDONLY)

        def kv(fd):
            return dict(x.partition(" ")[::2] for x in
                        os.pread(fd, 1 << 16, 0).decode().splitlines())
        try:
            t_end, tries = time.monotonic() + 2, 0
            while time.monotonic() < t_end:
                tries += 1
                s0 = kv(fi)
                text = os.pread(fr, 1 << 16, 0).decode()
                if kv(fi)["seq"] == s0["seq"]:
                    return int(s0["end_ns"]), parse_raw(text)
            print(f"# cpu{c}: {tries} tries in 2 s each straddled an interval",
                  flush=True)
            return None, None
        finally:
            os.close(fi)
            os.close(fr)
    start = {c: consistent(c) for c in cpus}
    nc = {c: set() for c in cpus}
    seen = {c: set() for c in cpus}
    t_end = time.monotonic() + 5
    while time.monotonic() < t_end:
        for c in cpus:
            i = read_kv(f"{TD}/cpu{c}/info")
            seen[c].add(i["seq"])
            if i["state"] != "ok":
                nc[c].add(i["seq"])
        time.sleep(0.003)
    end = {c: consistent(c) for c in cpus}
    for c in cpus:
        if start[c][0] is None or end[c][0] is None:
            tap(False, f"{tag} cpu{c}: read end_ns and raw of one interval")
            continue
        ns = end[c][0] - start[c][0]

        def grow(name):
            return end[c][1][name][1] - start[c][1][name][1]
        mhz = grow("CPU_CLK_UNHALTED.THREAD") / ns * 1000
        slots = grow("TOPDOWN.SLOTS") / grow("CPU_CLK_UNHALTED.THREAD")
        ret = 100 * grow("UOPS_RETIRED.SLOTS") / grow("TOPDOWN.SLOTS")
        tap(len(nc[c]) == 0 and len(seen[c]) > 100 and
            abs(mhz / want["freq_mhz"] - 1) < 0.01 and
            abs(slots / 6 - 1) < 0.01 and abs(ret - want["retiring"]) < 0.1,
            f"{tag} cpu{c}: over {ns / 1e9:.2f} s, {len(nc[c])} of {len(seen[c])} "
            f"intervals seen not ok, the totals give {mhz:.1f} MHz (profile "
            f"{want['freq_mhz']:.0f}), slots {slots:.4f} x cycles (6), retiring "
            f"{ret:.3f} % ({want['retiring']:.0f}) within 1 %, 1 % and 0.1 point")
    unload()


def main():
    cpus = all_cpus()
    for model in LEVEL3_EVENTS:
        check_model(model, cpus)
    check_not_counted_totals(cpus)
    tap.summary()


main()
