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
# gpu_tests SECONDS PATTERN: test_gpu and gpu_cli.sh side by side (each
# killed past SECONDS), their exit codes and test_gpu's lines matching PATTERN
gpu_tests() {
    timeout "$1" "$B/tests/test_gpu" >"$O/test_gpu.out" 2>&1 &
    p1=$!
    timeout "$1" sh "$top/tests/gpu_cli.sh" >"$O/gpu_cli.out" 2>&1 &
    p2=$!
    wait $p1; echo "test_gpu rc=$?"; grep -E "$2" "$O/test_gpu.out" | head -12
    wait $p2; echo "gpu_cli.sh rc=$?"; tail -2 "$O/gpu_cli.out"
}
