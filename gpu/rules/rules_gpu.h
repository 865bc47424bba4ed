/* rules_gpu.h -- plain C door to the rule learner's split search on a GPU
 * (gpu/rules/search.cu; gpu/rules/stub.c when CUDA is not built).  No CUDA
 * types: the caller (src/rules/train.c) hands over arrays and gets the best
 * refinement of the current rule back, described by where it lies in the
 * feature's walk (doc/RULES.md, "GPU"), with the exact sums of its subset.
 *
 * The device holds the features' sorted order (uploaded once at
 * es_gkr_open()), the statistics and instance weights (once per rule,
 * es_gkr_stats()) and the coverage (once per refinement, es_gkr_search()).
 * Numerical features and the label-wise losses only: the caller refuses
 * the rest. */
#ifndef ES_RULES_GPU_H
#define ES_RULES_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The training set's fixed part (es_rl_ctx_t's presorted arrays). */
typedef struct {
    uint32_t n, F, L;            /**< examples, features, labels */
    const uint32_t *sorted;      /**< each feature's non-missing examples by ascending value */
    const float *sval;           /**< their values */
    const uint64_t *soff;        /**< F + 1 offsets into sorted/sval */
    const uint32_t *n_neg;       /**< F: values < 0 */
    const uint32_t *miss;        /**< each feature's missing examples */
    const uint64_t *moff;        /**< F + 1 offsets into miss */
    int float32;                 /**< score the candidates in float32 (the chosen one's sums
                                      are float64 in any case) */
    size_t mem_budget;           /**< bytes of per-slice scratch (0: 2 GiB): features are
                                      searched in slices that fit it */
} es_gkr_config_t;

/** One refinement's inputs. */
typedef struct {
    const uint8_t *cov;          /**< n: the rule's coverage */
    uint32_t n_nz;               /**< covered examples with a weight (missing ones included) */
    const uint32_t *hl;          /**< the head's labels (n_hl) */
    uint32_t n_hl;
    int single;                  /**< single-label heads (else complete) */
    const double *tot_g, *tot_h; /**< n_hl: the sums over the covered examples */
    double l2;
    const uint32_t *fsel;        /**< the features to search, ascending */
    uint32_t n_fs;
} es_gkr_refine_t;

/** The best candidate (the lowest quality; on equal qualities the first in
 *  the CPU's order: features in fsel order, then the walk's order). */
typedef struct {
    int found;
    uint32_t k;                  /**< index into fsel */
    uint32_t part;               /**< 0: values < 0 ascending, 1: values >= 0 descending,
                                      2: the boundary at the sparse value 0 */
    uint32_t sub;                /**< 0: the scanned subset is covered, 1: the inverse */
    float v0, v1;                /**< parts 0, 1: the previous covered value and this
                                      example's; part 2: the last value < 0 and the walk's
                                      last value >= 0 (mlrl-boomer's threshold operands) */
    uint32_t pos;                /**< parts 0, 1: the example's position in the sorted order */
    uint32_t n_sub;              /**< examples with a weight in the scanned subset */
    double q;                    /**< the quality as the GPU summed it */
} es_gkr_best_t;

typedef struct es_gkr es_gkr_t;

/** Visible CUDA devices in *n (0 without a driver, a device or CUDA in this
 *  build).  @return ES_OK, or ES_ERR_GPU when the runtime fails otherwise. */
int es_gkr_device_count(int *n);

/** Open device dev and upload the sorted features.  Free with es_gkr_close().
 *  @return ES_OK, ES_ERR_GPU (logged), ES_ERR_NOMEM (device memory, logged)
 *          or ES_ERR_UNSUPPORTED (built without CUDA) */
int es_gkr_open(int dev, const es_gkr_config_t *cfg, es_gkr_t **out);

/** Upload the statistics (n x L, row-major) and the instance weights (n) of
 *  the next rule.  grad and hess must be the same arrays at every call until
 *  es_gkr_close(): they are pinned (cudaHostRegister) at the first.
 *  @return ES_OK or ES_ERR_GPU */
int es_gkr_stats(es_gkr_t *g, const double *grad, const double *hess, const uint32_t *w);

/**
 * Search the features r->fsel for the best refinement; when one is found,
 * G and H (r->n_hl each) get the sums of its scanned subset (the examples
 * before it in the walk, or the values < 0 for part 2) in the CPU's order of
 * additions (one example after the other), so that the caller's head and
 * quality are the CPU's bit for bit.  @return ES_OK or ES_ERR_GPU
 */
int es_gkr_search(es_gkr_t *g, const es_gkr_refine_t *r, es_gkr_best_t *b, double *G, double *H);

/** "gpu:0 (NVIDIA H200, 132 SMs)" */
const char *es_gkr_name(const es_gkr_t *g);
void es_gkr_close(es_gkr_t *g);

#ifdef __cplusplus
}
#endif

#endif /* ES_RULES_GPU_H */
