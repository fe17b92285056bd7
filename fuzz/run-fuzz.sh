#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: run-fuzz.sh FUZZER SEEDS 0
#          run every seed input once
#        run-fuzz.sh FUZZER SEEDS SECONDS WORKDIR
#          fuzz for SECONDS (FUZZ_SECONDS overrides) starting from the
#          seeds; new inputs go to WORKDIR/corpus, a crashing input to
#          WORKDIR/crash-*, and is printed in hex here
set -eu
fuzzer=$1
seeds=$2
secs=${FUZZ_SECONDS:-$3}

# libFuzzer's own exit status for a crash, a timeout or a leak is 77 and
# 70 by default, and 77 is meson's "skipped": every failure is 1 here.
codes="-error_exitcode=1 -timeout_exitcode=1"
if [ "$3" = 0 ]; then
	exec "$fuzzer" $codes "$seeds"/*
fi
work=$4
mkdir -p "$work/corpus"
rc=0
# -detect_leaks=0: libFuzzer runs a full LeakSanitizer scan after every
# input that freed less than it allocated, and every revoke frees the
# provider a grace period later through liburcu's call_rcu thread (10 ms
# batching): that would cost ~4 ms per input.  The target counts its own
# resources instead, the seed run above keeps LeakSanitizer on, and the
# unit suites run under valgrind and ASan with leak checking.
"$fuzzer" $codes -max_total_time="$secs" -max_len=512 -timeout=60 -detect_leaks=0 \
	-rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$work/" \
	"$work/corpus" "$seeds" || rc=$?
for f in "$work"/crash-* "$work"/timeout-* "$work"/leak-* "$work"/oom-*; do
	[ -f "$f" ] || continue
	echo "failing input $f:"
	od -An -tx1 "$f"
done
exit $rc
