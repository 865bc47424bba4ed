/* formats.h -- the genotype readers and writer: PLINK 1 filesets (.bed/.bim/.fam),
 * VCF/BCF through htslib, phenotype files, and the sample and variant filters
 * (--keep/--remove/--chr/--from/--to/--snps/--extract/--exclude/--mind/--geno/
 * --hwe/--maf).  Internal (not installed); depends on src/util only.  A reader
 * returns an es_fileset_t. */
#ifndef ES_FORMATS_H
#define ES_FORMATS_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* ---- PLINK 1 fileset (formats/plink.c) --------------------------------- */

/** What the VCF reader skipped, for the log. */
typedef struct {
    uint64_t records;       /* records read */
    uint64_t multiallelic;  /* sites with more than two alleles skipped (ES_VCF_MULTIALLELIC_SKIP) */
    uint64_t split_records; /* sites with more than two alleles split (..._SPLIT) */
    uint64_t split_variants; /* the biallelic variants kept from them */
    uint64_t haploid_sites; /* sites whose called genotypes are all haploid (skipped) */
    uint64_t haploid_calls; /* haploid calls at diploid sites (set missing) */
    uint64_t no_gt;         /* records without a GT field (skipped) */
} es_vcf_stats_t;

/** The .bim and .fam contents plus the memory-mapped .bed. */
typedef struct {
    char *bed_path, *bim_path, *fam_path;
    uint32_t n_variants;
    uint32_t n_samples; /* .fam lines */
    /* .bim: string fields point into bim_text (one allocation) */
    char *bim_text;
    const char **chr, **id, **a1, **a2;
    int64_t *pos;
    double *cm;
    /* .fam */
    char *fam_text;
    const char **fid, **iid;
    int8_t *fam_pheno; /* 0 control, 1 case, -1 missing (from column 6) */
    int fam_pheno_quantitative; /* column 6 had values other than 0/1/2/-9 */
    /* column 6 under PLINK's --1 (0 control, 1 case): 0, 1, -1 missing (-9,
     * NA), -3 another value (missing too; dataset.c warns) */
    int8_t *fam_pheno01;
    /* column 6 as a quantitative value (NaN: -9, NA, nan); NULL for VCF input */
    double *fam_qt;
    int8_t *fam_sex;      /* column 5: 1 male, 2 female, 0 unknown (anything else) */
    uint8_t *fam_founder; /* 1 when columns 3 and 4 are both "0" (PLINK's founders) */
    /* (the three are NULL for VCF input: founders of unknown sex, no column 6) */
    /* .bed */
    const uint8_t *bed_map; /* whole file mapping (or NULL when empty) */
    size_t bed_size;
    /* set (by a SIGBUS handler) when a page of the mapping could not be read:
     * the file shrank after it was opened; es_fileset_check() reports it */
    volatile int bed_fault;
    size_t bytes_per_variant; /* ceil(n_samples / 4) */
    /* VCF/BCF input (formats/vcf.c): the genotypes as .bed rows in memory, with
     * the 3 magic bytes first; bed_map points here and nothing is mapped */
    uint8_t *rows_owned;
    es_vcf_stats_t vcf_stats; /* VCF/BCF input: what the reader skipped (zero for .bed) */
    /* variant selection (src/dataset.c): kept variant v is source row var_src[v];
     * NULL = identity.  The metadata arrays above are compacted to the kept ones. */
    uint32_t *var_src;
} es_fileset_t;

/**
 * Open PREFIX.bed/.bim/.fam: parse .bim and .fam fully (validated, file and
 * line number in every message), memory-map .bed and check magic and size.
 * @param out receives the fileset; free with es_fileset_close()
 * @return ES_OK, ES_ERR_IO, ES_ERR_FORMAT or ES_ERR_NOMEM
 */
int es_plink_open(es_fileset_t **out, const char *prefix);
/**
 * Read a .bim alone (the file at path, any name): the variant columns of a
 * fileset, validated as es_plink_open() validates them, with no .fam and no
 * .bed (n_samples 0, bed_map NULL) -- for readers that only need the
 * variants' chromosomes and positions (the report of a PLINK-format run).
 * @param out receives the fileset; free with es_fileset_close()
 * @return ES_OK, ES_ERR_IO, ES_ERR_FORMAT or ES_ERR_NOMEM
 */
int es_bim_open(es_fileset_t **out, const char *path);
/** Warn once, naming the first, when variant IDs repeat (PLINK accepts them
 *  and so do we: each is its own variant).  line_of: the .bim line of each
 *  variant, or NULL to locate them by CHR:POS (a VCF).
 *  @return ES_OK or ES_ERR_NOMEM */
int es_fileset_warn_dup_variants(const es_fileset_t *p, const uint64_t *line_of);
/** After reading rows of a mapped .bed: ES_OK, or ES_ERR_IO (logged, naming
 *  the file and its size now) when the file shrank while it was mapped.  Such
 *  a read does not kill the process: the missing pages read as zeros and this
 *  check says that what was read cannot be used.  Every reader of rows calls it
 *  before using what it read. */
int es_fileset_check(const es_fileset_t *p);
/** Unmap and free (NULL allowed). */
void es_fileset_close(es_fileset_t *p);
/** @return pointer to variant v's packed 2-bit row (bytes_per_variant bytes). */
static inline const uint8_t *es_fileset_row(const es_fileset_t *p, uint32_t v)
{
    size_t src = p->var_src ? p->var_src[v] : v;
    return p->bed_map + 3 + src * p->bytes_per_variant;
}

/* ---- VCF/BCF (formats/vcf.c) --------------------------------------------- */

/**
 * Read a VCF, bgzipped VCF or BCF through htslib into an es_fileset_t: samples
 * from the header (FID = IID = sample name; sex, parents, phenotype unknown),
 * one variant per biallelic site with GT (A1 = ALT, A2 = REF, CM 0, ID = the
 * ID column or CHR:POS:REF:ALT when it is "."; ALT "." stays "."), genotypes =
 * ALT dosage stored as .bed 2-bit rows in rows_owned.  A site with more than
 * two alleles is, by `multi`, split into one biallelic variant per ALT allele
 * as bcftools norm -m- splits it (the genotype is the copies of that ALT,
 * other ALTs count as REF, missing alleles stay missing; the record's ID is
 * kept, so the variants share it unless it is ".") and counted in
 * split_records/split_variants (an info line), or skipped and counted.  Call
 * rules: ./. and . missing; a half-missing call (./1), a haploid call at a
 * site with diploid calls, or a call of ploidy > 2 is missing and counted; a
 * site whose called genotypes are all haploid or a record without GT is
 * skipped and counted (one warning per category, with the count and the
 * first place; counts also in p->vcf_stats).  With regions, only
 * records overlapping them are read, once each, through the index (ES_ERR_ARG
 * naming the file when there is none, or for a malformed region).  Uses
 * `threads` decompression threads.  Malformed records are ES_ERR_FORMAT naming
 * the file, line, record number and CHR:POS; no samples or no usable site is
 * ES_ERR_DATA.
 * @param out receives the fileset; free with es_fileset_close()
 */
int es_vcf_open(es_fileset_t **out, const char *path, const char *const *regions, int n_regions,
                int threads, es_vcf_multiallelic_t multi, es_vcf_stats_t *stats);
/** es_vcf_open() that reports its progress (compressed bytes read of the
 *  file's size, about twice a second and once at the end) to progress (NULL:
 *  none). */
int es_vcf_open_progress(es_fileset_t **out, const char *path, const char *const *regions, int n_regions,
                         int threads, es_vcf_multiallelic_t multi, es_vcf_stats_t *stats,
                         es_progress_cb progress, void *progress_ud);

/**
 * Write the selected samples (status[s] != -2; -2 marks a sample removed by
 * --keep/--remove) and all kept variants of p as PREFIX.bed/.bim/.fam (SNP-major),
 * readable by plink1.9; .fam column 6 is 2 case, 1 control, -9 unknown.  Files are
 * written to .tmp names and renamed on success.
 */
int es_plink_write(const es_fileset_t *p, const int8_t *status, const char *prefix);

/* ---- phenotype file (formats/pheno.c) ---------------------------------- */

/**
 * Read a PLINK phenotype file and assign a case/control status to each input
 * sample.  Layouts: "FID IID v1 v2 ..." (matched on FID+IID) or "IID v1 ..."
 * (matched on IID); a header line names the columns and the layout ("FID IID
 * ..."/"#FID IID ..." or "IID ..."/"#IID ..."); without one, a file whose
 * lines all have 2 fields is "IID value", anything else "FID IID values".
 * Values: 1 control, 2 case, 0/-9/NA missing; anything else is an error
 * naming file, line, column and value.  IDs not in the input are counted in
 * one warning; samples absent from the file are missing (counted in the
 * log).  An IID-only line whose IID belongs to samples of different families
 * is ES_ERR_FORMAT (ambiguous).
 * @param pheno_name column name (with header) or 1-based column number among
 *                   the value columns; NULL = first value column
 * @param status     out: n_samples entries, 0 control, 1 case, -1 missing
 * @return ES_OK, ES_ERR_IO, ES_ERR_FORMAT, ES_ERR_ARG (no such column) or ES_ERR_NOMEM
 */
int es_pheno_read(const char *path, const char *pheno_name, const es_fileset_t *p,
                  int8_t *status);

/**
 * es_pheno_read() with a choice of coding.  coding01 = 0: as es_pheno_read();
 * 1 (PLINK's --1): 0 control, 1 case, -9/NA missing, and any other value,
 * 2 included, is missing as in PLINK 1.9 (counted in one warning with the
 * first line), never an error.
 */
int es_pheno_read_coded(const char *path, const char *pheno_name, int coding01,
                        const es_fileset_t *p, int8_t *status);

/**
 * es_pheno_read_coded() that also reads the column as numbers, for a
 * quantitative trait: qt[s] receives sample s's value (NaN: -9, NA, nan, or no
 * line); a value that is not a number is an error.  *quant is set to 1 when
 * some value is not case/control coding (its status is then -1), else 0.
 */
int es_pheno_read_values(const char *path, const char *pheno_name, int coding01,
                         const es_fileset_t *p, int8_t *status, double *qt, int *quant);

/* ---- sample and variant filters (filter.c) --------------------------------- */

/**
 * --keep (keep = 1) or --remove (keep = 0): set status[s] = -2 for the samples
 * that the list at path leaves out.  Lines: "FID IID [...]" (matched on both)
 * or "IID" alone (matched on IID: every sample with that IID, in any family);
 * a first line "FID IID ..."/"#FID IID ..." is a header, and so is "IID ..."/
 * "#IID ...", after which the first field of every line is an IID; blank
 * lines are skipped.  IDs not in the input are counted in one warning, not an error.
 * @param by_pair, by_iid indexes of the input's FID+IID and IID
 * @param n_removed out: samples newly set to -2
 * @return ES_OK, ES_ERR_IO, ES_ERR_FORMAT or ES_ERR_NOMEM
 */
int es_filter_samples(const char *path, int keep, const es_fileset_t *p,
                      const es_strindex_t *by_pair, const es_strindex_t *by_iid, int8_t *status,
                      uint32_t *n_removed);

/** One item of a --chr list: a range of numeric codes or a literal name. */
typedef struct {
    const char *text; /* the item as written (for messages) */
    const char *name; /* a name that is not a code ("chr" prefix removed), or NULL */
    uint32_t lo, hi;  /* numeric codes lo..hi when name is NULL */
} es_chritem_t;

/** A set of chromosomes parsed from a --chr list (free with es_chrset_free()). */
typedef struct {
    es_chritem_t *item;
    uint32_t n_item;
    char *buf; /* the list, split in place at the commas */
} es_chrset_t;

/**
 * Parse "1-4,7,X,MT,chr5,scaffold_1": comma-separated codes and ranges of
 * codes.  Codes are numbers or the aliases X/23, Y/24, XY/25, MT/M/26 (case-
 * insensitive), with an optional "chr" prefix; other names match literally.
 * @return ES_OK, ES_ERR_ARG (empty item, bad range; message names the item) or ES_ERR_NOMEM
 */
int es_chrset_parse(es_chrset_t *cs, const char *list);
/** @return 1 if the chromosome code chr (as written in the data) is in the set. */
int es_chrset_has(const es_chrset_t *cs, const char *chr);
void es_chrset_free(es_chrset_t *cs);

/**
 * --chr: clear vkeep[v] for variants not on a listed chromosome.  Listed
 * chromosomes absent from the input are counted in one warning.
 * @param n_removed out: variants newly cleared
 * @return ES_OK, ES_ERR_ARG or ES_ERR_NOMEM
 */
int es_filter_chr(const char *list, const es_fileset_t *p, uint8_t *vkeep, uint32_t *n_removed);

/**
 * --extract (extract = 1) or --exclude (0): the first field of each line of
 * path is a variant ID; clear vkeep[v] for variants not listed (extract) or
 * listed (exclude).  IDs not in the input are counted in one warning.
 * @param by_id index of p->id
 * @return ES_OK, ES_ERR_IO, ES_ERR_FORMAT or ES_ERR_NOMEM
 */
int es_filter_variant_list(const char *path, int extract, const es_fileset_t *p,
                           const es_strindex_t *by_id, uint8_t *vkeep, uint32_t *n_removed);

/**
 * --snps: keep only the variants that list names: comma-separated IDs and
 * spans "ID1-ID2" (every variant from one to the other in file order, either
 * way round, across chromosomes), blanks around items ignored, empty items
 * skipped (PLINK 1.9's --snps, whose range delimiter is '-').  Clears vkeep[v]
 * for the others.  Every listed ID must be in p exactly once and not left out
 * of vkeep already (by --chr); a name listed twice, an item such as "a-b-c"
 * or an empty list is ES_ERR_ARG with a message naming the item.
 * @param by_id index of p->id
 * @return ES_OK, ES_ERR_ARG or ES_ERR_NOMEM
 */
int es_filter_snps(const char *list, const es_fileset_t *p, const es_strindex_t *by_id,
                   uint8_t *vkeep, uint32_t *n_removed);

/**
 * --from/--to as PLINK 1.9 reads them: the positions of the two variants
 * (each named by a unique ID; either may be NULL: position 0 / the end) bound
 * a window on their chromosome, in either order; clears vkeep[v] for the
 * variants outside it or on another chromosome ("chr1" and "1" are one).  An
 * unknown or repeated ID, or IDs on two chromosomes, is ES_ERR_ARG naming them.
 * @param lo, hi out (may be NULL): the window's positions
 * @return ES_OK or ES_ERR_ARG
 */
int es_filter_from_to(const char *from, const char *to, const es_fileset_t *p,
                      const es_strindex_t *by_id, uint8_t *vkeep, int64_t *lo, int64_t *hi,
                      uint32_t *n_removed);

/**
 * --mind (mind < 1; 1 = off): set status[s] = -2 for the samples not removed
 * yet whose missing calls over the variants with vkeep[v] set exceed
 * floor(mind x those variants), as PLINK 1.9 does (with its 2^-44 slack):
 * on chrY only males' calls count (p->fam_sex; unknown sex is not male), and
 * the other samples' limit is taken over the non-Y variants.  Every sample
 * not removed counts, with a phenotype or not.  Parallel over blocks of
 * samples (threads <= 0: OpenMP's default).
 * @param n_removed out: samples newly set to -2
 * @return ES_OK or ES_ERR_NOMEM
 */
int es_filter_mind(const es_fileset_t *p, const uint8_t *vkeep, double mind, int threads,
                   int8_t *status, uint32_t *n_removed);

/**
 * The Hardy-Weinberg exact test of Wigginton et al. (2005): the probability,
 * given the allele counts, of a heterozygote count no more likely than het
 * (ties included), as PLINK 1.9 computes it (--hardy's P).  1 when there is
 * no rare allele; 0 when the observed count is so unlikely that the other
 * counts' relative probabilities overflow a double.  Thread-safe.
 */
double es_hwe_exact_p(uint32_t het, uint32_t hom1, uint32_t hom2);

/**
 * --hwe (hwe > 0; 0 = off): clear vkeep[v] for the variants whose exact-test
 * p-value (es_hwe_exact_p()) is below hwe, over PLINK 1.9's samples: the
 * founders (p->fam_founder; VCF samples all are) not removed (status != -2)
 * that are controls (status 0), or all of them when all != 0 (PLINK's
 * 'include-nonctrl') or when no sample left is a control; on chrX only the
 * non-male ones; chrY and chrMT are not tested.
 * @param used_all out (may be NULL): whether the test used every founder
 * @return ES_OK or ES_ERR_NOMEM
 */
int es_filter_hwe(const es_fileset_t *p, const int8_t *status, double hwe, int all, int threads,
                  uint8_t *vkeep, uint32_t *n_removed, int *used_all);

/**
 * --geno and --maf, over the samples with used[s] != 0, for the variants
 * with vkeep[v] set: clear vkeep[v] when the missing-call rate is > geno
 * (geno >= 1: off), then, among those left, when the minor allele frequency
 * of the called genotypes is < maf (maf <= 0: off; a variant with no call
 * has no frequency and stays, as in PLINK 1.9).  Counted from the 2-bit rows
 * a word at a time, in parallel over variants (threads <= 0: OpenMP's default).
 * @return ES_OK or ES_ERR_NOMEM
 */
int es_filter_qc(const es_fileset_t *p, const uint8_t *used, double maf, double geno, int threads,
                 uint8_t *vkeep, uint32_t *geno_removed, uint32_t *maf_removed);

/**
 * Keep the variants with vkeep[v] set: p->var_src maps kept index -> source
 * row (left NULL when all are kept) and the metadata arrays are compacted in
 * place; p->n_variants becomes the kept count.  Only on a fileset whose
 * var_src is still NULL.  @return ES_OK or ES_ERR_NOMEM
 */
int es_filter_compact(es_fileset_t *p, const uint8_t *vkeep);

#endif /* ES_FORMATS_H */
