#!/bin/sh
# bench_select.sh -- mutual-information feature selection (es_mi_select) on
# synthetic data of three sizes, one thread and all threads, as a table:
#
#   feast    4,000 x 10,000, 2 classes, 10 states, k = 50: the size of the
#            published sequential FEAST timings on a 2-core machine (mRMR 5.3 s,
#            JMI 9.1 s, DISR 15 s), shown in the FEAST_s column;
#   mnist    60,000 x 780, 10 classes, 128 states, k = 200 (MNIST-sized);
#   epsilon  400,000 x 2,000, 2 classes, 128 states, k = 200 (Epsilon-sized;
#            1.6 GB of 16-bit columns plus a 0.8 GB byte copy).
#
#   sh tests/bench/bench_select.sh                     # all three sets
#   BENCH_SETS="feast mnist" sh tests/bench/bench_select.sh
#   BENCH_DEVICE=0 BENCH_SETS=feast sh tests/bench/bench_select.sh   # CPU vs GPU 0
#
# With BENCH_DEVICE (a CUDA device number) the table gains the GPU columns
# of bench_mi: gpu_s, gpu_fx_s, gpu_x (all-threads CPU seconds / GPU
# seconds, same run) and bytes (the GPU's picks and scores bit for bit the
# CPU's); BENCH_REPEAT keeps the fastest of that many runs of each (default 1).
#
# Settings: BENCH_MI (the bench_mi program; default build/tests/bench/bench_mi,
# else tests/bench/bench_mi), BENCH_SETS (feast mnist epsilon), BENCH_METHODS
# (comma list or all; default all for feast and mnist, mrmr,jmi,disr for
# epsilon), BENCH_THREADS (default: all CPUs), BENCH_K (overrides every k).
# Figures: wall seconds of es_mi_select() alone (data made in memory first).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BENCH_MI=${BENCH_MI:-}
if [ -z "$BENCH_MI" ]; then
    for p in "$top/build/tests/bench/bench_mi" "$top/tests/bench/bench_mi" ./tests/bench/bench_mi; do
        [ -x "$p" ] && { BENCH_MI=$p; break; }
    done
fi
[ -n "$BENCH_MI" ] && [ -x "$BENCH_MI" ] || { echo "bench_mi not found: build it or set BENCH_MI" >&2; exit 1; }
SETS=${BENCH_SETS:-feast mnist epsilon}
THREADS=${BENCH_THREADS:-$(nproc 2>/dev/null || echo 1)}

echo "# es_mi_select benchmark, $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
echo "# CPU: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc 2>/dev/null) CPUs;" \
    "memory: $(free -g 2>/dev/null | awk '/^Mem:/ {print $2 " GiB"}')"
echo "# all-threads column: $THREADS threads; seconds of es_mi_select() only"
header_done=0
for set in $SETS; do
    case $set in
    feast) args="--samples 4000 --features 10000 --classes 2 --states 10 --k 50"; meth=${BENCH_METHODS:-all} ;;
    mnist) args="--samples 60000 --features 780 --classes 10 --states 128 --k 200"; meth=${BENCH_METHODS:-all} ;;
    epsilon) args="--samples 400000 --features 2000 --classes 2 --states 128 --k 200"; meth=${BENCH_METHODS:-mrmr,jmi,disr} ;;
    *) echo "unknown set $set (feast, mnist, epsilon)" >&2; exit 1 ;;
    esac
    [ -n "${BENCH_K:-}" ] && args="$args --k $BENCH_K"
    # shellcheck disable=SC2086
    "$BENCH_MI" $args --methods "$meth" --threads "$THREADS" --label "$set" \
        ${BENCH_DEVICE:+--device "$BENCH_DEVICE"} --repeat "${BENCH_REPEAT:-1}" >"${TMPDIR:-/tmp}/bench_mi.$$" ||
        { rm -f "${TMPDIR:-/tmp}/bench_mi.$$"; echo "bench_mi failed on $set" >&2; exit 1; }
    # add the published FEAST figure where there is one
    awk -v hd="$header_done" 'NR == 1 { if (!hd) print $0 "  FEAST_s"; next }
        { f = "-"; if ($1 == "feast") { if ($7 == "mrmr") f = "5.3"; if ($7 == "jmi") f = "9.1";
                                        if ($7 == "disr") f = "15" }
          printf "%s %8s\n", $0, f }' "${TMPDIR:-/tmp}/bench_mi.$$"
    rm -f "${TMPDIR:-/tmp}/bench_mi.$$"
    header_done=1
done
