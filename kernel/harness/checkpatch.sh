#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh IGNORES PATCH: scripts/checkpatch.pl --strict on PATCH,
# run from the kernel tree in the current directory, with the message
# types IGNORES (comma-separated) ignored.  Prints checkpatch's "total:"
# line; exits 0 when it reports no error and no warning, 1 otherwise, 2
# when one of its helpers failed.  Debian's python3 comes first on PATH:
# scripts/spdxcheck.py needs its python3-ply, and under a python3 without
# it the SPDX check fails silently.  Shared by kernel.sh and export.sh.
set -uo pipefail

out=$(PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict --ignore "$1" "$2" 2>&1)
if echo "$out" | grep -q '^Traceback'; then
	echo "$out"
	echo "checkpatch.sh: a helper of checkpatch.pl failed on ${2##*/}" >&2
	exit 2
fi
total=$(echo "$out" | grep -E '^total:')
echo "$total"
echo "$total" | grep -q '^total: 0 errors, 0 warnings'
