/* boost_lo.cuh -- lower bounds of PLINK's BOOST statistic (the exact fit
 * is an iterative proportional fitting, boost.c): a feasible-table bound from
 * a few float IPF sweeps, and where that fails the fit itself in double.
 * They raise the variants' thresholds (the epilogue's phase B) and are
 * tested against the CPU through es_gpu_bounds(). */
#ifndef GK_BOOST_LO_CUH
#define GK_BOOST_LO_CUH

#include <stdint.h>

/* A lower bound of PLINK's BOOST statistic from any table with the same
 * two-way margins (AB, AK, BK).  PLINK's early-stopped IPF fit mu, scaled to
 * total N, lies in the [AB][AK][BK] log-linear family, whose maximum-likelihood
 * fit mu* minimises 2 sum n ln(n / mu) over it: G_PLINK >= G(mu*).  And since
 * mu* is also the maximum-entropy table with those margins (and n and mu*
 * share them, so sum n ln mu* = sum mu* ln mu*),
 *     G(mu*) = 2 [sum n ln n - sum mu* ln mu*] >= 2 [sum n ln n - sum p ln p]
 * for every p >= 0 with those margins.  So no convergence argument is
 * needed: a few IPF sweeps in float give mu near mu*, and p = n + d, where d
 * is the margin-free table (d_1ab = D_ab, d_0ab = -D_ab, D with zero row and
 * column sums) that puts p_1ab = mu_1ab in four cells (a 2 x 2 block), is
 * exactly feasible; the bound is evaluated in double.  Returns -1 when that p
 * has a negative cell (the caller then runs gk_boost_lower), 0 for a table
 * PLINK scores 0 (fewer than two levels of A or B). */
__host__ __device__ __forceinline__ float gk_fdiv(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fdividef(a, b);
#else
    return a / b;
#endif
}

/* PLINK's BOOST fit of one table by iterative proportional fitting, in
 * float (the feasible-table bound) or double (the fit itself): the table's
 * two-way margins, the fitted table mu (from mu = 1, as PLINK), and one
 * sweep over the AB, AK and BK margins in PLINK's order. */
template <class T>
struct gk_ipf {
    T mu[2][9], ab[9], ak[2][3], bk[2][3], N;
};

template <class T>
__host__ __device__ __forceinline__ T gk_ipf_div(T a, T b)
{
    return a / b;
}
template <>
__host__ __device__ __forceinline__ float gk_ipf_div<float>(float a, float b)
{
    return gk_fdiv(a, b);
}

/* The margins of n and mu = 1; false when A or B has fewer than two
 * observed genotypes (no interaction to fit). */
template <class T>
__host__ __device__ __forceinline__ bool gk_ipf_init(const uint32_t n[2][9], gk_ipf<T> &F)
{
    int ra = 0, rb = 0;
    F.N = (T)0;
    for (int i = 0; i < 9; i++) F.ab[i] = (T)(n[0][i] + n[1][i]);
    for (int y = 0; y < 2; y++)
        for (int i = 0; i < 3; i++) {
            F.ak[y][i] = (T)(n[y][3 * i] + n[y][3 * i + 1] + n[y][3 * i + 2]);
            F.bk[y][i] = (T)(n[y][i] + n[y][i + 3] + n[y][i + 6]);
            F.N += F.ak[y][i];
        }
    for (int i = 0; i < 3; i++) {
        ra += F.ak[0][i] + F.ak[1][i] > (T)0;
        rb += F.bk[0][i] + F.bk[1][i] > (T)0;
    }
    for (int y = 0; y < 2; y++)
        for (int i = 0; i < 9; i++) F.mu[y][i] = (T)1;
    return ra >= 2 && rb >= 2;
}

/* One sweep; returns the summed absolute change of mu over the sweep. */
template <class T>
__host__ __device__ __forceinline__ T gk_ipf_sweep(gk_ipf<T> &F)
{
    T prev[2][9], change = (T)0;
    for (int y = 0; y < 2; y++)
        for (int i = 0; i < 9; i++) prev[y][i] = F.mu[y][i];
    for (int i = 0; i < 9; i++) {
        T s = F.mu[0][i] + F.mu[1][i], f = s > (T)0 ? gk_ipf_div(F.ab[i], s) : (T)0;
        F.mu[0][i] *= f;
        F.mu[1][i] *= f;
    }
    for (int y = 0; y < 2; y++)
        for (int a = 0; a < 3; a++) {
            T s = F.mu[y][3 * a] + F.mu[y][3 * a + 1] + F.mu[y][3 * a + 2];
            T f = s > (T)0 ? gk_ipf_div(F.ak[y][a], s) : (T)0;
            for (int c = 0; c < 3; c++) F.mu[y][3 * a + c] *= f;
        }
    for (int y = 0; y < 2; y++)
        for (int c = 0; c < 3; c++) {
            T s = F.mu[y][c] + F.mu[y][c + 3] + F.mu[y][c + 6];
            T f = s > (T)0 ? gk_ipf_div(F.bk[y][c], s) : (T)0;
            for (int a = 0; a < 3; a++) F.mu[y][3 * a + c] *= f;
        }
    for (int y = 0; y < 2; y++)
        for (int i = 0; i < 9; i++) change += (F.mu[y][i] > prev[y][i] ? F.mu[y][i] - prev[y][i] : prev[y][i] - F.mu[y][i]);
    return change;
}

/* A lower bound of PLINK's BOOST G from any table p >= 0 with n's two-way
 * margins: G >= 2 [sum n ln n - sum p ln p] (see gk_boost_lo).  p is the
 * float fit corrected to those margins exactly; -1 when p has a negative
 * cell (then the caller fits in double). */
static __host__ __device__ __noinline__ __attribute__((unused)) double gk_boost_lower_fast(const uint32_t n[2][9])
{
    gk_ipf<float> F;
    if (!gk_ipf_init(n, F)) return 0.0;
    /* where the sweeps stop only affects how tight the bound is */
    for (int sweep = 0; sweep < 200; sweep++)
        if (gk_ipf_sweep(F) <= 1e-6f * F.N) break;
    const float(&mu)[2][9] = F.mu;
    const float *ab = F.ab;
    /* the four free cells leave out the row and the column of A x B with the
     * largest counts, whose cells (the sums of the others) are then the
     * least likely to turn negative */
    int r0 = 0, c0 = 0;
    for (int i = 1; i < 3; i++) {
        if (ab[3 * i] + ab[3 * i + 1] + ab[3 * i + 2] > ab[3 * r0] + ab[3 * r0 + 1] + ab[3 * r0 + 2]) r0 = i;
        if (ab[i] + ab[i + 3] + ab[i + 6] > ab[c0] + ab[c0 + 3] + ab[c0 + 6]) c0 = i;
    }
    double D[9];
    D[3 * r0 + c0] = 0.0;
    for (int a = 0; a < 3; a++) {
        if (a == r0) continue;
        double row = 0.0;
        for (int c = 0; c < 3; c++) {
            if (c == c0) continue;
            D[3 * a + c] = (double)mu[1][3 * a + c] - (double)n[1][3 * a + c];
            row += D[3 * a + c];
        }
        D[3 * a + c0] = -row;
        D[3 * r0 + c0] += row;
    }
    for (int c = 0; c < 3; c++) {
        if (c == c0) continue;
        double col = 0.0;
        for (int a = 0; a < 3; a++)
            if (a != r0) col += D[3 * a + c];
        D[3 * r0 + c] = -col;
    }
    double g = 0.0, Nd = 0.0;
    for (int i = 0; i < 9; i++) {
        const double p1 = (double)n[1][i] + D[i], p0 = (double)n[0][i] - D[i];
        if (p1 < 0.0 || p0 < 0.0) return -1.0;
        for (int y = 0; y < 2; y++) {
            const double x = (double)n[y][i], p = y ? p1 : p0;
            if (x > 0.0) g += x * log(x);
            if (p > 0.0) g -= p * log(p);
            Nd += x;
        }
    }
    g *= 2.0;
    /* double rounding of the terms (each below N ln N) and of p */
    g -= 1e-12 * Nd * (log(Nd + 1.0) + 1.0) * 18.0 + 1e-9;
    return g > 0.0 ? g : 0.0;
}

/* A lower bound of PLINK's BOOST statistic for one table: iterative
 * proportional fitting in double, from mu = 1 as PLINK, stopped at the first
 * sweep whose summed absolute change is <= 1e-4.  Each sweep only raises the
 * likelihood (lowers G), and that sweep comes at or after PLINK's (the first
 * with change <= 0.001: ten times the rounding-level differences between the
 * two evaluations cannot close), so its G is at or below the CPU's; a fit that
 * does not stop within the cap says nothing (0). */
static __device__ __noinline__ double gk_boost_lower(const uint32_t n[2][9])
{
    gk_ipf<double> F;
    if (!gk_ipf_init(n, F)) return 0.0;
    int conv = 0;
    for (int sweep = 0; sweep < 4000 && !conv; sweep++) conv = gk_ipf_sweep(F) <= 1e-4;
    if (!conv) return 0.0;
    double g = 0.0, tau = 0.0;
    for (int y = 0; y < 2; y++)
        for (int i = 0; i < 9; i++) {
            const double t = (double)n[y][i];
            tau += F.mu[y][i];
            if (t > 0.0 && F.mu[y][i] > 0.0) g += t * log(t / F.mu[y][i]);
        }
    g = 2.0 * (g + F.N * log(tau / F.N));
    /* rounding of this fit and of the CPU's (both far below the margin) */
    g -= 1e-7 * (fabs(g) + F.N) + 1e-6;
    return g > 0.0 ? g : 0.0;
}

/* The BOOST lower bound the kernels use: the feasible-table bound, or where
 * its table has a negative cell, the double IPF fit. */
static __device__ __forceinline__ double gk_boost_lo(const uint32_t n[2][9])
{
    double lo = gk_boost_lower_fast(n);
    return lo >= 0.0 ? lo : gk_boost_lower(n);
}

#endif
