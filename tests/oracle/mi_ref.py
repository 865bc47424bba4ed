#!/usr/bin/env python3
"""mi_ref.py -- an independent numpy reference for epistream's mutual-information
feature selection (src/mi_select.c), written from the formulas of FEAST
(Brown, Pocock, Zhao & Lujan, JMLR 2012) as doc/SELECTION.md states them.

It shares nothing with the C code: every score is recomputed from scratch each
round from per-cell plug-in formulas (no cached sums, no accumulation):

  I(A;B)   = sum_ab p(a,b) log2 [p(a,b) / (p(a) p(b))]
  I(A;B|C) = sum_abc p(a,b,c) log2 [p(c) p(a,b,c) / (p(a,c) p(b,c))]
  H(A)     = -sum_a p(a) log2 p(a)

  MIM    J(k) = I(Xk;Y)
  mRMR   J(k) = I(Xk;Y) - (1/|S|) sum_j I(Xk;Xj)
  JMI    J(k) = sum_j I(Xk Xj;Y)
  DISR   J(k) = sum_j I(Xk Xj;Y) / H(Xk Xj Y)      (a term with H = 0 is 0)
  CMIM   J(k) = min(I(Xk;Y), min_j I(Xk;Y|Xj))
  ICAP   J(k) = I(Xk;Y) - sum_j max(0, I(Xk;Xj) - I(Xk;Xj|Y))
  CondMI J(k) = I(Xk;Y|S), S = the joint state of all selected; stop when the
                best is <= 1e-10 bits

First pick of every method: argmax I(X;Y).  Ties: scores within 1e-10 x
max(1, |best|) of the best tie and the lowest feature index wins.  Reported
SCORE: the first pick's I(X;Y), then J of the pick; RELEVANCE: I(X;Y).

Sub-commands:
  gen      write a random discrete data set (CSV, header, class column last)
  sklearn  write scikit-learn's breast_cancer or digits set, discretised, as CSV
  check    run the reference on a CSV and compare with PREFIX.select.tsv
  pymrmr   compare the mRMR sequence of PREFIX.select.tsv with pymrmr's MID
Exit status: 0 agree, 1 disagree, 2 usage or input error.
"""
import argparse
import math
import os
import sys

import numpy as np

TIE_REL = 1e-10
METHODS = ("mim", "mrmr", "jmi", "disr", "cmim", "icap", "condmi")


# ---- information measures from counts, per cell ---------------------------------

def codes(*cols):
    """Compact joint code (0..m-1) of one or more integer columns."""
    if len(cols) == 1:
        return np.unique(cols[0], return_inverse=True)[1].ravel()
    key = np.zeros(len(cols[0]), dtype=np.int64)
    for c in cols:
        u, inv = np.unique(c, return_inverse=True)
        key = key * len(u) + inv.ravel()
        key = np.unique(key, return_inverse=True)[1].ravel()  # keep it small
    return key


def entropy(*cols):
    n = len(cols[0])
    p = np.bincount(codes(*cols)) / n
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def mi(a, b):
    """I(A;B) in bits, per cell."""
    n = len(a)
    ca, cb = codes(a), codes(b)
    na, nb = ca.max() + 1, cb.max() + 1
    pab = np.bincount(ca * nb + cb, minlength=na * nb).reshape(na, nb) / n
    pa = pab.sum(axis=1, keepdims=True)
    pb = pab.sum(axis=0, keepdims=True)
    nz = pab > 0
    return float((pab[nz] * np.log2(pab[nz] / (pa @ pb)[nz])).sum())


def cmi(a, b, c):
    """I(A;B|C) in bits, per cell."""
    n = len(a)
    ca, cb, cc = codes(a), codes(b), codes(c)
    na, nb, nc = ca.max() + 1, cb.max() + 1, cc.max() + 1
    pabc = np.bincount((cc * na + ca) * nb + cb, minlength=na * nb * nc).reshape(nc, na, nb) / n
    pac = pabc.sum(axis=2, keepdims=True)
    pbc = pabc.sum(axis=1, keepdims=True)
    pc = pabc.sum(axis=(1, 2), keepdims=True)
    nz = pabc > 0
    ratio = (pc * pabc)[nz] / (pac * pbc)[nz]
    return float((pabc[nz] * np.log2(ratio)).sum())


# ---- the selection, literally ------------------------------------------------------

def pick(scores, cand):
    """Lowest index among cand whose score ties the best (tolerance TIE_REL)."""
    best = max(scores[f] for f in cand)
    floor = best - TIE_REL * max(1.0, abs(best))
    for f in sorted(cand):
        if scores[f] >= floor:
            return f, best
    raise AssertionError("no candidate")


def gap_of(scores, cand, best):
    """Relative distance from the best score to the runner-up (inf if alone)."""
    rest = sorted((scores[f] for f in cand), reverse=True)
    if len(rest) < 2:
        return math.inf
    return (rest[0] - rest[1]) / max(1.0, abs(rest[0]))


def select(X, y, method, k):
    """X: features x samples (int), y: samples.  Returns [(feature, score, relevance)]
    and the smallest relative gap between the pick and the runner-up (for the
    caller to judge whether the data are tie-free)."""
    d = X.shape[0]
    rel = [mi(X[f], y) for f in range(d)]
    cand = set(range(d))
    f0, _ = pick(rel, cand)
    min_gap = gap_of(rel, cand, rel[f0])
    S = [f0]
    out = [(f0, rel[f0], rel[f0])]
    cand.discard(f0)
    k = min(k, d)
    while len(S) < k:
        sc = {}
        for f in cand:
            xk = X[f]
            if method == "mim":
                sc[f] = rel[f]
            elif method == "mrmr":
                sc[f] = rel[f] - sum(mi(xk, X[j]) for j in S) / len(S)
            elif method == "jmi":
                sc[f] = sum(mi(codes(xk, X[j]), y) for j in S)
            elif method == "disr":
                t = 0.0
                for j in S:
                    h = entropy(xk, X[j], y)
                    t += mi(codes(xk, X[j]), y) / h if h > 0 else 0.0
                sc[f] = t
            elif method == "cmim":
                sc[f] = min([rel[f]] + [cmi(xk, y, X[j]) for j in S])
            elif method == "icap":
                sc[f] = rel[f] - sum(max(0.0, mi(xk, X[j]) - cmi(xk, X[j], y)) for j in S)
            elif method == "condmi":
                sc[f] = cmi(xk, y, codes(*[X[j] for j in S]))
            else:
                raise ValueError(method)
        w, best = pick(sc, cand)
        if method == "condmi" and not best > TIE_REL:
            break
        min_gap = min(min_gap, gap_of(sc, cand, best))
        S.append(w)
        out.append((w, sc[w], rel[w]))
        cand.discard(w)
    return out, min_gap


# ---- files -----------------------------------------------------------------------

def read_csv(path):
    """Header line, integer values, class column last.  Returns names, X (d x n), y."""
    with open(path) as fh:
        header = fh.readline().strip().split(",")
        data = np.loadtxt(fh, delimiter=",", dtype=np.int64, ndmin=2)
    return header[:-1], np.ascontiguousarray(data[:, :-1].T), data[:, -1].copy()


def write_csv(path, names, X, y, class_name="class"):
    """X: d x n."""
    with open(path, "w") as fh:
        fh.write(",".join(list(names) + [class_name]) + "\n")
        M = np.column_stack([X.T, y])
        np.savetxt(fh, M, fmt="%d", delimiter=",")


def read_select_tsv(path):
    """RANK FEATURE SCORE RELEVANCE rows (a header line, if any, is skipped)."""
    rows = []
    with open(path) as fh:
        for line in fh:
            f = line.split()
            if len(f) < 4 or not f[0].lstrip("#").isdigit():
                continue
            rows.append((int(f[0]), f[1], float(f[2]), float(f[3])))
    return rows


def close(a, b, rel=1e-9, abs_=1e-12):
    return abs(a - b) <= rel * max(abs(a), abs(b)) + abs_


# ---- sub-commands ------------------------------------------------------------------

def cmd_gen(a):
    """Latent-factor data: y is a noisy function of a few latents; each feature
    quantises a noisy mix of one to three latents into 2..states bins (some pure
    noise), so features are relevant, redundant and complementary to various
    degrees and the scores are tie-free in practice."""
    rng = np.random.default_rng(a.seed)
    n, d = a.samples, a.features
    r = max(3, d // 6)
    Z = rng.standard_normal((r, n))
    w = rng.standard_normal((a.classes, min(r, 4)))
    logits = w @ Z[: min(r, 4)] + 0.8 * rng.standard_normal((a.classes, n))
    if a.classes == 2:
        y = (logits[0] > np.median(logits[0])).astype(np.int64)
    else:
        y = logits.argmax(axis=0).astype(np.int64)
    X = np.empty((d, n), dtype=np.int64)
    for f in range(d):
        m = rng.integers(1, 4)
        idx = rng.choice(r, size=m, replace=False)
        mix = (rng.standard_normal(m)[:, None] * Z[idx]).sum(axis=0)
        noise = rng.uniform(0.2, 3.0) if f % 7 else 50.0
        v = mix + noise * rng.standard_normal(n)
        s = int(rng.integers(2, a.states + 1))
        edges = np.quantile(v, np.linspace(0, 1, s + 1)[1:-1])
        X[f] = np.searchsorted(edges, v) + int(rng.integers(0, 3))  # codes need not start at 0
    write_csv(a.out, ["f%d" % f for f in range(d)], X, y)
    return 0


def cmd_sklearn(a):
    import sklearn.datasets as ds
    if a.dataset == "breast_cancer":
        X, y = ds.load_breast_cancer(return_X_y=True)
    elif a.dataset == "digits":
        X, y = ds.load_digits(return_X_y=True)
    else:
        print("unknown dataset %s" % a.dataset, file=sys.stderr)
        return 2
    n, d = X.shape
    Q = np.empty((d, n), dtype=np.int64)
    for f in range(d):
        v = X[:, f]
        lo, hi = v.min(), v.max()
        if np.all(v == np.round(v)) and hi - lo < a.bins:
            Q[f] = (v - lo).astype(np.int64)  # already small integers (digits: 0..16)
        elif hi > lo:
            Q[f] = np.minimum(((v - lo) / (hi - lo) * a.bins).astype(np.int64), a.bins - 1)
        else:
            Q[f] = 0
    write_csv(a.out, ["x%d" % f for f in range(d)], Q, y.astype(np.int64))
    return 0


def cmd_check(a):
    names, X, y = read_csv(a.csv)
    ref, gap = select(X, y, a.method, a.k)
    got = read_select_tsv(a.tsv)
    tag = "%s %s k=%d" % (os.path.basename(a.csv), a.method, a.k)
    bad = 0
    if len(got) != len(ref):
        print("%s: %d rows, the reference selects %d" % (tag, len(got), len(ref)), file=sys.stderr)
        bad = 1
    for i, ((f, s, r), g) in enumerate(zip(ref, got)):
        rank, name, gs, gr = g
        if rank != i + 1 or name != names[f]:
            print("%s: rank %d is %s (rank column %d), the reference picks %s (score %.17g)"
                  % (tag, i + 1, name, rank, names[f], s), file=sys.stderr)
            bad = 1
            break
        if not close(gs, s) or not close(gr, r):
            print("%s: rank %d %s SCORE %.17g RELEVANCE %.17g, reference %.17g %.17g"
                  % (tag, i + 1, name, gs, gr, s, r), file=sys.stderr)
            bad = 1
    if not bad and a.verbose:
        print("%s: %d picks agree (smallest relative gap to the runner-up %.3g)"
              % (tag, len(ref), gap))
    if gap < 1e-8 and a.verbose:
        # e.g. CondMI's late rounds, when one split of the last mixed group is
        # worth the same to several candidates: the lowest index must win in both
        print("%s: note: a pick tied the runner-up within %.3g (ties resolved by index)"
              % (tag, gap))
    return bad


def cmd_pymrmr(a):
    try:
        import pandas as pd
        import pymrmr
    except ImportError as e:
        print("pymrmr not available: %s" % e, file=sys.stderr)
        return 77
    names, X, y = read_csv(a.csv)
    if len(names) > 5000:
        print("pymrmr only considers 5000 features", file=sys.stderr)
        return 2
    cols = {"class": y}
    for i, nm in enumerate(names):
        cols[nm] = X[i]
    df = pd.DataFrame(cols)  # pymrmr: the first column is the class
    # pymrmr prints its tables on the C stdout: silence it at the descriptor level
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        seq = pymrmr.mRMR(df, "MID", a.k)
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
    got = [g[1] for g in read_select_tsv(a.tsv)]
    ref, gap = select(X, y, "mrmr", a.k)
    if gap < 1e-6:
        print("%s: near-tie (relative gap %.3g); pymrmr compares in single precision for the "
              "first pick" % (a.csv, gap), file=sys.stderr)
    if list(seq) != got[: len(seq)] or len(seq) != len(got):
        print("%s: mRMR sequence differs from pymrmr's MID:\n  epistream %s\n  pymrmr    %s"
              % (os.path.basename(a.csv), " ".join(got), " ".join(seq)), file=sys.stderr)
        return 1
    if a.verbose:
        print("%s: mRMR k=%d agrees with pymrmr MID" % (os.path.basename(a.csv), a.k))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--samples", type=int, default=500)
    g.add_argument("--features", type=int, default=40)
    g.add_argument("--states", type=int, default=6)
    g.add_argument("--classes", type=int, default=2)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--out", required=True)
    s = sub.add_parser("sklearn")
    s.add_argument("--dataset", required=True)
    s.add_argument("--bins", type=int, default=10)
    s.add_argument("--out", required=True)
    c = sub.add_parser("check")
    c.add_argument("--csv", required=True)
    c.add_argument("--method", required=True, choices=METHODS)
    c.add_argument("--k", type=int, required=True)
    c.add_argument("--tsv", required=True)
    c.add_argument("-v", "--verbose", action="store_true")
    p = sub.add_parser("pymrmr")
    p.add_argument("--csv", required=True)
    p.add_argument("--k", type=int, required=True)
    p.add_argument("--tsv", required=True)
    p.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    return {"gen": cmd_gen, "sklearn": cmd_sklearn, "check": cmd_check, "pymrmr": cmd_pymrmr}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
