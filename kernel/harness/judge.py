#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The QEMU harness's judge: what kernel/harness/kernel.sh runs on a guest's
console once the guest is done.  Three commands, one for each kind of run;
each prints a report and ends with "N passed, N failed".

  console  a test boot against its plan (kernel-qemu and its variants)
  bench    the core's in-kernel benchmark (kernel-bench)
  conv     the conversions' benchmarks, stock and converted kernels in
           interleaved boots (kernel-bench-gpio, -evdev, -media,
           kernel-gpiod-suite)

Shared: the console's time stamps are dropped, a figure over boots is its
median with min-max and interquartile range (spread()), and a judge that
cannot judge fails the run (fatal()).

== console ==

Judge a QEMU console log of the revocable test kernel against its plan.

usage: judge.py console CONSOLE.log PLAN [REPO] [--save FILE]
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
device under test, which must end with its "Grand Total" line; the
kernel's own messages, lines with a printk time stamp, are not read as
its output).  The
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

== bench ==

Turn the revocable_bench lines of QEMU console logs into a table and JSON.

usage: judge.py bench CONSOLE_LOG... OUT_JSON

One log per boot of the same kernel ("ninja -C build kernel-bench" boots
BENCH_BOOTS times).  Each form's ns per access is taken per boot, and so is
its ratio to the raw SRCU pair and to percpu_ref of the same boot (and CPU
count); the table gives the median over the boots with the min-max, and
the ratios' median with the min-max of the per-boot ratios.

== conv ==

Summarise "ninja -C build kernel-bench-gpio", "kernel-bench-evdev" and
"kernel-bench-media".

usage: judge.py conv gpio|evdev|media|gpiod DIR OUT.json

DIR holds one console log per boot, VARIANT-N.log (N the boot's number:
boot N of every variant ran in the same round of the interleaving), each
with lines "GPIOBENCH: user|request|kernel cpus=N ns_per_op=X",
"EVDEVBENCH: version|open|stream cpus=N ns_per_op=X" or "MEDIABENCH:
querycap|gfmt|open|stream|unbind|bind|vivid_life cpus=N ns_per_op=X"
(media's stream: X ns per frame; its rows also carry the frames per
second).

For every loop, CPU count and kernel (stock, converted, and those of the
logs' other variants: gpio's "shared" domain and "unprotected" floor)
it prints the median over the boots with
the min-max and the interquartile range.  Then the ratios converted /
stock, converted / unprotected and each other variant / stock, two ways:
the ratio of the medians, and the median of the per-boot ratios (boot N of
one kernel over boot N of the other) with their min-max and IQR.  The
verdict, as before, compares converted / stock (ratio of the medians) with
the targets: <= 1.02 for the userspace loops, <= 1.05 for the in-kernel
GPIO loop, <= 1.00 for the lifecycle rows of issue 31 (the libgpiod
suite, a chip's or a device's whole life, open + close); the rows that
make up a life have none.
"""
import glob
import json
import os
import re
import statistics
import sys


def fatal(msg):
    """A judge that cannot judge fails the run, with the usual last line."""
    print(msg)
    print("0 passed, 1 failed")
    sys.exit(1)


def quartiles(values):
    """Q1 and Q3, inclusive (within the data's range even for few boots)."""
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def spread(values):
    """Median, min, max, Q1, Q3 and count of a list of per-boot figures."""
    q1, q3 = quartiles(values)
    return {"median": statistics.median(values), "min": min(values),
            "max": max(values), "q1": q1, "q3": q3, "n": len(values)}


def rng(s, lo, hi, prec):
    return f"{s[lo]:.{prec}f}-{s[hi]:.{prec}f}"


# ----- console: a test boot against its plan --------------------------------

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
# A printk time stamp: at the start of a kernel message, or inside a line
# of a program's that a kernel message landed in.
PRINTK_STAMP = r"\[\s*\d+\.\d+\]"
KMSG_PREFIX = re.compile("^" + PRINTK_STAMP + r"\s?")
KMSG_INLINE = re.compile(PRINTK_STAMP)
COMPLIANCE_SECTION = re.compile(r"^(\S.*):\s*$")
COMPLIANCE_TEST = re.compile(r"^\s*test (.+): (OK.*|FAIL.*)$")
COMPLIANCE_TOTAL = re.compile(r"^Grand Total for (\S+) device (\S+): (\d+), "
                              r"Succeeded: (\d+), Failed: (\d+), Warnings: (\d+)")


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
        elif w[0] == "fail-ok" and len(w) >= 3 and "format" in block:
            block.setdefault("fail_ok", {})[w[1]] = " ".join(w[2:])
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
            fatal(f"judge.py console: unknown option {a}")
        else:
            pos.append(a)
        i += 1
    if len(pos) not in (2, 3) or (opt["reference"] and opt["baseline"]):
        fatal("usage: judge.py console CONSOLE.log PLAN [REPO] [--save FILE] "
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


def console(args):
    """judge.py console: see the module's text."""
    argv, opt = options(args)
    suites, steps = read_plan(argv[1])
    baseline = json.load(open(opt["baseline"])) if opt["baseline"] else None
    compliance, totals, cdev, csec = {}, [], None, None
    text = open(argv[0], errors="replace").read()
    # Without the printk time stamps and the colours some programs print
    # on a terminal (v4l2-compliance).
    raw = [ANSI.sub("", l) for l in text.splitlines()]
    lines = [KMSG_PREFIX.sub("", l) for l in raw]
    # The kernel's own messages (a printk time stamp), which may fall in
    # the middle of a program's output: never a line of v4l2-compliance.
    kmsg = [l != r for l, r in zip(lines, raw)]
    problems = []
    in_expected = False
    suite = step = None
    kunit = {s: {} for s in suites}
    results = {s: {} for s in steps}
    begun = set()
    ours = our_identifiers(argv[2]) if len(argv) > 2 else None
    notes = []
    for line, from_kernel in zip(lines, kmsg):
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
        if step and steps[step]["format"] == "compliance" and from_kernel:
            continue
        if step and steps[step]["format"] == "compliance":
            # A kernel message may also land after the start of a line of
            # the program's ("Input ioctls:[   6.18] vivid-000: ..."): the
            # program's part is what precedes the time stamp.
            line = KMSG_INLINE.split(line, 1)[0]
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
    # A step's "fail-ok" results fail on this line's stock kernel too: a
    # note, counted neither as passed nor as failed.
    known = {}
    for s, d in results.items():
        for name, ok in d.items():
            why = next((w for n, w in steps[s].get("fail_ok", {}).items()
                        if name == n or name.endswith(" " + n)), None)
            if why is not None and not ok:
                known[name] = s
                notes.append(f"{name} failed, as it does on stock: {why}")
    every = {}
    for d in list(kunit.values()) + list(results.values()):
        every.update(d)
    for name, ok in sorted(every.items()):
        print(f"{'ok    ' if ok else 'KNOWN ' if name in known else 'FAILED'} {name}")
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
        col[1] += len(d) - sum(1 for n in d if known.get(n) == s)
    passed = sum(c[0] for c in columns.values())
    # Each problem counts as a failure, so the last line alone tells.
    failed = sum(c[1] for c in columns.values()) - passed + len(problems)
    print(", ".join(f"{s}: {c[0]}/{c[1]}" for s, c in columns.items()) +
          f", problems: {len(problems)}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if problems or failed else 0)


# ----- bench: the core's in-kernel benchmark --------------------------------

BENCH_RX = re.compile(r"revocable_bench: (\S+) (\d+)$")
BENCH_LIFE = re.compile(r"revocable_bench: life (\S+) (\d+)$")
# The lifecycle rows, with what each is, and the peer each is compared to.
LIVES = [
    ("domain", "revocable_domain_alloc + free", "srcu"),
    ("provider", "provider alloc + revoke + release (default domain)", "srcu_sync"),
    ("device", "device: domain, provider, reference, access, revoke, free", "srcu_sync"),
    ("srcu", "init_srcu_struct + cleanup_srcu_struct", None),
    ("srcu_sync", "init_srcu_struct, reader, synchronize_srcu, cleanup", None),
    ("percpu_ref", "percpu_ref_init + kill + release + exit", None),
]

# Every form the module may report, in the order of the table, with what
# it is.  A form missing from the logs (revocable_access_bound on a core
# without it) is left out.
FORMS = [
    ("srcu_read_lock", "srcu_read_lock + unlock (raw SRCU pair)"),
    ("srcu_read_lock_fast", "srcu_read_lock_fast + unlock (SRCU-fast, 6.15 on)"),
    ("rcu_read_lock", "rcu_read_lock + unlock"),
    ("percpu_ref_tryget_live", "percpu_ref_tryget_live + put"),
    ("revocable_access_unchecked", "revocable_access_unchecked (call floor)"),
    ("revocable_access", "revocable_access + withdraw (inline)"),
    ("revocable_access_outofline", "revocable_access + withdraw (calls)"),
    ("REVOCABLE_TRY_ACCESS_WITH", "REVOCABLE_TRY_ACCESS_WITH"),
    ("CLASS_revocable", "CLASS(revocable, ...) scope"),
    ("revocable_try_access", "revocable_try_access + withdraw"),
    ("revocable_access_bound", "revocable_access_bound (bound device)"),
    ("upstream_WITH", "upstream WITH (bench/upstream.c)"),
]
SRCU, PREF = "srcu_read_lock", "percpu_ref_tryget_live"

# (label, numerator, denominator, target): the ratios with a target, and
# the comparisons with upstream, each taken per boot.
RATIOS = [
    ("P6 revocable_access / raw SRCU", "revocable_access", SRCU, "<= 1.2x"),
    ("P6 our WITH macro / raw SRCU", "REVOCABLE_TRY_ACCESS_WITH", SRCU, "<= 1.2x"),
    ("P6 CLASS(revocable) / raw SRCU", "CLASS_revocable", SRCU, "<= 1.2x"),
    ("P6 revocable_try_access / raw SRCU", "revocable_try_access", SRCU, "<= 1.2x"),
    ("P6 upstream WITH / revocable_access", "upstream_WITH", "revocable_access", ">= 3x"),
    ("M1 our WITH macro / raw SRCU (mainline)", "REVOCABLE_TRY_ACCESS_WITH", SRCU, "<= 0.6x"),
    ("M1 our WITH macro / SRCU-fast pair", "REVOCABLE_TRY_ACCESS_WITH",
     "srcu_read_lock_fast", "<= 1.1x"),
    ("M1 revocable_access / SRCU-fast pair", "revocable_access", "srcu_read_lock_fast", "<= 1.1x"),
    ("   upstream WITH / our WITH macro", "upstream_WITH", "REVOCABLE_TRY_ACCESS_WITH", ""),
    ("   revocable_access / rcu_read_lock", "revocable_access", "rcu_read_lock", ""),
    ("   revocable_access / percpu_ref", "revocable_access", PREF, ""),
    ("   revocable_access calls / inline", "revocable_access_outofline",
     "revocable_access", ""),
]


def read_boot(path):
    """{name: ns per op} of one console log, or None when it did not finish."""
    res, done = {}, False
    for line in open(path, errors="replace"):
        line = KMSG_PREFIX.sub("", line.rstrip())
        if line == "revocable_bench: done":
            done = True
        m = BENCH_LIFE.match(line)
        if m:
            res["life:" + m.group(1)] = int(m.group(2)) / 1000
            continue
        m = BENCH_RX.match(line)
        if m:
            res[m.group(1)] = int(m.group(2)) / 1000
    return res if done else None


def boot_spread(values):
    """boot_spread() with the values themselves (per_boot)."""
    return dict(spread(values), per_boot=values)


def fmt(s, width=8, prec=2):
    if len(s["per_boot"]) == 1:
        return f"{s['median']:{width}.{prec}f}"
    return (f"{s['median']:{width}.{prec}f} ({s['min']:.{prec}f}-"
            f"{s['max']:.{prec}f})")


def bench(args):
    """judge.py bench: see the module's text."""
    if len(args) < 2:
        fatal("usage: judge.py bench CONSOLE_LOG... OUT_JSON")
    logs, out = args[:-1], args[-1]
    boots = []
    for path in logs:
        res = read_boot(path)
        if res is None:
            print(f"{path}: kernel benchmark did not complete")
        elif not any("@" in k for k in res):
            print(f"{path}: no run on every CPU")
        else:
            boots.append(res)
    if not boots or len(boots) != len(logs):
        print("kernel benchmark did not complete")
        print("0 passed, 1 failed")
        sys.exit(1)
    allcpu = next(k.split("@")[1] for k in boots[0] if "@" in k)
    modes = (("one CPU", ""), (f"all CPUs at once ({allcpu}, per CPU)", "@" + allcpu))
    known = [f for f, _ in FORMS]
    names = known + sorted({k.split("@")[0] for b in boots for k in b
                            if not k.startswith("life:")} - set(known))
    label = dict(FORMS)

    ns, ns_spread, per_form = {}, {}, {}
    for name in names:
        for _, suffix in modes:
            key = name + suffix
            vals = [b[key] for b in boots if key in b]
            if vals:
                ns[key] = statistics.median(vals)
                ns_spread[key] = boot_spread(vals)

    def ratio(num, den):
        """Per-boot ratios num/den, where a boot has both."""
        return [b[num] / b[den] for b in boots if num in b and den in b and b[den]]

    n = len(boots)
    print(f"In-kernel access round trip (QEMU arm64; one CPU: the median of 7 runs "
          f"per boot; median over {n} boot{'s' if n > 1 else ''}"
          f"{', min-max in brackets' if n > 1 else ''})")
    for mode, suffix in modes:
        print(f"Cost per access form, {mode}")
        print(f"  {'form':42} {'ns/access':>24} {'/ raw SRCU':>22} {'/ percpu_ref':>22}")
        for name in names:
            key = name + suffix
            if key not in ns:
                continue
            row = {"ns": ns_spread[key]}
            cols = []
            for tag, den in (("vs_srcu", SRCU), ("vs_percpu_ref", PREF)):
                r = ratio(key, den + suffix)
                if r:
                    row[tag] = boot_spread(r)
                    cols.append(fmt(row[tag], 6) + "x")
                else:
                    cols.append("-")
            per_form[key] = row
            print(f"  {label.get(name, name):42} {fmt(row['ns']):>24} "
                  f"{cols[0]:>22} {cols[1]:>22}")

    ratios, ratio_spread = {}, {}
    for mode, suffix in modes:
        print(f"Ratios, {mode} (per boot, then the median)")
        mainline = any("srcu_read_lock_fast" + suffix in b for b in boots)
        for lab, num, den, target in RATIOS:
            r = ratio(num + suffix, den + suffix)
            # The M rows are mainline's targets: kernels with SRCU-fast.
            if not r or (lab.startswith("M") and not mainline):
                continue
            key = f"{num}{suffix}/{den}{suffix}"
            s = boot_spread(r)
            ratios[key] = s["median"]
            ratio_spread[key] = s
            print(f"  {lab:38s} {fmt(s, 6)}x" + (f" (target {target})" if target else ""))
    lives = {}
    if any("life:" + k in b for k, _, _ in LIVES for b in boots):
        print("A device's life (ns each; per boot, then the median; "
              "ratio to the peer of the same boot)")
        for key, lab, peer in LIVES:
            vals = [b["life:" + key] for b in boots if "life:" + key in b]
            if not vals:
                continue
            row = {"ns": boot_spread(vals)}
            col = ""
            if peer:
                r = ratio("life:" + key, "life:" + peer)
                if r:
                    row["vs_" + peer] = boot_spread(r)
                    col = f"{fmt(row['vs_' + peer], 6)}x {peer}"
            lives[key] = row
            print(f"  {lab:58} {fmt(row['ns'], 10, 0):>26} {col}")
    json.dump({"boots": n, "logs": logs, "lives": lives,
               # The medians over the boots (one boot: that boot's figures),
               # under the names of the single-boot format.
               "ns_per_op": ns, "ratios": ratios,
               "ns_per_op_spread": ns_spread, "ratios_spread": ratio_spread,
               # Per form (NAME or NAME@Ncpu): ns, vs_srcu, vs_percpu_ref,
               # each {median, min, max, per_boot}.
               "forms": per_form},
              open(out, "w"), indent=2)
    print(f"JSON: {out}")


# ----- conv: the conversions' benchmarks, stock against converted -----------

# The line each kind's guest program prints per loop.
CONV_TAG = {"gpio": "GPIOBENCH", "evdev": "EVDEVBENCH", "media": "MEDIABENCH",
            "gpiod": "GPIODBENCH"}
RESULT = re.compile(r"GPIODRESULT: pass=(\d+) fail=(\d+) skip=(\d+) exit=(\d+)")
CONV_LOG = re.compile(r"(\w+)-(\d+)\.log$")
# Per kind, the loops in the order of the report: their target (None: no
# target) and label.
CONV_LOOPS = {
    "gpio": {
        "user": (1.02, "GPIO_V2_LINE_GET_VALUES_IOCTL (userspace)"),
        "request": (1.00, "GPIO_V2_GET_LINE_IOCTL + close, one line (userspace)"),
        "kernel": (1.05, "gpiod_get_value_cansleep() (in kernel)"),
        "open": (1.00, "open + close of the chip's node (userspace)"),
        "chip_create": (None, "gpio-sim chip made in configfs, per chip"),
        "chip_enable": (None, "gpio-sim live=1: probe, gpiochip_add(), per chip"),
        "chip_disable": (None, "gpio-sim live=0: removal and release, per chip"),
        "chip_remove": (None, "gpio-sim chip's configfs directories removed"),
        "chip_life": (1.00, "a gpio-sim chip's whole life (the four above)"),
    },
    "evdev": {
        "version": (1.02, "EVIOCGVERSION (userspace)"),
        "open": (None, "open + close of the event node (userspace)"),
        "stream": (1.02, "uinput write + evdev read, per event"),
        "life": (1.00, "uinput device created, read, destroyed under its reader"),
    },
    "gpiod": {
        "suite": (1.00, "libgpiod's C test suite, gpiod-test's wall time"),
    },
    "media": {
        "querycap": (1.02, "VIDIOC_QUERYCAP on vivid's capture node (userspace)"),
        "gfmt": (1.02, "VIDIOC_G_FMT, video capture (userspace)"),
        "open": (1.02, "open + close of the video node (userspace)"),
        "stream": (1.02, "vivid streaming, VIDIOC_DQBUF + VIDIOC_QBUF, per frame"),
        "unbind": (None, "vivid unbound from its driver under an open file"),
        "bind": (None, "vivid bound again: probe, nodes registered"),
        "vivid_life": (1.00, "a vivid instance's unbind + bind (the two above)"),
    },
}
VARIANTS = ("stock", "converted", "shared", "unprotected", "noaccess")
GP = re.compile(r"GPIOGP: (\w+) hits_per_chip=([\d.]+) us_per_chip=([\d.]+)")


def suite_results(logdir, variants):
    """libgpiod's suite: per boot and kernel its pass/fail/skip counts.
    Passes when every boot of every kernel ran it (one result line),
    converted boots have no failure, and converted and stock pass and skip
    the same tests."""
    counts = {}
    for path in glob.glob(os.path.join(logdir, "*-*.log")):
        m = CONV_LOG.match(os.path.basename(path))
        if not m:
            continue
        r = RESULT.findall(open(path, errors="replace").read())
        counts.setdefault(m.group(1), {})[int(m.group(2))] = (
            tuple(int(x) for x in r[-1]) if r else None)
    print("libgpiod's suite: pass/fail/skip (exit status) per boot")
    bad = 0
    for v in variants:
        if v not in counts:
            continue
        cells = []
        for b, c in sorted(counts[v].items()):
            cells.append(f"boot {b}: " + (f"{c[0]}/{c[1]}/{c[2]} ({c[3]})"
                                          if c else "no result"))
            if c is None or (v == "converted" and (c[1] or c[3])):
                bad += 1
        print(f"  {v:10} " + ", ".join(cells))
    seen = {v: {c[:3] for c in counts.get(v, {}).values() if c}
            for v in ("stock", "converted")}
    if seen["stock"] and seen["converted"] and \
            {(p, s) for p, f, s in seen["stock"]} != \
            {(p, s) for p, f, s in seen["converted"]}:
        print("  converted and stock differ in what passes or skips")
        bad += 1
    print(f"  {'equal, converted never fails' if not bad else 'MISSES'}")
    return {"counts": {v: {str(b): c for b, c in x.items()}
                       for v, x in counts.items()}, "misses": 1 if bad else 0}


def grace_periods(logdir, variants):
    """The GPIOGP rows (kernel-bench-gpio's function profile of a chip's
    life): per function and kernel, the median over the boots of the
    calls and of the time inside per chip.  Functions no kernel calls are
    left out."""
    prof = {}
    for path in glob.glob(os.path.join(logdir, "*-*.log")):
        m = CONV_LOG.match(os.path.basename(path))
        if not m:
            continue
        for g in GP.finditer(open(path, errors="replace").read()):
            prof.setdefault(g.group(1), {}).setdefault(m.group(1), []).append(
                (float(g.group(2)), float(g.group(3))))
    out = {}
    for func, per in prof.items():
        med = {v: {"calls": statistics.median(x[0] for x in per[v]),
                   "us": statistics.median(x[1] for x in per[v]),
                   "boots": len(per[v])}
               for v in variants if v in per}
        if any(m["calls"] for m in med.values()):
            out[func] = med
    if not out:
        return out
    print("What a chip's life calls that waits or allocates per CPU "
          "(ftrace profile, per chip, median of the boots: calls / us inside)")
    have = [v for v in variants if any(v in out[f] for f in out)]
    print(f"  {'function':36}" + "".join(f" {v:>22}" for v in have))
    for func in sorted(out):
        cells = []
        for v in have:
            m = out[func].get(v)
            cells.append(f"{m['calls']:8.2f} / {m['us']:9.1f}" if m else "-")
        print(f"  {func:36}" + "".join(f" {c:>22}" for c in cells))
    return out


def conv(args):
    """judge.py conv: see the module's text."""
    if len(args) != 3 or args[0] not in CONV_TAG:
        fatal("usage: judge.py conv gpio|evdev|media|gpiod DIR OUT.json")
    kind_of_run, logdir, out = args
    line_rx = re.compile(r"%s: (\w+) cpus=(\d+) ns_per_op=([\d.]+)" %
                         CONV_TAG[kind_of_run])
    target_of = {k: x[0] for k, x in CONV_LOOPS[kind_of_run].items()}
    label_of = {k: x[1] for k, x in CONV_LOOPS[kind_of_run].items()}
    # runs[(variant, loop, cpus)][boot] = [ns, ...] (one value a boot).
    runs = {}
    for path in glob.glob(os.path.join(logdir, "*-*.log")):
        m = CONV_LOG.match(os.path.basename(path))
        if not m:
            continue
        variant, boot = m.group(1), int(m.group(2))
        for m in line_rx.finditer(open(path, errors="replace").read()):
            key = (variant, m.group(1), int(m.group(2)))
            runs.setdefault(key, {}).setdefault(boot, []).append(float(m.group(3)))
    if not runs:
        fatal("no benchmark results in the logs")
    found = {k[0] for k in runs}
    variants = [v for v in VARIANTS if v in found] + sorted(found - set(VARIANTS))
    # The pairs of kernels compared, numerator first.
    pairs = [("converted", "stock"), ("converted", "unprotected")]
    pairs += [(v, "stock") for v in variants if v not in ("stock", "converted")]

    rows, misses, judged = [], 0, 0
    loops = list(target_of) + sorted({k[1] for k in runs} - set(target_of))
    for kind in loops:
        for cpus in sorted({k[2] for k in runs if k[1] == kind}):
            have = [v for v in variants if (v, kind, cpus) in runs]
            if "stock" not in have or "converted" not in have:
                continue
            # The boot's own figure: the median of its values (one, normally).
            per_boot = {v: {b: statistics.median(x)
                            for b, x in sorted(runs[(v, kind, cpus)].items())}
                        for v in have}
            all_ns = {v: list(per_boot[v].values()) for v in have}
            sp = {v: spread(all_ns[v]) for v in have}
            med = {v: sp[v]["median"] for v in have}
            target = target_of.get(kind)

            print(f"{label_of.get(kind, kind)}, {cpus} CPU{'s' if cpus > 1 else ''}")
            print(f"  {'kernel':24} {'boots':>5} {'median ns':>10} "
                  f"{'min-max':>19} {'IQR':>19}")
            for v in have:
                s = sp[v]
                print(f"  {v:24} {s['n']:5} {s['median']:10.1f} "
                      f"{rng(s, 'min', 'max', 1):>19} {rng(s, 'q1', 'q3', 1):>19}")
            print(f"  {'ratio':24} {'pairs':>5} {'of medians':>10} "
                  f"{'per-boot median':>16} {'min-max':>13} {'IQR':>13}")
            ratios = {}
            for num, den in pairs:
                if num not in have or den not in have:
                    continue
                boots = sorted(set(per_boot[num]) & set(per_boot[den]))
                rb = [per_boot[num][b] / per_boot[den][b] for b in boots
                      if per_boot[den][b]]
                if not rb:
                    continue
                r = dict(spread(rb), of_medians=med[num] / med[den],
                         per_boot=rb, boots=boots)
                ratios[f"{num}/{den}"] = r
                verdict = ""
                if (num, den) == ("converted", "stock") and target is not None:
                    ok = r["of_medians"] <= target
                    verdict = f"  {'meets' if ok else 'MISSES'} <= {target}"
                print(f"  {num + '/' + den:24} {r['n']:5} {r['of_medians']:10.3f} "
                      f"{r['median']:16.3f} {rng(r, 'min', 'max', 3):>13} "
                      f"{rng(r, 'q1', 'q3', 3):>13}{verdict}")
            conv = ratios.get("converted/stock")
            meets = None
            if target is not None and conv:
                meets = conv["of_medians"] <= target
                judged += 1
                misses += not meets
            row = {"loop": kind, "cpus": cpus, "boots": sp["stock"]["n"],
                   "median_ns": med,
                   "converted_over_stock": med["converted"] / med["stock"]}
            for v in have:
                if v not in ("stock", "converted"):
                    row[v + "_over_stock"] = med[v] / med["stock"]
            if kind_of_run == "media" and kind == "stream":
                # Frames per second of the median boot, per kernel.
                row["median_fps"] = {v: 1e9 / med[v] for v in have}
                print("  frames/s " + ", ".join(
                    f"{v} {row['median_fps'][v]:.0f}" for v in have))
            row.update({
                "all_ns": all_ns,
                # Per kernel: median, min, max, q1, q3 (inclusive
                # quartiles) and n (boots) of the per-boot figures.
                "spread_ns": sp,
                # Per "num/den": of_medians, and the per-boot ratios
                # (boot N over boot N) with their median, min, max, q1,
                # q3, n, the values and the boots they come from.
                "ratios": ratios,
                "target": target, "meets": meets})
            rows.append(row)
    if kind_of_run == "gpiod":
        res = suite_results(logdir, variants)
        misses += res["misses"]
        judged += 1
        rows.append({"suite_results": res})
    gp = grace_periods(logdir, variants)
    if gp:
        rows.append({"grace_periods_per_chip": gp})
    json.dump(rows, open(out, "w"), indent=1)
    print(f"{judged - misses} passed, {misses} failed")


COMMANDS = {"console": console, "bench": bench, "conv": conv}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        fatal(__doc__)
    COMMANDS[sys.argv[1]](sys.argv[2:])
