#!/usr/bin/env python3
"""covar_check.py PREFIX TOP.tsv COVAR N MODEL [PHENO] -- the exact columns (BETA_INT SE_INT P_INT)
of the first N pairs of a `scan --covar` .top.tsv against statsmodels, fitted here on the same
samples: y ~ 1 + a + b + a*b + covariates, OLS (MODEL linear; y from PHENO, 'FID IID value' with a
header) or Logit by Newton's method (MODEL logistic; y the .fam's case/control status); a sample
without y, a covariate or a call at either variant is left out.  Genotypes from PREFIX.geno
(tests/dump_geno's output: one line a variant, NA missing).  1e-6 relative."""
import sys

import numpy as np
import statsmodels.api as sm

pre, top, cov, n, model = sys.argv[1:6]
phe = sys.argv[6] if len(sys.argv) > 6 else None
fam = [l.split() for l in open(pre + ".fam")]
snp = {l.split()[1]: k for k, l in enumerate(open(pre + ".bim"))}


def table(path):
    rows = [l.split() for l in open(path)]
    return {(r[0], r[1]): r[2:] for r in rows[1:]}, rows[0][2:]


def num(x):
    return np.nan if x in ("NA", "nan", "-9") else float(x)


cv, names = table(cov)
G = np.array([[3 if x == "NA" else int(x) for x in l.split()] for l in open(pre + ".geno")])
if model == "linear":
    ph, _ = table(phe)
    y = np.array([num(ph[(f[0], f[1])][0]) if (f[0], f[1]) in ph else np.nan for f in fam])
else:
    y = np.array([{"2": 1.0, "1": 0.0}.get(f[5], np.nan) for f in fam])
C = np.array([[num(v) for v in cv[(f[0], f[1])]] if (f[0], f[1]) in cv else [np.nan] * len(names) for f in fam])
rows = [l.rstrip("\n").split("\t") for l in open(top)]
h = {c: i for i, c in enumerate(rows[0])}
worst = 0.0
for r in rows[1:1 + int(n)]:
    a, b = G[snp[r[h["SNP1"]]]].astype(float), G[snp[r[h["SNP2"]]]].astype(float)
    ok = (a < 3) & (b < 3) & ~np.isnan(y) & ~np.isnan(C).any(axis=1)
    X = np.column_stack([np.ones(ok.sum()), a[ok], b[ok], a[ok] * b[ok], C[ok]])
    if model == "linear":
        fit = sm.OLS(y[ok], X).fit()
    else:
        fit = sm.Logit(y[ok], X).fit(disp=0, method="newton", tol=1e-12, maxiter=100)
    want = (fit.params[3], fit.bse[3], fit.pvalues[3])
    got = tuple(float(r[h[c]]) for c in ("BETA_INT", "SE_INT", "P_INT"))
    for g, w in zip(got, want):
        rel = abs(g - w) / max(abs(w), 1e-300)
        worst = max(worst, rel)
        if rel > 1e-6:
            sys.exit(f"{r[h['SNP1']]} x {r[h['SNP2']]}: {got} vs statsmodels {want} ({model})")
print(f"{model}: {n} pairs' BETA_INT SE_INT P_INT as statsmodels fits them (worst relative {worst:.2g})")
