#!/bin/sh
# bench_boost.sh -- the foundation benchmark: exhaustive BOOST scan, epistream vs PLINK 1.9.
#
# Simulates N samples x M variants with `epistream sim`, then on the same files runs
#   epistream scan --stat boost --threads T --top 1000
#   plink1.9 --fast-epistasis boost --threads T        (all pairs, PLINK's default --epi1 5e-6)
# each under /usr/bin/time -v, and prints wall time, pairs/s = M(M-1)/2 / wall, peak RSS and the
# ratios (speed: epistream pairs/s / PLINK pairs/s; RSS: epistream / PLINK).  It also checks that
# the two agree: every pair PLINK reports that ranks inside epistream's top list must be in it,
# with the same STAT.
#
# Environment: EPISTREAM (binary; default ./epistream, else build/epistream), PLINK (default
# plink1.9), BENCH_N (5000), BENCH_M (20000), BENCH_THREADS (2), BENCH_TOP (1000),
# BENCH_SEED (1), BENCH_PLINK_MEM (MiB for PLINK's --memory; default half the RAM, at most
# 16384), BENCH_KEEP=1 keeps the work directory.  See tests/bench/README.md.
set -u

N=${BENCH_N:-5000}
M=${BENCH_M:-20000}
THREADS=${BENCH_THREADS:-2}
TOP=${BENCH_TOP:-1000}
SEED=${BENCH_SEED:-1}
PLINK=${PLINK:-plink1.9}
if [ -z "${EPISTREAM:-}" ]; then
    if [ -x ./epistream ]; then EPISTREAM=./epistream; else EPISTREAM=build/epistream; fi
fi
die() { echo "bench_boost: $*" >&2; exit 1; }
[ -x "$EPISTREAM" ] || die "no epistream binary at '$EPISTREAM' (set EPISTREAM)"
[ -x /usr/bin/time ] || die "/usr/bin/time (GNU time) is needed for -v"
HAVE_PLINK=1
if ! command -v "$PLINK" >/dev/null 2>&1; then
    HAVE_PLINK=0
    echo "note: $PLINK not found, epistream only"
fi
if [ -z "${BENCH_PLINK_MEM:-}" ]; then
    BENCH_PLINK_MEM=$(awk '/^MemTotal:/ { m = int($2 / 2048); print (m > 16384 ? 16384 : m) }' \
        /proc/meminfo 2>/dev/null)
    [ -n "$BENCH_PLINK_MEM" ] || BENCH_PLINK_MEM=4096
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/es_bench.XXXXXX") || die "cannot make a work directory"
if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "work directory kept: $W"; else trap 'rm -rf "$W"' EXIT; fi
trap 'exit 130' INT TERM

PAIRS=$(awk -v m="$M" 'BEGIN { printf "%.0f", m * (m - 1) / 2 }')

echo "== bench_boost: exhaustive BOOST, epistream vs PLINK 1.9"
echo "date      $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "host      $(uname -n) ($(uname -sr))"
echo "cpu       $(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1)," \
     "$(nproc) logical CPUs"
echo "memory    $(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
echo "epistream $("$EPISTREAM" --version 2>&1 | head -1) ($EPISTREAM)"
[ $HAVE_PLINK = 1 ] && echo "plink     $("$PLINK" --version 2>&1 | head -1)"
echo "data      N=$N samples x M=$M variants (seed $SEED), $PAIRS pairs; threads $THREADS," \
     "top $TOP"

# wall seconds, peak RSS (KiB) and CPU% from a `time -v` report
tv_wall() { awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0;
            for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.3f", s }' "$1"; }
tv_rss() { awk -F': ' '/Maximum resident set size/ { print $2 }' "$1"; }
tv_cpu() { awk -F': ' '/Percent of CPU/ { print $2 }' "$1"; }

# the data
/usr/bin/time -v "$EPISTREAM" sim --samples "$N" --variants "$M" --seed "$SEED" --out "$W/d" \
    >"$W/sim.out" 2>"$W/sim.time" || { cat "$W/sim.time" >&2; die "epistream sim failed"; }
SIM_WALL=$(tv_wall "$W/sim.time")
echo "sim       $SIM_WALL s ($(awk -v w="$SIM_WALL" -v n="$N" -v m="$M" \
     'BEGIN { printf "%.3g", (w > 0 ? n * m / w : 0) }') genotypes/s); planted:" \
     "$(awk 'NR > 1 { printf "%s-%s ", $1, $2 }' "$W/d.truth")"
cat "$W/d.bed" "$W/d.bim" "$W/d.fam" >/dev/null # both tools start from a warm page cache

# epistream
/usr/bin/time -v "$EPISTREAM" scan --bfile "$W/d" --stat boost --threads "$THREADS" --top "$TOP" \
    --quiet --out "$W/es" >"$W/es.out" 2>"$W/es.time" ||
    { cat "$W/es.out" "$W/es.time" >&2; die "epistream scan failed"; }
ES_WALL=$(tv_wall "$W/es.time")
ES_RSS=$(tv_rss "$W/es.time")
ES_CPU=$(tv_cpu "$W/es.time")

# PLINK 1.9: --fast-epistasis scans all pairs of the genome by default
if [ $HAVE_PLINK = 1 ]; then
    /usr/bin/time -v "$PLINK" --bfile "$W/d" --fast-epistasis boost --threads "$THREADS" \
        --memory "$BENCH_PLINK_MEM" --out "$W/pl" >"$W/pl.out" 2>"$W/pl.time" ||
        { cat "$W/pl.out" "$W/pl.time" >&2; die "plink failed"; }
    PL_WALL=$(tv_wall "$W/pl.time")
    PL_RSS=$(tv_rss "$W/pl.time")
    PL_CPU=$(tv_cpu "$W/pl.time")
fi

echo
printf '%-10s %10s %14s %12s %8s\n' tool wall_s pairs_per_s peak_RSS_MiB CPU
row() {
    awk -v t="$1" -v w="$2" -v r="$3" -v c="$4" -v p="$PAIRS" \
        'BEGIN { printf "%-10s %10.3f %14.4g %12.1f %8s\n", t, w, (w > 0 ? p / w : 0), r / 1024,
                 c }'
}
row epistream "$ES_WALL" "$ES_RSS" "$ES_CPU"
if [ $HAVE_PLINK = 1 ]; then
    row plink1.9 "$PL_WALL" "$PL_RSS" "$PL_CPU"
    awk -v ew="$ES_WALL" -v pw="$PL_WALL" -v er="$ES_RSS" -v pr="$PL_RSS" 'BEGIN {
        printf "%-10s %10s %14s %12s\n", "ratio", "", (ew > 0 ? sprintf("%.3gx", pw / ew) : "inf"),
               (pr > 0 ? sprintf("%.3g", er / pr) : "NA") }'
    echo "(ratio: speed = epistream pairs/s / PLINK pairs/s; RSS = epistream / PLINK)"

    # agreement: PLINK reports pairs with p <= 5e-6; those scoring at least epistream's last kept
    # STAT must be in epistream's list, with the same STAT (PLINK prints 6 significant digits)
    echo
    awk -v top="$TOP" '
        FNR == 1 { f++; next }
        f == 1 { es[$2 " " $5] = $7; es[$5 " " $2] = $7; last = $7; n_es++; next }
        f == 2 { n_pl++; k = $2 " " $4
                 if (k in es) { d = $5 - es[k]; if (d < 0) d = -d; rel = d / ($5 > 1 ? $5 : 1);
                                if (rel > maxrel) maxrel = rel; both++ }
                 else if (n_es < top || $5 > last * (1 + 1e-5)) missing++ }
        END { printf "agreement: PLINK reported %d pairs, %d in epistream top %d, ", n_pl, both,
                     n_es
              printf "max rel |dSTAT| %.2g, ", maxrel
              printf "%d above epistream cut-off but missing\n", missing
              exit (missing > 0 || maxrel > 1e-4) }' "$W/es.top.tsv" "$W/pl.epi.cc" ||
        echo "WARNING: epistream and PLINK disagree (see above)"
fi
