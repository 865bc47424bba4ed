#!/bin/sh
# bench_triple.sh -- the CPU 3-way scan against the issue's target: exhaustive
# 1,000 variants x 1,000 samples (1.7e8 triples) with BENCH_THREADS threads
# (default 2), beside the 2-way scan's pairs/s of the same data in the same
# run.  Best of BENCH_REPEAT (default 3) runs by wall time; the 3-way scan
# once per statistic of BENCH_STATS (default "chi2 ig").  Prints a table.
#   EPISTREAM=build/epistream sh tests/bench/bench_triple.sh
set -eu
E=${EPISTREAM:-./epistream}
TH=${BENCH_THREADS:-2}
R=${BENCH_REPEAT:-3}
M=${BENCH_VARIANTS:-1000}
N=${BENCH_SAMPLES:-1000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$E" sim --samples "$N" --variants "$M" --seed 7 --out "$T/d" >/dev/null
best() { # best wall seconds of R runs of "$@"
    b=
    for _ in $(seq "$R"); do
        s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
        w=$(echo "$e - $s" | bc -l)
        if [ -z "$b" ] || [ "$(echo "$w < $b" | bc -l)" = 1 ]; then b=$w; fi
    done
    echo "$b"
}
t2=$(best "$E" scan --bfile "$T/d" --stat chi2 --top 100 --threads "$TH" --quiet --out "$T/p")
pairs=$(echo "$M * ($M - 1) / 2" | bc)
trip=$(echo "$M * ($M - 1) * ($M - 2) / 6" | bc)
printf '%-22s %8s %8s %14s %10s %12s\n' scan variants samples tests seconds tests/s
printf '%-22s %8s %8s %14s %10.2f %12.3g\n' "2-way chi2" "$M" "$N" "$pairs" "$t2" "$(echo "$pairs / $t2" | bc -l)"
for st in ${BENCH_STATS:-chi2 ig}; do
    t3=$(best "$E" scan --bfile "$T/d" --order 3 --stat "$st" --top 100 --threads "$TH" --quiet --out "$T/t")
    printf '%-22s %8s %8s %14s %10.2f %12.3g\n' "3-way $st exhaustive" "$M" "$N" "$trip" "$t3" "$(echo "$trip / $t3" | bc -l)"
done
printf 'threads %s; target: 3-way <= 8 s (5x BitEpi 4.25e6 triples/s = 2.1e7 triples/s)\n' "$TH"
