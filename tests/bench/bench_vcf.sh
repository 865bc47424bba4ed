#!/bin/sh
# bench_vcf.sh -- reading a VCF into packed genotype planes, next to bcftools on the same file.
#
# Simulates N samples x M variants (1 % missing calls) with `epistream sim`, writes them as a
# bgzipped VCF with plink1.9 (--recode vcf-iid bgz) and as BCF with bcftools, then in one run,
# from a warm page cache, times
#   bcftools query -f '[%GT]\n' FILE > /dev/null          (decodes every call; one thread)
#   bench_vcf_read FILE PHENO T                             (es_dataset_open with T
#       decompression threads + es_pack of every variant: the start of a scan)
#   epistream convert --vcf FILE --threads T --out ...      (the same, writing .bed/.bim/.fam)
# for the vcf.gz and the BCF.  Each is run BENCH_REPS times and the best wall time kept.  The
# table gives wall seconds, genotypes/s = N x M / wall, and the ratio to bcftools' rate on the
# same file (> 1: epistream is faster).  The target (issue 4): ratio >= 1 with 2 threads.
#
# Environment: EPISTREAM (binary; default ./epistream, else build/epistream), BENCH_READER
# (default: tests/bench/bench_vcf_read next to the binary), BCFTOOLS (bcftools), PLINK
# (plink1.9), BENCH_N (2000), BENCH_M (100000), BENCH_THREADS (2), BENCH_REPS (3),
# BENCH_SEED (1), BENCH_KEEP=1 keeps the work directory.
set -u

N=${BENCH_N:-2000}
M=${BENCH_M:-100000}
THREADS=${BENCH_THREADS:-2}
REPS=${BENCH_REPS:-3}
SEED=${BENCH_SEED:-1}
BCFTOOLS=${BCFTOOLS:-bcftools}
PLINK=${PLINK:-plink1.9}
if [ -z "${EPISTREAM:-}" ]; then
    if [ -x ./epistream ]; then EPISTREAM=./epistream; else EPISTREAM=build/epistream; fi
fi
: "${BENCH_READER:=$(dirname "$EPISTREAM")/tests/bench/bench_vcf_read}"
die() { echo "bench_vcf: $*" >&2; exit 1; }
[ -x "$EPISTREAM" ] || die "no epistream binary at '$EPISTREAM' (set EPISTREAM)"
[ -x "$BENCH_READER" ] ||
    die "no bench_vcf_read at '$BENCH_READER' (make builds it; set BENCH_READER)"
command -v "$BCFTOOLS" >/dev/null 2>&1 || die "$BCFTOOLS not found"
command -v "$PLINK" >/dev/null 2>&1 || die "$PLINK not found (it writes the VCF)"

W=$(mktemp -d "${TMPDIR:-/tmp}/es_bench.XXXXXX") || die "cannot make a work directory"
if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "work directory kept: $W"; else trap 'rm -rf "$W"' EXIT; fi
trap 'exit 130' INT TERM

echo "== bench_vcf: VCF/BCF into packed planes, epistream vs bcftools query"
echo "date      $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "host      $(uname -n) ($(uname -sr))"
echo "cpu       $(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1)," \
     "$(nproc) logical CPUs"
echo "epistream $("$EPISTREAM" --version 2>&1 | head -1) ($EPISTREAM)"
echo "bcftools  $("$BCFTOOLS" --version 2>&1 | head -2 | tr '\n' ' ')"
echo "data      N=$N samples x M=$M variants (seed $SEED, 1% missing); threads $THREADS," \
     "best of $REPS"

# the data
"$EPISTREAM" sim --samples "$N" --variants "$M" --missing 0.01 --seed "$SEED" --out "$W/d" \
    >"$W/sim.log" 2>&1 || { cat "$W/sim.log" >&2; die "epistream sim failed"; }
"$PLINK" --bfile "$W/d" --recode vcf-iid bgz --keep-allele-order --threads "$THREADS" \
    --out "$W/d" >"$W/plink.log" 2>&1 ||
    { cat "$W/plink.log" >&2; die "plink1.9 --recode failed"; }
"$BCFTOOLS" view -Ob -o "$W/d.bcf" "$W/d.vcf.gz" || die "bcftools view -Ob failed"
awk '{ print $2, $2, $6 }' "$W/d.fam" >"$W/d.pheno"
echo "files     d.vcf.gz $(du -m "$W/d.vcf.gz" | cut -f1) MiB," \
     "d.bcf $(du -m "$W/d.bcf" | cut -f1) MiB"

# best wall seconds of REPS runs of a command
best() {
    b=
    r=0
    while [ $r -lt "$REPS" ]; do
        s=$(date +%s.%N)
        "$@" >/dev/null 2>"$W/err" || { cat "$W/err" >&2; die "failed: $*"; }
        e=$(date +%s.%N)
        b=$(awk -v s="$s" -v e="$e" -v b="$b" 'BEGIN { w = e - s; if (b == "" || w < b) b = w;
                                                 printf "%.3f", b }')
        r=$((r + 1))
    done
    echo "$b"
}
query() { "$BCFTOOLS" query -f '[%GT]\n' "$1" >/dev/null; }
reader() { "$BENCH_READER" "$1" "$W/d.pheno" "$THREADS"; }
convert() { "$EPISTREAM" convert --vcf "$1" --threads "$THREADS" --quiet --out "$W/c"; }

GT=$(awk -v n="$N" -v m="$M" 'BEGIN { printf "%.0f", n * m }')
printf '\n%-10s %-42s %9s %12s %9s\n' input command wall_s genotypes/s ratio
for f in d.vcf.gz d.bcf; do
    cat "$W/$f" >/dev/null # warm page cache for everyone
    q=$(best query "$W/$f")
    rd=$(best reader "$W/$f")
    cv=$(best convert "$W/$f")
    row() {
        # the label through the environment: awk -v would expand its backslashes
        C=$1 awk -v i="$f" -v w="$2" -v g="$GT" -v q="$q" 'BEGIN { c = ENVIRON["C"]
            printf "%-10s %-42s %9.3f %12.4g %8.2fx\n", i, c, w, g / w, q / w }'
    }
    row "bcftools query -f '[%GT]\\n'" "$q"
    row "bench_vcf_read (open + pack, $THREADS threads)" "$rd"
    row "epistream convert --threads $THREADS" "$cv"
done
# the converted .bed is the simulated one, byte for byte (a check, not a timing)
cmp -s "$W/c.bed" "$W/d.bed" || echo "WARNING: the converted .bed differs from the simulated one"
