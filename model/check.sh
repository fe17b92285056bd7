#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: check.sh MODEL.pml [CC]
# Checks the model with spin: the liveness property under weak fairness
# (with the assertions), then assertions and invalid end states without
# the claim; then every BUG_* mutant named in the model must fail, and
# every SAFE_* variant must pass both checks as the model does.
#
# Mutants and variants are the BUG_* and SAFE_* names on the model's
# #if, #ifdef, #ifndef and #elif lines.  A mutant fails when either run
# finds an error (the liveness run sees no assertion once its claim is
# satisfied, hence the second run).
#
# A model may tune the runs with lines of its own (in a comment):
#   check-config: SPIN_FLAGS  check everything once more per such line,
#                             with these flags to spin (-DNAME=VALUE...);
#                             a mutant must fail in every configuration.
#                             Without such a line: one run, no flags.
#   check-cc: FLAGS           more flags to compile pan with
#   check-pan: FLAGS          more flags to run pan with
set -eu
model=$(realpath "$1")
cc=${2:-cc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# the text after "KEY:" on the model's lines that have it, one per line
directive() {
	sed -n "s/^.*$1:[[:space:]]*//p" "$model" | sed 's/[[:space:]]*\*\/.*$//'
}
more_cc=$(directive check-cc | tr '\n' ' ')
more_pan=$(directive check-pan | tr '\n' ' ')
configs=$(directive check-config)
[ -n "$configs" ] || configs=' '
variants() {
	grep -E '^[[:space:]]*#[[:space:]]*(if|ifdef|ifndef|elif)[[:space:]]' "$model" |
		grep -oE "\\b$1_[A-Z0-9_]+" | sort -u
}

# verify NAME SPIN_FLAGS CC_FLAGS PAN_FLAGS: prints pan's verdict lines;
# returns 0 when pan found no error, 1 when it found one, 2 when spin or
# the compiler failed.
verify() {
	rm -f pan pan.* ./*.trail
	# shellcheck disable=SC2086
	spin $2 -a "$model" > spin.log 2>&1 < /dev/null || { cat spin.log; return 2; }
	# shellcheck disable=SC2086
	$cc -O2 -w $3 $more_cc -o pan pan.c < /dev/null || return 2
	# shellcheck disable=SC2086
	./pan $4 $more_pan > pan.log 2>&1 < /dev/null || true
	grep -E 'errors:|assertion violated|acceptance cycle|states, stored' pan.log |
		sed "s/^/  $1: /"
	grep -q 'errors: 0' pan.log && return 0
	grep -qE 'errors: [1-9]' pan.log && return 1
	return 2
}

# the two checks; NAME SPIN_FLAGS; LIVE and SAFE get their return codes
LIVE_CC="-DNFAIR=4"
LIVE_PAN="-a -f -N terminates -m2000000"
SAFE_CC="-DNOCLAIM"
SAFE_PAN="-m2000000"
both() {
	LIVE=0 SAFE=0
	verify "$1 liveness" "$2" "$LIVE_CC" "$LIVE_PAN" || LIVE=$?
	verify "$1 safety" "$2" "$SAFE_CC" "$SAFE_PAN" || SAFE=$?
}

fail=0
echo "model: $model"
while IFS= read -r cfg; do
	cfg=$(echo "$cfg" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
	tag=${cfg:+ [$cfg]}
	[ -z "$cfg" ] || echo "configuration: $cfg"
	verify "liveness$tag" "$cfg" "$LIVE_CC" "$LIVE_PAN" || fail=1
	verify "safety$tag" "$cfg" "$SAFE_CC" "$SAFE_PAN" || fail=1
	for m in $(variants BUG); do
		rc=0
		verify "$m$tag" "$cfg -D$m" "$LIVE_CC" "$LIVE_PAN" || rc=$?
		if [ $rc = 0 ]; then
			verify "$m$tag safety" "$cfg -D$m" "$SAFE_CC" "$SAFE_PAN" || rc=$?
		fi
		case $rc in
		0) echo "  $m: the mutant passed: the model cannot see this bug"; fail=1 ;;
		1) echo "  $m: caught, as it must be" ;;
		*) echo "  $m: spin could not check it"; fail=1 ;;
		esac
	done
	for v in $(variants SAFE); do
		both "$v$tag" "$cfg -D$v"
		if [ $LIVE = 0 ] && [ $SAFE = 0 ]; then
			echo "  $v: both properties hold, as they must"
		else
			echo "  $v: the variant fails a check"; fail=1
		fi
	done
done <<EOF
$configs
EOF
[ $fail = 0 ] && echo "model: both properties hold, all mutants caught"
exit $fail
