#!/bin/sh
# bench_nsga_gpu.sh -- epistream nsga on a GPU machine: the GPU test, then the
# same problems on cpu, gpu:0 and cpu,gpu:0, each in this build's defaults (the
# planned schedule: one launch a generation, the CPU threads taking the
# heaviest individuals when the plan says that ends sooner; K-means launches of
# at most one block an SM on the 1,024-thread kernel) and as the build before
# it ran them (EPISTREAM_NSGA_SCHED=dynamic EPISTREAM_NSGA_GPU_WIDE=0: chunks
# claimed from a shared span, 256-thread blocks), runs alternated, best of
# BENCH_REPS (default 2; 3 for the K-means rows of populations 120 and 960);
# BENCH_OLD=0 leaves the build before out (more repetitions in the same time).
# Every front must be the same bytes.  Prints a table of evaluations per second
# of the evaluation phase (`evaluations_per_second` in the log), CPU+GPU over
# the faster device alone (the target: >= 1), the CPU's share of the mixed
# run's evaluations, the K-means rows against the sequential path (1 CPU
# thread; the target: >= 50x), and each K-means run's time breakdown
# (EPISTREAM_NSGA_TIMING=1: microseconds per generation); compute-sanitizer's
# memcheck on the GPU test last, within what is left of BENCH_BUDGET_S
# (default 230) seconds.
#
# Build here with CUDA (a second build directory, `../configure --with-cuda`),
# then copy into a carried folder C (git-ignored): C/bin/{epistream,
# test_gpu_nsga,test_nsga} (stripped), C/lib/ the shared libraries `ldd`
# names (as scripts/device-build.sh does), C/data/ bc.csv and digits.csv
# (tests/bench/bench_nsga.sh's exports) and eeg.csv (178 x 3,600 Gaussian,
# 3 classes, the first 40 features shifted by the class: the seed paper's
# shape), and this script; on the GPU machine run `sh C/bench_nsga_gpu.sh`
# (scripts/device-nsga.sh does all this from the carried build).
C=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$C/lib
E=$C/bin/epistream
W=/tmp/nsgarun; mkdir -p $W; rm -f $W/all_runs.txt
reps=${BENCH_REPS:-2}
t_begin=$(date +%s)
nvidia-smi -L; echo "host CPUs: $(nproc)"
[ -x $C/bin/test_nsga ] && { echo "== test_nsga"; timeout 100 $C/bin/test_nsga 2>&1 | tail -1; }
echo "== test_gpu_nsga"; timeout 100 $C/bin/test_gpu_nsga >$W/test_gpu_nsga.out 2>&1; echo "rc $?"
grep -v '^\[ \(RUN\|      OK\) \]' $W/test_gpu_nsga.out | tail -6

# one NAME DEVICES ENV ARGS...: one run (ENV: "new" or "old"); the best
# evaluations/s so far in $W/NAME.eps, that run's log and timing kept
one() {
  name=$1 dev=$2 env=$3; shift 3
  if [ $env = old ]; then set -- env EPISTREAM_NSGA_SCHED=dynamic EPISTREAM_NSGA_GPU_WIDE=0 "$@"
  else set -- env "$@"; fi
  EPISTREAM_NSGA_TIMING=1 timeout 150 "$@" --devices $dev --out $W/$name.run --quiet 2>$W/$name.err ||
    { echo "FAIL $name: $(tail -2 $W/$name.err)" >&2; return; }
  eps=$(sed -n 's/^evaluations_per_second\t//p' $W/$name.run.log)
  echo "$name $eps" >> $W/all_runs.txt
  best=$(cat $W/$name.eps 2>/dev/null || echo 0)
  if awk -v a=$best -v b=$eps 'BEGIN { exit !(b > a) }'; then
    echo $eps > $W/$name.eps
    for x in log front.tsv hv.tsv; do cp $W/$name.run.$x $W/$name.$x; done
    cp $W/$name.err $W/$name.timing
  fi
}
eps() { cat $W/$1.eps 2>/dev/null || echo -; }
# the CPU's share of a mixed run's evaluations
share() { awk -F'\t' '/^device\t/ { n++; e[n] = $4 } END { t = 0; for (i = 1; i <= n; i++) t += e[i]; if (t) printf "%.1f%%", 100 * e[1] / t; else print "-" }' $W/$1.log 2>/dev/null; }
same() {
  ok=yes
  for x in "$@"; do [ -f $W/$x.front.tsv ] || continue; cmp -s $W/$1.front.tsv $W/$x.front.tsv && cmp -s $W/$1.hv.tsv $W/$x.hv.tsv || ok=NO; done
  echo $ok
}
ratio() { awk -v a=$1 -v b=$2 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }'; }
mx() { awk -v a=$1 -v b=$2 'BEGIN { print (a + 0 > b + 0 ? a : b) }'; }

# problem BASE REPS ARGS...: cpu, gpu and mixed, new and old, alternated
problem() {
  b=$1 n=$2; shift 2
  for x in cpu gpu mix gpuold mixold; do rm -f $W/${b}_$x.eps; done
  r=0
  while [ $r -lt $n ]; do
    cfgs="cpu:cpu:new gpu:gpu:0:new mix:cpu,gpu:0:new"
    [ "${BENCH_OLD:-1}" = 0 ] || cfgs="$cfgs gpuold:gpu:0:old mixold:cpu,gpu:0:old"
    for cfg in $cfgs; do
      name=${cfg%%:*} rest=${cfg#*:}; env=${rest##*:} dev=${rest%:*}
      one ${b}_$name $dev $env $E nsga "$@"
    done
    r=$((r + 1))
  done
}

row() { # label base
  l=$1 b=$2
  c=$(eps ${b}_cpu) g=$(eps ${b}_gpu) m=$(eps ${b}_mix) go=$(eps ${b}_gpuold) mo=$(eps ${b}_mixold)
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$l" "$(eps ${b}_seq)" "$c" "$go" "$mo" \
    "$(ratio $mo $(mx $c $go))" "$g" "$m" "$(ratio $m $(mx $c $g))" "$(share ${b}_mix)" \
    "$(same ${b}_cpu ${b}_gpu ${b}_mix ${b}_gpuold ${b}_mixold)"
}
# each row as soon as its runs are done (the K-means rows first), none begun past
# two thirds of the budget
budget=${BENCH_BUDGET_S:-230}
echo
echo "| problem | 1 CPU thread | CPU threads | gpu:0 before | cpu,gpu:0 before | ratio before | gpu:0 | cpu,gpu:0 | mixed / faster alone | CPU share (mixed) | same fronts |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
bc="--table $C/data/bc.csv --population 100 --generations 100 --seed 1"
for pb in eeg120 eeg960 bc dg eeg480; do
  [ $(( $(date +%s) - t_begin )) -lt $((budget * 2 / 3)) ] || { echo "| $pb | (skipped: time) |"; continue; }
  case $pb in
  bc) problem bc $reps $bc; row "breast_cancer 5-NN, 100 x 100" bc ;;
  dg) problem dg $reps --table $C/data/digits.csv --objectives nc-error,size --population 100 --generations 100 --seed 1
      row "digits nearest centroid, 100 x 100" dg ;;
  eeg*)
    pop=${pb#eeg}
    ee="--table $C/data/eeg.csv --objectives kmeans --population $pop --generations 50"
    n=$reps; [ $pop = 480 ] || n=$((reps + 1))
    rm -f $W/eeg${pop}_seq.eps
    [ $pop = 480 ] || one eeg${pop}_seq cpu new $E nsga $ee --threads 1
    problem eeg$pop $n $ee
    row "178 x 3,600 K-means, $pop x 50" eeg$pop ;;
  esac
done
echo
for pop in 120 960; do
  awk -v s=$(eps eeg${pop}_seq) -v g=$(eps eeg${pop}_gpu) -v m=$(eps eeg${pop}_mix) -v go=$(eps eeg${pop}_gpuold) -v p=$pop 'BEGIN {
    if (s > 0) printf "K-means %s x 50 against the sequential path: gpu:0 %.1fx (before %.1fx), cpu,gpu:0 %.1fx (target 50x)\n", p, g / s, go / s, m / s }'
  cmp -s $W/eeg${pop}_seq.front.tsv $W/eeg${pop}_cpu.front.tsv && echo "eeg $pop: 1 thread = all threads = every device mix: $(same eeg${pop}_cpu eeg${pop}_gpu eeg${pop}_mix eeg${pop}_gpuold eeg${pop}_mixold)"
done
echo
echo "== every run's evaluations/s, in run order"
awk '{ r[$1] = r[$1] " " $2 } END { for (k in r) print k ":" r[k] }' $W/all_runs.txt | sort
echo
echo "== time breakdown (best run of each; microseconds per generation)"
for x in eeg120_gpuold eeg120_mixold eeg120_gpu eeg120_mix eeg960_gpuold eeg960_mixold eeg960_gpu eeg960_mix bc_gpu bc_mix dg_gpu dg_mix eeg480_gpu eeg480_mix; do
  echo "-- $x: $(grep '^device' $W/$x.log 2>/dev/null | cut -f2- | tr '\t\n' ' /')"
  grep '^nsga-timing' $W/$x.timing 2>/dev/null | cut -f2-
done

if nvidia-smi -L | grep -q "GPU 1"; then
  echo "== two GPUs"
  for d in gpu:0,gpu:1 cpu,gpu:0,gpu:1; do
    one bc2_$d $d new $E nsga $bc
    echo "bc $d: $(eps bc2_$d) evaluations/s, front $(same bc_cpu bc2_$d)"
  done
fi

# last, so that a short time limit still leaves the table
left=$(( budget - ($(date +%s) - t_begin) ))
if command -v compute-sanitizer >/dev/null 2>&1 && [ $left -gt 10 ]; then
  echo "== compute-sanitizer --tool memcheck test_gpu_nsga (at most $left s)"
  timeout $left compute-sanitizer --tool memcheck $C/bin/test_gpu_nsga 2>&1 | tail -4
fi
