#!/bin/sh
# device-ws-steady.sh -- on the GPU machine (after scripts/device-build.sh
# here, with .carry carried): issue 24, what sets the pace of the ws kernel
# (--gpu-kernel ws, gpu/pair/count_ws.cu) on the late tiles of a scan, where
# almost no pair survives the screen.  Every part prints as it ends; logs and
# reports go to $OUT when set.
#   PARTS="check steady e2e ncu feed bench" (default "steady ncu feed"), run in
#   that order while the time left (LIMIT seconds from the start, 230) covers
#   each part's estimate
#   check:  scripts/device-ws.sh's quick check (ws and wgmma against the
#           CPU's bytes, 3,000 variants x 4,501 samples) and its tests
#           (test_gpu, tests/gpu_cli.sh), side by side with compute-sanitizer
#           (SAN_TOOLS: memcheck racecheck synccheck) on a ws boost scan of
#           1,600 variants x 4,500 samples in blocks of 1,536 (the last
#           launch is an off-diagonal tile of two blocks with thresholds: the
#           late-tile kernel); outputs against the CPU's
#   steady: epistream scan --verbose with EPISTREAM_GPU_TRACE=1 of STEADY_M
#           (65,536) variants x N samples (STEADY_N: 8192 1024 10000), boost,
#           top 1000, for each path of STEADY_P; per path the launches'
#           kernel ms: all, the off-diagonal ones of the second half of the
#           sequence (the late tiles: mean, min), and their candidates.  A
#           path is KERNEL[:WS] (EPISTREAM_GPU_WS=WS: noepi, nomma are the
#           probes of count_ws.cu, timing only; fits, spin: the previous
#           kernel's fits and mbarrier waits, the same outputs) or
#           main:KERNEL (main's build,
#           .carry/bin/epistream-main, when carried)
#   ncu:    Nsight Compute on one late off-diagonal 8,192^2 ws tile (N =
#           8,192, launch 25 of the ws launches of a 65,536-variant scan):
#           --set full with source counters (the SASS page as CSV in $OUT:
#           stall samples an instruction), and the probes' tiles (NCU_P)
#           with the warp-state and scheduler sections
#   feed:   bench_gpu's main loop alone (the fused kernel's k_feed) at
#           N = 8,192 and 10,000 (the 'mainloop' rows)
#   e2e:    1,000,000 variants x 10,000 samples end to end (boost, top 1000,
#           --verbose), E2E_P paths (default "ws ws:spin main:ws"), bytes
#           compared
#   bench:  bench_gpu -n 1024,8192 -m 262144 -s boost -k wgmma,ws -M -c 256
#           -e EPISTREAM_GPU_WS=spin (each scan after the same scan with the
#           previous waits: mode 'env'), then main's
#           (.carry/bin/tests/bench/bench_gpu-main) -k ws
set -u
. "$(dirname "$0")/device-env.sh"
T=${TMPDIR:-/tmp}
PARTS=${PARTS:-steady ncu feed}
M=${STEADY_M:-65536}
END=$((t0 + ${LIMIT:-230}))
est() { case $1 in check) echo 60 ;; steady) echo 20 ;; e2e) echo 45 ;; ncu) echo 40 ;; feed) echo 10 ;; bench) echo 75 ;; *) echo 0 ;; esac; }
pbin() { case $1 in main:*) [ -x "$B/epistream-main" ] && echo "$B/epistream-main" || echo "" ;; *) echo "$EPISTREAM" ;; esac; }
data() { [ -f "$T/st$1.bed" ] || wd 60 "$EPISTREAM" sim --samples "$1" --variants "$M" --seed 24 --out "$T/st$1" >/dev/null 2>&1; }
late() { # late TRACE: launches; kernel ms sum; late off-diagonal mean, min; their candidates
    awk '/gpu-trace/ {
            n++; split($0, a, "kernel "); k[n] = a[2] + 0; split($0, b, "ms, "); c[n] = b[2] + 0
            split($0, t, "tile "); split(t[2], ij, "[,:]"); d[n] = ij[1] == ij[2]
        }
        END {
            for (i = 1; i <= n; i++) {
                s += k[i]
                if (i > n / 2 && !d[i]) { m++; ls += k[i]; lc += c[i]; if (!lm || k[i] < lm) lm = k[i] }
            }
            printf "%4d %9.2f %4d %8.3f %8.3f %9d", n, s, m, m ? ls / m : 0, lm, lc
        }' "$1"
}
for part in $PARTS; do
    left=$((END - $(date +%s)))
    if [ "$left" -lt "$(est "$part")" ]; then
        echo "#### $part: SKIPPED ($left s left, needs ~$(est "$part"))"
        continue
    fi
    case $part in
    check)
        echo "== check: quick bytes; test_gpu || gpu_cli.sh || compute-sanitizer (${SAN_TOOLS:-memcheck racecheck synccheck})"
        QUICK=1 QUICK_N=4501 BENCH=0 TESTS=0 SANITIZE=0 sh "$(dirname "$0")/device-ws.sh" 2>&1 | grep -v "^NVIDIA"
        QUICK=0 BENCH=0 TESTS=0 SANITIZE=1 SAN_M=1600 SAN_N=4500 SAN_BLOCK=1536 SAN_T=40 \
            SAN_TOOLS="${SAN_TOOLS:-memcheck racecheck synccheck}" sh "$(dirname "$0")/device-ws.sh" >"$O/san.txt" 2>&1 &
        sp=$!
        gpu_tests 100 "PASSED|FAILED|rror"
        wait $sp
        grep -v "^NVIDIA" "$O/san.txt"
        stamp ;;
    e2e)
        echo "== end to end: 1,000,000 variants x 10,000 samples, boost, top 1000"
        wd 100 "$EPISTREAM" sim --samples 10000 --variants 1000000 --pairs 4 --seed 11 --out "$T/e2e" >/dev/null 2>&1
        first=""
        for p in ${E2E_P:-ws ws:spin main:ws}; do
            bin=$(pbin "$p")
            [ -n "$bin" ] || continue
            k=${p#main:} w=""
            case $k in *:*) w=${k#*:} k=${k%%:*} ;; esac
            tag=$(echo "$p" | tr : _)
            s1=$(date +%s.%N)
            EPISTREAM_GPU_WS=$w EPISTREAM_GPU_TRACE=1 wd 100 "$bin" scan --bfile "$T/e2e" --device gpu --gpu-kernel "$k" \
                --verbose --out "$T/e2e.$tag" 2>"$O/e2e.$tag.err"
            rc=$?
            s2=$(date +%s.%N)
            echo "$p rc=$rc scan command $(awk "BEGIN{print $s2 - $s1}") s; launches, kernel ms, late: $(late "$O/e2e.$tag.err")"
            grep -E "^(seconds|pairs_per)" "$T/e2e.$tag.log" | tr '\n' ' '
            echo
            grep -v gpu-trace "$O/e2e.$tag.err" | grep -E "kernel|waited|scor" | tail -3 | cut -c1-200
            if [ -z "$first" ]; then first=$tag; else
                for f in top.tsv summary.tsv; do
                    cmp -s "$T/e2e.$first.$f" "$T/e2e.$tag.$f" && echo "  $f identical to $first's" || echo "  $f DIFFERS from $first's"
                done
            fi
        done
        stamp ;;
    bench)
        echo "== bench_gpu: this build (wgmma, ws), then main's ws"
        wd 100 "$B/tests/bench/bench_gpu" -n 1024,8192 -m 262144 -s boost -k wgmma,ws -c 256 -M -d "$T" \
            -e EPISTREAM_GPU_WS=spin 2>&1 | grep -E "boost|mainloop|ceiling" | tee "$O/bench.new.txt"
        [ -x "$B/tests/bench/bench_gpu-main" ] && wd 80 "$B/tests/bench/bench_gpu-main" -n 1024,8192 -m 262144 -s boost \
            -k ws -c 64 -M -d "$T" 2>&1 | grep -E "boost" | sed 's/^/main: /' | tee "$O/bench.main.txt"
        stamp ;;
    steady)
        echo "== steady: $M variants, boost, top 1000, late = off-diagonal launches of the second half"
        printf "%6s %-12s %4s %9s %4s %8s %8s %9s %6s\n" N path lnch kern_ms late mean_ms min_ms cands rc
        for n in ${STEADY_N:-8192 1024 10000}; do
            data "$n"
            for p in ${STEADY_P:-ws ws:spin ws:fits ws:noepi ws:nomma wgmma main:ws}; do
                bin=$(pbin "$p")
                [ -n "$bin" ] || { echo "$n $p: no epistream-main"; continue; }
                k=${p#main:} w=""
                case $k in *:*) w=${k#*:} k=${k%%:*} ;; esac
                EPISTREAM_GPU_WS=$w EPISTREAM_GPU_TRACE=1 wd 60 "$bin" scan --bfile "$T/st$n" --stat boost \
                    --device gpu --gpu-kernel "$k" --top 1000 --verbose --out "$T/st$n.$k.${w:-x}" \
                    2>"$O/st$n.$(echo "$p" | tr : _).err" >/dev/null
                rc=$?
                printf "%6s %-12s %s %6s\n" "$n" "$p" "$(late "$O/st$n.$(echo "$p" | tr : _).err")" "$rc"
            done
            for f in top.tsv summary.tsv; do
                cmp -s "$T/st$n.ws.x.$f" "$T/st$n.wgmma.x.$f" || echo "  N=$n ws vs wgmma $f DIFFERS"
            done
        done
        stamp ;;
    ncu)
        command -v ncu >/dev/null || { echo "no ncu"; continue; }
        data 8192
        echo "== ncu --set full, one late off-diagonal ws tile, N = 8,192 (launch 25 of k_ws)"
        wd 150 ncu --clock-control none --set full --kernel-name regex:k_ws --launch-skip 24 --launch-count 1 \
            -f -o "$O/late" "$EPISTREAM" scan --bfile "$T/st8192" --stat boost --device gpu --gpu-kernel ws \
            --top 1000 --quiet --out "$T/late" >"$O/late.log" 2>&1
        echo "rc=$?"
        ncu -i "$O/late.ncu-rep" --page details >"$O/late.details.txt" 2>&1
        grep -E "Duration|Registers Per|Executed Instructions  |Issue Slots Busy|No Eligible|Issued Warp|Warp Cycles Per Issued|Eligible Warps|Active Warps Per|Compute \(SM\) Th|L2 Cache Th|DRAM Th|L2 Hit|Memory Th" \
            "$O/late.details.txt" | head -24
        ncu -i "$O/late.ncu-rep" --page raw --csv >"$O/late.raw.csv" 2>&1
        ncu -i "$O/late.ncu-rep" --page source --csv --print-source sass >"$O/late.sass.csv" 2>"$O/late.sass.err" ||
            ncu -i "$O/late.ncu-rep" --page source --csv >"$O/late.sass.csv" 2>>"$O/late.sass.err"
        wc -c "$O/late.sass.csv"; head -c 400 "$O/late.sass.csv"; echo
        rm -f "$O/late.ncu-rep" # large; the pages above are what is read back
        stamp
        st=smsp__average_warps_issue_stalled
        mets=$(stall_mets "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,lts__t_bytes.sum.per_second,lts__t_sector_hit_rate.pct")
        for p in ${NCU_P:-ws:spin ws:noepi ws:nomma}; do
            w=${p#ws}; w=${w#:}
            echo "== ncu $p (launch 25 of k_ws, N = 8,192)"
            EPISTREAM_GPU_WS=$w wd 60 ncu --clock-control none --kernel-name regex:k_ws --launch-skip 24 \
                --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
                --metrics "$mets" "$EPISTREAM" scan --bfile "$T/st8192" --stat boost --device gpu --gpu-kernel ws \
                --top 1000 --quiet --out "$T/late.p" >"$O/ncu.$(echo "$p" | tr : _).txt" 2>&1
            grep -E "Duration|Issued Warp|No Eligible|Warp Cycles Per Issued|Compute \(SM\) Th|L2 Cache Th|Memory Th|lts__|stalled" \
                "$O/ncu.$(echo "$p" | tr : _).txt" | sed -e "s/$st//" -e 's/_per_issue_active.ratio//' | head -24
        done
        stamp ;;
    feed)
        echo "== the main loop alone (bench_gpu mainloop rows; chi2 scans of 4,096 variants)"
        wd 60 "$B/tests/bench/bench_gpu" -n 8192,10000 -m 4096 -s chi2 -k wgmma -c 64 -M -d "$T" 2>&1 |
            grep -E "mainloop|pairs/s" | head -8
        stamp ;;
    esac
done
