/* bounds.cuh -- float bounds of a pair's statistic from its 2x3x3 table:
 * the per-variant and class-split constants they use (gk_vc, gk_cc, built
 * once per variant when no call is missing, per pair otherwise) and
 * gk_bound, one upper and lower bound per statistic and an upper bound of
 * the significance test's G.  The margins and their derivation are below and
 * in doc/GPU.md. */
#ifndef GK_BOUNDS_CUH
#define GK_BOUNDS_CUH

#include <stdint.h>

#include "params.cuh"

/* ---- bounds of the statistics --------------------------------------------
 *
 * Float bounds of one table's statistic: up >= exact score >= lo, and gup >=
 * the G of the significance test.  All logarithms are base 2 from
 * __log2f(max(n, 1)) (absolute error <= 2^-22 on [0.5, 2], <= 2 ulp
 * elsewhere: <= 3.8e-6 for arguments below 2^32), so each n lg(n/m) term is
 * off by at most ~8.6e-6 n; with the float roundings of the sums the margins
 * below (2.5e-5 N + 2e-6 of the magnitudes summed, in bits) are several times
 * the worst case.  doc/GPU.md gives the derivation. */
struct gk_bounds {
    float up, lo, gup;
};

/* One variant's constants: genotype counts g[y][k] (y 0 control, 1 case),
 * h = sum_{y,k} n_yk lg(n_yk / n_k) (bits, <= 0: -N H(Y|X)), the Kirkwood
 * weights w[y][k] (a row variant: n_yk / n_k; a column variant:
 * n_yk / (n_k n_y)) and whether it has two genotype levels or more. */
struct __align__(16) gk_vc {
    uint32_t g[6];
    float h;
    float w[2][3];
    int poly;
};

/* Constants of the class split: class sizes, N, hK = sum_y n_y lg(n_y / N). */
struct gk_cc {
    float ny[2], N, hK;
};

__device__ __forceinline__ float gk_lg(float x) { return __log2f(fmaxf(x, 1.0f)); }

/* A variant's constants from its class x genotype counts (floats).  ACC: the
 * accurate log2f (per-CTA constants) instead of __log2f (per-pair, calls
 * missing). */
template <bool ACC>
__device__ __forceinline__ void gk_vc_build(const float c[2][3], const float ny[2], bool col, gk_vc &v)
{
    float h = 0.0f;
    int lv = 0;
#pragma unroll
    for (int k = 0; k < 3; k++) {
        float nk = c[0][k] + c[1][k];
        lv += nk > 0.0f;
        float lk = ACC ? log2f(fmaxf(nk, 1.0f)) : gk_lg(nk);
#pragma unroll
        for (int y = 0; y < 2; y++) {
            float ly = ACC ? log2f(fmaxf(c[y][k], 1.0f)) : gk_lg(c[y][k]);
            h += c[y][k] * (ly - lk);
            float den = col ? nk * ny[y] : nk;
            v.w[y][k] = den > 0.0f ? __fdividef(c[y][k], den) : 0.0f;
        }
    }
    v.h = h;
    v.poly = lv >= 2;
}

template <bool ACC>
__device__ __forceinline__ void gk_cc_build(float n0, float n1, gk_cc &C)
{
    C.ny[0] = n0;
    C.ny[1] = n1;
    C.N = n0 + n1;
    float lN = ACC ? log2f(fmaxf(C.N, 1.0f)) : gk_lg(C.N);
    float l0 = ACC ? log2f(fmaxf(n0, 1.0f)) : gk_lg(n0);
    float l1 = ACC ? log2f(fmaxf(n1, 1.0f)) : gk_lg(n1);
    C.hK = n0 * (l0 - lN) + n1 * (l1 - lN);
}

/* Constants of a pair's own table (calls missing: margins differ per pair). */
template <bool ACC = false>
__device__ __forceinline__ void gk_margins_of(const uint32_t n[2][9], gk_vc &A, gk_vc &B, gk_cc &C)
{
    float ca[2][3], cb[2][3], ny[2];
#pragma unroll
    for (int y = 0; y < 2; y++) {
#pragma unroll
        for (int k = 0; k < 3; k++) {
            ca[y][k] = (float)(n[y][3 * k] + n[y][3 * k + 1] + n[y][3 * k + 2]);
            cb[y][k] = (float)(n[y][k] + n[y][k + 3] + n[y][k + 6]);
        }
        ny[y] = ca[y][0] + ca[y][1] + ca[y][2];
    }
    gk_cc_build<ACC>(ny[0], ny[1], C);
    gk_vc_build<ACC>(ca, ny, false, A);
    gk_vc_build<ACC>(cb, ny, true, B);
}

/* T1 = sum over the 18 cells of n_yc lg(n_yc / n_c) (bits, <= 0):
 * -N H(Y | A, B). */
__device__ __forceinline__ float gk_t1(const uint32_t n[2][9])
{
    float t = 0.0f;
#pragma unroll
    for (int c = 0; c < 9; c++) {
        float f0 = (float)n[0][c], f1 = (float)n[1][c], ls = gk_lg(f0 + f1);
        t += f0 * (gk_lg(f0) - ls) + f1 * (gk_lg(f1) - ls);
    }
    return t;
}

/* Degrees of freedom of the 2 x 9 table as stats.c's table_margins. */
__device__ __forceinline__ bool gk_df_pos(const uint32_t n[2][9])
{
    uint32_t s0 = 0, s1 = 0;
    int cols = 0;
#pragma unroll
    for (int c = 0; c < 9; c++) {
        s0 |= n[0][c];
        s1 |= n[1][c];
        cols += (n[0][c] | n[1][c]) != 0;
    }
    return s0 && s1 && cols > 1;
}

template <int STAT>
__device__ __forceinline__ gk_bounds gk_bound(const uint32_t n[2][9], const gk_vc &A, const gk_vc &B,
                                              const gk_cc &C, const gk_params &P)
{
    gk_bounds b;
    const float LN2 = 0.69314718f;
    if constexpr (STAT == GK_K2) {
        /* K2 = sum_c ln (n_c + 1)! - ln n_0c! - ln n_1c!  (lower is better) */
        double s = 0.0, m = 0.0;
#pragma unroll
        for (int c = 0; c < 9; c++) {
            double t0 = __ldg(&P.lnf[n[0][c] + n[1][c] + 1]);
            double t1 = __ldg(&P.lnf[n[0][c]]), t2 = __ldg(&P.lnf[n[1][c]]);
            s += t0 - (t1 + t2);
            m += t0;
        }
        float e = (float)(m * 1e-9 + 1e-6);
        b.up = -((float)s - e) + 1e-6f * fabsf((float)s);
        b.lo = -((float)s + e) - 1e-6f * fabsf((float)s);
        b.gup = 0.0f;
        return b;
    }
    if constexpr (STAT == GK_BOOST) {
        if (!A.poly || !B.poly) {
            b.up = b.lo = b.gup = 0.0f;
            return b;
        }
        /* G of the Kirkwood superposition approximation (boost.c), an upper
         * bound of PLINK's statistic, as
         * G / 2 = ln2 (T1 - hA - hB + hK) + N ln tau,
         * tau = sum_ab n_ab sum_y (n_ya / n_a) (n_yb / (n_b n_y)). */
        float tau = 0.0f;
#pragma unroll
        for (int c = 0; c < 9; c++) {
            int ia = c / 3, ib = c % 3;
            float w = A.w[0][ia] * B.w[0][ib] + A.w[1][ia] * B.w[1][ib];
            tau += (float)(n[0][c] + n[1][c]) * w;
        }
        float t1 = gk_t1(n);
        float bits = t1 - A.h - B.h + C.hK;
        float lt = C.N * __logf(tau);
        float half = LN2 * bits + lt;
        float e = 2.5e-5f * C.N + 2e-6f * (fabsf(t1) + fabsf(A.h) + fabsf(B.h) + fabsf(C.hK)) +
                  2e-6f * fabsf(lt) + 1e-3f;
        float g = 2.0f * (half + e);
        b.up = g > 0.0f ? g * (1.0f + 1e-6f) : 0.0f;
        b.lo = 0.0f; /* the exact fit is >= 0; refined by gk_boost_lo() */
        b.gup = b.up;
        return b;
    }
    if (!gk_df_pos(n)) {
        b.up = b.lo = b.gup = 0.0f;
        return b;
    }
    if constexpr (STAT == GK_CHI2) {
        float s = 0.0f, n0 = 0.0f, n1 = 0.0f;
        uint32_t s0 = 0, s1 = 0;
#pragma unroll
        for (int c = 0; c < 9; c++) {
            s0 += n[0][c];
            s1 += n[1][c];
        }
        n0 = (float)s0;
        n1 = (float)s1;
#pragma unroll
        for (int c = 0; c < 9; c++) {
            /* exact in double: each product is below 2^53 */
            double d = (double)n[0][c] * (double)s1 - (double)n[1][c] * (double)s0;
            float df = (float)d, col = (float)(n[0][c] + n[1][c]);
            s += col > 0.0f ? __fdividef(df * df, col) : 0.0f;
        }
        float v = __fdividef(s, n0 * n1);
        b.up = v * (1.0f + 1e-5f) + 1e-6f;
        b.lo = v * (1.0f - 1e-5f) - 1e-6f;
        b.gup = b.up;
        return b;
    } else {
        /* MI, IG: N I(Y; A,B) = T1 - hK bits; N I(Y; A) = hA - hK */
        float t1 = gk_t1(n);
        float nab = t1 - C.hK;
        float e = 2.5e-5f * C.N + 2e-6f * (fabsf(t1) + fabsf(C.hK)) + 1e-4f;
        float up = fmaxf(nab + e, 0.0f), lo = fmaxf(nab - e, 0.0f);
        if (STAT == GK_IG) {
            float na = A.h - C.hK, nb = B.h - C.hK;
            float ea = 2.5e-5f * C.N + 2e-6f * (fabsf(A.h) + fabsf(C.hK)) + 1e-4f;
            float eb = 2.5e-5f * C.N + 2e-6f * (fabsf(B.h) + fabsf(C.hK)) + 1e-4f;
            float sub_lo = fmaxf(fmaxf(na - ea, 0.0f), fmaxf(nb - eb, 0.0f));
            float sub_hi = fmaxf(fmaxf(na + ea, 0.0f), fmaxf(nb + eb, 0.0f));
            float u = up - sub_lo, l = lo - sub_hi;
            up = u;
            lo = l;
        }
        /* score: I in bits = (N I bits) / N; G = 2 ln2 (N I bits) */
        float inv = __fdividef(1.0f, C.N), su = up * inv, sl = lo * inv;
        b.gup = 2.0f * LN2 * up + fabsf(up) * 1e-5f;
        b.up = su + fabsf(su) * 1e-5f + 1e-7f;
        b.lo = sl - fabsf(sl) * 1e-5f - 1e-7f;
        return b;
    }
}

#endif
