#!/bin/sh
# device-e2e24.sh -- on the GPU machine (after scripts/device-build.sh here,
# with .carry carried): the 1,000,000 x 10,000 boost scan end to end (issue
# 24) with this tree's epistream and, alternated in the same run, another
# build's (MAIN, default .carry/bin/epistream-main: copy the main branch's
# build there before packing the carry).  Each run: its wall from process
# start to exit, the log's seconds_* lines and the host-side lines of
# --verbose; the outputs compared byte for byte; then compute-sanitizer
# memcheck on small GPU scans through the same host path (the preloading
# thread, the failed tests beside the scan).
#   REPS=2     runs of each binary, alternated (main first)
#   E2E_K=ws   --gpu-kernel
#   TRACE=1    EPISTREAM_GPU_TRACE=1 on this tree's last run (when tiles end)
#   MC=3000    variants of the memcheck scans (0: none)
set -u
. "$(dirname "$0")/device-env.sh"
T=${TMPDIR:-/tmp}
MAIN=${MAIN:-$B/epistream-main}
echo "uptime: $(uptime)"
wd 120 "$EPISTREAM" sim --samples 10000 --variants 1000000 --pairs 4 --seed 11 --out "$T/e2e" >/dev/null 2>&1
echo "sim rc=$? $(stamp)"
one() { # one BIN TAG [TRACE]
    s1=$(date +%s.%N)
    EPISTREAM_GPU_TRACE=${3:-0} wd 90 "$1" scan --bfile "$T/e2e" --stat boost --device gpu \
        --gpu-kernel "${E2E_K:-ws}" --verbose --out "$T/e2e.$2" 2>"$O/e2e.$2.err"
    rc=$?
    s2=$(date +%s.%N)
    echo "== $2: rc=$rc wall $(awk "BEGIN{printf \"%.3f\", $s2 - $s1}") s $(stamp)"
    grep -E "^seconds" "$T/e2e.$2.log" | tr '\n' ' '
    echo
    grep -v gpu-trace "$O/e2e.$2.err" | grep -E "read the input|fail|packed|opened|GPU 0:|GPU scan|backend done|freed|wrote|committed|pinned|released|preload|after the process" |
        sed 's/^\[[IW]::[a-z_0-9]*\] //' | cut -c1-260
}
n=${REPS:-2}
k=1
while [ "$k" -le "$n" ]; do
    [ -x "$MAIN" ] && one "$MAIN" "main$k"
    tr=0
    [ "$k" = "$n" ] && tr=${TRACE:-1}
    one "$EPISTREAM" "new$k" "$tr"
    # ALSO_ENV="VAR=value ...": after the first pair, this tree once more with that environment
    if [ "$k" = 1 ] && [ -n "${ALSO_ENV:-}" ]; then
        (
            export $ALSO_ENV
            one "$EPISTREAM" alt
        )
    fi
    k=$((k + 1))
done

for f in top.tsv summary.tsv; do
    if [ -x "$MAIN" ]; then
        cmp "$T/e2e.main1.$f" "$T/e2e.new1.$f" && echo "$f: main and this tree the same bytes"
    fi
    [ "$n" -gt 1 ] && cmp "$T/e2e.new1.$f" "$T/e2e.new$n.$f" && echo "$f: this tree's runs the same bytes"
done
if [ "${TRACE:-1}" = 1 ]; then
    # when the device starts and ends, by phase: the diagonal tiles, then tenths of the rest
    awk '/gpu-trace/ { n++; split($0, a, "kernel "); k[n] = a[2] + 0; split($0, d, "done at "); t[n] = d[2] + 0 }
         END { for (i = 1; i <= n; i++) { ks += k[i]; if (i == 123) k123 = ks; if (i == 600) k600 = ks }
               printf "  trace: %d tiles, kernels %.1f ms, the last tile done at %.3f s into the loop\n", n, ks, t[n]
               printf "  tile 123 done at %.3f s (kernels to it %.1f ms); tile 600 at %.3f s (%.1f ms)\n",
                      t[123], k123, t[600], k600 }' "$O/e2e.new$n.err"
fi
# memcheck: small boost scans through the same host path (128-variant blocks, all preloaded)
[ "${MC:-3000}" -gt 0 ] && memcheck_boost "${MC:-3000}" "preloaded blocks, failed tests beside the scan" "ERROR SUMMARY|preload|fail" --top 50 --verbose
# the GPU scans' bytes against the CPU's on the same data
if [ "${MC:-3000}" -gt 0 ]; then
    "$EPISTREAM" scan --bfile /tmp/cs0 --device cpu --top 50 --out /tmp/cs.cpu 2>/dev/null
    for k in wgmma mma; do
        for f in top.tsv summary.tsv; do
            cmp "/tmp/cs.cpu.$f" "/tmp/cs.$k.$f" && echo "memcheck scan $k $f: the CPU's bytes"
        done
    done
fi
echo "done $(stamp)"
