#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host: tdnl --perf-names and tdnl explain's thresholds against perf.

--perf-names (tools/tdnl/names.c): for each model, the names
`tdnl --perf-names --csv diff` prints for the model's own nodes are
metrics of perf's JSON for it (arm64/sbsa.json too on Arm), or ours where
perf has none (listed).

tdnl explain's thresholds (tools/tdnl/flags.c, printed by
`tdnl explain --thresholds`) against perf's own, the MetricThreshold of its
tma_* metrics in tools/perf/pmu-events/arch of linux-source-6.12 and of
linux-source-7.3 (the models of CPUs 6.12 lacks: 7.3's only):
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
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import Tap  # noqa: E402

tap = Tap("tdnl_thresholds")
ARCHS = {t: f"build/linux-source-{t}/tools/perf/pmu-events/arch" for t in ("6.12", "7.3")}
# model -> its perf table (DIR[@UNIT]), in both trees or in 7.3 only
DIRS = {"spr": "x86/sapphirerapids", "icl": "x86/icelake", "skl": "x86/skylake",
        "gracemont": "x86/alderlaken", "crestmont": "x86/sierraforest",
        "gnr": "x86/graniterapids", "lioncove": "x86/lunarlake@cpu_core",
        "skymont": "x86/lunarlake@cpu_atom"}
NONE = {"zen4": "x86/amdzen4", "zen5": "x86/amdzen5", "neoverse-n1": "arm64/arm/neoverse-n1",
        "neoverse-n2": "arm64/arm/neoverse-n2-v2", "neoverse-v1": "arm64/arm/neoverse-v1",
        "ampereone": "arm64/ampere/ampereone", "ampereonex": "arm64/ampere/ampereonex",
        "zen6": "x86/amdzen6", "neoverse-n3": "arm64/arm/neoverse-n3",
        "neoverse-v3": "arm64/arm/neoverse-v3"}
NEW = ("gnr", "lioncove", "skymont", "zen6", "neoverse-n3", "neoverse-v3")
# our node -> perf's metric, where the Atom tree names it otherwise
ATOM_NAMES = {"fetch_latency": "tma_ifetch_latency", "fetch_bandwidth": "tma_ifetch_bandwidth"}
# and where 7.3 names DRAM Bound L3 Miss Bound
L3_MISS_NAMES = {"dram_bound": "tma_l3_miss_bound"}
PARENT = {"light_operations": "retiring", "heavy_operations": "retiring",
          "branch_mispredicts": "bad_speculation", "machine_clears": "bad_speculation",
          "fetch_latency": "frontend_bound", "fetch_bandwidth": "frontend_bound",
          "memory_bound": "backend_bound", "core_bound": "backend_bound",
          "resource_bound": "backend_bound", "l1_bound": "memory_bound",
          "l2_bound": "memory_bound", "l3_bound": "memory_bound", "dram_bound": "memory_bound",
          "store_bound": "memory_bound", "mem_bandwidth": "dram_bound",
          "mem_latency": "dram_bound"}
NODES = ["retiring", "bad_speculation", "frontend_bound", "backend_bound"] + list(PARENT)


def trees(model):
    return ("7.3",) if model in NEW else tuple(ARCHS)


def perf_thresholds(arch, table):
    d, _, unit = table.partition("@")
    out = {}
    for f in glob.glob(f"{arch}/{d}/*.json"):
        try:
            data = json.load(open(f))
        except ValueError:
            continue
        for m in data if isinstance(data, list) else []:
            if isinstance(m, dict) and m.get("MetricThreshold") and \
                    (not unit or m.get("Unit") == unit):
                out[m["MetricName"]] = m["MetricThreshold"]
    return out


def strip(e):
    e = e.strip()
    while e.startswith("(") and e.endswith(")"):
        e = e[1:-1].strip()
    return e


ALL_DIRS = dict(DIRS, **NONE, **{"neoverse-v2": "arm64/arm/neoverse-n2-v2",
                                 "neoverse-n2-r0p2": "arm64/arm/neoverse-n2-v2"})
ALL_DIRS["lioncove"] = "x86/lunarlake"	# perf_metrics() takes a directory
ALL_DIRS["skymont"] = "x86/lunarlake"
CORE = ["retiring", "bad_speculation", "frontend_bound", "backend_bound", "light_operations",
        "heavy_operations", "branch_mispredicts", "machine_clears", "fetch_latency",
        "fetch_bandwidth", "memory_bound", "core_bound", "l1_bound", "l2_bound", "l3_bound",
        "dram_bound", "store_bound", "mem_bandwidth", "mem_latency"]
ATOM = ["retiring", "bad_speculation", "frontend_bound", "backend_bound", "branch_mispredicts",
        "machine_clears", "fetch_latency", "fetch_bandwidth", "core_bound", "resource_bound"]
ZEN = CORE[:12] + ["smt_contention"]
AMPERE = ["retiring", "bad_speculation", "frontend_bound", "backend_bound", "branch_mispredicts",
          "other_mispredicts", "fetch_latency", "fetch_bandwidth", "memory_bound", "core_bound"]
ARM = ["retiring", "bad_speculation", "frontend_bound", "backend_bound"]
NODES_OF = {"spr": CORE, "icl": CORE, "skl": CORE, "gracemont": ATOM, "crestmont": ATOM,
            "zen4": ZEN, "zen5": ZEN, "ampereone": AMPERE, "ampereonex": AMPERE,
            "neoverse-n1": ["frontend_bound", "backend_bound", "not_stalled"],
            "neoverse-n2": ARM, "neoverse-n2-r0p2": ARM, "neoverse-v1": ARM, "neoverse-v2": ARM,
            "gnr": CORE, "lioncove": CORE, "skymont": ATOM, "zen6": ZEN,
            "neoverse-n3": ARM, "neoverse-v3": ARM}


def perf_metrics(arch, d):
    names = set()
    files = glob.glob(f"{arch}/{d}/*.json")
    if d.startswith("arm64/"):
        files.append(f"{arch}/arm64/sbsa.json")
    for f in files:
        try:
            data = json.load(open(f))
        except ValueError:
            continue
        for m in data if isinstance(data, list) else []:
            if isinstance(m, dict) and m.get("MetricName"):
                names.add(m["MetricName"])
    return names


def perf_names(tmp):
    """each model's nodes, as --perf-names prints them, against perf's metrics"""
    for model, nodes, tree in [(m, n, t) for m, n in NODES_OF.items() for t in trees(m)]:
        l1s = ("retiring", "bad_speculation", "frontend_bound", "backend_bound",
               "smt_contention", "not_stalled")
        l3s = ("l1_bound", "l2_bound", "l3_bound", "dram_bound", "store_bound")
        l4s = ("mem_bandwidth", "mem_latency")
        level1 = {n: 1.0 for n in nodes if n in l1s}
        level3 = {n: 1.0 for n in nodes if n in l3s}
        level4 = {n: 1.0 for n in nodes if n in l4s}
        level2 = {n: 1.0 for n in nodes if n not in l1s + l3s + l4s}
        f = f"{tmp}/{model}.json"
        json.dump({"groups": [{"model": model, "level1": level1, "level2": level2,
                               "level3": level3, "level4": level4}]}, open(f, "w"))
        r = subprocess.run(["build/bin/tdnl", "--perf-names", "--csv", "diff", f, f],
                           capture_output=True, text=True, timeout=30)
        printed = [line.split(",")[2] for line in r.stdout.splitlines()[1:]]
        perf = perf_metrics(ARCHS[tree], ALL_DIRS[model])
        missing = [n for n in printed if n not in perf]
        kept = sorted(set(missing) & set(nodes))
        bad = [n for n in missing if n not in nodes]
        tap(r.returncode == 0 and len(printed) == len(nodes) and not bad,
            f"--perf-names {model}: {len(printed) - len(missing)} of {len(nodes)} nodes under "
            f"perf's names ({tree} {ALL_DIRS[model]}), ours where perf has none: {kept}"
            + (f"; not perf's: {bad}" if bad else ""))


def main():
    missing = [a for a in ARCHS.values() if not os.path.isdir(a)]
    for a in missing:
        tap(False, f"{a} is there (make lsrc)")
    if missing:
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
    for model, d, tree in [(m, d, t) for m, d in DIRS.items() for t in trees(m)]:
        perf = perf_thresholds(ARCHS[tree], d)
        mine = ours.get(model, {})
        names = ATOM_NAMES if model.endswith("mont") else L3_MISS_NAMES \
            if "tma_l3_miss_bound" in perf else {}
        bad, checked = [], 0

        def perf_name(node):
            return names.get(node, f"tma_{node}")
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
            f"{model} ({tree} {d}): {checked} nodes' thresholds are perf's, each under its "
            f"parent's{' (' + '; '.join(bad[:4]) + ')' if bad else ''}")
    with tempfile.TemporaryDirectory() as tmp:
        perf_names(tmp)
    for model, d, tree in [(m, d, t) for m, d in NONE.items() for t in trees(m)]:
        perf = perf_thresholds(ARCHS[tree], d)
        have = sorted(n for n in perf if re.match(r"tma_", n))
        tap(model not in ours and not have,
            f"{model} ({tree} {d}): no table here and no tma_* threshold in perf ({have[:3]})")
    tap.summary()


main()
