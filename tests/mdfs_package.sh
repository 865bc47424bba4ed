#!/bin/sh
# mdfs_package.sh -- `epistream mdfs` against the MDFS package itself (PyPI
# mdfs 1.5.2, tests/oracle/mdfs_package.py) on the same data, options and
# seed: its discretisations and contrast variables are reproduced bit for bit,
# so MAX_IG agrees to its float32 sums, P, ADJ_P and the relevant set too.
# Skipped (77) without the package.
. "$(dirname "$0")/lib.sh"
need_python numpy scipy statsmodels mdfs
$PY "$ES_SRCDIR/tests/oracle/mdfs_brute.py" gen "$T/d.csv" --objects 300 --vars 40 --seed 5 ||
    fail "gen"
# dim divisions discretizations [extra options for both]
while read -r dim div disc extra; do
    # shellcheck disable=SC2086
    "$EPISTREAM" mdfs --table "$T/d.csv" --dim $dim --divisions $div --discretizations $disc \
        --seed 11 $extra --out "$T/o" --quiet || fail "mdfs --dim $dim --divisions $div $extra"
    # shellcheck disable=SC2086
    $PY "$ES_SRCDIR/tests/oracle/mdfs_package.py" "$T/d.csv" "$T/o" --dim $dim --divisions $div \
        --discretizations $disc --seed 11 $extra ||
        fail "the mdfs package disagrees: dim $dim divisions $div discretizations $disc $extra"
done <<CFG
1 1 1
1 2 3
2 1 2
2 2 3 --range 0.4
3 2 1
3 1 2 --contrast 25 --adjust bh
2 3 1 --contrast 60
CFG
exit 0
