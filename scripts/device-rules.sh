#!/bin/sh
# device-rules.sh -- on the GPU machine (after scripts/device-build.sh here,
# with .carry carried): the rule learner's GPU test (the CPU's model bytes),
# compute-sanitizer memcheck on a part of it, and the GPU vs CPU benchmark
# (tests/bench/bench_rules_gpu.c) on a large synthetic set.  Logs go to $OUT.
#   TESTS=0      skip the test and compute-sanitizer
#   BENCH="N F L CPU1_RULES CPUT_RULES GPU_RULES THREADS" (default
#                "100000 500 100 2 5 50 16"); BENCH=0: no benchmark; the GPU runs print
#                where their time goes (EPISTREAM_RULES_GPU_TRACE=1)
set -u
. "$(dirname "$0")/device-env.sh"
nproc
if [ "${TESTS:-1}" = 1 ]; then
    echo "== test_gpu_rules"
    timeout 150 "$B/tests/test_gpu_rules" >"$O/test_gpu_rules.out" 2>&1; echo "rc=$?"
    grep -E "rules|PASSED|FAILED|first different|error|Error" "$O/test_gpu_rules.out" | head -30
    echo "== compute-sanitizer memcheck: test_single, test_wide"
    for t in test_single test_wide; do
        RULES_GPU_TEST=$t timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 \
            "$B/tests/test_gpu_rules" >"$O/memcheck_$t.out" 2>&1
        echo "$t rc=$?"; tail -3 "$O/memcheck_$t.out"
    done
fi
if [ "${BENCH:-}" != 0 ]; then
    echo "== bench_rules_gpu ${BENCH:-100000 500 100 2 5 50 16}"
    # shellcheck disable=SC2086
    EPISTREAM_RULES_GPU_TRACE=1 timeout "${BENCH_TIMEOUT:-240}" "$B/tests/bench/bench_rules_gpu" ${BENCH:-100000 500 100 2 5 50 16}
    echo "rc=$?"
fi
