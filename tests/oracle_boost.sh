#!/bin/sh
# oracle_boost.sh -- the BOOST statistic against PLINK 1.9 --fast-epistasis boost on every
# pair PLINK lists (--epi1 1 makes PLINK fit and print every pair): STAT within 1e-4
# relative (PLINK prints 6 significant digits), DF exact, P within 1e-3 (4 digits).
# Data: 2,000 samples x 300 variants with 1% missing calls, and a small rare-variant set
# where empty genotype levels lower the degrees of freedom (4 -> 2 -> 1) or leave no
# test at all (PLINK's "nan ... NA" rows).  With --plink-compat --epi1 1 the .epi.cc.summary
# (and on common variants the .epi.cc) must be PLINK's bytes, and the log's count of valid
# tests PLINK's.
. "$(dirname "$0")/lib.sh"
need_cmd plink1.9
need_python numpy
CHECK=$ES_SRCDIR/tests/oracle/boost_check.py

# check NAME: PLINK and epistream on $T/NAME, then compare
check() {
    plink1.9 --bfile "$T/$1" --fast-epistasis boost --epi1 1 --allow-no-sex --threads 2 \
        --memory 1024 --out "$T/$1.plink" >"$T/$1.plink.out" 2>&1 ||
        { cat "$T/$1.plink.out" >&2; fail "plink1.9 --fast-epistasis boost on $1"; }
    "$EPISTREAM" scan --bfile "$T/$1" --stat boost --top 100000 --threads 2 --quiet \
        --out "$T/$1.es" >"$T/$1.es.out" 2>&1 ||
        { cat "$T/$1.es.out" >&2; fail "epistream scan --stat boost on $1"; }
    echo "$1:"
    "$PY" "$CHECK" "$T/$1.plink.epi.cc" "$T/$1.es.top.tsv" ||
        fail "BOOST differs from PLINK 1.9 on $1"
    # PLINK's own files, byte for byte: --format plink --epi1 1 lists every
    # pair in variant order (failed tests as "nan 0 NA"), and the summary
    # counts N_SIG below --epi2 (0.01) and leaves failed tests out of N_TOT;
    # --plink-compat skips the variants PLINK skips
    "$EPISTREAM" scan --bfile "$T/$1" --plink-compat --epi1 1 --threads 2 --quiet \
        --out "$T/$1.pc" >"$T/$1.pc.out" 2>&1 ||
        { cat "$T/$1.pc.out" >&2; fail "epistream scan --plink-compat on $1"; }
    # (not on rare variants: there PLINK leaves out the pairs whose screening
    # statistic is <= 0 even at --epi1 1, and prints rounding noise such as
    # -5.7e-15 for exact fits; README says so)
    also=
    if [ "${2:-}" = bytes ]; then
        also=" and .epi.cc"
        cmp "$T/$1.plink.epi.cc" "$T/$1.pc.epi.cc" ||
            fail "$1: --plink-compat --epi1 1 .epi.cc differs from PLINK's"
    fi
    cmp "$T/$1.plink.epi.cc.summary" "$T/$1.pc.epi.cc.summary" ||
        fail "$1: --plink-compat .epi.cc.summary differs from PLINK's"
    # the failed tests: counted in the log as PLINK counts valid ones
    valid=$(sed -n 's/^\([0-9]*\) valid tests\{0,1\} performed.*/\1/p' "$T/$1.plink.log")
    got=$(sed -n 's/^valid_tests\t//p' "$T/$1.pc.log" | tr -d ,)
    [ -n "$valid" ] && [ "$valid" = "$got" ] ||
        fail "$1: $got valid tests in the log, PLINK performed $valid"
    echo "$1: .epi.cc.summary$also byte-identical to PLINK's; $got valid tests"
}

"$EPISTREAM" sim --samples 2000 --variants 300 --missing 0.01 --seed 1 --out "$T/d" \
    >"$T/sim.out" 2>&1 || { cat "$T/sim.out" >&2; fail "epistream sim"; }
check d bytes

"$EPISTREAM" sim --samples 120 --variants 80 --missing 0.1 --maf-min 0.01 --maf-max 0.1 \
    --seed 9 --out "$T/r" >"$T/sim.out" 2>&1 ||
    { cat "$T/sim.out" >&2; fail "epistream sim (rare)"; }
check r
exit 0
