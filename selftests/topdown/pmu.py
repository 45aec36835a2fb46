#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""topdown.ko on the machine's own PMU: for a test machine or a CI VM with
PMU passthrough.  Where there is none (the VMs of make check: QEMU's TCG
has no PMU), or no model for the CPU, it skips, status 4, saying which.

topdown.ko is loaded as an administrator would: start=1, no model= and no
pmu_type= (it finds the model from the CPU and opens the events on the
core PMU), level 2, 100 ms.  Then, with one CPU kept busy by a loop pinned
to it:
- every online CPU: a model, a PMU, state ok;
- the busy CPU over 10 intervals: Level 1 adds up to exactly 100.00 %,
  no node below 0 or above 100, retiring above 0, each Level 2 pair adds
  up to its parent within rounding (0.02);
- its raw counts give its Level 1 through perf's formulas
  (selftests/tdformulas.py) within 0.02 pp, for the models written there;
- the multiplexed flag agrees with running_ratio;
- tdnl show prints the same interval's Level 1 as debugfs.
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import KO, L1, L2_PARENT, TD, Tap, read_kv, seq, sh  # noqa: E402
import tdformulas  # noqa: E402

tap = Tap("topdown_pmu")
BUSY_CPU = 1 if os.cpu_count() > 1 else 0


def online_cpus():
    return [int(d[3:]) for d in os.listdir(TD) if d.startswith("cpu") and d[3:].isdigit()
            and read_kv(f"{TD}/{d}/info").get("state") != "offline"]


def snapshot(cpu):
    """(raw deltas, level1, level2, info) of one interval, read between two
    equal seq reads"""
    for _ in range(20):
        before = seq(cpu)
        raw = {}
        for line in open(f"{TD}/cpu{cpu}/raw"):
            f = line.split()
            raw[f[0]] = int(f[1])
        l1 = read_kv(f"{TD}/cpu{cpu}/level1")
        l2 = read_kv(f"{TD}/cpu{cpu}/level2")
        info = read_kv(f"{TD}/cpu{cpu}/info")
        if seq(cpu) == before:
            return raw, l1, l2, info
    return None


def wait_state(cpus, secs=5):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        states = {c: read_kv(f"{TD}/cpu{c}/info").get("state") for c in cpus}
        if all(s in ("ok", "idle") for s in states.values()):
            break
        time.sleep(0.1)
    return states


def main():
    if not KO:
        tap.skip_all("no TD_KO_DIR (the directory of topdown.ko)")
    sh("rmmod", "topdown")
    sh("rmmod", "tdsim")
    r = sh("insmod", f"{KO}/topdown.ko", "start=1", "level=2", "interval_ms=100")
    if r.returncode:
        tap.skip_all(f"topdown.ko does not load on this CPU: {r.stderr.strip()}")
    cpus = sorted(online_cpus())
    states = wait_state(cpus)
    first = read_kv(f"{TD}/cpu{cpus[0]}/info")
    if all(s in ("no-pmu", "unsupported") for s in states.values()):
        sh("rmmod", "topdown")
        tap.skip_all(f"no PMU for topdown here: cpu{cpus[0]} model {first.get('model')}, "
                     f"pmu {first.get('pmu')}, state {first.get('state')}")
    loop = subprocess.Popen(["taskset", "-c", str(BUSY_CPU), "sh", "-c",
                             "while :; do :; done"])
    try:
        run(cpus)
    finally:
        loop.kill()
        loop.wait()
        sh("rmmod", "topdown")
    tap.summary()


def run(cpus):
    states = wait_state(cpus)
    infos = {c: read_kv(f"{TD}/cpu{c}/info") for c in cpus}
    tap(all(s == "ok" for s in states.values()) and
        all(i.get("model") != "none" and i.get("pmu") != "none" for i in infos.values()),
        "every online CPU: a model, a PMU, state ok (" +
        ", ".join(f"cpu{c} {infos[c].get('model')}/{infos[c].get('pmu')} {states[c]}"
                  for c in cpus) + ")")
    model = infos[BUSY_CPU].get("model")
    sums, bad, pairs, repro, mux, n = [], [], [], [], [], 0
    last = seq(BUSY_CPU)
    end = time.monotonic() + 5
    while n < 10 and time.monotonic() < end:
        time.sleep(0.02)
        if seq(BUSY_CPU) == last:
            continue
        s = snapshot(BUSY_CPU)
        if not s:
            continue
        raw, l1, l2, info = s
        last = int(info["seq"])
        if info["state"] != "ok":
            continue
        n += 1
        v1 = {k: float(x) for k, x in l1.items() if x != "n/a"}
        sums.append(sum(v1.values()))
        bad += [f"{k} {x}" for k, x in v1.items() if not 0 <= x <= 100]
        v2 = {k: float(x) for k, x in l2.items() if x != "n/a"}
        for parent in set(L2_PARENT[k] for k in v2 if k in L2_PARENT):
            kids = sum(x for k, x in v2.items() if L2_PARENT.get(k) == parent)
            pairs.append(abs(kids - v1.get(parent, 0)))
        if model in tdformulas.LEVEL12 and not (model == "skl" and "on" in info.get("smt", "")):
            try:
                mine = tdformulas.levels(model, lambda name: raw[name], 1)["level1"]
                repro.append(max(abs(mine[k] - v1[k]) for k in L1))
            except (KeyError, TypeError) as e:
                repro.append(f"missing {e}")
        mux.append((info["multiplexed"] == "yes") == (info["running_ratio"] != "1.000000"))
    tap(n == 10, f"cpu{BUSY_CPU} (busy, {model}): {n} intervals with fractions in 5 s")
    tap(sums and all(abs(x - 100) < 1e-9 for x in sums) and v1.get("retiring", 0) > 0,
        f"cpu{BUSY_CPU}: Level 1 adds up to exactly 100.00 in every interval "
        f"({sorted(set(sums))}); retiring {v1.get('retiring') if sums else None}")
    tap(not bad, f"cpu{BUSY_CPU}: no Level 1 node outside 0..100 ({bad[:5]})")
    tap(pairs and max(pairs) <= 0.02,
        f"cpu{BUSY_CPU}: each Level 2 pair adds up to its parent (worst {max(pairs or [0]):.2f})")
    if model in tdformulas.LEVEL12:
        worst = max((x for x in repro if not isinstance(x, str)), default=None)
        tap(repro and all(not isinstance(x, str) for x in repro) and worst <= 0.02,
            f"cpu{BUSY_CPU}: perf's {model} formulas on raw give its Level 1 "
            f"(worst {worst if worst is None else round(worst, 4)} pp; {repro[:1]})")
    tap(mux and all(mux), f"cpu{BUSY_CPU}: multiplexed agrees with running_ratio "
        f"in {sum(mux)} of {len(mux)} intervals")
    # tdnl (build/bin in PATH) against debugfs, one interval
    for _ in range(20):
        before = seq(BUSY_CPU)
        out = sh("tdnl", "-j", "show", "-c", str(BUSY_CPU))
        l1 = read_kv(f"{TD}/cpu{BUSY_CPU}/level1")
        if seq(BUSY_CPU) == before:
            break
    try:
        j = json.loads(out.stdout)[0]
        diff = max(abs(float(j["level1"][k]) - float(l1[k])) for k in L1)
    except (ValueError, IndexError, KeyError, TypeError) as e:
        diff, j = None, {"error": str(e)}
    tap(diff is not None and diff <= 0.01,
        f"cpu{BUSY_CPU}: tdnl show's Level 1 is debugfs's (seq {j.get('seq')}, "
        f"max difference {diff})")


main()
