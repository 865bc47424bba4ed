#!/bin/sh
# bench_dist.sh -- what running beyond one process costs (issue 19's targets), all in one run on
# one machine: the same 2-way scan (BENCH_VARIANTS x BENCH_SAMPLES, boost, --p-threshold 1e-4)
# with 2 threads in one process, as 2 MPI ranks of 1 thread each (target: at most 10 % slower),
# with --checkpoint at the default interval (600 s; target: at most 2 % slower) and with a
# checkpoint after every second (the cost of writing them), and as 2 shards run one after the
# other plus their merge.  Best of BENCH_REPEAT (default 3) runs by wall time; prints a table.
#   EPISTREAM=build/epistream sh tests/bench/bench_dist.sh
set -eu
E=${EPISTREAM:-./epistream}
R=${BENCH_REPEAT:-3}
M=${BENCH_VARIANTS:-6000}
N=${BENCH_SAMPLES:-2000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$E" sim --samples "$N" --variants "$M" --seed 11 --out "$T/d" >/dev/null
best() { # best wall seconds of R runs of "$@"
    b=
    for _ in $(seq "$R"); do
        rm -f "$T"/c.ckpt*
        s=$(date +%s.%N); "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }; e=$(date +%s.%N)
        w=$(echo "$e - $s" | bc -l)
        if [ -z "$b" ] || [ "$(echo "$w < $b" | bc -l)" = 1 ]; then b=$w; fi
    done
    echo "$b"
}
S="scan --bfile $T/d --p-threshold 1e-4 --device cpu --quiet"
base=$(best "$E" $S --threads 2 --out "$T/a")
row() { printf '%-44s %9.2f %8.3f\n' "$1" "$2" "$(echo "$2 / $base" | bc -l)"; }
printf '%-44s %9s %8s\n' "run ($M variants x $N samples, boost)" seconds ratio
row "1 process, 2 threads" "$base"
if command -v mpirun >/dev/null 2>&1; then
    t=$(best mpirun --oversubscribe --allow-run-as-root -np 2 "$E" $S --threads 1 --out "$T/b")
    row "mpirun -np 2, 1 thread each" "$t"
    cmp -s "$T/a.top.tsv" "$T/b.top.tsv" && cmp -s "$T/a.sig.tsv" "$T/b.sig.tsv" || { echo "MPI output differs" >&2; exit 1; }
fi
t=$(best "$E" $S --threads 2 --out "$T/c" --checkpoint "$T/c.ckpt")
row "--checkpoint, default interval (600 s)" "$t"
t=$(best "$E" $S --threads 2 --out "$T/c" --checkpoint "$T/c.ckpt" --checkpoint-every 1)
row "--checkpoint-every 1" "$t"
shards() {
    "$E" $S --threads 2 --shard 1/2 --out "$T/s" && "$E" $S --threads 2 --shard 2/2 --out "$T/s" &&
        "$E" merge --quiet "$T"/s.shard-*-of-2.state --out "$T/s"
}
t=$(best shards)
row "2 shards one after the other + merge" "$t"
cmp -s "$T/a.top.tsv" "$T/s.top.tsv" && cmp -s "$T/a.sig.tsv" "$T/s.sig.tsv" || { echo "merged output differs" >&2; exit 1; }
