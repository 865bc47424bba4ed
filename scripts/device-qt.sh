#!/bin/sh
# device-qt.sh -- on the GPU machine (after scripts/device-build.sh here, with
# .carry carried): the quantitative-trait GPU path (gpu/pair/qt.cu): its unit
# test, compute-sanitizer memcheck on it and on a scan, the CPU-vs-GPU byte
# comparisons (tests/gpu_qt.sh), then the benchmark table
# (tests/bench/bench_qt_gpu.sh).  Logs go to $OUT when it is set.
set -u
. "$(dirname "$0")/device-env.sh"
echo "== test_gpu_qt"; timeout 90 "$B/tests/test_gpu_qt" 2>&1 | tail -8
echo "== gpu_qt.sh"; timeout 90 sh "$top/tests/gpu_qt.sh" >"$O/gpu_qt.out" 2>&1; echo "rc=$?"; tail -14 "$O/gpu_qt.out"
if [ "${SANITIZE:-1}" = 1 ] && command -v compute-sanitizer >/dev/null; then
    "$EPISTREAM" sim --qt --samples 1093 --variants 300 --seed 3 --out /tmp/csq >/dev/null 2>&1
    echo "== compute-sanitizer memcheck: scan --stat linear --device gpu"
    timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 "$EPISTREAM" scan --bfile /tmp/csq --pheno /tmp/csq.pheno \
        --device gpu --block 96 --p-threshold 0.05 --quiet --out /tmp/csq.g 2>&1 | tail -3
    echo "rc=$?"
    echo "== compute-sanitizer memcheck: test_gpu_qt (sums)"
    TEST_GPU_QT_PAIRS=700 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/tests/test_gpu_qt" 2>&1 | tail -4
fi
if [ "${BENCH:-1}" = 1 ]; then
    echo "== bench_qt_gpu"
    EPISTREAM="$EPISTREAM" timeout "${BENCH_TIMEOUT:-150}" sh "$top/tests/bench/bench_qt_gpu.sh" 2>&1
fi
