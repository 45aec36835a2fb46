#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The Arm model the module picks from a CPU's MIDR_EL1 (td_model_arm(),
built here in userspace) against perf's own choice for that MIDR, from
linux-source-6.12 and linux-source-7.3 (a missing tree fails):
arm64/mapfile.csv must send the MIDR to the metric directory the model
follows (Neoverse N3 and V3 are in 7.3's only), and for the Neoverse N2/V2 directory the
revision test in its metrics.json, "strcmp_cpuid_str(0x410fd493) |
strcmp_cpuid_str(0x410fd490) ^ 1", evaluated here as perf evaluates it
(tools/perf/util/expr.c: 1 when the CPU is that part at that revision or
later, arch/arm64/util/header.c; expr.y: ^ binds tighter than |, as in
Python), must pick the model with or without CPU_CYCLES taken off
STALL_SLOT.  Runs on the host.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import Tap  # noqa: E402

TOP = os.path.dirname(os.path.abspath(__file__)) + "/../.."
ARCHS = {t: f"{TOP}/build/linux-source-{t}/tools/perf/pmu-events/arch/arm64"
         for t in ("6.12", "7.3")}
tap = Tap("arm_identity")
VARIANT, REVISION = 0xf << 20, 0xf

# model -> the perf metric directory its formulas follow
DIRS = {"neoverse-n1": ["arm/neoverse-n1"], "neoverse-v1": ["arm/neoverse-v1"],
        "neoverse-n2": ["arm/neoverse-n2-v2"], "neoverse-n2-r0p2": ["arm/neoverse-n2-v2"],
        "neoverse-v2": ["arm/neoverse-n2-v2"],
        "ampereone": ["ampere/ampereone"], "ampereonex": ["ampere/ampereonex"],
        "neoverse-n3": ["arm/neoverse-n3"], "neoverse-v3": ["arm/neoverse-v3"]}
# the models whose CPUs 6.12's mapfile does not list
NEW = ("neoverse-n3", "neoverse-v3")
# every revision of N2 from r0p0 to r1p1, V2 r0p0 and r0p2, N1 r4p1 (QEMU's),
# V1, AmpereOne and AmpereOne X, N3 and V3 r0p0 and r1p1, and cores with
# no model (A72, X2, eMAG)
MIDRS = [0x410fd490, 0x410fd491, 0x410fd492, 0x410fd493, 0x410fd494, 0x411fd490,
         0x411fd491, 0x410fd4f0, 0x410fd4f2, 0x414fd0c1, 0x410fd401, 0xc00fac30,
         0xc00fac41, 0x410fd8e0, 0x411fd8e1, 0x410fd830, 0x411fd831, 0x410fd083,
         0x410fd480, 0x500f0000]


def strcmp_cpuid_str(map_id, cpu):
    """perf's: 0 when @cpu is @map_id's part at its variant/revision or later"""
    fields = ~(VARIANT | REVISION) & 0xffffffff
    if map_id & fields != cpu & fields:
        return 1
    mv, mr = (map_id & VARIANT) >> 20, map_id & REVISION
    cv, cr = (cpu & VARIANT) >> 20, cpu & REVISION
    return 0 if cv > mv or (cv == mv and cr >= mr) else 1


def mapfile_dir(arch, midr):
    """the directory perf's mapfile gives this MIDR (same matching)"""
    for line in open(arch + "/mapfile.csv"):
        if line.startswith("#") or "," not in line:
            continue
        cpuid, _, d = line.split(",")[:3]
        try:
            if not strcmp_cpuid_str(int(cpuid, 16) & 0xffffffff, midr):
                return d
        except ValueError:
            continue
    return None


def n2_stall_slot_as_is(arch, midr):
    """evaluate the condition of perf's N2/V2 frontend_bound for @midr"""
    metrics = json.load(open(arch + "/arm/neoverse-n2-v2/metrics.json"))
    expr = next(m["MetricExpr"] for m in metrics
                if (m.get("MetricName") or m.get("ArchStdEvent")) == "frontend_bound")
    cond = re.search(r"\) if \((.*?)\) else", expr).group(1)
    # perf's expr.c: the function is !strcmp_cpuid_str(id, cpuid)
    py = re.sub(r"strcmp_cpuid_str\((0x[0-9a-f]+)\)",
                lambda m: str(int(not strcmp_cpuid_str(int(m.group(1), 16), midr))), cond)
    tap(re.fullmatch(r"[01] \| [01] \^ 1", py) is not None,
        f"{midr:#x}: perf's condition '{cond}' is the A | B ^ 1 this test reads")
    return bool(eval(py))	# only 0, 1, | and ^ (checked above)


def main():
    missing = [t for t, a in ARCHS.items() if not os.path.isdir(a)]
    for t in missing:
        tap(False, f"perf's tables of linux-source-{t} in build/: run `make lsrc`")
    if missing:
        tap.summary()
    binary = TOP + "/build/unit/td_midr"
    os.makedirs(os.path.dirname(binary), exist_ok=True)
    r = subprocess.run(["gcc", "-Wall", "-Werror", "-O2", "-I" + TOP + "/kmod", "-o", binary,
                        TOP + "/selftests/unit/td_midr.c"] +
                       [f"{TOP}/kmod/{f}" for f in ("td_model.c", "td_intel.c", "td_atom.c",
                                                    "td_amd.c", "td_arm.c", "td_math.c")],
                       capture_output=True, text=True)
    if not tap(r.returncode == 0, "td_model_arm() builds in userspace " + r.stderr.strip()):
        tap.summary()
        return 1
    out = subprocess.run([binary] + [hex(m) for m in MIDRS], capture_output=True,
                         text=True).stdout.split("\n")
    got = dict(line.split() for line in out if line)
    for tree, arch in ARCHS.items():
        for midr in MIDRS:
            check(tree, arch, midr, got.get(hex(midr)))
    tap.summary()
    return 1 if tap.failed else 0


def check(tree, arch, midr, model):
    d = mapfile_dir(arch, midr)
    if model == "none":
        tap(d not in sum(DIRS.values(), []),
            f"{tree} {midr:#x}: no model, and perf's mapfile gives no directory of ours ({d})")
        return
    if tree == "6.12" and model in NEW:
        tap(d is None, f"{tree} {midr:#x}: {model}, which 6.12's mapfile lacks ({d})")
        return
    tap(d in DIRS.get(model, []), f"{tree} {midr:#x}: {model}, perf's mapfile: {d}")
    if d == "arm/neoverse-n2-v2":
        as_is = n2_stall_slot_as_is(arch, midr)
        want = "neoverse-n2-r0p2" if not as_is else model.replace("-r0p2", "")
        tap(model == want and (model == "neoverse-n2-r0p2") == (not as_is),
            f"{tree} {midr:#x} (r{(midr & VARIANT) >> 20}p{midr & REVISION}): perf takes "
            f"STALL_SLOT {'as is' if as_is else 'less CPU_CYCLES'}, the module "
            f"picks {model}")


sys.exit(main())
