#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tdnl stat and tdnl diff against tdsim's truth.

topdown.ko on tdsim as spr at level 3 (Level 2 and 3 take turns in event
sets).  cpu1 plays a schedule of three profiles (phases of 2 to 25 ms at
different clock rates), cpu0 a steady profile.
- tdnl -j stat -c 1 -- sleep: every node of Levels 1-4 within 0.5 pp of
  tdsim's exact truth over the window the two cuts bracket (per_cpu's
  start_ns and end_ns), at 100 ms and at 1000 ms intervals; the window
  holds the command's run and, at 1000 ms, is less than 0.25 s longer
  than it (without the cuts it would run to the intervals' ends);
- -c 0-1: both CPUs added up, against the sum of their windows' truth;
- the intervals in the window counted, none lost or not counted;
- text and CSV outputs carry the same numbers; -o FILE saves the JSON;
- the command's exit status passes through (3; 128 + 15 when killed by
  SIGTERM); a command that cannot run: 127 and a message;
- tdnl diff of two runs (cpu1 steady on one profile, then another): each
  node's change is the profiles' difference within 0.5 pp;
- errors: no command (2), the module stopped (1, says start it).
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import (L1, L2, L3, L4, SIM, Tap, load, settle, sh, unload,  # noqa: E402
                    want_of, window_truth, write_profile)

tap = Tap("tdnl_stat")
MEM = ("l1_bound=10 l2_bound=6 l3_bound=8 dram_bound=27 store_bound=4 "
       "mem_bandwidth=12 mem_latency=10")
PROFILES = {
    "A": "retiring=60 bad_speculation=5 frontend_bound=15 backend_bound=20 "
         "heavy_operations=10 branch_mispredicts=4 fetch_latency=8 memory_bound=8 "
         "l1_bound=3 l2_bound=1 l3_bound=1 dram_bound=2 store_bound=1 mem_bandwidth=1 "
         "mem_latency=1 freq_mhz=2000",
    "B": "retiring=15 bad_speculation=5 frontend_bound=10 backend_bound=70 "
         "heavy_operations=2 branch_mispredicts=3 fetch_latency=6 memory_bound=55 "
         + MEM + " freq_mhz=3000",
    "C": "retiring=25 bad_speculation=25 frontend_bound=40 backend_bound=10 "
         "heavy_operations=5 branch_mispredicts=20 fetch_latency=30 memory_bound=5 "
         "l1_bound=2 l2_bound=1 l3_bound=0.5 dram_bound=1 store_bound=0.5 "
         "mem_bandwidth=0.5 mem_latency=0.5 freq_mhz=1500",
}
SCHEDULE = [("A", 2), ("B", 25), ("C", 3)]
LEVELS = [("level1", L1), ("level2", L2), ("level3", L3), ("level4", L4)]


def stat(*args, fmt="-j"):
    cmd = ["tdnl"] + ([fmt] if fmt else []) + ["stat", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def worst(group, want):
    """the worst node over Levels 1-4, (pp, where)"""
    out = (0.0, "")
    for key, nodes in LEVELS:
        got = group.get(key) or {}
        for n in nodes:
            if n in want and got.get(n) is not None:
                e = abs(got[n] - want[n])
                if e > out[0]:
                    out = (e, f"{key} {n} {got[n]:.3f} vs {want[n]:.3f}")
    return out


def levels_present(group):
    return [k for k, _ in LEVELS if group.get(k)]


def exact(ival):
    """one CPU, then both, over a sleep, against the window's truth"""
    err = load("spr", "level=3", f"interval_ms={ival}")
    if not tap(not err, f"{ival} ms: tdsim and topdown load as spr, level 3 ({err or 'ok'})"):
        return
    write_profile(0, PROFILES["B"])
    with open(f"{SIM}/cpu1/schedule", "w") as f:
        f.write("; ".join(f"ms={ms} {PROFILES[p]}" for p, ms in SCHEDULE))
    settle([0, 1], 2)
    r = stat("-c", "1", "--", "sleep", "0.7")
    try:
        j = json.loads(r.stdout)
        g, pc = j["groups"][0], j["per_cpu"][0]
    except (ValueError, KeyError, IndexError):
        tap(False, f"{ival} ms: tdnl -j stat -c 1 -- sleep 0.7 prints one group "
            f"(exit {r.returncode}: {r.stderr.strip()[:200]})")
        return
    want = window_truth(1, pc["start_ns"], pc["end_ns"])
    e, where = worst(g, want)
    tap(r.returncode == 0 and levels_present(g) == ["level1", "level2", "level3", "level4"] and
        e <= 0.5, f"{ival} ms: cpu1 in phases: Levels 1-4 within 0.5 pp of the window's "
        f"truth (worst {e:.3f}: {where})")
    window = (pc["end_ns"] - pc["start_ns"]) / 1e9
    tap(window >= j["elapsed_s"] and (ival < 1000 or window - j["elapsed_s"] < 0.25),
        f"{ival} ms: the window {window:.3f} s holds the command's {j['elapsed_s']:.3f} s"
        + (" and is less than 0.25 s longer" if ival >= 1000 else ""))
    sk = g.get("skewed")
    tap(g["intervals"] >= 1 and g["lost"] == 0 and g["not_counted"] == 0 and
        isinstance(sk, int) and 0 <= sk <= g["intervals"],
        f"{ival} ms: {g['intervals']} intervals in the window, {g['lost']} lost, "
        f"{g['not_counted']} not counted, {sk} skewed")
    r = stat("-c", "0-1", "--", "sleep", "0.5")
    try:
        j = json.loads(r.stdout)
        g = j["groups"][0]
        w = {p["cpu"]: p for p in j["per_cpu"]}
        want = window_truth(0, w[0]["start_ns"], w[0]["end_ns"],
                            more=[(1, w[1]["start_ns"], w[1]["end_ns"])])
        e, where = worst(g, want)
    except (ValueError, KeyError, IndexError) as x:
        g, e, where = {}, 100.0, f"no result ({x}; {r.stderr.strip()[:200]})"
    tap(g.get("cpus") == 2 and e <= 0.5,
        f"{ival} ms: cpu0 (steady) and cpu1 (phases) added up: within 0.5 pp of "
        f"their windows' summed truth (worst {e:.3f}: {where})")


def outputs():
    """text, CSV and -o agree with the JSON; exit statuses pass through"""
    with tempfile.TemporaryDirectory() as tmp:
        r = stat("-c", "0", "-o", f"{tmp}/s.json", "--", "sleep", "0.3", fmt=None)
        try:
            saved = json.load(open(f"{tmp}/s.json"))
            ret = saved["groups"][0]["level1"]["retiring"]
        except (OSError, ValueError, KeyError, IndexError):
            saved, ret = None, None
        line = [x for x in r.stdout.splitlines() if x.strip().startswith("retiring")]
        tap(r.returncode == 0 and saved and line and
            abs(float(line[0].split()[1]) - ret) < 0.006 and "seconds time elapsed" in r.stdout,
            f"text output, and -o saved the JSON: retiring {line[0].split()[1] if line else None}"
            f" as {ret}")
        # Levels 3/4 in show's tree: DRAM bound's two under it, store bound after them
        nodes = [x.split()[0] for x in r.stdout.splitlines() if x.endswith("of clock ticks")]
        want = ["l1_bound", "l2_bound", "l3_bound", "dram_bound", "mem_bandwidth",
                "mem_latency", "store_bound"]
        tap(nodes == want, f"text output: Levels 3/4 in tree order ({' '.join(nodes)})")
    r = stat("-c", "0", "--", "sleep", "0.2", fmt="--csv")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    nodes = {(x["level"], x["node"]) for x in rows}
    tap(r.returncode == 0 and ("1", "retiring") in nodes and ("3", "dram_bound") in nodes,
        f"CSV: {len(rows)} rows of model,cpus,level,node,percent")
    r = stat("--", "sh", "-c", "exit 3", fmt=None)
    tap(r.returncode == 3, f"the command's exit status 3 passes through ({r.returncode})")
    r = stat("--", "sh", "-c", "kill -TERM $$", fmt=None)
    tap(r.returncode == 143, f"killed by SIGTERM: 128 + 15 ({r.returncode})")
    r = stat("--", "/nonexistent/cmd", fmt=None)
    tap(r.returncode == 127 and "cannot run '/nonexistent/cmd'" in r.stderr,
        f"a command that cannot run: exit {r.returncode}, says so ({r.stderr.strip()[:80]})")


def diffs():
    """two runs on two steady profiles, then tdnl diff"""
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name in ("A", "B"):
            write_profile(1, PROFILES[name])
            settle([1], 2)
            r = stat("-c", "1", "-o", f"{tmp}/{name}.json", "--", "sleep", "0.3")
            files.append(f"{tmp}/{name}.json")
        r = subprocess.run(["tdnl", "-j", "diff", *files], capture_output=True, text=True,
                           timeout=30)
        try:
            rows = json.loads(r.stdout)
        except ValueError:
            rows = []
        a, b = want_of(PROFILES["A"]), want_of(PROFILES["B"])
        errs = [abs(x["change"] - (b[x["node"]] - a[x["node"]])) for x in rows
                if x["level"] <= 2 and x["change"] is not None and x["node"] in a]
        tap(r.returncode == 0 and len(errs) >= 12 and max(errs) <= 0.5,
            f"tdnl diff: {len(errs)} Level 1/2 changes, each the profiles' difference "
            f"within 0.5 pp (worst {max(errs or [100]):.3f})")
        r = subprocess.run(["tdnl", "diff", *files], capture_output=True, text=True, timeout=30)
        tap(r.returncode == 0 and "memory_bound" in r.stdout and " pp" in r.stdout,
            "tdnl diff's text: the nodes with their change in pp")


def errors():
    r = stat(fmt=None)
    tap(r.returncode == 2 and "no command" in r.stderr,
        f"no command: exit {r.returncode} ({r.stderr.strip().splitlines()[0]})")
    sh("tdnl", "stop")
    r = stat("--", "true", fmt=None)
    tap(r.returncode == 1 and "tdnl start" in r.stderr,
        f"module stopped: exit {r.returncode}, says to start it ({r.stderr.strip()})")
    sh("tdnl", "start")


def main():
    if not os.environ.get("TD_KO_DIR"):
        tap.skip_all("not in the VM")
    if os.cpu_count() < 2:
        tap.skip_all("needs 2 CPUs")
    exact(100)
    outputs()
    diffs()
    errors()
    exact(1000)
    unload()
    tap.summary()


main()
