#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The series in the form a maintainer applies: "ninja -C build
# kernel-export" (and -7.2), after kernel.sh regenerated it.
#
# The committed series is source: its patches carry a placeholder author
# and no Signed-off-by, because no person certifies the Developer's
# Certificate of Origin by committing to this repository.  Whoever sends
# the series signs it here: each patch is applied to the pristine tree,
# its author and committer become the sender (git's user.name and
# user.email), a Signed-off-by of the sender is added, the sender becomes
# the M: of the MAINTAINERS entry the core adds, and the series is
# written again with a cover letter, as b4 or git send-email would send it.
#
# usage: export.sh KDIR SERIES_FILE KVER OUTDIR
#   KDIR         kernel.sh's working directory (gen/, patches/)
#   SERIES_FILE  the series' list, for the cover letter's text
#   KVER         the kernel line, for the cover letter's base
#   OUTDIR       where the series goes (emptied first)
#
# The recipients are scripts/get_maintainer.pl's (--nogit: the tree has
# no history): each patch goes to the maintainers and reviewers of what it
# touches, copied to their lists; the cover letter to those of the whole
# series.  Its subject and text are the series directory's cover-letter
# file.  checkpatch.pl --strict
# then runs on the result with no check ignored but UNKNOWN_COMMIT_ID
# (Fixes: tags name upstream commits the Debian tree has no history of).
set -euo pipefail

kdir=$(realpath "$1")
series=$(realpath "$2")
kver=$3
out=$(realpath -m "$4")
tree=$kdir/gen
here=$(dirname "$(realpath "$0")")

die() {
	echo "export.sh: $*" >&2
	exit 1
}

name=$(git config user.name || true)
email=$(git config user.email || true)
[ -n "$name" ] && [ -n "$email" ] ||
	die "git config user.name and user.email name the sender, who signs the series; set them first"
case $email in
*@localhost | *@localhost.*) die "user.email $email is not an address a maintainer can reach" ;;
esac
[ -d "$tree" ] && [ -d "$kdir/patches" ] || die "no regenerated series in $kdir (run kernel-patches first)"

export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
cd "$tree"
git am --abort >/dev/null 2>&1 || true
git checkout -q -f --detach pristine
git clean -q -fdx
git am -q "$kdir"/patches/*.patch || die "the regenerated series does not apply"
# Each commit's signing step, run by git rebase --exec.  The patch that
# adds the REVOCABLE RESOURCES entry to MAINTAINERS also names the sender
# as its maintainer (M:), as it names the sender as author.
step=$kdir/export-step.sh
cat > "$step" <<'STEP'
#!/bin/bash
set -euo pipefail
if git show --format= HEAD -- MAINTAINERS | grep -qx '+REVOCABLE RESOURCES'; then
	python3 - "$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>" <<'PY'
import sys
lines = open("MAINTAINERS").read().split("\n")
i = lines.index("REVOCABLE RESOURCES") + 1
if not lines[i].startswith("M:"):
    lines.insert(i, "M:\t" + sys.argv[1])
    open("MAINTAINERS", "w").write("\n".join(lines))
PY
	git add MAINTAINERS
fi
git commit -q --amend --no-edit --reset-author --signoff
STEP
chmod +x "$step"
git rebase -q --exec "$step" pristine || die "signing the patches failed"

rm -rf "$out"
mkdir -p "$out"
git format-patch -q --cover-letter --thread --no-signature --abbrev=12 \
	-o "$out" pristine..HEAD

# recipients to|cc PATCH...: get_maintainer.pl's maintainers and reviewers
# (to) or mailing lists (cc) for PATCH..., one address a line.
recipients() {
	local only=--nol

	[ "$1" = to ] || only=--nom
	shift
	scripts/get_maintainer.pl --nogit --nogit-fallback --norolestats $only "$@" 2>/dev/null |
		sed '/^$/d'
}

# address_headers PATCH TO-FILE CC-FILE: the To: and Cc: headers into PATCH,
# after its Subject: (folded over lines, as git send-email writes them).
address_headers() {
	python3 - "$@" <<'PY'
import sys
patch, to, cc = sys.argv[1:]
def header(name, f):
    addrs = [l.strip() for l in open(f) if l.strip()]
    return f"{name}: " + ",\n    ".join(addrs) + "\n" if addrs else ""
text = open(patch).read()
head, sep, body = text.partition("\n\n")
lines = head.split("\n")
# The Subject: may be folded; the headers go after its last line.
i = next(n for n, l in enumerate(lines) if l.startswith("Subject:")) + 1
while i < len(lines) and lines[i].startswith((" ", "\t")):
    i += 1
add = (header("To", to) + header("Cc", cc)).rstrip("\n").split("\n")
lines[i:i] = [l for l in add if l]
open(patch, "w").write("\n".join(lines) + sep + body)
PY
}

all=("$kdir"/patches/*.patch)
for p in "$out"/*.patch; do
	case $p in
	*/0000-*) set -- "${all[@]}" ;;
	*) set -- "$p" ;;
	esac
	recipients to "$@" > "$out/.to"
	recipients cc "$@" | grep -vxF -f "$out/.to" > "$out/.cc" || true
	[ -s "$out/.to" ] || [ -s "$out/.cc" ] || die "scripts/get_maintainer.pl found no recipients for $p"
	address_headers "$p" "$out/.to" "$out/.cc"
done
rm -f "$out/.to" "$out/.cc"

# The cover letter: what the series is, from its list's comments, and what
# it applies to (the Debian tree has no upstream history, so its version
# and package stand where b4 puts base-commit).
cover=$(ls "$out"/0000-*.patch)
version=$(make -s kernelversion 2>/dev/null || echo "$kver")
letter=$(dirname "$series")/cover-letter
[ -f "$letter" ] || die "no $letter (the cover letter's subject line and text)"
python3 - "$cover" "$letter" "$version" "$kver" <<'EOF'
import sys
cover, letter, version, kver = sys.argv[1:]
text = open(cover).read()
lines = [l for l in open(letter).read().split("\n") if not l.startswith("#")]
subject, blurb = lines[0], "\n".join(lines[1:]).strip()
text = text.replace("*** SUBJECT HERE ***", subject)
text = text.replace("*** BLURB HERE ***",
                    blurb + f"\n\nbase: Linux {version} (Debian's linux-source-{kver};"
                    " its tree has no upstream history, so no base-commit)")
open(cover, "w").write(text)
EOF
git checkout -q -f --detach pristine

bad=0
for p in "$out"/*.patch; do
	case $p in */0000-*) continue ;; esac
	rc=0
	res=$("$here/checkpatch.sh" UNKNOWN_COMMIT_ID "$p") || rc=$?
	[ $rc != 2 ] || die "a helper of checkpatch.pl failed"
	[ $rc = 0 ] || bad=1
	printf '  %s: %s\n' "$(basename "$p")" "$res"
done
[ $bad = 0 ] || die "checkpatch.pl --strict reported errors or warnings on the signed series"
echo "export.sh: $(ls "$out" | wc -l) files in $out, signed off by $name <$email>"
