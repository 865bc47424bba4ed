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
 * The bounds use per-variant constants (genotype margins, their entropies,
 * the Kirkwood weights) computed once per CTA when no call is missing (two
 * planes), and the same quantities derived per pair from its table when calls
 * are missing (three planes).
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

struct gk_vc;
struct gk_srow;
struct gk_scol;

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
struct es_gk_params {
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
    uint32_t *hist;           /* ES_HIST_BINS counts */
    uint32_t *tau_bin;        /* [0] current top-k bin, [1] highest bin used */
    es_gpu_cand_t *cand;
    uint32_t cap;
    uint32_t *n_cand;
    const double *lnf;        /* ln n! for every count a cell can hold, plus one (K2) */
    unsigned long long *screen; /* [0] CTAs screened, [1] of them on the queue, [2] survivors */
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
                                              const gk_cc &C, const es_gk_params &P)
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

/* ---- pair layouts ----------------------------------------------------------
 *
 * Which pairs a thread scores and where their products lie.
 *
 * gk_lay_staged: products staged as prod[((a * VN + b) * 2 + c) * NP^2 + p NP + q]
 * (c 0 cases, 1 controls; planes p of a, q of b); TPR consecutive threads
 * share row a and take columns b = lane_r + q TPR.
 *
 * gk_lay_frag (two planes, mma fragments): each m16n8 accumulator fragment
 * covers 8 variants of a x 4 of b; after one exchange between lanes l and
 * l ^ 4 (gk_frag_pair) every lane holds the 2 x 2 x 2 products of one pair,
 * stored as prod[(q * 8 + k) * THREADS + tid] (conflict-free) by
 * gk_frag_store.  Warps form a grid of WGN columns, each MT x NT fragments;
 * the wgmma tiles (warp w holds rows 16 w .. 16 w + 15 and every 8-column
 * chunk) would be gk_lay_frag<1, BN / 8, 1>; they use gk_lay_wg instead.
 *
 * pair(q, t, a, b) gives thread t's q-th pair, load(prod, q, t, a, b, x) its
 * products: after the screen a pair may be scored by another thread.
 *
 * Pairs are scored by the first ES_GPU_THREADS threads; a CTA of more
 * threads (the wgmma kernels' three warpgroups) joins only the barriers. */
template <int NP>
__device__ __forceinline__ int gk_pidx(int a, int b, int VN)
{
    return (a * VN + b) * 2 * NP * NP;
}

/* Staged index of class cls's product of tile rows r (A) and c (B). */
template <int NP>
__device__ __forceinline__ int gk_stage_idx(int r, int c, int cls, int VN)
{
    return gk_pidx<NP>(r / NP, c / NP, VN) + cls * NP * NP + (r % NP) * NP + c % NP;
}

template <int NP_, int VM, int VN>
struct gk_lay_staged {
    static constexpr int NP = NP_, TPR = ES_GPU_THREADS / VM, PPT = VN / TPR;
    static constexpr int ROWQ = PPT; /* a thread's pairs share one row */
    __device__ static void pair(int q, int t, int &a, int &b)
    {
        a = t / TPR;
        b = t % TPR + q * TPR;
    }
    __device__ static void load(const uint32_t *prod, int q, int t, int a, int b, uint32_t x[2 * NP * NP])
    {
        (void)q;
        (void)t;
        const uint32_t *p = prod + gk_pidx<NP>(a, b, VN);
#pragma unroll
        for (int k = 0; k < 2 * NP * NP; k++) x[k] = p[k];
    }
};

template <int MT, int NT, int WGN>
struct gk_lay_frag {
    static constexpr int NP = 2, PPT = MT * NT;
    static constexpr int ROWQ = NT; /* pairs q and q' share a row when q / NT == q' / NT */
    __device__ static void pair(int q, int t, int &a, int &b)
    {
        int warp = t >> 5, lane = t & 31, gid = lane >> 2;
        int row0 = (warp / WGN) * MT * 16 + (q / NT) * 16, col0 = (warp % WGN) * NT * 8 + (q % NT) * 8;
        a = row0 / 2 + (gid & 1) * 4 + (gid >> 1);
        b = col0 / 2 + (lane & 3);
    }
    __device__ static void load(const uint32_t *prod, int q, int t, int a, int b, uint32_t x[8])
    {
        (void)a;
        (void)b;
#pragma unroll
        for (int k = 0; k < 8; k++) x[k] = prod[(q * 8 + k) * ES_GPU_THREADS + t];
    }
};

/* gk_lay_wg (two planes, the wgmma kernels, whose A rows come in the order
 * of es_wg_arow): a thread's accumulator rows gid and gid + 8 are planes 0
 * and 1 of one row variant, so its fragment j = q holds the four products of
 * pair (a, 4 q + tig) as they are, cases in the first, controls in the
 * second fragment.  They are staged as two 16-byte words,
 * prod[((q * 2 + class) * THREADS + tid) * 4 + k] (conflict-free) by
 * gk_wg_store.  Warpgroup g holds rows 32 g .. 32 g + 31, warp w of it the
 * eight from 32 g + 8 w. */
struct gk_lay_wg {
    static constexpr int NP = 2, PPT = 8;
    static constexpr int ROWQ = PPT; /* a thread's pairs share one row */
    __device__ static void pair(int q, int t, int &a, int &b)
    {
        a = (t >> 7) * 32 + ((t >> 5) & 3) * 8 + ((t & 31) >> 2);
        b = 4 * q + (t & 3);
    }
    __device__ static void load(const uint32_t *prod, int q, int t, int a, int b, uint32_t x[8])
    {
        (void)a;
        (void)b;
        const uint4 c = ((const uint4 *)prod)[(q * 2) * ES_GPU_THREADS + t];
        const uint4 u = ((const uint4 *)prod)[(q * 2 + 1) * ES_GPU_THREADS + t];
        x[0] = c.x;
        x[1] = c.y;
        x[2] = c.z;
        x[3] = c.w;
        x[4] = u.x;
        x[5] = u.y;
        x[6] = u.z;
        x[7] = u.w;
    }
};

/* Fragment q of a thread's pairs in gk_lay_wg: both classes' products. */
__device__ __forceinline__ void gk_wg_store(uint32_t *prod, int q, const int cases[4], const int ctrls[4])
{
    ((uint4 *)prod)[(q * 2) * ES_GPU_THREADS + threadIdx.x] =
        make_uint4((uint32_t)cases[0], (uint32_t)cases[1], (uint32_t)cases[2], (uint32_t)cases[3]);
    ((uint4 *)prod)[(q * 2 + 1) * ES_GPU_THREADS + threadIdx.x] =
        make_uint4((uint32_t)ctrls[0], (uint32_t)ctrls[1], (uint32_t)ctrls[2], (uint32_t)ctrls[3]);
}

/* One m16n8 fragment of class c's products (mma C layout: c[0], c[1] at row
 * gid, columns 2 tig, 2 tig + 1; c[2], c[3] at row gid + 8) into the lane's
 * pair products x[c * 4 + p * 2 + q].  Rows of even gid are plane 0 of their
 * variant, odd gid plane 1; lanes l and l ^ 4 swap the halves they lack. */
__device__ __forceinline__ void gk_frag_pair(const int acc[4], uint32_t x[4])
{
    int p = (threadIdx.x >> 2) & 1;
    uint32_t s0 = (uint32_t)(p ? acc[0] : acc[2]), s1 = (uint32_t)(p ? acc[1] : acc[3]);
    uint32_t r0 = __shfl_xor_sync(0xffffffffu, s0, 4), r1 = __shfl_xor_sync(0xffffffffu, s1, 4);
    if (!p) {
        x[0] = (uint32_t)acc[0];
        x[1] = (uint32_t)acc[1];
        x[2] = r0;
        x[3] = r1;
    } else {
        x[0] = r0;
        x[1] = r1;
        x[2] = (uint32_t)acc[2];
        x[3] = (uint32_t)acc[3];
    }
}

/* Fragment q of a lane's pairs, both classes, into gk_lay_frag's staging. */
__device__ __forceinline__ void gk_frag_store(uint32_t *prod, int q, const int cases[4], const int ctrls[4])
{
    uint32_t x[8];
    gk_frag_pair(cases, x);
    gk_frag_pair(ctrls, x + 4);
#pragma unroll
    for (int k = 0; k < 8; k++) prod[(q * 8 + k) * ES_GPU_THREADS + threadIdx.x] = x[k];
}

/* The pair's table from its products x[c * NP^2 + p NP + q] (c 0 cases) and
 * the genotype counts ga, gb ([y][g], y 0 control, 1 case). */
template <int NP>
__device__ __forceinline__ void gk_cells(const uint32_t *x, const uint32_t *ga, const uint32_t *gb,
                                         uint32_t n[2][9])
{
#pragma unroll
    for (int c = 0; c < 2; c++) {
        const uint32_t *p = x + c * NP * NP;
        int y = c == 0 ? 1 : 0;
        uint32_t s[9];
        if (NP == 2) {
            s[0] = p[0];
            s[1] = p[1];
            s[2] = p[2];
            s[3] = p[3];
            s[4] = ga[y * 3 + 1] + ga[y * 3 + 2];
            s[5] = ga[y * 3 + 2];
            s[6] = gb[y * 3 + 1] + gb[y * 3 + 2];
            s[7] = gb[y * 3 + 2];
            s[8] = ga[y * 3 + 0] + ga[y * 3 + 1] + ga[y * 3 + 2];
        } else {
            /* planes P1, P2, V */
            s[0] = p[0];
            s[1] = p[1];
            s[4] = p[2];
            s[2] = p[3];
            s[3] = p[4];
            s[5] = p[5];
            s[6] = p[6];
            s[7] = p[7];
            s[8] = p[8];
        }
        gk_derive(s, n[y]);
    }
}

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

/* Shared memory of the epilogue besides the products. */
template <int VM, int VN>
struct gk_epi_smem {
    gk_vc va[VM], vb[VN];
    gk_cc cc;
    gk_srow srow[VM]; /* the screen's constants (two planes) */
    gk_scol scol[VN];
    uint32_t rthr[VM], cthr[VN]; /* the variants' thresholds when the CTA started */
    unsigned long long rowbest[VM], colbest[VN]; /* (key << 32) | index */
    uint32_t rowlo[VM], collo[VN];               /* keys */
    uint32_t tau;
    uint32_t tau0; /* the top-k level when the CTA started */
    float scr_sc, scr_gc, scr_abs; /* screen nats -> score, -> G; absolute margin */
    int scr_on;
    int hist_touched;
    /* the screen's survivors: (q << 8) | owner thread, bit 31 set when the
     * pair is significant; qup: the key of its upper bound */
    int nq;
    uint32_t qent[GK_QCAP], qup[GK_QCAP];
    /* BOOST: pairs whose exact fit is wanted (phase B) */
    int n_fit;
    uint32_t fit_n[VM + VN][2][9];
    uint32_t fit_who[VM + VN]; /* row + 1 << 8 | column + 1 (0: none) */
};

/* One variant's constants from its class x genotype counts g (zero past
 * the block): as a row and as a column, and (two planes) the screen's.
 * Called once per variant and block upload (k_vpre). */
template <int STAT, int NP>
__device__ __forceinline__ void gk_vpre_build(const uint32_t g[6], gk_vc &r, gk_vc &c, gk_srow &R, gk_scol &C)
{
    float cn[2][3], ny[2];
#pragma unroll
    for (int i = 0; i < 6; i++) {
        r.g[i] = c.g[i] = g[i];
        cn[i / 3][i % 3] = (float)g[i];
    }
    ny[0] = cn[0][0] + cn[0][1] + cn[0][2];
    ny[1] = cn[1][0] + cn[1][1] + cn[1][2];
    gk_vc_build<true>(cn, ny, false, r);
    gk_vc_build<true>(cn, ny, true, c);
    if (NP == 2) {
        gk_cc cc;
        gk_cc_build<true>(ny[0], ny[1], cc);
        gk_srow_build<STAT>(g, r.h, cc, R);
        C.b1c = cn[1][1] + cn[1][2];
        C.b2c = cn[1][2];
        C.b01c = cn[1][1];
        C.b1t = cn[0][1] + cn[0][2] + C.b1c;
        C.b2t = cn[0][2] + C.b2c;
        C.b01t = cn[0][1] + C.b01c;
        C.pad[0] = C.pad[1] = 0.0f;
    }
}

/* n 16-byte words from global src to shared dst, by all threads of the CTA,
 * as asynchronous copies (sm_80+): they complete by gk_consts_wait() or any
 * cp.async.wait_group that retires a group committed after them. */
__device__ __forceinline__ void gk_copy16(void *dst, const void *src, int n)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((uint32_t)__cvta_generic_to_shared(
                         (int4 *)dst + i)),
                     "l"((const int4 *)src + i)
                     : "memory");
#else
        ((int4 *)dst)[i] = __ldg((const int4 *)src + i);
#endif
    }
}

/* Waits for this thread's copies of gk_epi_load_consts (a kernel whose main
 * loop does not wait for every cp.async group calls it before the barrier
 * that precedes the epilogue). */
__device__ __forceinline__ void gk_consts_wait()
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/* Per-variant constants of the CTA's rows and columns (copied from the
 * blocks' gk_vpre, asynchronously: one cp.async group, committed here, so
 * the main loop's first loads queue behind it instead of waiting) and their
 * thresholds.  Call by all threads before the main loop; the copies are
 * complete once a later cp.async group is waited for (or gk_consts_wait),
 * and the next __syncthreads publishes. */
template <int STAT, int NP, int VM, int VN>
__device__ __forceinline__ void gk_epi_load_consts(const es_gk_params &P, int a0, int b0,
                                                   gk_epi_smem<VM, VN> &S)
{
    static_assert(sizeof(gk_vc) % 16 == 0 && sizeof(gk_srow) % 16 == 0 && sizeof(gk_scol) % 16 == 0, "int4 copies");
    gk_copy16(S.va, P.prea.vrow + a0, VM * (int)sizeof(gk_vc) / 16);
    gk_copy16(S.vb, P.preb.vcol + b0, VN * (int)sizeof(gk_vc) / 16);
    if (NP == 2) {
        gk_copy16(S.srow, P.prea.srow + a0, VM * (int)sizeof(gk_srow) / 16);
        gk_copy16(S.scol, P.preb.scol + b0, VN * (int)sizeof(gk_scol) / 16);
    }
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
    for (int k = threadIdx.x; k < VM + VN; k += blockDim.x) {
        bool row = k < VM;
        int v = row ? k : k - VM;
        int gv = (row ? a0 : b0) + v;
        bool ok = gv < (int)(row ? P.na : P.nb);
        /* the thresholds serve the screen only (two planes) */
        uint32_t thr = NP == 2 && ok ? *((volatile uint32_t *)&P.thr[(row ? P.first_a : P.first_b) + gv]) : 0xffffffffu;
        if (row) {
            S.rthr[v] = thr;
            S.rowbest[v] = 0ull;
            S.rowlo[v] = 0u;
        } else {
            S.cthr[v] = thr;
            S.colbest[v] = 0ull;
            S.collo[v] = 0u;
        }
    }
    if (threadIdx.x == 0) {
        if (NP == 2) {
            /* the class split: every variant's, no call being missing */
            const uint32_t *g = P.ga + (size_t)a0 * 6;
            gk_cc cc;
            gk_cc_build<true>((float)(g[0] + g[1] + g[2]), (float)(g[3] + g[4] + g[5]), cc);
            S.cc = cc;
            const float LN2 = 0.69314718f;
            /* products and counts must stay exact in float (gk_u2f) */
            S.scr_on = STAT != GK_K2 && cc.N < 8388608.0f;
            S.scr_sc = STAT == GK_BOOST ? 2.0f : STAT == GK_CHI2 ? 1.0f : 1.0f / (LN2 * fmaxf(cc.N, 1.0f));
            S.scr_gc = STAT == GK_CHI2 ? 1.0f : 2.0f;
            S.scr_abs = 2e-6f * cc.N + 1e-3f;
        } else {
            S.scr_on = 0;
        }
        S.hist_touched = 0;
        S.n_fit = 0;
        S.nq = 0;
        uint32_t tb = *((volatile uint32_t *)&P.tau_bin[0]);
        uint32_t t = tb ? tb << ES_HIST_SHIFT : 0u;
        S.tau0 = t > P.tau_host ? t : P.tau_host;
    }
}

template <int STAT, int NP, int VM, int VN>
__device__ __forceinline__ gk_bounds gk_pair_bound(const uint32_t n[2][9], int a, int b,
                                                   const gk_epi_smem<VM, VN> &S, const es_gk_params &P)
{
    if (NP == 2 || STAT == GK_K2 || STAT == GK_CHI2) return gk_bound<STAT>(n, S.va[a], S.vb[b], S.cc, P);
    gk_vc A, B;
    gk_cc C;
    gk_margins_of(n, A, B, C);
    return gk_bound<STAT>(n, A, B, C, P);
}

/* Thread t's q-th pair: its bounds (phase A), from the products. */
template <int STAT, class L, int VM, int VN>
__device__ __forceinline__ gk_bounds gk_epi_bound(const es_gk_params &P, const uint32_t *prod, int q, int t, int a,
                                                  int b, const gk_epi_smem<VM, VN> &S)
{
    constexpr int NP = L::NP;
    uint32_t x[2 * NP * NP], n[2][9];
    L::load(prod, q, t, a, b, x);
    gk_cells<NP>(x, S.va[a].g, S.vb[b].g, n);
    return gk_pair_bound<STAT, NP, VM, VN>(n, a, b, S, P);
}

/* Phase B for one pair (BOOST): queue its table for the exact fit when it is
 * its row's or column's most promising pair and could raise that variant's
 * threshold.  Not against the top-k level: every variant's best partner is
 * wanted, and a variant without a bound would emit all its pairs. */
template <class L, int VM, int VN>
__device__ __forceinline__ void gk_epi_fit_want(const es_gk_params &P, const uint32_t *prod, int q, int t, int a,
                                                int b, uint32_t ku, int a0, int b0, gk_epi_smem<VM, VN> &S)
{
    constexpr int NP = L::NP;
    unsigned long long kup = (unsigned long long)ku << 32;
    bool rb = S.rowbest[a] == (kup | (uint32_t)b), cb = S.colbest[b] == (kup | (uint32_t)a);
    if (!rb && !cb) return;
    if (rb) rb = ku > *((volatile uint32_t *)&P.thr[P.first_a + a0 + a]);
    if (cb) cb = ku > *((volatile uint32_t *)&P.thr[P.first_b + b0 + b]);
    if (!rb && !cb) return;
    uint32_t x[2 * NP * NP], n[2][9];
    L::load(prod, q, t, a, b, x);
    gk_cells<NP>(x, S.va[a].g, S.vb[b].g, n);
    int slot = atomicAdd(&S.n_fit, 1);
#pragma unroll
    for (int y = 0; y < 2; y++)
#pragma unroll
        for (int k = 0; k < 9; k++) S.fit_n[slot][y][k] = n[y][k];
    S.fit_who[slot] = (rb ? (uint32_t)a + 1u : 0u) | (cb ? ((uint32_t)b + 1u) << 8 : 0u);
}

/* Phase D for one candidate slot of the warp: every lane calls (emit may be
 * false), so the warp reserves its slots with one atomic. */
template <class L, int VM, int VN>
__device__ __forceinline__ void gk_epi_emit(const es_gk_params &P, const uint32_t *prod, bool emit, int q, int t,
                                            int a, int b, int a0, int b0, const gk_epi_smem<VM, VN> &S)
{
    constexpr int NP = L::NP;
    unsigned m = __ballot_sync(0xffffffffu, emit);
    if (!m) return;
    uint32_t base = 0;
    const int lane = threadIdx.x & 31, leader = __ffs(m) - 1;
    if (lane == leader) base = atomicAdd(P.n_cand, (uint32_t)__popc(m));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (!emit) return;
    uint32_t slot = base + __popc(m & ((1u << lane) - 1u));
    if (slot >= P.cap) return;
    es_gpu_cand_t *c = &P.cand[slot];
    uint32_t x[2 * NP * NP], n[2][9];
    L::load(prod, q, t, a, b, x);
    gk_cells<NP>(x, S.va[a].g, S.vb[b].g, n);
    c->i = P.first_a + (uint32_t)(a0 + a);
    c->j = P.first_b + (uint32_t)(b0 + b);
#pragma unroll
    for (int y = 0; y < 2; y++)
#pragma unroll
        for (int k = 0; k < 9; k++) c->n[y][k] = n[y][k];
}

/* The fused epilogue.  prod: the CTA tile's products in layout L; a0, b0:
 * first variant of the tile in each block.  Called by all threads of the CTA
 * after the products are in shared memory.
 *
 * Phase S screens every pair (two planes, not K2); the survivors go to the
 * CTA's queue.  When they fit it (dense mode) phases A, B and D walk the
 * queue, one survivor per thread; otherwise (the first tiles of a scan, when
 * no threshold is known yet; three planes; K2) every thread walks its own
 * surviving pairs. */
template <int STAT, class L, int VM, int VN>
__device__ void gk_epilogue(const es_gk_params &P, const uint32_t *prod, int a0, int b0,
                            gk_epi_smem<VM, VN> &S)
{
    constexpr int NP = L::NP, PPT = L::PPT;
    constexpr bool boost = STAT == GK_BOOST, screen = NP == 2 && STAT != GK_K2;
    static_assert(VM + VN <= ES_GPU_THREADS && VM < 255 && VN < 255, "phase B/C: a thread per row and column");
    static_assert(PPT <= 32 && ES_GPU_THREADS <= 256, "survivor masks and queue entries");
    const int tid = threadIdx.x;
    const bool act = tid < ES_GPU_THREADS; /* warp-uniform */

    /* phase S: the pairs that could matter (mask bit q: thread's pair q) */
    uint32_t mask = 0;
    {
        const bool scr = screen && S.scr_on;
        gk_srow R;
        uint32_t mrow = 0u; /* the lower of the top-k level and the row's threshold */
#pragma unroll
        for (int q = 0; q < PPT; q++) {
            int a, b;
            L::pair(q, tid, a, b);
            if (scr && q % L::ROWQ == 0) {
                R = S.srow[a];
                mrow = S.tau0 < S.rthr[a] ? S.tau0 : S.rthr[a];
            }
            int gi = (int)P.first_a + a0 + a, gj = (int)P.first_b + b0 + b;
            bool keep = act && a0 + a < (int)P.na && b0 + b < (int)P.nb && (!P.diag || gi < gj);
            if (scr) {
                /* every pair is screened, valid or not (no branch: a pair
                 * past the block has zero products and zero constants) */
                uint32_t x[8];
                L::load(prod, q, tid, a, b, x);
                const gk_scol &C = S.scol[b];
                float nats = fmaf(gk_screen_sum(x, R, C), 1.0f + 1e-4f, R.base + S.scr_abs);
                const uint32_t ct = S.cthr[b], m = mrow < ct ? mrow : ct;
                /* nats > 0 (a sum of products of like-signed factors plus a
                 * positive margin), so its key is its bits with the top set */
                keep = keep && ((__float_as_uint(nats * S.scr_sc) | 0x80000000u) >= m || nats * S.scr_gc >= P.sig_min_g);
            }
            mask |= (uint32_t)keep << q;
        }
    }
    bool dense = false;
    if (screen) {
        /* queue the survivors: one shared atomic per warp */
        const int lane = tid & 31;
        uint32_t cnt = (uint32_t)__popc(mask), inc = cnt;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            uint32_t v = __shfl_up_sync(0xffffffffu, inc, o);
            if (lane >= o) inc += v;
        }
        uint32_t tot = __shfl_sync(0xffffffffu, inc, 31), base = 0;
        if (lane == 31 && tot) base = (uint32_t)atomicAdd(&S.nq, (int)tot);
        base = __shfl_sync(0xffffffffu, base, 31) + inc - cnt;
        for (uint32_t m = mask; m; m &= m - 1, base++)
            if (base < GK_QCAP) S.qent[base] = ((uint32_t)(__ffs(m) - 1) << 8) | (uint32_t)tid;
        __syncthreads();
        dense = S.nq <= GK_QCAP;
        if (tid == 0 && S.scr_on) {
            atomicAdd(&P.screen[0], 1ull);
            if (dense) atomicAdd(&P.screen[1], 1ull);
            atomicAdd(&P.screen[2], (unsigned long long)S.nq);
        }
    }
    const int nq = dense ? S.nq : 0;
    /* nothing survived: phases A-D would publish no bound and emit nothing */
    if (dense && nq == 0) return;

    /* phase A: bounds of the surviving pairs; row and column bests */
    float up[PPT], gup[PPT];
    if (dense) {
        for (int i = tid; i < nq && act; i += ES_GPU_THREADS) {
            uint32_t e = S.qent[i];
            int q = (int)(e >> 8), t = (int)(e & 0xffu), a, b;
            L::pair(q, t, a, b);
            gk_bounds bd = gk_epi_bound<STAT, L, VM, VN>(P, prod, q, t, a, b, S);
            uint32_t kup = es_fkey(bd.up);
            S.qup[i] = kup;
            if (bd.gup >= P.sig_min_g) S.qent[i] = e | 0x80000000u;
            if (boost) {
                atomicMax(&S.rowbest[a], ((unsigned long long)kup << 32) | (uint32_t)b);
                atomicMax(&S.colbest[b], ((unsigned long long)kup << 32) | (uint32_t)a);
            } else {
                uint32_t klo = es_fkey(bd.lo);
                atomicMax(&S.rowlo[a], klo);
                atomicMax(&S.collo[b], klo);
            }
        }
    } else {
        /* row bests run over a thread's consecutive pairs of one row */
        int cur = -1;
        unsigned long long rbest = 0ull;
        uint32_t rlo = 0u;
#pragma unroll
        for (int q = 0; q < PPT; q++) {
            int a, b;
            L::pair(q, tid, a, b);
            if (a != cur) {
                if (cur >= 0) {
                    if (boost && rbest) atomicMax(&S.rowbest[cur], rbest);
                    if (!boost && rlo) atomicMax(&S.rowlo[cur], rlo);
                }
                cur = a;
                rbest = 0ull;
                rlo = 0u;
            }
            up[q] = gup[q] = 0.0f;
            if (!((mask >> q) & 1u)) continue;
            gk_bounds bd = gk_epi_bound<STAT, L, VM, VN>(P, prod, q, tid, a, b, S);
            up[q] = bd.up;
            gup[q] = bd.gup;
            if (boost) {
                uint32_t kup = es_fkey(bd.up);
                unsigned long long kb = ((unsigned long long)kup << 32) | (uint32_t)b;
                if (kb > rbest) rbest = kb;
                atomicMax(&S.colbest[b], ((unsigned long long)kup << 32) | (uint32_t)a);
            } else {
                uint32_t klo = es_fkey(bd.lo);
                if (klo > rlo) rlo = klo;
                atomicMax(&S.collo[b], klo);
            }
        }
        if (cur >= 0 && act) {
            if (boost && rbest) atomicMax(&S.rowbest[cur], rbest);
            if (!boost && rlo) atomicMax(&S.rowlo[cur], rlo);
        }
    }
    __syncthreads();

    /* phase B (BOOST): the exact fit (IPF in double) of each row's and
     * column's most promising pair gives the lower bounds -- only where that
     * pair could raise its variant's threshold.  The owners of such pairs
     * queue their tables; the fits then run one per thread, in parallel. */
    if (boost) {
        if (dense) {
            for (int i = tid; i < nq && act; i += ES_GPU_THREADS) {
                uint32_t e = S.qent[i];
                int q = (int)((e >> 8) & 0xffu), t = (int)(e & 0xffu), a, b;
                L::pair(q, t, a, b);
                gk_epi_fit_want<L, VM, VN>(P, prod, q, t, a, b, S.qup[i], a0, b0, S);
            }
        } else {
#pragma unroll
            for (int q = 0; q < PPT; q++) {
                if (!((mask >> q) & 1u)) continue;
                int a, b;
                L::pair(q, tid, a, b);
                gk_epi_fit_want<L, VM, VN>(P, prod, q, tid, a, b, es_fkey(up[q]), a0, b0, S);
            }
        }
        __syncthreads();
        if (tid < S.n_fit) {
            uint32_t who = S.fit_who[tid];
            uint32_t lo = es_fkey((float)gk_boost_lo(S.fit_n[tid]) * (1.0f - 1e-6f));
            if (who & 0xffu) S.rowlo[(who & 0xffu) - 1u] = lo;
            if (who >> 8) S.collo[(who >> 8) - 1u] = lo;
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
        /* only rows/columns with at least one surviving pair have a bound */
        bool has = boost ? (is_row ? S.rowbest[r] : S.colbest[r]) != 0ull : lo != 0u;
        if (ok && has) {
            int g = is_row ? (int)P.first_a + a0 + r : (int)P.first_b + b0 + r;
            uint32_t old = lo ? atomicMax(&P.thr[g], lo) : *((volatile uint32_t *)&P.thr[g]);
            uint32_t own = lo;
            if (old > lo) lo = old;
            if (is_row && P.update_hist && own) {
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
    if (dense) {
        if (!act) return;
        for (int r = 0; r < nq; r += ES_GPU_THREADS) {
            const int i = r + tid;
            int q = 0, t = 0, a = 0, b = 0;
            bool emit = false;
            if (i < nq) {
                uint32_t e = S.qent[i], k = S.qup[i];
                q = (int)((e >> 8) & 0xffu);
                t = (int)(e & 0xffu);
                L::pair(q, t, a, b);
                emit = k >= tau || k >= S.rowlo[a] || k >= S.collo[b] || (e >> 31);
            }
            gk_epi_emit<L, VM, VN>(P, prod, emit, q, t, a, b, a0, b0, S);
        }
    } else {
#pragma unroll
        for (int q = 0; q < PPT; q++) {
            int a, b;
            L::pair(q, tid, a, b);
            bool emit = false;
            if ((mask >> q) & 1u) {
                uint32_t k = es_fkey(up[q]);
                emit = k >= tau || k >= S.rowlo[a] || k >= S.collo[b] || gup[q] >= P.sig_min_g;
            }
            gk_epi_emit<L, VM, VN>(P, prod, emit, q, tid, a, b, a0, b0, S);
        }
    }
}
/* Launch a tile kernel of VM x VN-variant CTAs with `smem` bytes of dynamic
 * shared memory (raising the kernel's limit once per device and thread). */
template <int VM, int VN>
static int gk_launch(void (*kernel)(es_gk_params), const es_gk_params &P, size_t smem,
                     cudaStream_t st, int *configured, int threads = ES_GPU_THREADS)
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
    kernel<<<grid, threads, smem, st>>>(P);
    return (int)cudaGetLastError();
}

/* A kernel template instantiated for every statistic: kernel<STAT>. */
#define GK_STAT_DISPATCH(stat, F, ...)                                                             \
    ((stat) == GK_BOOST  ? F<GK_BOOST>(__VA_ARGS__)                                                \
     : (stat) == GK_CHI2 ? F<GK_CHI2>(__VA_ARGS__)                                                 \
     : (stat) == GK_MI   ? F<GK_MI>(__VA_ARGS__)                                                   \
     : (stat) == GK_IG   ? F<GK_IG>(__VA_ARGS__)                                                   \
                         : F<GK_K2>(__VA_ARGS__))

/* Every kernel family's launcher (one per .cu); np is 2 or 3.
 * @return 0, or a cudaError_t. */
int es_gk_launch_mma(const es_gk_params &P, int np, void *stream);
int es_gk_launch_wgmma(const es_gk_params &P, int np, void *stream);
/* 1 when device dev runs the sm_90a wgmma kernels (an sm_90 device and a
 * binary built with compute_90a), else 0. */
int es_gk_wgmma_usable(int dev);
int es_gk_launch_popc(const es_gk_params &P, int np, void *stream);

#endif
