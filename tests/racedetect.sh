#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A program's race detector against the installed library (docs/design.md,
# "Race detectors"): install into a temporary root, build tests/racedetect.c
# with pkg-config as an outside program would, out of line and with
# _LGPL_SOURCE, and run it under one tool:
#
#	racedetect.sh BUILD SRC helgrind|drd|tsan
#
# The correct program must get no report; the same program with a data race
# of its own ("racy") must get that race reported, and only there.  helgrind
# and DRD use the installed suppression file; TSan builds the program with
# -fsanitize=thread (each C compiler there is, -Wall -Wextra -Werror) against
# the plain library, with no suppression file.  Exit 77 (skipped) when the
# tool is not installed.
set -eu
build=$1
src=$2
tool=$3
. "$src/tests/installed-root.sh"
export LD_LIBRARY_PATH="$libdir"
flags=$(pkg-config --cflags --libs revocable)
# Where the program races on purpose.
racy_line=$(grep -n 'racy_counter++' "$src/tests/racedetect.c" | cut -d: -f1)
racy_at="racedetect.c:$racy_line"
fail=0

# check NAME STATUS EXPECTED-STATUS LOG: the verdict on one run.
check() {
	if [ "$2" -ne "$3" ]; then
		echo "FAIL: $1: exit status $2, expected $3"
		sed -n '1,80p' "$4"
		fail=1
	elif [ "$3" -ne 0 ] && ! grep -q "$racy_at" "$4"; then
		echo "FAIL: $1: the race at $racy_at is not the one reported"
		sed -n '1,80p' "$4"
		fail=1
	else
		echo "ok: $1 ($(grep -c "$5" "$4") reports)"
	fi
}

case $tool in
helgrind | drd)
	command -v valgrind >/dev/null || { echo "no valgrind"; exit 77; }
	[ -f "$supp" ] || { echo "suppression file $supp not installed"; exit 1; }
	[ "$tool" = helgrind ] && what='^==[0-9]*== Possible data race' ||
		what='^==[0-9]*== Conflicting'
	for v in plain lgpl; do
		[ $v = lgpl ] && def=-D_LGPL_SOURCE || def=
		# DWARF 4: valgrind 3.19 cannot read clang's DWARF 5.
		${CC:-cc} -std=c11 -gdwarf-4 -O2 -Wall -Wextra -Werror $def \
			-o "$root/racedetect-$v" "$src/tests/racedetect.c" $flags -pthread
		for mode in correct racy; do
			log=$root/$v-$mode.log
			st=0
			# --fair-sched: without it a thread that spins with
			# sched_yield() could keep valgrind's lock from the one
			# it waits for (a correct run stuck 1 time in 2 with
			# two at once on 2 cores; 0 in 4 with it).
			valgrind --tool="$tool" --fair-sched=yes --error-exitcode=1 \
				--suppressions="$supp" "$root/racedetect-$v" $mode \
				>"$log" 2>&1 || st=$?
			[ $mode = correct ] && want=0 || want=1
			check "$tool $v $mode" $st $want "$log" "$what"
		done
	done
	;;
tsan)
	ccs=
	for c in ${CC:-cc} clang; do
		command -v "$c" >/dev/null || continue
		printf 'int main(void) { return 0; }\n' >"$root/t.c"
		"$c" -fsanitize=thread -o "$root/t" "$root/t.c" 2>/dev/null &&
			"$root/t" || { echo "$c: no TSan runtime"; continue; }
		ccs="$ccs $c"
	done
	[ -n "$ccs" ] || exit 77
	for c in $ccs; do
		for v in plain lgpl; do
			[ $v = lgpl ] && def=-D_LGPL_SOURCE || def=
			# The installed headers, warning-free (-Wtsan included).
			"$c" -std=c11 -g -O1 -Wall -Wextra -Werror -fsanitize=thread $def \
				-o "$root/racedetect-$v" "$src/tests/racedetect.c" $flags -pthread
			for mode in correct racy; do
				log=$root/$c-$v-$mode.log
				st=0
				TSAN_OPTIONS='halt_on_error=1 exitcode=66' \
					"$root/racedetect-$v" $mode >"$log" 2>&1 || st=$?
				[ $mode = correct ] && want=0 || want=66
				check "tsan $c $v $mode" $st $want "$log" 'WARNING: ThreadSanitizer'
			done
		done
	done
	# C++, inline: the headers compile warning-free there too.
	for cxx in ${CXX:-c++} clang++; do
		command -v "$cxx" >/dev/null || continue
		"$cxx" -std=c++11 -Wall -Wextra -Werror -fsanitize=thread -D_LGPL_SOURCE \
			-c -o "$root/consumer-cxx.o" "$src/tests/consumer.cpp" \
			$(pkg-config --cflags revocable) ||
			{ echo "FAIL: $cxx -fsanitize=thread"; fail=1; }
	done
	;;
*)
	echo "unknown tool $tool"; exit 1
	;;
esac
exit $fail
