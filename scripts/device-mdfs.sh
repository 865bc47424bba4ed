#!/bin/sh
# device-mdfs.sh -- on the GPU machine (after scripts/device-build.sh here,
# with .carry carried): the MDFS GPU test (tests/mdfs_gpu.sh) and the CPU
# ones (their --device auto may pick the GPU there), compute-sanitizer
# memcheck on the GPU engine's kernel families, and the benchmark table
# (tests/bench/bench_mdfs_gpu: tuples/s on the CPU's threads and on the GPU,
# the same run, the same results).  Logs go to $OUT when it is set.
#   MDFS_BENCH=0: no benchmark; MDFS_TESTS=0: no tests; MDFS_TEST_LIST:
#   the tests (default mdfs_gpu mdfs_cli mdfs_planted); MDFS_SAN: the
#   memcheck cases (none: no memcheck); MDFS_CASES: the benchmark's (';'-separated); MDFS_*_TIMEOUT: seconds
#   a test, memcheck or benchmark run may take; MDFS_KERNELS: the GPU
#   kernels each case is timed with, in the same run (default "popc mma":
#   EPISTREAM_MDFS_GPU_KERNEL; "mma" is the popcount kernel where the tensor
#   cores do not take the case; "mma-double": the tensor cores with their Hc
#   sums in double, EPISTREAM_MDFS_GPU_SUM=double); MDFS_PEAK=1: first
#   bench_mdfs_gpu peak (the b1 ceilings and the tuples/s they allow).
set -u
. "$(dirname "$0")/device-env.sh"
ifs=$IFS
echo "cpus: $(nproc)"
if [ "${MDFS_TESTS:-1}" = 1 ]; then
    for t in ${MDFS_TEST_LIST-mdfs_gpu mdfs_cli mdfs_planted}; do
        echo "== $t.sh"
        timeout "${MDFS_TEST_TIMEOUT:-600}" sh "$top/tests/$t.sh" >"$O/$t.out" 2>&1
        echo "rc=$?"
        tail -3 "$O/$t.out"
    done
    if [ "${MDFS_SAN:-}" != none ] && command -v compute-sanitizer >/dev/null; then
        # k = 2 and 3: the tensor cores (divisions 1-3 and 1-2), the register
        # kernels (3D divisions 3) and any-m ones (divisions 5)
        IFS=';'
        for a in ${MDFS_SAN:-2 300 300 300 2 2 40;2 300 300 300 1 2 40;2 300 300 300 3 2 40;3 300 60 60 2 2 40;3 300 60 60 1 2 40;3 200 40 40 5 1 40;2 200 100 100 5 1 40}; do
            IFS=$ifs
            echo "== compute-sanitizer memcheck bench_mdfs_gpu $a"
            # shellcheck disable=SC2086
            timeout "${MDFS_SAN_TIMEOUT:-600}" compute-sanitizer --tool memcheck --error-exitcode 9 "$B/tests/bench/bench_mdfs_gpu" $a >"$O/san.out" 2>&1
            echo "rc=$?"
            tail -2 "$O/san.out"
        done
        IFS=$ifs
    fi
fi
if [ "${MDFS_PEAK:-0}" = 1 ]; then
    timeout 120 "$B/tests/bench/bench_mdfs_gpu" peak || echo "peak: failed (rc $?)"
fi
if [ "${MDFS_BENCH:-1}" = 1 ]; then
    echo "| dim | objects | divisions | CPU threads | CPU vars | CPU tuples/s | GPU vars | GPU tuples/s | GPU kernels tuples/s | rescored | GPU/CPU | GPU / 1.35e9 | kernels / 1.35e9 | CPU = GPU | GPU kernel |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    # DIM OBJECTS VARS_GPU VARS_CPU DIVISIONS
    IFS=';'
    for a in ${MDFS_CASES:-2 1000 100000 20000 2;2 10000 30000 5000 2;3 1000 2000 700 2;3 10000 1000 300 2;2 1000 100000 20000 1;2 1000 100000 20000 3;3 1000 2000 700 1;3 1000 1000 500 3;3 1000 400 200 5}; do
        IFS=$ifs
        for k in ${MDFS_KERNELS:-popc mma}; do
            # shellcheck disable=SC2086
            sum=float
            [ "$k" = mma-double ] && k=mma sum=double
            EPISTREAM_MDFS_GPU_SUM=$sum EPISTREAM_MDFS_GPU_KERNEL=$k timeout "${MDFS_BENCH_TIMEOUT:-120}" "$B/tests/bench/bench_mdfs_gpu" $a 2>>"$O/bench_mdfs_gpu.err" ||
                echo "| $a $k: failed (rc $?) |"
        done
    done
    IFS=$ifs
    tail -6 "$O/bench_mdfs_gpu.err"
fi
