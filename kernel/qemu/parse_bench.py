#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the revocable_bench lines of a QEMU console log into a table and JSON.

usage: parse_bench.py CONSOLE_LOG OUT_JSON
"""
import json
import re
import sys

RX = re.compile(r"revocable_bench: (ratio )?(\S+) (\d+)$")


def main():
    res, ratios, done = {}, {}, False
    for line in open(sys.argv[1], errors="replace"):
        line = re.sub(r"^\[\s*\d+\.\d+\]\s?", "", line.rstrip())
        if line == "revocable_bench: done":
            done = True
        m = RX.match(line)
        if not m:
            continue
        (ratios if m.group(1) else res)[m.group(2)] = int(m.group(3)) / 1000
    if not done or not res:
        print("kernel benchmark did not complete")
        print("0 passed, 1 failed")
        sys.exit(1)
    print("In-kernel access round trip (QEMU arm64; one CPU: best of 5 runs)")
    for name, ns in res.items():
        print(f"  {name:28s} {ns:8.2f} ns/op")
    print("Ratios")
    print(f"  P6 revocable_access / raw SRCU:       {ratios['access/srcu_x1000']:.2f}x (target <= 1.2x)")
    print(f"  P6 upstream WITH / revocable_access:  {ratios['upstream/access_x1000']:.2f}x faster (target >= 3x)")
    print(f"     upstream WITH / our WITH macro:    {ratios['upstream/with_x1000']:.2f}x faster")
    print(f"     revocable_access / rcu_read_lock:  {ratios['access/rcu_x1000']:.2f}x")
    print(f"     revocable_access / percpu_ref:     {ratios['access/percpu_ref_x1000']:.2f}x")
    print("On every CPU at once (ns per access of one CPU):")
    print(f"  P6 revocable_access / raw SRCU:       {ratios['allcpu_access/srcu_x1000']:.2f}x")
    print(f"  P6 upstream WITH / revocable_access:  {ratios['allcpu_upstream/access_x1000']:.2f}x faster")
    print(f"     revocable_access / percpu_ref:     {ratios['allcpu_access/percpu_ref_x1000']:.2f}x")
    json.dump({"ns_per_op": res, "ratios": {k.replace("_x1000", ""): v for k, v in ratios.items()}},
              open(sys.argv[2], "w"), indent=2)
    print(f"JSON: {sys.argv[2]}")


main()
