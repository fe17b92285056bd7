#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write a benchmark's latest record into bench/results/.

usage: tools/record-result.py SRC.json NAME [--recorded-in COMMIT]

bench/results/ keeps one file per benchmark, NAME.json, the record behind
the figures docs/performance.md quotes now.  A new run replaces it in the
commit that changes those figures; earlier records stay in main's history
(`git log -- bench/results/NAME.json`).  A run that changes no figure is
not committed: its record stays under the build directory where the
benchmark target wrote it.

The record must have the fields docs/performance.md lists.  It is written
one key a line, and a list of objects (a table's rows) one object a line,
so that a record stays short and a new run's diff reads row by row.
"""
import json
import sys

REQUIRED = ("SPDX-License-Identifier", "what", "date", "machine")
# One of these: the command line, or several.
COMMAND = ("command", "commands")


def one(o):
    return json.dumps(o, ensure_ascii=False)


def encode(o, ind=0):
    pad = " " * (ind + 1)
    if isinstance(o, list):
        if any(isinstance(x, dict) for x in o):
            return "[\n" + ",\n".join(pad + one(x) for x in o) + "\n" + " " * ind + "]"
        return one(o)
    if isinstance(o, dict) and len(one(o)) + ind > 100:
        items = (pad + one(k) + ": " + encode(v, ind + 1) for k, v in o.items())
        return "{\n" + ",\n".join(items) + "\n" + " " * ind + "}"
    return one(o)


def main(argv):
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != "--recorded-in"):
        sys.exit(__doc__.split("\n\n")[1])
    with open(argv[1]) as f:
        rec = json.load(f)
    missing = [k for k in REQUIRED if k not in rec]
    if not any(k in rec for k in COMMAND):
        missing.append("command")
    if missing:
        sys.exit("%s: missing %s (docs/performance.md, Recording a result)"
                 % (argv[1], ", ".join(missing)))
    if len(argv) == 5:
        rec["recorded_in"] = argv[4]
    out = "bench/results/%s.json" % argv[2]
    with open(out, "w") as f:
        f.write(encode(rec) + "\n")
    print("%s: %d lines" % (out, len(encode(rec).splitlines())))


if __name__ == "__main__":
    main(sys.argv)
