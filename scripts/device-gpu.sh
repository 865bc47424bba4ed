#!/bin/sh
# device-gpu.sh -- on the GPU machine (after scripts/device-build.sh here, with
# .carry carried): the GPU tests, compute-sanitizer on them, and a quick
# GPU-vs-CPU timing.  Logs go to $OUT when it is set.
set -u
. "$(dirname "$0")/device-env.sh"
echo "== test_gpu"; "$B/tests/test_gpu" 2>&1 | tail -15
echo "== gpu_cli.sh"; sh "$top/tests/gpu_cli.sh" >"$O/gpu_cli.out" 2>&1; echo "rc=$?"; tail -5 "$O/gpu_cli.out"
echo "== test_gpu_triple"; "$B/tests/test_gpu_triple" 2>&1 | tail -8
echo "== gpu_triple_cli.sh"; sh "$top/tests/gpu_triple_cli.sh" >"$O/gpu_triple_cli.out" 2>&1; echo "rc=$?"
tail -5 "$O/gpu_triple_cli.out"
if [ "${SANITIZE:-1}" = 1 ] && command -v compute-sanitizer >/dev/null; then
    "$EPISTREAM" sim --samples 999 --variants 300 --missing 0.02 --seed 3 --out /tmp/cs >/dev/null 2>&1
    # no missing call: the two-plane tiles, where the TMA loaders serve
    "$EPISTREAM" sim --samples 999 --variants 300 --missing 0 --seed 3 --out /tmp/cs0 >/dev/null 2>&1
    for tool in memcheck racecheck; do
        for kl in wgmma mma popc wgmma:tma2; do
            k=${kl%%:*} load=cp data=/tmp/cs
            [ "$kl" = "$k" ] || { load=${kl#*:}; data=/tmp/cs0; }
            echo "== compute-sanitizer $tool $kl"
            EPISTREAM_GPU_LOAD=$load compute-sanitizer --tool $tool --error-exitcode 9 "$EPISTREAM" scan \
                --bfile $data --device gpu --gpu-kernel $k --block 128 --p-threshold 0.05 --quiet \
                --out /tmp/cs.$k 2>&1 | tail -3
            echo "rc=$?"
        done
    done
fi
if [ "${TIMING:-1}" = 1 ]; then
    echo "== timing (N=4096, M=${TM:-16384}, boost, top 1000)"
    "$EPISTREAM" sim --samples 4096 --variants "${TM:-16384}" --pairs 4 --seed 9 --out /tmp/tm >/dev/null 2>&1
    for d in "gpu mma" "gpu popc" "cpu -"; do
        set -- $d
        k=""; [ "$2" != - ] && k="--gpu-kernel $2"
        # shellcheck disable=SC2086
        "$EPISTREAM" scan --bfile /tmp/tm --device $1 $k --quiet --verbose --out /tmp/tm.$1$2 2>/tmp/tm.err || { tail -5 /tmp/tm.err; continue; }
        printf '%s %s: scan %s s, %s pairs/s; ' "$1" "$2" "$(awk -F'\t' '$1=="seconds_scan"{print $2}' /tmp/tm.$1$2.log)" \
            "$(awk -F'\t' '$1=="pairs_per_second"{print $2}' /tmp/tm.$1$2.log)"
        grep -h "candidate" /tmp/tm.err | head -2 | tr '\n' ' '; echo
    done
    cmp /tmp/tm.gpumma.top.tsv /tmp/tm.cpu-.top.tsv && cmp /tmp/tm.gpumma.summary.tsv /tmp/tm.cpu-.summary.tsv && echo "timing outputs identical"
fi
