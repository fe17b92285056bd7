#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks docs/design.md's misuse matrix against the tests.

usage: check-misuse-matrix.py SOURCE_ROOT

The matrix (the section "### Misuse matrix" up to the next heading) names
KUnit cases as `misuse_FUNCTION__MISUSE` and userspace Check tests as
`FILE.c:CASE`.  Fails when the matrix and the MISUSE_CASE() list of
kernel/new-files/drivers/base/revocable_test.c differ, when a named case has
no MISUSE() body, when a FILE.c:CASE is not a TEST() in tests/, when
a row (of the matrix or of the API contract's per-call tables) gives an
error code that its function's kernel-doc in <linux/revocable.h> does not name, or when a cell is missing from fuzz/fuzz_ops.c's
MISUSE_CELLS (fuzzed there, or not with the reason).
"""
import os
import re
import sys


def main():
    root = sys.argv[1]
    design = open(os.path.join(root, "docs/design.md")).read()
    m = re.search(r"^### Misuse matrix\n(.*?)^#", design, re.S | re.M)
    if not m:
        print("docs/design.md has no \"### Misuse matrix\" section")
        return 1
    matrix = m.group(1)
    src = open(os.path.join(root,
                            "kernel/new-files/drivers/base/revocable_test.c")).read()
    listed = {f"misuse_{a}__{b}" for a, b in
              re.findall(r"^\s*MISUSE_CASE\((\w+), (\w+)\),", src, re.M)}
    bodies = {f"misuse_{a}__{b}" for a, b in
              re.findall(r"^MISUSE\((\w+), (\w+)\)$", src, re.M)}
    named = set(re.findall(r"`(misuse_[a-z_]+?__[a-z_]+)`", matrix))
    bad = 0
    for c in sorted(named - listed):
        print(f"matrix names {c}, which revocable_misuse does not run")
        bad += 1
    for c in sorted(listed - named):
        print(f"revocable_misuse runs {c}, which the matrix does not name")
        bad += 1
    for c in sorted(listed - bodies):
        print(f"MISUSE_CASE {c} has no MISUSE() body")
        bad += 1
    checks = re.findall(r"`(\w+\.c):(\w+)`", matrix)
    for f, case in checks:
        path = os.path.join(root, "tests", f)
        if not os.path.exists(path) or \
                not re.search(rf"^(?:START_)?TEST\((?:\w+, )?{case}\)",
                          open(path).read(), re.M):
            print(f"matrix names {f}:{case}, which is not a test in tests/{f}")
            bad += 1
    # The header is the contract: an error code a row gives must be one its
    # function's kernel-doc names.
    header = open(os.path.join(
        root, "kernel/new-files/include/linux/revocable.h")).read()
    docs = dict(re.findall(r"^/\*\*\n \* (\w+)\(\) - (.*?)^ \*/", header,
                           re.S | re.M))
    # What userspace answers beyond that kernel-doc is in one DOC comment
    # of the template the userspace header is made from: a function it
    # names has those codes too.
    tmpl = open(os.path.join(root, "lib/revocable.h.in")).read()
    user = re.search(r"^ \* DOC: Userspace\n(.*?)^ \*/", tmpl, re.S | re.M)
    for item in re.split(r"^ \* - ", user.group(1) if user else "", flags=re.M):
        for fn in set(re.findall(r"(revocable_\w+)\(\)", item)):
            if fn in docs:
                docs[fn] += " ".join(re.findall(r"-E[A-Z]+", item))
    # A row's error codes must be ones its function's kernel-doc names: the
    # matrix's rows, and the per-call tables of the API contract (kernel-only
    # calls there are documented in kernel/new-files).
    m = re.search(r"^## API contract\n(.*?)^## ", design, re.S | re.M)
    tables = [
        ("matrix row", matrix, True,
         r"^\| `(revocable_\w+|REVOCABLE_\w+)` \|(.*)$"),
        ("API table row", m.group(1) if m else "", False,
         r"^\| (?:⇑ )?`(revocable_\w+)\((?:[^`]*)`(.*)$"),
    ]
    counts = []
    for what, text, needs_doc, rx in tables:
        n = 0
        for fn, cells in re.findall(rx, text, re.M):
            if fn not in docs:
                if needs_doc:
                    print(f"{what} {fn} has no kernel-doc in <linux/revocable.h>")
                    bad += 1
                continue
            n += 1
            for err in sorted(set(re.findall(r"-E[A-Z]+", cells))):
                if err not in docs[fn]:
                    print(f"{what} {fn} gives {err}, which its kernel-doc "
                          f"does not name")
                    bad += 1
        counts.append(n)
    rows, api_rows = counts
    # The fuzzer's oracle: every cell is reached by fuzz/fuzz_ops.c or
    # says there why not.
    fuzz = open(os.path.join(root, "fuzz/fuzz_ops.c")).read()
    fuzzed = {f"misuse_{a}__{b}" for a, b in
              re.findall(r"^\s*FUZZED\((\w+), (\w+)\)", fuzz, re.M)}
    not_fuzzed = {f"misuse_{a}__{b}" for a, b in
                  re.findall(r"^\s*NOT_FUZZED\((\w+), (\w+), \"[^\"]+\"\)",
                             fuzz, re.M)}
    for c in sorted(listed - fuzzed - not_fuzzed):
        print(f"fuzz/fuzz_ops.c's MISUSE_CELLS does not list {c}")
        bad += 1
    for c in sorted((fuzzed | not_fuzzed) - listed):
        print(f"fuzz/fuzz_ops.c's MISUSE_CELLS lists {c}, which is no cell")
        bad += 1
    print(f"misuse matrix: {len(named)} KUnit cells ({len(fuzzed)} fuzzed), "
          f"{len(checks)} userspace tests named, {rows} matrix rows and "
          f"{api_rows} API table rows against the header; {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
