#!/bin/sh
# device-select.sh -- on the GPU machine (after scripts/device-build.sh here,
# with .carry carried): feature selection's GPU tests and the CPU vs GPU
# table at the FEAST size and the scan-survivor size.  Logs go to $OUT when
# set.  (scripts/device-mi.sh adds compute-sanitizer and the larger sets.)
#   TESTS=0     skip test_gpu_mi and gpu_select.sh
#   BENCH=0     no benchmark
#   REPEAT=R    runs per benchmark figure, the fastest kept (default 3)
set -u
. "$(dirname "$0")/device-env.sh"
if [ "${TESTS:-1}" = 1 ]; then
    echo "== test_gpu_mi"; "$B/tests/test_gpu_mi" >"$O/test_gpu_mi.out" 2>&1; echo "rc=$?"
    tail -3 "$O/test_gpu_mi.out"
    for t in gpu_select; do
        echo "== $t.sh"; sh "$top/tests/$t.sh" >"$O/$t.out" 2>&1; echo "rc=$?"; tail -3 "$O/$t.out"
    done
fi
if [ "${BENCH:-1}" != 0 ]; then
    R=${REPEAT:-3}
    echo "== bench_select.sh, feast: CPU on all threads vs GPU 0 (fastest of $R)"
    BENCH_MI="$B/tests/bench/bench_mi" BENCH_DEVICE=0 BENCH_REPEAT=$R BENCH_SETS=feast \
        sh "$top/tests/bench/bench_select.sh" 2>"$O/bench_feast.err"
    grep "open the table" "$O/bench_feast.err"
    echo "== where a FEAST-sized JMI on the GPU spends its time (EPISTREAM_MI_TRACE=1)"
    EPISTREAM_MI_TRACE=1 "$B/tests/bench/bench_mi" --preset feast --methods jmi --device 0 --no-cpu 2>&1 |
        grep -E "mi-trace|open the table" | tail -3
    echo "== bench_mi --preset survivors (fastest of $R)"
    "$B/tests/bench/bench_mi" --preset survivors --methods mrmr,jmi,disr,cmim --device 0 --no-cpu1 --repeat "$R"
    # the command as a user runs it: 4,000 samples x 10,000 variants, k = 50
    # (the table of survivors built from the fileset, the selection, the
    # output); seconds_select from the log
    echo "== epistream select --from-summary, 4,000 x 10,000, k = 50: seconds_select (seconds_total)"
    "$EPISTREAM" sim --samples 4000 --variants 10000 --seed 9 --out /tmp/fs >/dev/null 2>&1
    "$EPISTREAM" scan --bfile /tmp/fs --top 10 --quiet --out /tmp/fs.scan || echo "scan failed"
    for m in mrmr jmi; do
        for d in cpu gpu auto "gpu --gpu-path hist"; do
            # shellcheck disable=SC2086
            "$EPISTREAM" select --bfile /tmp/fs --from-summary /tmp/fs.scan.summary.tsv --n 10000 --method $m \
                --k 50 --device $d --verbose --out /tmp/fs.$m 2>/tmp/fs.err || { echo "select $m $d failed"; continue; }
            printf '%s\t%-22s %s (%s)  %s\n' $m "$d" "$(sed -n 's/^seconds_select\t//p' /tmp/fs.$m.log)" \
                "$(sed -n 's/^seconds_total\t//p' /tmp/fs.$m.log)" "$(sed -n 's/^select_device\t//p' /tmp/fs.$m.log)"
            [ "$d" = auto ] && grep -- "--device auto" /tmp/fs.err
        done
    done
fi
