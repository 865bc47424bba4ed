#!/bin/sh
# device-n1k.sh -- on the GPU machine (after scripts/device-build.sh here,
# with .carry carried): issue 24 at N = 1,024 (branch n1k24): where a *late*
# boost tile's time goes, and the fused kernel against main's build.  Every
# part prints as it ends; reports go to $OUT when set.
#   PARTS="check kern prof bench" (default; also tests, sanitize alone)
#   prof:     Nsight Compute --set full with source counters on one late
#             off-diagonal 8,192^2 boost tile of a 262,144 x 1,024 scan
#             (k_wgmma, --launch-skip PROF_SKIP, default 540 of about 560
#             launches; .carry/bin/epistream-li, when carried, has -lineinfo);
#             PROF_BINS="new" (this build; "main": epistream-main, "li":
#             epistream-li); then (PROF_FEED=1) the main loop alone at
#             N = 1,024 (bench_gpu's k_feed); the reports' details, raw and
#             source (SASS) pages go to $OUT/prof.tar.xz
#   check:    tests and sanitize side by side (neither is timed)
#   tests:    test_gpu || gpu_cli.sh, test_screen, test_wgmma
#   sanitize: compute-sanitizer memcheck, boost scans on wgmma (N = 999 and
#             1,024), outputs against --device cpu
#   kern:     EPISTREAM_GPU_TRACE scans of N x 262,144 (KERN_N "1024 8192"),
#             KERN_S "boost" (or "boost chi2"), main's build (epistream-main) and this one alternated
#             KERN_REP times: tile kernel seconds, the steady tile (tenths
#             1-9), the outputs compared
#   bench:    bench_gpu -n 1024,8192 -m 262144 -s boost,chi2 -k wgmma -M,
#             main's (bench_gpu-main) and this build's alternated BENCH_REP times
set -u
. "$(dirname "$0")/device-env.sh"
PARTS=${PARTS:-check kern prof bench}
T=${TMPDIR:-/tmp}
M=$B/epistream-main
SUMMARY="k_wgmma|k_feed|Duration|Registers Per|Executed Instructions  |Issue Slots Busy|No Eligible|Issued Warp|Warp Cycles Per Issued|Eligible Warps|Active Warps Per|Achieved Occ|Theoretical Occ|Compute \(SM\) Th|L2 Cache Th|Block Limit"
data() { # data N M: a random boost set, seed 24
    [ -f "$T/n$1m$2.bed" ] || wd 120 "$EPISTREAM" sim --samples "$1" --variants "$2" --seed 24 --out "$T/n$1m$2" \
        >/dev/null 2>&1
}
# steady: tenths 1-9 of a trace: mean tile ms; kernel sum
steady() {
    awk '/gpu-trace/ { n++; split($0, a, "kernel "); k[n] = a[2] + 0 }
        END { s = 0; m = 0; for (i = int(n / 10) + 1; i <= n; i++) { s += k[i]; m++ }
              t = 0; for (i = 1; i <= n; i++) t += k[i]
              printf "tiles %d, kernel sum %.1f ms, steady %.3f ms", n, t, m ? s / m : 0 }' "$1"
}
mkdir -p "$O/prof"
for part in $PARTS; do
    case $part in
    prof)
        command -v ncu >/dev/null || { echo "no ncu"; continue; }
        ncu --version | tail -1
        data 1024 262144
        for which in ${PROF_BINS:-new}; do
            bin=$B/epistream-$which
            [ -x "$bin" ] || bin=$EPISTREAM
            echo "== ncu --set full, k_wgmma boost N=1024, a late tile (launch ${PROF_SKIP:-540}; $(basename "$bin"))"
            wd 150 ncu --clock-control none --set full --import-source yes --kernel-name regex:k_wgmma \
                --launch-skip "${PROF_SKIP:-540}" --launch-count 1 -f -o "$O/prof/tile.$which" \
                "$bin" scan --bfile "$T/n1024m262144" --stat boost --device gpu --gpu-kernel wgmma \
                --quiet --out "$T/prof.$which" >"$O/prof/tile.$which.log" 2>&1
            echo "rc=$?"
            r=$O/prof/tile.$which
            ncu_pages "$r"
            grep -iE "stall|barrier|warp.*cycles" "$r.details.txt" | head -14
            wc -c "$r.cuda.csv" "$r.sass.csv" | head -2
            stamp
        done
        [ "${PROF_FEED:-1}" = 1 ] || { (cd "$O" && tar cf - prof/*.txt prof/*.csv prof/*.log | xz -T8 -6 >prof.tar.xz); continue; }
        ncu_feed 1024 "$O/prof/feed"
        (cd "$O" && tar cf - prof/*.txt prof/*.csv prof/*.log | xz -T8 -6 >prof.tar.xz)
        ls -la "$O/prof.tar.xz"
        stamp ;;
    check) # tests and sanitize side by side (neither is timed)
        check_beside "$0"
        stamp ;;
    tests)
        pair_tests "${TEST_S:-120}"
        stamp ;;
    sanitize)
        command -v compute-sanitizer >/dev/null || { echo "no compute-sanitizer"; continue; }
        for n in 999 1024; do
            "$EPISTREAM" sim --samples $n --variants 700 --missing 0 --seed 3 --out "$T/cs$n" >/dev/null 2>&1
            "$EPISTREAM" scan --bfile "$T/cs$n" --device cpu --block 128 --top 20 --quiet --out "$T/cs$n.cpu" 2>/dev/null
            echo "== compute-sanitizer memcheck, wgmma, boost, N=$n, 700 variants in blocks of 128"
            wd 90 compute-sanitizer --tool memcheck --error-exitcode 9 "$EPISTREAM" scan --bfile "$T/cs$n" \
                --device gpu --gpu-kernel wgmma --block 128 --top 20 --verbose --out "$T/cs$n.gpu" >"$T/cs.err" 2>&1
            echo "rc=$?"; grep -E "ERROR SUMMARY" "$T/cs.err" | head -2
            SAY_SAME=1 same_outputs "$T/cs$n.gpu" "$T/cs$n.cpu" cpu
        done
        stamp ;;
    kern)
        for n in ${KERN_N:-1024 8192}; do
            data "$n" 262144
            for st in ${KERN_S:-boost}; do
            for rep in $(seq "${KERN_REP:-2}"); do
                for which in main new; do
                    bin=$EPISTREAM
                    [ $which = main ] && bin=$M
                    [ -x "$bin" ] || { echo "no $bin"; continue; }
                    EPISTREAM_GPU_TRACE=1 wd 100 "$bin" scan --bfile "$T/n${n}m262144" --stat "$st" --device gpu \
                        --gpu-kernel wgmma --threads 16 --verbose --out "$T/k.$which" 2>"$O/k.$which.err"
                    echo "N=$n $st $which (rep $rep): rc=$? $(steady "$O/k.$which.err"); $(grep -E '^pairs_per_s' \
                        "$T/k.$which.log" | tr '\n' ' ')$(grep -E '^seconds_scan' "$T/k.$which.log" | tr '\n' ' ')"
                done
                same_outputs "$T/k.new" "$T/k.main" "main, N=$n $st"
            done
            done
        done
        stamp ;;
    bench)
        for rep in $(seq "${BENCH_REP:-2}"); do
            for which in main new; do
                bg=$B/tests/bench/bench_gpu
                [ $which = main ] && bg=$B/tests/bench/bench_gpu-main
                [ -x "$bg" ] || { echo "no $bg"; continue; }
                echo "== bench_gpu $which (rep $rep)"
                wd 150 "$bg" -n 1024,8192 -m 262144 -s boost,chi2 -k wgmma -c "${BENCH_C:-512}" -M -d "$T" 2>&1 |
                    grep -vE "^#|^$" | head -14
            done
        done
        stamp ;;
    esac
done
