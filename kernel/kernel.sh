#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel flow behind "ninja -C build kernel-patches" and
# "ninja -C build kernel-qemu".
#
# usage: kernel.sh patches|qemu|qemu-kcsan|bench REPO KDIR
#   REPO  this project's checkout
#   KDIR  working directory in the build dir (never in the repo):
#         src/      Debian's linux-source-6.12, extracted once, a git tree
#                   whose tag "pristine" is the unmodified source; the
#                   series is applied to it with git am
#         gen/      a second work tree where the series is generated
#         patches/  the series
#         out/      the arm64 test build (O=); out-kcsan/ the KCSAN one,
#                   out-bench/ the benchmark one
#         console.log, initramfs/ ...
#
# Environment: QEMU_TIMEOUT (seconds, default 900), JOBS (default nproc),
# REVOCABLE_LIB_C (package another revocable.c, for testing the tests).
set -euo pipefail

cmd=$1
repo=$(realpath "$2")
kdir=$(realpath -m "$3")
t0=$(date +%s)
jobs=${JOBS:-$(nproc)}
cross=aarch64-linux-gnu-
command -v ccache >/dev/null && cross="ccache $cross"
out=$kdir/out			# the test kernel; the benchmark one is out-bench
config=$repo/kernel/revocable.config
log=$kdir/console.log
stamps=$kdir/stamps
sel=tools/testing/selftests/drivers/base/revocable

kmake() {
	make -s ARCH=arm64 "CROSS_COMPILE=$cross" O="$out" -j"$jobs" "$@"
}

stage() {
	printf '[%5ds] %s\n' $(($(date +%s) - t0)) "$*"
}

die() {
	stage "FAILED: $*"
	echo "0 passed, 1 failed"
	exit 1
}

# preflight STAGE: every program the flow runs, with the Debian package
# that provides it, checked before anything is built, so that a machine
# missing one stops with its name instead of failing halfway.
preflight() {
	local miss=() pair
	local tools=(make:make gcc:build-essential aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu
		bc:bc bison:bison flex:flex cpio:cpio xz:xz-utils git:git python3:python3
		perl:perl gzip:gzip)

	[ "$1" = patches ] || tools+=(qemu-system-aarch64:qemu-system-arm)
	for pair in "${tools[@]}"; do
		command -v "${pair%%:*}" >/dev/null || miss+=("${pair#*:}")
	done
	if [ "$1" != patches ] && [ ! -f /usr/aarch64-linux-gnu/lib/libc.a ]; then
		miss+=(libc6-dev-arm64-cross)
	fi
	[ -f /usr/include/openssl/ssl.h ] || miss+=(libssl-dev)
	[ -f /usr/include/libelf.h ] || miss+=(libelf-dev)
	[ ${#miss[@]} = 0 ] ||
		die "missing packages: ${miss[*]} (apt-get install them; see README)"
}

tarball() {
	local t
	t=$(dpkg -L linux-source-6.12 2>/dev/null | grep -E '/linux-source-6\.12\.tar\.xz$' | head -n 1)
	[ -n "$t" ] || t=/usr/src/linux-source-6.12.tar.xz
	[ -f "$t" ] || die "linux-source-6.12 is not installed (see README)"
	echo "$t"
}

extract() {
	local g=(git -c user.name=librevocable -c user.email=librevocable@localhost)

	[ -f "$stamps/extracted" ] && return
	stage "extracting $(tarball) into $kdir/src (once)"
	rm -rf "$kdir/src" "$kdir/gen" "$kdir/linux-source-6.12"
	mkdir -p "$kdir" "$stamps"
	tar -xJf "$(tarball)" -C "$kdir"
	mv "$kdir/linux-source-6.12" "$kdir/src"
	stage "recording the pristine tree in git"
	"${g[@]}" -C "$kdir/src" init -q
	# Debian's .gitignore ignores the whole top level: add with -f.
	"${g[@]}" -C "$kdir/src" add -f -A
	"${g[@]}" -C "$kdir/src" commit -q -m "Debian linux-source-6.12, pristine"
	"${g[@]}" -C "$kdir/src" tag pristine
	"${g[@]}" -C "$kdir/src" worktree add -q --detach ../gen pristine
	touch "$stamps/extracted"
}

patches() {
	local p out errs=0

	extract
	stage "generating the patch series"
	"$repo/kernel/mkseries.sh" "$repo" "$kdir/gen" "$kdir/patches" | sed 's/^/         /'
	stage "scripts/checkpatch.pl --strict"
	for p in "$kdir"/patches/*.patch; do
		out=$(cd "$kdir/gen" && scripts/checkpatch.pl --strict "$p" 2>&1 | grep -E '^total:') || true
		printf '         %s: %s\n' "$(basename "$p")" "$out"
		echo "$out" | grep -q '^total: 0 errors, 0 warnings' || errs=1
	done
	[ $errs = 0 ] || die "checkpatch reported errors or warnings"
	stage "scripts/kernel-doc -none"
	out=$(cd "$kdir/gen" && scripts/kernel-doc -none -Wall drivers/base/revocable.c \
		drivers/base/revocable_devm.c \
		include/linux/revocable.h drivers/base/revocable_test.c 2>&1)
	[ -z "$out" ] || { echo "$out"; die "kernel-doc warnings"; }
	stage "series ready in $kdir/patches"
}

apply() {
	local sum

	sum=$(cat "$kdir"/patches/*.patch | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$stamps/applied" 2>/dev/null)" = "$sum" ]; then
		stage "series unchanged since last applied"
		return
	fi
	stage "applying the series with git am to a clean copy"
	git -C "$kdir/src" checkout -q -f --detach pristine
	git -C "$kdir/src" clean -q -fdx
	git -C "$kdir/src" -c user.name=librevocable -c user.email=librevocable@localhost \
		am -q "$kdir"/patches/*.patch
	echo "$sum" > "$stamps/applied"
}

configure() {
	local opt

	# Always from scratch: cheap next to a build, and a .config that is
	# identical to the last one triggers no rebuild.
	stage "configuring: tinyconfig + kernel/$(basename "$config")"
	mkdir -p "$out"
	(cd "$kdir/src" && kmake tinyconfig >/dev/null &&
	 scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "$config" >/dev/null &&
	 kmake olddefconfig >/dev/null) || die "configuration failed"
	for opt in $(grep -E '^CONFIG_[A-Z0-9_]+=y' "$config" | cut -d= -f1); do
		grep -q "^$opt=y" "$out/.config" || die "$opt did not stick in .config"
	done
	! grep -q '^CONFIG_SLUB_TINY=y' "$out/.config" || die "SLUB_TINY is set"
}

# build_module NAME SRCDIR [FILE...]: build an out-of-tree module from
# SRCDIR plus FILE... against $out.
build_module() {
	stage "building the $1 module"
	rm -rf "$kdir/mod-$1"
	cp -r "$2" "$kdir/mod-$1"
	if [ $# -gt 2 ]; then
		cp "${@:3}" "$kdir/mod-$1/"
	fi
	(cd "$kdir/src" && kmake M="$kdir/mod-$1" modules) || die "$1 module build failed"
}

build() {
	stage "building Image and modules (arm64, $jobs jobs, ${cross% *})"
	(cd "$kdir/src" && kmake Image modules) || die "kernel build failed"
}

# initramfs FILE...: a static init plus FILE... (paths) at the root.
initramfs() {
	local ir=$kdir/initramfs f

	stage "building the initramfs (static aarch64 init, $(printf '%s ' "${@##*/}"))"
	rm -rf "$ir"
	mkdir -p "$ir"
	aarch64-linux-gnu-gcc -static -O2 -Wall -o "$ir/init" "$repo/kernel/qemu/init.c" ||
		die "init build failed"
	cat > "$ir/list" <<-EOF
	dir /dev 0755 0 0
	nod /dev/console 0600 0 0 c 5 1
	dir /proc 0755 0 0
	dir /sys 0755 0 0
	file /init $ir/init 0755 0 0
	EOF
	for f in "$@"; do
		echo "file /${f##*/} $f 0755 0 0" >> "$ir/list"
	done
	[ -x "$out/usr/gen_init_cpio" ] || (cd "$kdir/src" && kmake usr/gen_init_cpio >/dev/null)
	"$out/usr/gen_init_cpio" "$ir/list" | gzip -9 > "$kdir/initramfs.cpio.gz"
}

selftest_binary() {
	aarch64-linux-gnu-gcc -static -O2 -Wall -D_GNU_SOURCE -pthread \
		-o "$kdir/revocable_selftest" "$kdir/src/$sel/revocable_test.c" ||
		die "kselftest build failed"
}

# qemu_failed: QEMU itself refused to start (a missing firmware or ROM
# file, a bad option).  Its own message is in the log; name the package
# that provides what it could not find, if we know it.
qemu_failed() {
	local msg file pkg=

	msg=$(grep -m1 '^qemu-system-aarch64: ' "$log") || return 0
	file=$(printf '%s\n' "$msg" | sed -n 's/.*find romfile "\([^"]*\)".*/\1/p')
	case $file in
	efi-*.rom | pxe-*.rom) pkg=ipxe-qemu ;;
	?*) pkg="the package that ships /usr/share/qemu/$file" ;;
	esac
	echo "$msg" >&2
	if [ -n "$pkg" ]; then
		die "QEMU could not start: $file is missing; install $pkg, or drop the device that needs it"
	fi
	die "QEMU could not start: $msg"
}

# The machine gets only what the run needs: -nodefaults and -nic none
# drop QEMU's default devices (the virtio NIC of -M virt loads an option
# ROM from ipxe-qemu, which the README's install line does not bring in).
boot() {
	local timeout=${QEMU_TIMEOUT:-900} rc=0

	stage "booting qemu-system-aarch64 -M virt -cpu max -smp 2 (timeout ${timeout}s)"
	timeout --kill-after=10 "$timeout" qemu-system-aarch64 \
		-M virt -cpu max,pauth-impdef=on -smp 2 -m 1G \
		-nodefaults -nic none \
		-nographic -no-reboot -monitor none -serial stdio \
		-kernel "$out/arch/arm64/boot/Image" \
		-initrd "$kdir/initramfs.cpio.gz" \
		-append "console=ttyAMA0 panic=-1 rdinit=/init" \
		< /dev/null > "$log" 2>&1 || rc=$?
	[ $rc = 124 ] && stage "QEMU timed out after ${timeout}s"
	stage "QEMU exited ($rc); console log: $log"
	[ $rc = 0 ] || qemu_failed
}

judge_bench() {
	stage "parsing the benchmark results"
	python3 "$repo/kernel/qemu/parse_bench.py" "$log" "$kdir/bench.json"
}

judge() {
	local kunit selftest

	kunit=$(grep -c 'KUNIT_CASE(' "$repo/kernel/revocable_kunit.c")
	selftest=$(grep -cE '^TEST_F(_TIMEOUT)?\(' "$repo/kernel/selftest/revocable_test.c")
	stage "parsing the console (expecting $kunit KUnit and $selftest kselftest results)"
	python3 "$repo/kernel/qemu/parse_console.py" "$log" "$kunit" "$selftest" "$repo"
}

test_run() {
	patches
	apply
	configure
	build
	build_module test "$kdir/src/$sel/test_modules"
	selftest_binary
	initramfs "$kdir/mod-test/revocable_test.ko" "$kdir/revocable_selftest"
	boot
	judge
}

preflight "$cmd"
case $cmd in
patches)
	patches
	;;
qemu)
	test_run
	;;
qemu-kcsan)
	out=$kdir/out-kcsan
	config=$repo/kernel/revocable-kcsan.config
	log=$kdir/console-kcsan.log
	test_run
	;;
bench)
	out=$kdir/out-bench
	config=$repo/kernel/revocable-bench.config
	patches
	apply
	configure
	build
	build_module bench "$repo/kernel/bench" "$repo/bench/upstream.c" "$repo/bench/upstream.h"
	initramfs "$kdir/mod-bench/revocable_bench.ko"
	boot
	judge_bench
	;;
*)
	echo "usage: $0 patches|qemu|qemu-kcsan|bench REPO KDIR" >&2
	exit 2
	;;
esac
