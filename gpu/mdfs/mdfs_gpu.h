/* mdfs_gpu.h -- plain C door to the MDFS tuple screen on a GPU
 * (gpu/mdfs/screen.cu; gpu/mdfs/stub.c when CUDA is not built).  No CUDA
 * types: the caller (src/mdfs/engine.c) hands over the bit vectors and the
 * c log2 c tables it uses itself and gets back tuples.
 *
 * For one discretisation the device counts the 2 x m^k table of every
 * k-tuple (k = 2, 3) of the variables and of every (k-1)-tuple with each
 * contrast variable, and the IG of each of its variables in double
 * precision: an approximation of the host's value (another summation order),
 * within es_gkm_margin() of it.  es_gkm_max keeps each variable's maximum and
 * the tuples within two margins of the maximum so far; es_gkm_candidates
 * returns those of them within two margins of the final maxima (every
 * device's merged), so every tuple whose exact IG is a variable's maximum is
 * among them: the host recomputes those few exactly and reduces them in its
 * total order, and the result is the CPU engine's, byte for byte.  Several
 * devices share the first variables (device i of n takes a = i, i + n, ...;
 * on the tensor cores, tiles of them in the same turn). */
#ifndef ES_MDFS_GPU_H
#define ES_MDFS_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What stays fixed over a run. */
typedef struct {
    uint32_t k;          /**< 2 or 3 */
    uint32_t m;          /**< classes a variable (divisions + 1), 2 .. 16 */
    uint32_t n_vars;     /**< real variables */
    uint32_t n_con;      /**< contrast variables */
    uint32_t w0, W;      /**< 64-bit words: class 0 in [0, w0), class 1 in [w0, W) */
    uint32_t cls[2];     /**< objects a class */
    const double *F[2][2]; /**< [full / margin][class][0 .. cls[y]]: c log2 c of a cell */
    const double *G[2];    /**< [full / margin][0 .. cls[0] + cls[1]] */
    uint64_t max_cand;   /**< tuples the device keeps and returns (0: 4,194,304) */
    uint32_t part, parts; /**< this device's share of the first variables */
    uint32_t kernel;     /**< 0: the tensor cores where they apply (k = 2, m <= 4, sm_80
                              or later), else CUDA-core popcount; 1: popcount always */
    uint32_t sum;        /**< the tensor-core screen's Hc sums: 0 in float from
                              es_gkm_ftab_t tables (with es_gkm_ftab_bound's
                              margin), 1 in double from F and G */
    double pseudo[2];    /**< the full table's pseudocount a cell and class */
} es_gkm_config_t;

/** The float screen's tables: the full table's c log2 c tables (G[0], F[0][y])
 *  less L c each, L = a multiple of 1/256 near log2 of the objects (a cell's
 *  term G(c0 + c1) - F0(c0) - F1(c1) is unchanged, the entries at most about
 *  0.53 n in magnitude instead of n log2 n), rounded to float, in one array:
 *  G' [0, n], then F0' [0, n0] at o0, F1' [0, n1] at o1. */
typedef struct {
    float *t;
    uint32_t len, o0, o1;
    uint32_t n;          /**< objects */
    double L;
    double e;            /**< the three tables' largest entry errors, summed */
    double A;            /**< max |F0'| + max |F1'| */
    double xi;           /**< pseudo[0] + pseudo[1] */
    double gabs;         /**< the largest |entry| of the double tables */
} es_gkm_ftab_t;

/** Build ft from cfg (G[0], F[0][*], cls, pseudo).  @return ES_OK or ES_ERR_NOMEM */
int es_gkm_ftab_build(const es_gkm_config_t *cfg, es_gkm_ftab_t *ft);

/** A bound of |the float Hc of a table of n_cells cells (es_gkm_ftab_hc's
 *  arithmetic, any order of its adds) - the real sum of the double tables'
 *  terms|: doc/MDFS.md, "The float screen's margin". */
double es_gkm_ftab_bound(const es_gkm_ftab_t *ft, uint32_t n_cells);

/** The device's float Hc, on the CPU (the same float operations in the same
 *  order as screen_mma.cu's epilogue): cnt[(i * m + j) * 2 + y] for prefix
 *  cell i < np, last bin j < m, class y. */
float es_gkm_ftab_hc(const es_gkm_ftab_t *ft, const uint32_t *cnt, uint32_t np, uint32_t m);

void es_gkm_ftab_free(es_gkm_ftab_t *ft);

/** A tuple returned: its variables t[0] < t[1] (< t[2]) as slots, the
 *  last either a variable (< n_vars) or n_vars + a contrast variable; for
 *  k = 2, t[1] is the last and t[2] is unused. */
typedef struct {
    uint32_t t[3];
} es_gkm_cand_t;

typedef struct es_gkm es_gkm_t;

/** Visible CUDA devices in *n (0 without a driver, a device or CUDA).
 *  @return ES_OK or ES_ERR_GPU */
int es_gkm_device_count(int *n);

/** Whether the device engine takes this shape; else why (a static string). */
const char *es_gkm_unsupported(uint32_t k, uint32_t m, uint32_t n_vars, uint32_t n_con, uint32_t n_obj);

/** Open device dev for a run.  @return ES_OK, ES_ERR_GPU, ES_ERR_NOMEM or
 *  ES_ERR_UNSUPPORTED (built without CUDA, or a shape es_gkm_unsupported names) */
int es_gkm_open(int dev, const es_gkm_config_t *cfg, es_gkm_t **out);

/** One discretisation: planes as engine.c lays them out ((n_vars + n_con) *
 *  m * W words, variable-major, then bin, then word) and the bin counts
 *  ((n_vars + n_con) * m * 2).  hm1: k = 2, each variable's Hc with margin
 *  pseudocounts (n_vars).  @return ES_OK or ES_ERR_GPU */
int es_gkm_upload(es_gkm_t *g, const uint64_t *planes, const uint32_t *bin_ct, const double *hm1);

/** This device's maxima, as es_gkm_key() keys, into keys[n_vars + n_con]
 *  (the contrast variables last); the tuples near the maxima so far are kept
 *  on the device.  @return ES_OK or ES_ERR_GPU */
int es_gkm_max(es_gkm_t *g, uint64_t *keys);

/** The tuples within two margins of the maxima keys (every device's merged):
 *  *cand (owned by g, valid until the next call) and *n; when es_gkm_max kept
 *  more than max_cand, a pass against keys finds them again.  @return ES_OK,
 *  ES_ERR_GPU, or ES_ERR_UNSUPPORTED when more than max_cand qualify then
 *  (nothing returned) */
int es_gkm_candidates(es_gkm_t *g, const uint64_t *keys, const es_gkm_cand_t **cand, uint64_t *n);

/** The tolerance of the device's IGs (each within it of the host's). */
double es_gkm_margin(const es_gkm_t *g);

/** "gpu:0 NVIDIA H200, sm_90, 132 SMs, ... (tensor cores)" or "(popcount)" */
const char *es_gkm_name(const es_gkm_t *g);

/** Seconds the kernels of the last es_gkm_max / es_gkm_candidates took (0
 *  for es_gkm_candidates without a pass). */
double es_gkm_kernel_seconds(const es_gkm_t *g);

void es_gkm_close(es_gkm_t *g);

/** Page-lock the host's planes (p, bytes) for the run, so that every
 *  es_gkm_upload copies them at full speed; es_gkm_unpin(p) after.  A
 *  failure leaves them pageable (the uploads still work).  @return ES_OK,
 *  ES_ERR_GPU or ES_ERR_UNSUPPORTED (built without CUDA) */
int es_gkm_pin(void *p, size_t bytes);
void es_gkm_unpin(void *p);

/** A double as an unsigned key of the same order (-0 below +0; no NaNs). */
static inline uint64_t es_gkm_key(double x)
{
    union {
        double d;
        uint64_t u;
    } v;
    v.d = x;
    return (v.u >> 63) ? ~v.u : (v.u | (1ull << 63));
}

static inline double es_gkm_unkey(uint64_t k)
{
    union {
        double d;
        uint64_t u;
    } v;
    v.u = (k >> 63) ? (k & ~(1ull << 63)) : ~k;
    return v.d;
}

#ifdef __cplusplus
}
#endif

#endif /* ES_MDFS_GPU_H */
