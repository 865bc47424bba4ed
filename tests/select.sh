#!/bin/sh
# select.sh -- sample and variant selection through `epistream scan` equals the same selection
# made by plink1.9 (--keep/--remove/--extract/--exclude/--chr/--maf/--geno ... --make-bed) and
# scanned as a plain fileset: .top.tsv and .summary.tsv byte-identical, and the --geno/--maf
# counts in the log equal PLINK's; the same selection on a VCF of the data gives the same
# files.  Every simulated sample has a phenotype, so PLINK's frequency base (all remaining
# samples) is ours (the samples used).  Both apply --geno
# before --maf; the order changes only the counts, not the variants kept.
# Then the failures: unreadable lists, empty selections, a bad --chr, unparsable phenotypes,
# --vcf without --pheno: exit 1, a message naming the file, no output left behind; and
# unknown IDs in a list: a counted warning, exit 0.
. "$(dirname "$0")/lib.sh"
need_cmd plink1.9

D=$T/d
"$EPISTREAM" sim --samples 400 --variants 150 --missing 0.03 --seed 5 --out "$D" \
    >"$T/sim.out" 2>&1 || { cat "$T/sim.out" >&2; fail "epistream sim"; }

# lists made from the fileset itself (FID IID per line; variant IDs)
awk 'NR % 5 != 0 { print $1, $2 }' "$D.fam" >"$T/keep"
awk 'NR % 13 == 0 { print $1, $2 }' "$D.fam" >"$T/remove"
awk 'NR % 4 != 0 { print $2 }' "$D.bim" >"$T/extract"
awk 'NR % 9 == 0 { print $2 }' "$D.bim" >"$T/exclude"

# check NAME OPTIONS...: scan with OPTIONS == scan of the PLINK selection made with OPTIONS
check() {
    name=$1
    shift
    plink1.9 --bfile "$D" "$@" --keep-allele-order --allow-no-sex --make-bed --threads 1 \
        --memory 512 --out "$T/$name.sel" >"$T/$name.plink.out" 2>&1 ||
        { cat "$T/$name.plink.out" >&2; fail "$name: plink1.9 --make-bed $*"; }
    "$EPISTREAM" scan --bfile "$T/$name.sel" --threads 2 --quiet --out "$T/$name.ref" \
        >"$T/$name.ref.out" 2>&1 ||
        { cat "$T/$name.ref.out" >&2; fail "$name: scan of PLINK's selection"; }
    "$EPISTREAM" scan --bfile "$D" "$@" --threads 2 --verbose --out "$T/$name.es" \
        >"$T/$name.es.out" 2>&1 || { cat "$T/$name.es.out" >&2; fail "$name: scan $*"; }
    for f in top.tsv summary.tsv; do
        cmp "$T/$name.ref.$f" "$T/$name.es.$f" ||
            fail "$name: $f of 'scan $*' differs from the scan of plink1.9's selection"
    done
    [ "$(wc -l <"$T/$name.es.summary.tsv")" -eq "$(($(wc -l <"$T/$name.sel.bim") + 1))" ] ||
        fail "$name: summary has not one line per selected variant"
    # the per-filter counts agree with PLINK's log
    for opt in geno maf; do
        case " $* " in *" --$opt "*) ;; *) continue ;; esac
        if [ $opt = geno ]; then pat='removed due to missing genotype data'
        else pat='removed due to minor allele threshold'; fi
        want=$(grep "$pat" "$T/$name.plink.out" | awk '{ print $1 }')
        got=$(grep "\[I::.*--$opt .*variants removed" "$T/$name.es.out" |
            sed 's/.*: \([0-9,]*\) variants removed.*/\1/')
        if [ -z "$want" ] || [ "$want" != "$got" ]; then
            fail "$name: --$opt removed '$got' variants, plink1.9 '$want'"
        fi
    done
    echo "$name: $(($(wc -l <"$T/$name.sel.bim"))) variants," \
        "$(wc -l <"$T/$name.sel.fam") samples: same as plink1.9"
}

check keep --keep "$T/keep"
check remove --remove "$T/remove"
check lists --extract "$T/extract" --exclude "$T/exclude"
check chr --chr 1-10,15
check maf --maf 0.15
check geno --geno 0.03
check all --keep "$T/keep" --remove "$T/remove" --extract "$T/extract" --exclude "$T/exclude" \
    --chr 2-20 --maf 0.12 --geno 0.035
# the filters did something in the combined case
[ "$(wc -l <"$T/all.sel.bim")" -lt 100 ] || fail "all: the selection kept too much to test"

# VCF input (plink1.9 --recode vcf-iid of the same data; FID = IID = the sample name, which
# the simulated FIDs equal): the same options give the same results as on the fileset
plink1.9 --bfile "$D" --recode vcf-iid --keep-allele-order --threads 1 --memory 512 \
    --out "$T/v" >"$T/v.plink.out" 2>&1 ||
    { cat "$T/v.plink.out" >&2; fail "plink1.9 --recode vcf-iid"; }
awk '{ print $2, $6 }' "$D.fam" >"$T/v.pheno"
"$EPISTREAM" scan --vcf "$T/v.vcf" --pheno "$T/v.pheno" --keep "$T/keep" --remove "$T/remove" \
    --extract "$T/extract" --exclude "$T/exclude" --chr 2-20 --maf 0.12 --geno 0.035 \
    --threads 2 --quiet --out "$T/vcf" >"$T/vcf.out" 2>&1 ||
    { cat "$T/vcf.out" >&2; fail "scan --vcf with a selection"; }
for f in top.tsv summary.tsv; do
    cmp "$T/all.ref.$f" "$T/vcf.$f" || fail "VCF: $f of the selection differs from the fileset's"
done

# IID-only lists (not PLINK 1.9 syntax): the same samples as the FID IID list
awk '{ print $2 }' "$T/keep" >"$T/keep.iid"
"$EPISTREAM" scan --bfile "$D" --keep "$T/keep.iid" --threads 2 --quiet --out "$T/iid" ||
    fail "scan --keep IID-only list"
for f in top.tsv summary.tsv; do
    cmp "$T/keep.ref.$f" "$T/iid.$f" || fail "IID-only --keep: $f differs from FID IID --keep"
done

# chromosome aliases: chr3 and 3 are the same chromosome
"$EPISTREAM" scan --bfile "$D" --chr chr3,4 --quiet --out "$T/c1" || fail "scan --chr chr3,4"
"$EPISTREAM" scan --bfile "$D" --chr 3-4 --quiet --out "$T/c2" || fail "scan --chr 3-4"
cmp "$T/c1.top.tsv" "$T/c2.top.tsv" || fail "--chr chr3,4 differs from --chr 3-4"

# --pheno "IID value" (no header, two fields) gives the .fam column 6 result
awk '{ print $2, $6 }' "$D.fam" >"$T/pheno.iid"
"$EPISTREAM" scan --bfile "$D" --pheno "$T/pheno.iid" --quiet --out "$T/p1" ||
    fail "--pheno IID file"
"$EPISTREAM" scan --bfile "$D" --quiet --out "$T/p0" || fail "scan"
cmp "$T/p0.top.tsv" "$T/p1.top.tsv" || fail "--pheno 'IID value' differs from .fam column 6"

# unknown IDs in lists: one counted warning each, and the scan runs
{ cat "$T/keep"; echo "NOFAM NOIND"; echo "NOIND2"; } >"$T/keep.unk"
{ cat "$T/extract"; echo "rs_missing"; } >"$T/extract.unk"
"$EPISTREAM" scan --bfile "$D" --keep "$T/keep.unk" --extract "$T/extract.unk" \
    --out "$T/unk" >/dev/null 2>"$T/unk.err" ||
    { cat "$T/unk.err" >&2; fail "unknown IDs must not fail"; }
grep -q "\[W::.*keep.unk: 2 of .* listed samples are not in" "$T/unk.err" ||
    { cat "$T/unk.err" >&2; fail "no counted warning for unknown sample IDs"; }
grep -q "\[W::.*extract.unk: 1 of .* listed variant IDs is not in" "$T/unk.err" ||
    { cat "$T/unk.err" >&2; fail "no counted warning for unknown variant IDs"; }

# ---- failures: exit 1, [E::] naming FILE with TEXT, no output files ----
# bad NAME FILE TEXT ARGS...
bad() {
    name=$1 file=$2 text=$3
    shift 3
    expect_fail "$T/$name.err" "$EPISTREAM" scan "$@" --out "$T/bad"
    # shellcheck disable=SC2154  # rc is set by expect_fail (tests/lib.sh)
    [ "$rc" -eq 1 ] || { cat "$T/$name.err" >&2; fail "$name: exit $rc, expected 1"; }
    grep -q '\[E::' "$T/$name.err" ||
        { cat "$T/$name.err" >&2; fail "$name: no [E::] message"; }
    grep -qF -- "$file" "$T/$name.err" ||
        { cat "$T/$name.err" >&2; fail "$name: message does not name $file"; }
    grep -qF -- "$text" "$T/$name.err" ||
        { cat "$T/$name.err" >&2; fail "$name: message lacks '$text'"; }
    for f in "$T"/bad.*; do
        [ -e "$f" ] && fail "$name: left $f behind"
    done
    return 0
}
bad keep_missing "$T/nope" "No such file" --bfile "$D" --keep "$T/nope"
bad extract_dir "$T" "directory" --bfile "$D" --extract "$T"
echo "nobody here" >"$T/keep.none"
bad keep_none "$T/keep.none" "no samples left" --bfile "$D" --keep "$T/keep.none"
echo "rs_none" >"$T/extract.none"
bad extract_none "$D" "no variants left" --bfile "$D" --extract "$T/extract.none"
bad chr_none "$D" "no variants left" --bfile "$D" --chr 23-26
bad chr_bad "4-2" "runs backwards" --bfile "$D" --chr 4-2
bad maf_all "$D" "by --maf" --bfile "$D" --maf 0.5 --extract "$T/extract"
# only the cases kept: no controls
awk '$6 == 2 { print $1, $2 }' "$D.fam" >"$T/keep.cases"
bad keep_cases "$D.fam" "no controls" --bfile "$D" --keep "$T/keep.cases"
# phenotype files
{
    echo "FID IID T2D"
    awk 'NR <= 3 { print $1, $2, 1 } NR == 4 { print $1, $2, "case" }' "$D.fam"
} >"$T/pheno.bad"
bad pheno_bad "$T/pheno.bad" "line 5" --bfile "$D" --pheno "$T/pheno.bad"
grep -qF "'case'" "$T/pheno_bad.err" || fail "pheno_bad: message does not show the value"
awk '{ print $2, "x" }' "$D.fam" >"$T/pheno.iidbad"
bad pheno_iidbad "$T/pheno.iidbad" "read as 'IID value'" --bfile "$D" --pheno "$T/pheno.iidbad"
bad pheno_missing "$T/nope.pheno" "No such file" --bfile "$D" --pheno "$T/nope.pheno"
# a VCF has no phenotype: --pheno is required (checked before the VCF is read)
bad vcf_nopheno "$T/v.vcf" "--pheno" --vcf "$T/v.vcf"
exit 0
