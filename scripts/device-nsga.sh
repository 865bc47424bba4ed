#!/bin/sh
# device-nsga.sh -- on the GPU machine: tests/bench/bench_nsga_gpu.sh (test_nsga,
# test_gpu_nsga and its memcheck; fronts on cpu, gpu:0 and cpu,gpu:0, each with
# this build's schedule and kernels and with the ones before, compared byte for
# byte; a table of evaluations per second, CPU+GPU against each alone and
# K-means against the sequential path; each K-means run's time breakdown from
# EPISTREAM_NSGA_TIMING=1; about a minute) with the programs of .carry
# (scripts/device-build.sh) and the data sets in DATA (default
# .carryz-final/data: bc.csv, digits.csv, eeg.csv as bench_nsga_gpu.sh's
# header describes them, made beforehand where scikit-learn is).
. "$(dirname "$0")/device-env.sh"
DATA=${DATA:-$top/.carryz-final/data}
C=$O/nsgac
rm -rf "$C" && mkdir -p "$C/bin" "$C/data" || exit 1
ln -s "$B/epistream" "$B/tests/test_gpu_nsga" "$C/bin/"
[ -x "$B/tests/test_nsga" ] && ln -s "$B/tests/test_nsga" "$C/bin/"
ln -s "$top/.carry/lib" "$C/lib"
cp "$DATA"/bc.csv "$DATA"/digits.csv "$DATA"/eeg.csv "$C/data/" || exit 1
cp "$top/tests/bench/bench_nsga_gpu.sh" "$C/"
sh "$C/bench_nsga_gpu.sh"
