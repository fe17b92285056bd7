#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel flow behind "ninja -C build kernel-patches" and
# "ninja -C build kernel-qemu".
#
# usage: kernel.sh patches|series-update|qemu|qemu-stock|qemu-kcsan|qemu-faults|qemu-media|bench|bench-gpio|bench-evdev|bench-media|gpiod-suite REPO KDIR
#        kernel.sh patches-6.1|series-update-6.1|qemu-6.1 REPO KDIR
#        kernel.sh patches-7.2|series-update-7.2|qemu-7.2|bench-7.2 REPO KDIR
#        kernel.sh export|export-7.2|bisect|bisect-7.2 REPO KDIR
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
#                   out-faults/ the fault-injection one, out-bench/ the
#                   benchmark one
#         console.log, initramfs/ ...
#
# Environment: QEMU_TIMEOUT (seconds, default 900; 1800 for the test runs), JOBS (default nproc),
# SERIES_UPTO=N (qemu-stock: apply only the first N patches, default 0),
# SERIES_CHECK=0 (build from lib/ and kernel/new-files/ even where the
# committed series differs: tools/test-of-tests.sh's scratch edits),
# STORM_SECONDS (length of the GPIO unplug storm, default 5).
set -euo pipefail

cmd=$1
# The kernel line: Debian 13's 6.12 (the default) or Debian 12's own 6.1.
kver=6.12
case $cmd in
*-6.1 | *-7.2)
	kver=${cmd##*-}
	cmd=${cmd%-*}
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
	configs=("$cfgdir/qemu.config" "$cfgdir/revocable.config" "$cfgdir/revocable-conv.config")
	series=$repo/kernel/series/series
	;;
7.2)
	configs=("$cfgdir/qemu.config" "$cfgdir/revocable.config" "$cfgdir/revocable-conv.config"
		"$cfgdir/revocable-7.2.config")
	series=$repo/kernel/series-$kver/series
	;;
*)
	configs=("$cfgdir/qemu.config" "$cfgdir/revocable.config" "$cfgdir/revocable-$kver.config")
	series=$repo/kernel/series-$kver/series
	;;
esac
log=$kdir/console.log
stamps=$kdir/stamps

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
		perl:perl gzip:gzip depmod:kmod rsync:rsync dpkg-deb:dpkg apt-get:apt)

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
		die "missing packages: ${miss[*]} (apt-get install them: .ci/install installs all the project needs)"
}

# Linux 7.2 is not in Debian 12: Debian 13's backports carry its
# linux-source package (architecture all).  It is downloaded, at this
# version, with apt-get into a private apt state under $kdir from a private
# sources list naming the host's own mirror (apt checks it against the
# archive's signed index); the host's apt configuration is not touched.
source_version_7_2=7.2.12-1~bpo13+1

source_fetch() {
	local apt=$kdir/apt-source deb mirror
	local key=/usr/share/keyrings/debian-archive-keyring.gpg
	local a=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
		-o Dir::State::status=/dev/null -o Debug::NoLocking=1
		-o APT::Sandbox::User=root)

	[ "$kver" = 7.2 ] || return 0
	[ -f "$kdir/source/usr/src/linux-source-$kver.tar.xz" ] && return
	deb=linux-source-$kver=$source_version_7_2
	stage "downloading $deb from Debian 13's backports (private apt state in $apt)"
	# shellcheck disable=SC2016 # apt's own $(FIELD) placeholders
	mirror=$(apt-get indextargets --no-release-info --format '$(RELEASE) $(REPO_URI)' \
		2>/dev/null | awk -v c="$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)" \
		'$1 == c { print $2; exit }')
	[ -n "$mirror" ] || die "no apt source of the host's own release in /etc/apt"
	[ -f "$key" ] || die "missing packages: debian-archive-keyring"
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$kdir/source"
	echo "deb [signed-by=$key] $mirror trixie-backports main" > "$apt/sources.list"
	apt-get -q "${a[@]}" update >/dev/null ||
		die "apt-get update of trixie-backports failed (is Debian's archive reachable?)"
	rm -f "$apt"/*.deb
	(cd "$apt" && apt-get -q "${a[@]}" download "$deb" >/dev/null) ||
		die "apt-get download $deb failed"
	dpkg-deb -x "$apt"/linux-source-"$kver"_*.deb "$kdir/source" ||
		die "dpkg-deb -x of linux-source-$kver failed"
}

tarball() {
	local t

	if [ "$kver" = 7.2 ]; then
		echo "$kdir/source/usr/src/linux-source-$kver.tar.xz"
		return
	fi
	t=$(dpkg -L "linux-source-$kver" 2>/dev/null | grep -F "/linux-source-$kver.tar.xz" | head -n 1)
	[ -n "$t" ] || t=/usr/src/linux-source-$kver.tar.xz
	[ -f "$t" ] || die "linux-source-$kver is not installed (.ci/install installs it)"
	echo "$t"
}

extract() {
	local g=(git -c user.name=librevocable -c user.email=librevocable@localhost)

	[ -f "$stamps/extracted" ] && return
	source_fetch
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
	local p out errs=0 rc=0 kdw

	extract
	stage "regenerating the series from ${series#"$repo"/}, lib/ and kernel/new-files/"
	CARRY_OVERLAY=$repo/kernel/new-files-$kver \
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
		# The Debian tree has no upstream history to look a Fixes: tag's
		# commit up in (UNKNOWN_COMMIT_ID); the tags were checked by hand.
		# The committed series has no sign-off (MISSING_SIGN_OFF): the
		# sender adds theirs with kernel-export, which checks again.
		rc=0
		out=$(cd "$kdir/gen" && "$repo/kernel/harness/checkpatch.sh" \
			UNKNOWN_COMMIT_ID,MISSING_SIGN_OFF "$p") || rc=$?
		[ $rc != 2 ] || die "a helper of checkpatch.pl failed on $(basename "$p")"
		[ $rc = 0 ] || errs=1
		printf '         %s: %s\n' "$(basename "$p")" "$out"
	done
	[ $errs = 0 ] || die "checkpatch reported errors or warnings"
	# 6.1's kernel-doc has no -Wall (and warns about less).
	stage "scripts/kernel-doc -none"
	kdw=-Wall
	[ "$kver" != 6.1 ] || kdw=-Werror
	out=$(cd "$kdir/gen" && scripts/kernel-doc -none $kdw $(ls drivers/base/revocable*.c \
		include/linux/revocable*.h) 2>&1)
	[ -z "$out" ] || { echo "$out"; die "kernel-doc warnings"; }
	stage "series ready in $kdir/patches"
}

# apply: the series (its first $SERIES_UPTO patches when that is set) on a
# clean copy of the pristine tree in src/, unless src/ has it already.
apply() {
	local sum p=()

	mapfile -t p < <(ls "$kdir"/patches/*.patch)
	p=("${p[@]:0:${SERIES_UPTO:-${#p[@]}}}")
	sum=$( (echo "${#p[@]}"; cat /dev/null "${p[@]}") | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$stamps/applied" 2>/dev/null)" = "$sum" ]; then
		stage "series unchanged since last applied"
		return
	fi
	stage "applying ${#p[@]} patches of the series with git am to a clean copy"
	git -C "$kdir/src" checkout -q -f --detach pristine
	git -C "$kdir/src" clean -q -fdx
	[ ${#p[@]} = 0 ] ||
		git -C "$kdir/src" -c user.name=librevocable -c user.email=librevocable@localhost \
			am -q "${p[@]}"
	echo "$sum" > "$stamps/applied"
}

# configure [loose]: loose leaves out the check that every option of the
# fragments stuck (a bisection step predates the options later patches add).
configure() {
	local opt

	# Always from scratch: cheap next to a build, and a .config that is
	# identical to the last one triggers no rebuild.
	stage "configuring: tinyconfig +$(printf ' %s' "${configs[@]#"$repo"/}")"
	mkdir -p "$out"
	(cd "$ksrc" && kmake tinyconfig >/dev/null &&
	 scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "${configs[@]}" >/dev/null &&
	 kmake olddefconfig >/dev/null) || die "configuration failed"
	[ "${1:-}" != loose ] || return 0
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

# initramfs [-r TREE] FILE...: a static init plus FILE... (paths) at the
# root; with -r, the directory TREE as a second archive over it.
initramfs() {
	local ir=$kdir/initramfs f tree=''

	if [ "${1:-}" = -r ]; then
		tree=$2
		shift 2
	fi
	stage "building the initramfs (static aarch64 init, $(printf '%s ' "${@##*/}")${tree:+"+ ${tree##*/}/"})"
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
	if [ -n "$tree" ]; then
		(cd "$tree" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -6 \
			>> "$initrd" || die "packing $tree into the initramfs failed"
	fi
}

# gpio_userspace ROOT: what the plan's "userspace" steps (the converted
# subsystems' GPIO selftests and storms) need, into ROOT: Debian's arm64
# busybox-static, and bash with its libraries for the selftests'
# #!/bin/bash scripts, downloaded with apt-get into a private apt state
# under $kdir (the host's apt configuration is not touched); the kernel's
# modules with a depmod index.
gpio_userspace() {
	local root=$1 apt=$kdir/apt
	# busybox-static lacks seq (coreutils) and mountpoint (util-linux),
	# which gpio-sim.sh uses; the libraries are what those need.
	# evtest is the real evdev client the input storm runs at its end;
	# v4l-utils (v4l2-compliance, v4l2-ctl) and its libraries the media
	# stages' judge and streaming client.
	local pkgs=(busybox-static bash libtinfo6 libc6 coreutils util-linux libmount1
		libblkid1 libselinux1 libpcre2-8-0 libacl1 libattr1 libgmp10 evtest
		v4l-utils libv4l-0 libv4l2rds0 libv4lconvert0 libjpeg62-turbo
		libstdc++6 libgcc-s1 libudev1)
	local a=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
		-o Dir::State::status=/dev/null -o Debug::NoLocking=1
		-o APT::Sandbox::User=root) d

	stage "userspace: Debian arm64 packages ${pkgs[*]}"
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$kdir/debs"
	if [ "$(cat "$kdir/debs/list" 2>/dev/null)" != "${pkgs[*]}" ]; then
		rm -f "$kdir"/debs/*.deb "$kdir/debs/list"
		apt-get -q "${a[@]}" update >/dev/null ||
			die "apt-get update for arm64 failed (is Debian's archive reachable?)"
		(cd "$kdir/debs" && apt-get -q "${a[@]}" download "${pkgs[@]}" >/dev/null) ||
			die "apt-get download ${pkgs[*]} (arm64) failed"
		echo "${pkgs[*]}" > "$kdir/debs/list"
	fi
	for d in "$kdir"/debs/*.deb; do
		dpkg-deb -x "$d" "$root" || die "dpkg-deb -x $d failed"
	done
	rm -rf "${root:?}/usr/share" "$root/usr/lib/aarch64-linux-gnu/gconv"

	stage "userspace: modules_install with depmod"
	(cd "$ksrc" && kmake INSTALL_MOD_PATH="$root" INSTALL_MOD_STRIP=1 \
		modules_install >/dev/null) || die "modules_install failed"
}

# storm_binary SRC OUT: SRC, a static arm64 program built against the test
# kernel's headers and the kernel's kselftest.h, as OUT.
storm_binary() {
	aarch64-linux-gnu-gcc -static -O2 -Wall -pthread \
		-I"$ksrc/tools/testing/selftests" -isystem "$out/usr/include" \
		-o "$2" "$1" || die "${1##*/} build failed"
}

# storm_plan FILE: the N of FILE's ksft_set_plan(N) (the plan's
# "expect ksft-plan"); fails when FILE has none.
storm_plan() {
	sed -n 's/.*ksft_set_plan(\([0-9]*\)).*/\1/p' "$1" |
		awk '{ n += $1 } END { if (!NR) exit 1; print n }'
}

# has_opt CONFIG_X=V | line=VERSION: the run's config fragments set
# CONFIG_X=V (that exact line), or the run is on kernel line VERSION.
# (grep reads the files itself: "cat | grep -q" under pipefail fails when
# grep stops early and cat gets SIGPIPE.)
has_opt() {
	case $1 in
	line=*) [ "$kver" = "${1#line=}" ] ;;
	*) grep -qxF -- "$1" "${configs[@]}" ;;
	esac
}

# plan_file repo:PATH|src:PATH: a file the plan names, in this checkout or
# in the kernel tree under test; fails (on stderr) when it does not exist.
plan_file() {
	local p

	case $1 in
	repo:?*) p=$repo/${1#repo:} ;;
	src:?*) p=$ksrc/${1#src:} ;;
	*)
		echo "kernel/harness/plan: \"$1\" is neither repo:PATH nor src:PATH" >&2
		return 1
		;;
	esac
	[ -e "$p" ] || {
		echo "kernel/harness/plan: $p does not exist" >&2
		return 1
	}
	echo "$p"
}

# plan_count RULE...: the number an "expect" rule of the plan comes to
# (N, lines REGEX FILE..., ksft-plan FILE, make-list VAR FILE); fails on
# a rule it does not know or a missing file.
plan_count() {
	local f files=()

	case $1 in
	lines)
		[ $# -ge 3 ] || return 1
		for f in "${@:3}"; do
			f=$(plan_file "$f") || return 1
			files+=("$f")
		done
		cat "${files[@]}" | grep -cE -- "$2" || true
		;;
	ksft-plan)
		[ $# = 2 ] && f=$(plan_file "$2") && storm_plan "$f"
		;;
	make-list)
		[ $# = 3 ] && f=$(plan_file "$3") &&
			awk -v v="$2" '$1 == v && ($2 == ":=" || $2 == "=" || $2 == "+=") {
				n += NF - 2 } END { print n + 0 }' "$f"
		;;
	*)
		[ $# = 1 ] && [[ $1 =~ ^[0-9]+$ ]] && echo "$1"
		;;
	esac
}

# plan_resolve: kernel/harness/plan for this run (its header describes
# it) into $kdir/plan: the blocks whose "if" lines hold, without them and
# without the "put" lines, each with one "expect N", $STORM_SECONDS
# replaced.  The enabled steps' "put" lines (GUEST HOW ARG) go into
# plan_puts; plan_userspace is 1 when one of them says "userspace".
plan_resolve() {
	local src=$repo/kernel/harness/plan no=0 on=0 us=0 head='' n c r w a
	local body=() rules=() puts=() res=()

	[ -f "$src" ] || die "no $src"
	plan_puts=()
	plan_userspace=0
	res=("# kernel/harness/plan resolved for $kver (${configs[*]##*/}), STORM_SECONDS=${STORM_SECONDS:-5}")
	while read -ra w; do
		no=$((no + 1))
		w=("${w[@]//\$STORM_SECONDS/${STORM_SECONDS:-5}}")
		case ${w[0]:-#} in
		'#'*)
			continue
			;;
		kunit | step | .)
			if [ -n "$head" ] && [ $on = 1 ]; then
				n=0
				for r in "${rules[@]}"; do
					read -ra a <<< "$r"
					if ! c=$(plan_count "${a[@]}") || ! [[ $c =~ ^[0-9]+$ ]]; then
						die "kernel/harness/plan: cannot count \"expect $r\" ($head)"
					fi
					n=$((n + c))
				done
				res+=("$head" "${body[@]}" "	expect $n")
				plan_puts+=("${puts[@]}")
				[ $us = 0 ] || plan_userspace=1
			fi
			case ${w[0]}:${#w[@]} in
			kunit:2 | step:3 | .:1) ;;
			*) die "kernel/harness/plan:$no: usage: kunit SUITE, step NAME SECTION" ;;
			esac
			head=${w[*]} on=1 us=0 body=() rules=() puts=()
			;;
		if)
			[ ${#w[@]} = 2 ] || die "kernel/harness/plan:$no: usage: if CONFIG_X=V|line=VERSION"
			has_opt "${w[1]}" || on=0
			;;
		expect)
			rules+=("${w[*]:1}")
			;;
		put)
			[ ${#w[@]} = 4 ] || die "kernel/harness/plan:$no: usage: put GUEST HOW ARG"
			puts+=("${w[*]:1}")
			;;
		fail-ok-on)
			# fail-ok-on VERSION NAME REASON...: "fail-ok NAME REASON..."
			# on that kernel line only.
			[ ${#w[@]} -ge 4 ] || die "kernel/harness/plan:$no: usage: fail-ok-on VERSION NAME REASON..."
			[ "${head%% *}" = step ] ||
				die "kernel/harness/plan:$no: ${w[0]} outside a step"
			[ "${w[1]}" != "$kver" ] || body+=("	fail-ok ${w[*]:2}")
			;;
		userspace | load | modprobe | run | retry | unload | format | skip-ok)
			[ "${w[0]}" != userspace ] || us=1
			[ "${head%% *}" = step ] ||
				die "kernel/harness/plan:$no: ${w[0]} outside a step"
			body+=("	${w[*]}")
			;;
		*)
			die "kernel/harness/plan:$no: \"${w[0]}\" is not a directive"
			;;
		esac
	done < <(cat "$src"; echo .)
	printf '%s\n' "${res[@]}" > "$kdir/plan"
}

# plan_put ROOT GUEST HOW ARG: one of the plan's "put" lines, built as
# ROOT/GUEST (modules and the kernel's headers once per run: plan_built).
plan_put() {
	local root=$1 guest=$2 how=$3 f

	mkdir -p "$(dirname "$root$guest")"
	if [ "$how" = storm ] || [ "$how" = kselftests ]; then
		if [ -z "${plan_built[headers]:-}" ]; then
			(cd "$ksrc" && kmake headers >/dev/null) || die "make headers failed"
			plan_built[headers]=1
		fi
	fi
	case $how in
	module)
		f=$(plan_file "$4") || die "put $guest: no $4"
		if [ -z "${plan_built[$f]:-}" ]; then
			build_module "${f##*/}" "$f"
			plan_built[$f]=1
		fi
		cp "$kdir/mod-${f##*/}/${guest##*/}" "$root$guest" ||
			die "put $guest: the $4 module build has no ${guest##*/}"
		;;
	selftest)
		f=$(plan_file "$4") || die "put $guest: no $4"
		selftest_binary "$f" "$root$guest"
		;;
	storm)
		f=$(plan_file "$4") || die "put $guest: no $4"
		storm_binary "$f" "$root$guest"
		;;
	kselftests)
		stage "building tools/testing/selftests/$4 into $guest"
		rm -rf "$kdir/ksft-$4"
		make -s -C "$ksrc/tools/testing/selftests" TARGETS="$4" ARCH=arm64 \
			CROSS_COMPILE=aarch64-linux-gnu- O="$kdir/ksft-$4" \
			KHDR_INCLUDES="-isystem $out/usr/include" LDFLAGS=-static \
			INSTALL_PATH="$root$guest" install >/dev/null ||
			die "building tools/testing/selftests/$4 failed"
		;;
	libgpiod)
		# libgpiod's own test suite with its libraries, from Debian's
		# source and arm64 packages (gpiod-suite.sh), into the root.
		[ "$4" = trixie ] || die "put $guest: gpiod-suite.sh builds trixie's libgpiod, not $4's"
		"$repo/kernel/harness/gpiod-suite.sh" "$kdir" "$root" >/dev/null ||
			die "put $guest: libgpiod's test suite could not be prepared"
		[ -x "$root$guest" ] || die "put $guest: gpiod-suite.sh did not install it"
		;;
	*)
		die "put $guest: \"$how\" is not module, selftest, storm, kselftests or libgpiod"
		;;
	esac
}

# selftest_binary SRC OUT: SRC, a kselftest_harness.h program, static, as OUT.
selftest_binary() {
	aarch64-linux-gnu-gcc -static -O2 -Wall -D_GNU_SOURCE -pthread \
		-o "$2" "$1" || die "kselftest ${1##*/} build failed"
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
# ROM from ipxe-qemu, which .ci/packages does not bring in).
#
# QEMU_ICOUNT=SHIFT runs the guest on QEMU's instruction counter
# (-icount shift=SHIFT,sleep=off, one TCG thread for all CPUs): the guest's
# clocks advance 2^SHIFT ns per instruction executed and jump over idle
# time to the next timer.  A benchmark's times then count the work the
# guest did and the timer waits it made, not the host's load: the
# lifecycle rows' deterministic view (docs/performance.md).
boot() {
	local timeout=${QEMU_TIMEOUT:-900} rc=0 smp=${QEMU_SMP:-2} icount=()

	[ -z "${QEMU_ICOUNT:-}" ] ||
		icount=(-icount "shift=$QEMU_ICOUNT,sleep=off" -accel tcg,thread=single)
	stage "booting qemu-system-aarch64 -M virt -cpu max -smp $smp ${icount[*]} (timeout ${timeout}s)"
	timeout --kill-after=10 "$timeout" qemu-system-aarch64 \
		-M virt -cpu max,pauth-impdef=on -smp "$smp" -m 1G "${icount[@]}" \
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

# patches_from NAME: how many patches of the series, from the one whose
# file name (after its number) starts with NAME to the last.
patches_from() {
	sed -n "/^[0-9]*-$1/,\$p" "$series" | grep -c '\.patch' || true
}

# bench_conv gpio|evdev|media: "ninja -C build kernel-bench-gpio",
# "kernel-bench-evdev" and "kernel-bench-media".  Kernels from the same
# series and config: stock (the series without the conversion's patch, so
# 6.12's own code) and converted; for gpio also converted with the chips
# in the shared default domain instead of a domain per device (the design
# choice the conversion's commit message argues:
# kernel/harness/bench-gpio-shared-domain.diff), and unprotected: stock
# with gpiolib's SRCU read side for the chip pointer stubbed out, the
# floor (kernel/harness/bench-gpio-unprotected.diff; unsafe on unplug).
# Each boots CONV_BENCH_BOOTS (or GPIO_BENCH_BOOTS) times, default 5,
# interleaved.  gpio: the userspace GPIO_V2_LINE_GET_VALUES_IOCTL loop, a
# loop of GPIO_V2_GET_LINE_IOCTL requests of one line each closed again,
# and gpio_bench.ko's gpiod_get_value_cansleep() loop; evdev: an
# EVIOCGVERSION loop, a loop of open and close of the event node, and a
# stream of events written to uinput and read from the event node; each on
# one CPU and, for the loops, on all at once.  EVDEV_NOACCESS=1 adds the
# converted evdev with the wrappers' access taken out
# (kernel/harness/bench-evdev-noaccess.diff), an experiment.  media: on
# vivid's video capture node (vivid and the modules it needs are in the
# initramfs, the program loads them), a VIDIOC_QUERYCAP loop, a
# VIDIOC_G_FMT loop and a loop of open and close, each on one CPU and on
# all at once, and streaming, VIDIOC_DQBUF and VIDIOC_QBUF of each frame
# at the rate the CPU allows (kernel/guest/media_bench_user.c says how);
# init runs the program as the one step of a /plan.  Its kernels build in
# out-bench-media-VARIANT (out-media* are kernel-qemu-media's).
bench_conv() {
	local kind=$1 boots=${CONV_BENCH_BOOTS:-${GPIO_BENCH_BOOTS:-5}} v i m
	local dir=$kdir/bench-$kind conv stock back variants=(stock converted)
	local ob=$kdir/out-$kind mods root

	configs=("$cfgdir/revocable-bench-$kind.config")
	# libgpiod's suite judges the GPIO benchmark's own two kernels.
	if [ "$kind" = gpiod ]; then
		configs=("$cfgdir/revocable-bench-gpio.config")
		ob=$kdir/out-gpio
	fi
	patches
	apply
	case $kind in
	gpio)
		# Everything from the gpiolib conversion on.
		back=$(patches_from gpiolib-protect-the-chip)
		variants+=(shared unprotected)
		;;
	gpiod)
		back=$(patches_from gpiolib-protect-the-chip)
		;;
	evdev)
		# Everything from the evdev conversion on (the V4L2 patches
		# after it touch nothing the evdev kernel builds).
		back=$(patches_from Input-evdev-run-the-file)
		[ "${EVDEV_NOACCESS:-0}" = 0 ] || variants+=(noaccess)
		;;
	media)
		# Everything from the V4L2 conversion on (the core's patch and
		# the drivers' opt-in to its wait).
		back=$(patches_from media-v4l2-dev-run-the-file)
		ob=$kdir/out-bench-media
		;;
	esac
	[ "$back" -gt 0 ] || die "the series has no $kind conversion"
	# BENCH_VARIANTS="stock converted": only those kernels (the lifecycle
	# rows need no others).
	[ -z "${BENCH_VARIANTS:-}" ] || read -ra variants <<< "$BENCH_VARIANTS"
	# Resolved once: src may be re-applied by another run meanwhile.
	conv=$(git -C "$kdir/src" rev-parse HEAD)
	stock=$(git -C "$kdir/src" rev-parse HEAD~"$back")
	mkdir -p "$dir"
	rm -f "$dir"/*.log
	for v in "${variants[@]}"; do
		ksrc=$kdir/src-$v
		out=$ob-$v
		initrd=$dir/initramfs-$v.cpio.gz
		stage "$kind variant $v"
		[ -d "$ksrc" ] || git -C "$kdir/src" worktree add -q --detach "$ksrc" HEAD
		case $v in
		stock | unprotected) git -C "$ksrc" checkout -q -f --detach "$stock" ;;
		*) git -C "$ksrc" checkout -q -f --detach "$conv" ;;
		esac
		case $v in
		shared) git -C "$ksrc" apply "$repo/kernel/harness/bench-gpio-shared-domain.diff" ;;
		unprotected) git -C "$ksrc" apply "$repo/kernel/harness/bench-gpio-unprotected.diff" ;;
		noaccess) git -C "$ksrc" apply "$repo/kernel/harness/bench-evdev-noaccess.diff" ;;
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
		gpiod)
			# Debian's userspace, this kernel's modules (libgpiosim
			# loads gpio-sim with libkmod) and libgpiod's own suite.
			root=$dir/root-$v
			rm -rf "$root"
			mkdir -p "$root"
			gpio_userspace "$root"
			"$repo/kernel/harness/gpiod-suite.sh" "$kdir" "$root" ||
				die "libgpiod's test suite could not be prepared"
			cp "$repo/kernel/guest/gpiod-suite-run.sh" "$root/gpiod-suite-run.sh"
			printf '%s\n' "# kernel-gpiod-suite: init runs libgpiod's suite as a step." \
				"step gpiod-suite bench" "userspace" \
				"run 1200 /bin/bash /gpiod-suite-run.sh ${GPIOD_SUITE_RUNS:-3}" > "$dir/plan"
			initramfs -r "$root" "$dir/plan"
			;;
		evdev)
			aarch64-linux-gnu-gcc -static -O2 -Wall -pthread -isystem "$out/usr/include" \
				-o "$kdir/evdev_bench_user" "$repo/kernel/guest/evdev_bench_user.c" ||
				die "evdev_bench_user build failed"
			initramfs "$kdir/evdev_bench_user"
			;;
		media)
			aarch64-linux-gnu-gcc -static -O2 -Wall -pthread -isystem "$out/usr/include" \
				-o "$kdir/media_bench_user" "$repo/kernel/guest/media_bench_user.c" ||
				die "media_bench_user build failed"
			# vivid and what it needs: the modules of this build
			# (modules.order; a .ko that an earlier config left is
			# not in it), which the program loads each after those it
			# depends on.
			mods=()
			[ -f "$out/modules.order" ] && while read -r m; do
				mods+=("$out/${m%.o}.ko")
			done < "$out/modules.order"
			[[ " ${mods[*]} " == *"/vivid.ko "* ]] ||
				die "vivid.ko is not among the modules built"
			printf '%s\n' "# kernel-bench-media: init runs the benchmark as a step." \
				"step media-bench bench" "run 600 /media_bench_user 100000 9 1" \
				> "$dir/plan"
			initramfs "$kdir/media_bench_user" "${mods[@]}" "$dir/plan"
			;;
		esac
	done
	# BENCH_SMP="2 1": boot N of every variant with each CPU count in
	# turn; the 1-CPU logs go to $dir/smp1/.
	local smps=(${BENCH_SMP:-2}) n
	rm -rf "$dir/smp1"
	for i in $(seq "$boots"); do
		for n in "${smps[@]}"; do
			for v in "${variants[@]}"; do
				out=$ob-$v
				initrd=$dir/initramfs-$v.cpio.gz
				log=$dir/$v-$i.log
				[ "$n" = 2 ] || { mkdir -p "$dir/smp$n"; log=$dir/smp$n/$v-$i.log; }
				QEMU_SMP=$n boot
			done
		done
	done
	stage "parsing the $kind benchmark ($boots boots per kernel)"
	python3 "$repo/kernel/harness/judge.py" conv "$kind" "$dir" "$kdir/bench-$kind.json"
	for n in "${smps[@]}"; do
		[ "$n" = 2 ] && continue
		stage "parsing the $kind benchmark with $n CPU(s)"
		python3 "$repo/kernel/harness/judge.py" conv "$kind" "$dir/smp$n" \
			"$kdir/bench-$kind-smp$n.json"
	done
}

judge_bench() {
	stage "parsing the benchmark results"
	python3 "$repo/kernel/harness/judge.py" bench "$log" "$kdir/bench.json"
}

# judge: the console against the resolved plan ($kdir/plan, the guest's
# /plan): its KUnit suites and steps, and how many results each must have.
judge() {
	local want

	want=$(awk '$1 == "kunit" { s = "KUnit" } $1 == "step" { s = $3 }
		$1 == "expect" { n[s] += $2 }
		END { printf "%d KUnit, %d kselftest and %d subsystems",
			n["KUnit"], n["kselftest"], n["subsystems"] }' "$kdir/plan")
	stage "parsing the console against the plan (expecting $want results)"
	python3 "$repo/kernel/harness/judge.py" console "$log" "$kdir/plan" "$repo" \
		${judge_args[@]+"${judge_args[@]}"}
}

# test_run: the QEMU test run of kernel/harness/plan: its enabled steps'
# files in $kdir/guest-root (with the Debian userspace when a step needs
# it), the resolved plan as /plan, one boot, the judge.
test_run() {
	local root=$kdir/guest-root p a
	local -A plan_built=()

	patches
	apply
	configure
	build
	plan_resolve
	stage "plan: $(awk '$1 == "step" { printf "%s ", $2 }' "$kdir/plan")(kernel/harness/plan resolved into $kdir/plan)"
	rm -rf "$root"
	mkdir -p "$root"
	[ "$plan_userspace" = 0 ] || gpio_userspace "$root"
	for p in "${plan_puts[@]}"; do
		read -ra a <<< "$p"
		plan_put "$root" "${a[@]}"
	done
	initramfs -r "$root" "$kdir/plan"
	# A plan runs ~7 min unloaded; a retried step (the plan's "retry")
	# may add its bound and a second attempt.
	QEMU_TIMEOUT=${QEMU_TIMEOUT:-1800} boot
	judge
}

# bisect: every patch of the series builds on its own, as a bisection of
# the applied series would build it.  The patches are applied one at a
# time to a clean copy of the pristine tree in src/, and after each the
# kernel is configured (the run's fragments; the options a later patch
# adds are not there yet and drop out) and Image and modules are built in
# out-bisect/.  A failed build, or a compiler warning in a file the patch
# touches, fails the target.  The test kernel's src/ is re-applied by the
# next run (its stamp is dropped).
bisect() {
	local p n=0 files blog=$kdir/bisect.log warn

	patches
	out=$kdir/out-bisect
	# The core's prompt shows with COMPILE_TEST: it then builds from its
	# own patch on, before any user selects it.  The media fragment too,
	# so that the media fixes and the V4L2 patches build at theirs.
	configs+=("$cfgdir/revocable-media.config" "$cfgdir/revocable-bisect.config")
	rm -f "$stamps/applied"
	git -C "$ksrc" checkout -q -f --detach pristine
	git -C "$ksrc" clean -q -fdx
	: > "$blog"
	for p in "$kdir"/patches/*.patch; do
		n=$((n + 1))
		git -C "$ksrc" -c user.name=librevocable -c user.email=librevocable@localhost \
			am -q "$p" || die "$(basename "$p") does not apply"
		stage "patch $n: $(basename "$p")"
		configure loose
		echo "== $(basename "$p")" >> "$blog"
		(cd "$ksrc" && kmake Image modules) >> "$blog" 2>&1 ||
			{ tail -n 30 "$blog"; die "the build fails after $(basename "$p")"; }
		mapfile -t files < <(git -C "$ksrc" diff-tree -r --no-commit-id --name-only HEAD)
		warn=$(sed -n "/^== $(basename "$p")\$/,\$p" "$blog" | grep -E ': warning:' |
			grep -F -f <(printf '%s\n' "${files[@]}") || true)
		[ -z "$warn" ] || { echo "$warn"; die "$(basename "$p") adds compiler warnings"; }
	done
	stage "each of the $n patches builds on its own"
	echo "$n passed, 0 failed"
}

case $kver:$cmd in
6.12:* | 6.1:patches | 6.1:qemu | 6.1:series-update) ;;
7.2:patches | 7.2:qemu | 7.2:qemu-stock | 7.2:series-update | 7.2:bench | 7.2:export | 7.2:bisect | 7.2:gpiod-suite | 7.2:bench-gpio | 7.2:qemu-faults | 7.2:qemu-media) ;;
*)
	echo "$0: only patches, series-update and qemu exist for $kver" >&2
	exit 2
	;;
esac
preflight "$cmd"
case $cmd in
patches)
	patches
	;;
export)
	# The series signed by its sender, with a cover letter and the
	# recipients get_maintainer.pl gives (kernel/harness/export.sh).
	patches
	stage "the series as its sender mails it, into $kdir/export"
	"$repo/kernel/harness/export.sh" "$kdir" "$series" "$kver" "$kdir/export" ||
		die "kernel/harness/export.sh failed"
	;;
bisect)
	bisect
	;;
series-update)
	SERIES_CHECK=0 patches
	"$repo/kernel/harness/series.sh" update "$repo" "$series" "$kdir/patches"
	;;
qemu)
	test_run
	;;
qemu-stock)
	# Stock 6.12 (SERIES_UPTO=0, the default) or stock with the first N
	# patches (SERIES_UPTO=4: the gpiolib fixes), without revocable: the
	# conversions' stages judge the fixes on their own.
	SERIES_UPTO=${SERIES_UPTO:-0}
	out=$kdir/out-stock
	configs=("$cfgdir/qemu.config" "$cfgdir/revocable-conv.config")
	[ "$kver" != 7.2 ] || configs+=("$cfgdir/revocable-7.2.config")
	log=$kdir/console-stock-$SERIES_UPTO.log
	test_run
	;;
qemu-media)
	# V4L2: stock 6.12 (no patch of the series) and the converted kernel,
	# each with vivid and vimc, judged by Debian's v4l2-compliance: the
	# stock run's results are the baseline (its failures are noted, not
	# counted), and no test that passes on stock may fail on the converted
	# kernel, which also runs the media unplug storm.
	media_configs=("$cfgdir/qemu.config" "$cfgdir/revocable-media.config")
	# v4l2-compliance on every node of two drivers, under KASAN and TCG.
	export QEMU_TIMEOUT=${QEMU_TIMEOUT:-2400}
	# MEDIA_STOCK=0 (tools/test-of-tests.sh media) reuses the last baseline.
	if [ "${MEDIA_STOCK:-1}" != 0 ]; then
		(
			SERIES_UPTO=0
			out=$kdir/out-media-stock
			configs=("${media_configs[@]}")
			log=$kdir/console-media-stock.log
			judge_args=(--save "$kdir/compliance-stock.json" --reference)
			stage "the stock kernel: its v4l2-compliance results are the baseline"
			test_run
		) || stage "the stock run reported problems (above); its results are still the baseline"
	fi
	[ -s "$kdir/compliance-stock.json" ] || die "no v4l2-compliance results of the stock kernel"
	out=$kdir/out-media
	configs=("$cfgdir/qemu.config" "$cfgdir/revocable.config" "$cfgdir/revocable-media.config")
	log=$kdir/console-media.log
	judge_args=(--save "$kdir/compliance.json" --baseline "$kdir/compliance-stock.json")
	stage "the converted kernel"
	test_run
	;;
qemu-kcsan)
	out=$kdir/out-kcsan
	configs=("$cfgdir/revocable-kcsan.config")
	log=$kdir/console-kcsan.log
	test_run
	;;
qemu-faults)
	# The kernel-qemu kernel with fault injection (revocable-faults.config):
	# the same plan, and its fault-sweep step, which only this run has.
	out=$kdir/out-faults
	configs=("$cfgdir/qemu.config" "$cfgdir/revocable.config"
		"$cfgdir/revocable-conv.config" "$cfgdir/revocable-faults.config")
	[ "$kver" != 7.2 ] || configs+=("$cfgdir/revocable-7.2.config")
	log=$kdir/console-faults.log
	# The sweep runs every life cycle once per allocation it makes.
	export QEMU_TIMEOUT=${QEMU_TIMEOUT:-2700}
	test_run
	;;
bench-gpio)
	bench_conv gpio
	;;
bench-evdev)
	bench_conv evdev
	;;
bench-media)
	bench_conv media
	;;
gpiod-suite)
	bench_conv gpiod
	;;
bench)
	# BENCH_BOOTS boots (default 3) of the same kernel, a console log
	# each in $kdir/bench/; the parser takes every form's ratios to the
	# raw SRCU pair and to percpu_ref per boot, then their median and
	# spread over the boots.
	out=$kdir/out-bench
	configs=("$cfgdir/revocable-bench.config")
	patches
	apply
	configure
	build
	build_module bench "$repo/kernel/guest/modules/bench" "$repo/bench/upstream.c" "$repo/bench/upstream.h"
	initramfs "$kdir/mod-bench/revocable_bench.ko"
	mkdir -p "$kdir/bench"
	rm -f "$kdir"/bench/boot-*.log
	for i in $(seq "${BENCH_BOOTS:-3}"); do
		log=$kdir/bench/boot-$i.log
		boot
	done
	stage "parsing the benchmark results (${BENCH_BOOTS:-3} boots)"
	python3 "$repo/kernel/harness/judge.py" bench "$kdir"/bench/boot-*.log "$kdir/bench.json"
	;;
*)
	echo "usage: $0 patches|series-update|qemu|qemu-stock|qemu-kcsan|qemu-faults|qemu-media|bench|bench-gpio|bench-evdev|bench-media|gpiod-suite|patches-6.1|series-update-6.1|qemu-6.1|patches-7.2|series-update-7.2|qemu-7.2|bench-7.2|export|export-7.2|bisect|bisect-7.2 REPO KDIR" >&2
	exit 2
	;;
esac
