#!/bin/sh
# compare-bin.sh OLD NEW -- run the same scans and selections with two builds of
# epistream on the bundled example and report any output file that differs
# (a refactor must change no byte).  Logs are left out: they hold timings.
set -eu
old=$1 new=$2
top=$(cd "$(dirname "$0")/.." && pwd)
ex=$top/examples/data/example
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
run() {
    tag=$1; shift
    for b in old new; do
        eval bin=\$$b
        mkdir -p "$d/$b"
        "$bin" "$@" --out "$d/$b/$tag" >/dev/null 2>&1 || echo "$b $tag: exit $?"
    done
}
for st in boost chi2 mi ig; do
    run "s_$st" scan --bfile "$ex" --stat "$st" --device cpu --top 200 --p-threshold 0.01
done
run s_k2 scan --bfile "$ex" --stat k2 --device cpu --top 200
run plink scan --bfile "$ex" --format plink --device cpu --top 100
run refine scan --bfile "$ex" --device cpu --refine mrmr:10 --top 300
for m in mrmr jmi disr cmim icap condmi mim; do
    run "sel_$m" select --bfile "$ex" --from "$d/old/s_boost.top.tsv" --method "$m" --k 15 --device cpu
done
n=0
for f in "$d"/old/*; do
    b=$(basename "$f")
    case "$b" in *.log) continue;; esac
    if ! cmp -s "$f" "$d/new/$b"; then echo "DIFFERS: $b"; n=$((n+1)); fi
done
echo "$(ls "$d"/old | grep -cv '\.log$') files compared, $n differ"
[ "$n" -eq 0 ]
