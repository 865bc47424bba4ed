#!/bin/sh
# device-dist.sh -- on the GPU machine: checkpoints and shards with GPU backends give the CPU's
# bytes: a 2-way boost scan and a 3-way chi2 scan, each (a) on the GPU with a checkpoint after
# every tile and one kill -9 then --resume, (b) as 3 shards, one on the GPU and two on the CPU
# (same --block), merged.  Prints one line per check; exit 1 on a difference.
set -u
. "$(dirname "$0")/device-env.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$EPISTREAM" sim --samples 3000 --variants 3000 --seed 5 --out "$T/d" >/dev/null || exit 1
"$EPISTREAM" sim --samples 1000 --variants 300 --triples 1 --seed 5 --out "$T/t" >/dev/null || exit 1
bad=0
cmp3() {
    for f in top.tsv sig.tsv summary.tsv; do
        cmp -s "$1.$f" "$2.$f" || { echo "DIFF $3: $f"; bad=1; return; }
    done
    echo "same bytes: $3"
}
run() { # NAME ORDER-ARGS...
    n=$1
    shift
    "$EPISTREAM" scan "$@" --device cpu --quiet --out "$T/$n.cpu" || { echo "FAIL cpu $n"; bad=1; return; }
    "$EPISTREAM" scan "$@" --device gpu --quiet --out "$T/$n.gpu" || { echo "FAIL gpu $n"; bad=1; return; }
    cmp3 "$T/$n.cpu" "$T/$n.gpu" "$n: gpu vs cpu"
    "$EPISTREAM" scan "$@" --device gpu --quiet --block 512 --out "$T/$n.ck" --checkpoint "$T/$n.ckpt" \
        --checkpoint-every 0 & pid=$!
    sleep 1.5
    kill -9 $pid 2>/dev/null && echo "$n: killed the GPU run after 1.5 s"
    wait $pid 2>/dev/null
    "$EPISTREAM" scan "$@" --device gpu --quiet --block 512 --out "$T/$n.ck" --checkpoint "$T/$n.ckpt" --resume ||
        { echo "FAIL resume $n"; bad=1; return; }
    cmp3 "$T/$n.cpu" "$T/$n.ck" "$n: gpu killed and resumed vs cpu"
    "$EPISTREAM" scan "$@" --device gpu --quiet --block 512 --shard 1/3 --out "$T/$n.sh" &&
        "$EPISTREAM" scan "$@" --device cpu --quiet --block 512 --shard 2/3 --out "$T/$n.sh" &&
        "$EPISTREAM" scan "$@" --device cpu --quiet --block 512 --shard 3/3 --out "$T/$n.sh" &&
        "$EPISTREAM" merge --quiet "$T/$n.sh".shard-*-of-3.state || { echo "FAIL shards $n"; bad=1; return; }
    cmp3 "$T/$n.cpu" "$T/$n.sh" "$n: shards (gpu, cpu, cpu) merged vs cpu"
}
run pair --bfile "$T/d" --p-threshold 1e-4
run triple --bfile "$T/t" --order 3 --stat chi2 --p-threshold 1e-4
exit $bad
