#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise "ninja -C build kernel-bench-gpio" and "kernel-bench-evdev".

usage: parse_bench_conv.py gpio|evdev DIR OUT.json

DIR holds one console log per boot, VARIANT-N.log, each with lines
"GPIOBENCH: user|kernel cpus=N ns_per_op=X" or "EVDEVBENCH:
version|stream cpus=N ns_per_op=X".  Prints, per loop and CPU count, the
median over the boots of each kernel and the ratios to stock, against the
targets: converted / stock <= 1.02 for the userspace loops and <= 1.05 for
the in-kernel GPIO loop.  A third kernel, when the logs have one (gpio's
"shared" domain variant, evdev's "nobarrier" experiment), gets a column of
its own.
"""
import glob
import json
import os
import re
import statistics
import sys

KIND = sys.argv[1]
LINE = re.compile(r"%s: (\w+) cpus=(\d+) ns_per_op=([\d.]+)" %
                  {"gpio": "GPIOBENCH", "evdev": "EVDEVBENCH"}[KIND])
TARGET = {"user": 1.02, "kernel": 1.05, "version": 1.02, "stream": 1.02}
LABEL = {"user": "GPIO_V2_LINE_GET_VALUES_IOCTL (userspace)",
         "kernel": "gpiod_get_value_cansleep() (in kernel)",
         "version": "EVIOCGVERSION (userspace)",
         "stream": "uinput write + evdev read, per event"}


def main():
    runs = {}
    for path in sorted(glob.glob(os.path.join(sys.argv[2], "*-*.log"))):
        variant = os.path.basename(path).rsplit("-", 1)[0]
        for m in LINE.finditer(open(path, errors="replace").read()):
            key = (variant, m.group(1), int(m.group(2)))
            runs.setdefault(key, []).append(float(m.group(3)))
    if not runs:
        print("no benchmark results in the logs")
        print("0 passed, 1 failed")
        sys.exit(1)
    rows, misses = [], 0
    third = next((v for v in ("shared", "nobarrier") if any(k[0] == v for k in runs)),
                 "shared")
    print(f"{'loop':44} {'CPUs':>4} {'stock ns':>9} {'conv ns':>9} "
          f"{'conv/stock':>10} {third + ' ns':>9} {third + '/stock':>12} boots")
    for kind in ("user", "kernel", "version", "stream"):
        for cpus in sorted({k[2] for k in runs if k[1] == kind}):
            med = {v: statistics.median(runs[(v, kind, cpus)])
                   for v in ("stock", "converted", third) if (v, kind, cpus) in runs}
            if "stock" not in med or "converted" not in med:
                continue
            ratio = med["converted"] / med["stock"]
            shared = med.get(third)
            ok = ratio <= TARGET[kind]
            misses += not ok
            n = len(runs[("stock", kind, cpus)])
            q = {v: statistics.quantiles(runs[(v, kind, cpus)], n=4)
                 for v in ("stock", "converted") if len(runs[(v, kind, cpus)]) > 1}
            print(f"{LABEL[kind]:44} {cpus:>4} {med['stock']:9.1f} {med['converted']:9.1f} "
                  f"{ratio:10.3f} {shared if shared else float('nan'):9.1f} "
                  f"{(shared / med['stock']) if shared else float('nan'):12.3f} {n:>5}"
                  f"  {'meets' if ok else 'MISSES'} <= {TARGET[kind]}"
                  + "".join(f"  {v} IQR {q[v][0]:.0f}-{q[v][2]:.0f}" for v in q))
            rows.append({"loop": kind, "cpus": cpus, "boots": n, "median_ns": med,
                         "converted_over_stock": ratio,
                         third + "_over_stock": shared / med["stock"] if shared else None,
                         "all_ns": {v: runs[(v, kind, cpus)] for v in med}})
    json.dump(rows, open(sys.argv[3], "w"), indent=1)
    print(f"{len(rows) - misses} passed, {misses} failed")


main()
