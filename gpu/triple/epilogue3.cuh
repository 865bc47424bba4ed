/* epilogue3.cuh -- what every 3-way counting kernel does with a triple's
 * counts: the cumulative counts C(s, t, u) = |X_i^s & X_j^t & X_k^u| (s, t,
 * u in {V, P1, P2}) completed from pair sums and genotype counts when only
 * the 8 products of P planes were counted (count3.c's two-plane path),
 * the 2x27 table by inclusion-exclusion (count3.c's derive27, the same
 * uint32 arithmetic), float bounds of the statistic (gk3_bound), and the
 * triple's score key and its share of the CTA's best lower keys.
 *
 * Bounds: lo <= exact score <= up, gup >= the G of the significance test.
 * Logarithms are base 2 from __log2f(max(n, 1)) (absolute error <= 3.8e-6
 * below 2^32), so each n lg(n / m) term is off by <= 7.6e-6 n and the 54
 * cell terms by <= 7.6e-6 N together; float sums of <= 54 terms of one sign
 * add <= 3.3e-6 of their magnitude.  The margins below (3e-5 N + 1e-5 of the
 * magnitudes + 1e-3, in bits) hold several times the worst case; chi2's
 * float terms are each within a few ulp, its margin 1e-5 (N + chi2) + 1e-4
 * below 65,536 samples (gk3_bound's and gk3_chi2_16's, each proven where it
 * is computed), 2e-5 relative above; K2 sums the host's own ln n! in double
 * (margin 1e-9 of the sum's magnitude). */
#ifndef GK3_EPILOGUE_CUH
#define GK3_EPILOGUE_CUH

#include <stdint.h>

#include "params3.cuh"

struct gk3_bounds {
    float up, lo, gup;
    int df;  /* the df the significance test uses at least; 0: not significant */
};

/* count3.c's derive27 in place: c[s*9+t*3+u] cumulative -> c[a*9+b*3+c]
 * (the same uint32 differences: along u, then t, then s). */
__device__ __forceinline__ void gk3_derive27(uint32_t c[27])
{
#pragma unroll
    for (int st = 0; st < 9; st++) {
        c[st * 3] -= c[st * 3 + 1];
        c[st * 3 + 1] -= c[st * 3 + 2];
    }
#pragma unroll
    for (int q = 0; q < 9; q++) {
        int s = q / 3, u = q % 3;
        c[s * 9 + u] -= c[s * 9 + 3 + u];
        c[s * 9 + 3 + u] -= c[s * 9 + 6 + u];
    }
#pragma unroll
    for (int tu = 0; tu < 9; tu++) {
        c[tu] -= c[9 + tu];
        c[9 + tu] -= c[18 + tu];
    }
}

/* Two planes: the 19 cumulative counts with a V from the pair sums (ij: the
 * pair's, ik, jk: each of its variants with k), genotype counts and the
 * class size; c[] already holds the 8 products (s, t, u >= 1). */
__device__ __forceinline__ void gk3_complete(uint32_t c[27], const uint32_t ij[4], const uint32_t ik[4],
                                             const uint32_t jk[4], const uint32_t *ga, const uint32_t *gb,
                                             const uint32_t *gc, uint32_t cls)
{
    c[12] = ij[0], c[15] = ij[1], c[21] = ij[2], c[24] = ij[3];
    c[10] = ik[0], c[11] = ik[1], c[19] = ik[2], c[20] = ik[3];
    c[4] = jk[0], c[5] = jk[1], c[7] = jk[2], c[8] = jk[3];
    c[9] = ga[1] + ga[2], c[18] = ga[2];
    c[3] = gb[1] + gb[2], c[6] = gb[2];
    c[1] = gc[1] + gc[2], c[2] = gc[2];
    c[0] = cls;
}

__device__ __forceinline__ float gk3_lg(float x) { return __log2f(fmaxf(x, 1.0f)); }

/* x as a float, exactly, for x < 2^23 (two full-rate instructions instead
 * of a quarter-rate conversion). */
__device__ __forceinline__ float gk3_u2f(uint32_t x) { return __int_as_float(0x4b000000u | x) - 8388608.0f; }

/* sum over ncol columns of n_yc lg(n_yc / n_c), bits, <= 0 */
template <int NCOL>
__device__ __forceinline__ float gk3_t1(const uint32_t *r0, const uint32_t *r1, bool small)
{
    float t = 0.0f;
#pragma unroll
    for (int c = 0; c < NCOL; c++) {
        float f0 = small ? gk3_u2f(r0[c]) : (float)r0[c], f1 = small ? gk3_u2f(r1[c]) : (float)r1[c];
        float ls = gk3_lg(f0 + f1);
        t += f0 * (gk3_lg(f0) - ls) + f1 * (gk3_lg(f1) - ls);
    }
    return t;
}

__device__ __forceinline__ float gk3_margin(float N, float t, float hk)
{
    return 3e-5f * N + 1e-5f * (fabsf(t) + fabsf(hk)) + 1e-3f;
}

/* FIXED: the class sizes are c0 (controls), c1 (cases) -- no call is missing,
 * so every table holds every sample -- instead of the table's sums. */
template <int STAT, bool FIXED = false>
__device__ __forceinline__ gk3_bounds gk3_bound(const uint32_t n[2][27], const double *lnf, uint32_t c0 = 0,
                                                uint32_t c1 = 0)
{
    gk3_bounds b;
    if constexpr (STAT == GK3_K2) {
        /* score = -K2, K2 = sum_c ln (n_c + 1)! - ln n_0c! - ln n_1c! */
        double s = 0.0, m = 0.0;
#pragma unroll
        for (int c = 0; c < 27; c++) {
            double t0 = __ldg(&lnf[n[0][c] + n[1][c] + 1]);
            double t1 = __ldg(&lnf[n[0][c]]), t2 = __ldg(&lnf[n[1][c]]);
            s += t0 - (t1 + t2);
            m += t0;
        }
        double e = m * 1e-9 + 1e-6;
        b.up = __double2float_ru(-(s - e));
        b.lo = __double2float_rd(-(s + e));
        b.gup = 0.0f;
        b.df = 0;
        return b;
    }
    uint32_t s0 = 0, s1 = 0;
    int cols = 0;
#pragma unroll
    for (int c = 0; c < 27; c++) {
        if (!FIXED) {
            s0 += n[0][c];
            s1 += n[1][c];
        }
        cols += (n[0][c] | n[1][c]) != 0;
    }
    if (FIXED) {
        s0 = c0;
        s1 = c1;
    }
    if (!(s0 && s1 && cols > 1)) { /* the statistic is exactly 0, df 0 */
        b.up = b.lo = b.gup = 0.0f;
        b.df = 0;
        return b;
    }
    const float LN2 = 0.69314718f;
    const float n0 = (float)s0, n1 = (float)s1, N = (float)(s0 + s1);
    if constexpr (STAT == GK3_CHI2) {
        if (s0 + s1 < 65536u) {
            /* chi2 = N (S - 1), S = sum_c (n0c^2 / n0 + n1c^2 / n1) / n_c: counts
             * exact in float (the bit trick gk3_u2f), one reciprocal a column;
             * each term is within 9 roundings, the sum within 26 more, so |v -
             * chi2| <= 2.1e-6 (N + chi2) + 1 ulp; the margin is 5 times that */
            const float i0 = 1.0f / n0, i1 = 1.0f / n1;
            float S = 0.0f;
#pragma unroll
            for (int c = 0; c < 27; c++) {
                float fa = gk3_u2f(n[0][c]), fb = gk3_u2f(n[1][c]), col = fa + fb;
                float t = fmaf(fa * fa, i0, fb * fb * i1);
                S += col > 0.0f ? __fdividef(t, col) : 0.0f;
            }
            float v = fmaf(N, S, -N), e = 1e-5f * (N + fabsf(v)) + 1e-4f;
            b.up = v + e;
            b.lo = v - e;
        } else {
            float s = 0.0f;
#pragma unroll
            for (int c = 0; c < 27; c++) {
                /* exact in double: each product is below 2^53 */
                double d = (double)n[0][c] * (double)s1 - (double)n[1][c] * (double)s0;
                float df = (float)d, col = (float)(n[0][c] + n[1][c]);
                s += col > 0.0f ? __fdividef(df * df, col) : 0.0f;
            }
            float v = __fdividef(s, n0 * n1);
            b.up = v * (1.0f + 2e-5f) + 1e-6f;
            b.lo = v * (1.0f - 2e-5f) - 1e-6f;
        }
        b.gup = b.up;
        b.df = cols - 1;
        return b;
    } else {
        const float lN = gk3_lg(N);
        const float hk = n0 * (gk3_lg(n0) - lN) + n1 * (gk3_lg(n1) - lN);
        const bool small = s0 + s1 < 8388608u; /* every count below 2^23 */
        float t1 = gk3_t1<27>(n[0], n[1], small);
        float nab = t1 - hk, e = gk3_margin(N, t1, hk);
        float up = fmaxf(nab + e, 0.0f), lo = fmaxf(nab - e, 0.0f);
        b.df = cols - 1;
        if constexpr (STAT == GK3_IG) {
            /* the three pair margins AB, AC, BC (stats3.c's pair_margins) */
            float sub_lo = 0.0f, sub_hi = 0.0f;
            int maxcols = 0;
#pragma unroll
            for (int p = 0; p < 3; p++) {
                uint32_t r[2][9];
#pragma unroll
                for (int y = 0; y < 2; y++)
#pragma unroll
                    for (int u = 0; u < 3; u++)
#pragma unroll
                        for (int v = 0; v < 3; v++) {
                            const uint32_t *x = n[y];
                            r[y][u * 3 + v] = p == 0   ? x[u * 9 + v * 3] + x[u * 9 + v * 3 + 1] + x[u * 9 + v * 3 + 2]
                                              : p == 1 ? x[u * 9 + v] + x[u * 9 + 3 + v] + x[u * 9 + 6 + v]
                                                       : x[u * 3 + v] + x[9 + u * 3 + v] + x[18 + u * 3 + v];
                        }
                int pc = 0;
#pragma unroll
                for (int c = 0; c < 9; c++) pc += (r[0][c] | r[1][c]) != 0;
                maxcols = pc > maxcols ? pc : maxcols;
                float tp = gk3_t1<9>(r[0], r[1], small), np_ = tp - hk, ep = gk3_margin(N, tp, hk);
                sub_lo = fmaxf(sub_lo, fmaxf(np_ - ep, 0.0f));
                sub_hi = fmaxf(sub_hi, fmaxf(np_ + ep, 0.0f));
            }
            up = up - sub_lo;
            lo = lo - sub_hi;
            /* the test's df is cols - cols of the pair of largest MI: at
             * least this, and 1 where that could be 0 */
            b.df = cols - maxcols > 1 ? cols - maxcols : 1;
        }
        /* score: bits per sample; G = 2 ln2 (N I in bits) */
        float inv = __fdividef(1.0f, N), su = up * inv, sl = lo * inv;
        b.up = su + fabsf(su) * 1e-5f + 1e-7f;
        b.lo = sl - fabsf(sl) * 1e-5f - 1e-7f;
        b.gup = 2.0f * LN2 * up + fabsf(up) * 1e-5f + 1e-4f;
        return b;
    }
}

/* The score slot of the CTA's pair q with its third variant kk; false past
 * the tile (no slot). */
__device__ __forceinline__ bool gk3_slot(const gk3_params &P, const gk3_cta &S, int q, int kk, size_t *slot)
{
    *slot = (size_t)S.pidx[q] * P.nc + blockIdx.y * GK3_THIRD + kk;
    return S.pin[q] && S.kg[kk] != 0xffffffffu;
}

/* Score one triple (pair q, third kk of the CTA) from its cumulative
 * counts c[y][27] (completed), or write its table (GK3_ALL).  @return its
 * lower key (0: not a triple of the tile). */
template <int NP, int STAT>
__device__ __forceinline__ uint32_t gk3_emit(const gk3_params &P, gk3_cta &S, int q, int kk, bool ok,
                                             uint32_t c[2][27])
{
    size_t slot;
    const bool in = gk3_slot(P, S, q, kk, &slot);
    if (P.mode == GK3_ALL) {
        if (!in) return 0;
        uint32_t *t = P.tables + slot * 54;
        gk3_derive27(c[0]);
        gk3_derive27(c[1]);
#pragma unroll
        for (int x = 0; x < 27; x++) {
            t[x] = c[0][x];
            t[27 + x] = c[1][x];
        }
        return 0;
    }
    if (!in) return 0; /* past the tile: no slot */
    if (!ok) {
        P.score[slot] = 0;
        return 0;
    }
    gk3_derive27(c[0]);
    gk3_derive27(c[1]);
    gk3_bounds b = gk3_bound<STAT, NP == 2>(c, P.lnf, P.n_ctrl, P.n_case);
    uint32_t lok = gk3_fkey(b.lo), hik = gk3_fkey(b.up);
    if (P.do_sig && b.df > 0 && b.gup >= P.sig_crit[b.df]) hik = 0xffffffffu;
    P.score[slot] = hik;
    return lok;
}

/* ---- both classes in one word (two planes, each class under 65,536) ----
 * v = controls | cases << 16: count3.c's derivation on both halves at once
 * (every intermediate of derive27 is a count of a set of the class, so no
 * half borrows from the other), and chi2's bound read from the halves. */

/* a | b << 16 for a, b < 65,536 (one PRMT) */
__device__ __forceinline__ uint32_t gk3_pk(uint32_t a, uint32_t b) { return __byte_perm(a, b, 0x5410); }

/* Complete the 19 cumulative counts with a V (gk3_complete's, both classes
 * at once: ij16, ik16, jk16 packed pair sums; g16: [0] pair's left variant's
 * (P1 count, P2 count), [1] its right variant's, [2] the third's; cls16 the
 * class sizes) and derive the 27 cells in place. */
__device__ __forceinline__ void gk3_complete16(uint32_t v[27], const uint32_t ij16[4], const uint32_t ik16[4],
                                               const uint32_t jk16[4], const uint32_t ga16[2], const uint32_t gb16[2],
                                               const uint32_t gc16[2], uint32_t cls16)
{
    v[12] = ij16[0], v[15] = ij16[1], v[21] = ij16[2], v[24] = ij16[3];
    v[10] = ik16[0], v[11] = ik16[1], v[19] = ik16[2], v[20] = ik16[3];
    v[4] = jk16[0], v[5] = jk16[1], v[7] = jk16[2], v[8] = jk16[3];
    v[9] = ga16[0], v[18] = ga16[1];
    v[3] = gb16[0], v[6] = gb16[1];
    v[1] = gc16[0], v[2] = gc16[1];
    v[0] = cls16;
    gk3_derive27(v);
}

/* the low (class 0) and high (class 1) half of v as floats, exactly (the
 * gk3_u2f trick with the half moved in by one PRMT) */
__device__ __forceinline__ float gk3_lo2f(uint32_t v) { return __int_as_float(__byte_perm(v, 0x4b000000u, 0x7610)) - 8388608.0f; }
__device__ __forceinline__ float gk3_hi2f(uint32_t v) { return __int_as_float(__byte_perm(v, 0x4b000000u, 0x7632)) - 8388608.0f; }

/* 1 / x within 1 ulp (rcp.approx.ftz.f32), x >= 1 here */
__device__ __forceinline__ float gk3_rcp(float x)
{
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

/* chi2's bound of gk3_bound<GK3_CHI2, true> (class sizes c0, c1, both
 * nonzero, c0 + c1 < 65,536) from the 27 packed cells.  With a = n0c, b =
 * n1c and sum_c a = n0, sum_c b = n1, a^2 n1 + b^2 n0 = (a + b)(a n1 + b n0)
 * - ab N, so chi2 = N (sum_c (a^2/n0 + b^2/n1)/(a + b) - 1) = N (1 - N/(n0
 * n1) H), H = sum_c ab / (a + b): per column the counts exact in float (one
 * PRMT and one add each), a product, the column's sum, max(., 1) (an empty
 * column's ab is 0), a reciprocal (rcp.approx, <= 1 ulp) and an fma.
 * Rounding: a term of H is within 4 roundings (ab, the reciprocal's 2, the
 * fma), the sum of 27 nonnegative terms within 26 more; K = N/(n0 n1)
 * within 2 (the product n0 n1 and the quotient are rounded), 0 <= K H <= 1
 * (chi2 >= 0), 1 - K H within 1 more absolute, N x within 1: |x - chi2| <=
 * 34 eps N = 2.0e-6 N (eps = 2^-24), inside the margin 1e-5 (N + |x|) +
 * 1e-4 of gk3_bound's float chi2 about five times over.  A table
 * of one column has chi2 0 and H = n0 n1 / N, so x is 0 within that bound
 * too.  The df (gk3_cols16) is left to the caller: it is needed only for
 * the rare triples whose G may pass the significance test. */
__device__ __forceinline__ int gk3_cols16(const uint32_t v[27])
{
    int cols = 0;
#pragma unroll
    for (int c = 0; c < 27; c++) cols += v[c] != 0;
    return cols;
}

__device__ __forceinline__ gk3_bounds gk3_chi2_16(const uint32_t v[27], uint32_t c0, uint32_t c1)
{
    gk3_bounds b;
    const float N = (float)(c0 + c1), K = N / ((float)c0 * (float)c1);
    float H = 0.0f;
#pragma unroll
    for (int c = 0; c < 27; c++) {
        float fa = gk3_lo2f(v[c]), fb = gk3_hi2f(v[c]);
        H = fmaf(fa * fb, gk3_rcp(fmaxf(fa + fb, 1.0f)), H);
    }
    float x = N * fmaf(-K, H, 1.0f), e = 1e-5f * (N + fabsf(x)) + 1e-4f;
    b.up = x + e;
    b.lo = x - e;
    b.gup = b.up;
    b.df = 0;
    return b;
}

/* chi2 of packed cells is read from the halves (gk3_chi2_16) where the
 * classes' sum fits a half: gk3_bound16's path, and where gk3_emit16 then
 * derives chi2's df itself. */
template <int STAT>
__device__ __forceinline__ bool gk3_chi2_halves(uint32_t c0, uint32_t c1)
{
    return STAT == GK3_CHI2 && c0 + c1 < 65536u;
}

/* The bounds of a packed table (each class under 65,536; class sizes c0,
 * c1 as gk3_bound's FIXED): chi2 below 65,536 samples reads the halves
 * (gk3_chi2_16), the other statistics unpack them for gk3_bound<STAT,
 * true>.  need_df: chi2's df is wanted too (gk3_bound's always has it). */
template <int STAT>
__device__ __forceinline__ gk3_bounds gk3_bound16(const uint32_t v[27], const double *lnf, uint32_t c0, uint32_t c1,
                                                  bool need_df)
{
    if (gk3_chi2_halves<STAT>(c0, c1)) {
        if (c0 && c1) {
            gk3_bounds b = gk3_chi2_16(v, c0, c1);
            if (need_df) b.df = gk3_cols16(v) - 1;
            return b;
        }
        gk3_bounds b;
        b.up = b.lo = b.gup = 0.0f;
        b.df = 0;
        return b;
    }
    uint32_t c[2][27];
#pragma unroll
    for (int x = 0; x < 27; x++) {
        c[0][x] = v[x] & 0xffffu;
        c[1][x] = v[x] >> 16;
    }
    return gk3_bound<STAT, true>(c, lnf, c0, c1);
}

/* Score one triple from its packed cells (PACK16 kernels: two planes, no
 * call missing, each class under 65,536): gk3_emit's contract. */
template <int STAT>
__device__ __forceinline__ uint32_t gk3_emit16(const gk3_params &P, gk3_cta &S, int q, int kk, bool ok, uint32_t v[27])
{
    size_t slot;
    if (!gk3_slot(P, S, q, kk, &slot)) return 0; /* past the tile: no slot */
    if (P.mode == GK3_ALL) {
        uint32_t *t = P.tables + slot * 54;
#pragma unroll
        for (int x = 0; x < 27; x++) {
            t[x] = v[x] & 0xffffu;
            t[27 + x] = v[x] >> 16;
        }
        return 0;
    }
    if (!ok) {
        P.score[slot] = 0;
        return 0;
    }
    gk3_bounds b = gk3_bound16<STAT>(v, P.lnf, P.n_ctrl, P.n_case, false);
    uint32_t lok = gk3_fkey(b.lo), hik = gk3_fkey(b.up);
    /* chi2's df only where G may reach the smallest critical value */
    if (P.do_sig && b.gup >= P.sig_min) {
        if (gk3_chi2_halves<STAT>(P.n_ctrl, P.n_case) && P.n_ctrl && P.n_case) b.df = gk3_cols16(v) - 1;
        if (b.df > 0 && b.gup >= P.sig_crit[b.df]) hik = 0xffffffffu;
    }
    P.score[slot] = hik;
    return lok;
}

/* A triple's pair sums with its third variant (two planes): x[0..1] of
 * (i, k), x[2..3] of (j, k), a class a uint4; zeros past the tile. */
__device__ __forceinline__ void gk3_xc_load(const gk3_params &P, const gk3_cta &S, int q, int kk, uint4 x[4])
{
    if (S.pin[q] && S.kg[kk] != 0xffffffffu) {
        size_t k = blockIdx.y * GK3_THIRD + kk;
        const uint4 *ik = (const uint4 *)(P.xc + ((size_t)S.xl[q] * P.nc + k) * 8);
        const uint4 *jk = (const uint4 *)(P.xc + ((size_t)S.xr[q] * P.nc + k) * 8);
        x[0] = __ldg(ik);
        x[1] = __ldg(ik + 1);
        x[2] = __ldg(jk);
        x[3] = __ldg(jk + 1);
    } else {
        x[0] = x[1] = x[2] = x[3] = make_uint4(0, 0, 0, 0);
    }
}

/* Complete (two planes, from the pair sums x of gk3_xc_load) and score a
 * triple whose products the kernel counted: c[y][s*9+t*3+u] for s, t, u >=
 * 1 (two planes) or all 27. */
template <int NP, int STAT>
__device__ __forceinline__ uint32_t gk3_finish_x(const gk3_params &P, gk3_cta &S, int q, int kk, uint32_t c[2][27],
                                                 const uint4 x[4])
{
    bool ok = gk3_valid(P, S, q, kk);
    if constexpr (NP == 2) {
#pragma unroll
        for (int y = 0; y < 2; y++) {
            const uint4 a = x[y], b = x[2 + y];
            const uint32_t av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
            gk3_complete(c[y], &S.lr[q][4 * y], av, bv, &S.ga[q][3 * y], &S.gb[q][3 * y], &S.gc[kk][3 * y],
                         y ? P.n_case : P.n_ctrl);
        }
    }
    return gk3_emit<NP, STAT>(P, S, q, kk, ok, c);
}

template <int NP, int STAT>
__device__ __forceinline__ uint32_t gk3_finish(const gk3_params &P, gk3_cta &S, int q, int kk, uint32_t c[2][27])
{
    uint4 x[4];
    if constexpr (NP == 2) gk3_xc_load(P, S, q, kk, x);
    return gk3_finish_x<NP, STAT>(P, S, q, kk, c, x);
}

#endif
