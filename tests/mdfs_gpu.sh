#!/bin/sh
# mdfs_gpu.sh -- `epistream mdfs --device gpu` writes the very bytes of
# --device cpu (.mdfs.tsv, .relevant.tsv): --dim 2 and 3, --divisions 1, 2, 3
# (the tensor cores at --dim 2, and 3 with 1, 2, their Hc sums in float (the
# shifted tables in shared memory, and through L1 at 3,200 objects) and in
# double (EPISTREAM_MDFS_GPU_SUM=double), and the CUDA-core register kernels,
# all) and 5 (any m), several discretisations, contrast
# variables, exact ties (a duplicated column), a constant column, the summed
# margins (EPISTREAM_MDFS_MARGINS=sum), the host's rescoring given every
# tuple (run without a GPU too), the CPU fallback of a discretisation
# whose near-maximum tuples overflow the GPU's buffer, two GPUs where present,
# genotypes; and the clear errors of what the GPU does not take.  Skipped
# where there is no GPU.
. "$(dirname "$0")/lib.sh"

# 240 objects x 36 variables: v35 = v0 (ties), v34 constant, y from v1 * v2 + v3
awk 'BEGIN { s = 11; printf "v0"; for (j = 1; j < 36; j++) printf ",v%d", j; print ",y"
    for (i = 0; i < 240; i++) {
        for (j = 0; j < 34; j++) { s = (s * 1103515245 + 12345) % 2147483648; x[j] = s / 2147483648 - 0.5 }
        s = (s * 1103515245 + 12345) % 2147483648; e = s / 2147483648 - 0.5
        for (j = 0; j < 34; j++) printf "%s%.5f", j ? "," : "", x[j]
        printf ",1.5,%.5f,%d\n", x[0], (x[1] * x[2] * 4 + x[3] + e * 0.6 > 0) } }' >"$T/d.csv"

# first, without a GPU: the host's rescoring of returned tuples, given every
# tuple (EPISTREAM_MDFS_RESCORE=all), is the CPU engine's result bit for bit
for a in "2 2" "2 5" "3 1" "3 2" "3 3" "3 5" "3 2 sum"; do
    set -- $a
    m=${3:-}
    EPISTREAM_MDFS_MARGINS=$m "$EPISTREAM" mdfs --table "$T/d.csv" --dim $1 --divisions $2 --discretizations 2 \
        --range 0.5 --contrast 40 --device cpu --out "$T/rs" --quiet || fail "rescore: cpu $a"
    EPISTREAM_MDFS_MARGINS=$m EPISTREAM_MDFS_RESCORE=all "$EPISTREAM" mdfs --table "$T/d.csv" --dim $1 \
        --divisions $2 --discretizations 2 --range 0.5 --contrast 40 --device cpu --out "$T/rs2" --quiet ||
        fail "rescore: all $a"
    cmp -s "$T/rs.mdfs.tsv" "$T/rs2.mdfs.tsv" || { diff "$T/rs.mdfs.tsv" "$T/rs2.mdfs.tsv" | head >&2; fail "rescoring every tuple differs from the CPU engine: $a"; }
done

if ! "$EPISTREAM" mdfs --table "$T/d.csv" --dim 2 --device gpu --range 0.5 --out "$T/probe" --quiet \
    2>"$T/err"; then
    grep -q -E "no GPU is visible|no CUDA" "$T/err" && skip "no GPU: $(cat "$T/err")"
    cat "$T/err" >&2
    fail "--device gpu failed"
fi

same() { # NAME ARGS...: cpu and gpu give the same bytes (on $T/${TAB:-d}.csv)
    name=$1
    tab=$T/${TAB:-d}.csv
    shift
    "$EPISTREAM" mdfs --table "$tab" "$@" --device cpu --out "$T/$name.cpu" --quiet ||
        fail "cpu: $*"
    "$EPISTREAM" mdfs --table "$tab" "$@" --device gpu --out "$T/$name.gpu" --verbose \
        2>"$T/$name.log" || { cat "$T/$name.log" >&2; fail "gpu: $*"; }
    grep -q "on gpu:" "$T/$name.log" || { cat "$T/$name.log" >&2; fail "not on the GPU: $*"; }
    for f in mdfs.tsv relevant.tsv; do
        cmp -s "$T/$name.cpu.$f" "$T/$name.gpu.$f" || {
            diff "$T/$name.cpu.$f" "$T/$name.gpu.$f" | head >&2
            fail "$f differs between cpu and gpu: $*"
        }
    done
}
for dim in 2 3; do
    for div in 1 2 3 5; do
        same "d${dim}m$div" --dim $dim --divisions $div --discretizations 3 --range 0.5 --seed 7 --contrast 40
    done
    same "d${dim}one" --dim $dim --divisions 2 --range 0 --seed 3 --contrast 36
done
# --dim 2 with --divisions 1-3 and --dim 3 with 1-2 are counted on the
# tensor cores (sm_80 and later: every device this build runs on), the rest
# by the CUDA-core kernel, which EPISTREAM_MDFS_GPU_KERNEL=popc also forces
# for those: the same bytes
for dd in 2:1 2:2 2:3 3:1 3:2; do
    dim=${dd%:*} div=${dd#*:}
    grep -q "(tensor cores, float sums)" "$T/d${dim}m$div.log" || { cat "$T/d${dim}m$div.log" >&2; fail "--dim $dim --divisions $div: not on the tensor cores with float sums"; }
    EPISTREAM_MDFS_GPU_SUM=double same "d${dim}s$div" --dim $dim --divisions $div --discretizations 3 --range 0.5 --seed 7 --contrast 40
    grep -q "(tensor cores, double sums)" "$T/d${dim}s$div.log" || fail "EPISTREAM_MDFS_GPU_SUM=double: not the double sums"
    EPISTREAM_MDFS_GPU_KERNEL=popc same "d${dim}p$div" --dim $dim --divisions $div --discretizations 3 --range 0.5 --seed 7 --contrast 40
    grep -q "(popcount)" "$T/d${dim}p$div.log" || fail "EPISTREAM_MDFS_GPU_KERNEL=popc: not the popcount kernel"
done
for dd in 2:5 3:3 3:5; do
    grep -q "(popcount)" "$T/d${dd%:*}m${dd#*:}.log" || fail "--dim ${dd%:*} --divisions ${dd#*:}: not the popcount kernel"
done
unset EPISTREAM_MDFS_GPU_KERNEL EPISTREAM_MDFS_GPU_SUM # (whether a function's assignment persists varies among shells)
expect_fail "$T/err" env EPISTREAM_MDFS_GPU_SUM=half "$EPISTREAM" mdfs --table "$T/d.csv" --dim 2 --range 0.5 \
    --device gpu --out "$T/no"
grep -q "EPISTREAM_MDFS_GPU_SUM=half: expected float or double" "$T/err" || fail "a bad EPISTREAM_MDFS_GPU_SUM: message"
# 3,200 objects: the float tables (25.6 KB) are read through L1, not shared memory
awk 'BEGIN { s = 5; printf "v0"; for (j = 1; j < 24; j++) printf ",v%d", j; print ",y"
    for (i = 0; i < 3200; i++) {
        for (j = 0; j < 24; j++) { s = (s * 1103515245 + 12345) % 2147483648; x[j] = s / 2147483648 - 0.5 }
        for (j = 0; j < 24; j++) printf "%s%.5f", j ? "," : "", x[j]
        printf ",%d\n", (x[1] * x[2] * 4 + x[3] + x[5] * 0.5 > 0) } }' >"$T/big.csv"
TAB=big same big2 --dim 2 --divisions 2 --discretizations 2 --range 0.5 --seed 5 --contrast 24
TAB=big same big3 --dim 3 --divisions 2 --discretizations 2 --range 0.5 --seed 5 --contrast 24
grep -q "(tensor cores, float sums)" "$T/big3.log" || fail "3,200 objects: not on the tensor cores with float sums"
expect_fail "$T/err" env EPISTREAM_MDFS_GPU_KERNEL=tensor "$EPISTREAM" mdfs --table "$T/d.csv" --dim 2 --range 0.5 \
    --device gpu --out "$T/no"
grep -q "EPISTREAM_MDFS_GPU_KERNEL=tensor: expected popc or mma" "$T/err" || fail "a bad EPISTREAM_MDFS_GPU_KERNEL: message"
# the relevant variables were found (the test can fail)
grep -q "^v1	" "$T/d3m2.gpu.relevant.tsv" || fail "v1 not relevant at --dim 3"
# summed margins (the CPU's other path for the exact IGs)
EPISTREAM_MDFS_MARGINS=sum same d3sum --dim 3 --divisions 2 --discretizations 2 --range 0.5 --contrast 40
# a one-tuple buffer: every discretisation falls back to the CPU, the same bytes
EPISTREAM_MDFS_GPU_CAND=1 same d2fb --dim 2 --divisions 2 --discretizations 2 --range 0.5 --contrast 40
grep -q "counted on the CPU" "$T/d2fb.log" || fail "no CPU fallback with a one-tuple buffer"
# two GPUs where present: the same bytes
if [ "$("$EPISTREAM" mdfs --table "$T/d.csv" --dim 2 --device gpu:0,1 --range 0.5 --out "$T/two" \
    --quiet 2>&1 | grep -c "no such GPU")" -eq 0 ]; then
    "$EPISTREAM" mdfs --table "$T/d.csv" --dim 3 --divisions 2 --discretizations 2 --range 0.5 \
        --contrast 40 --device gpu:0,1 --out "$T/two" --quiet || fail "gpu:0,1"
    "$EPISTREAM" mdfs --table "$T/d.csv" --dim 3 --divisions 2 --discretizations 2 --range 0.5 \
        --contrast 40 --device cpu --out "$T/two.cpu" --quiet || fail "cpu for gpu:0,1"
    cmp -s "$T/two.mdfs.tsv" "$T/two.cpu.mdfs.tsv" || fail "two GPUs differ from the CPU"
fi
# genotypes (0/1/2 as they are)
"$EPISTREAM" sim --samples 600 --variants 70 --pairs 1 --seed 4 --out "$T/g" >/dev/null 2>&1 || fail "sim"
for d in cpu gpu; do
    "$EPISTREAM" mdfs --bfile "$T/g" --dim 2 --contrast 70 --device $d --out "$T/g.$d" --quiet || fail "genotypes $d"
done
cmp -s "$T/g.cpu.mdfs.tsv" "$T/g.gpu.mdfs.tsv" || fail "genotypes: gpu differs from cpu"

# what the GPU does not take: --device gpu says so, auto counts on the CPU
expect_fail "$T/err" "$EPISTREAM" mdfs --table "$T/d.csv" --dim 4 --range 0.5 --device gpu --out "$T/no"
grep -q "device gpu: the GPU counts --dim 2 and 3 only" "$T/err" || fail "--dim 4 --device gpu: message"
expect_fail "$T/err" "$EPISTREAM" mdfs --table "$T/d.csv" --dim 2 --tuples 3 --range 0.5 --device gpu --out "$T/no"
grep -q "device gpu: --tuples" "$T/err" || fail "--tuples --device gpu: message"
[ ! -e "$T/no.mdfs.tsv" ] || fail "a refused run wrote output"
"$EPISTREAM" mdfs --table "$T/d.csv" --dim 2 --tuples 3 --range 0.5 --device auto --out "$T/auto" --verbose \
    2>"$T/auto.log" || fail "auto with --tuples"
grep -q "device: the CPU (--tuples" "$T/auto.log" || fail "auto: no log line for the CPU"
exit 0
