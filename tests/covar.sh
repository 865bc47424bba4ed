#!/bin/sh
# covar.sh -- scan --covar: the screen and the exact model with covariates.
# A quantitative trait with 3 covariates (epistream sim --qt --covariates 3: PC1 shifts the trait
# and the allele frequencies of some variants) and a case/control set with covariates:
#  * the exact columns (BETA_INT SE_INT P_INT) of the written pairs against statsmodels (OLS; Logit)
#    fitted here on the same samples: y ~ a + b + a*b + covariates, 1e-6 relative;
#  * recall: the exact model run on every pair (--exact-top = all pairs) gives the true top 20;
#    the default screen (--exact-top = --top) must keep all of them (the log of the test prints
#    the recall at --exact-top 20 and 40);
#  * the same bytes for 1 and 2 threads; samples without a covariate left out and counted;
#  * bad input: an unknown --covar-name, a covariate file with a non-number, --covar with
#    --format plink, --exact-top below --top.
. "$(dirname "$0")/lib.sh"
need_python numpy statsmodels
DUMP=$(dirname "$EPISTREAM")/tests/dump_geno

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

# check TOP PHENO COVAR N: the exact columns of the first N lines against statsmodels
check() {
    "$PY" - "$T/q" "$1" "$2" "$3" "$4" <<'PYEOF'
import sys, numpy as np, statsmodels.api as sm
pre, top, phe, cov, n = sys.argv[1:]
fam = [l.split()[:2] for l in open(pre + ".fam")]
snp = {l.split()[1]: k for k, l in enumerate(open(pre + ".bim"))}
def table(path):
    rows = [l.split() for l in open(path)]
    h = rows[0]
    return {(r[0], r[1]): r[2:] for r in rows[1:]}, h[2:]
ph, _ = table(phe)
cv, names = table(cov)
G = np.array([[3 if x == "NA" else int(x) for x in l.split()] for l in open(pre + ".geno")])
def num(x):
    return np.nan if x in ("NA", "nan", "-9") else float(x)
y = np.array([num(ph[tuple(f)][0]) if tuple(f) in ph else np.nan for f in fam])
C = np.array([[num(v) for v in cv[tuple(f)]] if tuple(f) in cv else [np.nan] * len(names) for f in fam])
rows = [l.rstrip("\n").split("\t") for l in open(top)]
h = {c: i for i, c in enumerate(rows[0])}
worst = 0.0
for r in rows[1:1 + int(n)]:
    a, b = G[snp[r[h["SNP1"]]]].astype(float), G[snp[r[h["SNP2"]]]].astype(float)
    ok = (a < 3) & (b < 3) & ~np.isnan(y) & ~np.isnan(C).any(axis=1)
    X = np.column_stack([np.ones(ok.sum()), a[ok], b[ok], a[ok] * b[ok], C[ok]])
    fit = sm.OLS(y[ok], X).fit()
    want = (fit.params[3], fit.bse[3], fit.pvalues[3])
    got = tuple(float(r[h[c]]) for c in ("BETA_INT", "SE_INT", "P_INT"))
    for g, w in zip(got, want):
        rel = abs(g - w) / max(abs(w), 1e-300)
        worst = max(worst, rel)
        if rel > 1e-6:
            sys.exit(f"{r[h['SNP1']]} x {r[h['SNP2']]}: {got} vs statsmodels {want}")
print(f"linear: {n} pairs' BETA_INT SE_INT P_INT as statsmodels fits them (worst relative {worst:.2g})")
PYEOF
}
check "$T/all.top.tsv" "$T/q.pheno" "$T/q.covar" 25 || fail "the exact model differs from statsmodels OLS"

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
check_cc() {
    "$PY" - "$T/c" "$T/cc.top.tsv" "$T/c.covar" 15 <<'PYEOF'
import sys, numpy as np, statsmodels.api as sm
pre, top, cov, n = sys.argv[1:]
fam = [l.split() for l in open(pre + ".fam")]
snp = {l.split()[1]: k for k, l in enumerate(open(pre + ".bim"))}
rows = [l.split() for l in open(cov)]
cv = {(r[0], r[1]): r[2:] for r in rows[1:]}
G = np.array([[3 if x == "NA" else int(x) for x in l.split()] for l in open(pre + ".geno")])
y = np.array([{"2": 1.0, "1": 0.0}.get(f[5], np.nan) for f in fam])
C = np.array([[float(v) for v in cv[(f[0], f[1])]] for f in fam])
top = [l.rstrip("\n").split("\t") for l in open(top)]
h = {c: i for i, c in enumerate(top[0])}
worst = 0.0
for r in top[1:1 + int(n)]:
    a, b = G[snp[r[h["SNP1"]]]].astype(float), G[snp[r[h["SNP2"]]]].astype(float)
    ok = (a < 3) & (b < 3) & ~np.isnan(y)
    X = np.column_stack([np.ones(ok.sum()), a[ok], b[ok], a[ok] * b[ok], C[ok]])
    fit = sm.Logit(y[ok], X).fit(disp=0, method="newton", tol=1e-12, maxiter=100)
    want = (fit.params[3], fit.bse[3], fit.pvalues[3])
    got = tuple(float(r[h[c]]) for c in ("BETA_INT", "SE_INT", "P_INT"))
    for g, w in zip(got, want):
        rel = abs(g - w) / max(abs(w), 1e-300)
        worst = max(worst, rel)
        if rel > 1e-6:
            sys.exit(f"{r[h['SNP1']]} x {r[h['SNP2']]}: {got} vs statsmodels {want}")
print(f"logistic: {n} pairs' BETA_INT SE_INT P_INT as statsmodels fits them (worst relative {worst:.2g})")
PYEOF
}
"$DUMP" "$T/c" >"$T/c.geno" || fail "dump_geno (case/control)"
check_cc || fail "the logistic exact model differs from statsmodels Logit"

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
[ ! -e "$T/x.top.tsv" ] || fail "a refused run wrote outputs"
exit 0
