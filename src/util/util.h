/* es_internal.h -- internal interfaces shared by src/ and formats/.
 * Not installed.  Every stage of the data flow (DESIGN.md) has one section. */
#ifndef ES_INTERNAL_H
#define ES_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "epistream.h"

/* ---- logging (log.c) -------------------------------------------------- */

/** Log one message "[L::func] text\n" to stderr if level <= current level. */
void es_log(es_log_level_t level, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define es_error(...) es_log(ES_LOG_ERROR, __func__, __VA_ARGS__)
#define es_warn(...) es_log(ES_LOG_WARN, __func__, __VA_ARGS__)
#define es_info(...) es_log(ES_LOG_INFO, __func__, __VA_ARGS__)
#define es_debug(...) es_log(ES_LOG_DEBUG, __func__, __VA_ARGS__)

/** Monotonic wall clock in seconds. */
double es_time_now(void);
/** Format n with thousands separators ("1,234,567") into buf (>= 32 bytes). */
const char *es_fmt_count(uint64_t n, char *buf);

/* ---- PLINK 1 fileset (formats/plink.c) --------------------------------- */

/** What the VCF reader skipped, for the log. */
typedef struct {
    uint64_t records;       /* records read */
    uint64_t multiallelic;  /* sites with more than two alleles (skipped) */
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
    /* .bed */
    const uint8_t *bed_map; /* whole file mapping (or NULL when empty) */
    size_t bed_size;
    size_t bytes_per_variant; /* ceil(n_samples / 4) */
    /* VCF/BCF input (formats/vcf.c): the genotypes as .bed rows in memory, with
     * the 3 magic bytes first; bed_map points here and nothing is mapped */
    uint8_t *rows_owned;
    es_vcf_stats_t vcf_stats; /* VCF/BCF input: what the reader skipped (zero for .bed) */
    /* variant selection (src/dataset.c): kept variant v is source row var_src[v];
     * NULL = identity.  The metadata arrays above are compacted to the kept ones. */
    uint32_t *var_src;
} es_plink_t;

/**
 * Open PREFIX.bed/.bim/.fam: parse .bim and .fam fully (validated, file and
 * line number in every message), memory-map .bed and check magic and size.
 * @param out receives the fileset; free with es_plink_close()
 * @return ES_OK, ES_ERR_IO, ES_ERR_FORMAT or ES_ERR_NOMEM
 */
int es_plink_open(es_plink_t **out, const char *prefix);
/** Unmap and free (NULL allowed). */
void es_plink_close(es_plink_t *p);
/** @return pointer to variant v's packed 2-bit row (bytes_per_variant bytes). */
static inline const uint8_t *es_plink_row(const es_plink_t *p, uint32_t v)
{
    size_t src = p->var_src ? p->var_src[v] : v;
    return p->bed_map + 3 + src * p->bytes_per_variant;
}

/* ---- VCF/BCF (formats/vcf.c) --------------------------------------------- */

/**
 * Read a VCF, bgzipped VCF or BCF through htslib into an es_plink_t: samples
 * from the header (FID = IID = sample name; sex, parents, phenotype unknown),
 * one variant per biallelic site with GT (A1 = ALT, A2 = REF, CM 0, ID = the
 * ID column or CHR:POS:REF:ALT when it is "."; ALT "." stays "."), genotypes =
 * ALT dosage stored as .bed 2-bit rows in rows_owned.  Call rules: ./. and .
 * missing; a half-missing call (./1), a haploid call at a site with diploid
 * calls, or a call of ploidy > 2 is missing and counted; a site whose called
 * genotypes are all haploid, a site with more than two alleles, or a record
 * without GT is skipped and counted (one warning per category, with the count
 * and the first place; counts also in p->vcf_stats).  With regions, only
 * records overlapping them are read, once each, through the index (ES_ERR_ARG
 * naming the file when there is none, or for a malformed region).  Uses
 * `threads` decompression threads.  Malformed records are ES_ERR_FORMAT naming
 * the file, line, record number and CHR:POS; no samples or no usable site is
 * ES_ERR_DATA.
 * @param out receives the fileset; free with es_plink_close()
 */
int es_vcf_open(es_plink_t **out, const char *path, const char *const *regions, int n_regions,
                int threads, es_vcf_stats_t *stats);

/**
 * Write the selected samples (status[s] != -2; -2 marks a sample removed by
 * --keep/--remove) and all variants of ds as PREFIX.bed/.bim/.fam (SNP-major),
 * readable by plink1.9; .fam column 6 is 2 case, 1 control, -9 unknown.  Files are
 * written to .tmp names and renamed on success.
 */
int es_plink_write(const es_dataset_t *ds, const char *prefix);

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
int es_pheno_read(const char *path, const char *pheno_name, const es_plink_t *p,
                  int8_t *status);

/* ---- selection (formats/select.c) --------------------------------------- */

/** Read a whole text file into a NUL-terminated buffer (free with free()).
 *  `what` names the expected content in messages ("phenotype file"); NULL
 *  gives the generic "text file" messages and leaves out-of-memory to the
 *  caller to report (the .bim/.fam reader).
 *  @return ES_OK, ES_ERR_IO (cannot open/read, a directory), ES_ERR_FORMAT
 *  (NUL byte) or ES_ERR_NOMEM */
int es_text_read(const char *path, const char *what, char **text, size_t *len);

/** Blanks separating fields.  CR counts as a blank so CRLF files parse like
 *  LF files without a separate pass. */
static inline int es_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/** Cut the next line off [*q, end) of a buffer from es_text_read():
 *  NUL-terminates it (*end must already be a NUL) and advances *q.
 *  @return the line start, or NULL at the end of the text */
static inline char *es_next_line(char **q, char *end, char **line_end)
{
    if (*q >= end) return NULL;
    char *ls = *q;
    char *nl = memchr(ls, '\n', (size_t)(end - ls));
    char *le = nl ? nl : end;
    *le = '\0';
    *q = le + (le < end);
    *line_end = le;
    return ls;
}

/** Split the line [p, end) in place: blanks become NULs, the first `max`
 *  field starts go to f[].  *end must already be a NUL.
 *  @return the number of fields found (may exceed max) */
static inline int es_split_fields(char *p, char *end, char **f, int max)
{
    int n = 0;
    while (p < end) {
        while (p < end && es_is_blank(*p)) p++;
        if (p == end) break;
        if (n < max) f[n] = p;
        n++;
        while (p < end && !es_is_blank(*p)) p++;
        *p = '\0'; /* p == end is already NUL */
        if (p < end) p++;
    }
    return n;
}

#define ES_NO_ITEM UINT32_MAX

/**
 * A hash index from string keys to item numbers, for matching IDs without
 * O(n^2) scans.  Item i has key key[i], or the pair (key[i], key2[i]) when
 * key2 is given (FID + IID).  Items sharing a key are chained in item order:
 * es_strindex_find() returns the first, next[i] the following one or
 * ES_NO_ITEM.  The key arrays are borrowed and must outlive the index.
 */
typedef struct {
    const char *const *key, *const *key2;
    uint32_t *tab;  /* first item + 1 of a chain; 0 = empty slot */
    uint32_t *next; /* next item with the same key, or ES_NO_ITEM */
    size_t mask;
} es_strindex_t;

/** Build the index of n items (free with es_strindex_free()).  @return ES_OK or ES_ERR_NOMEM */
int es_strindex_build(es_strindex_t *ix, const char *const *key, const char *const *key2,
                      uint32_t n);
/** @return the first item with key k (and k2 when the index has key2), or ES_NO_ITEM. */
uint32_t es_strindex_find(const es_strindex_t *ix, const char *k, const char *k2);
void es_strindex_free(es_strindex_t *ix);

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
int es_select_samples(const char *path, int keep, const es_plink_t *p,
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
int es_select_chr(const char *list, const es_plink_t *p, uint8_t *vkeep, uint32_t *n_removed);

/**
 * --extract (extract = 1) or --exclude (0): the first field of each line of
 * path is a variant ID; clear vkeep[v] for variants not listed (extract) or
 * listed (exclude).  IDs not in the input are counted in one warning.
 * @param by_id index of p->id
 * @return ES_OK, ES_ERR_IO, ES_ERR_FORMAT or ES_ERR_NOMEM
 */
int es_select_variant_list(const char *path, int extract, const es_plink_t *p,
                           const es_strindex_t *by_id, uint8_t *vkeep, uint32_t *n_removed);

/**
 * --geno and --maf, over the samples with used[s] != 0, for the variants
 * with vkeep[v] set: clear vkeep[v] when the missing-call rate is > geno
 * (geno >= 1: off), then, among those left, when the minor allele frequency
 * of the called genotypes is < maf (maf <= 0: off; a variant with no call
 * has no frequency and stays, as in PLINK 1.9).  Counted from the 2-bit rows
 * a word at a time, in parallel over variants (threads <= 0: OpenMP's default).
 * @return ES_OK or ES_ERR_NOMEM
 */
int es_select_qc(const es_plink_t *p, const uint8_t *used, double maf, double geno, int threads,
                 uint8_t *vkeep, uint32_t *geno_removed, uint32_t *maf_removed);

/**
 * Keep the variants with vkeep[v] set: p->var_src maps kept index -> source
 * row (left NULL when all are kept) and the metadata arrays are compacted in
 * place; p->n_variants becomes the kept count.  Only on a fileset whose
 * var_src is still NULL.  @return ES_OK or ES_ERR_NOMEM
 */
int es_select_compact(es_plink_t *p, const uint8_t *vkeep);

/* ---- dataset (src/dataset.c) ------------------------------------------- */

struct es_dataset_t {
    es_plink_t *plink;
    int8_t *status;    /* per input sample: 0 control, 1 case, -1 no phenotype,
                        * -2 removed by --keep/--remove */
    uint32_t n_case, n_ctrl;
    int require_pheno; /* es_input_opt_t.require_pheno: decides which samples are used */
    /* slot[s]: destination bit of .fam sample s in the packed planes
     * (cases at 0..n_case-1, controls at w_case*64 + 0..n_ctrl-1), or -1 */
    int64_t *slot;
};

/* ---- packed planes (src/pack.c) ----------------------------------------- */

/** Samples are reordered cases first; each class is zero-padded to a
 *  multiple of ES_PAD_BITS so SIMD and tensor-core loads need no tail mask. */
#define ES_PAD_BITS 1024
#define ES_PAD_WORDS (ES_PAD_BITS / 64)

/**
 * Bit planes of a contiguous range of variants.  Invariant: pad bits are zero.
 * Variant v (relative to first) has n_planes planes of `words` uint64_t each,
 * at planes + (size_t)v * n_planes * words:
 *   plane 0  P1 = [g >= 1]   (g = copies of A1, 0..2)
 *   plane 1  P2 = [g == 2]
 *   plane 2  V  = [called]   (present only when n_planes == 3)
 * A missing call has P1 = P2 = V = 0.  Words [0, w_case) hold cases,
 * [w_case, words) controls.
 */
typedef struct {
    uint32_t first, count; /* variant range */
    uint32_t n_case, n_ctrl;
    uint32_t w_case, w_ctrl, words; /* words = w_case + w_ctrl */
    uint32_t n_planes;              /* 2 if no missing call anywhere in the dataset, else 3 */
    uint64_t *planes;               /* 64-byte aligned */
    /* per variant, per class y (0 control, 1 case): called genotype counts */
    uint32_t (*gcount)[2][3];       /* gcount[v][y][g] */
    uint32_t *miss_ct;              /* missing calls among kept samples */
    size_t mapped;                  /* > 0: planes is a mapping of this many bytes of a file */
} es_planes_t;

/** Allocate planes for `count` variants of ds (free with es_planes_free()). */
int es_planes_alloc(es_planes_t *pl, const es_dataset_t *ds, uint32_t count, uint32_t n_planes);
/** As es_planes_alloc(), with the planes in bytes [offset, offset + size) of
 *  the open file fd (MAP_SHARED; offset a multiple of the page size), so that
 *  the kernel can write them back and drop them under memory pressure. */
int es_planes_alloc_mapped(es_planes_t *pl, const es_dataset_t *ds, uint32_t count, uint32_t n_planes,
                           int fd, size_t offset);
/** Bytes of the planes of `count` variants (what es_planes_alloc() takes). */
size_t es_planes_bytes(const es_dataset_t *ds, uint32_t count, uint32_t n_planes);
/** Free the planes' memory (the struct itself is the caller's). */
void es_planes_free(es_planes_t *pl);
/** Pack variants [first, first+count) of ds into pl (count <= allocated). */
int es_pack(const es_dataset_t *ds, uint32_t first, uint32_t count, es_planes_t *pl);
/** @return 1 if any kept sample has a missing call at any variant. */
int es_dataset_any_missing(const es_dataset_t *ds);
/** @return pointer to plane `plane` of variant v (index relative to pl->first). */
static inline const uint64_t *es_plane(const es_planes_t *pl, uint32_t v, uint32_t plane)
{
    return pl->planes + ((size_t)v * pl->n_planes + plane) * pl->words;
}

/* ---- popcount kernels (src/popcount.c) ---------------------------------- */

/** out[0..3] += popcounts of a1&b1, a1&b2, a2&b1, a2&b2 over nw words. */
typedef void (*es_and4_fn)(const uint64_t *restrict a1, const uint64_t *restrict a2,
                           const uint64_t *restrict b1, const uint64_t *restrict b2, size_t nw,
                           uint64_t out[4]);
/** out[0..8] += popcounts of a1&b1, a1&b2, a2&b1, a2&b2, a1&bv, a2&bv,
 *  av&b1, av&b2, av&bv over nw words (the missing-aware path). */
typedef void (*es_and9_fn)(const uint64_t *restrict a1, const uint64_t *restrict a2,
                           const uint64_t *restrict av, const uint64_t *restrict b1,
                           const uint64_t *restrict b2, const uint64_t *restrict bv, size_t nw,
                           uint64_t out[9]);

typedef struct {
    const char *name; /* "scalar", "avx2", "avx512" */
    es_and4_fn and4;
    es_and9_fn and9;
} es_popcount_impl_t;

/** The scalar twins (always compiled; the oracle in tests). */
extern const es_popcount_impl_t es_popcount_scalar;
/** @return the fastest implementation this CPU supports (resolved once). */
const es_popcount_impl_t *es_popcount_best(void);
/** @return all implementations this CPU supports, NULL-terminated (tests). */
const es_popcount_impl_t *const *es_popcount_all(void);

/* ---- pair tables (src/count.c) ------------------------------------------ */

/** A 2x3x3 contingency table: n[y][a*3+b], y 0 control / 1 case,
 *  a, b genotype (copies of A1) of the first and second variant. */
typedef struct {
    uint32_t n[2][9];
} es_table2_t;

/**
 * Count the table of variants a and b (indices relative to their planes).
 * Uses the 4-product path when neither variant has a missing call and the
 * 9-product path otherwise; samples missing at either variant are left out.
 */
void es_count_pair(const es_popcount_impl_t *impl, const es_planes_t *pa, uint32_t a,
                   const es_planes_t *pb, uint32_t b, es_table2_t *t);

/**
 * The tables of variant a against each of variants b0 .. b0+nb-1 of pb:
 * t[k] is the table of (a, b0+k), exactly es_count_pair()'s.  The CPU scan's
 * inner loop: one dispatch for the run of partners, kernels inlined.
 * @param t nb tables
 */
void es_count_block(const es_popcount_impl_t *impl, const es_planes_t *pa, uint32_t a,
                    const es_planes_t *pb, uint32_t b0, uint32_t nb, es_table2_t *t);

/** Reference: the same table from decoded genotypes (0,1,2,3=missing) and
 *  per-sample status (0,1,-1 left out).  Used by tests. */
void es_count_pair_naive(const uint8_t *ga, const uint8_t *gb, const int8_t *status, uint32_t n,
                         es_table2_t *t);

/* ---- statistics (src/stats.c, src/boost.c) ------------------------------ */

/** n ln n for 0 <= n < ES_NLOGN_TAB (0 ln 0 = 0): one table shared by the
 *  statistics, built once (thread-safe) on the first call. */
#define ES_NLOGN_TAB 65536
const double *es_nlogn_table(void);
/** ln n!, as the statistics use it (exact sums for n < 32, then Stirling;
 *  tabulated below ES_NLOGN_TAB).  Also the GPU's K2 table (gpu/engine.cu). */
double es_lnfact(uint64_t n);

/** Result of one statistic evaluation. */
typedef struct {
    double stat;
    double p;      /* NaN when the statistic has no p-value */
    double log10p; /* -log10 p; NaN when none */
    int df;        /* 0 when none */
} es_stat_result_t;

/** Compute statistic s of table t.  Deterministic: a pure function of t. */
void es_stat_compute(es_stat_t s, const es_table2_t *t, es_stat_result_t *r);
/** The two halves of es_stat_compute, so the scan can skip the p-value of
 *  pairs that go nowhere: es_stat_value sets stat and df (p, log10p NaN),
 *  es_stat_pvalue then sets p and log10p.  value + pvalue == compute, bit for bit. */
void es_stat_value(es_stat_t s, const es_table2_t *t, es_stat_result_t *r);
void es_stat_pvalue(es_stat_t s, const es_table2_t *t, es_stat_result_t *r);
/** The chi-square-distributed quantity behind a statistic's p-value: the
 *  statistic itself (boost, chi2) or G = 2 N ln2 I (mi, ig); NaN for k2. */
double es_stat_g(es_stat_t s, const es_table2_t *t, double stat);

/** Individual statistics (exposed for tests). */
double es_stat_boost(const es_table2_t *t);
double es_stat_boost_bound(const es_table2_t *t); /* cheap, always >= es_stat_boost(t) */
double es_stat_chi2(const es_table2_t *t, int *df);
double es_stat_mi(const es_table2_t *t, int *df);  /* bits */
double es_stat_ig(const es_table2_t *t, int *df);  /* bits */
double es_stat_k2(const es_table2_t *t);

/** Upper tail of the chi-square distribution: P(X > x), X ~ chi2(df).
 *  Accurate (relative error < 1e-12) down to 1e-300; 0 below. */
double es_chi2_sf(double x, int df);
/** -log10 of es_chi2_sf(x, df), accurate far beyond the double range of p. */
double es_chi2_log10sf(double x, int df);

/* ---- top-k (src/topk.c) --------------------------------------------------- */

/** Total order on pairs: better statistic first, ties to the lower (i, j).
 *  @return < 0 if a ranks before b, > 0 after, 0 if identical. */
int es_pair_rank_cmp(const es_pair_t *a, const es_pair_t *b, int higher_is_better);

/** A bounded heap keeping the k best pairs under es_pair_rank_cmp. */
typedef struct {
    es_pair_t *heap; /* worst at heap[0] */
    size_t n, k;
    int higher_is_better;
} es_topk_t;

int es_topk_init(es_topk_t *t, size_t k, int higher_is_better);
void es_topk_free(es_topk_t *t);
/** @return 1 if a pair with statistic `stat` could enter (cheap pre-check). */
int es_topk_would_accept(const es_topk_t *t, double stat);
/** Offer a pair; kept if among the k best so far. */
void es_topk_push(es_topk_t *t, const es_pair_t *p);
/** Merge src into dst (src unchanged). */
void es_topk_merge(es_topk_t *dst, const es_topk_t *src);
/** Sort the kept pairs best first, in place (heap property is lost). */
void es_topk_sort(es_topk_t *t);

/* ---- backends (src/backend.c: the only file that knows HAVE_CUDA) -------- */

struct es_scan_ctx;

/** A compute backend: a table of operations (designated initialisers). */
typedef struct {
    const char *name;
    /** @return number of usable devices (CPU: 1). */
    int (*device_count)(void);
    /** Run tiles from the scan's queue until it is empty. */
    int (*run)(struct es_scan_ctx *ctx);
    /** Variants per block when --block is not given (bytes: packed size of
     *  one variant); NULL: the scan's CPU default. */
    uint32_t (*auto_block)(const struct es_scan_ctx *ctx, size_t bytes_per_variant);
} es_backend_t;

extern const es_backend_t es_backend_cpu;
#ifdef HAVE_CUDA
extern const es_backend_t es_backend_gpu;
#endif
/** @return the backend for a device choice, or NULL with *err set. */
const es_backend_t *es_backend_select(const es_opt_t *opt, int *err);
/** @return number of CUDA devices (0 without CUDA). */
int es_backend_gpu_count(void);


/* ---- mutual-information feature selection (src/mi_select.c) -------------- */

/** A discrete dataset, feature-major: x[(size_t)f * n_samples + s] is the state
 *  (0 .. n_states[f]-1) of feature f in sample s; y[s] the class (0 .. n_classes-1).
 *  Missing values are a state of their own (the caller codes them). */
typedef struct {
    uint32_t n_samples, n_features;
    uint16_t *x;
    uint32_t *n_states;  /* per feature, >= 1 */
    uint16_t *y;
    uint32_t n_classes;  /* >= 1 */
    char **names;        /* feature names (may be NULL) */
    char *class_name;    /* class column name (may be NULL) */
} es_dtable_t;

/** Free the arrays of a table (the struct itself is the caller's). */
void es_dtable_free(es_dtable_t *d);

typedef enum {
    ES_MI_MRMR = 0, ES_MI_JMI, ES_MI_DISR, ES_MI_CMIM, ES_MI_ICAP, ES_MI_CONDMI, ES_MI_MIM
} es_mi_method_t;

/** Parse "mrmr", "jmi", "disr", "cmim", "icap", "condmi", "mim".  @return ES_OK or ES_ERR_ARG. */
int es_mi_method_parse(const char *name, es_mi_method_t *out);
const char *es_mi_method_name(es_mi_method_t m);

/** One selected feature: its index, the method's score when it was picked and I(X;Y). */
typedef struct {
    uint32_t feature;
    double score;
    double relevance;
} es_mi_pick_t;

/**
 * Select up to k features with method m, FEAST semantics (Brown et al. 2012),
 * logs base 2; ties to the lowest feature index.  CondMI may stop early (when
 * no candidate adds information); *n_out says how many were picked.
 * @param out k entries
 * @param threads OpenMP threads (0 = default)
 */
int es_mi_select(const es_dtable_t *d, es_mi_method_t m, uint32_t k, int threads,
                 es_mi_pick_t *out, uint32_t *n_out);

/** Where the counting of a selection runs. */
typedef enum {
    ES_MI_GPU_AUTO = 0, /**< the pair engine when every feature has <= 4 states and there are
                             2 classes (not CondMI), else the histogram kernels */
    ES_MI_GPU_HIST,     /**< the histogram kernels only */
    ES_MI_GPU_PAIRS     /**< the pair engine (ES_ERR_ARG when the table does not qualify) */
} es_mi_gpu_path_t;

/** Options of es_mi_select_opt(). */
typedef struct {
    int threads;      /**< CPU threads (0 = all) */
    int device;       /**< -1: count on the CPU; >= 0: on this CUDA device */
    int fixed_point;  /**< 1: entropies from a 16-bit fixed-point log2 table (Q5.11) with
                           exact sums (doc/SELECTION.md); CPU and GPU alike */
    int gpu_path;     /**< es_mi_gpu_path_t */
    int gpu_kernel;   /**< the pair engine's kernel (ES_GPU_KERNEL_*, gpu/gpu.h) */
} es_mi_opt_t;

/** Defaults: all threads, CPU, double, automatic paths. */
void es_mi_opt_init(es_mi_opt_t *o);

/** What a selection ran on (for the log). */
typedef struct {
    char where[160];     /**< "cpu (4 threads)", "gpu 0 (histogram kernels)", ... */
    double seconds_gpu;  /**< seconds spent waiting for the device's rounds */
} es_mi_info_t;

/** es_mi_select() with options: same picks and rules; on a GPU the counts are
 *  exact and the scores agree with the CPU's to rounding (bit for bit with
 *  fixed_point).  info may be NULL. */
int es_mi_select_opt(const es_dtable_t *d, es_mi_method_t m, uint32_t k, const es_mi_opt_t *o,
                     es_mi_pick_t *out, uint32_t *n_out, es_mi_info_t *info);

/** How far two selections agree: *prefix = picks equal from rank 1 on,
 *  *common = features in both. */
void es_mi_agreement(const es_mi_pick_t *a, uint32_t na, const es_mi_pick_t *b, uint32_t nb,
                     uint32_t *prefix, uint32_t *common);

/* ---- numeric tables (formats/table.c) ------------------------------------- */

/** Options for reading a table. */
typedef struct {
    const char *class_col; /* class column name or 1-based number; NULL = last column
                              (CSV/TSV/ARFF) */
    uint32_t bins;         /* equal-width bins for numeric features (default 128) */
} es_table_opt_t;

/**
 * Read a CSV/TSV (header line; delimiter detected), ARFF or LIBSVM file
 * (format from the extension, .csv/.tsv/.txt/.arff/.libsvm/.svm/.svmlight, else
 * sniffed) into a discrete table.  Numeric columns whose values are all integers
 * (within +-2^24, at most 65,535 distinct) keep their distinct values in
 * ascending order; other numeric columns are cut into `bins` equal-width bins
 * over [min, max] (max in the last bin; a constant column is one state); ARFF
 * nominal attributes keep their declared order; text columns are coded in byte
 * order.  Missing values (empty, ?, NA, nan) are a state of their own (the
 * last).  Errors name the file, line and column; on error *out is zeroed.
 */
int es_table_read(const char *path, const es_table_opt_t *opt, es_dtable_t *out);
/** es_table_read with a given read-chunk size in bytes (tests use tiny ones). */
int es_table_read_chunk(const char *path, const es_table_opt_t *opt, es_dtable_t *out,
                        size_t chunk);

#endif /* ES_INTERNAL_H */
