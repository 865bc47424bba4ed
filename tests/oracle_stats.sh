#!/bin/sh
# oracle_stats.sh -- chi2, mi, ig and k2 of every pair against an independent numpy/scipy
# brute force (tests/oracle/stats_ref.py, written from the formulas in doc/ARCHITECTURE.md): simulated
# data with missing calls, rare variants (empty genotype columns, tables without a test)
# and, when plink1.9 is installed, plink1.9 --dummy data from outside the project.
. "$(dirname "$0")/lib.sh"
need_python numpy scipy
REF=$ES_SRCDIR/tests/oracle/stats_ref.py

# check NAME: scan $T/NAME with every statistic, all pairs kept, and compare
check() {
    for s in chi2 mi ig k2; do
        "$EPISTREAM" scan --bfile "$T/$1" --stat "$s" --top 100000 --threads 2 --quiet \
            --out "$T/$1.$s" >"$T/$1.$s.out" 2>&1 ||
            { cat "$T/$1.$s.out" >&2; fail "epistream scan --stat $s on $1"; }
        "$PY" "$REF" --bfile "$T/$1" --stat "$s" --top "$T/$1.$s.top.tsv" ||
            fail "$s on $1 differs from the numpy reference"
    done
}

"$EPISTREAM" sim --samples 500 --variants 60 --missing 0.01 --seed 3 --out "$T/d" \
    >"$T/sim.out" 2>&1 || { cat "$T/sim.out" >&2; fail "epistream sim (common variants)"; }
check d

"$EPISTREAM" sim --samples 200 --variants 40 --missing 0.05 --maf-min 0.01 --maf-max 0.08 \
    --seed 5 --out "$T/r" >"$T/sim.out" 2>&1 ||
    { cat "$T/sim.out" >&2; fail "epistream sim (rare variants)"; }
check r

if command -v plink1.9 >/dev/null 2>&1; then
    plink1.9 --dummy 300 30 0.02 --seed 11 --make-bed --threads 1 --memory 256 \
        --out "$T/p" >"$T/p.plink.log" 2>&1 ||
        { cat "$T/p.plink.log" >&2; fail "plink1.9 --dummy"; }
    check p
fi
exit 0
