#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Experiment behind the evdev benchmark's analysis (README, "Revocable file
# operations, and evdev"): rebuild the converted evdev benchmark kernel with
# SRCU's two read-side smp_mb() replaced by barrier() (a scratch edit of
# kernel/rcu/srcutree.c in the bench worktree, reverted at the end), boot it
# interleaved with stock, and print the same table.  If the ratio does not
# move, the barrier is not what the conversion costs.  Run
# "ninja -C build kernel-bench-evdev" first (it builds both kernels).
#
# usage: tools/evdev-nobarrier.sh [BOOTS]   (default 11)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
k=$repo/build/kernel
boots=${1:-11}
cd "$k/src-converted"
git checkout -q -f HEAD
sed -i -e 's|\tsmp_mb(); /\* B \*/  /\* Avoid leaking the critical section. \*/|\tbarrier(); /* B: scratch */|' \
	-e 's|\tsmp_mb(); /\* C \*/  /\* Avoid leaking the critical section. \*/|\tbarrier(); /* C: scratch */|' \
	kernel/rcu/srcutree.c
[ "$(grep -c 'scratch' kernel/rcu/srcutree.c)" = 2 ] || { echo "the scratch edit did not apply"; exit 2; }
trap 'git -C "$k/src-converted" checkout -q -f HEAD' EXIT
make -s ARCH=arm64 "CROSS_COMPILE=ccache aarch64-linux-gnu-" O="$k/out-evdev-converted" -j"$(nproc)" Image
dir=$k/bench-nobarrier
mkdir -p "$dir"
rm -f "$dir"/*.log
for i in $(seq "$boots"); do
	for v in stock converted; do
		timeout 900 qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -smp 2 -m 1G \
			-nodefaults -nic none -nographic -no-reboot -monitor none -serial stdio \
			-kernel "$k/out-evdev-$v/arch/arm64/boot/Image" \
			-initrd "$k/bench-evdev/initramfs-$v.cpio.gz" \
			-append "console=ttyAMA0 panic=-1 rdinit=/init" < /dev/null > "$dir/$v-$i.log" 2>&1
	done
done
python3 "$repo/kernel/harness/parse_bench_conv.py" evdev "$dir" "$k/bench-nobarrier.json" || true
