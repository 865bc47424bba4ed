# plink_bench.sh -- sourced by the benchmarks that race PLINK (bench_cohort.sh, bench_qt.sh):
#   bench_setup NAME TITLE   sets PLINK, EPISTREAM (defaults plink1.9, build/epistream), die(),
#                            HAVE_PLINK (0 when PLINK is "none" or missing), a work directory $W
#                            (kept with BENCH_KEEP=1) and prints the header: TITLE, date, CPU,
#                            threads $T, repeats $R and the load.
bench_setup() {
    BENCH_NAME=$1
    PLINK=${PLINK:-plink1.9}
    EPISTREAM=${EPISTREAM:-build/epistream}
    [ -x "$EPISTREAM" ] || die "no epistream binary at '$EPISTREAM' (set EPISTREAM)"
    [ -x /usr/bin/time ] || die "/usr/bin/time (GNU time) is needed"
    HAVE_PLINK=1
    if [ "$PLINK" = none ] || ! command -v "$PLINK" >/dev/null 2>&1; then
        HAVE_PLINK=0
        echo "note: no PLINK ($PLINK), epistream only"
    fi
    W=$(mktemp -d "${TMPDIR:-/tmp}/es_$1.XXXXXX") || die "cannot make a work directory"
    if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "work directory kept: $W"; else trap 'rm -rf "$W"' EXIT; fi
    trap 'exit 130' INT TERM
    echo "== $1: $2"
    echo "date      $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "cpu       $(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1)," \
         "$(nproc) logical CPUs; threads $T; fastest of $R; load $(cut -d' ' -f1-3 /proc/loadavg)"
}
die() { echo "${BENCH_NAME:-bench}: $*" >&2; exit 1; }
