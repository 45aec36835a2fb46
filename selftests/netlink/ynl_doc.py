#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The kernel-doc that ynl-gen-c leaves out of a uapi header, from the spec.

ynl-gen-c.py (6.12) documents the enums of the spec's definitions, but not
the attribute sets, the attributes or the commands, and it leaves out the
family's doc.  This pass takes its header and the spec and inserts, and
changes nothing else:

  - the family's doc, line for line, as the comment at the top of the file,
    with the spec's path;
  - before each attribute set's enum and before the commands' enum, a
    kernel-doc comment: the set's doc, then one line per member with its
    type in parentheses (nest: the nested set's enum; enum and flags: the
    definition's enum; checks: the range; multi-attr: repeated) and its
    doc, and __X_MAX / X_MAX.

The enums must be named (enum-name in the spec: kernel-doc documents named
enums only) and every attribute set, attribute and operation must have a
doc; otherwise the pass fails and says which.

  ynl_doc.py SPEC HEADER [SPEC-PATH-TO-PRINT]   the documented header on stdout
"""
import re
import sys
import textwrap

import yaml


class DocError(Exception):
    """the spec or the header lacks something the kernel-doc needs"""


def c_name(name):
    """a spec name as C writes it, lower case (ynl-gen-c's rule)"""
    return name.replace("-", "_")


def one_line(text):
    """text on one line: one space between words, two after a sentence's
    full stop where the spec has two or a line break (kernel prose)"""
    # \0 marks a sentence break, kept as two spaces
    text = re.sub(r"([.?!])(  +|\s*\n\s*)(?=\S)", "\\1\0", text.strip())
    return "  ".join(" ".join(s.split()) for s in text.split("\0"))


def wrap(text, more_indent="  "):
    """one kernel-doc entry as comment lines of at most 80 columns;
    continuation lines indented as ynl-gen-c indents its own"""
    return [" * " + line for line in
            textwrap.wrap(one_line(text), width=77, subsequent_indent=more_indent,
                          break_long_words=False, break_on_hyphens=False)]


def paragraphs(doc):
    """a doc's paragraphs (separated by blank lines)"""
    return [p for p in re.split(r"\n\s*\n", doc.strip()) if p.strip()]


class Spec:
    """what the doc pass needs of a YNL spec"""

    def __init__(self, spec):
        self.family = spec["name"]
        self.consts = {d["name"]: d for d in spec.get("definitions", [])}
        self.sets = {s["name"]: s for s in spec.get("attribute-sets", [])}

    def const_enum(self, name):
        """the C enum of a definition (ynl-gen-c: family_name unless enum-name)"""
        d = self.consts[name]
        return "enum " + c_name(d.get("enum-name") or f"{self.family}-{name}")

    def set_enum(self, name):
        """the C enum name of an attribute set; None when anonymous"""
        en = self.sets[name].get("enum-name")
        return c_name(en) if en else None

    def const_value(self, v):
        """a check's bound: a number, or a const definition's value"""
        return self.consts[v]["value"] if isinstance(v, str) else v

    def attr_type(self, attr):
        """what goes in parentheses: type, nest/enum, range, repeated"""
        t = attr["type"]
        parts = [t]
        if t == "nest":
            enum = self.set_enum(attr["nested-attributes"])
            parts = [f"nest of enum {enum}" if enum else
                     f"nest of {attr['nested-attributes']}"]
        if "enum" in attr:
            kind = "flags of " if attr.get("enum-as-flags") else ""
            parts.append(kind + self.const_enum(attr["enum"]))
        checks = dict(attr.get("checks", {}))
        if "min" in checks or "max" in checks:
            lo = self.const_value(checks.pop("min", 0 if t.startswith("u") else None))
            hi = self.const_value(checks.pop("max", None))
            parts.append(f"{lo} to {hi}" if lo is not None and hi is not None
                         else f"at least {lo}" if hi is None else f"at most {hi}")
        if checks:
            raise DocError(f"attribute {attr['name']}: checks {sorted(checks)} "
                           "not rendered by the doc pass")
        if attr.get("multi-attr"):
            parts.append("repeated")
        return ", ".join(parts)


def kdoc(enum, what, doc, members):
    """a kernel-doc comment for enum: its first paragraph as the purpose, the
    members, the further paragraphs as its description"""
    paras = paragraphs(doc)
    lines = ["/**"] + wrap(f"enum {enum} - {what}{paras[0] if paras else ''}")
    for name, text in members:
        lines += wrap(f"@{name}: {text}")
    for p in paras[1:]:
        lines += [" *"] + wrap(p, more_indent="")
    return lines + [" */"]


def enum_members(text, enum):
    """the member names of 'enum <enum> {...}' in a C header, and the line
    index of its 'enum' line"""
    lines = text.split("\n")
    try:
        start = lines.index(f"enum {enum} {{")
    except ValueError:
        raise DocError(f"enum {enum} is not in the generated header") from None
    names = []
    for line in lines[start + 1:]:
        if line.startswith("}"):
            break
        m = re.match(r"\s*(\w+)\s*(=[^,]*)?,?$", line)
        if m:
            names.append(m.group(1))
    return start, names


def undocumented(spec):
    """names of the attribute sets, attributes and operations with no doc"""
    out = []
    for s in spec.get("attribute-sets", []):
        if s.get("subset-of"):
            continue
        if not s.get("doc"):
            out.append(f"attribute set {s['name']}")
        out += [f"{s['name']}.{a['name']}" for a in s["attributes"] if not a.get("doc")]
    out += [f"operation {o['name']}" for o in spec["operations"]["list"] if not o.get("doc")]
    if not spec.get("doc"):
        out.append("the family")
    return out


def document(spec_yaml, header, spec_path):
    """ynl-gen-c's uapi header with the spec's docs inserted; returns the new
    text and how many enums and members it documented"""
    missing = undocumented(spec_yaml)
    if missing:
        raise DocError("no doc in the spec for " + ", ".join(missing))
    spec = Spec(spec_yaml)
    inserts = {}	# line index -> comment lines to put before it
    n_members = 0

    todo = []
    for s in spec_yaml.get("attribute-sets", []):
        if s.get("subset-of"):
            continue
        enum = spec.set_enum(s["name"])
        if not enum:
            raise DocError(f"attribute set {s['name']} has no enum-name: "
                           "ynl-gen-c makes its enum anonymous")
        members = [(a["name"], f"({spec.attr_type(a)}) {a['doc']}") for a in s["attributes"]]
        todo.append((enum, "attributes: ", s["doc"], members))
    ops = spec_yaml["operations"]
    if not ops.get("enum-name"):
        raise DocError("operations have no enum-name: ynl-gen-c makes their enum anonymous")
    if "async-prefix" in ops:
        raise DocError("separate notification enums (async-prefix) are not documented "
                       "by the doc pass")
    todo.append((c_name(ops["enum-name"]), "commands", "",
                 [(o["name"], o["doc"]) for o in ops["list"]]))

    for enum, what, doc, members in todo:
        start, names = enum_members(header, enum)
        if len(names) != len(members) + 2:
            raise DocError(f"enum {enum}: {len(names)} members in the header, "
                           f"{len(members)} + 2 in the spec")
        # ynl-gen-c's names end in the spec's, upper case; in spec order
        for cname, (sname, _) in zip(names, members):
            if not cname.endswith("_" + c_name(sname).upper()):
                raise DocError(f"enum {enum}: {cname} is not {sname}")
        cnt, last = names[-2:]
        rows = list(zip(names, (text for _, text in members)))
        rows += [(cnt, "One more than the last."), (last, "The last.")]
        inserts[start] = kdoc(enum, what, doc, rows)
        n_members += len(rows)

    lines = header.split("\n")
    # the family's doc after ynl-gen-c's banner, before the include guard
    guard = next(i for i, line in enumerate(lines) if re.match(r"#ifndef _UAPI_\w+_H$", line))
    top = ["/*"]
    for line in spec_yaml["doc"].strip().split("\n"):
        top.append((" * " + line).rstrip())
    top += [" *", f" * Generated from the YNL spec {spec_path} by make ynl-gen: the",
            " * kernel's ynl-gen-c.py, then selftests/netlink/ynl_doc.py for the",
            " * kernel-doc of the attributes and commands.", " */", ""]
    inserts[guard] = top

    out = []
    for i, line in enumerate(lines):
        out += inserts.get(i, [])
        out.append(line)
    return "\n".join(out), len(todo), n_members


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.strip().split("\n")[-1].strip())
    spec_yaml = yaml.safe_load(open(sys.argv[1]))
    text, _, _ = document(spec_yaml, open(sys.argv[2]).read(),
                          sys.argv[3] if len(sys.argv) == 4 else sys.argv[1])
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
