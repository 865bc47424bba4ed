/* screen.cuh -- what the MDFS screen's kernel families share (device code,
 * private to gpu/mdfs/): the kernels' arguments, the returned tuples, the
 * Hc term from the host's c log2 c tables and the order-preserving keys of
 * the maxima.  screen.cu holds the CUDA-core popcount kernels and the door
 * (mdfs_gpu.h); screen_mma.cu the kernel on the tensor cores. */
#ifndef ES_GKM_SCREEN_CUH
#define ES_GKM_SCREEN_CUH

#include <cmath>
#include <cstdint>

#include <cuda_runtime.h>

/* the kernel's modes: each variable's maximum (the seeding pre-pass); that
 * and the tuples near the maximum so far; the tuples near given thresholds
 * (when the former overflow); every pair's Hc (k = 3) */
enum { GKM_MAX = 0, GKM_EMIT = 1, GKM_CAND = 2, GKM_PAIRS = 3 };

/* A returned tuple with its IGs (last variable, a, b; -inf where none). */
struct gkm_cand {
    uint32_t t[4];
    double ig[3];
};

struct gkm_args {
    const uint64_t *planes; /* [v][bin][word], every bin */
    const uint64_t *last;   /* [(bin * W + word) * NS + slot], the m - 1 stored bins */
    const uint32_t *binct;  /* [slot][bin][class] */
    const uint32_t *pfx;    /* k = 3: this device's prefixes, pairs (a, b) */
    const double *G[2], *F0[2], *F1[2];
    const double *hm1;      /* k = 2: n_vars */
    double *hmx;            /* k = 3: n_vars * NS, pair (x < slot c) at x * NS + c */
    uint32_t *pc;           /* k = 3, m <= 4: the pairs' counted cells, (x * NS + c) * nb^2 * 2 */
    unsigned long long *keys; /* NS */
    const double *thr;      /* NS: pass 2 thresholds */
    uint64_t *rows;         /* k = 2 on the tensor cores: the operand rows (gkmm_rows) */
    gkm_cand *cand;
    unsigned long long *n_cand;
    double two_margin;
    uint64_t cap;
    uint32_t m, nb, np, n_vars, n_con, NS, w0, W, part, parts;
    uint32_t wp0, wp1;      /* the rows' words a class (multiples of 8) */
    uint64_t n_pfx;         /* k = 3: this device's prefixes (pfx) */
    double h0[2];           /* Hc of an empty cell: full, margin */
    /* the tensor-core screen's Hc in float (es_gkm_ftab_t: G' at 0, F0' at
     * tf_o0, F1' at tf_o1, tf_len floats; copied to shared memory by each
     * block when tf_smem), or NULL: in double from G, F0, F1 */
    const float *tf;
    uint32_t tf_len, tf_o0, tf_o1, tf_smem;
};

__device__ __forceinline__ double gkm_term(const gkm_args &p, int lev, uint32_t a0, uint32_t a1)
{
    return __ldg(p.G[lev] + a0 + a1) - (__ldg(p.F0[lev] + a0) + __ldg(p.F1[lev] + a1));
}

__device__ __forceinline__ unsigned long long gkm_key(double x)
{
    unsigned long long u = (unsigned long long)__double_as_longlong(x);
    return (u >> 63) ? ~u : (u | (1ull << 63));
}

__device__ __forceinline__ unsigned long long gkm_load(const unsigned long long *k)
{
    return *(const volatile unsigned long long *)k;
}

__device__ __forceinline__ void gkm_offer_key(unsigned long long *k, unsigned long long v)
{
    if (v > gkm_load(k)) atomicMax(k, v);
}

__device__ __forceinline__ void gkm_offer(unsigned long long *k, double x)
{
    gkm_offer_key(k, gkm_key(x));
}

/* The threshold of the tuples kept near a maximum key so far: two margins
 * below it, rounded as the host rounds its final test (so that every tuple
 * the host keeps passes it), or -inf while there is none. */
__device__ __forceinline__ double gkm_near(unsigned long long k, double two_margin)
{
    if (!k) return -INFINITY;
    const unsigned long long u = (k >> 63) ? (k & ~(1ull << 63)) : ~k;
    return __longlong_as_double((long long)u) - two_margin;
}

/* The screen on the tensor cores (screen_mma.cu; gkmm_takes): mode GKM_MAX,
 * GKM_EMIT or GKM_CAND over this device's tiles of first variables (k = 2)
 * or prefixes (k = 3; the first 1/frac of them), p.rows laid out by
 * gkmm_rows (k = 3: p.pc and p.hmx from the pairs pass).  @return 0 or a
 * cudaError_t */
int gkmm_launch(const gkm_args &p, int k, int mode, uint64_t frac);

/* Whether the tensor-core kernel takes k and m. */
static inline bool gkmm_takes(uint32_t k, uint32_t m)
{
    return (k == 2 && m >= 2 && m <= 4) || (k == 3 && m >= 2 && m <= 3);
}

/* The operand rows of the tensor-core kernel from the planes (p.planes): row
 * s * nb + j is bin j < nb of slot s, class 0 in words [0, wp0), class 1 in
 * [wp0, wp0 + wp1), zero-padded (rows up to gkmm_slots(NS)).  @return 0 or a
 * cudaError_t */
int gkmm_rows(const gkm_args &p);

/* The slots the operand rows are padded to (every tile whole). */
uint32_t gkmm_slots(uint32_t NS);

#endif /* ES_GKM_SCREEN_CUH */
