#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The kernel's own YNL CLI (linux-source-6.12 tools/net/ynl/cli.py),
driven by our spec uapi/topdown.yaml (which the host's netlink/spec.py
validates against the genetlink schema), as a client no one here wrote:
get-info, a get-sample dump, one notification from the samples group,
and set-config's extack.  In the
guest, on tdsim (spr).
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import Tap, load, sh, unload  # noqa: E402

tap = Tap("netlink_ynl")
CLI = "build/linux-source-6.12/tools/net/ynl/cli.py"


def ynl(*args):
    """the YNL CLI; without its check of the spec against the schema, which
    the host's netlink/spec.py makes (jsonschema under TCG took most of
    each call's time, over 60 s a call once on the debug kernel)"""
    r = sh("/usr/bin/python3", CLI, "--spec", "uapi/topdown.yaml", "--no-schema",
           "--output-json", *args, timeout=300)
    return r.returncode, r.stdout, r.stderr


def cpu_list(text):
    out = []
    for part in text.strip().split(","):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out


def main():
    err = load("spr", "interval_ms=200")
    tap(not err, f"tdsim and topdown load {err}")
    possible = cpu_list(open("/sys/devices/system/cpu/possible").read())
    online = cpu_list(open("/sys/devices/system/cpu/online").read())
    subprocess.run(["sleep", "0.6"])

    rc, out, err = ynl("--do", "get-info")
    info = json.loads(out) if rc == 0 else {}
    tap(rc == 0 and info.get("level") == 2 and info.get("interval-ms") == 200,
        f"get-info: level 2, interval-ms 200 (rc {rc}) {err[-200:]}")
    tap(info.get("running") == 1 and "cpu" not in info,
        f"get-info: running 1, no per-CPU part ({sorted(info)})")
    rc, out, err = ynl("--dump", "get-cpu")
    cpus = [c["cpu"] for c in json.loads(out)] if rc == 0 else []
    tap(cpus == possible, f"get-cpu dump: one message per possible CPU, in order "
        f"({len(cpus)}) {err[-200:]}")
    rc, out, err = ynl("--do", "get-cpu", "--json", '{"cpu": 0}')
    one = json.loads(out) if rc == 0 else {}
    tap(one.get("model") == "spr" and one.get("width") == 6,
        f"get-cpu do cpu 0: spr, width 6 ({one}) {err[-200:]}")
    spr = [m for m in info.get("model", []) if m["name"] == "spr"]
    ev = spr[0]["event"] if spr else []
    tap(len(ev) == 17 and [e["id"] for e in ev] == list(range(17)) and
        ev[0]["name"] == "TOPDOWN.SLOTS" and ev[0]["config"] == 0x400,
        f"get-info: spr's 17 events, id 0 TOPDOWN.SLOTS config 0x400 ({len(ev)})")

    rc, out, err = ynl("--dump", "get-sample")
    dump = json.loads(out) if rc == 0 else []
    tap(sorted(s["cpu"] for s in dump) == possible,
        f"get-sample dump: one sample per possible CPU ({len(dump)}) {err[-200:]}")
    for s in dump:
        if s["cpu"] not in online:
            continue
        l1 = s.get("level1", {})
        # (skewed: a snapshot's reads spread, the vCPU held up among them)
        tap(s.get("state") in ([], ["skewed"]) and sum(l1.values()) == 1000000 and len(l1) == 4,
            f"get-sample cpu{s['cpu']}: state ok, level1 adds up to 1000000 ppm ({l1})")

    rc, out, err = ynl("--do", "get-sample", "--json", '{"cpu": 0}')
    one = json.loads(out) if rc == 0 else {}
    tap(one.get("cpu") == 0 and len(one.get("count", [])) == 9,
        f"get-sample do cpu 0: 9 counts at level 2 ({len(one.get('count', []))})")

    rc, out, err = ynl("--subscribe", "samples", "--sleep", "1")
    ntf = json.loads(out) if rc == 0 and out.strip() else []
    names = {n.get("name") for n in ntf}
    seqs = sorted(n["msg"]["seq"] for n in ntf if n.get("msg", {}).get("cpu") == 0)
    tap(len(ntf) >= 2 and names == {"sample-ntf"},
        f"subscribe samples: {len(ntf)} sample-ntf notifications in 1 s ({names})")
    tap(len(seqs) >= 2 and seqs == list(range(seqs[0], seqs[0] + len(seqs))),
        f"subscribe samples: cpu0's sequence numbers consecutive ({seqs})")

    rc, out, err = ynl("--do", "set-config", "--json", '{"interval-ms": 5}')
    # the policy's range, from the spec's checks: message, attribute, range
    tap(rc != 0 and "integer out of range" in out + err and
        "Numerical result out of range" in out + err and "'min-value': 10" in out + err and
        "'max-value': 60000" in out + err and ".interval-ms" in out + err,
        "set-config interval-ms 5: ERANGE, the extack naming interval-ms and its range " +
        repr((out + err).strip().splitlines()[-1:]))
    rc, out, err = ynl("--do", "set-config", "--json", '{"interval-ms": 300}')
    rc2, out2, _ = ynl("--do", "get-info")
    tap(rc == 0 and rc2 == 0 and json.loads(out2)["interval-ms"] == 300,
        "set-config interval-ms 300: get-info says 300")
    unload()
    tap.summary()


main()
