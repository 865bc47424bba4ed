#!/bin/sh
# device-perf.sh -- on the GPU machine (after scripts/device-build.sh here, with
# .carry carried): the benchmark table, and an Nsight Compute profile of one
# tile kernel per statistic.  Logs go to $OUT when it is set.
#   BENCH_N (1024,8192)  BENCH_M (65536)  BENCH_S (boost,chi2)  BENCH_K (mma)
#   PROFILE=1: ncu on one tile of N=8192 (boost, chi2)
set -u
. "$(dirname "$0")/device-env.sh"
T=${TMPDIR:-/tmp}
if [ "${BENCH:-1}" = 1 ]; then
    "$B/tests/bench/bench_gpu" -n "${BENCH_N:-1024,8192}" -m "${BENCH_M:-65536}" -s "${BENCH_S:-boost,chi2}" \
        -k "${BENCH_K:-mma}" -c "${BENCH_C:-4096}" -d "$T" 2>&1 | tee "$O/bench.txt"
fi
if [ "${PROFILE:-0}" = 1 ] && command -v ncu >/dev/null; then
    "$B/epistream" sim --samples 8192 --variants 16384 --seed 5 --out "$T/prof" >/dev/null 2>&1
    for st in ${PROFILE_S:-boost chi2}; do
        echo "== ncu $st"
        ncu --clock-control none --kernel-name regex:k_mma --launch-skip 1 --launch-count 1 \
            --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis \
            --section LaunchStats --section InstructionStats \
            "$B/epistream" scan --bfile "$T/prof" --stat "$st" --device gpu --block 8192 --quiet \
            --out "$T/prof.$st" >"$O/ncu.$st.txt" 2>&1
        grep -E "Duration|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Issue Slots Busy|Executed Ipc Active|No Eligible|Warp Cycles Per Issued|Dynamic Shared|Waves Per SM|Stall|One or More" "$O/ncu.$st.txt" | head -40
    done
fi
if [ "${E2E:-0}" = 1 ]; then
    # issue 3's end-to-end target: 1,000,000 variants x 10,000 samples, .bed to written top-k
    echo "== end to end: ${E2E_M:-1000000} variants x ${E2E_N:-10000} samples"
    s0=$(date +%s.%N)
    "$B/epistream" sim --samples "${E2E_N:-10000}" --variants "${E2E_M:-1000000}" --pairs 4 --seed 11 \
        --out "$T/e2e" >/dev/null 2>&1 || echo "sim failed"
    s1=$(date +%s.%N)
    "$B/epistream" scan --bfile "$T/e2e" --device gpu --quiet --out "$T/e2e.gpu" 2>"$O/e2e.err"
    s2=$(date +%s.%N)
    echo "sim $(awk "BEGIN{print $s1 - $s0}") s; scan (read .bed, pack, scan, write) $(awk "BEGIN{print $s2 - $s1}") s"
    grep -E "^(backend|gpu|seconds|pairs|n_)" "$T/e2e.gpu.log" | head -20
    head -3 "$T/e2e.gpu.top.tsv"
fi
