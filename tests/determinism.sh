#!/bin/sh
# determinism.sh -- the same input gives the same bytes for any thread count and
# tile size, for every statistic.
. "$(dirname "$0")/lib.sh"

"$EPISTREAM" sim --samples 777 --variants 150 --pairs 2 --missing 0.02 --seed 11 --out "$T/d" \
    || fail "sim"
for stat in boost chi2 mi ig k2; do
    pt="--p-threshold 0.05"
    [ $stat = k2 ] && pt=""
    ref=""
    for cfg in "1 0" "2 0" "2 16" "3 48" "1 1000"; do
        set -- $cfg
        o="$T/$stat.t$1.b$2"
        "$EPISTREAM" scan --bfile "$T/d" --stat $stat --top 200 $pt --threads $1 --block $2 \
            --quiet --out "$o" || fail "scan $stat $cfg"
        if [ -z "$ref" ]; then ref=$o; continue; fi
        for f in top.tsv summary.tsv ${pt:+sig.tsv}; do
            cmp -s "$ref.$f" "$o.$f" || fail "$stat: $f differs between $ref and $o"
        done
    done
done
exit 0
