/* nsga_gpu.h -- plain C door to the NSGA-II fitness kernels on a GPU
 * (gpu/nsga/fitness.cu; gpu/nsga/stub.c when CUDA is not built).  No CUDA
 * types: the caller hands over the data as arrays and gets doubles back.
 *
 * A device holds the data (both layouts, uploaded once at es_gkn_open()),
 * the generation's population and an order of it (uploaded once per
 * generation by es_gkn_population()) and evaluates any range of positions of
 * that order on request (one individual per thread block), synchronously
 * (es_gkn_eval()) or started and waited for apart (es_gkn_launch(),
 * es_gkn_wait()), so that the host thread can work meanwhile.  Its values are the CPU kernels' bit for bit
 * (src/nsga/eval_cpu.c says how). */
#ifndef ES_NSGA_GPU_H
#define ES_NSGA_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Objectives the GPU evaluates (the values of es_nsga_obj_t). */
enum { ES_GKN_KMEANS = 0, ES_GKN_KNN = 1, ES_GKN_NC = 2 };

/** The data and the fixed parameters of a run (es_nsga_data_t's fields). */
typedef struct {
    int obj;                    /**< ES_GKN_* */
    uint32_t n, p, n_slots;     /**< samples, features, slots (multiple of 16) */
    uint32_t n_classes, n_folds;
    const uint32_t *fold_off;   /**< n_folds + 1 (or 2 entries without folds) */
    const uint32_t *fold_n;     /**< n_folds */
    const float *xc;            /**< p * n_slots, column-major */
    const float *xr;            /**< n_slots * p, row-major */
    const uint32_t *orig;       /**< n_slots */
    const uint16_t *y;          /**< n_slots */
    uint32_t knn_k, clusters, kmeans_iter;
    uint32_t max_pop;           /**< the most individuals of one es_gkn_population() */
    uint32_t words;             /**< 64-bit words per mask */
} es_gkn_config_t;

typedef struct es_gkn es_gkn_t;

/** Visible CUDA devices in *n (0 without a driver, a device or CUDA in this
 *  build).  @return ES_OK, or ES_ERR_GPU when the runtime fails otherwise. */
int es_gkn_device_count(int *n);

/** Open device dev and upload the data.  Free with es_gkn_close().
 *  @return ES_OK, ES_ERR_GPU, ES_ERR_NOMEM, ES_ERR_ARG (a configuration the
 *          kernels cannot take) or ES_ERR_UNSUPPORTED (built without CUDA) */
int es_gkn_open(int dev, const es_gkn_config_t *cfg, es_gkn_t **out);
/** Upload n masks (words each), the generation's K-means initial centroids
 *  (clusters slots; NULL otherwise) and order (n positions: the individual
 *  each position evaluates; NULL: position i individual i).  Asynchronous:
 *  masks and init stay unchanged until the evaluations are waited for.
 *  @return ES_OK or ES_ERR_GPU */
int es_gkn_population(es_gkn_t *g, const uint64_t *masks, uint32_t n, const uint32_t *init,
                      const uint32_t *order);
/** Start evaluating positions [first, first + count) of the order (one
 *  launch).  @return ES_OK or ES_ERR_GPU */
int es_gkn_launch(es_gkn_t *g, uint32_t first, uint32_t count);
/** Wait for the last launch: f[2q], f[2q + 1] the objectives of position
 *  first + q.  @return ES_OK or ES_ERR_GPU */
int es_gkn_wait(es_gkn_t *g, double *f);
/** es_gkn_launch() then es_gkn_wait(). */
int es_gkn_eval(es_gkn_t *g, uint32_t first, uint32_t count, double *f);
/** The last launch's kernel time in seconds (CUDA events; 0 unknown), *wide
 *  (when not NULL) 1 where it ran the 1,024-thread K-means kernel. */
double es_gkn_kernel_seconds(es_gkn_t *g, int *wide);
/** The wall time of one launch of an empty individual, measured when opened:
 *  a launch's fixed cost in seconds. */
double es_gkn_launch_overhead(const es_gkn_t *g);
/** The most individuals a claim should take: the SMs times the thread blocks
 *  of the objective's kernel one SM holds at once. */
uint32_t es_gkn_chunk(const es_gkn_t *g);
/** The device's SMs. */
uint32_t es_gkn_sms(const es_gkn_t *g);
/** "gpu:0 NVIDIA H100 ..., 132 SMs" */
const char *es_gkn_name(const es_gkn_t *g);
void es_gkn_close(es_gkn_t *g);

#ifdef __cplusplus
}
#endif

#endif /* ES_NSGA_GPU_H */
