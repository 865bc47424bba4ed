#!/bin/sh
# fuzz_replay.sh -- every reader's fuzz harness (tests/fuzz/) on its corpus:
# the seeds and the inputs of past findings (a LIBSVM label without
# features, a 2^31 - 1 feature index ...) must be read or refused without a
# crash, a leak or a sanitizer report.  Runs the harnesses built with a plain
# main() (replay.c) by this build's compiler and flags; tests/fuzz/run.sh
# fuzzes them with libFuzzer.
. "$(dirname "$0")/lib.sh"
H=$(dirname "$EPISTREAM")/tests/fuzz
for h in plink vcf pheno table libsvm rules nsga covar; do
    [ -x "$H/fuzz_$h" ] || fail "$H/fuzz_$h not built"
    "$H/fuzz_$h" "$ES_SRCDIR/tests/fuzz/corpus/$h" >"$T/$h.out" 2>&1 ||
        { cat "$T/$h.out" >&2; fail "fuzz_$h: a corpus input failed"; }
    if grep -q -E "AddressSanitizer|runtime error|LeakSanitizer" "$T/$h.out"; then
        cat "$T/$h.out" >&2
        fail "fuzz_$h: sanitizer report"
    fi
    grep -q "^[1-9][0-9]* inputs run$" "$T/$h.out" || { cat "$T/$h.out" >&2; fail "fuzz_$h: no input run"; }
done
exit 0
