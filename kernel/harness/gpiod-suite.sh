#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libgpiod's own C test suite (gpiod-test), unmodified, for the arm64 QEMU
# guest: Debian 13's libgpiod source, cross-built against Debian 12's arm64
# libraries, installed with everything it needs at run time into an
# initramfs tree.
#
# usage: gpiod-suite.sh KDIR ROOT
#   KDIR  a working directory in the build dir (never in the repo); all
#         goes to KDIR/gpiod-suite/:
#         apt-src/    private apt state: Debian 13's Sources (deb-src
#                     trixie main, from the host's own Debian mirror)
#         apt-arm64/  private apt state: the host release's arm64 packages
#         debs/       those arm64 .debs; sysroot/ them extracted
#         src/        libgpiod's orig tarball (checked against the Sources
#                     index) and libgpiod-VERSION/, it unpacked
#         build/      the out-of-tree build; stage/ its "make install"
#   ROOT  the initramfs tree being assembled; it gets /usr/bin/gpiod-test,
#         libgpiod.so* and libgpiosim.so* in /usr/lib/aarch64-linux-gnu,
#         and every arm64 library they need (with the dynamic loader),
#         copied from sysroot/
#
# Only the upstream tarball is built: Debian's one patch is to the Doxygen
# configuration.  The release tarball has its configure script, so no
# autotools run.  A second run with everything in place only checks the
# tarball again and copies.
#
# In the guest gpiod-test needs: root; a kernel >= 5.19 (it checks
# uname); /proc (libmount reads the mount table), /sys, devtmpfs on /dev
# (the simulated chips' /dev/gpiochipN); configfs (at /sys/kernel/config,
# or it mounts one itself); gpio-sim loaded, built in, or loadable by
# libkmod from /lib/modules/$(uname -r) (modules.dep from depmod).
set -euo pipefail

[ $# = 2 ] || {
	echo "usage: $0 KDIR ROOT" >&2
	exit 2
}
work=$(realpath -m "$1")/gpiod-suite
root=$(realpath -m "$2")
t0=$(date +%s)
triplet=aarch64-linux-gnu
sysroot=$work/sysroot
stage=$work/stage
# Debian 12's arm64 packages gpiod-test is built against and runs with:
# the -dev ones for the headers and pkg-config files (with those that
# their .pc files' Requires.private name), the rest for the libraries
# that the ones linked need.
pkgs=(libc6 libgcc-s1 libglib2.0-0 libglib2.0-dev libkmod2 libkmod-dev
	libmount1 libmount-dev libblkid1 libblkid-dev libselinux1
	libselinux1-dev libsepol-dev libpcre2-8-0 libpcre2-dev libffi8
	libffi-dev zlib1g zlib1g-dev libzstd1 liblzma5 libssl3)

say() {
	printf '[%4ds] gpiod-suite: %s\n' $(($(date +%s) - t0)) "$*"
}

die() {
	say "FAILED: $*" >&2
	exit 1
}

# host_mirror: the URI of the host's Debian archive, the one its apt
# sources name for the host's own release (as apt itself reads them).
host_mirror() {
	local codename uri

	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	uri=$(apt-get indextargets --no-release-info \
		--format '$(RELEASE) $(REPO_URI)' 2>/dev/null |
		awk -v c="$codename" '$1 == c { print $2; exit }')
	[ -n "$uri" ] || die "no apt source of the host's $codename in /etc/apt"
	echo "$uri"
}

# apt_src ARGS...: apt-get on the private Debian 13 source state.
apt_src() {
	local d=$work/apt-src

	apt-get -q -o Dir::Etc::SourceList="$d/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" \
		-o Dir::State::status=/dev/null -o Debug::NoLocking=1 \
		-o APT::Sandbox::User=root "$@"
}

# apt_arm64 ARGS...: apt-get for arm64 on the host's sources with a
# private state (the options of kernel.sh's gpio_userspace()).
apt_arm64() {
	local d=$work/apt-arm64

	apt-get -q -o APT::Architecture=arm64 -o APT::Architectures::=arm64 \
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" \
		-o Dir::State::status=/dev/null -o Debug::NoLocking=1 \
		-o APT::Sandbox::User=root "$@"
}

# sources_stanza: libgpiod's stanza of the private Sources index.
sources_stanza() {
	local f

	f=$(find "$work/apt-src/lists" -maxdepth 1 -name '*_trixie_main_source_Sources*' |
		head -n 1)
	[ -n "$f" ] || die "no trixie Sources index in $work/apt-src/lists"
	/usr/lib/apt/apt-helper cat-file "$f" |
		awk '/^Package: / { p = $2 == "libgpiod" } p' |
		awk 'NF == 0 { exit } { print }'
}

# orig_tarball: the orig tarball's name, as the Sources index has it.
orig_tarball() {
	sources_stanza | awk '/^Checksums-Sha256:/ { s = 1; next }
		/^[^ ]/ { s = 0 } s && $3 ~ /\.orig\.tar\./ { print $3; exit }'
}

# source_fetch: the private Debian 13 Sources index, and libgpiod's orig
# tarball from it (apt-helper checks its hash on the way in).
source_fetch() {
	local d=$work/apt-src uri name sha

	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$work/src"
	if [ -z "$(ls "$d/lists" | grep _Sources)" ]; then
		echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(host_mirror) trixie main" \
			> "$d/sources.list"
		say "Debian 13 Sources index: $(cat "$d/sources.list")"
		apt_src update >/dev/null ||
			die "apt-get update of trixie's Sources failed"
	fi
	name=$(orig_tarball)
	[ -n "$name" ] || die "no libgpiod orig tarball in trixie's Sources"
	[ -f "$work/src/$name" ] && return
	# "apt-get source" also wants the .dsc, which the mirror may not
	# serve; its --print-uris line of the tarball is all that is needed.
	read -r uri sha < <(apt_src -qq source --print-uris libgpiod |
		awk -v n="$name" '$2 == n { gsub("\047", "", $1); print $1, $4 }')
	[ -n "$uri" ] || die "apt-get source --print-uris libgpiod has no $name"
	say "downloading $uri"
	/usr/lib/apt/apt-helper -o APT::Sandbox::User=root download-file "$uri" "$work/src/$name.part" "$sha" \
		>/dev/null || die "download of $uri failed"
	mv "$work/src/$name.part" "$work/src/$name"
}

# source_verify: the tarball's sha256 against the Checksums-Sha256 of the
# Sources index (on every run); prints the check line.
source_verify() {
	local name want got

	name=$(orig_tarball)
	want=$(sources_stanza | awk -v n="$name" '/^Checksums-Sha256:/ { s = 1; next }
		/^[^ ]/ { s = 0 } s && $3 == n { print $1 }')
	got=$(sha256sum "$work/src/$name" | cut -d' ' -f1)
	[ -n "$want" ] && [ "$got" = "$want" ] ||
		die "sha256 of $name is $got, trixie's Sources index says ${want:-nothing}"
	sha_line="sha256 $got $name: OK (trixie Sources, libgpiod $(sources_stanza |
		sed -n 's/^Version: //p'))"
	say "$sha_line"
}

# source_unpack: libgpiod-VERSION/ from the tarball, once; its path.
source_unpack() {
	local name dir

	name=$(orig_tarball)
	dir=$work/src/$(tar -tf "$work/src/$name" | head -n 1 | cut -d/ -f1)
	if [ ! -f "$dir/.unpacked" ]; then
		rm -rf "$dir"
		tar -C "$work/src" -xf "$work/src/$name" || die "unpacking $name failed"
		touch "$dir/.unpacked"
	fi
	echo "$dir"
}

# sysroot_fix_links: the sysroot's absolute symlinks (the -dev packages'
# libfoo.so -> /lib/...) made to point into the sysroot.
sysroot_fix_links() {
	local l t

	find "$sysroot" -type l -lname '/*' -print0 |
		while IFS= read -r -d '' l; do
			t=$(readlink "$l")
			ln -sfn "$sysroot$t" "$l"
		done
}

# sysroot_make: the arm64 packages downloaded and extracted into sysroot/,
# again only when the package list changed.
sysroot_make() {
	local d=$work/apt-arm64 deb

	[ "$(cat "$sysroot/.pkgs" 2>/dev/null)" = "${pkgs[*]}" ] && return
	say "arm64 packages: ${pkgs[*]}"
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$work/debs"
	rm -rf "$sysroot" "$work"/debs/*.deb
	apt_arm64 update >/dev/null ||
		die "apt-get update for arm64 failed (is Debian's archive reachable?)"
	(cd "$work/debs" && apt_arm64 download "${pkgs[@]}" >/dev/null) ||
		die "apt-get download ${pkgs[*]} (arm64) failed"
	mkdir -p "$sysroot"
	for deb in "$work"/debs/*.deb; do
		dpkg-deb -x "$deb" "$sysroot" || die "dpkg-deb -x $deb failed"
	done
	sysroot_fix_links
	echo "${pkgs[*]}" > "$sysroot/.pkgs"
}

# build SRCDIR: libgpiod's library, libgpiosim and gpiod-test cross-built
# in build/ and installed into stage/, unless already done for these
# sources and packages.
build() {
	local src=$1 b=$work/build key d ldflags=

	key="$(basename "$src") ${pkgs[*]}"
	[ "$(cat "$stage/.built" 2>/dev/null)" = "$key" ] && return
	rm -rf "$b" "$stage"
	mkdir -p "$b"
	for d in "$sysroot/lib/$triplet" "$sysroot/usr/lib/$triplet"; do
		ldflags+="-L$d -Wl,-rpath-link,$d "
	done
	say "configure $(basename "$src") for $triplet (--enable-tests)"
	(cd "$b" && "$src/configure" -q --host=$triplet --prefix=/usr \
		--libdir=/usr/lib/$triplet --disable-static --enable-tests \
		--disable-tools --disable-examples --disable-bindings-cxx \
		--disable-bindings-python --disable-bindings-rust \
		--disable-bindings-glib --disable-dbus --enable-introspection=no \
		CC=$triplet-gcc PKG_CONFIG=pkg-config \
		PKG_CONFIG_LIBDIR="$sysroot/usr/lib/$triplet/pkgconfig:$sysroot/usr/share/pkgconfig" \
		PKG_CONFIG_SYSROOT_DIR="$sysroot" \
		CPPFLAGS="-I$sysroot/usr/include -I$sysroot/usr/include/$triplet" \
		LDFLAGS="$ldflags") ||
		die "configure failed (see $b/config.log)"
	say "make -j1: lib, tests/gpiosim, tests/gpiod-test"
	for d in lib:all tests/gpiosim:libgpiosim.la tests/gpiosim-glib:all \
		tests/harness:all tests:gpiod-test; do
		make -s -j1 -C "$b/${d%:*}" "${d#*:}" >/dev/null ||
			die "make -C ${d%:*} ${d#*:} failed"
	done
	make -s -j1 -C "$b/lib" install DESTDIR="$stage" \
		LIBTOOLFLAGS=--no-warnings >/dev/null &&
		make -s -j1 -C "$b/tests/gpiosim" install-libLTLIBRARIES \
			DESTDIR="$stage" LIBTOOLFLAGS=--no-warnings >/dev/null ||
		die "make install into $stage failed"
	# The binary behind libtool's wrapper script, linked with RUNPATH
	# /usr/lib/$triplet (the libraries' place in ROOT).
	install -D -m 755 "$b/tests/.libs/gpiod-test" "$stage/usr/bin/gpiod-test" ||
		die "no gpiod-test binary"
	echo "$key" > "$stage/.built"
}

# lib_find NAME: the arm64 library NAME in stage/ or sysroot/, in the
# arm64 loader's default search order.
lib_find() {
	local d

	for d in "$stage/usr/lib/$triplet" "$sysroot/lib/$triplet" \
		"$sysroot/usr/lib/$triplet" "$sysroot/lib" "$sysroot/usr/lib"; do
		[ -e "$d/$1" ] && echo "$d/$1" && return
	done
	return 1
}

# root_rel FILE: FILE's path under stage/ or sysroot/, the one it gets in
# ROOT.
root_rel() {
	case $1 in
	"$stage"/*) echo "${1#"$stage"}" ;;
	*) echo "${1#"$sysroot"}" ;;
	esac
}

# put FILE: FILE copied to its path in ROOT; a symlink as a relative
# symlink to where it resolves in stage/ or sysroot/.
put() {
	local f=$1 rel t

	rel=$(root_rel "$f")
	mkdir -p "$root${rel%/*}"
	if [ -L "$f" ]; then
		t=$(readlink -f "$f")
		ln -sfn "$(realpath -s --relative-to="${f%/*}" "$t")" "$root$rel"
	else
		cp -f "$f" "$root$rel"
	fi
	installed+=("$rel")
}

# elf_needs FILE: FILE's program interpreter (as an absolute path) and
# its NEEDED libraries (names).
elf_needs() {
	$triplet-readelf -l "$1" 2>/dev/null |
		sed -n 's/.*program interpreter: \(.*\)\]/\1/p'
	$triplet-readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}

# root_install: gpiod-test, libgpiod and libgpiosim from stage/ and every
# library that they need, recursively, from sysroot/ into ROOT; fails
# when one is missing.
root_install() {
	local queue=("$stage/usr/bin/gpiod-test") f n p
	local -A seen=()

	installed=()
	for f in "$stage/usr/lib/$triplet"/lib{gpiod,gpiosim}.so.*; do
		queue+=("$f")
	done
	while [ ${#queue[@]} -gt 0 ]; do
		f=${queue[0]}
		queue=("${queue[@]:1}")
		[ -z "${seen[$f]:-}" ] || continue
		seen[$f]=1
		put "$f"
		if [ -L "$f" ]; then
			queue+=("$(readlink -f "$f")")
			continue
		fi
		for n in $(elf_needs "$f"); do
			case $n in
			/*) p=$sysroot$n ;;
			*) p=$(lib_find "$n") || die "${f##*/} needs $n: in no package" ;;
			esac
			[ -e "$p" ] || die "${f##*/} needs $n: not in $sysroot"
			queue+=("$p")
		done
	done
}

mkdir -p "$work" "$root"
source_fetch
source_verify
src=$(source_unpack)
sysroot_make
build "$src"
root_install
say "installed into $root:"
printf '  %s\n' $(printf '%s\n' "${installed[@]}" | sort -u)
say "$sha_line"
