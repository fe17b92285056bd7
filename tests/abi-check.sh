#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Compare the built librevocable.so.1 with the committed ABI baseline
# (abi/librevocable.so.1.abi, recorded by tools/abi-update.sh).  Added
# symbols pass and are listed; any other change fails (abidiff calls a
# changed size of a public struct an "ABI change", not "incompatible", and
# for a library whose structs live in its users that is breaking too), and
# so does a SONAME that does not match the baseline's, until the baseline is
# updated with it.
set -u
lib=$1
baseline=$2
shift 2
# The public header directories (lib/, runtime/include/): --headers-dir2 each.
headers=
for d in "$@"; do
	headers="$headers --headers-dir2 $d"
done
command -v abidiff >/dev/null || { echo "abidiff missing: apt-get install abigail-tools"; exit 1; }
want=$(sed -n 's/.*soname=.\([^"'\'']*\).*/\1/p' "$baseline" | head -n 1)
have=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
if [ "$want" != "$have" ]; then
	echo "SONAME $have, baseline $want: update the baseline with the SONAME (tools/abi-update.sh)"
	exit 1
fi
abidiff $headers --no-added-syms "$baseline" "$lib"
rc=$?
abidiff $headers "$baseline" "$lib" | grep -iE 'added|functions changes summary' || true
if [ $((rc & 12)) != 0 ]; then
	echo "ABI change against $baseline (abidiff status $rc): see above"
	exit 1
fi
if [ $((rc & 3)) != 0 ]; then
	echo "abidiff failed (status $rc)"
	exit 1
fi
echo "ABI of $(basename "$lib") compatible with the baseline (abidiff status $rc)"
