#!/bin/sh
# device-ws-steady.sh -- on the GPU machine (after scripts/device-build.sh
# here, with .carry carried): issue 24, what sets the pace of the ws kernel
# (--gpu-kernel ws, gpu/pair/count_ws.cu) on the late tiles of a scan, where
# almost no pair survives the screen.  Every part prints as it ends; logs and
# reports go to $OUT when set.
#   PARTS="steady ncu feed" (default, in that order)
#   steady: epistream scan --verbose with EPISTREAM_GPU_TRACE=1 of STEADY_M
#           (65,536) variants x N samples (STEADY_N: 8192 1024 10000), boost,
#           top 1000, for each path of STEADY_P; per path the launches'
#           kernel ms: all, the off-diagonal ones of the second half of the
#           sequence (the late tiles: mean, min), and their candidates.  A
#           path is KERNEL[:WS] (EPISTREAM_GPU_WS=WS: noepi, nomma are the
#           probes of count_ws.cu, timing only; fits: the previous kernel) or
#           main:KERNEL (main's build,
#           .carry/bin/epistream-main, when carried)
#   ncu:    Nsight Compute on one late off-diagonal 8,192^2 ws tile (N =
#           8,192, launch 25 of the ws launches of a 65,536-variant scan):
#           --set full with source counters (the SASS page as CSV in $OUT:
#           stall samples an instruction), and the probes' tiles (NCU_P)
#           with the warp-state and scheduler sections
#   feed:   bench_gpu's main loop alone (the fused kernel's k_feed) at
#           N = 8,192 and 10,000 (the 'mainloop' rows)
set -u
. "$(dirname "$0")/device-env.sh"
T=${TMPDIR:-/tmp}
PARTS=${PARTS:-steady ncu feed}
M=${STEADY_M:-65536}
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
    case $part in
    steady)
        echo "== steady: $M variants, boost, top 1000, late = off-diagonal launches of the second half"
        printf "%6s %-12s %4s %9s %4s %8s %8s %9s %6s\n" N path lnch kern_ms late mean_ms min_ms cands rc
        for n in ${STEADY_N:-8192 1024 10000}; do
            data "$n"
            for p in ${STEADY_P:-ws ws:fits ws:noepi ws:nomma wgmma main:ws}; do
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
        mets="l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,lts__t_bytes.sum.per_second,lts__t_sector_hit_rate.pct"
        for r in barrier long_scoreboard short_scoreboard wait membar math_pipe_throttle mio_throttle lg_throttle \
            no_instruction sleeping branch_resolving dispatch_stall selected not_selected; do
            mets="$mets,${st}_${r}_per_issue_active.ratio"
        done
        for p in ${NCU_P:-ws:fits ws:noepi ws:nomma}; do
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
