/* rules_internal.h -- what the rule learner's files share (not public API):
 * the training context that train.c owns and search.c reads, and the search
 * of one feature for its best refinement. */
#ifndef ES_RULES_INTERNAL_H
#define ES_RULES_INTERNAL_H

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>

#include "rules.h"

/* A feature's best refinement found by one search (search.c). */
typedef struct {
    int found;
    double q;            /* quality (lower is better) */
    uint8_t op, inverse; /* ES_RULES_LE..NE; inverse: the covered examples are those NOT in
                            [lo, hi) of the sorted order (nor missing) */
    float thr;
    uint32_t lo, hi;     /* a range of positions in the feature's sorted order */
    uint32_t n_cov;      /* examples covered with a non-zero weight (mlrl-boomer's count) */
    uint32_t lab;        /* single-label head: the label */
    double *head;        /* the head's scores: n_hl values (complete) or 1 (single) */
} es_rl_cand_t;

/* Scratch of the example-wise loss's equal-width label binning (es_rl_exw_head_binned()):
 * K each, bh K (K + 1) / 2. */
typedef struct {
    double *crit, *bg, *bh; /* the labels' criteria; the bins' gradients and packed Hessians */
    uint32_t *bidx, *nel, *bmap; /* each label's bin; each bin's labels; bins without the empty */
} es_rl_bins_t;

/* Per-thread scratch: sums over the head's labels (gradients: n_hl values; Hessians:
 * ctx.nH values, the packed K x K matrix of the example-wise loss's complete heads). */
typedef struct {
    double *sg, *sh; /* the subset */
    double *ag, *ah; /* accumulated (values < 0) */
    double *tg, *th; /* this feature's total (the rule's covered, less missing) */
    double *p;       /* the candidate's scores (L) */
    double *ug, *uh; /* the uncovered sums */
    double *qk;      /* label qualities (L) */
    /* the example-wise loss's solve (dsysv_): the K x K matrix, its work array and pivots */
    double *a, *work;
    int *ipiv, lwork;
    es_rl_bins_t bins; /* its label binning */
} es_rl_scratch_t;

/* A numeric feature's bins for the histogram split search (bins.c), as mlrl-boomer 0.15.6's
 * BinnedFeatureVector: bin k holds the examples idx[ptr[k] .. ptr[k + 1]) and its upper
 * threshold thr[k]; bin S (the "sparse bin") is walked by neither walk: its examples are the
 * feature's covered total less the other bins (with equal-width bins it lists none: the bin
 * of the value 0).  S may be >= nb after filtering (doc/RULES.md). */
typedef struct {
    uint32_t nb, S;
    int equal;           /* no split left (mlrl-boomer's EqualFeatureVector) */
    const float *thr;
    const uint32_t *ptr; /* nb + 1 offsets into idx */
    const uint32_t *idx;
} es_rl_bvec_t;

/* Every numeric feature's bins (built once) and the current rule's filtered copies. */
typedef struct es_rl_binned es_rl_binned_t;

/* The training context. */
typedef struct {
    const es_rules_data_t *d;
    uint32_t n, F, L;
    /* each feature's non-missing examples in ascending order of value (ties by
       example index), and their values; then its missing examples */
    uint32_t *sorted;
    float *sval;
    uint64_t *soff;   /* F + 1 offsets into sorted/sval */
    uint32_t *miss;
    uint64_t *moff;   /* F + 1 offsets into miss */
    uint32_t *n_neg;  /* per feature: values < 0 (mlrl-boomer's sparse value is 0) */
    /* statistics: row-major n x L */
    double *score, *g, *h;
    uint32_t *w;      /* instance weights (sampling counts) */
    uint8_t *cov;     /* the rule's coverage */
    uint32_t n_nz;    /* covered examples with a non-zero weight (missing ones included) */
    double *tot_g, *tot_h; /* weighted sums over the covered examples, per head label */
    uint32_t *hl, n_hl;    /* the head's labels (complete: all; single: all, then one) */
    int single;
    uint32_t nH;      /* Hessians per example in h and in the sums: L, or L (L + 1) / 2 with exw */
    int exw;          /* the example-wise logistic loss with complete heads: h holds each example's
                         packed Hessian matrix (es_rl_exw_stats()) and heads are solved */
    int lbin;         /* with exw: mlrl-boomer's equal-width label binning of those heads */
    es_rl_binned_t *bn; /* --feature-binning: the numeric features' bins (NULL: exact search) */
    uint32_t n_cond;  /* conditions of the rule so far (the binned vectors' filter state) */
    double l2;        /* the float32 value, widened */
    float shrink;
    int loss;
} es_rl_ctx_t;

/** Free n names (NULL entries and a NULL array are fine) and the array. */
void es_rl_free_names(char **names, uint32_t n);
/** Free the nominal value lists of n features (values[f]: n_values[f] names) and the arrays. */
void es_rl_free_values(char ***values, uint32_t *n_values, uint32_t n);

/* mlrl-boomer's float32 comparison: equal within FLT_EPSILON relative (at least absolute). */
static inline int es_rl_fequal(float a, float b)
{
    return fabsf(a - b) <= FLT_EPSILON * fmaxf(1.0f, fmaxf(fabsf(a), fabsf(b)));
}

/* mlrl-boomer's threshold between two float32 values: small + (large - small) * 0.5,
 * the difference in float32, the rest in double, rounded to float32. */
static inline float es_rl_mean(float small, float large)
{
    float diff = large - small;
    return (float)((double)small + (double)diff * 0.5);
}

/* mlrl-boomer's logistic function 1 / (1 + exp(-x)), from exp(-|x|) so that it
 * never overflows. */
static inline double es_rl_logistic(double x)
{
    if (x < 0) {
        double e = exp(x);
        return e / (1 + e);
    }
    return 1 / (1 + exp(-x));
}

/* -G / (H + l2), or 0 when that is not finite. */
static inline double es_rl_score(double g, double h, double l2)
{
    double r = -g / (h + l2);
    return isfinite(r) ? r : 0.0;
}

/* The quality of score p for one label: G p + H p^2 / 2 + l2 p^2 / 2 (= -G^2 / (2 (H + l2))). */
static inline double es_rl_quality(double p, double g, double h, double l2)
{
    double pp = p * p;
    return g * p + 0.5 * h * pp + 0.5 * l2 * pp;
}

/**
 * Score a head from sums G, H over the n_hl head labels: complete heads give
 * every label its score and sum the qualities; single-label heads pick the
 * label of the largest |score| (the first on ties).  p gets the scores
 * (single: p[0]); qk (n_hl doubles) is scratch; *lab the head position picked
 * (single).  @return the quality
 */
double es_rl_eval(const es_rl_ctx_t *c, const double *restrict G, const double *restrict H,
                  double *restrict p, double *restrict qk, uint32_t *lab);

/* ---- the example-wise logistic loss (statistics: train.c; heads: search.c) ------- */

/* The packed upper triangle of a K x K matrix, column by column (LAPACK's and
 * mlrl-boomer's 'U' packing): element (r, c), r <= c, at c (c + 1) / 2 + r. */
static inline size_t es_rl_packed(uint32_t r, uint32_t c) { return (size_t)c * (c + 1) / 2 + r; }

/**
 * The gradients and Hessians of mlrl-boomer 0.15.6's example-wise logistic
 * loss log(1 + sum_c exp(x_c)), x_c = -y'_c s_c (y'_c = +-1), at the L scores
 * s of one example with labels y, by its formulas (the exp-normalize trick):
 * g[c] = -y'_c exp(x_c) / Z, Z = 1 + sum exp(x); the Hessian's diagonal
 * t (1 - t), t = exp(x_c) / Z; off the diagonal -y'_c y'_r exp(x_c + x_r) / Z^2.
 * packed: h gets the packed upper triangle (L (L + 1) / 2 values, es_rl_packed());
 * else h gets the diagonal (L values: mlrl-boomer's statistics converted to
 * decomposable ones for single-label heads).
 */
void es_rl_exw_stats(const double *restrict s, const uint8_t *restrict y, uint32_t L,
                     double *restrict g, double *restrict h, int packed);

/** The workspace dsysv_ asks for, for K x K systems (at least 1). */
int es_rl_exw_lwork(uint32_t K);

/**
 * A complete head from sums G (K) and packed Hessians H (K (K + 1) / 2), as
 * mlrl-boomer's DenseNonDecomposableCompleteRuleEvaluation: solve
 * (H + l2 I) p = -G with LAPACK's dsysv_ ('U'), then the quality
 * p.G + p.H p / 2 + l2 |p|^2 / 2.  a (K x K), ipiv (K), work (lwork) scratch.
 * @return the quality, or +INFINITY when dsysv_ fails (a singular matrix:
 *         mlrl-boomer throws; here the candidate is never taken)
 */
double es_rl_exw_head(uint32_t K, const double *restrict G, const double *restrict H, double l2,
                      double *restrict p, double *restrict a, int *restrict ipiv,
                      double *restrict work, int lwork);

/**
 * The same head with mlrl-boomer 0.15.6's equal-width label binning (its
 * label_binning='auto' for this loss; DenseNonDecomposableCompleteBinnedRuleEvaluation):
 * each label's criterion -G/(H_cc + l2) (0 when not finite); the negative and the
 * positive criteria each split into ceil(0.04f n) bins of equal width
 * (at least 1), a label of criterion 0 in none (score 0); empty bins dropped;
 * the bins' gradients summed, their Hessians summed from the labels' diagonals
 * and from the off-diagonal entries of label pairs in different bins (pairs
 * within a bin add nothing, as in mlrl-boomer); solved as above with l2 times
 * the bin's label count (a float32 product) on the diagonal; quality with the
 * regularisation term l2/2 sum count p^2.  Every label gets its bin's score.
 * @return the quality (0 when every criterion is 0), or +INFINITY when
 *         dsysv_ fails
 */
double es_rl_exw_head_binned(uint32_t K, const double *restrict G, const double *restrict H,
                             double l2, double *restrict p, es_rl_bins_t *b, double *restrict a,
                             int *restrict ipiv, double *restrict work, int lwork);

/** The example-wise head of c's settings (binned or not) with s's scratch. */
double es_rl_exw_eval(const es_rl_ctx_t *c, es_rl_scratch_t *s, const double *G, const double *H,
                      double *p);

/** Feature f's total over the head's labels into s->tg, s->th: the rule's covered
 *  examples less those missing f (subtracted one after the other). */
void es_rl_feature_total(const es_rl_ctx_t *c, es_rl_scratch_t *s, uint32_t f);

/**
 * Search feature f for the best refinement of the current rule that beats
 * quality best_q (strictly), as mlrl-boomer 0.15.6 walks a numerical or a
 * nominal feature (doc/RULES.md).  Reads c, writes s and *out (out->head
 * must hold n_hl doubles).  Thread-safe for distinct s and out.
 */
void es_rl_search(const es_rl_ctx_t *c, es_rl_scratch_t *s, uint32_t f, double best_q,
                  es_rl_cand_t *out);

/* What a search carries from candidate to candidate (search.c, bins.c). */
typedef struct {
    const es_rl_ctx_t *c;
    es_rl_scratch_t *s;
    es_rl_cand_t *out;
    double best_q;
} es_rl_walk_t;

/* Add example i (weight w) to the sums over the head's labels.  Each label is its own
 * sum, so the vector loops add in the scalar order. */
static inline void es_rl_add_ex(const es_rl_ctx_t *c, uint32_t i, double *restrict sg,
                                double *restrict sh)
{
    const double *restrict gi = c->g + (size_t)i * c->L, *restrict hi = c->h + (size_t)i * c->L;
    double w = (double)c->w[i];
    uint32_t n = c->n_hl;
    if (c->exw) { /* the gradients and the packed Hessians of every label */
        const double *restrict hx = c->h + (size_t)i * c->nH;
        uint32_t nH = c->nH;
        for (uint32_t k = 0; k < n; k++) sg[k] += gi[k] * w;
        for (uint32_t k = 0; k < nH; k++) sh[k] += hx[k] * w;
    } else if (n == c->L) { /* every label: contiguous */
        if (w == 1.0) {
#pragma omp simd
            for (uint32_t k = 0; k < n; k++) {
                sg[k] += gi[k];
                sh[k] += hi[k];
            }
        } else {
#pragma omp simd
            for (uint32_t k = 0; k < n; k++) {
                sg[k] += gi[k] * w;
                sh[k] += hi[k] * w;
            }
        }
    } else {
        for (uint32_t k = 0; k < n; k++) {
            sg[k] += gi[c->hl[k]] * w;
            sh[k] += hi[c->hl[k]] * w;
        }
    }
}

/** Score a candidate from sums (G, H) or, when uncov, from the feature's total (s->tg,
 *  s->th) less them; keep it in wk->out when strictly better than wk->best_q. */
void es_rl_candidate(es_rl_walk_t *wk, const double *G, const double *H, int uncov, uint8_t op,
                     int inverse, float thr, uint32_t lo, uint32_t hi, uint32_t n_cov);

/* ---- the histogram split search (bins.c) -------------------------------------------- */

/** Bin every numeric feature of c (after presorting) as o says (mlrl-boomer's equal-width or
 *  equal-frequency binning); c->bn.  @return ES_OK or ES_ERR_NOMEM */
int es_rl_binned_init(es_rl_ctx_t *c, const es_rules_opt_t *o);
void es_rl_binned_free(es_rl_ctx_t *c);
/** A new rule: every feature back to its original bins. */
void es_rl_binned_reset(es_rl_ctx_t *c);
/** Before a search of feature f: its bins filtered to the covered examples when a condition
 *  was added since (mlrl-boomer's cache of filtered feature vectors).  Only this feature's
 *  state is written: the training thread runs it for the sampled features as a batch. */
void es_rl_binned_refresh(es_rl_ctx_t *c, uint32_t f);
/** The histogram search of feature f (after es_rl_feature_total()): mlrl-boomer's binned walk. */
void es_rl_search_binned(es_rl_walk_t *wk, uint32_t f);
/** The chosen refinement r of binned feature f: the examples whose coverage changes, into
 *  ids (cov updated: kept set to 1 and the rest 0, or removed set to 0; the missing ones are
 *  the caller's), then f's bins restricted to the condition's side.  @return how many */
uint32_t es_rl_binned_apply(es_rl_ctx_t *c, uint32_t f, const es_rl_cand_t *r, uint32_t *ids,
                            uint8_t *scratch);

/* ---- early stopping (train.c): mlrl-boomer's global pre-pruning ---------------------- */

/* The state of mlrl-boomer's pre-pruning stopping criterion (doc/RULES.md, "Holdout
 * set and early stopping"): the holdout loss of the last num_recent and the
 * num_past before them, kept in two ring buffers. */
typedef struct {
    uint32_t min_rules, update_interval, stop_interval, num_past, num_recent;
    double min_improvement;
    uint32_t offset;          /* scores are recorded once n_rules > offset */
    double *past, *recent;    /* ring buffers, oldest at [head] */
    uint32_t n_past, h_past, n_recent, h_recent;
    double best;              /* the best score recorded while the past buffer was full */
    uint32_t best_n;          /* the number of rules (the default rule included) it had */
} es_rl_prune_t;

/** Set up the criterion (num_past, num_recent, update_interval, stop_interval >= 1).
 *  @return ES_OK or ES_ERR_NOMEM; free with es_rl_prune_free() */
int es_rl_prune_init(es_rl_prune_t *p, uint32_t min_rules, uint32_t update_interval,
                     uint32_t stop_interval, uint32_t num_past, uint32_t num_recent,
                     double min_improvement);
void es_rl_prune_free(es_rl_prune_t *p);
/** Whether the test before a model of n_rules rules (the default rule included)
 *  needs the holdout score. */
int es_rl_prune_due(const es_rl_prune_t *p, uint32_t n_rules);
/** The test before a model of n_rules rules, with its holdout score (lower is
 *  better), when es_rl_prune_due(): @return 0 to go on, or the number of rules
 *  (the default rule included) the model keeps. */
uint32_t es_rl_prune_test(es_rl_prune_t *p, uint32_t n_rules, double score);

/* ---- the worker threads (pool.c) ---------------------------------------------------- */

/** A job: run job k of the current batch with this thread's scratch, writing
 *  only this thread's result slot (slot: 0 the training thread, 1.. the workers). */
typedef void (*es_rl_job_fn)(void *arg, uint32_t k, void *scratch, int slot);

/* Batches of jobs claimed from one atomic ticket (batch << 32 | next job);
 * fin[k] = batch << 32 | the slot that finished job k first. */
typedef struct {
    _Atomic uint64_t ticket;
    _Atomic int quit;
    _Atomic uint64_t *fin;    /* max_jobs entries, zeroed */
    _Atomic uint32_t n_jobs;  /* of the current batch */
    _Atomic(es_rl_job_fn) job;
    _Atomic(void *) arg;
} es_rl_pool_t;

/** A worker: run the batches' jobs (with this thread's scratch and slot) until
 *  es_rl_pool_quit(). */
void es_rl_pool_worker(es_rl_pool_t *p, void *scratch, int slot);
/** Publish jobs 0..n_jobs-1, run what this thread (slot 0) can claim, and
 *  return when every job is done; an idempotent job that another thread has
 *  held for too long is run here again.  The training thread only. */
void es_rl_pool_run(es_rl_pool_t *p, uint32_t n_jobs, es_rl_job_fn job, void *arg,
                    int idempotent, void *scratch);
/** After es_rl_pool_run(): the slot whose result of job k counts. */
int es_rl_pool_slot(const es_rl_pool_t *p, uint32_t k);
/** Tell the workers to return. */
void es_rl_pool_quit(es_rl_pool_t *p);
/** A pool with no batch yet, fin[0 .. max_jobs - 1] its stamps. */
void es_rl_pool_init(es_rl_pool_t *p, _Atomic uint64_t *fin, size_t max_jobs);
/** Run lead(arg) on this thread (slot 0) beside nt - 1 workers (slot k with
 *  scratch + k * scratch_size, or NULL), in one OpenMP region; the workers
 *  return when lead does. */
void es_rl_pool_team(es_rl_pool_t *p, int nt, void (*lead)(void *arg), void *arg, void *scratch,
                     size_t scratch_size);

#endif /* ES_RULES_INTERNAL_H */
