#!/bin/sh
# device-mi.sh -- on the GPU machine (after scripts/device-build.sh here, with
# .carry carried): the GPU feature-selection tests, compute-sanitizer on both
# device paths, and the selection benchmark table.  Logs go to $OUT when set.
#   TESTS=0       skip test_gpu_mi and gpu_cli.sh
#   SANITIZE=0    skip compute-sanitizer
#   BENCH=quick   GPU-only timings of the three preset sets (default)
#   BENCH=full    with the CPU columns (1 thread: MNIST-sized set only)
#   BENCH=0       no benchmark
set -u
. "$(dirname "$0")/device-env.sh"
if [ "${TESTS:-1}" = 1 ]; then
    echo "== test_gpu_mi"; "$B/tests/test_gpu_mi" >"$O/test_gpu_mi.out" 2>&1; echo "rc=$?"; tail -12 "$O/test_gpu_mi.out"
    echo "== gpu_cli.sh"; sh "$top/tests/gpu_cli.sh" >"$O/gpu_cli.out" 2>&1; echo "rc=$?"; tail -5 "$O/gpu_cli.out"
fi
if [ "${SANITIZE:-1}" = 1 ] && command -v compute-sanitizer >/dev/null; then
    awk 'BEGIN { srand(3); printf "a"; for (f = 1; f <= 12; f++) printf ",f%d", f; print ",y";
         for (s = 0; s < 2001; s++) { c = int(rand() * 3); printf "%d", s;
            for (f = 1; f <= 12; f++) printf ",%.3f", rand() * 5 + (f % 3 == 0 ? c : 0); print "," c } }' > /tmp/cs.csv
    "$EPISTREAM" sim --samples 999 --variants 200 --missing 0.02 --seed 3 --out /tmp/cs >/dev/null 2>&1
    "$EPISTREAM" scan --bfile /tmp/cs --device cpu --top 100 --quiet --out /tmp/cs.scan
    for tool in memcheck racecheck; do
        for run in "select --table /tmp/cs.csv --method jmi" "select --table /tmp/cs.csv --method condmi" \
                   "select --bfile /tmp/cs --from /tmp/cs.scan.top.tsv --method mrmr"; do
            echo "== compute-sanitizer $tool: $run"
            # shellcheck disable=SC2086
            compute-sanitizer --tool $tool --error-exitcode 9 "$EPISTREAM" $run --k 6 --device gpu \
                --quiet --out /tmp/cs.sel 2>&1 | tail -2
            echo "rc=$?"
        done
    done
fi
case "${BENCH:-quick}" in
quick)
    for p in mnist epsilon survivors; do
        echo "== bench_mi --preset $p (GPU only)"
        "$B/tests/bench/bench_mi" --preset $p --methods all --device 0 --no-cpu 2>&1 | grep -v "^bench_mi: [a-z]*: gpu"
    done ;;
full)
    f='^bench_mi: [a-z]*: gpu'
    echo "== bench_mi --preset mnist"; "$B/tests/bench/bench_mi" --preset mnist --methods all --device 0 2>&1 | grep -v "$f"
    echo "== bench_mi --preset epsilon"; "$B/tests/bench/bench_mi" --preset epsilon --device 0 --no-cpu1 \
        --methods "${EPS_CPU_METHODS:-mrmr,jmi}" 2>&1 | grep -v "$f"
    "$B/tests/bench/bench_mi" --preset epsilon --methods all --device 0 --no-cpu 2>&1 | grep -v "$f"
    echo "== bench_mi --preset survivors"; "$B/tests/bench/bench_mi" --preset survivors --methods all --device 0 \
        --no-cpu1 2>&1 | grep -v "$f"
    "$B/tests/bench/bench_mi" --preset survivors --methods mrmr,jmi --device 0 --path hist --no-cpu 2>&1 | grep -v "$f"
    echo "== bench_mi --preset feast"; "$B/tests/bench/bench_mi" --preset feast --methods all --device 0 2>&1 | grep -v "$f" ;;
esac
