#!/bin/sh
# device-score.sh -- on the GPU machine (after scripts/device-build.sh here,
# with .carry carried): the host's share of a GPU pair scan at N = 1,024
# (issue 24): a boost scan of SCORE_M (262,144) variants with
# EPISTREAM_GPU_TRACE under each setting of SCORE_ENV (space-separated
# NAME=VALUE lists joined by commas; "-" for none), each REPS times: the
# loop's log lines and the trace summed (tile kernels, scoring, the tiles
# whose scoring took longer than their kernel); the outputs compared with
# the first run's.  Then (BENCH=1) bench_gpu at N = 1,024, boost, BENCH_K
# (wgmma), under each setting of BENCH_ENV (as SCORE_ENV), REPS times.
# SCORE=0: the benchmark alone.  SCORE_ARGS, BENCH_ARGS: more arguments of
# the traced scans and of bench_gpu (e.g. "--block 16384", "-b 16384").
set -u
. "$(dirname "$0")/device-env.sh"
T=${TMPDIR:-/tmp}
M=${SCORE_M:-262144}
N=${SCORE_N:-1024}
[ -f "$T/s$N.bed" ] || "$EPISTREAM" sim --samples "$N" --variants "$M" --seed 24 --out "$T/s$N" >/dev/null 2>&1
first=
for rep in $(seq "${REPS:-1}"); do
    [ "${SCORE:-1}" = 1 ] || break
    for envs in ${SCORE_ENV:--}; do
        e=$(echo "$envs" | tr ',' ' ')
        [ "$e" = - ] && e=
        env $e EPISTREAM_GPU_TRACE=1 "$EPISTREAM" scan --bfile "$T/s$N" --stat boost --device gpu \
            --gpu-kernel "${KERNEL:-wgmma}" --threads "${THREADS:-16}" ${SCORE_ARGS:-} --verbose --out "$T/sc" 2>"$O/sc.err"
        echo "== $envs (rep $rep): rc=$?"
        grep -E "dev_loop|opened in|preloading|\[scan\]" "$O/sc.err" | sed 's/^\[I::[a-z_]*\] //' | head -8
        cp "$O/sc.err" "$O/sc.$N.$rep.$(echo "$envs" | tr -c 'A-Za-z0-9_\n' _).err"
        awk '/gpu-trace/ { for (i = 1; i <= NF; i++) { if ($i == "kernel") k = $(i+1); if ($i == "candidates,") c = $(i-1); if ($i == "pre-pass") p = $(i+1);
                 if ($i == "scored") s = $(i+2); if ($i == "slowest") m = $(i+1) + 0; if ($i == "all") a = $(i+1) + 0;
                 if ($i == "merged") g = $(i+1) + 0; if ($i == "tile") { split($(i+1), ij, /[,:]/); d = ij[1] == ij[2] } }
                 K += k; PP += p; S += s; C += c; SM += m; SA += a; G += g; n++; if (s > k) { L++; X += s - k }; if (d) D += k }
             END { printf "trace: %d tiles, kernels %.1f ms (diagonal tiles %.1f, pre-passes %.1f), scoring %.1f ms (slowest threads %.1f, all threads %.1f, merges %.1f ms), %d candidates (%.2f us each, %.2f us of thread time), %d tiles scored slower than their kernel (by %.1f ms)\n",
                   n, K, D, PP, S, SM, SA, G, C, C ? S * 1e3 / C : 0, C ? SA * 1e3 / C : 0, L, X }' "$O/sc.err"
        if [ -z "$first" ]; then first=1; cp "$T/sc.top.tsv" "$T/sc0.top.tsv"; cp "$T/sc.summary.tsv" "$T/sc0.summary.tsv"
        else for f in top summary; do cmp -s "$T/sc.$f.tsv" "$T/sc0.$f.tsv" || echo "DIFFER: $f.tsv"; done; fi
    done
done
if [ "${BENCH:-1}" = 1 ]; then
    for rep in $(seq "${REPS:-1}"); do
        for envs in ${BENCH_ENV:--}; do
            e=$(echo "$envs" | tr ',' ' ')
            [ "$e" = - ] && e=
            echo "== bench_gpu, $envs (rep $rep)"
            env $e "$B/tests/bench/bench_gpu" -n "$N" -m "$M" -s boost -k "${BENCH_K:-wgmma}" -c 256 -M -d "$T" ${BENCH_ARGS:-} 2>&1 |
                grep -v "^#" | grep -v "^ *N "
        done
    done
fi
