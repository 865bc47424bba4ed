#!/bin/sh
# gpu_triple_cli.sh -- `epistream scan --order 3 --device gpu` writes the very
# bytes of --device cpu (top.tsv, sig.tsv, summary.tsv, --tables) for every
# statistic, exhaustive and seeded (--pairs-from, --pairs-top), with and
# without missing calls, with and without --p-threshold, on each kernel;
# skipped where there is no GPU.
. "$(dirname "$0")/lib.sh"

"$EPISTREAM" sim --samples 1001 --variants 150 --pairs 2 --missing 0.01 --seed 5 --out "$T/m" \
    >/dev/null 2>&1 || fail "sim m"
"$EPISTREAM" sim --samples 777 --variants 160 --pairs 2 --seed 6 --out "$T/c" >/dev/null 2>&1 || fail "sim c"
if ! "$EPISTREAM" scan --bfile "$T/c" --order 3 --stat chi2 --device gpu --top 5 --quiet --out "$T/probe" \
    2>"$T/err"; then
    if grep -q -E "without CUDA|no CUDA device" "$T/err"; then
        skip "no GPU: $(cat "$T/err")"
    fi
    cat "$T/err" >&2
    fail "--order 3 --device gpu failed"
fi
printf 'SNP1\tSNP2\nsnp1\tsnp2\nsnp10\tsnp40\nsnp7\tsnp3\nsnp40\tsnp12\nsnp2\tsnp7\n' >"$T/pairs.txt"
for d in m c; do
    for stat in chi2 mi ig k2; do
        for pt in "" "--p-threshold 0.001"; do
            [ $stat = k2 ] && [ -n "$pt" ] && continue
            for mode in exh from top; do
                case $mode in
                exh) seed="" ;;
                from) seed="--pairs-from $T/pairs.txt" ;;
                top) seed="--pairs-top 12" ;;
                esac
                o="$T/$d.$stat.$mode.${pt:+p}"
                # shellcheck disable=SC2086
                "$EPISTREAM" scan --bfile "$T/$d" --order 3 --stat $stat --top 150 $pt $seed --tables --device cpu \
                    --quiet --out "$o.cpu" || fail "cpu $d $stat $mode $pt"
                for k in mma popc; do
                    # shellcheck disable=SC2086
                    "$EPISTREAM" scan --bfile "$T/$d" --order 3 --stat $stat --top 150 $pt $seed --tables \
                        --device gpu:0 --gpu-kernel $k --quiet --out "$o.$k" || fail "gpu $d $stat $mode $pt $k"
                    for f in top.tsv summary.tsv ${pt:+sig.tsv}; do
                        cmp -s "$o.cpu.$f" "$o.$k.$f" || {
                            diff "$o.cpu.$f" "$o.$k.$f" | head -6 >&2
                            fail "$d $stat $mode $pt $k: $f differs from --device cpu"
                        }
                    done
                    grep -q "^backend	gpu" "$o.$k.log" || fail "log does not name the GPU backend"
                done
            done
        done
    done
done
# blocks of 16 (many tiles, thresholds carried between them), and the same
# through a cache of 7 of its 10 blocks (about 8.6 KB each: streamed)
for extra in "--block 16" "--block 16 --gpu-mem 60K"; do
    # shellcheck disable=SC2086
    "$EPISTREAM" scan --bfile "$T/c" --order 3 --stat mi --top 100 --p-threshold 0.01 --device gpu $extra \
        --verbose --out "$T/x" 2>"$T/x.err" || fail "gpu $extra"
    for f in top.tsv summary.tsv sig.tsv; do
        cmp -s "$T/c.mi.exh.p.cpu.$f" "$T/x.$f" 2>/dev/null || {
            "$EPISTREAM" scan --bfile "$T/c" --order 3 --stat mi --top 100 --p-threshold 0.01 --device cpu --quiet \
                --out "$T/xc" || fail "cpu mi"
            cmp -s "$T/xc.$f" "$T/x.$f" || fail "$extra: $f differs from --device cpu"
        }
    done
done
grep -q "3-way mma kernel, 7 block slots" "$T/x.err" || fail "--gpu-mem 60K: not a cache of 7 blocks: $(grep slots "$T/x.err")"
expect_fail "$T/err" "$EPISTREAM" scan --bfile "$T/c" --order 3 --stat mi --device gpu --block 16 --gpu-mem 20K \
    --out "$T/bad"
grep -q "cannot hold 6 blocks" "$T/err" || fail "--gpu-mem 20K message: $(cat "$T/err")"
exit 0
