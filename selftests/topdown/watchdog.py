#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""topdown.ko where the NMI watchdog holds a counter (tdsim watchdog=1: a
pinned cycles event of tdsim's own on every CPU, made before topdown's, so
it sits where the kernel's perf-based hard lockup detector would: fixed
counter 1 on Intel, a general-purpose counter on AMD, the cycle counter on
Arm).

For each model at Level 1 and 2, against the same model without the
watchdog: info names what is held (fixed1 / gp1 / fixed0) where a level's
events need it, and nothing where they do not; the level multiplexes
exactly where its events need one more general-purpose counter than are
left (the table below, worked out from each model's events); every CPU is
ok and Level 1/2 match a steady profile within 0.5 pp; each CPU made its
sets again where the held counter was one it needed.  Then the watchdog's CPU goes
offline and online: held again, still within 0.5 pp.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import (L2, TD, Tap, all_cpus, load, read_kv, settle, why,  # noqa: E402
                    unload, want_of, write_profile)

tap = Tap("topdown_watchdog")
PROFILE = ("retiring=35 bad_speculation=10 frontend_bound=20 backend_bound=35 "
           "heavy_operations=6 branch_mispredicts=7 fetch_latency=12 memory_bound=22")

# model: (what info says is held with the watchdog, {level: multiplexed}).
# skl Level 1 (no SMT): INST_RETIRED.ANY and CPU_CLK_UNHALTED.THREAD on
#   fixed counters 0 and 1 and 4 events on the 4 general-purpose ones; with
#   fixed counter 1 held the cycles take a fifth: multiplexed.
# icl/spr Level 1/2 count slots on fixed counter 3 and no cycles event
#   (spr's Level 2, icl's Level 1): fixed counter 1 is not theirs, nothing
#   held shows, and they multiplex as without the watchdog (icl Level 2).
# zen4/zen5 Level 1: 6 events on 6 counters, now 5: multiplexed.
# neoverse-n2 Level 1: CPU_CYCLES on the cycle counter and 6 events on the
#   6 others; with the cycle counter held, 7 on 6: multiplexed.
# neoverse-n1: 3 events, room for the cycles on a general-purpose counter
#   (seen moved all the same).
CASES = {
    "skl": ("fixed1", {1: "yes", 2: "yes"}),
    "icl": (None, {1: "no", 2: "yes"}),
    "spr": (None, {1: "no", 2: "no"}),
    "zen4": ("gp1", {1: "yes", 2: "yes"}),
    "zen5": ("gp1", {1: "yes", 2: "yes"}),
    "neoverse-n2": ("fixed0", {1: "yes", 2: "yes"}),
    "neoverse-n1": ("fixed0", {1: "no", 2: "no"}),
}


def check_level(tag, cpus, want, level, model):
    for c in cpus:
        l1 = read_kv(f"{TD}/cpu{c}/level1")
        l1 = {k: v for k, v in l1.items() if v != "n/a"}
        cent = sum(round(float(v) * 100) for v in l1.values())
        e1 = max(abs(float(v) - want[k]) for k, v in l1.items())
        tap(e1 <= 0.5 and cent == 10000, f"{tag} cpu{c}: level1 adds to 100.00, within "
            f"0.5 pp of the profile (max error {e1:.3f})")
        if level == 2 and not model.startswith("neoverse"):
            l2 = read_kv(f"{TD}/cpu{c}/level2")
            e2 = max(abs(float(l2[k]) - want[k]) for k in L2)
            tap(e2 <= 0.5, f"{tag} cpu{c}: level2 within 0.5 pp of the profile "
                f"(max error {e2:.3f})" + (why(c) if e2 > 0.5 else ""))


def main():
    if not os.environ.get("TD_KO_DIR"):
        tap.skip_all("not in the VM")
    cpus = all_cpus()
    for model, (held, mux) in CASES.items():
        zen = model.startswith("zen")
        prof = PROFILE + (" smt_contention=0" if zen else "")
        want = want_of(prof)
        for level in (1, 2):
            tag = f"{model} level={level} watchdog=1"
            err = load(model, f"level={level}", "interval_ms=100", sim_args=["watchdog=1"])
            if not tap(not err, f"{tag}: tdsim and topdown load {err}"):
                continue
            for c in cpus:
                write_profile(c, prof)
            settle(cpus, 3)
            for c in cpus:
                info = read_kv(f"{TD}/cpu{c}/info")
                got = info.get("held")
                ok = got == (held or "none")
                tap(ok and info["state"] == "ok",
                    f"{tag} cpu{c}: state {info['state']}, held {got} (want {held or 'none'})")
                tap(info["multiplexed"] == mux[level],
                    f"{tag} cpu{c}: multiplexed {info['multiplexed']} (want {mux[level]}; "
                    f"sets {info['sets']}, gp_free {info['gp_free']})")
            check_level(tag, cpus, want, level, model)
            # where the held counter costs a general-purpose one the level
            # needs, the sets were made again (dmesg says so, rate limited)
            if model in ("skl", "zen4", "zen5", "neoverse-n2"):
                r = [int(read_kv(f"{TD}/cpu{c}/info")["restarts"]) for c in cpus]
                tap(min(r) >= 1, f"{tag}: each CPU made its sets again (restarts {r})")
            # without the watchdog: nothing held, Level 1 fits everywhere
            err = load(model, f"level={level}", "interval_ms=100")
            if tap(not err, f"{tag[:-11]}without watchdog: loads {err}"):
                settle(cpus, 2)
                info = read_kv(f"{TD}/cpu{cpus[0]}/info")
                tap(info.get("held") == "none" and
                    (level == 2 or info["multiplexed"] == "no"),
                    f"{model} level={level} without watchdog: held {info.get('held')}, "
                    f"multiplexed {info['multiplexed']}")
    # hotplug: the watchdog's counter goes and comes back with its CPU
    last = cpus[-1]
    online = f"/sys/devices/system/cpu/cpu{last}/online"
    err = load("zen4", "level=1", "interval_ms=100", sim_args=["watchdog=1"])
    if len(cpus) > 1 and os.path.exists(online) and tap(not err, f"zen4 hotplug: loads {err}"):
        prof = PROFILE + " smt_contention=0"
        for c in cpus:
            write_profile(c, prof)
        with open(online, "w") as f:
            f.write("0")
        with open(online, "w") as f:
            f.write("1")
        write_profile(last, prof)
        settle(cpus, 3)
        info = read_kv(f"{TD}/cpu{last}/info")
        tap(info["state"] == "ok" and info.get("held") == "gp1",
            f"zen4 cpu{last} offline and online: state {info['state']}, held {info.get('held')}")
        check_level(f"zen4 cpu{last} after hotplug", [last], want_of(prof), 1, "zen4")
    unload()
    tap.summary()


main()
