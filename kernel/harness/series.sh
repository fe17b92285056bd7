#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel series is committed as git format-patch files, listed in order
# by kernel/series/series (kernel/series-6.1/series for Debian 12's kernel).
# Their commit messages and their edits of in-tree files (Kconfig,
# Makefile, MAINTAINERS, the subsystems they convert) live only there.
# The files a patch creates whole are "carried": their text lives in this
# repository, where userspace builds and tests them too, and the patch is
# rebuilt from it:
#
#   lib/revocable.c          -> drivers/base/revocable.c
#   kernel/new-files/PATH     -> PATH (kernel/new-files-VERSION/PATH first,
#                               where the environment's CARRY_OVERLAY
#                               names that directory: a file that differs
#                               between kernel lines)
#
# A carried file is created by exactly one patch of the series; a later
# patch that changes it (the 6.1 adaptation) is applied as it stands.
#
# usage: series.sh regen REPO SERIES_FILE TREE OUTDIR
#          Apply every patch of SERIES_FILE to TREE (a git work tree whose
#          tag "pristine" is the unmodified kernel) with git am -3, replace
#          the carried files each patch creates by the repository's text,
#          and write the series again with format-patch into OUTDIR.
#        series.sh check REPO SERIES_FILE OUTDIR
#          Compare OUTDIR with the committed patches that SERIES_FILE lists
#          from its own directory; print the differences, exit 1 on any.
#        series.sh update REPO SERIES_FILE OUTDIR
#          Copy OUTDIR over those committed patches.
set -euo pipefail

# Fixed identity and dates: the same input gives the same bytes anywhere.
export GIT_AUTHOR_NAME="librevocable developers"
export GIT_AUTHOR_EMAIL="librevocable@localhost"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME"
export GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
export GIT_COMMITTER_DATE="2026-12-01T00:00:00Z"

# entries SERIES_FILE: "PATH OPTIONS..." per patch, comments and blanks out.
entries() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1"
}

# carry KPATH DEST: write the repository's text of kernel file KPATH to
# DEST; fail when KPATH is not carried.
carry() {
	case $1 in
	drivers/base/revocable.c)
		cp "$repo/lib/revocable.c" "$2"
		;;
	*)
		# A kernel line's own version of a file first (CARRY_OVERLAY,
		# kernel/new-files-7.2/ for Linux 7.2), then the common one.
		if [ -n "${CARRY_OVERLAY:-}" ] && [ -f "$CARRY_OVERLAY/$1" ]; then
			cp "$CARRY_OVERLAY/$1" "$2"
			return
		fi
		[ -f "$repo/kernel/new-files/$1" ] || return 1
		cp "$repo/kernel/new-files/$1" "$2"
		;;
	esac
}

regen() {
	local series=$1 tree=$2 out=$3 dir p opts f changed

	dir=$(dirname "$series")
	cd "$tree"
	git am --abort >/dev/null 2>&1 || true	# a run killed halfway
	git checkout -q -f --detach pristine
	git clean -q -fdx
	while read -r p opts; do
		# shellcheck disable=SC2086 # the options are words
		git am -q -3 $opts "$dir/$p" ||
			{ echo "series.sh: $p does not apply" >&2; exit 1; }
		changed=0
		while read -r f; do
			carry "$f" "$f" || continue
			changed=1
		done < <(git diff-tree -r --no-commit-id --name-only --diff-filter=A HEAD)
		if [ $changed = 1 ]; then
			# Debian's .gitignore covers the whole top level: add -f.
			git add -f -A
			git commit -q --amend --no-edit --allow-empty
		fi
	done < <(entries "$series")
	rm -rf "$out"
	mkdir -p "$out"
	# --abbrev: the index lines do not depend on how many objects the
	# tree happens to hold (git picks a longer abbreviation in a bigger one).
	git format-patch -q --zero-commit --no-signature --abbrev=12 -o "$out" pristine..HEAD
}

# pairs SERIES_FILE OUTDIR: "committed generated" for each patch that
# SERIES_FILE lists from its own directory (not ../).
pairs() {
	local dir n=0 p opts gen

	dir=$(dirname "$1")
	while read -r p opts; do
		n=$((n + 1))
		case $p in ../* | /*) continue ;; esac
		gen=$(printf '%s/%04d-' "$2" "$n")
		gen=$(ls "$gen"*.patch)
		echo "$dir/$p $gen"
	done < <(entries "$1")
}

cmd=${1:-}
repo=$(realpath "${2:-.}")
case $cmd in
regen)
	regen "$(realpath "$3")" "$(realpath "$4")" "$(realpath -m "$5")"
	;;
check)
	bad=0
	while read -r c g; do
		cmp -s "$c" "$g" && continue
		bad=1
		diff -u "$c" "$g" | head -n 40 || true
	done < <(pairs "$(realpath "$3")" "$(realpath "$4")")
	if [ $bad = 1 ]; then
		echo "series.sh: the committed series differs from what lib/ and kernel/new-files/ give;" >&2
		echo "  run 'ninja -C build kernel-series-update' and commit kernel/series*/ if that is meant" >&2
		exit 1
	fi
	;;
update)
	while read -r c g; do
		cmp -s "$c" "$g" || { cp "$g" "$c"; echo "updated ${c#"$repo"/}"; }
	done < <(pairs "$(realpath "$3")" "$(realpath "$4")")
	;;
*)
	echo "usage: $0 regen|check|update REPO SERIES_FILE ..." >&2
	exit 2
	;;
esac
