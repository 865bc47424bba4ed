#!/bin/sh
# covar.sh -- scan --covar: the screen and the exact model with covariates.
# A quantitative trait with 3 covariates (epistream sim --qt --covariates 3: PC1 shifts the trait
# and the allele frequencies of some variants) and a case/control set with covariates:
#  * the exact columns (BETA_INT SE_INT P_INT) of the written pairs against statsmodels (OLS; Logit)
#    fitted on the same samples (tests/oracle/covar_check.py): y ~ a + b + a*b + covariates,
#    1e-6 relative;
#  * recall: the exact model run on every pair (--exact-top = all pairs) gives the true top 20;
#    the default screen (--exact-top = --top) must keep all of them (the log of the test prints
#    the recall at --exact-top 20 and 40);
#  * the same bytes for 1 and 2 threads; samples without a covariate left out and counted;
#  * bad input: an unknown --covar-name, a covariate file with a non-number, --covar with
#    --format plink, --exact-top below --top.
. "$(dirname "$0")/lib.sh"
need_python numpy statsmodels
DUMP=$(dirname "$EPISTREAM")/tests/dump_geno
CHECK=$ES_SRCDIR/tests/oracle/covar_check.py

"$EPISTREAM" sim --qt --covariates 3 --samples 600 --variants 80 --missing 0.01 --seed 7 --out "$T/q" \
    >"$T/sim.out" 2>&1 || { cat "$T/sim.out" >&2; fail "epistream sim --qt --covariates 3"; }
# one sample without a covariate value
awk 'NR == 5 { $4 = "NA" } { print }' "$T/q.covar" >"$T/q2.covar" && mv "$T/q2.covar" "$T/q.covar"
ALL=3160
"$EPISTREAM" scan --bfile "$T/q" --pheno "$T/q.pheno" --covar "$T/q.covar" --top $ALL --exact-top $ALL \
    --threads 2 --quiet --out "$T/all" || fail "scan --covar on every pair"
grep -q "^samples_without_covariates	1$" "$T/all.log" || fail "the sample without a covariate was not counted"
head -1 "$T/all.top.tsv" | grep -q "	DF	BETA_INT	SE_INT	P_INT$" || fail "no exact columns: $(head -1 "$T/all.top.tsv")"
"$DUMP" "$T/q" >"$T/q.geno" || fail "dump_geno"

"$PY" "$CHECK" "$T/q" "$T/all.top.tsv" "$T/q.covar" 25 linear "$T/q.pheno" || fail "the exact model differs from statsmodels OLS"

# recall of the screen: the exact model's top 20 among the default survivors
for k in 20 40; do
    "$EPISTREAM" scan --bfile "$T/q" --pheno "$T/q.pheno" --covar "$T/q.covar" --top 20 --exact-top $k \
        --threads 2 --quiet --out "$T/k$k" || fail "scan --covar --exact-top $k"
    r=$(awk -F'\t' 'NR == FNR { if (FNR > 1 && FNR <= 21) want[$2 " " $5] = 1; next }
                    FNR > 1 && ($2 " " $5) in want { n++ } END { print n + 0 }' "$T/all.top.tsv" "$T/k$k.top.tsv")
    echo "recall of the exact model's top 20 at --exact-top $k: $r/20"
    [ $k = 20 ] && rec20=$r
done
[ "$rec20" = 20 ] || fail "the default screen (--exact-top = --top) lost $((20 - rec20)) of the exact top 20"
"$EPISTREAM" scan --bfile "$T/q" --pheno "$T/q.pheno" --covar "$T/q.covar" --top 20 --threads 1 --quiet \
    --out "$T/t1" || fail "scan --covar --threads 1"
cmp -s "$T/t1.top.tsv" "$T/k20.top.tsv" || fail "--covar: 1 and 2 threads differ"

# case/control with covariates: the screen (boost), then logistic regression with the covariates
"$EPISTREAM" sim --covariates 2 --samples 800 --variants 40 --seed 8 --out "$T/c" >"$T/sim.out" 2>&1 ||
    { cat "$T/sim.out" >&2; fail "epistream sim --covariates 2"; }
"$EPISTREAM" scan --bfile "$T/c" --covar "$T/c.covar" --top 15 --exact-top 60 --threads 2 --quiet --out "$T/cc" ||
    fail "scan --covar (case/control)"
grep -q "^exact_model	logistic with the covariates$" "$T/cc.log" || fail "case/control: not a logistic exact model"
"$DUMP" "$T/c" >"$T/c.geno" || fail "dump_geno (case/control)"
"$PY" "$CHECK" "$T/c" "$T/cc.top.tsv" "$T/c.covar" 15 logistic || fail "the logistic exact model differs from statsmodels Logit"

# bad input
expect_fail "$T/e1" "$EPISTREAM" scan --bfile "$T/q" --pheno "$T/q.pheno" --covar "$T/q.covar" --covar-name BMI \
    --out "$T/x"
grep -q "BMI" "$T/e1" || { cat "$T/e1"; fail "an unknown --covar-name not named"; }
awk 'NR == 3 { $3 = "x" } { print }' "$T/q.covar" >"$T/bad.covar"
expect_fail "$T/e2" "$EPISTREAM" scan --bfile "$T/q" --pheno "$T/q.pheno" --covar "$T/bad.covar" --out "$T/x"
grep -q "bad.covar" "$T/e2" || { cat "$T/e2"; fail "a malformed covariate file not named"; }
expect_fail "$T/e3" "$EPISTREAM" scan --bfile "$T/q" --pheno "$T/q.pheno" --covar "$T/q.covar" --format plink \
    --out "$T/x"
grep -q "no covariates" "$T/e3" || { cat "$T/e3"; fail "--covar with --format plink accepted"; }
expect_fail "$T/e4" "$EPISTREAM" scan --bfile "$T/q" --pheno "$T/q.pheno" --covar "$T/q.covar" --top 50 \
    --exact-top 10 --out "$T/x"
grep -q "below --top" "$T/e4" || { cat "$T/e4"; fail "--exact-top below --top accepted"; }
expect_fail "$T/e5" "$EPISTREAM" scan --bfile "$T/q" --pheno "$T/q.pheno" --refine mrmr:5 --out "$T/x"
grep -q "quantitative trait" "$T/e5" || { cat "$T/e5"; fail "--refine on a quantitative trait accepted"; }
[ ! -e "$T/x.top.tsv" ] || fail "a refused run wrote outputs"
exit 0
