#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host: tdnl explain's thresholds (tools/tdnl/explain.c, printed by
`tdnl explain --thresholds`) against perf's own, the MetricThreshold of its
tma_* metrics in linux-source-6.12's tools/perf/pmu-events/arch:
- each node's value (and retiring's "| tma_heavy_operations > 0.1") is
  perf's, for every model of the table;
- the rest of perf's expression is its parent's own threshold (a node is
  only flagged under a flagged parent), or nothing for the nodes explain
  flags alone (light and heavy operations, fetch bandwidth);
- no node of ours that perf gives a threshold for is missing;
- the models with no table (Zen, the Arm cores) have none in perf either.
"""
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import Tap  # noqa: E402

tap = Tap("tdnl_thresholds")
ARCH = "build/linux-source-6.12/tools/perf/pmu-events/arch"
DIRS = {"spr": "x86/sapphirerapids", "icl": "x86/icelake", "skl": "x86/skylake",
        "gracemont": "x86/alderlaken", "crestmont": "x86/sierraforest"}
NONE = {"zen4": "x86/amdzen4", "zen5": "x86/amdzen5", "neoverse-n1": "arm64/arm/neoverse-n1",
        "neoverse-n2": "arm64/arm/neoverse-n2-v2", "neoverse-v1": "arm64/arm/neoverse-v1",
        "ampereone": "arm64/ampere/ampereone", "ampereonex": "arm64/ampere/ampereonex"}
# our node -> perf's metric, where the Atom tree names it otherwise
ATOM_NAMES = {"fetch_latency": "tma_ifetch_latency", "fetch_bandwidth": "tma_ifetch_bandwidth"}
PARENT = {"light_operations": "retiring", "heavy_operations": "retiring",
          "branch_mispredicts": "bad_speculation", "machine_clears": "bad_speculation",
          "fetch_latency": "frontend_bound", "fetch_bandwidth": "frontend_bound",
          "memory_bound": "backend_bound", "core_bound": "backend_bound",
          "resource_bound": "backend_bound", "l1_bound": "memory_bound",
          "l2_bound": "memory_bound", "l3_bound": "memory_bound", "dram_bound": "memory_bound",
          "store_bound": "memory_bound", "mem_bandwidth": "dram_bound",
          "mem_latency": "dram_bound"}
NODES = ["retiring", "bad_speculation", "frontend_bound", "backend_bound"] + list(PARENT)


def perf_thresholds(d):
    out = {}
    for f in glob.glob(f"{ARCH}/{d}/*.json"):
        try:
            data = json.load(open(f))
        except ValueError:
            continue
        for m in data if isinstance(data, list) else []:
            if isinstance(m, dict) and m.get("MetricThreshold"):
                out[m["MetricName"]] = m["MetricThreshold"]
    return out


def strip(e):
    e = e.strip()
    while e.startswith("(") and e.endswith(")"):
        e = e[1:-1].strip()
    return e


def main():
    if not os.path.isdir(ARCH):
        tap(False, f"{ARCH} is there (make lsrc)")
        tap.summary()
    r = subprocess.run(["build/bin/tdnl", "explain", "--thresholds"], capture_output=True,
                       text=True, timeout=30)
    ours = {}
    for line in r.stdout.splitlines():
        f = line.split()
        ours.setdefault(f[0], {})[f[1]] = (float(f[2]), f[3] == "alone",
                                           f[4] if len(f) > 4 else None,
                                           float(f[5]) if len(f) > 5 else None)
    tap(r.returncode == 0 and set(ours) == set(DIRS),
        f"tdnl explain --thresholds: tables for {sorted(ours)}")
    for model, d in DIRS.items():
        perf = perf_thresholds(d)
        mine = ours.get(model, {})
        atom = model in ("gracemont", "crestmont")
        bad, checked = [], 0

        def perf_name(node):
            return ATOM_NAMES.get(node, f"tma_{node}") if atom else f"tma_{node}"
        for node in NODES:
            expr = perf.get(perf_name(node))
            if expr is None:
                if node in mine:
                    bad.append(f"{node}: ours {mine[node][0]}, perf has none")
                continue
            if node not in mine:
                bad.append(f"{node}: perf {expr}, ours missing")
                continue
            checked += 1
            above, alone, or_node, or_above = mine[node]
            want = f"{perf_name(node)} > {above:g}"
            if or_node:
                want += f" | {perf_name(or_node)} > {or_above:g}"
            head, _, rest = expr.partition(" & ")
            if strip(head) != want:
                bad.append(f"{node}: perf '{head}', ours '{want}'")
            parent = PARENT.get(node)
            if parent and not alone:
                if strip(rest) != strip(perf.get(perf_name(parent), "?")):
                    bad.append(f"{node}: perf's condition '{rest}' is not {parent}'s threshold")
            elif rest:
                bad.append(f"{node}: perf has a condition '{rest}', ours none")
        tap(checked >= 10 and not bad,
            f"{model} ({d}): {checked} nodes' thresholds are perf's, each under its "
            f"parent's{' (' + '; '.join(bad[:4]) + ')' if bad else ''}")
    for model, d in NONE.items():
        perf = perf_thresholds(d)
        have = sorted(n for n in perf if re.match(r"tma_", n))
        tap(model not in ours and not have,
            f"{model} ({d}): no table here and no tma_* threshold in perf ({have[:3]})")
    tap.summary()


main()
