#!/usr/bin/env python3
"""rules_mlrl.py -- mlrl-boomer 0.15.6 (BoomerClassifier) on the same data as
`epistream rules`, for tests/bench/bench_rules.sh and the rule-by-rule check.
Needs Python >= 3.12 with mlrl-boomer 0.15.6 (doc/RULES.md says how).

  rules_mlrl.py fit TRAIN.arff LABELS.xml [TEST.arff] [key=value ...]
      fit with the given BoomerClassifier parameters (e.g. feature_sampling=none
      max_rules=50 head_type=single statistic_type=64-bit); print the fit time,
      the test set's Hamming loss and subset accuracy in percent; with
      scores=FILE / proba=FILE write the test set's decision_function() /
      predict_proba() (TSV, no header, %.17g); with
      dump=FILE write the rules, one a line:
        FEATURE OP THRESHOLD ... | LABEL:SCORE ...   (the default rule: '| ...')
  rules_mlrl.py compare OURS.model MLRL.rules [N]
      compare the first N rules (default all) of an epistream model with a dump:
      conditions equal (as sets grouped by comparator: mlrl-boomer's order),
      thresholds to 1e-6, heads to 1e-9; prints each
      difference, exits 1 when there is one.
  rules_mlrl.py compare OURS.model MLRL.rules [N] --ties
      the same, except that a rule whose conditions differ while its head is the same
      (to 1e-9: the same sums of gradients and Hessians, so the same covered examples;
      two conditions that remove the same examples tie, and the rounding of sums in
      another order breaks the tie) counts as a tie, not a difference; prints how many
      rules are the same and how many tie; exits 1 on a head that differs.
  rules_mlrl.py tie OURS.model MLRL.rules TRAIN.arff LABELS.xml [N]
      the example-wise logistic loss, complete heads, no sampling, L2 1: the
      first N rules are the same, or the first rule that differs does so at a
      tie: replaying epistream's refinements of that rule, the first condition
      that mlrl-boomer's rule lacks scores within 1e-12 (relative) of the best of
      mlrl-boomer's conditions at that point.  Exits 1 otherwise."""
import sys
import time

import numpy as np


def read_arff(path, label_names):
    names, nominal, rows = [], [], []
    with open(path, encoding='utf-8') as f:
        data = False
        for line in f:
            s = line.strip()
            if not s or s.startswith('%'):
                continue
            if not data:
                low = s.lower()
                if low.startswith('@attribute'):
                    rest = s[10:].strip()
                    if rest[0] in '\'"':
                        q = rest[0]
                        e = rest.index(q, 1)
                        name, typ = rest[1:e], rest[e + 1:].strip()
                    else:
                        name, typ = rest.split(None, 1)
                    names.append(name)
                    if typ.startswith('{'):
                        nominal.append([v.strip().strip('\'"') for v in typ.strip('{}').split(',')])
                    else:
                        nominal.append(None)
                elif low.startswith('@data'):
                    data = True
                continue
            rows.append(s)
    n, m = len(rows), len(names)
    x = np.zeros((n, m), dtype=np.float64)

    def val(c, v):
        v = v.strip().strip('\'"')
        if v == '?':
            return np.nan
        return float(nominal[c].index(v)) if nominal[c] else float(v)

    for i, s in enumerate(rows):
        if s.startswith('{'):
            for tok in s.strip('{}').split(','):
                if tok.strip():
                    c, v = tok.split(None, 1)
                    x[i, int(c)] = val(int(c), v)
        else:
            for c, v in enumerate(s.split(',')):
                x[i, c] = val(c, v)
    lab = [names.index(l) for l in label_names]
    feat = [c for c in range(m) if c not in lab]
    return x[:, feat].astype(np.float32), x[:, lab].astype(np.uint8), [names[c] for c in feat]


def labels_xml(path):
    import re
    with open(path, encoding='utf-8') as f:
        return re.findall(r'<label\s+name="([^"]*)"', f.read())


def fit(args):
    from mlrl.boosting import BoomerClassifier
    train, xml = args[0], args[1]
    test = args[2] if len(args) > 2 and '=' not in args[2] else None
    kw = dict(a.split('=', 1) for a in args[2 + (test is not None):])
    dump = kw.pop('dump', None)
    out_scores, out_proba = kw.pop('scores', None), kw.pop('proba', None)
    for k in ('max_rules',):
        if k in kw:
            kw[k] = int(kw[k])
    for k in ('shrinkage', 'l2_regularization_weight'):
        if k in kw:
            kw[k] = float(kw[k])
    labs = labels_xml(xml)
    x, y, _ = read_arff(train, labs)
    clf = BoomerClassifier(**kw)
    t0, c0 = time.perf_counter(), time.process_time()
    clf.fit(x, y)
    t_fit, c_fit = time.perf_counter() - t0, time.process_time() - c0
    print(f'fit_seconds {t_fit:.3f}')
    print(f'fit_cpu_seconds {c_fit:.3f}')
    if test:
        xt, yt, _ = read_arff(test, labs)
        p = np.asarray(clf.predict(xt).toarray() if hasattr(clf.predict(xt), 'toarray') else clf.predict(xt))
        print(f'hamming_loss {100 * np.mean(p != yt):.2f}')
        print(f'subset_accuracy {100 * np.mean(np.all(p == yt, axis=1)):.2f}')
        for path, fn in ((out_scores, clf.decision_function), (out_proba, clf.predict_proba)):
            if path:
                v = fn(xt)
                v = np.asarray(v.toarray() if hasattr(v, 'toarray') else v, dtype=np.float64)
                np.savetxt(path, v, fmt='%.17g', delimiter='\t')
    if dump:
        ops = {'<=': '<=', '>': '>', '==': '==', '!=': '!='}
        with open(dump, 'w') as f:
            for rule in clf.model_:
                conds = []
                body = rule.body
                if body is not None and hasattr(body, '__iter__'):
                    for c in body:
                        conds.append(f'{c.feature_index} {ops[str(c.comparator)]} {float(c.threshold)!r}')
                heads = [f'{p.output_index}:{float(p.value)!r}' for p in rule.head]
                f.write(' '.join(conds) + ' | ' + ' '.join(heads) + '\n')


def read_ours(path):
    rules = []
    with open(path) as f:
        for line in f:
            t = line.split()
            if t[0] == 'default':
                rules.append(([], [(l, float(v)) for l, v in enumerate(t[1:])]))
            elif t[0] == 'rule':
                nc, nh = int(t[1]), int(t[2])
                c = [(int(t[3 + 3 * k]), t[4 + 3 * k], float(t[5 + 3 * k])) for k in range(nc)]
                o = 3 + 3 * nc
                h = [(int(t[o + 2 * k]), float(t[o + 2 * k + 1])) for k in range(nh)]
                rules.append((c, h))
    return rules


def read_dump(path):
    rules = []
    with open(path) as f:
        for line in f:
            b, h = line.rstrip('\n').split('|')
            t = b.split()
            c = [(int(t[3 * k]), t[3 * k + 1], float(t[3 * k + 2])) for k in range(len(t) // 3)]
            hh = [(int(p.split(':')[0]), float(p.split(':')[1])) for p in h.split()]
            rules.append((c, hh))
    return rules


def compare(args):
    ties = '--ties' in args
    args = [a for a in args if a != '--ties']
    ours, theirs = read_ours(args[0]), read_dump(args[1])
    n = int(args[2]) if len(args) > 2 else min(len(ours), len(theirs))
    bad = n_tie = 0
    for r in range(min(n, len(ours), len(theirs))):
        (c1, h1), (c2, h2) = ours[r], theirs[r]
        # mlrl-boomer keeps a rule's conditions grouped by comparator (<=, >, ==, !=), each
        # group in the order the conditions were added
        rank = {'<=': 0, '>': 1, '==': 2, '!=': 3}
        # a nominal {0,1} feature (enron's) is numeric 0/1 for mlrl-boomer here: == 1 and
        # != 0 are > 0.5, == 0 and != 1 are <= 0.5 (the same examples)
        c1 = [(f, '>' if (op, v) in (('==', 1.0), ('!=', 0.0)) else '<=', 0.5)
              if op in ('==', '!=') else (f, op, v) for f, op, v in c1]
        # the same conditions as sets: two refinements that tie may be added in either order
        c1 = sorted(c1, key=lambda c: (rank[c[1]], c[0], c[2]))
        c2 = sorted(c2, key=lambda c: (rank[c[1]], c[0], c[2]))
        same_c = len(c1) == len(c2) and all(a[0] == b[0] and a[1] == b[1] and abs(a[2] - b[2]) <= 1e-6 * max(1, abs(b[2]))
                                            for a, b in zip(c1, c2))
        same_h = len(h1) == len(h2) and all(a[0] == b[0] and abs(a[1] - b[1]) <= 1e-9 for a, b in zip(h1, h2))
        if ties and same_h and not same_c:
            n_tie += 1
            if n_tie <= 3:
                print(f'rule {r}: a tie (the same head, other conditions)\n  epistream: {c1}\n  mlrl:      {c2}')
            continue
        if not (same_c and same_h):
            bad += 1
            print(f'rule {r}: differs\n  epistream: {c1} | {h1}\n  mlrl:      {c2} | {h2}')
            if bad >= 3:
                break
    m = min(n, len(ours), len(theirs))
    print(f'compared {m} rules (default rule first): {"same" if not bad else "DIFFERENT"}'
          + (f'; {m - n_tie - bad} with the same conditions, {n_tie} ties' if ties else ''))
    return 1 if bad else 0


def read_ours_ordered(path):
    """epistream's rules with their conditions in the order they were added."""
    rules = []
    with open(path) as f:
        for line in f:
            t = line.split()
            if t and t[0] == 'rule':
                nc, nh = int(t[1]), int(t[2])
                c = [(int(t[3 + 3 * k]), t[4 + 3 * k], float(t[5 + 3 * k])) for k in range(nc)]
                o = 3 + 3 * nc
                rules.append((c, [(int(t[o + 2 * k]), float(t[o + 2 * k + 1])) for k in range(nh)]))
    return rules


def tie(args):
    ours, theirs = read_ours(args[0]), read_dump(args[1])
    n = int(args[4]) if len(args) > 4 else min(len(ours), len(theirs))
    labs = labels_xml(args[3])
    x, y, _ = read_arff(args[2], labs)
    ne, nl = y.shape
    sgn = np.where(y == 1, 1.0, -1.0)

    def same(a, b):
        return a[0] == b[0] and a[1] == b[1] and abs(a[2] - b[2]) <= 1e-6 * max(1, abs(b[2]))

    def cov(conds):
        m = np.ones(ne, bool)
        for f, op, t in conds:
            m &= (x[:, f] <= np.float32(t)) if op == '<=' else (x[:, f] > np.float32(t))
        return m

    def quality(g, h, m):
        G, H = g[m].sum(0), h[m].sum(0)
        p = np.linalg.solve(H + np.eye(nl), -G)
        return p @ G + 0.5 * p @ H @ p + 0.5 * p @ p

    r = 0
    for r in range(min(n, len(ours), len(theirs))):
        (c1, h1), (c2, h2) = ours[r], theirs[r]
        k1 = sorted(c1, key=lambda c: {'<=': 0, '>': 1}[c[1]])
        if not (len(k1) == len(c2) and all(same(a, b) for a, b in zip(k1, c2)) and len(h1) == len(h2)
                and all(a[0] == b[0] and abs(a[1] - b[1]) <= 1e-9 for a, b in zip(h1, h2))):
            break
    else:
        print(f'the first {n} rules are the same')
        return 0
    if r == 0:
        print('the default rules differ')
        return 1
    ordered = read_ours_ordered(args[0])
    score = np.tile(np.array([v for _, v in ours[0][1]]), (ne, 1))
    for c, h in ordered[:r - 1]:
        m = cov(c)
        for lab, v in h:
            score[m, lab] += v
    e = np.exp(-sgn * score)
    z = 1 + e.sum(1, keepdims=True)
    g = -sgn * e / z
    h = np.einsum('il,lk->ilk', e / z, np.eye(nl)) - np.einsum('il,ik->ilk', sgn * e, sgn * e) / z[:, :, None] ** 2
    conds = ordered[r - 1][0]
    for k, c in enumerate(conds):
        q_ours = quality(g, h, cov(conds[:k + 1]))
        alts = [d for d in theirs[r][0] if not any(same(d, e2) for e2 in conds[:k])]
        if not alts:
            break
        q_alt, d = min((quality(g, h, cov(conds[:k] + [d])), d) for d in alts)
        if same(c, d) or (q_alt > q_ours and not abs(q_ours - q_alt) <= 1e-12 * abs(q_ours)):
            continue  # mlrl-boomer's best next condition is epistream's, or none is better
        tied = abs(q_ours - q_alt) <= 1e-12 * abs(q_ours)
        print(f'rule {r} (the default rule is 0), condition {k + 1}: epistream {c} scores '
              f'{q_ours!r}, mlrl-boomer\'s {d} {q_alt!r}: '
              f'{"a tie within rounding" if tied else "NOT a tie"}')
        return 0 if tied else 1
    print(f'rule {r}: the conditions are the same, the heads differ')
    return 1


if __name__ == '__main__':
    cmd = sys.argv[1]
    sys.exit(fit(sys.argv[2:]) if cmd == 'fit' else tie(sys.argv[2:]) if cmd == 'tie' else compare(sys.argv[2:]))
