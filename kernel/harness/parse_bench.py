#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the revocable_bench lines of QEMU console logs into a table and JSON.

usage: parse_bench.py CONSOLE_LOG... OUT_JSON

One log per boot of the same kernel ("ninja -C build kernel-bench" boots
BENCH_BOOTS times).  Each form's ns per access is taken per boot, and so is
its ratio to the raw SRCU pair and to percpu_ref of the same boot (and CPU
count); the table gives the median over the boots with the min-max, and
the ratios' median with the min-max of the per-boot ratios.
"""
import json
import re
import statistics
import sys

RX = re.compile(r"revocable_bench: (\S+) (\d+)$")
LIFE = re.compile(r"revocable_bench: life (\S+) (\d+)$")
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
        line = re.sub(r"^\[\s*\d+\.\d+\]\s?", "", line.rstrip())
        if line == "revocable_bench: done":
            done = True
        m = LIFE.match(line)
        if m:
            res["life:" + m.group(1)] = int(m.group(2)) / 1000
            continue
        m = RX.match(line)
        if m:
            res[m.group(1)] = int(m.group(2)) / 1000
    return res if done else None


def spread(values):
    """Median, min and max of a list."""
    return {"median": statistics.median(values), "min": min(values),
            "max": max(values), "per_boot": values}


def fmt(s, width=8, prec=2):
    if len(s["per_boot"]) == 1:
        return f"{s['median']:{width}.{prec}f}"
    return (f"{s['median']:{width}.{prec}f} ({s['min']:.{prec}f}-"
            f"{s['max']:.{prec}f})")


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip())
        sys.exit(2)
    logs, out = sys.argv[1:-1], sys.argv[-1]
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
                ns_spread[key] = spread(vals)

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
                    row[tag] = spread(r)
                    cols.append(fmt(row[tag], 6) + "x")
                else:
                    cols.append("-")
            per_form[key] = row
            print(f"  {label.get(name, name):42} {fmt(row['ns']):>24} "
                  f"{cols[0]:>22} {cols[1]:>22}")

    ratios, ratio_spread = {}, {}
    for mode, suffix in modes:
        print(f"Ratios, {mode} (per boot, then the median)")
        for lab, num, den, target in RATIOS:
            r = ratio(num + suffix, den + suffix)
            if not r:
                continue
            key = f"{num}{suffix}/{den}{suffix}"
            s = spread(r)
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
            row = {"ns": spread(vals)}
            col = ""
            if peer:
                r = ratio("life:" + key, "life:" + peer)
                if r:
                    row["vs_" + peer] = spread(r)
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


main()
