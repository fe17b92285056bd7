#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every page renders, and groff has nothing to warn about (groff -ww -z).
set -u
bad=0
for p in "$@"; do
	out=$(groff -ww -z -man "$p" 2>&1)
	if [ -n "$out" ]; then
		echo "$p: groff: $out"
		bad=1
	elif [ -z "$(MANWIDTH=80 man -l "$p" 2>/dev/null)" ]; then
		echo "$p: man -l renders nothing"
		bad=1
	fi
done
echo "$# pages checked"
exit $bad
