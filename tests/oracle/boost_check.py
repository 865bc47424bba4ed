#!/usr/bin/env python3
"""Compare epistream's BOOST results with PLINK 1.9's --fast-epistasis boost.

usage: boost_check.py PLINK.epi.cc EPISTREAM.top.tsv [--stat-tol 1e-4] [--p-tol 1e-3]

PLINK.epi.cc comes from `plink1.9 --bfile D --fast-epistasis boost --epi1 1`
(columns CHR1 SNP1 CHR2 SNP2 STAT DF P; --epi1 1 lists every pair PLINK fits).
EPISTREAM.top.tsv is epistream's ranked list (doc/CONTRACTS.md columns) with
--top large enough to hold every pair.

Every pair PLINK lists must be present in ours and agree:
  * STAT to --stat-tol relative (PLINK prints 6 significant digits); values
    below 1e-6 compare absolutely (PLINK can print -3e-15 for an exact fit,
    which epistream reports as 0);
  * DF exactly;
  * P to --p-tol relative where PLINK printed a normal number (it prints 4
    significant digits); P below 1e-300 is not compared;
  * a pair PLINK reports as "nan ... NA" (two empty genotype levels of one
    variant) must be reported by epistream with DF 0 and STAT 0.
Pairs we list that PLINK does not are counted: PLINK drops variants with fewer
than two observed genotypes before testing.
Exit status 0 if all agree, 1 otherwise; counts go to stdout.
"""
import argparse
import math
import sys


def read_plink(path):
    rows = []
    with open(path) as f:
        header = f.readline().split()
        col = {name: i for i, name in enumerate(header)}
        for need in ("SNP1", "SNP2", "STAT", "DF", "P"):
            if need not in col:
                sys.exit(f"{path}: header lacks {need}: {header}")
        for lineno, line in enumerate(f, start=2):
            tok = line.split()
            if not tok:
                continue
            rows.append((lineno, tok[col["SNP1"]], tok[col["SNP2"]], tok[col["STAT"]],
                         tok[col["DF"]], tok[col["P"]]))
    return rows


def read_ours(path):
    pairs = {}
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        col = {name: i for i, name in enumerate(header)}
        for need in ("SNP1", "SNP2", "STAT", "P", "DF"):
            if need not in col:
                sys.exit(f"{path}: header lacks {need}: {header}")
        for line in f:
            tok = line.rstrip("\n").split("\t")
            if len(tok) < len(header):
                continue
            # a failed test: STAT, P NA and DF 0 (PLINK: nan, DF 0, P NA)
            stat = float("nan") if tok[col["STAT"]] == "NA" else float(tok[col["STAT"]])
            rec = (stat, tok[col["P"]], tok[col["DF"]])
            pairs[(tok[col["SNP1"]], tok[col["SNP2"]])] = rec
    return pairs


def rel(a, b):
    d = abs(a - b)
    m = max(abs(a), abs(b))
    return d / m if m > 0 else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("plink")
    ap.add_argument("ours")
    ap.add_argument("--stat-tol", type=float, default=1e-4)
    ap.add_argument("--p-tol", type=float, default=1e-3)
    ap.add_argument("--max-report", type=int, default=10)
    args = ap.parse_args()

    plink = read_plink(args.plink)
    ours = read_ours(args.ours)
    bad = []
    n_stat = n_p = n_nan = n_same = n_p_same = 0
    max_stat_rel = max_p_rel = 0.0
    worst_stat = worst_p = None
    seen = set()
    df_hist = {}
    for lineno, s1, s2, stat_s, df_s, p_s in plink:
        key = (s1, s2)
        if key not in ours:
            key = (s2, s1)
        if key not in ours:
            bad.append(f"line {lineno}: pair {s1} {s2} missing from {args.ours}")
            continue
        seen.add(key)
        our_stat, our_p_s, our_df_s = ours[key]
        if stat_s.lower() == "nan":
            n_nan += 1
            if our_df_s != "0" or our_stat == our_stat or our_p_s != "NA":
                bad.append(f"line {lineno}: {s1} {s2}: PLINK nan, "
                           f"ours STAT {our_stat} DF {our_df_s}")
            continue
        stat = float(stat_s)
        df_hist[df_s] = df_hist.get(df_s, 0) + 1
        if df_s != our_df_s:
            bad.append(f"line {lineno}: {s1} {s2}: DF PLINK {df_s} ours {our_df_s}")
        n_stat += 1
        if max(abs(stat), abs(our_stat)) < 1e-6:
            ok = abs(stat - our_stat) <= 1e-6
            r = 0.0
        else:
            r = rel(stat, our_stat)
            ok = r <= args.stat_tol
        if r > max_stat_rel:
            max_stat_rel, worst_stat = r, (s1, s2, stat_s, our_stat)
        # PLINK prints %g-style with 6 significant digits: count exact agreement
        if f"{our_stat:.6g}" == stat_s or (stat == 0.0 or abs(stat) < 1e-6) and our_stat < 1e-6:
            n_same += 1
        if not ok:
            bad.append(f"line {lineno}: {s1} {s2}: STAT PLINK {stat_s} "
                       f"ours {our_stat!r} (rel {r:.3g})")
        if p_s != "NA":
            p = float(p_s)
            if p > 1e-300 and p != 1.0:
                our_p = float(our_p_s)
                n_p += 1
                n_p_same += f"{our_p:.4g}" == p_s
                r = rel(p, our_p)
                if r > max_p_rel:
                    max_p_rel, worst_p = r, (s1, s2, p_s, our_p)
                if r > args.p_tol:
                    bad.append(f"line {lineno}: {s1} {s2}: P PLINK {p_s} "
                               f"ours {our_p!r} (rel {r:.3g})")
    extra = len(ours) - len(seen)
    print(f"PLINK pairs: {len(plink)}; STAT compared: {n_stat}; P compared: {n_p}; "
          f"nan pairs (degenerate in both): {n_nan}; pairs only in epistream: {extra}")
    print("DF counts: " + ", ".join(f"{k}: {v}" for k, v in sorted(df_hist.items())))
    print(f"STAT printed identically to 6 significant digits: {n_same} of {n_stat} "
          "(values below 1e-6, exact fits, counted as equal); "
          f"P identically to 4: {n_p_same} of {n_p}")
    print(f"max relative STAT difference: {max_stat_rel:.3g} {worst_stat or ''}")
    print(f"max relative P difference: {max_p_rel:.3g} {worst_p or ''}")
    if bad:
        print(f"{len(bad)} disagreement(s):")
        for b in bad[: args.max_report]:
            print("  " + b)
        return 1
    if n_stat == 0:
        print("nothing compared")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
