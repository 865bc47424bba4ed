#!/bin/sh
# plink_flags.sh -- PLINK 1.9's flags as epistream takes them: malformed values
# exit 2 (usage) with a message naming the option, data that cannot satisfy
# them exit 1 naming the file, PLINK flags epistream lacks get "PLINK's --X is
# not supported; ...", and --mind, --hwe, --hwe-all, --snps, --from/--to,
# --mpheno and --1 keep the samples and variants plink1.9 keeps (the same
# .bed/.bim/.fam from 'epistream convert' as from 'plink1.9 --make-bed'), on
# a fileset with chrX, chrY, chrMT, both sexes, unknown sex and non-founders.
# The plink1.9 part is skipped (77) where plink1.9 is not installed.
. "$(dirname "$0")/lib.sh"

# ---- a fileset: simulated genotypes with missing calls, reshaped -----------
"$EPISTREAM" sim --samples 300 --variants 400 --missing 0.04 --seed 5 --out "$T/s" \
    >/dev/null 2>&1 || fail "sim"
# chromosomes 1 (200), 2 (100), X (50), Y (25), MT (25), positions rising
awk 'BEGIN { OFS = "\t" }
     { c = NR <= 200 ? "1" : NR <= 300 ? "2" : NR <= 350 ? "X" : NR <= 375 ? "Y" : "MT"
       if (c != last) { p = 0; last = c }; p += 1000 + NR; $1 = c; $4 = p; print }' \
    "$T/s.bim" >"$T/d.bim"
# sex 1, 2 and 0 in turn; every 7th sample has a father in the file
awk '{ $5 = (NR - 1) % 3; if (NR % 7 == 4) $3 = "ind1"; print }' "$T/s.fam" >"$T/d.fam"
cp "$T/s.bed" "$T/d.bed"
# phenotypes coded 0/1 in .fam column 6 (for --1), with a few 2s and -9s
awk '{ $6 = $6 == 2 ? 1 : $6 == 1 ? 0 : $6; if (NR % 17 == 0) $6 = 2; if (NR % 19 == 0) $6 = -9
       print }' "$T/d.fam" >"$T/o.fam"
cp "$T/d.bim" "$T/o.bim"
cp "$T/d.bed" "$T/o.bed"
# a phenotype file with a header and three columns (for --mpheno, --pheno-name)
awk 'BEGIN { print "FID IID A B C" }
     { print $1, $2, (NR % 3 == 0 ? -9 : 1 + NR % 2), 1 + int(NR / 7) % 2, NR % 4 == 0 ? 2 : NR % 2 }' \
    "$T/d.fam" >"$T/ph.txt"

# ---- malformed values and combinations: exit 2, the option named ----------
# usage_fail TEXT ARGS...: exit 2 and TEXT on stderr
usage_fail() {
    text=$1
    shift
    expect_fail "$T/err" "$EPISTREAM" "$@"
    # shellcheck disable=SC2154  # rc is set by expect_fail (tests/lib.sh)
    [ "$rc" -eq 2 ] || { cat "$T/err" >&2; fail "$*: exit $rc, expected 2"; }
    grep -qF -- "$text" "$T/err" || { cat "$T/err" >&2; fail "$*: no '$text' in the message"; }
}
B="--bfile $T/d"
# shellcheck disable=SC2086  # $B is two words on purpose
{
    usage_fail "--mind: must be in [0, 1], got 2" convert $B --mind 2 --out "$T/x"
    usage_fail "--mind: expected a number" convert $B --mind abc --out "$T/x"
    usage_fail "PLINK's --mind without a value means 0.1" convert $B --mind --geno 0.1 --out "$T/x"
    usage_fail "option '--mind' needs a value" info $B --mind
    usage_fail "--hwe: must be in [0, 1), got -1" scan $B --hwe -1 --out "$T/x"
    usage_fail "--hwe: must be in [0, 1), got 1" scan $B --hwe 1 --out "$T/x"
    usage_fail "'include-nonctrl' is --hwe-all" scan $B --hwe include-nonctrl --out "$T/x"
    usage_fail "--mpheno: expected an integer" scan $B --pheno "$T/ph.txt" --mpheno 0 --out "$T/x"
    usage_fail "--mpheno needs --pheno" scan $B --mpheno 2 --out "$T/x"
    usage_fail "give one of --mpheno and --pheno-name" info $B --pheno "$T/ph.txt" --mpheno 2 --pheno-name B
    usage_fail "--snps: expected variant IDs" info $B --snps ','
    usage_fail "--from/--to pick their own chromosome" info $B --from snp1 --chr 1
    usage_fail "give --snps or --from/--to" info $B --snps snp1 --to snp5
    usage_fail "--memory: expected an integer" scan $B --memory 0 --out "$T/x"
    usage_fail "--memory: expected an integer" scan $B --memory 1G --out "$T/x"
    # PLINK flags epistream lacks, and options of another subcommand
    usage_fail "PLINK's --fast-epistasis is not supported; 'epistream scan' computes BOOST" \
        convert $B --fast-epistasis --out "$T/x"
    usage_fail "PLINK's --assoc is not supported" scan $B --assoc --out "$T/x"
    usage_fail "PLINK's --make-bed is not supported; use 'epistream convert" scan $B --make-bed --out "$T/x"
    usage_fail "PLINK's --parallel is not supported" scan $B --parallel 1 4 --out "$T/x"
    usage_fail "PLINK's --from-bp is not supported; use --from/--to" info $B --from-bp 100
    usage_fail "PLINK's --file is not supported" info --file "$T/d"
    usage_fail "--memory is not an option of sim" sim --samples 10 --variants 10 --memory 100 --out "$T/x"
    usage_fail "--to is not an option of select" select $B --to snp3
    # PLINK's --fast-epistasis thresholds
    usage_fail "--epi1: must be in [0, 1], got 2" scan $B --epi1 2 --out "$T/x"
    usage_fail "--epi1: expected a number" scan $B --epi1 abc --out "$T/x"
    usage_fail "--epi2: must be in [0, 1], got -0.1" scan $B --epi2 -0.1 --out "$T/x"
    usage_fail "--epi2: expected a number" scan $B --epi2 1e-3x --out "$T/x"
    usage_fail "option '--epi2' needs a value" scan $B --out "$T/x" --epi2
    usage_fail "--format plink lists pairs by p-value; --stat k2 has none" \
        scan $B --stat k2 --format plink --out "$T/x"
    usage_fail "--format plink lists pairs by p-value" scan $B --stat k2 --plink-compat --out "$T/x"
    usage_fail "--epi2 needs a statistic with a p-value; k2 has none" \
        scan $B --stat k2 --epi2 0.1 --out "$T/x"
    usage_fail "--epi1 is not an option of select" select $B --epi1 0.1
    usage_fail "unknown or ambiguous option '--no-such-flag'" info $B --no-such-flag
}
grep -q "^Usage: epistream info" "$T/err" || fail "an unknown option should print the usage"
# flags that are accepted as they are
"$EPISTREAM" info $B --allow-no-sex >"$T/out" 2>&1 || { cat "$T/out" >&2; fail "--allow-no-sex"; }
"$EPISTREAM" scan $B --memory 64 --snps snp1-snp30 --out "$T/m" >"$T/out" 2>&1 ||
    { cat "$T/out" >&2; fail "scan --memory 64"; }
# ---- values the data cannot satisfy: exit 1, the file or the ID named -------
# data_fail TEXT ARGS...: exit 1 and TEXT on stderr, no output left
data_fail() {
    text=$1
    shift
    expect_fail "$T/err" "$EPISTREAM" convert --bfile "$T/d" --out "$T/bad" "$@"
    [ "$rc" -eq 1 ] || { cat "$T/err" >&2; fail "$*: exit $rc, expected 1"; }
    grep -qF -- "$text" "$T/err" || { cat "$T/err" >&2; fail "$*: no '$text' in the message"; }
    [ ! -e "$T/bad.bed" ] || fail "$*: left $T/bad.bed"
}
data_fail "--snps: variant 'nosuch' is not in $T/d.bim" --snps snp1-snp5,nosuch
data_fail "'snp5' is on chromosome 1, which --chr leaves out" --snps snp5,snp250 --chr 2
data_fail "'snp3' is listed more than once" --snps snp1-snp3,snp3
data_fail "neither a variant ID nor a range" --snps snp1-snp2-snp3
data_fail "--from snp5 is on chromosome 1 but --to snp250 on chromosome 2" --from snp5 --to snp250
data_fail "--to: variant 'nosuch' is not in" --to nosuch
data_fail "no samples left after --mind 0" --mind 0
data_fail "no variants left after the variant filters" --snps snp1-snp5 --geno 0
# --plink-compat with nothing but X and Y left
expect_fail "$T/err" "$EPISTREAM" scan --bfile "$T/d" --chr X,Y --plink-compat --out "$T/bad"
[ "$rc" -eq 1 ] || { cat "$T/err" >&2; fail "--plink-compat on X and Y: exit $rc, expected 1"; }
grep -qF "0 variant(s) left after skipping 0 with fewer than two genotypes and 75 on chromosomes X and Y" \
    "$T/err" || { cat "$T/err" >&2; fail "--plink-compat on X and Y: message"; }
[ ! -e "$T/bad.epi.cc" ] || fail "--plink-compat on X and Y left an output"

# ---- the same selection as plink1.9 ------------------------------------------
need_cmd plink1.9
# same TAG PREFIX ARGS...: plink1.9 --make-bed and epistream convert keep the same
# samples and variants (.bim without the chromosome column, which PLINK writes
# as a number; .fam and .bed byte for byte)
same() {
    tag=$1 in=$2
    shift 2
    plink1.9 --bfile "$T/$in" --keep-allele-order --allow-no-sex --make-bed --out "$T/p_$tag" \
        "$@" >"$T/p_$tag.out" 2>&1 || { cat "$T/p_$tag.out" >&2; fail "$tag: plink1.9 $*"; }
    "$EPISTREAM" convert --bfile "$T/$in" --out "$T/e_$tag" "$@" >"$T/e_$tag.out" 2>&1 ||
        { cat "$T/e_$tag.out" >&2; fail "$tag: epistream convert $*"; }
    cut -f2- "$T/p_$tag.bim" >"$T/p_$tag.b2"
    cut -f2- "$T/e_$tag.bim" >"$T/e_$tag.b2"
    cmp -s "$T/p_$tag.b2" "$T/e_$tag.b2" ||
        { diff "$T/p_$tag.b2" "$T/e_$tag.b2" | head >&2; fail "$tag ($*): other variants than plink1.9"; }
    cmp -s "$T/p_$tag.fam" "$T/e_$tag.fam" ||
        { diff "$T/p_$tag.fam" "$T/e_$tag.fam" | head >&2; fail "$tag ($*): other samples than plink1.9"; }
    cmp -s "$T/p_$tag.bed" "$T/e_$tag.bed" || fail "$tag ($*): .bed differs from plink1.9's"
}
# ... and the filters removed something (so the comparison means something)
removed() {
    tag=$1 what=$2 full=$3
    n=$(wc -l <"$T/e_$tag.$what")
    [ "$n" -lt "$full" ] || fail "$tag: nothing removed from the .$what ($n lines)"
    [ "$n" -gt 0 ] || fail "$tag: everything removed"
}
same mind d --mind 0.04
removed mind fam 300
same mind2 d --mind 0.02 --chr 2,X,Y
removed mind2 fam 300
same hwe d --hwe 0.05
removed hwe bim 400
same hweall d --hwe 0.05 --hwe-all
removed hweall bim 400
awk 'NR % 5 != 0 { print $2 }' "$T/d.bim" >"$T/ids"
same both d --mind 0.05 --hwe 0.01 --extract "$T/ids"
same snps d --snps snp10-snp3,snp190-snp210,snp390
removed snps bim 400
same fromto d --from snp230 --to snp220
removed fromto bim 400
same from d --from snp320
same to d --to snp12
same one o --1 --hwe 0.05
same mpheno d --pheno "$T/ph.txt" --mpheno 3 --hwe 0.05 --mind 0.05
same mpheno1 d --pheno "$T/ph.txt" --mpheno 3 --1 --hwe 0.05
# on autosomes with every sample a founder, --geno and --maf agree too, and
# they run after --mind (over the samples it leaves)
same qc s --mind 0.045 --geno 0.03 --hwe 0.02 --maf 0.1
removed qc fam 300
removed qc bim 400

# a scan with the filters tests the pairs plink1.9 --fast-epistasis tests, with
# the same statistics (BOOST, to its printed digits)
plink1.9 --bfile "$T/s" --allow-no-sex --mind 0.045 --hwe 0.02 --snps snp1-snp60 \
    --fast-epistasis boost --epi1 1 --out "$T/pe" >"$T/pe.out" 2>&1 ||
    { cat "$T/pe.out" >&2; fail "plink1.9 --fast-epistasis"; }
"$EPISTREAM" scan --bfile "$T/s" --allow-no-sex --mind 0.045 --hwe 0.02 --snps snp1-snp60 \
    --top 100000 --out "$T/es" >"$T/es.out" 2>&1 || { cat "$T/es.out" >&2; fail "scan"; }
awk 'FNR == 1 { next }
     NR == FNR { stat[$2 " " $4] = $5; n++; next }
     ($2 " " $5) in stat { d = stat[$2 " " $5] - $7; if (d < 0) d = -d
                           if (d > 1e-3 * (1 + $7)) bad++; common++ }
     END { if (!n || common != n || bad) { print n, common, bad; exit 1 } }' \
    "$T/pe.epi.cc" "$T/es.top.tsv" || fail "scan with --mind/--hwe/--snps differs from plink1.9"

# --plink-compat skips what plink1.9 --fast-epistasis skips (X and Y; MT, 0 and
# XY are scanned; monomorphic variants), says so, and writes PLINK's summary
# byte for byte
awk 'BEGIN { OFS = "\t" } NR % 40 == 0 { $6 = $5 } { print }' "$T/d.bim" >"$T/m.bim"
awk 'BEGIN { OFS = "\t" } { print }' "$T/d.fam" >"$T/m.fam"
# every 40th variant made monomorphic, 8 of them outside X and Y: all calls
# homozygous for A1 (.bed rows of 0x00)
need_python
"$PY" - "$T/d.bed" "$T/m.bed" 300 <<'PYEOF' || fail "monomorphic variants"
import sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, "rb").read())
row = (n + 3) // 4
for v in range(39, (len(b) - 3) // row, 40):
    b[3 + v * row: 3 + (v + 1) * row] = bytes(row)
open(dst, "wb").write(b)
PYEOF
plink1.9 --bfile "$T/m" --allow-no-sex --fast-epistasis boost --epi1 1 --out "$T/pm" \
    >"$T/pm.out" 2>&1 || { cat "$T/pm.out" >&2; fail "plink1.9 --fast-epistasis on m"; }
"$EPISTREAM" scan --bfile "$T/m" --plink-compat --epi1 1 --out "$T/em" >"$T/em.out" 2>&1 ||
    { cat "$T/em.out" >&2; fail "scan --plink-compat"; }
skipped=$(sed -n 's/^--fast-epistasis: Skipping \([0-9]*\) .*/\1/p' "$T/pm.log")
grep -q "skipping 8 variant(s) with fewer than two genotypes and 75 on chromosomes X and Y" \
    "$T/em.out" || { cat "$T/em.out" >&2; fail "--plink-compat: no warning with the counts"; }
[ "$skipped" = 83 ] || fail "plink1.9 skipped $skipped variants, expected 83"
grep -q "^plink_compat_skipped_fewer_than_two_genotypes	8$" "$T/em.log" &&
    grep -q "^plink_compat_skipped_x_y	75$" "$T/em.log" || fail "--plink-compat: counts not in the log"
cmp "$T/pm.epi.cc.summary" "$T/em.epi.cc.summary" || fail "--plink-compat summary differs from PLINK's"
exit 0
