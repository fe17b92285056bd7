# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the install suites with $build set: installs the library from
# $build into a temporary root that is removed at exit, and sets
#	root	the temporary root
#	pcdir	where revocable.pc is, libdir where librevocable.so.1 is
#	supp	the installed valgrind suppression file
# with PKG_CONFIG_PATH and PKG_CONFIG_SYSROOT_DIR exported for them.
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
meson install -C "$build" --destdir "$root" --no-rebuild --quiet
pcdir=$(dirname "$(find "$root" -name revocable.pc | head -n 1)")
[ -f "$pcdir/revocable.pc" ] || { echo "revocable.pc not installed"; exit 1; }
libdir=$(dirname "$(find "$root" -name 'librevocable.so.1' | head -n 1)")
[ -e "$libdir/librevocable.so.1" ] || { echo "librevocable.so.1 not installed"; exit 1; }
export PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$root"
# pkgconf puts the sysroot in front of a variable's path itself.
supp=$(pkg-config --variable=suppressions revocable)
case $supp in "$root"/*) ;; *) supp=$root$supp ;; esac
