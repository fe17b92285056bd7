#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the revocable_bench lines of a QEMU console log into a table and JSON.

usage: parse_bench.py CONSOLE_LOG OUT_JSON
"""
import json
import re
import sys

RX = re.compile(r"revocable_bench: (\S+) (\d+)$")

# (label, numerator, denominator, target): ratios of the ns/op figures.
RATIOS = [
    ("P6 revocable_access / raw SRCU", "revocable_access", "srcu_read_lock", "<= 1.2x"),
    ("P6 our WITH macro / raw SRCU", "REVOCABLE_TRY_ACCESS_WITH", "srcu_read_lock", "<= 1.2x"),
    ("P6 revocable_try_access / raw SRCU", "revocable_try_access", "srcu_read_lock", "<= 1.2x"),
    ("P6 upstream WITH / revocable_access", "upstream_WITH", "revocable_access", ">= 3x"),
    ("   upstream WITH / our WITH macro", "upstream_WITH", "REVOCABLE_TRY_ACCESS_WITH", ""),
    ("   revocable_access / rcu_read_lock", "revocable_access", "rcu_read_lock", ""),
    ("   revocable_access / percpu_ref", "revocable_access", "percpu_ref_tryget_live", ""),
]


def main():
    res, done = {}, False
    for line in open(sys.argv[1], errors="replace"):
        line = re.sub(r"^\[\s*\d+\.\d+\]\s?", "", line.rstrip())
        if line == "revocable_bench: done":
            done = True
        m = RX.match(line)
        if m:
            res[m.group(1)] = int(m.group(2)) / 1000
    allcpu = next((k.split("@")[1] for k in res if "@" in k), None)
    if not done or not allcpu:
        print("kernel benchmark did not complete")
        print("0 passed, 1 failed")
        sys.exit(1)
    print("In-kernel access round trip (QEMU arm64; median of 7 runs on one CPU)")
    for name, ns in res.items():
        print(f"  {name:32s} {ns:8.2f} ns/op")
    ratios = {}
    for mode, suffix in (("one CPU", ""), (f"all CPUs at once ({allcpu})", "@" + allcpu)):
        print(f"Ratios, {mode}")
        for label, num, den, target in RATIOS:
            if num + suffix in res and den + suffix in res:
                r = res[num + suffix] / res[den + suffix]
                ratios[f"{num}{suffix}/{den}{suffix}"] = r
                print(f"  {label:38s} {r:6.2f}x" + (f" (target {target})" if target else ""))
    json.dump({"ns_per_op": res, "ratios": ratios}, open(sys.argv[2], "w"), indent=2)
    print(f"JSON: {sys.argv[2]}")


main()
