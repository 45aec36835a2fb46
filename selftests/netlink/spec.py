#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host check that the YNL spec (uapi/topdown.yaml) is the one source of
the family's C code.  The uapi header (uapi/linux/topdown.h) is the kernel's
own YNL generator's (linux-source-6.12 tools/net/ynl/ynl-gen-c.py --mode
uapi) with the kernel-doc it leaves out inserted from the spec's docs by
ynl_doc.py (the attribute sets, attributes and commands, and the family's
doc at the top), byte for byte; the pass adds only comments, and the header
has every constant of ynl-gen-c's with its value.  The kernel's policies
and ops (kmod/td_nl_gen.c and .h, the ranges of the spec's checks as
NLA_POLICY_RANGE) are ynl-gen-c's output for the spec, byte for byte.
Also: the spec passes the genetlink-legacy JSON schema (legacy for
kernel-policy per-op: struct genl_ops, as 6.1 has no split ops), and
kernel-doc -Wall finds nothing undocumented in the header.  The family's
reference (docs/netlink-spec.rst) is the kernel's ynl-gen-rst.py output for
the spec, byte for byte, and where docutils is installed it parses as
reStructuredText with no warning and every :ref: (a Sphinx role, here one
to the file's own labels) resolved.

--regen writes uapi/linux/topdown.h, kmod/td_nl_gen.c and .h and
docs/netlink-spec.rst anew from the spec (make ynl-gen; make netlink-doc
makes the last alone).
"""
import difflib
import os
import re
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from tdtest import Tap  # noqa: E402
from ynl_doc import DocError, document  # noqa: E402

REGEN = "--regen" in sys.argv[1:]
TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
LSRC = f"{TOP}/build/linux-source-6.12"
YNL = f"{LSRC}/tools/net/ynl"
STAGE = f"{TOP}/build/ynl"	# specs/ + the schema, as in the kernel tree
SCHEMA = "genetlink-legacy.yaml"
SPEC = "uapi/topdown.yaml"
UAPI = "uapi/linux/topdown.h"
GEN = {"source": "kmod/td_nl_gen.c", "header": "kmod/td_nl_gen.h"}
RST = "docs/netlink-spec.rst"
tap = Tap("netlink_spec")


def constants(text):
    """{name: value} of every enum constant and #define in a C header"""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = {m[0]: m[1].strip() for m in re.findall(r"#define\s+(\w+)\s+(.+)", text)
           if not m[0].startswith("_UAPI")}
    for body in re.findall(r"enum\s*\w*\s*\{(.*?)\}", text, re.S):
        val = -1
        for item in filter(None, (x.strip() for x in body.split(","))):
            name, _, expr = item.partition("=")
            name = name.strip()
            expr = expr.strip()
            if expr:
                # (__X_MAX - 1) or a number: evaluate against what we have
                val = eval(re.sub(r"\b([A-Z_][A-Z0-9_]*)\b",
                                  lambda m: str(out[m.group(1)]), expr))
            else:
                val += 1
            out[name] = val
    return out


def first_diff(have, new):
    """the first line (from 1) where two lists of lines differ, or "none\""""
    return next((i + 1 for i, (a, b) in enumerate(zip(have, new)) if a != b),
                "none" if have == new else min(len(have), len(new)) + 1)


def rst_problems(path):
    """docutils' warnings and errors on the reStructuredText file at path,
    Sphinx's :ref:`label` taken as a link to the file's own label (unknown
    targets are errors); None without docutils"""
    try:
        import io
        from docutils import nodes, utils
        from docutils.core import publish_doctree
        from docutils.parsers.rst import roles
    except ImportError:
        return None

    def ref(name, rawtext, text, lineno, inliner, options=None, content=None):
        label = utils.unescape(text)
        node = nodes.reference(rawtext, label, refname=nodes.fully_normalize_name(label))
        inliner.document.note_refname(node)
        return [node], []

    roles.register_local_role("ref", ref)
    err = io.StringIO()
    publish_doctree(open(path).read(), source_path=path,
                    settings_overrides={"report_level": 2, "halt_level": 5,
                                        "warning_stream": err})
    return err.getvalue().strip().splitlines()


def main():
    os.makedirs(f"{STAGE}/specs", exist_ok=True)
    # ynl-gen-c looks for the schema beside specs/ and for the tree's
    # MAINTAINERS above the spec; build/ynl stands in for the kernel tree
    for link, target in ((SCHEMA, f"{LSRC}/Documentation/netlink/{SCHEMA}"),
                         ("specs/topdown.yaml", f"{TOP}/uapi/topdown.yaml")):
        if os.path.lexists(f"{STAGE}/{link}"):
            os.remove(f"{STAGE}/{link}")
        os.symlink(target, f"{STAGE}/{link}")
    open(f"{STAGE}/MAINTAINERS", "a").close()

    gen = f"{STAGE}/topdown-gen.h"
    if os.path.exists(gen):
        os.remove(gen)
    r = subprocess.run([sys.executable, f"{YNL}/ynl-gen-c.py", "--mode", "uapi",
                        "--header", "--spec", f"{STAGE}/specs/topdown.yaml",
                        "-o", gen], capture_output=True, text=True, timeout=120)
    tap(r.returncode == 0 and os.path.exists(gen),
        f"ynl-gen-c.py makes a uapi header from the spec (rc {r.returncode}) {r.stderr[-300:]}")
    if r.returncode:
        return
    raw = open(gen).read()
    try:
        text, n_enums, n_members = document(yaml.safe_load(open(f"{TOP}/{SPEC}")), raw, SPEC)
    except DocError as e:
        tap(False, f"the doc pass (ynl_doc.py) documents the header from the spec: {e}")
        return
    tap(True, f"the doc pass (ynl_doc.py) documents {n_enums} enums and "
        f"{n_members} of their members from the spec")
    # what the doc pass adds is comments and blank lines, nothing of
    # ynl-gen-c's is changed or dropped
    old, new = raw.split("\n"), text.split("\n")
    ops = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    added = [line for op, _, _, j1, j2 in ops if op == "insert" for line in new[j1:j2]]
    changed = [op for op in ops if op[0] not in ("equal", "insert")]
    code = [line for line in added if not re.match(r"(/\*\*?| \*( .*)?| \*/|)$", line)]
    tap(not changed and not code,
        f"the doc pass keeps all {len(old)} lines of ynl-gen-c's header and adds "
        f"{len(added)}, all comment (changed: {len(changed)}, not comment: {code[:3]})")
    out = f"{STAGE}/topdown.h"
    with open(out, "w") as f:
        f.write(text)
    if REGEN:
        os.replace(out, f"{TOP}/{UAPI}")
        print(f"# wrote {UAPI}")
    else:
        have = open(f"{TOP}/{UAPI}").read().split("\n") if os.path.exists(f"{TOP}/{UAPI}") else []
        tap(have == new, f"{UAPI} is ynl-gen-c's header with the spec's kernel-doc "
            f"(make ynl-gen): {len(have)} lines, {len(new)} generated, "
            f"first differing line: {first_diff(have, new)}")

    # the kernel's policies and ops, as ynl-gen-c makes them
    for mode, path in GEN.items():
        out = f"{STAGE}/{os.path.basename(path)}"
        r = subprocess.run([sys.executable, f"{YNL}/ynl-gen-c.py", "--mode", "kernel",
                            f"--{mode}", "--spec", f"{STAGE}/specs/topdown.yaml",
                            "-o", out], capture_output=True, text=True, timeout=120)
        if not tap(r.returncode == 0, f"ynl-gen-c.py makes the kernel {mode} "
                   f"(rc {r.returncode}) {r.stderr[-300:]}"):
            continue
        if REGEN:
            os.replace(out, f"{TOP}/{path}")
            print(f"# wrote {path}")
            continue
        same = os.path.exists(f"{TOP}/{path}") and open(out).read() == open(f"{TOP}/{path}").read()
        tap(same, f"{path} is ynl-gen-c's output for the spec (make ynl-gen)")

    # the uAPI itself: whatever the docs, the committed header has ynl-gen-c's
    # constants with ynl-gen-c's values
    want = constants(raw)
    have = constants(open(f"{TOP}/{UAPI}").read())
    tap(len(want) > 50, f"the generated header has {len(want)} constants")
    missing = sorted(set(want) - set(have))
    extra = sorted(set(have) - set(want))
    wrong = sorted(k for k in set(want) & set(have) if str(want[k]) != str(have[k]))
    tap(not missing, f"every constant of the spec is in {UAPI} (missing: {missing})")
    tap(not extra, f"the header has nothing the spec lacks (extra: {extra})")
    tap(not wrong, "every constant has the spec's value (differ: " +
        ", ".join(f"{k} {have[k]} != {want[k]}" for k in wrong) + ")")

    # the spec against the genetlink schema (jsonschema), as cli.py --schema does
    sys.path.insert(0, YNL)
    try:
        from lib import SpecFamily
        SpecFamily(f"{TOP}/uapi/topdown.yaml",
                   f"{LSRC}/Documentation/netlink/{SCHEMA}")
        tap(True, f"the spec passes Documentation/netlink/{SCHEMA}")
    except Exception as e:	# noqa: BLE001 - any failure is the test's
        tap(False, f"the spec passes Documentation/netlink/{SCHEMA} ({e})")

    # the family's reference, as the kernel's ynl-gen-rst makes it from the spec
    out = f"{STAGE}/{os.path.basename(RST)}"
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([sys.executable, f"{YNL}/ynl-gen-rst.py", "-i", f"{TOP}/{SPEC}",
                        "-o", out], capture_output=True, text=True, timeout=120)
    made = tap(r.returncode == 0 and os.path.exists(out),
               f"ynl-gen-rst.py makes the family's reference from the spec "
               f"(rc {r.returncode}) {(r.stdout + r.stderr)[-300:]}")
    if made and REGEN:
        os.makedirs(os.path.dirname(f"{TOP}/{RST}"), exist_ok=True)
        os.replace(out, f"{TOP}/{RST}")
        print(f"# wrote {RST}")
    elif made:
        new = open(out).read().split("\n")
        have = open(f"{TOP}/{RST}").read().split("\n") if os.path.exists(f"{TOP}/{RST}") else []
        tap(have == new, f"{RST} is ynl-gen-rst's reference for the spec "
            f"(make netlink-doc): {len(have)} lines, {len(new)} generated, "
            f"first differing line: {first_diff(have, new)}")
    if os.path.exists(f"{TOP}/{RST}"):
        problems = rst_problems(f"{TOP}/{RST}")
        if problems is None:
            tap.skip(f"{RST} parses as reStructuredText", "no docutils (python3-docutils)")
        else:
            tap(not problems, f"{RST} parses as reStructuredText, every :ref: "
                f"resolved ({len(problems)} warnings) {' | '.join(problems)[:300]}")

    r = subprocess.run([f"{LSRC}/scripts/kernel-doc", "-none", "-Wall",
                        f"{TOP}/{UAPI}"], capture_output=True, text=True)
    warn = (r.stdout + r.stderr).strip()
    hdr = open(f"{TOP}/{UAPI}").read()
    enums = re.findall(r"^enum (\w+) \{", hdr, re.M)
    kdoc = re.findall(r"^ \* enum (\w+) - ", hdr, re.M)
    tap(r.returncode == 0 and not warn and enums == kdoc,
        f"kernel-doc -Wall: {len(kdoc)} of the header's {len(enums)} enums and every "
        f"member documented ({len(warn.splitlines())} warnings) {warn[:300]}")


main()
tap.summary()
