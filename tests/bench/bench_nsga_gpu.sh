#!/bin/sh
# bench_nsga_gpu.sh -- epistream nsga on a GPU machine: the GPU test, then the
# same problems on cpu, gpu:0, cpu,gpu:0 (and two GPUs where present): the
# fronts must be the same bytes; the logs' evaluations/s are printed.
#
# Build here with CUDA (a second build directory, `../configure --with-cuda`),
# then copy into a carried folder C (git-ignored): C/bin/{epistream,
# test_gpu_nsga,test_nsga} (stripped), C/lib/ the shared libraries `ldd`
# names (as scripts/device-build.sh does), C/data/ bc.csv and digits.csv
# (tests/bench/bench_nsga.sh's exports) and eeg.csv (178 x 3,600 Gaussian,
# 3 classes, the first 40 features shifted by the class: the seed paper's
# shape), and this script; on the GPU machine run `sh C/bench_nsga_gpu.sh`.
C=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$C/lib
E=$C/bin/epistream
W=/tmp/nsgarun; mkdir -p $W
nvidia-smi -L; nproc
echo "== test_nsga"; timeout 100 $C/bin/test_nsga 2>&1 | tail -1
echo "== test_gpu_nsga"; timeout 200 $C/bin/test_gpu_nsga; echo "rc $?"
ev() { grep -E "^(device|evaluations_per_second|hv_final|seconds_total)" $1.log | tr '\n' ' '; echo; }
echo "== breast_cancer knn 100x100"
for d in cpu gpu:0 cpu,gpu:0; do
  timeout 120 $E nsga --table $C/data/bc.csv --population 100 --generations 100 --seed 1 --devices $d --out $W/bc_$d --quiet || echo "FAIL $d"
  echo "$d: $(ev $W/bc_$d)"
done
cmp $W/bc_cpu.front.tsv $W/bc_gpu:0.front.tsv && cmp $W/bc_cpu.front.tsv $W/bc_cpu,gpu:0.front.tsv && cmp $W/bc_cpu.hv.tsv $W/bc_cpu,gpu:0.hv.tsv && echo "bc: identical fronts"
echo "== digits nc 100x100"
for d in cpu gpu:0 cpu,gpu:0; do
  timeout 120 $E nsga --table $C/data/digits.csv --objectives nc-error,size --population 100 --generations 100 --seed 1 --devices $d --out $W/dg_$d --quiet || echo "FAIL $d"
  echo "$d: $(ev $W/dg_$d)"
done
cmp $W/dg_cpu.front.tsv $W/dg_gpu:0.front.tsv && cmp $W/dg_cpu.front.tsv $W/dg_cpu,gpu:0.front.tsv && echo "digits: identical fronts"
echo "== paper shape 178 x 3600 kmeans, 50 generations"
timeout 150 $E nsga --table $C/data/eeg.csv --objectives kmeans --population 120 --generations 50 --threads 1 --devices cpu --out $W/eeg_seq --quiet || echo "FAIL seq"
echo "sequential pop 120: $(ev $W/eeg_seq)"
timeout 100 $E nsga --table $C/data/eeg.csv --objectives kmeans --population 960 --generations 50 --threads 1 --devices cpu --out $W/eeg_seq960 --quiet || echo "FAIL seq960"
echo "sequential pop 960: $(ev $W/eeg_seq960)"
for pop in 120 480 960; do
  for d in cpu gpu:0 cpu,gpu:0; do
    timeout 100 $E nsga --table $C/data/eeg.csv --objectives kmeans --population $pop --generations 50 --devices $d --out $W/eeg_${pop}_$d --quiet || echo "FAIL $pop $d"
    echo "pop $pop $d: $(ev $W/eeg_${pop}_$d)"
  done
  cmp $W/eeg_${pop}_cpu.front.tsv $W/eeg_${pop}_gpu:0.front.tsv && cmp $W/eeg_${pop}_cpu.front.tsv $W/eeg_${pop}_cpu,gpu:0.front.tsv && echo "pop $pop: identical fronts"
done
cmp $W/eeg_seq.front.tsv $W/eeg_120_cpu.front.tsv && echo "eeg: 1 thread = 16 threads"
cmp $W/eeg_seq960.front.tsv $W/eeg_960_cpu.front.tsv && echo "eeg 960: 1 thread = 16 threads"
if nvidia-smi -L | grep -q "GPU 1"; then
  echo "== two GPUs"
  for d in gpu:0,gpu:1 cpu,gpu:0,gpu:1; do
    timeout 60 $E nsga --table $C/data/bc.csv --population 100 --generations 100 --seed 1 --devices $d --out $W/bc_$d --quiet || echo "FAIL $d"
    echo "bc $d: $(ev $W/bc_$d)"
    cmp $W/bc_cpu.front.tsv $W/bc_$d.front.tsv && echo "bc $d: identical front"
    timeout 100 $E nsga --table $C/data/eeg.csv --objectives kmeans --population 960 --generations 50 --devices $d --out $W/eeg_960_$d --quiet || echo "FAIL 960 $d"
    echo "pop 960 $d: $(ev $W/eeg_960_$d)"
    cmp $W/eeg_960_cpu.front.tsv $W/eeg_960_$d.front.tsv && echo "pop 960 $d: identical front"
  done
fi
