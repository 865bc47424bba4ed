#!/usr/bin/env python3
"""Brute-force reference for epistream's 3-way scans (scan --order 3).

usage: triple_ref.py --bfile PREFIX --stat S[,S...] --out SCAN_PREFIX
                     [--pairs-from FILE | --pairs-top K] [--p-threshold P] [--top K]

S: chi2, mi, ig, k2; with several, SCAN_PREFIX holds "{stat}" (e.g. out.{stat}),
each scan's files are checked, and --p-threshold applies to those with a
p-value (k2 has none).  The scans are those of
    epistream scan --bfile PREFIX --order 3 --stat S --out SCAN_PREFIX
        [--pairs-from FILE | --pairs-top K] [--p-threshold P] [--top K] [--tables]

Written from the formulas in doc/ARCHITECTURE.md ("Triples") with numpy and
scipy only, sharing nothing with epistream's C code:
  * the .bed is decoded here (SNP-major, 2 bits a call, 4 samples a byte from
    the low bits; 00 two copies of A1, 10 one, 11 none, 01 missing); the
    phenotype is .fam column 6 read as a number: 1 control, 2 case, anything
    else (0, -9, NA) leaves the sample out;
  * the triples: every i < j < k, or (seeded) every seed pair {i, j} of
    --pairs-from FILE (its SNP1, SNP2 columns) or of the --pairs-top K best
    pairs of a 2-way scan (ranked here from the 2 x 9 tables, ties to the lower
    (i, j)) extended by every other variant k, each triple once;
  * per triple the 2 x 27 table of the samples with a phenotype and a call at
    all three variants (column a*9 + b*3 + c, genotypes = copies of A1);
  * chi2: Pearson over the non-empty columns, df = non-empty columns - 1 (0,
    with STAT 0, when one class or one column is all there is);
  * mi: I(Y; A,B,C) in bits, by per-cell logarithms; P from the G-test
    G = 2 N ln2 I with the chi2 df;
  * ig: I(Y; A,B,C) - I(Y; P), P the pair (AB, AC, BC: the 2 x 9 margins of the
    same table) with the largest MI (on a tie the one with fewer non-empty
    columns, then the first); G = 2 N ln2 IG, df = non-empty columns - non-empty
    columns of P.  Where two pairs' MIs agree to 1e-12 bits but their columns
    differ, epistream's choice rests on rounding: either df is accepted;
  * k2: sum over the 27 columns of lnGamma(n_c + 2) - sum_y lnGamma(n_yc + 1)
    (no P, lower is better);
  * P = the chi2(df) upper tail at G by scipy.special.chdtrc (what
    scipy.stats.chi2.sf evaluates; 1 when G <= 0 or df = 0), -log10 P from it
    (from the lower tail where P > 1/2), or from the asymptotic series of the
    upper incomplete gamma function where P underflows.

Checks against the scan's files (doc/CONTRACTS.md columns):
  * .top.tsv: every row a triple of the set, once; CHR/POS from the .bim; the
    table (when the --tables columns are there) cell for cell; N, DF exact
    (a failed test, df 0 with a p-value: STAT, P, LOG10P NA and DF 0; k2: P,
    LOG10P, DF NA); STAT, P, LOG10P to 1e-9 relative (1e-12 absolute near 0;
    near STAT 0, P against the range STAT +- 1e-12 gives); min(--top, set)
    rows; no triple left out that is better than the last row by more than
    rounding; rows in rank order (better STAT first, ties to the lower
    (i, j, k): enforced between triples with identical tables, whose
    statistics epistream computes to the same bits);
  * .sig.tsv (with --p-threshold): exactly the triples with df > 0 and
    p <= P, in ascending (i, j, k), each checked as above;
  * .summary.tsv: per variant N_TOT (triples of the set with it), N_SIG (of
    those, the ones in the significant list; 0 without --p-threshold), the
    best triple (within rounding of the best, the lowest among identical
    tables) with BEST_STAT, BEST_P and its other two variants; NA for a
    variant with no call among the samples analysed.
Exit status 0 when everything agrees, 1 otherwise.
"""
import argparse
import math
import sys
from itertools import combinations

import numpy as np
from scipy import special

LN2 = math.log(2.0)
STAT_REL, STAT_ABS = 1e-9, 1e-12


# ---- input ---------------------------------------------------------------------------------

def read_plink(prefix):
    """genotypes (m x n int8, copies of A1, -1 missing), class (n: 0, 1, -1), .bim rows"""
    bim = [ln.split() for ln in open(prefix + ".bim") if ln.strip()]
    fam = [ln.split() for ln in open(prefix + ".fam") if ln.strip()]
    m, n = len(bim), len(fam)
    cls = np.full(n, -1, dtype=np.int8)
    for s, f in enumerate(fam):
        try:
            v = float(f[5])
        except ValueError:
            continue
        if v == 1.0:
            cls[s] = 0
        elif v == 2.0:
            cls[s] = 1
    data = open(prefix + ".bed", "rb").read()
    if data[:3] != b"\x6c\x1b\x01":
        sys.exit(f"{prefix}.bed: not a SNP-major PLINK 1 .bed")
    per = (n + 3) // 4
    if len(data) != 3 + per * m:
        sys.exit(f"{prefix}.bed: {len(data)} bytes, {m} x {n} need {3 + per * m}")
    b = np.frombuffer(data, dtype=np.uint8, offset=3).reshape(m, per)
    # sample s sits in byte s // 4 at bits 2 (s % 4), 2 (s % 4) + 1
    two_bits = np.empty((m, per, 4), dtype=np.uint8)
    for q in range(4):
        two_bits[:, :, q] = (b >> (2 * q)) & 3
    codes = two_bits.reshape(m, per * 4)[:, :n]
    lut = np.array([2, -1, 1, 0], dtype=np.int8)
    return lut[codes], cls, [(r[0], r[1], r[3]) for r in bim]


def tables(geno, cls, tuples, ncol):
    """2 x 3^r tables (T x 2 x 3^r int64) of the r-tuples of variants in `tuples` (T x r)."""
    r = tuples.shape[1]
    out = np.zeros((len(tuples), 2 * ncol), dtype=np.int64)
    for lo in range(0, len(tuples), 2048):
        tp = tuples[lo:lo + 2048]
        g = geno[tp]                                   # T x r x n
        ok = (g >= 0).all(axis=1) & (cls >= 0)[None, :]
        code = cls.astype(np.int64)[None, :] * ncol
        for q in range(r):
            code = code + g[:, q, :].astype(np.int64) * 3 ** (r - 1 - q)
        code = np.where(ok, code, 2 * ncol)            # one bin past the table for the rest
        flat = code + (np.arange(len(tp)) * (2 * ncol + 1))[:, None]
        cnt = np.bincount(flat.ravel(), minlength=len(tp) * (2 * ncol + 1))
        out[lo:lo + len(tp)] = cnt.reshape(len(tp), 2 * ncol + 1)[:, :2 * ncol]
    return out.reshape(len(tuples), 2, ncol)


# ---- statistics of 2 x C tables (vectorised over the first axis) ----------------------------

def mi_bits(t):
    """I(Y; X) in bits of each 2 x C table, from per-cell logarithms"""
    t = t.astype(np.float64)
    n = t.sum(axis=(1, 2))
    row = t.sum(axis=2, keepdims=True)
    col = t.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(t > 0, t * np.log2(t * n[:, None, None] / (row * col)), 0.0)
        return np.where(n > 0, term.sum(axis=(1, 2)) / n, 0.0)


def nonempty(t):
    return (t.sum(axis=1) > 0).sum(axis=1)


def base_df(t):
    both = (t[:, 0].sum(axis=1) > 0) & (t[:, 1].sum(axis=1) > 0)
    cols = nonempty(t)
    return np.where(both & (cols > 1), cols - 1, 0)


def chi2_stat(t):
    t = t.astype(np.float64)
    n = t.sum(axis=(1, 2))
    row = t.sum(axis=2, keepdims=True)
    col = t.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = row * col / n[:, None, None]
        term = np.where(col > 0, (t - e) ** 2 / e, 0.0)
    return term.sum(axis=(1, 2))


def k2_stat(t):
    col = t.sum(axis=1)
    return (special.gammaln(col + 2.0) - special.gammaln(t[:, 0] + 1.0) -
            special.gammaln(t[:, 1] + 1.0)).sum(axis=1)


def margins(t, r):
    """the (r-1)-variant margins of 2 x 3^r tables, as a list of T x 2 x 3^(r-1) tables, in the
    order of the dropped variant from last to first (AB, AC, BC for triples; A, B for pairs)"""
    shp = (len(t), 2) + (3,) * r
    x = t.reshape(shp)
    return [x.sum(axis=2 + d).reshape(len(t), 2, 3 ** (r - 1)) for d in reversed(range(r))]


def score(t, stat, r):
    """STAT, DF (None for k2) and ambiguous-df flags of 2 x 3^r tables, as epistream defines them"""
    T = len(t)
    amb = np.zeros(T, dtype=bool)
    if stat == "k2":
        return k2_stat(t), None, amb
    df = base_df(t)
    if stat == "chi2":
        v = chi2_stat(t)
    else:
        v = mi_bits(t)
    if stat == "ig":
        parts = margins(t, r)
        mp = np.stack([mi_bits(p) for p in parts], axis=1)        # T x r
        cp = np.stack([nonempty(p) for p in parts], axis=1)
        best = mp.max(axis=1)
        cand = mp >= best[:, None] - 1e-12
        # the rule: fewest non-empty columns among the (tied) best, then the first
        key = np.where(cand, cp * 8 + np.arange(r)[None, :], 1 << 30)
        pick = key.argmin(axis=1)
        cols = nonempty(t)
        df_ig = cols - cp[np.arange(T), pick]
        ccols = np.where(cand, cp, -1)
        amb = (cand.sum(axis=1) > 1) & (ccols.max(axis=1) != np.where(cand, cp, 1 << 30).min(axis=1))
        v = v - best
        df = np.where(df > 0, df_ig, 0)
        amb &= base_df(t) > 0
    v = np.where(base_df(t) > 0, v, 0.0)
    return v, df, amb


def ig_dfs(t, r):
    """every df an ig test could take under a tie of its best pairs (for ambiguous rows)"""
    parts = margins(t[None], r)
    mp = np.array([mi_bits(p)[0] for p in parts])
    cp = np.array([nonempty(p)[0] for p in parts])
    cols = int(nonempty(t[None])[0])
    return {int(cols - cp[q]) for q in range(r) if mp[q] >= mp.max() - 1e-12}


def log10_upper(g, df):
    """-log10 of the chi2(df) upper tail at g (g > 0, df > 0), accurate where P underflows"""
    p = special.chdtrc(df, g)
    if p > 0.5:
        return -math.log1p(-special.chdtr(df, g)) / math.log(10.0)
    if p > 1e-300:
        return -math.log10(p)
    a, x = df / 2.0, g / 2.0
    s, term = 1.0, 1.0
    for k in range(1, 80):
        term *= (a - k) / x
        s += term
        if abs(term) < 1e-17 * abs(s):
            break
    return -(-x + (a - 1.0) * math.log(x) - special.gammaln(a) + math.log(s)) / math.log(10.0)


def p_value(stat, value, n, df):
    """(G, P, LOG10P) of one test"""
    g = value if stat == "chi2" else 2.0 * n * LN2 * value
    if df <= 0 or g <= 0:
        return g, 1.0, 0.0
    return g, float(special.chdtrc(df, g)), log10_upper(g, df)


def close(a, b, rel=STAT_REL, floor=STAT_ABS):
    return abs(a - b) <= floor or abs(a - b) <= rel * max(abs(a), abs(b))


# ---- the set of triples ----------------------------------------------------------------------

def read_pair_list(path, index):
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        if "SNP1" not in head or "SNP2" not in head:
            sys.exit(f"{path}: no SNP1 and SNP2 columns in the header {head}")
        a, b = head.index("SNP1"), head.index("SNP2")
        pairs = []
        for ln in f:
            if not ln.strip():
                continue
            tok = ln.rstrip("\n").split("\t")
            pairs.append((index[tok[a]], index[tok[b]]))
    return pairs


def best_pairs(geno, cls, stat, k):
    """the k best pairs of a 2-way scan (ties to the lower (i, j)), and whether the cut is sure"""
    m = geno.shape[0]
    pairs = np.array(list(combinations(range(m), 2)), dtype=np.int64).reshape(-1, 2)
    t = tables(geno, cls, pairs, 9)
    v, _, _ = score(t, stat, 2)
    sign = 1.0 if stat == "k2" else -1.0
    key = sign * v
    order = sorted(range(len(pairs)), key=lambda q: (key[q], pairs[q][0], pairs[q][1]))
    chosen = order[:k]
    sure = True
    if k < len(order):
        last = chosen[-1]
        raw = {q: t[q].tobytes() for q in order}
        for q in order[k:]:
            # a pair left out within rounding of the last one kept, with another table: the two
            # could rank either way in epistream's bits
            if close(v[q], v[last]) and raw[q] != raw[last]:
                sure = False
    return [tuple(int(x) for x in pairs[q]) for q in chosen], sure


def triple_set(m, seeds):
    if seeds is None:
        return np.array(list(combinations(range(m), 3)), dtype=np.int64).reshape(-1, 3)
    s = set()
    for i, j in seeds:
        if i == j:
            sys.exit(f"seed pair ({i}, {j}) is not a pair")
        for k in range(m):
            if k != i and k != j:
                s.add(tuple(sorted((i, j, k))))
    return np.array(sorted(s), dtype=np.int64).reshape(-1, 3)


# ---- comparison --------------------------------------------------------------------------------

class Checker:
    def __init__(self, args, bim, trip, t, v, df, amb, n):
        self.args, self.bim, self.trip, self.t, self.v = args, bim, trip, t, v
        self.df, self.amb, self.n = df, amb, n
        self.pos = {tuple(x): q for q, x in enumerate(trip.tolist())}
        self.index = {r[1]: q for q, r in enumerate(bim)}
        self.bad = []
        self.worst = {"STAT": 0.0, "P": 0.0, "LOG10P": 0.0}
        self.hib = args.stat != "k2"
        self.raw = [t[q].tobytes() for q in range(len(trip))]
        self.memo = {}

    def err(self, msg):
        self.bad.append(msg)

    def expect(self, q):
        """(STAT, P, LOG10P, DF, acceptable DFs) of triple q; P etc. None for k2"""
        if self.df is None:
            return self.v[q], None, None, None, None
        got = self.memo.get(q)
        if got is None:
            d = int(self.df[q])
            dfs = ig_dfs(self.t[q], 3) if self.amb[q] else {d}
            _, p, lg = p_value(self.args.stat, self.v[q], self.n[q], d)
            got = self.memo[q] = (self.v[q], p, lg, d, dfs)
        return got

    def header(self, path, head, fixed):
        if head[:len(fixed)] != fixed:
            self.err(f"{path}: header {head[:len(fixed)]}, expected {fixed}")
            return None
        cells = [f"{c}_{a}{b}{d}" for c in ("CTRL", "CASE") for a in "012" for b in "012" for d in "012"]
        rest = head[len(fixed):]
        if rest and rest != cells:
            self.err(f"{path}: extra columns {rest[:3]}..., expected the --tables cells CTRL_000 .. CASE_222")
            return None
        return bool(rest)

    def row(self, path, lineno, tok, has_tables):
        """check one .top.tsv/.sig.tsv row; returns its triple index or None"""
        where = f"{path}:{lineno}"
        if len(tok) != 14 + (54 if has_tables else 0):
            self.err(f"{where}: {len(tok)} columns")
            return None
        ids = [tok[1], tok[4], tok[7]]
        if any(x not in self.index for x in ids):
            self.err(f"{where}: unknown variant in {ids}")
            return None
        ijk = tuple(self.index[x] for x in ids)
        if not ijk[0] < ijk[1] < ijk[2]:
            self.err(f"{where}: variants {ids} not in ascending order")
            return None
        q = self.pos.get(ijk)
        if q is None:
            self.err(f"{where}: triple {ids} is not in the set scanned")
            return None
        where = f"{where} ({' '.join(ids)})"
        for s, v in enumerate(ijk):
            chr_, _, pos = self.bim[v]
            if tok[3 * s] != chr_ or tok[3 * s + 2] != pos:
                self.err(f"{where}: CHR/POS of variant {s + 1} {tok[3 * s]} {tok[3 * s + 2]}, "
                         f".bim has {chr_} {pos}")
        if has_tables:
            got = [int(x) for x in tok[14:]]
            want = self.t[q].ravel().tolist()
            if got != want:
                self.err(f"{where}: table {got}, expected {want}")
        stat, p, lg, d, dfs = self.expect(q)
        if tok[12] != str(self.n[q]):
            self.err(f"{where}: N {tok[12]}, expected {self.n[q]}")
        if d is None:  # k2
            if tok[10:12] != ["NA", "NA"] or tok[13] != "NA":
                self.err(f"{where}: k2 has no P, LOG10P, DF: got {tok[10:14]}")
            self.cmp_stat(where, float(tok[9]), stat)
            return q
        got_df = int(tok[13]) if tok[13].lstrip("-").isdigit() else None
        if got_df not in dfs:
            self.err(f"{where}: DF {tok[13]}, expected {sorted(dfs)}")
            return q
        if got_df == 0:
            if tok[9:12] != ["NA", "NA", "NA"]:
                self.err(f"{where}: a failed test (DF 0) prints STAT, P, LOG10P NA: got {tok[9:12]}")
            return q
        _, p, lg = p_value(self.args.stat, stat, self.n[q], got_df)
        self.cmp_stat(where, float(tok[9]), stat)
        self.cmp_p(where, float(tok[10]), float(tok[11]), stat, p, lg, self.n[q], got_df)
        return q

    def cmp_stat(self, where, got, want):
        if not close(got, want):
            self.err(f"{where}: STAT {got!r}, expected {want!r}")
        if max(abs(got), abs(want)) > 1e-9:
            self.worst["STAT"] = max(self.worst["STAT"], abs(got - want) / max(abs(got), abs(want)))

    def cmp_p(self, where, gp, gl, stat, p, lg, n, d):
        if self.args.stat != "chi2" and abs(stat) <= STAT_ABS:
            # near STAT 0 the tail moves like sqrt(G): P must lie in what STAT +- 1e-12 gives
            _, p_lo, _ = p_value(self.args.stat, stat + STAT_ABS, n, d)
            _, p_hi, _ = p_value(self.args.stat, stat - STAT_ABS, n, d)
            if not p_lo * (1 - 1e-9) <= gp <= p_hi * (1 + 1e-9):
                self.err(f"{where}: P {gp!r} outside [{p_lo!r}, {p_hi!r}] (STAT {stat!r} +- 1e-12)")
            if not close(gl, -math.log10(gp) if gp > 0 else gl, 1e-6):
                self.err(f"{where}: LOG10P {gl!r} is not -log10 of P {gp!r}")
            return
        if p > 1e-300:
            if not close(gp, p, STAT_REL, 0.0):
                self.err(f"{where}: P {gp!r}, expected {p!r}")
            self.worst["P"] = max(self.worst["P"], abs(gp - p) / p)
        if not close(gl, lg):
            self.err(f"{where}: LOG10P {gl!r}, expected {lg!r}")
        if lg > 1e-9:
            self.worst["LOG10P"] = max(self.worst["LOG10P"], abs(gl - lg) / lg)

    def better(self, a, b):
        """is value a better than b by more than rounding?"""
        if close(a, b):
            return False
        return a > b if self.hib else a < b

    def read(self, path):
        with open(path) as f:
            head = f.readline().rstrip("\n").split("\t")
            rows = [ln.rstrip("\n").split("\t") for ln in f if ln.strip()]
        fixed = ["CHR1", "SNP1", "POS1", "CHR2", "SNP2", "POS2", "CHR3", "SNP3", "POS3",
                 "STAT", "P", "LOG10P", "N", "DF"]
        has_tables = self.header(path, head, fixed)
        if has_tables is None:
            return None
        out = []
        for lineno, tok in enumerate(rows, start=2):
            out.append((tok, self.row(path, lineno, tok, has_tables)))
        return out

    def check_top(self, path, top_k):
        rows = self.read(path)
        if rows is None:
            return
        qs = [q for _, q in rows if q is not None]
        want_n = min(top_k, len(self.trip))
        if len(rows) != want_n:
            self.err(f"{path}: {len(rows)} rows, expected min(--top {top_k}, {len(self.trip)} triples)")
        if len(set(qs)) != len(qs):
            self.err(f"{path}: a triple is listed twice")
        if not qs or len(qs) != len(rows):
            return
        # rank order: never a row better (beyond rounding) than the one before; printed STATs
        # monotone; identical tables (the same bits in epistream) by ascending (i, j, k)
        for (ta, qa), (tb, qb) in zip(rows, rows[1:]):
            if self.better(self.v[qb], self.v[qa]):
                self.err(f"{path}: {tb[1]} {tb[4]} {tb[7]} ({self.v[qb]!r}) ranked after "
                         f"{ta[1]} {ta[4]} {ta[7]} ({self.v[qa]!r})")
                break
            if ta[9] != "NA" and tb[9] != "NA":
                a, b = float(ta[9]), float(tb[9])
                if (b > a) if self.hib else (b < a):
                    self.err(f"{path}: printed STAT {tb[9]} after {ta[9]}")
                    break
        seen = {}
        for q in qs:
            prev = seen.get(self.raw[q])
            if prev is not None and tuple(self.trip[prev]) > tuple(self.trip[q]):
                self.err(f"{path}: identical tables of {tuple(self.trip[prev])} and "
                         f"{tuple(self.trip[q])} not in (i, j, k) order")
            seen.setdefault(self.raw[q], q)
        # nothing left out that is better than the last row, or that ties it in bits (identical
        # table) with a lower (i, j, k)
        listed = set(qs)
        last = qs[-1]
        first_of = {}
        for q in qs:
            first_of.setdefault(self.raw[q], q)
        for q in range(len(self.trip)):
            if q in listed:
                continue
            if self.better(self.v[q], self.v[last]):
                self.err(f"{path}: triple {tuple(self.trip[q])} ({self.v[q]!r}) left out, better "
                         f"than the last row ({self.v[last]!r})")
                break
            w = first_of.get(self.raw[q])
            if w is not None and tuple(self.trip[q]) < tuple(self.trip[w]):
                self.err(f"{path}: triple {tuple(self.trip[q])} left out but its identical table "
                         f"{tuple(self.trip[w])} is listed")
                break

    def sig_set(self, thr):
        """the triples that must be in the significant list, and those that may be (rounding)"""
        must, may = set(), set()
        lo, hi = (thr * (1 - 1e-9), thr * (1 + 1e-9)) if thr < 1 else (math.inf, math.inf)
        for q in range(len(self.trip)):
            stat, _, _, d, dfs = self.expect(q)
            if d is None:
                continue
            ps = [p_value(self.args.stat, stat, self.n[q], x)[1] if x > 0 else None for x in dfs]
            if all(p is not None and p <= lo for p in ps):
                must.add(q)
            elif any(p is not None and p <= hi for p in ps):
                may.add(q)
        return must, may

    def check_sig(self, path, thr):
        rows = self.read(path)
        if rows is None:
            return set(), set()
        qs = [q for _, q in rows if q is not None]
        keys = [tuple(self.trip[q]) for q in qs]
        if keys != sorted(set(keys)):
            self.err(f"{path}: rows not in strictly ascending (i, j, k) order")
        must, may = self.sig_set(thr)
        got = set(qs)
        for q in sorted(must - got)[:5]:
            self.err(f"{path}: {tuple(self.trip[q])} is missing (p {self.expect(q)[1]!r} <= {thr})")
        for q in sorted(got - must - may)[:5]:
            self.err(f"{path}: {tuple(self.trip[q])} must not be listed (p {self.expect(q)[1]!r}, "
                     f"df {self.expect(q)[3]})")
        return must, may

    def check_summary(self, path, sig):
        must, may = sig
        m = len(self.bim)
        with open(path) as f:
            head = f.readline().rstrip("\n").split("\t")
            rows = [ln.rstrip("\n").split("\t") for ln in f if ln.strip()]
        want = ["CHR", "SNP", "POS", "N_SIG", "N_TOT", "BEST_STAT", "BEST_P", "CHR_B", "SNP_B",
                "POS_B", "CHR_C", "SNP_C", "POS_C"]
        if head != want:
            self.err(f"{path}: header {head}, expected {want}")
            return
        if len(rows) != m:
            self.err(f"{path}: {len(rows)} rows for {m} variants")
            return
        called = self.geno_called
        of = [[] for _ in range(m)]
        for q, x in enumerate(self.trip.tolist()):
            for v in x:
                of[v].append(q)
        for v, tok in enumerate(rows):
            where = f"{path}:{v + 2} ({self.bim[v][1]})"
            if tok[:3] != [self.bim[v][0], self.bim[v][1], self.bim[v][2]]:
                self.err(f"{where}: CHR SNP POS {tok[:3]}, expected {self.bim[v]}")
                continue
            if int(tok[4]) != len(of[v]):
                self.err(f"{where}: N_TOT {tok[4]}, expected {len(of[v])}")
            lo = sum(q in must for q in of[v])
            hi = lo + sum(q in may for q in of[v])
            if not lo <= int(tok[3]) <= hi:
                self.err(f"{where}: N_SIG {tok[3]}, expected {lo}" + (f"..{hi}" if hi > lo else ""))
            if not called[v] or not of[v]:
                if tok[5:] != ["NA"] * 8:
                    self.err(f"{where}: a variant without calls (or triples) has no best: got {tok[5:]}")
                continue
            if "NA" in (tok[5], tok[8], tok[11]):
                self.err(f"{where}: no best triple reported")
                continue
            others = [self.index.get(tok[8]), self.index.get(tok[11])]
            if None in others:
                self.err(f"{where}: unknown best partners {tok[8]} {tok[11]}")
                continue
            key = tuple(sorted([v] + others))
            q = self.pos.get(key)
            if q is None or v not in key or len(set(key)) != 3:
                self.err(f"{where}: best triple {key} is not one of its triples")
                continue
            if [self.bim[x][1] for x in key if x != v] != [tok[8], tok[11]] or \
                    [tok[7], tok[9], tok[10], tok[12]] != [self.bim[others[0]][0], self.bim[others[0]][2],
                                                           self.bim[others[1]][0], self.bim[others[1]][2]]:
                self.err(f"{where}: best partners {tok[7:]} not in (i, j, k) order or CHR/POS wrong")
            best = of[v][0]
            for r in of[v]:
                if self.better(self.v[r], self.v[best]):
                    best = r
            if self.better(self.v[best], self.v[q]):
                self.err(f"{where}: best {key} ({self.v[q]!r}) but {tuple(self.trip[best])} has "
                         f"{self.v[best]!r}")
            for r in of[v]:
                if self.raw[r] == self.raw[q] and tuple(self.trip[r]) < key:
                    self.err(f"{where}: best {key}, but {tuple(self.trip[r])} has the same table "
                             f"and a lower index")
                    break
            self.cmp_stat(where, float(tok[5]), self.v[q])
            stat, p, lg, d, dfs = self.expect(q)
            if d is None:
                if tok[6] != "NA":
                    self.err(f"{where}: k2 has no BEST_P: got {tok[6]}")
            else:
                ps = {p_value(self.args.stat, stat, self.n[q], x)[1] for x in dfs}
                gp = float(tok[6])
                if abs(stat) <= STAT_ABS and self.args.stat != "chi2":
                    lo_p = min(p_value(self.args.stat, stat + STAT_ABS, self.n[q], x)[1] for x in dfs)
                    ok = lo_p * (1 - 1e-9) <= gp <= 1.0
                else:
                    ok = any(close(gp, x, STAT_REL, 0.0) for x in ps)
                if not ok:
                    self.err(f"{where}: BEST_P {tok[6]}, expected {sorted(ps)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bfile", required=True)
    ap.add_argument("--stat", required=True, help="chi2, mi, ig, k2, or a comma-separated list")
    ap.add_argument("--out", required=True, help="the scan's --out PREFIX ({stat}: the statistic)")
    seed = ap.add_mutually_exclusive_group()
    seed.add_argument("--pairs-from", help="the scan's --pairs-from FILE")
    seed.add_argument("--pairs-top", type=int, help="the scan's --pairs-top K")
    ap.add_argument("--p-threshold", type=float, help="the scan's --p-threshold (.sig.tsv)")
    ap.add_argument("--top", type=int, default=1000, help="the scan's --top (default 1000)")
    ap.add_argument("--max-report", type=int, default=12)
    args = ap.parse_args()

    geno, cls, bim = read_plink(args.bfile)
    m = len(bim)
    index = {r[1]: q for q, r in enumerate(bim)}
    if len(index) != m:
        sys.exit("variant IDs are not unique: triples could not be named")
    statlist = args.stat.split(",")
    for s in statlist:
        if s not in ("chi2", "mi", "ig", "k2"):
            sys.exit(f"--stat {s}: not one of chi2, mi, ig, k2")
    if len(statlist) > 1 and "{stat}" not in args.out:
        sys.exit("--out needs {stat} with several statistics")
    called = ((geno >= 0) & (cls >= 0)[None, :]).any(axis=1)
    failed = 0
    cache = {}
    for stat in statlist:
        a = argparse.Namespace(**vars(args))
        a.stat, a.out = stat, args.out.replace("{stat}", stat)
        seeds, note = None, "exhaustive"
        if args.pairs_from:
            seeds = read_pair_list(args.pairs_from, index)
            note = f"seeded by {len(set(tuple(sorted(s)) for s in seeds))} pairs of {args.pairs_from}"
        elif args.pairs_top:
            seeds, sure = best_pairs(geno, cls, stat, args.pairs_top)
            if not sure:
                print(f"{stat}: the {args.pairs_top}th best pair ties another within rounding: the "
                      f"seed set is not determined; choose another --pairs-top")
                failed += 1
                continue
            note = f"seeded by the {len(seeds)} best pairs"
        key = tuple(sorted(tuple(sorted(s)) for s in seeds)) if seeds is not None else None
        if key not in cache:
            trip = triple_set(m, seeds)
            cache[key] = (trip, tables(geno, cls, trip, 27))
        trip, t = cache[key]
        v, df, amb = score(t, stat, 3)
        n = t.sum(axis=(1, 2)).astype(np.int64)
        ck = Checker(a, bim, trip, t, v, df, amb, n)
        ck.geno_called = called
        ck.check_top(a.out + ".top.tsv", a.top)
        sig = (set(), set())
        if a.p_threshold is not None and stat != "k2":
            sig = ck.check_sig(a.out + ".sig.tsv", a.p_threshold)
        ck.check_summary(a.out + ".summary.tsv", sig)
        print(f"{stat}, {note}: {len(trip)} triples of {m} variants checked against the numpy "
              f"reference ({int(amb.sum())} with a tie of best pairs); max relative difference "
              f"STAT {ck.worst['STAT']:.3g}, P {ck.worst['P']:.3g}, LOG10P {ck.worst['LOG10P']:.3g}")
        if ck.bad:
            print(f"{len(ck.bad)} disagreement(s) in {a.out}.*:")
            for b in ck.bad[: args.max_report]:
                print("  " + b)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
