#!/bin/sh
# device-mpi-carry.sh -- Open MPI for the lent GPU machine, which has none: the Debian packages
# of mpirun and its libraries unpacked into .carry-mpi (git-ignored; about 21 MB), relocated
# there with OPAL_PREFIX by scripts/device-mpi.sh.  Carry it beside .carryz.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cd "$d"
apt-get download openmpi-bin libopenmpi3 openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7 \
    libevent-pthreads-2.1-7 libfabric1 libucx0 libpsm2-2 libibverbs1 librdmacm1 libnl-3-200 \
    libnl-route-3-200 libpsm-infinipath1 libxnvctrl0 >/dev/null 2>&1
rm -rf "$top/.carry-mpi"
for f in *.deb; do dpkg -x "$f" "$top/.carry-mpi"; done
rm -rf "$top/.carry-mpi/usr/share/doc" "$top/.carry-mpi/usr/share/man"
du -sh "$top/.carry-mpi" | sed 's/^/mpi carry: /'
