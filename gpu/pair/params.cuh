/* params.cuh -- what every pair kernel of gpu/pair is given: the thread
 * count and the top-k histogram's shape, a block's per-variant constants, the
 * launch parameters of a tile (gk_params), the order-preserving float keys
 * the thresholds are kept as, and the statistic codes with the dispatch that
 * instantiates a kernel template for each.  GPU-internal (gk_ prefix); the
 * public door is gpu/gpu.h. */
#ifndef GK_PARAMS_CUH
#define GK_PARAMS_CUH

#include <stdint.h>

#include "gpu.h"

#define GK_THREADS 256
#define GK_HIST_BINS 4096
#define GK_HIST_SHIFT 20

/* The top-k level a histogram bin stands for, never below the host's. */
__host__ __device__ __forceinline__ uint32_t gk_tau_of_bin(uint32_t tb, uint32_t tau_host)
{
    const uint32_t t = tb ? tb << GK_HIST_SHIFT : 0u;
    return t > tau_host ? t : tau_host;
}

struct gk_vc;
union gk_srow;
union gk_scol;

/* A block's per-variant constants, built once when the block is uploaded
 * (k_vpre, engine.cu): entries for every variant of the block and zero-count
 * padding past it (block + GK_VPRE_PAD entries), so a CTA copies its rows' and
 * columns' constants instead of deriving them (gk_epi_load_consts). */
/* Entries past a block's variants: a CTA tile reaches up to VN * CL - 1
 * columns past the last variant (the wgmma TMA loader rounds its grid up to
 * whole clusters of up to 4 tiles of 32 columns), and 64 rows past it. */
#define GK_VPRE_PAD 128u

struct gk_vpre {
    gk_vc *vrow, *vcol; /* gk_vc_build as a row (col = false) and as a column */
    gk_srow *srow;      /* the screen's constants (two planes only) */
    gk_scol *scol;
};

/* Everything a tile launch needs (passed by value). */
struct gk_params {
    const uint64_t *pa, *pb;  /* block planes: row r = variant r / np, plane r % np */
    const uint32_t *ga, *gb;  /* genotype counts [v][class y][g] of each block */
    gk_vpre prea, preb;       /* per-variant constants of each block */
    uint32_t na, nb;          /* variants in each block */
    uint32_t first_a, first_b;
    int diag;                 /* same block: pairs a < b only */
    uint32_t words;           /* words per plane row */
    uint32_t off_ctrl;        /* first control word */
    uint32_t kw0, kw1;        /* words counted per class (cases, controls), multiples of 4 */
    int stat;                 /* es_stat_t */
    uint32_t tau_host;        /* key of the host's exact k-th best (0: none) */
    float sig_min_g;          /* G below this is never significant (INFINITY: no test) */
    uint32_t top_k;
    int update_hist;          /* 0 when a tile is re-run: its pairs are already counted */
    uint32_t *thr;            /* per-variant keys, global index */
    uint32_t *hist;           /* GK_HIST_BINS counts */
    uint32_t *tau_bin;        /* [0] current top-k bin, [1] highest bin used */
    es_gpu_cand_t *cand;
    uint32_t cap;
    uint32_t *n_cand;
    const double *lnf;        /* ln n! for every count a cell can hold, plus one (K2) */
    unsigned long long *screen; /* [0] CTAs screened, [1] of them on the queue, [2] survivors */
    int screen1;              /* the older first-stage screen (EPISTREAM_GPU_SCREEN=1) */
    int epi1;                 /* the previous epilogue (EPISTREAM_GPU_EPILOGUE=1, same-run comparisons):
                                 thresholds read by plain loads before the main loop, a barrier before
                                 the screen, phases A, C and D in every CTA that scores its queue */
    int nofit;                /* both blocks had a tile on this device before (their variants have
                                 thresholds): a wgmma BOOST tile may run without its in-tile fits */
    int tilefit;              /* BOOST: the queue's survivors' exact fits run in the tile (phase B)
                                 even when the CTA scores its queue; 0 only where the second stage
                                 (exact.cu) scores the tile's candidates (EPISTREAM_GPU_TILEFIT=1: 1) */
    int band;                 /* a diagonal tile's pre-pass: only the CTA tiles with a pair (a, b),
                                 b - a <= band (0: every tile above the diagonal) */
};

/* A CTA tile of VM x VN pairs from (a0, b0) with no pair to score: wholly
 * below a diagonal tile's diagonal, or (a pre-pass's band) wholly farther
 * from it than P.band. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline bool gk_tile_none(const gk_params &P, int a0, int b0, int vm, int vn)
{
    return P.diag && (b0 + vn <= a0 || (P.band > 0 && b0 - (a0 + vm - 1) > P.band));
}

/* A BOOST tile's launch may leave BOOST's in-tile fits (gk_epilogue's FITS)
 * out of the kernel: not the previous epilogue or path (epi1, tilefit), not
 * a diagonal tile's pre-pass (cap 0), and only where both blocks had a tile
 * on the device (nofit: their variants' thresholds are not 0, so a tile
 * without fits does not make every pair a candidate).  The fused wgmma
 * tiles and ws use the same rule. */
static inline bool gk_boost_fitless(const gk_params &P)
{
    return !P.epi1 && !P.tilefit && P.cap != 0 && P.nofit;
}

/* Order-preserving float <-> uint32 keys. */
__device__ __forceinline__ uint32_t gk_fkey(float f)
{
    uint32_t u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

__device__ __forceinline__ float gk_fkey_inv(uint32_t k)
{
    uint32_t u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
    return __uint_as_float(u);
}

/* Statistic codes as in epistream.h's es_stat_t. */
enum { GK_BOOST = 0, GK_CHI2, GK_MI, GK_IG, GK_K2 };

/* A kernel template instantiated for every statistic: kernel<STAT>. */
#define GK_STAT_DISPATCH(stat, F, ...)                                                             \
    ((stat) == GK_BOOST  ? F<GK_BOOST>(__VA_ARGS__)                                                \
     : (stat) == GK_CHI2 ? F<GK_CHI2>(__VA_ARGS__)                                                 \
     : (stat) == GK_MI   ? F<GK_MI>(__VA_ARGS__)                                                   \
     : (stat) == GK_IG   ? F<GK_IG>(__VA_ARGS__)                                                   \
                         : F<GK_K2>(__VA_ARGS__))

#endif
