#!/bin/sh
# device-fit.sh -- on the GPU machine (after scripts/device-build.sh here,
# with .carry carried): issue 24, the boost tile's epilogue without its
# in-tile fits (gk_params.tilefit 0: BOOST's fits left to the two-pass second
# stage, gpu/pair/exact.cu) against the previous path
# (EPISTREAM_GPU_TILEFIT=1), and the end-to-end run's host parts.  Every part
# prints as it ends, so a run cut short still reports what finished; logs go
# to $OUT when it is set.
#   PARTS="kern bench ncu e2e tests sanitize" (default: all, in that order)
#   kern:     epistream scan --verbose, the two paths alternated: kernel
#             seconds per tile, candidates, the host's share; outputs compared
#   bench:    bench_gpu -e EPISTREAM_GPU_TILEFIT=1 (each scan the old way, then the new)
#   ncu:      Nsight Compute on one off-diagonal 8,192 x 8,192 boost tile, N = 8,192, both paths
#   e2e:      1,000,000 variants x 10,000 samples, boost, top 1000, --verbose (the timing lines)
#   tests:    test_gpu || gpu_cli.sh (bytes against the CPU)
#   sanitize: compute-sanitizer memcheck, a small boost scan, both paths
#   KERN_NM="1024:262144 8192:65536" KERN_S="boost chi2" KERN_REP=1 BENCH_N=1024,8192 BENCH_M=262144 BENCH_S=boost,chi2 E2E_PATHS="new"
#   SWITCH=EPISTREAM_GPU_TILEFIT: the variable whose value 1 is path old (new: 0;
#   scripts/device-epi.sh passes EPISTREAM_GPU_EPILOGUE); path main is main's
#   build, .carry/bin/epistream-main when carried; KERN_PATHS="old new" NCU_PATHS="old new"
set -u
. "$(dirname "$0")/device-env.sh"
PARTS=${PARTS:-kern bench ncu e2e tests sanitize}
T=${TMPDIR:-/tmp}
SWITCH=${SWITCH:-EPISTREAM_GPU_TILEFIT}
# path name -> the value of $SWITCH; -> the program
tf() { [ "$1" = old ] && echo 1 || echo 0; }
pbin() { if [ "$1" = main ] && [ -x "$B/epistream-main" ]; then echo "$B/epistream-main"; else echo "$EPISTREAM"; fi; }
for part in $PARTS; do
    case $part in
    kern)
        for nm in ${KERN_NM:-1024:262144 8192:65536}; do
            n=${nm%%:*} m=${nm#*:}
            wd 60 "$EPISTREAM" sim --samples "$n" --variants "$m" --seed 24 --out "$T/k$n" >/dev/null 2>&1
            for st in ${KERN_S:-boost chi2}; do
                for rep in $(seq "${KERN_REP:-1}"); do
                    for p in ${KERN_PATHS:-old new}; do
                        wd 60 env "$SWITCH=$(tf $p)" "$(pbin $p)" scan --bfile "$T/k$n" --stat $st \
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
                    for p in ${KERN_PATHS:-old new}; do
                        cmp -s "$T/k$n.$st.$p.$f" "$T/k$n.$st.new.$f" || echo "DIFFER: N=$n $st $f ($p, new)"
                    done
                done
            done
        done
        stamp ;;
    bench)
        echo "== bench_gpu -e $SWITCH=1 (mode env: the old path; then the default; same data)"
        wd 200 "$B/tests/bench/bench_gpu" -e "$SWITCH=1" -M -n "${BENCH_N:-1024,8192}" \
            -m "${BENCH_M:-262144}" -s "${BENCH_S:-boost,chi2}" -k wgmma -c 1024 -d "$T" 2>&1 |
            grep -v '^# b1\|^# .ceiling\|^# (no' | tee "$O/bench.out"
        stamp ;;
    ncu)
        command -v ncu >/dev/null || { echo "no ncu"; continue; }
        # three blocks of 8,192: launches 0-5 are the diagonal tiles (pre-pass
        # and run each), then (0, 1), (0, 2), (1, 2): launch 8 is off-diagonal even
        # after one re-run of an overflowing tile
        wd 60 "$EPISTREAM" sim --samples 8192 --variants 24576 --seed 5 --out "$T/prof" >/dev/null 2>&1
        for p in ${NCU_PATHS:-old new}; do
            echo "== ncu k_wgmma boost N=8192, an off-diagonal tile, path $p"
            wd 100 env "$SWITCH=$(tf $p)" ncu --clock-control none --kernel-name k_wgmma \
                --launch-skip 8 --launch-count 1 \
                --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
                --section InstructionStats --section SchedulerStats \
                "$(pbin $p)" scan --bfile "$T/prof" --stat boost --device gpu --gpu-kernel wgmma --block 8192 \
                --quiet --out "$T/prof.$p" >"$O/ncu.$p.txt" 2>&1
            grep -E "k_wgmma|Duration|Registers Per|Executed Instructions  |Issue Slots Busy|No Eligible|Issued Warp|Warp Cycles Per Issued|Eligible Warps|Active Warps Per|Compute \(SM\) Th|L2 Cache Th|Stall|stall" \
                "$O/ncu.$p.txt" | head -24
        done
        stamp ;;
    e2e)
        echo "== end to end: 1,000,000 variants x 10,000 samples, boost, top 1000"
        s0=$(date +%s.%N)
        wd 100 "$EPISTREAM" sim --samples 10000 --variants 1000000 --pairs 4 --seed 11 --out "$T/e2e" >/dev/null 2>&1
        s1=$(date +%s.%N)
        echo "sim $(awk "BEGIN{print $s1 - $s0}") s"
        for p in ${E2E_PATHS:-new}; do
            s1=$(date +%s.%N)
            wd 100 env "$SWITCH=$(tf $p)" "$(pbin $p)" scan --bfile "$T/e2e" --device gpu --verbose \
                --out "$T/e2e.$p" 2>"$O/e2e.$p.err" >/dev/null
            echo "rc=$?"
            s2=$(date +%s.%N)
            echo "path $p: scan command (read .bed, pack, scan, write) $(awk "BEGIN{print $s2 - $s1}") s"
            grep -E "^(seconds|pairs)" "$T/e2e.$p.log" | tr '\n' ' '
            echo
            grep -E "read the|set up|opened in|packed|tiles,|exact statistic|wrote the|committed|tests that fail|scan]" \
                "$O/e2e.$p.err" | sed 's/^\[[A-Z]::[a-z_]*\] //' | head -14
        done
        for f in top.tsv summary.tsv; do
            for p in ${E2E_PATHS:-new}; do
                [ -f "$T/e2e.new.$f" ] && { cmp -s "$T/e2e.$p.$f" "$T/e2e.new.$f" || echo "DIFFER: e2e $f ($p, new)"; }
            done
        done
        if [ "${E2E_SUMMARY:-1}" = 1 ]; then
            echo "== bench_summary (1,000,000 rows: printf, then 1 and 16 threads)"
            "$B/tests/bench/bench_summary" 1000000 3 1 16
        fi
        stamp ;;
    tests)
        echo "== test_gpu || gpu_cli.sh (the default path: no in-tile fits, two-pass second stage)"
        gpu_tests 150 "PASSED|FAILED|rror"
        stamp ;;
    sanitize)
        command -v compute-sanitizer >/dev/null || { echo "no compute-sanitizer"; continue; }
        "$EPISTREAM" sim --samples 999 --variants 600 --missing 0 --seed 3 --out "$T/cs0" >/dev/null 2>&1
        "$EPISTREAM" scan --bfile "$T/cs0" --device cpu --block 128 --top 20 --quiet --out "$T/cs.cpu" 2>/dev/null
        for p in new old; do
            echo "== compute-sanitizer memcheck, wgmma, boost, path $p"
            wd 120 env "$SWITCH=$(tf $p)" compute-sanitizer --tool memcheck --error-exitcode 9 \
                "$EPISTREAM" scan --bfile "$T/cs0" --device gpu --gpu-kernel wgmma --block 128 --top 20 --verbose \
                --out "$T/cs.$p" >"$T/cs.$p.err" 2>&1
            echo "rc=$?"; grep -E "ERROR SUMMARY|exact statistic" "$T/cs.$p.err" | sed 's/.*GPU 0: //'
            for f in top.tsv summary.tsv; do cmp -s "$T/cs.cpu.$f" "$T/cs.$p.$f" || echo "DIFFER from cpu: $p $f"; done
        done
        stamp ;;
    esac
done
