#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a QEMU console log of the revocable test kernel.

Counts the KUnit and kselftest TAP results, and fails the run on any
failed or missing test, or on any sign of a kernel bug: BUG: (which
includes KASAN reports), a lockdep splat, WARNING: (except inside the markers a test
prints around a warning it provokes on purpose), a hung task, an Oops,
a panic, or a run that did not reach the end.  The last line printed is
"N passed, N failed".

usage: parse_console.py CONSOLE.log N_KUNIT N_SELFTEST [REPO [N_GPIO]]

N_GPIO results are expected from the stage of the converted subsystems
(where gpio-sim is built, the kernel's own tools/testing/selftests/gpio
through its kselftest runner and the GPIO unplug storm; where uinput is,
the evdev unplug storm), printed between "INIT: gpio tests begin" and
"INIT: gpio tests end"; its own WARNINGs count like any other.  The
summary calls them "subsystems".

A KCSAN report fails the run when a function it names is ours (appears in
REPO's lib/ or kernel/ sources); a report between two core-kernel functions
(the timekeeping fast path's seqcount latch, for one) is printed as a note
and not counted: it is not this project's race, and failing on it would
make the run fail at random.
"""
import glob
import os
import re
import sys

EXPECTED_KUNIT = int(sys.argv[2]) if len(sys.argv) > 2 else 1
EXPECTED_SELFTEST = int(sys.argv[3]) if len(sys.argv) > 3 else 1
EXPECTED_GPIO = int(sys.argv[5]) if len(sys.argv) > 5 else 0

BAD = [
    (re.compile(r"\bBUG:"), "BUG"),
    (re.compile(r"possible (recursive|circular) locking|inconsistent lock state|"
                r"suspicious RCU usage|lock held when returning|"
                r"possible irq lock inversion|bad unlock balance"), "lockdep report"),
    (re.compile(r"blocked for more than \d+ seconds"), "hung task"),
    (re.compile(r"Internal error:|Oops|Kernel panic|Unable to handle kernel"), "oops/panic"),
    (re.compile(r"refcount_t: "), "refcount warning"),
]
WARN = re.compile(r"WARNING:")
TAP = re.compile(r"^\s*(ok|not ok) (\d+) (\S+)(.*)$")
KCSAN = re.compile(r"BUG: KCSAN: [a-z-]+ in (.*)$")


def our_identifiers(repo):
    """Every identifier in the C sources that become the kernel series."""
    names = set()
    files = [os.path.join(repo, "lib", "revocable.c"), os.path.join(repo, "lib", "revocable.h")]
    files += glob.glob(os.path.join(repo, "kernel", "**", "*.c"), recursive=True)
    for f in files:
        names.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", open(f, errors="replace").read()))
    return names


def kcsan_is_ours(title, ours):
    funcs = [re.sub(r"\+0x.*$", "", f.strip()) for f in title.split(" / ")]
    return ours is None or any(f in ours for f in funcs)


def main():
    text = open(sys.argv[1], errors="replace").read()
    lines = [re.sub(r"^\[\s*\d+\.\d+\]\s?", "", l) for l in text.splitlines()]
    problems = []
    in_expected = False
    section = None
    kunit, selftest, gpio = {}, {}, {}
    ours = our_identifiers(sys.argv[4]) if len(sys.argv) > 4 else None
    notes = []
    for line in lines:
        m = KCSAN.search(line)
        if m:
            if kcsan_is_ours(m.group(1), ours):
                problems.append(f"KCSAN: {line.strip()}")
            else:
                notes.append(f"KCSAN report outside revocable code, not counted: {m.group(1)}")
            continue
        if "revocable_test: expected warning begin" in line:
            in_expected = True
        elif "revocable_test: expected warning end" in line:
            in_expected = False
        for rx, what in BAD:
            if rx.search(line):
                problems.append(f"{what}: {line.strip()}")
        if WARN.search(line) and not in_expected:
            problems.append(f"unexpected warning: {line.strip()}")
        if "# Subtest: revocable" in line or "# Subtest: input_core" in line:
            section = "kunit"
        if line.startswith("INIT: revocable_test.ko loaded"):
            section = "selftest"
        if line.startswith("INIT: gpio tests begin"):
            section = "gpio"
        if line.startswith("INIT: gpio tests end"):
            section = None
        m = TAP.match(line)
        if m and section:
            ok, name, rest = m.group(1) == "ok", m.group(3), m.group(4)
            if "# SKIP" in rest:
                problems.append(f"skipped: {name}")
            if section == "kunit" and line.startswith("    "):
                kunit[name] = ok
            elif section == "selftest" and "." in name:
                selftest[name] = ok
            elif section == "gpio" and not line.startswith(" "):
                gpio[(name + rest).split(" # ")[0].strip()] = ok
    if not any("INIT: done" in l for l in lines):
        problems.append("the run did not reach the end (timeout or crash)")
    if len(kunit) < EXPECTED_KUNIT:
        problems.append(f"only {len(kunit)} KUnit results, expected {EXPECTED_KUNIT}")
    if len(selftest) < EXPECTED_SELFTEST:
        problems.append(f"only {len(selftest)} selftest results, expected {EXPECTED_SELFTEST}")
    if len(gpio) < EXPECTED_GPIO:
        problems.append(f"only {len(gpio)} subsystem results, expected {EXPECTED_GPIO}")
    for name, ok in sorted({**kunit, **selftest, **gpio}.items()):
        print(f"{'ok    ' if ok else 'FAILED'} {name}")
    for n in notes:
        print(f"note: {n}")
    for p in problems:
        print(f"PROBLEM: {p}")
    passed = sum(kunit.values()) + sum(selftest.values()) + sum(gpio.values())
    # Each problem counts as a failure, so the last line alone tells.
    failed = len(kunit) + len(selftest) + len(gpio) - passed + len(problems)
    print(f"KUnit: {sum(kunit.values())}/{len(kunit)}, "
          f"kselftest: {sum(selftest.values())}/{len(selftest)}, "
          f"subsystems: {sum(gpio.values())}/{len(gpio)}, "
          f"problems: {len(problems)}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if problems or failed else 0)


main()
