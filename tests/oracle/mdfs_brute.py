#!/usr/bin/env python3
"""mdfs_brute.py -- an independent numpy brute force of MDFS (doc/MDFS.md).

  gen OUT.csv --objects N --vars V --seed S [--planted3]
      a deterministic continuous data set (class column last, "class");
      --planted3: the class is the parity of three variables' halves
      (x0 > median) ^ (x1 > median) ^ (x2 > median), flipped for 10 % of objects,
      so no variable and no pair of them carries information, the triple does.
  check DATA.csv PREFIX --dim K --divisions M --discretizations D --seed S
        --range R [--pseudocount XI] [--tuples N]
      recompute every tuple of every discretisation by brute force (the
      discretisation from numpy's MT19937, seeded as std::mt19937) and compare
      with epistream's PREFIX.mdfs.tsv (MAX_IG to 1e-9, the tuple that gave
      it) and PREFIX.tuples.tsv; with --dim 1 --discretizations 1 also the raw
      chi-square P and Holm's ADJ_P (scipy).  Exit 1 on a mismatch.
      --discrete: the values are the classes already (genotypes 0/1/2), no
      discretisation (epistream mdfs --bfile).
  raw2csv PLINK.raw OUT.csv
      plink1.9 --recode A's genotypes (A1 counts) and phenotype (2 = class 1)
      as a CSV for check --discrete.
"""
import argparse
import itertools
import math
import sys

import numpy as np


def mt_outputs(seed, n):
    bg = np.random.MT19937()
    bg._legacy_seeding(seed & 0xFFFFFFFF)  # std::mt19937(seed): init_genrand
    return [int(v) for v in bg.random_raw(n)]


def mt_first(seed):
    return mt_outputs(seed, 1)[0]


def discretize(seed, disc, feature, divisions, x, rng):
    """MDFS's discretisation, written from the package's C++ source."""
    s1 = mt_first(seed) ^ disc
    s2 = mt_first(s1) ^ feature
    raw = mt_outputs(s2, 2 * (divisions + 1))
    lo, hi = 1.0 - rng, 1.0 + rng
    u = []
    for i in range(divisions + 1):
        # generate_canonical<double, 53>: two draws, the second the high part
        s = float(raw[2 * i]) + float(raw[2 * i + 1]) * 4294967296.0
        c = s / 18446744073709551616.0
        if c >= 1.0:
            c = math.nextafter(1.0, 0.0)
        u.append(c * (hi - lo) + lo)
    total = 0.0
    for v in u:
        total += v
    n = len(x)
    step = n / total
    srt = np.sort(x)
    done = 0
    thr = []
    for d in range(divisions):
        t = u[d] * step
        done += int(math.floor(t + 0.5)) if t >= 0 else -int(math.floor(-t + 0.5))
        if done >= n:
            done = n - 1
        thr.append(srt[done])
    out = np.zeros(n, dtype=np.int64)
    for t in thr:
        out += x > t
    return out


def hc(c0, c1):
    c = c0 + c1
    return float(-(c0 * np.log2(c0 / c)).sum() - (c1 * np.log2(c1 / c)).sum())


def tuple_igs(cols, y, m, ps):
    """IG of each variable of the tuple (cols: discretised columns)."""
    k = len(cols)
    idx = np.zeros(len(y), dtype=np.int64)
    for c in cols:
        idx = idx * m + c
    shape = (m,) * k
    t = [np.bincount(idx[y == yy], minlength=m ** k).reshape(shape).astype(float) + ps[yy]
         for yy in (0, 1)]
    full = hc(t[0], t[1])
    return [hc(t[0].sum(axis=j), t[1].sum(axis=j)) - full for j in range(k)]


def read_csv(path):
    with open(path) as f:
        names = f.readline().rstrip("\n").split(",")
        rows = [list(map(float, l.split(","))) for l in f if l.strip()]
    a = np.array(rows, dtype=np.float32).astype(np.float64)
    return names[:-1], a[:, :-1], (a[:, -1] == a[:, -1].max()).astype(np.int64)


def read_tsv(path):
    with open(path) as f:
        hdr = f.readline().rstrip("\n").split("\t")
        return hdr, [l.rstrip("\n").split("\t") for l in f]


def close(a, b, tol=1e-9):
    return abs(a - b) <= tol * max(1.0, abs(b))


def cmd_gen(a):
    rng = np.random.RandomState(a.seed)
    x = rng.standard_normal((a.objects, a.vars)).astype(np.float32)
    if a.planted3:
        h = (x[:, :3] > np.median(x[:, :3], axis=0)).astype(int)
        y = h[:, 0] ^ h[:, 1] ^ h[:, 2]
        flip = rng.random_sample(a.objects) < 0.10
        y = np.where(flip, 1 - y, y)
    else:
        w = x[:, 0] + 0.8 * x[:, 1] * x[:, 2]
        y = (w + 0.5 * rng.standard_normal(a.objects) > 0).astype(int)
    with open(a.out, "w") as f:
        f.write(",".join("v%d" % j for j in range(a.vars)) + ",class\n")
        for i in range(a.objects):
            f.write(",".join("%.9g" % v for v in x[i]) + ",%d\n" % y[i])
    return 0


def cmd_raw2csv(a):
    with open(a.raw) as f, open(a.out, "w") as o:
        hdr = f.readline().split()
        o.write(",".join(h.rsplit("_", 1)[0] for h in hdr[6:]) + ",class\n")
        for line in f:
            w = line.split()
            if "NA" in w[6:]:
                raise SystemExit("raw2csv: a missing call")
            o.write(",".join(w[6:]) + ",%d\n" % (w[5] == "2"))
    return 0


def cmd_check(a):
    if a.range is None and not a.discrete:
        raise SystemExit("check: --range is required")
    names, x, y = read_csv(a.data)
    n, nv = x.shape
    m = a.divisions + 1
    n0, n1 = int((y == 0).sum()), int((y == 1).sum())
    cmin = min(n0, n1)
    ps = [n0 / cmin * a.pseudocount, n1 / cmin * a.pseudocount]
    best = [(-math.inf, None, None)] * nv  # (ig, disc, tuple)
    pertv = {}  # (tuple, var) -> (ig, disc)
    for d in range(a.discretizations):
        if a.discrete:
            dx = [x[:, v].astype(np.int64) for v in range(nv)]
        else:
            dx = [discretize(a.seed, d, v, a.divisions, x[:, v], a.range) for v in range(nv)]
        for t in itertools.combinations(range(nv), a.dim):
            igs = tuple_igs([dx[v] for v in t], y, m, ps)
            for j, v in enumerate(t):
                ig = igs[j]
                if ig > best[v][0]:
                    best[v] = (ig, d, t)
                key = (t, v)
                if key not in pertv or ig > pertv[key][0]:
                    pertv[key] = (ig, d)
    hdr, rows = read_tsv(a.prefix + ".mdfs.tsv")
    assert hdr == ["VARIABLE", "MAX_IG", "TUPLE", "P", "ADJ_P"], hdr
    assert len(rows) == nv, (len(rows), nv)
    bad = 0
    allig = {}
    for key, (ig, d) in pertv.items():
        allig[key] = ig
    for v, r in enumerate(rows):
        ig = float(r[1])
        if r[0] != names[v] or not close(ig, best[v][0]):
            print("variable %s: MAX_IG %s, brute force %.12g" % (names[v], r[1], best[v][0]))
            bad += 1
            continue
        tup = tuple(names.index(s) for s in r[2].split(","))
        # the tuple named must give this IG to this variable (ties may differ)
        if (tup, v) not in allig or not close(max(allig[(tup, v)], ig), ig) or \
                not close(allig[(tup, v)], best[v][0]):
            print("variable %s: TUPLE %s gives %s, the maximum is %.12g (tuple %s)" %
                  (names[v], r[2], allig.get((tup, v)), best[v][0], best[v][2]))
            bad += 1
    if a.dim == 1 and a.discretizations == 1:
        from scipy.stats import chi2
        p = chi2.sf(np.array([b[0] for b in best]) * 2 * math.log(2), a.divisions)
        order = np.argsort(p, kind="stable")
        adj = np.empty(nv)
        run = 0.0
        for i, o in enumerate(order):
            run = max(run, p[o] * (nv - i))
            adj[o] = min(run, 1.0)
        for v, r in enumerate(rows):
            if not close(float(r[3]), p[v], 1e-5) or not close(float(r[4]), adj[v], 1e-5):
                print("variable %s: P %s ADJ_P %s, scipy %.6g %.6g" % (names[v], r[3], r[4], p[v], adj[v]))
                bad += 1
    if a.tuples:
        hdr, rows = read_tsv(a.prefix + ".tuples.tsv")
        assert hdr == ["TUPLE", "VARIABLE", "IG", "DISCRETIZATION"], hdr
        ranked = sorted(allig.values(), reverse=True)
        want = min(a.tuples, len(ranked))
        if len(rows) != want:
            print("tuples: %d rows, want %d" % (len(rows), want))
            bad += 1
        for i, r in enumerate(rows[:want]):
            t = tuple(names.index(s) for s in r[0].split(","))
            v = names.index(r[1])
            if not close(float(r[2]), ranked[i]) or not close(allig[(t, v)], float(r[2])):
                print("tuples row %d: %s %s %s, brute force rank %d is %.12g" %
                      (i + 1, r[0], r[1], r[2], i + 1, ranked[i]))
                bad += 1
    print("mdfs_brute: %d variables, %d objects, dim %d, divisions %d, %d discretisations: %s" %
          (nv, n, a.dim, a.divisions, a.discretizations, "%d mismatches" % bad if bad else "all agree"))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("out")
    g.add_argument("--objects", type=int, required=True)
    g.add_argument("--vars", type=int, required=True)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--planted3", action="store_true")
    c = sub.add_parser("check")
    c.add_argument("data")
    c.add_argument("prefix")
    c.add_argument("--dim", type=int, required=True)
    c.add_argument("--divisions", type=int, required=True)
    c.add_argument("--discretizations", type=int, default=1)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--range", type=float, default=None)
    c.add_argument("--pseudocount", type=float, default=0.25)
    c.add_argument("--tuples", type=int, default=0)
    c.add_argument("--discrete", action="store_true")
    r = sub.add_parser("raw2csv")
    r.add_argument("raw")
    r.add_argument("out")
    a = ap.parse_args()
    if a.cmd == "raw2csv":
        return cmd_raw2csv(a)
    if a.cmd == "check" and a.discrete:
        a.range = 0.0
    return cmd_gen(a) if a.cmd == "gen" else cmd_check(a)


if __name__ == "__main__":
    sys.exit(main())
