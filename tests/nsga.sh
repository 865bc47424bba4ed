#!/bin/sh
# nsga.sh -- `epistream nsga` end to end: the fitness values against
# scikit-learn and numpy (tests/oracle/nsga_ref.py), NSGA-II on binary ZDT1
# against pymoo (mean hypervolume of 10 seeds within 2 %), the output files,
# the same bytes for 1 and 2 threads, tables and genotypes (--from), and every
# usage and input error: exit code, a message naming the file, nothing left.
. "$(dirname "$0")/lib.sh"
NSGA_EVAL=${NSGA_EVAL:-$(dirname "$EPISTREAM")/tests/nsga_eval}
NSGA_ZDT1=${NSGA_ZDT1:-$(dirname "$EPISTREAM")/tests/nsga_zdt1}

# ---- help ----
"$EPISTREAM" nsga --help | grep -q '^Usage: epistream nsga' || fail "nsga --help"
"$EPISTREAM" --help | grep -q 'nsga' || fail "epistream --help lists nsga"

# no_outputs PREFIX: a failed run left nothing behind
no_outputs() {
    for f in "$1".front.tsv "$1".hv.tsv "$1".log "$1".front.tsv.tmp "$1".hv.tsv.tmp "$1".log.tmp; do
        [ ! -e "$f" ] || fail "$f left behind by a failed run"
    done
}

# ---- a small table: two informative features of six ----
awk 'BEGIN {
    s = 4242; print "a,b,c,d,e,g,cls"
    for (i = 0; i < 120; i++) {
        s = (s * 1103515245 + 12345) % 2147483648; y = int(s / 65536) % 2
        for (f = 0; f < 6; f++) {
            s = (s * 1103515245 + 12345) % 2147483648; v = (int(s / 65536) % 1000) / 100
            if (f < 2) v += 3 * y
            printf "%.2f,", v
        }
        printf "%s\n", y ? "yes" : "no"
    }
}' >"$T/t.csv"
"$EPISTREAM" nsga --table "$T/t.csv" --population 20 --generations 15 --seed 3 --threads 1 \
    --out "$T/r1" --quiet || fail "nsga --table"
for ext in front.tsv hv.tsv log; do [ -s "$T/r1.$ext" ] || fail "no $T/r1.$ext"; done
head -1 "$T/r1.front.tsv" | grep -q "^N_FEATURES	F1	F2	FEATURES$" || fail "front header"
head -1 "$T/r1.hv.tsv" | grep -q "^GENERATION	HV$" || fail "hv header"
[ "$(wc -l <"$T/r1.hv.tsv")" -eq 17 ] || fail "hv.tsv: 16 generations expected"
# the best single feature is a or b, at 1/6 of the features
awk -F'\t' '$1 == 1 && ($4 == "a" || $4 == "b") { ok = 1 } END { exit !ok }' "$T/r1.front.tsv" ||
    fail "the one-feature member of the front is not a or b"
# N_FEATURES counts FEATURES, F1 = N_FEATURES / 6
awk -F'\t' 'NR > 1 { n = ($4 == "-") ? 0 : split($4, x, ","); if (n != $1 || ($2 - n / 6) ^ 2 > 1e-18) exit 1 }' \
    "$T/r1.front.tsv" || fail "N_FEATURES, F1 and FEATURES disagree"
grep -q "^device	cpu (1 thread" "$T/r1.log" || fail "log: the cpu device"
grep -q "^hv_reference	1,1$" "$T/r1.log" || fail "log: the reference point"
# the same bytes for 2 threads, and for the nearest centroid and kmeans too
"$EPISTREAM" nsga --table "$T/t.csv" --population 20 --generations 15 --seed 3 --threads 2 \
    --out "$T/r2" --quiet || fail "nsga --threads 2"
cmp -s "$T/r1.front.tsv" "$T/r2.front.tsv" && cmp -s "$T/r1.hv.tsv" "$T/r2.hv.tsv" ||
    fail "the front depends on the thread count"
for obj in nc-error,size kmeans; do
    for nt in 1 2; do
        "$EPISTREAM" nsga --table "$T/t.csv" --objectives $obj --population 16 --generations 6 \
            --threads $nt --out "$T/o$nt" --quiet || fail "nsga --objectives $obj"
    done
    cmp -s "$T/o1.front.tsv" "$T/o2.front.tsv" || fail "$obj: the front depends on the thread count"
done
cut -d, -f1-6 "$T/t.csv" >"$T/num.csv"
"$EPISTREAM" nsga --table "$T/num.csv" --objectives kmeans --no-class --population 16 \
    --generations 3 --out "$T/nc" --quiet || fail "kmeans --no-class"
grep -q "^features	6$" "$T/nc.log" || fail "kmeans --no-class: 6 features"
# another seed gives another run
"$EPISTREAM" nsga --table "$T/t.csv" --population 20 --generations 15 --seed 4 --out "$T/r4" \
    --quiet || fail "seed 4"
cmp -s "$T/r1.hv.tsv" "$T/r4.hv.tsv" && fail "--seed has no effect"

# ---- --features and --from name the features ----
printf 'c\nb\nd\n' >"$T/feat.txt"
"$EPISTREAM" nsga --table "$T/t.csv" --features "$T/feat.txt" --population 12 --generations 3 \
    --out "$T/f" --quiet || fail "--features"
grep -q "^features	3$" "$T/f.log" || fail "--features: 3 features"
printf 'RANK\tFEATURE\tSCORE\tRELEVANCE\n1\tb\t0.5\t0.5\n2\te\t0.1\t0.1\n' >"$T/s.select.tsv"
"$EPISTREAM" nsga --table "$T/t.csv" --from "$T/s.select.tsv" --population 12 --generations 3 \
    --out "$T/s" --quiet || fail "--from a .select.tsv"
grep -q "^features	2$" "$T/s.log" || fail "--from: 2 features"

# ---- genotypes: the variants of a .select.tsv ----
printf 'RANK\tFEATURE\tSCORE\tRELEVANCE\n' >"$T/g.select.tsv"
awk 'NR <= 12 { printf "%d\t%s\t0\t0\n", NR, $2 }' "$ES_SRCDIR/examples/data/example.bim" >>"$T/g.select.tsv"
"$EPISTREAM" nsga --bfile "$ES_SRCDIR/examples/data/example" --from "$T/g.select.tsv" \
    --population 12 --generations 3 --out "$T/g" --quiet || fail "nsga --bfile --from"
grep -q "^samples	2000$" "$T/g.log" && grep -q "^features	12$" "$T/g.log" || fail "genotypes: 2000 x 12"
awk -F'\t' 'NR > 1 && $4 ~ /snp/ { ok = 1 } END { exit !ok }' "$T/g.front.tsv" ||
    fail "genotypes: variant IDs in the front"

# ... and the variants of a scan's pairs (SNP1, SNP2 of a .top.tsv)
printf 'SNP1\tSNP2\tSTAT\nsnp1\tsnp5\t3\nsnp7\tsnp1\t2\n' >"$T/p.top.tsv"
"$EPISTREAM" nsga --bfile "$ES_SRCDIR/examples/data/example" --from "$T/p.top.tsv" --population 8 \
    --generations 2 --out "$T/pt" --quiet || fail "nsga --bfile --from .top.tsv"
grep -q "^features	3$" "$T/pt.log" || fail "genotypes from a .top.tsv: 3 variants"
printf 'RANK\tFEATURE\tSCORE\tRELEVANCE\n1\tnosuchsnp\t0\t0\n' >"$T/n.select.tsv"
expect_fail "$T/e" "$EPISTREAM" nsga --bfile "$ES_SRCDIR/examples/data/example" --from "$T/n.select.tsv" --out "$T/x"
grep -q "n.select.tsv: variant 'nosuchsnp' is not in the input" "$T/e" || fail "an unknown variant"
no_outputs "$T/x"

# ---- errors: usage, then input ----
expect_fail "$T/e" "$EPISTREAM" nsga --table "$T/t.csv"
grep -q -- "--out is required" "$T/e" || fail "no --out"
expect_fail "$T/e" "$EPISTREAM" nsga --table "$T/t.csv" --population 7 --out "$T/x"
grep -q "even" "$T/e" || fail "odd population"
no_outputs "$T/x"
expect_fail "$T/e" "$EPISTREAM" nsga --table "$T/t.csv" --objectives svm --out "$T/x"
grep -q -- "--objectives" "$T/e" || fail "bad --objectives"
expect_fail "$T/e" "$EPISTREAM" nsga --table "$T/t.csv" --mutation 0.1 --out "$T/x"
grep -q -- "--mutation" "$T/e" || fail "bad --mutation"
expect_fail "$T/e" "$EPISTREAM" nsga --table "$T/t.csv" --crossover 1.5 --out "$T/x"
grep -q -- "--crossover" "$T/e" || fail "bad --crossover"
expect_fail "$T/e" "$EPISTREAM" nsga --table "$T/t.csv" --devices cpu,tpu --out "$T/x"
grep -q "tpu" "$T/e" || fail "bad --devices"
no_outputs "$T/x"
expect_fail "$T/e" "$EPISTREAM" nsga --table "$T/t.csv" --devices gpu:7 --out "$T/x"
grep -q "no GPU 7" "$T/e" || fail "absent GPU"
no_outputs "$T/x"
expect_fail "$T/e" "$EPISTREAM" nsga --bfile "$ES_SRCDIR/examples/data/example" --out "$T/x"
grep -q -- "--from" "$T/e" || fail "genotypes without --from"
expect_fail "$T/e" "$EPISTREAM" nsga --table "$T/t.csv" --class nope --out "$T/x"
grep -q "t.csv: no column 'nope'" "$T/e" || fail "unknown --class"
no_outputs "$T/x"
printf 'a\nzz\n' >"$T/bad.txt"
expect_fail "$T/e" "$EPISTREAM" nsga --table "$T/t.csv" --features "$T/bad.txt" --out "$T/x"
grep -q "no column 'zz'" "$T/e" || fail "unknown feature"
printf 'RANK\tNAME\n1\ta\n' >"$T/bad.select.tsv"
expect_fail "$T/e" "$EPISTREAM" nsga --table "$T/t.csv" --from "$T/bad.select.tsv" --out "$T/x"
grep -q "bad.select.tsv:1: .*FEATURE" "$T/e" || fail "a .select.tsv without FEATURE"
sed '5s/^[^,]*,/,/' "$T/t.csv" >"$T/miss.csv"
expect_fail "$T/e" "$EPISTREAM" nsga --table "$T/miss.csv" --out "$T/x"
grep -q "miss.csv: feature column 'a' has no value in data row 4" "$T/e" || fail "missing value"
sed '1!s/^[^,]*,/w,/' "$T/t.csv" >"$T/text.csv"
expect_fail "$T/e" "$EPISTREAM" nsga --table "$T/text.csv" --out "$T/x"
grep -q "text.csv: feature column 'a' holds text" "$T/e" || fail "a text feature"
head -3 "$T/t.csv" >"$T/tiny.csv"
expect_fail "$T/e" "$EPISTREAM" nsga --table "$T/tiny.csv" --out "$T/x"
grep -q "tiny.csv: 2 samples cannot be cut into 5 folds" "$T/e" || fail "too few samples"
expect_fail "$T/e" "$EPISTREAM" nsga --table "$T/nonexistent.csv" --out "$T/x"
grep -q "nonexistent.csv" "$T/e" || fail "a missing table"
no_outputs "$T/x"

# ---- the fitness values against scikit-learn and numpy ----
if "${PYTHON:-python3}" -c 'import numpy, sklearn' 2>/dev/null && [ -x "$NSGA_EVAL" ]; then
    "${PYTHON:-python3}" "$ES_SRCDIR/tests/oracle/nsga_ref.py" gen "$T" 11
    "$NSGA_EVAL" "$T/t.csv" knn 5 "$T/masks.txt" >"$T/knn.out" || fail "nsga_eval knn (scalar != simd?)"
    "$NSGA_EVAL" "$T/t.csv" nc 0 "$T/masks.txt" >"$T/nc.out" || fail "nsga_eval nc"
    "$NSGA_EVAL" "$T/km.csv" kmeans 20 "$T/masks.txt" 4 77 130 >"$T/km.out" || fail "nsga_eval kmeans"
    "${PYTHON:-python3}" "$ES_SRCDIR/tests/oracle/nsga_ref.py" check "$T" "$T/knn.out" "$T/nc.out" \
        "$T/km.out" 5 20 4 77 130 || fail "fitness values differ from scikit-learn/numpy"
else
    echo "numpy/scikit-learn or nsga_eval missing: fitness oracle skipped" >&2
fi

# ---- NSGA-II on ZDT1 against pymoo: mean hypervolume of 10 seeds within 2 % ----
if "${PYTHON:-python3}" -c 'import pymoo' 2>/dev/null && [ -x "$NSGA_ZDT1" ]; then
    ours=$("$NSGA_ZDT1" 30 10 60 60 1 2 3 4 5 6 7 8 9 10 | awk '{ s += $2 } END { printf "%.6f", s / NR }')
    theirs=$("${PYTHON:-python3}" "$ES_SRCDIR/tests/oracle/nsga_pymoo.py" zdt1 30 10 60 60 1 2 3 4 5 6 7 8 9 10 |
        awk '{ s += $2 } END { printf "%.6f", s / NR }')
    echo "ZDT1 (30 x 10 bits, 60 x 60): mean hypervolume ours $ours, pymoo $theirs"
    awk -v a="$ours" -v b="$theirs" 'BEGIN { exit !(a >= 0.98 * b) }' ||
        fail "ZDT1 hypervolume $ours more than 2 % below pymoo's $theirs"
else
    echo "pymoo missing: the ZDT1 comparison skipped" >&2
fi
exit 0
