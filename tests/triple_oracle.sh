#!/bin/sh
# triple_oracle.sh -- 3-way scans (scan --order 3) against an independent numpy brute force
# (tests/oracle/triple_ref.py): every triple's table, STAT, P, LOG10P, N and DF, the ranked list,
# the significant list and the per-variant summary, for chi2, mi, ig and k2, exhaustive and
# seeded (--pairs-from a hand-made list or a 2-way scan's .top.tsv, --pairs-top), on simulated
# sets (odd N, with and without missing calls, rare variants, a planted triple) and a hand-made
# one (monomorphic, all-missing and duplicate variants; phenotypes 0, -9 and NA).  Every scan
# runs again with --threads 2 and other --block sizes: the files must be the same bytes.  Last,
# the oracle must reject corrupted copies of a scan's files.
. "$(dirname "$0")/lib.sh"
need_python numpy scipy
REF=$ES_SRCDIR/tests/oracle/triple_ref.py

# check DATA TAG TOP P [SEEDS...]: scan $T/DATA with each statistic (--top TOP, --p-threshold P
# but for k2, --tables, --threads 1, automatic blocks; SEEDS: --pairs-from FILE or --pairs-top
# K), compare the four with the oracle, and rerun each with other threads and blocks.
check() {
    d=$1 tag=$2 top=$3 pt=$4
    shift 4
    for s in chi2 mi ig k2; do
        o=$T/$tag.$s
        sig="--p-threshold $pt" exts="top.tsv summary.tsv sig.tsv"
        [ $s = k2 ] && sig="" exts="top.tsv summary.tsv"
        # shellcheck disable=SC2086
        "$EPISTREAM" scan --bfile "$T/$d" --order 3 --stat $s --top "$top" $sig --tables --quiet \
            --threads 1 --out "$o" "$@" >"$o.err" 2>&1 || { cat "$o.err" >&2; fail "scan $tag --stat $s"; }
        for tb in 2:3 2:7 1:1; do
            # shellcheck disable=SC2086
            "$EPISTREAM" scan --bfile "$T/$d" --order 3 --stat $s --top "$top" $sig --tables --quiet \
                --threads "${tb%:*}" --block "${tb#*:}" --out "$o.b" "$@" >"$o.err" 2>&1 ||
                { cat "$o.err" >&2; fail "scan $tag --stat $s --threads:--block $tb"; }
            for ext in $exts; do
                cmp -s "$o.$ext" "$o.b.$ext" || fail "$tag --stat $s: .$ext differs with --threads:--block $tb"
            done
        done
    done
    "$PY" "$REF" --bfile "$T/$d" --stat chi2,mi,ig,k2 --out "$T/$tag.{stat}" --top "$top" \
        --p-threshold "$pt" "$@" >"$T/$tag.oracle" 2>&1 ||
        { cat "$T/$tag.oracle" >&2; fail "$tag differs from the numpy reference"; }
    sed "s/^/$tag: /" "$T/$tag.oracle"
}

sim() {
    out=$1
    shift
    "$EPISTREAM" sim "$@" --out "$T/$out" >"$T/sim.err" 2>&1 || { cat "$T/sim.err" >&2; fail "sim $*"; }
}

# odd N with missing calls; N = 257 without; rare variants (empty genotype columns, failed tests)
sim a --samples 101 --variants 14 --missing 0.05 --seed 4
sim b --samples 257 --variants 30 --pairs 1 --triples 1 --effect 4 --seed 7
sim c --samples 257 --variants 22 --missing 0.05 --maf-min 0.02 --maf-max 0.15 --seed 5

# hand-made: 61 samples (3 without a usable phenotype: 0, -9, NA), 12 variants: h0 monomorphic
# (all two copies of A1), h1 all missing, h2 20 % missing, h3 monomorphic (no copy) with 3
# missing, h4 and h5 identical (ties between identical tables), h6 one heterozygote and one
# homozygote in a sea of no copies, h7 all heterozygous but 4 missing, h8 half missing,
# h9..h11 random
"$PY" - "$T/h" <<'EOF' || fail "writing the hand-made fileset"
import sys
import numpy as np
out = sys.argv[1]
rng = np.random.default_rng(17)
n, m = 61, 12
g = rng.integers(0, 3, size=(m, n))
miss = np.zeros((m, n), dtype=bool)
g[0] = 2
miss[1] = True
miss[2] = rng.random(n) < 0.2
g[3] = 0
miss[3, [4, 30, 60]] = True
g[5] = g[4]
g[6] = 0
g[6, 10], g[6, 20] = 1, 2
g[7] = 1
miss[7, [0, 1, 2, 59]] = True
miss[8] = rng.random(n) < 0.5
code = np.array([3, 2, 0])[g]          # copies of A1 -> PLINK code: 0 -> 11, 1 -> 10, 2 -> 00
code[miss] = 1                         # 01 missing
per = (n + 3) // 4
bed = bytearray(b"\x6c\x1b\x01")
for v in range(m):
    row = np.zeros(per * 4, dtype=np.uint8)
    row[:n] = code[v]
    b = row.reshape(per, 4)
    bed += bytes((b[:, 0] | b[:, 1] << 2 | b[:, 2] << 4 | b[:, 3] << 6).astype(np.uint8))
open(out + ".bed", "wb").write(bytes(bed))
with open(out + ".bim", "w") as f:
    for v in range(m):
        f.write(f"{1 + v // 5}\th{v}\t0\t{1000 * (v + 1)}\tA\tG\n")
y = rng.integers(1, 3, size=n).astype(object)
y[5], y[9], y[17] = "-9", "0", "NA"
with open(out + ".fam", "w") as f:
    for s in range(n):
        f.write(f"f{s} i{s} 0 0 {1 + s % 2} {y[s]}\n")
EOF

# seed lists: by hand (a pair given twice, once reversed; pairs sharing variants, so that
# triples are reached from several seeds) and a 2-way scan's ranked list
printf 'SNP1\tSNP2\nsnp3\tsnp7\nsnp7\tsnp3\nsnp7\tsnp9\nsnp1\tsnp14\nsnp3\tsnp9\n' >"$T/seeds_a.tsv"
printf 'SNP1\tSNP2\nh1\th4\nh0\th3\nh4\th5\nh5\th4\nh2\th11\nh6\th7\n' >"$T/seeds_h.tsv"
"$EPISTREAM" scan --bfile "$T/b" --stat mi --top 6 --quiet --out "$T/b2" || fail "2-way scan of b"

ALL=100000
check a a_all $ALL 1
check a a_from $ALL 1 --pairs-from "$T/seeds_a.tsv"
check b b_all $ALL 1
check b b_cut 25 0.05
check b b_from2 $ALL 0.2 --pairs-from "$T/b2.top.tsv"
check c c_all $ALL 1
check c c_top $ALL 1 --pairs-top 5
check h h_all $ALL 1
check h h_from 30 1 --pairs-from "$T/seeds_h.tsv"
check h h_top $ALL 1 --pairs-top 6

# the oracle must catch what it is there for: corrupted copies of a scan's mi files
# (mutant WHY PATTERN DATA SCAN TOP P CMD...: copy $T/SCAN.mi.* (a scan with --top TOP
# --p-threshold P), run CMD on the copy; the oracle (given $MUT_SEEDS too) must fail with
# PATTERN in its report)
mutant() {
    why=$1 pat=$2 d=$3 from=$4 top=$5 pt=$6
    shift 6
    for ext in top.tsv sig.tsv summary.tsv; do cp "$T/$from.mi.$ext" "$T/mut.mi.$ext"; done
    "$@" || fail "could not make the mutant: $why"
    # shellcheck disable=SC2086
    if "$PY" "$REF" --bfile "$T/$d" --stat mi --out "$T/mut.mi" --top "$top" --p-threshold "$pt" \
        $MUT_SEEDS >"$T/mut.out" 2>&1; then
        fail "the oracle missed: $why"
    fi
    grep -q -- "$pat" "$T/mut.out" || { cat "$T/mut.out" >&2; fail "the oracle did not say '$pat' for: $why"; }
}
edit() { # edit FILE LINE FIELD AWK_EXPR: set the field of that line to the expression
    awk -F '\t' -v OFS='\t' -v CONVFMT=%.12g -v OFMT=%.12g -v l="$2" -v c="$3" \
        "NR == l { \$c = $4 } { print }" "$1" >"$1.x" && mv "$1.x" "$1"
}
# best_to FILE LINE BIM V: make the third variant of a summary line's best triple .bim line V
best_to() {
    awk -F '\t' -v OFS='\t' -v l="$2" -v v="$4" 'NR == FNR { if (FNR == v) { c = $1; id = $2; p = $4 }; next }
        FNR == l { $11 = c; $12 = id; $13 = p } { print }' "$3" "$1" >"$1.x" && mv "$1.x" "$1"
}
# top_swap_in FILE OTHER LINE: drop the best row, append line LINE of OTHER (a longer list)
top_swap_in() {
    { sed '2d' "$1" && sed -n "${3}p" "$2"; } >"$1.x" && mv "$1.x" "$1"
}
MUT_SEEDS=
A="a a_all $ALL 1"
mutant "a table cell off by one" ": table" $A edit "$T/mut.mi.top.tsv" 5 20 '$c + 1'
mutant "a STAT off in the 8th digit" ": STAT" $A edit "$T/mut.mi.top.tsv" 9 10 '$c * 1.00000001'
mutant "a P off in the 8th digit" ": P " $A edit "$T/mut.mi.sig.tsv" 30 11 '$c * 1.00000001'
mutant "a wrong DF" ": DF " $A edit "$T/mut.mi.sig.tsv" 12 14 '$c - 1'
mutant "a wrong N" ": N " $A edit "$T/mut.mi.top.tsv" 40 13 '$c - 1'
mutant "a triple missing from .sig.tsv" "is missing" $A sed -i '17d' "$T/mut.mi.sig.tsv"
mutant "two ranked rows swapped" "ranked after" $A sed -i '2{h;d};3{G}' "$T/mut.mi.top.tsv"
mutant "a wrong N_TOT" "N_TOT" $A edit "$T/mut.mi.summary.tsv" 4 5 '$c + 1'
mutant "a wrong N_SIG" "N_SIG" $A edit "$T/mut.mi.summary.tsv" 6 4 '$c - 1'
mutant "a wrong best triple" "but .* has" $A best_to "$T/mut.mi.summary.tsv" 3 "$T/a.bim" 14
mutant "the best triple left out of --top 25" "left out, better" b b_cut 25 0.05 \
    top_swap_in "$T/mut.mi.top.tsv" "$T/b_all.mi.top.tsv" 27
# the seeded set: the scan of seeds_a.tsv checked against a list with one pair less
printf 'SNP1\tSNP2\nsnp3\tsnp7\nsnp7\tsnp9\nsnp1\tsnp14\n' >"$T/seeds_x.tsv"
MUT_SEEDS="--pairs-from $T/seeds_x.tsv"
mutant "a seed pair too many" "not in the set scanned" a a_from $ALL 1 true
exit 0
