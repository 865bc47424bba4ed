#!/usr/bin/env python3
"""qt_check.py PLINK.epi.qt EPISTREAM.epi.qt EPISTREAM.top.tsv -- the linear (or, on .epi.cc
files with OR_INT, the logistic) interaction test of a
quantitative trait against PLINK 1.9 --epistasis on every pair PLINK lists (--epi1 1):
the same pairs in the same order, BETA_INT and STAT within 1e-4 relative of PLINK's
printed values (6 significant digits), and P within 1e-4 relative of the exact
chi-square (1 df) tail of PLINK's STAT (epistream's P from its .top.tsv, 10 digits).  PLINK's own P comes from a normal-CDF
approximation (its normdist()) that is off by up to ~1e-3 relative, so P is also
checked against PLINK's printed P at 2e-3.  With a 4th argument 'logistic' (PLINK's single-
precision fit), BETA/OR_INT and STAT also pass within 1e-4 absolute, and P is checked against
the exact tail of PLINK's STAT at 1e-3.  Failed fits: the same pairs, 'nan'."""
import sys
from scipy.stats import chi2


def rows(path):
    with open(path) as f:
        head = f.readline().split()
        if head[:4] != ["CHR1", "SNP1", "CHR2", "SNP2"] or head[4] not in ("BETA_INT", "OR_INT") or head[5:] != ["STAT", "P"]:
            sys.exit(f"{path}: unexpected header {head}")
        return [l.split() for l in f if l.strip()]


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


plink, es = rows(sys.argv[1]), rows(sys.argv[2])
TOL = 1e-4
# PLINK fits a logistic model in single precision and stops at a summed step
# below 1e-4, or at its 15th iteration where the cells separate the classes (the
# estimate then runs off and its STAT is ~1e-5): STAT differs by up to 1e-4 absolute
LOGISTIC = len(sys.argv) > 4 and sys.argv[4] == "logistic"
ABS = 1e-4 if LOGISTIC else 0.0
PTOL = 1e-3 if LOGISTIC else TOL  # the exact tail of a STAT that is itself single precision
tsv = {}
with open(sys.argv[3]) as f:
    head = f.readline().rstrip("\n").split("\t")
    col = {c: i for i, c in enumerate(head)}
    if "BETA_INT" not in col:
        sys.exit(f"{sys.argv[3]}: no BETA_INT column")
    for l in f:
        x = l.rstrip("\n").split("\t")
        tsv[(x[col["SNP1"]], x[col["SNP2"]])] = x[col["P"]]
if len(plink) != len(es):
    sys.exit(f"{len(es)} pairs, PLINK lists {len(plink)}")
worst = [0.0, 0.0, 0.0, 0.0]
failed = 0
for k, (p, e) in enumerate(zip(plink, es)):
    if p[:4] != e[:4]:
        sys.exit(f"line {k + 2}: pair {e[:4]}, PLINK has {p[:4]}")
    if p[4] == "nan" or e[4] == "nan":
        if p[4] != e[4]:
            sys.exit(f"line {k + 2}: {e[4:]} vs PLINK {p[4:]} (one failed, the other did not)")
        failed += 1
        continue
    b, s, pv = float(e[4]), float(e[5]), float(tsv[(e[1], e[3])])
    pb, ps, pp = float(p[4]), float(p[5]), float(p[6])
    exact = chi2.sf(ps, 1)
    # a value printed with 6 digits is within 5e-6 relative of the true one
    for i, (got, want, tol) in enumerate(((b, pb, TOL), (s, ps, TOL), (pv, exact, PTOL), (float(e[6]), pp, 2e-3))):
        r = rel(got, want)
        if abs(want) < 1e-6 and abs(got - want) < 1e-9:
            r = 0.0
        if i < 2 and abs(got - want) <= ABS:
            r = 0.0
        worst[i] = max(worst[i], r)
        if r > tol:
            name = ["BETA_INT", "STAT", "P (exact tail of PLINK's STAT)", "P (PLINK's)"][i]
            sys.exit(f"line {k + 2} {e[:4]}: {name} {got} vs {want} (relative {r:.3g} > {tol})")
print(f"{len(es)} pairs ({failed} failed fits, as PLINK's); worst relative difference: "
      f"BETA_INT {worst[0]:.2g}, STAT {worst[1]:.2g}, P {worst[2]:.2g} (exact) / {worst[3]:.2g} (PLINK's)")
