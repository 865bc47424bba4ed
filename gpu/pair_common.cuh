/* pair_common.cuh -- device code shared by the pair-counting kernel families
 * (count_mma.cu, count_popc.cu): the launch parameters, the
 * staging layout of the products, and the fused epilogue.
 *
 * The epilogue never writes per-pair counts to memory.  For each pair of a
 * CTA tile it builds the 2x3x3 table from the products and the per-variant
 * genotype counts, computes a float upper bound (and, where cheap, a lower
 * bound) of the statistic, and emits the pair -- indices and table -- only if
 * its upper bound could reach the top-k, either variant's best or the
 * significance threshold.  The host then scores the few candidates with the
 * CPU's exact code, so the output is the CPU backend's to the byte.
 *
 * Thresholds are lower bounds of exact statistics of real pairs:
 *   - thr[v] (device-wide, per variant): the best lower bound seen for v;
 *   - the top-k level: a histogram of one lower bound per CTA row (distinct
 *     pairs), whose k-th best bin edge bounds the k-th best statistic;
 *   - the host's exact k-th best, passed at launch.
 * Every bound is in "score" orientation (higher is better; K2 is negated) and
 * kept as an order-preserving 32-bit key so atomicMax works on it. */
#ifndef ES_PAIR_COMMON_CUH
#define ES_PAIR_COMMON_CUH

#include <stdint.h>

#include "gpu.h"

#define ES_GPU_THREADS 256
#define ES_HIST_BINS 4096
#define ES_HIST_SHIFT 20

/* Everything a tile launch needs (passed by value). */
struct es_gk_params {
    const uint64_t *pa, *pb;  /* block planes: row r = variant r / np, plane r % np */
    const uint32_t *ga, *gb;  /* genotype counts [v][class y][g] of each block */
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
    uint32_t *hist;           /* ES_HIST_BINS counts */
    uint32_t *tau_bin;        /* [0] current top-k bin, [1] highest bin used */
    es_gpu_cand_t *cand;
    uint32_t cap;
    uint32_t *n_cand;
};

/* Order-preserving float <-> uint32 keys. */
__device__ __forceinline__ uint32_t es_fkey(float f)
{
    uint32_t u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

__device__ __forceinline__ float es_fkey_inv(uint32_t k)
{
    uint32_t u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
    return __uint_as_float(u);
}

/* Statistic codes as in epistream.h's es_stat_t. */
enum { GK_BOOST = 0, GK_CHI2, GK_MI, GK_IG, GK_K2 };

/* The nine sums of one class (count.c's order) -> the nine cells. */
__device__ __forceinline__ void gk_derive(const uint32_t x[9], uint32_t n[9])
{
    enum { X11, X12, X21, X22, A1V, A2V, VB1, VB2, VV };
    n[8] = x[X22];
    n[7] = x[X21] - x[X22];
    n[5] = x[X12] - x[X22];
    n[4] = x[X11] - x[X12] - x[X21] + x[X22];
    n[6] = x[A2V] - x[X21];
    n[3] = x[A1V] - x[A2V] - x[X11] + x[X21];
    n[2] = x[VB2] - x[X12];
    n[1] = x[VB1] - x[VB2] - x[X11] + x[X12];
    n[0] = x[VV] - x[A1V] - x[VB1] + x[X11];
}

/* Table of one pair from its NP x NP products of both classes.
 * prod[c*NP*NP + p*NP + q]: class c (0 cases, 1 controls), plane p of a,
 * plane q of b.  ga, gb: [y][g] genotype counts (y 0 control, 1 case). */
template <int NP>
__device__ __forceinline__ void gk_table(const uint32_t *prod, const uint32_t *ga,
                                         const uint32_t *gb, uint32_t n[2][9])
{
#pragma unroll
    for (int c = 0; c < 2; c++) {
        const uint32_t *p = prod + c * NP * NP;
        int y = c == 0 ? 1 : 0;
        uint32_t x[9];
        if (NP == 2) {
            x[0] = p[0];
            x[1] = p[1];
            x[2] = p[2];
            x[3] = p[3];
            x[4] = ga[y * 3 + 1] + ga[y * 3 + 2];
            x[5] = ga[y * 3 + 2];
            x[6] = gb[y * 3 + 1] + gb[y * 3 + 2];
            x[7] = gb[y * 3 + 2];
            x[8] = ga[y * 3 + 0] + ga[y * 3 + 1] + ga[y * 3 + 2];
        } else {
            /* planes P1, P2, V */
            x[0] = p[0];
            x[1] = p[1];
            x[4] = p[2];
            x[2] = p[3];
            x[3] = p[4];
            x[5] = p[5];
            x[6] = p[6];
            x[7] = p[7];
            x[8] = p[8];
        }
        gk_derive(x, n[y]);
    }
}

/* Float bounds of one table's statistic.  up >= exact score >= lo, and
 * gup >= the G of the significance test.  The errors of float arithmetic
 * are covered by margins derived from the magnitudes summed (see
 * doc/GPU.md); __logf has an absolute error <= 2^-21.41 on [0.5, 2] and
 * <= 3 ulp elsewhere. */
struct gk_bounds {
    float up, lo, gup;
};

/* sum over cells n>0 of n ln(n / e) with e = num/den computed in float, and
 * the error bound of that sum. */
__device__ __forceinline__ void gk_acc_nlog(float n, float ratio, float &s, float &err)
{
    float t = n * __logf(ratio);
    s += t;
    err += fabsf(t) + n;
}

__device__ __forceinline__ float gk_margin(float err) { return err * 4e-6f + 1e-4f; }

/* N*I(Y; cols) in nats for a 2 x ncol table given as rows r0 (controls), r1
 * (cases), with totals; err receives the magnitude for the margin. */
template <int NC>
__device__ __forceinline__ float gk_nmi(const float *r0, const float *r1, float n0, float n1,
                                        float err_out[1])
{
    float n = n0 + n1, s = 0.0f, err = 0.0f;
#pragma unroll
    for (int c = 0; c < NC; c++) {
        float col = r0[c] + r1[c];
        if (r0[c] > 0.0f) gk_acc_nlog(r0[c], (r0[c] * n) / (n0 * col), s, err);
        if (r1[c] > 0.0f) gk_acc_nlog(r1[c], (r1[c] * n) / (n1 * col), s, err);
    }
    err_out[0] = err;
    return s;
}

/* Margins of df: non-empty columns and classes, as stats.c's table_margins. */
__device__ __forceinline__ int gk_df(const uint32_t n[2][9], uint32_t *n0, uint32_t *n1)
{
    uint32_t s0 = 0, s1 = 0;
    int cols = 0;
#pragma unroll
    for (int c = 0; c < 9; c++) {
        s0 += n[0][c];
        s1 += n[1][c];
        cols += (n[0][c] | n[1][c]) != 0;
    }
    *n0 = s0;
    *n1 = s1;
    return (s0 && s1 && cols > 1) ? cols - 1 : 0;
}

__device__ __forceinline__ gk_bounds gk_bound(int stat, const uint32_t n[2][9])
{
    gk_bounds b;
    uint32_t n0, n1;
    int df = gk_df(n, &n0, &n1);
    float N = (float)n0 + (float)n1;
    switch (stat) {
    case GK_BOOST: {
        /* G of the Kirkwood superposition approximation (boost.c): an upper
         * bound of PLINK's statistic.  mu = N p(a|b) p(b|k) p(k|a) / tau. */
        float ab[9], ak[2][3], bk[2][3], am[3], bm[3], kk[2];
#pragma unroll
        for (int i = 0; i < 3; i++) {
            am[i] = bm[i] = 0.0f;
#pragma unroll
            for (int y = 0; y < 2; y++) ak[y][i] = bk[y][i] = 0.0f;
        }
#pragma unroll
        for (int a = 0; a < 3; a++)
#pragma unroll
            for (int c = 0; c < 3; c++) {
                float x0 = (float)n[0][a * 3 + c], x1 = (float)n[1][a * 3 + c];
                ab[a * 3 + c] = x0 + x1;
                ak[0][a] += x0;
                ak[1][a] += x1;
                bk[0][c] += x0;
                bk[1][c] += x1;
            }
        int ra = 0, rb = 0;
#pragma unroll
        for (int i = 0; i < 3; i++) {
            am[i] = ak[0][i] + ak[1][i];
            bm[i] = bk[0][i] + bk[1][i];
            ra += am[i] > 0.0f;
            rb += bm[i] > 0.0f;
        }
        kk[0] = (float)n0;
        kk[1] = (float)n1;
        if (ra < 2 || rb < 2) {
            b.up = b.lo = b.gup = 0.0f;
            return b;
        }
        float tau = 0.0f;
#pragma unroll
        for (int a = 0; a < 3; a++)
#pragma unroll
            for (int c = 0; c < 3; c++) {
                if (ab[a * 3 + c] == 0.0f) continue;
                float s = 0.0f;
#pragma unroll
                for (int y = 0; y < 2; y++)
                    if (kk[y] > 0.0f) s += ak[y][a] * bk[y][c] / kk[y];
                tau += ab[a * 3 + c] / (am[a] * bm[c]) * s;
            }
        float s = 0.0f, err = 0.0f;
#pragma unroll
        for (int y = 0; y < 2; y++)
#pragma unroll
            for (int a = 0; a < 3; a++)
#pragma unroll
                for (int c = 0; c < 3; c++) {
                    float x = (float)n[y][a * 3 + c];
                    if (x > 0.0f) {
                        /* n / mu = n n_b n_k n_a tau / (N n_ab n_bk n_ak) */
                        float num = x * bm[c] * kk[y] * am[a];
                        float den = N * ab[a * 3 + c] * bk[y][c] * ak[y][a];
                        gk_acc_nlog(x, num / den * tau, s, err);
                    }
                }
        float g = 2.0f * s;
        b.up = g + 2.0f * gk_margin(err) + 1e-5f * fabsf(g);
        if (b.up < 0.0f) b.up = 0.0f;
        b.lo = 0.0f; /* the exact fit is >= 0; refined by gk_boost_lower() */
        b.gup = b.up;
        return b;
    }
    case GK_CHI2: {
        if (df <= 0) {
            b.up = b.lo = b.gup = 0.0f;
            return b;
        }
        float s = 0.0f;
#pragma unroll
        for (int c = 0; c < 9; c++) {
            uint32_t a0 = n[0][c], a1 = n[1][c];
            if (!(a0 | a1)) continue;
            float d = (float)((long long)a0 * n1 - (long long)a1 * n0);
            s += d * d / (float)(a0 + a1);
        }
        float v = s / ((float)n0 * (float)n1);
        b.up = v * (1.0f + 1e-5f) + 1e-6f;
        b.lo = v * (1.0f - 1e-5f) - 1e-6f;
        b.gup = b.up;
        return b;
    }
    case GK_MI:
    case GK_IG: {
        if (df <= 0) {
            b.up = b.lo = b.gup = 0.0f;
            return b;
        }
        float r0[9], r1[9], e[1];
#pragma unroll
        for (int c = 0; c < 9; c++) {
            r0[c] = (float)n[0][c];
            r1[c] = (float)n[1][c];
        }
        float f0 = (float)n0, f1 = (float)n1;
        float g = gk_nmi<9>(r0, r1, f0, f1, e);
        float m = gk_margin(e[0]);
        float up = fmaxf(g + m, 0.0f), lo = fmaxf(g - m, 0.0f);
        if (stat == GK_IG) {
            float a0[3], a1[3], c0[3], c1[3], ea[1], eb[1];
#pragma unroll
            for (int i = 0; i < 3; i++) {
                a0[i] = r0[3 * i] + r0[3 * i + 1] + r0[3 * i + 2];
                a1[i] = r1[3 * i] + r1[3 * i + 1] + r1[3 * i + 2];
                c0[i] = r0[i] + r0[i + 3] + r0[i + 6];
                c1[i] = r1[i] + r1[i + 3] + r1[i + 6];
            }
            float ga = gk_nmi<3>(a0, a1, f0, f1, ea), gb = gk_nmi<3>(c0, c1, f0, f1, eb);
            float ma = gk_margin(ea[0]), mb = gk_margin(eb[0]);
            float sub_lo = fmaxf(fmaxf(ga - ma, 0.0f), fmaxf(gb - mb, 0.0f));
            float sub_hi = fmaxf(fmaxf(ga + ma, 0.0f), fmaxf(gb + mb, 0.0f));
            float u = up - sub_lo, l = lo - sub_hi;
            up = u;
            lo = l;
        }
        /* score in bits: N I / (N ln 2); G = 2 N I (IG may be negative) */
        float inv = 1.0f / (N * 0.69314718f), su = up * inv, sl = lo * inv;
        b.gup = 2.0f * up + fabsf(2.0f * up) * 1e-6f;
        b.up = su + fabsf(su) * 1e-6f + 1e-7f;
        b.lo = sl - fabsf(sl) * 1e-6f - 1e-7f;
        return b;
    }
    default: { /* K2, lower is better: score = -K2 */
        float s = 0.0f, err = 0.0f;
#pragma unroll
        for (int c = 0; c < 9; c++) {
            float x0 = (float)n[0][c], x1 = (float)n[1][c];
            float t0 = lgammaf(x0 + x1 + 2.0f), t1 = lgammaf(x0 + 1.0f), t2 = lgammaf(x1 + 1.0f);
            s += t0 - (t1 + t2);
            err += fabsf(t0) + fabsf(t1) + fabsf(t2);
        }
        float m = err * 4e-6f + 1e-3f;
        b.up = -(s - m);
        b.lo = -(s + m);
        b.gup = 0.0f;
        return b;
    }
    }
}

/* A lower bound of PLINK's BOOST statistic for one table: iterative
 * proportional fitting in double, run to a tight tolerance.  Each IPF step
 * can only lower G, so a fit run further than PLINK's early stop (change
 * <= 0.001) gives a G at or below the CPU's; a fit that does not converge
 * within the cap says nothing (0). */
static __device__ double gk_boost_lower(const uint32_t n[2][9])
{
    double mu[2][9], t[2][9], ab[9], ak[2][3], bk[2][3];
    int ra = 0, rb = 0;
    for (int i = 0; i < 9; i++) ab[i] = 0.0;
    for (int y = 0; y < 2; y++)
        for (int i = 0; i < 3; i++) ak[y][i] = bk[y][i] = 0.0;
    double N = 0.0;
    for (int y = 0; y < 2; y++)
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 3; c++) {
                double x = (double)n[y][a * 3 + c];
                t[y][a * 3 + c] = x;
                ab[a * 3 + c] += x;
                ak[y][a] += x;
                bk[y][c] += x;
                N += x;
            }
    for (int i = 0; i < 3; i++) {
        ra += (ak[0][i] + ak[1][i]) > 0.0;
        rb += (bk[0][i] + bk[1][i]) > 0.0;
    }
    if (ra < 2 || rb < 2) return 0.0;
    for (int y = 0; y < 2; y++)
        for (int i = 0; i < 9; i++) mu[y][i] = 1.0;
    int conv = 0;
    for (int sweep = 0; sweep < 4000 && !conv; sweep++) {
        double change = 0.0, prev[2][9];
        for (int y = 0; y < 2; y++)
            for (int i = 0; i < 9; i++) prev[y][i] = mu[y][i];
        for (int i = 0; i < 9; i++) {
            double s = mu[0][i] + mu[1][i];
            double f = s != 0.0 ? ab[i] / s : 0.0;
            mu[0][i] *= f;
            mu[1][i] *= f;
        }
        for (int y = 0; y < 2; y++)
            for (int a = 0; a < 3; a++) {
                double s = mu[y][3 * a] + mu[y][3 * a + 1] + mu[y][3 * a + 2];
                double f = s != 0.0 ? ak[y][a] / s : 0.0;
                for (int c = 0; c < 3; c++) mu[y][3 * a + c] *= f;
            }
        for (int y = 0; y < 2; y++)
            for (int c = 0; c < 3; c++) {
                double s = mu[y][c] + mu[y][c + 3] + mu[y][c + 6];
                double f = s != 0.0 ? bk[y][c] / s : 0.0;
                for (int a = 0; a < 3; a++) mu[y][3 * a + c] *= f;
            }
        for (int y = 0; y < 2; y++)
            for (int i = 0; i < 9; i++) change += fabs(mu[y][i] - prev[y][i]);
        conv = change <= 1e-9 * (N + 1.0);
    }
    if (!conv) return 0.0;
    double g = 0.0, tau = 0.0;
    for (int y = 0; y < 2; y++)
        for (int i = 0; i < 9; i++) {
            tau += mu[y][i];
            if (t[y][i] > 0.0 && mu[y][i] > 0.0) g += t[y][i] * log(t[y][i] / mu[y][i]);
        }
    g = 2.0 * (g + N * log(tau / N));
    /* rounding of this fit and of the CPU's (both far below the margin) */
    g -= 1e-7 * (fabs(g) + N) + 1e-6;
    return g > 0.0 ? g : 0.0;
}

/* Product staging: prod[((a * VN) + b) * 2 * NP * NP + c * NP * NP + p * NP + q]. */
template <int NP, int VN>
__device__ __forceinline__ int gk_pidx(int a, int b, int c, int p, int q)
{
    return ((a * VN + b) * 2 + c) * NP * NP + p * NP + q;
}

/* Shared memory of the epilogue besides the products. */
template <int VM, int VN>
struct gk_epi_smem {
    uint32_t ga[VM][6], gb[VN][6];
    unsigned long long rowbest[VM], colbest[VN]; /* (key << 32) | index */
    uint32_t rowlo[VM], collo[VN];               /* keys */
    uint32_t tau;
    int hist_touched;
};

template <int VM, int VN>
__device__ __forceinline__ void gk_epi_load_counts(const es_gk_params &P, int a0, int b0,
                                                   gk_epi_smem<VM, VN> &S)
{
    for (int k = threadIdx.x; k < VM * 6; k += blockDim.x) {
        int a = k / 6;
        S.ga[a][k % 6] = a0 + a < (int)P.na ? P.ga[(size_t)(a0 + a) * 6 + k % 6] : 0u;
    }
    for (int k = threadIdx.x; k < VN * 6; k += blockDim.x) {
        int b = k / 6;
        S.gb[b][k % 6] = b0 + b < (int)P.nb ? P.gb[(size_t)(b0 + b) * 6 + k % 6] : 0u;
    }
    for (int k = threadIdx.x; k < VM; k += blockDim.x) {
        S.rowbest[k] = 0ull;
        S.rowlo[k] = 0u;
    }
    for (int k = threadIdx.x; k < VN; k += blockDim.x) {
        S.colbest[k] = 0ull;
        S.collo[k] = 0u;
    }
    if (threadIdx.x == 0) S.hist_touched = 0;
}

/* The fused epilogue.  prod: staged products of the CTA tile (gk_pidx
 * layout); a0, b0: first variant of the tile in each block.  Must be called
 * by all threads of the CTA after the products are in shared memory. */
template <int NP, int VM, int VN>
__device__ void gk_epilogue(const es_gk_params &P, const uint32_t *prod, int a0, int b0,
                            gk_epi_smem<VM, VN> &S)
{
    constexpr int TPR = ES_GPU_THREADS / VM; /* threads per row */
    constexpr int PPT = VN / TPR;            /* pairs per thread */
    const int tid = threadIdx.x;
    const int a = tid / TPR, lane_r = tid % TPR;
    const int gi = (int)P.first_a + a0 + a;
    const bool row_ok = a0 + a < (int)P.na;
    float up[PPT], gup[PPT];
    bool valid[PPT];
    unsigned long long best = 0ull;
    uint32_t best_lo = 0u;
    const bool boost = P.stat == GK_BOOST;

    /* phase A: bounds of every pair, row and column bests */
#pragma unroll
    for (int q = 0; q < PPT; q++) {
        int b = lane_r + q * TPR;
        int gj = (int)P.first_b + b0 + b;
        valid[q] = row_ok && b0 + b < (int)P.nb && (!P.diag || gi < gj);
        up[q] = gup[q] = 0.0f;
        if (!valid[q]) continue;
        uint32_t n[2][9];
        gk_table<NP>(prod + gk_pidx<NP, VN>(a, b, 0, 0, 0), S.ga[a], S.gb[b], n);
        gk_bounds bd = gk_bound(P.stat, n);
        up[q] = bd.up;
        gup[q] = bd.gup;
        uint32_t kup = es_fkey(bd.up), klo = es_fkey(bd.lo);
        if (boost) {
            unsigned long long kb = ((unsigned long long)kup << 32) | (uint32_t)b;
            if (kb > best) best = kb;
            atomicMax(&S.colbest[b], ((unsigned long long)kup << 32) | (uint32_t)a);
        } else {
            if (klo > best_lo) best_lo = klo;
            atomicMax(&S.collo[b], klo);
        }
    }
    /* reduce over the TPR threads of a row (consecutive lanes) */
#pragma unroll
    for (int o = 1; o < TPR; o <<= 1) {
        unsigned long long ob = __shfl_xor_sync(0xffffffffu, best, o);
        uint32_t ol = __shfl_xor_sync(0xffffffffu, best_lo, o);
        if (ob > best) best = ob;
        if (ol > best_lo) best_lo = ol;
    }
    if (lane_r == 0) {
        S.rowbest[a] = best;
        S.rowlo[a] = best_lo;
    }
    __syncthreads();

    /* phase B (BOOST): the exact fit of each row's and column's most promising
     * pair gives the lower bounds */
    if (boost) {
        if (tid < VM + VN) {
            bool is_row = tid < VM;
            int r = is_row ? tid : tid - VM;
            unsigned long long kb = is_row ? S.rowbest[r] : S.colbest[r];
            uint32_t lo = 0u;
            if (kb != 0ull) {
                int other = (int)(kb & 0xffffffffu);
                int aa = is_row ? r : other, bb = is_row ? other : r;
                uint32_t n[2][9];
                gk_table<NP>(prod + gk_pidx<NP, VN>(aa, bb, 0, 0, 0), S.ga[aa], S.gb[bb], n);
                lo = es_fkey((float)gk_boost_lower(n) * (1.0f - 1e-6f));
            }
            if (is_row) S.rowlo[r] = lo;
            else S.collo[r] = lo;
        }
        __syncthreads();
    }

    /* phase C: publish the lower bounds (per variant, and rows to the top-k
     * histogram), read back the thresholds */
    if (tid < VM + VN) {
        bool is_row = tid < VM;
        int r = is_row ? tid : tid - VM;
        bool ok = is_row ? (a0 + r < (int)P.na) : (b0 + r < (int)P.nb);
        uint32_t lo = is_row ? S.rowlo[r] : S.collo[r];
        /* only rows/columns with at least one valid pair have a bound */
        unsigned long long has = is_row ? (boost ? S.rowbest[r] : (unsigned long long)lo)
                                        : (boost ? S.colbest[r] : (unsigned long long)lo);
        if (ok && has != 0ull) {
            int g = is_row ? (int)P.first_a + a0 + r : (int)P.first_b + b0 + r;
            uint32_t old = atomicMax(&P.thr[g], lo);
            if (old > lo) lo = old;
            if (is_row && P.update_hist) {
                uint32_t own = S.rowlo[r];
                uint32_t bin = own >> ES_HIST_SHIFT;
                atomicAdd(&P.hist[bin], 1u);
                atomicMax(&P.tau_bin[1], bin);
                if (bin > *((volatile uint32_t *)&P.tau_bin[0])) S.hist_touched = 1;
            }
        } else {
            lo = 0xffffffffu; /* no pair: nothing to emit for this row */
        }
        if (is_row) S.rowlo[r] = lo;
        else S.collo[r] = lo;
    }
    __syncthreads();
    if (tid < 32) {
        uint32_t tb = *((volatile uint32_t *)&P.tau_bin[0]);
        if (S.hist_touched) {
            __threadfence();
            /* highest bin whose suffix count reaches k, scanning down from the
             * highest bin used */
            int top = (int)*((volatile uint32_t *)&P.tau_bin[1]);
            uint32_t acc = 0;
            for (int base = top; base > (int)tb; base -= 32) {
                int bin = base - tid;
                uint32_t c = bin > (int)tb ? *((volatile uint32_t *)&P.hist[bin]) : 0u;
                /* inclusive prefix over lanes (lane 0 is the highest bin) */
                uint32_t s = c;
#pragma unroll
                for (int o = 1; o < 32; o <<= 1) {
                    uint32_t v = __shfl_up_sync(0xffffffffu, s, o);
                    if (tid >= o) s += v;
                }
                unsigned hit = __ballot_sync(0xffffffffu, acc + s >= P.top_k && bin > (int)tb);
                if (hit) {
                    int l = __ffs(hit) - 1;
                    int nb = base - l;
                    if (tid == 0) atomicMax(&P.tau_bin[0], (uint32_t)nb);
                    tb = (uint32_t)nb;
                    break;
                }
                acc += __shfl_sync(0xffffffffu, s, 31);
            }
        }
        if (tid == 0) {
            uint32_t t = tb ? tb << ES_HIST_SHIFT : 0u;
            S.tau = t > P.tau_host ? t : P.tau_host;
        }
    }
    __syncthreads();

    /* phase D: emit the candidates */
    const uint32_t tau = S.tau;
    const uint32_t trow = S.rowlo[a < VM ? a : 0];
#pragma unroll
    for (int q = 0; q < PPT; q++) {
        int b = lane_r + q * TPR;
        bool emit = false;
        if (valid[q]) {
            uint32_t k = es_fkey(up[q]);
            emit = k >= tau || k >= trow || k >= S.collo[b] || gup[q] >= P.sig_min_g;
        }
        unsigned m = __ballot_sync(0xffffffffu, emit);
        if (!m) continue;
        uint32_t base = 0;
        int leader = __ffs(m) - 1;
        if ((tid & 31) == leader) base = atomicAdd(P.n_cand, (uint32_t)__popc(m));
        base = __shfl_sync(0xffffffffu, base, leader);
        if (emit) {
            uint32_t slot = base + __popc(m & ((1u << (tid & 31)) - 1u));
            if (slot < P.cap) {
                es_gpu_cand_t *c = &P.cand[slot];
                uint32_t n[2][9];
                gk_table<NP>(prod + gk_pidx<NP, VN>(a, b, 0, 0, 0), S.ga[a], S.gb[b], n);
                c->i = (uint32_t)gi;
                c->j = P.first_b + (uint32_t)(b0 + b);
#pragma unroll
                for (int y = 0; y < 2; y++)
#pragma unroll
                    for (int k = 0; k < 9; k++) c->n[y][k] = n[y][k];
            }
        }
    }
}

/* Launch a tile kernel of VM x VN-variant CTAs with `smem` bytes of dynamic
 * shared memory (raising the kernel's limit once per device and thread). */
template <int VM, int VN>
static int gk_launch(void (*kernel)(es_gk_params), const es_gk_params &P, size_t smem,
                     cudaStream_t st, int *configured)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return (int)e;
    if (*configured != dev) {
        e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) return (int)e;
        *configured = dev;
    }
    dim3 grid((P.nb + VN - 1) / VN, (P.na + VM - 1) / VM);
    kernel<<<grid, ES_GPU_THREADS, smem, st>>>(P);
    return (int)cudaGetLastError();
}

/* Every kernel family's launcher (one per .cu); np is 2 or 3.
 * @return 0, or a cudaError_t. */
int es_gk_launch_mma(const es_gk_params &P, int np, void *stream);
int es_gk_launch_popc(const es_gk_params &P, int np, void *stream);

#endif
