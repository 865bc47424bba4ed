#!/bin/sh
# device-check.sh -- on the GPU machine: run the built tests and the program
# from .carry/build (see device-build.sh).  Paths are resolved here, not at
# build time, since the tree lands in a different directory there.
#   JOBS (8): tests run this many at a time (the machine has 16 cores; the
#   GPU tests share the one GPU, as CI's parallel `make check` would)
#   TESTS: a space-separated list of test names (test_x, y.sh) to run alone
set -u
. "$(dirname "$0")/device-env.sh"
"$EPISTREAM" --version
"$EPISTREAM" info --bfile "$top/examples/data/example"
L=$(mktemp -d)
list=$L/list
for t in "$B"/tests/test_*; do [ -x "$t" ] && echo "$t"; done >"$list"
for t in "$top"/tests/*.sh; do
    case "$t" in */lib.sh) continue;; esac
    # the readers' fuzz harnesses (10 MB each, CPU code only) are not carried:
    # .ci/run replays their corpus under the sanitizers
    case "$t" in */fuzz_replay.sh) echo "not here: $t (CPU only, run by .ci/run)" >&2; continue;; esac
    echo "$t"
done >>"$list"
if [ -n "${TESTS:-}" ]; then
    for n in $TESTS; do grep "/$n\$" "$list"; done >"$list.sel"
    mv "$list.sel" "$list"
fi
# one test: its exit status and seconds into $L/NAME.rc, its output into $L/NAME.out
cat >"$L/one.sh" <<'ONE'
t=$1; L=$2; n=$(basename "$t"); s=$(date +%s)
TMPDIR=$(mktemp -d); export TMPDIR
case "$t" in *.sh) sh "$t" ;; *) "$t" ;; esac >"$L/$n.out" 2>&1
echo "$? $(( $(date +%s) - s ))" >"$L/$n.rc"
rm -rf "$TMPDIR"
ONE
xargs -P "${JOBS:-8}" -I{} sh "$L/one.sh" {} "$L" <"$list"
pass=0 failed=0 skipped=0
while read -r t; do
    n=$(basename "$t")
    set -- $(cat "$L/$n.rc" 2>/dev/null || echo "999 0")
    case $1 in
    0) pass=$((pass+1));;
    77) skipped=$((skipped+1)); echo "skip $n";;
    *) failed=$((failed+1)); echo "FAIL $n (rc $1)"; tail -20 "$L/$n.out";;
    esac
    [ "$2" -ge 30 ] && echo "  $n took $2 s"
done <"$list"
echo "$pass passed, $failed failed, $skipped skipped"
rm -rf "$L"
[ "$failed" -eq 0 ]
