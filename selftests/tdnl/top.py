#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tdnl top in a real terminal: tmux (send-keys and capture-pane).

topdown.ko on tdsim as spr at level 2, 100 ms; cpu0 memory bound, cpu1
frontend bound.  In a 140x30 tmux pane:
- the header says the level and interval; a row per CPU, its Level 1 bar
  in proportion (backend's K cells within one of its share of the bar),
  its dominant Level 2 node, its state as `tdnl -j show` gives it;
- s sorts by the next key (retiring...), the rows follow;
- 3 sets level 3 (the header says so, the Level 3 column fills), + doubles
  the interval;
- c with "1" shows cpu1 only;
- a resize to 100x20 redraws at the new width, the state still on its
  row;
- q ends it with status 0, and the terminal's settings (stty -a) are what
  they were; Ctrl-C as well.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import Tap, load, settle, sh, unload, write_profile  # noqa: E402

tap = Tap("tdnl_top")
# each session its own tmux server: a server just killed may still hold
# its socket, and a new-session on it then fails or dies with it
SOCK = ["tdtest-top-0"]
PROFILES = [
    "retiring=20 bad_speculation=5 frontend_bound=15 backend_bound=60 heavy_operations=5 "
    "branch_mispredicts=3 fetch_latency=10 memory_bound=45",
    "retiring=25 bad_speculation=10 frontend_bound=50 backend_bound=15 heavy_operations=5 "
    "branch_mispredicts=8 fetch_latency=40 memory_bound=5",
]


def tmux(*args):
    return subprocess.run(["tmux", "-L", SOCK[0], *args], capture_output=True, text=True,
                          timeout=30)


def screen():
    return tmux("capture-pane", "-p").stdout


def wait_for(pred, secs=10):
    end = time.monotonic() + secs
    text = ""
    while time.monotonic() < end:
        text = screen()
        if pred(text):
            return True, text
        time.sleep(0.2)
    return False, text


def row(text, cpu):
    for line in text.splitlines():
        if line.startswith(f"cpu{cpu} "):
            return line
    return ""


def settings(path):
    """stty -a without the window's size (the test resizes it)"""
    return re.sub(r"rows \d+; columns \d+;", "", open(path).read())


def session(tmp, n, cmd):
    """session n on a tmux server of its own; "" or why it did not start.
    "after" appears whole (renamed): read as soon as it exists, a file
    stty had only begun to write differed from "before" (seen once)"""
    tmux("kill-server")
    SOCK[0] = f"tdtest-top-{os.getpid()}-{n}"
    r = tmux("new-session", "-d", "-x", "140", "-y", "30",
             f"stty -a > {tmp}/before; {cmd}; echo $? > {tmp}/status; "
             f"stty -a > {tmp}/after.new; mv {tmp}/after.new {tmp}/after; sleep 30")
    return f"tmux new-session: status {r.returncode}: {r.stderr.strip()}" if r.returncode else ""


def main():
    if not os.environ.get("TD_KO_DIR"):
        tap.skip_all("not in the VM")
    if sh("which", "tmux").returncode:
        tap.skip_all("no tmux")
    err = load("spr", "level=2", "interval_ms=100")
    if not tap(not err, f"tdsim and topdown load as spr, level 2 ({err or 'ok'})"):
        tap.summary()
    for c in (0, 1):
        write_profile(c, PROFILES[c])
    settle([0, 1], 2)
    with tempfile.TemporaryDirectory() as tmp:
        err = session(tmp, 1, "TERM=xterm-256color tdnl top")
        ok, text = wait_for(lambda t: row(t, 0) and row(t, 1) and "level 2" in t)
        r0 = row(text, 0)
        bar = re.search(r"cpu0 +spr +([RBFK ]+)", r0)
        k, width = (bar.group(1).count("K"), len(bar.group(1).rstrip())) if bar else (0, 0)
        tap(not err and ok and "interval 100 ms" in text and bar and abs(k - 0.6 * width) <= 1 and
            "memory_bound" in r0 and "fetch_latency" in row(text, 1),
            f"a row per CPU: cpu0's bar {k} K of {width} (backend 60 %), its dominant "
            f"Level 2 memory_bound, cpu1's fetch_latency{' (' + err + ')' if err else ''}")
        shown = sh("tdnl", "-j", "show", "-c", "0").stdout
        try:
            states = json.loads(shown)[0]["state"] or ["ok"]
        except (ValueError, IndexError, KeyError):
            states = None
        tail = r0.split("memory_bound", 1)[-1].split()
        tap(states and all(x in tail for x in states) and "(null)" not in r0,
            f"cpu0's state as tdnl show gives it: {states} in '{' '.join(tail)}'")
        tmux("send-keys", "s")
        ok, text = wait_for(lambda t: "sort: retiring" in t)
        lines = [x for x in text.splitlines() if re.match(r"cpu\d ", x)]
        tap(ok and lines and lines[0].startswith("cpu1 "),
            "s: sorted by retiring, cpu1 (25 %) above cpu0 (20 %)")
        tmux("send-keys", "3")
        l3 = re.compile(r"(l1|l2|l3|dram|store)_bound +\d")
        ok, text = wait_for(lambda t: "level 3" in t and l3.search(row(t, 0)))
        tap(ok, f"3: level 3, the Level 3 column fills ({row(text, 0)[-60:].strip()})")
        print("\n".join("# " + x.rstrip() for x in text.rstrip().splitlines()))
        tmux("send-keys", "+")
        ok, text = wait_for(lambda t: "interval 200 ms" in t)
        tap(ok, "+: the interval doubles to 200 ms")
        tmux("send-keys", "c")
        time.sleep(0.5)
        tmux("send-keys", "1", "Enter")
        ok, text = wait_for(lambda t: row(t, 1) and not row(t, 0))
        tap(ok, "c 1: cpu1's row only")
        tmux("resize-window", "-x", "100", "-y", "20")

        def bar_width(t):
            m = re.search(r"cpu1 +spr +([RBFK]+)", row(t, 1))
            return len(m.group(1)) if m else 0
        # the bar takes what the other columns leave: 100 - 87 cells
        ok, text = wait_for(lambda t: bar_width(t) == 13)
        state = row(text, 1)[75:].split()
        tap(ok and state and state[0].isalpha(),
            f"resized to 100x20: the bar redrawn 13 cells wide ({bar_width(text)}), "
            f"the state on its row ({' '.join(state)})")
        tmux("send-keys", "q")
        ok, _ = wait_for(lambda t: os.path.exists(f"{tmp}/after"))
        status = open(f"{tmp}/status").read().strip() if ok else None
        same = ok and settings(f"{tmp}/before") == settings(f"{tmp}/after")
        tap(status == "0" and same, f"q: status {status}, the terminal's settings as before "
            "(but its size)")
        os.unlink(f"{tmp}/after")
        err = session(tmp, 2, "TERM=xterm-256color tdnl top")
        ok, text = wait_for(lambda t: row(t, 0))
        if not tap(not err and ok, f"a second tdnl top shows cpu0's row "
                   f"({err or row(text, 0)[:40].strip()})"):
            print("\n".join("# " + x.rstrip() for x in text.rstrip().splitlines()))
        tmux("send-keys", "C-c")
        ok, _ = wait_for(lambda t: os.path.exists(f"{tmp}/after"))
        status = open(f"{tmp}/status").read().strip() if ok else None
        same = ok and settings(f"{tmp}/before") == settings(f"{tmp}/after")
        diff = ""
        if ok and not same:
            b, a = (set(settings(f"{tmp}/{x}").split()) for x in ("before", "after"))
            diff = f": before {sorted(b - a)}, after {sorted(a - b)}"
        tap(status == "0" and same, f"Ctrl-C: status {status}, the terminal's settings as before{diff}")
        tmux("kill-server")
    sh("tdnl", "set", "interval", "100")
    unload()
    tap.summary()


main()
