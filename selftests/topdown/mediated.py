#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""topdown.ko beside a VM with a mediated PMU (7.0+: kernel/events/core.c,
mediated_pmu_account_event() and perf_create_mediated_pmu()), on tdsim's
emulation of the rule (mediated=1, debugfs mediated_vms standing for KVM's
VM creation and end):
- by default the module counts host time only (exclude_guest): info and the
  load line say so, a mediated VM can be created while it samples, and it
  goes on counting (Level 1 and 2 on the profile) while the VM runs;
- count_guest=1 while such a VM runs: its events are refused with
  -EOPNOTSUPP, the CPU's state is that error, dmesg says why and what to do;
- count_guest=1 with no VM: it counts, and creating a VM fails with EBUSY,
  nothing changed; so does the NMI watchdog's pinned cycles event, which
  counts guest time as the kernel's does (tdsim watchdog=1);
- the knob's bad input: EINVAL and a dmesg line, nothing changed; with
  mediated=0 the PMU has no such capability: EOPNOTSUPP.
"""
import errno
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import (L2, SIM, TD, Tap, all_cpus, dmesg_mark, dmesg_since, load,  # noqa: E402
                    load_topdown, read_kv, seq, settle, unload, want_of, write_profile)

tap = Tap("topdown_mediated")
PROFILE = ("retiring=30 bad_speculation=10 frontend_bound=25 backend_bound=35 "
           "heavy_operations=8 branch_mispredicts=6 fetch_latency=15 memory_bound=20")
KNOB = f"{SIM}/mediated_vms"


def knob(text):
    """write text to mediated_vms: 0 or the errno it failed with"""
    fd = os.open(KNOB, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
        return 0
    except OSError as e:
        return e.errno
    finally:
        os.close(fd)


def vms():
    return read_kv(KNOB)


def counting(cpus, want, tag):
    """every CPU ok and on the profile at Level 1 and 2, sampling on"""
    before = {c: seq(c) for c in cpus}
    settle(cpus, 3)
    for c in cpus:
        info = read_kv(f"{TD}/cpu{c}/info")
        l1 = read_kv(f"{TD}/cpu{c}/level1")
        l2 = read_kv(f"{TD}/cpu{c}/level2")
        e = max([abs(float(l1[k]) - want[k]) for k in l1] +
                [abs(float(l2[k]) - want[k]) for k in L2])
        tap(info["state"] == "ok" and seq(c) >= before[c] + 3 and e <= 0.5,
            f"{tag} cpu{c}: state {info['state']}, {seq(c) - before[c]} samples "
            f"(>= 3), Level 1/2 within 0.5 pp of the profile (max error {e:.3f})")


def main():
    if not os.path.exists("/sys/bus/event_source/devices") or not os.environ.get("TD_KO_DIR"):
        tap.skip_all("not in the VM")
    cpus = all_cpus()
    want = want_of(PROFILE)

    mark = dmesg_mark()
    err = load("spr", "level=2", "interval_ms=100")
    if not tap(not err, f"spr level=2 on tdsim mediated=1: loads {err}"):
        tap.summary()
    for c in cpus:
        write_profile(c, PROFILE)
    settle(cpus, 2)
    info = read_kv(f"{TD}/cpu{cpus[0]}/info")
    said = [x for x in dmesg_since(mark) if "topdown: started:" in x and "host time only" in x]
    tap(info.get("guest") == "excluded" and len(said) == 1,
        f"default: info says guest {info.get('guest')}, the load line 'host time only' "
        f"({len(said)} lines)")
    v = vms()
    tap(v == {"vms": "0", "include_guest_events": "0"},
        f"default: no event of topdown's counts guest time ({v})")
    rc = knob("create")
    v = vms()
    tap(rc == 0 and v["vms"] == "1", f"a mediated VM is created while topdown samples "
        f"({os.strerror(rc) if rc else 'ok'}; {v})")
    counting(cpus, want, "while the VM runs")

    # count_guest=1 beside the VM: refused, and said so
    mark = dmesg_mark()
    err = load_topdown("spr", "level=2", "interval_ms=100", "count_guest=1")
    tap(not err, f"count_guest=1 while the VM runs: topdown loads {err}")
    end = time.monotonic() + 5
    while time.monotonic() < end and any(
            not read_kv(f"{TD}/cpu{c}/info")["state"].startswith("error") for c in cpus):
        time.sleep(0.05)
    for c in cpus:
        info = read_kv(f"{TD}/cpu{c}/info")
        tap(info["state"].startswith(f"error -{errno.EOPNOTSUPP}") and
            info.get("guest") == "counted",
            f"count_guest=1 while the VM runs cpu{c}: state {info['state']}, guest "
            f"{info.get('guest')}")
    said = [x for x in dmesg_since(mark)
            if "a VM with a mediated PMU runs" in x and "count_guest=0" in x]
    tap(len(said) == len(cpus), f"count_guest=1 while the VM runs: dmesg says why, "
        f"per CPU ({len(said)} lines for {len(cpus)} CPUs)")
    tap(vms() == {"vms": "1", "include_guest_events": "0"},
        f"count_guest=1 while the VM runs: the VM untouched, no event counted ({vms()})")
    tap(knob("destroy") == 0 and vms()["vms"] == "0", "the VM ends (destroy)")

    # count_guest=1 with no VM: it counts, and a VM cannot start
    err = load_topdown("spr", "level=2", "interval_ms=100", "count_guest=1")
    tap(not err, f"count_guest=1, no VM: topdown loads {err}")
    counting(cpus, want, "count_guest=1, no VM")
    n = int(vms()["include_guest_events"])
    mark = dmesg_mark()
    rc = knob("create")
    said = [x for x in dmesg_since(mark) if "create refused" in x]
    tap(rc == errno.EBUSY and vms()["vms"] == "0" and n > 0 and len(said) == 1,
        f"count_guest=1: creating a mediated VM fails with "
        f"{errno.errorcode.get(rc, rc)} (want EBUSY) while {n} events count guest "
        f"time, dmesg says why, no VM made")
    counting(cpus, want, "count_guest=1 after the refused VM")

    # the knob's bad input
    for bad in ("start", "create now", "x" * 40, "destroy"):
        mark = dmesg_mark()
        before = vms()
        rc = knob(bad)
        said = dmesg_since(mark)
        said = [x for x in said if "mediated_vms: want create or destroy" in x]
        tap(rc == errno.EINVAL and vms() == before and len(said) == 1,
            f"mediated_vms {bad[:12]!r}: {errno.errorcode.get(rc, rc)} (want EINVAL), "
            f"nothing changed, dmesg says why")

    # the NMI watchdog's event counts guest time, as the kernel's does
    err = load("spr", "level=2", "interval_ms=100", sim_args=["watchdog=1"])
    if tap(not err, f"tdsim watchdog=1: loads {err}"):
        rc = knob("create")
        tap(rc == errno.EBUSY and int(vms()["include_guest_events"]) == len(cpus),
            f"tdsim watchdog=1: its {vms()['include_guest_events']} pinned cycles events "
            f"keep a mediated VM from starting ({errno.errorcode.get(rc, rc)}), "
            f"topdown's none")

    # a PMU without the capability
    err = load("spr", "level=2", "interval_ms=100", sim_args=["mediated=0"])
    if tap(not err, f"tdsim mediated=0: loads {err}"):
        rc = knob("create")
        tap(rc == errno.EOPNOTSUPP and vms()["vms"] == "0",
            f"tdsim mediated=0: create is {errno.errorcode.get(rc, rc)} (want EOPNOTSUPP)")
    unload()
    tap.summary()


main()
