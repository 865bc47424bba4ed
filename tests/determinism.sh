#!/bin/sh
# determinism.sh -- the same input gives the same bytes for any thread count and
# tile size, for every statistic, and whether the packed planes are in memory
# or in a temporary file (--host-mem below their size).
. "$(dirname "$0")/lib.sh"

"$EPISTREAM" sim --samples 777 --variants 150 --pairs 2 --missing 0.02 --seed 11 --out "$T/d" \
    || fail "sim"
for stat in boost chi2 mi ig k2; do
    pt="--p-threshold 0.05"
    [ $stat = k2 ] && pt=""
    ref=""
    for cfg in "1 0" "2 0" "2 16" "3 48" "1 1000" "2 16 1K" "1 0 4K"; do
        set -- $cfg
        o="$T/$stat.t$1.b$2${3:+.h$3}"
        mkdir -p "$T/tmp"
        # shellcheck disable=SC2086
        "$EPISTREAM" scan --bfile "$T/d" --stat $stat --top 200 $pt --threads $1 --block $2 \
            ${3:+--host-mem $3 --tmp-dir "$T/tmp" --verbose} --quiet --out "$o" 2>"$T/err" || fail "scan $stat $cfg"
        [ -z "$(ls "$T/tmp")" ] || fail "the temporary planes file was left in $T/tmp"
        if [ -z "$ref" ]; then ref=$o; continue; fi
        for f in top.tsv summary.tsv ${pt:+sig.tsv}; do
            cmp -s "$ref.$f" "$o.$f" || fail "$stat: $f differs between $ref and $o"
        done
    done
done
# the planes file really is used, and a directory where it cannot be made is a
# clear error with nothing written
"$EPISTREAM" scan --bfile "$T/d" --host-mem 1K --tmp-dir "$T/tmp" --verbose --out "$T/v" 2>"$T/err" ||
    fail "scan --host-mem 1K"
grep -q "temporary file in $T/tmp" "$T/err" || fail "no message about the planes file: $(cat "$T/err")"
expect_fail "$T/err" "$EPISTREAM" scan --bfile "$T/d" --host-mem 1K --tmp-dir "$T/nowhere" --out "$T/bad"
grep -q "$T/nowhere: cannot create the temporary planes file" "$T/err" || fail "message: $(cat "$T/err")"
[ ! -e "$T/bad.top.tsv" ] && [ ! -e "$T/bad.log" ] || fail "output written after the planes file failed"
expect_fail "$T/err" "$EPISTREAM" scan --bfile "$T/d" --host-mem 0 --out "$T/bad"
grep -q "host-mem: expected a positive byte count" "$T/err" || fail "--host-mem 0: $(cat "$T/err")"
exit 0
