#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Section 3 man pages from the kernel-doc comments of lib/revocable.h.

usage: kdoc-man.py list HEADER
       kdoc-man.py get-script TARBALL_OR_SCRIPT OUT
       kdoc-man.py split KERNEL_DOC HEADER VERSION OUTDIR
       kdoc-man.py rules HEADER TEMPLATE OUT

list prints the functions and macros that get a page: those documented in
HEADER outside its kernel-only part.  get-script copies the kernel's
scripts/kernel-doc out of Debian's linux-source-6.12 tarball: tar stops at
the first occurrence, so the tree is never extracted.  split runs kernel-doc
-man on HEADER and writes one NAME.3 per listed name, as section 3 of the
librevocable manual.  rules writes TEMPLATE (revocable.7.in) to OUT with
its @RULES@ line replaced by the header's "DOC: Rules" comment, in man
markup: the rules are written once, in the header, which the kernel's
revocable.rst includes with a kernel-doc directive.  It needs no perl.
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
    return re.sub(r"\b(revocable_\w+)\(\)", r"\\fB\1\\fP(3)", text)


def rules(header, template, out):
    text = open(header).read()
    m = re.search(r"/\*\*\n \* DOC: Rules\n((?: \*.*\n)*?) \*/", text)
    if not m:
        sys.exit(f"{header}: no DOC: Rules comment")
    lines = [ln[3:] if ln.startswith(" * ") else "" for ln in
             m.group(1).splitlines()]
    # Paragraphs and "- " items, each joined into one line.
    blocks, cur = [], None
    for ln in lines:
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
    man = []
    for kind, body in blocks:
        man.append(".PP" if kind == "para" else ".IP \\(bu 2")
        man.append(man_inline(body))
    page = open(template).read()
    if "@RULES@\n" not in page:
        sys.exit(f"{template}: no @RULES@ line")
    with open(out, "w") as f:
        f.write(page.replace("@RULES@\n", "\n".join(man) + "\n"))


if sys.argv[1] == "list":
    print("\n".join(names(sys.argv[2])))
elif sys.argv[1] == "get-script":
    get_script(sys.argv[2], sys.argv[3])
elif sys.argv[1] == "split":
    split(*sys.argv[2:6])
elif sys.argv[1] == "rules":
    rules(*sys.argv[2:5])
else:
    sys.exit(__doc__)
