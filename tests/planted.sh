#!/bin/sh
# planted.sh -- end to end: `epistream sim` plants interacting pairs with no marginal effect,
# `epistream scan` must rank them first under every statistic.  Also checks the simulator's
# files (sizes, case/control split, shuffled order), its determinism and its failure modes.
#
# Strength: 2,000 samples x 200 variants, 2 pairs, interaction OR 8, MAF 0.2..0.5.  Over seeds
# 1..40 the weaker planted pair beat the best null pair under every statistic (statistic ratio
# >= 1.33 for boost/chi2/mi/ig, K2 gap >= 6 nats; median ratio about 2), so the seeds used here
# are not hand-picked survivors.
. "$(dirname "$0")/lib.sh"

N=2000
M=200
P=2
SIM_OPTS="--samples $N --variants $M --pairs $P --effect 8 --maf-min 0.2 --maf-max 0.5"

# "SNP1 SNP2" of the planted pairs, sorted
truth_pairs() { awk 'NR > 1 { print $1, $2 }' "$1" | sort; }

for seed in 1 2 3; do
    d="$T/d$seed"
    "$EPISTREAM" sim $SIM_OPTS --seed $seed --out "$d" 2>"$T/sim.err" || {
        cat "$T/sim.err" >&2
        fail "sim seed $seed"
    }

    # the fileset itself
    [ "$(wc -l <"$d.bim")" -eq $M ] || fail "seed $seed: .bim lines"
    [ "$(wc -l <"$d.fam")" -eq $N ] || fail "seed $seed: .fam lines"
    [ "$(wc -c <"$d.bed")" -eq $((3 + M * ((N + 3) / 4))) ] || fail "seed $seed: .bed size"
    [ "$(head -c 3 "$d.bed" | od -An -tx1 | tr -d ' \n')" = 6c1b01 ] || fail "seed $seed: magic"
    [ "$(awk '$6 == 2' "$d.fam" | wc -l)" -eq $((N / 2)) ] || fail "seed $seed: half cases"
    [ "$(awk '$6 == 1' "$d.fam" | wc -l)" -eq $((N - N / 2)) ] || fail "seed $seed: controls"
    [ "$(head -n $((N / 2)) "$d.fam" | awk '$6 == 2' | wc -l)" -lt $((N / 2)) ] ||
        fail "seed $seed: cases are contiguous, not shuffled"
    awk 'NR > 1 && (p[$1] >= $4 || $1 < c) { exit 1 } { p[$1] = $4; c = $1 }' "$d.bim" ||
        fail "seed $seed: chromosomes/positions not increasing"
    [ "$(wc -l <"$d.truth")" -eq $((P + 1)) ] || fail "seed $seed: .truth lines"
    awk 'NR > 1 && !($3 < $4 && $1 == "snp" $3 + 1 && $2 == "snp" $4 + 1) { exit 1 }' "$d.truth" ||
        fail "seed $seed: .truth indices do not match IDs or are not ordered"
    truth_pairs "$d.truth" >"$T/truth"

    for stat in boost chi2 mi ig k2; do
        o="$T/o_${seed}_$stat"
        "$EPISTREAM" scan --bfile "$d" --stat $stat --top 10 --quiet --out "$o" ||
            fail "scan --stat $stat (seed $seed)"
        [ "$(wc -l <"$o.top.tsv")" -eq 11 ] || fail "seed $seed $stat: --top 10 lines"
        awk -v p=$P 'NR > 1 && NR <= p + 1 { print $2, $5 }' "$o.top.tsv" | sort >"$T/got"
        if ! cmp -s "$T/truth" "$T/got"; then
            echo "planted:" >&2
            cat "$T/truth" >&2
            echo "top of $stat:" >&2
            head -n $((P + 3)) "$o.top.tsv" >&2
            fail "seed $seed: planted pairs are not the top $P of --stat $stat"
        fi
        # the planted pairs are strictly better than the best null pair, and use all samples
        awk -v p=$P -v k2=$([ $stat = k2 ] && echo 1 || echo 0) -v n=$N '
            NR == p + 1 { last = $7 }
            NR == p + 2 { nxt = $7 }
            NR > 1 && NR <= p + 1 && $10 != n { bad = 1 }
            END { if (bad || (k2 ? !(last < nxt) : !(last > nxt))) exit 1 }' "$o.top.tsv" ||
            fail "seed $seed $stat: planted pairs not strictly ahead, or N wrong"
    done

    # no marginal effect: PLINK's allelic test at the planted variants (where plink1.9 exists)
    awk 'NR > 1 { print $1; print $2 }' "$d.truth" >"$T/planted_ids"
    no_marginal "$d" "$T/planted_ids" || fail "seed $seed: planted variant with a marginal effect"
done

# determinism: same options -> same bytes; another seed -> other bytes; --missing only adds holes
# shellcheck disable=SC2086
sim_same_bytes "$T/d1" $SIM_OPTS --seed 1
cmp -s "$T/d1.bed" "$T/d2.bed" && fail "different seeds gave the same .bed"
cmp -s "$T/d1.truth" "$T/d2.truth" && fail "different seeds gave the same .truth"
"$EPISTREAM" sim $SIM_OPTS --seed 1 --missing 0.05 --out "$T/miss" 2>/dev/null ||
    fail "sim --missing"
cmp -s "$T/d1.fam" "$T/miss.fam" || fail "--missing changed the samples"
cmp -s "$T/d1.bed" "$T/miss.bed" && fail "--missing 0.05 changed nothing"
"$EPISTREAM" sim $SIM_OPTS --seed 1 --missing 0.05 --out "$T/miss2" 2>/dev/null ||
    fail "sim --missing"
cmp -s "$T/miss.bed" "$T/miss2.bed" || fail "--missing is not deterministic"
"$EPISTREAM" scan --bfile "$T/miss" --stat boost --top 10 --quiet --out "$T/om" ||
    fail "scan missing"
awk -v p=$P 'NR > 1 && NR <= p + 1 { print $2, $5 }' "$T/om.top.tsv" | sort >"$T/got"
truth_pairs "$T/miss.truth" | cmp -s - "$T/got" || fail "--missing 0.05: planted pairs not on top"
awk -v n=$N 'NR > 1 && $10 >= n { exit 1 }' "$T/om.top.tsv" || fail "--missing 0.05: N not reduced"

# odd sample count: floor(N/2) cases; null data with no pairs
"$EPISTREAM" sim --samples 101 --variants 30 --pairs 0 --out "$T/odd" 2>/dev/null || fail "sim odd"
[ "$(awk '$6 == 2' "$T/odd.fam" | wc -l)" -eq 50 ] || fail "101 samples: 50 cases"
[ "$(wc -c <"$T/odd.bed")" -eq $((3 + 30 * 26)) ] || fail "101 samples: .bed size"
[ "$(wc -l <"$T/odd.truth")" -eq 1 ] || fail "no pairs: header-only .truth"

# failures leave nothing behind
expect_fail "$T/e1.out" "$EPISTREAM" sim --samples 100 --variants 10 --maf-min 0.3 --maf-max 0.2 \
    --out "$T/bad"
grep -q 'maf' "$T/e1.out" || fail "no message for maf-min > maf-max"
expect_fail "$T/e2.out" "$EPISTREAM" sim --samples 100 --variants 10 --missing 1 --out "$T/bad"
expect_fail "$T/e3.out" "$EPISTREAM" sim --samples 1 --variants 10 --out "$T/bad"
expect_fail "$T/e4.out" "$EPISTREAM" sim --samples 100 --variants 10 --out "$T/nodir/bad"
grep -q "nodir/bad" "$T/e4.out" || fail "I/O error does not name the file"
ls "$T"/bad.* "$T"/nodir 2>/dev/null && fail "files left after a failed sim"
exit 0
