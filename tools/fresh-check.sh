#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# fresh-check.sh: does the README work on a new Debian 12 machine?
#
# Bootstraps a minimal Debian 12 root (debootstrap --variant=minbase; kept
# in a cache outside the repo and reused), unpacks a pristine copy of it,
# copies the current work tree (tracked and untracked files that git does
# not ignore, uncommitted changes included) into it, and inside a chroot
# runs, one stage per command:
#   1. the README's two quick-start commands, verbatim (between its
#      "quickstart:begin" and "quickstart:end" markers): .ci/install, the
#      build and the demo, then meson test;
#   2. the lines of .ci/commands that the quick start did not already run,
#      up to and including "ninja -C build kernel-qemu" (the KCSAN run is
#      left out), then CI's "ninja -C build kernel-qemu-faults-7.2" (the
#      mainline line: Linux 7.2 downloaded from Debian 13's backports);
#   3. "ninja -C build kernel-qemu-6.1" and "ninja -C build
#      kernel-qemu-media", which CI leaves out for time.
# Nothing installed on this machine by hand can leak in: the chroot sees
# only what .ci/install put there.
#
# usage: tools/fresh-check.sh [--quick] [--keep] [--cache DIR]
#   --quick      stop before the kernel stages (install + userspace tests)
#   --keep       leave the run's root in DIR/run for inspection
#   --cache DIR  where the base root, downloaded packages and logs live
#                (default /var/cache/librevocable-fresh; never the repo)
#
# Environment: MIRROR (default http://deb.debian.org/debian),
# SECURITY_MIRROR (default http://deb.debian.org/debian-security).
#
# Run it, as root, after any change to .ci/packages, the dependencies, the
# quick start or the QEMU flow.  It takes 50-80 minutes on 2 cores (cold
# kernel builds and the valgrind and sanitizer suites).  The last line is
# "N passed, N failed" over the stages.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=/var/cache/librevocable-fresh
quick=0
keep=0
mirror=${MIRROR:-http://deb.debian.org/debian}
secmirror=${SECURITY_MIRROR:-http://deb.debian.org/debian-security}

while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--keep) keep=1 ;;
	--cache) cache=$(realpath -m "$2"); shift ;;
	*) echo "usage: $0 [--quick] [--keep] [--cache DIR]" >&2; exit 2 ;;
	esac
	shift
done

case $cache/ in
"$repo"/*) echo "fresh-check: the cache must be outside the repo" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "fresh-check: must run as root (debootstrap, chroot)" >&2; exit 2; }
for p in debootstrap unshare chroot; do
	command -v $p >/dev/null ||
		{ echo "fresh-check: $p is missing (apt-get install debootstrap util-linux coreutils)" >&2; exit 2; }
done

t0=$(date +%s)
stamp() {
	printf '[%5ds] %s\n' $(($(date +%s) - t0)) "$*"
}

base=$cache/bookworm-minbase.tar
run=$cache/run
root=$run/root
logs=$cache/logs
mkdir -p "$cache" "$cache/archives/partial"

if [ ! -f "$base" ]; then
	stamp "debootstrap --variant=minbase bookworm (once, cached in $base)"
	rm -rf "$cache/base"
	debootstrap --variant=minbase bookworm "$cache/base" "$mirror" > "$cache/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$cache/debootstrap.log"; echo "fresh-check: debootstrap failed" >&2; exit 1; }
	# What a Debian 12 installation has in sources.list: linux-source-6.12
	# is in bookworm-security.
	cat > "$cache/base/etc/apt/sources.list" <<-EOF
	deb $mirror bookworm main
	deb $mirror bookworm-updates main
	deb $secmirror bookworm-security main
	EOF
	rm -f "$cache/base/var/cache/apt/archives/"*.deb
	tar -C "$cache/base" -cf "$base.tmp" .
	mv "$base.tmp" "$base"
	rm -rf "$cache/base"
fi

stamp "unpacking a pristine root into $root"
rm -rf "$run" "$logs"
mkdir -p "$root" "$logs"
tar -C "$root" -xf "$base"
cp /etc/resolv.conf "$root/etc/resolv.conf"

stamp "copying the work tree ($(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD || echo ', with uncommitted changes'))"
mkdir -p "$root/root/librevocable"
git -C "$repo" ls-files -z --cached --others --exclude-standard |
	(cd "$repo" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
	tar -C "$repo" --null -T - -cf - | tar -C "$root/root/librevocable" -xf -

# The README's quick start, verbatim: what a new user copies.
mapfile -t qs < <(awk '/<!-- quickstart:begin -->/ { on = 1; next }
			 /<!-- quickstart:end -->/ { on = 0; next }
			 on && !/^```/ && NF { print }' "$repo/README.md")
[ ${#qs[@]} = 2 ] ||
	{ echo "fresh-check: README.md's quickstart block must hold exactly two commands" >&2; exit 1; }
# Then CI's commands that the quick start did not run (it ran a command
# when the command is one of the "&&" parts of a quick-start line), up to
# kernel-qemu.
ran=$(printf '%s\n' "${qs[@]}" | sed 's/[[:space:]]*&&[[:space:]]*/\n/g')
mapfile -t cmds < <(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$repo/.ci/commands")
stages=("${qs[@]}")
for c in "${cmds[@]}"; do
	printf '%s\n' "$ran" | grep -qxF -e "$c" || stages+=("$c")
	[ "$c" = 'ninja -C build kernel-qemu' ] && break
done
[ "${stages[-1]}" = 'ninja -C build kernel-qemu' ] ||
	{ echo "fresh-check: .ci/commands has no 'ninja -C build kernel-qemu' line" >&2; exit 1; }
# Linux 7.2 with the fault sweep: the mainline line, whose source comes
# from another Debian release's archive, on the same install.
grep -qxF 'ninja -C build kernel-qemu-faults-7.2' "$repo/.ci/commands" ||
	{ echo "fresh-check: .ci/commands has no 'ninja -C build kernel-qemu-faults-7.2' line" >&2; exit 1; }
stages+=('ninja -C build kernel-qemu-faults-7.2')
# Debian 12's own kernel: too long for CI, but a new user of that target
# needs the same install to be enough.
stages+=('ninja -C build kernel-qemu-6.1')
# V4L2 against stock 6.12 (two kernels and v4l2-compliance): its own target,
# kept out of CI's time budget like 6.1.
stages+=('ninja -C build kernel-qemu-media')

# Each stage runs in its own private mount namespace, so nothing stays
# mounted on this machine when it ends, however it ends.
in_root() {
	unshare --mount --propagation private -- bash -euo pipefail -c '
		root=$1 archives=$2; shift 2
		mount -t proc proc "$root/proc"
		mount -t sysfs sys "$root/sys"
		mount --rbind /dev "$root/dev"
		mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
		mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
		# Downloaded .debs are kept between runs; apt still chooses them.
		mount --bind "$archives" "$root/var/cache/apt/archives"
		exec chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			DEBIAN_FRONTEND=noninteractive \
			bash -euo pipefail -c "cd /root/librevocable && $1"
	' in_root "$root" "$cache/archives" "$@"
}

passed=0
failed=0
n=0
for c in "${stages[@]}"; do
	case $c in
	*kernel-qemu*) [ $quick = 1 ] && break ;;
	esac
	n=$((n + 1))
	s0=$(date +%s)
	stamp "stage $n: $c"
	if in_root "$c" > "$logs/stage$n.log" 2>&1; then
		passed=$((passed + 1))
		stamp "stage $n: ok ($(($(date +%s) - s0)) s)"
	else
		failed=$((failed + 1))
		stamp "stage $n: FAILED ($(($(date +%s) - s0)) s); last lines of $logs/stage$n.log:"
		tail -n 15 "$logs/stage$n.log" | sed 's/^/         | /'
	fi
	# The kernel run's own verdict, when there is one.
	case $c in
	*kernel-qemu*) grep -E '^[0-9]+ passed, [0-9]+ failed' "$logs/stage$n.log" |
		tail -n 1 | sed 's/^/         kernel-qemu: /' || true ;;
	esac
done

if [ $keep = 0 ]; then
	rm -rf "$run"
else
	stamp "root kept in $root"
fi
stamp "done; logs in $logs"
echo "fresh-check: $passed passed, $failed failed"
[ $failed = 0 ]
