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
  rules_ref.py compare OURS.model REF.rules
      conditions and thresholds equal (1e-9 relative), heads to 1e-9; exits 1
      on a difference."""
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
        s = self.score
        if self.loss == 'logistic':
            p = 1.0 / (1.0 + np.exp(-s))
            self.g = np.where(self.y == 1, p - 1.0, p)
            self.h = p * (1.0 - p)
        else:
            self.g = s - np.where(self.y == 1, 1.0, -1.0)
            self.h = np.ones_like(s)

    def head(self, G, H, labels):
        """scores and quality of a head over `labels` from sums G, H (all labels)"""
        with np.errstate(divide='ignore', invalid='ignore'):
            p = -G[labels] / (H[labels] + self.l2)
        p = np.where(np.isfinite(p), p, 0.0)
        q = G[labels] * p + 0.5 * H[labels] * p * p + 0.5 * self.l2 * p * p
        if not self.single:
            return list(labels), list(p), float(np.sum(q))
        k = 0
        for j in range(1, len(labels)):
            if abs(p[j]) > abs(p[k]):
                k = j
        return [labels[k]], [p[k]], float(q[k])

    def default_rule(self):
        G, H = self.g.sum(axis=0), self.h.sum(axis=0)
        p = -G / (H + self.l2)
        self.score += p
        self.update()
        return [], list(range(self.nl)), list(p)

    def search(self, f, cov, n_cov, labels, best):
        """the best candidate of feature f better than best[0] (mlrl-boomer's walk)"""
        idx = [i for i in self.order[f] if cov[i]]
        m = len(idx)
        if m == 0:
            return
        v = [self.x[i, f] for i in idx]
        if f32_equal(v[0], v[-1]):
            return
        miss = [i for i in range(self.n) if cov[i] and np.isnan(self.x[i, f])]
        TG = self.g[[i for i in range(self.n) if cov[i] and i not in miss]].sum(axis=0)
        TH = self.h[[i for i in range(self.n) if cov[i] and i not in miss]].sum(axis=0)
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
        best = [0.0, None]
        conds = []
        chosen = None
        while True:
            best[1] = None
            for f in range(self.nf):
                self.search(f, cov, n_cov, labels, best)
            if best[1] is None:
                break
            f, op, thr, inverse, pos, ncov, lab, p = best[1]
            chosen = (lab, p)
            conds.append((f, op, float(thr)))
            idx = [i for i in self.order[f] if cov[i]]
            side, j = pos
            inside = set(idx[:j]) if side == 'lo' else set(idx[j:])
            new = np.zeros(self.n, dtype=bool)
            for i in range(self.n):
                if cov[i]:
                    new[i] = (i not in inside and not np.isnan(self.x[i, f])) if inverse else i in inside
            cov, n_cov = new, ncov
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
        ok = len(c1) == len(c2) and all(a[0] == b[0] and a[1] == b[1] and abs(a[2] - b[2]) <= 1e-9 * max(1, abs(b[2]))
                                        for a, b in zip(c1, c2))
        ok = ok and len(h1) == len(h2) and all(a[0] == b[0] and abs(a[1] - b[1]) <= 1e-9 for a, b in zip(h1, h2))
        if not ok:
            print(f'rule {r} differs:\n  epistream {c1} | {h1}\n  reference {c2} | {h2}')
            return 1
    print(f'{len(ours)} rules equal')
    return 0


if __name__ == '__main__':
    sys.exit(learn(sys.argv[2:]) if sys.argv[1] == 'learn' else compare(sys.argv[2:]))
