#!/bin/sh
# device-multi.sh -- on a GPU machine with several GPUs (after
# scripts/device-build.sh here, with .carry carried): scans on every GPU, on
# chosen GPUs and on each alone write the bytes of --device cpu, and the
# log shows how the single tile queue shared the work.  Logs go to $OUT.
set -u
. "$(dirname "$0")/device-env.sh"
E=$B/epistream
nvidia-smi -L
n=$(nvidia-smi -L | grep -c '^GPU')
rc=0
"$E" sim --samples ${MS:-3001} --variants ${MM:-12000} --pairs 3 --missing 0.01 --seed 21 --out /tmp/mg >/dev/null 2>&1
for stat in boost chi2; do
    "$E" scan --bfile /tmp/mg --stat $stat --top 500 --p-threshold 1e-4 --device cpu --quiet --out /tmp/mg.cpu.$stat
    devs="gpu"; g=0
    while [ $g -lt "$n" ]; do devs="$devs gpu:$g"; g=$((g + 1)); done
    [ "$n" -ge 2 ] && devs="$devs gpu:1,0"
    for d in $devs; do
        for k in auto mma; do
            o=/tmp/mg.$stat.$(echo "$d" | tr ':,' '__').$k
            t0=$(date +%s.%N)
            "$E" scan --bfile /tmp/mg --stat $stat --top 500 --p-threshold 1e-4 --device "$d" --gpu-kernel $k \
                --block 1024 --verbose --out "$o" 2>"$o.err" || { echo "FAIL $stat $d $k"; tail -3 "$o.err"; rc=1; continue; }
            t1=$(date +%s.%N)
            same=yes
            for f in top.tsv sig.tsv summary.tsv; do cmp -s /tmp/mg.cpu.$stat.$f "$o.$f" || same=NO; done
            [ $same = yes ] || rc=1
            printf '%-6s %-8s %-5s identical=%s  %.2f s  ' $stat "$d" $k $same "$(awk "BEGIN { print $t1 - $t0 }")"
            grep -o "GPU [0-9]*: [0-9]* tiles" "$o.err" | tr '\n' ' '; echo
        done
    done
done
echo "rc=$rc"
exit $rc
