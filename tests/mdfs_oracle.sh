#!/bin/sh
# mdfs_oracle.sh -- `epistream mdfs` against an independent numpy brute force
# (tests/oracle/mdfs_brute.py: every tuple of every discretisation, the
# discretisation from numpy's MT19937): MAX_IG to 1e-9, the tuple that gave it,
# the best tuples, raw chi-square p-values and Holm, for k = 1..5 and several
# divisions, and the same bytes on 1, 2 and 3 threads and with every kernel.
. "$(dirname "$0")/lib.sh"
need_python numpy scipy
B="$ES_SRCDIR/tests/oracle/mdfs_brute.py"
$PY "$B" gen "$T/d.csv" --objects 70 --vars 8 --seed 3 || fail "gen"
# dim divisions discretizations range
for cfg in "1 1 1 0.5" "1 3 2 0.3" "2 1 3 0.5" "2 2 1 0" "2 4 1 0.2" "3 1 2 0.7" "3 2 2 0.5" \
    "4 1 2 0.5" "4 2 1 0.5" "5 1 2 0.5" "5 2 1 0.4" "2 15 1 0.1"; do
    set -- $cfg
    "$EPISTREAM" mdfs --table "$T/d.csv" --dim $1 --divisions $2 --discretizations $3 --range $4 \
        --seed 7 --contrast 0 --tuples 25 --out "$T/o" --quiet --threads 2 ||
        fail "mdfs --dim $1 --divisions $2 --discretizations $3"
    $PY "$B" check "$T/d.csv" "$T/o" --dim $1 --divisions $2 --discretizations $3 --range $4 \
        --seed 7 --tuples 25 || fail "brute force disagrees: dim $1 divisions $2 discretizations $3"
done
# the margins summed per tuple (the path beyond 256 MB of precomputed Hc)
for k in 3 4; do
    EPISTREAM_MDFS_MARGINS=sum "$EPISTREAM" mdfs --table "$T/d.csv" --dim $k --divisions 2 \
        --discretizations 2 --range 0.5 --seed 7 --contrast 0 --out "$T/o" --quiet ||
        fail "mdfs --dim $k, summed margins"
    $PY "$B" check "$T/d.csv" "$T/o" --dim $k --divisions 2 --discretizations 2 --range 0.5 \
        --seed 7 || fail "brute force disagrees: --dim $k, summed margins"
done
# the pseudocount and another seed
"$EPISTREAM" mdfs --table "$T/d.csv" --dim 2 --divisions 2 --discretizations 3 --range 0.5 \
    --seed 123456 --pseudocount 1.5 --contrast 0 --out "$T/o" --quiet || fail "mdfs --pseudocount"
$PY "$B" check "$T/d.csv" "$T/o" --dim 2 --divisions 2 --discretizations 3 --range 0.5 \
    --seed 123456 --pseudocount 1.5 || fail "brute force disagrees: --pseudocount 1.5"

# ---- genotypes (--bfile): 0/1/2 as classes, decoded independently by plink1.9 ----
if command -v plink1.9 >/dev/null 2>&1; then
    "$EPISTREAM" sim --samples 150 --variants 9 --seed 5 --out "$T/g" >/dev/null 2>&1 || fail "sim"
    plink1.9 --bfile "$T/g" --recode A --out "$T/g" >/dev/null 2>&1 || fail "plink1.9 --recode A"
    $PY "$B" raw2csv "$T/g.raw" "$T/g.csv" || fail "raw2csv"
    for k in 1 2 3; do
        "$EPISTREAM" mdfs --bfile "$T/g" --dim $k --contrast 0 --tuples 10 --out "$T/go" --quiet 2>/dev/null ||
            fail "mdfs --bfile --dim $k"
        $PY "$B" check "$T/g.csv" "$T/go" --dim $k --divisions 2 --discrete --tuples 10 ||
            fail "brute force disagrees on genotypes: --dim $k"
    done
else
    echo "plink1.9 not installed: the genotype check is skipped"
fi

# ---- the same bytes for any thread count (contrast variables, a fit, tuples) ----
$PY "$B" gen "$T/w.csv" --objects 300 --vars 40 --seed 9 || fail "gen"
for nt in 1 2 3; do
    "$EPISTREAM" mdfs --table "$T/w.csv" --dim 3 --divisions 2 --discretizations 2 --seed 5 \
        --tuples 100 --threads $nt --out "$T/t$nt" --quiet || fail "mdfs --threads $nt"
done
for nt in 2 3; do
    for s in mdfs.tsv relevant.tsv tuples.tsv; do
        cmp -s "$T/t1.$s" "$T/t$nt.$s" || fail ".$s differs between 1 and $nt threads"
    done
done
# ---- every counting kernel gives the same bytes (scalar twin, POPCNT, AVX2, AVX-512) ----
for kern in scalar popcnt avx2; do
    EPISTREAM_POPCOUNT=$kern "$EPISTREAM" mdfs --table "$T/w.csv" --dim 3 --divisions 2 \
        --discretizations 2 --seed 5 --tuples 100 --threads 2 --out "$T/k$kern" --quiet ||
        fail "mdfs with EPISTREAM_POPCOUNT=$kern"
    for s in mdfs.tsv relevant.tsv tuples.tsv; do
        cmp -s "$T/t1.$s" "$T/k$kern.$s" || fail ".$s differs with the $kern kernel"
    done
done
exit 0
