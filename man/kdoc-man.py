#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Section 3 man pages from the kernel-doc comments of <revocable.h>.

usage: kdoc-man.py list HEADER
       kdoc-man.py get-script TARBALL_OR_SCRIPT OUT
       kdoc-man.py split KERNEL_DOC HEADER VERSION OUTDIR
       kdoc-man.py sections HEADER TEMPLATE OUT

list prints the functions and macros that get a page: those documented in
HEADER outside its kernel-only part.  get-script copies the kernel's
scripts/kernel-doc out of Debian's linux-source-6.12 tarball: tar stops at
the first occurrence, so the tree is never extracted.  split runs kernel-doc
-man on HEADER and writes one NAME.3 per listed name, as section 3 of the
librevocable manual.  sections writes TEMPLATE (revocable.7.in) to OUT with
each "@DOC: Title@" line replaced by the header's "DOC: Title" comment, in
man markup, and fails when a DOC comment of the header has no place in the
page: revocable(7) is written once, in the header (whose "DOC: Rules" the
kernel's revocable.rst includes with a kernel-doc directive).  It needs no
perl.
"""
import os
import re
import subprocess
import sys
import time

DOC = re.compile(r"^/\*\*\n \* (\w+)\(\) - ", re.M)


def names(header):
    text = open(header).read()
    # The kernel-only part (guard classes, devm) gets no userspace page.
    cut = text.find("#ifdef __KERNEL__\n#include <linux/cleanup.h>")
    return DOC.findall(text[:cut] if cut >= 0 else text)


def get_script(src, out):
    if src.endswith(".tar.xz"):
        member = "linux-source-6.12/scripts/kernel-doc"
        data = subprocess.run(["tar", "-xJOf", src, "--occurrence=1", member],
                              check=True, stdout=subprocess.PIPE).stdout
    else:
        data = open(src, "rb").read()
    with open(out, "wb") as f:
        f.write(data)
    os.chmod(out, 0o755)


def split(kdoc, header, version, outdir):
    want = names(header)
    env = dict(os.environ)
    raw = subprocess.run(["perl", kdoc, "-man"] + [header], check=True, env=env,
                         stdout=subprocess.PIPE, text=True).stdout
    stamp = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))
    date = time.strftime("%Y-%m-%d", time.gmtime(stamp))
    pages = {}
    for chunk in re.split(r"(?m)^(?=\.TH )", raw):
        m = re.match(r'\.TH "([^"]*)" 9 "([^"]*)"', chunk)
        if not m:
            continue
        name = m.group(2)
        if name not in want:
            continue
        body = chunk.split("\n", 1)[1]
        body = body.replace(".SH SYNOPSIS\n",
                            ".SH SYNOPSIS\n.B #include <revocable.h>\n.sp\n", 1)
        pages[name] = (f'.TH "{name}" 3 "{date}" "librevocable {version}" '
                       f'"librevocable Manual"\n' + body)
    missing = [n for n in want if n not in pages]
    if missing:
        sys.exit(f"kernel-doc gave no page for {', '.join(missing)}")
    for name, page in pages.items():
        page = page.replace("Kernel Hacker's Manual", "librevocable Manual")
        if "\n.SH \"SEE ALSO\"" not in page:
            page += '.SH "SEE ALSO"\nrevocable(7)\n'
        with open(os.path.join(outdir, name + ".3"), "w") as f:
            f.write(page)


def man_inline(text):
    """``code`` and function() references of the comment, in man markup."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    text = re.sub(r"``([^`]+)``", r"\\fB\1\\fP", text)
    text = re.sub(r"\*(\w+)\*", r"\\fI\1\\fP", text)
    return re.sub(r"\b(revocable_\w+|REVOCABLE_\w+)\(\)", r"\\fB\1\\fP(3)", text)


TERM = re.compile(r"^([a-z][a-z ]{0,30}): (.*)$")


def doc_block(text, title, header):
    """The body lines of the header's "DOC: title" comment."""
    m = re.search(r"/\*\*\n \* DOC: " + re.escape(title) +
                  r"\n((?: \*.*\n)*?) \*/", text)
    if not m:
        sys.exit(f"{header}: no DOC: {title} comment")
    return [ln[3:] if ln.startswith(" * ") else "" for ln in
            m.group(1).splitlines()]


def doc_man(lines):
    """A DOC comment's paragraphs, "- " lists and "::" literal blocks, in
    man markup.  A list whose items all start "term: " is a tagged list."""
    blocks, cur, literal = [], None, False
    for ln in lines:
        if literal:
            if ln.startswith("  ") or not ln.strip():
                if ln.strip():
                    cur[1].append(ln[2:])
                continue
            literal = False
        if not ln.strip():
            cur = None
            continue
        if ln.startswith("- "):
            cur = ["item", ln[2:]]
            blocks.append(cur)
        elif cur is not None:
            cur[1] += " " + ln.strip()
        else:
            cur = ["para", ln]
            blocks.append(cur)
        if cur[1].endswith("::"):
            cur[1] = cur[1][:-1]
            cur = ["literal", []]
            blocks.append(cur)
            literal = True
    items = [b for b in blocks if b[0] == "item"]
    tagged = items and all(TERM.match(b[1]) for b in items)
    man = []
    for kind, body in blocks:
        if kind == "literal":
            man += [".PP", ".nf"]
            man += [ln.replace("\\", "\\e").replace("-", "\\-")
                    for ln in body]
            man.append(".fi")
        elif kind == "para":
            man += [".PP", man_inline(body)]
        elif tagged:
            term, rest = TERM.match(body).groups()
            man += [".TP", ".B " + term, man_inline(rest)]
        else:
            man += [".IP \\(bu 2", man_inline(body)]
    return man


def sections(header, template, out):
    """TEMPLATE with each "@DOC: Title@" line replaced by that DOC comment
    of HEADER; every DOC comment of the userspace part must be used."""
    text = open(header).read()
    page = open(template).read()
    used = re.findall(r"^@DOC: ([^@]+)@$", page, re.M)
    if not used:
        sys.exit(f"{template}: no @DOC: Title@ line")
    cut = text.find("#ifdef __KERNEL__\n#include <linux/cleanup.h>")
    have = re.findall(r"^ \* DOC: (.+)$", text[:cut] if cut >= 0 else text,
                      re.M)
    unused = sorted(set(have) - set(used))
    if unused:
        sys.exit(f"{template}: the header's DOC comments {unused} have no "
                 f"place in the page")
    for title in used:
        man = doc_man(doc_block(text, title, header))
        page = page.replace(f"@DOC: {title}@\n", "\n".join(man) + "\n")
    with open(out, "w") as f:
        f.write(page)


if sys.argv[1] == "list":
    print("\n".join(names(sys.argv[2])))
elif sys.argv[1] == "get-script":
    get_script(sys.argv[2], sys.argv[3])
elif sys.argv[1] == "split":
    split(*sys.argv[2:6])
elif sys.argv[1] == "sections":
    sections(*sys.argv[2:5])
else:
    sys.exit(__doc__)
