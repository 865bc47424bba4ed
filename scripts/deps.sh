#!/bin/sh
# deps.sh -- install what building and testing epistream needs on Debian/Ubuntu:
# the toolchain, htslib, cmocka, and the oracles the tests compare against
# (plink1.9, numpy, scipy, plinkio).  Safe to run again; uses sudo when not root.
set -e
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
need=""
for p in build-essential autoconf automake libtool pkg-config libhts-dev libcmocka-dev \
         plink1.9 python3 python3-numpy python3-scipy valgrind cppcheck; do
    dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
fi
# python oracles for the tests (not runtime dependencies)
PY=${PYTHON:-python3}
if ! "$PY" -c 'import numpy, scipy, plinkio' 2>/dev/null; then
    if ! "$PY" -m pip --version >/dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-pip >/dev/null || true
    fi
    "$PY" -m pip install -q numpy scipy plinkio 2>/dev/null ||
        "$PY" -m pip install -q --break-system-packages numpy scipy plinkio ||
        echo "deps.sh: could not install the python oracles; those tests will be skipped" >&2
fi
