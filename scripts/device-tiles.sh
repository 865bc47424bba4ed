#!/bin/sh
# device-tiles.sh -- on the GPU machine (after scripts/device-build.sh here,
# with .carry carried): where a GPU scan's time goes, tile by tile.  Each
# scan runs with EPISTREAM_GPU_TRACE=1 --verbose; the trace is summarised by
# tenths of the tile sequence (kernel ms, candidates, the host's wait and
# scoring), with the log's seconds_* lines and the backend's totals.
#   SHAPES   "N:M:KERNEL ..." (default "8192:262144:ws 8192:262144:wgmma
#            1024:262144:wgmma"), boost, top 1000, random genotypes
#   E2E=0    also 1,000,000 x 10,000 (KERNEL E2E_K, default ws)
#   STAT     boost
set -u
. "$(dirname "$0")/device-env.sh"
T=${TMPDIR:-/tmp}
summ() { # summ TRACE: tenths of the tile sequence
    awk '/gpu-trace/ {
            n++; split($0, a, "kernel "); k[n] = a[2] + 0
            split($0, b, "ms, "); c[n] = b[2] + 0
            split($0, d, "waited "); w[n] = d[2] + 0
            split($0, e, "scored in "); s[n] = e[2] + 0
        }
        END {
            if (!n) { print "  (no trace)"; exit }
            printf "  %d tiles; tenth: kernel ms (sum) | mean kernel ms | candidates (sum) | waited ms | scored ms\n", n
            for (t = 0; t < 10; t++) {
                ks = cs = ws = ss = 0; m = 0
                for (i = int(t * n / 10) + 1; i <= int((t + 1) * n / 10); i++) { ks += k[i]; cs += c[i]; ws += w[i]; ss += s[i]; m++ }
                tk += ks
                printf "  %d: %9.2f | %7.3f | %11d | %9.2f | %9.2f\n", t, ks, m ? ks / m : 0, cs, ws, ss
            }
            printf "  kernel sum %.2f ms; first tile %.3f ms, last %.3f ms\n", tk, k[1], k[n]
        }' "$1"
}
one() { # one N M KERNEL TAG
    "$EPISTREAM" sim --samples "$1" --variants "$2" --seed 24 --out "$T/tl$1" >/dev/null 2>&1
    s1=$(date +%s.%N)
    EPISTREAM_GPU_TRACE=1 timeout -k 5 200 "$EPISTREAM" scan --bfile "$T/tl$1" --stat "${STAT:-boost}" --device gpu \
        --gpu-kernel "$3" --verbose --out "$T/tl.$4" 2>"$O/tl.$4.err"
    rc=$?
    s2=$(date +%s.%N)
    echo "== $4: N=$1 M=$2 --gpu-kernel $3 rc=$rc wall $(awk "BEGIN{print $s2 - $s1}") s"
    grep -E "^(seconds|pairs_per)" "$T/tl.$4.log" | tr '\n' ' '
    echo
    grep -v gpu-trace "$O/tl.$4.err" | grep -E "GPU|open|pack|read|failed" | cut -c1-220
    summ "$O/tl.$4.err"
}
for sh in ${SHAPES:-8192:262144:ws 8192:262144:wgmma 1024:262144:wgmma}; do
    n=${sh%%:*}; r=${sh#*:}; m=${r%%:*}; k=${r#*:}
    one "$n" "$m" "$k" "n$n.$k"
done
if [ "${E2E:-0}" = 1 ]; then
    one 10000 1000000 "${E2E_K:-ws}" "e2e.${E2E_K:-ws}"
fi
