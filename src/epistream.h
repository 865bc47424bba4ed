/* epistream.h -- public API of epistream, genome-wide epistasis scans.
 *
 * Everything a program needs to open a genotype dataset, run an exhaustive
 * 2-way interaction scan and read the ranked result.  All names carry the
 * es_ prefix.  Library functions never print to stdout and never exit: they
 * return 0 (ES_OK) on success and a negative ES_ERR_* code on failure, after
 * logging a message that names the file and what was wrong through the
 * leveled logger (stderr, "[E::function] message").
 *
 * Typical use (see examples/minimal.c):
 *
 *     es_dataset_t *ds; es_opt_t opt; es_scan_t *scan;
 *     es_dataset_open_bfile(&ds, "data", NULL, NULL);
 *     es_opt_init(&opt); opt.top_k = 100;
 *     es_scan_create(&scan, ds, &opt);
 *     es_scan_run(scan);
 *     for (size_t r = 0; r < es_scan_top_count(scan); r++) ... es_scan_top(scan)[r] ...
 *     es_scan_destroy(scan); es_dataset_destroy(ds);
 */
#ifndef EPISTREAM_H
#define EPISTREAM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ES_VERSION "0.1.0"

/* ---- errors ------------------------------------------------------------ */

/** Return codes.  ES_OK is success; every error is negative. */
enum es_err {
    ES_OK = 0,
    ES_ERR_NOMEM = -2,       /**< allocation failed */
    ES_ERR_IO = -3,          /**< a file could not be opened, read or written */
    ES_ERR_FORMAT = -4,      /**< an input file is malformed */
    ES_ERR_ARG = -5,         /**< an invalid option or argument */
    ES_ERR_GPU = -6,         /**< a CUDA runtime call failed */
    ES_ERR_UNSUPPORTED = -7, /**< the request needs something this build or input lacks */
    ES_ERR_DATA = -8         /**< the data cannot be analysed (e.g. no cases) */
};

/** @return a static English description of an ES_ERR_* code. */
const char *es_strerror(int err);

/* ---- logging ----------------------------------------------------------- */

/** Verbosity levels of the one logger; messages above the level are dropped. */
typedef enum {
    ES_LOG_QUIET = 0,
    ES_LOG_ERROR = 1,
    ES_LOG_WARN = 2,
    ES_LOG_INFO = 3,
    ES_LOG_DEBUG = 4
} es_log_level_t;

/** Set the process-wide log level (default ES_LOG_WARN). */
void es_log_set_level(es_log_level_t level);
/** @return the current log level. */
es_log_level_t es_log_get_level(void);

/* ---- datasets ---------------------------------------------------------- */

/** An opened genotype dataset: variant metadata, samples with a phenotype,
 *  and the genotype source (a .bed is memory-mapped, never read whole; a
 *  VCF/BCF is decoded into 2-bit rows in memory). */
typedef struct es_dataset_t es_dataset_t;

/** Metadata of one variant (strings owned by the dataset). */
typedef struct {
    const char *chr; /**< chromosome code as written in the .bim or VCF */
    const char *id;  /**< variant ID (VCF: the ID column, or CHR:POS:REF:ALT when it is ".") */
    int64_t pos;     /**< base-pair position */
    double cm;       /**< genetic position (centimorgans; 0 from VCF) */
    const char *a1;  /**< allele 1, the counted allele (.bim column 5; VCF: ALT) */
    const char *a2;  /**< allele 2 (.bim column 6; VCF: REF) */
} es_variant_info_t;

/**
 * Open a PLINK 1 binary fileset PREFIX.bed/.bim/.fam.
 * @param out         receives the dataset; free with es_dataset_destroy()
 * @param prefix      path prefix of the three files
 * @param pheno_path  PLINK phenotype file (FID IID values...) or NULL to use
 *                    .fam column 6 (1 control, 2 case, 0/-9 missing)
 * @param pheno_name  column name (header) or 1-based number of the phenotype
 *                    column in pheno_path; NULL for the first phenotype column
 * @return ES_OK, or ES_ERR_IO / ES_ERR_FORMAT / ES_ERR_DATA / ES_ERR_NOMEM
 */
int es_dataset_open_bfile(es_dataset_t **out, const char *prefix, const char *pheno_path,
                          const char *pheno_name);

/** What a VCF/BCF reader does with a record of more than two alleles. */
typedef enum {
    ES_VCF_MULTIALLELIC_SPLIT = 0, /**< one biallelic variant per ALT allele, as bcftools
                                        norm -m- (the default) */
    ES_VCF_MULTIALLELIC_SKIP       /**< leave the record out (counted) */
} es_vcf_multiallelic_t;

/** Called now and then with progress (pairs done of total; bytes read of a file's size). */
typedef void (*es_progress_cb)(uint64_t done, uint64_t total, double seconds, void *userdata);

/** Whether a phenotype may be a quantitative trait (es_input_opt_t.qt). */
typedef enum { ES_QT_NO = 0, ES_QT_AUTO, ES_QT_YES } es_qt_mode_t;

/** Where the genotypes come from and which samples and variants are used. */
typedef struct {
    const char *bfile;      /**< PLINK 1 fileset prefix, or NULL */
    const char *vcf;        /**< VCF, bgzipped VCF or BCF path, or NULL (exactly one of the two) */
    const char *pheno;      /**< phenotype file (needed with vcf), or NULL for .fam column 6 */
    const char *pheno_name; /**< phenotype column name or 1-based number, or NULL */
    const char *keep;       /**< file of samples to keep (FID IID or IID per line), or NULL */
    const char *remove;     /**< file of samples to remove, or NULL */
    const char *extract;    /**< file of variant IDs to keep (first field per line), or NULL */
    const char *exclude;    /**< file of variant IDs to drop, or NULL */
    const char *chr;        /**< chromosomes to keep: "1-4,X,22", or NULL for all */
    const char *const *regions; /**< CHR:FROM-TO regions (VCF with an index), or NULL */
    int n_regions;
    double maf;             /**< drop variants with minor allele frequency < maf (0: off) */
    double geno;            /**< drop variants with missing-call rate > geno (1: off) */
    int threads;            /**< decompression threads for VCF/BCF (0 or 1: none) */
    es_progress_cb progress; /**< reading a VCF/BCF: called about twice a second with the
                                  compressed bytes read and the file's size (NULL: none) */
    void *progress_ud;
    int require_pheno;      /**< 1 (default): a case/control phenotype with cases and
                                 controls is required; 0: samples without one are kept
                                 (for conversion and inspection) */
    /* PLINK 1.9's filters and codings, each with PLINK's meaning */
    const char *snps;       /**< variant IDs and spans in file order, "rs1-rs5,rs9"
                                 (PLINK --snps), or NULL */
    const char *from;       /**< with to: the positions of these two variants bound a
                                 window on their chromosome (PLINK --from/--to; either
                                 alone: from it to the end / from the start to it), or NULL */
    const char *to;         /**< see from */
    double mind;            /**< drop samples with missing-call rate > mind over the
                                 selected variants (PLINK --mind; 1: off) */
    double hwe;             /**< drop variants whose Hardy-Weinberg exact-test p < hwe
                                 (PLINK --hwe; 0: off), tested in the founder controls */
    int hwe_all;            /**< 1: --hwe tests every founder, cases too (PLINK 'include-
                                 nonctrl', --hwe-all); 0 (default): controls when there are */
    int pheno_01;           /**< 1: case/control coded 0 control, 1 case (PLINK --1), in
                                 .fam column 6 and in pheno; 0 (default): 1 control, 2 case */
    es_vcf_multiallelic_t vcf_multiallelic; /**< VCF records with more than two alleles:
                                 split (default) or skipped */
    es_qt_mode_t qt;        /**< quantitative phenotypes: refused (ES_QT_NO, default), taken
                                 when a value is not case/control coding (ES_QT_AUTO), or
                                 always (ES_QT_YES, PLINK's values 1/2 read as numbers) */
} es_input_opt_t;

/** Fill opt with the defaults (no input, no selection: maf 0, geno 1, mind 1, hwe 0). */
void es_input_opt_init(es_input_opt_t *opt);

/**
 * Open a dataset: a PLINK fileset or a VCF/BCF, with a case/control phenotype,
 * applying the sample and variant selection while reading.  Filters apply in
 * PLINK 1.9's order: the phenotype and --keep/--remove (samples); --region
 * (VCF, while reading), --chr, --from/--to, --snps, --extract, --exclude
 * (variants); --mind over the variants left (samples); and last --geno,
 * --hwe, then --maf over the samples that remain.  The log says how many
 * samples and variants each step removed.
 * @param out receives the dataset; free with es_dataset_destroy()
 * @return ES_OK, ES_ERR_ARG, ES_ERR_IO, ES_ERR_FORMAT, ES_ERR_DATA (nothing
 *         left to analyse, no cases or no controls) or ES_ERR_NOMEM
 */
int es_dataset_open(es_dataset_t **out, const es_input_opt_t *opt);

/** Release a dataset (NULL is allowed). */
void es_dataset_destroy(es_dataset_t *ds);

/** @return number of variants in the dataset. */
uint32_t es_dataset_n_variants(const es_dataset_t *ds);
/** @return number of samples in the input (.fam or VCF header), selected or not. */
uint32_t es_dataset_n_samples_total(const es_dataset_t *ds);
/** @return number of cases (phenotype 2). */
uint32_t es_dataset_n_cases(const es_dataset_t *ds);
/** @return number of controls (phenotype 1); for a quantitative trait, the
 *  samples with a value. */
uint32_t es_dataset_n_controls(const es_dataset_t *ds);
/** @return 1 if the phenotype is a quantitative trait (es_input_opt_t.qt). */
int es_dataset_is_qt(const es_dataset_t *ds);
/** @return input sample s's quantitative phenotype (NaN: none, or not a
 *  quantitative trait). */
double es_dataset_qt_value(const es_dataset_t *ds, uint32_t s);
/** IDs of input sample s (0-based, < n_samples_total). */
void es_dataset_sample(const es_dataset_t *ds, uint32_t s, const char **fid, const char **iid);
/** @return 1 if input sample s is in the analysis (selected, with a phenotype
 *  when one is required), else 0. */
int es_dataset_sample_used(const es_dataset_t *ds, uint32_t s);
/** @return metadata of variant idx (0-based); idx must be < n_variants. */
es_variant_info_t es_dataset_variant(const es_dataset_t *ds, uint32_t idx);

/**
 * Decode one variant's genotypes for all input samples (in .fam or VCF order).
 * @param out  n_samples_total bytes: 0, 1, 2 = copies of allele 1 (A1),
 *             3 = missing (PLINK --recode A dosage semantics)
 * @return ES_OK, or ES_ERR_ARG when idx >= es_dataset_n_variants(ds)
 */
int es_dataset_decode(const es_dataset_t *ds, uint32_t idx, uint8_t *out);

/* ---- options ----------------------------------------------------------- */

/** Interaction statistics; definitions in doc/epistream.1 (STATISTICS) and
 *  doc/ARCHITECTURE.md. */
typedef enum {
    ES_STAT_BOOST = 0, /**< BOOST log-linear LR test, PLINK 1.9 --fast-epistasis boost */
    ES_STAT_CHI2,      /**< Pearson chi-square of the 2x9 table */
    ES_STAT_MI,        /**< I(Y; A,B) in bits */
    ES_STAT_IG,        /**< I(Y;A,B) - max(I(Y;A), I(Y;B)) in bits */
    ES_STAT_K2,        /**< K2 score (lower is better), no p-value */
    ES_STAT_LINEAR,    /**< quantitative trait: the A x B term of Y ~ A + B + AB by least
                            squares, (beta / se)^2 and its p as PLINK 1.9 --epistasis */
    ES_STAT_LINEAR4,   /**< quantitative trait: the 4-df genotypic interaction F test */
    ES_STAT_LOGISTIC   /**< case/control: the A x B term of a logistic regression on A, B and
                            AB, Wald z^2 and p as PLINK 1.9 --epistasis (beta: log odds ratio) */
} es_stat_t;

/** Which compute devices a scan uses. */
typedef enum { ES_DEVICE_AUTO = 0, ES_DEVICE_CPU, ES_DEVICE_GPU } es_device_t;

/** Scan options; es_opt_init() sets defaults, es_opt_check() validates. */
typedef struct {
    es_stat_t stat;          /**< statistic (default ES_STAT_BOOST) */
    uint32_t top_k;          /**< pairs kept in the ranked list (default 1000) */
    double p_threshold;      /**< stream pairs with p <= this; < 0 disables (default -1) */
    int threads;             /**< CPU threads; 0 = all available (default 0) */
    es_device_t device;      /**< device selection (default ES_DEVICE_AUTO) */
    uint32_t block_variants; /**< variants per tile side; 0 = automatic (default 0) */
    int progress;            /**< print a progress line on stderr (default 0) */
    uint64_t gpu_mask;       /**< GPUs to use, bit d for device d; 0 = every visible one */
    size_t gpu_mem;          /**< device memory per GPU in bytes; 0 = what is free */
    int gpu_kernel;          /**< 0 auto, 1 wgmma, 2 mma, 3 popc (es_gpu_kernel_parse) */
    size_t host_mem;         /**< bytes of packed planes to keep in memory; larger data go to an
                                  unlinked temporary file, mapped (0 = half the physical memory) */
    const char *tmp_dir;     /**< where that file goes (NULL: $TMPDIR, else /tmp) */
    int order;               /**< 2 (default): variant pairs; 3: variant triples (every
                                  triple, or the seeds' extensions: es_scan_set_seeds()) */
    uint32_t pairs_top;      /**< order 3: seed with the pairs_top best pairs of a 2-way
                                  scan of the same data and statistic (0: none) */
    /* runs beyond one uninterrupted process (doc/epistream.1, "CLUSTERS") */
    const char *checkpoint;  /**< state file written every checkpoint_every seconds (NULL:
                                  none; with shard_n: the shard's result) */
    double checkpoint_every; /**< seconds between checkpoints (default 600; 0: after every tile) */
    int resume;              /**< continue from the checkpoint when it exists */
    uint32_t shard_i, shard_n; /**< shard_n > 0: only shard shard_i (0-based) of shard_n; the
                                  state goes to checkpoint, and there are no results */
    const char *const *merge; /**< NULL-terminated shard state files whose merge is the
                                  scan's result (no tile is computed) */
    int cmd_argc;            /**< the command line stored in state files (for merge) */
    char *const *cmd_argv;
    int local;               /**< 1: this process only, never MPI ranks (a scan inside a scan) */
} es_opt_t;

/** Fill opt with the defaults. */
void es_opt_init(es_opt_t *opt);
/** @return ES_OK if opt is consistent, else ES_ERR_ARG after logging why. */
int es_opt_check(const es_opt_t *opt);
/** Parse a GPU counting kernel name ("auto", "wgmma", "mma", "popc").
 *  @return ES_OK or ES_ERR_ARG (logged, naming the choices). */
int es_gpu_kernel_parse(const char *name, int *out);
/** Parse a device choice: "auto", "cpu", "gpu" or "gpu:0,2" (sets device and gpu_mask).
 *  @return ES_OK or ES_ERR_ARG. */
int es_device_parse(const char *text, es_opt_t *opt);
/** Parse a statistic name ("boost", "chi2", "mi", "ig", "k2"). @return ES_OK or ES_ERR_ARG. */
int es_stat_parse(const char *name, es_stat_t *out);
/** @return the name of a statistic. */
const char *es_stat_name(es_stat_t stat);
/** @return 1 if larger values of stat are better, 0 if smaller are (K2). */
int es_stat_higher_is_better(es_stat_t stat);
/** @return 1 if the statistic has a p-value. */
int es_stat_has_p(es_stat_t stat);
/** @return 1 if the statistic tests a quantitative trait (linear, linear4). */
int es_stat_is_qt(es_stat_t stat);

/* ---- scans ------------------------------------------------------------- */

/** One scored variant pair (i < j, 0-based dataset indices). */
typedef struct {
    uint32_t i, j;
    uint32_t n;    /**< samples in this pair's table (both genotypes called) */
    int df;        /**< degrees of freedom of the p-value (0 when none) */
    double stat;   /**< the statistic */
    double p;      /**< p-value (NaN when the statistic has none) */
    double log10p; /**< -log10 p, accurate where p underflows (NaN when none) */
    double beta;   /**< ES_STAT_LINEAR, ES_STAT_LOGISTIC: the interaction coefficient
                        (logistic: a log odds ratio; NaN otherwise, or when the fit failed) */
} es_pair_t;

/** One scored variant triple (i < j < k, 0-based dataset indices). */
typedef struct {
    uint32_t i, j, k;
    uint32_t n;    /**< samples in this triple's table (called at all three) */
    int df;        /**< degrees of freedom of the p-value (0 when none) */
    double stat;
    double p;      /**< NaN when the statistic has none */
    double log10p;
} es_triple_t;

/** Per-variant summary over all its triples. */
typedef struct {
    uint32_t best_i, best_j, best_k; /**< its best triple (UINT32_MAX if none) */
    double best_stat;
    double best_p;   /**< NaN when none */
    uint64_t n_sig;  /**< triples with p <= p_threshold (0 without threshold) */
    uint64_t n_tot;  /**< triples tested with this variant */
} es_summary3_t;

/** Per-variant summary over all its pairs. */
typedef struct {
    uint32_t best_partner; /**< index of the best partner (UINT32_MAX if none) */
    double best_stat;      /**< statistic of the best pair */
    double best_p;         /**< its p-value (NaN when none) */
    uint64_t n_sig;        /**< pairs with p <= p_threshold (0 without threshold) */
    uint64_t n_tot;        /**< pairs tested with this variant */
} es_summary_t;

/** Called for each pair with p <= p_threshold, in ascending (i, j) order,
 *  from one thread at a time.  Return non-zero to abort the scan
 *  (es_scan_run() then returns ES_ERR_IO; the callback reports why). */
typedef int (*es_sig_cb)(const es_pair_t *pair, void *userdata);

/** As es_sig_cb, for the triples of an order-3 scan, in ascending (i, j, k) order. */
typedef int (*es_sig3_cb)(const es_triple_t *triple, void *userdata);



/** A configured scan over one dataset. */
typedef struct es_scan_t es_scan_t;

/**
 * Create a scan.  Validates opt (es_opt_check) and the dataset: at least 2
 * variants, and cases and controls among its samples (a dataset opened with
 * require_pheno = 0 may have neither: ES_ERR_DATA).
 * @param out  receives the scan; free with es_scan_destroy().  The dataset must
 *             outlive the scan.
 * @return ES_OK, ES_ERR_ARG, ES_ERR_DATA, ES_ERR_UNSUPPORTED (e.g. --device gpu
 *         without a usable GPU backend) or ES_ERR_NOMEM
 */
int es_scan_create(es_scan_t **out, es_dataset_t *ds, const es_opt_t *opt);
/** Set the callback receiving pairs with p <= p_threshold (optional). */
void es_scan_set_sig_callback(es_scan_t *scan, es_sig_cb cb, void *userdata);
/** Set the callback receiving triples with p <= p_threshold (order 3; optional). */
void es_scan_set_sig3_callback(es_scan_t *scan, es_sig3_cb cb, void *userdata);
/**
 * Order 3: score only the triples that extend these pairs (pairs[2p],
 * pairs[2p+1], dataset indices, in either order) by every other variant,
 * each triple once however many of its pairs are seeds.  Without seeds (and
 * without opt.pairs_top) an order-3 scan tests every triple.  Copies the list.
 * @return ES_OK, ES_ERR_ARG (an index out of range, or i == j), ES_ERR_NOMEM
 */
int es_scan_set_seeds(es_scan_t *scan, const uint32_t *pairs, size_t n_pairs);
/** Set the progress callback (optional). */
void es_scan_set_progress_callback(es_scan_t *scan, es_progress_cb cb, void *userdata);
/** Run the exhaustive 2-way scan.
 *  @return ES_OK, ES_ERR_NOMEM, ES_ERR_IO (the planes file, or a callback that
 *          returned non-zero), ES_ERR_GPU or ES_ERR_UNSUPPORTED (device) */
int es_scan_run(es_scan_t *scan);
/** @return the ranked pairs, best first (valid until es_scan_destroy()). */
const es_pair_t *es_scan_top(const es_scan_t *scan);
/** @return number of ranked pairs (min(top_k, number of pairs)). */
size_t es_scan_top_count(const es_scan_t *scan);
/** Order 3: the ranked triples, best first, and their number. */
const es_triple_t *es_scan_top3(const es_scan_t *scan);
size_t es_scan_top3_count(const es_scan_t *scan);
/** Order 3: the per-variant summary (n_variants entries). */
const es_summary3_t *es_scan_summary3(const es_scan_t *scan);
/** Order 3: the seed pairs in use (2 per pair, i < j, sorted, duplicates
 *  removed), NULL without seeds. */
const uint32_t *es_scan_seeds(const es_scan_t *scan, size_t *n_pairs);
/** @return the per-variant summary array (n_variants entries). */
const es_summary_t *es_scan_summary(const es_scan_t *scan);
/** @return the name of the backend that ran ("cpu", ...). */
const char *es_scan_backend_name(const es_scan_t *scan);
/** @return what the scan ran on, e.g. "2 GPU(s): 0 NVIDIA H100 (mma), 1 ...";
 *  "" for the CPU. */
const char *es_scan_device_info(const es_scan_t *scan);
/** @return the number of pairs (order 3: triples) scored. */
uint64_t es_scan_pairs_done(const es_scan_t *scan);
/** Wall-clock seconds of the last run: packing genotypes into *pack_seconds,
 *  counting and scoring into *scan_seconds. */
void es_scan_timings(const es_scan_t *scan, double *pack_seconds, double *scan_seconds);
/** Release a scan (NULL is allowed). */
void es_scan_destroy(es_scan_t *scan);

/* ---- simulation -------------------------------------------------------- */

/** Options of the genotype simulator. */
typedef struct {
    uint32_t n_samples;  /**< samples (half cases, half controls) */
    uint32_t n_variants; /**< variants */
    uint32_t n_pairs;    /**< planted interacting pairs (default 1) */
    uint32_t n_triples;  /**< planted purely 3-way interactions (default 0): variants with
                              MAF 0.5 whose heterozygosity XOR sets the risk */
    double effect;       /**< interaction odds ratio per planted pair or triple (default 2.0) */
    double missing;      /**< probability that a call is missing (default 0) */
    double maf_min, maf_max; /**< minor allele frequencies drawn uniformly (0.05, 0.5) */
    uint64_t seed;       /**< random seed (default 1) */
    int qt;              /**< 1: a quantitative trait instead of case/control (default 0);
                              effect is then the interaction coefficient (see es_sim_write()) */
    uint32_t n_covariates; /**< covariates written to PREFIX.covar (default 0): PC1 (ancestry,
                              a confounder), AGE, SEX, PC2, PC3, ... */
} es_sim_opt_t;

/** Fill opt with the simulator defaults. */
void es_sim_opt_init(es_sim_opt_t *opt);
/**
 * Write PREFIX.bed/.bim/.fam and PREFIX.truth (planted pairs, then planted
 * triples under a header of their own when there are any).  The planted pairs
 * have a purely epistatic effect: no marginal effect of either variant.  The
 * planted triples have a purely 3-way one: no single variant and no pair of a
 * triple carries any signal.  Needs n_variants >= 2 n_pairs + 3 n_triples.
 * With qt, the trait is y = effect * sum over pairs of (a - E a)(b - E b) (+ effect * (+-1/2) per
 * triple) + covariate effects + N(0, 1), written to .fam column 6 and PREFIX.pheno.  With
 * n_covariates, PREFIX.covar holds them and PREFIX.confounded lists the variants whose allele
 * frequency follows the ancestry PC1, which also shifts the trait (or the log odds of being a
 * case), so that they show spurious association unless PC1 is adjusted for (sim.c's comment).
 * @return ES_OK, ES_ERR_ARG, ES_ERR_IO or ES_ERR_NOMEM
 */
int es_sim_write(const es_sim_opt_t *opt, const char *prefix);

#ifdef __cplusplus
}
#endif
#endif /* EPISTREAM_H */
