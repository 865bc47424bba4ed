#!/bin/sh
# device-load.sh -- on the GPU machine (after scripts/device-build.sh here,
# with .carry carried): issue 24, the cp.async loader of the fused wgmma
# tile (gpu/pair/wgmma_cp.cuh) with its two copy codes alternated in one run,
# EPISTREAM_GPU_LOAD=cp-regs (sources in registers, the full-stage path:
# epi24d) and cp-plain (sources rebuilt a stage: 602f606).  Parts in order of
# need, each under a watchdog; logs go to $OUT when set.
#   1 main loop alone: bench_gpu's 'mainloop' rows (16,384 variants) at
#     FEED_N (1024,2048,4096,8192), the two codes alternated FEED_REP times
#   2 whole scans: bench_gpu -n BENCH_N (1024,8192) -m BENCH_M (262144)
#     -s boost,chi2, the two codes alternated twice (-M: no out-of-core run)
#   3 test_gpu and tests/gpu_cli.sh, test_wgmma (raw products of every
#     loader against the CPU), beside compute-sanitizer memcheck on small
#     wgmma boost scans with each code (SAN_N samples: 999, classes under a
#     stage; 4,500: full stages and a partial one), bytes against the CPU's
# Ends with the ratio table plain / regs per row.  (Written for branch
# load24f; not run there: the session's device budget was short.)
set -u
. "$(dirname "$0")/device-env.sh"
T=${TMPDIR:-/tmp}
K=wgmma-cp-regs,wgmma-cp-plain
echo "== 1 main loop alone, ${FEED_REP:-3} alternations"
kf=$K
i=1
while [ "$i" -lt "${FEED_REP:-3}" ]; do kf="$kf,$K"; i=$((i + 1)); done
wd "${FEED_T:-40}" "$B/tests/bench/bench_gpu" -n "${FEED_N:-1024,2048,4096,8192}" -m 2048 -s chi2 -k "$kf" \
    -c 256 -M -d "$T" 2>&1 | grep -E "^#|mainloop" | tee "$O/feed.txt"
stamp
echo "== 2 whole scans"
wd "${BENCH_T:-100}" "$B/tests/bench/bench_gpu" -n "${BENCH_N:-1024,8192}" -m "${BENCH_M:-262144}" -s boost,chi2 \
    -k "$K,$K" -c "${BENCH_C:-2048}" -M -d "$T" 2>&1 | grep -v "^NVIDIA" | tee "$O/bench.txt"
stamp
echo "== 3 tests beside memcheck"
(
    for n in ${SAN_N:-999 4500}; do
        "$EPISTREAM" sim --samples "$n" --variants 400 --missing 0 --seed 3 --out "$T/cs$n" >/dev/null 2>&1
        "$EPISTREAM" scan --bfile "$T/cs$n" --device cpu --block 128 --top 20 --quiet --out "$T/cs$n.cpu" 2>/dev/null
        for c in cp-regs cp-plain; do
            echo "== compute-sanitizer memcheck, wgmma $c, boost, N=$n"
            EPISTREAM_GPU_LOAD=$c wd "${SAN_T:-40}" compute-sanitizer --tool memcheck --error-exitcode 9 \
                "$EPISTREAM" scan --bfile "$T/cs$n" --device gpu --gpu-kernel wgmma --block 128 --top 20 --quiet \
                --out "$T/cs$n.$c" >"$T/cs$n.$c.err" 2>&1
            echo "rc=$?"; grep -E "ERROR SUMMARY" "$T/cs$n.$c.err" | sed 's/.*GPU 0: //'
            for f in top.tsv summary.tsv; do
                cmp -s "$T/cs$n.cpu.$f" "$T/cs$n.$c.$f" && echo "  $f identical" || echo "  $f DIFFERS"
            done
        done
    done
) >"$O/sanitize.txt" 2>&1 &
ps=$!
timeout 60 "$B/tests/test_wgmma" >"$O/test_wgmma.out" 2>&1 &
pw=$!
gpu_tests "${TEST_S:-80}" "PASSED|FAILED|rror"
wait $pw; echo "test_wgmma rc=$?"; grep -E "PASSED|FAILED" "$O/test_wgmma.out" | tail -2
wait $ps
cat "$O/sanitize.txt"
stamp
echo "== ratios cp-plain / cp-regs (pairs/s; each row's runs in order)"
cat "$O/feed.txt" "$O/bench.txt" | awk '$3 ~ /^wgmma-cp-/ {
        k = $1 " " $4 " " $5; r = $7; if ($3 == "wgmma-cp-regs") { reg[k] = reg[k] " " r; br[k] = r > br[k] ? r : br[k] }
        else { pl[k] = pl[k] " " r; bp[k] = r > bp[k] ? r : bp[k] }; keys[k] = 1 }
    END { for (k in keys) printf "N stat mode = %s: regs%s | plain%s | best plain/regs %.3f\n", k, reg[k], pl[k],
                                 bp[k] / br[k] }' | sort -n
