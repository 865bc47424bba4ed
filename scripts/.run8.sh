export LD_LIBRARY_PATH=$PWD/.carry/lib; B=.carry/bin
export EPISTREAM=$B/epistream ES_SRCDIR=$PWD ES_TESTDATA=$PWD/tests/data
$B/epistream sim --samples 1024 --variants 262144 --pairs 4 --seed 9 --out /tmp/s1k >/dev/null 2>&1
for st in boost mi; do
  EPISTREAM_GPU_TRACE=1 $B/epistream scan --bfile /tmp/s1k --stat $st --device gpu --gpu-kernel wgmma --verbose --out /tmp/s1k.$st 2>/tmp/s1k.$st.err
  grep -E "GPU 0:" /tmp/s1k.$st.err | cut -c1-250
  grep -E "seconds_scan|pairs_per" /tmp/s1k.$st.log
  grep gpu-trace /tmp/s1k.$st.err | awk '{k+=$7; c+=$9; w+=$12; s+=$16; n++} n%132==0 {printf "tiles to %d: kernel %.1f ms, cands %d, wait %.1f, score %.1f\n", n, k, c, w, s; k=c=w=s=0}'
done
echo "== test_gpu"; timeout 200 $B/tests/test_gpu 2>&1 | tail -2
echo "== gpu_cli"; timeout 240 sh tests/gpu_cli.sh > $OUT/gpu_cli.out 2>&1; echo "rc=$?"; tail -3 $OUT/gpu_cli.out
echo "== bench"; timeout 100 $B/tests/bench/bench_gpu -n 1024,8192 -m 262144 -s boost,chi2,mi -k wgmma -c 4096 -d /tmp 2>&1 | tail -12
echo "== e2e"; BENCH=0 E2E=1 timeout 200 sh scripts/device-perf.sh 2>&1 | tail -12
