#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tdnl export in the guest, scraped by a real Prometheus.

topdown.ko on tdsim as spr at level 3, 100 ms; cpu0 and cpu1 on different
profiles and frequencies (2000 and 3000 MHz: their slots differ 2:3).
- /metrics in the text format passes `promtool check metrics` (Debian's
  prometheus package); with an OpenMetrics Accept header it is OpenMetrics
  (its content type, counters' families without _total, # EOF last);
- Debian's prometheus scrapes it every second for 20 s; through its HTTP
  API, sum(rate(topdown_node_slots_total[..])) / sum(rate(topdown_slots_total[..]))
  gives each CPU's profile within 0.5 pp, and summed over both CPUs their
  slot-weighted mix; the clock-tick Level 3 nodes likewise, over clock ticks;
- the module unloaded: topdown_up 0 and no CPU's series; loaded again:
  topdown_up 1 and samples again, the exporter still running;
- a scrape just after the exporter starts has every CPU's totals (from the
  dump it makes when it connects), even at 5 s intervals;
- errors: module not loaded, no permission (as nobody), address in use:
  exit 1 with a message that says so.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import L1, L2, Tap, load, seq, settle, sh, unload, want_of, write_profile  # noqa: E402

tap = Tap("tdnl_export")
ADDR = "127.0.0.1:9739"
PROM = "127.0.0.1:9090"
PROFILES = [
    "retiring=35 bad_speculation=10 frontend_bound=20 backend_bound=35 "
    "heavy_operations=6 branch_mispredicts=7 fetch_latency=12 memory_bound=22",
    "retiring=10 bad_speculation=20 frontend_bound=40 backend_bound=30 "
    "heavy_operations=5 branch_mispredicts=8 fetch_latency=12 memory_bound=20 "
    "freq_mhz=3000",
]
WEIGHT = [2, 3]		# the CPUs' slots per ns: 6 x 2000 and 6 x 3000 MHz


def get(path, accept=None):
    req = urllib.request.Request(f"http://{ADDR}{path}")
    if accept:
        req.add_header("Accept", accept)
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read().decode()


def metric(text, name, **labels):
    """the value of the first series of a /metrics text named so with those
    labels, or None"""
    for line in text.splitlines():
        m = re.match(r"^(\w+)(?:\{(.*)\})? (\S+)$", line)
        if not m or m.group(1) != name:
            continue
        have = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""))
        if all(have.get(k) == str(v) for k, v in labels.items()):
            return float(m.group(3))
    return None


def start_export(*args, user=None):
    cmd = ["tdnl", "export", "--listen", ADDR, *args]
    if user:
        cmd = ["setpriv", f"--reuid={user}", "--regid=nogroup", "--clear-groups"] + cmd
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_serving(p, secs=10):
    end = time.monotonic() + secs
    while time.monotonic() < end and p.poll() is None:
        try:
            get("/")
            return True
        except OSError:
            time.sleep(0.1)
    return False


def query(q):
    url = f"http://{PROM}/api/v1/query?" + urllib.parse.urlencode({"query": q})
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())["data"]["result"]


def errors():
    unload()
    p = start_export()
    _, err = p.communicate(timeout=30)
    tap(p.returncode == 1 and "not loaded" in err,
        f"module not loaded: exit {p.returncode}, says so ({err.strip()})")
    load("spr", "level=1", "interval_ms=100")
    p = start_export(user="nobody")
    _, err = p.communicate(timeout=30)
    tap(p.returncode == 1 and "permission denied" in err,
        f"as nobody: exit {p.returncode}, says so ({err.strip()})")
    holder = start_export()
    if wait_serving(holder):
        p = start_export()
        _, err = p.communicate(timeout=30)
        tap(p.returncode == 1 and "Address already in use" in err,
            f"address in use: exit {p.returncode}, says so ({err.strip()})")
    else:
        tap(False, "address in use: a first exporter served")
    holder.terminate()
    holder.wait(timeout=30)
    p = start_export("--bogus")
    _, err = p.communicate(timeout=30)
    tap(p.returncode == 2 and "unexpected '--bogus'" in err,
        f"bad usage: exit {p.returncode} ({err.strip().splitlines()[0] if err else ''})")


def shown(cpu):
    """cpu's latest sample from tdnl -j show, as a dict, or None"""
    r = sh("tdnl", "-j", "show", "-c", str(cpu))
    try:
        return json.loads(r.stdout)[0]
    except (ValueError, IndexError):
        return None


def primed():
    """at 5 s intervals, a scrape just after the exporter starts has cpu0's
    totals already: those of the module's latest sample, from the dump the
    exporter makes when it connects, not from a notification"""
    err = load("spr", "level=1", "interval_ms=5000")
    for attempt in range(3):
        # just after a sample: the next one is about 5 s away
        first, end = seq(0), time.monotonic() + 12
        while not err and seq(0) == first and time.monotonic() < end:
            time.sleep(0.05)
        before = shown(0)
        exp = start_export()
        up = wait_serving(exp)
        text = get("/metrics")[2] if up else ""
        after = shown(0)
        exp.terminate()
        exp.wait(timeout=30)
        if before and after and before["seq"] == after["seq"]:
            break
    slots = metric(text, "topdown_slots_total", cpu=0)
    want = before and before["totals"]["slots"]
    same = before and after and before["seq"] == after["seq"]
    tap(not err and up and same and slots is not None and slots == want,
        f"a scrape just after the start (attempt {attempt + 1}): cpu0's topdown_slots_total "
        f"{slots}, the latest sample's (seq {before and before['seq']}) {want} "
        f"({err or 'no sample between'})")


def formats():
    _, ctype, text = get("/metrics")
    r = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                       text=True, timeout=60)
    problems = (r.stdout + r.stderr).strip()
    tap(r.returncode == 0 and not problems and "version=0.0.4" in ctype,
        f"text format ({ctype}): promtool check metrics passes on "
        f"{len(text.splitlines())} lines{' (' + problems[:300] + ')' if problems else ''}")
    fams = re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M)
    helps = re.findall(r"^# HELP (\S+) ", text, re.M)
    tap(len(fams) >= 15 and [f for f, _ in fams] == helps,
        f"every one of {len(fams)} families has HELP and TYPE")
    _, ctype, om = get("/metrics", accept="application/openmetrics-text; version=1.0.0")
    counters = re.findall(r"^# TYPE (\S+) counter$", om, re.M)
    units = re.findall(r"^# UNIT (\S+) (\S+)$", om, re.M)
    # a counter family's samples are NAME_total, never NAME itself
    samples_ok = not [c for c in counters
                      if c.endswith("_total") or re.search(rf"^{c}[{{ ]", om, re.M)]
    tap(ctype.startswith("application/openmetrics-text") and om.endswith("# EOF\n") and
        counters and samples_ok and all(f.endswith("_" + u) for f, u in units),
        f"OpenMetrics ({ctype.split(';')[0]}): # EOF last, {len(counters)} counter families "
        f"named without _total, their samples with it; {len(units)} UNITs are their names' suffixes")
    l1 = metric(text, "topdown_node_ratio", cpu=0, level=1, node="retiring")
    tap(l1 is not None and abs(100 * l1 - 35) <= 0.5,
        f"topdown_node_ratio cpu0 retiring {l1} (profile 0.35)")


def prometheus(tmp):
    conf = os.path.join(tmp, "prometheus.yml")
    with open(conf, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                "scrape_configs:\n  - job_name: topdown\n    static_configs:\n"
                f"      - targets: ['{ADDR}']\n")
    p = subprocess.Popen(["prometheus", f"--config.file={conf}",
                          f"--storage.tsdb.path={tmp}/data", f"--web.listen-address={PROM}"],
                         stdout=subprocess.DEVNULL, stderr=open(f"{tmp}/prometheus.log", "w"))
    return p


def scraped(want):
    # 20 s of scrapes, then the window is the last 15 s
    up = query("up{job='topdown'}")
    tap(up and up[0]["value"][1] == "1", f"prometheus scrapes the exporter (up {up and up[0]['value'][1]})")
    worst, worst_mix, where = 0.0, 0.0, ""
    for node in L1 + L2:
        level = 1 if node in L1 else 2
        sel = f'{{node="{node}",level="{level}"}}'
        per = query(f"sum by (cpu) (rate(topdown_node_slots_total{sel}[15s])) / "
                    f"sum by (cpu) (rate(topdown_slots_total[15s]))")
        for r in per:
            c = int(r["metric"]["cpu"])
            e = abs(100 * float(r["value"][1]) - want[c][node])
            if e > worst:
                worst, where = e, f"cpu{c} {node}"
        if len(per) != 2:
            worst, where = 100.0, f"{node}: {len(per)} CPUs"
        mix = query(f"sum(rate(topdown_node_slots_total{sel}[15s])) / "
                    f"sum(rate(topdown_slots_total[15s]))")
        wmix = sum(want[c][node] * WEIGHT[c] for c in (0, 1)) / sum(WEIGHT)
        if mix:
            worst_mix = max(worst_mix, abs(100 * float(mix[0]["value"][1]) - wmix))
        else:
            worst_mix = 100.0
    tap(worst <= 0.5, f"PromQL per CPU: each Level 1/2 node within 0.5 pp of the CPU's "
        f"profile (worst {worst:.3f}{', ' + where if where else ''})")
    tap(worst_mix <= 0.5, f"PromQL over both CPUs: the slot-weighted mix (2:3) of their "
        f"profiles within 0.5 pp (worst {worst_mix:.3f})")
    # Level 3 over clock ticks: tdsim's memory nodes
    per = query('sum by (cpu) (rate(topdown_node_clockticks_total{node="dram_bound"}[15s])) / '
                'sum by (cpu) (rate(topdown_clockticks_total[15s]))')
    gauge = query('topdown_node_clockticks_ratio{node="dram_bound"}')
    got = {int(r["metric"]["cpu"]): 100 * float(r["value"][1]) for r in per}
    now = {int(r["metric"]["cpu"]): 100 * float(r["value"][1]) for r in gauge}
    tap(len(got) == 2 and all(abs(got[c] - now.get(c, -100)) <= 0.5 for c in got),
        f"PromQL Level 3 over clock ticks: dram_bound per CPU {got} as the latest "
        f"intervals' {now} within 0.5 pp")


def reload_cycle():
    sh("rmmod", "topdown")
    time.sleep(2.5)
    _, _, text = get("/metrics")
    up0 = metric(text, "topdown_up")
    gone = metric(text, "topdown_slots_total", cpu=0) is None
    load_td = load("spr", "level=2", "interval_ms=100")
    back, up1 = False, None
    for _ in range(100):
        time.sleep(0.1)
        _, _, text = get("/metrics")
        up1 = metric(text, "topdown_up")
        if up1 == 1 and metric(text, "topdown_slots_total", cpu=0):
            back = True
            break
    tap(up0 == 0 and gone and not load_td and back,
        f"module unloaded: topdown_up {up0}, cpu0's series gone {gone}; loaded again: "
        f"topdown_up {up1}, samples again {back}")


def main():
    if not os.environ.get("TD_KO_DIR"):
        tap.skip_all("not in the VM")
    if sh("which", "prometheus").returncode or os.cpu_count() < 2:
        tap.skip_all("needs Debian's prometheus and 2 CPUs")
    # the VM's init leaves the loopback down
    if sh("ip", "link", "set", "lo", "up").returncode:
        tap.skip_all("no loopback interface")
    errors()
    primed()
    err = load("spr", "level=3", "interval_ms=100")
    if not tap(not err, f"tdsim and topdown load as spr, level 3 ({err or 'ok'})"):
        tap.summary()
    want = {}
    for c in (0, 1):
        write_profile(c, PROFILES[c])
        want[c] = want_of(PROFILES[c])
    settle([0, 1], 3)
    exp = start_export()
    if not tap(wait_serving(exp), f"tdnl export serves on {ADDR}"):
        exp.kill()
        print("# " + exp.communicate()[1].replace("\n", "\n# "))
        tap.summary()
    time.sleep(1)
    formats()
    with tempfile.TemporaryDirectory() as tmp:
        prom = prometheus(tmp)
        time.sleep(20)
        try:
            scraped(want)
        except OSError as e:
            tap(False, f"prometheus answers its HTTP API ({e}; "
                f"{open(tmp + '/prometheus.log').read()[-300:]})")
        prom.terminate()
        prom.wait(timeout=60)
    reload_cycle()
    exp.terminate()
    _, err = exp.communicate(timeout=30)
    tap(exp.returncode == 0 and "unloaded" in err and "back" in err,
        f"SIGTERM: exit {exp.returncode}; it said the module went and came back")
    unload()
    tap.summary()


main()
