#!/bin/sh
# device-mpi.sh -- on a lent machine with 2 GPUs: MPI ranks with GPUs (Open MPI from
# .carry-mpi, see device-mpi-carry.sh).  The same 2-way boost scan as 1 rank x 1 GPU, 1 rank x
# 2 GPUs, 2 ranks x 1 GPU each (REP times: rank 0 picks its tile order after opening its GPU,
# and the other ranks' claims must wait for it), and 2 ranks of which one uses its GPU and the
# other 15 CPU threads; every output compared with --device cpu's; a table of wall seconds.
# DIST_VARIANTS x DIST_SAMPLES default to 40,000 x 2,048 (blocks of 5,056 variants, a race
# that run showed; the timings of BENCHMARKS were taken at 300,000 x 8,192).
set -u
. "$(dirname "$0")/device-env.sh"
M=$top/.carry-mpi/usr
export OPAL_PREFIX="$M" PATH="$M/bin:$PATH"
export LD_LIBRARY_PATH="$M/lib/x86_64-linux-gnu:$M/lib/x86_64-linux-gnu/openmpi/lib:$LD_LIBRARY_PATH"
export PMIX_MCA_pcompress_base_silence_warning=1
MPIRUN="orterun --oversubscribe --allow-run-as-root -x LD_LIBRARY_PATH -x OPAL_PREFIX -x PATH"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
V=${DIST_VARIANTS:-40000}
N=${DIST_SAMPLES:-2048}
"$EPISTREAM" sim --samples "$N" --variants "$V" --seed 3 --out "$T/d" >/dev/null || exit 1
cat >"$T/rank.sh" <<W
#!/bin/sh
# rank r uses GPU r; with CPU1=1, rank 1 uses the CPU instead
if [ "\${CPU1:-0}" = 1 ] && [ "\${OMPI_COMM_WORLD_RANK:-0}" = 1 ]; then exec "$EPISTREAM" "\$@" --device cpu; fi
exec "$EPISTREAM" "\$@" --device gpu:\${OMPI_COMM_WORLD_RANK:-0}
W
chmod +x "$T/rank.sh"
S="scan --bfile $T/d --p-threshold 1e-7 --quiet"
bad=0
t() { # NAME CMD...: wall seconds, output compared with --device cpu's
    n=$1
    shift
    s=$(date +%s.%N)
    "$@" --out "$T/$n" 2>"$T/err" || { echo "FAIL $n: $(grep -v pmix "$T/err" | tail -2)"; bad=1; return; }
    e=$(date +%s.%N)
    same=yes
    for f in top.tsv sig.tsv summary.tsv; do cmp -s "$T/ref.$f" "$T/$n.$f" || same=NO; done
    [ $same = yes ] || bad=1
    printf '%-34s %8.2f s  same bytes as cpu: %s\n' "$n" "$(awk -v a="$s" -v b="$e" 'BEGIN { print b - a }')" "$same"
}
echo "2-way boost, $V variants x $N samples"
"$EPISTREAM" $S --device cpu --out "$T/ref" || exit 1
t "1 rank x 1 GPU" "$EPISTREAM" $S --device gpu:0
t "1 rank x 2 GPUs" "$EPISTREAM" $S --device gpu
for r in $(seq "${REP:-3}"); do
    t "2 ranks x 1 GPU (mpirun) $r" $MPIRUN -np 2 "$T/rank.sh" $S
done
t "2 ranks: GPU + 15 CPU threads" $MPIRUN -np 2 -x CPU1=1 "$T/rank.sh" $S --threads 15
exit $bad
