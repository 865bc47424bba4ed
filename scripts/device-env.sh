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
# pair_tests SECONDS: the pair engine's GPU tests (test_gpu || gpu_cli.sh, each
# killed past SECONDS; test_screen and test_wgmma beside them), exit codes and
# result lines
pair_tests() {
    echo "== test_gpu || gpu_cli.sh; test_screen, test_wgmma"
    timeout 60 "$B/tests/test_screen" >"$O/test_screen.out" 2>&1 &
    p3=$!
    timeout 60 "$B/tests/test_wgmma" >"$O/test_wgmma.out" 2>&1 &
    p4=$!
    gpu_tests "$1" "PASSED|FAILED|rror"
    wait $p3; echo "test_screen rc=$?"; tail -1 "$O/test_screen.out"
    wait $p4; echo "test_wgmma rc=$?"; grep -E "PASSED|FAILED" "$O/test_wgmma.out" | tail -2
}
# check_beside SCRIPT: SCRIPT's part "sanitize" in the background while its
# part "tests" runs, then the sanitizer's report (neither is timed)
check_beside() {
    PARTS=sanitize sh "$1" >"$O/sanitize.txt" 2>&1 &
    ps=$!
    PARTS=tests sh "$1" 2>&1 | grep -v "^NVIDIA"
    wait $ps
    grep -v "^NVIDIA" "$O/sanitize.txt"
}
# same_outputs A B WHAT: says which of A's top.tsv and summary.tsv differ
# from B's (or are the same when SAY_SAME=1)
same_outputs() {
    for f in top.tsv summary.tsv; do
        if cmp -s "$1.$f" "$2.$f"; then [ "${SAY_SAME:-0}" = 1 ] && echo "same as $3: $f"
        else echo "DIFFER from $3: $f"; fi
    done
}
# ncu_pages R: the details (its lines matching $SUMMARY printed), raw and
# source pages (SASS; SASS with CUDA lines) of report R.ncu-rep, as
# R.details.txt, R.raw.csv, R.sass.csv and R.cuda.csv
ncu_pages() {
    ncu -i "$1.ncu-rep" --page details >"$1.details.txt" 2>&1
    grep -E "$SUMMARY" "$1.details.txt" | head -24
    ncu -i "$1.ncu-rep" --page raw --csv >"$1.raw.csv" 2>&1
    ncu -i "$1.ncu-rep" --page source --csv --print-source sass >"$1.sass.csv" 2>"$1.src.err" ||
        ncu -i "$1.ncu-rep" --page source --csv >"$1.sass.csv" 2>>"$1.src.err"
    ncu -i "$1.ncu-rep" --page source --csv --print-source cuda,sass >"$1.cuda.csv" 2>>"$1.src.err"
}
# ncu_feed N R: ncu --set full on the main loop alone (bench_gpu's k_feed,
# 16,384^2 pairs of N samples) into R.ncu-rep, then ncu_pages R
ncu_feed() {
    echo "== ncu --set full, k_feed (the main loop alone), N=$1, 16,384^2 pairs"
    wd 100 ncu --clock-control none --set full --kernel-name k_feed --launch-skip 1 --launch-count 1 -f \
        -o "$2" "$B/tests/bench/bench_gpu" -n "$1" -m 2048 -s chi2 -k wgmma -c 256 -M -d "${TMPDIR:-/tmp}" \
        >"$2.log" 2>&1
    echo "rc=$?"
    ncu_pages "$2"
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
