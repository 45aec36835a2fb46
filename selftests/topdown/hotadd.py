#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A vCPU added and removed while topdown.ko runs (CPU hot-add, as a cloud
VM grows): in a guest booted with one CPU of two possible
(selftests/vm/run --smp 1 --maxcpus 2 --hotplug), QEMU's monitor adds
cpu1.  The module made files at load for present CPUs only (each debugfs
file's removal costs a sum over every possible CPU), so cpu1 gets its
files when it first comes online, tdsim's too; then it samples its
profile.  Offline and online again: the same files, sampling again.
Reloaded with cpu1 present: its files at load.  QEMU removes it (ACPI
eject): its files stay and say offline, cpu0 samples on, and the modules
unload.  No WARN (the runner fails any) and no debugfs complaint in dmesg.
(Debian's 6.12 under QEMU 7.2 allows no hotplug CPU, "Allowing 1 present
CPUs plus 0 hotplug CPUs", so this runs on 6.1.)
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import (L2, SIM, TD, Tap, dmesg_mark, dmesg_since, load, qmp,  # noqa: E402
                    read_kv, settle, unload, want_of, write_profile)

tap = Tap("topdown_hotadd")
PROFILE = ("retiring=30 bad_speculation=12 frontend_bound=18 backend_bound=40 "
           "heavy_operations=5 branch_mispredicts=9 fetch_latency=11 memory_bound=25")
CPU1 = "/sys/devices/system/cpu/cpu1"


def wait_for(what, seconds=30):
    for _ in range(seconds * 10):
        if what():
            return True
        time.sleep(0.1)
    return False


def cpu_list(name):
    """/sys/devices/system/cpu/<name> ("0-1", "0") as a set"""
    out = set()
    for part in open(f"/sys/devices/system/cpu/{name}").read().strip().split(","):
        if part:
            a, _, b = part.partition("-")
            out.update(range(int(a), int(b or a) + 1))
    return out


def plug():
    """QEMU adds the absent vCPU; "" when cpu1 is present, else why not"""
    cpus = qmp("query-hotpluggable-cpus").get("return", [])
    absent = [c for c in cpus if "qom-path" not in c]
    if not absent:
        return f"no absent vCPU in query-hotpluggable-cpus: {cpus}"
    r = qmp("device_add", driver=absent[0]["type"], id="hotcpu", **absent[0]["props"])
    if "error" in r:
        return f"device_add: {r['error']}"
    if not wait_for(lambda: 1 in cpu_list("present") and os.path.exists(CPU1)):
        return f"cpu1 not present 30 s after device_add (present {cpu_list('present')})"
    return ""


def online(on):
    with open(f"{CPU1}/online", "w") as f:
        f.write("1" if on else "0")


def samples_profile(tag, want):
    """cpu1 counts its profile: Level 1/2 within 0.5 pp, state ok"""
    if not tap(settle([0, 1], 3), f"{tag}: cpu0 and cpu1 complete 3 intervals"):
        return
    info = read_kv(f"{TD}/cpu1/info")
    l1 = read_kv(f"{TD}/cpu1/level1")
    l2 = read_kv(f"{TD}/cpu1/level2")
    e1 = max(abs(float(v) - want[k]) for k, v in l1.items())
    e2 = max(abs(float(l2[k]) - want[k]) for k in L2)
    tap(info["state"] == "ok" and e1 <= 0.5 and e2 <= 0.5,
        f"{tag}: cpu1 state {info['state']}, its profile within 0.5 pp "
        f"(Level 1 max error {e1:.3f}, Level 2 {e2:.3f})")


def main():
    if not os.environ.get("TD_VM_QMP") or not os.environ.get("TD_KO_DIR"):
        tap.skip_all("needs selftests/vm/run --hotplug")
    if cpu_list("possible") != {0, 1} or cpu_list("present") != {0}:
        tap.skip_all(f"needs cpu0 present and cpu1 possible only (present "
                     f"{cpu_list('present')}, possible {cpu_list('possible')})")
    want = want_of(PROFILE)
    mark = dmesg_mark()
    err = load("spr", "level=2", "interval_ms=100")
    if not tap(not err, f"tdsim and topdown load with cpu1 absent {err}"):
        tap.summary()
    tap(os.path.exists(f"{TD}/cpu0/level1") and not os.path.exists(f"{TD}/cpu1") and
        not os.path.exists(f"{SIM}/cpu1"), "files for cpu0 only (the present CPUs)")

    err = plug()
    if not tap(not err, f"QEMU adds cpu1 {err}"):
        tap.summary()
    tap(not os.path.exists(f"{TD}/cpu1"), "cpu1 present but offline: no files yet")
    online(True)
    tap(os.path.exists(f"{TD}/cpu1/level1") and os.path.exists(f"{TD}/cpu1/info") and
        os.path.exists(f"{SIM}/cpu1/profile"),
        "cpu1 online: its files (topdown's and tdsim's)")
    for c in (0, 1):
        write_profile(c, PROFILE)
    samples_profile("added", want)

    online(False)
    s = int(read_kv(f"{TD}/cpu1/info")["seq"])
    settle([0], 2)
    tap(read_kv(f"{TD}/cpu1/info")["state"] == "offline" and os.path.exists(f"{TD}/cpu1/raw"),
        f"cpu1 offline: its files stay, state {read_kv(f'{TD}/cpu1/info')['state']}")
    online(True)
    samples_profile("offline and online", want)
    tap(int(read_kv(f"{TD}/cpu1/info")["seq"]) > s, "cpu1 samples again after online")

    # loaded with cpu1 present: files at load
    err = load("spr", "level=2", "interval_ms=100")
    if tap(not err, f"tdsim and topdown load again, cpu1 present {err}"):
        tap(os.path.exists(f"{TD}/cpu1/level1") and os.path.exists(f"{SIM}/cpu1/profile"),
            "cpu1's files made at load")
        for c in (0, 1):
            write_profile(c, PROFILE)
        samples_profile("reloaded", want)

    # QEMU removes it: the guest offlines and ejects it (ACPI).  (Not added
    # again: QEMU 7.2 aborts, "double free or corruption", on a device_add
    # after a vCPU's device_del under TCG.)
    r = qmp("device_del", id="hotcpu")
    gone = "error" not in r and wait_for(lambda: 1 not in cpu_list("present"))
    tap(gone, f"QEMU removes cpu1 ({r}; present {cpu_list('present')})")
    if gone:
        tap(settle([0], 3) and os.path.exists(f"{TD}/cpu1/level1") and
            read_kv(f"{TD}/cpu1/info")["state"] == "offline",
            "cpu1 removed: cpu0 samples on, cpu1's files stay and say offline")
    unload()
    bad = [x for x in dmesg_since(mark) if "debugfs" in x or "already present" in x]
    tap(not bad, f"no debugfs complaint in dmesg {bad[:3]}")
    tap.summary()


main()
