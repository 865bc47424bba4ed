/* search.cu -- the rule learner's exact split search on a GPU: every sampled
 * feature, every split (<= and >) and every head label of one refinement at
 * once, our own kernels (no Thrust, no CUB).
 *
 * The walk is src/rules/search.c's (mlrl-boomer 0.15.6's): each feature's
 * covered examples with values < 0 in ascending order (segment 0), those with
 * values >= 0 in descending order (segment 1), then the boundary at the
 * sparse value 0.  Per refinement:
 *   1. gkr_compact: each segment's covered examples, in walk order, written
 *      beside each other (a block-wide exclusive scan of the coverage flags
 *      with a carry from tile to tile);
 *   2. gkr_feature: whether the feature has two different covered values
 *      (else the CPU searches nothing) and the boundary's threshold operands;
 *   3. gkr_chunk_tot: per chunk of GKR_R covered examples, the weighted sums
 *      of every head label's gradient and Hessian (the "reduce" of a
 *      reduce-then-scan) and the count of examples with a weight;
 *   4. gkr_carry: the exclusive scan of those chunk totals along each segment
 *      (each chunk's carry) and the segment's totals;
 *   5. gkr_score: each chunk walked again from its carry (each lane owns
 *      labels and adds the chunk's examples one after the other), every
 *      candidate scored for the covered subset and its complement as
 *      search.c scores it (complete heads: the sum of the labels' qualities,
 *      single-label heads: the label of the largest |score|), and reduced to
 *      the chunk's best;
 *   6. gkr_boundary: the candidates at the sparse value 0;
 *   7. gkr_reduce: one block reduces the chunks' bests to the lowest quality,
 *      ties to the lowest key (feature order, segment, walk position, covered
 *      before inverse: the CPU's order of candidates), a total order, so the
 *      result does not depend on the launch configuration;
 *   8. gkr_exact: the chosen subset's sums again in the CPU's order (one
 *      example after the other, products and sums rounded as search.c's
 *      -ffp-contract=off code rounds them), for the head.
 * The scores of steps 5 and 6 come from sums added in another order than the
 * CPU's (chunk carries), so a candidate within rounding of the best may be
 * chosen where the CPU chose the best; everything the model holds comes from
 * step 8's sums, the CPU's bit for bit.  Features are searched in slices
 * whose chunk totals fit the scratch budget.  Names private to this file use
 * gkr_. */
#include <chrono>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "gpu.h"
#include "rules_gpu.h"

namespace {

constexpr uint32_t GKR_R = 256;      /* covered examples per chunk */
constexpr int GKR_LPT = 4;           /* labels per lane in one label tile */
constexpr uint32_t GKR_TILE = 32 * GKR_LPT;
constexpr int GKR_SCAN = 256;        /* threads of the compaction's block scan */
constexpr int GKR_EXACT = 128;       /* threads of the exact sums; examples staged at once */

/* A candidate: its quality and its place in the CPU's order. */
struct gkr_cand {
    double q;
    unsigned long long key; /* k << 35 | part << 33 | walk index << 1 | sub */
};

/* What the decode needs of a feature (gkr_feature). */
struct gkr_finfo {
    float last_less, prev; /* the boundary's threshold operands */
    uint32_t split;        /* two different covered values */
};

/* The chosen candidate's exact sums and operands (gkr_exact). */
struct gkr_exact_out {
    uint32_t n_sub, pos;
    float v0, v1;
};

__host__ __device__ inline unsigned long long gkr_key(uint32_t k, uint32_t part, uint32_t r, uint32_t sub)
{
    return ((unsigned long long)k << 35) | ((unsigned long long)part << 33) |
           ((unsigned long long)r << 1) | sub;
}

__host__ __device__ inline bool gkr_better(double q, unsigned long long key, double bq,
                                           unsigned long long bkey)
{
    return q < bq || (q == bq && key < bkey);
}

/* search.c's es_rl_fequal */
__device__ inline bool gkr_fequal(float a, float b)
{
    return fabsf(a - b) <= FLT_EPSILON * fmaxf(1.0f, fmaxf(fabsf(a), fabsf(b)));
}

/* es_rl_eval's per-label score and quality (the GPU's selection only) */
template <typename T> __device__ inline T gkr_pred(T g, T h, T l2)
{
    T r = -g / (h + l2);
    return isfinite(r) ? r : T(0);
}
template <typename T> __device__ inline T gkr_abs(T x) { return x < T(0) ? -x : x; }
template <typename T> __device__ inline T gkr_quality(T p, T g, T h, T l2)
{
    T pp = p * p;
    return g * p + T(0.5) * h * pp + T(0.5) * l2 * pp;
}

/* What the kernels of one refinement read. */
struct gkr_args {
    uint32_t n, L, n_hl, single, n_nz;
    const uint32_t *sorted;
    const float *sval;
    const unsigned long long *soff;
    const uint32_t *n_neg;
    const uint32_t *miss;
    const unsigned long long *moff;
    const uint8_t *cov;
    const uint32_t *w, *hl, *fsel;
    const double *g, *h;   /* n x L */
    const float *gf, *hf;  /* the same in float32 (float32 mode) */
    const double *tot;     /* n_hl gradients, then n_hl Hessians */
    double l2;
    /* compaction (per feature, at its sorted offsets) */
    uint32_t *cex, *cpos;
    float *cval;
    uint32_t *cnt;         /* 2 per fsel index */
    gkr_finfo *finfo;      /* per fsel index */
    /* the slice */
    uint32_t k0, nk, maxch;
    double *tg;            /* nk x n_hl x 2 (gradient, Hessian): the feature's total */
    void *ctot;            /* nseg x maxch x n_hl x 2, T */
    uint32_t *ccnt;        /* nseg x maxch */
    void *segtot;          /* nseg x n_hl x 2, T */
    uint32_t *segcnt;      /* nseg */
    gkr_cand *best;        /* nseg x maxch + nk */
};

__device__ inline uint32_t gkr_seg_len(const gkr_args &a, uint32_t f, uint32_t part, unsigned long long *base)
{
    unsigned long long b = a.soff[f];
    uint32_t m = (uint32_t)(a.soff[f + 1] - b), nn = a.n_neg[f];
    *base = b + (part ? nn : 0);
    return part ? m - nn : nn;
}

/* 0. each feature's total over the head's labels: the rule's totals less its covered
      missing examples, in search.c's feature_total() order (exact) */
__global__ void gkr_tg(gkr_args a)
{
    uint32_t kk = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= a.n_hl) return;
    uint32_t f = a.fsel[a.k0 + kk], l = a.hl[j];
    double tg = a.tot[j], th = a.tot[a.n_hl + j];
    for (unsigned long long p = a.moff[f]; p < a.moff[f + 1]; p++) {
        uint32_t i = a.miss[p];
        if (!a.cov[i] || !a.w[i]) continue;
        double w = (double)a.w[i];
        tg = __dsub_rn(tg, __dmul_rn(a.g[(size_t)i * a.L + l], w));
        th = __dsub_rn(th, __dmul_rn(a.h[(size_t)i * a.L + l], w));
    }
    a.tg[((size_t)kk * a.n_hl + j) * 2] = tg;
    a.tg[((size_t)kk * a.n_hl + j) * 2 + 1] = th;
}

/* 1. compaction: block s = 2 (k - k0) + part scans its segment's coverage flags in
      tiles of GKR_SCAN (warp shuffles, then the warps' totals), carrying the count */
__global__ void __launch_bounds__(GKR_SCAN) gkr_compact(gkr_args a)
{
    __shared__ uint32_t wsum[GKR_SCAN / 32];
    __shared__ uint32_t s_carry;
    uint32_t s = blockIdx.x, k = a.k0 + s / 2, part = s & 1, f = a.fsel[k];
    unsigned long long base;
    uint32_t len = gkr_seg_len(a, f, part, &base);
    unsigned long long fb = a.soff[f];
    uint32_t lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    if (threadIdx.x == 0) s_carry = 0;
    __syncthreads();
    for (uint32_t t0 = 0; t0 < len; t0 += GKR_SCAN) {
        uint32_t t = t0 + threadIdx.x, pos = 0, ex = 0, flag = 0;
        if (t < len) {
            pos = part ? (uint32_t)(a.soff[f + 1] - fb) - 1 - t : t; /* segment 1 walks down */
            ex = a.sorted[fb + pos];
            flag = a.cov[ex] != 0;
        }
        uint32_t x = flag; /* inclusive warp scan */
        for (int o = 1; o < 32; o <<= 1) {
            uint32_t y = __shfl_up_sync(0xffffffffu, x, o);
            if (lane >= (uint32_t)o) x += y;
        }
        if (lane == 31) wsum[wid] = x;
        __syncthreads();
        if (threadIdx.x == 0) { /* the warps' totals, exclusive, in place */
            uint32_t c = 0;
            for (int w = 0; w < GKR_SCAN / 32; w++) {
                uint32_t v = wsum[w];
                wsum[w] = c;
                c += v;
            }
        }
        __syncthreads();
        uint32_t carry = s_carry;
        if (flag) {
            uint32_t at = carry + wsum[wid] + x - 1;
            a.cex[base + at] = ex;
            a.cval[base + at] = a.sval[fb + pos];
            a.cpos[base + at] = pos;
        }
        __syncthreads();
        if (threadIdx.x == GKR_SCAN - 1) s_carry = carry + wsum[wid] + x;
        __syncthreads();
    }
    if (threadIdx.x == 0) a.cnt[2 * k + part] = s_carry;
}

/* 2. per feature: two different covered values (search.c's EqualFeatureVector test),
      and the boundary's operands: the last covered value < 0 and the value the
      descending walk ends at (its opener, or the covered value before the last) */
__global__ void gkr_feature(gkr_args a)
{
    uint32_t kk = blockIdx.x * blockDim.x + threadIdx.x;
    if (kk >= a.nk) return;
    uint32_t k = a.k0 + kk, f = a.fsel[k];
    unsigned long long b0, b1;
    uint32_t c0 = a.cnt[2 * k], c1 = a.cnt[2 * k + 1];
    gkr_seg_len(a, f, 0, &b0);
    gkr_seg_len(a, f, 1, &b1);
    gkr_finfo fi;
    fi.split = 0;
    fi.last_less = c0 ? a.cval[b0 + c0 - 1] : 0.0f;
    fi.prev = fi.last_less;
    if (c0 + c1) {
        float lo = c0 ? a.cval[b0] : a.cval[b1 + c1 - 1], hi = c1 ? a.cval[b1] : a.cval[b0 + c0 - 1];
        fi.split = !gkr_fequal(lo, hi);
    }
    uint32_t o = 0; /* the descending walk's opener: its first covered example with a weight */
    while (o < c1 && !a.w[a.cex[b1 + o]]) o++;
    if (o < c1) fi.prev = (c1 >= 2 && c1 - 2 >= o) ? a.cval[b1 + c1 - 2] : a.cval[b1 + c1 - 1];
    a.finfo[k] = fi;
}

template <typename T> __device__ inline const T *gkr_gs(const gkr_args &a);
template <> __device__ inline const double *gkr_gs<double>(const gkr_args &a) { return a.g; }
template <> __device__ inline const float *gkr_gs<float>(const gkr_args &a) { return a.gf; }
template <typename T> __device__ inline const T *gkr_hs(const gkr_args &a);
template <> __device__ inline const double *gkr_hs<double>(const gkr_args &a) { return a.h; }
template <> __device__ inline const float *gkr_hs<float>(const gkr_args &a) { return a.hf; }

/* The chunk's examples into shared memory: ids, weights, values; @return its length */
template <typename T>
__device__ uint32_t gkr_stage(const gkr_args &a, uint32_t k, uint32_t part, uint32_t c, uint32_t *ex,
                              T *wt, float *val, unsigned long long *basep, uint32_t *cntp)
{
    uint32_t f = a.fsel[k];
    unsigned long long base;
    gkr_seg_len(a, f, part, &base);
    uint32_t cnt = a.cnt[2 * k + part];
    *basep = base;
    *cntp = cnt;
    if (c * GKR_R >= cnt || !a.finfo[k].split) return 0;
    uint32_t len = min(GKR_R, cnt - c * GKR_R);
    for (uint32_t r = threadIdx.x; r < len; r += blockDim.x) {
        uint32_t e = a.cex[base + c * GKR_R + r];
        ex[r] = e;
        wt[r] = (T)a.w[e];
        if (val) val[r] = a.cval[base + c * GKR_R + r];
    }
    __syncwarp();
    return len;
}

/* 3. the chunks' totals: one warp per (chunk, segment); lane u owns labels
      j0 + 32 u' + lane of each label tile */
template <typename T> __global__ void __launch_bounds__(32) gkr_chunk_tot(gkr_args a)
{
    __shared__ uint32_t ex[GKR_R];
    __shared__ T wt[GKR_R];
    uint32_t c = blockIdx.x, s = blockIdx.y, k = a.k0 + s / 2, part = s & 1, lane = threadIdx.x;
    unsigned long long base;
    uint32_t cnt;
    uint32_t len = gkr_stage<T>(a, k, part, c, ex, wt, nullptr, &base, &cnt);
    if (!len) return;
    const T *G = gkr_gs<T>(a), *H = gkr_hs<T>(a);
    T *out = (T *)a.ctot + ((size_t)s * a.maxch + c) * a.n_hl * 2;
    if (lane == 0) {
        uint32_t nw = 0;
        for (uint32_t r = 0; r < len; r++) nw += wt[r] != T(0);
        a.ccnt[(size_t)s * a.maxch + c] = nw;
    }
    for (uint32_t j0 = 0; j0 < a.n_hl; j0 += GKR_TILE) {
        T sg[GKR_LPT], sh[GKR_LPT];
        uint32_t col[GKR_LPT];
        bool ok[GKR_LPT];
#pragma unroll
        for (int u = 0; u < GKR_LPT; u++) {
            uint32_t j = j0 + 32 * u + lane;
            ok[u] = j < a.n_hl;
            col[u] = ok[u] ? a.hl[j] : 0;
            sg[u] = sh[u] = T(0);
        }
        uint32_t r = 0;
        for (; r + 4 <= len; r += 4) { /* four examples' loads in flight, added in order */
            T vg[4][GKR_LPT], vh[4][GKR_LPT];
#pragma unroll
            for (int q = 0; q < 4; q++) {
                size_t row = (size_t)ex[r + q] * a.L;
                bool any = wt[r + q] != T(0);
#pragma unroll
                for (int u = 0; u < GKR_LPT; u++) {
                    vg[q][u] = any && ok[u] ? G[row + col[u]] : T(0);
                    vh[q][u] = any && ok[u] ? H[row + col[u]] : T(0);
                }
            }
#pragma unroll
            for (int q = 0; q < 4; q++)
#pragma unroll
                for (int u = 0; u < GKR_LPT; u++) {
                    sg[u] += vg[q][u] * wt[r + q];
                    sh[u] += vh[q][u] * wt[r + q];
                }
        }
        for (; r < len; r++) {
            if (wt[r] == T(0)) continue;
            size_t row = (size_t)ex[r] * a.L;
#pragma unroll
            for (int u = 0; u < GKR_LPT; u++)
                if (ok[u]) {
                    sg[u] += G[row + col[u]] * wt[r];
                    sh[u] += H[row + col[u]] * wt[r];
                }
        }
#pragma unroll
        for (int u = 0; u < GKR_LPT; u++)
            if (ok[u]) {
                uint32_t j = j0 + 32 * u + lane;
                out[(size_t)j * 2] = sg[u];
                out[(size_t)j * 2 + 1] = sh[u];
            }
    }
}

/* 4. the carries: one thread per (segment, label) scans the chunk totals in place
      (exclusive) and keeps the segment's total; the first thread of a segment does the
      same for the counts */
template <typename T> __global__ void gkr_carry(gkr_args a)
{
    uint32_t s = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x, k = a.k0 + s / 2, part = s & 1;
    uint32_t cnt = a.cnt[2 * k + part];
    uint32_t nch = a.finfo[k].split ? (cnt + GKR_R - 1) / GKR_R : 0;
    T *tot = (T *)a.ctot + (size_t)s * a.maxch * a.n_hl * 2;
    if (j < a.n_hl) {
        T cg = T(0), ch = T(0);
        for (uint32_t c = 0; c < nch; c++) {
            T *p = tot + ((size_t)c * a.n_hl + j) * 2;
            T x = p[0], y = p[1];
            p[0] = cg;
            p[1] = ch;
            cg += x;
            ch += y;
        }
        T *st = (T *)a.segtot + ((size_t)s * a.n_hl + j) * 2;
        st[0] = cg;
        st[1] = ch;
    }
    if (j == 0) {
        uint32_t cc = 0;
        for (uint32_t c = 0; c < nch; c++) {
            uint32_t x = a.ccnt[(size_t)s * a.maxch + c];
            a.ccnt[(size_t)s * a.maxch + c] = cc;
            cc += x;
        }
        a.segcnt[s] = cc;
    }
}

/* The warp's best single-label candidate: the largest |score|, the lowest label on ties. */
template <typename T> struct gkr_sl {
    T abs_, q;
    uint32_t lab;
};
template <typename T> __device__ inline void gkr_sl_take(gkr_sl<T> &b, T abs_, T q, uint32_t lab)
{
    if (abs_ > b.abs_ || (abs_ == b.abs_ && lab < b.lab)) {
        b.abs_ = abs_;
        b.q = q;
        b.lab = lab;
    }
}
template <typename T> __device__ inline gkr_sl<T> gkr_sl_warp(gkr_sl<T> b)
{
    for (int o = 16; o; o >>= 1) {
        T a2 = __shfl_xor_sync(0xffffffffu, b.abs_, o), q2 = __shfl_xor_sync(0xffffffffu, b.q, o);
        uint32_t l2 = __shfl_xor_sync(0xffffffffu, b.lab, o);
        gkr_sl_take(b, a2, q2, l2);
    }
    return b;
}
template <typename T> __device__ inline T gkr_warp_sum(T x)
{
    for (int o = 16; o; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

/* 5. score the chunk's candidates: one warp per (chunk, segment); dynamic shared memory
      holds the chunk (ids, weights, values, flags) and each position's quality so far */
template <typename T> __global__ void __launch_bounds__(32) gkr_score(gkr_args a)
{
    extern __shared__ unsigned long long gkr_smem[];
    T *wt = (T *)gkr_smem;                              /* GKR_R */
    T *qa = wt + GKR_R, *qb = qa + GKR_R;               /* complete: the sums; single: q */
    T *aa = qb + GKR_R, *ab = aa + GKR_R;               /* single: |score| */
    uint32_t *la = (uint32_t *)(ab + GKR_R), *lb = la + GKR_R; /* single: the label */
    uint32_t *ex = lb + GKR_R;
    float *val = (float *)(ex + GKR_R);
    uint8_t *fl = (uint8_t *)(val + GKR_R);
    uint32_t c = blockIdx.x, s = blockIdx.y, k = a.k0 + s / 2, part = s & 1, lane = threadIdx.x;
    unsigned long long base;
    uint32_t cnt;
    gkr_cand *outp = a.best + (size_t)s * a.maxch + c;
    uint32_t len = gkr_stage<T>(a, k, part, c, ex, wt, val, &base, &cnt);
    if (!len) {
        if (lane == 0 && c < a.maxch) *outp = gkr_cand{INFINITY, ~0ull};
        return;
    }
    const T l2 = (T)a.l2;
    /* the candidates: a covered example with a weight after the walk's first one, whose
       value differs from the previous covered one (segment 1: not its last covered
       example, which mlrl-boomer's walk never reaches) */
    uint32_t any = 0;
    if (lane == 0) {
        uint32_t run = a.ccnt[(size_t)s * a.maxch + c];
        float prev = c ? a.cval[base + c * GKR_R - 1] : 0.0f;
        for (uint32_t r = 0; r < len; r++) {
            uint32_t gr = c * GKR_R + r;
            bool cand = wt[r] != T(0) && run > 0 && !gkr_fequal(prev, val[r]) && (part == 0 || gr + 1 < cnt);
            fl[r] = cand ? (uint8_t)(1 | (a.n_nz - run >= 1 ? 2 : 0)) : 0;
            any |= fl[r];
            prev = val[r];
            if (wt[r] != T(0)) run++;
            qa[r] = qb[r] = T(0);
            aa[r] = ab[r] = T(-1);
            la[r] = lb[r] = ~0u;
        }
    }
    any = __shfl_sync(0xffffffffu, any, 0);
    __syncwarp();
    if (!any) {
        if (lane == 0) *outp = gkr_cand{INFINITY, ~0ull};
        return;
    }
    const T *G = gkr_gs<T>(a), *H = gkr_hs<T>(a);
    const T *carry = (const T *)a.ctot + ((size_t)s * a.maxch + c) * a.n_hl * 2;
    const double *tgk = a.tg + (size_t)(k - a.k0) * a.n_hl * 2;
    for (uint32_t j0 = 0; j0 < a.n_hl; j0 += GKR_TILE) {
        T sg[GKR_LPT], sh[GKR_LPT], tg[GKR_LPT], th[GKR_LPT], ng[GKR_LPT], nh[GKR_LPT];
        uint32_t col[GKR_LPT];
        bool ok[GKR_LPT];
#pragma unroll
        for (int u = 0; u < GKR_LPT; u++) {
            uint32_t j = j0 + 32 * u + lane;
            ok[u] = j < a.n_hl;
            col[u] = ok[u] ? a.hl[j] : 0;
            sg[u] = ok[u] ? carry[(size_t)j * 2] : T(0);
            sh[u] = ok[u] ? carry[(size_t)j * 2 + 1] : T(0);
            tg[u] = ok[u] ? (T)tgk[(size_t)j * 2] : T(0);
            th[u] = ok[u] ? (T)tgk[(size_t)j * 2 + 1] : T(0);
            ng[u] = nh[u] = T(0);
        }
        /* the next example's statistics are loaded while this one is scored */
        if (wt[0] != T(0)) {
            size_t row = (size_t)ex[0] * a.L;
#pragma unroll
            for (int u = 0; u < GKR_LPT; u++) {
                ng[u] = ok[u] ? G[row + col[u]] : T(0);
                nh[u] = ok[u] ? H[row + col[u]] : T(0);
            }
        }
        for (uint32_t r = 0; r < len; r++) {
            T cg[GKR_LPT], ch[GKR_LPT];
#pragma unroll
            for (int u = 0; u < GKR_LPT; u++) {
                cg[u] = ng[u];
                ch[u] = nh[u];
            }
            if (r + 1 < len && wt[r + 1] != T(0)) {
                size_t row = (size_t)ex[r + 1] * a.L;
#pragma unroll
                for (int u = 0; u < GKR_LPT; u++) {
                    ng[u] = ok[u] ? G[row + col[u]] : T(0);
                    nh[u] = ok[u] ? H[row + col[u]] : T(0);
                }
            }
            uint8_t f = fl[r];
            if (f) {
                if (!a.single) {
                    T sa = T(0), sb = T(0);
#pragma unroll
                    for (int u = 0; u < GKR_LPT; u++)
                        if (ok[u]) {
                            sa += gkr_quality(gkr_pred(sg[u], sh[u], l2), sg[u], sh[u], l2);
                            if (f & 2) {
                                T ug = tg[u] - sg[u], uh = th[u] - sh[u];
                                sb += gkr_quality(gkr_pred(ug, uh, l2), ug, uh, l2);
                            }
                        }
                    sa = gkr_warp_sum(sa);
                    sb = gkr_warp_sum(sb);
                    if (lane == 0) {
                        qa[r] += sa;
                        qb[r] += sb;
                    }
                } else {
                    gkr_sl<T> ba{T(-1), T(0), ~0u}, bb{T(-1), T(0), ~0u};
#pragma unroll
                    for (int u = 0; u < GKR_LPT; u++)
                        if (ok[u]) {
                            uint32_t j = j0 + 32 * u + lane;
                            T p = gkr_pred(sg[u], sh[u], l2);
                            gkr_sl_take(ba, gkr_abs(p), gkr_quality(p, sg[u], sh[u], l2), j);
                            if (f & 2) {
                                T ug = tg[u] - sg[u], uh = th[u] - sh[u];
                                T pu = gkr_pred(ug, uh, l2);
                                gkr_sl_take(bb, gkr_abs(pu), gkr_quality(pu, ug, uh, l2), j);
                            }
                        }
                    ba = gkr_sl_warp(ba);
                    bb = gkr_sl_warp(bb);
                    if (lane == 0) { /* later tiles hold higher labels: strictly larger wins */
                        if (ba.abs_ > aa[r]) {
                            aa[r] = ba.abs_;
                            qa[r] = ba.q;
                            la[r] = ba.lab;
                        }
                        if (bb.abs_ > ab[r]) {
                            ab[r] = bb.abs_;
                            qb[r] = bb.q;
                            lb[r] = bb.lab;
                        }
                    }
                }
            }
            if (wt[r] != T(0)) {
#pragma unroll
                for (int u = 0; u < GKR_LPT; u++) {
                    sg[u] += cg[u] * wt[r];
                    sh[u] += ch[u] * wt[r];
                }
            }
        }
        __syncwarp();
    }
    /* the chunk's best: (quality, key) lowest */
    double bq = INFINITY;
    unsigned long long bk = ~0ull;
    for (uint32_t r = lane; r < len; r += 32) {
        uint8_t f = fl[r];
        uint32_t gr = c * GKR_R + r;
        if (f & 1) {
            double q = (double)qa[r];
            unsigned long long key = gkr_key(k, part, gr, 0);
            if (!isnan(q) && gkr_better(q, key, bq, bk)) bq = q, bk = key;
        }
        if (f & 2) {
            double q = (double)qb[r];
            unsigned long long key = gkr_key(k, part, gr, 1);
            if (!isnan(q) && gkr_better(q, key, bq, bk)) bq = q, bk = key;
        }
    }
    for (int o = 16; o; o >>= 1) {
        double q2 = __shfl_xor_sync(0xffffffffu, bq, o);
        unsigned long long k2 = __shfl_xor_sync(0xffffffffu, bk, o);
        if (gkr_better(q2, k2, bq, bk)) bq = q2, bk = k2;
    }
    if (lane == 0) *outp = gkr_cand{bq, bk};
}

/* 6. the boundary at the sparse value 0: "<=" the values < 0 and its inverse, from the
      segment-0 totals; one warp per feature */
template <typename T> __global__ void __launch_bounds__(32) gkr_boundary(gkr_args a)
{
    uint32_t kk = blockIdx.x, k = a.k0 + kk, s0 = 2 * kk, lane = threadIdx.x;
    gkr_cand *outp = a.best + (size_t)2 * a.nk * a.maxch + kk;
    uint32_t nless = a.segcnt[s0];
    if (!a.finfo[k].split || !(nless > 0 && nless < a.n_nz)) {
        if (lane == 0) *outp = gkr_cand{INFINITY, ~0ull};
        return;
    }
    const T l2 = (T)a.l2;
    const T *st = (const T *)a.segtot + (size_t)s0 * a.n_hl * 2;
    const double *tgk = a.tg + (size_t)kk * a.n_hl * 2;
    T sa = T(0), sb = T(0);
    gkr_sl<T> ba{T(-1), T(0), ~0u}, bb{T(-1), T(0), ~0u};
    for (uint32_t j = lane; j < a.n_hl; j += 32) {
        T g = st[(size_t)j * 2], h = st[(size_t)j * 2 + 1];
        T ug = (T)tgk[(size_t)j * 2] - g, uh = (T)tgk[(size_t)j * 2 + 1] - h;
        T p = gkr_pred(g, h, l2), pu = gkr_pred(ug, uh, l2);
        T q = gkr_quality(p, g, h, l2), qu = gkr_quality(pu, ug, uh, l2);
        sa += q;
        sb += qu;
        gkr_sl_take(ba, gkr_abs(p), q, j);
        gkr_sl_take(bb, gkr_abs(pu), qu, j);
    }
    double qa, qb;
    if (!a.single) {
        qa = (double)gkr_warp_sum(sa);
        qb = (double)gkr_warp_sum(sb);
    } else {
        qa = (double)gkr_sl_warp(ba).q;
        qb = (double)gkr_sl_warp(bb).q;
    }
    if (lane == 0) {
        gkr_cand b{INFINITY, ~0ull};
        unsigned long long ka = gkr_key(k, 2, 0, 0), kb = gkr_key(k, 2, 0, 1);
        if (!isnan(qa)) b = gkr_cand{qa, ka};
        if (!isnan(qb) && gkr_better(qb, kb, b.q, b.key)) b = gkr_cand{qb, kb};
        *outp = b;
    }
}

/* 7. one block: the lowest (quality, key) of nb candidates */
__global__ void __launch_bounds__(1024) gkr_reduce(const gkr_cand *c, size_t nb, gkr_cand *out)
{
    __shared__ double sq[32];
    __shared__ unsigned long long sk[32];
    double bq = INFINITY;
    unsigned long long bk = ~0ull;
    for (size_t i = threadIdx.x; i < nb; i += blockDim.x)
        if (gkr_better(c[i].q, c[i].key, bq, bk)) bq = c[i].q, bk = c[i].key;
    for (int o = 16; o; o >>= 1) {
        double q2 = __shfl_xor_sync(0xffffffffu, bq, o);
        unsigned long long k2 = __shfl_xor_sync(0xffffffffu, bk, o);
        if (gkr_better(q2, k2, bq, bk)) bq = q2, bk = k2;
    }
    if ((threadIdx.x & 31) == 0) {
        sq[threadIdx.x >> 5] = bq;
        sk[threadIdx.x >> 5] = bk;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (uint32_t w = 1; w < blockDim.x / 32; w++)
            if (gkr_better(sq[w], sk[w], bq, bk)) bq = sq[w], bk = sk[w];
        *out = gkr_cand{bq, bk};
    }
}

/* 8. the chosen subset's sums in the CPU's order: the first upto covered examples of
      the segment, one after the other; a weight of 1 adds the statistic itself
      (search.c's add_ex), another one its product, each operation rounded alone */
__global__ void __launch_bounds__(GKR_EXACT) gkr_exact(gkr_args a, uint32_t k, uint32_t part, uint32_t upto,
                                                       double *xg, double *xh, gkr_exact_out *xo)
{
    __shared__ uint32_t ex[GKR_EXACT];
    __shared__ uint32_t wt[GKR_EXACT];
    uint32_t f = a.fsel[k];
    unsigned long long base;
    gkr_seg_len(a, f, part, &base);
    uint32_t nw = 0;
    for (uint32_t j0 = 0; j0 < a.n_hl; j0 += GKR_EXACT) {
        uint32_t j = j0 + threadIdx.x;
        bool ok = j < a.n_hl;
        uint32_t l = ok ? a.hl[j] : 0;
        double sg = 0.0, sh = 0.0;
        for (uint32_t r0 = 0; r0 < upto; r0 += GKR_EXACT) {
            uint32_t n = min((uint32_t)GKR_EXACT, upto - r0);
            __syncthreads();
            if (threadIdx.x < n) {
                uint32_t e = a.cex[base + r0 + threadIdx.x];
                ex[threadIdx.x] = e;
                wt[threadIdx.x] = a.w[e];
            }
            __syncthreads();
            if (j0 == 0 && threadIdx.x == 0)
                for (uint32_t r = 0; r < n; r++) nw += wt[r] != 0;
            if (!ok) continue;
#pragma unroll 8
            for (uint32_t r = 0; r < n; r++) {
                uint32_t w = wt[r];
                if (!w) continue;
                size_t at = (size_t)ex[r] * a.L + l;
                double g = a.g[at], h = a.h[at];
                if (w != 1) {
                    g = __dmul_rn(g, (double)w);
                    h = __dmul_rn(h, (double)w);
                }
                sg = __dadd_rn(sg, g);
                sh = __dadd_rn(sh, h);
            }
        }
        if (ok) {
            xg[j] = sg;
            xh[j] = sh;
        }
    }
    if (threadIdx.x == 0) {
        gkr_exact_out o;
        o.n_sub = nw;
        if (part < 2 && upto < a.cnt[2 * k + part]) {
            o.pos = a.cpos[base + upto];
            o.v0 = upto ? a.cval[base + upto - 1] : 0.0f;
            o.v1 = a.cval[base + upto];
        } else {
            o.pos = 0;
            o.v0 = a.finfo[k].last_less;
            o.v1 = a.finfo[k].prev;
        }
        *xo = o;
    }
}

__global__ void gkr_to_float(const double *x, float *y, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = (float)x[i];
}

/* bytes of gkr_score's dynamic shared memory */
template <typename T> size_t gkr_score_smem()
{
    return GKR_R * (5 * sizeof(T) + 2 * sizeof(uint32_t) + sizeof(uint32_t) + sizeof(float) + 1);
}

} // namespace

static double gkr_now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct es_gkr {
    int dev;
    int trace;                       /* EPISTREAM_RULES_GPU_TRACE: the times below at close */
    double t_stats, t_search, t_exact; /* seconds in es_gkr_stats, the slices, the exact sums */
    unsigned long long n_search, n_rules;
    const double *reg_g, *reg_h;     /* host arrays pinned with cudaHostRegister */
    int pin_tried;
    cudaStream_t st;
    char name[128];
    uint32_t n, F, L, maxm, slice_f, maxch;
    int f32;
    size_t tot_sorted;
    uint32_t *sorted, *n_neg, *miss, *w, *hl, *fsel, *cex, *cpos, *cnt, *ccnt, *segcnt;
    unsigned long long *soff, *moff;
    float *sval, *cval, *gf, *hf;
    uint8_t *cov;
    double *g, *h, *tot, *tg, *xg, *xh;
    void *ctot, *segtot;
    gkr_finfo *finfo;
    gkr_cand *best, *out;
    gkr_exact_out *xo;
};

extern "C" int es_gkr_device_count(int *n)
{
    return es_gpu_device_count(n);
}

extern "C" const char *es_gkr_name(const es_gkr_t *g)
{
    return g ? g->name : "none";
}

extern "C" void es_gkr_close(es_gkr_t *g)
{
    if (!g) return;
    cudaSetDevice(g->dev);
    if (g->trace)
        fprintf(stderr, "[rules-gpu] %s: %llu rules, %llu searches: statistics upload %.3f s, "
                "search kernels %.3f s (%.2f ms each), exact sums %.3f s\n", g->name, g->n_rules,
                g->n_search, g->t_stats, g->t_search, g->n_search ? 1e3 * g->t_search / (double)g->n_search : 0.0,
                g->t_exact);
    if (g->reg_g) cudaHostUnregister((void *)g->reg_g);
    if (g->reg_h) cudaHostUnregister((void *)g->reg_h);
    void *ptrs[] = {g->sorted, g->n_neg, g->miss, g->w,    g->hl,  g->fsel,   g->cex,  g->cpos,
                    g->cnt,    g->ccnt,  g->segcnt, g->soff, g->moff, g->sval, g->cval, g->gf,
                    g->hf,     g->cov,   g->g,    g->h,    g->tot, g->tg,     g->xg,   g->xh,
                    g->ctot,   g->segtot, g->finfo, g->best, g->out, g->xo};
    for (void *p : ptrs)
        if (p) cudaFree(p);
    if (g->st) cudaStreamDestroy(g->st);
    free(g);
}

/* cudaMalloc with a message naming what did not fit */
static int gkr_alloc(void **p, size_t bytes, const char *what)
{
    if (cudaMalloc(p, bytes ? bytes : 1) != cudaSuccess) {
        (void)cudaGetLastError();
        fprintf(stderr, "[E::es_gkr_open] GPU memory: cannot allocate %.1f MiB for %s\n",
                (double)bytes / 1048576.0, what);
        *p = nullptr;
        return ES_ERR_NOMEM;
    }
    return ES_OK;
}

extern "C" int es_gkr_open(int dev, const es_gkr_config_t *cfg, es_gkr_t **out)
{
    *out = nullptr;
    if (!cfg->n || !cfg->F || !cfg->L || cfg->n > (1u << 31)) return ES_ERR_ARG;
    es_gkr_t *g = (es_gkr_t *)calloc(1, sizeof *g);
    if (!g) return ES_ERR_NOMEM;
    g->dev = dev;
    cudaDeviceProp prop;
    if (cudaSetDevice(dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess ||
        cudaStreamCreate(&g->st) != cudaSuccess) {
        fprintf(stderr, "[E::es_gkr_open] cannot open CUDA device %d: %s\n", dev,
                cudaGetErrorString(cudaGetLastError()));
        free(g);
        return ES_ERR_GPU;
    }
    snprintf(g->name, sizeof g->name, "gpu:%d (%.64s, %d SMs)", dev, prop.name, prop.multiProcessorCount);
    g->trace = getenv("EPISTREAM_RULES_GPU_TRACE") != nullptr;
    uint32_t n = g->n = cfg->n, F = g->F = cfg->F, L = g->L = cfg->L;
    g->f32 = cfg->float32 != 0;
    size_t ts = g->tot_sorted = cfg->soff[F], tm = cfg->moff[F];
    uint32_t maxm = 1;
    for (uint32_t f = 0; f < F; f++) {
        uint32_t m = (uint32_t)(cfg->soff[f + 1] - cfg->soff[f]);
        if (m > maxm) maxm = m;
    }
    g->maxm = maxm;
    g->maxch = (maxm + GKR_R - 1) / GKR_R;
    size_t tsz = g->f32 ? sizeof(float) : sizeof(double);
    size_t budget = cfg->mem_budget ? cfg->mem_budget : (size_t)2 << 30;
    size_t per_f = 2 * ((size_t)g->maxch * L * 2 * tsz + (size_t)g->maxch * (sizeof(uint32_t) + sizeof(gkr_cand)) +
                        (size_t)L * 2 * tsz) + (size_t)L * 2 * sizeof(double) + sizeof(gkr_cand);
    size_t sf = budget / per_f;
    if (sf < 1) sf = 1;
    if (sf > F) sf = F;
    if (sf > 30000) sf = 30000; /* grid.y holds the slice's 2 segments per feature */
    g->slice_f = (uint32_t)sf;
    size_t nseg = 2 * sf;
    int ret = ES_OK;
#define GA(p, bytes, what) \
    if (!ret) ret = gkr_alloc((void **)&(p), (bytes), (what))
    GA(g->sorted, ts * 4, "the sorted order");
    GA(g->sval, ts * 4, "the sorted values");
    GA(g->soff, (F + 1) * 8ull, "offsets");
    GA(g->n_neg, F * 4ull, "offsets");
    GA(g->miss, tm * 4, "the missing values");
    GA(g->moff, (F + 1) * 8ull, "offsets");
    GA(g->g, (size_t)n * L * 8, "the gradients");
    GA(g->h, (size_t)n * L * 8, "the Hessians");
    if (g->f32) {
        GA(g->gf, (size_t)n * L * 4, "the float32 gradients");
        GA(g->hf, (size_t)n * L * 4, "the float32 Hessians");
    }
    GA(g->w, n * 4ull, "the weights");
    GA(g->cov, n, "the coverage");
    GA(g->hl, L * 4ull, "the head's labels");
    GA(g->fsel, F * 4ull, "the feature sample");
    GA(g->tot, L * 16ull, "the totals");
    GA(g->cex, ts * 4, "the covered examples");
    GA(g->cpos, ts * 4, "the covered examples");
    GA(g->cval, ts * 4, "the covered examples");
    GA(g->cnt, F * 8ull, "counts");
    GA(g->finfo, F * sizeof(gkr_finfo), "per-feature data");
    GA(g->tg, sf * L * 16, "the features' totals");
    GA(g->ctot, nseg * g->maxch * L * 2 * tsz, "the chunk totals");
    GA(g->ccnt, nseg * g->maxch * 4, "the chunk counts");
    GA(g->segtot, nseg * L * 2 * tsz, "the segment totals");
    GA(g->segcnt, nseg * 4, "the segment counts");
    GA(g->best, (nseg * g->maxch + sf) * sizeof(gkr_cand), "the chunks' bests");
    GA(g->out, sizeof(gkr_cand), "the best");
    GA(g->xg, L * 8ull, "the exact sums");
    GA(g->xh, L * 8ull, "the exact sums");
    GA(g->xo, sizeof(gkr_exact_out), "the exact sums");
#undef GA
    if (ret) {
        es_gkr_close(g);
        return ret;
    }
    static_assert(sizeof(unsigned long long) == sizeof(uint64_t), "offsets are 64-bit");
    if (cudaMemcpy(g->sorted, cfg->sorted, ts * 4, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(g->sval, cfg->sval, ts * 4, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(g->soff, cfg->soff, (F + 1) * 8ull, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(g->n_neg, cfg->n_neg, F * 4ull, cudaMemcpyHostToDevice) != cudaSuccess ||
        (tm && cudaMemcpy(g->miss, cfg->miss, tm * 4, cudaMemcpyHostToDevice) != cudaSuccess) ||
        cudaMemcpy(g->moff, cfg->moff, (F + 1) * 8ull, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaFuncSetAttribute(gkr_score<double>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)gkr_score_smem<double>()) != cudaSuccess ||
        cudaFuncSetAttribute(gkr_score<float>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)gkr_score_smem<float>()) != cudaSuccess) {
        fprintf(stderr, "[E::es_gkr_open] uploading the features: %s\n", cudaGetErrorString(cudaGetLastError()));
        es_gkr_close(g);
        return ES_ERR_GPU;
    }
    *out = g;
    return ES_OK;
}

extern "C" int es_gkr_stats(es_gkr_t *g, const double *grad, const double *hess, const uint32_t *w)
{
    size_t nl = (size_t)g->n * g->L;
    double t0 = gkr_now();
    CHECK(cudaSetDevice(g->dev));
    /* the same host arrays every rule: pinned once, so that the copies run at full speed
       (when pinning fails, pageable copies do the same job) */
    if (!g->pin_tried) {
        g->pin_tried = 1;
        if (cudaHostRegister((void *)grad, nl * 8, cudaHostRegisterDefault) == cudaSuccess) g->reg_g = grad;
        if (cudaHostRegister((void *)hess, nl * 8, cudaHostRegisterDefault) == cudaSuccess) g->reg_h = hess;
        (void)cudaGetLastError();
    }
    CHECK(cudaMemcpyAsync(g->g, grad, nl * 8, cudaMemcpyHostToDevice, g->st));
    CHECK(cudaMemcpyAsync(g->h, hess, nl * 8, cudaMemcpyHostToDevice, g->st));
    CHECK(cudaMemcpyAsync(g->w, w, g->n * 4ull, cudaMemcpyHostToDevice, g->st));
    if (g->f32) {
        gkr_to_float<<<1024, 256, 0, g->st>>>(g->g, g->gf, nl);
        gkr_to_float<<<1024, 256, 0, g->st>>>(g->h, g->hf, nl);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaStreamSynchronize(g->st));
    g->n_rules++;
    g->t_stats += gkr_now() - t0;
    return ES_OK;
}

template <typename T> static int gkr_slice(es_gkr_t *g, gkr_args &a, gkr_cand *res)
{
    uint32_t nk = a.nk, nseg = 2 * nk;
    cudaStream_t st = g->st;
    gkr_tg<<<dim3((a.n_hl + 127) / 128, nk), 128, 0, st>>>(a);
    gkr_compact<<<nseg, GKR_SCAN, 0, st>>>(a);
    gkr_feature<<<(nk + 127) / 128, 128, 0, st>>>(a);
    gkr_chunk_tot<T><<<dim3(a.maxch, nseg), 32, 0, st>>>(a);
    gkr_carry<T><<<dim3((a.n_hl + 127) / 128, nseg), 128, 0, st>>>(a);
    gkr_score<T><<<dim3(a.maxch, nseg), 32, gkr_score_smem<T>(), st>>>(a);
    gkr_boundary<T><<<nk, 32, 0, st>>>(a);
    gkr_reduce<<<1, 1024, 0, st>>>(a.best, (size_t)nseg * a.maxch + nk, g->out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(res, g->out, sizeof *res, cudaMemcpyDeviceToHost, st));
    CHECK(cudaStreamSynchronize(st));
    return ES_OK;
}

extern "C" int es_gkr_search(es_gkr_t *g, const es_gkr_refine_t *r, es_gkr_best_t *b, double *G, double *H)
{
    memset(b, 0, sizeof *b);
    if (!r->n_fs || !r->n_hl || r->n_hl > g->L || r->n_fs > g->F) return r->n_fs ? ES_ERR_ARG : ES_OK;
    CHECK(cudaSetDevice(g->dev));
    cudaStream_t st = g->st;
    CHECK(cudaMemcpyAsync(g->cov, r->cov, g->n, cudaMemcpyHostToDevice, st));
    CHECK(cudaMemcpyAsync(g->hl, r->hl, r->n_hl * 4ull, cudaMemcpyHostToDevice, st));
    CHECK(cudaMemcpyAsync(g->tot, r->tot_g, r->n_hl * 8ull, cudaMemcpyHostToDevice, st));
    CHECK(cudaMemcpyAsync(g->tot + r->n_hl, r->tot_h, r->n_hl * 8ull, cudaMemcpyHostToDevice, st));
    CHECK(cudaMemcpyAsync(g->fsel, r->fsel, r->n_fs * 4ull, cudaMemcpyHostToDevice, st));
    gkr_args a;
    memset(&a, 0, sizeof a);
    a.n = g->n;
    a.L = g->L;
    a.n_hl = r->n_hl;
    a.single = r->single != 0;
    a.n_nz = r->n_nz;
    a.sorted = g->sorted;
    a.sval = g->sval;
    a.soff = g->soff;
    a.n_neg = g->n_neg;
    a.miss = g->miss;
    a.moff = g->moff;
    a.cov = g->cov;
    a.w = g->w;
    a.hl = g->hl;
    a.fsel = g->fsel;
    a.g = g->g;
    a.h = g->h;
    a.gf = g->gf;
    a.hf = g->hf;
    a.tot = g->tot;
    a.l2 = r->l2;
    a.cex = g->cex;
    a.cpos = g->cpos;
    a.cval = g->cval;
    a.cnt = g->cnt;
    a.finfo = g->finfo;
    a.maxch = g->maxch;
    a.tg = g->tg;
    a.ctot = g->ctot;
    a.ccnt = g->ccnt;
    a.segtot = g->segtot;
    a.segcnt = g->segcnt;
    a.best = g->best;
    gkr_cand best{INFINITY, ~0ull};
    double t0 = gkr_now();
    g->n_search++;
    for (uint32_t k0 = 0; k0 < r->n_fs; k0 += g->slice_f) {
        a.k0 = k0;
        a.nk = r->n_fs - k0 < g->slice_f ? r->n_fs - k0 : g->slice_f;
        gkr_cand c;
        int ret = g->f32 ? gkr_slice<float>(g, a, &c) : gkr_slice<double>(g, a, &c);
        if (ret) return ret;
        if (gkr_better(c.q, c.key, best.q, best.key)) best = c;
    }
    double t1 = gkr_now();
    g->t_search += t1 - t0;
    if (best.key == ~0ull || !(best.q < INFINITY)) return ES_OK;
    uint32_t k = (uint32_t)(best.key >> 35), part = (uint32_t)(best.key >> 33) & 3u;
    uint32_t wi = (uint32_t)(best.key >> 1) & 0xffffffffu, sub = (uint32_t)(best.key & 1);
    /* the exact sums: the examples before the candidate in its segment, or segment 0 */
    uint32_t cnt0 = 0;
    if (part == 2) CHECK(cudaMemcpy(&cnt0, g->cnt + 2 * k, 4, cudaMemcpyDeviceToHost));
    a.k0 = 0;
    gkr_exact<<<1, GKR_EXACT, 0, st>>>(a, k, part == 2 ? 0 : part, part == 2 ? cnt0 : wi, g->xg, g->xh, g->xo);
    CHECK(cudaGetLastError());
    gkr_exact_out xo;
    CHECK(cudaMemcpyAsync(G, g->xg, r->n_hl * 8ull, cudaMemcpyDeviceToHost, st));
    CHECK(cudaMemcpyAsync(H, g->xh, r->n_hl * 8ull, cudaMemcpyDeviceToHost, st));
    CHECK(cudaMemcpyAsync(&xo, g->xo, sizeof xo, cudaMemcpyDeviceToHost, st));
    CHECK(cudaStreamSynchronize(st));
    g->t_exact += gkr_now() - t1;
    b->found = 1;
    b->k = k;
    b->part = part;
    b->sub = sub;
    b->v0 = xo.v0;
    b->v1 = xo.v1;
    b->pos = xo.pos;
    b->n_sub = xo.n_sub;
    b->q = best.q;
    return ES_OK;
}
