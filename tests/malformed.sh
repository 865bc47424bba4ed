#!/bin/sh
# malformed.sh -- every class of malformed input through the command line: `scan` and `info`
# must exit 1 (not crash), print an error naming the offending file, and leave no output
# file behind.  Inputs that are only suspicious (duplicate IDs, unknown phenotype IDs) must
# warn and still work.  The fixtures are written here, byte by byte, from a good fileset of
# 3 variants x 8 samples (2 bytes per variant, 9-byte .bed).
. "$(dirname "$0")/lib.sh"

# good PREFIX: a valid fileset; cases are the even samples
good() {
    printf '1 rs1 0 100 A G\n1 rs2 0 200 A G\n2 rs3 0.5 300 C T\n' >"$1.bim"
    : >"$1.fam"
    for i in 1 2 3 4 5 6 7 8; do echo "F$i I$i 0 0 1 $((1 + (i + 1) % 2))" >>"$1.fam"; done
    # magic 6c 1b 01, then 3 rows of 2 bytes (one has a missing call, code 01)
    printf '\154\033\001\033\344\000\377\144\222' >"$1.bed"
}

# run_fail NAME FILE TEXT [extra args]: both subcommands on $T/NAME fail with exit 1,
# an [E::...] message naming FILE and containing TEXT, and no $T/o.* left behind
run_fail() {
    name=$1 file=$2 text=$3
    shift 3
    for cmd in ${CMDS:-scan info}; do
        err=$T/$name.$cmd.err
        if [ $cmd = scan ]; then
            expect_fail "$err" "$EPISTREAM" scan --bfile "$T/$name" --out "$T/o" "$@"
        else
            expect_fail "$err" "$EPISTREAM" info --bfile "$T/$name" "$@"
        fi
        # shellcheck disable=SC2154  # rc is set by expect_fail (tests/lib.sh)
        [ "$rc" -eq 1 ] || { cat "$err" >&2; fail "$name: $cmd exit $rc, expected 1"; }
        grep -q '\[E::' "$err" || { cat "$err" >&2; fail "$name: $cmd printed no [E::] error"; }
        grep -qF "$file" "$err" ||
            { cat "$err" >&2; fail "$name: $cmd message does not name $file"; }
        grep -qF -- "$text" "$err" ||
            { cat "$err" >&2; fail "$name: $cmd message lacks '$text'"; }
        for f in "$T"/o.*; do
            [ -e "$f" ] && fail "$name: $cmd left $f behind"
        done
    done
    return 0
}

# scan_fail: as run_fail, through scan only
scan_fail() { CMDS=scan; run_fail "$@"; CMDS=; }

# mk NAME: a fresh good fileset $T/NAME to be broken
mk() { good "$T/$1"; }

# The good fileset works (so the failures below come from the damage alone).
mk ok
"$EPISTREAM" info --bfile "$T/ok" >"$T/ok.out" 2>&1 ||
    { cat "$T/ok.out" >&2; fail "info on a good fileset"; }
"$EPISTREAM" scan --bfile "$T/ok" --out "$T/ok" >"$T/ok.out" 2>&1 ||
    { cat "$T/ok.out" >&2; fail "scan on a good fileset"; }
[ -s "$T/ok.top.tsv" ] || fail "scan on a good fileset wrote no ok.top.tsv"

# ---- missing files ----
for ext in bed bim fam; do
    mk no$ext
    rm "$T/no$ext.$ext"
    run_fail no$ext "$T/no$ext.$ext" "No such file"
done

# ---- .bed ----
mk badmagic; printf 'BED\033\344\000\377\144\222' >"$T/badmagic.bed"
run_fail badmagic "$T/badmagic.bed" "magic number"
mk samplemajor; printf '\154\033\000\033\344\000\377\144\222' >"$T/samplemajor.bed"
run_fail samplemajor "$T/samplemajor.bed" "sample-major"
grep -qF -- "--make-bed" "$T/samplemajor.scan.err" || fail "sample-major: no --make-bed advice"
mk pre10; printf '\033\344\000\377\144\222' >"$T/pre10.bed"
run_fail pre10 "$T/pre10.bed" "pre-1.0"
grep -qF -- "--make-bed" "$T/pre10.scan.err" || fail "pre-1.0: no --make-bed advice"
mk truncated; head -c 8 "$T/ok.bed" >"$T/truncated.bed"
run_fail truncated "$T/truncated.bed" "8 bytes but 3 variants x 8 samples need 9"
mk oversized; printf '\000' >>"$T/oversized.bed"
run_fail oversized "$T/oversized.bed" "10 bytes but 3 variants x 8 samples need 9"
mk emptybed; : >"$T/emptybed.bed"
run_fail emptybed "$T/emptybed.bed" "0 bytes"
# a FIFO as the .bed: refused at once (opening one used to wait for a writer
# forever); timeout turns a hang into exit 124, which run_fail's check rejects
mk fifo; rm "$T/fifo.bed"
if mkfifo "$T/fifo.bed" 2>/dev/null; then
    fifo_check() {
        cmd=$1; shift
        expect_fail "$T/fifo.$cmd.err" timeout 20 "$EPISTREAM" "$cmd" --bfile "$T/fifo" "$@"
        [ "$rc" -eq 1 ] || { cat "$T/fifo.$cmd.err" >&2; fail "fifo: $cmd exit $rc, expected 1"; }
        grep -qF "$T/fifo.bed: not a regular file but a FIFO" "$T/fifo.$cmd.err" ||
            { cat "$T/fifo.$cmd.err" >&2; fail "fifo: $cmd message does not name the FIFO"; }
    }
    fifo_check scan --out "$T/o"
    fifo_check info
    for f in "$T"/o.*; do [ -e "$f" ] && fail "fifo: left $f behind"; done
fi

# ---- .bim ----
mk bimcols; printf '1 rs1 0 100 A G\n1 rs2 0 200 A\n2 rs3 0.5 300 C T\n' >"$T/bimcols.bim"
run_fail bimcols "$T/bimcols.bim" "line 2"
mk bimpos; printf '1 rs1 0 100 A G\n1 rs2 0 2e2 A G\n2 rs3 0.5 300 C T\n' >"$T/bimpos.bim"
run_fail bimpos "$T/bimpos.bim" "'2e2'"
mk bimcm; printf '1 rs1 0 100 A G\n1 rs2 0 200 A G\n2 rs3 cM 300 C T\n' >"$T/bimcm.bim"
run_fail bimcm "$T/bimcm.bim" "line 3"
mk emptybim; : >"$T/emptybim.bim"
run_fail emptybim "$T/emptybim.bim" "no variants"
mk bimextra; echo "3 rs4 0 400 A G" >>"$T/bimextra.bim"
run_fail bimextra "$T/bimextra.bed" "9 bytes but 4 variants x 8 samples need 11"

# ---- .fam ----
mk famcols; sed '3s/$/ extra/' "$T/ok.fam" >"$T/famcols.fam"
run_fail famcols "$T/famcols.fam" "line 3"
mk famvalue; sed '4s/[12]$/case/' "$T/ok.fam" >"$T/famvalue.fam"
run_fail famvalue "$T/famvalue.fam" "line 4"
mk emptyfam; : >"$T/emptyfam.fam"
run_fail emptyfam "$T/emptyfam.fam" "no samples"
mk nocases; sed 's/[12]$/1/' "$T/ok.fam" >"$T/nocases.fam"
# info describes data without a usable phenotype; only scan needs cases and controls
scan_fail nocases "$T/nocases.fam" "no cases"
mk nocontrols; sed 's/[12]$/2/' "$T/ok.fam" >"$T/nocontrols.fam"
scan_fail nocontrols "$T/nocontrols.fam" "no controls"
mk quant; sed 's/[12]$/0.37/' "$T/ok.fam" >"$T/quant.fam"
scan_fail quant "$T/quant.fam" "--pheno"

# ---- phenotype file ----
P=$T/ph.txt
mk pheno
printf 'FID IID T2D\nF1 I1 1\nF2 I2 x\n' >"$P"
run_fail pheno "$P" "'x' is not" --pheno "$P"
# a value other than 1, 2, 0, -9, NA: a quantitative trait (PLINK's rule), too few samples here
printf 'FID IID T2D\nF1 I1 1\nF2 I2 3\n' >"$P"
scan_fail pheno "$P" "need at least 5" --pheno "$P"
printf 'FID IID T2D cad\nF1 I1 1 2\nF2 I2 2 1\n' >"$P"
run_fail pheno "$P" "available: T2D, cad" --pheno "$P" --pheno-name ibd
printf 'F1 I1 1 2\nF2 I2 2\n' >"$P"
run_fail pheno "$P" "line 2" --pheno "$P"
: >"$P"
run_fail pheno "$P" "empty" --pheno "$P"
printf 'F1 I1 1\nF3 I3 1\n' >"$P"
scan_fail pheno "$P" "no cases" --pheno "$P"
rm "$P"
run_fail pheno "$P" "No such file" --pheno "$P"

# ---- suspicious but usable: one warning each, exit 0 ----
mk dup; sed '5s/^F5 I5/F1 I1/' "$T/ok.fam" >"$T/dup.fam"
"$EPISTREAM" info --bfile "$T/dup" >"$T/dup.out" 2>"$T/dup.err" ||
    { cat "$T/dup.err" >&2; fail "duplicate IDs: info failed"; }
if ! grep -qF "$T/dup.fam" "$T/dup.err" || ! grep -q "1 duplicate sample ID" "$T/dup.err"; then
    cat "$T/dup.err" >&2
    fail "duplicate IDs: no warning naming the .fam"
fi
mk dupvar; sed '3s/rs3/rs1/' "$T/ok.bim" >"$T/dupvar.bim"
"$EPISTREAM" scan --bfile "$T/dupvar" --out "$T/dv" >"$T/dupvar.out" 2>"$T/dupvar.err" ||
    { cat "$T/dupvar.err" >&2; fail "duplicate variant IDs: scan failed"; }
if ! grep -qF "$T/dupvar.bim: 1 duplicate variant ID; first: 'rs1' on line 3 (also on line 1)" \
    "$T/dupvar.err"; then
    cat "$T/dupvar.err" >&2
    fail "duplicate variant IDs: no warning naming the .bim and the lines"
fi
# several: the first repeat is the earliest later occurrence, named with its ID's first line
mk dupv3
printf '1 rsA 0 100 A G\n1 rsB 0 200 A G\n1 rsC 0 300 A G\n1 rsB 0 400 A G\n1 rsA 0 500 A G\n1 rsA 0 600 A G\n' \
    >"$T/dupv3.bim"
printf '\154\033\001\033\344\000\377\144\222\033\344\000\377\144\222' >"$T/dupv3.bed"
"$EPISTREAM" info --bfile "$T/dupv3" >"$T/dupv3.out" 2>"$T/dupv3.err" ||
    { cat "$T/dupv3.err" >&2; fail "three duplicate variant IDs: info failed"; }
if ! grep -qF "$T/dupv3.bim: 3 duplicate variant IDs; first: 'rsB' on line 4 (also on line 2)" \
    "$T/dupv3.err"; then
    cat "$T/dupv3.err" >&2
    fail "three duplicate variant IDs: wrong count, first repeat or line"
fi
printf 'F1 I1 2\nF2 I2 1\nX9 Y9 1\n' >"$P"
"$EPISTREAM" scan --bfile "$T/ok" --pheno "$P" --out "$T/u" >"$T/u.out" 2>"$T/u.err" ||
    { cat "$T/u.err" >&2; fail "unknown pheno IDs: scan failed"; }
if ! grep -qF "$P" "$T/u.err" || ! grep -q "1 of 3 samples is not in" "$T/u.err"; then
    cat "$T/u.err" >&2
    fail "unknown pheno IDs: no warning"
fi
if grep -q -E "AddressSanitizer|runtime error|LeakSanitizer" "$T/dup.err" "$T/u.err" \
    "$T/dupvar.err"; then
    cat "$T/dup.err" "$T/u.err" "$T/dupvar.err" >&2
    fail "sanitizer report on a usable fileset"
fi
exit 0
