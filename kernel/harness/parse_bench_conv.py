#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise "ninja -C build kernel-bench-gpio", "kernel-bench-evdev" and
"kernel-bench-media".

usage: parse_bench_conv.py gpio|evdev|media|gpiod DIR OUT.json

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

KIND = sys.argv[1]
LINE = re.compile(r"%s: (\w+) cpus=(\d+) ns_per_op=([\d.]+)" %
                  {"gpio": "GPIOBENCH", "evdev": "EVDEVBENCH",
                   "media": "MEDIABENCH", "gpiod": "GPIODBENCH"}[KIND])
RESULT = re.compile(r"GPIODRESULT: pass=(\d+) fail=(\d+) skip=(\d+) exit=(\d+)")
LOG = re.compile(r"(\w+)-(\d+)\.log$")
# Per kind, the loops in the order of the report: their target (None: no
# target) and label.
LOOPS = {
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
}[KIND]
TARGET = {k: v[0] for k, v in LOOPS.items()}
LABEL = {k: v[1] for k, v in LOOPS.items()}
VARIANTS = ("stock", "converted", "shared", "unprotected", "noaccess")


def quartiles(values):
    """Q1 and Q3, inclusive (within the data's range even for few boots)."""
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def spread(values):
    q1, q3 = quartiles(values)
    return {"median": statistics.median(values), "min": min(values),
            "max": max(values), "q1": q1, "q3": q3, "n": len(values)}


def rng(s, lo, hi, prec):
    return f"{s[lo]:.{prec}f}-{s[hi]:.{prec}f}"


GP = re.compile(r"GPIOGP: (\w+) hits_per_chip=([\d.]+) us_per_chip=([\d.]+)")


def suite_results(logdir, variants):
    """libgpiod's suite: per boot and kernel its pass/fail/skip counts.
    Passes when every boot of every kernel ran it (one result line),
    converted boots have no failure, and converted and stock pass and skip
    the same tests."""
    counts = {}
    for path in glob.glob(os.path.join(logdir, "*-*.log")):
        m = LOG.match(os.path.basename(path))
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
        m = LOG.match(os.path.basename(path))
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


def main():
    # runs[(variant, loop, cpus)][boot] = [ns, ...] (one value a boot).
    runs = {}
    for path in glob.glob(os.path.join(sys.argv[2], "*-*.log")):
        m = LOG.match(os.path.basename(path))
        if not m:
            continue
        variant, boot = m.group(1), int(m.group(2))
        for m in LINE.finditer(open(path, errors="replace").read()):
            key = (variant, m.group(1), int(m.group(2)))
            runs.setdefault(key, {}).setdefault(boot, []).append(float(m.group(3)))
    if not runs:
        print("no benchmark results in the logs")
        print("0 passed, 1 failed")
        sys.exit(1)
    found = {k[0] for k in runs}
    variants = [v for v in VARIANTS if v in found] + sorted(found - set(VARIANTS))
    # The pairs of kernels compared, numerator first.
    pairs = [("converted", "stock"), ("converted", "unprotected")]
    pairs += [(v, "stock") for v in variants if v not in ("stock", "converted")]

    rows, misses, judged = [], 0, 0
    loops = list(TARGET) + sorted({k[1] for k in runs} - set(TARGET))
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
            target = TARGET.get(kind)

            print(f"{LABEL.get(kind, kind)}, {cpus} CPU{'s' if cpus > 1 else ''}")
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
            if KIND == "media" and kind == "stream":
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
    if KIND == "gpiod":
        res = suite_results(sys.argv[2], variants)
        misses += res["misses"]
        judged += 1
        rows.append({"suite_results": res})
    gp = grace_periods(sys.argv[2], variants)
    if gp:
        rows.append({"grace_periods_per_chip": gp})
    json.dump(rows, open(sys.argv[3], "w"), indent=1)
    print(f"{judged - misses} passed, {misses} failed")


main()
