#!/bin/sh
# deps.sh -- install what building and testing epistream needs on Debian/Ubuntu:
# the toolchain, htslib, cmocka and LAPACK (required), cairo (what `epistream report`
# draws with; without it the build says so and report refuses), then the
# oracles and checkers the tests compare against (plink1.9, plink2, bcftools, tabix,
# numpy, scipy, plinkio, valgrind, cppcheck; chromium, the headless browser
# that opens the report page; best effort: a test whose oracle is missing is
# skipped), Open MPI (scans across ranks: configure finds it; tests/dist_mpi.sh
# skips without it), and clang with its libFuzzer runtime for the fuzz harnesses
# (tests/fuzz/run.sh skips without them).
# Safe to run again; uses sudo when not root.
set -e
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
missing() {
    out=""
    for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || out="$out $p"; done
    echo "$out"
}
apt_install() {
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
required=$(missing build-essential autoconf automake libtool pkg-config libhts-dev libcmocka-dev libcairo2-dev liblapack-dev)
optional=$(missing plink1.9 plink2 bcftools tabix python3 python3-numpy python3-scipy valgrind cppcheck clang libclang-rt-dev chromium libopenmpi-dev openmpi-bin)
if [ -n "$required$optional" ]; then
    $SUDO apt-get update -qq
    [ -z "$required" ] || apt_install $required
    if [ -n "$optional" ]; then
        apt_install $optional 2>/dev/null || for p in $optional; do
            apt_install "$p" 2>/dev/null || echo "deps.sh: $p not installed; its tests will be skipped" >&2
        done
    fi
fi
# python oracles for the tests (not runtime dependencies)
PY=${PYTHON:-python3}
pipi() {
    "$PY" -m pip install -q "$@" 2>/dev/null || "$PY" -m pip install -q --break-system-packages "$@" 2>/dev/null
}
if command -v "$PY" >/dev/null 2>&1; then
    if ! "$PY" -m pip --version >/dev/null 2>&1; then
        apt_install python3-pip 2>/dev/null || true
    fi
    if ! "$PY" -c 'import numpy, scipy, plinkio, sklearn' 2>/dev/null; then
        pipi numpy scipy plinkio scikit-learn ||
            echo "deps.sh: could not install the python oracles; those tests will be skipped" >&2
    fi
    # pymoo: the NSGA-II oracle of tests/nsga.sh and tests/bench/bench_nsga.sh (best effort)
    if ! "$PY" -c 'import pymoo' 2>/dev/null; then
        pipi pymoo || echo "deps.sh: pymoo not installed; the NSGA-II comparison will be skipped" >&2
    fi
    # pymrmr (Peng's mRMR, the mRMR oracle) builds from source and needs cython at build time
    if ! "$PY" -c 'import pymrmr' 2>/dev/null; then
        { pipi cython wheel pandas && pipi --no-build-isolation pymrmr; } ||
            echo "deps.sh: pymrmr not installed; the mRMR cross-check will be skipped" >&2
    fi
    # the MDFS package (the oracle of epistream mdfs; builds its C++ from source)
    if ! "$PY" -c 'import mdfs' 2>/dev/null; then
        pipi mdfs==1.5.2 statsmodels ||
            echo "deps.sh: mdfs not installed; tests/mdfs_package.sh will be skipped" >&2
    fi
fi
exit 0
