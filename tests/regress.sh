#!/bin/sh
# regress.sh -- src/regress against statsmodels and scipy: random data sets (numpy) with 0 to 4
# covariates, each fitted by tests/regress_cli (linear and logistic) and by statsmodels (OLS;
# Logit by Newton to 1e-12); BETA, SE, STAT and P of the a*b term must agree to 1e-6 relative
# (P where it is above 1e-300).  Also: residualisation against numpy's least squares, the t tail
# against scipy.stats.t.sf / logsf, and fits that must fail (collinear, monomorphic,
# separated) printing NA.  Skips (77) without numpy, scipy and statsmodels.
. "$(dirname "$0")/lib.sh"
need_python numpy scipy statsmodels
CLI=${REGRESS_CLI:-$(dirname "$EPISTREAM")/tests/regress_cli}
[ -x "$CLI" ] || fail "no $CLI (make check builds it)"

"$PY" - "$CLI" "$T" <<'EOF' || fail "regress_cli disagrees with statsmodels/scipy (above)"
import subprocess, sys, warnings
import numpy as np
import statsmodels.api as sm
from scipy import stats

cli, tmp = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(20261128)
bad = []
worst = 0.0
fits = 0

def run(*args, stdin=None):
    r = subprocess.run([cli, *args], input=stdin, capture_output=True, text=True)
    if r.returncode != 0:
        bad.append("regress_cli %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr))
        return ""
    return r.stdout

def rel(got, want):
    if not (np.isfinite(got) and np.isfinite(want)):
        return 0.0 if got == want else np.inf
    return abs(got - want) / max(abs(want), 1e-300)

def write(name, cols, header=None):
    path = "%s/%s.tsv" % (tmp, name)
    with open(path, "w") as f:
        if header:
            f.write("\t".join(header) + "\n")
        for row in zip(*cols):
            f.write("\t".join("NA" if np.isnan(v) else repr(float(v)) for v in row) + "\n")
    return path

for case in range(40):
    kind = "linear" if case % 2 == 0 else "logistic"
    k = case % 5
    n = int(rng.integers(80, 1500))
    pa, pb = rng.uniform(0.05, 0.5, 2)
    a = rng.binomial(2, pa, n).astype(float)
    b = rng.binomial(2, pb, n).astype(float)
    C = rng.normal(size=(n, k))
    if k >= 2:
        C[:, 1] = 40 + 12 * C[:, 1]          # an age-like covariate: large, offset
    if k >= 3:
        C[:, 2] = (C[:, 2] > 0).astype(float)  # a sex-like 0/1 covariate
    if k >= 1:
        C[:, 0] += 0.3 * (a - 2 * pa)         # a covariate correlated with a genotype
    eta = rng.normal(0, 0.3) * a + rng.normal(0, 0.3) * b + rng.normal(0, 0.4) * a * b
    eta += C @ rng.normal(0, 0.05, k) if k else 0
    if kind == "linear":
        y = eta + rng.normal(0, rng.uniform(0.5, 3), n)
    else:
        eta = eta - eta.mean() + rng.normal(0, 1)
        y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
    # a few missing values anywhere: statsmodels gets the complete cases
    for arr in (y, a, b):
        arr[rng.integers(0, n, 2)] = np.nan
    if k:
        C[rng.integers(0, n), rng.integers(0, k)] = np.nan
    path = write("c%d" % case, [y, a, b] + [C[:, j] for j in range(k)],
                 header=["y", "a", "b"] + ["c%d" % j for j in range(k)] if case % 3 else None)
    out = run(kind, path).split()
    ok = ~(np.isnan(y) | np.isnan(a) | np.isnan(b) | (np.isnan(C).any(axis=1) if k else False))
    X = np.column_stack([np.ones(n), a, b, a * b] + [C[:, j] for j in range(k)])[ok]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "linear":
            r = sm.OLS(y[ok], X).fit()
        else:
            r = sm.Logit(y[ok], X).fit(method="newton", tol=1e-12, maxiter=100, disp=0)
    want = [r.params[3], r.bse[3], r.tvalues[3], r.pvalues[3]]
    if kind == "logistic" and not r.mle_retvals["converged"]:
        # small samples can be (quasi-)separated: statsmodels does not converge, and we must
        # say so rather than print its last iterate
        if len(out) != 7 or out[6] not in ("separation", "no convergence"):
            bad.append("%s case %d: statsmodels did not converge, we printed %s"
                       % (kind, case, " ".join(out)))
        fits += 1
        continue
    if len(out) != 7 or out[6] != "ok":
        bad.append("%s case %d (n %d, k %d): %s" % (kind, case, n, k, " ".join(out)))
        continue
    if int(out[5]) != ok.sum():
        bad.append("%s case %d: N %s, want %d" % (kind, case, out[5], ok.sum()))
    fits += 1
    for name, g, w in zip(["BETA", "SE", "STAT", "P"], out[:4], want):
        e = rel(float(g), w)
        worst = max(worst, e)
        if e > 1e-6:
            bad.append("%s case %d (n %d, k %d): %s %s, statsmodels %.17g (rel %.2g)"
                       % (kind, case, n, k, name, g, w, e))
    # -log10 P against scipy's log tail of the statistic
    lp = float(out[4])
    ref = -np.log10(r.pvalues[3]) if r.pvalues[3] > 0 else None
    if ref is not None and abs(lp - ref) > 1e-6 * max(1.0, ref):
        bad.append("%s case %d: LOG10P %s, want %.17g" % (kind, case, out[4], ref))

# strong signal: a p-value far below 1e-300, checked through scipy's logsf
n = 4000
a = rng.binomial(2, 0.4, n).astype(float)
b = rng.binomial(2, 0.4, n).astype(float)
y = 3 * a * b + rng.normal(0, 0.5, n)
out = run("linear", write("strong", [y, a, b])).split()
X = np.column_stack([np.ones(n), a, b, a * b])
r = sm.OLS(y, X).fit()
# scipy's logsf underflows here too: integrate the density scaled by its value at |T|
from scipy import integrate
tt = abs(r.tvalues[3])
lpdf = stats.t.logpdf(tt, n - 4)
area = integrate.quad(lambda s: np.exp(stats.t.logpdf(s, n - 4) - lpdf), tt, np.inf,
                      epsabs=0, epsrel=1e-13)[0]
ref = -(np.log(2) + lpdf + np.log(area)) / np.log(10)
if out[3] != "0" or rel(float(out[4]), ref) > 1e-9:
    bad.append("strong signal: P %s LOG10P %s, want 0 and %.17g" % (out[3], out[4], ref))

# fits that must fail
a = rng.binomial(2, 0.3, 300).astype(float)
b = rng.binomial(2, 0.3, 300).astype(float)
y = rng.normal(size=300)
yb = (rng.random(300) < 0.5).astype(float)
for name, kind, cols, want in [
        ("collinear", "linear", [y, a, a], "singular design"),
        ("swapped", "logistic", [yb, a, 2 - a], "singular design"),
        ("monomorphic", "linear", [y, a, np.ones(300)], "singular design"),
        ("separated", "logistic", [(a * b > 1).astype(float), a, b], "separation"),
        ("binary", "logistic", [y, a, b], "outcome not 0/1 with both classes")]:
    out = run(kind, write(name, cols)).rstrip("\n").split("\t")
    if out[:5] != ["NA"] * 5 or out[6] != want:
        bad.append("%s: %s, want NA and '%s'" % (name, out, want))

# residualisation against numpy's least squares
n, k = 500, 3
C = rng.normal(size=(n, k)) * [1, 10, 0.1] + [0, 50, 0]
y = C @ [0.5, 0.02, 3] + rng.normal(size=n)
got = np.array(run("resid", write("resid", [y] + [C[:, j] for j in range(k)])).split(), float)
X = np.column_stack([np.ones(n), C])
want = y - X @ np.linalg.lstsq(X, y, rcond=None)[0]
e = np.max(np.abs(got - want)) / np.max(np.abs(want))
if e > 1e-10:
    bad.append("residuals differ from numpy lstsq by %.3g" % e)

# the t tail against scipy: sf where it is representable, logsf beyond
ts = [0.0, 1e-6, 0.5, 1.0, 1.96, 2.5, 4.0, 8.0, 20.0, 60.0, 300.0, 1e4, -0.5, -3.0, -20.0]
dfs = [1, 2, 3, 4.5, 7, 10, 30, 97, 500, 2000, 1e4, 1e5, 1e6]
lines = "".join("%r %r\n" % (t, d) for t in ts for d in dfs)
got = [l.split() for l in run("tail", stdin=lines).splitlines()]
tail_worst = 0.0
for (t, d), (gs, gl) in zip([(t, d) for t in ts for d in dfs], got):
    ws, wl = stats.t.sf(t, d), stats.t.logsf(t, d)
    if ws > 1e-300:
        e = rel(float(gs), ws)
        tail_worst = max(tail_worst, e)
        if e > 1e-10:
            bad.append("t sf(%r, %r) = %s, scipy %.17g (rel %.2g)" % (t, d, gs, ws, e))
    if np.isfinite(wl):
        e = abs(float(gl) - wl) / max(1.0, abs(wl))
        tail_worst = max(tail_worst, e)
        if e > 1e-10:
            bad.append("t logsf(%r, %r) = %s, scipy %.17g" % (t, d, gl, wl))

if len(got) != len(ts) * len(dfs):
    bad.append("tail: %d lines for %d queries" % (len(got), len(ts) * len(dfs)))
if fits < 38:
    bad.append("only %d of 40 fits compared" % fits)
for m in bad:
    print(m, file=sys.stderr)
print("regress.sh: %d fits vs statsmodels (failures agreed where it did not converge), worst relative difference %.2g; t tail vs scipy %.2g"
      % (fits, worst, tail_worst), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
exit 0
