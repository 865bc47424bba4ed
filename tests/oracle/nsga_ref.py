#!/usr/bin/env python3
"""nsga_ref.py -- the NSGA-II fitness oracle: scikit-learn and numpy on the
same table and masks as tests/nsga_eval.

  nsga_ref.py gen DIR SEED            write DIR/t.csv (Gaussian features, 3 classes),
                                      DIR/km.csv (no class) and DIR/masks.txt
  nsga_ref.py check DIR OUT_KNN OUT_NC OUT_KM K ITER INIT...
                                      compare nsga_eval's outputs with the references

Folds: StratifiedKFold(5, shuffle=True, random_state=0); features z-scored
with StandardScaler on all samples; F2 = mean(cross_val_predict(...) != y);
the empty mask F2 = 1.  K-means: Lloyd from the given samples as centroids,
ties to the lower cluster, an empty cluster keeps its centroid; F1 = mean
distance to the own centroid, F2 = -mean distance between centroids."""
import sys

import numpy as np
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.neighbors import KNeighborsClassifier, NearestCentroid
from sklearn.preprocessing import StandardScaler


def gen(d, seed):
    rng = np.random.default_rng(seed)
    n, p = 150, 12
    y = rng.integers(0, 3, n)
    x = rng.normal(size=(n, p)) * rng.uniform(0.5, 3, p) + rng.normal(size=p) * 10
    x[:, :4] += y[:, None] * rng.uniform(0.3, 1.5, 4)
    with open(f"{d}/t.csv", "w") as f:
        f.write(",".join([f"x{i}" for i in range(p)] + ["label"]) + "\n")
        for r, c in zip(x, y):
            f.write(",".join(repr(float(v)) for v in r) + f",{c}\n")
    with open(f"{d}/km.csv", "w") as f:
        f.write(",".join(f"x{i}" for i in range(p)) + "\n")
        for r in x:
            f.write(",".join(repr(float(v)) for v in r) + "\n")
    with open(f"{d}/masks.txt", "w") as f:
        f.write("0" * p + "\n" + "1" * p + "\n")
        for _ in range(14):
            f.write("".join("1" if b else "0" for b in rng.random(p) < rng.uniform(0.05, 0.9)) + "\n")


def load(d):
    import csv
    rows = list(csv.reader(open(f"{d}/t.csv")))[1:]
    x = np.array([[float(v) for v in r[:-1]] for r in rows])
    y = np.array([r[-1] for r in rows])
    masks = [np.array([c == "1" for c in l.strip()]) for l in open(f"{d}/masks.txt")]
    return x, y, masks


def read_out(path):
    folds, vals = None, []
    for l in open(path):
        if l.startswith("FOLDS"):
            folds = np.array([int(v) for v in l.split()[1:]])
        else:
            vals.append([float(v) for v in l.split()])
    return folds, np.array(vals)


def kmeans(x, init, iters):
    c = x[init].astype(np.float64)
    def assign(c):
        d = ((x[:, None, :] - c[None, :, :]) ** 2).sum(2)
        return d.argmin(1), d.min(1)
    a, dm = assign(c)
    for _ in range(iters):
        for k in range(len(c)):
            if (a == k).any():
                c[k] = x[a == k].mean(0)
        b, dm = assign(c)
        if (b == a).all():
            break
        a = b
    k = len(c)
    inter = [np.sqrt(((c[i] - c[j]) ** 2).sum()) for i in range(k) for j in range(i + 1, k)]
    return np.sqrt(dm).mean(), -np.mean(inter) if inter else 0.0


def check(d, out_knn, out_nc, out_km, k, iters, init):
    x, y, masks = load(d)
    xs = StandardScaler().fit_transform(x)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    ref_folds = np.empty(len(y), int)
    for f, (_, te) in enumerate(cv.split(xs, y)):
        ref_folds[te] = f
    bad = 0
    for name, path, clf in (("knn", out_knn, KNeighborsClassifier(n_neighbors=k, algorithm="brute")),
                            ("nc", out_nc, NearestCentroid())):
        folds, got = read_out(path)
        if not (folds == ref_folds).all():
            print(f"{name}: folds differ from StratifiedKFold's", file=sys.stderr)
            bad += 1
        for m, g in zip(masks, got):
            want = (m.sum() / len(m), 1.0 if not m.any() else
                    float(np.mean(cross_val_predict(clf, xs[:, m], y, cv=cv) != y)))
            if abs(g[0] - want[0]) > 1e-12 or abs(g[1] - want[1]) > 1e-12:
                print(f"{name} mask {''.join('1' if b else '0' for b in m)}: got {g}, sklearn {want}",
                      file=sys.stderr)
                bad += 1
    _, got = read_out(out_km)
    for m, g in zip(masks, got):
        want = (0.0, 0.0) if not m.any() else kmeans(xs[:, m], init, iters)
        if abs(g[0] - want[0]) > 1e-4 * max(1, abs(want[0])) or abs(g[1] - want[1]) > 1e-4 * max(1, abs(want[1])):
            print(f"kmeans mask {''.join('1' if b else '0' for b in m)}: got {g}, numpy {want}", file=sys.stderr)
            bad += 1
    print(f"{3 * len(masks)} fitness values checked, {bad} wrong")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(check(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]),
                       int(sys.argv[7]), [int(v) for v in sys.argv[8:]]))
