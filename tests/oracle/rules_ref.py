#!/usr/bin/env python3
"""rules_ref.py -- a plain numpy reference of the boosted rule learner, written
from doc/RULES.md (not from src/rules/): label-wise logistic or squared-error
loss, complete or single-label heads, L2, shrinkage, the default rule, the
exact search over numerical features (mlrl-boomer 0.15.6's walk), no sampling.

  rules_ref.py learn DATA.tsv N_LABELS N_RULES HEAD LOSS OUT
      DATA.tsv: a header line, then the features, then N_LABELS 0/1 label
      columns (tab-separated; empty = missing).  Writes the first N_RULES rules
      (the default rule first) to OUT, one a line:
        FEATURE OP THRESHOLD ... | LABEL:SCORE ...
  rules_ref.py gen SEED N_EXAMPLES N_FEATURES N_LABELS OUT.tsv
      random data in that layout: features of mixed sign, some rounded to a
      few values (equal values), 3% missing; labels from a noisy linear model
  rules_ref.py compare OURS.model REF.rules
      conditions equal, thresholds the same float32, heads to 1e-9; exits 1 on a
      difference."""
import math
import sys

import numpy as np

F32_EPS = np.float32(np.finfo(np.float32).eps)


def f32_equal(a, b):
    a, b = np.float32(a), np.float32(b)
    d = np.float32(abs(np.float32(a - b)))
    return d <= F32_EPS * max(np.float32(1), max(abs(a), abs(b)))


def threshold(lo, hi):
    lo, hi = np.float32(lo), np.float32(hi)
    return np.float32(float(lo) + float(np.float32(hi - lo)) * 0.5)


class Learner:
    def __init__(self, x, y, head, loss, l2=1.0, shrinkage=0.3):
        self.x = x.astype(np.float32)
        self.y = y.astype(np.uint8)
        self.n, self.nf = x.shape
        self.nl = y.shape[1]
        self.single = head == 'single'
        self.loss = loss
        self.l2 = float(np.float32(l2))
        self.shrink = float(np.float32(shrinkage))
        self.score = np.zeros((self.n, self.nl))
        self.update()
        # per feature: non-missing examples sorted by (value, index)
        self.order = []
        for f in range(self.nf):
            v = self.x[:, f]
            idx = np.array([i for i in range(self.n) if not np.isnan(v[i])], dtype=np.int64)
            self.order.append(idx[np.lexsort((idx, v[idx]))])

    def update(self):
        # mlrl-boomer's formulas: the logistic function and its square from one exp
        s = self.score
        if self.loss == 'logistic':
            e = np.vectorize(math.exp)(-np.abs(s))  # the C library's exp, as the C code
            neg = s < 0
            lg = np.where(neg, e / (1 + e), 1 / (1 + e))
            sq = np.where(neg, (e * e) / ((e + 1) * (e + 1)), 1 / ((e + 1) * (e + 1)))
            self.g = np.where(self.y == 1, lg - 1.0, lg)
            self.h = lg - sq
        else:
            self.g = s - np.where(self.y == 1, 1.0, -1.0)
            self.h = np.ones_like(s)

    def sums(self, examples):
        """sums of g and h over the examples, added one by one in that order"""
        G, H = np.zeros(self.nl), np.zeros(self.nl)
        for i in examples:
            G += self.g[i]
            H += self.h[i]
        return G, H

    def head(self, G, H, labels):
        """scores and quality of a head over `labels` from sums G, H (all labels):
        p = -G / (H + l2) (0 if not finite), q = G p + H p^2 / 2 + l2 p^2 / 2 summed
        over the labels in order"""
        p, q = [], []
        for l in labels:
            with np.errstate(divide='ignore', invalid='ignore'):
                v = -G[l] / (H[l] + self.l2)
            v = float(v) if np.isfinite(v) else 0.0
            pp = v * v
            p.append(v)
            q.append(float(G[l]) * v + 0.5 * float(H[l]) * pp + 0.5 * self.l2 * pp)
        if not self.single:
            tot = 0.0
            for a in q:
                tot += a
            return list(labels), p, tot
        k = 0
        for j in range(1, len(labels)):
            if abs(p[j]) > abs(p[k]):
                k = j
        return [labels[k]], [p[k]], q[k]

    def default_rule(self):
        G, H = self.sums(range(self.n))
        p = -G / (H + self.l2)
        self.score += p
        self.update()
        return [], list(range(self.nl)), list(p)

    def search(self, f, cov, n_cov, labels, best, TG0, TH0):
        """the best candidate of feature f better than best[0] (mlrl-boomer's walk);
        TG0, TH0: the totals over the covered examples"""
        idx = [i for i in self.order[f] if cov[i]]
        m = len(idx)
        if m == 0:
            return
        v = [self.x[i, f] for i in idx]
        if f32_equal(v[0], v[-1]):
            return
        # this feature's totals: the covered totals less the examples missing it
        TG, TH = TG0.copy(), TH0.copy()
        for i in range(self.n):
            if cov[i] and np.isnan(self.x[i, f]):
                TG -= self.g[i]
                TH -= self.h[i]
        k = sum(1 for a in v if a < 0)

        def cand(G, H, uncov, op, inverse, thr, pos, ncov):
            if uncov:
                G, H = TG - G, TH - H
            lab, p, q = self.head(G, H, labels)
            if q < best[0]:
                best[0] = q
                best[1] = (f, op, thr, inverse, pos, ncov, lab, p)

        G, H = np.zeros(self.nl), np.zeros(self.nl)
        ncov, prev = 0, np.float32(0)
        if k > 0:
            G += self.g[idx[0]]
            H += self.h[idx[0]]
            ncov, prev = 1, v[0]
            for j in range(1, k):
                if not f32_equal(prev, v[j]):
                    t = threshold(prev, v[j])
                    cand(G, H, False, '<=', False, t, ('lo', j), ncov)
                    if n_cov - ncov >= 1:
                        cand(G, H, True, '>', True, t, ('lo', j), n_cov - ncov)
                G += self.g[idx[j]]
                H += self.h[idx[j]]
                ncov += 1
                prev = v[j]
        AG, AH, last_less, ncov_less = G.copy(), H.copy(), prev, ncov
        G, H = np.zeros(self.nl), np.zeros(self.nl)
        ncov = 0
        if k < m:
            G += self.g[idx[m - 1]]
            H += self.h[idx[m - 1]]
            ncov, prev = 1, v[m - 1]
            for j in range(m - 2, k, -1):
                if not f32_equal(prev, v[j]):
                    t = threshold(v[j], prev)
                    cand(G, H, False, '>', False, t, ('hi', j + 1), ncov)
                    if n_cov - ncov >= 1:
                        cand(G, H, True, '<=', True, t, ('hi', j + 1), n_cov - ncov)
                G += self.g[idx[j]]
                H += self.h[idx[j]]
                ncov += 1
                prev = v[j]
        if 0 < ncov_less < n_cov:
            t = threshold(last_less, prev)
            cand(AG, AH, False, '<=', False, t, ('lo', k), ncov_less)
            cand(AG, AH, True, '>', True, t, ('lo', k), n_cov - ncov_less)

    def rule(self):
        cov = np.ones(self.n, dtype=bool)
        n_cov = self.n
        labels = list(range(self.nl))
        TG, TH = self.sums(range(self.n))
        best = [0.0, None]
        conds = []
        chosen = None
        while True:
            best[1] = None
            for f in range(self.nf):
                self.search(f, cov, n_cov, labels, best, TG, TH)
            if best[1] is None:
                break
            f, op, thr, inverse, pos, ncov, lab, p = best[1]
            chosen = (lab, p)
            conds.append((f, op, float(thr)))
            idx = [i for i in self.order[f] if cov[i]]
            side, j = pos
            inside = idx[:j] if side == 'lo' else idx[j:]
            if inverse:
                # the examples inside and those missing f leave; the totals lose each one
                out = inside + [i for i in range(self.n) if cov[i] and np.isnan(self.x[i, f])]
                for i in out:
                    cov[i] = False
                    TG -= self.g[i]
                    TH -= self.h[i]
            else:
                # the examples inside stay; the totals are their sums in sorted order
                new = np.zeros(self.n, dtype=bool)
                new[inside] = True
                cov = new
                TG, TH = self.sums(inside)
            n_cov = ncov
            if self.single and len(conds) == 1:
                labels = lab
            if ncov <= 1:
                break
        if not conds:
            return None
        lab, p = chosen
        p = [s * self.shrink for s in p]
        for l, s in zip(lab, p):
            self.score[cov, l] += s
        self.update()
        return conds, lab, p


def learn(args):
    path, nl, nr, head, loss, out = args[0], int(args[1]), int(args[2]), args[3], args[4], args[5]
    rows = [l.rstrip('\n').split('\t') for l in open(path)][1:]
    a = np.array([[float(c) if c != '' else np.nan for c in r] for r in rows])
    x, y = a[:, :-nl], a[:, -nl:]
    L = Learner(x, y, head, loss)
    with open(out, 'w') as fo:
        _, lab, p = L.default_rule()
        fo.write(' | ' + ' '.join(f'{l}:{float(s)!r}' for l, s in zip(lab, p)) + '\n')
        for _ in range(nr - 1):
            r = L.rule()
            if r is None:
                break
            conds, lab, p = r
            fo.write(' '.join(f'{f} {op} {t!r}' for f, op, t in conds) + ' | ' +
                     ' '.join(f'{l}:{float(s)!r}' for l, s in zip(lab, p)) + '\n')
    return 0


def gen(args):
    seed, n, nf, nl, out = int(args[0]), int(args[1]), int(args[2]), int(args[3]), args[4]
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(n, nf)).astype(np.float32)
    x[:, ::3] = np.round(x[:, ::3] * 2) / 2          # a few distinct values: ties
    x[:, 1::4] = np.abs(x[:, 1::4])                  # non-negative only
    w = rng.normal(size=(nf, nl))
    y = (x @ w + rng.normal(scale=1.0, size=(n, nl)) > 0.3).astype(int)
    x[rng.uniform(size=x.shape) < 0.03] = np.nan
    with open(out, 'w') as f:
        f.write('\t'.join([f'f{j}' for j in range(nf)] + [f'y{l}' for l in range(nl)]) + '\n')
        for i in range(n):
            f.write('\t'.join(['' if np.isnan(v) else repr(float(v)) for v in x[i]] +
                              [str(v) for v in y[i]]) + '\n')
    return 0


def compare(args):
    ours = []
    for line in open(args[0]):
        t = line.split()
        if t[0] == 'default':
            ours.append(([], [(l, float(v)) for l, v in enumerate(t[1:])]))
        elif t[0] == 'rule':
            nc, nh = int(t[1]), int(t[2])
            c = [(int(t[3 + 3 * k]), t[4 + 3 * k], float(t[5 + 3 * k])) for k in range(nc)]
            o = 3 + 3 * nc
            ours.append((c, [(int(t[o + 2 * k]), float(t[o + 2 * k + 1])) for k in range(nh)]))
    ref = []
    for line in open(args[1]):
        b, h = line.rstrip('\n').split('|')
        t = b.split()
        ref.append(([(int(t[3 * k]), t[3 * k + 1], float(t[3 * k + 2])) for k in range(len(t) // 3)],
                    [(int(p.split(':')[0]), float(p.split(':')[1])) for p in h.split()]))
    if len(ours) != len(ref):
        print(f'epistream has {len(ours)} rules, the reference {len(ref)}')
        return 1
    for r, ((c1, h1), (c2, h2)) in enumerate(zip(ours, ref)):
        # thresholds are float32: the model's 9 digits and the reference's repr name the
        # same float32
        ok = len(c1) == len(c2) and all(a[0] == b[0] and a[1] == b[1] and np.float32(a[2]) == np.float32(b[2])
                                        for a, b in zip(c1, c2))
        ok = ok and len(h1) == len(h2) and all(a[0] == b[0] and abs(a[1] - b[1]) <= 1e-9 for a, b in zip(h1, h2))
        if not ok:
            print(f'rule {r} differs:\n  epistream {c1} | {h1}\n  reference {c2} | {h2}')
            return 1
    print(f'{len(ours)} rules equal')
    return 0


if __name__ == '__main__':
    sys.exit({'learn': learn, 'gen': gen, 'compare': compare}[sys.argv[1]](sys.argv[2:]))
