#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel flow behind "ninja -C build kernel-patches" and
# "ninja -C build kernel-qemu".
#
# usage: kernel.sh patches|series-update|qemu|qemu-kcsan|bench|bench-gpio|bench-evdev REPO KDIR
#        kernel.sh patches-6.1|series-update-6.1|qemu-6.1 REPO KDIR
#   REPO  this project's checkout
#   KDIR  working directory in the build dir (never in the repo), one per
#         kernel line (build/kernel, build/kernel-6.1):
#         src/      Debian's linux-source-6.12 (or 6.1), extracted once, a git tree
#                   whose tag "pristine" is the unmodified source; the
#                   series is applied to it with git am
#         gen/      a second work tree where the series is regenerated
#         patches/  the series as regenerated (kernel/harness/series.sh);
#                   "patches" fails when it differs from kernel/series*/,
#                   "series-update" copies it there
#         out/      the arm64 test build (O=); out-kcsan/ the KCSAN one,
#                   out-bench/ the benchmark one
#         console.log, initramfs/ ...
#
# Environment: QEMU_TIMEOUT (seconds, default 900), JOBS (default nproc),
# SERIES_CHECK=0 (build from lib/ and kernel/upstream/ even where the
# committed series differs: tools/test-of-tests.sh's scratch edits),
# STORM_SECONDS (length of the GPIO unplug storm, default 5).
set -euo pipefail

cmd=$1
# The kernel line: Debian 13's 6.12 (the default) or Debian 12's own 6.1.
kver=6.12
case $cmd in
*-6.1)
	kver=6.1
	cmd=${cmd%-6.1}
	;;
esac
repo=$(realpath "$2")
kdir=$(realpath -m "$3")
t0=$(date +%s)
jobs=${JOBS:-$(nproc)}
cross=aarch64-linux-gnu-
command -v ccache >/dev/null && cross="ccache $cross"
# The kernel is compiled with absolute paths into KDIR (src/ and out/ are
# siblings); relative to it, a clean clone anywhere hits the cache that an
# earlier build filled.
export CCACHE_BASEDIR=$kdir
out=$kdir/out			# the test kernel; the benchmark one is out-bench
ksrc=$kdir/src			# the tree configure and build use
initrd=$kdir/initramfs.cpio.gz
# Per kernel line: the config fragments merged into tinyconfig, in order
# (6.12 runs the gpiolib and evdev conversions' stages, 6.1 only the evdev
# one), and the series (kernel/series/series, kernel/series-6.1/series).
cfgdir=$repo/kernel/harness/configs
case $kver in
6.12)
	configs=("$cfgdir/revocable.config" "$cfgdir/revocable-conv.config")
	series=$repo/kernel/series/series
	;;
*)
	configs=("$cfgdir/revocable.config" "$cfgdir/revocable-$kver.config")
	series=$repo/kernel/series-$kver/series
	;;
esac
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
		perl:perl gzip:gzip depmod:kmod rsync:rsync dpkg-deb:dpkg apt-get:apt
		unifdef:unifdef)

	local boots=1

	case $1 in patches | series-update) boots=0 ;; esac
	[ $boots = 0 ] || tools+=(qemu-system-aarch64:qemu-system-arm)
	for pair in "${tools[@]}"; do
		command -v "${pair%%:*}" >/dev/null || miss+=("${pair#*:}")
	done
	if [ $boots = 1 ] && [ ! -f /usr/aarch64-linux-gnu/lib/libc.a ]; then
		miss+=(libc6-dev-arm64-cross)
	fi
	[ -f /usr/include/openssl/ssl.h ] || miss+=(libssl-dev)
	[ -f /usr/include/libelf.h ] || miss+=(libelf-dev)
	[ ${#miss[@]} = 0 ] ||
		die "missing packages: ${miss[*]} (apt-get install them; see README)"
}

tarball() {
	local t
	t=$(dpkg -L "linux-source-$kver" 2>/dev/null | grep -F "/linux-source-$kver.tar.xz" | head -n 1)
	[ -n "$t" ] || t=/usr/src/linux-source-$kver.tar.xz
	[ -f "$t" ] || die "linux-source-$kver is not installed (see README)"
	echo "$t"
}

extract() {
	local g=(git -c user.name=librevocable -c user.email=librevocable@localhost)

	[ -f "$stamps/extracted" ] && return
	stage "extracting $(tarball) into $kdir/src (once)"
	rm -rf "$kdir/src" "$kdir/gen" "$kdir/linux-source-$kver"
	mkdir -p "$kdir" "$stamps"
	tar -xJf "$(tarball)" -C "$kdir"
	mv "$kdir/linux-source-$kver" "$kdir/src"
	stage "recording the pristine tree in git"
	"${g[@]}" -C "$kdir/src" init -q
	# Debian's .gitignore ignores the whole top level: add with -f.
	"${g[@]}" -C "$kdir/src" add -f -A
	"${g[@]}" -C "$kdir/src" commit -q -m "Debian linux-source-$kver, pristine"
	"${g[@]}" -C "$kdir/src" tag pristine
	"${g[@]}" -C "$kdir/src" worktree add -q --detach ../gen pristine
	touch "$stamps/extracted"
}

patches() {
	local p out errs=0 kdw

	extract
	stage "regenerating the series from ${series#"$repo"/}, lib/ and kernel/upstream/"
	"$repo/kernel/harness/series.sh" regen "$repo" "$series" "$kdir/gen" "$kdir/patches" ||
		die "the series does not apply"
	ls "$kdir/patches" | sed 's/^/         /'
	if [ "${SERIES_CHECK:-1}" = 1 ]; then
		stage "comparing with the committed series, byte for byte"
		"$repo/kernel/harness/series.sh" check "$repo" "$series" "$kdir/patches" ||
			die "the committed series is stale"
	fi
	stage "scripts/checkpatch.pl --strict"
	for p in "$kdir"/patches/*.patch; do
		out=$(cd "$kdir/gen" && scripts/checkpatch.pl --strict "$p" 2>&1 | grep -E '^total:') || true
		printf '         %s: %s\n' "$(basename "$p")" "$out"
		echo "$out" | grep -q '^total: 0 errors, 0 warnings' || errs=1
	done
	[ $errs = 0 ] || die "checkpatch reported errors or warnings"
	# 6.1's kernel-doc has no -Wall (and warns about less).
	stage "scripts/kernel-doc -none"
	kdw=-Wall
	[ "$kver" = 6.12 ] || kdw=-Werror
	out=$(cd "$kdir/gen" && scripts/kernel-doc -none $kdw drivers/base/revocable.c \
		drivers/base/revocable_devm.c drivers/base/revocable_fops.c \
		include/linux/revocable.h include/linux/revocable_fops.h \
		drivers/base/revocable_test.c drivers/base/revocable_fops_test.c 2>&1)
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
	stage "configuring: tinyconfig +$(printf ' %s' "${configs[@]#"$repo"/}")"
	mkdir -p "$out"
	(cd "$ksrc" && kmake tinyconfig >/dev/null &&
	 scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "${configs[@]}" >/dev/null &&
	 kmake olddefconfig >/dev/null) || die "configuration failed"
	for opt in $(cat "${configs[@]}" | grep -E '^CONFIG_[A-Z0-9_]+=y' | cut -d= -f1); do
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
	(cd "$ksrc" && kmake M="$kdir/mod-$1" modules) || die "$1 module build failed"
}

build() {
	stage "building Image and modules (arm64, $jobs jobs, ${cross% *})"
	(cd "$ksrc" && kmake Image modules) || die "kernel build failed"
}

# initramfs FILE...: a static init plus FILE... (paths) at the root.
initramfs() {
	local ir=$kdir/initramfs f

	stage "building the initramfs (static aarch64 init, $(printf '%s ' "${@##*/}"))"
	rm -rf "$ir"
	mkdir -p "$ir"
	aarch64-linux-gnu-gcc -static -O2 -Wall -o "$ir/init" "$repo/kernel/guest/init.c" ||
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
	[ -x "$out/usr/gen_init_cpio" ] || (cd "$ksrc" && kmake usr/gen_init_cpio >/dev/null)
	"$out/usr/gen_init_cpio" "$ir/list" | gzip -9 > "$initrd"
}

# gpio_userspace: the userspace of the GPIO stage, in $kdir/gpio-root:
# Debian's arm64 busybox-static, and bash with its libraries for the
# selftests' #!/bin/bash scripts, downloaded with apt-get into a private apt
# state under $kdir (the host's apt configuration is not touched); the
# kernel's own tools/testing/selftests/gpio, built and installed by its
# Makefile; our unplug storm; the kernel's modules with a depmod index.
gpio_userspace() {
	local root=$kdir/gpio-root apt=$kdir/apt
	# busybox-static lacks seq (coreutils) and mountpoint (util-linux),
	# which gpio-sim.sh uses; the libraries are what those need.
	# evtest is the real evdev client the input storm runs at its end.
	local pkgs=(busybox-static bash libtinfo6 libc6 coreutils util-linux libmount1
		libblkid1 libselinux1 libpcre2-8-0 libacl1 libattr1 libgmp10 evtest)
	local a=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
		-o Dir::State::status=/dev/null -o Debug::NoLocking=1
		-o APT::Sandbox::User=root) d

	stage "GPIO stage: Debian arm64 packages ${pkgs[*]}"
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$kdir/debs"
	if [ "$(cat "$kdir/debs/list" 2>/dev/null)" != "${pkgs[*]}" ]; then
		rm -f "$kdir"/debs/*.deb "$kdir/debs/list"
		apt-get -q "${a[@]}" update >/dev/null ||
			die "apt-get update for arm64 failed (is Debian's archive reachable?)"
		(cd "$kdir/debs" && apt-get -q "${a[@]}" download "${pkgs[@]}" >/dev/null) ||
			die "apt-get download ${pkgs[*]} (arm64) failed"
		echo "${pkgs[*]}" > "$kdir/debs/list"
	fi
	rm -rf "$root"
	mkdir -p "$root"
	for d in "$kdir"/debs/*.deb; do
		dpkg-deb -x "$d" "$root" || die "dpkg-deb -x $d failed"
	done
	rm -rf "$root/usr/share" "$root/usr/lib/aarch64-linux-gnu/gconv"

	(cd "$kdir/src" && kmake headers >/dev/null) || die "make headers failed"
	echo "${STORM_SECONDS:-5}" > "$root/storm_seconds"
	if has_opt CONFIG_GPIO_SIM=m; then
		stage "GPIO stage: tools/testing/selftests/gpio and the unplug storm"
		rm -rf "$kdir/ksft-gpio"
		make -s -C "$kdir/src/tools/testing/selftests" TARGETS=gpio ARCH=arm64 \
			CROSS_COMPILE=aarch64-linux-gnu- O="$kdir/ksft-gpio" \
			KHDR_INCLUDES="-isystem $out/usr/include" LDFLAGS=-static \
			INSTALL_PATH="$root/kselftest" install >/dev/null ||
			die "building tools/testing/selftests/gpio failed"
		storm_binary gpio_unplug_storm "$root"
		build_module slow "$repo/kernel/guest/modules/gpio-slow"
		cp "$kdir/mod-slow/gpio_slow_chip.ko" "$root/"
	fi
	if has_opt CONFIG_INPUT_UINPUT=y; then
		stage "GPIO stage: the evdev unplug storm"
		storm_binary evdev_unplug_storm "$root"
	fi

	stage "GPIO stage: modules_install with depmod"
	(cd "$kdir/src" && kmake INSTALL_MOD_PATH="$root" INSTALL_MOD_STRIP=1 \
		modules_install >/dev/null) || die "modules_install failed"
	(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -6 \
		>> "$kdir/initramfs.cpio.gz" || die "GPIO initramfs failed"
}

# storm_binary NAME ROOT: kernel/guest/NAME.c, a static arm64 program
# built against the test kernel's headers, as ROOT/NAME.
storm_binary() {
	aarch64-linux-gnu-gcc -static -O2 -Wall -pthread \
		-I"$kdir/src/tools/testing/selftests" -isystem "$out/usr/include" \
		-o "$2/$1" "$repo/kernel/guest/$1.c" || die "$1 build failed"
}

# storm_plan NAME: how many results kernel/guest/NAME.c's ksft plan has.
storm_plan() {
	sed -n 's/.*ksft_set_plan(\([0-9]*\)).*/\1/p' "$repo/kernel/guest/$1.c"
}

# has_opt CONFIG_X=v: the run's config fragments set it.
has_opt() {
	cat "${configs[@]}" | grep -qx "$1"
}

# gpio_tests: how many results the GPIO stage prints (0 without it): the
# GPIO selftests and storm where gpio-sim is built, the evdev storm where
# uinput is.
gpio_tests() {
	local n=0 t

	if has_opt CONFIG_GPIO_SIM=m; then
		for t in $(sed -n 's/^TEST_PROGS := //p' \
			"$kdir/src/tools/testing/selftests/gpio/Makefile"); do
			n=$((n + 1))
		done
		n=$((n + $(storm_plan gpio_unplug_storm)))
	fi
	if has_opt CONFIG_INPUT_UINPUT=y; then
		n=$((n + $(storm_plan evdev_unplug_storm)))
	fi
	echo $n
}

selftest_binary() {
	aarch64-linux-gnu-gcc -static -O2 -Wall -D_GNU_SOURCE -pthread \
		-o "$kdir/revocable_selftest" "$kdir/src/$sel/revocable_test.c" ||
		die "kselftest build failed"
	aarch64-linux-gnu-gcc -static -O2 -Wall -D_GNU_SOURCE -pthread \
		-o "$kdir/revocable_fops_selftest" "$kdir/src/$sel/revocable_fops_test.c" ||
		die "kselftest (file operations) build failed"
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
		-initrd "$initrd" \
		-append "console=ttyAMA0 panic=-1 rdinit=/init" \
		< /dev/null > "$log" 2>&1 || rc=$?
	[ $rc = 124 ] && stage "QEMU timed out after ${timeout}s"
	stage "QEMU exited ($rc); console log: $log"
	[ $rc = 0 ] || qemu_failed
}

# bench_conv gpio|evdev: "ninja -C build kernel-bench-gpio" and
# "kernel-bench-evdev".  Kernels from the same series and config: stock
# (the series without the conversion's patch, so 6.12's own code) and
# converted; for gpio also converted with the chips in the shared default
# domain instead of a domain per device (the design choice the
# conversion's commit message argues:
# kernel/harness/bench-gpio-shared-domain.diff).  Each boots
# CONV_BENCH_BOOTS (or GPIO_BENCH_BOOTS) times,
# default 5, interleaved.  gpio: the userspace
# GPIO_V2_LINE_GET_VALUES_IOCTL loop and gpio_bench.ko's
# gpiod_get_value_cansleep() loop; evdev: an EVIOCGVERSION loop and a
# stream of events written to uinput and read from the event node; each on
# one CPU and, for the loops, on all at once.  EVDEV_NOBARRIER=1 adds the
# converted kernel without SRCU's read-side barriers
# (kernel/harness/bench-evdev-nobarrier.diff), an experiment.
bench_conv() {
	local kind=$1 boots=${CONV_BENCH_BOOTS:-${GPIO_BENCH_BOOTS:-5}} v i
	local dir=$kdir/bench-$kind conv stock back variants=(stock converted)

	configs=("$cfgdir/revocable-bench-$kind.config")
	patches
	apply
	case $kind in
	gpio)
		# Everything from the gpiolib conversion on.
		back=$(sed -n '/^[0-9]*-gpiolib-protect-the-chip/,$p' "$series" |
			grep -c '\.patch')
		variants+=(shared)
		;;
	evdev)
		# The evdev patch is the last one.
		back=1
		[ "${EVDEV_NOBARRIER:-0}" = 0 ] || variants+=(nobarrier)
		;;
	esac
	# Resolved once: src may be re-applied by another run meanwhile.
	conv=$(git -C "$kdir/src" rev-parse HEAD)
	stock=$(git -C "$kdir/src" rev-parse HEAD~"$back")
	mkdir -p "$dir"
	rm -f "$dir"/*.log
	for v in "${variants[@]}"; do
		ksrc=$kdir/src-$v
		out=$kdir/out-$kind-$v
		initrd=$dir/initramfs-$v.cpio.gz
		stage "$kind variant $v"
		[ -d "$ksrc" ] || git -C "$kdir/src" worktree add -q --detach "$ksrc" HEAD
		case $v in
		stock) git -C "$ksrc" checkout -q -f --detach "$stock" ;;
		*) git -C "$ksrc" checkout -q -f --detach "$conv" ;;
		esac
		case $v in
		shared) git -C "$ksrc" apply "$repo/kernel/harness/bench-gpio-shared-domain.diff" ;;
		nobarrier) git -C "$ksrc" apply "$repo/kernel/harness/bench-evdev-nobarrier.diff" ;;
		esac || die "the $v variant's diff does not apply"
		configure
		build
		(cd "$ksrc" && kmake headers >/dev/null) || die "make headers failed"
		case $kind in
		gpio)
			build_module gpio-bench "$repo/kernel/guest/modules/gpio-bench"
			aarch64-linux-gnu-gcc -static -O2 -Wall -pthread -isystem "$out/usr/include" \
				-o "$kdir/gpio_bench_user" "$repo/kernel/guest/gpio_bench_user.c" ||
				die "gpio_bench_user build failed"
			initramfs "$kdir/mod-gpio-bench/gpio_bench.ko" "$kdir/gpio_bench_user" \
				"$(find "$out/drivers/gpio" -name gpio-sim.ko)"
			;;
		evdev)
			aarch64-linux-gnu-gcc -static -O2 -Wall -pthread -isystem "$out/usr/include" \
				-o "$kdir/evdev_bench_user" "$repo/kernel/guest/evdev_bench_user.c" ||
				die "evdev_bench_user build failed"
			initramfs "$kdir/evdev_bench_user"
			;;
		esac
	done
	for i in $(seq "$boots"); do
		for v in "${variants[@]}"; do
			out=$kdir/out-$kind-$v
			initrd=$dir/initramfs-$v.cpio.gz
			log=$dir/$v-$i.log
			boot
		done
	done
	stage "parsing the $kind benchmark ($boots boots per kernel)"
	python3 "$repo/kernel/harness/parse_bench_conv.py" "$kind" "$dir" "$kdir/bench-$kind.json"
}

judge_bench() {
	stage "parsing the benchmark results"
	python3 "$repo/kernel/harness/parse_bench.py" "$log" "$kdir/bench.json"
}

judge() {
	local kunit selftest gpio

	kunit=$(cat "$repo"/kernel/upstream/drivers/base/revocable_test.c \
		"$repo"/kernel/upstream/drivers/base/revocable_fops_test.c |
		grep -c 'KUNIT_CASE(')
	# The input core's own suite, on the converted evdev's kernel.
	if has_opt CONFIG_INPUT_KUNIT_TEST=y; then
		kunit=$((kunit + $(grep -c 'KUNIT_CASE(' "$ksrc/drivers/input/tests/input_test.c")))
	fi
	selftest=$(cat "$repo/kernel/upstream/$sel/revocable_test.c" \
		"$repo/kernel/upstream/$sel/revocable_fops_test.c" | grep -cE '^TEST_F(_TIMEOUT)?\(')
	gpio=$(gpio_tests)
	stage "parsing the console (expecting $kunit KUnit, $selftest kselftest and $gpio subsystem (GPIO, evdev) results)"
	python3 "$repo/kernel/harness/parse_console.py" "$log" "$kunit" "$selftest" "$repo" "$gpio"
}

test_run() {
	patches
	apply
	configure
	build
	build_module test "$kdir/src/$sel/test_modules"
	selftest_binary
	initramfs "$kdir/mod-test/revocable_test.ko" "$kdir/revocable_selftest" \
		"$kdir/mod-test/revocable_fops_test.ko" "$kdir/revocable_fops_selftest"
	[ "$(gpio_tests)" = 0 ] || gpio_userspace
	boot
	judge
}

case $kver:$cmd in
6.12:* | 6.1:patches | 6.1:qemu | 6.1:series-update) ;;
*)
	echo "$0: only patches-6.1, series-update-6.1 and qemu-6.1 exist for 6.1" >&2
	exit 2
	;;
esac
preflight "$cmd"
case $cmd in
patches)
	patches
	;;
series-update)
	SERIES_CHECK=0 patches
	"$repo/kernel/harness/series.sh" update "$repo" "$series" "$kdir/patches"
	;;
qemu)
	test_run
	;;
qemu-kcsan)
	out=$kdir/out-kcsan
	configs=("$cfgdir/revocable-kcsan.config")
	log=$kdir/console-kcsan.log
	test_run
	;;
bench-gpio)
	bench_conv gpio
	;;
bench-evdev)
	bench_conv evdev
	;;
bench)
	out=$kdir/out-bench
	configs=("$cfgdir/revocable-bench.config")
	patches
	apply
	configure
	build
	build_module bench "$repo/kernel/guest/modules/bench" "$repo/bench/upstream.c" "$repo/bench/upstream.h"
	initramfs "$kdir/mod-bench/revocable_bench.ko"
	boot
	judge_bench
	;;
*)
	echo "usage: $0 patches|series-update|qemu|qemu-kcsan|bench|bench-gpio|bench-evdev|patches-6.1|series-update-6.1|qemu-6.1 REPO KDIR" >&2
	exit 2
	;;
esac
