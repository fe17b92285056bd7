#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Debian packaging, as a distribution would use it: build the binary
# packages from a clean copy of the tree with dpkg-buildpackage -b
# -us -uc, require lintian --pedantic to report no error and no warning,
# unpack the packages into a scratch root with dpkg -x, and build and run
# the C and C++ pkg-config consumers against that root alone.
#
# usage: tools/deb-check.sh [SOURCE_TREE]   (default: this checkout)
set -eu
src=$(cd "${1:-$(dirname "$0")/..}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir "$work/src" "$work/root"
# The tracked files of a git checkout; otherwise (a copied tree, as in the
# fresh-machine check) the tree without build directories.
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$src" && git ls-files -z | xargs -0 cp --parents -t "$work/src")
else
	rsync -a --exclude='/build*/' --exclude='/obj-*/' --exclude='/.git/' \
		--exclude='/debian/.debhelper/' --exclude='/debian/tmp/' \
		--exclude='/debian/librevocable1/' --exclude='/debian/librevocable-dev/' \
		"$src/" "$work/src/"
fi
cd "$work/src"
echo "dpkg-buildpackage -b -us -uc"
if ! dpkg-buildpackage -b -us -uc >"$work/build.log" 2>&1; then
	tail -n 60 "$work/build.log"
	exit 1
fi
grep -E '^(Ok|Fail): ' "$work/build.log" | sed 's/^/  package tests: /'
changes=$(ls "$work"/*.changes)
ls "$work"/*.deb | sed 's|.*/|  built |'

lintian --pedantic --info "$changes" >"$work/lintian.log" 2>&1 || true
sed 's/^/  lintian: /' "$work/lintian.log"
if grep -qE '^[EW]: ' "$work/lintian.log"; then
	echo "lintian reports errors or warnings"
	exit 1
fi

for d in "$work"/librevocable1_*.deb "$work"/librevocable-dev_*.deb; do
	dpkg -x "$d" "$work/root"
done
pcdir=$(dirname "$(find "$work/root" -name revocable.pc)")
export PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$work/root"
flags=$(pkg-config --cflags --libs revocable)
libdir=$(dirname "$(find "$work/root" -name 'librevocable.so.1')")
${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$work/consumer" "$src/tests/consumer.c" $flags -pthread
LD_LIBRARY_PATH="$libdir" "$work/consumer"
${CXX:-c++} -std=c++11 -Wall -Wextra -Werror -o "$work/consumer-cxx" "$src/tests/consumer.cpp" $flags -pthread
LD_LIBRARY_PATH="$libdir" "$work/consumer-cxx"
[ -f "$work/root/usr/share/man/man3/revocable_try_access.3.gz" ] ||
	{ echo "the -dev package has no man pages"; exit 1; }
echo "deb-check: packages build, lintian clean, consumers run against them"
