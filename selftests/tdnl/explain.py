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
file gives the same path; show and watch colour the flagged nodes on a
terminal (script(1)), none in a pipe or with NO_COLOR; zen4 (no thresholds
in perf) gives the largest path, nothing flagged, and says so; errors.
"""
import json
import os
import re
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


# every node away from perf's threshold (spr): backend, memory, core, DRAM
# bound and memory bandwidth over theirs, under flagged parents
COLOUR_PROFILE = ("retiring=15 bad_speculation=5 frontend_bound=10 backend_bound=70 "
                  "heavy_operations=2 branch_mispredicts=3 fetch_latency=6 memory_bound=50 "
                  "l1_bound=4 l2_bound=2 l3_bound=2 dram_bound=30 store_bound=4 "
                  "mem_bandwidth=25 mem_latency=4")
COLOUR_FLAGGED = {"backend_bound", "memory_bound", "core_bound", "dram_bound", "mem_bandwidth"}
RED = "\033[1;31m"


def on_tty(cmd, no_color=False):
    """@cmd's output on a pseudo-terminal (script(1)), TERM=xterm"""
    e = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    e["TERM"] = "xterm"
    if no_color:
        e["NO_COLOR"] = "1"
    return subprocess.run(["script", "-qc", cmd, "/dev/null"], capture_output=True,
                          text=True, timeout=60, env=e).stdout


def check_colours():
    write_profile(1, COLOUR_PROFILE)
    settle([1], 2)
    out = on_tty("tdnl show -c 1")
    red = {ln.split()[0] for ln in (re.sub(r"\033\[[0-9;]*m", "", x)
                                    for x in out.splitlines() if RED in x) if ln.split()}
    tap(red == COLOUR_FLAGGED and out.count("\033[0m") == len(COLOUR_FLAGGED),
        f"show on a terminal: the flagged rows in bold red: {sorted(red)} "
        f"(want {sorted(COLOUR_FLAGGED)})")
    out = on_tty("tdnl watch -c 1 -n 2")
    rows = [x for x in out.splitlines() if x.startswith("cpu1") and len(x.split(None, 2)) == 3]
    # columns: retiring bad_spec frontend backend memory l1 l2 l3 dram store mem_bw mem_lat
    want = [False, False, False, True, True, False, False, False, True, False, True, False]
    got = [[c.startswith(RED) for c in re.findall(r"(?:\033\[1;31m)?\s*[0-9.]+(?:\033\[0m)?|n/a",
                                                     x.split(None, 2)[2])] for x in rows]
    tap(len(rows) == 2 and all(g[:12] == want for g in got),
        f"watch on a terminal: backend, memory, DRAM and memory bandwidth's cells in bold red "
        f"({[''.join('R' if c else '.' for c in g[:12]) for g in got]})")
    n = on_tty("tdnl show -c 1", no_color=True).count("\033")
    p = subprocess.run(["tdnl", "show", "-c", "1"], capture_output=True, text=True,
                       timeout=60).stdout.count("\033")
    tap(n == 0 and p == 0, f"show with NO_COLOR on a terminal, or into a pipe: no escape "
        f"({n}, {p})")


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
    check_colours()
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
