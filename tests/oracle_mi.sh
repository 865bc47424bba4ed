#!/bin/sh
# oracle_mi.sh -- `epistream select` (every method) against an independent numpy
# reference of FEAST's rules (tests/oracle/mi_ref.py, written from the formulas
# of doc/SELECTION.md): the same selected sequence, SCORE and RELEVANCE to 1e-9
# relative (1e-12 absolute near zero).  Data: random integer-coded CSVs from a
# latent-factor model (tie-free in practice; the reference warns otherwise),
# and, when scikit-learn is installed, its bundled breast-cancer (30 numeric
# features, discretised into 10 equal-width bins) and digits (64 pixel
# features, values 0..16, 10 classes) sets.  When pymrmr (Peng's mRMR) is
# installed, the mRMR sequences are also compared with pymrmr.mRMR(df, 'MID', k).
. "$(dirname "$0")/lib.sh"
need_python numpy
REF=$ES_SRCDIR/tests/oracle/mi_ref.py
METHODS="mim mrmr jmi disr cmim icap condmi"

# sel CSV METHOD K: epistream select into $T/o.select.tsv
sel() {
    "$EPISTREAM" select --table "$1" --method "$2" --k "$3" --out "$T/o" >"$T/sel.out" 2>&1 ||
        { cat "$T/sel.out" >&2; fail "epistream select --method $2 --k $3 on $(basename "$1")"; }
}

# check CSV K: every method against the reference
check() {
    for m in $METHODS; do
        sel "$1" "$m" "$2"
        "$PY" "$REF" check --csv "$1" --method "$m" --k "$2" --tsv "$T/o.select.tsv" ||
            fail "$m on $(basename "$1") differs from the numpy reference"
    done
}

# vs_pymrmr CSV K: the mRMR sequence against pymrmr's MID
vs_pymrmr() {
    sel "$1" mrmr "$2"
    "$PY" "$REF" pymrmr --csv "$1" --k "$2" --tsv "$T/o.select.tsv" ||
        fail "mRMR on $(basename "$1") differs from pymrmr"
}

gen() { # NAME SAMPLES FEATURES STATES CLASSES SEED
    "$PY" "$REF" gen --samples "$2" --features "$3" --states "$4" --classes "$5" --seed "$6" \
        --out "$T/$1.csv" || fail "mi_ref.py gen $1"
}

gen r1 400 30 6 2 1
gen r2 300 25 12 4 3
gen r3 1500 40 9 3 7
gen r4 200 12 40 2 11 # many states: more cells than samples
check "$T/r1.csv" 12
check "$T/r2.csv" 10
check "$T/r3.csv" 15
check "$T/r4.csv" 8

if "$PY" -c "import pymrmr, pandas" 2>/dev/null; then
    vs_pymrmr "$T/r1.csv" 12
    vs_pymrmr "$T/r3.csv" 15
else
    echo "note: pymrmr not installed, mRMR not compared with it" >&2
fi

if "$PY" -c "import sklearn.datasets" 2>/dev/null; then
    "$PY" "$REF" sklearn --dataset breast_cancer --bins 10 --out "$T/bc.csv" ||
        fail "mi_ref.py sklearn breast_cancer"
    "$PY" "$REF" sklearn --dataset digits --out "$T/digits.csv" || fail "mi_ref.py sklearn digits"
    check "$T/bc.csv" 10
    check "$T/digits.csv" 12
    if "$PY" -c "import pymrmr, pandas" 2>/dev/null; then
        vs_pymrmr "$T/bc.csv" 10
        vs_pymrmr "$T/digits.csv" 12
    fi
else
    echo "note: scikit-learn not installed, its data sets not used" >&2
fi
exit 0
