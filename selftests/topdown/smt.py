#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Skylake's SMT forms, in a guest with SMT (selftests/vm/run --threads 2).

1. AnyThread refused, as in a KVM guest (tdsim fixed=3 anythread=0): tdsim
   refuses the AnyThread bit with EINVAL (perf_event_open says so); topdown
   counts skl per thread: one dmesg line per CPU, every CPU ok, info "smt on
   (per-thread: AnyThread refused)", raw counts CPU_CLK_UNHALTED.THREAD and
   no _ANY event, Level 1 (and 2) within 0.5 pp of the profile, the sample's
   smt-core flag (tdnl) off, and the per-thread formulas on the published raw
   counts give the published Level 1.  icl and spr (no AnyThread events)
   are ok and within 0.5 pp with fixed=3 anythread=0 too.
2. The SMT setting follows the sibling (tdsim's AnyThread events count both
   threads while the sibling is online, the thread's own once it is not):
   skl at level 1 and 2, the sibling taken offline and back with
   cpuN/online, then with smt/control off and on.  After each change, and
   2+ intervals: info's smt follows, the flag smt-core with it, Level 1
   (and 2) within 0.5 pp, the formulas the flag names reproduce Level 1
   from raw, and dmesg says what changed.  Every interval tdnl watch saw
   over all the changes is within 0.5 pp or flagged not-counted, and the
   changes cut intervals as not-counted.
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import (L1, L2, TD, Tap, all_cpus, dmesg_mark, dmesg_since,  # noqa: E402
                    load, read_kv, settle, seq, sh, unload, want_of, write_profile)

tap = Tap("topdown_smt")
PROFILE = ("retiring=35 bad_speculation=10 frontend_bound=20 backend_bound=35 "
           "heavy_operations=6 branch_mispredicts=7 fetch_latency=12 memory_bound=22")
CPU = "/sys/devices/system/cpu"


def siblings(cpu):
    out = []
    for part in open(f"{CPU}/cpu{cpu}/topology/thread_siblings_list").read().strip().split(","):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out


def raw(cpu):
    out = {}
    for line in open(f"{TD}/cpu{cpu}/raw"):
        f = line.split()
        out[f[0]] = int(f[1])
    return out


def snapshot(cpu):
    """(raw deltas, level1) of one interval: read between two equal seq reads"""
    for _ in range(20):
        before = seq(cpu)
        r, l1 = raw(cpu), read_kv(f"{TD}/cpu{cpu}/level1")
        if seq(cpu) == before:
            return r, {k: float(v) for k, v in l1.items()}
    return {}, {}


def skl_level1(r, core_wide):
    """perf's skl-metrics.json Level 1: core-wide (THREAD_ANY / 2 and
    RECOVERY_CYCLES_ANY / 2) or per thread"""
    if core_wide:
        clk = r["CPU_CLK_UNHALTED.THREAD_ANY"] / 2
        rec = r["INT_MISC.RECOVERY_CYCLES_ANY"] / 2
    else:
        clk = r["CPU_CLK_UNHALTED.THREAD"]
        rec = r["INT_MISC.RECOVERY_CYCLES"]
    slots = 4 * clk
    issued, ret = r["UOPS_ISSUED.ANY"], r["UOPS_RETIRED.RETIRE_SLOTS"]
    fe = r["IDQ_UOPS_NOT_DELIVERED.CORE"] / slots
    return {"retiring": 100 * ret / slots, "frontend_bound": 100 * fe,
            "bad_speculation": 100 * (issued - ret + 4 * rec) / slots,
            "backend_bound": 100 * (1 - fe - (issued + 4 * rec) / slots)}


def flags(cpu):
    """the state flags of the CPU's latest sample over netlink (tdnl)"""
    r = sh("tdnl", "-j", "show", "-c", str(cpu))
    try:
        obj = json.loads(r.stdout)
    except ValueError:
        return None
    obj = obj[0] if isinstance(obj, list) else obj
    return obj.get("state", [])


def err_of(got, want, keys):
    return max(abs(float(got[k]) - want[k]) for k in keys)


def check_cpu(tag, cpu, want, level, smt_line, core_wide):
    """one CPU after a change: state, smt, flag, Level 1/2, raw reproduces"""
    info = read_kv(f"{TD}/cpu{cpu}/info")
    tap(info["state"] == "ok" and info.get("smt") == smt_line,
        f"{tag} cpu{cpu}: state {info['state']}, smt '{info.get('smt')}' "
        f"(want '{smt_line}')")
    f = flags(cpu)
    tap(f is not None and ("smt-core" in f) == core_wide,
        f"{tag} cpu{cpu}: sample flags {f} {'with' if core_wide else 'without'} smt-core")
    r, l1 = snapshot(cpu)
    if not tap(bool(l1), f"{tag} cpu{cpu}: one interval's raw and level1 read"):
        return
    e1 = err_of(l1, want, L1)
    tap(e1 <= 0.5, f"{tag} cpu{cpu}: level1 within 0.5 pp of the profile (max error {e1:.3f})")
    names = ("CPU_CLK_UNHALTED.THREAD_ANY", "INT_MISC.RECOVERY_CYCLES_ANY")
    try:
        mine = skl_level1(r, core_wide)
        e = err_of(l1, mine, L1)
    except (KeyError, ZeroDivisionError) as x:
        e, mine = 100.0, {"missing": str(x)}
    tap(e <= 0.02, f"{tag} cpu{cpu}: the {'core-wide' if core_wide else 'per-thread'} "
        f"formulas on raw give its level1 (max difference {e:.4f} pp)")
    if level >= 2:
        l2 = read_kv(f"{TD}/cpu{cpu}/level2")
        e2 = err_of(l2, want, L2)
        tap(e2 <= 0.5, f"{tag} cpu{cpu}: level2 within 0.5 pp of the profile (max error {e2:.3f})")
    if level < 3:
        has_any = any(n in r for n in names)
        tap(has_any == core_wide and ("CPU_CLK_UNHALTED.THREAD" in r) != core_wide,
            f"{tag} cpu{cpu}: raw counts the {'AnyThread' if core_wide else 'per-thread'} "
            f"events ({', '.join(n for n in r if 'THREAD' in n or 'RECOVERY' in n)})")


def anythread_refused(cpus, want):
    for model, level in (("skl", 1), ("skl", 2), ("icl", 1), ("spr", 1)):
        tag = f"{model} level={level} fixed=3 anythread=0"
        mark = dmesg_mark()
        err = load(model, f"level={level}", "interval_ms=100",
                   sim_args=["fixed=3", "anythread=0"])
        if not tap(not err, f"{tag}: tdsim and topdown load {err}"):
            continue
        for c in cpus:
            write_profile(c, PROFILE)
        settle(cpus, 3)
        if model != "skl":
            for c in cpus:
                info = read_kv(f"{TD}/cpu{c}/info")
                e1 = err_of(read_kv(f"{TD}/cpu{c}/level1"), want, L1)
                tap(info["state"] == "ok" and e1 <= 0.5,
                    f"{tag} cpu{c}: state {info['state']}, level1 within 0.5 pp "
                    f"(max error {e1:.3f})")
            continue
        said = [x for x in dmesg_since(mark) if "refused (AnyThread" in x
                and "counting per thread, SMT on" in x]
        tap(len(said) == len(cpus), f"{tag}: dmesg says per CPU that it counts per thread "
            f"({len(said)} lines for {len(cpus)} CPUs)")
        for c in cpus:
            check_cpu(tag, c, want, level, "on (per-thread: AnyThread refused)", False)
    # tdsim itself refuses the bit: perf stat on THREAD_ANY fails, THREAD counts
    r = sh("perf", "stat", "-a", "-e", "tdsim/event=0x3c,any=1/", "-e", "tdsim/event=0x3c/",
           "-x,", "--", "sleep", "0.2")
    lines = [x for x in r.stderr.splitlines() if "tdsim/event=0x3c" in x]
    anyl = [x for x in lines if "any=1" in x]
    plain = [x for x in lines if "any=1" not in x]
    tap(len(anyl) == 1 and "<not supported>" in anyl[0] and plain and
        plain[0].split(",")[0].isdigit(),
        f"tdsim anythread=0: perf counts event=0x3c, not event=0x3c,any=1 ({lines})")
    unload()


class Watch:
    """tdnl -j watch of one CPU, into a file"""

    def __init__(self, cpu):
        self.path = f"/tmp/smt-watch.{os.getpid()}"
        self.out = open(self.path, "w")
        self.p = subprocess.Popen(["tdnl", "-j", "watch", "-c", str(cpu)], stdout=self.out,
                                  stderr=subprocess.DEVNULL)

    def stop(self):
        self.p.terminate()
        self.p.wait()
        self.out.close()
        lines = []
        for line in open(self.path):
            try:
                lines.append(json.loads(line))
            except ValueError:
                pass
        os.unlink(self.path)
        return lines


def write(path, value):
    try:
        with open(path, "w") as f:
            f.write(value)
        return ""
    except OSError as e:
        return str(e)


def follow_sibling(cpus, want, sib):
    control = f"{CPU}/smt/control"
    for level in (1, 2):
        tag = f"skl level={level}"
        err = load("skl", f"level={level}", "interval_ms=100")
        if not tap(not err, f"{tag}: tdsim and topdown load {err}"):
            continue
        for c in cpus:
            write_profile(c, PROFILE)
        settle(cpus, 3)
        check_cpu(f"{tag} both threads", 0, want, level, "on (core-wide: AnyThread)", True)
        w = Watch(0)
        time.sleep(0.5)
        changes = [("cpu%d offline" % sib, f"{CPU}/cpu{sib}/online", "0", False),
                   ("cpu%d online" % sib, f"{CPU}/cpu{sib}/online", "1", True),
                   ("smt/control off", control, "off", False),
                   ("smt/control on", control, "on", True)]
        for name, path, value, on in changes:
            mark = dmesg_mark()
            e = write(path, value)
            if not tap(not e, f"{tag}: {name} ({e or 'written'})"):
                continue
            s0 = seq(0)
            for _ in range(400):	# 2+ intervals of the new setting
                time.sleep(0.05)
                if seq(0) >= s0 + 3:
                    break
            online = open(f"{CPU}/cpu{sib}/online").read().strip()
            tap(online == ("1" if on else "0"), f"{tag} {name}: cpu{sib} online is {online}")
            said = [x for x in dmesg_since(mark) if "cpu0: SMT sibling" in x]
            tap(len(said) == 1 and ("online" if on else "offline") in said[0],
                f"{tag} {name}: dmesg says cpu0 changed its formulas ({said})")
            check_cpu(f"{tag} {name}", 0, want, level,
                      "on (core-wide: AnyThread)" if on else "off", on)
            if on:		# the sibling counts again, with AnyThread
                settle([sib], 2)
                check_cpu(f"{tag} {name}", sib, want, level, "on (core-wide: AnyThread)", True)
        time.sleep(0.3)
        lines = w.stop()
        counted = [o for o in lines if "not-counted" not in o.get("state", []) and
                   o.get("level1")]
        cut = [o for o in lines if "not-counted" in o.get("state", [])]
        bad = [(o["seq"], round(err_of(o["level1"], want, L1), 3)) for o in counted
               if err_of(o["level1"], want, L1) > 0.5]
        tap(len(counted) >= 20 and not bad,
            f"{tag}: every interval tdnl watch saw is within 0.5 pp or not counted "
            f"({len(counted)} counted, {len(cut)} not counted; off: {bad})")
        tap(len(cut) >= len(changes), f"{tag}: each change cut an interval, flagged "
            f"not-counted ({len(cut)} for {len(changes)} changes)")
        core = [("smt-core" in o.get("state", [])) for o in lines]
        flips = sum(1 for a, b in zip(core, core[1:]) if a != b)
        tap(flips == len(changes), f"{tag}: the smt-core flag of the samples changed "
            f"with each change ({flips} times)")
    unload()


def main():
    if not os.path.exists("/sys/bus/event_source/devices") or not os.environ.get("TD_KO_DIR"):
        tap.skip_all("not in the VM")
    cpus = all_cpus()
    sib = [c for c in siblings(0) if c != 0]
    if not sib:
        tap.skip_all("no SMT sibling of cpu0 (selftests/vm/run --threads 2)")
    ctl = open(f"{CPU}/smt/control").read().strip()
    tap(ctl == "on", f"cpu0's thread siblings {siblings(0)}, smt/control {ctl}")
    want = want_of(PROFILE)
    anythread_refused(cpus, want)
    follow_sibling(cpus, want, sib[0])
    tap.summary()


main()
