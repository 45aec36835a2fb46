#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tdnl explain on tdsim profiles whose bottleneck is known.

topdown.ko on tdsim as spr at level 3, 100 ms.  For each profile on cpu1,
`tdnl -j explain -c 1 -t 600` must name the expected path down the tree,
every node of it flagged over perf's threshold:
- memory bandwidth: backend_bound > memory_bound > dram_bound > mem_bandwidth
- frontend: frontend_bound > fetch_latency
- branches: bad_speculation > branch_mispredicts
- microcode: retiring > heavy_operations
Also: the text says the bottleneck and what helps; --from a tdnl stat -o
file gives the same path; zen4 (no thresholds in perf) gives the largest
path, nothing flagged, and says so; errors.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import Tap, load, settle, unload, write_profile  # noqa: E402

tap = Tap("tdnl_explain")
CASES = [
    ("memory bandwidth",
     "retiring=15 bad_speculation=5 frontend_bound=10 backend_bound=70 heavy_operations=2 "
     "branch_mispredicts=3 fetch_latency=6 memory_bound=55 l1_bound=10 l2_bound=6 "
     "l3_bound=8 dram_bound=27 store_bound=4 mem_bandwidth=22 mem_latency=5",
     ["backend_bound", "memory_bound", "dram_bound", "mem_bandwidth"]),
    ("frontend latency",
     "retiring=25 bad_speculation=10 frontend_bound=45 backend_bound=20 heavy_operations=5 "
     "branch_mispredicts=8 fetch_latency=35 memory_bound=8",
     ["frontend_bound", "fetch_latency"]),
    ("branch mispredicts",
     "retiring=30 bad_speculation=40 frontend_bound=10 backend_bound=20 heavy_operations=5 "
     "branch_mispredicts=32 fetch_latency=6 memory_bound=8",
     ["bad_speculation", "branch_mispredicts"]),
    ("heavy operations",
     "retiring=80 bad_speculation=5 frontend_bound=5 backend_bound=10 heavy_operations=25 "
     "branch_mispredicts=3 fetch_latency=3 memory_bound=4",
     ["retiring", "heavy_operations"]),
]


def explain(*args, fmt="-j"):
    return subprocess.run(["tdnl"] + ([fmt] if fmt else []) + ["explain", *args],
                          capture_output=True, text=True, timeout=60)


def path_of(r):
    try:
        g = json.loads(r.stdout)[0]
        return [p["node"] for p in g["path"]], all(p["flagged"] for p in g["path"]), g
    except (ValueError, IndexError, KeyError):
        return None, False, {}


def main():
    if not os.environ.get("TD_KO_DIR"):
        tap.skip_all("not in the VM")
    err = load("spr", "level=3", "interval_ms=100")
    if not tap(not err, f"tdsim and topdown load as spr, level 3 ({err or 'ok'})"):
        tap.summary()
    for name, prof, want in CASES:
        write_profile(1, prof)
        settle([1], 2)
        r = explain("-c", "1", "-t", "600")
        got, flagged, _ = path_of(r)
        tap(r.returncode == 0 and got == want and flagged,
            f"{name}: path {' > '.join(got or [])} (want {' > '.join(want)}), every node flagged "
            f"{flagged}{'' if r.returncode == 0 else ' (' + r.stderr.strip()[:200] + ')'}")
    r = explain("-c", "1", "-t", "300", fmt=None)
    tap(r.returncode == 0 and "Bottleneck: Heavy operations." in r.stdout and
        "What usually helps:" in r.stdout and "over perf's threshold" in r.stdout,
        "text: the path with perf's thresholds, the bottleneck, what usually helps")
    write_profile(1, CASES[0][1])
    settle([1], 2)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["tdnl", "stat", "-c", "1", "-o", f"{tmp}/s.json", "--", "sleep", "0.4"],
                       capture_output=True, timeout=60)
        got, flagged, _ = path_of(explain("--from", f"{tmp}/s.json"))
        tap(got == CASES[0][2] and flagged,
            f"--from a tdnl stat -o file: {' > '.join(got or [])}")
        r = explain("--from", f"{tmp}/s.json", fmt=None)
        print("# " + r.stdout.rstrip().replace("\n", "\n# "))
        tap("Levels 3/4 are shares of clock ticks" in r.stdout and "of the slots)" in r.stdout,
            "text: Level 3/4 as shares of clock ticks, with their share of the slots, and the note")
    err = load("zen4", "level=2", "interval_ms=100")
    write_profile(1, "retiring=20 bad_speculation=10 frontend_bound=15 backend_bound=50 "
                  "smt_contention=5 heavy_operations=5 branch_mispredicts=8 fetch_latency=10 "
                  "memory_bound=40")
    settle([1], 2)
    r = explain("-c", "1", "-t", "300")
    got, _, g = path_of(r)
    t = explain("-c", "1", "-t", "300", fmt=None)
    none = not any(p["flagged"] for p in g.get("path", []))
    tap(not err and got == ["backend_bound", "memory_bound"] and g.get("thresholds") is None and
        none and "perf has no thresholds for zen4" in t.stdout,
        f"zen4: the largest path {' > '.join(got or [])}, nothing flagged, "
        "and it says perf has no thresholds")
    r = explain("-t", "0", fmt=None)
    tap(r.returncode == 2 and "-t: '0'" in r.stderr, f"-t 0: exit {r.returncode}")
    r = explain("--from", "/nonexistent", fmt=None)
    tap(r.returncode == 1 and "not a file saved by tdnl stat" in r.stderr,
        f"--from a missing file: exit {r.returncode}, says so")
    unload()
    tap.summary()


main()
