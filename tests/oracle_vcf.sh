#!/bin/sh
# oracle_vcf.sh -- VCF/BCF decoding against tools nobody here wrote:
#  1. every call of a VCF full of edge cases (phased, missing, half-missing, haploid calls,
#     all-haploid sites, ploidy 3, more than two alleles, no GT, ALT '.', GT:DP), as text,
#     bgzipped and BCF, and through --region: `dump_geno --vcf` against
#     `bcftools query -f '[\t%GT]'`, with the documented rules applied to bcftools' calls by
#     an independent few lines of Python; the skip counts in the warnings too.  Records
#     with more than two alleles are skipped (--vcf-multiallelic skip) against bcftools'
#     records, and split (the default) against the records of `bcftools norm -m-`;
#  2. `epistream convert --vcf` against `plink1.9 --vcf X --make-bed` (--keep-allele-order,
#     --vcf-half-call missing), genotype for genotype through `plink1.9 --recode A`, plus
#     the .bim columns CHR POS A1 A2: with --vcf-multiallelic skip against plink1.9's
#     --biallelic-only strict, and split against plink1.9 on `bcftools norm -m-`'s output;
#     and a split VCF converts to the same bytes as its `bcftools norm -m-` version.
. "$(dirname "$0")/lib.sh"
need_cmd bcftools
need_cmd bgzip
need_cmd plink1.9
need_python random

DUMP=$(dirname "$EPISTREAM")/tests/dump_geno
[ -x "$DUMP" ] || fail "$DUMP not built (make check builds it)"

# ---- fixtures: e.vcf (every edge case), p.vcf (what plink1.9 reads the same way) ----
"$PY" - "$T" <<'EOF' || fail "fixture generator"
import random, sys
d = sys.argv[1]
rng = random.Random(11)
N = 61  # N mod 4 = 1: a partial last .bed byte
head = ("##fileformat=VCFv4.2\n##contig=<ID=1,length=1000000>\n##contig=<ID=2,length=1000000>\n"
        '##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">\n'
        '##FORMAT=<ID=DP,Number=1,Type=Integer,Description="Depth">\n'
        "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\t"
        + "\t".join("smp%d" % s for s in range(N)) + "\n")
DIP = ["0/0", "0/1", "1/0", "1/1", "0|0", "0|1", "1|0", "1|1"]
MISS = ["./.", ".|.", "."]
HALF = ["./1", "1/.", "./0", ".|1"]
HAP = ["0", "1"]
POLY = ["0/1/1", "0/0/1", "1/1/1"]

def call(edge):
    r = rng.random()
    if r < 0.08: return rng.choice(MISS)
    if edge and r < 0.12: return rng.choice(HALF)
    if edge and r < 0.15: return rng.choice(HAP)
    if edge and r < 0.17: return rng.choice(POLY)
    return rng.choice(DIP)

def record(chrom, pos, kind, edge):
    rid = "." if rng.random() < 0.3 else "rs%d_%d" % (chrom, pos)
    ref, alt, fmt = "A", "G", "GT"
    if kind == "multi":
        alt = "G,T"
        calls = [rng.choice(DIP + ["0/2", "1/2", "2/2"]) for _ in range(N)]
    elif kind == "nogt":
        fmt = "DP"
        calls = [str(rng.randint(1, 60)) for _ in range(N)]
    elif kind == "hapsite":
        calls = [rng.choice(HAP + ["."]) for _ in range(N)]
        calls[rng.randrange(N)] = rng.choice(HAP)  # at least one called
    elif kind == "mono":
        alt = "."
        calls = [rng.choice(["0/0", "0|0", "./."]) for _ in range(N)]
    elif kind == "allmiss":
        calls = ["./."] * N
    else:
        calls = [call(edge) for _ in range(N)]
    if kind != "nogt" and rng.random() < 0.25:
        fmt = "GT:DP"
        calls = [c + ":" + str(rng.randint(1, 60)) for c in calls]
    return "\t".join([str(chrom), str(pos), rid, ref, alt, ".", "PASS", ".", fmt] + calls) + "\n"

def write(path, kinds, n, edge):
    with open(path, "w") as f:
        f.write(head)
        for chrom in (1, 2):
            pos = 0
            for _ in range(n):
                pos += rng.randint(1, 500)
                f.write(record(chrom, pos, rng.choice(kinds), edge))

write(d + "/e.vcf", ["snp"] * 12 + ["multi", "nogt", "hapsite", "mono", "allmiss"], 200, True)
write(d + "/p.vcf", ["snp"] * 12 + ["multi", "mono", "allmiss"], 150, False)
EOF

bgzip -c "$T/e.vcf" >"$T/e.vcf.gz" || fail "bgzip"
bcftools index "$T/e.vcf.gz" || fail "bcftools index"
bcftools view -Ob -o "$T/e.bcf" "$T/e.vcf" || fail "bcftools view -Ob"
bcftools index "$T/e.bcf" || fail "bcftools index (BCF)"

# check NAME QUERY_FILE DUMP_FILE DUMP_STDERR: apply the rules to bcftools' calls and compare
CHECK='
import re, sys
query, dump, err = sys.argv[1:4]
want, multi, nogt, hapsite, hapcalls, records = [], 0, 0, 0, 0, 0
for line in open(query):
    f = line.rstrip("\n").split("\t")
    loc, alt, gts = f[0], f[1], f[2:]
    records += 1
    if "," in alt:
        multi += 1
        continue
    # no record of the fixtures has GT "." for every sample: that is bcftools'"'"' output
    # for a record without a GT field
    if all(g == "." for g in gts):
        nogt += 1
        continue
    row, n_dip, n_hap, n_poly = [], 0, 0, 0
    for g in gts:
        al = re.split(r"[/|]", g)
        called = [a for a in al if a != "."]
        if not called:
            row.append("NA")
        elif len(al) == 1:
            n_hap += 1
            row.append("NA")
        elif len(al) > 2:
            n_poly += 1
            row.append("NA")
        else:
            n_dip += 1
            row.append("NA" if len(called) < 2 else str(called.count("1")))
    if n_hap and not n_dip and not n_poly:
        hapsite += 1
        continue
    hapcalls += n_hap
    want.append(" ".join(row))
got = [l.rstrip("\n") for l in open(dump)]
if len(got) != len(want):
    sys.exit("%d variants decoded, bcftools+rules give %d" % (len(got), len(want)))
for v, (a, b) in enumerate(zip(got, want)):
    if a != b:
        sys.exit("variant %d differs:\n ours %s\n want %s" % (v + 1, a, b))
text = open(err).read()
def need(cond, msg):
    if not cond: sys.exit("warning missing or wrong: %s\n%s" % (msg, text))
need(not multi or "skipped %d of %d records with more than two alleles" % (multi, records) in text,
     "multi-allelic %d of %d" % (multi, records))
need(not nogt or "skipped %d record%s without a GT field"
     % (nogt, "" if nogt == 1 else "s") in text, "no GT %d" % nogt)
need(not hapsite or "skipped %d site%s whose called genotypes are all haploid"
     % (hapsite, "" if hapsite == 1 else "s") in text, "haploid sites %d" % hapsite)
need(not hapcalls or "set %d haploid call%s at diploid sites to missing"
     % (hapcalls, "" if hapcalls == 1 else "s") in text, "haploid calls %d" % hapcalls)
print("%d variants, %d calls agree (%d records: %d multi-allelic, %d without GT, %d haploid)"
      % (len(want), len(want) * (len(gts)), records, multi, nogt, hapsite))
'
# oracle NAME MODE FILE [REGION]: dump_geno and bcftools query on FILE (optionally one
# region); MODE skip: multi-allelic records skipped, against bcftools' records; split: split
# (epistream's default), against the records bcftools norm -m- makes of them
Q='%CHROM:%POS\t%ALT[\t%GT]\n'
oracle() {
    name=$1 mode=$2 file=$3 region=${4:-}
    skip=
    [ "$mode" = skip ] && skip=--skip-multiallelic
    # shellcheck disable=SC2086  # $skip is empty or one word
    "$DUMP" --vcf "$file" ${region:+--region "$region"} $skip >"$T/$name.dump" \
        2>"$T/$name.err" || { cat "$T/$name.err" >&2; fail "dump_geno $name"; }
    if [ "$mode" = skip ]; then
        bcftools query ${region:+-r "$region"} -f "$Q" "$file" >"$T/$name.q" ||
            fail "bcftools query $name"
    else
        bcftools norm -m- ${region:+-r "$region"} -Ou "$file" 2>"$T/$name.norm" |
            bcftools query -f "$Q" >"$T/$name.q" || fail "bcftools norm -m- | query $name"
        grep -q ',' "$T/$name.q" && fail "$name: bcftools norm -m- left a multi-allelic record"
    fi
    "$PY" -c "$CHECK" "$T/$name.q" "$T/$name.dump" "$T/$name.err" ||
        fail "$name: decoded genotypes differ from bcftools"
}
for mode in skip split; do
    oracle "text_$mode" $mode "$T/e.vcf"
    oracle "bgzf_$mode" $mode "$T/e.vcf.gz"
    oracle "bcf_$mode" $mode "$T/e.bcf"
    oracle "region_gz_$mode" $mode "$T/e.vcf.gz" 1:20000-40000
    oracle "region_bcf_$mode" $mode "$T/e.bcf" 2:1-30000
    cmp "$T/text_$mode.dump" "$T/bgzf_$mode.dump" ||
        fail "$mode: text and bgzipped VCF decode differently"
    cmp "$T/text_$mode.dump" "$T/bcf_$mode.dump" || fail "$mode: VCF and BCF decode differently"
done
[ "$(wc -l <"$T/text_split.dump")" -gt "$(wc -l <"$T/text_skip.dump")" ] ||
    fail "splitting made no variants (the fixture has multi-allelic records)"

# ---- convert vs plink1.9 --vcf --make-bed ----
# convert_vs_plink MODE: epistream's convert of p.vcf (MODE skip or split) against plink1.9's
convert_vs_plink() {
if [ "$1" = skip ]; then
    "$EPISTREAM" convert --vcf "$T/p.vcf" --vcf-multiallelic skip --out "$T/ours" \
        >"$T/ours.log" 2>&1 || { cat "$T/ours.log" >&2; fail "epistream convert (skip)"; }
    plink1.9 --vcf "$T/p.vcf" --keep-allele-order --double-id --biallelic-only strict \
        --vcf-half-call missing --make-bed --threads 1 --memory 256 --out "$T/theirs" \
        >"$T/theirs.log" 2>&1 || { cat "$T/theirs.log" >&2; fail "plink1.9 --vcf"; }
else
    "$EPISTREAM" convert --vcf "$T/p.vcf" --out "$T/ours" >"$T/ours.log" 2>&1 ||
        { cat "$T/ours.log" >&2; fail "epistream convert"; }
    grep -q "with more than two alleles split into" "$T/ours.log" ||
        { cat "$T/ours.log" >&2; fail "convert: the split is not reported"; }
    bcftools norm -m- -o "$T/pn.vcf" "$T/p.vcf" 2>"$T/pn.log" || fail "bcftools norm -m-"
    plink1.9 --vcf "$T/pn.vcf" --keep-allele-order --double-id --vcf-half-call missing \
        --make-bed --threads 1 --memory 256 --out "$T/theirs" >"$T/theirs.log" 2>&1 ||
        { cat "$T/theirs.log" >&2; fail "plink1.9 --vcf on bcftools norm -m- output"; }
    # the same bytes as converting bcftools' split records, IDs included
    "$EPISTREAM" convert --vcf "$T/pn.vcf" --out "$T/normed" >"$T/normed.log" 2>&1 ||
        { cat "$T/normed.log" >&2; fail "epistream convert of the bcftools norm -m- output"; }
    for x in bed bim fam; do
        cmp "$T/ours.$x" "$T/normed.$x" || fail "split: .$x differs from bcftools norm -m-'s"
    done
fi
for p in ours theirs; do
    plink1.9 --bfile "$T/$p" --recode A --keep-allele-order --allow-no-sex --threads 1 \
        --memory 256 --out "$T/$p" >"$T/$p.recode.log" 2>&1 ||
        { cat "$T/$p.recode.log" >&2; fail "plink1.9 --recode A ($p)"; }
    # genotype columns only: plink names a '.' ID '.', epistream CHR:POS:REF:ALT
    cut -d' ' -f1,2,7- "$T/$p.raw" | tail -n +2 >"$T/$p.geno"
    cut -f1,4,5,6 "$T/$p.bim" >"$T/$p.bim4"
done
[ "$(wc -l <"$T/ours.bim4")" -gt 200 ] || fail "convert kept too few variants"
cmp "$T/ours.bim4" "$T/theirs.bim4" || fail "convert: .bim CHR POS A1 A2 differ from plink1.9"
cmp "$T/ours.geno" "$T/theirs.geno" || fail "convert: genotypes differ from plink1.9 --vcf"
cut -d' ' -f1,2 "$T/ours.fam" >"$T/ours.ids"
cut -d' ' -f1,2 "$T/theirs.fam" >"$T/theirs.ids"
cmp "$T/ours.ids" "$T/theirs.ids" || fail "convert: sample IDs differ from plink1.9 --double-id"
wc -l <"$T/ours.bim"
}
n_skip=$(convert_vs_plink skip) || exit 1
n_split=$(convert_vs_plink split) || exit 1
[ "$n_split" -gt "$n_skip" ] || fail "split kept $n_split variants, skip $n_skip"
exit 0
