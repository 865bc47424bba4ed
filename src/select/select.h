/* select.h -- mutual-information feature selection (mRMR, JMI, DISR, CMIM,
 * ICAP, CondMI, MIM; FEAST semantics) over a discrete table, counted on the
 * CPU or a GPU.  Internal (not installed); depends on formats/table.h,
 * src/backend and below. */
#ifndef ES_SELECT_H
#define ES_SELECT_H

#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "table.h"

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

/** es_mi_opt_t.device: the faster device for the table at hand. */
#define ES_MI_DEVICE_AUTO (-2)

/** Options of es_mi_select_opt(). */
typedef struct {
    int threads;      /**< CPU threads (0 = all) */
    int device;       /**< -1: count on the CPU; >= 0: on this CUDA device;
                           ES_MI_DEVICE_AUTO: where the backends' cost estimates say
                           the selection is faster (said in the log) */
    int fixed_point;  /**< 1: entropies from a 16-bit fixed-point log2 table (Q5.11) with
                           exact sums (doc/SELECTION.md); CPU and GPU alike */
    int gpu_path;     /**< es_mi_gpu_path_t */
    int gpu_kernel;   /**< the pair engine's kernel (ES_GPU_KERNEL_*, gpu/gpu.h) */
    /** Optional (NULL: none): called on the calling thread after each pick
     *  with the picks so far, k, and the seconds since the first round began
     *  (the CLI's progress line on a terminal); ud is progress_ud. */
    void (*progress)(uint32_t picked, uint32_t k, double secs, void *ud);
    void *progress_ud;
} es_mi_opt_t;

/** Defaults: all threads, CPU, double, automatic paths. */
void es_mi_opt_init(es_mi_opt_t *o);

/** What a selection ran on (for the log). */
typedef struct {
    char where[160];     /**< "cpu (4 threads)", "gpu 0 (histogram kernels)", ... */
    double seconds_gpu;    /**< seconds in the device's round kernels */
    double seconds_open;   /**< setting up the counting (device: opening it, the table's upload) */
    double seconds_rounds; /**< the relevance pass and the rounds, host work included */
    double seconds_count;  /**< of which counting the rounds after the relevance pass */
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

/* ---- what select and scan --refine share (refine.c) ------------------------- */

/** What a selection did, for the log and the closing line. */
typedef struct {
    uint32_t n_samples, n_features, n_classes;
    uint32_t n_selected; /**< < min(k, n_features) when CondMI stopped early */
    double seconds;      /**< building the table (variants) and selecting */
    char where[160];     /**< what counted ("cpu (4 threads)", "gpu 0 (...)") */
    double seconds_gpu;  /**< in the device's round kernels */
    int fixed_point;     /**< the output comes from the fixed-point entropies */
    uint32_t n_double, agree_prefix, agree_common; /**< the double selection and the agreement */
} es_select_info_t;

/** How a selection runs: threads, device (-1: CPU), fixed point, GPU path
 *  and kernel (es_mi_opt_t) chosen from --device/--gpu-kernel/--gpu-path/
 *  --fixed-point. */
typedef es_mi_opt_t es_select_opt_t;

/** The device of a selection (es_mi_opt_t.device) from a --device choice:
 *  -1 (CPU), or the lowest GPU of gpu_mask (GPU 0 when 0), which starts
 *  opening at once (the backend's prepare) so that reading the input hides
 *  it; auto gives ES_MI_DEVICE_AUTO when a GPU is visible (the selection
 *  then weighs the two devices for its table), else -1.  Check the choice
 *  with es_backend_check() first. */
int es_select_device(es_device_t dev, uint64_t gpu_mask);

/**
 * The distinct variants of n_pairs pairs, in ascending index order (the
 * survivors of a scan).  @param var receives a malloc'd array (free()).
 * @return ES_OK or ES_ERR_NOMEM
 */
int es_select_pair_variants(const es_dataset_t *ds, const es_pair_t *pairs, size_t n_pairs,
                            uint32_t **var, uint32_t *n_var);

/**
 * The survivors of a scan read back from its pair list (select --from): the
 * variants of the pairs of a .top.tsv, .sig.tsv or .epi.cc (columns SNP1 and
 * SNP2; CHR1, CHR2, POS1, POS2 when present tell apart variants that share
 * an ID), distinct, in ascending index order.  Every variant must be in ds
 * (with its selection) exactly once.
 * @param var receives a malloc'd array (free()); NULL on error
 * @return ES_OK, or ES_ERR_IO / ES_ERR_FORMAT / ES_ERR_DATA / ES_ERR_NOMEM
 *         with the file, line and what was wrong logged
 */
int es_select_read_pairs(const es_dataset_t *ds, const char *path, uint32_t **var,
                         uint32_t *n_var);
/** The pairs themselves of such a file, in file order (scan --pairs-from):
 *  *pairs gets 2 * *n_pairs dataset indices (free()).
 *  @return as es_select_read_pairs() */
int es_select_read_pair_list(const es_dataset_t *ds, const char *path, uint32_t **pairs,
                             size_t *n_pairs);

/**
 * The survivors of a scan read back from its .summary.tsv (select
 * --from-summary FILE --n N): the n variants with the highest BEST_STAT
 * (ties in file order; NA lines never chosen; all of them, warned, when
 * fewer have one), in ascending index order.  Columns SNP and BEST_STAT; CHR
 * and POS when present.
 * @param var receives a malloc'd array (free()); NULL on error
 * @return as es_select_read_pairs()
 */
int es_select_read_summary(const es_dataset_t *ds, const char *path, uint32_t n, uint32_t **var,
                           uint32_t *n_var);

/**
 * Select up to k features of d with method m (as so says) and write the
 * .select.tsv lines (header included) to fp: RANK FEATURE SCORE RELEVANCE,
 * scores %.12g.  k above the number of features selects them all (warned).
 * With fixed point, the double selection runs too and the agreement of the
 * two goes to info and the log.
 */
int es_select_table(const es_dtable_t *d, es_mi_method_t m, uint32_t k, const es_select_opt_t *so,
                    FILE *fp, es_select_info_t *info);

/**
 * es_select_table() over variants var[0..n_var) of ds (distinct, ascending):
 * one feature per variant, states 0/1/2 copies of A1 and 3 = missing call,
 * over the samples in the analysis (es_dataset_sample_used()); the class is
 * case (1) / control (0).  scan --refine and select --from build the same
 * table from the same variants, so their outputs are byte-identical.
 */
int es_select_variants(const es_dataset_t *ds, const uint32_t *var, uint32_t n_var,
                       es_mi_method_t m, uint32_t k, const es_select_opt_t *so, FILE *fp,
                       es_select_info_t *info);

/** The selection's lines of a PREFIX.log (method, k, counts, seconds). */
void es_select_write_log(FILE *fp, es_mi_method_t m, uint32_t k, const es_select_info_t *info);

#endif /* ES_SELECT_H */
