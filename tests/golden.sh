#!/bin/sh
# golden.sh -- end-to-end on the tiny fixture tests/data/tiny (43 samples, 3
# without phenotype, 9 variants with missing calls, one monomorphic): every
# output file of every statistic must equal the checked-in expected files.
# The expected files were cross-checked when made: BOOST against plink1.9
# --fast-epistasis boost --epi1 1, the others against tests/oracle/stats_ref.py.
# Regenerate only after such a check: ES_GOLDEN_UPDATE=1 make check TESTS=tests/golden.sh
. "$(dirname "$0")/lib.sh"
D=$ES_TESTDATA
G=$D/golden
for stat in boost chi2 mi ig k2; do
    pt="--p-threshold 0.5"
    [ $stat = k2 ] && pt=""
    "$EPISTREAM" scan --bfile "$D/tiny" --stat $stat --top 20 $pt --quiet --out "$T/$stat" \
        || fail "scan $stat"
    for f in top.tsv summary.tsv ${pt:+sig.tsv}; do
        if [ "${ES_GOLDEN_UPDATE:-0}" = 1 ]; then cp "$T/$stat.$f" "$G/tiny.$stat.$f"; continue; fi
        diff -u "$G/tiny.$stat.$f" "$T/$stat.$f" || fail "$stat $f differs from the golden file"
    done
done
# PLINK's files: every pair in variant order, the monomorphic rs5's as failed
# tests ("nan 0 NA"), and the summary without them in N_TOT.  With
# --plink-compat (rs5 skipped) they were PLINK 1.9's bytes when made, except
# for one exact fit's rounding noise (6.97465e-10 there, 6.97469e-10 here).
"$EPISTREAM" scan --bfile "$D/tiny" --format plink --epi1 1 --top 5 --quiet --out "$T/pl" ||
    fail "plink format"
for f in epi.cc epi.cc.summary; do
    if [ "${ES_GOLDEN_UPDATE:-0}" = 1 ]; then cp "$T/pl.$f" "$G/tiny.boost.$f"; continue; fi
    diff -u "$G/tiny.boost.$f" "$T/pl.$f" || fail "plink-format $f differs"
done
grep -q "^failed_tests	8$" "$T/pl.log" || fail "the log should count rs5's 8 failed tests"
exit 0
