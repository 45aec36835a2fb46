# SPDX-License-Identifier: GPL-2.0
"""perf's Top-Down formulas in Python, for tests and benchmarks that read
counts with perf (or from topdown's raw file) and need the nodes the way
perf computes them.

Level 1/2: Intel TMA's general-purpose-counter forms, as kmod/td_intel.c
and kmod/td_amd.c compute them and perf's JSON defines them
(tools/perf/pmu-events/arch/x86/{sapphirerapids,icelake,skylake}/*-metrics.json,
amdzen4/pipeline.json; 7.3's graniterapids and lunarlake for gnr, lioncove).  Where perf's JSON uses the PERF_METRICS
pseudo-events (topdown-retiring / (topdown-fe-bound + ... ) on spr and
icl), the fraction is the general-purpose event over TOPDOWN.SLOTS, as in
td_intel.c.  Skylake with SMT off (CORE_CLKS = CPU_CLK_UNHALTED.THREAD).
Level 3/4: memory_nodes(), perf's clock-tick memory formulas (7.3's for
gnr and lioncove: graniterapids, lunarlake/arrowlake cpu_core).

A formula reads counts through a function v(name) -> count; nodes come
back in percent.  needed_events() gives the event names a model's levels
read, in the order the formulas first read them.
"""

MEMORY_NODES = ["l1_bound", "l2_bound", "l3_bound", "dram_bound", "store_bound",
                "mem_bandwidth", "mem_latency"]


def memory_nodes(model, r):
    """perf's formulas, on rates per ns (each count has its own window)"""
    def v(name):
        d, _, en, _ = r[name]
        return d / en

    clks = v("CPU_CLK_UNHALTED.THREAD")
    out = {}
    oro = "OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4"
    if model == "lioncove":
        hit, uc = v("MEM_LOAD_RETIRED.L2_HIT"), v("MEM_LOAD_MISC_RETIRED.UC")
        out["l1_bound"] = v("MEMORY_STALLS.L1") / clks
        out["l2_bound"] = hit / (hit + uc) * v("MEMORY_STALLS.L2") / clks
        out["l3_bound"] = v("MEMORY_STALLS.L3") / clks
        out["dram_bound"] = v("MEMORY_STALLS.MEM") / clks	# tma_l3_miss_bound
        oro = "OFFCORE_REQUESTS_OUTSTANDING.DATA_RD:c4"
    elif model in ("spr", "gnr"):
        out["l1_bound"] = max((v("EXE_ACTIVITY.BOUND_ON_LOADS") -
                               v("MEMORY_ACTIVITY.STALLS_L1D_MISS")) / clks, 0)
        out["l2_bound"] = (v("MEMORY_ACTIVITY.STALLS_L1D_MISS") -
                           v("MEMORY_ACTIVITY.STALLS_L2_MISS")) / clks
        out["l3_bound"] = (v("MEMORY_ACTIVITY.STALLS_L2_MISS") -
                           v("MEMORY_ACTIVITY.STALLS_L3_MISS")) / clks
        out["dram_bound"] = v("MEMORY_ACTIVITY.STALLS_L3_MISS") / clks
    else:
        fb_full = v("L1D_PEND_MISS.FB_FULL:c1" if model == "skl"
                    else "L1D_PEND_MISS.FB_FULL_PERIODS")
        l1d, l2m = v("CYCLE_ACTIVITY.STALLS_L1D_MISS"), v("CYCLE_ACTIVITY.STALLS_L2_MISS")
        l3m = v("CYCLE_ACTIVITY.STALLS_L3_MISS")
        hit = v("MEM_LOAD_RETIRED.L2_HIT") * (1 + v("MEM_LOAD_RETIRED.FB_HIT") /
                                              v("MEM_LOAD_RETIRED.L1_MISS"))
        out["l1_bound"] = max((v("CYCLE_ACTIVITY.STALLS_MEM_ANY") - l1d) / clks, 0)
        out["l2_bound"] = hit / (hit + fb_full) * ((l1d - l2m) / clks)
        out["l3_bound"] = (l2m - l3m) / clks
        out["dram_bound"] = l3m / clks + (l1d - l2m) / clks - out["l2_bound"]
    out["store_bound"] = v("EXE_ACTIVITY.BOUND_ON_STORES") / clks
    if model == "gnr":
        oro = "OFFCORE_REQUESTS_OUTSTANDING.DATA_RD:c12"
    c4 = v(oro)
    cyc = v("OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD")
    out["mem_bandwidth"] = min(clks, c4) / clks
    out["mem_latency"] = min(clks, cyc) / clks - out["mem_bandwidth"]
    return {k: 100 * x for k, x in out.items()}


def _children(l1, heavy, misp, fetch_lat, mem, clamp):
    """Level 2 from each pair's measured child; spr and icl clamp the other
    child at 0 (max(0, ...)), skl does not"""
    def rest(a, b):
        return max(0, a - b) if clamp else a - b
    return {"light_operations": rest(l1["retiring"], heavy),
            "heavy_operations": heavy,
            "branch_mispredicts": misp,
            "machine_clears": rest(l1["bad_speculation"], misp),
            "fetch_latency": fetch_lat,
            "fetch_bandwidth": rest(l1["frontend_bound"], fetch_lat),
            "memory_bound": mem,
            "core_bound": rest(l1["backend_bound"], mem)}


def _spr(v, level):
    slots = v("TOPDOWN.SLOTS")
    drop = v("INT_MISC.UOP_DROPPING")
    ret = v("UOPS_RETIRED.SLOTS") / slots
    fe = v("IDQ_BUBBLES.CORE") / slots - drop / slots
    be = v("TOPDOWN.BACKEND_BOUND_SLOTS") / slots
    l1 = {"retiring": ret, "bad_speculation": max(1 - (fe + be + ret), 0),
          "frontend_bound": fe, "backend_bound": be}
    if level < 2:
        return l1, None
    # topdown-fetch-lat = 6 * IDQ_BUBBLES.CYCLES_0_UOPS_DELIV.CORE
    return l1, _children(
        l1, v("UOPS_RETIRED.HEAVY") / slots,
        v("TOPDOWN.BR_MISPREDICT_SLOTS") / slots,
        6 * v("IDQ_BUBBLES.CYCLES_0_UOPS_DELIV.CORE") / slots - drop / slots,
        v("TOPDOWN.MEMORY_BOUND_SLOTS") / slots, clamp=True)


def _lnc(v, level):
    """lnl/arl-metrics.json cpu_core (7.3): every node its own event"""
    slots = v("TOPDOWN.SLOTS")
    l1 = {"retiring": v("UOPS_RETIRED.SLOTS") / slots,
          "bad_speculation": v("TOPDOWN.BAD_SPEC_SLOTS") / slots,
          "frontend_bound": v("IDQ_BUBBLES.CORE") / slots,
          "backend_bound": v("TOPDOWN.BACKEND_BOUND_SLOTS") / slots}
    if level < 2:
        return l1, None
    # topdown-fetch-lat = 8 * IDQ_BUBBLES.CYCLES_0_UOPS_DELIV.CORE (cmask 8)
    return l1, _children(
        l1, v("UOPS_RETIRED.HEAVY") / slots, v("TOPDOWN.BR_MISPREDICT_SLOTS") / slots,
        8 * v("IDQ_BUBBLES.CYCLES_0_UOPS_DELIV.CORE") / slots,
        v("TOPDOWN.MEMORY_BOUND_SLOTS") / slots, clamp=True)


def _memory_bound(v, ret, be):
    """skl/icl tma_memory_bound"""
    stores = v("EXE_ACTIVITY.BOUND_ON_STORES")
    return ((v("CYCLE_ACTIVITY.STALLS_MEM_ANY") + stores) /
            (v("CYCLE_ACTIVITY.STALLS_TOTAL") +
             (v("EXE_ACTIVITY.1_PORTS_UTIL") + ret * v("EXE_ACTIVITY.2_PORTS_UTIL")) +
             stores) * be)


def _mispredicts(v, bs):
    """skl/icl tma_branch_mispredicts"""
    misp = v("BR_MISP_RETIRED.ALL_BRANCHES")
    return misp / (misp + v("MACHINE_CLEARS.COUNT")) * bs


def _icl(v, level):
    slots = v("TOPDOWN.SLOTS")
    drop = v("INT_MISC.UOP_DROPPING")
    retire_slots = v("UOPS_RETIRED.SLOTS")
    ret = retire_slots / slots
    fe = v("IDQ_UOPS_NOT_DELIVERED.CORE") / slots - drop / slots
    be = v("TOPDOWN.BACKEND_BOUND_SLOTS") / slots + 5 * v("INT_MISC.CLEARS_COUNT") / slots
    l1 = {"retiring": ret, "bad_speculation": max(1 - (fe + be + ret), 0),
          "frontend_bound": fe, "backend_bound": be}
    if level < 2:
        return l1, None
    ms = retire_slots / v("UOPS_ISSUED.ANY") * v("IDQ.MS_UOPS") / slots
    heavy = ms + ret * (v("UOPS_DECODED.DEC0") - v("UOPS_DECODED.DEC0:c1")) / v("IDQ.MITE_UOPS")
    return l1, _children(
        l1, heavy, _mispredicts(v, l1["bad_speculation"]),
        (5 * v("IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE") - drop) / slots,
        _memory_bound(v, ret, be), clamp=True)


def _skl(v, level):
    slots = 4 * v("CPU_CLK_UNHALTED.THREAD")	# SMT off: CORE_CLKS = THREAD
    retire_slots = v("UOPS_RETIRED.RETIRE_SLOTS")
    issued = v("UOPS_ISSUED.ANY")
    rec = v("INT_MISC.RECOVERY_CYCLES")
    fe = v("IDQ_UOPS_NOT_DELIVERED.CORE") / slots
    ret = retire_slots / slots
    l1 = {"retiring": ret, "bad_speculation": (issued - retire_slots + 4 * rec) / slots,
          "frontend_bound": fe, "backend_bound": 1 - fe - (issued + 4 * rec) / slots}
    if level < 2:
        return l1, None
    heavy = (retire_slots + v("UOPS_RETIRED.MACRO_FUSED") - v("INST_RETIRED.ANY")) / slots
    return l1, _children(
        l1, heavy, _mispredicts(v, l1["bad_speculation"]),
        4 * v("IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE") / slots,
        _memory_bound(v, ret, l1["backend_bound"]), clamp=False)


def _zen4(v, level):
    def d_ratio(a, b):
        return a / b if b else 0

    slots = 6 * v("ls_not_halted_cyc")
    fe_slots = v("de_no_dispatch_per_slot.no_ops_from_frontend")
    ret_ops = v("ex_ret_ops")
    l1 = {"retiring": d_ratio(ret_ops, slots),
          "bad_speculation": d_ratio(v("de_src_op_disp.all") - ret_ops, slots),
          "frontend_bound": d_ratio(fe_slots, slots),
          "backend_bound": d_ratio(v("de_no_dispatch_per_slot.backend_stalls"), slots),
          "smt_contention": d_ratio(v("de_no_dispatch_per_slot.smt_contention"), slots)}
    if level < 2:
        return l1, None
    lat = 6 * v("de_no_dispatch_per_slot.no_ops_from_frontend:c6")
    misp, resync = v("ex_ret_brn_misp"), v("resyncs_or_nc_redirects")
    mem = d_ratio(v("ex_no_retire.load_not_complete"), v("ex_no_retire.not_complete"))
    ucode = d_ratio(v("ex_ret_ucode_ops"), ret_ops)
    bs, be, ret = l1["bad_speculation"], l1["backend_bound"], l1["retiring"]
    return l1, {"light_operations": ret * (1 - ucode),
                "heavy_operations": ret * ucode,
                "branch_mispredicts": d_ratio(bs * misp, misp + resync),
                "machine_clears": d_ratio(bs * resync, misp + resync),
                "fetch_latency": d_ratio(lat, slots),
                "fetch_bandwidth": d_ratio(fe_slots - lat, slots),
                "memory_bound": be * mem,
                "core_bound": be * (1 - mem)}


LEVEL12 = {"spr": _spr, "icl": _icl, "skl": _skl, "zen4": _zen4, "gnr": _spr,
           "lioncove": _lnc}
# models with perf's clock-tick Level 3/4 memory nodes
HAS_L34 = ("spr", "icl", "skl", "gnr", "lioncove")


def levels(model, v, level):
    """perf's nodes of model down to level (1..3; 3 includes Level 4) from
    counts v(name), in percent: {"level1": {...}, ...}.  A level whose
    formula divides by zero or reads a missing count (v raises KeyError) is
    None."""
    def pct(fn):
        try:
            return {k: 100 * x for k, x in fn().items()}
        except (KeyError, ZeroDivisionError):
            return None
    out = {"level1": pct(lambda: LEVEL12[model](v, 1)[0])}
    if level >= 2:
        out["level2"] = pct(lambda: LEVEL12[model](v, 2)[1])
    if level >= 3 and model in HAS_L34:
        try:
            mem = memory_nodes(model, _Counts(v))
        except (KeyError, ZeroDivisionError):
            mem = None
        out["level3"] = mem and {k: mem[k] for k in MEMORY_NODES[:5]}
        out["level4"] = mem and {k: mem[k] for k in MEMORY_NODES[5:]}
    return out


class _Counts(dict):
    """memory_nodes() reads (delta, total, enabled, running); here each
    count is its own rate"""

    def __init__(self, v):
        super().__init__()
        self.v = v

    def __missing__(self, name):
        return (self.v(name), 0, 1, 1)


def needed_events(model, level):
    """{level: [event names]}: the events each level's formulas read that no
    shallower level reads, in the order they are first read"""
    seen, out = [], {}

    def rec(name):
        if name not in seen:
            seen.append(name)
        return 1.0
    for lvl in range(1, level + 1):
        before = len(seen)
        if lvl <= 2:
            LEVEL12[model](rec, lvl)
        elif model in HAS_L34:
            memory_nodes(model, _Counts(rec))
        out[lvl] = seen[before:]
    return out
