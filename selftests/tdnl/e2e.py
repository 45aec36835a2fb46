#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tdnl end to end, in the guest as root, on topdown.ko over tdsim.

For spr, icl and skl at level=3 with a profile that has memory nodes:
`tdnl -j show` and `tdnl -j watch` give the same Level 1/2 as debugfs for
the same interval (both come from the same ppm; debugfs prints 2 decimals),
within 0.5 points of the profile (3 where the level multiplexes, as in
topdown/accuracy.py); their Level 3/4 memory nodes are within
1 point of the profile's; the text tree prints debugfs's own numbers; the
CSV has a row per CPU.  zen4 and neoverse-n2 have no Level 3/4: null, n/a.
Notifications of a CPU come with consecutive seq; `set interval 200` makes
them 200 ms apart; bad values come back with the kernel's message; an
unprivileged user is refused; no PMU and no module are said so; no
anonymous mapping of `tdnl watch` could take a transparent huge page.
"""
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
import tdtest  # noqa: E402
from tdtest import (L1, L2, L2_PARENT, L3, L4, TD, Tap, all_cpus, fractions_given,  # noqa: E402
                    l2_nodes, read_kv, seq, settle, sh, unload, want_of, write_profile)

tap = Tap("tdnl_e2e")
PROFILE = ("retiring=30 bad_speculation=10 frontend_bound=20 backend_bound=40 "
           "heavy_operations=5 branch_mispredicts=8 fetch_latency=12 memory_bound=25 "
           "l1_bound=8 l2_bound=4 l3_bound=3 dram_bound=6 store_bound=2 "
           "mem_bandwidth=2 mem_latency=3 freq_mhz=2000")
NOT_LOADED = ('tdnl: the topdown module is not loaded (no generic netlink family "topdown"): '
              'sudo modprobe topdown')
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
          "--inh-caps=-all", "--bounding-set=-all"]
# nobody with CAP_PERFMON alone, kept across exec as an ambient capability
PERFMON = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
           "--inh-caps=-all,+perfmon", "--ambient-caps=+perfmon",
           "--bounding-set=-all,+perfmon"]


def load(model, level=3, interval=500, pmu=True):
    return not tdtest.load(model, f"level={level}", f"interval_ms={interval}", pmu=pmu)


def debugfs(cpu):
    """cpuN/level1 and level2 as floats (None for n/a)"""
    out = {}
    for f in ("level1", "level2"):
        for k, v in read_kv(f"{TD}/cpu{cpu}/{f}").items():
            out[k] = None if v == "n/a" else float(v)
    return out


def snapshot(cpus):
    """every CPU's debugfs level1/level2 and the seq they are of
    (re-read if an interval ended during the read): (seqs, debugfs)"""
    for _ in range(10):
        seqs = {c: seq(c) for c in cpus}
        dbg = {c: debugfs(c) for c in cpus}
        if seqs == {c: seq(c) for c in cpus}:
            return seqs, dbg
    return None, None


def printed_seqs(r):
    """the seq tdnl show printed for each CPU (JSON, or the text header)"""
    try:
        return {o["cpu"]: o["seq"] for o in json.loads(r.stdout)}
    except (ValueError, TypeError, KeyError):
        pass
    return {int(m[1]): int(m[2]) for m in
            re.finditer(r"^cpu(\d+)\s+\S+\s+seq\s+(\d+)", r.stdout, re.M)}


def show_same_interval(cpus, *args):
    """run tdnl show and find debugfs as it was for the same intervals:
    (result, debugfs, seqs), or seqs None.  debugfs is read before and
    after tdnl show, and whichever read has the seqs tdnl printed is
    used: tdnl show may take longer than an interval's rest (a process
    started and a dump; with a VM beside make check's, all 20 tries of a
    "no interval ends while tdnl show runs" rule failed at 500 ms)."""
    for _ in range(20):
        before, dbg_before = snapshot(cpus)
        r = sh("tdnl", *args)
        after, dbg_after = snapshot(cpus)
        got = printed_seqs(r)
        if r.returncode or not got:
            continue
        for seqs, dbg in ((before, dbg_before), (after, dbg_after)):
            if seqs and all(seqs.get(c) == s for c, s in got.items()):
                return r, dbg, seqs
    return r, dbg_after or {c: {} for c in cpus}, None


def same_as_debugfs(obj, dbg):
    """max |tdnl - debugfs| over L1/L2 (debugfs rounds to hundredths)"""
    err = 0.0
    for lvl, keys in (("level1", L1), ("level2", L2)):
        for k in keys:
            a, b = (obj[lvl] or {}).get(k), dbg.get(k)
            if a is None or b is None:
                return 99.0
            err = max(err, abs(a - b))
    return err


def profile_error(obj, want, levels):
    err = 0.0
    for lvl, keys in levels:
        for k in keys:
            v = (obj.get(lvl) or {}).get(k)
            if v is None:
                return 99.0
            err = max(err, abs(v - want[k]))
    return err


def check_sample(model, obj, want, dbg, tag):
    cpu = obj["cpu"]
    tag = f"{model} cpu{cpu} {tag} seq {obj['seq']}"
    tap(obj["model"] == model and "error" not in obj["state"] and obj["level1"] is not None,
        f"{tag}: model {obj['model']}, state {obj['state']}, level1 present")
    if dbg is not None:
        err = same_as_debugfs(obj, dbg)
        # debugfs rounds Level 1 to hundredths adding up to 100.00, and
        # prints each Level 2 sibling as its printed parent minus the
        # rounded child: off by less than 0.01 and 0.015
        tap(err < 0.015, f"{tag}: level1/level2 equal debugfs's (max diff {err:.4f})")
    # as topdown/accuracy.py: a steady profile, sets taking turns or not
    tol = 0.5
    err = profile_error(obj, want, (("level1", L1), ("level2", L2)))
    tap(err <= tol, f"{tag}: level1/level2 within {tol} pp of the profile (max error {err:.3f})")
    err = profile_error(obj, want, (("level3", L3), ("level4", L4)))
    tap(err <= 1.0, f"{tag}: level3/level4 within 1 pp of the profile (max error {err:.3f}; " +
        " ".join(f"{k}={obj['level3'].get(k, obj['level4'].get(k))}" for k in L3 + L4) + ")")


# tdnl watch's text line: cpu, seq, Level 1, memory_bound, Level 3/4, state
TEXT_COLS = ["cpu", "seq"] + L1 + ["memory_bound"] + L3 + L4 + ["state"]


def text_line(line):
    """a text watch line as a dict (numbers as floats, None for n/a),
    or None for the header"""
    f = line.split()
    if len(f) != len(TEXT_COLS) or not re.fullmatch(r"cpu\d+", f[0]):
        return None
    obj = {"cpu": int(f[0][3:]), "seq": int(f[1]), "state": f[-1]}
    for k, v in zip(TEXT_COLS[2:-1], f[2:-1]):
        obj[k] = None if v == "n/a" else float(v)
    return obj


def watch(args, n, timeout=60, text=False):
    """tdnl -j watch -n N (or text watch); with debugfs read as each line comes"""
    p = subprocess.Popen(["tdnl"] + ([] if text else ["-j"]) + ["watch", "-n", str(n)] + args,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = []
    deadline = time.time() + timeout
    for line in p.stdout:
        obj = text_line(line) if text else json.loads(line)
        if obj is None:
            continue
        cpu = obj["cpu"]
        dbg = debugfs(cpu)
        out.append((obj, dbg if seq(cpu) == obj["seq"] else None))
        if time.time() > deadline:
            break
    try:
        p.wait(timeout=max(1, deadline - time.time()))
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    return p.returncode, out, p.stderr.read()


def check_text_watch(model, want, n):
    """text watch prints debugfs's own Level 1 and memory_bound, and Level
    3/4 within 1 point of the profile, for every sample"""
    rc, lines, err = watch([], n, text=True)
    tap(rc == 0 and len(lines) == n, f"{model}: tdnl watch -n {n} (text): exit {rc}, "
        f"{len(lines)} lines (stderr '{err.strip()}')")
    same = 0
    for obj, dbg in lines:
        tag = f"{model} cpu{obj['cpu']} text watch seq {obj['seq']}"
        if dbg is not None:
            same += 1
            diff = max(abs((obj[k] if obj[k] is not None else 99) - dbg[k])
                       for k in L1 + ["memory_bound"])
            tap(diff < 0.001, f"{tag}: Level 1 and memory_bound are debugfs's (max diff {diff:.4f})")
        err = max(abs((obj[k] if obj[k] is not None else 99) - want[k]) for k in L3 + L4)
        # (skewed: a snapshot's reads spread, the vCPU held up among them)
        tap((err <= 1.0 or "skewed" in obj["state"]) and
            fractions_given(obj["state"]),
            f"{tag}: level3/level4 within 1 pp of the profile (max error {err:.3f}), "
            f"state {obj['state']}")
    tap(same > 0, f"{model}: text watch: {same} of {len(lines)} lines had debugfs of their interval")


def check_intel(model, cpus):
    if not load(model):
        tap(False, f"{model}: tdsim and topdown level=3 load")
        return
    for cpu in cpus:
        write_profile(cpu, PROFILE)
    want = want_of(PROFILE)
    settle(cpus, 3)

    r, dbg, seqs = show_same_interval(cpus, "-j", "show")
    try:
        arr = json.loads(r.stdout)
    except ValueError:
        arr = []
    tap(r.returncode == 0 and seqs is not None and len(arr) == len(cpus),
        f"{model}: tdnl -j show: exit {r.returncode}, one object per CPU ({len(arr)})")
    for obj in arr:
        same = seqs is not None and seqs.get(obj["cpu"]) == obj["seq"]
        check_sample(model, obj, want, dbg[obj["cpu"]] if same else None, "show")

    # text: the tree prints debugfs's own numbers
    r, dbg, seqs = show_same_interval(cpus, "show", "-c", "0")
    got = {}
    for line in r.stdout.splitlines()[1:]:
        f = line.split()
        if len(f) >= 2 and f[1] != "n/a":
            got[f[0]] = float(f[1])
    ok = seqs is not None and all(abs(got.get(k, -1) - dbg[0][k]) < 0.001 for k in L1 + L2)
    tap(r.returncode == 0 and ok and all(k in got for k in L3 + L4),
        f"{model}: tdnl show -c 0: the tree prints debugfs's numbers and every memory node "
        f"(header '{r.stdout.splitlines()[0] if r.stdout else ''}'"
        f"{'' if seqs else '; no interval held still for tdnl show and debugfs in 20 tries'})")
    # the memory nodes in the tree's order: DRAM's two under it (deeper), store bound last
    rows = [(len(ln) - len(ln.lstrip()), ln.split()[0]) for ln in r.stdout.splitlines()[1:]
            if ln.split() and ln.split()[0] in L3 + L4]
    tree = [(6, "l1_bound"), (6, "l2_bound"), (6, "l3_bound"), (6, "dram_bound"),
            (8, "mem_bandwidth"), (8, "mem_latency"), (6, "store_bound")]
    tap(rows == tree, f"{model}: tdnl show -c 0: memory nodes in the tree's order and depth ({rows})")

    r = sh("tdnl", "--csv", "show")
    rows = [x.split(",") for x in r.stdout.splitlines()]
    tap(r.returncode == 0 and len(rows) == len(cpus) + 1 and
        all(len(x) == len(rows[0]) for x in rows) and rows[0][:2] == ["cpu", "seq"] and
        all(x[rows[0].index("dram_bound")] != "n/a" for x in rows[1:]),
        f"{model}: tdnl --csv show: header and one row per CPU ({len(rows)} lines)")

    n = 3 * len(cpus)
    rc, lines, err = watch([], n)
    tap(rc == 0 and len(lines) == n, f"{model}: tdnl -j watch -n {n}: exit {rc}, {len(lines)} lines "
        f"(stderr '{err.strip()}')")
    last = {}
    for obj, dbg in lines:
        check_sample(model, obj, want, dbg, "watch")
        c = obj["cpu"]
        if c in last:
            tap(obj["seq"] == last[c] + 1 and obj["lost"] == 0,
                f"{model} cpu{c} watch: consecutive seq ({last[c]} -> {obj['seq']}), lost {obj['lost']}")
        last[c] = obj["seq"]
    check_text_watch(model, want, n)
    rc, lines, _ = watch(["-c", "1"], 2)
    tap(rc == 0 and [o["cpu"] for o, _ in lines] == [1, 1],
        f"{model}: tdnl -j watch -c 1 -n 2: cpu1 only ({[o['cpu'] for o, _ in lines]})")


def check_no_memory_nodes(model, cpus):
    if not load(model):
        tap(False, f"{model}: tdsim and topdown level=3 load")
        return
    text = PROFILE + (" smt_contention=0" if model.startswith("zen") else "")
    for cpu in cpus:
        write_profile(cpu, text)
    settle(cpus, 2)
    r = sh("tdnl", "-j", "show")
    arr = json.loads(r.stdout) if r.returncode == 0 else []
    nulls = all(obj["level1"] is not None and
                all(v is None for v in list(obj["level3"].values()) + list(obj["level4"].values()))
                for obj in arr)
    tap(r.returncode == 0 and len(arr) == len(cpus) and nulls,
        f"{model}: tdnl -j show: level1 present, every level3/level4 node null")
    r = sh("tdnl", "show", "-c", "0")
    l1_ok = all(any(line.split()[:1] == [k] and line.split()[1] != "n/a"
                    for line in r.stdout.splitlines()) for k in L1[2:])
    if model.startswith("zen"):
        memory = [line.split() for line in r.stdout.splitlines()
                  if line.split()[:1] and line.split()[0] in L3 + L4]
        tap(l1_ok and len(memory) == 7 and all(f[1] == "n/a" for f in memory),
            f"{model}: tdnl show: the memory nodes print n/a")
    else:
        tap(l1_ok and "l1_bound" not in r.stdout and "memory_bound" not in r.stdout,
            f"{model}: tdnl show: Level 1 only (no Level 2 on Arm)")
    rc, lines, _ = watch([], 2)
    tap(rc == 0 and len(lines) == 2 and
        all(v is None for o, _ in lines for v in list(o["level3"].values()) + list(o["level4"].values())),
        f"{model}: tdnl -j watch: level3/level4 null")


def check_config(cpus):
    load("spr")
    settle(cpus, 1)
    r = sh("tdnl", "set", "interval", "200")
    info = json.loads(sh("tdnl", "-j", "info").stdout)
    tap(r.returncode == 0 and info["interval_ms"] == 200 and
        open(f"{TD}/interval_ms").read().strip() == "200",
        f"tdnl set interval 200: exit {r.returncode}, info and debugfs say 200")
    settle(cpus, 1)
    rc, lines, _ = watch(["-c", "0"], 8)
    ends = [o["end_ns"] for o, _ in lines]
    gaps = [(b - a) / 1e6 for a, b in zip(ends, ends[1:])]
    mean = sum(gaps) / len(gaps) if gaps else 0
    tap(rc == 0 and len(gaps) == 7 and 180 <= mean <= 240,
        f"tdnl set interval 200: notifications {mean:.1f} ms apart "
        f"({' '.join(f'{g:.0f}' for g in gaps)})")
    r = sh("tdnl", "set", "interval", "5")
    # the policy's message, with the attribute and its range from the extack
    tap(r.returncode == 1 and
        r.stderr.strip() == "Error: interval-ms: integer out of range (10..60000)." and
        json.loads(sh("tdnl", "-j", "info").stdout)["interval_ms"] == 200,
        f"tdnl set interval 5: exit {r.returncode}, '{r.stderr.strip()}', interval kept")
    r = sh("tdnl", "set", "level", "7")
    tap(r.returncode == 1 and r.stderr.strip() == "Error: level: integer out of range (1..3).",
        f"tdnl set level 7: exit {r.returncode}, '{r.stderr.strip()}'")
    r = sh("tdnl", "set", "level", "2")
    info = json.loads(sh("tdnl", "-j", "info").stdout)
    settle(cpus, 2)
    shown = json.loads(sh("tdnl", "-j", "show", "-c", "0").stdout)[0]
    tap(r.returncode == 0 and info["level"] == 2 and shown["level2"] is not None and
        all(v is None for v in shown["level3"].values()),
        f"tdnl set level 2: level {info['level']}, level2 present, level3 null")
    for cmd in (["info"], ["show"], ["watch", "-n", "1"], ["set", "interval", "300"]):
        r = sh(*NOBODY, "tdnl", *cmd, timeout=20)
        tap(r.returncode == 1 and
            r.stderr.strip() == "tdnl: permission denied: topdown needs CAP_PERFMON or CAP_SYS_ADMIN",
            f"unprivileged tdnl {' '.join(cmd)}: exit {r.returncode}, '{r.stderr.strip()}'")
    r = sh(*PERFMON, "tdnl", "-j", "show", "-c", "0", timeout=20)
    tap(r.returncode == 0 and json.loads(r.stdout)[0]["cpu"] == 0,
        f"CAP_PERFMON only: tdnl show works: exit {r.returncode}, '{r.stderr.strip()}'")
    r = sh(*PERFMON, "tdnl", "watch", "-n", "1", timeout=20)
    tap(r.returncode == 1 and r.stderr.strip() ==
        "tdnl: permission denied: watching needs CAP_SYS_ADMIN (CAP_PERFMON is enough for show)",
        f"CAP_PERFMON only: tdnl watch refused: exit {r.returncode}, '{r.stderr.strip()}'")
    r = sh("tdnl", "-j", "info")
    info = json.loads(r.stdout)
    spr = [m for m in info["models"] if m["name"] == "spr"][0]
    models = open(f"{TD}/models").read().split()
    tap(len(info["cpus"]) == len(cpus) and
        [m["name"] for m in info["models"]] == models and
        [e["id"] for e in spr["events"]] == list(range(17)) and
        spr["events"][0]["name"] == "TOPDOWN.SLOTS" and spr["events"][0]["config"] == "0x400",
        f"tdnl -j info: {len(info['cpus'])} CPUs, {len(info['models'])} models "
        f"(debugfs models: {len(models)}), spr's 17 events")


def check_no_pmu(cpus):
    # raw events in this guest, which has no PMU (QEMU TCG)
    load("spr", level=2, pmu=False)
    r = sh("tdnl", "-j", "show")
    arr = json.loads(r.stdout) if r.stdout else []
    tap(r.returncode == 1 and len(arr) == len(cpus) and
        all("no-pmu" in o["state"] and o["level1"] is None for o in arr) and
        r.stderr.strip() == "tdnl: no PMU: topdown.ko cannot count on this machine "
        "(a VM without PMU passthrough?)",
        f"no PMU: tdnl -j show prints the samples, then says so: exit {r.returncode}, "
        f"'{r.stderr.strip()}'")
    r = sh("tdnl", "watch", timeout=20)
    tap(r.returncode == 1 and "no PMU" in r.stderr,
        f"no PMU: tdnl watch says so and exits: exit {r.returncode}")


def check_unloaded():
    unload()
    r = sh("tdnl", "info")
    tap(r.returncode == 1 and r.stderr.strip() == NOT_LOADED,
        f"rmmod topdown, tdnl info: exit {r.returncode}, '{r.stderr.strip()}'")


def check_no_huge_pages(pid, what):
    """no anonymous mapping of the process could take a transparent huge
    page: Debian's kernels default to transparent_hugepage=always, and
    khugepaged made tdnl's two 1 MiB socket buffers, mapped side by side,
    one 2 MiB page wherever they held an aligned 2 MiB range (ASLR: about
    one start in a hundred), 2 MiB more resident for a few pages used"""
    maps, big, huge, cur = 0, [], 0, None
    for line in open(f"/proc/{pid}/smaps"):
        f = line.split()
        if "-" in f[0] and ":" not in f[0]:
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            cur = {"range": f[0], "size": hi - lo, "anon": len(f) == 5}
            maps += 1
        elif f[0] == "AnonHugePages:":
            huge += int(f[1])
        elif f[0] == "VmFlags:" and cur["anon"] and cur["size"] >= 2 << 20 and "nh" not in f[1:]:
            big.append(f"{cur['range']} ({cur['size'] >> 10} KiB)")
    tap(maps > 0 and not big and huge == 0,
        f"{what}: no anonymous mapping of 2 MiB or more without no-huge-pages "
        f"({', '.join(big) or 'none'} of {maps} mappings), AnonHugePages {huge} KiB")


def check_watch_unload(cpus):
    load("spr")
    p = subprocess.Popen(["tdnl", "watch"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    p.stdout.readline()	# the header
    p.stdout.readline()	# a sample
    check_no_huge_pages(p.pid, "tdnl watch")
    sh("rmmod", "topdown")
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    tap(p.returncode == 1 and "unloaded" in p.stderr.read(),
        f"tdnl watch ends when the module is unloaded: exit {p.returncode}")
    load("spr")
    p = subprocess.Popen(["tdnl", "watch"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    p.stdout.readline()
    p.stdout.readline()
    p.send_signal(2)
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    tap(p.returncode == 0, f"tdnl watch: SIGINT exits 0 ({p.returncode})")


def check_own_level2(model, cpus):
    """a model whose Level 2 pairs are its own (Atom, AmpereOne): tdnl's
    JSON, text and CSV carry exactly its nodes, with debugfs's numbers"""
    if not load(model, level=2):
        tap(False, f"{model}: tdsim and topdown level=2 load")
        return
    for cpu in cpus:
        write_profile(cpu, PROFILE)
    settle(cpus, 2)
    nodes = l2_nodes(model)
    want = want_of(PROFILE)
    r, dbg, same = show_same_interval(cpus, "-j", "show")
    arr = json.loads(r.stdout) if r.returncode == 0 else []
    for obj in arr:
        cpu = obj["cpu"]
        got = sorted((obj["level2"] or {}).keys())
        diff = max(abs(v - dbg[cpu][k]) if dbg[cpu].get(k) is not None else 99
                   for k, v in obj["level2"].items()) if got else 99
        err = max(abs(v - want[k]) for k, v in (obj["level2"] or {"x": 99}).items()) \
            if got else 99
        tap(got == sorted(nodes) and same is not None and diff < 0.015 and err <= 0.5,
            f"{model} cpu{cpu}: tdnl -j show level2 has its {len(nodes)} nodes "
            f"({' '.join(got)}), as debugfs (max diff {diff:.4f}), within 0.5 pp of "
            f"the profile ({err:.3f})")
    tap(len(arr) == len(cpus), f"{model}: tdnl -j show: {len(arr)} CPUs")
    # text: each node under its parent, the numbers debugfs prints
    r, dbg, same = show_same_interval(cpus, "show", "-c", "0")
    lines = [x.split() for x in r.stdout.splitlines()]
    under, parent, printed = {}, None, {}
    for f in lines:
        if len(f) >= 2 and f[0] in L1:
            parent = f[0]
        elif len(f) >= 2 and f[0] in L2_PARENT:
            under[f[0]] = parent
            printed[f[0]] = f[1]
    # debugfs as read in the same interval as tdnl show (a later read may
    # be of the next interval, a hundredth apart)
    tap(same is not None and sorted(under) == sorted(nodes) and
        all(under[k] == L2_PARENT[k] for k in under) and
        all(dbg[0].get(k) is not None and abs(float(printed[k]) - dbg[0][k]) < 0.001
            for k in printed),
        f"{model}: tdnl show prints its Level 2 nodes under their parents, as "
        f"debugfs ({' '.join(f'{k}={v}' for k, v in printed.items())}"
        f"{'' if same else '; no interval held still for tdnl show and debugfs in 20 tries'})")
    r = sh("tdnl", "--csv", "show")
    rows = [x.split(",") for x in r.stdout.splitlines()]
    ok = r.returncode == 0 and len(rows) == len(cpus) + 1
    if ok:
        head = rows[0]
        ok = all((x[head.index(k)] != "n/a") == (k in nodes)
                 for x in rows[1:] for k in L2_PARENT)
    tap(ok, f"{model}: tdnl --csv show: its Level 2 columns have numbers, the others n/a")


def raw_file(cpu):
    """cpuN/raw: {event: (delta, total, enabled, running)}"""
    out = {}
    for line in open(f"{TD}/cpu{cpu}/raw"):
        f = line.split()
        out[f[0]] = tuple(int(x) for x in f[1:5])
    return out


def check_raw(cpus):
    """the raw counts in JSON, --raw text and CSV, and --perf-names"""
    if not load("spr"):
        tap(False, "raw: tdsim and topdown load as spr")
        return
    settle(cpus, 2)
    for _ in range(20):
        before = seq(0)
        r = sh("tdnl", "-j", "show", "-c", "0")
        raw = raw_file(0)
        if seq(0) == before:
            break
    try:
        ev = json.loads(r.stdout)[0]["events"]
        got = {k: (v["delta"], v["total"], v["enabled"], v["running"]) for k, v in ev.items()}
    except (ValueError, IndexError, KeyError, TypeError):
        got = {}
    tap(len(got) == len(raw) > 9 and got == {k: v[:4] for k, v in raw.items()},
        f"spr level 3: tdnl -j show's events are cpu0's raw file: {len(got)} events, each "
        "delta, total, enabled and running")
    r = sh("tdnl", "show", "-c", "0", "--raw")
    lines = [x for x in r.stdout.splitlines() if x.split() and x.split()[0] in raw]
    tap(r.returncode == 0 and len(lines) == len(raw),
        f"tdnl show --raw: a line per event ({len(lines)} of {len(raw)})")
    r = sh("tdnl", "--csv", "show", "--raw")
    rows = r.stdout.splitlines()
    tap(r.returncode == 0 and rows and
        rows[0] == "cpu,seq,start_ns,end_ns,model,event,delta,total,enabled,running" and
        len(rows) == 1 + len(raw) * len(cpus),
        f"tdnl --csv show --raw: a row per CPU and event ({len(rows) - 1})")
    r = sh("tdnl", "--perf-names", "-j", "show", "-c", "0")
    try:
        obj = json.loads(r.stdout)[0]
        keys = sorted(obj["level1"]) + sorted(obj["level2"]) + sorted(obj["level3"])
    except (ValueError, IndexError, KeyError, TypeError):
        keys = []
    tap(keys and all(k.startswith("tma_") for k in keys) and "tma_dram_bound" in keys,
        f"tdnl --perf-names -j show: perf's names ({', '.join(keys[:3])}, ...)")


def main():
    cpus = all_cpus()
    check_raw(cpus)
    for model in ("gracemont", "ampereone"):
        check_own_level2(model, cpus)
    for model in ("spr", "icl", "skl"):
        check_intel(model, cpus)
    for model in ("zen4", "neoverse-n2"):
        check_no_memory_nodes(model, cpus)
    check_config(cpus)
    check_watch_unload(cpus)
    check_no_pmu(cpus)
    check_unloaded()
    tap.summary()


main()
