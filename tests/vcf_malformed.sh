#!/bin/sh
# vcf_malformed.sh -- bad VCF/BCF input through the command line: `scan`, `info` and
# `convert` must exit 1 (not crash), print an [E::] message naming the offending file (and
# the line and CHR:POS for a bad record), and leave no output file behind.  Input that is
# only partly usable (some records without GT, phenotype IDs not in the VCF) must warn and
# still work.  Fixtures are written here, 4 samples x 3 records.
. "$(dirname "$0")/lib.sh"
need_cmd bgzip

HDR='##fileformat=VCFv4.2
##contig=<ID=1,length=10000>
##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">
##FORMAT=<ID=DP,Number=1,Type=Integer,Description="Depth">'
COLS=$(printf '#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tA\tB\tC\tD')
# rec POS ID FORMAT CALLS...: one tab-separated record on contig 1
rec() {
    pos=$1 id=$2 fmt=$3
    shift 3
    printf '1\t%s\t%s\tA\tG\t.\tPASS\t.\t%s' "$pos" "$id" "$fmt"
    for c in "$@"; do printf '\t%s' "$c"; done
    printf '\n'
}
# vcf NAME RECORDS: $T/NAME.vcf with the header and RECORDS (a string of records)
vcf() { printf '%s\n%s\n%s' "$HDR" "$COLS" "$2" >"$T/$1.vcf"; }
GOOD1=$(rec 100 r1 GT 0/0 0/1 1/1 0/1)
GOOD2=$(rec 200 r2 GT 0/1 0/1 0/0 1/1)
GOOD3=$(rec 300 r3 GT 1/1 0/0 0/1 ./.)
P=$T/ph.txt
printf 'A A 1\nB B 2\nC C 1\nD D 2\n' >"$P"

# run_fail NAME FILE TEXT [args]: scan, info and convert on $T/NAME.vcf fail with exit 1, an
# [E::] message naming FILE and containing TEXT, and no $T/o.* left behind
run_fail() {
    name=$1 file=$2 text=$3
    shift 3
    for cmd in scan info convert; do
        err=$T/$name.$cmd.err
        case $cmd in
        scan) expect_fail "$err" "$EPISTREAM" scan --vcf "$T/$name.vcf" --pheno "$P" \
            --out "$T/o" "$@" ;;
        info) expect_fail "$err" "$EPISTREAM" info --vcf "$T/$name.vcf" "$@" ;;
        convert) expect_fail "$err" "$EPISTREAM" convert --vcf "$T/$name.vcf" --out "$T/o" "$@" ;;
        esac
        # shellcheck disable=SC2154  # rc is set by expect_fail (tests/lib.sh)
        [ "$rc" -eq 1 ] || { cat "$err" >&2; fail "$name: $cmd exit $rc, expected 1"; }
        grep -q '\[E::' "$err" || { cat "$err" >&2; fail "$name: $cmd printed no [E::] error"; }
        grep -qF "$file" "$err" ||
            { cat "$err" >&2; fail "$name: $cmd message does not name $file"; }
        grep -qF -- "$text" "$err" || { cat "$err" >&2; fail "$name: $cmd message lacks '$text'"; }
        for f in "$T"/o.*; do
            [ -e "$f" ] && fail "$name: $cmd left $f behind"
        done
    done
    return 0
}

# The good file works with all three (so each failure below comes from the damage alone).
vcf ok "$GOOD1
$GOOD2
$GOOD3
"
"$EPISTREAM" info --vcf "$T/ok.vcf" >"$T/ok.out" 2>&1 || { cat "$T/ok.out" >&2; fail "info ok"; }
"$EPISTREAM" scan --vcf "$T/ok.vcf" --pheno "$P" --out "$T/ok" >"$T/ok.out" 2>&1 ||
    { cat "$T/ok.out" >&2; fail "scan ok"; }
[ -s "$T/ok.top.tsv" ] || fail "scan on a good VCF wrote no ok.top.tsv"
"$EPISTREAM" convert --vcf "$T/ok.vcf" --out "$T/ok" >"$T/ok.out" 2>&1 ||
    { cat "$T/ok.out" >&2; fail "convert ok"; }
for ext in bed bim fam; do [ -s "$T/ok.$ext" ] || fail "convert wrote no ok.$ext"; done

# ---- malformed records: file, line, CHR:POS and what was wrong ----
vcf badgt "$GOOD1
$(rec 200 r2 GT 0/1 0/x 0/0 1/1)
$GOOD3
"
run_fail badgt "$T/badgt.vcf" "line 7 (record 2, 1:200): sample B (column 11): GT '0/x'"
vcf badpos "$GOOD1
$(rec 2x0 r2 GT 0/1 0/1 0/0 1/1)
"
run_fail badpos "$T/badpos.vcf" "POS (column 2) '2x0'"
vcf fewcols "$GOOD1
$GOOD2
$(rec 300 r3 GT 0/1 0/1 0/0)
"
run_fail fewcols "$T/fewcols.vcf" \
    "line 8 (record 3, 1:300): expected 13 columns (9 + 4 samples) but found 12"
vcf allele "$(rec 100 r1 GT 0/0 0/3 1/1 0/1)
"
run_fail allele "$T/allele.vcf" "GT '0/3' has allele 3"
# a bgzipped file cut short
vcf trunc "$GOOD1
$GOOD2
$GOOD3
"
bgzip -c "$T/trunc.vcf" | head -c 150 >"$T/trunc.vcf.gz"
mv "$T/trunc.vcf.gz" "$T/trunc.vcf" # name it .vcf: the content decides, not the name
run_fail trunc "$T/trunc.vcf" "trunc.vcf"

# ---- no usable data ----
vcf nogt "$(rec 100 r1 DP 1 2 3 4)
$(rec 200 r2 DP 1 2 3 4)
"
run_fail nogt "$T/nogt.vcf" "none of the 2 records is a biallelic site with diploid GT calls"
vcf empty ""
run_fail empty "$T/empty.vcf" "no variant records"
printf '%s\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n1\t5\t.\tA\tG\t.\t.\t.\n' "$HDR" \
    >"$T/sites.vcf"
run_fail sites "$T/sites.vcf" "no samples"
printf 'not a vcf\n' >"$T/text.vcf"
run_fail text "$T/text.vcf" "not a VCF or BCF"
rm -f "$T/gone.vcf"
run_fail gone "$T/gone.vcf" "No such file"

# ---- selection and regions ----
printf 'X X\nY Y\n' >"$T/keep.txt"
run_fail ok "$T/keep.txt" "no samples left" --keep "$T/keep.txt"
run_fail ok "$T/ok.vcf" "--region needs an index" --region 1:1-200
bgzip -c "$T/ok.vcf" >"$T/okgz.vcf" # bgzipped but not indexed
run_fail okgz "$T/okgz.vcf" "bcftools index" --region 1:1-200
if command -v bcftools >/dev/null 2>&1; then
    bcftools index "$T/okgz.vcf" 2>/dev/null || fail "bcftools index"
    run_fail okgz "$T/okgz.vcf" "bad region '1:300-200'" --region 1:300-200
    run_fail okgz "$T/okgz.vcf" "bad region '1:x-5'" --region 1:1-50 --region 1:x-5
    # a region that exists works, and only its records are read
    "$EPISTREAM" info --vcf "$T/okgz.vcf" --region 1:150-250 >"$T/reg.out" 2>&1 ||
        { cat "$T/reg.out" >&2; fail "info --region"; }
    grep -q "^variants	1$" "$T/reg.out" ||
        { cat "$T/reg.out" >&2; fail "--region read the wrong records"; }
fi

# ---- usage errors are exit 2 ----
"$EPISTREAM" convert --vcf "$T/ok.vcf" >"$T/u.err" 2>&1
[ $? -eq 2 ] || fail "convert without --out: expected exit 2"
"$EPISTREAM" convert --vcf "$T/ok.vcf" --bfile "$T/ok" --out "$T/o" >"$T/u.err" 2>&1
[ $? -eq 2 ] || fail "convert with --vcf and --bfile: expected exit 2"
"$EPISTREAM" convert --vcf "$T/ok.vcf" --out "$T/o" --threads x >"$T/u.err" 2>&1
[ $? -eq 2 ] || fail "convert --threads x: expected exit 2"
"$EPISTREAM" convert --help | grep -q "Usage: epistream convert" || fail "convert --help"

# ---- partly usable: warn, count, and work ----
vcf partial "$GOOD1
$(rec 150 r15 DP 1 2 3 4)
$(printf '1\t160\tm\tA\tG,T\t.\tPASS\t.\tGT\t0/1\t1/2\t0/0\t0/0')
$(rec 170 h GT 0 1 0/1 1/1)
$GOOD2
$GOOD3
"
"$EPISTREAM" convert --vcf "$T/partial.vcf" --vcf-multiallelic skip --out "$T/part" \
    >"$T/part.out" 2>&1 || { cat "$T/part.out" >&2; fail "convert on a partly usable VCF"; }
for w in "skipped 1 of 6 records with more than two alleles" \
    "skipped 1 record without a GT field (first at 1:150)" \
    "set 2 haploid calls at diploid sites to missing (first at 1:170, sample A)" \
    "4 variants written" "6 VCF records, skipped 1 with more than two alleles, 1 without GT"; do
    grep -qF "$w" "$T/part.out" || { cat "$T/part.out" >&2; fail "partial: no '$w'"; }
done
[ "$(wc -l <"$T/part.bim")" -eq 4 ] || fail "partial: expected 4 variants in the .bim"
# the default splits the G,T record into two variants, both named m (its ID)
"$EPISTREAM" convert --vcf "$T/partial.vcf" --out "$T/part2" --verbose >"$T/part2.out" 2>&1 ||
    { cat "$T/part2.out" >&2; fail "convert (split) on a partly usable VCF"; }
for w in "split 1 of 6 records with more than two alleles into 2 biallelic variants" \
    "6 variants written" \
    "6 VCF records, 1 with more than two alleles split into 2 variants, skipped 1 without GT"; do
    grep -qF "$w" "$T/part2.out" || { cat "$T/part2.out" >&2; fail "partial, split: no '$w'"; }
done
printf '1\tm\t0\t160\tG\tA\n1\tm\t0\t160\tT\tA\n' >"$T/m.bim"
awk -F'\t' '$2 == "m"' "$T/part2.bim" | cmp -s - "$T/m.bim" || fail "partial, split: the two .bim lines"
# the scan's log says what became of them, split or skipped
for m in split skip; do
    "$EPISTREAM" scan --vcf "$T/partial.vcf" --pheno "$P" --vcf-multiallelic $m --out "$T/ps_$m" \
        --quiet || fail "scan --vcf-multiallelic $m"
    grep -q "^vcf_multiallelic	$m$" "$T/ps_$m.log" || fail "scan log: vcf_multiallelic $m"
    grep -q "^vcf_multiallelic_records	1$" "$T/ps_$m.log" || fail "scan log ($m): records"
done
grep -q "^vcf_split_variants	2$" "$T/ps_split.log" || fail "scan log: vcf_split_variants"
[ "$(grep -c . "$T/ps_split.summary.tsv")" -eq 7 ] || fail "scan (split): 6 variants expected"
# malformed or misplaced --vcf-multiallelic: usage errors naming the option
"$EPISTREAM" convert --vcf "$T/partial.vcf" --vcf-multiallelic both --out "$T/o" >"$T/u.err" 2>&1
[ $? -eq 2 ] && grep -qF -- "--vcf-multiallelic: expected split or skip, got 'both'" "$T/u.err" ||
    { cat "$T/u.err" >&2; fail "--vcf-multiallelic both"; }
"$EPISTREAM" info --bfile "$T/part" --vcf-multiallelic skip >"$T/u.err" 2>&1
[ $? -eq 2 ] && grep -qF -- "--vcf-multiallelic goes with --vcf" "$T/u.err" ||
    { cat "$T/u.err" >&2; fail "--vcf-multiallelic with --bfile"; }
# a GT allele beyond a multi-allelic site's alleles is malformed (a split record is parsed)
vcf badmulti "$GOOD1
$(printf '1\t160\tm\tA\tG,T\t.\tPASS\t.\tGT\t0/1\t1/3\t0/0\t0/0')"
run_fail badmulti "$T/badmulti.vcf" "GT '1/3' has allele 3 but the site has 3 alleles (REF and 2 ALTs)"
printf 'A A 1\nB B 2\nC C 1\nD D 2\nZ Z 2\n' >"$T/ph2.txt"
"$EPISTREAM" scan --vcf "$T/ok.vcf" --pheno "$T/ph2.txt" --out "$T/u" >"$T/u.out" 2>&1 ||
    { cat "$T/u.out" >&2; fail "unknown phenotype IDs: scan failed"; }
if ! grep -qF "$T/ph2.txt" "$T/u.out" || ! grep -q "not in" "$T/u.out"; then
    cat "$T/u.out" >&2
    fail "unknown phenotype IDs: no warning naming the phenotype file"
fi
# duplicate variant IDs: one warning, located by CHR:POS
vcf dupid "$GOOD1
$(rec 200 r1 GT 0/1 0/1 0/0 1/1)
$GOOD3
"
"$EPISTREAM" scan --vcf "$T/dupid.vcf" --pheno "$P" --out "$T/d" >"$T/dupid.out" 2>&1 ||
    { cat "$T/dupid.out" >&2; fail "duplicate variant IDs: scan failed"; }
grep -qF "$T/dupid.vcf: 1 duplicate variant ID; first: 'r1' at 1:200 (also at 1:100)" \
    "$T/dupid.out" || { cat "$T/dupid.out" >&2; fail "duplicate variant IDs: no warning"; }
# a BCF record whose length field claims gigabytes (a fuzzing find: htslib would
# allocate 3.6 GB for this 754-byte file): refused before htslib allocates it
# (with decompression threads, htslib reads ahead and stops at the file's damaged
# last block first: still exit 1 and the file named; one thread, the length)
cp "$ES_SRCDIR/tests/fuzz/corpus/vcf/bcf-length-oom.bcf" "$T/biglen.vcf"
for cmd in "info --vcf $T/biglen.vcf" "scan --threads 1 --vcf $T/biglen.vcf --pheno $P --out $T/o" \
    "convert --threads 1 --vcf $T/biglen.vcf --out $T/o" "scan --threads 2 --vcf $T/biglen.vcf --pheno $P --out $T/o"; do
    # shellcheck disable=SC2086  # $cmd: the command's words
    expect_fail "$T/biglen.err" "$EPISTREAM" $cmd
    [ "$rc" -eq 1 ] || { cat "$T/biglen.err" >&2; fail "biglen: $cmd: exit $rc, expected 1"; }
    grep -qF "$T/biglen.vcf" "$T/biglen.err" || { cat "$T/biglen.err" >&2; fail "biglen: $cmd: file not named"; }
    case $cmd in *"--threads 2"*) ;; *)
        grep -qF "record 6 claims 3637282959 bytes, more than the whole file can hold" "$T/biglen.err" ||
            { cat "$T/biglen.err" >&2; fail "biglen: $cmd: no message about the record's length"; } ;;
    esac
    for f in "$T"/o.*; do [ -e "$f" ] && fail "biglen: $cmd left $f behind"; done
done
# a damaged compressed block after five good records, a record claiming gigabytes
# after it: the damage is the error (the length check must not read past it)
cp "$ES_SRCDIR/tests/fuzz/corpus/vcf/bcf-corrupt-block.bcf" "$T/badblock.vcf"
expect_fail "$T/badblock.err" "$EPISTREAM" convert --threads 1 --vcf "$T/badblock.vcf" --out "$T/o"
[ "$rc" -eq 1 ] || { cat "$T/badblock.err" >&2; fail "badblock: exit $rc, expected 1"; }
grep -qF "$T/badblock.vcf: read error after record 5 (1:200)" "$T/badblock.err" ||
    { cat "$T/badblock.err" >&2; fail "badblock: no read error after record 5"; }
for f in "$T"/o.*; do [ -e "$f" ] && fail "badblock: left $f behind"; done

# the same check on the --region path (the index iterator reads the records):
# an indexed BCF (tests/data/make_bcf_region.py) whose 12th record, at 1:12000,
# claims gigabytes; regions before it read, regions reaching it refused
cp "$ES_SRCDIR/tests/data/bcf-region-length.bcf" "$T/reglen.bcf"
cp "$ES_SRCDIR/tests/data/bcf-region-length.bcf.csi" "$T/reglen.bcf.csi"
"$EPISTREAM" info --vcf "$T/reglen.bcf" --region 1:1000-5000 --region 1:30000-35000 >"$T/reglen.out" 2>&1 ||
    { cat "$T/reglen.out" >&2; fail "reglen: regions before the bad record failed"; }
grep -q "^variants	11$" "$T/reglen.out" || { cat "$T/reglen.out" >&2; fail "reglen: expected 11 variants"; }
for spec in "1:9000-20000|the record after 1:11000 (region 1:9000-20000) claims 3637313547 bytes" \
    "1:12000-20000|a record read for region 1:12000-20000 claims 3637313547 bytes"; do
    reg=${spec%%|*} msg=${spec#*|}
    for cmd in "info --vcf $T/reglen.bcf" "convert --threads 1 --vcf $T/reglen.bcf --out $T/o" \
        "scan --threads 2 --vcf $T/reglen.bcf --pheno $P --out $T/o"; do
        # shellcheck disable=SC2086  # $cmd: the command's words
        expect_fail "$T/reglen.err" "$EPISTREAM" $cmd --region "$reg"
        [ "$rc" -eq 1 ] || { cat "$T/reglen.err" >&2; fail "reglen: $cmd --region $reg: exit $rc, expected 1"; }
        grep -qF "$T/reglen.bcf: corrupt BCF: $msg" "$T/reglen.err" ||
            { cat "$T/reglen.err" >&2; fail "reglen: $cmd --region $reg: no message about the length"; }
        for f in "$T"/o.*; do [ -e "$f" ] && fail "reglen: $cmd left $f behind"; done
    done
done
if grep -q -E "AddressSanitizer|runtime error|LeakSanitizer" "$T/part.out" "$T/u.out" \
    "$T/dupid.out"; then
    cat "$T/part.out" "$T/u.out" "$T/dupid.out" >&2
    fail "sanitizer report on usable input"
fi
exit 0
