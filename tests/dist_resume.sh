#!/bin/sh
# dist_resume.sh -- checkpoint and resume (scan --checkpoint FILE --resume): a scan killed with
# SIGKILL at random moments, then resumed (and killed again) until it finishes, writes the bytes
# of the uninterrupted run -- 2-way with boost and chi2, 3-way exhaustive and seeded, each with
# --p-threshold; at least 10 kill points in all, besides a kill half-way through a checkpoint's
# write (EPISTREAM_TEST_KILL_CHECKPOINT=N, the test hook).  A checkpoint of other options or
# other data is refused with its reason, and nothing is written.
. "$(dirname "$0")/lib.sh"

D=$ES_SRCDIR/examples/data/example
T3=$ES_SRCDIR/examples/data/triple
kills=0

same() { # PREFIX_REF PREFIX
    for f in top.tsv sig.tsv summary.tsv; do
        cmp -s "$1.$f" "$2.$f" || fail "$2.$f differs from the uninterrupted run's ($3)"
    done
}

# killed_run NAME ARGS...: kill the checkpointed scan at random moments (up to 6 times), resume
# it each time, and let the last run finish
killed_run() {
    name=$1
    shift
    ck=$T/$name.ckpt
    n=0
    while :; do
        n=$((n + 1))
        "$EPISTREAM" scan "$@" --quiet --out "$T/$name" --checkpoint "$ck" --checkpoint-every 0 --resume \
            2>"$T/$name.err" &
        pid=$!
        # 30..250 ms: several kills land mid-scan, some between checkpoints, some during one
        ms=$(awk -v s="$n$name" 'BEGIN { srand(length(s) * 7919 + s * 1); printf "%.3f", (30 + int(rand() * 220)) / 1000 }')
        sleep "$ms"
        # at most 6 kills a scan (a loaded machine may be slow): then it runs to the end
        if [ $n -le 6 ] && kill -9 $pid 2>/dev/null; then
            wait $pid 2>/dev/null
            kills=$((kills + 1))
            continue
        fi
        wait $pid || { cat "$T/$name.err" >&2; fail "$name: resumed run failed"; }
        break
    done
    [ ! -e "$ck" ] || fail "$name: the checkpoint was not removed after success"
    [ ! -e "$ck.sig" ] || fail "$name: the checkpoint's side file was not removed after success"
}

for stat in boost chi2; do
    "$EPISTREAM" scan --bfile "$D" --stat $stat --p-threshold 0.01 --device cpu --quiet --out "$T/ref2$stat" ||
        fail "reference scan ($stat)"
    killed_run k2$stat --bfile "$D" --stat $stat --p-threshold 0.01 --device cpu --block 16 --threads 2
    same "$T/ref2$stat" "$T/k2$stat" "2-way $stat, killed and resumed"
done
"$EPISTREAM" scan --bfile "$T3" --order 3 --p-threshold 0.001 --device cpu --quiet --out "$T/ref3" ||
    fail "reference 3-way scan"
killed_run k3 --bfile "$T3" --order 3 --p-threshold 0.001 --device cpu --block 8 --threads 2
same "$T/ref3" "$T/k3" "3-way, killed and resumed"
"$EPISTREAM" scan --bfile "$T3" --order 3 --pairs-top 20 --p-threshold 0.01 --device cpu --quiet \
    --out "$T/ref3s" || fail "reference seeded 3-way scan"
killed_run k3s --bfile "$T3" --order 3 --pairs-top 20 --p-threshold 0.01 --device cpu --block 16 --threads 2
same "$T/ref3s" "$T/k3s" "seeded 3-way, killed and resumed"
[ $kills -ge 10 ] || fail "only $kills kills landed (at least 10 wanted)"
echo "dist_resume: $kills kill points, every resumed run byte-identical"

# killed half-way through writing its 3rd checkpoint: the 2nd is whole, the side file is cut back
EPISTREAM_TEST_KILL_CHECKPOINT=3 "$EPISTREAM" scan --bfile "$D" --stat chi2 --p-threshold 0.01 --device cpu \
    --block 64 --quiet --out "$T/kw" --checkpoint "$T/kw.ckpt" --checkpoint-every 0 2>/dev/null &&
    fail "the checkpoint-write kill hook did not fire"
[ -e "$T/kw.ckpt.tmp" ] || fail "no half-written checkpoint left by the kill"
[ ! -e "$T/kw.top.tsv" ] || fail "a killed run left outputs"
"$EPISTREAM" scan --bfile "$D" --stat chi2 --p-threshold 0.01 --device cpu --block 64 --quiet --out "$T/kw" \
    --checkpoint "$T/kw.ckpt" --resume || fail "resume after a kill during a checkpoint write"
same "$T/ref2chi2" "$T/kw" "killed while writing a checkpoint"

# a checkpoint of other options or other data is refused; so is a damaged one
mk() {
    EPISTREAM_TEST_KILL_CHECKPOINT=4 "$EPISTREAM" scan "$@" --device cpu --block 64 --quiet --out "$T/o" \
        --checkpoint "$T/o.ckpt" --checkpoint-every 0 2>/dev/null
    [ -e "$T/o.ckpt" ] || fail "no checkpoint to test refusals with"
}
mk --bfile "$D" --stat chi2 --p-threshold 0.01
expect_fail "$T/e1" "$EPISTREAM" scan --bfile "$D" --stat mi --p-threshold 0.01 --device cpu --block 64 \
    --quiet --out "$T/o" --checkpoint "$T/o.ckpt" --resume
grep -q "o.ckpt: a checkpoint of a scan with other options" "$T/e1" || { cat "$T/e1"; fail "other --stat not refused clearly"; }
expect_fail "$T/e2" "$EPISTREAM" scan --bfile "$D" --stat chi2 --p-threshold 0.05 --device cpu --block 64 \
    --quiet --out "$T/o" --checkpoint "$T/o.ckpt" --resume
grep -q "other options" "$T/e2" || { cat "$T/e2"; fail "other --p-threshold not refused"; }
expect_fail "$T/e3" "$EPISTREAM" scan --bfile "$D" --stat chi2 --p-threshold 0.01 --device cpu --block 64 \
    --quiet --out "$T/o" --checkpoint "$T/o.ckpt" --resume --exclude "$ES_SRCDIR/examples/data/example.truth"
grep -q "o.ckpt: a checkpoint of a scan of other data" "$T/e3" || { cat "$T/e3"; fail "other data not refused clearly"; }
expect_fail "$T/e4" "$EPISTREAM" scan --bfile "$D" --stat chi2 --p-threshold 0.01 --device cpu --block 32 \
    --quiet --out "$T/o" --checkpoint "$T/o.ckpt" --resume
grep -q "cut into tiles of 64 variants" "$T/e4" || { cat "$T/e4"; fail "other --block not refused clearly"; }
[ ! -e "$T/o.top.tsv" ] || fail "a refused resume wrote outputs"
# damaged: a byte changed, or cut short
cp "$T/o.ckpt" "$T/o.good"
printf 'X' | dd of="$T/o.ckpt" bs=1 seek=200 conv=notrunc 2>/dev/null
expect_fail "$T/e5" "$EPISTREAM" scan --bfile "$D" --stat chi2 --p-threshold 0.01 --device cpu --block 64 \
    --quiet --out "$T/o" --checkpoint "$T/o.ckpt" --resume
grep -q "o.ckpt: damaged" "$T/e5" || { cat "$T/e5"; fail "a damaged checkpoint not refused clearly"; }
head -c 100 "$T/o.good" >"$T/o.ckpt"
expect_fail "$T/e6" "$EPISTREAM" scan --bfile "$D" --stat chi2 --p-threshold 0.01 --device cpu --block 64 \
    --quiet --out "$T/o" --checkpoint "$T/o.ckpt" --resume
grep -q "o.ckpt: damaged" "$T/e6" || { cat "$T/e6"; fail "a cut checkpoint not refused clearly"; }
printf 'not a state' >"$T/o.ckpt"
expect_fail "$T/e7" "$EPISTREAM" scan --bfile "$D" --stat chi2 --device cpu --quiet --out "$T/o" \
    --checkpoint "$T/o.ckpt" --resume
grep -q "not an epistream state file" "$T/e7" || { cat "$T/e7"; fail "a foreign file not refused clearly"; }
expect_fail "$T/e8" "$EPISTREAM" scan --bfile "$D" --device cpu --quiet --out "$T/o" --resume
grep -q "give --checkpoint" "$T/e8" || { cat "$T/e8"; fail "--resume without a checkpoint"; }
exit 0
