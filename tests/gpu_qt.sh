#!/bin/sh
# gpu_qt.sh -- `scan --stat linear` on a quantitative trait with --device gpu
# (gpu/pair/qt.cu) writes the very bytes of --device cpu: top-k, significant
# pairs, summary, PLINK's .epi.qt and its summary; with tile sizes that cut
# the CTA tiles, with rare variants (many failed fits), with covariates (the
# screen on the residualised trait), with each of the kernels, and with
# missing calls, where the scan falls back to the CPU and says so.  Skips (77) where no GPU is visible.
. "$(dirname "$0")/lib.sh"

sim() { # NAME ARGS...
    name=$1
    shift
    "$EPISTREAM" sim --qt --seed 21 --out "$T/$name" "$@" >"$T/$name.sim" 2>&1 ||
        { cat "$T/$name.sim" >&2; fail "sim $name"; }
}
sim d --samples 1501 --variants 300 --pairs 2
sim rare --samples 700 --variants 160 --maf-min 0.002 --maf-max 0.03
sim cov --samples 900 --variants 200 --covariates 2
sim miss --samples 800 --variants 150 --missing 0.02

# is there a GPU?
if ! "$EPISTREAM" scan --bfile "$T/d" --pheno "$T/d.pheno" --device gpu --top 5 --quiet --out "$T/probe" \
    2>"$T/err"; then
    if grep -q -E "without CUDA|no CUDA device" "$T/err"; then
        skip "no GPU: $(cat "$T/err")"
    fi
    cat "$T/err" >&2
    fail "--device gpu failed on a quantitative trait"
fi

# same NAME SUFFIX ARGS...: --device cpu and --device gpu write the same files
same() {
    name=$1
    tag=$2
    shift 2
    for dev in cpu gpu; do
        "$EPISTREAM" scan --bfile "$T/$name" --pheno "$T/$name.pheno" --stat linear --device $dev --threads 2 \
            --out "$T/$name.$tag.$dev" "$@" >"$T/$name.$tag.$dev.out" 2>&1 ||
            { cat "$T/$name.$tag.$dev.out" >&2; fail "$name $tag: --device $dev"; }
    done
    n=0
    for f in "$T/$name.$tag.cpu".*; do
        case "$f" in *.log | *.out) continue ;; esac
        g="$T/$name.$tag.gpu${f#"$T/$name.$tag.cpu"}"
        cmp "$f" "$g" || fail "$name $tag: $(basename "$g") differs from --device cpu"
        n=$((n + 1))
    done
    [ "$n" -ge 2 ] || fail "$name $tag: only $n output file(s)"
    echo "$name $tag: $n files the same"
}

same d top --top 50 --p-threshold 1e-2
same d block --top 20 --block 96 --p-threshold 0.05
same d plink --format plink --epi1 1e-2 --top 100
same d all --top 100000 --p-threshold 1
same rare top --top 30 --p-threshold 0.05
same rare plink --format plink --epi1 1 --top 100000
same cov covar --covar "$T/cov.covar" --top 20 --exact-top 40 --p-threshold 1e-2
# the other kernels (EPISTREAM_GPU_QT_KERNEL; the default is rows/3)
for k in split/1 rows/2; do
    export EPISTREAM_GPU_QT_KERNEL=$k
    same d "k${k%/*}${k#*/}" --top 50 --p-threshold 1e-2 --block 96
    same rare "k${k%/*}${k#*/}" --top 30 --p-threshold 0.05
    unset EPISTREAM_GPU_QT_KERNEL
done
# each tile scored before the next starts (the default scores it while the next runs)
export EPISTREAM_GPU_QT_SERIAL=1
same d serial --top 50 --p-threshold 1e-2 --block 96
unset EPISTREAM_GPU_QT_SERIAL

grep -q "quantitative-trait mma kernel" "$T/d.top.gpu.log" ||
    fail "the GPU log does not name the quantitative-trait kernel: $(grep -i gpu "$T/d.top.gpu.log")"

# missing calls: the CPU runs the scan, and says so
same miss fallback --top 20 --p-threshold 1e-2
grep -q "has missing calls" "$T/miss.fallback.gpu.out" ||
    fail "no message for the CPU fallback: $(cat "$T/miss.fallback.gpu.out")"
exit 0
