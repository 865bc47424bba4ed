#!/bin/sh
# bench_mdfs.sh -- `epistream mdfs` against the MDFS package (PyPI mdfs 1.5.2,
# single-threaded C++) measured in the same run, on the same data, as a table:
#
#   2d      1,000 objects x 2,000 variables, --dim 2 --divisions 2, one
#           discretisation, no contrast variables: tuples/s (pairs/s) of the
#           package's compute_max_ig() and of ours;
#   3d      1,000 objects x 200 variables, --dim 3, the same: triples/s;
#   4d, 5d  (BENCH_K45=1 only) 1,000 objects x 60 / 30 variables, --dim 4 / 5,
#           --divisions 2, one discretisation: the general path (margins summed
#           per tuple);
#   run3d   (BENCH_RUN=1 only: the package takes about a minute) the whole
#           run(): 200 variables, --dim 3 --divisions 1, 10 discretisations,
#           max(30, n) contrast variables, the p-value fit, Holm: seconds end
#           to end (ours: the whole command, CSV reading included).
#
#   sh tests/bench/bench_mdfs.sh                  # 2d and 3d
#   BENCH_RUN=1 sh tests/bench/bench_mdfs.sh      # and run3d
#   BENCH_K45=1 sh tests/bench/bench_mdfs.sh      # and 4d, 5d
#
# Settings: EPISTREAM (the program; default build/epistream), BENCH_THREADS
# (ours; default 2), PYTHON (default python3, with numpy and mdfs).  Figures:
# ours = the seconds the program reports for the run after reading the table
# (discretisation, contrast variables, counting, p-values) except run3d;
# the package's = wall seconds of its call, data already in memory.  Both
# the best of BENCH_REPEAT runs (default 3; run3d once).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
EPISTREAM=${EPISTREAM:-}
if [ -z "$EPISTREAM" ]; then
    for p in "$top/build/epistream" "$top/epistream" ./epistream; do
        [ -x "$p" ] && { EPISTREAM=$p; break; }
    done
fi
[ -n "$EPISTREAM" ] && [ -x "$EPISTREAM" ] || { echo "epistream not found: set EPISTREAM" >&2; exit 1; }
PY=${PYTHON:-python3}
$PY -c "import numpy, mdfs" 2>/dev/null || { echo "needs python3 with numpy and mdfs (pip install mdfs==1.5.2)" >&2; exit 1; }
THREADS=${BENCH_THREADS:-2}
REPEAT=${BENCH_REPEAT:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/bench_mdfs.XXXXXX")
trap 'rm -rf "$T"' EXIT

# data: standard normal float32 values, a class from v0 + v1 * v2
mkdata() { # OUT OBJECTS VARS SEED
    $PY - "$@" <<'PY'
import sys
import numpy as np
out, n, v, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rs = np.random.RandomState(seed)
x = rs.standard_normal((n, v)).astype(np.float32)
y = (x[:, 0] + x[:, 1] * x[:, 2] + rs.standard_normal(n) > 0).astype(int)
with open(out, "w") as f:
    f.write(",".join("v%d" % j for j in range(v)) + ",class\n")
    np.savetxt(f, np.column_stack([x, y]), fmt="%.9g", delimiter=",")
PY
}

# the package: best seconds of REPEAT calls
package() { # CSV MODE DIM DIVISIONS DISCRETIZATIONS REPEAT
    $PY - "$@" <<'PY'
import sys, time
import numpy as np
import mdfs
path, mode, dim, div, disc, rep = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
a = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float32).astype(np.float64)
x, y = np.asfortranarray(a[:, :-1]), (a[:, -1] > 0).astype(np.int32)
best = 1e30
for _ in range(rep):
    t0 = time.perf_counter()
    if mode == "max_ig":
        mdfs.compute_max_ig(x, y, dimensions=dim, divisions=div, discretizations=disc, seed=0,
                            range_=0.5)
    else:
        r = mdfs.run(x, y, dimensions=dim, divisions=div, discretizations=disc, seed=0)
    best = min(best, time.perf_counter() - t0)
print("%.6f" % best)
PY
}

# ours: best seconds the program reports (engine) or wall seconds (whole)
ours() { # CSV WHAT ARGS...
    csv=$1 what=$2
    shift 2
    best=
    n=$REPEAT
    [ "$what" = whole ] && n=1
    i=0
    while [ $i -lt "$n" ]; do
        t0=$(date +%s.%N)
        "$EPISTREAM" mdfs --table "$csv" "$@" --threads "$THREADS" --out "$T/o" 2>"$T/err" ||
            { cat "$T/err" >&2; exit 1; }
        t1=$(date +%s.%N)
        if [ "$what" = whole ]; then s=$(echo "$t0 $t1" | awk '{ printf "%.6f", $2 - $1 }')
        else s=$(sed -n 's/.* tuples in \([0-9.]*\) s .*/\1/p' "$T/err"); fi
        best=$(echo "$s ${best:-1e30}" | awk '{ print ($1 < $2) ? $1 : $2 }')
        i=$((i + 1))
    done
    echo "$best"
}

echo "# epistream mdfs vs the mdfs package $($PY -c 'import importlib.metadata as m; print(m.version("mdfs"))'), same run, $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
echo "# CPU: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc 2>/dev/null) CPUs; ours on $THREADS threads, the package on 1"
printf '%-6s %8s %7s %4s %4s %5s %12s %10s %12s %10s %8s\n' case objects vars dim div disc tuples pkg_s pkg_tup/s ours_s ratio
row() { # CASE N V DIM DIV DISC TUPLES PKG_S OURS_S
    awk -v c="$1" -v n="$2" -v v="$3" -v k="$4" -v m="$5" -v d="$6" -v t="$7" -v p="$8" -v o="$9" 'BEGIN {
        printf "%-6s %8d %7d %4d %4d %5d %12.0f %10.3f %12.3g %10.4f %7.1fx\n", c, n, v, k, m, d, t, p, t / p, o, p / o }'
}
tuples() { awk -v v="$1" -v k="$2" 'BEGIN { t = 1; for (j = 0; j < k; j++) t = t * (v - j) / (j + 1); printf "%.0f", t }'; }

mkdata "$T/d2.csv" 1000 2000 1
p=$(package "$T/d2.csv" max_ig 2 2 1 "$REPEAT")
o=$(ours "$T/d2.csv" engine --dim 2 --divisions 2 --discretizations 1 --range 0.5 --contrast 0)
row 2d 1000 2000 2 2 1 "$(tuples 2000 2)" "$p" "$o"

mkdata "$T/d3.csv" 1000 200 2
p=$(package "$T/d3.csv" max_ig 3 2 1 "$REPEAT")
o=$(ours "$T/d3.csv" engine --dim 3 --divisions 2 --discretizations 1 --range 0.5 --contrast 0)
row 3d 1000 200 3 2 1 "$(tuples 200 3)" "$p" "$o"

if [ "${BENCH_K45:-0}" = 1 ]; then
    for kv in 4:60 5:30; do
        k=${kv%%:*} v=${kv#*:}
        cut -d, -f1-"$v",201 "$T/d3.csv" >"$T/d$k.csv"
        p=$(package "$T/d$k.csv" max_ig "$k" 2 1 "$REPEAT")
        o=$(ours "$T/d$k.csv" engine --dim "$k" --divisions 2 --discretizations 1 --range 0.5 --contrast 0)
        row "${k}d" 1000 "$v" "$k" 2 1 "$(tuples "$v" "$k")" "$p" "$o"
    done
fi

if [ "${BENCH_RUN:-0}" = 1 ]; then
    p=$(package "$T/d3.csv" run 3 1 10 1)
    o=$(ours "$T/d3.csv" whole --dim 3 --divisions 1 --discretizations 10)
    # tuples of run(): 10 x (C(200,3) + C(200,2) x 200 contrast)
    t=$(awk -v a="$(tuples 200 3)" -v b="$(tuples 200 2)" 'BEGIN { printf "%.0f", 10 * (a + b * 200) }')
    row run3d 1000 200 3 1 10 "$t" "$p" "$o"
fi
