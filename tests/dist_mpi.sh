#!/bin/sh
# dist_mpi.sh -- `mpirun -np R epistream scan`: ranks take tiles from rank 0, which writes the
# outputs; R = 1, 2, 3, 4 (oversubscribed on a small machine) give the bytes of the run without
# MPI, 2-way (boost with --p-threshold, chi2) and 3-way (exhaustive and seeded); with a
# checkpoint too; a rank that cannot read its input ends the job with its message and no output.
# Skipped when epistream was built without MPI or mpirun is missing.
. "$(dirname "$0")/lib.sh"

need_cmd mpirun
"$EPISTREAM" --version >/dev/null || fail "epistream --version"
D=$ES_SRCDIR/examples/data/example
T3=$ES_SRCDIR/examples/data/triple
MPIRUN="mpirun --oversubscribe --allow-run-as-root"
# Open MPI keeps allocations of its plugins for the life of the process (and unloads the
# plugins, so no suppression can name them): no leak check of MPI runs in a sanitizer build
# (the same scans without MPI are leak-checked by dist_shards.sh and dist_resume.sh)
if [ -n "${ES_SANITIZERS:-}" ]; then
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
    export ASAN_OPTIONS
fi
# is MPI built in?  (a build without it refuses to run as several ranks)
if ! $MPIRUN -np 2 "$EPISTREAM" scan --bfile "$D" --device cpu --quiet --top 5 --out "$T/probe" 2>"$T/probe.err"; then
    grep -q "built without MPI" "$T/probe.err" && skip "epistream built without MPI"
    cat "$T/probe.err" >&2
    fail "mpirun -np 2 epistream scan"
fi

same() {
    for f in top.tsv sig.tsv summary.tsv; do
        cmp -s "$1.$f" "$2.$f" || fail "$3: $2.$f differs from the run without MPI"
    done
}

"$EPISTREAM" scan --bfile "$D" --p-threshold 0.001 --device cpu --quiet --out "$T/r2" || fail "reference"
"$EPISTREAM" scan --bfile "$D" --stat chi2 --p-threshold 0.001 --device cpu --quiet --out "$T/r2c" || fail "reference chi2"
"$EPISTREAM" scan --bfile "$T3" --order 3 --p-threshold 0.001 --device cpu --quiet --out "$T/r3" || fail "reference 3-way"
"$EPISTREAM" scan --bfile "$T3" --order 3 --pairs-top 15 --p-threshold 0.01 --device cpu --quiet --out "$T/r3s" ||
    fail "reference seeded"
for r in 1 2 3 4; do
    $MPIRUN -np $r "$EPISTREAM" scan --bfile "$D" --p-threshold 0.001 --device cpu --threads 1 --block 64 --quiet \
        --out "$T/m2r$r" || fail "mpirun -np $r (2-way)"
    same "$T/r2" "$T/m2r$r" "2-way, $r ranks"
    $MPIRUN -np $r "$EPISTREAM" scan --bfile "$D" --stat chi2 --p-threshold 0.001 --device cpu --threads 1 --block 64 \
        --quiet --out "$T/m2c$r" || fail "mpirun -np $r (2-way chi2)"
    same "$T/r2c" "$T/m2c$r" "2-way chi2, $r ranks"
    $MPIRUN -np $r "$EPISTREAM" scan --bfile "$T3" --order 3 --p-threshold 0.001 --device cpu --threads 1 --block 8 \
        --quiet --out "$T/m3r$r" || fail "mpirun -np $r (3-way)"
    same "$T/r3" "$T/m3r$r" "3-way, $r ranks"
done
$MPIRUN -np 3 "$EPISTREAM" scan --bfile "$T3" --order 3 --pairs-top 15 --p-threshold 0.01 --device cpu --threads 1 \
    --block 8 --quiet --out "$T/m3s" || fail "mpirun seeded"
same "$T/r3s" "$T/m3s" "seeded 3-way, 3 ranks"
# with a checkpoint (rank 0 writes it), and --verbose's tiles per rank
$MPIRUN -np 2 "$EPISTREAM" scan --bfile "$D" --p-threshold 0.001 --device cpu --threads 1 --block 64 --verbose \
    --checkpoint "$T/m.ckpt" --checkpoint-every 0 --out "$T/mck" 2>"$T/mck.err" || { cat "$T/mck.err"; fail "mpirun with a checkpoint"; }
same "$T/r2" "$T/mck" "2 ranks with a checkpoint"
grep -q "rank 1 computed [0-9]* tiles" "$T/mck.err" || { cat "$T/mck.err"; fail "--verbose does not log tiles per rank"; }
grep -q "rank 0 computed [0-9]* tiles" "$T/mck.err" || { cat "$T/mck.err"; fail "--verbose does not log rank 0's tiles"; }
[ ! -e "$T/m.ckpt" ] || fail "the checkpoint was not removed after success"
# a rank that cannot read its input (here: rank 1's --pheno is missing) ends the job, no outputs
cat >"$T/wrap.sh" <<WRAP
#!/bin/sh
if [ "\${OMPI_COMM_WORLD_RANK:-0}" = 1 ]; then exec "$EPISTREAM" "\$@" --pheno "$T/missing.pheno"; fi
exec "$EPISTREAM" "\$@"
WRAP
chmod +x "$T/wrap.sh"
$MPIRUN -np 2 "$T/wrap.sh" scan --bfile "$D" --device cpu --threads 1 --quiet --out "$T/bad" >"$T/failjob.err" 2>&1 &&
    fail "a job with a failing rank succeeded"
grep -q "missing.pheno" "$T/failjob.err" || { cat "$T/failjob.err"; fail "the failing rank's message was lost"; }
ls "$T"/bad.* >/dev/null 2>&1 && { ls "$T"/bad.*; fail "a failed job left output files"; }
# a lost rank (killed with SIGKILL mid-scan) ends the job: no outputs, the checkpoint kept
cat >"$T/lose.sh" <<WRAP
#!/bin/sh
if [ "\${OMPI_COMM_WORLD_RANK:-0}" = 1 ]; then
    "$EPISTREAM" "\$@" &
    pid=\$!
    sleep 1
    kill -9 \$pid
    wait \$pid
    exit 137
fi
exec "$EPISTREAM" "\$@"
WRAP
chmod +x "$T/lose.sh"
$MPIRUN -np 2 "$T/lose.sh" scan --bfile "$D" --stat chi2 --p-threshold 0.01 --device cpu --threads 1 --block 16 --quiet \
    --checkpoint "$T/lost.ckpt" --checkpoint-every 0 --out "$T/lost" >"$T/lost.err" 2>&1 &&
    fail "a job that lost a rank succeeded"
ls "$T"/lost.*.tsv* >/dev/null 2>&1 && { ls "$T"/lost.*; fail "a job that lost a rank left output files"; }
[ -e "$T/lost.ckpt" ] || fail "a job that lost a rank lost its checkpoint too"
"$EPISTREAM" scan --bfile "$D" --stat chi2 --p-threshold 0.01 --device cpu --block 16 --quiet \
    --checkpoint "$T/lost.ckpt" --resume --out "$T/lost" || fail "resume after a lost rank"
"$EPISTREAM" scan --bfile "$D" --stat chi2 --p-threshold 0.01 --device cpu --quiet --out "$T/lostref" || fail "reference"
same "$T/lostref" "$T/lost" "resumed after a lost rank"
exit 0
