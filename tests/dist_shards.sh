#!/bin/sh
# dist_shards.sh -- scan --shard I/N and `epistream merge`: N = 1, 3 and 7 shards merged give the
# bytes of the unsharded run (2-way boost with --p-threshold and --format plink; 3-way exhaustive
# and seeded with --p-threshold), whatever order the shards are given in; a shard can be resumed;
# merge refuses a missing, duplicated, unfinished or foreign shard (other data, other options,
# other split) with its reason, and writes nothing then.
. "$(dirname "$0")/lib.sh"

D=$ES_SRCDIR/examples/data/example
T3=$ES_SRCDIR/examples/data/triple

same() { # REF OUT WHAT FILES...
    ref=$1 out=$2 what=$3
    shift 3
    for f in "$@"; do
        cmp -s "$ref.$f" "$out.$f" || fail "$what: $out.$f differs from the unsharded run's"
    done
}

# sharded NAME N ARGS...: run the N shards (in reverse order), merge them (shuffled)
sharded() {
    name=$1 n=$2
    shift 2
    i=$n
    while [ $i -ge 1 ]; do
        "$EPISTREAM" scan "$@" --quiet --shard $i/$n --out "$T/$name" 2>"$T/err" || { cat "$T/err"; fail "shard $i/$n: $*"; }
        [ -e "$T/$name.shard-$i-of-$n.state" ] || fail "shard $i/$n wrote no state"
        [ ! -e "$T/$name.top.tsv" ] || fail "a shard wrote results"
        i=$((i - 1))
    done
    list=$(ls "$T/$name".shard-*-of-$n.state | sort -r)
    # shellcheck disable=SC2086
    "$EPISTREAM" merge --quiet $list 2>"$T/err" || { cat "$T/err"; fail "merge of $n shards: $*"; }
}

"$EPISTREAM" scan --bfile "$D" --p-threshold 0.001 --device cpu --quiet --out "$T/r2" || fail "reference"
"$EPISTREAM" scan --bfile "$D" --format plink --device cpu --quiet --out "$T/r2p" || fail "reference plink"
"$EPISTREAM" scan --bfile "$T3" --order 3 --p-threshold 0.001 --device cpu --quiet --out "$T/r3" || fail "reference 3-way"
"$EPISTREAM" scan --bfile "$T3" --order 3 --pairs-top 15 --p-threshold 0.01 --device cpu --quiet --out "$T/r3s" ||
    fail "reference seeded 3-way"
for n in 1 3 7; do
    sharded s2n$n $n --bfile "$D" --p-threshold 0.001 --device cpu --block 64
    same "$T/r2" "$T/s2n$n" "2-way, $n shards" top.tsv sig.tsv summary.tsv
    sharded s3n$n $n --bfile "$T3" --order 3 --p-threshold 0.001 --device cpu --block 8
    same "$T/r3" "$T/s3n$n" "3-way, $n shards" top.tsv sig.tsv summary.tsv
done
sharded s2p 3 --bfile "$D" --format plink --device cpu --block 64 --threads 1
same "$T/r2p" "$T/s2p" "2-way --format plink, 3 shards" top.tsv epi.cc epi.cc.summary
sharded s3s 3 --bfile "$T3" --order 3 --pairs-top 15 --p-threshold 0.01 --device cpu --block 8
same "$T/r3s" "$T/s3s" "seeded 3-way, 3 shards" top.tsv sig.tsv summary.tsv
# merge --out elsewhere
"$EPISTREAM" merge --quiet --out "$T/elsewhere" "$T"/s2n3.shard-*-of-3.state || fail "merge --out"
same "$T/r2" "$T/elsewhere" "merge --out" top.tsv sig.tsv summary.tsv

# refusals
S=$T/s2n3
expect_fail "$T/e1" "$EPISTREAM" merge --out "$T/x" "$S.shard-1-of-3.state" "$S.shard-3-of-3.state"
grep -q "shard 2 of 3 is missing" "$T/e1" || { cat "$T/e1"; fail "a missing shard not named"; }
expect_fail "$T/e2" "$EPISTREAM" merge --out "$T/x" "$S.shard-1-of-3.state" "$S.shard-2-of-3.state" \
    "$S.shard-2-of-3.state" "$S.shard-3-of-3.state"
grep -q "shard 2 of 3 is given twice" "$T/e2" || { cat "$T/e2"; fail "a duplicated shard not named"; }
expect_fail "$T/e3" "$EPISTREAM" merge --out "$T/x" "$S.shard-1-of-3.state" "$T/s2n7.shard-2-of-7.state"
grep -q "shards of different splits" "$T/e3" || { cat "$T/e3"; fail "shards of two splits not refused"; }
"$EPISTREAM" scan --bfile "$D" --stat chi2 --p-threshold 0.001 --device cpu --block 64 --quiet --shard 2/3 \
    --out "$T/other" || fail "a shard with other options"
expect_fail "$T/e4" "$EPISTREAM" merge --out "$T/x" "$S.shard-1-of-3.state" "$T/other.shard-2-of-3.state" \
    "$S.shard-3-of-3.state"
grep -q "other.shard-2-of-3.state: a shard of a scan with other options" "$T/e4" || { cat "$T/e4"; fail "a foreign shard not refused"; }
"$EPISTREAM" scan --bfile "$D" --p-threshold 0.001 --device cpu --block 64 --quiet --shard 2/3 --out "$T/od" \
    --exclude "$ES_SRCDIR/examples/data/example.truth" || fail "a shard of other data"
expect_fail "$T/e5" "$EPISTREAM" merge --out "$T/x" "$S.shard-1-of-3.state" "$T/od.shard-2-of-3.state" \
    "$S.shard-3-of-3.state"
grep -q "a shard of a scan of other data" "$T/e5" || { cat "$T/e5"; fail "a shard of other data not refused"; }
# unfinished: killed half-way through a later checkpoint, then resumed to the end
EPISTREAM_TEST_KILL_CHECKPOINT=5 "$EPISTREAM" scan --bfile "$D" --p-threshold 0.001 --device cpu --block 64 \
    --quiet --shard 2/3 --checkpoint-every 0 --out "$T/u" 2>/dev/null && fail "the kill hook did not fire"
expect_fail "$T/e6" "$EPISTREAM" merge --out "$T/x" "$S.shard-1-of-3.state" "$T/u.shard-2-of-3.state" \
    "$S.shard-3-of-3.state"
grep -q "shard 2 of 3 is not finished" "$T/e6" || { cat "$T/e6"; fail "an unfinished shard not refused"; }
[ ! -e "$T/x.top.tsv" ] || fail "a refused merge wrote outputs"
"$EPISTREAM" scan --bfile "$D" --p-threshold 0.001 --device cpu --block 64 --quiet --shard 2/3 --resume \
    --out "$T/u" || fail "resume a shard"
"$EPISTREAM" merge --quiet --out "$T/u" "$S.shard-1-of-3.state" "$T/u.shard-2-of-3.state" "$S.shard-3-of-3.state" ||
    fail "merge with a resumed shard"
same "$T/r2" "$T/u" "a resumed shard" top.tsv sig.tsv summary.tsv
expect_fail "$T/e7" "$EPISTREAM" scan --bfile "$D" --device cpu --shard 4/3 --out "$T/x"
grep -q "1 <= I <= N" "$T/e7" || { cat "$T/e7"; fail "--shard 4/3 accepted"; }
expect_fail "$T/e8" "$EPISTREAM" merge --out "$T/x" "$T/nonexistent.state"
grep -q "nonexistent.state: cannot open" "$T/e8" || { cat "$T/e8"; fail "a missing file not named"; }
# a quantitative trait (--stat linear, BETA_INT in the state): shards, their merge and a killed
# and resumed run give the one run's bytes; a shard of another phenotype is refused
awk 'BEGIN { print "FID IID QT" } { print $1, $2, (NR * 0.37) % 5 }' "$D.fam" >"$T/qt.pheno"
awk 'NR == 1 { print "FID IID QT" } NR > 1 { print $1, $2, $3 + 1 }' "$T/qt.pheno" >"$T/qt2.pheno"
Q="--bfile $D --pheno $T/qt.pheno --p-threshold 0.01 --device cpu --block 64 --quiet"
"$EPISTREAM" scan $Q --out "$T/q1" || fail "quantitative scan"
grep -q "BETA_INT" "$T/q1.top.tsv" || fail "no BETA_INT column"
EPISTREAM_QT_BOUND=0 "$EPISTREAM" scan $Q --out "$T/q0" || fail "quantitative scan without the bound"
same "$T/q1" "$T/q0" "a quantitative scan without the bound" top.tsv sig.tsv summary.tsv
for i in 1 2 3; do "$EPISTREAM" scan $Q --shard $i/3 --out "$T/qs" || fail "quantitative shard $i"; done
"$EPISTREAM" merge --quiet --out "$T/qm" "$T/qs.shard-1-of-3.state" "$T/qs.shard-2-of-3.state" \
    "$T/qs.shard-3-of-3.state" || fail "merge quantitative shards"
same "$T/q1" "$T/qm" "quantitative shards merged" top.tsv sig.tsv summary.tsv
EPISTREAM_TEST_KILL_CHECKPOINT=5 "$EPISTREAM" scan $Q --checkpoint "$T/qc.state" --checkpoint-every 0 \
    --out "$T/qk" 2>/dev/null && fail "the kill hook did not fire (quantitative)"
"$EPISTREAM" scan $Q --checkpoint "$T/qc.state" --resume --out "$T/qk" || fail "resume a quantitative scan"
same "$T/q1" "$T/qk" "a quantitative scan killed and resumed" top.tsv sig.tsv summary.tsv
"$EPISTREAM" scan --bfile "$D" --pheno "$T/qt2.pheno" --p-threshold 0.01 --device cpu --block 64 --quiet \
    --shard 2/3 --out "$T/qo" || fail "a shard of another phenotype"
expect_fail "$T/e9" "$EPISTREAM" merge --out "$T/x" "$T/qs.shard-1-of-3.state" "$T/qo.shard-2-of-3.state" \
    "$T/qs.shard-3-of-3.state"
grep -q "a shard of a scan of other data" "$T/e9" || { cat "$T/e9"; fail "a shard of another phenotype not refused"; }
exit 0
