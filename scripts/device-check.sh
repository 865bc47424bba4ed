#!/bin/sh
# device-check.sh -- on the GPU machine: run the built tests and the program
# from .carry/build (see device-build.sh).  Paths are resolved here, not at
# build time, since the tree lands in a different directory there.
set -u
. "$(dirname "$0")/device-env.sh"
"$EPISTREAM" --version
"$EPISTREAM" info --bfile "$top/examples/data/example"
pass=0 failed=0 skipped=0
for t in "$B"/tests/test_*; do
    [ -x "$t" ] || continue
    "$t" >/tmp/es_t.out 2>&1; rc=$?
    case $rc in 0) pass=$((pass+1));; 77) skipped=$((skipped+1));; *) failed=$((failed+1)); echo "FAIL $t"; tail -20 /tmp/es_t.out;; esac
done
for t in "$top"/tests/*.sh; do
    case "$t" in */lib.sh) continue;; esac
    # the readers' fuzz harnesses (10 MB each, CPU code only) are not carried:
    # .ci/run replays their corpus under the sanitizers
    case "$t" in */fuzz_replay.sh) echo "not here: $t (CPU only, run by .ci/run)"; continue;; esac
    sh "$t" >/tmp/es_t.out 2>&1; rc=$?
    case $rc in 0) pass=$((pass+1));; 77) skipped=$((skipped+1));; *) failed=$((failed+1)); echo "FAIL $t"; tail -20 /tmp/es_t.out;; esac
done
echo "$pass passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
