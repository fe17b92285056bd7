#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Test of the GPIO tests: build the QEMU test kernel from a scratch copy of
# this tree whose gpiolib conversion does not wait for the readers at
# removal (revocable_revoke_wait() replaced by dropping the reference), run
# the kernel-qemu flow, and expect it to FAIL: the unplug storm or the
# kernel's GPIO selftests must catch the use-after-free or the wrong result.
#
# usage: tools/gpio-test-of-tests.sh [BUILD_KERNEL_DIR]   (default build/kernel)
# Prints the flow's output, then "test-of-tests: caught" (exit 0) or
# "test-of-tests: NOT caught" (exit 1).  The next normal kernel-qemu run
# rebuilds the real conversion (only drivers/gpio recompiles).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
kdir=$(realpath -m "${1:-$repo/build/kernel}")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

(cd "$repo" && git ls-files -z | xargs -0 cp --parents -t "$scratch")
p=$(ls "$scratch"/kernel/patches/*gpiolib-protect*.patch)
sed -i 's/^+\t\trevocable_revoke_wait(rp);$/+\t\trevocable_provider_put(rp);/' "$p"
grep -q '^+		revocable_provider_put(rp);$' "$p" || {
	echo "the scratch edit did not apply"
	exit 2
}
t0=$(date +%s)
rc=0
"$scratch/kernel/kernel.sh" qemu "$scratch" "$kdir" || rc=$?
echo "flow exit status $rc after $(($(date +%s) - t0)) s"
grep -E 'BUG: KASAN|unexpected: |not ok|still blocked|storm_' "$kdir/console.log" | head -n 20 || true
# How long the storm ran before the first report.
awk '/INIT: gpio unplug storm begins at uptime/ && !t0 { t0 = $NF }
     /^\[.*BUG: KASAN/ && t0 && !done { gsub(/[][]/, ""); done = 1;
	printf "first failure %.1f s into the storm\n", $1 - t0 }' "$kdir/console.log"
if [ $rc != 0 ]; then
	echo "test-of-tests: caught"
	exit 0
fi
echo "test-of-tests: NOT caught"
exit 1
