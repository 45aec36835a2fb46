# SPDX-License-Identifier: GPL-2.0
"""What the Python guest tests share: TAP lines, commands, the modules'
debugfs files, loading tdsim with topdown on it, and the numbers a tdsim
profile should give back.  A test imports it with
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
"""
import json
import os
import subprocess
import sys
import time

# The tests name files from the top of the tree (build/, selftests/); the
# kernel's kselftest runner starts each in its collection's directory.
os.chdir(os.path.dirname(os.path.abspath(__file__)) + "/..")

KO = os.environ.get("TD_KO_DIR", "")	# set by selftests/vm/run in the guest
SIM = "/sys/kernel/debug/tdsim"
TD = "/sys/kernel/debug/topdown"
# the nodes topdown and tdnl print, by level, as in tdnl's JSON
L1 = ["retiring", "bad_speculation", "frontend_bound", "backend_bound"]
L2 = ["light_operations", "heavy_operations", "branch_mispredicts",
      "machine_clears", "fetch_latency", "fetch_bandwidth", "memory_bound",
      "core_bound"]
# the Level 2 nodes of the models that split differently (struct td_pair)
L2_ATOM = ["branch_mispredicts", "machine_clears", "fetch_latency",
           "fetch_bandwidth", "core_bound", "resource_bound"]
L2_AMPERE = ["branch_mispredicts", "other_mispredicts", "fetch_latency",
             "fetch_bandwidth", "memory_bound", "core_bound"]
# each Level 2 node's Level 1 parent
L2_PARENT = {"light_operations": "retiring", "heavy_operations": "retiring",
             "branch_mispredicts": "bad_speculation", "machine_clears": "bad_speculation",
             "other_mispredicts": "bad_speculation", "fetch_latency": "frontend_bound",
             "fetch_bandwidth": "frontend_bound", "memory_bound": "backend_bound",
             "core_bound": "backend_bound", "resource_bound": "backend_bound"}


def l2_nodes(model):
    """the Level 2 nodes a model publishes ([] for none)"""
    if model in ("gracemont", "crestmont", "skymont"):
        return L2_ATOM
    if model.startswith("ampereone"):
        return L2_AMPERE
    if model.startswith("neoverse"):
        return []
    return L2

L3 = ["l1_bound", "l2_bound", "l3_bound", "dram_bound", "store_bound"]
L4 = ["mem_bandwidth", "mem_latency"]


class Tap:
    """prints "ok N - <prefix>: name" / "not ok ..." and the summary line;
    the test's exit status is kselftest's: 1 after a failure, 4 when it
    skipped everything, else 0"""

    def __init__(self, prefix):
        self.prefix = prefix
        self.n = 0
        self.failed = 0
        self.skipped = 0

    def __call__(self, ok, name):
        self.n += 1
        self.failed += not ok
        print(f"{'ok' if ok else 'not ok'} {self.n} - {self.prefix}: {name}", flush=True)
        return ok

    def skip(self, name, reason):
        """a test not run here: kselftest's "ok N ... # SKIP", not a pass"""
        self.n += 1
        self.skipped += 1
        print(f"ok {self.n} - {self.prefix}: {name} # SKIP {reason}", flush=True)

    def summary(self):
        """the summary line, then exit: 1 after a failure, 4 when nothing ran"""
        skipped = self.skipped
        print(f"# {self.prefix}: {self.n - self.failed - skipped} passed, "
              f"{self.failed} failed" + (f", {skipped} skipped" if skipped else ""),
              flush=True)
        sys.exit(1 if self.failed else 0 if self.n > skipped else 4)

    def skip_all(self, reason):
        """nothing to test here: kselftest's skip, exit status 4"""
        print(f"1..0 # SKIP {reason}", flush=True)
        sys.exit(4)


def sh(*cmd, timeout=60):
    """run cmd, capture its output; a hung command comes back as status 124"""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(cmd, 124, e.stdout or "", e.stderr or "")


def dmesg_mark():
    """where the kernel log ends now, for dmesg_since()"""
    return len(sh("dmesg").stdout.splitlines())


def dmesg_since(mark):
    """the kernel log's lines after dmesg_mark()'s mark"""
    return sh("dmesg").stdout.splitlines()[mark:]


def all_cpus():
    """every CPU the guest has a sysfs directory for"""
    return sorted(int(d[3:]) for d in os.listdir("/sys/devices/system/cpu")
                  if d.startswith("cpu") and d[3:].isdigit())


def qmp(execute, timeout=60, **arguments):
    """a command to QEMU's monitor, through selftests/vm/qmp-relay (a guest
    booted by selftests/vm/run --hotplug): its answer, {"return": ...} or
    {"error": ...}"""
    box = os.environ["TD_VM_QMP"]
    n = 1 + sum(1 for f in os.listdir(box) if f.endswith(".req"))
    cmd = {"execute": execute}
    if arguments:
        cmd["arguments"] = arguments
    with open(f"{box}/{n}.tmp", "w") as f:
        json.dump(cmd, f)
    os.rename(f"{box}/{n}.tmp", f"{box}/{n}.req")
    for _ in range(timeout * 10):
        if os.path.exists(f"{box}/{n}.rep"):
            return json.load(open(f"{box}/{n}.rep"))
        time.sleep(0.1)
    return {"error": {"class": "timeout", "desc": f"no answer in {timeout} s"}}


def read_kv(path):
    """a debugfs file of "key value" lines"""
    out = {}
    for line in open(path):
        k, _, v = line.strip().partition(" ")
        out[k] = v
    return out


def zen_text(text):
    """on Zen, 5 points of backend_bound are smt_contention"""
    kv = dict(x.split("=") for x in text.split())
    kv["backend_bound"] = str(float(kv["backend_bound"]) - 5)
    kv["memory_bound"] = str(min(float(kv["memory_bound"]), float(kv["backend_bound"])))
    kv["smt_contention"] = "5"
    return " ".join(f"{k}={v}" for k, v in kv.items())


def write_profile(cpu, text):
    with open(f"{SIM}/cpu{cpu}/profile", "w") as f:
        f.write(text)


def seq(cpu):
    return int(read_kv(f"{TD}/cpu{cpu}/info")["seq"])


def why(cpu):
    """a CPU's level2 and the info fields that say how its last interval
    was counted, for the message of a failed check"""
    l2 = read_kv(f"{TD}/cpu{cpu}/level2")
    info = read_kv(f"{TD}/cpu{cpu}/info")
    keys = ("seq", "sets", "regressed", "scaled_alone", "running_ratio",
            "counted_level2", "restarts", "snapshot_retries", "snapshot_rereads", "snapshot_slow",
            "snapshot_slow_max_ns", "snapshot_waits", "snapshot_turn_waits", "skewed",
            "start_ns", "end_ns")
    return "; " + " ".join(f"{k}={v}" for k, v in l2.items()) + "; " + \
        " ".join(f"{k}={info.get(k)}" for k in keys)


def settle(cpus, n):
    """wait until every CPU has completed n more intervals (the interval
    running at a profile write may have read some counters before it and
    some after, so n >= 2 after a write)"""
    start = {c: seq(c) for c in cpus}
    for _ in range(400):
        time.sleep(0.05)
        if all(seq(c) >= start[c] + n for c in cpus):
            return True
    return False


def fully_regressed(info):
    """whether a CPU's info says its latest interval had every event that
    took turns estimated by regression ("regressed N of N", N > 0)"""
    got, _, of = info.get("regressed", "").partition(" of ")
    return got == of and of.isdigit() and int(of) > 0


def learned(cpus, timeout=10):
    """wait until the latest interval of every CPU had each event that took
    turns estimated by regression ("regressed N of N", N > 0): after a load
    or a profile write the regression learns from several windows of each
    set first (about 8 intervals on a calm CPU, each set one window an
    interval), and those intervals are scaled alone.  Returns {cpu: info}
    at that moment, or None if some CPU was not there in timeout s"""
    end = time.monotonic() + timeout
    while True:
        infos = {c: read_kv(f"{TD}/cpu{c}/info") for c in cpus}
        if all(fully_regressed(i) for i in infos.values()):
            return infos
        if time.monotonic() > end:
            return None
        time.sleep(0.02)


def unload():
    sh("rmmod", "topdown")
    sh("rmmod", "tdsim")


def load_topdown(model, *td_args, pmu=True, timeout=60):
    """(re)load topdown as model= with td_args, on the loaded tdsim
    (pmu_type=) or, pmu=False, on no PMU.  Returns "" when it loaded, else
    what insmod said.  timeout: for each of rmmod and insmod, s"""
    sh("rmmod", "topdown", timeout=timeout)
    args = ["start=1", f"model={model}", *td_args]
    if pmu:
        typ = open("/sys/bus/event_source/devices/tdsim/type").read().strip()
        args.append(f"pmu_type={typ}")
    r = sh("insmod", f"{KO}/topdown.ko", *args, timeout=timeout)
    if r.returncode == 124:
        return f"insmod topdown: not done in {timeout} s"
    return f"insmod topdown: {r.stderr.strip()}" if r.returncode else ""


def load(model, *td_args, sim_args=(), pmu=True):
    """tdsim as model (with sim_args), then topdown on it; pmu=False loads
    topdown alone.  Returns "" when everything loaded, else which insmod
    failed and why."""
    unload()
    if pmu:
        r = sh("insmod", f"{KO}/tdsim.ko", f"model={model}", *sim_args)
        if r.returncode:
            return f"insmod tdsim: {r.stderr.strip()}"
    return load_topdown(model, *td_args, pmu=pmu)


# tdsim's counters run on while perf holds the PMU disabled, where a
# hardware PMU's stand still.  For the tests of counts against the truth's
# wall-clock time: under TCG perf's disabled sections take 1.4-3.5 % of
# the time (the emulation's cost), which frozen counters miss.
IDEAL_PMU = "freeze=0"


# the nodes tdsim's truth file counts directly
TRUTH_NODES = ["retiring", "bad_speculation", "frontend_bound", "backend_bound",
               "smt_contention", "heavy_operations", "branch_mispredicts",
               "fetch_latency", "memory_bound"]


def truth_at(cpu, t):
    """tdsim's cumulative truth on cpu at CLOCK_MONOTONIC ns t"""
    path = f"{SIM}/cpu{cpu}/truth"
    with open(path, "w") as f:
        f.write(str(t))
    out = {}
    for line in open(path):
        k, v = line.split()
        out[k] = int(v)
    return out


def truth_pct(d):
    """each node in percent from deltas of tdsim's truth (slots and cycles
    among them), as tdnl names them (Levels 3/4 of clock ticks)"""
    slots, cyc = d["slots"], d["cycles"]
    w = {k: 100 * d[k] / slots for k in TRUTH_NODES if k in d}
    w["light_operations"] = w["retiring"] - w["heavy_operations"]
    w["machine_clears"] = w["bad_speculation"] - w["branch_mispredicts"]
    w["fetch_bandwidth"] = w["frontend_bound"] - w["fetch_latency"]
    w["core_bound"] = w["backend_bound"] - w["memory_bound"]
    for k in L3 + L4:
        if k in d:
            w[k] = 100 * d[k] / cyc
    return w


# The state flags a sample still has its fractions with: the module says
# how they were counted (event sets took turns) or that they may be off
# (skewed: a snapshot's reads spread); any other flag withholds them.
ADVISORY = {"multiplexed", "skewed"}


def fractions_given(state):
    """whether a sample with @state (tdnl's JSON list of flags, or its text
    and CSV form, "ok" or flags joined by commas) has its fractions"""
    flags = set(state.split(",")) - {"ok"} if isinstance(state, str) else set(state or [])
    return flags <= ADVISORY


def window_truth(cpu, t0, t1, more=()):
    """each node over the window [t0, t1] of cpu in percent (truth_pct());
    more: further (cpu, t0, t1) windows added in, as one sum of slots and
    of clock ticks"""
    d = {}
    for c, a, b in [(cpu, t0, t1), *more]:
        x, y = truth_at(c, a), truth_at(c, b)
        for k in y:
            if k in x and k != "at_ns":
                d[k] = d.get(k, 0) + y[k] - x[k]
    return truth_pct(d)


def want_of(text):
    """a tdsim profile as the Level 1/2 nodes (and memory nodes, freq_mhz)
    it should give back, in percent"""
    kv = {k: float(v) for k, v in (x.split("=") for x in text.split())}
    kv["light_operations"] = kv["retiring"] - kv["heavy_operations"]
    kv["machine_clears"] = kv["bad_speculation"] - kv["branch_mispredicts"]
    kv["fetch_bandwidth"] = kv["frontend_bound"] - kv["fetch_latency"]
    kv["core_bound"] = kv["backend_bound"] - kv["memory_bound"]
    # an Atom core's tdsim: the profile's memory_bound is its resource bound
    # (what ALLOC_RESTRICTIONS, its core bound, leaves); AmpereOne's other
    # mispredictions are what branch mispredicts leave
    kv["resource_bound"] = kv["memory_bound"]
    kv["other_mispredicts"] = kv["machine_clears"]
    # a cycle-based model (Neoverse N1): cycles not stalled at either end
    kv["not_stalled"] = kv["retiring"] + kv["bad_speculation"]
    return kv
