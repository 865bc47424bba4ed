#!/bin/sh
# bench_rules.sh -- fit time of `epistream rules train` (default settings:
# mlrl-boomer 0.15.6's BoomerClassifier()) on emotions and enron, split as
# mlrl-boomer's testbed splits them, and on the issue's synthetic set
# (make_multilabel_classification(n_samples=20000, n_features=200, n_classes=50,
# random_state=0), all rows; tests/bench/rules_synth.py), with 1 and 2 threads, and with 2 threads
# while another program keeps one of the two cores busy; beside mlrl-boomer's
# own fit times (1 thread, 2 threads, 2 threads and the busy core) when
# MLRL_PYTHON names a Python with mlrl-boomer 0.15.6.  Prints
# a table; each time is the best of REPEAT runs (default 3), the fit only
# (reading the ARFF file is not counted, on either side).
#
#   sh tests/bench/bench_rules.sh [EPISTREAM]
#   env: ML (Mulan data: emotions.{arff,xml}, enron.{arff,xml}; default
#        ../shared/data/multilabel), SPLIT (a folder that already holds
#        NAME.train.arff and NAME.test.arff; default: split here with python3 +
#        numpy), MLRL_PYTHON, REPEAT, CORES (two CPU ids for the 2-thread runs,
#        default "0 1"; the busy program runs on the second), DATASETS (default
#        "emotions enron synth"; synth needs python3 with scikit-learn), ARGS (more
#        options for both sides' fits, e.g. ARGS=feature_binning=equal-width: each
#        key=value is passed to BoomerClassifier and as --key-with-dashes value to
#        epistream).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
E=${1:-$top/build/epistream}
ML=${ML:-$top/../shared/data/multilabel}
REPEAT=${REPEAT:-3}
CORES=${CORES:-0 1}
c0=${CORES%% *} c1=${CORES##* }
T=$(mktemp -d "${TMPDIR:-/tmp}/bench_rules.XXXXXX")
busy=
trap '[ -n "$busy" ] && kill "$busy" 2>/dev/null; rm -rf "$T"' EXIT
SPLIT=${SPLIT:-}
if [ -z "$SPLIT" ]; then
    SPLIT=$T
    for n in emotions enron; do python3 "$top/tests/oracle/mulan_split.py" "$ML/$n.arff" "$T/$n" >/dev/null; done
    python3 "$top/tests/bench/rules_synth.py" "$T/synth" || exit 1
fi
DATASETS=${DATASETS:-emotions enron synth}
ARGS=${ARGS:-}
eargs=
for kv in $ARGS; do eargs="$eargs --$(echo "${kv%%=*}" | tr _ -) ${kv#*=}"; done
xml() { # NAME: its Mulan label file
    if [ -f "$SPLIT/$1.xml" ]; then echo "$SPLIT/$1.xml"; else echo "$ML/$1.xml"; fi
}
pin() { # CPUS CMD...: run CMD on those CPUs (taskset), or anywhere
    cpus=$1
    shift
    if command -v taskset >/dev/null 2>&1; then taskset -c "$cpus" "$@"; else "$@"; fi
}

# fit NAME THREADS CPUS: the best fit time of REPEAT runs (the one model checked equal)
fit() {
    best=
    for k in $(seq "$REPEAT"); do
        # shellcheck disable=SC2086
        pin "$3" "$E" rules train --arff "$SPLIT/$1.train.arff" --labels-xml "$(xml "$1")" \
            --threads "$2" $eargs --out "$T/m" 2>"$T/err" >/dev/null
        s=$(sed -n 's/.*(fit \([0-9.]*\) s, .*/\1/p' "$T/err")
        [ -n "$s" ] || { cat "$T/err" >&2; exit 1; }
        if [ -f "$T/ref.$1.model" ]; then cmp -s "$T/m.model" "$T/ref.$1.model" || { echo "model differs" >&2; exit 1; }
        else cp "$T/m.model" "$T/ref.$1.model"; fi
        best=$(awk -v a="$s" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
    done
    echo "$best"
}

mlrl() { # CPUS NAME [PARAM=VALUE...]: mlrl-boomer's best fit time on those CPUs
    cpus=$1 n=$2
    shift 2
    best=
    for k in $(seq "$REPEAT"); do
        # shellcheck disable=SC2086
        s=$(pin "$cpus" "$MLRL_PYTHON" "$top/tests/bench/rules_mlrl.py" fit "$SPLIT/$n.train.arff" "$(xml "$n")" "$@" $ARGS |
            sed -n 's/^fit_seconds //p')
        best=$(awk -v a="$s" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
    done
    echo "$best"
}

printf '%-9s %6s %8s %6s | %9s %9s %7s %13s | %10s %10s %13s\n' dataset train features labels \
    "1 thread" "2 threads" ratio "2 thr + busy" "mlrl 1 thr" "mlrl 2 thr" "mlrl 2 + busy"
for n in $DATASETS; do
    rm -f "$T/ref.$n.model"
    shape=$("$E" rules train --arff "$SPLIT/$n.train.arff" --labels-xml "$(xml "$n")" --max-rules 1 \
        --out "$T/s" 2>&1 | sed -n 's/.* from \([0-9]*\) examples, \([0-9]*\) features, \([0-9]*\) labels.*/\1 \2 \3/p')
    t1=$(fit "$n" 1 "$c0")
    t2=$(fit "$n" 2 "$c0,$c1")
    # a busy loop on the second core (the other program); a simple command, so that $!
    # is the loop itself (taskset execs it)
    if command -v taskset >/dev/null 2>&1; then
        taskset -c "$c1" sh -c 'while :; do :; done' &
    else
        sh -c 'while :; do :; done' &
    fi
    busy=$!
    tb=$(fit "$n" 2 "$c0,$c1")
    mb=-
    [ -n "${MLRL_PYTHON:-}" ] && mb=$(mlrl "$c0,$c1" "$n" 'parallel_rule_refinement=true{num_preferred_threads=2}')
    kill "$busy"
    wait "$busy" 2>/dev/null || true
    busy=
    m1=- m2=-
    if [ -n "${MLRL_PYTHON:-}" ]; then
        m1=$(mlrl "$c0" "$n" parallel_rule_refinement=false parallel_statistic_update=false \
            parallel_prediction=false)
        m2=$(mlrl "$c0,$c1" "$n" 'parallel_rule_refinement=true{num_preferred_threads=2}')
    fi
    set -- $shape
    printf '%-9s %6s %8s %6s | %8ss %8ss %6sx %12ss | %9ss %9ss %12ss\n' "$n" "$1" "$2" "$3" "$t1" \
        "$t2" "$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", a / b }')" "$tb" "$m1" "$m2" "$mb"
done
