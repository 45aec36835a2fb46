#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A CPU short of counters tries them all again every 16 intervals (in case
one was given back) and makes its sets again from what it finds
(td_work(), td_start_sets()).  tdsim spr with 6 general-purpose counters
where the model has 8 (as a hypervisor may give a guest), Level 3, 10 ms;
cpu0 steady, cpu1 on phases.py's schedule of 2, 25 and 3 ms phases.

Over 2 s of such tries from the regression's first full estimate (every
interval before it is scaled alone), on each CPU: at least 2 tries that
found counters missing (info's restarts), and not one interval whose
events that took turns were scaled alone rather than regressed (info's
scaled_alone).
Before, the interval after each try was (the try's events waiting for a
counter were taken for another perf user's, so the regression was left
out), and a try whose first set took 7 counters of 8, one missing, took 7
as free: the next set of 7 made the sets again and the regression learnt
from nothing for 4 intervals.  And gp_free says 6.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import SIM, TD, Tap, all_cpus, learned, load, read_kv, settle, unload, write_profile  # noqa: E402
from phases import PROFILES, STEADY  # noqa: E402

tap = Tap("topdown_regrow")
SECONDS = 2
SCHEDULE = [("A", 2), ("B", 25), ("C", 3)]


def main():
    if not os.environ.get("TD_KO_DIR"):
        tap.skip_all("not in the VM")
    cpus = all_cpus()
    err = load("spr", "level=3", "interval_ms=10", sim_args=["counters=6"])
    if tap(not err, f"spr level=3 counters=6: tdsim and topdown load {err}"):
        for c in cpus:
            write_profile(c, STEADY)
        if len(cpus) > 1:
            with open(f"{SIM}/cpu{cpus[1]}/schedule", "w") as f:
                f.write("; ".join(f"ms={ms} " + PROFILES[p] for p, ms in SCHEDULE))
        settle(cpus, 1)
        # from the regression's first full estimate on each CPU: until then
        # every interval is scaled alone (it learns from the sets' first
        # windows), and how many intervals that takes after the load and the
        # profile writes depends on the timers' lateness
        before = learned(cpus)
        if tap(before is not None, "every CPU's regression learnt its sets "
               "(regressed N of N) within 10 s of the profile writes"):
            print("# learnt: " + ", ".join(f"cpu{c} at seq {i['seq']}, {i['scaled_alone']} "
                                           "intervals scaled alone" for c, i in before.items()),
                  flush=True)
            time.sleep(SECONDS)
            after = {c: read_kv(f"{TD}/cpu{c}/info") for c in cpus}
            for c in cpus:
                b, a = before[c], after[c]
                tries = int(a["restarts"]) - int(b["restarts"])
                alone = int(a["scaled_alone"]) - int(b["scaled_alone"])
                ivals = int(a["seq"]) - int(b["seq"])
                tap(tries >= 2 and alone == 0 and a["gp_free"] == "6" and a["state"] == "ok",
                    f"cpu{c}: {tries} tries of every counter in {ivals} intervals, {alone} "
                    f"intervals scaled alone, gp_free {a['gp_free']}, state {a['state']} "
                    f"(want >= 2 tries, 0 alone, 6 free, ok)")
    unload()
    tap.summary()


main()
