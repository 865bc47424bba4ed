#!/usr/bin/env python3
"""mdfs_package.py -- compare epistream's PREFIX.mdfs.tsv / .relevant.tsv with
the MDFS package's run() (PyPI mdfs 1.5.2) on the same data, options and seed.

  mdfs_package.py DATA.csv PREFIX --dim K --divisions M --discretizations D
                  --seed S [--range R] [--contrast N] [--adjust holm|bh]

MAX_IG against run()'s statistic (the package sums in float32: 1e-5 relative,
1e-4 absolute), P and ADJ_P to 1e-3 relative (above 1e-12), the relevant
variables exactly.  Exit 77 when the package is not installed.
"""
import argparse
import sys

import numpy as np

try:
    import mdfs
except ImportError:
    print("mdfs_package: the mdfs package is not installed (pip install mdfs==1.5.2): skipped")
    sys.exit(77)


def read_csv(path):
    with open(path) as f:
        names = f.readline().rstrip("\n").split(",")
        rows = [list(map(float, l.split(","))) for l in f if l.strip()]
    a = np.array(rows, dtype=np.float32).astype(np.float64)
    return names[:-1], a[:, :-1], (a[:, -1] == a[:, -1].max()).astype(np.int32)


def read_tsv(path):
    with open(path) as f:
        f.readline()
        return [l.rstrip("\n").split("\t") for l in f]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("prefix")
    ap.add_argument("--dim", type=int, required=True)
    ap.add_argument("--divisions", type=int, required=True)
    ap.add_argument("--discretizations", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--range", type=float, default=None)
    ap.add_argument("--contrast", type=int, default=None)
    ap.add_argument("--adjust", default="holm")
    a = ap.parse_args()
    names, x, y = read_csv(a.data)
    method = {"holm": "holm", "bh": "fdr_bh"}[a.adjust]
    if a.dim == 1 and a.discretizations == 1 and not a.contrast:
        # run()'s raw fit without contrast variables fails in 1.5.2 (contrast_indices
        # is None); the same steps by hand
        import math
        from scipy.stats import chi2
        from statsmodels.stats.multitest import multipletests
        ig = mdfs.compute_max_ig(np.asfortranarray(x), y, dimensions=1, divisions=a.divisions,
                                 discretizations=1, seed=a.seed, range_=a.range)
        p = chi2.sf(ig.max_igs * math.log(2) * 2, a.divisions)
        rej, adj, _, _ = multipletests(p, alpha=0.05, method=method)
        res = {"statistic": ig.max_igs.copy(), "p_value": p, "adjusted_p_value": adj,
               "relevant_variables": rej.nonzero()[0], "statistic_contrast": []}
    else:
        res = mdfs.run(np.asfortranarray(x), y, n_contrast=a.contrast, dimensions=a.dim,
                       divisions=a.divisions, discretizations=a.discretizations, seed=a.seed,
                       range_=a.range, p_adjust_method=method)
    rows = read_tsv(a.prefix + ".mdfs.tsv")
    rel = [r[0] for r in read_tsv(a.prefix + ".relevant.tsv")]
    bad = 0
    worst = 0.0
    for v, r in enumerate(rows):
        ig, p, adj = float(r[1]), float(r[3]), float(r[4])
        s = float(res["statistic"][v])
        d = abs(ig - s)
        worst = max(worst, d / max(1.0, abs(s)))
        if d > 1e-4 and d > 1e-5 * abs(s):
            print("%s: MAX_IG %s, package %.9g" % (r[0], r[1], s))
            bad += 1
        for what, ours, theirs in (("P", p, res["p_value"][v]), ("ADJ_P", adj, res["adjusted_p_value"][v])):
            if max(ours, theirs) > 1e-12 and abs(ours - theirs) > 1e-3 * max(ours, theirs):
                print("%s: %s %.6g, package %.6g" % (r[0], what, ours, theirs))
                bad += 1
    want = [names[i] for i in res["relevant_variables"]]
    if want != rel:
        print("relevant: ours %s, package %s" % (rel, want))
        bad += 1
    print("mdfs_package: %d variables, dim %d, divisions %d, %d discretisations, %d contrast: "
          "MAX_IG within %.2g relative; %d relevant; %s" %
          (len(rows), a.dim, a.divisions, a.discretizations, len(res["statistic_contrast"]),
           worst, len(rel), "%d mismatches" % bad if bad else "all agree"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
