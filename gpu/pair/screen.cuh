/* screen.cuh -- the first-stage screen of two-plane tiles: a cheap upper
 * bound of every statistic but K2 from a pair's products (reciprocals, no
 * logarithm) and the per-variant constants it needs.  Only the pairs it
 * passes go on to gk_bound (epilogue.cuh).  Two forms: the default
 * (gk_screen_sum2, about 80 instructions a pair: nine reciprocals, or three
 * and about 86 in the ws kernel's tiles, gk_screen_s3) and the one it
 * replaced (gk_screen_sum1, about 150), kept for same-run comparisons
 * (EPISTREAM_GPU_SCREEN=1, doc/GPU.md).  The default's functions are
 * __host__ __device__, so that tests check its soundness on the CPU. */
#ifndef GK_SCREEN_CUH
#define GK_SCREEN_CUH

#include <math.h>
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
 * The bound (gk_screen_sum2).  Cell (a, b) of the pair's table holds t
 * samples, c of them cases; stratum a of the row variant A holds t_a, c_a of
 * them cases, q_a = c_a / t_a.  Exactly, in nats,
 *     N I(Y; B | A) = sum_a sum_b t kl(c / t || q_a),
 * kl the Bernoulli divergence.  By Taylor's formula with integral remainder
 * (kl'' = 1 / (s (1 - s))),
 *     kl(p || q) / (p - q)^2 = int_0^1 (1 - u) / (s (1 - s)) du,
 *     s = q + u (p - q),
 * and 1 / (s (1 - s)) is convex in s, s affine in p: the ratio is convex in
 * p on [0, 1], so its largest value is at p = 0 or p = 1:
 *     kl(p || q) <= U(q) (p - q)^2,  U(q) = max(-ln(1 - q) / q^2,
 *                                             -ln q / (1 - q)^2)
 * (U(1/2) = 4 ln 2 = 2.77; Pearson's chi-square term would be 4).  With
 * d = c - q_a t, t kl <= U(q_a) d^2 / t, so
 *     N I(Y; B | A) <= sum_a U(q_a) Q_a,   Q_a = sum_b d_ab^2 / t_ab.
 * Q_a needs d centred on the stratum's own q_a; the kernel centres every cell
 * on one weight w for all strata instead, D = c - w t, which is linear in the
 * pair's products with the same coefficient everywhere (four fused
 * multiply-adds a pair; the nine cells are then sums and differences), and
 * uses the identity (for any w, since sum_b d_ab = 0)
 *     Q_a = sum_b D_ab^2 / t_ab - beta_a,  beta_a = (c_a - w t_a)^2 / t_a,
 * whose beta_a is the row variant's alone.  So, per pair,
 *     S = sum_a U_a sum_b D_ab^2 / t_ab - B,   B = sum_a U(q_a) beta_a,
 * with U_a and B computed once per row variant.
 *   - PLINK's BOOST G is at most 2 N I(Y; B | A): from mu = 1 the AB and AK
 *     steps of the first IPF sweep give n_ab n_ak / n_a, the maximum-
 *     likelihood fit of [AB][AK] whose G that is, and every later step
 *     lowers G (boost.c).  IG: I(Y; A,B) - max(I(Y; A), I(Y; B)) <=
 *     I(Y; B | A).  MI: N I(Y; A,B) = N I(Y; A) + N I(Y; B | A), the first
 *     term the row's own (taken off B, computed in double).
 *   - chi2: w = N_1 / N in float, U = N^2 / (N_0 N_1) for every stratum and
 *     B = 0: Pearson's X^2 at the exact w, plus N (w - w_f)^2 >= 0.
 * A stratum with one class only (q_a 0 or 1) or no sample has every d_ab = 0:
 * U_a = 0 and beta_a = 0.
 *
 * Empty cells without a branch: every t is taken as t + o, o = 2^(m - 22)
 * for N < 2^m, put on the products when they are converted (t_22 + o,
 * t_21 + 2 o, t_12 + 2 o, t_11 + 4 o) and on the row's and column's sums, so
 * that every one of the nine cells comes out as t_ab + o exactly (integers and
 * multiples of o below 2^(m+1) are exact in float).  For t >= 1,
 * D^2 / (t + o) >= D^2 / t / (1 + o), which U_a's factor (1 + o) repays; for
 * t = 0, D = 0 and the rounded D^2 / o is >= 0.  (o = 2^-11 at N = 1,024,
 * 2^-8 at 8,192, 1/8 at 500,000: the bound is that much looser.)
 *
 * Rounding.  |D| and every constant and partial sum of the D cells are
 * <= 3 N, so each D cell is off by at most delta = 9 2^-24 N, and since
 * |D| <= t, D^2 / t' loses at most 2 delta; the reciprocal (rcp.approx, 1
 * ulp; the host twin divides), the product and the three fused adds of a
 * stratum lose 1e-6 of it relatively (its sum with one reciprocal,
 * gk_screen_s3, at most 5.4e-7), which U_a's factor (1 + 2e-6) repays;
 * the three fused multiply-adds that weigh the strata and take B off round
 * by 2^-24 of |B| + sum U_a acc_a each.  B is rounded down, U_a up (both
 * from double).  So with s = max(S, 0) as computed, the true bound is at most
 * s (1 + 1e-5) + base, base = 1e-6 |B| + 4e-6 N sum_a U_a + 1e-6 (and, for
 * MI, N I(Y; A) is rounded up by 1e-12 of its magnitudes), which is what the
 * epilogue compares: fmaf(s, 1 + 1e-5, base).
 *
 * The form it replaced (gk_screen_sum1), kept for EPISTREAM_GPU_SCREEN=1:
 * for a reference table m with m_ab = n_ab (cell sums agree),
 * N KL(n || m) = sum m r ln r (r = n / m) <= sum c (n - m)^2 / m, with c = 1/2
 * where n >= m and c = 1 where n < m (r ln r <= (r - 1) + c (r - 1)^2 for all
 * r >= 0, and the (r - 1) terms sum to zero).  With two classes per cell the
 * two deviations are d and -d, d = n_1ab - m_1ab, so the cell adds
 * d^2 / n_ab * (c_1 / w_1 + c_0 / w_0) for m_yab = n_ab w_y, centred on each
 * stratum (MI adds base_A, chi2 uses the class proportions and c = 1).  d is
 * formed from the rarer class of the stratum (d = n_1 - n w_1, or
 * n_1 - n + n w_0), so its rounding error times the weight stays below
 * ~4e-7 |d|: the margins (1e-4 relative, 2e-6 N + 1e-3 absolute, and 1e-5 N
 * bits on the base's logarithms) cover every float error several times.
 * Per cell it takes two fused multiply-adds for d, a maximum, the reciprocal
 * and three more operations, besides both classes' nine cells. */
#define GK_QCAP 1024 /* survivors a CTA queues; beyond, each thread keeps its own */

/* A row variant's screen constants: class-wise genotype sums of its two
 * planes (cases c, all t), and per stratum k of A the deviation form
 * d = K n_t + (n_c - E n_t) and the weight U(d) of a cell, UP for d > 0 and
 * UN for d <= 0, as UM (1 + RHO sgn d): UM = (UP + UN) / 2, RHO =
 * (UP - UN) / (UP + UN), |RHO| <= 1.  A cell then adds
 * UM (d / n_t) (d + |d| RHO) = d^2 / n_t U(d), with no branch. */
struct __align__(16) gk_srow1 {
    float a1c, a2c, a01c, a0c; /* [g>=1], [g==2], [g==1], [g==0] among cases */
    float a1t, a2t, a01t, a0t; /* the same over all samples */
    float K[3], E[3], UM[3], RHO[3];
    float base; /* nats added to the sum (MI: N I(Y; A) with its margin) */
    float pad[3];
};

struct __align__(16) gk_scol1 {
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
__device__ __forceinline__ float gk_screen_sum1(const uint32_t x[8], const gk_srow1 &R, const gk_scol1 &C)
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
__device__ __forceinline__ void gk_srow1_build(const uint32_t g[6], float h, const gk_cc &C, gk_srow1 &R)
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

/* ---- the default screen (gk_screen_sum2) ---------------------------------- */

/* A row variant's constants: the centre w, the strata's weights U_a (with
 * the offset's and rounding's factors), B (rounded down), the margin base,
 * the centred sums of its genotypes (D of [A=2], [A=1], [A=0]), their
 * totals with the offsets (t + 3 o, t + 3 o, t - 3 o) and o, 2 o, 4 o. */
struct __align__(16) gk_srow2 {
    float w, U0, U1, U2;
    float B, base, Da2, Da01;
    float Da0, A2, A01, A0;
    float o1, o2, o4, pad;
};

/* A column variant's: D of [B=2], [B=1], [B>=1] and the totals t + 3 o,
 * t + 3 o, t. */
struct __align__(16) gk_scol2 {
    float Db2, Db01, Db1, B2;
    float B01, b1t, pad[2];
};

/* What a block's constants hold: one form or the other (gk_params.screen1). */
union __align__(16) gk_srow {
    gk_srow1 v1;
    gk_srow2 v2;
};
union __align__(16) gk_scol {
    gk_scol1 v1;
    gk_scol2 v2;
};

__host__ __device__ __forceinline__ float gk_u2f2(uint32_t x)
{
#ifdef __CUDA_ARCH__
    return gk_u2f(x);
#else
    return (float)x;
#endif
}

__host__ __device__ __forceinline__ float gk_rcp2(float x)
{
#ifdef __CUDA_ARCH__
    return gk_rcp(x);
#else
    return 1.0f / x;
#endif
}

/* float of x rounded up (up = 1) or down (up = 0) */
__host__ __device__ __forceinline__ float gk_f_round(double x, int up)
{
#ifdef __CUDA_ARCH__
    return up ? __double2float_ru(x) : __double2float_rd(x);
#else
    float f = (float)x;
    if (up && (double)f < x) f = nextafterf(f, INFINITY);
    if (!up && (double)f > x) f = nextafterf(f, -INFINITY);
    return f;
#endif
}

/* One stratum's sum of d_b^2 / t_b over its three cells with one
 * reciprocal: (d0^2 t1 t2 + t0 (d1^2 t2 + d2^2 t1)) / (t0 t1 t2), eleven
 * operations against nine with three reciprocals (gk_screen_c3).  The
 * reciprocals' unit takes a quarter of the adds' rate and shares the MIO
 * queue with shared-memory loads: in the ws kernel's tiles, whose screen
 * runs beside the tensor cores' operand reads, this form was 1.02x faster
 * (0.518 against 0.529 s of tile kernels at N = 8,192), in the fused
 * tiles 0.965x (0.392 against 0.379 s at N = 1,024; doc/BENCHMARKS.md).
 * Every t is >= o >= 2^-21 and <= 2^24 and |d| <= t, so the products stay
 * within float's normal range (>= 2^-63, <= 2^96) but for terms below
 * 2^-126, whose loss is under 2^-63 after the division; all three terms
 * are >= 0, so the numerator is off by at most 4 roundings relatively, the
 * denominator by 2, the reciprocal (rcp.approx, 1 ulp) by 2 and the
 * quotient by 1: 9 2^-24 = 5.4e-7 of the stratum's sum. */
__host__ __device__ __forceinline__ float gk_screen_s3(float d0, float t0, float d1, float t1, float d2, float t2)
{
    const float t12 = t1 * t2;
    const float f = fmaf(d2 * t1, d2, d1 * t2 * d1);
    const float h = d0 * t12 * d0;
    return fmaf(f, t0, h) * gk_rcp2(t0 * t12);
}

/* The same with a reciprocal a cell: three operations a cell. */
__host__ __device__ __forceinline__ float gk_screen_c3(float d0, float t0, float d1, float t1, float d2, float t2)
{
    float s = d0 * gk_rcp2(t0) * d0;
    s = fmaf(d1 * gk_rcp2(t1), d1, s);
    return fmaf(d2 * gk_rcp2(t2), d2, s);
}

/* S of the pair (nats, see above) from its cases' products c (p11, p12,
 * p21, p22) and the totals t (cases plus controls) as floats (gk_screen_f:
 * eight conversions and four additions from the products), never below 0:
 * four fused multiply-adds for D, 22 sums and differences for the nine
 * cells' D and t + o, a stratum's sum (S3: gk_screen_s3, one reciprocal;
 * else gk_screen_c3, three) and three operations to weigh the strata. */
template <bool S3 = false>
__host__ __device__ __forceinline__ float gk_screen_sum2f(const float c[4], const float t[4], const gk_srow2 &R,
                                                          const gk_scol2 &C)
{
    const float c11 = c[0], c12 = c[1], c21 = c[2], c22 = c[3];
    const float t11 = t[0], t12 = t[1], t21 = t[2], t22 = t[3];
    const float D11 = fmaf(-R.w, t11, c11), D12 = fmaf(-R.w, t12, c12), D21 = fmaf(-R.w, t21, c21),
                D22 = fmaf(-R.w, t22, c22);
    const float T11 = t11 + R.o4, T12 = t12 + R.o2, T21 = t21 + R.o2, T22 = t22 + R.o1;
    auto sum = [](float d0, float t0, float d1, float t1, float d2, float t2) {
        return S3 ? gk_screen_s3(d0, t0, d1, t1, d2, t2) : gk_screen_c3(d0, t0, d1, t1, d2, t2);
    };
    /* stratum A = 2: cells b = 2, 1, 0 */
    const float s2 = sum(D22, T22, D21 - D22, T21 - T22, R.Da2 - D21, R.A2 - T21);
    /* A = 1: [A>=1] less [A=2] */
    const float X = D11 - D21, XT = T11 - T21;
    const float d12 = D12 - D22, t12c = T12 - T22;
    const float s1 = sum(d12, t12c, X - d12, XT - t12c, R.Da01 - X, R.A01 - XT);
    /* A = 0: the column's sums less [A>=1] */
    const float s0 = sum(C.Db2 - D12, C.B2 - T12, (C.Db01 - D11) + D12, (C.B01 - T11) + T12, (R.Da0 - C.Db1) + D11,
                         (R.A0 - C.b1t) + T11);
    return fmaxf(fmaf(R.U0, s0, fmaf(R.U1, s1, fmaf(R.U2, s2, -R.B))), 0.0f);
}

/* The pair's products x as the floats gk_screen_sum2f takes: the cases'
 * c_ab (x[0 .. 3]) and the totals t_ab (x[i] + x[i + 4]), exact below
 * 2^24. */
__host__ __device__ __forceinline__ void gk_screen_f(const uint32_t x[8], float c[4], float t[4])
{
    c[0] = gk_u2f2(x[0]);
    c[1] = gk_u2f2(x[1]);
    c[2] = gk_u2f2(x[2]);
    c[3] = gk_u2f2(x[3]);
    t[0] = gk_u2f2(x[0] + x[4]);
    t[1] = gk_u2f2(x[1] + x[5]);
    t[2] = gk_u2f2(x[2] + x[6]);
    t[3] = gk_u2f2(x[3] + x[7]);
}

/* gk_screen_sum2f from the products. */
template <bool S3 = false>
__host__ __device__ __forceinline__ float gk_screen_sum2(const uint32_t x[8], const gk_srow2 &R, const gk_scol2 &C)
{
    float c[4], t[4];
    gk_screen_f(x, c, t);
    return gk_screen_sum2f<S3>(c, t, R, C);
}

/* U(q) of the bound above from q = c / t and 1 - q = u / t (0 for a stratum
 * of one class or none). */
__host__ __device__ __forceinline__ double gk_screen_u(double c, double u)
{
    if (!(c > 0.0) || !(u > 0.0)) return 0.0;
    const double t = c + u, q = c / t, p = u / t;
    const double e0 = -log(p) / (q * q), e1 = -log(q) / (p * p);
    return e0 > e1 ? e0 : e1;
}

/* A variant's constants of gk_screen_sum2, as a row (R) and as a column
 * (C), from its class x genotype counts g[y * 3 + k] (y 0 control, 1 case)
 * and the class sizes n0 (controls), n1 (cases). */
template <int STAT>
__host__ __device__ __forceinline__ void gk_srow2_build(const uint32_t g[6], double n0, double n1, gk_srow2 &R,
                                                        gk_scol2 &C)
{
    const double N = n0 + n1;
    int m = 1;
    while (ldexp(1.0, m) <= N && m < 40) m++;
    const double o = ldexp(1.0, m - 22);
    const float wf = N > 0.0 ? (float)(n1 / N) : 0.0f;
    const double w = (double)wf;
    const double c[3] = {(double)g[3], (double)g[4], (double)g[5]};
    const double t[3] = {c[0] + (double)g[0], c[1] + (double)g[1], c[2] + (double)g[2]};
    R.w = wf;
    R.o1 = (float)o;
    R.o2 = (float)(2.0 * o);
    R.o4 = (float)(4.0 * o);
    R.pad = 0.0f;
    R.Da2 = (float)(c[2] - w * t[2]);
    R.Da01 = (float)(c[1] - w * t[1]);
    R.Da0 = (float)(c[0] - w * t[0]);
    R.A2 = (float)(t[2] + 3.0 * o);
    R.A01 = (float)(t[1] + 3.0 * o);
    R.A0 = (float)(t[0] - 3.0 * o);
    double B = 0.0, usum = 0.0;
    float uf[3];
    for (int k = 0; k < 3; k++) {
        double U;
        if (STAT == GK_CHI2) U = n0 > 0.0 && n1 > 0.0 ? N / n0 * (N / n1) : 0.0;
        else U = gk_screen_u(c[k], t[k] - c[k]);
        const double beta = t[k] > 0.0 ? (c[k] - w * t[k]) * (c[k] - w * t[k]) / t[k] : 0.0;
        if (STAT != GK_CHI2) B += U * beta;
        uf[k] = gk_f_round(U * (1.0 + o) * (1.0 + 2e-6), 1);
        usum += (double)uf[k];
    }
    R.U0 = uf[0];
    R.U1 = uf[1];
    R.U2 = uf[2];
    B *= 1.0 - 1e-9; /* the doubles' rounding */
    if (STAT == GK_MI) {
        /* N I(Y; A) in nats, rounded up: sum n ln n over cells and the
         * class margin less over the genotype margin and N */
        double s = 0.0, mag = 0.0;
        for (int k = 0; k < 3; k++) {
            const double u = t[k] - c[k];
            const double a = (c[k] > 0.0 ? c[k] * log(c[k]) : 0.0) + (u > 0.0 ? u * log(u) : 0.0) -
                             (t[k] > 0.0 ? t[k] * log(t[k]) : 0.0);
            s += a;
            mag += fabs(a) + t[k] * (t[k] > 1.0 ? log(t[k]) : 0.0);
        }
        const double cls = (N > 0.0 ? N * log(N) : 0.0) - (n0 > 0.0 ? n0 * log(n0) : 0.0) -
                           (n1 > 0.0 ? n1 * log(n1) : 0.0);
        s += cls;
        mag += fabs(cls) + (N > 1.0 ? N * log(N) : 0.0);
        const double base = (s > 0.0 ? s : 0.0) + 1e-12 * mag + 1e-9;
        B -= base;
    }
    R.B = gk_f_round(B, 0);
    R.base = gk_f_round(1e-6 * fabs(B) + 4e-6 * N * usum + 1e-6, 1);
    /* as a column */
    C.Db2 = R.Da2;
    C.Db01 = R.Da01;
    C.Db1 = (float)((c[1] + c[2]) - w * (t[1] + t[2]));
    C.B2 = R.A2;
    C.B01 = R.A01;
    C.b1t = (float)(t[1] + t[2]);
    C.pad[0] = C.pad[1] = 0.0f;
}

/* ---- the two forms behind one call ----------------------------------------- */

template <int V>
struct gk_screen_v {
    static constexpr int value = V;
};

/* The screen's upper bound of the pair's statistic in nats, margins
 * included (form V: 2 the default, 1 the older one; abs: the older form's
 * absolute margin). */
template <int V>
__device__ __forceinline__ float gk_screen_nats(const uint32_t x[8], const gk_srow &R, const gk_scol &C, float abs)
{
    if (V == 1) return fmaf(gk_screen_sum1(x, R.v1, C.v1), 1.0f + 1e-4f, R.v1.base + abs);
    return fmaf(gk_screen_sum2(x, R.v2, C.v2), 1.0f + 1e-5f, R.v2.base);
}

/* The default form's (V = 2) from the products already as floats
 * (gk_screen_f's c and t; S3: a stratum's sum with one reciprocal). */
template <bool S3>
__device__ __forceinline__ float gk_screen_nats2f(const float c[4], const float t[4], const gk_srow &R,
                                                  const gk_scol &C)
{
    return fmaf(gk_screen_sum2f<S3>(c, t, R.v2, C.v2), 1.0f + 1e-5f, R.v2.base);
}

/* A variant's screen constants (form 1 when v1) from its class x genotype
 * counts g (as integers and as floats cn[y][k]), the class sizes ny and its
 * gk_vc h. */
template <int STAT>
__device__ __forceinline__ void gk_screen_build(const uint32_t g[6], const float cn[2][3], const float ny[2], float h,
                                                int v1, gk_srow &R, gk_scol &C)
{
    if (!v1) {
        gk_srow2_build<STAT>(g, (double)ny[0], (double)ny[1], R.v2, C.v2);
        return;
    }
    gk_cc cc;
    gk_cc_build<true>(ny[0], ny[1], cc);
    gk_srow1_build<STAT>(g, h, cc, R.v1);
    gk_scol1 &c = C.v1;
    c.b1c = cn[1][1] + cn[1][2];
    c.b2c = cn[1][2];
    c.b01c = cn[1][1];
    c.b1t = cn[0][1] + cn[0][2] + c.b1c;
    c.b2t = cn[0][2] + c.b2c;
    c.b01t = cn[0][1] + c.b01c;
    c.pad[0] = c.pad[1] = 0.0f;
}

#endif
