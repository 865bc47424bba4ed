/* nsga.h -- multi-objective feature selection with NSGA-II (Deb et al. 2002)
 * and fitness evaluations spread over the CPU and GPUs by self-scheduling.
 *
 * An individual is a bit mask over the features of a numeric table (or of
 * variants' genotype codes).  Its two minimised objectives are either a
 * K-means clustering's (intra-cluster spread, minus inter-centroid distance)
 * or a cross-validated classifier's (F1 = selected / all features, F2 = the
 * pooled stratified k-fold error of k-NN or of the nearest centroid).  The
 * population's evaluations are claimed in chunks from one atomic counter by
 * one host thread per device (the CPU pool counts as one); every random draw
 * comes from a generator seeded by (seed, generation, individual), so the
 * results are the same bytes whatever the threads and devices.
 *
 * Internal (not installed); depends on src/util, formats (tables), src/data
 * (genotypes) and the GPU door gpu/nsga/nsga_gpu.h. */
#ifndef ES_NSGA_H
#define ES_NSGA_H

#include <stdint.h>
#include <stdio.h>

#include "data.h"
#include "table.h"
#include "util.h"

/** The objectives. */
typedef enum {
    ES_NSGA_KMEANS = 0, /**< "kmeans": F1 mean distance to the own centroid, F2 minus the mean
                             distance between centroids */
    ES_NSGA_KNN,        /**< "knn-error,size": F1 selected/all, F2 k-NN CV error */
    ES_NSGA_NC,         /**< "nc-error,size": F1 selected/all, F2 nearest-centroid CV error */
    ES_NSGA_ZDT1        /**< "zdt1": the ZDT1 benchmark over a binary coding (tests only) */
} es_nsga_obj_t;

/** Parse "kmeans", "knn-error,size" (or "knn"), "nc-error,size" (or "nc"),
 *  "zdt1".  @return ES_OK or ES_ERR_ARG */
int es_nsga_obj_parse(const char *s, es_nsga_obj_t *out);
/** The canonical name of an objective pair ("knn-error,size"). */
const char *es_nsga_obj_name(es_nsga_obj_t o);

/* ---- the data ------------------------------------------------------------------ */

/** The samples as the kernels read them.  Features are z-scored (population
 *  standard deviation; a constant feature is all 0).  For the classifier
 *  objectives the samples are laid out fold by fold, each fold in input
 *  order and padded with zero columns to a multiple of ES_NSGA_LANES;
 *  orig[] maps a slot to its input sample (UINT32_MAX for a pad).  Owned by
 *  the problem; free with es_nsga_data_free(). */
#define ES_NSGA_LANES 16
/** The largest k of k-NN. */
#define ES_NSGA_KNN_MAX 64
typedef struct {
    uint32_t n, p;        /**< samples and features */
    uint32_t n_slots;     /**< slots (samples + pads), a multiple of ES_NSGA_LANES */
    float *xc;            /**< column-major: xc[f * n_slots + slot] (pads 0) */
    float *xr;            /**< row-major: xr[slot * p + f] */
    uint32_t *orig;       /**< n_slots: the input sample of a slot, UINT32_MAX for a pad */
    uint16_t *y;          /**< n_slots: class of a slot (0 for a pad) */
    uint32_t n_classes;   /**< classes (0 without a class) */
    uint32_t n_folds;     /**< folds (0: no cross-validation) */
    uint32_t fold_off[33];/**< fold k's slots are [fold_off[k], fold_off[k] + fold_n[k]) */
    uint32_t fold_n[32];
    char **names;         /**< p feature names */
    char **class_values;  /**< n_classes labels as text (for the log) */
} es_nsga_data_t;

void es_nsga_data_free(es_nsga_data_t *d);

/** How a table becomes data. */
typedef struct {
    const char *class_col;  /**< name or 1-based number; NULL = the last column */
    int no_class;           /**< kmeans only: every column is a feature (no class) */
    char **features;        /**< the feature columns by name, n_features of them; NULL = every
                                 column but the class */
    uint32_t n_features;
    uint32_t folds;         /**< CV folds (classifier objectives; 0 = none) */
    uint32_t cv_seed;       /**< the folds' shuffle: numpy RandomState(cv_seed) as
                                 sklearn's StratifiedKFold(shuffle=True) draws it */
} es_nsga_load_opt_t;

/**
 * Read a CSV/TSV/ARFF table (es_ntable_read()) into d: the features must be
 * numeric and complete (an error names the file, the column and the row
 * otherwise), the class any column (numbers, nominal or text; its values
 * sorted as numbers, or by their text).
 * @return ES_OK, ES_ERR_IO, ES_ERR_FORMAT, ES_ERR_ARG (a column not found),
 *         ES_ERR_DATA (too few samples for the folds) or ES_ERR_NOMEM
 */
int es_nsga_data_from_table(const char *path, const es_nsga_load_opt_t *opt, es_nsga_data_t *d);

/**
 * Genotype codes 0/1/2 of variants var[0..n_var) of ds as features (a
 * missing call takes the variant's mean), over the samples in the analysis;
 * the class is case/control.
 * @return as es_nsga_data_from_table()
 */
int es_nsga_data_from_variants(const es_dataset_t *ds, const uint32_t *var, uint32_t n_var,
                               const es_nsga_load_opt_t *opt, es_nsga_data_t *d);

/**
 * Read the FEATURE column of a PREFIX.select.tsv (RANK FEATURE SCORE
 * RELEVANCE), in file order.  @param names receives n malloc'd strings in a
 * malloc'd array (free each, then it).  @return ES_OK, ES_ERR_IO,
 * ES_ERR_FORMAT (no FEATURE column, a short line, no feature: the file and
 * line named) or ES_ERR_NOMEM
 */
int es_nsga_read_names(const char *path, char ***names, uint32_t *n);

/**
 * StratifiedKFold(n_splits=k, shuffle=True, random_state=seed).split()'s
 * test folds of labels y[0..n) (any values; classes in order of first
 * appearance, as sklearn encodes them): fold[s] in [0, k).
 * @return ES_OK, ES_ERR_ARG (k < 2 or k > n) or ES_ERR_NOMEM
 */
int es_nsga_stratified_folds(const uint32_t *y, uint32_t n, uint32_t k, uint32_t seed,
                             uint8_t *fold);

/* ---- NSGA-II --------------------------------------------------------------------- */

/** What the run does (es_nsga_opt_init() sets the defaults). */
typedef struct {
    es_nsga_obj_t obj;
    uint32_t population;   /**< N (even, >= 4; default 100) */
    uint32_t generations;  /**< G (default 100) */
    uint64_t seed;         /**< default 1 */
    double crossover;      /**< probability that a pair is recombined (uniform crossover,
                                each bit swapped with probability 1/2); default 0.75 */
    double mut_on;         /**< probability that a 0 bit becomes 1; < 0: 1 / features */
    double mut_off;        /**< probability that a 1 bit becomes 0; < 0: 2 / features */
    uint32_t max_ones;     /**< initial individuals have 1..max_ones ones (uniform);
                                0: every bit 1 with probability 1/2; default: features */
    uint32_t knn_k;        /**< k of k-NN (default 5) */
    uint32_t clusters;     /**< K of K-means (default 3) */
    uint32_t kmeans_iter;  /**< Lloyd iterations at most (default 20) */
    uint32_t zdt_vars;     /**< ZDT1: variables (the bits per variable = features / vars) */
    int threads;           /**< CPU threads (0 = all, less one per GPU in devices) */
    /** The devices: "cpu", "gpu:N", comma-separated in one string (NULL = "cpu"). */
    const char *devices;
    /** Called after each generation (may be NULL): gen done, of total. */
    void (*progress)(uint32_t gen, uint32_t total, double secs, void *ud);
    void *progress_ud;
} es_nsga_opt_t;

void es_nsga_opt_init(es_nsga_opt_t *o);
/** Check o against the data (p features, classes): @return ES_OK or
 *  ES_ERR_ARG after logging why. */
int es_nsga_opt_check(const es_nsga_opt_t *o, const es_nsga_data_t *d);

/** Per-device work of a run. */
typedef struct {
    char name[96];       /**< "cpu (2 threads, avx512)", "gpu:0 (NVIDIA H100 ...)" */
    uint64_t evaluations;
    uint64_t chunks;
    double seconds;      /**< wall time spent evaluating */
} es_nsga_devstat_t;

#define ES_NSGA_MAX_DEVICES 17

/** A run's results.  Free with es_nsga_result_free(). */
typedef struct {
    uint32_t p;            /**< mask bits */
    uint32_t words;        /**< 64-bit words per mask */
    uint32_t n_front;      /**< distinct individuals of the final first front */
    uint64_t *front_mask;  /**< n_front * words, sorted by (F1, F2, mask) */
    double *front_f;       /**< n_front * 2 */
    double *hv;            /**< generations + 1 hypervolumes (generation 0 = the initial) */
    uint32_t n_hv;
    double hv_ref[2];      /**< the reference point */
    uint64_t evaluations;
    double seconds_eval, seconds_total;
    uint32_t n_dev;
    es_nsga_devstat_t dev[ES_NSGA_MAX_DEVICES];
} es_nsga_result_t;

void es_nsga_result_free(es_nsga_result_t *r);

/**
 * Run NSGA-II on d (for ZDT1 only d->p counts: the bits) with options o (checked).
 * @return ES_OK, ES_ERR_ARG, ES_ERR_NOMEM, ES_ERR_GPU or ES_ERR_UNSUPPORTED
 *         (a GPU asked for and not there); *r then zeroed
 */
int es_nsga_run(const es_nsga_data_t *d, const es_nsga_opt_t *o, es_nsga_result_t *r);

/** Write r as PREFIX.front.tsv lines (header N_FEATURES F1 F2 FEATURES;
 *  F1, F2 as %.10g; the names comma-separated) to fp. */
int es_nsga_write_front(FILE *fp, const es_nsga_result_t *r, const es_nsga_data_t *d);
/** Write the hypervolumes (header GENERATION HV; the reference point is
 *  r->hv_ref, which the log states). */
int es_nsga_write_hv(FILE *fp, const es_nsga_result_t *r);

/* ---- the parts, for tests ------------------------------------------------------- */

/**
 * The non-dominated sort of n points f[2i], f[2i+1] (minimised): Deb's ranks,
 * rank[i] = 0 for the first front, 1 for the next, ... (two objectives: in
 * O(n log n)).
 * @return the number of fronts, or < 0 (ES_ERR_NOMEM)
 */
int es_nsga_sort(const double *f, uint32_t n, uint32_t *rank);

/** Crowding distance of the m points idx[0..m) of one front (Deb: per
 *  objective, sorted (ties by index), the extremes infinite, the others the
 *  normalised gap between neighbours, summed); dist[k] is idx[k]'s.
 *  @return ES_OK or ES_ERR_NOMEM */
int es_nsga_crowding(const double *f, const uint32_t *idx, uint32_t m, double *dist);

/** The area dominated by the points f[0..n) (minimised) and bounded by the
 *  reference point ref (points not strictly better than ref in both
 *  objectives add nothing).  @return the hypervolume */
double es_nsga_hv(const double *f, uint32_t n, const double ref[2]);

/** Evaluate one mask on the CPU with the problem's scalar kernel (simd 0) or
 *  the fastest this CPU has (1); gen_init: the K-means initial centroids
 *  (clusters sample numbers), else NULL.  f gets the two objectives.
 *  @return ES_OK or ES_ERR_NOMEM */
int es_nsga_eval_one(const es_nsga_data_t *d, const es_nsga_opt_t *o, const uint64_t *mask,
                     const uint32_t *init, int simd, double f[2]);

#endif /* ES_NSGA_H */
