#!/bin/sh
# bench_write.sh -- writing every pair: epistream vs PLINK 1.9 --fast-epistasis boost --epi1 1.
#
# Simulates N samples x M variants with `epistream sim --missing 0.002`, then on the same files
# runs, R times each, alternating,
#   plink1.9 --bfile D --fast-epistasis boost --epi1 1 --threads T
#   epistream scan --bfile D --format plink --epi1 1 --threads T --quiet
# (every pair fitted and written: M(M-1)/2 lines of .epi.cc, and .epi.cc.summary), each under
# /usr/bin/time -v, and prints for each tool the best wall time, the best user time and the
# largest peak RSS over the runs, with the ratios PLINK / epistream (time: > 1 means epistream
# is faster) and epistream / PLINK (RSS: < 1 means epistream uses less).  On a shared machine
# wall times are noisy; user time and the best of several runs are steadier.  It also checks
# that the two .epi.cc files are the same bytes.
#
# Environment: EPISTREAM (binary; default ./epistream, else build/epistream), PLINK (default
# plink1.9), BENCH_N (1000), BENCH_M (2654), BENCH_THREADS (2), BENCH_RUNS (3), BENCH_SEED (1),
# BENCH_KEEP=1 keeps the work directory.  See tests/bench/README.md.
set -u

N=${BENCH_N:-1000}
M=${BENCH_M:-2654}
THREADS=${BENCH_THREADS:-2}
RUNS=${BENCH_RUNS:-3}
SEED=${BENCH_SEED:-1}
PLINK=${PLINK:-plink1.9}
if [ -z "${EPISTREAM:-}" ]; then
    if [ -x ./epistream ]; then EPISTREAM=./epistream; else EPISTREAM=build/epistream; fi
fi
die() { echo "bench_write: $*" >&2; exit 1; }
[ -x "$EPISTREAM" ] || die "no epistream binary at '$EPISTREAM' (set EPISTREAM)"
[ -x /usr/bin/time ] || die "/usr/bin/time (GNU time) is needed for -v"
command -v "$PLINK" >/dev/null 2>&1 || die "$PLINK not found (set PLINK)"

W=$(mktemp -d "${TMPDIR:-/tmp}/es_bench.XXXXXX") || die "cannot make a work directory"
if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "work directory kept: $W"; else trap 'rm -rf "$W"' EXIT; fi
trap 'exit 130' INT TERM

PAIRS=$(awk -v m="$M" 'BEGIN { printf "%.0f", m * (m - 1) / 2 }')
echo "== bench_write: every pair written, epistream vs PLINK 1.9 --epi1 1"
echo "date      $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "host      $(uname -n) ($(uname -sr))"
echo "cpu       $(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1)," \
     "$(nproc) logical CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "epistream $("$EPISTREAM" --version 2>&1 | head -1) ($EPISTREAM)"
echo "plink     $("$PLINK" --version 2>&1 | head -1)"
echo "data      N=$N x M=$M (seed $SEED, --missing 0.002), $PAIRS pairs; threads $THREADS;" \
     "best of $RUNS runs"

"$EPISTREAM" sim --samples "$N" --variants "$M" --missing 0.002 --seed "$SEED" --out "$W/d" \
    >"$W/sim.out" 2>&1 || { cat "$W/sim.out" >&2; die "epistream sim"; }
cat "$W/d.bed" "$W/d.bim" "$W/d.fam" >/dev/null # warm the page cache for both

# wall and user seconds, peak RSS (KiB) from a `time -v` report
tv() { awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0
                   for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s }
                   /User time/ { u = $2 } /Maximum resident/ { r = $2 }
                   END { printf "%.3f %.3f %d\n", w, u, r }' "$1"; }

: >"$W/plink.runs"
: >"$W/es.runs"
r=1
while [ "$r" -le "$RUNS" ]; do
    /usr/bin/time -v "$PLINK" --bfile "$W/d" --fast-epistasis boost --epi1 1 --threads "$THREADS" \
        --out "$W/pl" >"$W/pl.out" 2>"$W/pl.time" || { cat "$W/pl.out" >&2; die "plink1.9"; }
    tv "$W/pl.time" >>"$W/plink.runs"
    /usr/bin/time -v "$EPISTREAM" scan --bfile "$W/d" --format plink --epi1 1 --threads "$THREADS" \
        --quiet --out "$W/es" >"$W/es.out" 2>"$W/es.time" || { cat "$W/es.time" >&2; die "epistream"; }
    tv "$W/es.time" >>"$W/es.runs"
    r=$((r + 1))
done
cmp -s "$W/pl.epi.cc" "$W/es.epi.cc" && same="the same bytes" || same="DIFFERENT (check!)"

# best wall, best user, largest RSS
best() { awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 < u { u = $2 } $3 > r { r = $3 }
              END { printf "%.2f %.2f %.1f\n", w, u, r / 1024 }' "$1"; }
# shellcheck disable=SC2046  # six numbers, split on purpose
set -- $(best "$W/plink.runs") $(best "$W/es.runs")
printf '\n%-10s %9s %9s %10s\n' tool wall_s user_s RSS_MiB
printf '%-10s %9s %9s %10s\n' plink1.9 "$1" "$2" "$3"
printf '%-10s %9s %9s %10s\n' epistream "$4" "$5" "$6"
awk -v pw="$1" -v pu="$2" -v pr="$3" -v ew="$4" -v eu="$5" -v er="$6" 'BEGIN {
    printf "%-10s %8.2fx %8.2fx %9.2fx\n", "ratio", pw / ew, pu / eu, er / pr
    print "(time: PLINK / epistream, > 1 = epistream faster; RSS: epistream / PLINK)" }'
echo ".epi.cc ($(wc -l <"$W/es.epi.cc") lines, $(wc -c <"$W/es.epi.cc") bytes): $same"
echo "runs (wall user RSS_KiB): plink1.9 $(tr '\n' ';' <"$W/plink.runs") epistream $(tr '\n' ';' <"$W/es.runs")"
