#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Install the library into a temporary root, then build and run a program
# against it with nothing but pkg-config and the installed header.
set -eu
build=$1
src=$2
. "$src/tests/installed-root.sh"
if find "$root" -path '*/include/linux/*' | grep -q .; then
	echo "a linux/ header was installed"; exit 1
fi

# The man pages, installed where man finds them with MANPATH set.
mandir=$(dirname "$(find "$root" -name revocable.7 | head -n 1)")
[ -f "$mandir/revocable.7" ] || { echo "revocable(7) not installed"; exit 1; }
mandir=$(dirname "$mandir")
if [ -f "$mandir/man3/revocable_try_access.3" ]; then
	MANPATH=$mandir MANWIDTH=80 man -P cat revocable_try_access | head -n 5
	MANPATH=$mandir MANWIDTH=80 man -P cat revocable_try_access | grep -q 'enter an access' ||
		{ echo "man revocable_try_access does not show the page"; exit 1; }
else
	echo "no section 3 pages installed (built without scripts/kernel-doc)"
fi

flags=$(pkg-config --cflags --libs revocable)
echo "pkg-config --cflags --libs revocable: $flags"
${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$root/consumer" \
	"$src/tests/consumer.c" $flags -pthread
LD_LIBRARY_PATH="$libdir" "$root/consumer"

# The same program with the inline fast path, as a daemon builds it for speed.
${CC:-cc} -std=c11 -Wall -Wextra -Werror -D_LGPL_SOURCE -o "$root/consumer-lgpl" \
	"$src/tests/consumer.c" $flags -pthread
if ! nm "$root/consumer-lgpl" | grep -q '__revocable_self@LIBREVOCABLE_INLINE_2'; then
	echo "consumer-lgpl does not use the inline ABI"; exit 1
fi
LD_LIBRARY_PATH="$libdir" "$root/consumer-lgpl"

# C++ (C++11 and later, each C++ compiler there is), with and without the
# inline fast path: the header must work unchanged, plus revocable.hpp.
for cxx in ${CXX:-c++} clang++; do
	command -v "$cxx" >/dev/null || continue
	for std in c++11 c++17; do
		for lgpl in "" -D_LGPL_SOURCE; do
			echo "$cxx -std=$std $lgpl"
			"$cxx" -std=$std -Wall -Wextra -Werror $lgpl -o "$root/consumer-cxx" \
				"$src/tests/consumer.cpp" $flags -pthread
			LD_LIBRARY_PATH="$libdir" "$root/consumer-cxx"
		done
	done
done

# Under valgrind the way a daemon's CI runs it, with the installed
# suppression file: a normal exit with work still pending is clean; without
# the file, memcheck does flag the library's threads (so the file matters).
if command -v valgrind >/dev/null; then
	[ -f "$supp" ] || { echo "suppression file $supp not installed"; exit 1; }
	${CC:-cc} -std=c11 -Wall -Wextra -Werror -g -o "$root/consumer-exit" \
		"$src/tests/consumer-exit.c" $flags -pthread
	LD_LIBRARY_PATH="$libdir" valgrind --quiet --leak-check=full --error-exitcode=1 \
		--suppressions="$supp" "$root/consumer-exit"
	echo "valgrind with $supp: clean"
	if LD_LIBRARY_PATH="$libdir" valgrind --quiet --leak-check=full --error-exitcode=1 \
		"$root/consumer-exit" >/dev/null 2>&1; then
		echo "(without the suppression file it is clean too)"
	else
		echo "without the suppression file: memcheck reports errors, as expected"
	fi
fi
