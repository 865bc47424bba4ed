#!/bin/sh
# device-screen.sh -- on the GPU machine (after scripts/device-build.sh here,
# with .carry carried): issue 24's first-stage screen (gpu/pair/screen.cuh).
# The screen's soundness tests, the GPU's byte-identity tests, the candidates
# the host scores and the seconds it takes with each screen, compute-sanitizer
# memcheck on one small scan, and bench_gpu with the older screen
# (EPISTREAM_GPU_SCREEN=1) and the default one in the same run.  Logs go to
# $OUT when it is set; every part prints as it ends, so a run cut short
# still reports what finished.
#   PARTS="tests cands bench cli sanitize tests1" (default: all, in that order)
#   BENCH_N=1024,8192 BENCH_M=262144 BENCH_S=boost,chi2,mi
set -u
. "$(dirname "$0")/device-env.sh"
PARTS=${PARTS:-tests cands bench cli sanitize tests1}
t0=$(date +%s)
stamp() { echo "   [$(($(date +%s) - t0)) s]"; }
for part in $PARTS; do
    case $part in
    tests)
        echo "== test_screen (CPU: the bound against src/stats)"; "$B/tests/test_screen" 2>&1 | tail -2
        echo "== test_gpu (device bounds, the screen's included; scans vs the CPU)"
        "$B/tests/test_gpu" >"$O/test_gpu.out" 2>&1; echo "rc=$?"; tail -4 "$O/test_gpu.out"
        stamp ;;
    tests1)
        echo "== test_gpu with the older screen"
        EPISTREAM_GPU_SCREEN=1 "$B/tests/test_gpu" >"$O/test_gpu1.out" 2>&1; echo "rc=$?"; tail -2 "$O/test_gpu1.out"
        stamp ;;
    cands)
        # the host's share of a small scan: candidates scored exactly and the
        # seconds it takes, and the screen's survivors, with each screen
        echo "== candidates (N=1024, M=${CAND_M:-131072}, wgmma, --threads 16)"
        "$EPISTREAM" sim --samples 1024 --variants "${CAND_M:-131072}" --seed 24 --out /tmp/c24 >/dev/null 2>&1
        for st in boost chi2 mi; do
            for v in 1 2; do
                e=""; [ $v = 1 ] && e=1
                EPISTREAM_GPU_SCREEN=$e "$EPISTREAM" scan --bfile /tmp/c24 --stat $st --device gpu --gpu-kernel wgmma \
                    --threads 16 --verbose --out /tmp/c24.$st.$v 2>/tmp/c24.err >/dev/null || { tail -3 /tmp/c24.err; continue; }
                printf '%s screen%s: scan %s s; ' $st $v "$(awk -F'\t' '$1=="seconds_scan"{print $2}' /tmp/c24.$st.$v.log)"
                grep -h "GPU 0:" /tmp/c24.err | sed 's/.*GPU 0: //' | tr '\n' ' '; echo
            done
            for f in top.tsv summary.tsv; do
                cmp -s /tmp/c24.$st.1.$f /tmp/c24.$st.2.$f || echo "DIFFER: $st $f"
            done
        done
        stamp ;;
    bench)
        for v in 1 2; do
            e=""; [ $v = 1 ] && e=1
            echo "== bench_gpu, screen $v (${e:+EPISTREAM_GPU_SCREEN=1})"
            EPISTREAM_GPU_SCREEN=$e "$B/tests/bench/bench_gpu" -n "${BENCH_N:-1024,8192}" -m "${BENCH_M:-262144}" \
                -s "${BENCH_S:-boost,chi2,mi}" -k wgmma -c 1024 2>&1 | grep -v '^#' | tee "$O/bench$v.out"
            stamp
        done ;;
    cli)
        echo "== gpu_cli.sh (--device gpu bytes = --device cpu)"
        sh "$top/tests/gpu_cli.sh" >"$O/gpu_cli.out" 2>&1; echo "rc=$?"; tail -2 "$O/gpu_cli.out"
        stamp ;;
    sanitize)
        memcheck_boost 300 "no missing call (the screen's tiles)" "ERROR SUMMARY" --p-threshold 0.05 --quiet
        stamp ;;
    esac
done
