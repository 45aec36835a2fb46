#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""perf_open.py PMU CONFIG [CPU] [--sample]: open one counting event with
perf_event_open(2) on a PMU from sysfs and print "ok" or the errno's name,
so tests can assert the exact errno the kernel returns.
"""
import ctypes
import errno
import os
import struct
import sys

NR_PERF_EVENT_OPEN = 298  # x86_64


def main():
    pmu, config = sys.argv[1], int(sys.argv[2], 0)
    cpu = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3].isdigit() else 0
    sample = "--sample" in sys.argv
    with open(f"/sys/bus/event_source/devices/{pmu}/type") as f:
        ptype = int(f.read())
    # struct perf_event_attr, PERF_ATTR_SIZE_VER5 (112 bytes): type, size,
    # config, sample_period, sample_type, read_format, flags, ...
    attr = bytearray(112)
    struct.pack_into("IIQQQQQ", attr, 0, ptype, 112, config,
                     1000 if sample else 0, 0, 0, 0)
    buf = ctypes.create_string_buffer(bytes(attr), len(attr))
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.syscall(NR_PERF_EVENT_OPEN, buf, -1, cpu, -1, 0)
    if fd < 0:
        e = ctypes.get_errno()
        print(errno.errorcode.get(e, str(e)))
        return 1
    os.close(fd)
    print("ok")
    return 0


sys.exit(main())
