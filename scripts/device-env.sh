# device-env.sh -- sourced by the scripts/device-*.sh scripts on the GPU
# machine: the programs and libraries that scripts/device-build.sh put in
# .carry, the tests' environment, the log folder ($OUT when set), and which
# GPU this is.
top=$(cd "$(dirname "$0")/.." && pwd)
B=$top/.carry/bin
export LD_LIBRARY_PATH="$top/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export EPISTREAM="$B/epistream" ES_SRCDIR="$top" ES_TESTDATA="$top/tests/data"
O=${OUT:-/tmp}
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader || true
