#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""td_perf_read_local() (kmod/td_perf.h) against perf_event_read_value(),
on the kernel the VM boots: the one place the module reads perf's
internals, held to perf's own read of the same counter.

td_perf_test.ko (selftests/kmod, built beside topdown.ko) counts a tdsim
event on CPU 0 for 50 ms, disables it so it does not move, and reads it
both ways; it loads only when value, enabled and running time agree.
Checked here, for a general-purpose event (UOPS_RETIRED.SLOTS) and the
cycles: it loads, its line says the same numbers both ways, and they are
a count that ran (value and running above 0, running at most enabled),
not a counter that never counted.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import KO, Tap, dmesg_mark, dmesg_since, sh, unload  # noqa: E402

tap = Tap("topdown_perf_read")
LINE = re.compile(r"td_perf_test: (same|differ): value (\d+) (\d+) enabled (\d+) (\d+) "
                  r"running (\d+) (\d+) \(td_perf_read_local: (-?\d+)\)")


def check(tag, config):
    typ = open("/sys/bus/event_source/devices/tdsim/type").read().strip()
    mark = dmesg_mark()
    r = sh("insmod", f"{KO}/test/td_perf_test.ko", f"type={typ}", f"config={config}")
    sh("rmmod", "td_perf_test")
    said = [m for m in (LINE.search(x) for x in dmesg_since(mark)) if m]
    if not tap(r.returncode == 0 and len(said) == 1,
               f"{tag}: td_perf_test loads (rc {r.returncode} {r.stderr.strip()}), "
               f"one line ({len(said)})"):
        return
    m = said[0]
    ours, perfs = [int(m.group(i)) for i in (2, 4, 6)], [int(m.group(i)) for i in (3, 5, 7)]
    tap(m.group(1) == "same" and ours == perfs and m.group(8) == "0",
        f"{tag}: value, enabled, running {ours} by td_perf_read_local, {perfs} by "
        f"perf_event_read_value")
    tap(ours[0] > 0 and 0 < ours[2] <= ours[1],
        f"{tag}: a count that ran: value {ours[0]} > 0, running {ours[2]} in (0, "
        f"enabled {ours[1]}] ns")


def main():
    if not KO or not os.path.exists("/sys/bus/event_source/devices"):
        tap.skip_all("not in the VM")
    if not os.path.exists(f"{KO}/test/td_perf_test.ko"):
        tap(False, f"{KO}/test/td_perf_test.ko built (make modules)")
        tap.summary()
    unload()
    r = sh("insmod", f"{KO}/tdsim.ko", "model=spr")
    if not tap(r.returncode == 0, f"insmod tdsim model=spr {r.stderr.strip()}"):
        tap.summary()
    check("UOPS_RETIRED.SLOTS", "0x02c2")
    check("CPU_CLK_UNHALTED.THREAD", "0x003c")
    unload()
    tap.summary()


main()
