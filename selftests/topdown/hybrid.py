#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""topdown.ko on a hybrid part (tdsim raw=1 atom_cpus=: tdsim is
PERF_TYPE_RAW's PMU, as cpu_core is, and the last CPU belongs to a second
PMU, tdsim_atom, as an E-core's is cpu_atom).  tdsim's PMUs each
refuse the other's CPUs with ENOENT (perf_event_open from userspace); each
PMU's cpumask names its own CPUs.  topdown, given only model= and
atom_model= (no pmu_type=), finds the E-core's PMU itself (its PERF_TYPE_HARDWARE cycles
reach it) and counts each CPU with its own model: info says which PMU and
model, dmesg says so once, Level 1 of each kind is within 0.5 pp of its
profile (Level 2 too), for Gracemont and Crestmont E-cores beside spr
P-cores and Skymont beside Lion Cove (Lunar Lake, Arrow Lake).  Without atom_model= the E-core is counted
with the P-core's events on its own PMU, which has none of them: an error
naming the event, not numbers.  The E-core offline and online keeps its
model.  tdnl shows both models.  A pmu_type= that refuses the E-core is
not second-guessed: no-pmu there.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import (TD, Tap, all_cpus, dmesg_mark, dmesg_since, l2_nodes,  # noqa: E402
                    read_kv, settle, sh, unload, want_of, write_profile)

tap = Tap("topdown_hybrid")
P_PROFILE = ("retiring=35 bad_speculation=10 frontend_bound=20 backend_bound=35 "
             "heavy_operations=6 branch_mispredicts=7 fetch_latency=12 memory_bound=22")
E_PROFILE = ("retiring=25 bad_speculation=15 frontend_bound=40 backend_bound=20 "
             "heavy_operations=5 branch_mispredicts=5 fetch_latency=20 memory_bound=10")
DEV = "/sys/bus/event_source/devices"


def load(atom_model, *td_args, sim_args=(), raw=True, p_model="spr"):
    """tdsim with the last CPU an E-core, then topdown with td_args.
    raw: tdsim is PERF_TYPE_RAW's PMU, as cpu_core is on a hybrid part,
    and topdown has no pmu_type=; else pmu_type= is tdsim's."""
    unload()
    ko = os.environ["TD_KO_DIR"]
    ecpu = all_cpus()[-1]
    r = sh("insmod", f"{ko}/tdsim.ko", f"model={p_model}", f"atom_cpus={ecpu}",
           f"atom_model={atom_model}", f"raw={int(raw)}", *sim_args)
    if r.returncode:
        return f"insmod tdsim: {r.stderr.strip()}"
    typ = open(f"{DEV}/tdsim/type").read().strip()
    if raw and typ != "4":
        return f"tdsim raw=1 has type {typ}, not PERF_TYPE_RAW (4)"
    pmu = [] if raw else [f"pmu_type={typ}"]
    r = sh("insmod", f"{ko}/topdown.ko", "start=1", f"model={p_model}", *pmu, *td_args)
    return f"insmod topdown: {r.stderr.strip()}" if r.returncode else ""


def within(cpu, want, level2):
    """max error of level1 (and level2) against the profile, level1's sum
    in hundredths, how many Level 1 nodes, the Level 2 nodes printed"""
    l1 = read_kv(f"{TD}/cpu{cpu}/level1")
    l1 = {k: v for k, v in l1.items() if v != "n/a"}
    cent = sum(round(float(v) * 100) for v in l1.values())
    e = max(abs(float(v) - want[k]) for k, v in l1.items())
    l2 = read_kv(f"{TD}/cpu{cpu}/level2")
    if level2:
        e = max([e] + [abs(float(v) - want[k]) if v != "n/a" else 100
                       for k, v in l2.items()])
    return e, cent, len(l1), sorted(l2)


def main():
    if not os.environ.get("TD_KO_DIR"):
        tap.skip_all("not in the VM")
    cpus = all_cpus()
    if len(cpus) < 2:
        tap.skip_all("one CPU")
    pcpus, ecpu = cpus[:-1], cpus[-1]

    # tdsim's two PMUs, as x86 hybrid's cpu_core and cpu_atom
    err = load("gracemont", "interval_ms=100")
    if tap(not err, f"hybrid tdsim (cpu{ecpu} gracemont) and topdown load {err}"):
        mask = open(f"{DEV}/tdsim/cpumask").read().strip()
        amask = open(f"{DEV}/tdsim_atom/cpumask").read().strip()
        tap(amask == str(ecpu) and str(ecpu) not in mask.split(","),
            f"cpumask: tdsim {mask}, tdsim_atom {amask}")
        r = sh("selftests/perf_open.py", "tdsim", "0x003c", str(ecpu))
        tap(r.stdout.strip() == "ENOENT",
            f"tdsim refuses cpu{ecpu} with ENOENT ({r.stdout.strip()})")
        r = sh("selftests/perf_open.py", "tdsim_atom", "0x003c", str(pcpus[0]))
        tap(r.stdout.strip() == "ENOENT",
            f"tdsim_atom refuses cpu{pcpus[0]} with ENOENT ({r.stdout.strip()})")
        unload()

    for pm, atom, level in (("spr", "gracemont", 2), ("spr", "crestmont", 2),
                            ("spr", "crestmont", 1), ("lioncove", "skymont", 2),
                            ("lioncove", "skymont", 1)):
        tag = f"{pm} + {atom} level={level}"
        mark = dmesg_mark()
        err = load(atom, f"atom_model={atom}", f"level={level}", "interval_ms=100",
                   p_model=pm)
        if not tap(not err, f"{tag}: loads {err}"):
            continue
        for c in pcpus:
            write_profile(c, P_PROFILE)
        write_profile(ecpu, E_PROFILE)
        settle(cpus, 3)
        for c in cpus:
            info = read_kv(f"{TD}/cpu{c}/info")
            e_core = c == ecpu
            want_pmu, want_model = ("tdsim_atom", atom) if e_core else ("tdsim", pm)
            tap(info["state"] == "ok" and info.get("pmu") == want_pmu and
                info["model"] == want_model,
                f"{tag} cpu{c}: state {info['state']}, pmu {info.get('pmu')}, "
                f"model {info['model']} (want {want_pmu}, {want_model})")
            e, cent, n, l2 = within(c, want_of(E_PROFILE if e_core else P_PROFILE),
                                    level == 2)
            tap(e <= 0.5 and cent == 10000 and n == 4,
                f"{tag} cpu{c}: level{'1' if level == 1 else '1/2'} within "
                f"0.5 pp of its profile (max error {e:.3f}), adds to {cent / 100}")
            want_l2 = sorted(l2_nodes(want_model))
            tap(l2 == want_l2, f"{tag} cpu{c}: level2 has {want_model}'s nodes "
                f"({' '.join(l2)})")
        said = [x for x in dmesg_since(mark)
                if f"cpu{ecpu}: its events are tdsim_atom's" in x and atom in x]
        tap(len(said) == 1, f"{tag}: dmesg says cpu{ecpu} moved to tdsim_atom "
            f"({len(said)} lines)")
        out = sh("tdnl", "show").stdout
        tap(any(line.split()[:2] == [f"cpu{ecpu}", atom] for line in out.splitlines()) and
            any(line.split()[:2] == [f"cpu{pcpus[0]}", pm] for line in out.splitlines()),
            f"{tag}: tdnl shows cpu{pcpus[0]} {pm} and cpu{ecpu} {atom}")
        if atom == "gracemont":
            online = f"/sys/devices/system/cpu/cpu{ecpu}/online"
            with open(online, "w") as f:
                f.write("0")
            with open(online, "w") as f:
                f.write("1")
            write_profile(ecpu, E_PROFILE)
            settle(cpus, 3)
            info = read_kv(f"{TD}/cpu{ecpu}/info")
            e, cent, _, _ = within(ecpu, want_of(E_PROFILE), False)
            tap(info["state"] == "ok" and info["model"] == atom and
                info.get("pmu") == "tdsim_atom" and e <= 0.5,
                f"{tag} cpu{ecpu} offline and online: {info['state']}, {info['model']} on "
                f"{info.get('pmu')}, level1 max error {e:.3f}")

    # the E-core with the P-core's events: its PMU has none of them
    err = load("gracemont", "interval_ms=100")
    if tap(not err, f"spr + gracemont without atom_model=: loads {err}"):
        settle(pcpus, 2)
        st = read_kv(f"{TD}/cpu{ecpu}/info")["state"]
        tap(st.startswith("error -22 "), f"cpu{ecpu} without atom_model=: state '{st}' "
            "(EINVAL, naming the event)")
        tap(read_kv(f"{TD}/cpu{ecpu}/level1")["retiring"] == "n/a",
            f"cpu{ecpu} without atom_model=: level1 n/a")

    # pmu_type= that refuses the E-core is not second-guessed: no PMU there
    err = load("gracemont", "atom_model=gracemont", "interval_ms=100", raw=False)
    if tap(not err, f"spr + gracemont, pmu_type= tdsim's: loads {err}"):
        settle(pcpus, 2)
        st = [read_kv(f"{TD}/cpu{c}/info")["state"] for c in (pcpus[0], ecpu)]
        tap(st == ["ok", "no-pmu"], f"pmu_type= tdsim's: cpu{pcpus[0]} {st[0]}, "
            f"cpu{ecpu} {st[1]} (want ok, no-pmu)")

    # the NMI watchdog's counter on the E-core's PMU: fixed counter 1 there,
    # so the cycles take a general-purpose counter: Level 1 still fits the
    # 6, Level 2's 7 events take turns
    for level, mux in ((1, "no"), (2, "yes")):
        err = load("gracemont", "atom_model=gracemont", f"level={level}",
                   "interval_ms=100", sim_args=["watchdog=1"])
        if not tap(not err, f"spr + gracemont watchdog=1 level={level}: loads {err}"):
            continue
        write_profile(ecpu, E_PROFILE)
        settle(cpus, 3)
        info = read_kv(f"{TD}/cpu{ecpu}/info")
        e, _, _, _ = within(ecpu, want_of(E_PROFILE), level == 2)
        tap(info["state"] == "ok" and info.get("held") == "fixed1" and e <= 0.5 and
            info["multiplexed"] == mux,
            f"cpu{ecpu} gracemont watchdog=1 level={level}: {info['state']}, held "
            f"{info.get('held')}, multiplexed {info['multiplexed']} (want {mux}), "
            f"level1{'/2' if level == 2 else ''} max error {e:.3f}")
    unload()
    tap.summary()


main()
