# SPDX-License-Identifier: GPL-2.0
"""What tdnl's guest tests (e2e.py, lost.py) share: TAP lines, commands,
the module's debugfs, and the profile a test expects back."""
import os
import subprocess
import time

KO = os.environ["TD_KO_DIR"]
SIM = "/sys/kernel/debug/tdsim"
TD = "/sys/kernel/debug/topdown"
# the nodes tdnl prints, by level, as in its JSON
L1 = ["retiring", "bad_speculation", "frontend_bound", "backend_bound"]
L2 = ["light_operations", "heavy_operations", "branch_mispredicts",
      "machine_clears", "fetch_latency", "fetch_bandwidth", "memory_bound",
      "core_bound"]
L3 = ["l1_bound", "l2_bound", "l3_bound", "dram_bound", "store_bound"]
L4 = ["mem_bandwidth", "mem_latency"]


class Tap:
    """prints "ok N - <prefix>: name" / "not ok ..." and the summary line"""

    def __init__(self, prefix):
        self.prefix = prefix
        self.n = 0
        self.failed = 0

    def __call__(self, ok, name):
        self.n += 1
        self.failed += not ok
        print(f"{'ok' if ok else 'not ok'} {self.n} - {self.prefix}: {name}", flush=True)

    def summary(self):
        print(f"# {self.prefix}: {self.n - self.failed} passed, {self.failed} failed")


def sh(*cmd, timeout=60):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(cmd, 124, e.stdout or "", e.stderr or "")


def read_kv(path):
    out = {}
    for line in open(path):
        k, _, v = line.strip().partition(" ")
        out[k] = v
    return out


def seq(cpu):
    return int(read_kv(f"{TD}/cpu{cpu}/info")["seq"])


def settle(cpus, n):
    """wait until every CPU has completed n more intervals"""
    start = {c: seq(c) for c in cpus}
    for _ in range(400):
        time.sleep(0.05)
        if all(seq(c) >= start[c] + n for c in cpus):
            return True
    return False


def want_of(text):
    """a tdsim profile as the Level 1/2 (and memory nodes) it should give"""
    kv = {k: float(v) for k, v in (x.split("=") for x in text.split())}
    kv["light_operations"] = kv["retiring"] - kv["heavy_operations"]
    kv["machine_clears"] = kv["bad_speculation"] - kv["branch_mispredicts"]
    kv["fetch_bandwidth"] = kv["frontend_bound"] - kv["fetch_latency"]
    kv["core_bound"] = kv["backend_bound"] - kv["memory_bound"]
    return kv
