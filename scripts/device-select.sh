#!/bin/sh
# device-select.sh -- on the GPU machine (after scripts/device-build.sh here,
# with .carry carried): feature selection's GPU tests and the CPU vs GPU
# table at the FEAST size and the scan-survivor size.  Logs go to $OUT when
# set.  (scripts/device-mi.sh adds compute-sanitizer and the larger sets.)
#   TESTS=0     skip test_gpu_mi, gpu_select.sh and select_cli.sh
#   BENCH=0     no benchmark
#   REPEAT=R    runs per benchmark figure, the fastest kept (default 3)
set -u
. "$(dirname "$0")/device-env.sh"
if [ "${TESTS:-1}" = 1 ]; then
    echo "== test_gpu_mi"; "$B/tests/test_gpu_mi" >"$O/test_gpu_mi.out" 2>&1; echo "rc=$?"
    tail -3 "$O/test_gpu_mi.out"
    for t in gpu_select select_cli; do
        echo "== $t.sh"; sh "$top/tests/$t.sh" >"$O/$t.out" 2>&1; echo "rc=$?"; tail -3 "$O/$t.out"
    done
fi
if [ "${BENCH:-1}" != 0 ]; then
    R=${REPEAT:-3}
    echo "== bench_select.sh, feast: CPU on all threads vs GPU 0 (fastest of $R)"
    BENCH_MI="$B/tests/bench/bench_mi" BENCH_DEVICE=0 BENCH_REPEAT=$R BENCH_SETS=feast \
        sh "$top/tests/bench/bench_select.sh" 2>"$O/bench_feast.err"
    grep "open the table" "$O/bench_feast.err"
    echo "== bench_mi --preset survivors (fastest of $R)"
    "$B/tests/bench/bench_mi" --preset survivors --methods mrmr,jmi,disr,cmim --device 0 --no-cpu1 --repeat "$R"
fi
