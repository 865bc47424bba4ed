#!/bin/sh
# full_disk.sh -- a file system that fills up, on a small tmpfs mounted for the
# test (as root, or as the root of a new user namespace; else exit 77):
#  1. the output commit: a scan whose outputs do not all fit fails with one
#     message naming the file and the cause, and leaves the previous run's
#     complete set as it was (no .tmp files, no mix of old and new);
#  2. the disk fills while the significant pairs stream to PREFIX.sig.tsv:
#     one message, naming the file and the cause;
#  3. --tmp-dir too small for the packed genotypes: "no space left on DIR for
#     N bytes", exit 1 (it used to be SIGBUS, exit 135), nothing left.
# The mount lives in a private mount namespace where unshare(1) allows one.
if [ -z "${ES_FULLDISK_NS:-}" ] && command -v unshare >/dev/null 2>&1; then
    ES_FULLDISK_NS=1
    export ES_FULLDISK_NS
    for u in "--mount" "--user --map-root-user --mount"; do
        # shellcheck disable=SC2086  # $u: several options
        if unshare $u true 2>/dev/null; then exec unshare $u /bin/sh "$0" "$@"; fi
    done
fi
. "$(dirname "$0")/lib.sh"

M=$T/mnt
mkdir "$M"
# 640 KiB: room for the first run's outputs, not for the planes file of step 3
mount -t tmpfs -o size=640k tmpfs "$M" 2>"$T/mount.err" ||
    skip "cannot mount a small tmpfs to fill ($(cat "$T/mount.err")); needs root or user namespaces"
trap 'umount "$M" 2>/dev/null; rm -rf "$T"' EXIT

no_crash() { # FILE: no sanitizer report
    if grep -q -E "AddressSanitizer|runtime error|LeakSanitizer" "$1"; then cat "$1" >&2; fail "sanitizer report"; fi
}

"$EPISTREAM" sim --samples 200 --variants 50 --seed 7 --out "$T/d" 2>/dev/null || fail "sim"

# ---- 1. the output commit ----
"$EPISTREAM" scan --bfile "$T/d" --out "$M/r" --top 300 --quiet || fail "first scan on the tmpfs"
mkdir "$T/before"
cp "$M"/r.* "$T/before/"
# The second run's .top.tsv fits and its .summary.tsv (under one stdio buffer,
# so written at the commit) does not.  Hard links keep the previous files'
# blocks in use, so that replacing one frees nothing.  The old commit renamed
# .top.tsv into place, failed on .summary.tsv, then deleted the new .top.tsv:
# the previous one was lost, and the old .summary.tsv and .log were kept.
for f in "$M"/r.*; do ln "$f" "$M/keep.${f##*/}"; done
"$EPISTREAM" scan --bfile "$T/d" --out "$T/probe" --top 300 --stat chi2 --quiet || fail "probe"
dd if=/dev/zero of="$M/fill" bs=4k 2>/dev/null
truncate -s "-$(( ($(wc -c <"$T/probe.top.tsv") + 4095) / 4096 * 4 ))K" "$M/fill"
expect_fail "$T/c.err" "$EPISTREAM" scan --bfile "$T/d" --out "$M/r" --top 300 --stat chi2 --quiet
no_crash "$T/c.err"
[ "$rc" -eq 1 ] || { cat "$T/c.err" >&2; fail "full disk at commit: exit $rc, expected 1"; }
[ "$(grep -c 'No space left on device' "$T/c.err")" -eq 1 ] &&
    grep -q "$M/r.summary.tsv: write failed: No space left on device" "$T/c.err" ||
    { cat "$T/c.err" >&2; fail "full disk at commit: not one message naming the file and cause"; }
for f in "$T"/before/r.*; do
    cmp -s "$f" "$M/${f##*/}" || fail "full disk at commit: ${f##*/} is not the previous run's"
done
[ "$(ls "$M"/r.* | wc -l)" -eq "$(ls "$T"/before/r.* | wc -l)" ] ||
    { ls "$M" >&2; fail "full disk at commit: files added or lost"; }
rm -f "$M/fill" "$M"/r.* "$M"/keep.*

# ---- 2. the disk fills while significant pairs stream out ----
"$EPISTREAM" sim --samples 100 --variants 700 --seed 8 --out "$T/e" 2>/dev/null || fail "sim e"
expect_fail "$T/s.err" "$EPISTREAM" scan --bfile "$T/e" --out "$M/s" --p-threshold 1 --quiet
no_crash "$T/s.err"
[ "$rc" -eq 1 ] || { cat "$T/s.err" >&2; fail "full disk in sig.tsv: exit $rc, expected 1"; }
[ "$(grep -c 'No space left on device' "$T/s.err")" -eq 1 ] &&
    grep -q "$M/s.sig.tsv: write failed: No space left on device" "$T/s.err" ||
    { cat "$T/s.err" >&2; fail "full disk in sig.tsv: not one message naming the file and cause"; }
grep -q -i "input/output error" "$T/s.err" && { cat "$T/s.err" >&2; fail "full disk: EIO reported"; }
ls "$M"/s.* 2>/dev/null && fail "full disk in sig.tsv: files left behind"

# ---- 3. --tmp-dir cannot hold the packed genotypes ----
"$EPISTREAM" sim --samples 3000 --variants 2000 --seed 9 --out "$T/f" 2>/dev/null || fail "sim f"
expect_fail "$T/tmpdir.err" "$EPISTREAM" scan --bfile "$T/f" --out "$T/t" --host-mem 1K \
    --tmp-dir "$M" --quiet
no_crash "$T/tmpdir.err"
[ "$rc" -eq 1 ] || { cat "$T/tmpdir.err" >&2; fail "small --tmp-dir: exit $rc, expected 1"; }
grep -q "no space left on $M for [0-9,]* bytes" "$T/tmpdir.err" ||
    { cat "$T/tmpdir.err" >&2; fail "small --tmp-dir: no 'no space left on DIR for N bytes'"; }
ls "$T"/t.* 2>/dev/null && fail "small --tmp-dir: files left behind"
[ -z "$(ls -A "$M")" ] || { ls -A "$M" >&2; fail "small --tmp-dir: files left in it"; }
exit 0
