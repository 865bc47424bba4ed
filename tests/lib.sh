# tests/lib.sh -- sourced by the shell tests (automake exit codes: 0 pass, 77 skip, 1 fail).
# Provides: $EPISTREAM (program under test), $ES_TESTDATA, $T (a fresh temp dir removed on exit),
# fail MSG, skip MSG, need_cmd CMD, need_python MODULES..., $PY (a python with the modules).
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
