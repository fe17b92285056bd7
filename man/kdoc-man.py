#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Section 3 man pages from the kernel-doc comments of lib/revocable.h.

usage: kdoc-man.py list HEADER
       kdoc-man.py get-script TARBALL_OR_SCRIPT OUT
       kdoc-man.py split KERNEL_DOC HEADER VERSION OUTDIR

list prints the functions and macros that get a page: those documented in
HEADER outside its kernel-only part.  get-script copies the kernel's
scripts/kernel-doc out of Debian's linux-source-6.12 tarball: tar stops at
the first occurrence, so the tree is never extracted.  split runs kernel-doc
-man on HEADER and writes one NAME.3 per listed name, as section 3 of the
librevocable manual.
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


if sys.argv[1] == "list":
    print("\n".join(names(sys.argv[2])))
elif sys.argv[1] == "get-script":
    get_script(sys.argv[2], sys.argv[3])
elif sys.argv[1] == "split":
    split(*sys.argv[2:6])
else:
    sys.exit(__doc__)
