/* exact.cuh -- a candidate's exact statistic in double, as the host computes
 * it, with a proven bound on how far the host's value can be: the second
 * stage of the pair engine (exact.cu) drops a candidate only when that
 * value, plus the bound, is below every threshold it could matter for.
 *
 * Each function performs src/stats' operations in src/stats' order, on the
 * same IEEE-754 doubles: integer margins (exact), then sums, products and
 * correctly rounded quotients, with no fused multiply-add (exact.cu is
 * compiled with -fmad=false; the host's C with -ffp-contract=off).  So every
 * value before the first logarithm is the host's bit for bit -- BOOST's
 * whole IPF fit included, sweep for sweep, with PLINK's stopping rule -- and
 * only the logarithms differ: CUDA's log() is within 1 ulp of ln, as is
 * glibc's.
 *
 * The margin (BOOST).  G = 2 sum_i t_i over 19 terms t_i = n_i ln r_i (18
 * cells, then N ln(tau / N)); both sides compute r_i bit for bit alike.  A
 * side's ln r_i is within 2^-52 |ln r_i| of the true value, its product
 * within a further 2^-53, and its sum of 19 terms, in any order, within
 * gamma_19 = 19 u / (1 - 19 u) (u = 2^-53) of sum |t_i| =: S.  So each side's
 * sum lies within (2^-52 + 2^-53 + gamma_19 + O(u^2)) S < 2.5e-15 S of the
 * exact sum of the true t_i, each G within 5e-15 S of twice it (doubling is
 * exact, clamping at 0 shrinks distances), and the two G's within 1e-14 S of
 * each other.  The margin taken is 1e-13 S (S from the device's own terms,
 * which are within 1e-15 of S relative): ten times the worst case.
 *
 * chi2, mi and ig involve no logarithm on the device (mi and ig read the
 * host's own n ln n table, es_gpu_config_t.nlogn, below ES_NLOGN_TAB), so
 * their values are the host's bit for bit; a margin of 1e-12 of the
 * magnitudes summed is kept anyway, at no cost to what is dropped.
 *
 * What is not decided returns ok = 0 and goes to the host as before: mi and
 * ig tables of ES_NLOGN_TAB samples or more, a BOOST fit that has not met
 * PLINK's stopping rule after GK_EX_SWEEPS sweeps (realistic tables stop
 * after 3 to 5), K2. */
#ifndef GK_EXACT_CUH
#define GK_EXACT_CUH

#include <math.h>
#include <stdint.h>

#include "params.cuh"

#ifdef __CUDACC__
#define GK_HD __host__ __device__
#else
#define GK_HD
#endif

/* PLINK's stopping rule (src/stats/boost.c BOOST_IPF_TOL), and the sweeps
 * the device runs at most (the host's cap, 100,000, is for pathological
 * tables; past this one the host decides). */
#define GK_EX_TOL 0.001
#define GK_EX_SWEEPS 4000
/* n ln n is tabulated below this (src/stats/stats.h ES_NLOGN_TAB) */
#define GK_EX_NLOGN_TAB 65536u

struct gk_exact_r {
    double v;   /* the statistic */
    double eps; /* |v - the host's value| <= eps */
    int ok;     /* 0: not decided here (v, eps meaningless) */
};

/* ---- BOOST (src/stats/boost.c: boost_load, boost_ipf, es_stat_boost) ---- */

/* target / fitted, 0 where the fitted margin is 0 (v2_factor) */
GK_HD inline double gk_ex_fac(double target, double fitted) { return fitted != 0.0 ? target / fitted : 0.0; }

/* Lane 0 the cases (n[1]), lane 1 the controls (n[0]), cell a * 3 + b, as
 * boost.c's vectors hold them.  fit (may be NULL): where the value was
 * decided and the table is not degenerate, the fit itself, fit[2 * i + k] =
 * mu[i][k], boost.c's bit for bit (es_stat_boost_fitted then gives the
 * host's value with the host's logarithms); fit[0] NaN otherwise. */
GK_HD inline gk_exact_r gk_exact_boost(const uint32_t n[2][9], double *fit = nullptr)
{
    if (fit) fit[0] = NAN;
    gk_exact_r r = {0.0, 0.0, 1};
    double c[9][2], ak[3][2], bk[3][2], ab[9];
    unsigned ra = 0, rb = 0;
    uint64_t tot = 0;
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < 2; k++) ak[a][k] = bk[a][k] = 0.0;
    for (int a = 0; a < 3; a++) {
        for (int b = 0; b < 3; b++) {
            const int i = a * 3 + b;
            const uint32_t cs = n[1][i], ct = n[0][i];
            c[i][0] = (double)cs;
            c[i][1] = (double)ct;
            /* integer counts below 2^53: every margin is exact */
            ak[a][0] += c[i][0];
            ak[a][1] += c[i][1];
            bk[b][0] += c[i][0];
            bk[b][1] += c[i][1];
            ab[i] = (double)((uint64_t)cs + ct);
            tot += (uint64_t)cs + ct;
            if (cs | ct) {
                ra |= 1u << a;
                rb |= 1u << b;
            }
        }
    }
    if (!(ra & (ra - 1)) || !(rb & (rb - 1))) return r; /* degenerate: 0, exactly */
    double mu[9][2], prev[9][2];
    for (int i = 0; i < 9; i++) mu[i][0] = mu[i][1] = 1.0;
    int sweep = 0;
    for (; sweep < GK_EX_SWEEPS; sweep++) {
        for (int i = 0; i < 9; i++) {
            prev[i][0] = mu[i][0];
            prev[i][1] = mu[i][1];
        }
        for (int i = 0; i < 9; i++) { /* AB */
            const double f = gk_ex_fac(ab[i], mu[i][0] + mu[i][1]);
            mu[i][0] *= f;
            mu[i][1] *= f;
        }
        for (int a = 0; a < 3; a++) /* AK: sum over b, in b order */
            for (int k = 0; k < 2; k++) {
                double *m0 = &mu[3 * a][k], *m1 = &mu[3 * a + 1][k], *m2 = &mu[3 * a + 2][k];
                const double f = gk_ex_fac(ak[a][k], (*m0 + *m1) + *m2);
                *m0 *= f;
                *m1 *= f;
                *m2 *= f;
            }
        for (int b = 0; b < 3; b++) /* BK: sum over a, in a order */
            for (int k = 0; k < 2; k++) {
                const double f = gk_ex_fac(bk[b][k], (mu[b][k] + mu[b + 3][k]) + mu[b + 6][k]);
                mu[b][k] *= f;
                mu[b + 3][k] *= f;
                mu[b + 6][k] *= f;
            }
        /* the change, summed as boost_ipf sums it (three accumulators a lane) */
        double err = 0.0;
        {
            double e[2];
            for (int k = 0; k < 2; k++) {
                double e0 = fabs(mu[0][k] - prev[0][k]), e1 = fabs(mu[1][k] - prev[1][k]);
                double e2 = fabs(mu[2][k] - prev[2][k]);
                for (int i = 3; i < 9; i += 3) {
                    e0 += fabs(mu[i][k] - prev[i][k]);
                    e1 += fabs(mu[i + 1][k] - prev[i + 1][k]);
                    e2 += fabs(mu[i + 2][k] - prev[i + 2][k]);
                }
                e[k] = e0 + (e1 + e2);
            }
            err = e[0] + e[1];
        }
        if (fabs(err - GK_EX_TOL) < 1e-12) { /* PLINK's serial order near the threshold */
            err = 0.0;
            for (int i = 0; i < 9; i++) {
                err += fabs(mu[i][0] - prev[i][0]);
                err += fabs(mu[i][1] - prev[i][1]);
            }
        }
        if (!(err > GK_EX_TOL)) break;
    }
    if (sweep == GK_EX_SWEEPS) {
        r.ok = 0;
        return r;
    }
    if (fit)
        for (int i = 0; i < 9; i++) {
            fit[2 * i] = mu[i][0];
            fit[2 * i + 1] = mu[i][1];
        }
    double tau[2] = {0.0, 0.0}, g[3][2] = {{0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}}, s = 0.0;
    for (int i = 0; i < 9; i++)
        for (int k = 0; k < 2; k++) tau[k] += mu[i][k];
    for (int i = 0; i < 9; i++)
        for (int k = 0; k < 2; k++) {
            const double q = c[i][k] > 0.0 && mu[i][k] > 0.0 ? c[i][k] / mu[i][k] : 1.0;
            const double t = c[i][k] * log(q);
            g[i % 3][k] += t;
            s += fabs(t);
        }
    const double N = (double)tot, tn = N * log((tau[0] + tau[1]) / N);
    s += fabs(tn);
    double g0[2];
    for (int k = 0; k < 2; k++) g0[k] = g[0][k] + (g[1][k] + g[2][k]);
    const double gs = 2.0 * (g0[0] + g0[1] + tn);
    r.v = gs > 0.0 ? gs : 0.0;
    r.eps = 1e-13 * s;
    return r;
}

/* ---- chi2, mi, ig (src/stats/stats.c) ------------------------------------ */

struct gk_ex_margins {
    uint64_t n0, n1, n;
    int df;
};

GK_HD inline gk_ex_margins gk_ex_margins_of(const uint32_t n[2][9])
{
    gk_ex_margins m = {0, 0, 0, 0};
    int cols = 0;
    for (int c = 0; c < 9; c++) {
        m.n0 += n[0][c];
        m.n1 += n[1][c];
        cols += (n[0][c] | n[1][c]) != 0;
    }
    m.n = m.n0 + m.n1;
    m.df = (m.n0 && m.n1 && cols > 1) ? cols - 1 : 0;
    return m;
}

GK_HD inline gk_exact_r gk_exact_chi2(const uint32_t n[2][9])
{
    gk_exact_r r = {0.0, 0.0, 1};
    const gk_ex_margins m = gk_ex_margins_of(n);
    if (m.df <= 0) return r;
    double s[3] = {0.0, 0.0, 0.0};
    for (int c = 0; c < 9; c++) {
        const uint64_t a = n[0][c], b = n[1][c];
        if (!(a | b)) continue;
        const double d = (double)((int64_t)(a * m.n1) - (int64_t)(b * m.n0));
        s[c % 3] += d * d / (double)(a + b);
    }
    r.v = ((s[0] + s[1]) + s[2]) / ((double)m.n0 * (double)m.n1);
    r.eps = 1e-12 * r.v;
    return r;
}

/* N I(Y; X) in nats of the 2 x ncol table r0, r1 (n_mi_nats), and in *mag
 * the magnitudes it sums; T: n ln n, every argument below GK_EX_NLOGN_TAB */
GK_HD inline double gk_ex_nmi(const uint64_t *r0, const uint64_t *r1, int ncol, const gk_ex_margins &m,
                              const double *T, double *mag)
{
    double f[9], s = 0.0, a = 0.0;
    for (int c = 0; c < ncol; c++) f[c] = (T[r0[c]] + T[r1[c]]) - T[r0[c] + r1[c]];
    for (int c = 0; c < ncol; c++) {
        s += f[c];
        a += fabs(f[c]);
    }
    const double k = T[m.n] - (T[m.n0] + T[m.n1]);
    *mag += a + fabs(k);
    return s + k;
}

/* mi's and ig's start: the margins and the table as two rows of 64-bit
 * counts; 0 when the value is already in r (0: no test, df 0) or the table
 * is past n ln n's (r.ok = 0). */
GK_HD inline int gk_ex_info_rows(const uint32_t n[2][9], gk_ex_margins &m, uint64_t r0[9], uint64_t r1[9],
                                 gk_exact_r &r)
{
    r.v = r.eps = 0.0;
    r.ok = 1;
    m = gk_ex_margins_of(n);
    if (m.df <= 0) return 0;
    if (m.n >= GK_EX_NLOGN_TAB) {
        r.ok = 0;
        return 0;
    }
    for (int c = 0; c < 9; c++) {
        r0[c] = n[0][c];
        r1[c] = n[1][c];
    }
    return 1;
}

GK_HD inline gk_exact_r gk_exact_mi(const uint32_t n[2][9], const double *T)
{
    gk_exact_r r;
    gk_ex_margins m;
    uint64_t r0[9], r1[9];
    if (!gk_ex_info_rows(n, m, r0, r1, r)) return r;
    double mag = 0.0;
    const double g = gk_ex_nmi(r0, r1, 9, m, T, &mag), d = (double)m.n * M_LN2;
    r.v = g > 0.0 ? g / d : 0.0;
    r.eps = 1e-12 * mag / d;
    return r;
}

/* es_stat_ig: I(Y; A,B) - max(I(Y; A), I(Y; B)) in bits (may be negative) */
GK_HD inline gk_exact_r gk_exact_ig(const uint32_t n[2][9], const double *T)
{
    gk_exact_r r;
    gk_ex_margins m;
    uint64_t r0[9], r1[9], a0[3], a1[3], b0[3], b1[3];
    if (!gk_ex_info_rows(n, m, r0, r1, r)) return r;
    for (int i = 0; i < 3; i++) {
        a0[i] = r0[3 * i] + r0[3 * i + 1] + r0[3 * i + 2];
        a1[i] = r1[3 * i] + r1[3 * i + 1] + r1[3 * i + 2];
        b0[i] = r0[i] + r0[i + 3] + r0[i + 6];
        b1[i] = r1[i] + r1[i + 3] + r1[i + 6];
    }
    double mag = 0.0;
    const double g_ab = fmax(gk_ex_nmi(r0, r1, 9, m, T, &mag), 0.0);
    const double g_a = fmax(gk_ex_nmi(a0, a1, 3, m, T, &mag), 0.0);
    const double g_b = fmax(gk_ex_nmi(b0, b1, 3, m, T, &mag), 0.0);
    const double d = (double)m.n * M_LN2;
    r.v = (g_ab - (g_a > g_b ? g_a : g_b)) / d;
    r.eps = 1e-12 * mag / d;
    return r;
}

/* The statistic STAT (a GK_ code) of table n; T: the host's n ln n table
 * (mi, ig); fit: BOOST's fit (gk_exact_boost), or NULL. */
template <int STAT>
GK_HD inline gk_exact_r gk_exact(const uint32_t n[2][9], const double *T, double *fit = nullptr)
{
    if (STAT == GK_BOOST) return gk_exact_boost(n, fit);
    if (STAT == GK_CHI2) return gk_exact_chi2(n);
    if (STAT == GK_MI) return gk_exact_mi(n, T);
    if (STAT == GK_IG) return gk_exact_ig(n, T);
    gk_exact_r r = {0.0, 0.0, 0};
    return r;
}

/* G of the significance test (src/stats es_stat_g) at most, from the
 * statistic's upper bound hi: boost and chi2 are their own G; mi and ig
 * G = 2 N ln 2 I (a relative 1e-12 covers the product's rounding). */
template <int STAT>
GK_HD inline double gk_exact_gup(const uint32_t n[2][9], double hi)
{
    if (STAT == GK_BOOST || STAT == GK_CHI2) return hi;
    uint64_t N = 0;
    for (int c = 0; c < 9; c++) N += (uint64_t)n[0][c] + n[1][c];
    const double g = 2.0 * (double)N * M_LN2 * hi;
    return g + 1e-12 * fabs(g);
}

#endif
