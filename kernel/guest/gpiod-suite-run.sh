#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The step of "ninja -C build kernel-gpiod-suite" in the guest: libgpiod's
# own C test suite (gpiod-test, as Debian 13's libgpiod source builds it),
# run unmodified, its TAP output on the console, timed with the shell's
# clock around the test binary alone.  Then one line for the benchmark
# parser, "GPIODBENCH: suite cpus=N ns_per_op=NS", and one with the counts,
# "GPIODRESULT: pass=P fail=F skip=S".
#
# usage: gpiod-suite-run.sh [RUNS]
# With RUNS > 1 the suite runs that many times in a row: a GPIODBENCH line
# each (the parser takes the boot's median), and one GPIODRESULT line with
# the first run's passes and skips, the failures of all runs and the first
# nonzero exit status.
set -u

runs=${1:-1}
tap=/tmp/gpiod-test.tap
mkdir -p /tmp
tfail=0
trc=0
for i in $(seq "$runs"); do
	start=$EPOCHREALTIME
	/usr/bin/gpiod-test --tap > "$tap" 2>&1
	rc=$?
	end=$EPOCHREALTIME
	cat "$tap"
	ns=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", (b - a) * 1e9 }')
	skip=$(grep -c -E '^ok [0-9]+ .*# SKIP' "$tap")
	pass=$(grep -E '^ok [0-9]+ ' "$tap" | grep -c -v -E '# SKIP')
	fail=$(grep -c -E '^not ok [0-9]+ ' "$tap")
	# A test that aborts the program leaves the rest of the plan unreported.
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$tap" | head -n 1)
	missing=$((${plan:-0} - pass - fail - skip))
	[ "$missing" -le 0 ] || fail=$((fail + missing))
	[ -n "$plan" ] || fail=$((fail + 1))
	echo "GPIODBENCH: suite cpus=$(nproc) ns_per_op=$ns"
	[ "$i" != 1 ] || { fpass=$pass; fskip=$skip; }
	tfail=$((tfail + fail))
	[ "$trc" != 0 ] || trc=$rc
done
echo "GPIODRESULT: pass=$fpass fail=$tfail skip=$fskip exit=$trc"
