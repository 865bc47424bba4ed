#!/bin/sh
# bench_nsga_gpu.sh -- epistream nsga on a GPU machine: the GPU test (and
# compute-sanitizer's memcheck on it where present), then the same problems
# on cpu, gpu:0 and cpu,gpu:0 (and two GPUs where present): the fronts must
# be the same bytes; the evaluations per second of the evaluation phase
# (`evaluations_per_second` in the log, best of BENCH_REPS runs, default 2)
# are printed as a table, with the mixed run's ratio to the faster device
# alone (the target: >= 1) and the CPU's share of the mixed run's
# evaluations; then the K-means rows' best against the sequential path
# (1 CPU thread; the target: >= 50x).
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
W=/tmp/nsgarun; mkdir -p $W
reps=${BENCH_REPS:-2}
nvidia-smi -L; echo "host CPUs: $(nproc)"
echo "== test_nsga"; timeout 100 $C/bin/test_nsga 2>&1 | tail -1
echo "== test_gpu_nsga"; timeout 200 $C/bin/test_gpu_nsga; echo "rc $?"

# run NAME DEVICES ARGS...: the best evaluations/s of $reps runs into $W/NAME.eps,
# the last run's outputs at $W/NAME.*
run() {
  name=$1 dev=$2; shift 2
  best=0
  r=0
  while [ $r -lt $reps ]; do
    timeout 150 $E nsga "$@" --devices $dev --out $W/$name --quiet || { echo "FAIL $name" >&2; best=FAIL; break; }
    eps=$(sed -n 's/^evaluations_per_second\t//p' $W/$name.log)
    best=$(awk -v a=$best -v b=$eps 'BEGIN { print (b > a ? b : a) }')
    r=$((r + 1))
  done
  echo $best > $W/$name.eps
}
eps() { cat $W/$1.eps 2>/dev/null || echo -; }
# the CPU's share of a mixed run's evaluations
share() { awk -F'\t' '/^device\t/ { n++; e[n] = $4 } END { t = 0; for (i = 1; i <= n; i++) t += e[i]; if (t) printf "%.1f%%", 100 * e[1] / t; else print "-" }' $W/$1.log; }
same() {
  ok=yes
  for x in "$@"; do cmp -s $W/$1.front.tsv $W/$x.front.tsv && cmp -s $W/$1.hv.tsv $W/$x.hv.tsv || ok=NO; done
  echo $ok
}

rows=""
row() { # label base(cpu) names...: one table line
  label=$1 b=$2
  c=$(eps ${b}_cpu) g=$(eps ${b}_gpu) m=$(eps ${b}_mix)
  ratio=$(awk -v c=$c -v g=$g -v m=$m 'BEGIN { a = c > g ? c : g; if (a > 0 && m > 0) printf "%.2f", m / a; else print "-" }')
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$(eps ${b}_seq)" "$c" "$g" "$m" "$ratio" \
    "$(share ${b}_mix)" "$(same ${b}_cpu ${b}_gpu ${b}_mix)"
}

bc="--table $C/data/bc.csv --population 100 --generations 100 --seed 1"
for d in cpu gpu mix; do
  case $d in cpu) dv=cpu ;; gpu) dv=gpu:0 ;; mix) dv=cpu,gpu:0 ;; esac
  run bc_$d $dv $bc
  run dg_$d $dv --table $C/data/digits.csv --objectives nc-error,size --population 100 --generations 100 --seed 1
done
for pop in 120 480 960; do
  ee="--table $C/data/eeg.csv --objectives kmeans --population $pop --generations 50"
  if [ $pop != 480 ]; then
    keep=$reps reps=1
    run eeg${pop}_seq cpu $ee --threads 1
    reps=$keep
  fi
  for d in cpu gpu mix; do
    case $d in cpu) dv=cpu ;; gpu) dv=gpu:0 ;; mix) dv=cpu,gpu:0 ;; esac
    run eeg${pop}_$d $dv $ee
  done
done

echo
echo "| problem | 1 CPU thread | CPU threads | gpu:0 | cpu,gpu:0 | mixed / faster alone | CPU share (mixed) | same fronts |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
row "breast_cancer 5-NN, 100 x 100" bc
row "digits nearest centroid, 100 x 100" dg
row "178 x 3,600 K-means, 120 x 50" eeg120
row "178 x 3,600 K-means, 480 x 50" eeg480
row "178 x 3,600 K-means, 960 x 50" eeg960
echo
for pop in 120 960; do
  awk -v s=$(eps eeg${pop}_seq) -v g=$(eps eeg${pop}_gpu) -v m=$(eps eeg${pop}_mix) -v p=$pop 'BEGIN {
    if (s > 0) printf "K-means %s x 50 against the sequential path: gpu:0 %.1fx, cpu,gpu:0 %.1fx (target 50x)\n", p, g / s, m / s }'
done
cmp -s $W/eeg120_seq.front.tsv $W/eeg120_cpu.front.tsv && echo "eeg 120: 1 thread = all threads"
cmp -s $W/eeg960_seq.front.tsv $W/eeg960_cpu.front.tsv && echo "eeg 960: 1 thread = all threads"
for x in bc_mix eeg960_mix; do echo "$x: $(grep '^device' $W/$x.log | tr '\n' ' ')"; done

if nvidia-smi -L | grep -q "GPU 1"; then
  echo "== two GPUs"
  for d in gpu:0,gpu:1 cpu,gpu:0,gpu:1; do
    run bc2_$d $d $bc
    echo "bc $d: $(eps bc2_$d) evaluations/s, front $(same bc_cpu bc2_$d)"
    run eeg2_$d $d --table $C/data/eeg.csv --objectives kmeans --population 960 --generations 50
    echo "eeg 960 $d: $(eps eeg2_$d) evaluations/s, front $(same eeg960_cpu eeg2_$d)"
  done
fi

# last, so that a short time limit still leaves the table
if command -v compute-sanitizer >/dev/null 2>&1; then
  echo "== compute-sanitizer --tool memcheck test_gpu_nsga (at most ${MEMCHECK_S:-150} s)"
  timeout ${MEMCHECK_S:-150} compute-sanitizer --tool memcheck $C/bin/test_gpu_nsga 2>&1 | tail -3
fi
