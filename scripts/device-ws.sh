#!/bin/sh
# device-ws.sh -- on the GPU machine (after scripts/device-build.sh here, with
# .carry carried): the persistent warp-specialised kernel (--gpu-kernel ws,
# gpu/pair/count_ws.cu) against the wgmma tiles in one run.  Every command
# runs under a watchdog (a wrong mbarrier phase hangs a kernel).  Logs go to
# $OUT when it is set.
#   QUICK=1     a small ws scan against the CPU's bytes (first; QUICK_N
#               samples, 1,501: past 2,048 a class takes several stages)
#   BENCH=1     bench_gpu -k wgmma,ws at BENCH_N (1024,8192), BENCH_M (262144)
#               (BENCH_X: more bench_gpu options, e.g. -M: no out-of-core run)
#   TESTS=1     test_gpu (every kernel, ws included) and tests/gpu_cli.sh
#   SANITIZE=1  compute-sanitizer memcheck (SAN_TOOLS) on a small ws scan
#               (SAN_M variants x SAN_N samples, --block SAN_BLOCK), bytes
#               against the CPU's
#   PROFILE=0   ncu on one launch of each kernel of PROFILE_K (N = 8,192,
#               boost): sections, stall reasons, local-memory bytes
#   E2E=0       1e6 x 1e4 end to end with each kernel of E2E_K (ws; outputs
#               compared with the first's)
set -u
. "$(dirname "$0")/device-env.sh"
T=${TMPDIR:-/tmp}
wd() { # wd SECONDS cmd...: the command, killed when it overruns
    s=$1
    shift
    timeout -k 5 "$s" "$@"
    r=$?
    [ $r = 124 ] || [ $r = 137 ] && echo "WATCHDOG: $* ran past ${s}s"
    return $r
}
if [ "${QUICK:-1}" = 1 ]; then
    echo "== quick: ws vs cpu bytes"
    "$EPISTREAM" sim --samples "${QUICK_N:-1501}" --variants 3000 --pairs 3 --seed 7 --out "$T/q" >/dev/null 2>&1
    for st in boost chi2 mi; do
        wd 60 "$EPISTREAM" scan --bfile "$T/q" --stat $st --top 200 --p-threshold 1e-3 --device cpu --quiet \
            --out "$T/q.cpu.$st"
        for k in wgmma ws; do
            wd 60 "$EPISTREAM" scan --bfile "$T/q" --stat $st --top 200 --p-threshold 1e-3 --device gpu \
                --gpu-kernel $k --block 1024 --verbose --out "$T/q.$k.$st" 2>"$T/q.$k.$st.err"
            echo "$st $k rc=$? $(grep -h -E 'kernel|screen' "$T/q.$k.$st.err" | head -2 | tr '\n' ' ')"
            for f in top.tsv summary.tsv sig.tsv; do
                cmp -s "$T/q.cpu.$st.$f" "$T/q.$k.$st.$f" && echo "  $f identical" || echo "  $f DIFFERS"
            done
        done
    done
fi
if [ "${BENCH:-1}" = 1 ]; then
    echo "== bench_gpu wgmma vs ws"
    wd "${BENCH_T:-150}" "$B/tests/bench/bench_gpu" -n "${BENCH_N:-1024,8192}" -m "${BENCH_M:-262144}" \
        -s "${BENCH_S:-boost,chi2}" -k "${BENCH_K:-wgmma,ws}" -c "${BENCH_C:-2048}" -d "$T" ${BENCH_X:-} 2>&1 |
        tee "$O/bench_ws.txt"
    awk '$3=="wgmma" && $5=="in-memory" {w[$1" "$4]=$7} $3=="ws" && $5=="in-memory" {s[$1" "$4]=$7}
         END {for (k in s) if (k in w) printf "ratio ws/wgmma N=%s: %.3f\n", k, s[k] / w[k]}' "$O/bench_ws.txt"
fi
if [ "${TESTS:-1}" = 1 ]; then
    echo "== test_gpu and gpu_cli.sh (side by side)"
    gpu_tests "${TESTS_T:-150}" "PASSED|FAILED|ERROR|SKIP"
fi
if [ "${SANITIZE:-1}" = 1 ] && command -v compute-sanitizer >/dev/null; then
    # SAN_M variants in blocks of SAN_BLOCK: with 2,100 in 2,048 the first
    # launch gives each CTA eight tiles, so both epilogue groups reuse their
    # buffers; the bytes are compared with the CPU's
    sm=${SAN_M:-300} sb=${SAN_BLOCK:-128}
    "$EPISTREAM" sim --samples "${SAN_N:-999}" --variants "$sm" --missing 0 --seed 3 --out "$T/cs0" >/dev/null 2>&1
    "$EPISTREAM" scan --bfile "$T/cs0" --device cpu --p-threshold 0.05 --quiet --out "$T/cs.cpu"
    for tool in ${SAN_TOOLS:-memcheck}; do
        echo "== compute-sanitizer $tool ws ($sm variants, --block $sb)"
        wd "${SAN_T:-120}" compute-sanitizer --tool "$tool" --error-exitcode 9 "$EPISTREAM" scan --bfile "$T/cs0" \
            --device gpu --gpu-kernel ws --block "$sb" --p-threshold 0.05 --quiet --out "$T/cs.ws" >"$O/san.$tool.out" 2>&1
        echo "rc=$?"
        tail -3 "$O/san.$tool.out"
        for f in top.tsv summary.tsv sig.tsv; do
            cmp -s "$T/cs.cpu.$f" "$T/cs.ws.$f" && echo "  $f identical" || echo "  $f DIFFERS"
        done
    done
fi
if [ "${PROFILE:-0}" = 1 ] && command -v ncu >/dev/null; then
    # one off-diagonal 8,192 x 8,192 tile (launch 3 of a 16,384-variant scan);
    # the stall reasons a issued instruction, local-memory traffic (spills)
    "$EPISTREAM" sim --samples 8192 --variants 16384 --seed 5 --out "$T/prof" >/dev/null 2>&1
    mets=$(stall_mets "launch__registers_per_thread,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum")
    for k in ${PROFILE_K:-wgmma:k_wgmma ws:k_ws}; do
        echo "== ncu ${k%%:*} boost N=8192"
        wd 90 ncu --clock-control none --kernel-name "regex:${k#*:}" --launch-skip 2 --launch-count 1 \
            --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
            --section InstructionStats --section SchedulerStats --metrics "$mets" \
            "$EPISTREAM" scan --bfile "$T/prof" --stat boost --device gpu --gpu-kernel "${k%%:*}" --block 8192 \
            --quiet --out "$T/prof.${k%%:*}" >"$O/ncu.${k%%:*}.txt" 2>&1
        grep -E "Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|Executed Ipc Active|No Eligible|Warp Cycles Per Issued|One or More|Issued Warp|Executed Instructions  |Compute \(SM\) Th|L2 Cache Th|Active Warps Per|Eligible Warps|registers_per|local_op|stalled" \
            "$O/ncu.${k%%:*}.txt" | sed -e 's/smsp__average_warps_issue_stalled_//' -e 's/_per_issue_active.ratio//' | head -40
    done
fi
if [ "${E2E:-0}" = 1 ]; then
    echo "== end to end: 1,000,000 variants x 10,000 samples, --gpu-kernel ${E2E_K:-ws}"
    s0=$(date +%s.%N)
    wd 100 "$EPISTREAM" sim --samples 10000 --variants 1000000 --pairs 4 --seed 11 --out "$T/e2e" >/dev/null 2>&1
    s1=$(date +%s.%N)
    echo "sim $(awk "BEGIN{print $s1 - $s0}") s"
    for k in ${E2E_K:-ws}; do
        s1=$(date +%s.%N)
        wd 100 "$EPISTREAM" scan --bfile "$T/e2e" --device gpu --gpu-kernel "$k" --verbose --out "$T/e2e.$k" \
            2>"$O/e2e.$k.err"
        echo "$k rc=$?"
        s2=$(date +%s.%N)
        echo "$k scan (read .bed, pack, scan, write) $(awk "BEGIN{print $s2 - $s1}") s"
        grep -E "^(backend|gpu|seconds|pairs|n_)" "$T/e2e.$k.log" | head -20
        grep -E "kernel" "$O/e2e.$k.err" | tail -3
        # (no --p-threshold: no .sig.tsv)
        [ "$k" = "${E2E_K%% *}" ] || for f in top.tsv summary.tsv; do
            cmp -s "$T/e2e.${E2E_K%% *}.$f" "$T/e2e.$k.$f" && echo "  $f identical" || echo "  $f DIFFERS"
        done
    done
fi
