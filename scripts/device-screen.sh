#!/bin/sh
# device-screen.sh -- on the GPU machine (after scripts/device-build.sh here,
# with .carry carried): scans whose variants have no missing call (the
# screened two-plane path) compared byte for byte with --device cpu for every
# statistic and kernel, with a top-k, a significance threshold and several
# tiles, so that the later tiles start with thresholds and take the
# survivor-queue path.  Prints one line per run; exits 1 on any difference.
#   SCREEN_N (1237)  SCREEN_M (12000)  SCREEN_BLOCK (2048)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=$top/.carry/bin
export LD_LIBRARY_PATH="$top/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
T=${TMPDIR:-/tmp}/screen.$$
mkdir -p "$T"
N=${SCREEN_N:-1237} M=${SCREEN_M:-12000} BL=${SCREEN_BLOCK:-2048}
"$B/epistream" sim --samples "$N" --variants "$M" --pairs 4 --seed 21 --out "$T/d" >/dev/null 2>&1 || {
    echo "sim failed"; exit 1; }
bad=0
for st in boost chi2 mi ig k2; do
    "$B/epistream" scan --bfile "$T/d" --stat $st --top 500 --p-threshold 1e-5 --device cpu --quiet \
        --out "$T/cpu.$st" || { echo "cpu $st failed"; bad=1; continue; }
    for k in wgmma mma popc; do
        o="$T/gpu.$st.$k"
        "$B/epistream" scan --bfile "$T/d" --stat $st --top 500 --p-threshold 1e-5 --device gpu --gpu-kernel $k \
            --block "$BL" --quiet --verbose --out "$o" 2>"$o.err" || { echo "$st $k: scan failed"; tail -3 "$o.err"; bad=1; continue; }
        r=same
        for f in top.tsv sig.tsv summary.tsv; do cmp -s "$T/cpu.$st.$f" "$o.$f" || r="DIFFERENT ($f)"; done
        [ "$r" = same ] || bad=1
        echo "$st $k: $r; $(grep -h -o 'candidates[^;]*' "$o.err" | head -1)"
    done
done
rm -rf "$T"
exit $bad
