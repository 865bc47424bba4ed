#!/bin/sh
# tests/fuzz/run.sh [SECONDS [HARNESS...]] -- build the reader fuzz harnesses
# with clang's libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer and
# run each for SECONDS (default 30) from its seeds in tests/fuzz/corpus/NAME.
# Harnesses: plink vcf pheno table libsvm rules nsga covar (default: all).  Built in
# $ES_FUZZ_BUILD (default build-fuzz/ in the source tree); new inputs go to
# its corpus/NAME, findings (crash-*, leak-*, timeout-*, oom-*) to
# its findings/, each run's log to its logs/.  Prints one line per harness with
# its executions.  Exit 0: nothing found; 1: a finding or a failed build;
# 77: no clang with libFuzzer (install clang; scripts/deps.sh does).
# CI runs it for a short smoke run; doc/FUZZING.md has the long runs.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
SECS=${1:-30}
[ $# -gt 0 ] && shift
HARNESSES=${*:-plink vcf pheno table libsvm rules nsga covar}
B=${ES_FUZZ_BUILD:-$SRC/build-fuzz}
CC=${FUZZ_CC:-clang}
SAN="address,undefined"

command -v "$CC" >/dev/null 2>&1 || { echo "fuzz: $CC not installed; skipped" >&2; exit 77; }
mkdir -p "$B/logs" "$B/findings" || exit 1
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' \
    >"$B/probe.c"
"$CC" -fsanitize=fuzzer,$SAN "$B/probe.c" -o "$B/probe" 2>"$B/logs/probe.log" ||
    { echo "fuzz: $CC cannot build a libFuzzer program (see $B/logs/probe.log); skipped" >&2; exit 77; }

# the library, instrumented (no OpenMP: one thread, reproducible runs; no MPI: the
# harnesses link nothing but the library and htslib)
if [ ! -f "$B/Makefile" ]; then
    [ -x "$SRC/configure" ] || (cd "$SRC" && autoreconf -fi) >"$B/logs/autoreconf.log" 2>&1 ||
        { echo "fuzz: autoreconf failed (see $B/logs/autoreconf.log)" >&2; exit 1; }
    (cd "$B" && "$SRC/configure" --without-cuda --without-mpi --disable-openmp CC="$CC" \
        CFLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,$SAN -fno-sanitize-recover=undefined") \
        >"$B/logs/configure.log" 2>&1 || { echo "fuzz: configure failed (see $B/logs/configure.log)" >&2; exit 1; }
fi
# clang's warnings are not gcc's: reported, not fatal, here
make -C "$B" -j"$(nproc)" libepistream.a ES_CFLAGS="-Wall -Wextra -Wno-unused-parameter" \
    >"$B/logs/make.log" 2>&1 || { echo "fuzz: building the library failed (see $B/logs/make.log)" >&2; exit 1; }
INC=""
for d in src src/util formats src/data src/count src/stats src/tile src/backend src/scan src/select \
    src/sim src/regress src/rules src/nsga src/cli gpu gpu/nsga; do INC="$INC -I$SRC/$d"; done
# shellcheck disable=SC2086  # $INC and pkg-config's output: several words
HTS=$(pkg-config --cflags --libs htslib 2>/dev/null || echo -lhts)
# LAPACK (the rule learner's example-wise loss solves with it), as configure found it
LAPACK=$(sed -n 's/^LAPACK_LIBS = //p' "$B/Makefile")

rc=0
printf '%-8s %12s %10s %s\n' harness executions exec/s result
for h in $HARNESSES; do
    # shellcheck disable=SC2086
    "$CC" -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,$SAN -fno-sanitize-recover=undefined \
        -std=gnu11 $INC "$SRC/tests/fuzz/fuzz_$h.c" "$B/libepistream.a" $HTS $LAPACK -lm -lpthread \
        -o "$B/fuzz_$h" 2>"$B/logs/build_$h.log" ||
        { echo "fuzz: building fuzz_$h failed (see $B/logs/build_$h.log)" >&2; rc=1; continue; }
    mkdir -p "$B/corpus/$h"
    "$B/fuzz_$h" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$B/findings/$h-" \
        "$B/corpus/$h" "$SRC/tests/fuzz/corpus/$h" >"$B/logs/$h.log" 2>&1
    r=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/logs/$h.log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$B/logs/$h.log" | tail -1)
    if [ $r -eq 0 ]; then res=ok; else res="FOUND (exit $r; $B/logs/$h.log)"; rc=1; fi
    printf '%-8s %12s %10s %s\n' "$h" "${execs:-?}" "${rate:-?}" "$res"
done
exit $rc
