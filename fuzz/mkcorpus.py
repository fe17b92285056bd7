#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Turn fuzz/seeds.txt into libFuzzer inputs for fuzz/fuzz_ops.c.

usage: mkcorpus.py SEEDS.txt FUZZ_OPS.c OUTDIR

The operation and bad-call numbers are read from the enums in fuzz_ops.c,
so the seeds follow the target when operations are added.  A seed line is
"name: op; op; ..." where op is "kind[@ctx] [a [b [c]]]" (kind is the
OP_ name without the prefix, in lower case) or "bad[@ctx] NAME [b]" (NAME a
BAD_ name without the prefix).
"""
import os
import re
import sys


def enum(src, first):
    m = re.search(r"enum[^{]*\{([^}]*\b" + first + r"\b[^}]*)\}", src)
    return [t.strip() for t in m.group(1).split(",") if t.strip()]


def encode(op, kinds, bads):
    words = op.split()
    name, _, ctx = words[0].partition("@")
    ctx = int(ctx or 0)
    args = words[1:]
    if name == "bad":
        bad = bads.index("BAD_" + args[0].upper())
        a, c = bad & 3, bad >> 2
        b = int(args[1]) if len(args) > 1 else 0
    else:
        a, b, c = (list(map(int, args)) + [0, 0, 0])[:3]
    kind = kinds.index("OP_" + name.upper())
    assert ctx < 3 and a < 4 and b < 4 and c < 16, op
    return bytes([kind | ctx << 5, a | b << 2 | c << 4])


def main():
    seeds, target, out = sys.argv[1:4]
    src = open(target).read()
    kinds, bads = enum(src, "OP_ALLOC"), enum(src, "BAD_REVOKE_NULL")
    os.makedirs(out, exist_ok=True)
    for old in os.listdir(out):
        os.unlink(os.path.join(out, old))
    for line in open(seeds):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, prog = line.partition(":")
        data = b"".join(encode(op.strip(), kinds, bads)
                        for op in prog.split(";") if op.strip())
        with open(os.path.join(out, name.strip()), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
