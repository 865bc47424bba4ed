#!/bin/sh
# oracle_qt.sh -- quantitative traits (--stat linear) against PLINK 1.9 --epistasis on every
# pair (--epi1 1 makes PLINK fit and print each; --keep-allele-order: genotypes count the
# .bim's A1, as epistream's do, where PLINK's default counts the minor allele, which flips
# BETA_INT's sign when one variant's A1 is its major allele): the same pairs and failed fits, BETA_INT and
# STAT within 1e-4 relative of PLINK's printed values, P within 1e-4 of the exact tail of
# PLINK's STAT (tests/oracle/qt_check.py says why not of PLINK's P), .epi.qt.summary
# byte-identical.  Data: 800 samples x 150 variants with 2% missing calls and a phenotype
# file (values 0 and negative included, -9 and NA missing); and rare variants with missing
# calls, where PLINK's failure rules (VIF, collinearity, n <= 4) leave pairs without a fit.
# --stat logistic against PLINK's case/control --epistasis the same way.  Then the output bytes for 1
# and 2 threads, another tile size and the scalar kernel, and
# linear4's F test against numpy's least squares.
. "$(dirname "$0")/lib.sh"
need_cmd plink1.9
need_python numpy scipy
CHECK=$ES_SRCDIR/tests/oracle/qt_check.py

# qt_pheno FAM OUT SEED: a phenotype file 'FID IID QT' for the samples of FAM
qt_pheno() {
    "$PY" - "$1" "$2" "$3" <<'PYEOF'
import sys, numpy as np
fam, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = np.random.default_rng(seed)
ids = [l.split()[:2] for l in open(fam)]
with open(out, "w") as f:
    f.write("FID IID QT\n")
    for k, (a, b) in enumerate(ids):
        v = rng.normal(20.0, 4.0)
        s = "NA" if k % 97 == 5 else "-9" if k % 89 == 3 else "0" if k % 83 == 1 else repr(round(v, 6))
        f.write(f"{a} {b} {s}\n")
PYEOF
}

# check NAME: PLINK and epistream on $T/NAME with $T/NAME.pheno, then compare
check() {
    plink1.9 --bfile "$T/$1" --pheno "$T/$1.pheno" --epistasis --epi1 1 --allow-no-sex --keep-allele-order --threads 2 \
        --out "$T/$1.plink" >"$T/$1.plink.out" 2>&1 ||
        { cat "$T/$1.plink.out" >&2; fail "plink1.9 --epistasis on $1"; }
    "$EPISTREAM" scan --bfile "$T/$1" --pheno "$T/$1.pheno" --format plink --epi1 1 --top 1000000 \
        --threads 2 --quiet --out "$T/$1.es" >"$T/$1.es.out" 2>&1 ||
        { cat "$T/$1.es.out" >&2; fail "epistream scan (quantitative) on $1"; }
    grep -q "^statistic	linear$" "$T/$1.es.log" || fail "$1: a quantitative phenotype did not select --stat linear"
    echo "$1:"
    "$PY" "$CHECK" "$T/$1.plink.epi.qt" "$T/$1.es.epi.qt" "$T/$1.es.top.tsv" ||
        fail "$1: linear interaction test differs from PLINK 1.9 --epistasis"
    cmp "$T/$1.plink.epi.qt.summary" "$T/$1.es.epi.qt.summary" ||
        fail "$1: .epi.qt.summary differs from PLINK's"
}

"$EPISTREAM" sim --samples 800 --variants 150 --missing 0.02 --seed 3 --out "$T/d" >"$T/sim.out" 2>&1 ||
    { cat "$T/sim.out" >&2; fail "epistream sim"; }
qt_pheno "$T/d.fam" "$T/d.pheno" 1
check d

"$EPISTREAM" sim --samples 150 --variants 60 --missing 0.05 --maf-min 0.01 --maf-max 0.08 --seed 5 \
    --out "$T/r" >"$T/sim.out" 2>&1 || { cat "$T/sim.out" >&2; fail "epistream sim (rare)"; }
qt_pheno "$T/r.fam" "$T/r.pheno" 2
check r
grep -q " nan " "$T/r.es.epi.qt" || fail "r: expected failed fits on rare variants"

# --stat logistic on case/control: PLINK's --epistasis logistic regression (its .epi.cc with OR_INT),
# on common variants and on rare ones where the fits fail or stop at PLINK's 15th iteration
check_logistic() {
    plink1.9 --bfile "$T/$1" --epistasis --epi1 1 --allow-no-sex --keep-allele-order --threads 2 \
        --out "$T/$1.plink" >"$T/$1.plink.out" 2>&1 || { cat "$T/$1.plink.out" >&2; fail "plink1.9 --epistasis on $1"; }
    "$EPISTREAM" scan --bfile "$T/$1" --stat logistic --format plink --epi1 1 --top 1000000 --threads 2 --quiet \
        --out "$T/$1.es" >"$T/$1.es.out" 2>&1 || { cat "$T/$1.es.out" >&2; fail "scan --stat logistic on $1"; }
    echo "$1 (logistic):"
    "$PY" "$CHECK" "$T/$1.plink.epi.cc" "$T/$1.es.epi.cc" "$T/$1.es.top.tsv" logistic ||
        fail "$1: logistic interaction test differs from PLINK 1.9 --epistasis"
    # the summary: the same counts and best partners; BEST_CHISQ (4 digits) from a single-precision fit
    awk 'NR == FNR { for (k = 1; k <= NF; k++) a[FNR, k] = $k; n = FNR; next }
         { for (k = 1; k <= NF; k++) if ($k != a[FNR, k] && !(k == 6 && FNR > 1 && ($k - a[FNR, k]) ^ 2 <= (1e-3 * $k) ^ 2)) {
               print "line " FNR " column " k ": " a[FNR, k] " vs PLINK " $k; bad = 1 } }
         END { exit bad || n != FNR }' "$T/$1.es.epi.cc.summary" "$T/$1.plink.epi.cc.summary" ||
        fail "$1: logistic .epi.cc.summary differs from PLINK's"
}
"$EPISTREAM" sim --samples 1000 --variants 120 --missing 0.01 --seed 4 --out "$T/c" >"$T/sim.out" 2>&1 ||
    { cat "$T/sim.out" >&2; fail "epistream sim (case/control)"; }
check_logistic c
"$EPISTREAM" sim --samples 300 --variants 60 --missing 0.05 --maf-min 0.01 --maf-max 0.08 --seed 5 --out "$T/rc" \
    >"$T/sim.out" 2>&1 || { cat "$T/sim.out" >&2; fail "epistream sim (rare case/control)"; }
check_logistic rc

# the same bytes for any thread count, tile size and dot kernel, without the bound that
# drops pairs (EPISTREAM_QT_BOUND=0: every pair fitted), and with the partners of a tile in
# chunks that split its runs (EPISTREAM_QT_CHUNK; the default takes the whole tile here)
for run in "1 0 avx512vnni 1 0" "2 7 avx2 1 0" "2 16 scalar 1 0" "2 7 avx512vnni 0 0" "2 0 avx512vnni 1 5" \
    "1 0 avx512vnni 1 70"; do
    set -- $run
    EPISTREAM_QT_CHUNK=$5 EPISTREAM_QT_BOUND=$4 EPISTREAM_QT_KERNEL=$3 "$EPISTREAM" scan --bfile "$T/d" --pheno "$T/d.pheno" --threads "$1" --block "$2" \
        --top 500 --p-threshold 0.05 --quiet --out "$T/v$1$2" >"$T/v.out" 2>&1 ||
        { cat "$T/v.out" >&2; fail "scan --threads $1 --block $2 ($3)"; }
    if [ -f "$T/ref.top.tsv" ]; then
        for f in top.tsv sig.tsv summary.tsv; do
            cmp "$T/ref.$f" "$T/v$1$2.$f" || fail "$f differs with --threads $1 --block $2 ($3 kernel, bound $4, chunk $5)"
        done
    else
        for f in top.tsv sig.tsv summary.tsv; do cp "$T/v$1$2.$f" "$T/ref.$f"; done
    fi
done
echo "same bytes for 1 and 2 threads, blocks of 7 and 16, every dot kernel, with and without the bound, chunks of 5 and 70"
# the rare set (many fits fail on PLINK's rules: N_TOT must not change when pairs are dropped)
for b in 1 0; do
    EPISTREAM_QT_BOUND=$b "$EPISTREAM" scan --bfile "$T/r" --pheno "$T/r.pheno" --threads 2 --block 8 --top 20 \
        --p-threshold 0.001 --verbose --out "$T/rb$b" >"$T/rb$b.out" 2>&1 ||
        { cat "$T/rb$b.out" >&2; fail "scan of the rare set (bound $b)"; }
done
grep -q "dropped on a bound" "$T/rb1.out" || { cat "$T/rb1.out" >&2; fail "the bound dropped no pair of the rare set"; }
for f in top.tsv sig.tsv summary.tsv; do
    cmp "$T/rb1.$f" "$T/rb0.$f" || fail "$f of the rare set differs with and without the bound"
done
echo "the rare set: the same bytes with and without the bound"

# linear4: the F test of Y ~ A x B (cells) against Y ~ A + B (factors) by least squares
"$EPISTREAM" scan --bfile "$T/d" --pheno "$T/d.pheno" --stat linear4 --top 30 --threads 2 --quiet \
    --out "$T/l4" >"$T/l4.out" 2>&1 || { cat "$T/l4.out" >&2; fail "scan --stat linear4"; }
"$(dirname "$EPISTREAM")/tests/dump_geno" "$T/d" >"$T/d.geno" || fail "dump_geno"
"$PY" - "$T/d" "$T/d.pheno" "$T/l4.top.tsv" "$T/d.geno" <<'PYEOF' || fail "linear4 differs from numpy's least squares"
import sys, numpy as np
from scipy.stats import f as fdist
pre, phe, top, geno = sys.argv[1:]
ids = [l.split()[1] for l in open(pre + ".fam")]
snp = {l.split()[1]: k for k, l in enumerate(open(pre + ".bim"))}
val = {}
for l in list(open(phe))[1:]:
    a, b, v = l.split()
    val[b] = float("nan") if v in ("NA", "-9") else float(v)
y = np.array([val.get(i, float("nan")) for i in ids])
G = np.array([[3 if x == "NA" else int(x) for x in l.split()] for l in open(geno)])
rows = [l.rstrip("\n").split("\t") for l in open(top)]
h = {c: i for i, c in enumerate(rows[0])}
for r in rows[1:]:
    a, b = G[snp[r[h["SNP1"]]]], G[snp[r[h["SNP2"]]]]
    ok = (a < 3) & (b < 3) & ~np.isnan(y)
    a, b, yy = a[ok], b[ok], y[ok]
    def rss(X):
        beta, *_ = np.linalg.lstsq(X, yy, rcond=None)
        return float(((yy - X @ beta) ** 2).sum()), np.linalg.matrix_rank(X)
    one = np.ones_like(yy)
    add = np.column_stack([one] + [(a == l).astype(float) for l in (1, 2)] + [(b == l).astype(float) for l in (1, 2)])
    cells = np.column_stack([((a == i) & (b == j)).astype(float) for i in range(3) for j in range(3)])
    r0, p0 = rss(add)
    r1, p1 = rss(cells)
    df1, df2 = p1 - p0, len(yy) - p1
    F = ((r0 - r1) / df1) / (r1 / df2)
    P = fdist.sf(F, df1, df2)
    got_f, got_p, got_df = float(r[h["STAT"]]), float(r[h["P"]]), int(r[h["DF"]])
    assert got_df == df1, (r, df1)
    assert abs(got_f - F) <= 1e-8 * F, (r, F)
    assert abs(got_p - P) <= 1e-7 * P, (r, P)
print(f"linear4: {len(rows) - 1} pairs, F and P as numpy/scipy compute them")
PYEOF
exit 0
