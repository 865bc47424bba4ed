#!/bin/sh
# gpu_cli.sh -- the GPU options of `epistream scan`: bad values are usage errors
# everywhere; where a GPU is visible, --device gpu writes the very bytes of
# --device cpu for every statistic and kernel, with any tile size, several
# GPUs given explicitly, and a capped block cache (streaming).
. "$(dirname "$0")/lib.sh"

"$EPISTREAM" sim --samples 1501 --variants 420 --pairs 2 --missing 0.01 --seed 5 --out "$T/d" \
    >/dev/null 2>&1 || fail "sim"
for bad in "--device gpu:" "--device gpu:x" "--device gpu:1,,2" "--device gpu:64" "--device tpu" \
           "--gpu-kernel fast" "--gpu-kernel mma2" "--gpu-mem 0" "--gpu-mem 12Q" "--gpu-mem -5"; do
    # shellcheck disable=SC2086
    expect_fail "$T/err" "$EPISTREAM" scan --bfile "$T/d" --out "$T/bad" $bad
    grep -q "E::" "$T/err" || fail "no error message for $bad"
    [ ! -e "$T/bad.top.tsv" ] || fail "output written for $bad"
done

for bad in "--gpu-path fast" "--device gpu:x" "--gpu-kernel fast"; do
    # shellcheck disable=SC2086
    expect_fail "$T/err" "$EPISTREAM" select --table "$T/none.csv" --method mrmr --k 2 --out "$T/bad" $bad
    grep -q "E::" "$T/err" || fail "select: no error message for $bad"
done
expect_fail "$T/err" "$EPISTREAM" scan --bfile "$T/d" --fixed-point --out "$T/bad"
grep -q "goes with --refine" "$T/err" || fail "scan --fixed-point without --refine: $(cat "$T/err")"

# is there a GPU?
if ! "$EPISTREAM" scan --bfile "$T/d" --device gpu --top 5 --quiet --out "$T/probe" 2>"$T/err"; then
    if grep -q -E "without CUDA|no CUDA device" "$T/err"; then
        skip "no GPU: $(cat "$T/err")"
    fi
    cat "$T/err" >&2
    fail "--device gpu failed"
fi
expect_fail "$T/err" "$EPISTREAM" scan --bfile "$T/d" --device gpu:63 --out "$T/bad"
grep -q "no such GPU" "$T/err" || fail "gpu:63 message: $(cat "$T/err")"
expect_fail "$T/err" "$EPISTREAM" scan --bfile "$T/d" --device gpu --gpu-mem 1K --out "$T/bad"
grep -q "cannot hold two blocks" "$T/err" || fail "--gpu-mem 1K message: $(cat "$T/err")"
[ ! -e "$T/bad.top.tsv" ] || fail "output written after a GPU error"
# the Hopper kernel where the device and build have it
wg=""
if "$EPISTREAM" scan --bfile "$T/d" --device gpu --gpu-kernel wgmma --top 5 --quiet --out "$T/probe" 2>"$T/err"; then
    wg="wgmma"
else
    grep -q "needs a compute capability 9.0" "$T/err" || fail "--gpu-kernel wgmma: $(cat "$T/err")"
fi

for stat in boost chi2 mi ig k2; do
    pt="--p-threshold 0.01"
    [ $stat = k2 ] && pt=""
    # shellcheck disable=SC2086
    "$EPISTREAM" scan --bfile "$T/d" --stat $stat --top 300 $pt --device cpu --quiet \
        --out "$T/cpu.$stat" || fail "cpu $stat"
    for cfg in "mma 0" "popc 0" "mma 96" "popc 130" "mma 64 300K" ${wg:+"wgmma 0" "wgmma 130" "wgmma 64 300K"}; do
        set -- $cfg
        o="$T/gpu.$stat.$1.$2"
        mem=""
        [ $# -ge 3 ] && mem="--gpu-mem $3"
        # shellcheck disable=SC2086
        "$EPISTREAM" scan --bfile "$T/d" --stat $stat --top 300 $pt --device gpu:0 --gpu-kernel $1 \
            --block $2 $mem --quiet --out "$o" || fail "gpu $stat $cfg"
        for f in top.tsv summary.tsv ${pt:+sig.tsv}; do
            cmp -s "$T/cpu.$stat.$f" "$o.$f" || fail "$stat $cfg: $f differs from --device cpu"
        done
        grep -q "^backend	gpu" "$o.log" || fail "log does not name the GPU backend"
    done
done
# no missing call: the first-stage screen and its survivor queue (several
# tiles, so that the later ones start with thresholds); the log must show
# that CTAs took the queue, and the outputs must not change
"$EPISTREAM" sim --samples 1237 --variants 6000 --pairs 3 --seed 21 --out "$T/f" >/dev/null 2>&1 || fail "sim f"
for stat in boost chi2 mi ig; do
    "$EPISTREAM" scan --bfile "$T/f" --stat $stat --top 200 --p-threshold 1e-4 --device cpu --quiet \
        --out "$T/fc.$stat" || fail "cpu $stat (no missing)"
    # wgmma also with each TMA loader (EPISTREAM_GPU_LOAD)
    for kl in mma popc ${wg:+wgmma wgmma:tma1 wgmma:tma2 wgmma:tma4}; do
        k=${kl%%:*} load=cp
        [ "$kl" = "$k" ] || load=${kl#*:}
        o="$T/fg.$stat.$k.$load"
        EPISTREAM_GPU_LOAD=$load "$EPISTREAM" scan --bfile "$T/f" --stat $stat --top 200 --p-threshold 1e-4 \
            --device gpu:0 --gpu-kernel $k --block 1024 --verbose --out "$o" 2>"$o.err" ||
            fail "gpu $stat $kl (no missing)"
        grep -q "tensor maps cannot be built" "$o.err" && fail "$kl: $(cat "$o.err")"
        for f in top.tsv summary.tsv sig.tsv; do
            cmp -s "$T/fc.$stat.$f" "$o.$f" || fail "$stat $kl, no missing call: $f differs from --device cpu"
        done
        q=$(sed -n 's/.*; \([0-9]*\) of [0-9]* CTAs scored their survivors from the queue.*/\1/p' "$o.err")
        [ -n "$q" ] && [ "$q" -gt 0 ] || fail "$stat $kl: the screen's queue was not used: $(grep screen "$o.err")"
    done
done

# selection on the GPU: the same picks as the CPU for every method and path;
# with --fixed-point the very bytes (exact sums on both sides)
awk 'BEGIN { srand(11); printf "id"; for (f = 1; f <= 40; f++) printf ",f%d", f; print ",cls";
     for (s = 0; s < 3001; s++) { c = int(rand() * 5); printf "s%d", s;
        for (f = 1; f <= 40; f++) { v = rand() * 10 + (f % 4 == 0 ? c * 3 : 0) + (f % 7 == 0 ? rand() * 40 : 0);
            printf ",%.4f", v } print "," c } }' > "$T/t.csv"
"$EPISTREAM" scan --bfile "$T/d" --top 200 --device cpu --quiet --out "$T/sv" || fail "survivor scan"
same_picks() { # $1 $2: .select.tsv files with the same RANK FEATURE and scores to 1e-9
    awk -F'\t' 'NR == FNR { f[FNR] = $2; s[FNR] = $3; r[FNR] = $4; n = FNR; next }
        FNR > 1 && ($2 != f[FNR] || ($3 - s[FNR])^2 > 1e-18 * (1 + s[FNR]^2) || ($4 - r[FNR])^2 > 1e-18 * (1 + r[FNR]^2)) { bad = 1 }
        END { exit bad || FNR != n }' "$1" "$2"
}
for m in mrmr jmi disr cmim icap condmi mim; do
    for fx in "" "--fixed-point"; do
        # shellcheck disable=SC2086
        "$EPISTREAM" select --table "$T/t.csv" --method $m --k 12 $fx --device cpu --quiet \
            --out "$T/sc.$m$fx" || fail "select cpu $m $fx"
        # shellcheck disable=SC2086
        "$EPISTREAM" select --bfile "$T/d" --from "$T/sv.top.tsv" --method $m --k 10 $fx --device cpu \
            --quiet --out "$T/vc.$m$fx" || fail "select --from cpu $m $fx"
        for path in hist auto; do
            # shellcheck disable=SC2086
            "$EPISTREAM" select --table "$T/t.csv" --method $m --k 12 $fx --device gpu --gpu-path $path \
                --quiet --out "$T/sg.$m$fx$path" || fail "select gpu $m $fx $path"
            # shellcheck disable=SC2086
            "$EPISTREAM" select --bfile "$T/d" --from "$T/sv.top.tsv" --method $m --k 10 $fx --device gpu \
                --gpu-path $path --quiet --out "$T/vg.$m$fx$path" || fail "select --from gpu $m $fx $path"
            for t in s v; do
                if [ -n "$fx" ]; then
                    cmp -s "$T/${t}c.$m$fx.select.tsv" "$T/${t}g.$m$fx$path.select.tsv" ||
                        fail "$t $m $path: fixed-point selection differs from the CPU's"
                    grep -q "^fixed_point_agreement" "$T/${t}g.$m$fx$path.log" || fail "no agreement in the log"
                else
                    same_picks "$T/${t}c.$m.select.tsv" "$T/${t}g.$m$path.select.tsv" ||
                        fail "$t $m $path: GPU picks differ from the CPU's"
                fi
            done
        done
    done
    grep -q "select_device	gpu 0 (pair engine" "$T/vg.${m}auto.log" || [ $m = condmi ] || [ $m = mim ] ||
        fail "$m: genotype selection did not use the pair engine: $(grep select_device "$T/vg.${m}auto.log")"
done
# scan --refine on the GPU: the refinement follows --device
"$EPISTREAM" scan --bfile "$T/d" --top 200 --device cpu --refine jmi:8 --quiet --out "$T/rc" || fail "refine cpu"
"$EPISTREAM" scan --bfile "$T/d" --top 200 --device gpu --refine jmi:8 --quiet --out "$T/rg" || fail "refine gpu"
same_picks "$T/rc.select.tsv" "$T/rg.select.tsv" || fail "scan --refine on the GPU picks differently"
grep -q "select_device	gpu 0" "$T/rg.log" || fail "refine did not run on the GPU"
expect_fail "$T/err" "$EPISTREAM" select --table "$T/t.csv" --method jmi --k 3 --device gpu --gpu-path pairs --out "$T/bad"
grep -q "pair engine cannot" "$T/err" || fail "--gpu-path pairs on a table: $(cat "$T/err")"
[ ! -e "$T/bad.select.tsv" ] || fail "output written after a refused path"

# packed planes in a temporary file (unpinned copies) on the GPU
mkdir -p "$T/tmp"
"$EPISTREAM" scan --bfile "$T/d" --stat chi2 --top 300 --p-threshold 0.01 --device gpu --block 96 \
    --host-mem 1K --tmp-dir "$T/tmp" --quiet --out "$T/hm" || fail "gpu --host-mem"
for f in top.tsv summary.tsv sig.tsv; do
    cmp -s "$T/cpu.chi2.$f" "$T/hm.$f" || fail "--host-mem 1K on the GPU: $f differs from --device cpu"
done

# PLINK format through the GPU
"$EPISTREAM" scan --bfile "$T/d" --format plink --device cpu --quiet --out "$T/pc" || fail "cpu plink"
"$EPISTREAM" scan --bfile "$T/d" --format plink --device gpu --quiet --out "$T/pg" || fail "gpu plink"
cmp -s "$T/pc.epi.cc" "$T/pg.epi.cc" || fail ".epi.cc differs"
exit 0
