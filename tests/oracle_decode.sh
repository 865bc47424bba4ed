#!/bin/sh
# oracle_decode.sh -- our .bed decoding against plink1.9 --recode A and libplinkio (the
# plinkio Python package), every sample x variant, on plink1.9 --dummy data with missing
# calls; sample counts cover every N mod 4 and a quantitative .fam phenotype.
. "$(dirname "$0")/lib.sh"
need_cmd plink1.9
need_python numpy plinkio

DUMP=$(dirname "$EPISTREAM")/tests/dump_geno
[ -x "$DUMP" ] || fail "$DUMP not built (make check builds it)"
CHECK=$ES_SRCDIR/tests/oracle/decode_check.py

# check NAME SAMPLES VARIANTS MISSING_FREQ [dummy modifiers...]
check() {
    name=$1 ns=$2 nv=$3 miss=$4
    shift 4
    p=$T/$name
    plink1.9 --dummy "$ns" "$nv" "$miss" "$@" --seed 7 --make-bed --threads 1 --memory 256 \
        --out "$p" >"$p.plink.log" 2>&1 ||
        { cat "$p.plink.log" >&2; fail "plink1.9 --dummy $name"; }
    # dump_geno opens a dataset, which needs cases and controls: when .fam column 6 is
    # not a usable case/control phenotype (quantitative, or one class only), give a
    # phenotype file.
    pheno=
    if ! awk '$6 != 1 && $6 != 2 && $6 != 0 && $6 != -9 { q = 1 }
              $6 == 1 { c = 1 } $6 == 2 { k = 1 }
              END { exit !(c && k && !q) }' "$p.fam"; then
        awk '{ print $1, $2, 1 + NR % 2 }' "$p.fam" >"$p.pheno"
        pheno=$p.pheno
    fi
    # shellcheck disable=SC2086
    "$DUMP" "$p" $pheno >"$p.dump" || fail "dump_geno $name"
    plink1.9 --bfile "$p" --recode A --keep-allele-order --allow-no-sex --threads 1 \
        --memory 256 --out "$p" >"$p.plink.log" 2>&1 ||
        { cat "$p.plink.log" >&2; fail "plink1.9 --recode A $name"; }
    "$PY" "$CHECK" "$p" "$p.dump" "$p.raw" || fail "decoding differs from the oracles on $name"
}

check n300 300 200 0.05
check n301 301 150 0.05
check n302 302 120 0.1
check n303 303 100 0.1 scalar-pheno
check n2 2 40 0.2
check n1025 1025 64 0.02
exit 0
