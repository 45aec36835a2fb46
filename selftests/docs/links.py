#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host: the README's and the docs' links and commands.

For README.md, CHANGELOG.md and docs/*.md:
- every relative markdown link names a file that exists, and its #anchor
  a heading of the target, by GitHub's slug rules (lowercase; anything
  but letters, digits, spaces, '-' and '_' dropped; spaces to '-'; a
  repeated slug gets -1, -2, ...);
- in code blocks that are shell (fenced ```sh, ```bash, ```shell or
  ```console; and the "$ " lines of indented blocks), each command line
  (the "$ " or "# " lines where a block has prompts, else every line):
  `make TARGET` names a target of the Makefile; `tdnl [OPTS] CMD [OPTS]`
  a global option, a command and the command's options that
  `build/bin/tdnl --help` lists (tdnl has no per-command --help); and
  each selftests/... or tools/... path exists (or is one the build makes,
  as .gitignore names it).

Files another part of the tree provides (PENDING) are skipped, said so,
while they are missing.

    python3 selftests/docs/links.py
"""
import glob
import os
import re
import shlex
import subprocess
import sys

TOP = os.path.normpath(os.path.dirname(os.path.abspath(__file__)) + "/../..")
sys.path.insert(0, TOP + "/selftests")
from tdtest import Tap  # noqa: E402

tap = Tap("docs")
os.chdir(TOP)
TDNL = "build/bin/tdnl"
# written elsewhere (the man page and the generated netlink reference):
# a link to them is checked once they are in the tree
PENDING = set()
SHELL = {"sh", "bash", "shell", "console"}


def generated():
    """paths the build makes, as .gitignore names them (/selftests/run_kselftest.sh)"""
    with open(".gitignore") as f:
        return {line.strip().lstrip("/") for line in f if line.startswith("/")}


def slug(text):
    """GitHub's anchor for a heading's text"""
    text = re.sub(r"`([^`]*)`", r"\1", text)                 # code spans: their text
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)     # links: their text
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def parse(path):
    """(prose lines with their numbers, headings' slugs, code blocks)"""
    prose, slugs, blocks = [], [], []
    seen = {}
    fence = None
    block = None
    with open(path) as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        m = re.match(r"^\s*(```+|~~~+)\s*(\S*)", line)
        if fence is None and m:
            fence = m.group(1)
            block = {"lang": m.group(2).lower(), "lines": [], "start": n}
            continue
        if fence is not None:
            if line.strip().startswith(fence):
                blocks.append(block)
                fence = None
            else:
                block["lines"].append((n, line))
            continue
        # an indented block's prompt lines: checked as console
        m = re.match(r"^ {4,}\$ (.*)", line)
        if m:
            blocks.append({"lang": "console", "lines": [(n, "$ " + m.group(1))], "start": n})
            continue
        prose.append((n, line))
        h = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if h:
            s = slug(h.group(2))
            k = seen.get(s, 0)
            seen[s] = k + 1
            slugs.append(s if not k else f"{s}-{k}")
    return prose, slugs, blocks


def md_files():
    return ["README.md", "CHANGELOG.md"] + sorted(glob.glob("docs/*.md"))


def check_links(path, prose):
    bad = 0
    n = 0
    for ln, line in prose:
        line = re.sub(r"`[^`]*`", "", line)     # code spans are not links
        for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):   # http:, mailto:, ...
                continue
            n += 1
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            where = f"{path}:{ln}: ({target})"
            if not os.path.exists(dest):
                if dest in PENDING:
                    tap.skip(f"{where}: {dest}", "not in this tree yet")
                    continue
                tap(False, f"{where}: no file {dest}")
                bad += 1
                continue
            if anchor:
                if not dest.endswith(".md"):
                    tap(False, f"{where}: an anchor into {dest}, which is not markdown")
                    bad += 1
                elif anchor not in parse(dest)[1]:
                    tap(False, f"{where}: no heading '#{anchor}' in {dest}")
                    bad += 1
    if not bad:
        tap(True, f"{path}: its {n} relative links resolve, anchors included")


def make_targets():
    targets = set()
    with open("Makefile") as f:
        for line in f:
            m = re.match(r"^\.PHONY:(.*)", line)
            if m:
                targets.update(m.group(1).split())
            m = re.match(r"^([A-Za-z0-9_.-]+(?:\s+[A-Za-z0-9_.-]+)*)\s*:(?!=)", line)
            if m:
                targets.update(m.group(1).split())
    return targets


def tdnl_usage():
    """tdnl's global options, and each command's options and subcommands,
    from its --help: {cmd: (options, options taking a value, words)}"""
    if not os.access(TDNL, os.X_OK):
        subprocess.run(["make", "-s", "tools"], capture_output=True)
    try:
        out = subprocess.run([TDNL, "--help"], capture_output=True, text=True,
                             timeout=10).stdout
    except OSError as e:
        return None, str(e)
    cmds = {}
    glob_opts = set()
    section = None
    for line in out.split("\n"):
        if line.startswith("Commands:"):
            section = "cmds"
            continue
        if line.startswith("Options:"):
            section = "opts"
            continue
        if section == "cmds":
            m = re.match(r"^  ([a-z]+)((?: \S+)*)", line)
            if not m:
                continue
            name, rest = m.group(1), m.group(2)
            opts, valued, words = cmds.setdefault(name, (set(), set(), set()))
            for o, v in re.findall(r"\[(-[-\w]+)( [A-Z][\w.:]*)?\]", rest):
                opts.add(o)
                if v:
                    valued.add(o)
            w = rest.split()
            if w and re.match(r"^[a-z]+$", w[0]):   # set interval MS: a subcommand word
                words.add(w[0])
        elif section == "opts":
            glob_opts.update(re.findall(r"(?<![\w-])(-[-\w]+)", line.split("  ")[1]
                                        if line.startswith("  ") else ""))
    if not cmds:
        return None, f"{TDNL} --help lists no command"
    return (glob_opts, cmds), None


def commands(block):
    """the command lines of a shell block: its prompt lines, or every line"""
    lines = block["lines"]
    prompts = [(n, t) for n, t in lines if re.match(r"^\s*[$#] ", t)]
    if any(t.lstrip().startswith("$ ") for _, t in prompts) or block["lang"] == "console":
        chosen = [(n, re.sub(r"^\s*[$#] ", "", t)) for n, t in prompts]
    else:
        chosen = [(n, t) for n, t in lines if not t.lstrip().startswith("#")]
    out, cont = [], None
    for n, t in chosen:             # join continued lines
        if cont:
            cont = (cont[0], cont[1] + " " + t.strip())
        else:
            cont = (n, t.strip())
        if cont[1].endswith("\\"):
            cont = (cont[0], cont[1][:-1])
            continue
        out.append(cont)
        cont = None
    if cont:
        out.append(cont)
    return [c for c in out if c[1]]


def simple_commands(text):
    lex = shlex.shlex(text, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    lex.commenters = "#"
    try:
        toks = list(lex)
    except ValueError:
        return []
    cmds, cur = [], []
    for t in toks:
        if t and all(c in "|&;()<>" for c in t):
            if cur:
                cmds.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        cmds.append(cur)
    return cmds


def check_tdnl(args, usage):
    """what is wrong with tdnl's arguments @args, or None"""
    glob_opts, cmds = usage
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] not in glob_opts:
            return f"tdnl has no global option '{args[i]}'"
        i += 1
    if i == len(args):
        return None
    cmd = args[i]
    if cmd not in cmds:
        return f"tdnl has no command '{cmd}'"
    opts, valued, words = cmds[cmd]
    i += 1
    if words:
        if i == len(args) or args[i] not in words:
            return f"tdnl {cmd}: '{args[i] if i < len(args) else ''}' is not one of {sorted(words)}"
        return None
    while i < len(args):
        a = args[i]
        if a == "--":
            break
        if a.startswith("-"):
            if a not in opts:
                return f"tdnl {cmd} has no option '{a}'"
            i += 2 if a in valued else 1
            continue
        if cmd == "stat":       # the command to run: not tdnl's
            break
        i += 1
    return None


def check_commands(path, blocks, targets, usage):
    made = generated()
    bad = 0
    n = 0
    for b in blocks:
        if b["lang"] not in SHELL:
            continue
        for ln, text in commands(b):
            for argv in simple_commands(text):
                while argv and (argv[0] in ("sudo", "env", "exec", "time") or
                                re.match(r"^[A-Z_][A-Z0-9_]*=", argv[0])):
                    argv = argv[1:]
                if not argv:
                    continue
                where = f"{path}:{ln}: {' '.join(argv)}"
                errs = []
                if argv[0] == "make":
                    rest = argv[1:]
                    if "-C" not in rest and "-f" not in rest:
                        for t in rest:
                            if not t.startswith("-") and "=" not in t and t not in targets:
                                errs.append(f"no make target '{t}' in the Makefile")
                elif os.path.basename(argv[0]) == "tdnl":
                    if usage:
                        e = check_tdnl(argv[1:], usage)
                        if e:
                            errs.append(e)
                for t in argv:
                    m = re.match(r"^((?:selftests|tools)/[\w./+-]*[\w+-])", t)
                    if m and not re.search(r"[<>*$]", t) and \
                            not os.path.exists(m.group(1)) and m.group(1) not in made:
                        errs.append(f"no {m.group(1)}")
                n += 1
                for e in errs:
                    tap(False, f"{where}: {e}")
                    bad += 1
    if not bad:
        tap(True, f"{path}: its {n} shell commands name existing make targets, "
                  "tdnl commands and options, and paths")


def main():
    targets = make_targets()
    usage, err = tdnl_usage()
    if not tap(usage is not None, f"{TDNL} --help lists the commands and options"
               + (f" ({err})" if err else "")):
        usage = None
    for path in md_files():
        if not os.path.exists(path):
            tap(False, f"{path} exists")
            continue
        prose, _, blocks = parse(path)
        check_links(path, prose)
        check_commands(path, blocks, targets, usage)
    tap.summary()


main()
