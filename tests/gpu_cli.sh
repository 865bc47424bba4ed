#!/bin/sh
# gpu_cli.sh -- the GPU options of `epistream scan`: bad values are usage errors
# everywhere; where a GPU is visible, --device gpu writes the very bytes of
# --device cpu for every statistic and kernel, with any tile size, several
# GPUs given explicitly, and a capped block cache (streaming), with and
# without the candidates' exact statistic on the device (EPISTREAM_GPU_EXACT),
# with the blocks packed beside the scan or first (EPISTREAM_PACK_OVERLAP),
# uploaded ahead by a thread or by the device thread (EPISTREAM_GPU_PRELOAD),
# BOOST's candidates scored from the device's fits or fitted again
# (EPISTREAM_GPU_FITS), on teams of any size (EPISTREAM_GPU_SCORE_CHUNK),
# with or without the diagonal tiles' pre-pass (EPISTREAM_GPU_PREPASS).
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
# a scan that fails before it uses the device (a missing input): its own
# error only, nothing from the device's opening, which started ahead of the
# work and is waited for before the exit
expect_fail "$T/err" "$EPISTREAM" scan --bfile "$T/absent" --device gpu --out "$T/bad"
[ "$(grep -c . "$T/err")" = 1 ] && grep -q "absent" "$T/err" ||
    fail "a missing input with --device gpu: $(cat "$T/err")"
expect_fail "$T/err" "$EPISTREAM" scan --bfile "$T/d" --device gpu --gpu-mem 1K --out "$T/bad"
grep -q "cannot hold two blocks" "$T/err" || fail "--gpu-mem 1K message: $(cat "$T/err")"
[ ! -e "$T/bad.top.tsv" ] || fail "output written after a GPU error"
# the Hopper kernel where the device and build have it
wg=""
if "$EPISTREAM" scan --bfile "$T/d" --device gpu --gpu-kernel wgmma --top 5 --quiet --out "$T/probe" 2>"$T/err"; then
    wg="wgmma"
else
    grep -q "needs a compute capability 9.0" "$T/err" || fail "--gpu-kernel wgmma: $(cat "$T/err")"
    expect_fail "$T/err" "$EPISTREAM" scan --bfile "$T/d" --device gpu --gpu-kernel ws --top 5 --out "$T/bad"
    grep -q "gpu-kernel ws needs a compute capability 9.0" "$T/err" || fail "--gpu-kernel ws: $(cat "$T/err")"
fi

for stat in boost chi2 mi ig k2; do
    pt="--p-threshold 0.01"
    [ $stat = k2 ] && pt=""
    # shellcheck disable=SC2086
    "$EPISTREAM" scan --bfile "$T/d" --stat $stat --top 300 $pt --device cpu --quiet \
        --out "$T/cpu.$stat" || fail "cpu $stat"
    for cfg in "mma 0" "popc 0" "mma 96" "popc 130" "mma 64 300K" ${wg:+"wgmma 0" "wgmma 130" "wgmma 64 300K"} \
        ${wg:+"ws 0" "ws 130" "ws 64 300K"}; do
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
# a streamed cache keeps the per-variant constants out of its slots and
# builds each block's beside them; EPISTREAM_GPU_SLOTPRE=1 keeps them in the
# slots, as before: the same bytes both ways (three planes here; two below)
grep -q "the constants built per block" "$T/gpu.boost.mma.64.log" ||
    fail "--gpu-mem 300K: the constants not built per block: $(grep '^gpu' "$T/gpu.boost.mma.64.log")"
EPISTREAM_GPU_SLOTPRE=1 "$EPISTREAM" scan --bfile "$T/d" --stat boost --top 300 --p-threshold 0.01 --device gpu:0 \
    --gpu-kernel mma --block 64 --gpu-mem 300K --quiet --out "$T/slotpre" || fail "EPISTREAM_GPU_SLOTPRE=1"
grep -q "the constants built per block" "$T/slotpre.log" && fail "EPISTREAM_GPU_SLOTPRE=1 built the constants per block"
for f in top.tsv summary.tsv sig.tsv; do
    cmp -s "$T/cpu.boost.$f" "$T/slotpre.$f" || fail "EPISTREAM_GPU_SLOTPRE=1: $f differs from --device cpu"
done
# no missing call: the first-stage screen and its survivor queue (several
# tiles, so that the later ones start with thresholds); the log must show
# that CTAs took the queue, and the outputs must not change
"$EPISTREAM" sim --samples 1237 --variants 6000 --pairs 3 --seed 21 --out "$T/f" >/dev/null 2>&1 || fail "sim f"
# env_scan STAT NAME=VALUE: the scan of $T/f below with that variable set
# (kernel $k, blocks of 1,024, the log in $T/fs.STAT.NAME=VALUE.err); every
# output must be --device cpu's bytes
env_scan() {
    eo="$T/fs.$1.$2"
    env "$2" "$EPISTREAM" scan --bfile "$T/f" --stat "$1" --top 200 --p-threshold 1e-4 --device gpu:0 \
        --gpu-kernel $k --block 1024 --verbose --out "$eo" 2>"$eo.err" || fail "gpu $1, $2"
    for f in top.tsv summary.tsv sig.tsv; do
        cmp -s "$T/fc.$1.$f" "$eo.$f" || fail "$1, $2: $f differs from --device cpu"
    done
}
for stat in boost chi2 mi ig; do
    "$EPISTREAM" scan --bfile "$T/f" --stat $stat --top 200 --p-threshold 1e-4 --device cpu --quiet \
        --out "$T/fc.$stat" || fail "cpu $stat (no missing)"
    # wgmma also with each TMA loader (EPISTREAM_GPU_LOAD); ws, the
    # warp-specialised kernel, loads by TMA whatever the variable says
    for kl in mma popc ${wg:+wgmma wgmma:tma1 wgmma:tma2 wgmma:tma4 ws}; do
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
        # the second stage (gpu/pair/exact.cu) decided candidates on the device
        d=$(sed -n 's/.*the exact statistic on the device ([0-9.]* s, [a-z ]*) decided \([0-9]*\) of.*/\1/p' "$o.err")
        [ -n "$d" ] && [ "$d" -gt 0 ] || fail "$stat $kl: no candidate decided on the device: $(grep exact "$o.err")"
        if [ $stat = boost ]; then
            x=$(sed -n 's/.*candidates and dropped \([0-9]*\);.*/\1/p' "$o.err")
            [ -n "$x" ] && [ "$x" -gt 0 ] || fail "$stat $kl: the device dropped no candidate: $(grep exact "$o.err")"
        fi
        # the later tiles of BOOST's fused wgmma kernel (cp.async) and of ws
        # run the code without the in-tile fits (gk_boost_fitless); the
        # others keep the fits compiled in
        nf=$(sed -n "s/.* \([0-9]*\) CTA tiles without BOOST's in-tile fits.*/\1/p" "$o.err")
        [ -n "$nf" ] || fail "$stat $kl: no count of the tiles without fits: $(grep screen "$o.err")"
        if [ $stat = boost ] && { [ "$kl" = wgmma ] || [ "$kl" = ws ]; }; then
            [ "$nf" -gt 0 ] || fail "boost $kl: no tile ran without the in-tile fits"
        else
            [ "$nf" = 0 ] || fail "$stat $kl: $nf tiles without the in-tile fits"
        fi
    done
    # the second stage off (EPISTREAM_GPU_EXACT=0: every candidate to the
    # host) and a small top-k, whose high level drops the most on the device
    k=mma; [ -n "$wg" ] && k=wgmma
    env_scan $stat EPISTREAM_GPU_EXACT=0
    grep -q "the exact statistic on the device" "$T/fs.$stat.EPISTREAM_GPU_EXACT=0.err" &&
        fail "$stat: EPISTREAM_GPU_EXACT=0 ran the stage"
    # the previous tile epilogue (EPISTREAM_GPU_EPILOGUE=1: thresholds read
    # before the main loop by plain loads, phases A-D in every queue's CTA,
    # BOOST's fits compiled into every wgmma tile): the same bytes
    env_scan $stat EPISTREAM_GPU_EPILOGUE=1
    if [ $stat = boost ]; then
        # the host side (issue 24): the blocks packed beside the scan and
        # uploaded by a thread of their own; for comparisons packed first
        # (EPISTREAM_PACK_OVERLAP=0) or uploaded by the device thread
        # (EPISTREAM_GPU_PRELOAD=0).  The host scores BOOST's candidates from
        # the device's fits (the second stage sends them); for comparisons it
        # fits them again (EPISTREAM_GPU_FITS=0); a tile's candidates on a
        # thread per 512, per one, or as before (EPISTREAM_GPU_SCORE_CHUNK);
        # the diagonal tiles' pre-pass never or always (EPISTREAM_GPU_PREPASS),
        # over the whole tile or a narrow band (EPISTREAM_GPU_PREPASS_BAND: at
        # the default 1,024 these blocks of 1,024 are wholly inside it; each
        # kernel family, and wgmma's clusters of TMA loads), the tiles with
        # every diagonal tile first (EPISTREAM_GPU_ORDER=diag), the kernels
        # loaded at their first launch (EPISTREAM_GPU_WARM=0), from the
        # opening on rather than beside the packing (=open), the host buffers
        # made once the first tiles are queued (=late) or at their first use
        # (=kernels), the devices closed before the scan returns
        # (EPISTREAM_GPU_CLOSE=now), the second stage after each tile on the
        # kernels' stream rather than beside the next tile
        # (EPISTREAM_GPU_STAGE2=inline), the tile's counts cleared and copied
        # by a memset and a copy (EPISTREAM_GPU_PUBLISH=0), BOOST's fits in
        # every tile and a one-pass second stage (EPISTREAM_GPU_TILEFIT=1):
        # the same bytes every way
        grep -q "packed .* beside the scan" "$T/fg.boost.mma.cp.err" || fail "boost: not packed beside the scan"
        grep -q "the preloading thread uploaded" "$T/fg.boost.mma.cp.err" || fail "boost: no preloading thread"
        nf=$(sed -n 's/.* host thread(s) (\([0-9]*\) from the device.s fits).*/\1/p' "$T/fg.boost.mma.cp.err")
        [ -n "$nf" ] && [ "$nf" -gt 0 ] || fail "boost: no candidate scored from the device's fits: $(grep fits "$T/fg.boost.mma.cp.err")"
        for var in EPISTREAM_PACK_OVERLAP=0 EPISTREAM_GPU_PRELOAD=0 EPISTREAM_GPU_FITS=0 EPISTREAM_GPU_SCORE_CHUNK=0 \
                   EPISTREAM_GPU_SCORE_CHUNK=1 EPISTREAM_GPU_PREPASS=0 EPISTREAM_GPU_PREPASS=1 \
                   EPISTREAM_GPU_PREPASS_BAND=0 EPISTREAM_GPU_ORDER=diag EPISTREAM_GPU_WARM=0 \
                   EPISTREAM_GPU_WARM=late EPISTREAM_GPU_WARM=open EPISTREAM_GPU_WARM=kernels \
                   EPISTREAM_GPU_CLOSE=now EPISTREAM_GPU_STAGE2=inline EPISTREAM_GPU_PUBLISH=0 \
                   EPISTREAM_GPU_TILEFIT=1; do
            env_scan boost $var
        done
        kk_save=$k
        for kl in mma popc ${wg:+wgmma wgmma:tma2 ws}; do
            k=${kl%%:*} load=cp
            [ "$kl" = "$k" ] || load=${kl#*:}
            export EPISTREAM_GPU_LOAD=$load
            env_scan boost EPISTREAM_GPU_PREPASS_BAND=64
        done
        unset EPISTREAM_GPU_LOAD
        k=$kk_save
        grep -q "packed .* beside the scan" "$T/fs.boost.EPISTREAM_PACK_OVERLAP=0.err" &&
            fail "EPISTREAM_PACK_OVERLAP=0 packed beside"
        grep -q "the preloading thread" "$T/fs.boost.EPISTREAM_GPU_PRELOAD=0.err" && fail "EPISTREAM_GPU_PRELOAD=0 preloaded"
        grep -q "(0 from the device's fits)" "$T/fs.boost.EPISTREAM_GPU_FITS=0.err" || fail "EPISTREAM_GPU_FITS=0 used the fits"
        # two planes streamed through a cache of three slots (2 MB), the
        # constants built per block beside the slots; then in the slots: the same bytes
        for sp in EPISTREAM_GPU_SLOTPRE=0 EPISTREAM_GPU_SLOTPRE=1; do
            env "$sp" "$EPISTREAM" scan --bfile "$T/f" --stat boost --top 200 --p-threshold 1e-4 --device gpu:0 \
                --gpu-kernel $k --block 1024 --gpu-mem 2M --verbose --out "$T/fm.$sp" 2>"$T/fm.$sp.err" ||
                fail "boost --gpu-mem 2M, $sp"
            for f in top.tsv summary.tsv sig.tsv; do
                cmp -s "$T/fc.boost.$f" "$T/fm.$sp.$f" || fail "boost --gpu-mem 2M, $sp: $f differs from --device cpu"
            done
        done
        grep -q "the constants built per block" "$T/fm.EPISTREAM_GPU_SLOTPRE=0.log" ||
            fail "--gpu-mem 2M: $(grep '^gpu' "$T/fm.EPISTREAM_GPU_SLOTPRE=0.log")"
        grep -q "blocks are streamed: pinned the packed blocks" "$T/fm.EPISTREAM_GPU_SLOTPRE=0.err" ||
            fail "--gpu-mem 2M: the blocks not streamed"
        grep -q "the constants built per block" "$T/fm.EPISTREAM_GPU_SLOTPRE=1.log" &&
            fail "EPISTREAM_GPU_SLOTPRE=1 built the constants per block"
        grep -q "left to close beside the caller" "$T/fg.boost.mma.cp.err" || fail "boost: the device closed before the scan returned"
        grep -q "exact statistic on the device (.*, beside the next tiles)" "$T/fg.boost.mma.cp.err" ||
            fail "boost: the second stage not beside the next tiles"
        grep -q "exact statistic on the device (.*, after each tile)" "$T/fs.boost.EPISTREAM_GPU_STAGE2=inline.err" ||
            fail "EPISTREAM_GPU_STAGE2=inline: the second stage not after each tile"
        grep -q "GPU scan: the device(s) closed" "$T/fs.boost.EPISTREAM_GPU_CLOSE=now.err" ||
            fail "EPISTREAM_GPU_CLOSE=now: not closed at once"
    fi
    if [ $stat = chi2 ]; then
        # no fits for another statistic, and its diagonal tiles run twice
        # only when asked (EPISTREAM_GPU_PREPASS=1): the same bytes
        grep -q "(0 from the device's fits)" "$T/fg.chi2.mma.cp.err" || fail "chi2: scored from fits"
        env_scan chi2 EPISTREAM_GPU_PREPASS=1
    fi
    # mi's pre-pass (lower bounds from phase A, no fits) over a narrow band
    if [ $stat = mi ]; then
        env_scan mi EPISTREAM_GPU_PREPASS_BAND=64
    fi
    "$EPISTREAM" scan --bfile "$T/f" --stat $stat --top 3 --device cpu --quiet --out "$T/f3c.$stat" || fail "cpu top 3"
    "$EPISTREAM" scan --bfile "$T/f" --stat $stat --top 3 --device gpu:0 --gpu-kernel $k --block 512 --quiet \
        --out "$T/f3g.$stat" || fail "gpu $stat top 3"
    for f in top.tsv summary.tsv; do
        cmp -s "$T/f3c.$stat.$f" "$T/f3g.$stat.$f" || fail "$stat --top 3: $f differs from --device cpu"
    done
done

# --gpu-kernel auto on Hopper: ws for boost of two planes whose
# classes take eight slices of 1,024 samples or more together (gk_ws_auto),
# the wgmma tiles otherwise (one slice a class, three planes, chi2, mi); the bytes
# are the CPU's
if [ -n "$wg" ] && "$EPISTREAM" scan --bfile "$T/d" --device gpu --gpu-kernel ws --top 5 --quiet --out "$T/probe"; then
    "$EPISTREAM" sim --samples 8193 --variants 300 --missing 0 --pairs 2 --seed 8 --out "$T/a8" >/dev/null 2>&1 ||
        fail "sim a8"
    "$EPISTREAM" sim --samples 8193 --variants 300 --missing 0.01 --pairs 2 --seed 8 --out "$T/a8m" >/dev/null 2>&1 ||
        fail "sim a8m"
    # ws streaming blocks through --gpu-mem with several slices a class (the
    # consumers' pipeline across re-uploads; $T/d has missing calls, so its
    # ws runs above take the wgmma tiles)
    "$EPISTREAM" scan --bfile "$T/a8" --stat boost --top 50 --p-threshold 1e-3 --device cpu --quiet \
        --out "$T/ws8.c" || fail "cpu a8 boost"
    "$EPISTREAM" scan --bfile "$T/a8" --stat boost --top 50 --p-threshold 1e-3 --device gpu:0 --gpu-kernel ws \
        --block 64 --gpu-mem 400K --quiet --out "$T/ws8.g" || fail "ws --gpu-mem 400K"
    grep -q "^gpu	.*(ws kernel" "$T/ws8.g.log" || fail "ws --gpu-mem: $(grep '^gpu' "$T/ws8.g.log")"
    for f in top.tsv summary.tsv sig.tsv; do
        cmp -s "$T/ws8.c.$f" "$T/ws8.g.$f" || fail "ws --gpu-mem 400K: $f differs from --device cpu"
    done
    # ws with BOOST's fits compiled into every launch and with spinning
    # mbarrier waits, as before (EPISTREAM_GPU_WS=fits, spin; by default the
    # launches whose blocks both had a tile run without the fits and the
    # waits sleep): the same bytes; an unknown value is said and ignored
    for w in fits spin bogus; do
        EPISTREAM_GPU_WS=$w "$EPISTREAM" scan --bfile "$T/a8" --stat boost --top 50 --p-threshold 1e-3 \
            --device gpu:0 --gpu-kernel ws --block 64 --verbose --out "$T/ws8.$w" 2>"$T/ws8.$w.err" ||
            fail "ws EPISTREAM_GPU_WS=$w"
        for f in top.tsv summary.tsv sig.tsv; do
            cmp -s "$T/ws8.c.$f" "$T/ws8.$w.$f" || fail "ws EPISTREAM_GPU_WS=$w: $f differs from --device cpu"
        done
    done
    grep -q "EPISTREAM_GPU_WS=bogus" "$T/ws8.bogus.err" || fail "EPISTREAM_GPU_WS=bogus not said: $(cat "$T/ws8.bogus.err")"
    grep -q " 0 CTA tiles without BOOST's in-tile fits" "$T/ws8.fits.err" || fail "EPISTREAM_GPU_WS=fits ran tiles without fits"
    # ws's epilogue groups with the previous epilogue (EPISTREAM_GPU_EPILOGUE=1:
    # phases A-D in every queue's CTA, the fits in every launch): the same bytes
    EPISTREAM_GPU_EPILOGUE=1 "$EPISTREAM" scan --bfile "$T/a8" --stat boost --top 50 --p-threshold 1e-3 \
        --device gpu:0 --gpu-kernel ws --block 64 --verbose --out "$T/ws8.e1" 2>"$T/ws8.e1.err" ||
        fail "ws EPISTREAM_GPU_EPILOGUE=1"
    grep -q "^gpu	.*(ws kernel" "$T/ws8.e1.log" || fail "ws EPISTREAM_GPU_EPILOGUE=1: $(grep '^gpu' "$T/ws8.e1.log")"
    for f in top.tsv summary.tsv sig.tsv; do
        cmp -s "$T/ws8.c.$f" "$T/ws8.e1.$f" || fail "ws EPISTREAM_GPU_EPILOGUE=1: $f differs from --device cpu"
    done
    grep -q " 0 CTA tiles without BOOST's in-tile fits" "$T/ws8.e1.err" || fail "EPISTREAM_GPU_EPILOGUE=1 ran ws tiles without fits"
    nf=$(sed -n "s/.* \([0-9]*\) CTA tiles without BOOST's in-tile fits.*/\1/p" "$T/ws8.spin.err")
    [ -n "$nf" ] && [ "$nf" -gt 0 ] || fail "ws: no tile without the in-tile fits: $(grep screen "$T/ws8.spin.err")"
    for c in "a8 boost ws" "a8 chi2 wgmma" "a8 mi wgmma" "a8m boost wgmma" "f boost wgmma"; do
        set -- $c
        "$EPISTREAM" scan --bfile "$T/$1" --stat $2 --top 50 --p-threshold 1e-3 --device cpu --quiet \
            --out "$T/au.$1.$2.c" || fail "cpu $c"
        "$EPISTREAM" scan --bfile "$T/$1" --stat $2 --top 50 --p-threshold 1e-3 --device gpu:0 --block 128 \
            --quiet --out "$T/au.$1.$2.g" || fail "gpu auto $c"
        grep -q "^gpu	.*($3 kernel" "$T/au.$1.$2.g.log" || fail "auto $c: $(grep '^gpu' "$T/au.$1.$2.g.log")"
        for f in top.tsv summary.tsv sig.tsv; do
            cmp -s "$T/au.$1.$2.c.$f" "$T/au.$1.$2.g.$f" || fail "auto $c: $f differs from --device cpu"
        done
    done
fi

# ws stores 16-bit products: classes of about 50,000 samples (products past
# 32,767) run it, classes past 65,280 (over 1,020 words; the words are a multiple of 4)
# the wgmma tiles instead; the bytes must be the CPU's either way
if [ -n "$wg" ]; then
    for ns in 100001 140001; do
        "$EPISTREAM" sim --samples $ns --variants 160 --missing 0 --pairs 2 --seed 5 --out "$T/w$ns" >/dev/null 2>&1 ||
            fail "sim $ns"
        for stat in boost chi2; do
            "$EPISTREAM" scan --bfile "$T/w$ns" --stat $stat --top 50 --p-threshold 1e-3 --device cpu --quiet \
                --out "$T/w$ns.c.$stat" || fail "cpu $stat $ns samples"
            "$EPISTREAM" scan --bfile "$T/w$ns" --stat $stat --top 50 --p-threshold 1e-3 --device gpu:0 \
                --gpu-kernel ws --block 64 --quiet --out "$T/w$ns.g.$stat" || fail "gpu ws $stat $ns samples"
            for f in top.tsv summary.tsv sig.tsv; do
                cmp -s "$T/w$ns.c.$stat.$f" "$T/w$ns.g.$stat.$f" || fail "ws, $ns samples, $stat: $f differs from --device cpu"
            done
        done
    done
fi

# selection on the GPU (byte-identical to the CPU): tests/gpu_select.sh

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
