#!/bin/sh
# device-exact.sh -- on the GPU machine (after scripts/device-build.sh here,
# with .carry carried): issue 24 item 3, the candidates' exact statistic on
# the device (gpu/pair/exact.cu).  The twin's tests (test_screen on the CPU,
# test_gpu on the device) and the byte-identity tests (gpu_cli.sh), run side
# by side; compute-sanitizer memcheck on a small boost scan; the candidates
# the host scores, and the scan's seconds, with the second stage off
# (EPISTREAM_GPU_EXACT=0) and on, alternated; bench_gpu -x (each scan off,
# then on, on the same data).  Logs go to $OUT when it is set; every part
# prints as it ends, so a run cut short still reports what finished.
#   PARTS="bench cands tests sanitize" (default: all, in that order: the
#   timings first, on an otherwise idle machine)
#   CAND_M=262144 BENCH_N=1024,8192 BENCH_M=262144 BENCH_S=boost,chi2,mi
set -u
. "$(dirname "$0")/device-env.sh"
PARTS=${PARTS:-bench cands tests sanitize}
TL=${TEST_LIMIT:-150} # seconds for the tests side by side
t0=$(date +%s)
stamp() { echo "   [$(($(date +%s) - t0)) s]"; }
for part in $PARTS; do
    case $part in
    tests)
        echo "== test_screen (CPU: the bound, and the exact twin bit for bit against src/stats)"
        "$B/tests/test_screen" 2>&1 | tail -2
        echo "== test_gpu (device exact values within their margin; scans vs the CPU) || gpu_cli.sh (bytes)"
        gpu_tests "$TL" "^exact|PASSED|FAILED|rror"
        stamp ;;
    sanitize)
        memcheck_boost 600 "the second stage on" "ERROR SUMMARY|exact statistic" --top 20 --verbose
        stamp ;;
    cands)
        # the host's share of a small scan, off and on, alternated twice
        m=${CAND_M:-262144}
        echo "== candidates (N=1024, M=$m, wgmma, --threads 16)"
        "$EPISTREAM" sim --samples 1024 --variants "$m" --seed 24 --out /tmp/c24 >/dev/null 2>&1
        for st in boost chi2 mi; do
            for rep in 1 2; do
                for v in 0 1; do
                    EPISTREAM_GPU_EXACT=$v "$EPISTREAM" scan --bfile /tmp/c24 --stat $st --device gpu \
                        --gpu-kernel wgmma --threads 16 --verbose --out /tmp/c24.$st.$v 2>/tmp/c24.err >/dev/null ||
                        { tail -3 /tmp/c24.err; continue; }
                    printf '%s exact=%s: scan %s s; ' $st $v \
                        "$(awk -F'\t' '$1=="seconds_scan"{print $2}' /tmp/c24.$st.$v.log)"
                    grep -h "GPU 0: [0-9]* tiles\|GPU 0: the exact" /tmp/c24.err | sed 's/.*GPU 0: //' | tr '\n' ' '
                    echo
                done
            done
            for f in top.tsv summary.tsv; do
                cmp -s /tmp/c24.$st.0.$f /tmp/c24.$st.1.$f || echo "DIFFER: $st $f"
            done
        done
        stamp ;;
    bench)
        echo "== bench_gpu -x (no-exact: EPISTREAM_GPU_EXACT=0, then the default; same data)"
        "$B/tests/bench/bench_gpu" -x -M -n "${BENCH_N:-1024,8192}" -m "${BENCH_M:-262144}" \
            -s "${BENCH_S:-boost,chi2,mi}" -k wgmma -c 1024 2>&1 | grep -v '^# b1\|^# .ceiling\|^# (no' |
            tee "$O/bench.out"
        stamp ;;
    esac
done
