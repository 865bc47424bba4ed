#!/bin/sh
# device-mpi.sh -- on a lent machine with 2 GPUs: MPI ranks with GPUs (Open MPI from
# .carry-mpi, see device-mpi-carry.sh).  The same 2-way boost scan as 1 rank x 1 GPU, 1 rank x
# 2 GPUs, 2 ranks x 1 GPU each, and 2 ranks of which one uses its GPU and the other 15 CPU
# threads; every output compared with the first; a table of wall seconds.
set -u
. "$(dirname "$0")/device-env.sh"
M=$top/.carry-mpi/usr
export OPAL_PREFIX="$M" PATH="$M/bin:$PATH"
export LD_LIBRARY_PATH="$M/lib/x86_64-linux-gnu:$M/lib/x86_64-linux-gnu/openmpi/lib:$LD_LIBRARY_PATH"
export PMIX_MCA_pcompress_base_silence_warning=1
MPIRUN="orterun --oversubscribe --allow-run-as-root -x LD_LIBRARY_PATH -x OPAL_PREFIX -x PATH"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
V=${DIST_VARIANTS:-300000}
N=${DIST_SAMPLES:-8192}
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
t() { # NAME CMD...: wall seconds, output compared with the first run's
    n=$1
    shift
    s=$(date +%s.%N)
    "$@" --out "$T/$n" || { echo "FAIL $n"; bad=1; return; }
    e=$(date +%s.%N)
    same=first
    if [ -e "$T/ref.top.tsv" ]; then
        same=yes
        for f in top.tsv sig.tsv summary.tsv; do cmp -s "$T/ref.$f" "$T/$n.$f" || same=NO; done
        [ $same = yes ] || bad=1
    else
        for f in top.tsv sig.tsv summary.tsv; do cp "$T/$n.$f" "$T/ref.$f"; done
    fi
    printf '%-34s %8.2f s  same bytes: %s\n' "$n" "$(awk -v a="$s" -v b="$e" 'BEGIN { print b - a }')" "$same"
}
echo "2-way boost, $V variants x $N samples"
t "1 rank x 1 GPU" "$EPISTREAM" $S --device gpu:0
t "1 rank x 2 GPUs" "$EPISTREAM" $S --device gpu
t "2 ranks x 1 GPU (mpirun)" $MPIRUN -np 2 "$T/rank.sh" $S
t "2 ranks: GPU + 15 CPU threads" $MPIRUN -np 2 -x CPU1=1 "$T/rank.sh" $S --threads 15
exit $bad
