#!/bin/sh
# valgrind.sh -- the readers under valgrind (memcheck): the reader unit tests, and
# the program on a good fileset and on malformed ones.  Skipped in sanitizer
# builds (the two tools cannot be combined) and where valgrind is missing.
. "$(dirname "$0")/lib.sh"
[ "${ES_SANITIZERS:-0}" = 1 ] && skip "sanitizer build"
need_cmd valgrind
B=$(dirname "$EPISTREAM")
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
for t in test_plink test_pheno test_select test_vcf test_rules test_regress test_qt; do
    $VG "$B/tests/$t" >"$T/$t.out" 2>&1
    rc=$?
    [ $rc -eq 99 ] && { cat "$T/$t.out"; fail "valgrind errors in $t"; }
    [ $rc -eq 0 ] || { cat "$T/$t.out"; fail "$t failed under valgrind ($rc)"; }
done
"$EPISTREAM" sim --samples 101 --variants 20 --missing 0.05 --out "$T/d" || fail sim
$VG "$EPISTREAM" info --bfile "$T/d" >/dev/null 2>"$T/vg.out" || { cat "$T/vg.out"; fail "info"; }
$VG "$EPISTREAM" scan --bfile "$T/d" --threads 2 --p-threshold 0.5 --quiet --out "$T/o" 2>"$T/vg.out" \
    || { cat "$T/vg.out"; fail "scan"; }
# a quantitative trait from a phenotype file, with covariates (one sample without them), and a
# covariate file with a non-number
"$EPISTREAM" sim --qt --covariates 2 --samples 101 --variants 20 --missing 0.05 --out "$T/q" >/dev/null || fail "sim --qt"
awk 'NR == 4 { $3 = "NA" } { print }' "$T/q.covar" >"$T/q2.covar"
$VG "$EPISTREAM" scan --bfile "$T/q" --pheno "$T/q.pheno" --covar "$T/q2.covar" --threads 2 --p-threshold 0.5 --quiet \
    --out "$T/qo" 2>"$T/vg.out" || { cat "$T/vg.out"; fail "scan --covar (quantitative)"; }
$VG "$EPISTREAM" scan --bfile "$T/q" --pheno "$T/q.pheno" --stat linear4 --threads 2 --quiet --out "$T/q4" \
    2>"$T/vg.out" || { cat "$T/vg.out"; fail "scan --stat linear4"; }
awk 'NR == 3 { $3 = "x" } { print }' "$T/q.covar" >"$T/q3.covar"
$VG "$EPISTREAM" scan --bfile "$T/q" --pheno "$T/q.pheno" --covar "$T/q3.covar" --quiet --out "$T/qx" >"$T/vg.out" 2>&1
[ $? -eq 1 ] || { cat "$T/vg.out"; fail "a malformed covariate file under valgrind"; }
# malformed: truncated .bed and a broken .bim line must fail cleanly, without memory errors
cp "$T/d.bim" "$T/t.bim"; cp "$T/d.fam" "$T/t.fam"
head -c 200 "$T/d.bed" >"$T/t.bed"
$VG "$EPISTREAM" scan --bfile "$T/t" --quiet --out "$T/t" >"$T/vg.out" 2>&1
[ $? -eq 1 ] || { cat "$T/vg.out"; fail "truncated .bed under valgrind"; }
cp "$T/d.bed" "$T/b.bed"; cp "$T/d.fam" "$T/b.fam"
sed '5s/.*/1 broken/' "$T/d.bim" >"$T/b.bim"
$VG "$EPISTREAM" info --bfile "$T/b" >"$T/vg.out" 2>&1
[ $? -eq 1 ] || { cat "$T/vg.out"; fail "bad .bim under valgrind"; }
# the rule learner: train (2 threads, instance sampling, missing values) and predict, and a
# truncated model
printf 'a\tb\tc\ty1\ty2\n' >"$T/r.tsv"
for i in $(seq 60); do
    printf '%s\t%s\t%s\t%s\t%s\n' "$((i % 7 - 3))" "$([ $((i % 11)) = 0 ] && echo NA || echo $((i * 37 % 13)))" \
        "$((i % 5))" "$((i % 3 == 0))" "$((i % 7 > 2))" >>"$T/r.tsv"
done
$VG "$EPISTREAM" rules train --table "$T/r.tsv" --labels y1,y2 --max-rules 20 --threads 2 \
    --instance-sampling with-replacement --quiet --out "$T/r" 2>"$T/vg.out" || { cat "$T/vg.out"; fail "rules train"; }
$VG "$EPISTREAM" rules predict --model "$T/r.model" --table "$T/r.tsv" --quiet --out "$T/r" 2>"$T/vg.out" ||
    { cat "$T/vg.out"; fail "rules predict"; }
# the rule learner's other readers: multi-label LIBSVM (a good and a bad file), MEKA's -C,
# genotypes with phenotype labels
printf '0,2 1:0.5 3:1\n 2:1\n1 1:-1 2:0.25\n2 3:2\n0 1:1\n1,2 2:3 3:1\n' >"$T/r.svm"
$VG "$EPISTREAM" rules train --libsvm "$T/r.svm" --max-rules 5 --quiet --out "$T/rs" 2>"$T/vg.out" ||
    { cat "$T/vg.out"; fail "rules train --libsvm"; }
printf '0 1:0.5\n1 2:1 1:1\n' >"$T/bad.svm"
$VG "$EPISTREAM" rules train --libsvm "$T/bad.svm" --quiet --out "$T/rb" >"$T/vg.out" 2>&1
[ $? -eq 1 ] || { cat "$T/vg.out"; fail "bad LIBSVM under valgrind"; }
printf "@relation 'm: -C 1'\n@attribute y {0,1}\n@attribute a numeric\n@data\n" >"$T/m.arff"
for i in $(seq 30); do echo "$((i % 2)),$((i % 5))" >>"$T/m.arff"; done
$VG "$EPISTREAM" rules train --arff "$T/m.arff" --max-rules 5 --quiet --out "$T/rm" 2>"$T/vg.out" ||
    { cat "$T/vg.out"; fail "rules train MEKA -C"; }
awk 'NR <= 40 { print $2 }' "$ES_SRCDIR/examples/data/example.bim" >"$T/vars.txt"
awk 'BEGIN { print "FID IID a b" } { print $1, $2, 1 + NR % 2, (NR % 9 ? 1 + NR % 3 % 2 : -9) }' \
    "$ES_SRCDIR/examples/data/example.fam" >"$T/lab.txt"
$VG "$EPISTREAM" rules train --bfile "$ES_SRCDIR/examples/data/example" --pheno "$T/lab.txt" \
    --pheno-name a,b --from "$T/vars.txt" --max-rules 5 --quiet --out "$T/rg" 2>"$T/vg.out" ||
    { cat "$T/vg.out"; fail "rules train --bfile"; }
$VG "$EPISTREAM" rules predict --model "$T/rg.model" --bfile "$ES_SRCDIR/examples/data/example" \
    --pheno "$T/lab.txt" --pheno-name a,b --quiet --out "$T/rg" 2>"$T/vg.out" ||
    { cat "$T/vg.out"; fail "rules predict --bfile"; }
head -c 150 "$T/r.model" >"$T/cut.model"
$VG "$EPISTREAM" rules predict --model "$T/cut.model" --table "$T/r.tsv" --quiet --out "$T/r2" >"$T/vg.out" 2>&1
[ $? -eq 1 ] || { cat "$T/vg.out"; fail "truncated model under valgrind"; }
exit 0
