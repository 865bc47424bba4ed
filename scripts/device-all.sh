#!/bin/sh
# device-all.sh -- on the GPU machine, in one call (the machine starts bare and
# goes back when idle): the whole suite (device-check.sh), compute-sanitizer
# memcheck on GPU code paths, the NSGA-II device table (device-nsga.sh) and
# the 1e6 x 1e4 end-to-end scan (device-perf.sh E2E=1).  Each step runs
# under a time limit (CHECK_S, SAN_S, NSGA_S, E2E_S seconds; 0 skips it);
# full logs in $OUT, the last lines of each printed.
set -u
d=$(cd "$(dirname "$0")" && pwd)
. "$d/device-env.sh"
step() {
    name=$1 lim=$2
    shift 2
    [ "$lim" -gt 0 ] || return 0
    echo "== $name (at most $lim s)"
    s=$(date +%s)
    timeout "$lim" "$@" >"$O/$name.txt" 2>&1
    echo "rc $?, $(($(date +%s) - s)) s"
    tail -n "${TAIL:-30}" "$O/$name.txt"
}
san() {
    cs="compute-sanitizer --tool memcheck --error-exitcode 9"
    T=$(mktemp -d)
    "$EPISTREAM" sim --samples 999 --variants 300 --missing 0 --seed 3 --out "$T/cs0" >/dev/null 2>&1
    "$EPISTREAM" sim --samples 999 --variants 300 --missing 0.02 --seed 3 --out "$T/cs" >/dev/null 2>&1
    for k in wgmma ws mma; do
        for data in cs0 cs; do
            echo "-- scan $k $data"
            $cs "$EPISTREAM" scan --bfile "$T/$data" --stat boost --device gpu --gpu-kernel "$k" --quiet \
                --out "$T/o.$k.$data" 2>&1 | tail -1
        done
    done
    echo "-- test_gpu_qt (700 pairs)"
    TEST_GPU_QT_PAIRS=700 $cs "$B/tests/test_gpu_qt" 2>&1 | tail -1
    echo "-- test_gpu_rules (single-label heads)"
    RULES_GPU_TEST='*single*' $cs "$B/tests/test_gpu_rules" 2>&1 | tail -1
    rm -rf "$T"
}
if [ "${1:-}" = --san ]; then
    san
    exit 0
fi
step check "${CHECK_S:-270}" sh "$d/device-check.sh"
step sanitizer "${SAN_S:-90}" sh "$d/device-all.sh" --san
step nsga "${NSGA_S:-170}" env MEMCHECK_S="${NSGA_MEMCHECK_S:-40}" sh "$d/device-nsga.sh"
step e2e "${E2E_S:-90}" env BENCH=0 E2E=1 sh "$d/device-perf.sh"
