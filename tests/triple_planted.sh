#!/bin/sh
# triple_planted.sh -- end to end: `epistream sim --triples` plants a purely 3-way interaction
# (no marginal and no 2-way signal); an exhaustive 3-way scan must rank it first (mi, ig, chi2,
# k2), and a 2-way scan must not see any pair of its variants (not in the top 5, not significant
# at a Bonferroni threshold).  Also the truth file's triple block, the planted variants' MAF of
# 1/2 and missing marginal signal, pairs and triples together, determinism, the size check and
# the bundled examples/data/triple.
#
# Strength: 2,000 samples x 40 variants, one triple, odds ratio 8 between XOR 1 and 0.  Over
# seeds 1..25 the planted triple beat the best other triple by a statistic ratio of 6.7 or more
# (mi, chi2; ig 9 or more; K2 0.86 or less), and no pair of its variants was in the top 5 of a
# 2-way boost, chi2 or mi scan or below p = 0.05 / 780; so the seeds used here are not
# hand-picked survivors.
. "$(dirname "$0")/lib.sh"

N=2000
M=40
SIM_OPTS="--samples $N --variants $M --triples 1 --effect 8"
PAIR_HEAD="SNP1	SNP2	INDEX1	INDEX2	MAF1	MAF2	EFFECT	SCALE"
TRIPLE_HEAD="SNP1	SNP2	SNP3	INDEX1	INDEX2	INDEX3	MAF1	MAF2	MAF3	EFFECT	SCALE"
BONF=$(awk -v m=$M 'BEGIN { printf "%.6g", 0.05 / (m * (m - 1) / 2) }')

sim() {
    out=$1
    shift
    "$EPISTREAM" sim "$@" --out "$T/$out" 2>"$T/sim.err" || { cat "$T/sim.err" >&2; fail "sim $*"; }
}

for seed in 1 2 3; do
    d=$T/d$seed
    sim d$seed $SIM_OPTS --seed $seed

    # the truth: the (empty) pairs block, then the triple's header and row
    [ "$(wc -l <"$d.truth")" -eq 3 ] || fail "seed $seed: .truth has $(wc -l <"$d.truth") lines, expected 3"
    [ "$(sed -n 1p "$d.truth")" = "$PAIR_HEAD" ] || fail "seed $seed: .truth pair header"
    [ "$(sed -n 2p "$d.truth")" = "$TRIPLE_HEAD" ] || fail "seed $seed: .truth triple header"
    awk -F '\t' 'NR == 3 && !(NF == 11 && $4 < $5 && $5 < $6 && $1 == "snp" $4 + 1 &&
        $2 == "snp" $5 + 1 && $3 == "snp" $6 + 1 && $7 == "0.500000" && $8 == "0.500000" &&
        $9 == "0.500000" && $10 == 8 && $11 == 1) { exit 1 }' "$d.truth" ||
        fail "seed $seed: the triple row does not match its IDs, order, MAF, effect or scale"
    tri=$(awk 'NR == 3 { print $1, $2, $3 }' "$d.truth")
    [ "$(awk '$6 == 2' "$d.fam" | wc -l)" -eq $((N / 2)) ] || fail "seed $seed: half cases"

    # the 3-way scan finds it first, strictly ahead, with every sample
    for stat in mi ig chi2 k2; do
        o=$T/o3_${seed}_$stat
        "$EPISTREAM" scan --bfile "$d" --order 3 --stat $stat --top 5 --quiet --out "$o" ||
            fail "scan --order 3 --stat $stat (seed $seed)"
        got=$(awk 'NR == 2 { print $2, $5, $8 }' "$o.top.tsv")
        if [ "$got" != "$tri" ]; then
            echo "planted: $tri" >&2
            head -n 4 "$o.top.tsv" >&2
            fail "seed $seed: the planted triple is not first under --order 3 --stat $stat"
        fi
        awk -v k2=$([ $stat = k2 ] && echo 1 || echo 0) -v n=$N '
            NR == 2 { a = $10; if ($13 != n) exit 1 }
            NR == 3 { b = $10 }
            END { if (k2 ? !(a < b) : !(a > b)) exit 1 }' "$o.top.tsv" ||
            fail "seed $seed $stat: planted triple not strictly ahead, or N wrong"
    done

    # no pair of its variants in a 2-way scan's top 5 or below the Bonferroni threshold
    echo "$tri" | tr ' ' '\n' >"$T/planted_ids"
    for stat in boost chi2 mi ig k2; do
        o=$T/o2_${seed}_$stat
        if [ $stat = k2 ]; then sig=""; else sig="--p-threshold $BONF"; fi
        # shellcheck disable=SC2086
        "$EPISTREAM" scan --bfile "$d" --stat $stat --top 5 $sig --quiet --out "$o" ||
            fail "2-way scan --stat $stat (seed $seed)"
        for f in "$o.top.tsv" $([ $stat = k2 ] || echo "$o.sig.tsv"); do
            awk 'NR == FNR { p[$1] = 1; next } FNR > 1 && ($2 in p) && ($5 in p) { exit 1 }' \
                "$T/planted_ids" "$f" || {
                cat "$f" >&2
                fail "seed $seed: a pair of the planted triple in ${f##*/} (2-way --stat $stat)"
            }
        done
    done

    # each planted variant: heterozygous about half the time (MAF 1/2), no marginal signal
    # (genotype x class chi2, df 2: p = exp(-chi2 / 2) > 1e-4), from the planted pairs' tables
    "$EPISTREAM" scan --bfile "$d" --extract "$T/planted_ids" --stat chi2 --top 3 --tables --quiet \
        --out "$T/pp" || fail "2-way scan of the planted variants (seed $seed)"
    awk -F '\t' -v n=$N '
        NR == 1 { next }
        {
            rows++
            for (side = 0; side < 2; side++) {
                for (g = 0; g < 3; g++) x0[g] = x1[g] = 0
                for (a = 0; a < 3; a++)
                    for (b = 0; b < 3; b++) {
                        g = side ? b : a
                        x0[g] += $(12 + a * 3 + b)
                        x1[g] += $(21 + a * 3 + b)
                    }
                c0 = x0[0] + x0[1] + x0[2]
                c1 = x1[0] + x1[1] + x1[2]
                chi = 0
                for (g = 0; g < 3; g++) {
                    col = x0[g] + x1[g]
                    if (!col) continue
                    e0 = c0 * col / n
                    e1 = c1 * col / n
                    chi += (x0[g] - e0) ^ 2 / e0 + (x1[g] - e1) ^ 2 / e1
                }
                het = (x0[1] + x1[1]) / n
                id = side ? $5 : $2
                if (het < 0.45 || het > 0.55) { print id ": heterozygous fraction " het; bad = 1 }
                if (chi > 18.42) { print id ": marginal chi2 " chi " (df 2, p < 1e-4)"; bad = 1 }
            }
        }
        END { if (rows != 3) { print rows " pairs of planted variants"; bad = 1 } exit bad }' \
        "$T/pp.top.tsv" >&2 || fail "seed $seed: a planted variant is not a fair het coin or has a marginal effect"

    # PLINK's allelic test agrees there is no marginal effect (where plink1.9 exists)
    no_marginal "$d" "$T/planted_ids" || fail "seed $seed: planted variant with a marginal effect (PLINK)"
done

# pairs and triples together: the truth has both blocks; a 2-way scan finds the pair, a 3-way ig
# scan the triple (its triples with the planted pair gain little over that pair)
sim both --samples $N --variants $M --pairs 1 --triples 1 --effect 8 --maf-min 0.2 --seed 4
[ "$(wc -l <"$T/both.truth")" -eq 4 ] || fail "pairs and triples: .truth lines"
[ "$(sed -n 1p "$T/both.truth")" = "$PAIR_HEAD" ] && [ "$(sed -n 3p "$T/both.truth")" = "$TRIPLE_HEAD" ] ||
    fail "pairs and triples: .truth headers"
awk -F '\t' 'NR == 2 { split($1 " " $2, p, " ") } NR == 4 { for (i = 1; i <= 3; i++) if ($i == p[1] || $i == p[2]) exit 1 }' \
    "$T/both.truth" || fail "pairs and triples share a variant"
"$EPISTREAM" scan --bfile "$T/both" --stat boost --top 3 --quiet --out "$T/both2" || fail "scan both"
[ "$(awk 'NR == 2 { print $2, $5 }' "$T/both2.top.tsv")" = "$(awk 'NR == 2 { print $1, $2 }' "$T/both.truth")" ] ||
    fail "pairs and triples: the planted pair is not first in the 2-way scan"
"$EPISTREAM" scan --bfile "$T/both" --order 3 --stat ig --top 3 --quiet --out "$T/both3" || fail "scan both 3"
[ "$(awk 'NR == 2 { print $2, $5, $8 }' "$T/both3.top.tsv")" = "$(awk 'NR == 4 { print $1, $2, $3 }' "$T/both.truth")" ] ||
    fail "pairs and triples: the planted triple is not first in the 3-way ig scan"

# determinism: same options -> same bytes, whatever the threads; --triples 0 is the pairs-only run
# shellcheck disable=SC2086
sim_same_bytes "$T/d1" $SIM_OPTS --seed 1
cmp -s "$T/d1.truth" "$T/d2.truth" && fail "different seeds gave the same .truth"
sim p0 --samples 300 --variants 50 --pairs 2 --seed 5
sim p1 --samples 300 --variants 50 --pairs 2 --triples 0 --seed 5
for ext in bed bim fam truth; do
    cmp -s "$T/p0.$ext" "$T/p1.$ext" || fail "--triples 0 changed the pairs-only .$ext"
done

# the bundled example (README.md): the command in examples/data/README.md remakes it byte for
# byte, and the 3-way ig scan of it puts its planted triple first
ex=$ES_SRCDIR/examples/data/triple
sim ex --samples 1000 --variants 100 --triples 1 --effect 4
for ext in bed bim fam truth; do
    cmp -s "$ex.$ext" "$T/ex.$ext" || fail "examples/data/triple.$ext is not what its command makes"
done
"$EPISTREAM" scan --bfile "$ex" --order 3 --stat ig --top 5 --quiet --out "$T/ex3" || fail "scan the example"
[ "$(awk 'NR == 2 { print $2, $5, $8 }' "$T/ex3.top.tsv")" = "$(awk 'NR == 3 { print $1, $2, $3 }' "$ex.truth")" ] ||
    fail "examples/data/triple: the planted triple is not first"

# too few variants for the plan: a usage error naming the options, and no files
expect_fail "$T/e1.out" "$EPISTREAM" sim --samples 100 --variants 7 --pairs 1 --triples 2 --out "$T/bad"
grep -q -- "--variants" "$T/e1.out" && grep -q -- "--triples 2" "$T/e1.out" ||
    { cat "$T/e1.out" >&2; fail "no message naming --variants and --triples"; }
expect_fail "$T/e2.out" "$EPISTREAM" sim --samples 100 --variants 2 --triples 1 --out "$T/bad"
expect_fail "$T/e3.out" "$EPISTREAM" sim --samples 100 --variants 20 --triples -1 --out "$T/bad"
ls "$T"/bad.* 2>/dev/null && fail "files left after a failed sim"
exit 0
