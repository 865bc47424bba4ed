#!/bin/sh
# full_disk.sh -- a file system that fills up, on a small tmpfs mounted for the
# test (as root, or as the root of a new user namespace; else exit 77):
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
