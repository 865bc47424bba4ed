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
# memcheck_boost VARIANTS WHAT PATTERN SCAN_ARGS...: compute-sanitizer memcheck
# on a boost scan of VARIANTS x 999 simulated samples (no missing call) with the
# wgmma and mma kernels, 128-variant blocks; prints rc and the log's lines
# matching PATTERN
memcheck_boost() {
    command -v compute-sanitizer >/dev/null || { echo "no compute-sanitizer"; return 0; }
    mv=$1 what=$2 pat=$3
    shift 3
    "$EPISTREAM" sim --samples 999 --variants "$mv" --missing 0 --seed 3 --out /tmp/cs0 >/dev/null 2>&1
    for k in wgmma mma; do
        echo "== compute-sanitizer memcheck, $k, boost ($what)"
        compute-sanitizer --tool memcheck --error-exitcode 9 "$EPISTREAM" scan --bfile /tmp/cs0 --device gpu \
            --gpu-kernel $k --block 128 "$@" --out /tmp/cs.$k >/tmp/cs.$k.err 2>&1
        echo "rc=$?"; grep -E "$pat" /tmp/cs.$k.err | sed 's/.*GPU 0: //'
    done
}
# stall_mets METRICS: ncu's --metrics list, METRICS and the warp stall
# reasons a issued instruction
# (smsp__average_warps_issue_stalled_REASON_per_issue_active.ratio)
stall_mets() {
    m=$1
    for r in barrier long_scoreboard short_scoreboard wait membar math_pipe_throttle mio_throttle lg_throttle \
        no_instruction sleeping branch_resolving dispatch_stall selected not_selected; do
        m="$m,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
    done
    echo "$m"
}
# stamp: seconds since the script started; wd SECONDS cmd...: the command,
# killed when it overruns (and said so)
t0=$(date +%s)
stamp() { echo "   [$(($(date +%s) - t0)) s]"; }
wd() {
    s=$1
    shift
    timeout -k 5 "$s" "$@"
    r=$?
    { [ $r = 124 ] || [ $r = 137 ]; } && echo "WATCHDOG: $* ran past ${s}s"
    return $r
}
