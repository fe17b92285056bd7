#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: check.sh MODEL.pml [CC]
# Checks the model with spin: the liveness property under weak fairness
# (with the assertions), then assertions and invalid end states without
# the claim; then every BUG_* mutant named in the model must fail.
set -eu
model=$(realpath "$1")
cc=${2:-cc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# verify NAME SPIN_FLAGS CC_FLAGS PAN_FLAGS: prints pan's verdict lines;
# returns 0 when pan found no error, 1 when it found one, 2 when spin or
# the compiler failed.
verify() {
	rm -f pan pan.* ./*.trail
	# shellcheck disable=SC2086
	spin $2 -a "$model" > spin.log 2>&1 || { cat spin.log; return 2; }
	# shellcheck disable=SC2086
	$cc -O2 -w $3 -o pan pan.c || return 2
	# shellcheck disable=SC2086
	./pan $4 > pan.log 2>&1 || true
	grep -E 'errors:|assertion violated|acceptance cycle|states, stored' pan.log |
		sed "s/^/  $1: /"
	grep -q 'errors: 0' pan.log && return 0
	grep -qE 'errors: [1-9]' pan.log && return 1
	return 2
}

fail=0
echo "model: $model"
verify liveness "" "-DNFAIR=4" "-a -f -N terminates -m2000000" || fail=1
verify safety "" "-DNOCLAIM" "-m2000000" || fail=1
for m in $(grep -oE '\bBUG_[A-Z_]+' "$model" | sort -u); do
	rc=0
	verify "$m" "-D$m" "-DNFAIR=4" "-a -f -N terminates -m2000000" || rc=$?
	case $rc in
	0) echo "  $m: the mutant passed: the model cannot see this bug"; fail=1 ;;
	1) echo "  $m: caught, as it must be" ;;
	*) echo "  $m: spin could not check it"; fail=1 ;;
	esac
done
[ $fail = 0 ] && echo "model: both properties hold, all mutants caught"
exit $fail
