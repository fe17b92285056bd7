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

	codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
	# shellcheck disable=SC2016 # apt's own $(FIELD) placeholders
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

# sources_index: the private Sources index's file, if there is one.
sources_index() {
	find "$work/apt-src/lists" -maxdepth 1 \
		-name '*_trixie_main_source_Sources*' | awk 'NR == 1'
}

# sources_stanza: libgpiod's stanza of the private Sources index.
sources_stanza() {
	local f

	f=$(sources_index)
	[ -n "$f" ] || die "no trixie Sources index in $work/apt-src/lists"
	/usr/lib/apt/apt-helper cat-file "$f" |
		awk '/^Package: / { p = $2 == "libgpiod" && !n++ } NF == 0 { p = 0 } p'
}

# orig_tarball: the orig tarball's name, as $stanza has it.
orig_tarball() {
	echo "$stanza" | awk '/^Checksums-Sha256:/ { s = 1; next }
		/^[^ ]/ { s = 0 } s && $3 ~ /\.orig\.tar\./ { print $3; exit }'
}

# source_fetch: the private Debian 13 Sources index, libgpiod's stanza of
# it into $stanza, and the orig tarball it names (apt-helper checks its
# hash on the way in).
source_fetch() {
	local d=$work/apt-src uri name sha
	local key=/usr/share/keyrings/debian-archive-keyring.gpg

	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$work/src"
	if [ -z "$(sources_index)" ]; then
		echo "deb-src [signed-by=$key] $(host_mirror) trixie main" \
			> "$d/sources.list"
		say "Debian 13 Sources index: $(cat "$d/sources.list")"
		apt_src update >/dev/null ||
			die "apt-get update of trixie's Sources failed"
	fi
	stanza=$(sources_stanza)
	name=$(orig_tarball)
	[ -n "$name" ] || die "no libgpiod orig tarball in trixie's Sources"
	[ -f "$work/src/$name" ] && return
	# "apt-get source" also wants the .dsc, which the mirror may not
	# serve; its --print-uris line of the tarball is all that is needed.
	read -r uri sha < <(apt_src -qq source --print-uris libgpiod |
		awk -v n="$name" '$2 == n { gsub("\047", "", $1); print $1, $4 }')
	[ -n "$uri" ] || die "apt-get source --print-uris libgpiod has no $name"
	say "downloading $uri"
	/usr/lib/apt/apt-helper -o APT::Sandbox::User=root download-file \
		"$uri" "$work/src/$name.part" "$sha" >/dev/null ||
		die "download of $uri failed"
	mv "$work/src/$name.part" "$work/src/$name"
}

# source_verify: the tarball's sha256 against the Checksums-Sha256 of the
# Sources index (on every run); prints the check line.
source_verify() {
	local name want got

	name=$(orig_tarball)
	want=$(echo "$stanza" | awk -v n="$name" '
		/^Checksums-Sha256:/ { s = 1; next }
		/^[^ ]/ { s = 0 } s && $3 == n { print $1 }')
	got=$(sha256sum "$work/src/$name" | cut -d' ' -f1)
	if [ -z "$want" ] || [ "$got" != "$want" ]; then
		die "sha256 of $name is $got, trixie's Sources index says ${want:-nothing}"
	fi
	sha_line="sha256 $got $name: OK (trixie Sources, libgpiod $(echo "$stanza" |
		sed -n 's/^Version: //p'))"
	say "$sha_line"
}

# source_unpack: libgpiod-VERSION/ from the tarball, once; its path.
source_unpack() {
	local name dir

	name=$(orig_tarball)
	dir=$work/src/$(tar -tf "$work/src/$name" | awk -F/ 'NR == 1 { print $1 }')
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

# logged CMD...: CMD with its output into build.log; the log's end shown
# when it fails.
logged() {
	"$@" >>"$work/build.log" 2>&1 || {
		tail -n 30 "$work/build.log" >&2
		return 1
	}
}

# build SRCDIR: libgpiod's library, libgpiosim and gpiod-test cross-built
# in build/ and installed into stage/, unless already done for these
# sources and packages.
build() {
	local src=$1 b=$work/build key d ldflags=
	local pcdirs=$sysroot/usr/lib/$triplet/pkgconfig:$sysroot/usr/share/pkgconfig

	# Redone when the sources, the packages or this script's build and
	# install steps change.
	key="$(basename "$src") ${pkgs[*]} $(declare -f build lib_find elf_needs \
		closure | sha256sum | cut -c1-16)"
	[ "$(cat "$stage/.built" 2>/dev/null)" = "$key" ] && return
	rm -rf "$b" "$stage"
	mkdir -p "$b"
	for d in "$sysroot/lib/$triplet" "$sysroot/usr/lib/$triplet"; do
		ldflags+="-L$d -Wl,-rpath-link,$d "
	done
	say "configure $(basename "$src") for $triplet (--enable-tests)," \
		"log: $work/build.log"
	: > "$work/build.log"
	(cd "$b" && logged "$src/configure" --host=$triplet --prefix=/usr \
		--libdir=/usr/lib/$triplet --disable-static --enable-tests \
		--disable-tools --disable-examples --disable-bindings-cxx \
		--disable-bindings-python --disable-bindings-rust \
		--disable-bindings-glib --disable-dbus --enable-introspection=no \
		CC=$triplet-gcc PKG_CONFIG=pkg-config \
		PKG_CONFIG_LIBDIR="$pcdirs" \
		PKG_CONFIG_SYSROOT_DIR="$sysroot" \
		CPPFLAGS="-I$sysroot/usr/include -I$sysroot/usr/include/$triplet" \
		LDFLAGS="$ldflags") || die "configure failed (see $b/config.log)"
	say "make -j1: lib, tests/gpiosim, tests/gpiod-test"
	for d in lib:all tests/gpiosim:libgpiosim.la tests/gpiosim-glib:all \
		tests/harness:all tests:gpiod-test; do
		logged make -j1 -C "$b/${d%:*}" "${d#*:}" ||
			die "make -C ${d%:*} ${d#*:} failed"
	done
	logged make -j1 -C "$b/lib" install DESTDIR="$stage" ||
		die "make -C lib install failed"
	logged make -j1 -C "$b/tests/gpiosim" install-libLTLIBRARIES \
		DESTDIR="$stage" || die "make -C tests/gpiosim install failed"
	# The binary behind libtool's wrapper script, linked with RUNPATH
	# /usr/lib/$triplet (the libraries' place in ROOT).
	install -D -m 755 "$b/tests/.libs/gpiod-test" \
		"$stage/usr/bin/gpiod-test" || die "no gpiod-test binary"
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

# elf_needs FILE: FILE's program interpreter (as an absolute path) and
# its NEEDED libraries (names).
elf_needs() {
	$triplet-readelf -l "$1" 2>/dev/null |
		sed -n 's/.*program interpreter: \(.*\)\]/\1/p'
	$triplet-readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}

# closure: into stage/.closure, once per build, what ROOT gets: lines
# "TREE PATH" (TREE stage/ or sysroot/, PATH the same in ROOT) for
# gpiod-test, libgpiod, libgpiosim, libgcc_s and every library that they
# need, recursively, symlinks with the files that they point to; fails
# when a library is in no package or a symlink is absolute.
closure() {
	local queue=("$stage/usr/bin/gpiod-test") f n p t
	local -A seen=()

	[ -s "$stage/.closure" ] && return
	for f in "$stage/usr/lib/$triplet"/lib{gpiod,gpiosim}.so.*; do
		queue+=("$f")
	done
	# glibc dlopen()s libgcc_s for unwinding (pthread_exit, backtrace).
	f=$(lib_find libgcc_s.so.1) || die "no libgcc_s.so.1"
	queue+=("$f")
	while [ ${#queue[@]} -gt 0 ]; do
		f=${queue[0]}
		queue=("${queue[@]:1}")
		[ -z "${seen[$f]:-}" ] || continue
		seen[$f]=1
		case $f in
		"$stage"/*) echo "$stage ${f#"$stage"/}" ;;
		*) echo "$sysroot ${f#"$sysroot"/}" ;;
		esac
		if [ -L "$f" ]; then
			t=$(readlink "$f")
			[ "${t#/}" = "$t" ] || die "$f is an absolute symlink"
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
	done > "$stage/.closure.new"
	mv "$stage/.closure.new" "$stage/.closure"
}

# root_install: the closure's files copied into ROOT (symlinks as they
# are: relative ones).
root_install() {
	local tree

	closure
	for tree in "$stage" "$sysroot"; do
		(cd "$tree" &&
			awk -v t="$tree" '$1 == t { print $2 }' "$stage/.closure" |
			xargs -r cp -P --parents -t "$root") ||
			die "copying into $root failed"
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
awk '{ print "  /" $2 }' "$stage/.closure" | sort
say "$sha_line"
