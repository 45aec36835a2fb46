#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Experiment (not a test): phases of hundreds of ms (steady between), spr
level 3 at 100 ms.  cpu1 plays A for PA ms then B for PB ms; cpu0 steady.
Per interval: worst error per level vs tdsim truth; and info's rounds/calm."""
import json, os, subprocess, sys, time
sys.path.insert(0, os.environ["TD_TOP"] + "/selftests")
sys.path.insert(0, os.environ["TD_TOP"] + "/selftests/topdown")
from tdtest import (IDEAL_PMU, L1, L2, L3, L4, SIM, TD, fractions_given, load, read_kv,
                    settle, unload, window_truth, write_profile)
from phases import PROFILES, STEADY, level_error, pct
PA, PB = int(os.environ.get("PA", "370")), int(os.environ.get("PB", "530"))
N = int(os.environ.get("N", "150"))
err = load("spr", "level=3", "interval_ms=100", sim_args=(IDEAL_PMU,))
print("load", err or "ok", flush=True)
write_profile(0, STEADY)
with open(f"{SIM}/cpu1/schedule", "w") as f:
    f.write(f"ms={PA} {PROFILES['A']}; ms={PB} {PROFILES['B']}")
settle([0, 1], 3)
p = subprocess.Popen(["tdnl", "-j", "watch", "-n", str(2 * N)], stdout=subprocess.PIPE, text=True)
infos = []
t0 = time.monotonic()
while p.poll() is None and time.monotonic() - t0 < N * 0.1 * 3 + 60:
    infos.append(read_kv(f"{TD}/cpu1/info"))
    time.sleep(0.5)
out = p.communicate()[0]
lines = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
levels = [("level1", L1), ("level2", L2), ("level3", L3), ("level4", L4)]
for c in (0, 1):
    errs = {k: [] for k, _ in levels}
    for o in lines:
        if o["cpu"] != c or not fractions_given(o.get("state")):
            continue
        want = window_truth(c, o["start_ns"], o["end_ns"])
        for k, nodes in levels:
            e = level_error(o, want, k, nodes)
            if e is not None:
                errs[k].append(e)
    for k, _ in levels:
        es = errs[k]
        print(f"RESULT cpu{c} {k} n={len(es)} p50={pct(es,50):.4f} p90={pct(es,90):.4f} "
              f"p99={pct(es,99):.4f} max={max(es) if es else float('nan'):.4f}", flush=True)
rounds = [i.get("rounds") for i in infos]
from collections import Counter
print("states", Counter((o["cpu"], str(o.get("state"))) for o in lines))
for o in lines:
    if o["cpu"] == 1 and fractions_given(o.get("state")):
        want = window_truth(1, o["start_ns"], o["end_ns"])
        e = max((level_error(o, want, k, n) or 0) for k, n in levels)
        if e > 0.05:
            print(f"outlier seq {o.get('seq')} len {(o['end_ns'] - o['start_ns']) / 1e6:.1f} ms: {e:.3f} pp")
for c in (0, 1):
    xs = [o for o in lines if o["cpu"] == c]
    lens = Counter(round((o["end_ns"] - o["start_ns"]) / 1e6) for o in xs)
    gaps = Counter(b["seq"] - a["seq"] for a, b in zip(xs, xs[1:]))
    print(f"cpu{c}: {len(xs)} samples, first start {xs[0]['start_ns'] if xs else 0}, last end {xs[-1]['end_ns'] if xs else 0}; lengths {dict(lens)}; seq steps {dict(gaps)}")
print("rounds seen", {r: rounds.count(r) for r in set(rounds)})
print("calm last", infos[-1].get("calm") if infos else None)
print("cpu0 info calm", read_kv(f"{TD}/cpu0/info").get("calm"), read_kv(f"{TD}/cpu0/info").get("rounds"))
print(open(f"{TD}/stats").read())
unload()
