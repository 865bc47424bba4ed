#!/bin/sh
# cppcheck.sh -- the C sources are cppcheck-clean (warning, performance, portability).
. "$(dirname "$0")/lib.sh"
need_cmd cppcheck
cd "$ES_SRCDIR" || fail "no source dir"
incs="-I src -I formats -I gpu"
for d in src/*/; do incs="$incs -I ${d%/}"; done
# shellcheck disable=SC2086
cppcheck --enable=warning,performance,portability --inline-suppr --error-exitcode=1 -q \
    $incs --suppress=missingIncludeSystem \
    src formats gpu/gpu_stub.c tests/*.c tests/fuzz/*.c examples || fail "cppcheck found problems"
exit 0
