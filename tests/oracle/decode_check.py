#!/usr/bin/env python3
"""decode_check.py PREFIX DUMP RAW -- check epistream's decoded genotypes.

DUMP is `dump_geno PREFIX` output (one line per variant, one value per .fam
sample: 0/1/2 copies of A1 or NA).  It is compared, every sample x variant,
with two decoders nobody here wrote:
  * RAW, from `plink1.9 --bfile PREFIX --recode A --keep-allele-order`
    (one row per sample, columns ID_ALLELE counting ALLELE);
  * the plinkio package (libplinkio), whose rows give copies of allele 2
    (A2), 3 when missing.
Exit status 0 when all three agree, 1 otherwise (first mismatches printed).
"""
import sys

import numpy as np
from plinkio import plinkfile

MISSING = -1


def read_bim(prefix):
    ids, a1, a2 = [], [], []
    with open(prefix + ".bim") as f:
        for line in f:
            fld = line.split()
            if fld:
                ids.append(fld[1])
                a1.append(fld[4])
                a2.append(fld[5])
    return ids, a1, a2


def count_fam(prefix):
    with open(prefix + ".fam") as f:
        return sum(1 for line in f if line.split())


def read_dump(path, m, n):
    g = np.full((m, n), 99, dtype=np.int8)
    with open(path) as f:
        lines = f.read().splitlines()
    if len(lines) != m:
        sys.exit(f"{path}: {len(lines)} lines but the .bim has {m} variants")
    for v, line in enumerate(lines):
        fld = line.split(" ")
        if len(fld) != n:
            sys.exit(f"{path}: line {v + 1}: {len(fld)} values but the .fam has {n} samples")
        g[v] = [MISSING if x == "NA" else int(x) for x in fld]
    return g


def read_raw(path, ids, a1, a2, n):
    """plink --recode A: rows = samples; returns variants x samples counts of A1."""
    m = len(ids)
    g = np.full((m, n), 99, dtype=np.int8)
    with open(path) as f:
        header = f.readline().split()
        cols = header[6:]
        if len(cols) != m:
            sys.exit(f"{path}: {len(cols)} variant columns but the .bim has {m}")
        flip = np.zeros(m, dtype=bool)
        for v, name in enumerate(cols):
            if not name.startswith(ids[v] + "_"):
                sys.exit(f"{path}: column {v + 7} is {name}, expected {ids[v]}_<allele>")
            counted = name[len(ids[v]) + 1:]
            if counted == a2[v] and counted != a1[v]:
                flip[v] = True  # plink counted A2 (should not happen with --keep-allele-order)
            elif counted != a1[v]:
                sys.exit(f"{path}: column {name} counts '{counted}', not A1 '{a1[v]}' or A2")
        rows = 0
        for s, line in enumerate(f):
            fld = line.split()[6:]
            if len(fld) != m:
                sys.exit(f"{path}: sample line {s + 2}: {len(fld)} values, expected {m}")
            g[:, s] = [MISSING if x == "NA" else int(x) for x in fld]
            rows += 1
        if rows != n:
            sys.exit(f"{path}: {rows} samples but the .fam has {n}")
    sel = flip[:, None] & (g != MISSING)
    g[sel] = 2 - g[sel]
    return g


def read_plinkio(prefix, m, n):
    pf = plinkfile.open(prefix)
    if not pf.one_locus_per_row():
        sys.exit("plinkio: the .bed is not SNP-major")
    if len(pf.get_samples()) != n or len(pf.get_loci()) != m:
        sys.exit("plinkio: sample or locus count differs from the .fam/.bim")
    g = np.full((m, n), 99, dtype=np.int8)
    for v, row in enumerate(pf):
        a = np.fromiter(row, dtype=np.int8, count=n)
        g[v] = np.where(a == 3, MISSING, 2 - a)  # plinkio counts A2
    pf.close()
    return g


def compare(name, ours, theirs, ids):
    bad = np.argwhere(ours != theirs)
    if len(bad) == 0:
        return True
    print(f"MISMATCH vs {name}: {len(bad)} of {ours.size} genotypes differ", file=sys.stderr)
    for v, s in bad[:10]:
        print(f"  variant {v} ({ids[v]}), sample {s}: epistream {ours[v, s]}, "
              f"{name} {theirs[v, s]} (-1 = missing)", file=sys.stderr)
    return False


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    prefix, dump, raw = sys.argv[1:]
    ids, a1, a2 = read_bim(prefix)
    m, n = len(ids), count_fam(prefix)
    ours = read_dump(dump, m, n)
    ok = compare("plink1.9 --recode A", ours, read_raw(raw, ids, a1, a2, n), ids)
    ok = compare("plinkio", ours, read_plinkio(prefix, m, n), ids) and ok
    n_miss = int((ours == MISSING).sum())
    print(f"{prefix}: {m} variants x {n} samples ({n_miss} missing calls): "
          f"{'identical' if ok else 'DIFFERENT'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
