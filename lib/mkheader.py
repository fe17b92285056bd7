#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write the userspace <revocable.h> from the kernel's <linux/revocable.h>.

usage: mkheader.py KERNEL_HEADER TEMPLATE OUTPUT

The kernel header is the one text of the API: its types, declarations,
kernel-doc and the scope macros' public halves.  This takes the part of it
between its #include lines and the line that opens its kernel-only tail
("/* ----- inline accesses"), renames __UNIQUE_ID() to the template's
__REVOCABLE_ID(), adds the kernel-doc of the handle calls that the tail
defines inline (userspace exports them as functions) with their
prototypes, and puts it where the template says @KERNEL_DECLARATIONS@.
It fails, rather than write a header that would define or use kernel names
in users' programs, when the part's code (its comments aside) uses anything
only the kernel has.
"""
import re
import sys

TAIL = "/* ----- inline accesses"
# Defined inline in the kernel header's tail, exported by the library.
INLINE_CALLS = ["revocable_access", "revocable_try_access",
                "revocable_withdraw_access"]
# Kernel-only names the shared part's code must not use.
KERNEL_ONLY = [
    "READ_ONCE", "WRITE_ONCE", "current", "__always_inline", "IS_ENABLED",
    "__percpu", "DEFINE_CLASS", "CLASS", "EXPORT_SYMBOL", "EXPORT_SYMBOL_GPL",
    "__cleanup", "unrcu_pointer", "rcu_dereference", "rcu_dereference_raw",
    "__UNIQUE_ID", "unlikely", "likely", "__must_check", "__init",
    "smp_store_release", "smp_load_acquire", "smp_mb", "IS_ERR",
    "IS_ERR_OR_NULL", "rcu_assign_pointer", "WARN", "WARN_ON", "WARN_ONCE",
    "guard", "scoped_guard", "__free", "__force", "u8", "u16", "u32", "u64",
    "srcu_read_lock", "srcu_read_unlock", "revocable_srcu_read_lock",
    "revocable_srcu_read_unlock", "revocable_srcu_enter",
    "revocable_srcu_exit", "revocable_srcu_dereference",
]
# The exported halves of the handle calls, declared in the tail: the
# library's exports.c defines the calls over them.
HALVES = re.compile(r"^void \*?__revocable_(access|try_access|withdraw_access)"
                    r"\([^;]*\);\n", re.M)


def fail(msg):
    sys.exit(f"mkheader.py: {msg}")


def shared_part(text):
    lines = text.splitlines(keepends=True)
    # The header's own block of #include lines: the first run of them.
    incs = []
    for i, l in enumerate(lines):
        if l.startswith("#include "):
            incs.append(i)
        elif incs:
            break
    tails = [i for i, l in enumerate(lines) if l.startswith(TAIL)]
    if not incs or len(tails) != 1 or tails[0] < incs[-1]:
        fail(f"the kernel header needs its #include lines, then one line "
             f"starting {TAIL!r}")
    part = "".join(lines[incs[-1] + 1:tails[0]]).strip("\n") + "\n"
    tail = "".join(lines[tails[0]:])
    for name in INLINE_CALLS:
        # Its kernel-doc, then "static __always_inline TYPE\nNAME(ARGS)\n{".
        m = re.search(r"^(/\*\*\n \* " + name + r"\(\) - .*?^ \*/\n)"
                      r"static __always_inline ([^{;]*?\b" + name +
                      r"\([^)]*\))\n\{", tail, re.S | re.M)
        if not m:
            fail(f"no kernel-doc'd inline definition of {name}() in the tail")
        part += "\n" + m.group(1) + m.group(2) + ";\n"
    halves = [m.group(0) for m in HALVES.finditer(tail)]
    if len(halves) != len(INLINE_CALLS):
        fail("the tail must declare __revocable_access(), "
             "__revocable_try_access() and __revocable_withdraw_access()")
    part += "\n/* The library's halves of the calls above; private. */\n"
    part += "".join(halves)
    return part.replace("__UNIQUE_ID(", "__REVOCABLE_ID(")


def check(part):
    code = re.sub(r"/\*.*?\*/", "", part, flags=re.S)
    for line in code.splitlines():
        if line.startswith("#") and not line.startswith("#define "):
            fail(f"preprocessor line in the shared part: {line.strip()}")
    for name in KERNEL_ONLY:
        if re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", code):
            fail(f"the shared part of the kernel header uses {name}, which "
                 "userspace does not have: move it below the kernel-only tail")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    kernel, template, out = sys.argv[1:]
    part = shared_part(open(kernel).read())
    check(part)
    tmpl = open(template).read()
    if tmpl.count("@KERNEL_DECLARATIONS@") != 1:
        fail(f"{template} needs one @KERNEL_DECLARATIONS@ line")
    text = tmpl.replace("@KERNEL_DECLARATIONS@\n", part)
    with open(out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
