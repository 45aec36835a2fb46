#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host: the manual pages stay true.

- Each page (tools/tdnl/tdnl.8, docs/topdown.4, docs/tdsim.4) renders
  with no warning: groff -ww -man -z, and man --warnings -l where man-db
  is there; its .TH names the version of kmod/td_types.h.
- tdnl.8 against build/bin/tdnl --help (make tools; tdnl has no help per
  command, the one usage text says every command's synopsis), both ways:
  the commands of the help are the page's, in its SYNOPSIS and as its
  COMMANDS entries; each command's options and keywords in the help are
  those of its SYNOPSIS line and of its COMMANDS entry; the global options
  of the help are the SYNOPSIS's; every option of the help is an OPTIONS
  entry and every OPTIONS entry an option of the help, a command's option
  saying which commands take it (the commands whose help line has it), a
  global one saying none.
- The state flags of uapi/linux/topdown.h are the entries of tdnl.8's
  States and of topdown.4's STATES, and the reverse; every command of
  the help is named under tdnl.8's PRIVILEGES.
- Every module_param of kmod/*.c is a PARAMETERS entry of topdown.4, and
  of kmod/tdsim/*.c one of tdsim.4, and the reverse, each with the type
  and the default of the code.
- make install installs each page, and tools/tdnl/README lists every file
  of tools/tdnl, and no other.

A SYNOPSIS is read as groff renders it (ASCII, no line filled beyond its
source line); the entries of COMMANDS, OPTIONS and PARAMETERS, the line
after each .TP, from the source.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import Tap  # noqa: E402  (and the top of the tree as cwd)

tap = Tap("docs_man")
TDNL = os.environ.get("TDNL", "build/bin/tdnl")
PAGES = ["tools/tdnl/tdnl.8", "docs/topdown.4", "docs/tdsim.4"]
MODULES = {"docs/topdown.4": "kmod/*.c", "docs/tdsim.4": "kmod/tdsim/*.c"}
# an option: -x or --word, not the hyphen inside 0-3 or a--b
OPT = re.compile(r"(?<![\w-])(-[A-Za-z]|--[a-z][a-z-]*)(?![\w-])")


def run(*cmd, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, **(env or {})))


def render(page):
    """the page as plain text, lines not filled beyond their source lines"""
    r = run("groff", "-man", "-Tascii", "-P-cbou", "-rLL=400n", "-rHY=0", page)
    return r.stdout


def sections(text):
    """{heading: [lines]} of a rendered page"""
    out, cur = {}, None
    for line in text.splitlines():
        if re.match(r"^[A-Z][A-Z0-9 /]+$", line):
            cur = line.strip()
            out[cur] = []
        elif cur:
            out[cur].append(line)
    return out


def deroff(line):
    """a source line's text: a font macro's arguments joined, escapes
    undone; None for any other request"""
    if line.startswith((".", "'")):
        macro, _, args = line[1:].partition(" ")
        toks = [m[1] if m[1] is not None else m[2]
                for m in re.finditer(r'"((?:[^"]|"")*)"|(\S+)', args)]
        if macro in ("B", "I"):
            line = " ".join(toks)
        elif macro in ("BR", "RB", "BI", "IB", "IR", "RI"):
            line = "".join(toks)
        else:
            return None
    line = re.sub(r"\\f(\(..|\[[^]]*\]|.)|\\&", "", line)
    for esc, c in (("\\-", "-"), ("\\(aq", "'"), ("\\(dq", '"'), ("\\e", "\\")):
        line = line.replace(esc, c)
    return line


def tags(page):
    """{section: [(tag, first line of the body)]} of a page's .TP entries,
    read from its source"""
    out, sec = {}, None
    lines = open(page).read().splitlines()
    for i, line in enumerate(lines):
        if line.startswith(".SH "):
            sec = line[4:].strip().strip('"')
        elif re.match(r"^\.TP\b", line) and sec and i + 1 < len(lines):
            tag = deroff(lines[i + 1]) or ""
            body = next((t for t in map(deroff, lines[i + 2:i + 6]) if t), "")
            out.setdefault(sec, []).append((tag.strip(), body.strip()))
    return out


def opts(s):
    return set(OPT.findall(s))


def words(s):
    """the keywords of a synopsis: lower-case words, not placeholders"""
    return {w for w in re.split(r"[\s\[\]{}|]+", s) if w.isalpha() and w.islower()}


def fmt(s):
    return " ".join(sorted(s)) or "none"


def render_checks():
    version = re.search(r'#define TD_VERSION\t"(.*)"', open("kmod/td_types.h").read())[1]
    have_man = shutil.which("man")
    for page in PAGES:
        r = run("groff", "-ww", "-man", "-Tutf8", "-z", page)
        bad = [x for x in r.stderr.splitlines() if x.strip()]
        if have_man:
            m = run("man", "--warnings", "-l", page, env={"MANWIDTH": "80"})
            bad += [x for x in m.stderr.splitlines() if x.strip()]
            bad += [] if m.returncode == 0 else [f"man exited {m.returncode}"]
        tap(r.returncode == 0 and not bad,
            f"{page} renders with no warning (groff -ww{', man --warnings' if have_man else ''})"
            f"{': ' + '; '.join(bad[:3]) if bad else ''}")
        th = re.search(r'^\.TH\s+\S+\s+\S+\s+"[^"]*"\s+"([^"]*)"', open(page).read(), re.M)
        tap(th and th[1] == f"topdown {version}",
            f"{page}: .TH names topdown {version} ({th[1] if th else 'no .TH'})")


def help_of():
    """tdnl --help: ({command: (options, keywords)}, global options)"""
    if not os.access(TDNL, os.X_OK):
        return subprocess.CompletedProcess(TDNL, 127, "", "not built"), {}, set()
    r = run(TDNL, "--help")
    cmds, glob_opts, part = {}, set(), None
    for line in r.stdout.splitlines():
        if line in ("Commands:", "Options:"):
            part = line
            continue
        if not line.strip() or len(line) - len(line.lstrip()) > 6:
            continue	# a description's next line
        syn = re.split(r"\s{2,}", line.strip())[0]
        if part == "Commands:":
            name = syn.split()[0]
            o, w = cmds.setdefault(name, (set(), set()))
            o |= opts(syn)
            w |= words(syn) - {name}
        elif part == "Options:":
            glob_opts |= opts(syn)
    return r, cmds, glob_opts


def tdnl_checks():
    r, hcmds, hglob = help_of()
    if not tap(r.returncode == 0 and hcmds and hglob,
               f"{TDNL} --help lists {len(hcmds)} commands and {len(hglob)} global options"
               f"{'' if r.returncode == 0 else ' (' + (r.stderr.strip() or 'status %d' % r.returncode) + ': make tools)'}"):
        return
    sec = sections(render("tools/tdnl/tdnl.8"))
    # SYNOPSIS: "tdnl CMD ..." lines, and the global ones ("tdnl [" / "tdnl {")
    scmds, sglob = {}, set()
    for line in (x.strip() for x in sec.get("SYNOPSIS", [])):
        if not line.startswith("tdnl"):
            continue
        rest = line[4:].strip()
        if rest[:1] in "[{":
            sglob |= opts(rest)
            continue
        name = rest.split()[0]
        o, w = scmds.setdefault(name, (set(), set()))
        o |= opts(rest)
        w |= words(rest) - {name}
    # COMMANDS: each entry's tag, "show [-c CPULIST] [--raw]"
    src = tags("tools/tdnl/tdnl.8")
    ccmds = {}
    for tag, _ in src.get("COMMANDS", []):
        name = tag.split()[0]
        o, w = ccmds.setdefault(name, (set(), set()))
        o |= opts(tag)
        w |= words(tag) - {name}
    # OPTIONS: each entry's options, and the commands its body names first
    oopts = {}
    for tag, body in src.get("OPTIONS", []):
        m = re.match(r"^\(([a-z, ]+)\)", body)
        for o in opts(tag):
            oopts[o] = set(m[1].replace(",", " ").split()) if m else set()

    h, s, c = set(hcmds), set(scmds), set(ccmds)
    tap(h == s, f"tdnl.8 SYNOPSIS has the commands of --help and no other "
        f"(missing: {fmt(h - s)}; not in --help: {fmt(s - h)})")
    tap(h == c, f"tdnl.8 COMMANDS has an entry for each command of --help and no other "
        f"(missing: {fmt(h - c)}; not in --help: {fmt(c - h)})")
    for name in sorted(h):
        ho, hw = hcmds[name]
        for where, table in (("SYNOPSIS", scmds), ("COMMANDS", ccmds)):
            po, pw = table.get(name, (set(), set()))
            tap(ho == po and hw == pw,
                f"tdnl.8 {where}: {name}'s options and keywords are --help's "
                f"({fmt(ho | hw)}; page: {fmt(po | pw)})")
    tap(hglob == sglob, f"tdnl.8 SYNOPSIS: the global options are --help's "
        f"({fmt(hglob)}; page: {fmt(sglob)})")
    every = hglob.union(*(o for o, _ in hcmds.values()))
    page = set(oopts)
    tap(every == page, f"tdnl.8 OPTIONS has an entry for each option of --help and no other "
        f"(missing: {fmt(every - page)}; not in --help: {fmt(page - every)})")
    wrong = []
    for o in sorted(every & page):
        want = {n for n, (co, _) in hcmds.items() if o in co}
        if o in hglob:
            want = set()
        if oopts[o] != want:
            wrong.append(f"{o}: page ({fmt(oopts[o])}), --help ({fmt(want)})")
    tap(not wrong, "tdnl.8 OPTIONS: each command option names the commands whose --help "
        "line has it, each global option none" + (f" ({'; '.join(wrong)})" if wrong else ""))
    named = set()
    for tag, _ in src.get("PRIVILEGES", []):
        named |= {w for w in re.split(r"[\s,]+", tag) if w in h}
    tap(h <= named, f"tdnl.8 PRIVILEGES names every command of --help (missing: {fmt(h - named)})")


def state_checks():
    """the state flags of uapi/linux/topdown.h, as the pages list them"""
    uapi = open("uapi/linux/topdown.h").read()
    want = {m.lower().replace("_", "-") for m in re.findall(r"^\tTOPDOWN_STATE_(\w+) =", uapi, re.M)}
    for page, sec in (("tools/tdnl/tdnl.8", "OUTPUT FORMATS"), ("docs/topdown.4", "STATES")):
        have = {t for t, _ in tags(page).get(sec, [])} - {"ok"}
        tap(want and want == have, f"{page} {sec}: each state flag of uapi/linux/topdown.h "
            f"({len(want)}) has an entry, and no other (missing: {fmt(want - have)}; "
            f"not in the uapi: {fmt(have - want)})")


def c_params(pattern):
    """{name: (type, default)} of the module_params of some C files"""
    out = {}
    for path in sorted(glob.glob(pattern)):
        src = open(path).read()
        for m in re.finditer(r"module_param(_named)?\(\s*(\w+)\s*,\s*([\w.>-]+)\s*,\s*(\w+)", src):
            name, var, typ = (m[2], m[3], m[4]) if m[1] else (m[2], m[2], m[3])
            field = var.split(".")[-1]
            if "." in var:	# a struct's field: its initializer, else 0
                d = re.search(rf"\.{field}\s*=\s*([^,\n}}]+)", src)
            else:
                d = re.search(rf"^static\s[^;=(]*\b{re.escape(var)}\s*(?:=\s*([^;]+))?;", src, re.M)
            val = d[1].strip() if d and d.group(1) else ("none" if typ == "charp" else "0")
            val = {"true": "1", "false": "0", "NULL": "none"}.get(val, val.strip('"'))
            out[name] = (typ, val)
    return out


def param_checks():
    for page, pattern in MODULES.items():
        want = c_params(pattern)
        have = {}
        for tag, _ in tags(page).get("PARAMETERS", []):
            m = re.match(r"^(\w+)=\S*\s+\((\w+), default:?\s*(.*)\)$", tag)
            if m:
                have[m[1]] = (m[2], m[3])
        w, h = set(want), set(have)
        tap(w and w == h, f"{page} PARAMETERS has every module_param of {pattern} and no other "
            f"(missing: {fmt(w - h)}; not in the code: {fmt(h - w)})")
        wrong = []
        for name in sorted(w & h):
            (ct, cd), (pt, pd) = want[name], have[name]
            # -1: the model's (or the raw events'), as the page says in words
            same = pd == cd or (cd == "-1" and pd.startswith("the "))
            if ct != pt or not same:
                wrong.append(f"{name}: code ({ct}, {cd}), page ({pt}, {pd})")
        tap(not wrong, f"{page}: each parameter's type and default are the code's"
            + (f" ({'; '.join(wrong)})" if wrong else ""))


def file_checks():
    mk = open("Makefile").read()
    missing = [p for p in PAGES
               if not re.search(rf"^\tinstall\s.*\s{re.escape(p)}\s+\S*/share/man/man{p[-1]}/", mk, re.M)]
    tap(not missing, f"make install puts each page in share/man/manN ({fmt(missing)} not)")
    files = {os.path.basename(p) for p in glob.glob("tools/tdnl/*")}
    listed = set(re.findall(r"^  (\S+)\s", open("tools/tdnl/README").read(), re.M))
    tap(files == listed, f"tools/tdnl/README lists every file of tools/tdnl and no other "
        f"(missing: {fmt(files - listed)}; not there: {fmt(listed - files)})")


def main():
    if not shutil.which("groff"):
        tap.skip_all("no groff (make deps installs groff-base)")
    render_checks()
    tdnl_checks()
    state_checks()
    param_checks()
    file_checks()
    tap.summary()


main()
