#!/bin/sh
# gpu_select.sh -- feature selection on the GPU writes the CPU's bytes: for
# every method, in double and fixed point, on a general table (128 bins, 5
# classes: dense tables in first-touch order, CondMI's grouped rounds) and on
# scan survivors (genotypes: the pair engine and the histogram kernels), the
# .select.tsv of --device gpu is byte-identical to --device cpu's; so is
# scan --refine's; --device auto says in the log which device it took and
# why.  Skips (77) where no GPU is visible.
. "$(dirname "$0")/lib.sh"

"$EPISTREAM" sim --samples 1501 --variants 420 --pairs 2 --missing 0.01 --seed 5 --out "$T/d" \
    >/dev/null 2>&1 || fail "sim"
printf 'a,b,status\n1,2,case\n2,1,control\n' >"$T/tiny.csv"
if ! "$EPISTREAM" select --table "$T/tiny.csv" --method mrmr --k 1 --device gpu --quiet \
    --out "$T/probe" 2>"$T/err"; then
    grep -q -E "without CUDA|no CUDA device" "$T/err" && skip "no GPU: $(cat "$T/err")"
    fail "select --device gpu failed: $(cat "$T/err")"
fi

awk 'BEGIN { srand(11); printf "id"; for (f = 1; f <= 40; f++) printf ",f%d", f; print ",cls";
     for (s = 0; s < 3001; s++) { c = int(rand() * 5); printf "s%d", s;
        for (f = 1; f <= 40; f++) { v = rand() * 10 + (f % 4 == 0 ? c * 3 : 0) + (f % 7 == 0 ? rand() * 40 : 0);
            printf ",%.4f", v } print "," c } }' >"$T/t.csv"
"$EPISTREAM" scan --bfile "$T/d" --top 200 --device cpu --quiet --out "$T/sv" || fail "survivor scan"
for m in mrmr jmi disr cmim icap condmi mim; do
    for fx in "" "--fixed-point"; do
        # shellcheck disable=SC2086
        "$EPISTREAM" select --table "$T/t.csv" --method $m --k 12 $fx --device cpu --quiet \
            --out "$T/tc.$m$fx" || fail "select cpu $m $fx"
        # shellcheck disable=SC2086
        "$EPISTREAM" select --bfile "$T/d" --from "$T/sv.top.tsv" --method $m --k 10 $fx --device cpu \
            --quiet --out "$T/vc.$m$fx" || fail "select --from cpu $m $fx"
        for path in auto hist; do
            # shellcheck disable=SC2086
            "$EPISTREAM" select --table "$T/t.csv" --method $m --k 12 $fx --device gpu --gpu-path $path \
                --quiet --out "$T/tg.$m$fx$path" || fail "select gpu $m $fx $path"
            # shellcheck disable=SC2086
            "$EPISTREAM" select --bfile "$T/d" --from "$T/sv.top.tsv" --method $m --k 10 $fx --device gpu \
                --gpu-path $path --quiet --out "$T/vg.$m$fx$path" || fail "select --from gpu $m $fx $path"
            for t in t v; do
                cmp -s "$T/${t}c.$m$fx.select.tsv" "$T/${t}g.$m$fx$path.select.tsv" ||
                    fail "$t $m $fx $path: the GPU's .select.tsv differs from the CPU's"
                grep -q "^select_device	gpu 0" "$T/${t}g.$m$fx$path.log" || fail "$t $m $path: not on the GPU"
            done
        done
    done
    # genotypes (<= 4 states, 2 classes) go to the pair engine under --gpu-path auto
    grep -q "select_device	gpu 0 (pair engine" "$T/vg.${m}auto.log" || [ $m = condmi ] || [ $m = mim ] ||
        fail "$m: genotype selection did not use the pair engine: $(grep select_device "$T/vg.${m}auto.log")"
done
# a path the table cannot take is refused, with nothing written
expect_fail "$T/err" "$EPISTREAM" select --table "$T/t.csv" --method jmi --k 3 --device gpu --gpu-path pairs --out "$T/bad"
grep -q "pair engine cannot" "$T/err" || fail "--gpu-path pairs on a table: $(cat "$T/err")"
[ ! -e "$T/bad.select.tsv" ] || fail "output written after a refused path"
for m in mrmr jmi disr cmim; do
    "$EPISTREAM" scan --bfile "$T/d" --top 200 --device cpu --refine $m:8 --quiet --out "$T/rc" || fail "refine cpu"
    "$EPISTREAM" scan --bfile "$T/d" --top 200 --device gpu --refine $m:8 --quiet --out "$T/rg" || fail "refine gpu"
    cmp -s "$T/rc.select.tsv" "$T/rg.select.tsv" || fail "scan --refine $m: the GPU's .select.tsv differs"
    grep -q "^select_device	gpu 0" "$T/rg.log" || fail "refine $m did not run on the GPU"
done

# --device auto: the choice and its reason in the log, the CPU's bytes either way
"$EPISTREAM" select --table "$T/t.csv" --method jmi --k 12 --device auto --verbose --out "$T/ta" \
    2>"$T/auto.err" || fail "select --device auto"
grep -q -- "--device auto: a selection of .* on the \(CPU\|GPU\) (estimated" "$T/auto.err" ||
    fail "--device auto gave no reason: $(cat "$T/auto.err")"
cmp -s "$T/tc.jmi.select.tsv" "$T/ta.select.tsv" || fail "--device auto: .select.tsv differs"
exit 0
