#!/bin/sh
# device-epi.sh -- on the GPU machine (after scripts/device-build.sh here,
# with .carry carried): issue 24, the fused wgmma tile's epilogue (branch
# epi24d): where one boost tile's time goes, and the late-tile epilogue
# without its phases A-C barriers against the previous one
# (EPISTREAM_GPU_EPILOGUE=1).  Every part prints as it ends, so a run cut
# short still reports what finished; logs and reports go to $OUT when set.
#   PARTS="prof tests sanitize kern bench ncu e2e" (default: all but prof, in that order)
#   prof:     Nsight Compute --set full on one off-diagonal 8,192 x 8,192 boost
#             tile (N = 8,192) with source counters (SASS-level stall samples;
#             .carry/bin/epistream-li, when carried, has -lineinfo for
#             --import-source), and on the main loop alone (bench_gpu's feed
#             kernel k_feed, 16,384^2 pairs); the reports and their source
#             pages (CSV) go to $OUT
#   check:    tests and sanitize side by side
#   tests:    test_gpu || gpu_cli.sh, test_screen, test_wgmma (bytes against the CPU)
#   sanitize: compute-sanitizer memcheck and racecheck, a small boost scan,
#             wgmma and mma kernels, both paths; outputs against the CPU's
#   kern, bench, ncu, e2e: scripts/device-fit.sh's parts with
#             SWITCH=EPISTREAM_GPU_EPILOGUE (paths main, old, new alternated;
#             bench_gpu -e EPISTREAM_GPU_EPILOGUE=1; ncu of the prof tile with
#             the usual sections; 1,000,000 x 10,000 end to end)
#   paths: new (the default), old (EPISTREAM_GPU_EPILOGUE=1), main (main's build)
#   KERN_NM="1024:262144 8192:262144" KERN_S="boost chi2" KERN_REP=2 KERN_PATHS="main old new"
#   BENCH_N=1024,8192 BENCH_M=262144 BENCH_S=boost,chi2 E2E_PATHS="new main" NCU_PATHS="new"
#   SAN="memcheck:wgmma:new memcheck:wgmma:old memcheck:mma:new racecheck:wgmma:new"
set -u
. "$(dirname "$0")/device-env.sh"
PARTS=${PARTS:-tests sanitize kern bench ncu e2e}
T=${TMPDIR:-/tmp}
# path name -> EPISTREAM_GPU_EPILOGUE value
ep() { [ "$1" = old ] && echo 1 || echo 0; }
# the profiled tile: three blocks of 8,192; launches 0-5 are the diagonal
# tiles (pre-pass and run each), then (0, 1), (0, 2), (1, 2): launch 8 is
# off-diagonal even after one re-run of an overflowing tile
prof_data() {
    [ -f "$T/prof.bed" ] || wd 60 "$EPISTREAM" sim --samples 8192 --variants 24576 --seed 5 --out "$T/prof" >/dev/null 2>&1
}
SUMMARY="k_wgmma|k_feed|Duration|Registers Per|Executed Instructions  |Issue Slots Busy|No Eligible|Issued Warp|Warp Cycles Per Issued|Eligible Warps|Active Warps Per|Compute \(SM\) Th|L2 Cache Th"
for part in $PARTS; do
    case $part in
    prof)
        command -v ncu >/dev/null || { echo "no ncu"; continue; }
        ncu --version | tail -1
        ncu --help >"$O/ncu-help.txt" 2>&1
        prof_data
        bin=$B/epistream-li
        [ -x "$bin" ] || bin=$EPISTREAM
        echo "== ncu --set full, k_wgmma boost N=8192, an off-diagonal tile ($(basename "$bin"))"
        wd 120 ncu --clock-control none --set full --import-source yes --kernel-name k_wgmma \
            --launch-skip 8 --launch-count 1 -f -o "$O/tile" \
            "$bin" scan --bfile "$T/prof" --stat boost --device gpu --gpu-kernel wgmma --block 8192 \
            --quiet --out "$T/prof.li" >"$O/tile.log" 2>&1
        echo "rc=$?"
        ncu_pages "$O/tile"
        grep -iE "stall|barrier" "$O/tile.details.txt" | head -12
        wc -c "$O/tile.sass.csv" "$O/tile.cuda.csv"; head -c 600 "$O/tile.sass.csv"; echo
        stamp
        ncu_feed 8192 "$O/feed"
        stamp ;;
    check) # tests and sanitize side by side (neither is timed)
        check_beside "$0"
        stamp ;;
    tests)
        pair_tests "${TEST_S:-150}"
        stamp ;;
    sanitize)
        command -v compute-sanitizer >/dev/null || { echo "no compute-sanitizer"; continue; }
        "$EPISTREAM" sim --samples 999 --variants 600 --missing 0 --seed 3 --out "$T/cs0" >/dev/null 2>&1
        "$EPISTREAM" scan --bfile "$T/cs0" --device cpu --block 128 --top 20 --quiet --out "$T/cs.cpu" 2>/dev/null
        for tkp in ${SAN:-memcheck:wgmma:new memcheck:wgmma:old memcheck:mma:new racecheck:wgmma:new}; do
            tool=${tkp%%:*} k=${tkp#*:} p=${k#*:} k=${k%%:*}
            echo "== compute-sanitizer $tool, $k, boost, path $p"
            EPISTREAM_GPU_EPILOGUE=$(ep $p) wd 90 compute-sanitizer --tool $tool --error-exitcode 9 \
                "$EPISTREAM" scan --bfile "$T/cs0" --device gpu --gpu-kernel $k --block 128 --top 20 \
                --verbose --out "$T/cs.$k.$p" >"$T/cs.$tool.err" 2>&1
            echo "rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard" "$T/cs.$tool.err" | head -3
            for f in top.tsv summary.tsv; do
                cmp -s "$T/cs.cpu.$f" "$T/cs.$k.$p.$f" || echo "DIFFER from cpu: $k $p $f"
            done
        done
        stamp ;;
    kern|bench|ncu|e2e) # device-fit.sh's parts, with this work's switch and paths
        SWITCH=EPISTREAM_GPU_EPILOGUE PARTS=$part KERN_NM="${KERN_NM:-1024:262144 8192:262144}" \
            KERN_S="${KERN_S:-boost}" KERN_REP="${KERN_REP:-2}" KERN_PATHS="${KERN_PATHS:-main old new}" \
            BENCH_S="${BENCH_S:-boost,chi2}" NCU_PATHS="${NCU_PATHS:-new}" E2E_PATHS="${E2E_PATHS:-new main}" \
            E2E_SUMMARY=0 sh "$(dirname "$0")/device-fit.sh" 2>&1 | grep -v "^NVIDIA"
        ;;
    esac
done
