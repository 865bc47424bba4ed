/* mdfs.h -- multidimensional feature selection (MDFS, Mnich & Rudnicki):
 * random quantile discretisations, the information gain of every variable
 * in every k-tuple (k = 1..5) counted with bit vectors, each variable's
 * maximum, p-values from the chi-square null refitted on contrast
 * variables, Holm or Benjamini-Hochberg adjustment.  The semantics are the
 * MDFS package's (PyPI mdfs 1.5.2, doc/MDFS.md); its discretisation and its
 * contrast variables are reproduced bit for bit on the same seed.
 * Internal (not installed); depends on src/util, src/stats (the chi-square
 * tail) and its GPU door gpu/mdfs/mdfs_gpu.h.  Threading: es_mdfs_run() and
 * es_mdfs_max_ig() use the OpenMP threads in effect and allocate their own per-thread state; the
 * other functions are thread-safe (no shared state). */
#ifndef ES_MDFS_H
#define ES_MDFS_H

#include <stddef.h>
#include <stdint.h>

#include "epistream.h"
#include "stats.h"

#define ES_MDFS_MAX_DIM 5
#define ES_MDFS_MAX_DIV 15

/** Where the tuples are counted. */
typedef enum { ES_MDFS_DEV_CPU = 0, ES_MDFS_DEV_GPU = 1, ES_MDFS_DEV_AUTO = 2 } es_mdfs_device_t;

/** p-value adjustment. */
typedef enum { ES_MDFS_HOLM = 0, ES_MDFS_BH = 1 } es_mdfs_adjust_t;

/** Options; es_mdfs_opt_init() sets MDFS's defaults. */
typedef struct {
    int dim;             /* k, 1..5 (default 1) */
    int divisions;       /* thresholds per variable, 1..15 (default 1): m = divisions + 1 classes */
    int discretizations; /* random discretisations, >= 1 (default 1) */
    double range;        /* threshold spread in [0, 1]; < 0: MDFS's suggested range (default) */
    uint32_t seed;       /* 0 .. 2^31-1 (default 0) */
    double pc_xi;        /* pseudocount xi > 0 (default 0.25) */
    int64_t n_contrast;  /* contrast variables; -1: MDFS's default (0 for the raw fit,
                            else max(30, variables)) */
    es_mdfs_adjust_t adjust;
    double level;        /* relevance level for the adjusted p-values (default 0.05) */
    uint64_t n_tuples;   /* keep the N best (tuple, variable) IGs (default 0: none) */
    int discrete;        /* 1: the data are classes 0..divisions already (genotypes):
                            no discretisation, discretizations must be 1 */
    es_mdfs_device_t device; /* default ES_MDFS_DEV_CPU; GPU: --dim 2 and 3 without
                                --tuples (doc/MDFS.md), the same output bytes */
    uint64_t gpu_mask;   /* GPUs, bit d for device d; 0: every visible one */
} es_mdfs_opt_t;

void es_mdfs_opt_init(es_mdfs_opt_t *o);
/** Check o for n_vars variables of n_obj objects (logs the reason, naming the
 *  option).  @return ES_OK or ES_ERR_ARG */
int es_mdfs_opt_check(const es_mdfs_opt_t *o, uint32_t n_obj, uint32_t n_vars);

/** MDFS's suggested range for n objects (get_suggested_range with k = 3).
 *  @return ES_OK, or ES_ERR_ARG when MDFS would refuse it ("too small sample"),
 *  the value still in *range */
int es_mdfs_suggested_range(uint32_t n, int dim, int divisions, double *range);

/**
 * Discretise one variable as MDFS does: an mt19937 chain seeded by seed, then
 * its first output ^ disc, then that one's first output ^ feature draws
 * divisions + 1 uniforms u in [1 - range, 1 + range]; threshold d is the
 * sorted value at index sum_{i <= d} lround(u_i * n / sum u) (at most n - 1);
 * out[o] = the number of thresholds x[o] exceeds.
 * @param scratch n doubles (the values at those ranks are selected in it)
 */
void es_mdfs_discretize(uint32_t seed, uint32_t disc, uint32_t feature, int divisions, uint32_t n,
                        const double *x, double *scratch, uint8_t *out, double range);

/**
 * MDFS's contrast variables (gen_contrast_variables): n_contrast source
 * variables drawn with an mt19937 seeded by seed (distinct when n_contrast <=
 * n_vars), each shuffled.  x is variable-major (x + v * n); out gets
 * n_contrast * n values, idx the source variables.
 * @return ES_OK or ES_ERR_NOMEM
 */
int es_mdfs_contrast(uint32_t seed, uint32_t n, uint32_t n_vars, const double *x,
                     uint32_t n_contrast, double *out, uint32_t *idx);

/** One kept (tuple, variable) IG. */
typedef struct {
    double ig;
    uint32_t var;  /* the variable whose IG it is (one of tuple) */
    uint32_t disc; /* the discretisation */
    uint32_t tuple[ES_MDFS_MAX_DIM];
} es_mdfs_tuple_t;

/** What a run computes.  Free with es_mdfs_result_free(). */
typedef struct {
    uint32_t n_vars, n_contrast, dim;
    double *max_ig;      /* n_vars: max over tuples and discretisations (MDFS units) */
    uint32_t *arg_tuple; /* n_vars * dim: the tuple that gave it (ties: the lower
                            discretisation, then the lexicographically lower tuple) */
    uint32_t *arg_disc;  /* n_vars */
    double *contrast_ig; /* n_contrast: a contrast variable's max over tuples of dim - 1
                            variables with it, and discretisations */
    uint32_t *contrast_idx; /* n_contrast: their source variables */
    double *p, *adj_p;   /* n_vars */
    int *relevant;       /* n_vars: adj_p passes the level (statsmodels' multipletests) */
    const char *fit;     /* "raw", "lin" or "exp" */
    double fit_alpha;    /* the fitted parameter (lin, exp) */
    es_mdfs_tuple_t *tuples; /* the n_tuples best, IG descending (ties as above, then var) */
    uint64_t n_tuples;
    uint64_t tuples_done;    /* tuples counted (all discretisations, contrast ones included) */
    char device[192];        /* where they were counted: "cpu (KERNEL)" or the GPUs' names */
    double count_seconds;    /* the counting (every discretisation, after discretising) */
    double kernel_seconds;   /* of which GPU kernels (the slowest device's, summed) */
    uint64_t rescored;       /* tuples the GPU returned for the exact IGs */
    double pack_seconds;     /* of the counting: the bit vectors made (every discretisation) */
    double upload_seconds;   /* the GPUs' uploads (and k = 3 pairs pass), the slowest device's */
    double rescore_seconds;  /* the host's exact IGs of the returned tuples */
} es_mdfs_result_t;

void es_mdfs_result_free(es_mdfs_result_t *r);

/**
 * The whole MDFS run (the package's run()): contrast variables, the maximum
 * IGs, p-values (raw chi-square when dim = 1 and one discretisation, else
 * fitted on the contrast variables), the adjustment.  Uses the OpenMP
 * threads in effect; the result is the same for any thread count.
 * @param x   n_vars variables of n_obj values, variable-major (x + v * n_obj);
 *            with o->discrete, values 0 .. o->divisions
 * @param y   n_obj decisions, 0 or 1 (both present)
 * @param r   out, zeroed first; on error nothing to free
 * @return ES_OK, ES_ERR_ARG (options; logged), ES_ERR_DATA (the p-value fit
 *         failed as MDFS's does; logged) or ES_ERR_NOMEM
 */
int es_mdfs_run(const es_mdfs_opt_t *o, const double *x, uint32_t n_obj, uint32_t n_vars,
                const uint8_t *y, es_mdfs_result_t *r);

/* ---- the pieces, for tests ------------------------------------------------ */

/**
 * The maximum IGs only (compute_max_ig): discretised data d (n_vars * n_obj
 * classes per discretisation, variable-major, then the contrast variables'
 * cd), no p-values.  r->max_ig, arg_tuple, arg_disc, contrast_ig, tuples
 * and tuples_done are filled; free them with es_mdfs_result_free() (on
 * error too).  o is not checked (es_mdfs_opt_check() first).
 * @param disc_fn called once per discretisation to fill d and cd (ctx its
 *        data); a non-zero return ends the run with it
 * @return ES_OK, ES_ERR_NOMEM or disc_fn's error
 */
int es_mdfs_max_ig(const es_mdfs_opt_t *o, uint32_t n_obj, uint32_t n_vars, uint32_t n_contrast,
                   const uint8_t *y,
                   int (*disc_fn)(void *ctx, uint32_t disc, uint8_t *d, uint8_t *cd), void *ctx,
                   es_mdfs_result_t *r);

/**
 * MDFS's fit_p_value (lin or exponential) of the chi-square p-values chisq of
 * n variables against those of nc contrast variables.
 * @return ES_OK, or ES_ERR_DATA with why set ("Border value reached ...")
 */
int es_mdfs_fit_p(const double *chisq, uint32_t n, const double *chisq_c, uint32_t nc, int exp_fit,
                  double *p, double *alpha, const char **why);

/** Adjusted p-values and rejections at level as statsmodels' multipletests
 *  (holm, fdr_bh).  @return ES_OK or ES_ERR_NOMEM */
int es_mdfs_adjust(const double *p, uint32_t n, es_mdfs_adjust_t m, double level, double *adj,
                   int *reject);

#endif /* ES_MDFS_H */
