#!/bin/sh
# sim_qt.sh -- `epistream sim --qt` and `--covariates`: the same options give the same bytes (any
# thread count); the .fam's trait is the .pheno's; the planted pair's a*b coefficient, estimated
# by src/regress (tests/regress_cli) on the simulated data, is the planted EFFECT (within 4 SE)
# while neither planted variant has a marginal effect; PC1 is correlated with the genotypes of
# the variants in PREFIX.confounded (and with no other variant), which are associated with the
# trait unless PC1 is adjusted for; with case/control, cases differ from controls in PC1 and
# the planted pair's logistic interaction with covariates is positive and significant.
. "$(dirname "$0")/lib.sh"
CLI=${REGRESS_CLI:-$(dirname "$EPISTREAM")/tests/regress_cli}
[ -x "$CLI" ] || fail "no $CLI (make check builds it)"

Q="--samples 5000 --variants 200 --qt --covariates 4 --effect 0.5 --seed 7"
"$EPISTREAM" sim $Q --out "$T/q" 2>"$T/err" || { cat "$T/err" >&2; fail "sim --qt"; }
for ext in bed bim fam truth pheno covar confounded; do
    [ -s "$T/q.$ext" ] || fail "sim --qt --covariates wrote no .$ext"
done
"$EPISTREAM" sim $Q --out "$T/again" 2>/dev/null || fail "sim --qt again"
for ext in bed bim fam truth pheno covar confounded; do
    cmp -s "$T/q.$ext" "$T/again.$ext" || fail "the same options gave a different .$ext"
done
for nt in 1 3; do
    OMP_NUM_THREADS=$nt "$EPISTREAM" sim $Q --missing 0.02 --out "$T/t$nt" 2>/dev/null || fail "sim $nt threads"
done
for ext in bed fam covar; do
    cmp -s "$T/t1.$ext" "$T/t3.$ext" || fail "the .$ext depends on the thread count"
done
# the .fam's column 6 is the .pheno's QT, sample by sample
awk 'NR == FNR { if (FNR > 1) q[$1 " " $2] = $3; next } q[$1 " " $2] != $6 { bad = 1 }
     END { exit bad }' "$T/q.pheno" "$T/q.fam" || fail ".fam column 6 differs from .pheno"
# a case/control run with covariates, and one without, whose files are the plain simulator's
"$EPISTREAM" sim --samples 4000 --variants 200 --covariates 3 --effect 3 --seed 7 --out "$T/cc" \
    2>/dev/null || fail "sim --covariates (case/control)"
[ ! -e "$T/cc.pheno" ] || fail "a case/control run wrote a .pheno"
"$EPISTREAM" sim --samples 300 --variants 50 --seed 7 --out "$T/plain" 2>/dev/null || fail "plain sim"
for ext in pheno covar confounded; do
    [ ! -e "$T/plain.$ext" ] || fail "sim without --qt/--covariates wrote a .$ext"
done
# an earlier run's .covar under the same prefix is removed, not left to contradict the data
cp "$T/cc.covar" "$T/plain.covar"
"$EPISTREAM" sim --samples 300 --variants 50 --seed 7 --out "$T/plain" 2>"$T/err" || fail "plain sim again"
[ ! -e "$T/plain.covar" ] && grep -q "removed .*plain.covar" "$T/err" || fail "a stale .covar was kept"
expect_fail "$T/err" "$EPISTREAM" sim --samples 10 --variants 5 --covariates 1001 --out "$T/x"
grep -q "covariates" "$T/err" || fail "--covariates 1001: no message naming the option"
expect_fail "$T/err" "$EPISTREAM" sim --samples 10 --variants 5 --qt --effect inf --out "$T/x"

need_python numpy
"$PY" - "$CLI" "$T" <<'EOF' || fail "the simulated data do not show the model (above)"
import subprocess, sys
import numpy as np

cli, tmp = sys.argv[1], sys.argv[2]
bad = []

def load(prefix):
    fam = [l.split() for l in open(prefix + ".fam")]
    bim = [l.split() for l in open(prefix + ".bim")]
    n, m = len(fam), len(bim)
    raw = np.fromfile(prefix + ".bed", dtype=np.uint8)
    assert raw[:3].tolist() == [0x6c, 0x1b, 0x01]
    bpv = (n + 3) // 4
    codes = np.unpackbits(raw[3:].reshape(m, bpv)[:, :, None], axis=2, bitorder="little")
    codes = codes.reshape(m, bpv, 4, 2)
    code = (codes[..., 0] | (codes[..., 1] << 1)).reshape(m, bpv * 4)[:, :n]
    # PLINK 1 codes: 00 two copies of A1, 01 missing, 10 one, 11 none
    g = np.choose(code, [2.0, np.nan, 1.0, 0.0])
    ids = {b[1]: j for j, b in enumerate(bim)}
    return fam, g, ids

def table(path, skip=1):
    rows = [l.split() for l in open(path)][skip:]
    return np.array([[float(x) for x in r[2:]] for r in rows])

def ols_t(y, X, j):
    beta, *_ = np.linalg.lstsq(X, y, rcond=None)
    r = y - X @ beta
    s2 = r @ r / (len(y) - X.shape[1])
    return beta[j] / np.sqrt(s2 * np.linalg.inv(X.T @ X)[j, j])

def fit(kind, y, a, b, C):
    path = tmp + "/fit.tsv"
    np.savetxt(path, np.column_stack([y, a, b] + ([C] if C is not None else [])), delimiter="\t")
    out = subprocess.run([cli, kind, path], capture_output=True, text=True).stdout.split()
    if len(out) != 7 or out[6] != "ok":
        bad.append("%s fit failed: %s" % (kind, out))
        return np.nan, np.nan, np.nan
    return float(out[0]), float(out[1]), float(out[3])

# ---- QT ----
fam, g, ids = load(tmp + "/q")
y = np.array([float(f[5]) for f in fam])
C = table(tmp + "/q.covar")
truth = [l.split() for l in open(tmp + "/q.truth")][1]
a, b = g[ids[truth[0]]], g[ids[truth[1]]]
effect = float(truth[6])
for label, cov in (("with covariates", C[:, :3]), ("without covariates", None)):
    beta, se, p = fit("linear", y, a, b, cov)
    print("planted pair %s %s, %s: BETA %.4f SE %.4f P %.3g (planted %g)"
          % (truth[0], truth[1], label, beta, se, p, effect), file=sys.stderr)
    if not (abs(beta - effect) < 4 * se and p < 1e-6):
        bad.append("planted QT pair %s: BETA %.4f +- %.4f, P %.3g; planted %g"
                   % (label, beta, se, p, effect))
ones = np.ones(len(y))
for v in (a, b):
    t = ols_t(y, np.column_stack([ones, v, C]), 1)
    if abs(t) > 4:
        bad.append("a planted variant has a marginal effect (t %.2f)" % t)

conf = set(l.strip() for l in open(tmp + "/q.confounded"))
planted = {truth[0], truth[1]}
if not conf or conf & planted:
    bad.append(".confounded is empty or lists a planted variant: %s" % sorted(conf))
pc1 = C[:, 0]
r_conf, r_other, t_raw, t_adj = [], [], [], []
for name, j in ids.items():
    x = g[j]
    r = np.corrcoef(x, pc1)[0, 1]
    if name in conf:
        r_conf.append(r)
        t_raw.append(ols_t(y, np.column_stack([ones, x]), 1))
        t_adj.append(ols_t(y, np.column_stack([ones, x, C]), 1))
    elif name not in planted:
        r_other.append(abs(r))
print("corr(PC1, genotype): confounded %s; others max |r| %.3f; marginal t without PC1 %s, "
      "with %s" % (np.round(r_conf, 3), max(r_other), np.round(t_raw, 1), np.round(t_adj, 1)),
      file=sys.stderr)
if min(r_conf) < 0.04 or np.mean(r_conf) < 0.1:
    bad.append("confounded variants barely follow PC1: %s" % r_conf)
if max(r_other) > 0.07:
    bad.append("a variant not listed as confounded follows PC1 (|r| %.3f)" % max(r_other))
if np.median(np.abs(t_raw)) < 3 or max(np.abs(t_adj)) > 4:
    bad.append("confounding not as designed: t without PC1 %s, with %s" % (t_raw, t_adj))

# ---- case/control with covariates ----
fam, g, ids = load(tmp + "/cc")
case = np.array([f[5] == "2" for f in fam])
C = table(tmp + "/cc.covar")
if not (case.sum() == 2000 and (C[:, 2] == [float(f[4]) for f in fam]).all()):
    bad.append("case/control: %d cases, or .fam sex differs from SEX" % case.sum())
t_pc1 = ols_t(C[:, 0], np.column_stack([np.ones(len(case)), case]), 1)
if t_pc1 < 5:
    bad.append("cases do not differ from controls in PC1 (t %.2f)" % t_pc1)
truth = [l.split() for l in open(tmp + "/cc.truth")][1]
beta, se, p = fit("logistic", case.astype(float), g[ids[truth[0]]], g[ids[truth[1]]], C)
print("case/control: PC1 t %.1f; planted pair logistic BETA %.3f SE %.3f P %.3g (ln OR %.3f)"
      % (t_pc1, beta, se, p, np.log(float(truth[6]))), file=sys.stderr)
if not (beta > 0 and p < 1e-4):
    bad.append("case/control planted pair: BETA %.3f P %.3g" % (beta, p))
for m in bad:
    print(m, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
exit 0
