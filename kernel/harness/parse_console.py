#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a QEMU console log of the revocable test kernel against its plan.

usage: parse_console.py CONSOLE.log PLAN [REPO] [--save FILE]
                        [--reference | --baseline FILE]

PLAN is kernel/harness/plan as kernel/harness/kernel.sh resolved it for
the run (the initramfs's /plan, which kernel/guest/init.c ran): the KUnit
suites that report during boot ("kunit SUITE"), the steps init runs after
it ("step NAME SECTION"), and how many results each must have ("expect
N").  A suite's results are the indented TAP lines after "# Subtest:
SUITE", up to the suite's own result; a step's are the TAP lines between
"INIT: step NAME begin" and "INIT: step NAME end", read as its "format"
says (harness: kselftest_harness.h's "ok N FIXTURE.TEST" at any depth;
tap: top-level "ok N DESCRIPTION", named up to a " # " directive;
compliance: v4l2-compliance's "test NAME: RESULT" lines, named after the
device under test, which must end with its "Grand Total" line).  The
summary adds the steps up by SECTION (kselftest, subsystems).

v4l2-compliance judges a driver, not only our code: its results are
compared with a stock kernel's.  --save FILE writes the run's compliance
results (name: OK, OK (Not Supported), FAIL...) as JSON; --reference
(the stock run) notes its compliance failures without counting them;
--baseline FILE (the converted run, FILE the stock run's --save) counts a
compliance failure only where the same test did not fail on stock (a
regression), and a test of the baseline that is missing here as a
failure.

The run fails on any failed, skipped (but for a step's "skip-ok" tests)
or missing result, on a step that did
not run, whose module did not load or whose program init killed at its
bound, on a line of /plan that init did not understand, and on any sign
of a kernel bug: BUG: (which includes KASAN reports), a lockdep splat,
WARNING: (except inside the markers a test prints around a warning it
provokes on purpose), a hung task, an Oops, a panic, a refcount_t warning,
or a run that did not reach the end.  The last line printed is "N passed,
N failed".

A KCSAN report fails the run when a function it names is ours (appears in
REPO's lib/revocable.[ch] or kernel/**/*.c); a report between two
core-kernel functions (the timekeeping fast path's seqcount latch, for
one) is printed as a note and not counted: it is not this project's race,
and failing on it would make the run fail at random.
"""
import glob
import json
import os
import re
import sys

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
ANSI = re.compile(r"\x1b\[[0-9;]*m")
TAP = re.compile(r"^\s*(ok|not ok) (\d+) (\S+)(.*)$")
KCSAN = re.compile(r"BUG: KCSAN: [a-z-]+ in (.*)$")
SUBTEST = re.compile(r"^\s*# Subtest: (\S+)\s*$")
STEP = re.compile(r"^INIT: step (\S+) (begin|end)\b")
# What init prints when a step could not do its part.
STEP_FAILED = re.compile(r"^INIT: step (\S+) ((?:load|modprobe) \S+ failed.*|killed after .*)$")
STEP_NOTE = re.compile(r"^INIT: step (\S+) (unload \S+ failed.*|retried: .*)$")
PLAN_ERROR = re.compile(r"^INIT: plan error")
# The summary's columns, in this order, then any other section of the plan.
SECTIONS = ["kselftest", "subsystems"]
FORMATS = ("harness", "tap", "compliance")
# v4l2-compliance: "Compliance test for vivid device /dev/video0:", then
# "\ttest VIDIOC_QUERYCAP: OK" (or "OK (Not Supported)", "FAIL"...), and
# at the end "Grand Total for vivid device /dev/media0: N, Succeeded: N,
# Failed: N, Warnings: N".
COMPLIANCE_DEV = re.compile(r"^Compliance test for (\S+) device (\S+):")
# A section of the tests of one device ("Format ioctls (Input 0):"): a test
# name recurs in each.
COMPLIANCE_SECTION = re.compile(r"^(\S.*):\s*$")
COMPLIANCE_TEST = re.compile(r"^\s*test (.+): (OK.*|FAIL.*)$")
COMPLIANCE_TOTAL = re.compile(r"^Grand Total for (\S+) device (\S+): (\d+), "
                              r"Succeeded: (\d+), Failed: (\d+), Warnings: (\d+)")


def fatal(msg):
    """A judge that cannot judge fails the run, with the usual last line."""
    print(msg)
    print("0 passed, 1 failed")
    sys.exit(1)


def read_plan(path):
    """The resolved plan's KUnit suites and steps, in order."""
    suites, steps, block = {}, {}, None
    for n, raw in enumerate(open(path), 1):
        w = raw.split()
        if not w or w[0].startswith("#"):
            continue
        if w[0] == "kunit" and len(w) == 2:
            block = suites[w[1]] = {"expect": 0}
        elif w[0] == "step" and len(w) == 3:
            block = steps[w[1]] = {"section": w[2], "format": "tap", "expect": 0}
        elif block is None:
            fatal(f"{path}:{n}: {w[0]} before the first kunit or step")
        elif w[0] == "expect" and len(w) == 2 and w[1].isdigit():
            block["expect"] += int(w[1])
        elif w[0] == "format" and len(w) == 2 and w[1] in FORMATS and "format" in block:
            block["format"] = w[1]
        elif w[0] == "skip-ok" and len(w) >= 3 and "format" in block:
            block.setdefault("skip_ok", set()).add(w[1])
        elif w[0] in ("expect", "format", "kunit", "step"):
            fatal(f"{path}:{n}: not a resolved plan line: {raw.strip()}")
    return suites, steps


def our_identifiers(repo):
    """Every identifier in the C sources that become the kernel series."""
    names = set()
    files = glob.glob(os.path.join(repo, "lib", "revocable.[ch]"))
    files += glob.glob(os.path.join(repo, "kernel", "**", "*.c"), recursive=True)
    for f in files:
        names.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", open(f, errors="replace").read()))
    return names


def kcsan_is_ours(title, ours):
    funcs = [re.sub(r"\+0x.*$", "", f.strip()) for f in title.split(" / ")]
    return ours is None or any(f in ours for f in funcs)


def options(argv):
    """The positional arguments and the --save/--reference/--baseline ones."""
    pos, opt, i = [], {"save": None, "reference": False, "baseline": None}, 0
    while i < len(argv):
        a = argv[i]
        if a in ("--save", "--baseline") and i + 1 < len(argv):
            opt[a[2:]] = argv[i + 1]
            i += 2
            continue
        if a == "--reference":
            opt["reference"] = True
        elif a.startswith("--"):
            fatal(f"parse_console.py: unknown option {a}")
        else:
            pos.append(a)
        i += 1
    if len(pos) not in (2, 3) or (opt["reference"] and opt["baseline"]):
        fatal("usage: parse_console.py CONSOLE.log PLAN [REPO] [--save FILE] "
              "[--reference | --baseline FILE]")
    return pos, opt


def judge_compliance(steps, results, got, totals, baseline, reference, notes):
    """Set each compliance result to passed or failed; the problems found.

    A test passes when v4l2-compliance says OK; a FAIL is a failure unless
    this is the reference run or the baseline has it failing too.  Each
    step must end with v4l2-compliance's Grand Total, whose counts must
    agree with the tests read.
    """
    problems = []
    for s, plan in steps.items():
        if plan["format"] != "compliance" or not results[s]:
            continue
        mine = [t for t in totals if t[0] == s]
        if not mine:
            problems.append(f"step {s}: no v4l2-compliance Grand Total (it did not finish)")
        for _, (drv, dev, n, ok, failed, warn) in mine:
            notes.append(f"v4l2-compliance {drv} {dev}: {n} tests, {ok} succeeded, "
                         f"{failed} failed, {warn} warnings")
        read = len(results[s])
        said = sum(int(t[1][2]) for t in mine)
        if mine and read != said:
            notes.append(f"step {s}: {read} test lines read, Grand Total says {said}")
        for name in results[s]:
            r = got[name]
            if r.startswith("OK"):
                results[s][name] = True
            elif reference:
                results[s][name] = True
                notes.append(f"stock fails: {name}: {r}")
            elif baseline is not None and name in baseline and \
                    not baseline[name].startswith("OK"):
                results[s][name] = True
                notes.append(f"fails on stock too: {name}: {r}")
            else:
                results[s][name] = False
    if baseline is not None:
        for name in sorted(baseline):
            if name not in got and name.split(":")[0] in results:
                problems.append(f"missing here, {baseline[name]} on stock: {name}")
        ok = sum(1 for r in baseline.values() if r.startswith("OK"))
        notes.append(f"v4l2-compliance on stock: {ok} of {len(baseline)} OK; here: "
                     f"{sum(1 for r in got.values() if r.startswith('OK'))} of {len(got)} OK")
    return problems


def main():
    argv, opt = options(sys.argv[1:])
    sys.argv[1:] = argv
    suites, steps = read_plan(sys.argv[2])
    baseline = json.load(open(opt["baseline"])) if opt["baseline"] else None
    compliance, totals, cdev, csec = {}, [], None, None
    text = open(sys.argv[1], errors="replace").read()
    # Without the printk time stamps and the colours some programs print
    # on a terminal (v4l2-compliance).
    lines = [re.sub(r"^\[\s*\d+\.\d+\]\s?", "", ANSI.sub("", l)) for l in text.splitlines()]
    problems = []
    in_expected = False
    suite = step = None
    kunit = {s: {} for s in suites}
    results = {s: {} for s in steps}
    begun = set()
    ours = our_identifiers(sys.argv[3]) if len(sys.argv) > 3 else None
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
        if PLAN_ERROR.match(line):
            problems.append(line.strip())
        m = STEP_FAILED.match(line)
        if m:
            problems.append(f"step {m.group(1)}: {m.group(2)}")
        m = STEP_NOTE.match(line)
        if m:
            notes.append(f"step {m.group(1)}: {m.group(2)}")
        m = SUBTEST.match(line)
        if m and m.group(1) in suites:
            suite, step = m.group(1), None
        m = STEP.match(line)
        if m:
            suite = None
            step = m.group(1) if m.group(2) == "begin" and m.group(1) in steps else None
            if m.group(2) == "begin":
                begun.add(m.group(1))
                if m.group(1) not in steps:
                    problems.append(f"step {m.group(1)} is not in the plan")
        if step and steps[step]["format"] == "compliance":
            m = COMPLIANCE_DEV.match(line)
            if m:
                cdev, csec = f"{m.group(1)} {m.group(2)}", None
            else:
                m = COMPLIANCE_SECTION.match(line)
                if m:
                    csec = m.group(1)
            m = COMPLIANCE_TEST.match(line)
            if m:
                name = f"{step}: {cdev}: {csec}: {m.group(1)}"
                compliance[name] = m.group(2).strip()
                results[step][name] = None	# judged below
            m = COMPLIANCE_TOTAL.match(line)
            if m:
                totals.append((step, m.groups()))
            continue
        m = TAP.match(line)
        if m and (suite or step):
            ok, name, rest = m.group(1) == "ok", m.group(3), m.group(4)
            if "# SKIP" in rest and name not in (
                    steps[step].get("skip_ok", ()) if step else ()):
                problems.append(f"skipped: {name}")
            if suite:
                if line.startswith("    "):
                    kunit[suite][name] = ok
                elif not line.startswith(" "):
                    # The suite's own result closes it.
                    suite = None
            elif steps[step]["format"] == "harness":
                if "." in name:
                    results[step][name] = ok
            elif not line.startswith(" "):
                results[step][(name + rest).split(" # ")[0].strip()] = ok
    if not any("INIT: done" in l for l in lines):
        problems.append("the run did not reach the end (timeout or crash)")
    for s, plan in suites.items():
        if len(kunit[s]) < plan["expect"]:
            problems.append(f"only {len(kunit[s])} KUnit results from suite {s}, "
                            f"expected {plan['expect']}")
    for s, plan in steps.items():
        if s not in begun:
            problems.append(f"step {s} did not run")
        elif len(results[s]) < plan["expect"]:
            problems.append(f"only {len(results[s])} results from step {s}, "
                            f"expected {plan['expect']}")
    problems += judge_compliance(steps, results, compliance, totals, baseline,
                                 opt["reference"], notes)
    if opt["save"]:
        with open(opt["save"], "w") as f:
            json.dump(compliance, f, indent=1, sort_keys=True)
    every = {}
    for d in list(kunit.values()) + list(results.values()):
        every.update(d)
    for name, ok in sorted(every.items()):
        print(f"{'ok    ' if ok else 'FAILED'} {name}")
    for n in notes:
        print(f"note: {n}")
    for p in problems:
        print(f"PROBLEM: {p}")
    columns = {"KUnit": [0, 0]}
    columns.update({s: [0, 0] for s in SECTIONS})
    for d in kunit.values():
        columns["KUnit"][0] += sum(d.values())
        columns["KUnit"][1] += len(d)
    for s, d in results.items():
        col = columns.setdefault(steps[s]["section"], [0, 0])
        col[0] += sum(d.values())
        col[1] += len(d)
    passed = sum(c[0] for c in columns.values())
    # Each problem counts as a failure, so the last line alone tells.
    failed = sum(c[1] for c in columns.values()) - passed + len(problems)
    print(", ".join(f"{s}: {c[0]}/{c[1]}" for s, c in columns.items()) +
          f", problems: {len(problems)}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if problems or failed else 0)


main()
