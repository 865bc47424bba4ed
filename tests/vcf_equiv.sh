#!/bin/sh
# vcf_equiv.sh -- one dataset, five inputs, one answer: a simulated fileset with missing calls
# is written as VCF by plink1.9 (--recode vcf --keep-allele-order: REF = A2, ALT = A1, so the
# ALT dosage is the A1 count), then bgzipped (tabix index) and copied to BCF (CSI index) by
# bcftools, and converted back to .bed by `epistream convert`.  `epistream scan` on the
# .bed, the VCF, the vcf.gz, the BCF and the converted .bed must write byte-identical
# .top.tsv, .sig.tsv and .summary.tsv for boost and chi2; the converted .bed must equal
# the original byte for byte; --region on the indexed files must equal --extract of the
# same variants on the .bed.
. "$(dirname "$0")/lib.sh"
need_cmd plink1.9
need_cmd bcftools
need_cmd bgzip
need_cmd tabix

D=$T/d
# 403 samples: the last .bed byte is partial
"$EPISTREAM" sim --samples 403 --variants 150 --missing 0.02 --pairs 1 --seed 3 --out "$D" \
    >"$T/sim.log" 2>&1 || { cat "$T/sim.log" >&2; fail "sim"; }
plink1.9 --bfile "$D" --recode vcf --keep-allele-order --threads 1 --memory 256 --out "$T/v" \
    >"$T/plink.log" 2>&1 || { cat "$T/plink.log" >&2; fail "plink1.9 --recode vcf"; }
# plink names samples FID_IID; for VCF input FID = IID = that name
awk '{ print $1 "_" $2, $1 "_" $2, $6 }' "$D.fam" >"$T/v.pheno"
bgzip -c "$T/v.vcf" >"$T/v.vcf.gz" || fail "bgzip"
tabix -p vcf "$T/v.vcf.gz" || fail "tabix"
bcftools view -Ob -o "$T/v.bcf" "$T/v.vcf" 2>"$T/bcftools.log" ||
    { cat "$T/bcftools.log" >&2; fail "bcftools view -Ob"; }
bcftools index "$T/v.bcf" || fail "bcftools index"

# the conversion round trip: the same .bed, byte for byte, and the same variant table
"$EPISTREAM" convert --vcf "$T/v.vcf.gz" --pheno "$T/v.pheno" --threads 2 --out "$T/c" \
    >"$T/convert.log" 2>&1 || { cat "$T/convert.log" >&2; fail "convert"; }
grep -q "403 samples, 150 variants written" "$T/convert.log" ||
    { cat "$T/convert.log" >&2; fail "convert: no summary line"; }
cmp "$D.bed" "$T/c.bed" || fail "convert: .bed differs from the original"
cut -f1,2,4-6 "$D.bim" >"$T/orig.bim5"
cut -f1,2,4-6 "$T/c.bim" >"$T/conv.bim5"
cmp "$T/orig.bim5" "$T/conv.bim5" || fail "convert: .bim differs (CHR ID POS A1 A2)"
awk '{ print $6 }' "$D.fam" >"$T/orig.ph"
awk '{ print $6 }' "$T/c.fam" >"$T/conv.ph"
cmp "$T/orig.ph" "$T/conv.ph" || fail "convert: .fam phenotypes differ"

# scan NAME ARGS...: run a scan into $T/NAME.STAT for each statistic
scan() {
    name=$1
    shift
    for stat in boost chi2; do
        "$EPISTREAM" scan "$@" --stat "$stat" --p-threshold 0.05 --top 200 --threads 2 --quiet \
            --out "$T/$name.$stat" >"$T/$name.$stat.err" 2>&1 ||
            { cat "$T/$name.$stat.err" >&2; fail "scan $name ($stat)"; }
    done
}
same() {
    for stat in boost chi2; do
        for f in top.tsv sig.tsv summary.tsv; do
            cmp "$T/$1.$stat.$f" "$T/$2.$stat.$f" || fail "$2 differs from $1: $stat $f"
        done
    done
}

scan bed --bfile "$D"
scan vcf --vcf "$T/v.vcf" --pheno "$T/v.pheno"
scan vcfgz --vcf "$T/v.vcf.gz" --pheno "$T/v.pheno"
scan bcf --vcf "$T/v.bcf" --pheno "$T/v.pheno"
scan conv --bfile "$T/c"
[ "$(wc -l <"$T/bed.boost.top.tsv")" -gt 100 ] || fail "too few pairs in the top list"
[ "$(wc -l <"$T/bed.chi2.sig.tsv")" -gt 1 ] || fail "no significant pairs: nothing compared"
for name in vcf vcfgz bcf conv; do same bed "$name"; done

# --region through the index == --extract of the same variants from the .bed
awk '($1 == 2 && $4 >= 1000000 && $4 <= 3000000) || $1 == 5 { print $2 }' "$D.bim" \
    >"$T/region.ids"
[ "$(wc -l <"$T/region.ids")" -gt 5 ] || fail "region test selects too few variants"
scan rbed --bfile "$D" --extract "$T/region.ids"
scan rvcfgz --vcf "$T/v.vcf.gz" --pheno "$T/v.pheno" --region 5 --region 2:1000000-3000000 \
    --region 2:1500000-2000000
scan rbcf --vcf "$T/v.bcf" --pheno "$T/v.pheno" --region 2:1000000-3000000 --region 5
same rbed rvcfgz
same rbed rbcf
exit 0
