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
#   tests:    test_gpu || gpu_cli.sh, test_screen (bytes against the CPU)
#   sanitize: compute-sanitizer memcheck and racecheck, a small boost scan,
#             wgmma and mma kernels, both paths; outputs against the CPU's
#   kern:     epistream scan --verbose, the two paths alternated: kernel
#             seconds per tile, candidates; outputs compared
#   bench:    bench_gpu -e EPISTREAM_GPU_EPILOGUE=1 (each scan the old way, then the new)
#   ncu:      the prof tile with the usual sections, both paths
#   e2e:      1,000,000 variants x 10,000 samples, boost, top 1000, both paths
#   KERN_NM="1024:262144 8192:262144" KERN_S="boost chi2" KERN_REP=2 BENCH_N=1024,8192
#   BENCH_M=262144 BENCH_S=boost,chi2 E2E_PATHS="new old"
set -u
. "$(dirname "$0")/device-env.sh"
PARTS=${PARTS:-tests sanitize kern bench ncu e2e}
T=${TMPDIR:-/tmp}
t0=$(date +%s)
stamp() { echo "   [$(($(date +%s) - t0)) s]"; }
wd() { # wd SECONDS cmd...: the command, killed when it overruns
    s=$1
    shift
    timeout -k 5 "$s" "$@"
    r=$?
    { [ $r = 124 ] || [ $r = 137 ]; } && echo "WATCHDOG: $* ran past ${s}s"
    return $r
}
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
        ncu -i "$O/tile.ncu-rep" --page details >"$O/tile.details.txt" 2>&1
        grep -E "$SUMMARY" "$O/tile.details.txt" | head -16
        grep -iE "stall|barrier" "$O/tile.details.txt" | head -12
        ncu -i "$O/tile.ncu-rep" --page raw --csv >"$O/tile.raw.csv" 2>&1
        ncu -i "$O/tile.ncu-rep" --page source --csv --print-source sass >"$O/tile.sass.csv" 2>"$O/tile.sass.err" ||
            ncu -i "$O/tile.ncu-rep" --page source --csv >"$O/tile.sass.csv" 2>>"$O/tile.sass.err"
        ncu -i "$O/tile.ncu-rep" --page source --csv --print-source cuda,sass >"$O/tile.cuda.csv" 2>>"$O/tile.sass.err"
        wc -c "$O/tile.sass.csv" "$O/tile.cuda.csv"; head -c 600 "$O/tile.sass.csv"; echo
        stamp
        echo "== ncu --set full, k_feed (the main loop alone), N=8192, 16,384^2 pairs"
        wd 100 ncu --clock-control none --set full --kernel-name k_feed --launch-skip 1 --launch-count 1 -f \
            -o "$O/feed" "$B/tests/bench/bench_gpu" -n 8192 -m 2048 -s chi2 -k wgmma -c 256 -M -d "$T" \
            >"$O/feed.log" 2>&1
        echo "rc=$?"
        ncu -i "$O/feed.ncu-rep" --page details >"$O/feed.details.txt" 2>&1
        grep -E "$SUMMARY" "$O/feed.details.txt" | head -16
        ncu -i "$O/feed.ncu-rep" --page raw --csv >"$O/feed.raw.csv" 2>&1
        ncu -i "$O/feed.ncu-rep" --page source --csv --print-source sass >"$O/feed.sass.csv" 2>/dev/null ||
            ncu -i "$O/feed.ncu-rep" --page source --csv >"$O/feed.sass.csv" 2>/dev/null
        stamp ;;
    tests)
        echo "== test_gpu || gpu_cli.sh; test_screen"
        gpu_tests 150 "PASSED|FAILED|rror"
        timeout 60 "$B/tests/test_screen" >"$O/test_screen.out" 2>&1
        echo "test_screen rc=$?"; tail -1 "$O/test_screen.out"
        stamp ;;
    sanitize)
        command -v compute-sanitizer >/dev/null || { echo "no compute-sanitizer"; continue; }
        "$EPISTREAM" sim --samples 999 --variants 600 --missing 0 --seed 3 --out "$T/cs0" >/dev/null 2>&1
        "$EPISTREAM" scan --bfile "$T/cs0" --device cpu --block 128 --top 20 --quiet --out "$T/cs.cpu" 2>/dev/null
        for tool in memcheck racecheck; do
            for k in wgmma mma; do
                for p in new old; do
                    [ $tool = racecheck ] && [ $p = old ] && continue
                    echo "== compute-sanitizer $tool, $k, boost, path $p"
                    EPISTREAM_GPU_EPILOGUE=$(ep $p) wd 90 compute-sanitizer --tool $tool --error-exitcode 9 \
                        "$EPISTREAM" scan --bfile "$T/cs0" --device gpu --gpu-kernel $k --block 128 --top 20 \
                        --verbose --out "$T/cs.$k.$p" >"$T/cs.err" 2>&1
                    echo "rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard" "$T/cs.err" | head -3
                    for f in top.tsv summary.tsv; do
                        cmp -s "$T/cs.cpu.$f" "$T/cs.$k.$p.$f" || echo "DIFFER from cpu: $k $p $f"
                    done
                done
            done
        done
        stamp ;;
    kern)
        for nm in ${KERN_NM:-1024:262144 8192:262144}; do
            n=${nm%%:*} m=${nm#*:}
            wd 60 "$EPISTREAM" sim --samples "$n" --variants "$m" --seed 24 --out "$T/k$n" >/dev/null 2>&1
            for st in ${KERN_S:-boost chi2}; do
                for rep in $(seq "${KERN_REP:-2}"); do
                    for p in old new; do
                        EPISTREAM_GPU_EPILOGUE=$(ep $p) wd 60 "$EPISTREAM" scan --bfile "$T/k$n" --stat $st \
                            --device gpu --gpu-kernel wgmma --threads 16 --verbose --out "$T/k$n.$st.$p" \
                            2>"$T/k.err" >/dev/null || { tail -3 "$T/k.err"; continue; }
                        printf 'N=%s M=%s %s %s: scan %s s; ' "$n" "$m" $st $p \
                            "$(awk -F'\t' '$1=="seconds_scan"{print $2}' "$T/k$n.$st.$p.log")"
                        grep -h "GPU 0: [0-9]* tiles\|GPU 0: the exact\|GPU 0: screen" "$T/k.err" |
                            sed 's/.*GPU 0: //' | tr '\n' ' '
                        echo
                    done
                done
                for f in top.tsv summary.tsv; do
                    cmp -s "$T/k$n.$st.old.$f" "$T/k$n.$st.new.$f" || echo "DIFFER: N=$n $st $f"
                done
            done
        done
        stamp ;;
    bench)
        echo "== bench_gpu -e EPISTREAM_GPU_EPILOGUE=1 (mode env: the old path; then the default; same data)"
        wd 200 "$B/tests/bench/bench_gpu" -e EPISTREAM_GPU_EPILOGUE=1 -M -n "${BENCH_N:-1024,8192}" \
            -m "${BENCH_M:-262144}" -s "${BENCH_S:-boost,chi2}" -k wgmma -c 1024 -d "$T" 2>&1 |
            grep -v '^# b1\|^# .ceiling\|^# (no' | tee "$O/bench.out"
        stamp ;;
    ncu)
        command -v ncu >/dev/null || { echo "no ncu"; continue; }
        prof_data
        for p in old new; do
            echo "== ncu k_wgmma boost N=8192, an off-diagonal tile, path $p"
            EPISTREAM_GPU_EPILOGUE=$(ep $p) wd 100 ncu --clock-control none --kernel-name k_wgmma \
                --launch-skip 8 --launch-count 1 \
                --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
                --section InstructionStats --section SchedulerStats \
                "$EPISTREAM" scan --bfile "$T/prof" --stat boost --device gpu --gpu-kernel wgmma --block 8192 \
                --quiet --out "$T/prof.$p" >"$O/ncu.$p.txt" 2>&1
            grep -E "$SUMMARY|Stall|stall" "$O/ncu.$p.txt" | head -24
        done
        stamp ;;
    e2e)
        echo "== end to end: 1,000,000 variants x 10,000 samples, boost, top 1000"
        s0=$(date +%s.%N)
        wd 100 "$EPISTREAM" sim --samples 10000 --variants 1000000 --pairs 4 --seed 11 --out "$T/e2e" >/dev/null 2>&1
        s1=$(date +%s.%N)
        echo "sim $(awk "BEGIN{print $s1 - $s0}") s"
        for p in ${E2E_PATHS:-new old}; do
            s1=$(date +%s.%N)
            EPISTREAM_GPU_EPILOGUE=$(ep $p) wd 100 "$EPISTREAM" scan --bfile "$T/e2e" --device gpu --verbose \
                --out "$T/e2e.$p" 2>"$O/e2e.$p.err" >/dev/null
            echo "rc=$?"
            s2=$(date +%s.%N)
            echo "path $p: scan command (read .bed, pack, scan, write) $(awk "BEGIN{print $s2 - $s1}") s"
            grep -E "^(seconds|pairs)" "$T/e2e.$p.log" | tr '\n' ' '
            echo
            grep -E "tiles,|exact statistic|screen" "$O/e2e.$p.err" | sed 's/^\[[A-Z]::[a-z_]*\] //' | head -6
        done
        for f in top.tsv summary.tsv; do
            [ -f "$T/e2e.old.$f" ] && { cmp -s "$T/e2e.old.$f" "$T/e2e.new.$f" || echo "DIFFER: e2e $f"; }
        done
        stamp ;;
    esac
done
