#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""topdown.ko on tdsim spr at 10 ms, a steady profile, with reads that
stall: every 7th read of a CPU's counters first waits 300 us (tdsim's
stall_every and stall_us), as a read does whose vCPU the host deschedules
between two reads.  Snapshots' tries then meet stalls,
and the last is taken with its reads spread over hundreds of
microseconds (a read that stalled is read again at once, and that read
does not stall).  Every interval that `tdnl -j watch` prints must still
be the profile within 0.1 point at Levels 1 and 2 (the median within
0.05): a count read after a stall is taken at the normalizer's moment
(td_snapshot()).  Except where a read stayed long when read again (under
TCG the vCPU is held up again after a stall): the module counts those
(info's snapshot_slow), and each may spoil the two intervals it bounds.
Taken raw, the counts of a spread snapshot were up to 29 points off at
Level 2 (found under TCG on a loaded host: 4-8 intervals in 18,000 more
than 0.3 points off, the snapshot's third try 20-350 us long).

Every try of a snapshot meets a stall here, so each slice's end is also
put off (info's snapshot_waits) for the module's 2 ms before it is taken
so.

Level 2 only: its events all count all the time.  At Level 3 (sets taking
turns, every 41st read stalled) the median is 0.005-0.012 points, but 1 or
2 of ~290 intervals a run were 0.11-0.13 points off with no read stretched:
a second source, not yet found, that this test would not hold to 0.1.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import (L1, L2, SIM, TD, Tap, all_cpus, load, read_kv, settle, unload,  # noqa: E402
                    want_of, write_profile)

tap = Tap("topdown_stall")
PROFILE = ("retiring=30 bad_speculation=10 frontend_bound=20 backend_bound=40 "
           "heavy_operations=5 branch_mispredicts=8 fetch_latency=12 memory_bound=25 "
           "l1_bound=8 l2_bound=4 l3_bound=3 dram_bound=6 store_bound=2 "
           "mem_bandwidth=2 mem_latency=3")
STALL_US, SECONDS, MAX_PP = 300, 4.0, 0.1
# every Nth read stalls: Level 2 reads 9 counters a try
EVERY = {2: 7}


def knob(name, value=None):
    path = f"{SIM}/{name}"
    if value is not None:
        with open(path, "w") as f:
            f.write(str(value))
    return int(open(path).read())


def info(cpus):
    return {c: read_kv(f"{TD}/cpu{c}/info") for c in cpus}


def check(level, cpus):
    tag = f"spr level={level} interval_ms=10, every {EVERY[level]}th read stalled {STALL_US} us"
    err = load("spr", f"level={level}", "interval_ms=10")
    if err:
        tap(False, f"{tag}: tdsim and topdown load ({err})")
        return
    for c in cpus:
        write_profile(c, PROFILE)
    settle(cpus, 3)
    want = want_of(PROFILE)
    i0, s0 = info(cpus), knob("stalls")
    out = tempfile.TemporaryFile()
    knob("stall_us", STALL_US)
    knob("stall_every", EVERY[level])
    p = subprocess.Popen(["tdnl", "-j", "watch"], stdout=out, stderr=subprocess.PIPE)
    time.sleep(SECONDS)
    p.terminate()
    errs = p.communicate(timeout=30)[1].decode()
    knob("stall_every", 0)
    i1, s1 = info(cpus), knob("stalls")
    out.seek(0)
    lines = [json.loads(x) for x in out.read().decode().splitlines()]
    # the first interval may have begun before the stalls did
    errs_of = {}
    for c in cpus:
        mine = [o for o in lines if o["cpu"] == c and o.get("level1")][1:]
        errs_of[c] = sorted(max(abs(o[lvl][k] - want[k])
                                for lvl, ks in (("level1", L1), ("level2", L2)) for k in ks)
                            for o in mine)
    rereads = {c: int(i1[c]["snapshot_rereads"]) - int(i0[c]["snapshot_rereads"]) for c in cpus}
    slow = {c: int(i1[c]["snapshot_slow"]) - int(i0[c]["snapshot_slow"]) for c in cpus}
    waits = {c: int(i1[c]["snapshot_waits"]) - int(i0[c]["snapshot_waits"]) for c in cpus}
    tap(p.returncode in (0, -15) and s1 - s0 > 100 and all(rereads.values()),
        f"{tag}: {s1 - s0} reads stalled, each CPU's last tries met them "
        f"(snapshot rereads {rereads}); tdnl exit {p.returncode} {errs.strip()[:200]}")
    # every try of a slice's end meets a stall here: each is put off, again
    # and again for 2 ms, then taken with its stalled reads read again
    ivals = {c: sum(1 for o in lines if o["cpu"] == c) for c in cpus}
    tap(all(waits[c] >= ivals[c] for c in cpus),
        f"{tag}: slice ends put off {waits}, at least once an interval ({ivals})")
    for c in cpus:
        e = errs_of[c]
        off = [x for x in e if x > MAX_PP]
        # a read that stayed long when read again (snapshot_slow) has no
        # one moment: it may spoil the two intervals it bounds, no more
        tap(len(e) >= SECONDS * 100 / 4 and len(off) <= 2 * slow[c] and
            e[len(e) // 2] <= MAX_PP / 2,
            f"{tag} cpu{c}: of {len(e)} intervals {len(off)} more than {MAX_PP} pp off the "
            f"profile at Levels 1/2, at most 2 per snapshot taken with a stretched read "
            f"({slow[c]}); median {e[len(e) // 2] if e else 99:.4f} pp (<= {MAX_PP / 2}), "
            f"worst {e[-1] if e else 99:.4f}")


def main():
    cpus = all_cpus()
    try:
        check(2, cpus)
    finally:
        if os.path.exists(f"{SIM}/stall_every"):
            knob("stall_every", 0)
        unload()
    tap.summary()


main()
