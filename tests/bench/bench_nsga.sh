#!/bin/sh
# bench_nsga.sh -- epistream nsga against pymoo + scikit-learn, measured in the
# same run, as a table.  scikit-learn's bundled breast_cancer (569 x 30, 2
# classes) and digits (1,797 x 64, 10 classes) are exported to CSV in a
# temporary directory; both sides solve the same problem (F1 = selected / all
# features, F2 = the pooled StratifiedKFold(5, shuffle=True, random_state=0)
# error on z-scored features, the empty subset F2 = 1; hypervolume with the
# reference point (1, 1)) with NSGA-II, population 100 x 100 generations,
# uniform crossover 0.75, duplicates eliminated (pymoo: random bits, flips at
# 1/F; epistream: its defaults).  Rows:
#   bc-knn     breast_cancer, 5-NN           (the issue: pymoo 52 s, 191 evals/s, HV 0.946-0.948)
#   bc-nc      breast_cancer, nearest centroid (36.5 s, HV 0.940)
#   digits-nc  digits, nearest centroid      (43 s, HV 0.865)
# Columns: seconds and evaluations/s of the whole optimisation, the final
# hypervolume of seed 1 (epistream: also the mean and range of seeds 1-5),
# and x = epistream's evaluations/s / pymoo's.  Then ZDT1 (30 variables x 10
# bits) over 10 seeds, 100 x 100: the mean hypervolumes (reference (1.1, 1.1)).
#
#   sh tests/bench/bench_nsga.sh          (BENCH_THREADS, default 2; BENCH_ROWS;
#                                          EPISTREAM, NSGA_ZDT1: the programs)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
EPISTREAM=${EPISTREAM:-$top/build/epistream}
NSGA_ZDT1=${NSGA_ZDT1:-$(dirname "$EPISTREAM")/tests/nsga_zdt1}
PY=${PYTHON:-python3}
THREADS=${BENCH_THREADS:-2}
ROWS=${BENCH_ROWS:-bc-knn bc-nc digits-nc}
[ -x "$EPISTREAM" ] || { echo "no epistream at $EPISTREAM (set EPISTREAM)" >&2; exit 1; }
"$PY" -c 'import pymoo, sklearn' 2>/dev/null || { echo "needs pymoo and scikit-learn (scripts/deps.sh)" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/bench_nsga.XXXXXX")
trap 'rm -rf "$T"' EXIT
"$PY" - "$T" <<'PYEOF'
import sys
from sklearn.datasets import load_breast_cancer, load_digits
for name, ld in (("bc", load_breast_cancer), ("digits", load_digits)):
    x, y = ld(return_X_y=True)
    with open(f"{sys.argv[1]}/{name}.csv", "w") as f:
        f.write(",".join([f"f{i}" for i in range(x.shape[1])] + ["class"]) + "\n")
        for r, c in zip(x, y):
            f.write(",".join(repr(float(v)) for v in r) + f",{c}\n")
PYEOF

echo "# epistream nsga vs pymoo $("$PY" -c 'import pymoo; print(pymoo.__version__)') + scikit-learn $("$PY" -c 'import sklearn; print(sklearn.__version__)'), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# CPU: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs; epistream --threads $THREADS, pymoo single-threaded"
printf '%-10s %9s %10s %8s %21s %9s %10s %8s %7s\n' problem es_s es_eval/s es_hv "es_hv(5 seeds)" py_s py_eval/s py_hv x
for row in $ROWS; do
    case $row in
    bc-knn) data=bc obj=knn-error,size py=knn ;;
    bc-nc) data=bc obj=nc-error,size py=nc ;;
    digits-nc) data=digits obj=nc-error,size py=nc ;;
    *) echo "unknown row $row" >&2; continue ;;
    esac
    hvs=""
    for seed in 1 2 3 4 5; do
        "$EPISTREAM" nsga --table "$T/$data.csv" --objectives $obj --population 100 --generations 100 \
            --seed $seed --threads "$THREADS" --out "$T/es$seed" --quiet || exit 1
        hvs="$hvs $(sed -n 's/^hv_final\t//p' "$T/es$seed.log")"
    done
    es_s=$(sed -n 's/^seconds_total\t//p' "$T/es1.log")
    es_r=$(sed -n 's/^evaluations_per_second\t//p' "$T/es1.log")
    es_hv=$(sed -n 's/^hv_final\t//p' "$T/es1.log")
    es_hv5=$(echo "$hvs" | awk '{ lo = 9; hi = 0; for (i = 1; i <= NF; i++) { s += $i; if ($i < lo) lo = $i; if ($i > hi) hi = $i }
        printf "%.4f (%.4f-%.4f)", s / NF, lo, hi }')
    set -- $("$PY" "$top/tests/oracle/nsga_pymoo.py" select "$T/$data.csv" $py 100 100 1)
    py_s=$2 py_n=$4 py_hv=$6
    awk -v p="$row" -v es="$es_s" -v er="$es_r" -v eh="$es_hv" -v e5="$es_hv5" -v ps="$py_s" -v pn="$py_n" -v ph="$py_hv" 'BEGIN {
        pr = pn / ps; printf "%-10s %9.2f %10.0f %8.4f %21s %9.2f %10.0f %8.4f %6.1fx\n", p, es, er, eh, e5, ps, pr, ph, er / pr }'
done
if [ -x "$NSGA_ZDT1" ]; then
    seeds="1 2 3 4 5 6 7 8 9 10"
    ours=$("$NSGA_ZDT1" 30 10 100 100 $seeds | awk '{ s += $2 } END { printf "%.4f", s / NR }')
    theirs=$("$PY" "$top/tests/oracle/nsga_pymoo.py" zdt1 30 10 100 100 $seeds | awk '{ s += $2 } END { printf "%.4f", s / NR }')
    echo "# ZDT1 30 x 10 bits, 100 x 100, seeds 1-10: mean HV epistream $ours, pymoo $theirs (reference (1.1, 1.1); the front's ideal 0.8767)"
fi
