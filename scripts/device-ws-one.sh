#!/bin/sh
# device-ws-one.sh -- every check of the ws kernel in ONE device run of at
# most LIMIT seconds (default 235), in order of need: each part of
# scripts/device-ws.sh runs under its own watchdog and only while the time
# left covers its estimate (a skipped part says so); logs in $OUT.
#   1 quick: ws and wgmma scans of 3,000 variants x 4,501 samples (three
#     stages a class: the consumers' pipelined path) against the CPU's
#     bytes                                                          (~15 s)
#   2 bench: bench_gpu wgmma vs ws, N 1,024 and 8,192, boost, chi2, no
#     out-of-core run (-M), CPU on BENCH_C variants                 (~60 s)
#   3 e2e: 1e6 x 1e4 end to end, wgmma then ws, bytes compared       (~40 s)
#   4 tests: test_gpu and tests/gpu_cli.sh side by side              (<= 60 s)
#   5 compute-sanitizer memcheck and racecheck on a ws boost scan of
#     SAN_M variants x SAN_N samples in blocks of SAN_BLOCK (several tiles a CTA, so both
#     epilogue groups reuse their buffers), bytes against the CPU's  (<= 2 x 35 s)
#   6 ncu: one off-diagonal 8,192 x 8,192 boost tile, ws then wgmma   (<= 2 x 45 s)
set -u
d=$(dirname "$0")
t0=$(date +%s)
end=$((t0 + ${LIMIT:-235}))
part() { # part ESTIMATE NAME VAR=VALUE...: device-ws.sh with those settings
    est=$1 name=$2
    shift 2
    left=$((end - $(date +%s)))
    if [ "$left" -lt "$est" ]; then
        echo "#### $name: SKIPPED ($left s left, needs ~$est)"
        return
    fi
    s=$(date +%s)
    echo "#### $name (at $((s - t0)) s)"
    env QUICK=0 BENCH=0 TESTS=0 SANITIZE=0 PROFILE=0 E2E=0 "$@" sh "$d/device-ws.sh"
    echo "#### $name took $(($(date +%s) - s)) s"
}
part 15 quick QUICK=1 QUICK_N="${QUICK_N:-4501}"
part 60 bench BENCH=1 BENCH_C="${BENCH_C:-256}" BENCH_X=-M BENCH_T=100
part 40 e2e E2E=1 E2E_K="wgmma ws"
part 30 tests TESTS=1 TESTS_T=60
part 20 sanitizers SANITIZE=1 SAN_M="${SAN_M:-1600}" SAN_N="${SAN_N:-4500}" SAN_BLOCK="${SAN_BLOCK:-1536}" SAN_T=35 \
    SAN_TOOLS="memcheck racecheck"
part 25 ncu-ws PROFILE=1 PROFILE_K=ws:k_ws
part 25 ncu-wgmma PROFILE=1 PROFILE_K=wgmma:k_wgmma
echo "#### all parts: $(($(date +%s) - t0)) s"
