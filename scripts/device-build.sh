#!/bin/sh
# device-build.sh -- build here, run on the lent GPU machine.
#
# The GPU machine (Ubuntu 24.04 with nvcc, gcc and make) has no htslib, cmocka
# or libtool.  This script builds epistream with CUDA in .carry/build (a
# git-ignored folder), then copies the shared libraries the binaries need
# (from `ldd`, or from Debian packages fetched with apt-get download) into
# .carry/lib; the programs the GPU machine runs (epistream, the GPU test and
# benchmark) are copied to .carry/bin, which keeps the carried tree under the
# device tool's 64 MiB (when it would not, .carryz/carry.tar.xz: see the end).
# Name `.carry` (or `.carryz`) in the device tool's `carry` list and run there:
#
#   sh scripts/device-check.sh      (tests)
#   sh scripts/device-gpu.sh        (GPU tests, compute-sanitizer, timing)
#
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[ -x configure ] || autoreconf -fi
mkdir -p .build-cuda .carry/lib .carry/bin/tests/bench
cd .build-cuda
[ -f Makefile ] || "$top/configure" --with-cuda ${CUDA_ARCH:+CUDA_ARCH="$CUDA_ARCH"} >/dev/null
make -j"$(nproc)" >/dev/null
make -j"$(nproc)" check TESTS= >/dev/null   # builds the test programs without running them
cd "$top"
for p in epistream tests/test_gpu tests/test_screen tests/test_wgmma tests/test_gpu_mi tests/test_gpu_triple tests/test_gpu_qt tests/test_gpu_nsga tests/test_nsga tests/test_gpu_rules tests/dump_geno tests/regress_cli tests/bench/bench_gpu \
    tests/bench/bench_summary tests/bench/bench_mi tests/bench/bench_triple_gpu tests/bench/bench_mdfs_gpu tests/bench/bench_rules_gpu; do
    [ -x ".build-cuda/$p" ] && cp ".build-cuda/$p" ".carry/bin/$p"
done
# libraries that are not part of the base system on the GPU machine
for bin in .carry/bin/epistream .carry/bin/tests/test_*; do
    [ -x "$bin" ] || continue
    ldd "$bin" | awk '/=> \//{print $3}'
done | sort -u | while read -r lib; do
    case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libgcc_s.so*|libstdc++.so*) ;;
    *) cp -L "$lib" .carry/lib/ ;;
    esac
done
# CARRY_PLINK=1: PLINK 1.9 and its libraries too, for the same-run ratios of
# tests/bench/bench_cohort.sh there (PLINK=$PWD/.carry/bin/plink1.9)
if [ "${CARRY_PLINK:-0}" = 1 ]; then
    pl=$(command -v plink1.9) || { echo "no plink1.9 here (scripts/deps.sh installs it)" >&2; exit 1; }
    cp -L "$pl" .carry/bin/plink1.9
    ldd "$pl" | awk '/=> \//{print $3}' | while read -r lib; do
        case "$(basename "$lib")" in
        liblapack.so*|libblas.so*|libgfortran.so*|libquadmath.so*) cp -L "$lib" .carry/lib/ ;;
        esac
    done
    for lib in $(ldd .carry/lib/libgfortran.so* | awk '/=> \//{print $3}'); do
        case "$(basename "$lib")" in libquadmath.so*) cp -L "$lib" .carry/lib/ ;; esac
    done
fi
# debug info alone would fill most of the 64 MiB the carry may hold
strip .carry/bin/epistream .carry/bin/tests/test_* .carry/bin/tests/bench/* 2>/dev/null || true
[ -f .carry/bin/plink1.9 ] && strip .carry/bin/plink1.9 2>/dev/null
# bench_mi only when asked (CARRY_BENCH_MI=1): it is large and device-mi.sh's alone
[ "${CARRY_BENCH_MI:-0}" = 1 ] || rm -f .carry/bin/tests/bench/bench_mi
du -sh .carry | sed 's/^/carry size: /'
# Every CUDA program holds the kernels of all families for sm_90a and sm_80
# (about 18 MB each, stripped): past the device tool's 64 MiB, carry them as
# one xz archive instead (about 4x smaller) and unpack it there first:
#   carry [".carryz"], command: tar xJf .carryz/carry.tar.xz && sh scripts/device-check.sh
if [ "$(du -sm .carry | cut -f1)" -gt 60 ] || [ "${CARRY_XZ:-0}" = 1 ]; then
    mkdir -p .carryz
    tar cf - .carry | xz -6 -T"$(nproc)" >.carryz/carry.tar.xz
    du -sh .carryz/carry.tar.xz | sed 's/^/carry archive: /'
fi
