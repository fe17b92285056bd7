#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# lib/mkheader.py, which makes the installed <revocable.h> from the
# kernel's <linux/revocable.h>: it must carry every call the library
# exports (lib/revocable.map's revocable_*, from the symbols of the built
# library), and it must refuse a kernel header whose shared part uses a
# kernel-only name, that lost its tail marker, or whose inline handle
# call lost its kernel-doc.
#
# usage: mkheader-check.sh MKHEADER KERNEL_HEADER TEMPLATE LIBRARY
set -eu
mk=$1 kh=$2 tmpl=$3 lib=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

python3 "$mk" "$kh" "$tmpl" "$tmp/revocable.h"
# Every exported revocable_* function is declared, with its kernel-doc.
for f in $(nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' |
	   sed 's/@.*//' | grep '^revocable_' | sort -u); do
	if ! grep -q "^ \* $f() - " "$tmp/revocable.h" ||
	   ! grep -Eq "(^|[ *])$f\(" "$tmp/revocable.h"; then
		echo "mkheader-check: $f is exported but not documented and declared"
		bad=1
	fi
done

# must_fail WHAT SED_EXPR: the generator refuses the edited kernel header.
must_fail() {
	sed "$2" "$kh" > "$tmp/k.h"
	if cmp -s "$kh" "$tmp/k.h"; then
		echo "mkheader-check: the edit for '$1' changed nothing"
		bad=1
	elif python3 "$mk" "$tmp/k.h" "$tmpl" "$tmp/out.h" 2>"$tmp/err"; then
		echo "mkheader-check: $1 was accepted"
		bad=1
	else
		echo "mkheader-check: $1 refused: $(cat "$tmp/err")"
	fi
}
must_fail "READ_ONCE() in the shared part" \
	's|^/\* ----- providers -.*|#define __revocable_peek(x) READ_ONCE(x)\n&|'
must_fail "current in the shared part" \
	's|^/\* ----- providers -.*|#define __revocable_me() current\n&|'
must_fail "an #include in the shared part" \
	's|^/\* ----- providers -.*|#include <linux/kref.h>\n&|'
must_fail "a missing tail marker" 's|^/\* ----- inline accesses|/* inline accesses|'
must_fail "revocable_try_access() without kernel-doc" \
	's|^ \* revocable_try_access() - .*| * try_access - undocumented|'
[ $bad = 0 ] && echo "mkheader-check: ok"
exit $bad
