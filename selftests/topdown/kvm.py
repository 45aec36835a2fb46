#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""topdown.ko on a PMU with 3 fixed counters, as KVM gives guests (tdsim
fixed=3): TOPDOWN.SLOTS (fixed counter 3 only) is refused with -EINVAL, as
x86's validate_event() refuses it, and the module counts TOPDOWN.SLOTS_P on
a general-purpose counter instead.  On icl and spr at Level 1 and 2: every
CPU ok, dmesg says so once per CPU, info says fixed 3, raw names
TOPDOWN.SLOTS_P, and Level 1/2 match the profile within 0.5 pp (spr's Level
2, which fits exactly with fixed counter 3, now takes turns).  tdsim's
fixed= is checked too: out of range is EINVAL with a dmesg line.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import (L2, TD, Tap, all_cpus, dmesg_mark, dmesg_since, load,  # noqa: E402
                    read_kv, settle, sh, unload, want_of, write_profile)

tap = Tap("topdown_kvm")
PROFILE = ("retiring=35 bad_speculation=10 frontend_bound=20 backend_bound=35 "
           "heavy_operations=6 branch_mispredicts=7 fetch_latency=12 memory_bound=22")


def main():
    if not os.path.exists("/sys/bus/event_source/devices") or not os.environ.get("TD_KO_DIR"):
        tap.skip_all("not in the VM")
    cpus = all_cpus()
    want = want_of(PROFILE)
    for model in ("icl", "spr"):
        for level in (1, 2):
            tag = f"{model} level={level} fixed=3"
            mark = dmesg_mark()
            err = load(model, f"level={level}", "interval_ms=100", sim_args=["fixed=3"])
            if not tap(not err, f"{tag}: tdsim and topdown load {err}"):
                continue
            for c in cpus:
                write_profile(c, PROFILE)
            settle(cpus, 3)
            said = [x for x in dmesg_since(mark)
                    if "TOPDOWN.SLOTS refused (no fixed counter 3" in x and "TOPDOWN.SLOTS_P" in x]
            tap(len(said) == len(cpus), f"{tag}: dmesg says per CPU that it counts "
                f"TOPDOWN.SLOTS_P ({len(said)} lines for {len(cpus)} CPUs)")
            for c in cpus:
                info = read_kv(f"{TD}/cpu{c}/info")
                raw = [line.split()[0] for line in open(f"{TD}/cpu{c}/raw")]
                tap(info["state"] == "ok" and info.get("fixed") == "3" and
                    "TOPDOWN.SLOTS_P" in raw and "TOPDOWN.SLOTS" not in raw,
                    f"{tag} cpu{c}: state {info['state']}, fixed {info.get('fixed')}, "
                    f"raw counts TOPDOWN.SLOTS_P, sets {info.get('sets')}")
                l1 = read_kv(f"{TD}/cpu{c}/level1")
                e1 = max(abs(float(v) - want[k]) for k, v in l1.items())
                tap(e1 <= 0.5, f"{tag} cpu{c}: level1 within 0.5 pp of the profile "
                    f"(max error {e1:.3f})")
                if level == 2:
                    l2 = read_kv(f"{TD}/cpu{c}/level2")
                    e2 = max(abs(float(l2[k]) - want[k]) for k in L2)
                    tap(e2 <= 0.5, f"{tag} cpu{c}: level2 within 0.5 pp of the profile "
                        f"(max error {e2:.3f}, multiplexed {info['multiplexed']})")
    # with every fixed counter, TOPDOWN.SLOTS itself
    err = load("spr", "level=1", "interval_ms=100")
    if tap(not err, f"spr fixed=4: loads {err}"):
        settle(cpus, 2)
        raw = [line.split()[0] for line in open(f"{TD}/cpu{cpus[0]}/raw")]
        info = read_kv(f"{TD}/cpu{cpus[0]}/info")
        tap("TOPDOWN.SLOTS" in raw and info.get("fixed") == "4",
            f"spr fixed=4: raw counts TOPDOWN.SLOTS, fixed {info.get('fixed')}")
    unload()
    ko = os.environ["TD_KO_DIR"]
    mark = dmesg_mark()
    r = sh("insmod", f"{ko}/tdsim.ko", "model=spr", "fixed=5")
    said = [x for x in dmesg_since(mark) if "fixed=5: must be 0..4" in x]
    tap(r.returncode != 0 and "Invalid param" in r.stderr and len(said) == 1,
        f"tdsim fixed=5 on spr: EINVAL ({r.stderr.strip()}), dmesg says why")
    unload()
    tap.summary()


main()
