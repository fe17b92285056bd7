#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Test of the tests: build the QEMU test kernel from a scratch copy of this
# tree in which one revoke does not wait for the readers
# (revocable_revoke_wait() replaced by dropping the reference), run the
# kernel-qemu flow, and expect it to FAIL with a use-after-free or a wrong
# result.
#   gpio: the gpiolib conversion's removal; the unplug storm or the
#         kernel's GPIO selftests must catch it
#   fops: revocable_fops_revoke(); the helper's KUnit suite, its kselftest
#         or the evdev storm must catch it
#   fops-6.1: the same on Debian 12's 6.1 (the kernel-qemu-6.1 flow)
#   media: the same edit, with the kernel-qemu-media flow's converted
#         kernel (MEDIA_STOCK=0: no stock run, the last baseline,
#         KDIR/compliance-stock.json, is reused); the media unplug storm
#         must catch it, through v4l2-quick, the driver that frees its
#         state right after video_unregister_device().  That kernel also
#         runs the KUnit suites, the kselftests and the other storms, which
#         see the same edit: only a failure inside the media-storm step (a
#         KASAN report, an oops or a "not ok") counts as caught
#   readside: the domains' read side (drivers/base/revocable_srcu.c), whose
#         grace period returns without waiting for the readers; the core's
#         KUnit suite, the kselftests or the storms must catch it (what
#         they cannot see, the memory ordering, model/kernel.pml checks)
#   faults: not a missing wait but a broken error path:
#         revocable_fops_create() leaks its domain (and the domain's SRCU
#         per-CPU counters) when the provider's allocation fails; the
#         kernel-qemu-faults flow's fault sweep must catch it (kmemleak at
#         its end: fail-nth reaches that allocation in the fops device's
#         and the uinput device's cycles, fail_function through
#         revocable_provider_alloc_in()).  Only a failure inside the
#         fault-sweep step counts as caught
#   srcu-7.2: the 7.2 series' SRCU patch (0010), whose one-grace-period
#         scan ends the grace period when the rank new readers do not use
#         is drained, without looking at the other rank; the plan's
#         rcutorture step must catch it (a reader that sees a freed
#         element: "End of test: FAILURE").  Only a failure inside the
#         rcutorture step counts as caught
#
# usage: tools/test-of-tests.sh gpio|fops|fops-6.1|readside|media|faults|srcu-7.2 [BUILD_KERNEL_DIR]
#        (default build/kernel, build/kernel-6.1 for fops-6.1, build/kernel-7.2
#        for srcu-7.2)
# Prints the flow's output, then "test-of-tests: caught" (exit 0) or
# "test-of-tests: NOT caught" (exit 1).  The next normal kernel-qemu run
# rebuilds the real code.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-}
flow=qemu
kdefault=$repo/build/kernel
console=console.log
storms='gpio|evdev'
# The step a failure must be in to count (media, faults), or any.
step=
case $what in
*-6.1)
	flow=qemu-6.1
	what=${what%-6.1}
	kdefault=$repo/build/kernel-6.1
	;;
media)
	flow=qemu-media
	console='console-media.log'
	storms=media
	step=media-storm
	;;
faults)
	flow=qemu-faults
	console='console-faults.log'
	step=fault-sweep
	;;
srcu-7.2)
	flow=qemu-7.2
	what=srcu
	kdefault=$repo/build/kernel-7.2
	step=rcutorture
	;;
esac
kdir=$(realpath -m "${2:-$kdefault}")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

(cd "$repo" && git ls-files -z | xargs -0 cp --parents -t "$scratch")
case $flow:$what in
qemu:gpio)
	p=$(ls "$scratch"/kernel/series/*gpiolib-protect*.patch)
	sed -i 's/^+\t\trevocable_revoke_wait(rp);$/+\t\trevocable_provider_put(rp);/' "$p"
	new='^+		revocable_provider_put(rp);$'
	;;
qemu:fops | qemu-6.1:fops | qemu-media:media)
	p=$scratch/kernel/new-files/drivers/base/revocable_fops.c
	sed -i 's/^\tret = revocable_revoke_wait(rp);$/\trevocable_provider_put(rp);\n\tret = 0;/' "$p"
	new='^	revocable_provider_put(rp);$'
	;;
*:readside)
	p=$scratch/kernel/new-files/drivers/base/revocable_srcu.c
	sed -i 's|^\tunsigned long unlocks, delay = 1;$|&\n\n\treturn;\t/* test of the tests */|' "$p"
	new='^	return;	/\* test of the tests \*/$'
	;;
qemu-faults:faults)
	# The revocable_domain_free() of the failure path (after "nomem:").
	p=$scratch/kernel/new-files/drivers/base/revocable_fops.c
	sed -i '/^nomem:$/,/^}$/s|^\trevocable_domain_free(rfo->dom);$|\t/* test of the tests: the domain leaks */|' "$p"
	new='^	/\* test of the tests: the domain leaks \*/$'
	;;
qemu-7.2:srcu)
	p=$(ls "$scratch"/kernel/series-7.2/*srcu-end-an-idle*.patch)
	sed -i 's|^+\treturn srcu_readers_lock_idx(ssp, !idx, true, unlocks_cur);$|+\treturn 1;\t/* test of the tests */|' "$p"
	new='^+	return 1;	/\* test of the tests \*/$'
	;;
*)
	echo "usage: $0 gpio|fops|fops-6.1|readside|media|faults|srcu-7.2 [BUILD_KERNEL_DIR]" >&2
	exit 2
	;;
esac
grep -q "$new" "$p" || {
	echo "the scratch edit did not apply"
	exit 2
}
t0=$(date +%s)
rc=0
# The scratch edit makes the committed series stale on purpose.
# media: the converted kernel only, against the last stock baseline.
SERIES_CHECK=0 MEDIA_STOCK=0 "$scratch/kernel/harness/kernel.sh" "$flow" "$scratch" "$kdir" ||
	rc=$?
echo "flow exit status $rc after $(($(date +%s) - t0)) s"
log=$kdir/$console
grep -E 'BUG: KASAN|unexpected: |not ok|still blocked|storm_|: point [0-9]+: |unreferenced object' \
	"$log" | head -n 20 || true
# How long the storm ran before the first report (gpio), or when it came.
awk -v re="INIT: step ($storms)-storm begin at uptime" '$0 ~ re && !t0 { t0 = $NF }
     /^\[.*BUG: KASAN/ && t0 && !done { gsub(/[][]/, ""); done = 1;
	printf "first failure %.1f s into the storm\n", $1 - t0 }' "$log"
grep -m1 -E '^\[ *[0-9.]+\] BUG: KASAN' "$log" | sed 's/^/first report: /' || true
# media, faults, srcu-7.2: the failure must be the step's own (from its begin to its
# end, or to the end of the log if the kernel died in it).
if [ -n "$step" ] && [ $rc != 0 ] &&
	! awk -v s="$step" '$0 ~ "INIT: step " s " begin" { on = 1 }
	       on && /BUG: |Oops|not ok [0-9]/ { found = 1 }
	       $0 ~ "INIT: step " s " end" { on = 0 }
	       END { exit !found }' "$log"; then
	echo "the flow failed, but not in the $step step"
	rc=0
fi
if [ $rc != 0 ]; then
	echo "test-of-tests: caught"
	exit 0
fi
echo "test-of-tests: NOT caught"
exit 1
