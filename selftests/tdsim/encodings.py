#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Every event in tdsim's model tables (kmod/tdsim/tdsim_{intel,amd,arm}.c) and in
topdown's (kmod/td_{intel,atom,amd,arm}.c) must have the raw config that
perf's own JSON gives for that event name (tools/perf/pmu-events/arch), in
linux-source-6.12 and in linux-source-7.3, and the counters the JSON
allows: topdown builds its event sets from them.  The models of CPUs that
6.12's tables lack (Granite Rapids' own, Lion Cove, Skymont, Zen 6,
Neoverse N3 and V3) are checked against 7.3's.  A missing tree fails.
A name ending in ":cN" is the JSON event with cmask N, as perf's metrics
write cpu@EVENT,cmask=N@.  Runs on the host.
"""
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import Tap  # noqa: E402

TOP = os.path.dirname(os.path.abspath(__file__)) + "/../.."
ARCHS = {t: f"{TOP}/build/linux-source-{t}/tools/perf/pmu-events/arch" for t in ("6.12", "7.3")}
NEW = ("7.3",)
# (model table, perf JSON directories that describe that CPU[, trees]); a
# table shared by CPUs is checked against each one's; in both trees unless
# it says
TABLES = [
    (("tdsim_intel.c", "skl_events"), ["x86/skylake"]),
    (("tdsim_intel.c", "icl_events"), ["x86/icelake"]),
    (("tdsim_intel.c", "spr_events"), ["x86/sapphirerapids"]),
    (("tdsim_amd.c", "zen4_events"), ["x86/amdzen4"]),
    (("tdsim_amd.c", "zen5_events"), ["x86/amdzen5"]),
    (("tdsim_arm.c", "neoverse_events"), ["arm64/arm/neoverse-n2-v2",
                                         "arm64/common-and-microarch.json"]),
    (("td_intel.c", "skl_events"), ["x86/skylake"]),
    (("td_intel.c", "icl_events"), ["x86/icelake"]),
    (("td_intel.c", "spr_events"), ["x86/sapphirerapids"]),
    (("td_amd.c", "zen4_events"), ["x86/amdzen4"]),
    (("td_amd.c", "zen5_events"), ["x86/amdzen5"]),
    (("td_arm.c", "neoverse_events"), ["arm64/arm/neoverse-n2-v2",
                                      "arm64/common-and-microarch.json"]),
    # AmpereOne and AmpereOne X list each event (as an ArchStdEvent, whose
    # code is the common file's), their own events in core-imp-def.json
    (("td_arm.c", "ampereone_events"), ["arm64/ampere/ampereone"]),
    (("td_arm.c", "ampereonex_events"), ["arm64/ampere/ampereonex"]),
    (("tdsim_arm.c", "ampereone_events"), ["arm64/ampere/ampereone"]),
    (("tdsim_arm.c", "ampereonex_events"), ["arm64/ampere/ampereonex"]),
    (("td_arm.c", "n1_events"), ["arm64/arm/neoverse-n1",
                                "arm64/common-and-microarch.json"]),
    # Atom cores: a hybrid part's directory holds both PMUs' events, the
    # E-cores' with "Unit": "cpu_atom" (DIR@UNIT keeps those)
    (("td_atom.c", "grt_events"), ["x86/alderlake@cpu_atom"]),
    (("td_atom.c", "grt_events"), ["x86/alderlaken"]),
    (("td_atom.c", "cmt_events"), ["x86/meteorlake@cpu_atom"]),
    (("td_atom.c", "cmt_events"), ["x86/sierraforest"]),
    (("td_atom.c", "cmt_events"), ["x86/grandridge"]),
    (("tdsim_intel.c", "grt_events"), ["x86/alderlake@cpu_atom"]),
    (("tdsim_intel.c", "cmt_events"), ["x86/meteorlake@cpu_atom"]),
    # Arrow Lake H's low-power E-cores (cpu_lowpower) are Crestmont
    (("td_atom.c", "cmt_events"), ["x86/arrowlake@cpu_lowpower"], NEW),
    (("tdsim_intel.c", "cmt_events"), ["x86/arrowlake@cpu_lowpower"], NEW),
    # perf 7.3's CPUs
    (("td_intel.c", "gnr_events"), ["x86/graniterapids"], NEW),
    (("tdsim_intel.c", "gnr_events"), ["x86/graniterapids"], NEW),
    (("td_intel.c", "lnc_events"), ["x86/lunarlake@cpu_core"], NEW),
    (("td_intel.c", "lnc_events"), ["x86/arrowlake@cpu_core"], NEW),
    (("tdsim_intel.c", "lnc_events"), ["x86/lunarlake@cpu_core"], NEW),
    (("tdsim_intel.c", "lnc_events"), ["x86/arrowlake@cpu_core"], NEW),
    (("td_atom.c", "skt_events"), ["x86/lunarlake@cpu_atom"], NEW),
    (("td_atom.c", "skt_events"), ["x86/arrowlake@cpu_atom"], NEW),
    (("tdsim_intel.c", "skt_events"), ["x86/lunarlake@cpu_atom"], NEW),
    (("tdsim_intel.c", "skt_events"), ["x86/arrowlake@cpu_atom"], NEW),
    (("td_amd.c", "zen6_events"), ["x86/amdzen6"], NEW),
    (("tdsim_amd.c", "zen6_events"), ["x86/amdzen6"], NEW),
    (("td_arm.c", "neoverse_v3_events"), ["arm64/arm/neoverse-n3",
                                         "arm64/common-and-microarch.json"], NEW),
    (("td_arm.c", "neoverse_v3_events"), ["arm64/arm/neoverse-v3",
                                         "arm64/common-and-microarch.json"], NEW),
    (("tdsim_arm.c", "neoverse_v3_events"), ["arm64/arm/neoverse-n3",
                                            "arm64/common-and-microarch.json"], NEW),
    (("tdsim_arm.c", "neoverse_v3_events"), ["arm64/arm/neoverse-v3",
                                            "arm64/common-and-microarch.json"], NEW),
]
FIXED = {f"Fixed counter {n}": n for n in range(7)}
tap = Tap("encodings")



def load_json(ARCH, paths):
    ev = {}
    for p in paths:
        p, _, unit = p.partition("@")
        files = [ARCH + "/" + p] if p.endswith(".json") else glob.glob(f"{ARCH}/{p}/*.json")
        for f in files:
            for e in json.load(open(f)):
                # an Arm core file may name an event by ArchStdEvent alone
                if not isinstance(e, dict) or (unit and e.get("Unit") != unit):
                    continue
                name = e.get("EventName") or e.get("ArchStdEvent")
                if name and "MetricExpr" not in e:
                    ev.setdefault(name.upper(), e)
    # Arm core JSON often names ArchStdEvent only: resolve from the common file
    common = {e["EventName"]: e for e in json.load(open(ARCH + "/arm64/common-and-microarch.json"))}
    for name, e in list(ev.items()):
        if "ArchStdEvent" in e and "EventCode" not in e and e["ArchStdEvent"] in common:
            ev[name] = {**common[e["ArchStdEvent"]], **e}
    return ev


def num(e, key):
    v = e.get(key)
    return int(v, 0) if isinstance(v, str) else int(v or 0)


def x86_config(e, amd):
    """perf's encoding; fixed-counter pseudo events as jevents.py maps them."""
    code = num(e, "EventCode")
    um = num(e, "UMask")
    if not code and e.get("Counter", "").startswith("Fixed"):
        code = 0  # TOPDOWN.SLOTS: event=0x00,umask=0x4; others below
        name = e["EventName"].upper()
        if name == "INST_RETIRED.ANY":
            return 0xC0
        if name.startswith("CPU_CLK_UNHALTED.THREAD") or name == "CPU_CLK_UNHALTED.CORE":
            return 0x3C | (num(e, "AnyThread") << 21)
        if name == "CPU_CLK_UNHALTED.REF_TSC":
            return 0x0300
    cfg = (code & 0xFF) | (um << 8) | (num(e, "EdgeDetect") << 18) \
        | (num(e, "AnyThread") << 21) | (num(e, "Invert") << 23) \
        | (num(e, "CounterMask") << 24)
    if amd:
        cfg |= ((code >> 8) & 0xF) << 32
    return cfg


def parse_table(fname, table):
    src = open(f"{TOP}/kmod/{'tdsim/' if fname.startswith('tdsim') else ''}{fname}").read()
    body = re.search(table + r"\[[^]]+\] = \{(.*?)\n\};", src, re.S).group(1)
    masks = dict(re.findall(r"#define (\w+)\s+(0x[0-9a-f]+)", src))
    masks["NOFIX"] = "-1"
    if fname.startswith("td_"):	# topdown: { "NAME", config, level, gp, fixed, ... }
        # and the general-purpose forms its events point at (.gp_form = &x)
        for form in set(re.findall(r"\.gp_form = &(\w+)", body)):
            body += re.search(r"struct td_event " + form + r" = (\{.*?\});", src, re.S).group(1)
        rows = re.findall(r"\{\s*\"([^\"]+)\",\s*(0x[0-9a-f]+),\s*\d,\s*(\w+),\s*(-?\w+)[\s,}]", body)
        return [(int(c, 16), n, int(masks.get(m, m), 0), int(masks.get(f, f), 0))
                for n, c, m, f in rows]
    rows = re.findall(r"\{\s*(0x[0-9a-f]+),\s*\"([^\"]+)\",\s*(\w+),\s*(-?\w+)\s*\}", body)
    return [(int(c, 16), n, int(masks.get(m, m), 0), f) for c, n, m, f in rows]


def main():
    missing = [t for t, a in ARCHS.items() if not os.path.isdir(a)]
    for t in missing:
        tap(False, f"perf's tables of linux-source-{t} in build/: run `make lsrc`")
    if missing:
        tap.summary()
    for entry in TABLES:
        (fname, table), paths = entry[:2]
        for tree in entry[2] if len(entry) > 2 else ARCHS:
            check(ARCHS[tree], tree, fname, table, paths)
    tap.summary()
    return 1 if tap.failed else 0


def check(arch, tree, fname, table, paths):
    ev = load_json(arch, paths)
    rows = parse_table(fname, table)
    tap(len(rows) >= 3, f"{tree} {fname} {table}: {len(rows)} events parsed ({paths[0]})")
    amd = "amd" in fname
    for cfg, name, gp_mask, fixed in rows:
        base, _, cm = name.partition(":c")
        e = ev.get(base.upper())
        if not e:
            tap(False, f"{tree} {table}: {name} exists in perf's JSON ({paths[0]})")
            continue
        if "arm" in fname:
            want = num(e, "EventCode")
        else:
            want = x86_config(e, amd)
            if cm:
                want = (want & ~(0xFF << 24)) | (int(cm) << 24)
        ok = cfg == want
        counters = e.get("Counter", "")
        if counters in FIXED:
            ok &= int(fixed) == FIXED[counters]
        elif counters and not amd:
            allowed = sum(1 << int(c) for c in counters.split(","))
            ok &= gp_mask == allowed or (gp_mask & ~allowed) == 0 and \
                gp_mask == allowed & 0xFF
        tap(ok, f"{tree} {fname} {table}: {name} = {cfg:#x} (perf: {want:#x}, counters "
            f"{counters or 'any'}, {paths[0]})")


sys.exit(main())
