#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Turn lib/ and kernel/ into a numbered patch series against a pristine
# kernel tree.
#
# usage: mkseries.sh REPO GEN_TREE OUTDIR
#   REPO      this project's checkout
#   GEN_TREE  a git work tree of the kernel whose tag "pristine" is the
#             unmodified source; it is reset and used as scratch
#   OUTDIR    receives 0001-*.patch ... (old patches there are removed)
#
# REVOCABLE_LIB_C may name another revocable.c to package instead of
# lib/revocable.c (used to check that the tests catch a reintroduced bug).
set -euo pipefail

repo=$(realpath "$1")
tree=$(realpath "$2")
out=$(realpath -m "$3")
lib_c=${REVOCABLE_LIB_C:-$repo/lib/revocable.c}
sel=tools/testing/selftests/drivers/base/revocable

export GIT_AUTHOR_NAME="librevocable developers"
export GIT_AUTHOR_EMAIL="librevocable@localhost"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME"
export GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
# Fixed dates keep the series byte-identical when nothing changed.
export GIT_AUTHOR_DATE="2026-12-01T00:00:00Z"
export GIT_COMMITTER_DATE="$GIT_AUTHOR_DATE"

cd "$tree"
git am --abort >/dev/null 2>&1 || true	# a run killed halfway
git checkout -q -f --detach pristine
git clean -q -fdx

# Insert a MAINTAINERS section (or F: lines into ours) in sorted position.
maintainers_add() {
	python3 - "$@" <<'EOF'
import sys
files = sys.argv[1:]
lines = open("MAINTAINERS").read().split("\n")
title = "REVOCABLE RESOURCES"
if title in lines:
    i = lines.index(title) + 1
    while lines[i].strip():
        i += 1
    lines[i:i] = ["F:\t" + f for f in files]
else:
    i = lines.index("RFKILL")
    lines[i:i] = [title, "L:\tlinux-kernel@vger.kernel.org", "S:\tMaintained"] + \
        ["F:\t" + f for f in files] + [""]
# Keep the F: lines of our section sorted, as parse-maintainers wants.
s = lines.index(title)
e = s
while lines[e].strip():
    e += 1
fl = sorted(l for l in lines[s:e] if l.startswith("F:"))
lines[s:e] = [l for l in lines[s:e] if not l.startswith("F:")] + fl
open("MAINTAINERS", "w").write("\n".join(lines))
EOF
}

# Append a Kconfig fragment before the final "endmenu" of a Kconfig file.
kconfig_add() {
	python3 - "$1" "$2" <<'EOF'
import sys
path = sys.argv[1]
# The fragment's own SPDX line stays behind: the file it joins has one.
frag = "".join(l for l in open(sys.argv[2]) if not l.startswith("# SPDX"))
text = open(path).read()
i = text.rstrip().rfind("endmenu")
open(path, "w").write(text[:i].rstrip("\n") + "\n" + frag + "\n" + text[i:])
EOF
}

commit() {
	git add -f -A
	git commit -q -s -F -
}

# ---- 1: the core -------------------------------------------------------
cp "$lib_c" drivers/base/revocable.c
cp "$repo/kernel/revocable_devm.c" drivers/base/revocable_devm.c
cp "$repo/lib/revocable.h" include/linux/revocable.h
kconfig_add drivers/base/Kconfig "$repo/kernel/Kconfig.fragment"
printf '\nobj-$(CONFIG_REVOCABLE)\t+= revocable.o revocable_devm.o\n' >> drivers/base/Makefile
maintainers_add drivers/base/revocable.c drivers/base/revocable_devm.c include/linux/revocable.h
commit <<'EOF'
driver core: add revocable resources

A driver of a hot-pluggable device hands out pointers to state that it
must free when the device goes away, while consumers it does not control
(open files, other subsystems) may be using it or may try to use it
later.  Add a primitive for that: a provider publishes a resource,
consumers use it only inside short accesses that may sleep and that
yield either the resource, valid until the access ends, or NULL once the
provider has revoked it.  Revoke makes new accesses fail and waits for
the accesses in progress; the resource may then be freed.

Accesses are SRCU read-side sections.  Unlike the version that was
reverted for v7.0:

- Providers live in domains instead of owning an srcu_struct each: a
  provider is one small allocation, and all providers of a domain share
  the per-CPU SRCU state.  Subsystems whose accesses may sleep for long
  can have a domain of their own so that unrelated revokes never wait
  for them.

- The SRCU read index is kept in an access handle that serves one access
  at a time.  A second access through a handle already inside one (the
  handle shared between threads, or nested) is refused with a warning
  instead of overwriting the index, which made synchronize_srcu() in
  revoke wait forever.  CONFIG_REVOCABLE_DEBUG makes the check exact
  with a compare-and-exchange.

- Consumer references are counted and taken from the owner's __rcu slot
  under rcu_read_lock(); the provider object is freed a grace period
  after its last reference.  Taking a reference can no longer race with
  the release, and no consumer is left with a dangling pointer.

- The owner's slot is cleared with xchg(), so that of concurrent
  revokers exactly one drops the owner's reference; revocable_revoke()
  tells the caller whether it was the one.

- Accesses through a reference move no reference count.

Also add non-blocking, batched and two-phase revoke (the last lets a
driver fail the I/O that readers sleep on before it waits for them, so
that removal does not produce hung tasks), a report when a revoke waits
longer than a threshold, and detection of a revoke from inside an access
of the same domain, which would deadlock.

- devm_revocable_provider_alloc() comes back in a form that is safe:
  it takes the owner's slot, and the devres action revokes through it,
  so the slot is cleared as by any other revoke.  The reverted version
  dropped the helper because it could only hold the provider pointer.

The API of the reverted version, revocable_provider_alloc(),
revocable_provider_revoke(), revocable_init(), revocable_deinit(),
revocable_try_access(), revocable_withdraw_access() and the two access
macros, is kept with the same signatures.
EOF

# ---- 2: KUnit ------------------------------------------------------------
cp "$repo/kernel/revocable_kunit.c" drivers/base/revocable_test.c
kconfig_add drivers/base/Kconfig "$repo/kernel/Kconfig.kunit.fragment"
printf 'obj-$(CONFIG_REVOCABLE_KUNIT_TEST)\t+= revocable_test.o\n' >> drivers/base/Makefile
maintainers_add drivers/base/revocable_test.c
commit <<'EOF'
driver core: revocable: add KUnit tests

Cover the scenarios of the reverted series' tests (basic access,
revocation, the two access macros, consumer creation against a provider
that is being released, and a revoke that waits for one reader while a
late reader sees NULL), the invariants of the design, and one regression
test for each race that got the first version reverted: a handle shared
between two threads across an SRCU index flip, consumer references
taken while the provider is released, dangling provider pointers after
revoke, and concurrent revokers.

Every wait in the tests is bounded, so that a regression fails a test
instead of hanging the kernel.  Tests that provoke a warning on purpose
print a marker before and after it.
EOF

# ---- 3: kselftest --------------------------------------------------------
mkdir -p "$sel/test_modules"
cp "$repo/kernel/selftest/revocable_test.c" "$sel/revocable_test.c"
cp "$repo/kernel/selftest/Makefile" "$sel/Makefile"
cp "$repo/kernel/selftest/config" "$sel/config"
cp "$repo/kernel/selftest/test_module.c" "$sel/test_modules/revocable_test.c"
cp "$repo/kernel/selftest/test_modules.Makefile" "$sel/test_modules/Makefile"
printf 'revocable_test\n' > "$sel/.gitignore"
maintainers_add "$sel/"
commit <<'EOF'
selftests: revocable: add a debugfs driver and tests

Add a small driver whose provider file publishes and revokes a string
and whose consumer file reads it through each access method, and a
kselftest that unplugs the provider while consumer files are open:
reads then report the resource gone.  A stress test has reader threads,
two of them sharing one open file, read in a loop while the provider is
revoked and re-created, and checks that every read sees either a live
resource or none, for a bounded time.
EOF

# ---- 4: documentation ----------------------------------------------------
cp "$repo/kernel/revocable.rst" Documentation/driver-api/driver-model/revocable.rst
python3 - <<'EOF'
p = "Documentation/driver-api/driver-model/index.rst"
lines = open(p).read().split("\n")
i = lines.index("   porting")
lines.insert(i + 1, "   revocable")
open(p, "w").write("\n".join(lines))
EOF
maintainers_add Documentation/driver-api/driver-model/revocable.rst
commit <<'EOF'
Documentation: driver-model: describe revocable resources

Explain the problem revocable resources solve, the objects involved,
how a provider and a consumer use them, how to remove a device whose
readers sleep on it, the rules and what happens when they are broken,
and what changed compared with the reverted version.
EOF

# ---- 5: revocable file operations ----------------------------------------
cp "$repo/kernel/revocable_fops.c" drivers/base/revocable_fops.c
cp "$repo/kernel/revocable_fops.h" include/linux/revocable_fops.h
printf 'obj-$(CONFIG_REVOCABLE)\t+= revocable_fops.o\n' >> drivers/base/Makefile
python3 - "$repo/kernel/revocable_fops.rst" <<'EOF'
import sys
p = "Documentation/driver-api/driver-model/revocable.rst"
text = open(p).read()
frag = "".join(l for l in open(sys.argv[1]) if not l.startswith(".. SPDX")).lstrip("\n")
i = text.index("API\n===\n")
open(p, "w").write(text[:i] + frag + "\n" + text[i:])
EOF
maintainers_add drivers/base/revocable_fops.c include/linux/revocable_fops.h
commit <<'EOF'
driver core: revocable: add revocable file operations

Character devices are where the revocable problem shows most: an open
file outlives the device, and each driver hand-rolls an "exist" flag, a
mutex around every operation and a hang-up on removal.  Reviewers of the
reverted series asked for the protection where file operations are
called instead of accesses sprinkled through drivers.

Add a helper that wraps a driver's file_operations in a proxy table.
Each call of open, read, write, read_iter, write_iter, unlocked_ioctl,
compat_ioctl, poll, llseek, fasync, flush and mmap runs the driver's
operation inside one access of a provider in a domain of the device's
own, found from file->f_op with no lookup and no allocation.  Revoking
refuses new calls, runs a cancellation step the driver supplies to wake
its sleepers, waits for the calls in progress, and zaps the mappings of
the open files; afterwards calls return -ENODEV (poll a mask the driver
chooses), faults get SIGBUS, and no driver operation runs except release,
once per open at the last close, and fasync turning FASYNC off.

Open files hold a reference on the helper's object, so the proxy table
lives as long as a file points at it, also after the driver let go.
Operations the proxy cannot protect make creation fail rather than run
unprotected.
EOF

# ---- 6: KUnit and kselftest for the file operations -----------------------
cp "$repo/kernel/revocable_fops_kunit.c" drivers/base/revocable_fops_test.c
printf 'obj-$(CONFIG_REVOCABLE_KUNIT_TEST)\t+= revocable_fops_test.o\n' >> drivers/base/Makefile
cp "$repo/kernel/selftest/revocable_fops_test.c" "$sel/revocable_fops_test.c"
cp "$repo/kernel/selftest/fops_module.c" "$sel/test_modules/revocable_fops_test.c"
sed -i 's/^TEST_GEN_PROGS := revocable_test$/TEST_GEN_PROGS := revocable_test revocable_fops_test/' "$sel/Makefile"
grep -q revocable_fops_test "$sel/Makefile"
sed -i 's/^obj-m += revocable_test.o$/obj-m += revocable_test.o revocable_fops_test.o/' "$sel/test_modules/Makefile"
grep -q revocable_fops_test "$sel/test_modules/Makefile"
printf 'revocable_fops_test\n' >> "$sel/.gitignore"
printf 'CONFIG_DEVTMPFS=y\n' >> "$sel/config"
maintainers_add drivers/base/revocable_fops_test.c
commit <<'EOF'
driver core: revocable: test the file operations

KUnit: call every proxied operation before and after revoke on files
whose f_op is the proxy table, check that the proxy has an operation
exactly where the driver has one, that release runs once per open
(inside an access while the device is live, at the last close after
revoke, also when the owner let go first), that a reader sleeping in
read() is woken by the cancellation step, that revoke waits for a call
that is not woken, and race revoke against two threads calling every
operation.  Misuse (NULL descriptions, unsupported operations, revoke
twice, revoke from inside an operation, put before revoke) gets its
defined result.

kselftest: a test driver whose misc device goes through revocable file
operations and whose resource is freed right after the revoke; tests
call every operation before and after an unplug, unplug while a reader
sleeps in read() and in poll(), count releases across unplug, check that
a mapping gets SIGBUS after it, and race unplug against threads calling
every operation.
EOF

# ---- 7...: conversions of in-tree code, kept as patches --------------------
# The file "series" of kernel/patches, or of the directory
# REVOCABLE_CONVERSIONS names (kernel/patches-6.1 for Debian 12's kernel),
# lists them in order, one per line: a path relative to that directory and
# options for git am.  They are applied on top of the above and
# regenerated byte for byte by format-patch below.
conv=${REVOCABLE_CONVERSIONS:-$repo/kernel/patches}
while read -r p opts; do
	case $p in '' | '#'*) continue ;; esac
	# shellcheck disable=SC2086 # the options are words
	git am -q $opts "$conv/$p"
done < "$conv/series"

rm -rf "$out"
mkdir -p "$out"
git format-patch -q -o "$out" pristine..HEAD
ls "$out"
