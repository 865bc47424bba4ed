#!/usr/bin/env python3
"""Brute-force reference for epistream's chi2, mi, ig and k2 statistics.

usage: stats_ref.py --bfile PREFIX --stat {chi2,mi,ig,k2} --top PREFIX.top.tsv

Written from the formulas in doc/ARCHITECTURE.md ("Statistics") with numpy and scipy
only, sharing nothing with epistream's C code:
  * the .bed is decoded here (SNP-major, 2-bit codes; genotype = copies of A1),
    the phenotype is .fam column 6 (1 control, 2 case, anything else missing);
  * for every pair i < j the 2 x 9 table counts the samples with a phenotype
    and a call at both variants;
  * chi2: Pearson's statistic over the non-empty genotype-pair columns,
    df = (non-empty columns - 1); a table with a single non-empty column or a
    single class present has no test (STAT 0, P 1, LOG10P 0, DF 0);
  * mi: I(Y; A,B) in bits by per-cell logarithms, P from the G-test
    G = 2 N ln2 I with the chi2 df (P 1 when G <= 0);
  * ig: I(Y;A,B) minus the larger of I(Y;A), I(Y;B), both from the margins of
    the same table; that is I(Y;B|A) (A the variant with the larger MI), whose
    G = 2 N ln2 IG is the likelihood ratio of one class probability per
    non-empty genotype-pair column against one per non-empty level of A:
    df = non-empty columns - non-empty levels of A (6 in a full table); where
    the two MIs tie (to 1e-12) either variant's df is accepted (epistream takes
    the larger);
  * k2: sum over columns of lnGamma(n_c+2) - sum_y lnGamma(n_yc+1) (no P);
  * P = scipy.stats.chi2.sf(G, df); -log10 P from it where P is representable
    (from the lower tail when P is near 1), else from the asymptotic series
    ln Q(a,y) = -y + (a-1) ln y - lnGamma(a) + ln(1 + (a-1)/y + (a-1)(a-2)/y^2 + ...).

Checks against epistream's --top list (doc/CONTRACTS.md columns): every pair
present once, N and DF exact, STAT to 1e-9 relative (1e-12 absolute near 0),
P to 1e-6 relative where P > 1e-300, LOG10P to 1e-6 relative, and the rows in
rank order (better STAT first -- lower for k2 -- ties by lower (i, j)).
Exit status 0 when everything agrees, 1 otherwise.
"""
import argparse
import math
import sys

import numpy as np
from scipy import special, stats


def read_bfile(prefix):
    fam = [line.split() for line in open(prefix + ".fam") if line.strip()]
    bim = [line.split() for line in open(prefix + ".bim") if line.strip()]
    n, m = len(fam), len(bim)
    y = np.full(n, -1, dtype=np.int64)
    for s, tok in enumerate(fam):
        if tok[5] == "1":
            y[s] = 0
        elif tok[5] == "2":
            y[s] = 1
    raw = np.fromfile(prefix + ".bed", dtype=np.uint8)
    if raw.size < 3 or raw[0] != 0x6C or raw[1] != 0x1B or raw[2] != 0x01:
        sys.exit(f"{prefix}.bed: not a SNP-major PLINK .bed")
    bpv = (n + 3) // 4
    if raw.size != 3 + bpv * m:
        sys.exit(f"{prefix}.bed: {raw.size} bytes, expected {3 + bpv * m}")
    rows = raw[3:].reshape(m, bpv)
    codes = np.stack([(rows >> (2 * k)) & 3 for k in range(4)], axis=2).reshape(m, bpv * 4)[:, :n]
    # PLINK 2-bit codes: 00 hom A1, 01 missing, 10 het, 11 hom A2
    geno = np.array([2, -1, 1, 0], dtype=np.int64)[codes]
    ids = [tok[1] for tok in bim]
    return geno, y, ids


def pair_table(ga, gb, y):
    ok = (ga >= 0) & (gb >= 0) & (y >= 0)
    code = y[ok] * 9 + ga[ok] * 3 + gb[ok]
    return np.bincount(code, minlength=18).reshape(2, 9).astype(np.float64)


def mi_bits(t):
    """I(Y; column) in bits of a 2 x c table, by per-cell logarithms."""
    n = t.sum()
    if n == 0:
        return 0.0
    row = t.sum(axis=1, keepdims=True)
    col = t.sum(axis=0, keepdims=True)
    nz = t > 0
    return float(np.sum(t[nz] / n * np.log2(t[nz] * n / (row * col)[nz])))


def log10_sf(g, df):
    """-log10 of the chi2(df) upper tail at g, accurate where P underflows."""
    p = stats.chi2.sf(g, df)
    if p > 0.5:
        return -math.log1p(-stats.chi2.cdf(g, df)) / math.log(10)
    if p > 1e-300:
        return -math.log10(p)
    a, y = df / 2.0, g / 2.0
    term, total = 1.0, 1.0
    for k in range(1, 60):
        term *= (a - k) / y
        total += term
        if abs(term) < 1e-17 * abs(total):
            break
    lnq = -y + (a - 1) * math.log(y) - special.gammaln(a) + math.log(total)
    return -lnq / math.log(10)


def g_test(value, g, df):
    """(STAT, P, LOG10P, DF) of a G-test with df degrees of freedom."""
    if g <= 0 or df <= 0:
        return value, 1.0, 0.0, df
    return value, float(stats.chi2.sf(g, df)), log10_sf(g, df), df


def reference(t, stat, df_got=None):
    """(STAT, P, LOG10P, DF) of one 2 x 9 table; P etc. None for k2.  For ig,
    df_got (epistream's DF) is taken where the df is ambiguous (a tie)."""
    if stat == "k2":
        col = t.sum(axis=0)
        k2 = float(np.sum(special.gammaln(col + 2) - special.gammaln(t + 1).sum(axis=0)))
        return k2, None, None, None
    col = t.sum(axis=0)
    nonempty = col > 0
    classes = int((t.sum(axis=1) > 0).sum())
    df = int(nonempty.sum()) - 1 if classes == 2 else 0
    if df <= 0:
        return 0.0, 1.0, 0.0, 0
    n = t.sum()
    tt = t[:, nonempty]
    if stat == "chi2":
        expected = tt.sum(axis=1, keepdims=True) * tt.sum(axis=0, keepdims=True) / n
        value = float(np.sum((tt - expected) ** 2 / expected))
        g = value
    else:
        i_ab = mi_bits(tt)
        if stat == "mi":
            value = i_ab
        else:
            t3 = t.reshape(2, 3, 3)
            ma, mb = t3.sum(axis=2), t3.sum(axis=1)
            i_a, i_b = mi_bits(ma), mi_bits(mb)
            value = i_ab - max(i_a, i_b)
            cols = int(nonempty.sum())
            df_a = cols - int((ma.sum(axis=0) > 0).sum())
            df_b = cols - int((mb.sum(axis=0) > 0).sum())
            df = df_a if i_a > i_b else df_b
            if abs(i_a - i_b) <= 1e-12 and df_got in (df_a, df_b):
                df = df_got
        g = 2.0 * n * math.log(2) * value
    return g_test(value, g, df)


def rel(a, b):
    m = max(abs(a), abs(b))
    return abs(a - b) / m if m > 0 else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bfile", required=True)
    ap.add_argument("--stat", required=True, choices=["chi2", "mi", "ig", "k2"])
    ap.add_argument("--top", required=True, help="epistream PREFIX.top.tsv")
    ap.add_argument("--max-report", type=int, default=10)
    args = ap.parse_args()

    geno, y, ids = read_bfile(args.bfile)
    m = len(ids)
    index = {snp: i for i, snp in enumerate(ids)}
    if len(index) != m:
        sys.exit("variant IDs are not unique; the pair keys would be ambiguous")

    with open(args.top) as f:
        header = f.readline().rstrip("\n").split("\t")
        want = ["CHR1", "SNP1", "POS1", "CHR2", "SNP2", "POS2", "STAT", "P", "LOG10P", "N", "DF"]
        if header != want:
            sys.exit(f"{args.top}: header {header}, expected {want}")
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]

    bad = []
    seen = set()
    worst = {"STAT": 0.0, "P": 0.0, "LOG10P": 0.0}
    order_keys = []
    higher = args.stat != "k2"
    for lineno, tok in enumerate(rows, start=2):
        i, j = index.get(tok[1]), index.get(tok[4])
        if i is None or j is None or i >= j:
            bad.append(f"line {lineno}: bad pair {tok[1]} {tok[4]}")
            continue
        if (i, j) in seen:
            bad.append(f"line {lineno}: pair {tok[1]} {tok[4]} listed twice")
        seen.add((i, j))
        t = pair_table(geno[i], geno[j], y)
        df_got = int(tok[10]) if tok[10].lstrip("-").isdigit() else None
        stat, p, lg, df = reference(t, args.stat, df_got)
        where = f"line {lineno} ({tok[1]}, {tok[4]})"
        if int(tok[9]) != int(t.sum()):
            bad.append(f"{where}: N {tok[9]}, expected {int(t.sum())}")
        got = float(tok[6])
        sign = -1.0 if higher else 1.0
        order_keys.append((sign * got, sign * stat, i, j))
        r = rel(got, stat)
        if not (abs(got - stat) <= 1e-12 or r <= 1e-9):
            bad.append(f"{where}: STAT {tok[6]}, expected {stat!r} (rel {r:.3g})")
        if max(abs(got), abs(stat)) > 1e-9:
            worst["STAT"] = max(worst["STAT"], r)
        if df is None:
            if tok[7] != "NA" or tok[8] != "NA" or tok[10] != "NA":
                bad.append(f"{where}: k2 must have P, LOG10P, DF = NA: {tok[7:]}")
            continue
        if tok[10] != str(df):
            bad.append(f"{where}: DF {tok[10]}, expected {df}")
        gp, gl = float(tok[7]), float(tok[8])
        if args.stat in ("mi", "ig") and abs(stat) <= 1e-12 and df > 0:
            # a statistic at rounding level (an exact 0 computed two ways):
            # STAT is checked to 1e-12 absolute, and near G = 0 the chi2 tail
            # falls like sqrt(G) (df 1), so P and LOG10P are checked against
            # the range a STAT within that tolerance gives
            g_of = lambda v: 2.0 * t.sum() * math.log(2) * max(v, 0.0)
            p_lo, p_hi = stats.chi2.sf(g_of(stat + 1e-12), df), stats.chi2.sf(g_of(stat - 1e-12), df)
            lg_lo = -math.log10(p_hi) if p_hi < 1 else 0.0
            lg_hi = -math.log10(p_lo)
            if not (p_lo * (1 - 1e-9) <= gp <= p_hi * (1 + 1e-9) and
                    lg_lo - 1e-12 <= gl <= lg_hi * (1 + 1e-6) + 1e-12):
                bad.append(f"{where}: P {tok[7]}, LOG10P {tok[8]}: STAT {stat!r} +- 1e-12 gives "
                           f"P in [{p_lo!r}, {p_hi!r}]")
            continue
        if p > 1e-300:
            r = rel(gp, p)
            worst["P"] = max(worst["P"], r)
            if r > 1e-6:
                bad.append(f"{where}: P {tok[7]}, expected {p!r} (rel {r:.3g})")
        r = rel(gl, lg)
        if lg == 0.0:
            ok = abs(gl) <= 1e-12
        else:
            ok = r <= 1e-6
            worst["LOG10P"] = max(worst["LOG10P"], r)
        if not ok:
            bad.append(f"{where}: LOG10P {tok[8]}, expected {lg!r} (rel {r:.3g})")

    expected_pairs = m * (m - 1) // 2
    if len(seen) != expected_pairs:
        bad.append(f"{len(seen)} distinct pairs listed, expected all {expected_pairs}")
    # printed STATs must not get better down the list, and pairs tied both in
    # print and in the reference must come in (i, j) order (epistream ranks by
    # its own values, whose last bits can separate mathematically equal ones)
    for a, b in zip(order_keys, order_keys[1:]):
        if a[0] > b[0] or (a[0] == b[0] and a[1] == b[1] and a[2:] > b[2:]):
            bad.append(f"rows out of rank order: {a} before {b}")
            break

    print(f"{args.stat}: {len(rows)} pairs checked against the numpy reference; max relative "
          f"difference STAT {worst['STAT']:.3g}, P {worst['P']:.3g}, LOG10P {worst['LOG10P']:.3g}")
    if bad:
        print(f"{len(bad)} disagreement(s):")
        for b in bad[: args.max_report]:
            print("  " + b)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
