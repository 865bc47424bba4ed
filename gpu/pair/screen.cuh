/* screen.cuh -- the first-stage screen of two-plane tiles: a cheap upper
 * bound of every statistic but K2 from a pair's products (one reciprocal per
 * cell, no logarithm) and the per-variant constants it needs.  Only the
 * pairs it passes go on to gk_bound (epilogue.cuh). */
#ifndef GK_SCREEN_CUH
#define GK_SCREEN_CUH

#include <stdint.h>

#include "params.cuh"
#include "bounds.cuh"

/* ---- the first-stage screen (two planes) ---------------------------------
 *
 * A cheap upper bound of every statistic but K2, computed for every pair from
 * its products with one reciprocal per cell and no logarithm; only pairs whose
 * screen reaches the lowest of their thresholds (the top-k level and both
 * variants' bests, as read when the CTA starts) or the significance threshold
 * go on to the full bound.  Those survivors are compacted into a queue in
 * shared memory and scored by the whole CTA, so the full bound costs in
 * proportion to the survivors, not to the warps that hold one.
 *
 * The bound.  For a reference table m with m_ab = n_ab (cell sums agree),
 * N KL(n || m) = sum m r ln r (r = n / m) <= sum c (n - m)^2 / m, with c = 1/2
 * where n >= m and c = 1 where n < m (r ln r <= (r - 1) + c (r - 1)^2 for all
 * r >= 0, and the (r - 1) terms sum to zero).  With two classes per cell the
 * two deviations are d and -d, d = n_1ab - m_1ab, so the cell adds
 * d^2 / n_ab * (c_1 / w_1 + c_0 / w_0) for m_yab = n_ab w_y.
 *   - Conditioning on A (w_y = n_ya / n_a) gives S_A >= N I(Y; B | A) in nats.
 *     PLINK's BOOST G is at most 2 N I(Y; B | A): from mu = 1 the AB and AK
 *     steps of the first IPF sweep give n_ab n_ak / n_a, the maximum-likelihood
 *     fit of [AB][AK] whose G that is, and every later step lowers G (boost.c).
 *     MI: N I(Y; A, B) = N I(Y; A) + N I(Y; B | A) <= base_A + S_A; IG:
 *     I(Y; A,B) - max(I(Y; A), I(Y; B)) <= I(Y; B | A).
 *   - chi2 with the class proportions for w and c = 1 is Pearson's X^2
 *     itself (d^2 / (n_ab w_0 w_1) summed).
 * d is formed from the rarer class of the stratum (d = n_1 - n w_1, or
 * n_1 - n + n w_0), so its rounding error times the weight stays below
 * ~4e-7 |d|: the margins (1e-4 relative, 2e-6 N + 1e-3 absolute, and 1e-5 N
 * bits on the base's logarithms) cover every float error several times. */
#define GK_QCAP 1024 /* survivors a CTA queues; beyond, each thread keeps its own */

/* A row variant's screen constants: class-wise genotype sums of its two
 * planes (cases c, all t), and per stratum k of A the deviation form
 * d = K n_t + (n_c - E n_t) and the weight U(d) of a cell, UP for d > 0 and
 * UN for d <= 0, as UM (1 + RHO sgn d): UM = (UP + UN) / 2, RHO =
 * (UP - UN) / (UP + UN), |RHO| <= 1.  A cell then adds
 * UM (d / n_t) (d + |d| RHO) = d^2 / n_t U(d), with no branch. */
struct __align__(16) gk_srow {
    float a1c, a2c, a01c, a0c; /* [g>=1], [g==2], [g==1], [g==0] among cases */
    float a1t, a2t, a01t, a0t; /* the same over all samples */
    float K[3], E[3], UM[3], RHO[3];
    float base; /* nats added to the sum (MI: N I(Y; A) with its margin) */
    float pad[3];
};

struct __align__(16) gk_scol {
    float b1c, b2c, b01c, b1t, b2t, b01t;
    float pad[2];
};

__device__ __forceinline__ float gk_u2f(uint32_t x) /* exact for x < 2^23 */
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return __uint2float_rn(x); /* one I2FP on Hopper */
#else
    return __int_as_float(0x4B000000u | x) - 8388608.0f;
#endif
}

__device__ __forceinline__ float gk_rcp(float x)
{
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

/* The nine cells (a * 3 + b) of one set of samples from its four products
 * (p11, p12, p21, p22) and the variants' sums, in float (exact). */
__device__ __forceinline__ void gk_fcells(float p11, float p12, float p21, float p22, float a1, float a2,
                                          float a01, float a0, float b1, float b2, float b01, float n[9])
{
    n[8] = p22;
    n[7] = p21 - p22;
    n[5] = p12 - p22;
    n[4] = (p11 - p12) - n[7];
    n[6] = a2 - p21;
    n[3] = a01 - (p11 - p21);
    n[2] = b2 - p12;
    n[1] = b01 - (p11 - p12);
    n[0] = (a0 - b1) + p11;
}

/* sum over the cells of d^2 / n_ab * U(d) (see above): per cell two fused
 * multiply-adds for d, one reciprocal, and three more operations. */
__device__ __forceinline__ float gk_screen_sum(const uint32_t x[8], const gk_srow &R, const gk_scol &C)
{
    float nc[9], nt[9];
    gk_fcells(gk_u2f(x[0]), gk_u2f(x[1]), gk_u2f(x[2]), gk_u2f(x[3]), R.a1c, R.a2c, R.a01c, R.a0c, C.b1c, C.b2c,
              C.b01c, nc);
    gk_fcells(gk_u2f(x[0] + x[4]), gk_u2f(x[1] + x[5]), gk_u2f(x[2] + x[6]), gk_u2f(x[3] + x[7]), R.a1t, R.a2t,
              R.a01t, R.a0t, C.b1t, C.b2t, C.b01t, nt);
    float sk[3] = {0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int c = 0; c < 9; c++) {
        const int k = c / 3;
        float d = fmaf(R.K[k], nt[c], fmaf(-R.E[k], nt[c], nc[c]));
        float t = d * gk_rcp(fmaxf(nt[c], 1.0f)); /* n_t = 0 leaves d = 0 */
        sk[k] = fmaf(t, fmaf(fabsf(d), R.RHO[k], d), sk[k]);
    }
    return fmaf(R.UM[0], sk[0], fmaf(R.UM[1], sk[1], R.UM[2] * sk[2]));
}

/* A row's screen constants from its class x genotype counts g[y * 3 + k]
 * (y 0 control, 1 case), h = its gk_vc h, and the class split C. */
template <int STAT>
__device__ __forceinline__ void gk_srow_build(const uint32_t g[6], float h, const gk_cc &C, gk_srow &R)
{
    const float c0 = (float)g[3], c1 = (float)g[4], c2 = (float)g[5];
    const float t0 = c0 + (float)g[0], t1 = c1 + (float)g[1], t2 = c2 + (float)g[2];
    R.a1c = c1 + c2;
    R.a2c = c2;
    R.a01c = c1;
    R.a0c = c0;
    R.a1t = t1 + t2;
    R.a2t = t2;
    R.a01t = t1;
    R.a0t = t0;
    const float cs[3] = {c0, c1, c2}, ts[3] = {t0, t1, t2};
#pragma unroll
    for (int k = 0; k < 3; k++) {
        float w1, w0, up, un;
        if (STAT == GK_CHI2) {
            w1 = C.N > 0.0f ? C.ny[1] / C.N : 0.0f;
            w0 = C.N > 0.0f ? C.ny[0] / C.N : 0.0f;
            up = un = w0 > 0.0f && w1 > 0.0f ? 1.0f / (w0 * w1) : 0.0f;
        } else {
            w1 = ts[k] > 0.0f ? cs[k] / ts[k] : 0.0f;
            w0 = ts[k] > 0.0f ? (ts[k] - cs[k]) / ts[k] : 0.0f;
            float i1 = w1 > 0.0f ? 1.0f / w1 : 0.0f, i0 = w0 > 0.0f ? 1.0f / w0 : 0.0f;
            up = 0.5f * i1 + i0;
            un = i1 + 0.5f * i0;
        }
        /* a zero weight leaves d exactly 0 in every cell of the stratum */
        bool rare1 = w1 <= w0;
        R.K[k] = rare1 ? -w1 : w0;
        R.E[k] = rare1 ? 0.0f : 1.0f;
        R.UM[k] = 0.5f * (up + un);
        R.RHO[k] = up + un > 0.0f ? (up - un) / (up + un) : 0.0f;
    }
    const float LN2 = 0.69314718f;
    R.base = STAT == GK_MI ? fmaxf(h - C.hK, 0.0f) * LN2 + 1e-5f * C.N * LN2 + 1e-6f * (fabsf(h) + fabsf(C.hK))
                           : 0.0f;
}

#endif
