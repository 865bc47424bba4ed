/* params3.cuh -- what every 3-way kernel of gpu/triple is given: the CTA
 * shape (a group of 16 pairs against 128 third variants), the launch
 * parameters of a tile (gk3_params) and how a CTA finds its pairs and third
 * variants in them.  GPU-internal (gk3_ prefix); the door is gpu/gpu.h.
 *
 * A tile is a list of pairs (i, j) against a block of third variants k:
 *  - exhaustive (GK3_EXH): the pairs of blocks A x B (a < b when A is B)
 *    against block C, triples i < j < k;
 *  - seeded (GK3_SEED): the seed pairs, whose planes the engine gathered
 *    into one buffer (pair p: rows 2p and 2p + 1), against block C, every k
 *    but i and j;
 *  - every combination (GK3_ALL, tests): tables instead of scores.
 * Pair sums (|P_s & P_t| per class, s, t in {P1, P2}) come from k3_pairsum
 * (engine.cu): lr[p] of the tile's pairs, xc[row][k] of the left and right
 * rows against the third block (rows 0 .. na-1 left, na .. right;
 * seeded: 2p, 2p + 1). */
#ifndef GK3_PARAMS_CUH
#define GK3_PARAMS_CUH

#include <stdint.h>

#include "gpu.h"

#define GK3_THREADS 256
#define GK3_PAIRS 16   /* pairs per CTA */
#define GK3_THIRD 128  /* third variants per CTA */

enum { GK3_EXH = 0, GK3_SEED = 1, GK3_ALL = 2 };
/* statistic codes as epistream.h's es_stat_t */
enum { GK3_CHI2 = 1, GK3_MI = 2, GK3_IG = 3, GK3_K2 = 4 };

struct gk3_params {
    int mode;
    const uint64_t *lp, *rp, *cp; /* planes: variant v at v * NP * words */
    const uint32_t *lg, *rg, *cg; /* genotype counts [v][y][g] */
    const uint32_t *sidx;         /* seeded: global indices, 2 a pair */
    uint32_t first_l, first_r, first_c;
    uint32_t na, nb, nc;          /* exhaustive: block sizes; seeded: na = nb = pairs */
    uint32_t ngb;                 /* exhaustive: pair groups a left variant (ceil(nb / 16)) */
    uint32_t n_pairs;
    uint32_t words, off_ctrl;
    uint32_t kw1, kw0;            /* words counted: cases from 0, controls from off_ctrl (multiples of 8) */
    uint32_t n_case, n_ctrl;
    const uint32_t *xc, *lr;      /* pair sums, 8 a pair: [y][(s-1)*2 + (t-1)] */
    uint32_t *score;              /* [p * nc + k]: upper key, ~0: possibly significant, 0: not a triple */
    uint32_t *pbest;              /* [p]: best lower key of the pair's triples (exhaustive) */
    uint32_t *vbest;              /* [global variant]: best lower key of its triples so far */
    uint32_t *tables;             /* GK3_ALL: 54 counts a triple */
    const double *lnf;            /* K2: ln n! */
    int stat;                     /* GK3_* */
    int do_sig;
    float sig_crit[27];
    float sig_min;                /* the smallest sig_crit[df], df >= 1 */
};

/* Order-preserving float <-> uint32 keys (as gpu/pair's). */
__device__ __forceinline__ uint32_t gk3_fkey(float f)
{
    uint32_t u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/* A CTA's pairs (group blockIdx.x) and third variants (128 from
 * blockIdx.y * 128), resolved once (gk3_cta_setup). */
struct gk3_cta {
    uint32_t pin[GK3_PAIRS];  /* a pair of the tile's list (its slots exist) */
    uint32_t pv[GK3_PAIRS];   /* ... whose triples are the tile's */
    uint32_t gi[GK3_PAIRS], gj[GK3_PAIRS];
    uint32_t lrow[GK3_PAIRS], rrow[GK3_PAIRS], xl[GK3_PAIRS], xr[GK3_PAIRS], pidx[GK3_PAIRS];
    uint32_t lr[GK3_PAIRS][8];
    uint32_t ga[GK3_PAIRS][6], gb[GK3_PAIRS][6];
    uint32_t kg[GK3_THIRD];       /* global index, UINT32_MAX past the block */
    uint32_t gc[GK3_THIRD][6];
    uint32_t best_q[GK3_PAIRS], best_k[GK3_THIRD]; /* best lower keys of each pair's and k's triples */
    /* both classes in a word (controls | cases << 16; read only when each
     * class is under 65,536): lr's four sums, and (P1, P2) counts of the
     * pair's left and right variants and of the third variants */
    uint32_t lr16[GK3_PAIRS][4], ga16[GK3_PAIRS][2], gb16[GK3_PAIRS][2], gc16[GK3_THIRD][2];
};

template <int NP>
__device__ __forceinline__ void gk3_cta_setup(const gk3_params &P, gk3_cta &S)
{
    const int tid = threadIdx.x;
    if (tid < GK3_PAIRS) {
        int q = tid;
        uint32_t valid, p, lrow, rrow, xl, xr, gi, gj;
        if (P.mode == GK3_SEED) {
            p = blockIdx.x * GK3_PAIRS + q;
            valid = p < P.n_pairs;
            if (!valid) p = 0;
            lrow = 2 * p;
            rrow = 2 * p + 1;
            xl = lrow;
            xr = rrow;
            gi = P.sidx[lrow];
            gj = P.sidx[rrow];
        } else {
            uint32_t a = blockIdx.x / P.ngb, b = (blockIdx.x % P.ngb) * GK3_PAIRS + q;
            valid = b < P.nb;
            if (!valid) b = 0;
            p = a * P.nb + b;
            lrow = a;
            rrow = b;
            xl = a;
            xr = P.na + b;
            gi = P.first_l + a;
            gj = P.first_r + b;
        }
        S.pin[q] = valid;
        if (P.mode == GK3_EXH && gi >= gj) valid = 0;
        S.pv[q] = valid;
        S.gi[q] = gi;
        S.gj[q] = gj;
        S.lrow[q] = lrow;
        S.rrow[q] = rrow;
        S.xl[q] = xl;
        S.xr[q] = xr;
        S.pidx[q] = p;
        for (int e = 0; e < 6; e++) {
            S.ga[q][e] = P.lg[(size_t)lrow * 6 + e];
            S.gb[q][e] = P.rg[(size_t)rrow * 6 + e];
        }
        for (int e = 0; e < 8; e++) S.lr[q][e] = NP == 2 ? P.lr[(size_t)p * 8 + e] : 0u;
        for (int e = 0; e < 4; e++) S.lr16[q][e] = __byte_perm(S.lr[q][e], S.lr[q][4 + e], 0x5410);
        S.ga16[q][0] = __byte_perm(S.ga[q][1] + S.ga[q][2], S.ga[q][4] + S.ga[q][5], 0x5410);
        S.ga16[q][1] = __byte_perm(S.ga[q][2], S.ga[q][5], 0x5410);
        S.gb16[q][0] = __byte_perm(S.gb[q][1] + S.gb[q][2], S.gb[q][4] + S.gb[q][5], 0x5410);
        S.gb16[q][1] = __byte_perm(S.gb[q][2], S.gb[q][5], 0x5410);
        S.best_q[q] = 0;
    }
    if (tid < GK3_THIRD) {
        uint32_t k = blockIdx.y * GK3_THIRD + tid;
        bool ok = k < P.nc;
        S.kg[tid] = ok ? P.first_c + k : 0xffffffffu;
        for (int e = 0; e < 6; e++) S.gc[tid][e] = ok ? P.cg[(size_t)k * 6 + e] : 0u;
        S.gc16[tid][0] = __byte_perm(S.gc[tid][1] + S.gc[tid][2], S.gc[tid][4] + S.gc[tid][5], 0x5410);
        S.gc16[tid][1] = __byte_perm(S.gc[tid][2], S.gc[tid][5], 0x5410);
        S.best_k[tid] = 0;
    }
}

/* Is (pair q, third kk) a triple of the tile? */
__device__ __forceinline__ bool gk3_valid(const gk3_params &P, const gk3_cta &S, int q, int kk)
{
    uint32_t k = S.kg[kk];
    if (!S.pv[q] || k == 0xffffffffu) return false;
    if (P.mode == GK3_EXH) return S.gj[q] < k;
    if (P.mode == GK3_SEED) return k != S.gi[q] && k != S.gj[q];
    return true;
}

/* The CTA's best lower keys to the device's per-variant (and per-pair) ones. */
__device__ __forceinline__ void gk3_cta_flush(const gk3_params &P, const gk3_cta &S)
{
    const int tid = threadIdx.x;
    if (P.mode == GK3_ALL) return;
    if (tid < GK3_PAIRS) {
        uint32_t b = S.best_q[tid];
        if (b) {
            atomicMax(&P.vbest[S.gi[tid]], b);
            atomicMax(&P.vbest[S.gj[tid]], b);
            if (P.pbest) atomicMax(&P.pbest[S.pidx[tid]], b);
        }
    }
    if (tid < GK3_THIRD && S.best_k[tid]) atomicMax(&P.vbest[S.kg[tid]], S.best_k[tid]);
}

/* A thread's best lower keys into the CTA's: bq[g] of its pairs g*8 +
 * lane/4, bk[j] of its third variants warp*16 + j*4 + lane%4 (the mapping of
 * every 3-way kernel), reduced across the warp first (all lanes call it). */
__device__ __forceinline__ void gk3_cta_best(gk3_cta &S, uint32_t bq[2], uint32_t bk[4])
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, gid = lane >> 2, tig = lane & 3;
#pragma unroll
    for (int g = 0; g < 2; g++) {
        uint32_t v = bq[g];
        v = max(v, __shfl_xor_sync(0xffffffffu, v, 1));
        v = max(v, __shfl_xor_sync(0xffffffffu, v, 2));
        if (tig == 0 && v) atomicMax(&S.best_q[g * 8 + gid], v);
    }
#pragma unroll
    for (int j = 0; j < 4; j++) {
        uint32_t v = bk[j];
        v = max(v, __shfl_xor_sync(0xffffffffu, v, 4));
        v = max(v, __shfl_xor_sync(0xffffffffu, v, 8));
        v = max(v, __shfl_xor_sync(0xffffffffu, v, 16));
        if (gid == 0 && v) atomicMax(&S.best_k[warp * 16 + j * 4 + tig], v);
    }
}

/* Every kernel template instantiated per statistic: F<STAT>(...). */
#define GK3_STAT_DISPATCH(stat, F, ...)                                                            \
    ((stat) == GK3_CHI2 ? F<GK3_CHI2>(__VA_ARGS__)                                                 \
     : (stat) == GK3_MI ? F<GK3_MI>(__VA_ARGS__)                                                   \
     : (stat) == GK3_IG ? F<GK3_IG>(__VA_ARGS__)                                                   \
                        : F<GK3_K2>(__VA_ARGS__))

/* The kernel families' launchers (count3_*.cu); np is 2 or 3 (mma: 2 only).
 * @return 0, or a cudaError_t. */
int gk3_launch_popc(const gk3_params &P, int np, void *stream);
int gk3_launch_mma(const gk3_params &P, void *stream);

#endif
