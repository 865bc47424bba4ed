# tests/lib.sh -- sourced by the shell tests (automake exit codes: 0 pass, 77 skip, 1 fail).
# Provides: $EPISTREAM (program under test), $ES_TESTDATA, $T (a fresh temp dir removed on exit),
# fail MSG, skip MSG, need_cmd CMD, need_python MODULES..., $PY (a python with the modules),
# expect_fail OUTFILE CMD..., no_marginal PREFIX IDS, sim_same_bytes PREFIX ARGS....
set -u
: "${EPISTREAM:?EPISTREAM must point at the epistream binary (make check sets it)}"
: "${ES_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${ES_TESTDATA:=$ES_SRCDIR/tests/data}"
T=$(mktemp -d "${TMPDIR:-/tmp}/es_sh.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
need_cmd() { command -v "$1" >/dev/null 2>&1 || skip "$1 not installed"; }
# need_python numpy scipy ... : pick the first python that imports all modules
need_python() {
    for py in "${PYTHON:-python3}" python3 /usr/bin/python3; do
        if command -v "$py" >/dev/null 2>&1 && "$py" -c "import sys; [__import__(m) for m in sys.argv[1:]]" "$@" 2>/dev/null; then
            PY=$py; return 0
        fi
    done
    skip "no python with: $*"
}
# no_marginal PREFIX IDS: where plink1.9 exists, its allelic test (--assoc) of the fileset PREFIX
# must give every variant listed in the file IDS (one ID a line) p >= 1e-4; else says why, returns 1
no_marginal() {
    command -v plink1.9 >/dev/null 2>&1 || return 0
    plink1.9 --bfile "$1" --assoc --allow-no-sex --out "$1.marginal" >/dev/null 2>&1 ||
        { echo "plink1.9 --assoc could not read $1" >&2; return 1; }
    awk -v np="$(wc -l <"$2")" '
        NR == FNR { want[$1] = 1; next }
        FNR > 1 && ($2 in want) { n++; if ($9 != "NA" && $9 < 1e-4) bad = bad " " $2 " p=" $9 }
        END { if (bad == "" && n == np) exit 0
              print "marginal signal (" n " of " np " variants found):" bad >"/dev/stderr"
              exit 1 }' "$2" "$1.marginal.assoc"
}
# sim_same_bytes PREFIX ARGS...: `epistream sim ARGS`, which wrote PREFIX.*, must write the same
# four files again, and with --missing 0.05 the same .bed on 1 and on 3 OpenMP threads
sim_same_bytes() {
    ref=$1
    shift
    "$EPISTREAM" sim "$@" --out "$T/again" 2>/dev/null || fail "sim again: $*"
    for ext in bed bim fam truth; do
        cmp -s "$ref.$ext" "$T/again.$ext" || fail "the same options gave a different .$ext: $*"
    done
    for nt in 1 3; do
        OMP_NUM_THREADS=$nt "$EPISTREAM" sim "$@" --missing 0.05 --out "$T/threads$nt" 2>/dev/null ||
            fail "sim with $nt threads: $*"
    done
    cmp -s "$T/threads1.bed" "$T/threads3.bed" || fail "the .bed depends on the thread count: $*"
}
# expect_fail OUTFILE CMD... : command must exit non-zero, not crash (signal/sanitizer), and print an error
expect_fail() {
    out=$1; shift
    "$@" >"$out" 2>&1
    rc=$?
    [ $rc -ne 0 ] || fail "expected failure but exit 0: $*"
    [ $rc -lt 128 ] || fail "crashed (exit $rc): $*"
    if grep -q -E "AddressSanitizer|runtime error|LeakSanitizer" "$out"; then cat "$out" >&2; fail "sanitizer report: $*"; fi
    return 0
}
