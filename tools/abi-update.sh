#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Record the ABI of the built librevocable.so.1 as the baseline that the
# "abi" test compares against (abi/librevocable.so.1.abi).  Run it only
# together with a change the ABI policy allows: additions under a new
# version node, or an incompatible change with a new SONAME (and then the
# baseline's file name follows the SONAME).  See docs/design.md, "The inline fast path and the ABI".
#
# usage: tools/abi-update.sh [BUILD_DIR]   (default build)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
lib=$(ls "$build"/lib/librevocable.so.1.*.* | head -n 1)
abidw --headers-dir "$repo/lib" --headers-dir "$repo/runtime/include" --no-corpus-path --out-file "$repo/abi/librevocable.so.1.abi" "$lib"
# The licence tag, as an XML comment after the corpus (abidiff reads the
# file's type from its first bytes).
echo '<!-- SPDX-License-Identifier: LGPL-2.1-or-later -->' >> "$repo/abi/librevocable.so.1.abi"
echo "baseline: abi/librevocable.so.1.abi from $(basename "$lib")"
