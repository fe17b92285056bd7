#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Build tests/subproject, a parent project that uses this tree as its
# subproject "librevocable", and run its program and its test.
set -eu
src=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

cp "$src/tests/subproject/meson.build" "$src/tests/subproject/parent.c" "$dir/"
mkdir "$dir/subprojects"
ln -s "$src" "$dir/subprojects/librevocable"
meson setup "$dir/build" "$dir" >/dev/null
meson compile -C "$dir/build" >/dev/null
"$dir/build/parent"
meson test -C "$dir/build" --quiet
