#!/bin/sh
# bench_qt.sh -- quantitative-trait scans against PLINK 1.9 --epistasis (issue 21's CPU target).
#
# Simulates N=2,000 samples x M=5,000 variants (1 % missing calls) with a quantitative trait, one
# planted interacting pair and 3 covariates (epistream sim --qt --covariates 3), then, on the same
# files and threads, each under /usr/bin/time:
#   plink     plink1.9 --epistasis --keep-allele-order --epi1 1e-4 (PLINK's linear test; it has
#             no covariates there)
#   linear    epistream scan --stat linear, the same test (and the same list, compared)
#   covar     epistream scan --stat linear --covar PREFIX.covar: the screen on the trait
#             residualised on the covariates, then the exact model with the covariates for the
#             --exact-top survivors
#   linear4   epistream scan --stat linear4
# Each figure is the fastest of BENCH_REPEAT rounds (default 3); a round runs every command once,
# in turn (PLINK in the first BENCH_PLINK_REPEAT rounds, default 1: it takes a minute), so a load
# that comes and goes on a shared machine falls on all of them alike.  With BASE (another
# epistream binary, e.g. main's) its linear and covar scans run in the same rounds (base_linear,
# base_covar) and must write the same bytes.  Speed is pairs/s; ratios are to PLINK in the same
# run.  The PLINK list and epistream's must be the same pairs (P printed with 4 digits may differ
# in the last one: PLINK's normal-CDF approximation, doc/QT.md).
#
# Environment: EPISTREAM (binary; default build/epistream), PLINK (plink1.9; "none" skips it),
# BASE (none), BENCH_THREADS (2), BENCH_REPEAT (3), BENCH_PLINK_REPEAT (1), BENCH_N (2000),
# BENCH_M (5000), BENCH_LINEAR4 (1; 0 skips linear4), BENCH_KEEP=1.
set -u
T=${BENCH_THREADS:-2}
R=${BENCH_REPEAT:-3}
N=${BENCH_N:-2000}
M=${BENCH_M:-5000}
. "$(dirname "$0")/plink_bench.sh"
bench_setup bench_qt "quantitative-trait scans vs PLINK 1.9 --epistasis"
"$EPISTREAM" sim --qt --covariates 3 --samples "$N" --variants "$M" --missing 0.01 --seed 21 \
    --out "$W/d" >"$W/sim.out" 2>&1 || { cat "$W/sim.out"; die "epistream sim"; }
PAIRS=$(awk -v m="$M" 'BEGIN { printf "%.0f", m * (m - 1) / 2 }')
echo "data      N=$N x M=$M, $PAIRS pairs, quantitative trait, 3 covariates (PC1 confounds)"

# run NAME CMD...: one timed run; the fastest wall time so far into $W/NAME.sec (its peak
# memory into $W/NAME.kb)
run() {
    name=$1
    shift
    /usr/bin/time -f '%e %M' -o "$W/$name.time" "$@" >"$W/$name.out" 2>&1 ||
        { cat "$W/$name.out"; die "$name failed"; }
    s=$(cut -d' ' -f1 "$W/$name.time")
    if [ ! -f "$W/$name.sec" ] || awk -v a="$s" -v b="$(cat "$W/$name.sec")" 'BEGIN { exit !(a < b) }'; then
        echo "$s" >"$W/$name.sec"
        cut -d' ' -f2 "$W/$name.time" >"$W/$name.kb"
    fi
}

BASE=${BASE:-none}
PR=${BENCH_PLINK_REPEAT:-1}
L4=${BENCH_LINEAR4:-1}
i=0
while [ $i -lt $R ]; do
    if [ $HAVE_PLINK = 1 ] && [ $i -lt "$PR" ]; then
        run plink "$PLINK" --bfile "$W/d" --pheno "$W/d.pheno" --epistasis --epi1 1e-4 --keep-allele-order \
            --allow-no-sex --threads "$T" --out "$W/p"
    fi
    for e in new base; do
        [ $e = base ] && [ "$BASE" = none ] && continue
        bin=$EPISTREAM pre=
        [ $e = base ] && bin=$BASE pre=base_
        run ${pre}linear "$bin" scan --bfile "$W/d" --pheno "$W/d.pheno" --stat linear --format plink \
            --epi1 1e-4 --threads "$T" --quiet --out "$W/${pre}e"
        run ${pre}covar "$bin" scan --bfile "$W/d" --pheno "$W/d.pheno" --covar "$W/d.covar" --stat linear \
            --threads "$T" --quiet --out "$W/${pre}c"
    done
    [ "$L4" = 1 ] && run linear4 "$EPISTREAM" scan --bfile "$W/d" --pheno "$W/d.pheno" --stat linear4 \
        --threads "$T" --quiet --out "$W/l4"
    i=$((i + 1))
done
echo "load      $(cut -d' ' -f1-3 /proc/loadavg) (at the end)"

printf '\n%-12s %10s %12s %10s %10s\n' run seconds pairs/s "x PLINK" "max MiB"
for name in plink linear base_linear covar base_covar linear4; do
    [ -f "$W/$name.sec" ] || continue
    s=$(cat "$W/$name.sec")
    kb=$(cat "$W/$name.kb")
    ratio=-
    [ -f "$W/plink.sec" ] && ratio=$(awk -v p="$(cat "$W/plink.sec")" -v s="$s" 'BEGIN { printf "%.1f", p / s }')
    awk -v n="$name" -v s="$s" -v pairs="$PAIRS" -v r="$ratio" -v kb="$kb" \
        'BEGIN { printf "%-12s %10.2f %12.3g %10s %10.0f\n", n, s, pairs / s, r, kb / 1024 }'
done
for name in linear covar; do
    [ -f "$W/base_$name.sec" ] || continue
    awk -v n="$name" -v a="$(cat "$W/base_$name.sec")" -v b="$(cat "$W/$name.sec")" \
        'BEGIN { printf "speedup   %s: %.2fx BASE'"'"'s\n", n, a / b }'
done
if [ $HAVE_PLINK = 1 ]; then
    # the same pairs listed, the same BETA_INT and STAT
    awk 'NR > 1 { print $2, $4, $5, $6 }' "$W/p.epi.qt" >"$W/p.cols"
    awk 'NR > 1 { print $2, $4, $5, $6 }' "$W/e.epi.qt" >"$W/e.cols"
    if cmp -s "$W/p.cols" "$W/e.cols"; then
        echo "list      the same $(wc -l <"$W/e.cols") pairs as PLINK's, BETA_INT and STAT as printed"
    else
        echo "list      DIFFERS from PLINK's (pairs, BETA_INT or STAT)"
    fi
fi
if [ "$BASE" != none ]; then
    same=yes
    for f in e.epi.qt e.epi.qt.summary e.top.tsv c.top.tsv c.sig.tsv c.summary.tsv; do
        [ -f "$W/$f" ] || continue
        cmp -s "$W/$f" "$W/base_$f" || same="NO ($f differs)"
    done
    echo "base      the same bytes as BASE's: $same"
fi
planted=$(awk 'NR == 2 { print $1 " " $2 }' "$W/d.truth")
echo "planted   $planted; top pair: linear $(awk 'NR == 2 { print $2, $5 }' "$W/e.top.tsv"), covariates $(awk 'NR == 2 { print $2, $5 }' "$W/c.top.tsv")"
grep -h "exact_top\|recall" "$W/c.log" 2>/dev/null | sed 's/^/covar     /'
