/* test_stats.c -- the per-table statistics and the chi-square tail.
 *
 * Every expected value is computed here, independently, from the textbook
 * formula (per-cell logarithms, lgamma, erfc, a fully converged proportional
 * fit) rather than copied from epistream's output:
 *   - chi-square tail: closed forms for df 1..4, a log-sum-exp form of the
 *     even-df series for large df, the erfc asymptotic series far in the tail;
 *   - chi2, MI, IG, K2 on hand-made and random tables;
 *   - BOOST: a no-three-way-interaction fit iterated to convergence bounds
 *     PLINK's early-stopped value from below, and es_stat_boost_bound() must
 *     bound it from above on random and adversarial tables;
 *   - invariances: swapping the two variants, relabelling genotype levels,
 *     swapping cases and controls, scaling all counts;
 *   - degenerate tables give stat 0, p 1, -log10 p 0 and df 0 (never NaN);
 *   - first calls from many threads at once (the tables are built once).
 * PLINK agreement itself is checked by tests/oracle_boost.sh. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "select.h"
#include "testutil.h"

#define CHECK_REL(got, want, tol)                                                                  \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        double d_ = fabs(g_ - w_), m_ = fabs(w_) > fabs(g_) ? fabs(w_) : fabs(g_);                 \
        if (!(d_ <= (tol)*m_ || d_ == 0.0)) {                                                      \
            print_error("%s = %.17g, expected %.17g (rel %.3g > %.3g)\n", #got, g_, w_, d_ / m_,   \
                        (double)(tol));                                                            \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

#define CHECK_CLOSE(got, want, rel, abs_tol)                                                       \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        double d_ = fabs(g_ - w_), m_ = fabs(w_) > fabs(g_) ? fabs(w_) : fabs(g_);                 \
        if (!(d_ <= (rel)*m_ || d_ <= (abs_tol))) {                                                \
            print_error("%s = %.17g, expected %.17g (diff %.3g)\n", #got, g_, w_, d_);             \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

/* ---- table helpers ---------------------------------------------------------- */

static double unif(uint64_t *rng)
{
    return (double)(tu_rand(rng) >> 11) * (1.0 / 9007199254740992.0);
}

static int draw_geno(uint64_t *rng, double p)
{
    double u = unif(rng);
    return u < (1 - p) * (1 - p) ? 0 : u < 1 - p * p ? 1 : 2;
}

/* n samples (alternating classes), two variants of random allele frequency,
 * an optional interaction on the double-heterozygote-or-more cells, and
 * calls missing at rate miss */
static void table_realistic(uint64_t *rng, es_table2_t *t, uint32_t n, double miss)
{
    memset(t, 0, sizeof *t);
    double pa = 0.005 + 0.495 * unif(rng), pb = 0.005 + 0.495 * unif(rng);
    double eff = unif(rng) < 0.3 ? 0.3 * unif(rng) : 0.0;
    for (uint32_t i = 0; i < n; i++) {
        if (unif(rng) < miss) continue;
        int ga = draw_geno(rng, pa), gb = draw_geno(rng, pb);
        double pc = 0.5 + (ga * gb > 0 ? eff : 0.0);
        t->n[unif(rng) < pc][ga * 3 + gb]++;
    }
}

/* cells independent, many of them zero */
static void table_sparse(uint64_t *rng, es_table2_t *t)
{
    uint32_t mx = 1 + tu_randn(rng, tu_randn(rng, 2) ? 4 : 40);
    double pz = unif(rng);
    for (int y = 0; y < 2; y++)
        for (int c = 0; c < 9; c++)
            t->n[y][c] = unif(rng) < pz ? 0 : tu_randn(rng, mx);
}

/* counts drawn around a table with no three-way interaction,
 * f(a,b) g(a,k) h(b,k), so that the model fits almost exactly */
static void table_product(uint64_t *rng, es_table2_t *t)
{
    double f[9], g[6], h[6], p[18], sum = 0.0, scale = pow(10.0, 1.0 + 5.0 * unif(rng));
    for (int i = 0; i < 9; i++)
        f[i] = unif(rng) < 0.1 ? 0.0 : exp(3.0 * (unif(rng) - 0.5));
    for (int i = 0; i < 6; i++) {
        g[i] = exp(3.0 * (unif(rng) - 0.5));
        h[i] = exp(3.0 * (unif(rng) - 0.5));
    }
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int k = 0; k < 2; k++) {
                double v = f[a * 3 + b] * g[a * 2 + k] * h[b * 2 + k];
                p[(a * 3 + b) * 2 + k] = v;
                sum += v;
            }
    for (int i = 0; i < 18; i++)
        t->n[i % 2][i / 2] = (uint32_t)floor(p[i] / sum * scale + unif(rng));
}

/* A independent of (B, class): the Kirkwood approximation is exact here, so
 * the bound has no slack beyond its margin */
static void table_indep(uint64_t *rng, es_table2_t *t)
{
    double pa[3], pbk[6], sa = 0.0, sb = 0.0, scale = pow(10.0, 1.0 + 5.0 * unif(rng));
    for (int i = 0; i < 3; i++)
        sa += pa[i] = unif(rng) < 0.2 ? 0.0 : unif(rng);
    for (int i = 0; i < 6; i++)
        sb += pbk[i] = unif(rng) < 0.2 ? 0.0 : unif(rng);
    if (sa == 0.0) pa[0] = sa = 1.0;
    if (sb == 0.0) pbk[0] = sb = 1.0;
    int swap = tu_randn(rng, 2), jitter = tu_randn(rng, 2);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int k = 0; k < 2; k++) {
                double v = pa[a] / sa * pbk[b * 2 + k] / sb * scale;
                uint32_t c = (uint32_t)floor(v + (jitter ? unif(rng) : 0.5));
                t->n[k][swap ? b * 3 + a : a * 3 + b] = c;
            }
}

static void table_random(uint64_t *rng, es_table2_t *t, int kind)
{
    switch (kind % 5) {
    case 0: table_realistic(rng, t, 20 + tu_randn(rng, 3000), unif(rng) < 0.5 ? 0.0 : 0.1); break;
    case 1: table_sparse(rng, t); break;
    case 2: table_product(rng, t); break;
    case 3: table_indep(rng, t); break;
    default: table_realistic(rng, t, 20 + tu_randn(rng, 200), 0.05); break;
    }
}

static uint64_t table_total(const es_table2_t *t)
{
    uint64_t n = 0;
    for (int c = 0; c < 9; c++)
        n += (uint64_t)t->n[0][c] + t->n[1][c];
    return n;
}

/* ---- independent references -------------------------------------------------- */

/* Pearson chi2 of the 2 x 9 table over non-empty columns, textbook form */
static double ref_chi2(const es_table2_t *t, int *df)
{
    double n0 = 0, n1 = 0, col[9];
    int cols = 0;
    for (int c = 0; c < 9; c++) {
        n0 += t->n[0][c];
        n1 += t->n[1][c];
        col[c] = (double)t->n[0][c] + t->n[1][c];
        cols += col[c] > 0;
    }
    double n = n0 + n1, s = 0.0;
    *df = (n0 > 0 && n1 > 0 && cols > 1) ? cols - 1 : 0;
    if (!*df) return 0.0;
    for (int c = 0; c < 9; c++) {
        if (col[c] == 0) continue;
        double e0 = n0 * col[c] / n, e1 = n1 * col[c] / n;
        s +=
            (t->n[0][c] - e0) * (t->n[0][c] - e0) / e0 + (t->n[1][c] - e1) * (t->n[1][c] - e1) / e1;
    }
    return s;
}

/* I(Y; X) in bits by per-cell logarithms, for a 2 x ncol table */
static double ref_mi_rows(const double *r0, const double *r1, int ncol)
{
    double n0 = 0, n1 = 0;
    for (int c = 0; c < ncol; c++) {
        n0 += r0[c];
        n1 += r1[c];
    }
    double n = n0 + n1, s = 0.0;
    if (n == 0) return 0.0;
    for (int c = 0; c < ncol; c++) {
        double col = r0[c] + r1[c];
        if (r0[c] > 0) s += r0[c] / n * log2(r0[c] * n / (n0 * col));
        if (r1[c] > 0) s += r1[c] / n * log2(r1[c] * n / (n1 * col));
    }
    return s;
}

static double ref_mi(const es_table2_t *t)
{
    double r0[9], r1[9];
    for (int c = 0; c < 9; c++) {
        r0[c] = t->n[0][c];
        r1[c] = t->n[1][c];
    }
    return ref_mi_rows(r0, r1, 9);
}

/* IG, and the df of its G-test written from its definition: IG is
 * I(Y;B|A) when I(Y;A) >= I(Y;B), the likelihood ratio of a class
 * probability per non-empty (a, b) column against one per non-empty level
 * of A, so df = columns - levels of A (B's when I(Y;B) is the larger).
 * *df_alt is the df of the other variant when the two MIs agree to rounding
 * (either df is then right), else *df. */
static double ref_ig(const es_table2_t *t, int *df, int *df_alt)
{
    double a0[3] = {0}, a1[3] = {0}, b0[3] = {0}, b1[3] = {0};
    int cols = 0, la = 0, lb = 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            a0[a] += t->n[0][a * 3 + b];
            a1[a] += t->n[1][a * 3 + b];
            b0[b] += t->n[0][a * 3 + b];
            b1[b] += t->n[1][a * 3 + b];
            cols += t->n[0][a * 3 + b] + t->n[1][a * 3 + b] > 0;
        }
    for (int k = 0; k < 3; k++) {
        la += a0[k] + a1[k] > 0;
        lb += b0[k] + b1[k] > 0;
    }
    double ia = ref_mi_rows(a0, a1, 3), ib = ref_mi_rows(b0, b1, 3);
    if (df) {
        *df = cols - (ia >= ib ? la : lb);
        *df_alt = fabs(ia - ib) <= 1e-12 ? cols - (ia >= ib ? lb : la) : *df;
    }
    return ref_mi(t) - (ia > ib ? ia : ib);
}

static double ref_k2(const es_table2_t *t)
{
    double s = 0.0;
    for (int c = 0; c < 9; c++) {
        double a = t->n[0][c], b = t->n[1][c];
        s += lgamma(a + b + 2) - lgamma(a + 1) - lgamma(b + 1);
    }
    return s;
}

/* The maximum-likelihood fit of the no-three-way model by proportional
 * fitting run to convergence (relative change 1e-14), and its G statistic.
 * The sweep order is BK, AK, AB -- the reverse of PLINK's -- which changes
 * nothing at convergence. */
static double ref_boost_mle(const es_table2_t *t)
{
    double n[3][3][2], mu[3][3][2], tot = 0.0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int k = 0; k < 2; k++) {
                n[a][b][k] = t->n[k][a * 3 + b];
                mu[a][b][k] = 1.0;
                tot += n[a][b][k];
            }
    for (int it = 0; it < 200000; it++) {
        double change = 0.0;
        for (int b = 0; b < 3; b++)
            for (int k = 0; k < 2; k++) {
                double tn = 0, tm = 0;
                for (int a = 0; a < 3; a++)
                    tn += n[a][b][k], tm += mu[a][b][k];
                for (int a = 0; a < 3; a++)
                    mu[a][b][k] = tm > 0 ? mu[a][b][k] * tn / tm : 0.0;
            }
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < 2; k++) {
                double tn = 0, tm = 0;
                for (int b = 0; b < 3; b++)
                    tn += n[a][b][k], tm += mu[a][b][k];
                for (int b = 0; b < 3; b++)
                    mu[a][b][k] = tm > 0 ? mu[a][b][k] * tn / tm : 0.0;
            }
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                double tn = n[a][b][0] + n[a][b][1], tm = mu[a][b][0] + mu[a][b][1];
                for (int k = 0; k < 2; k++) {
                    double v = tm > 0 ? mu[a][b][k] * tn / tm : 0.0;
                    change += fabs(v - mu[a][b][k]);
                    mu[a][b][k] = v;
                }
            }
        if (change <= 1e-14 * tot) break;
    }
    double g = 0.0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int k = 0; k < 2; k++)
                if (n[a][b][k] > 0) g += 2.0 * n[a][b][k] * log(n[a][b][k] / mu[a][b][k]);
    return g;
}

/* ---- chi-square tail ------------------------------------------------------------ */

static const double tail_x[] = {1e-10, 1e-3, 0.1, 0.5, 1,   2,   3.5,  7.8,  15,  30,
                                60,    100,  200, 400, 700, 900, 1100, 1300, 1380};

static void test_chi2_sf_closed_forms(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof tail_x / sizeof tail_x[0]; i++) {
        double x = tail_x[i], y = x / 2;
        double p2 = exp(-y), p4 = exp(-y) * (1 + y);
        double p1 = erfc(sqrt(y)), p3 = erfc(sqrt(y)) + sqrt(2 * x / M_PI) * exp(-y);
        if (p2 > 1e-300) CHECK_REL(es_chi2_sf(x, 2), p2, 1e-13);
        if (p4 > 1e-300) CHECK_REL(es_chi2_sf(x, 4), p4, 1e-13);
        if (p1 > 1e-300) CHECK_REL(es_chi2_sf(x, 1), p1, 1e-12);
        if (p3 > 1e-300) CHECK_REL(es_chi2_sf(x, 3), p3, 1e-12);
        /* -log10 p of df 2 is exactly x / (2 ln 10) at every x */
        CHECK_REL(es_chi2_log10sf(x, 2), y / M_LN10, 1e-13);
    }
    /* far beyond underflow: still exact for df 2 */
    CHECK_REL(es_chi2_log10sf(1e6, 2), 5e5 / M_LN10, 1e-13);
    CHECK_REL(es_chi2_log10sf(1e12, 2), 5e11 / M_LN10, 1e-13);
    /* df 1: ln erfc(z) = -z^2 - ln(z sqrt(pi)) + ln(1 - 1/(2z^2) + 3/(4z^4) - 15/(8z^6)) */
    for (double x = 2000; x < 1e7; x *= 3.7) {
        double z2 = x / 2, z = sqrt(z2);
        double corr = 1 - 1 / (2 * z2) + 3 / (4 * z2 * z2) - 15 / (8 * z2 * z2 * z2);
        double want = (z2 + log(z * sqrt(M_PI)) - log(corr)) / M_LN10;
        CHECK_REL(es_chi2_log10sf(x, 1), want, 1e-12);
    }
}

/* ln Q for even df = 2m by log-sum-exp of -y + i ln y - ln i!, i < m
 * (the i = 0 term is 0, so the largest term mx is >= 0) */
static double ref_ln_q_even(double x, int df)
{
    double y = x / 2, mx = 0.0;
    int m = df / 2;
    for (int i = 1; i < m; i++) {
        double t = i * log(y) - lgamma(i + 1.0);
        if (t > mx) mx = t;
    }
    double s = exp(-mx);
    for (int i = 1; i < m; i++)
        s += exp(i * log(y) - lgamma(i + 1.0) - mx);
    return -y + mx + log(s);
}

static void test_chi2_sf_general(void **state)
{
    (void)state;
    static const int dfs[] = {6, 8, 10, 66, 100, 200};
    for (size_t d = 0; d < sizeof dfs / sizeof dfs[0]; d++) {
        int df = dfs[d];
        for (double x = 0.05; x < 5000; x *= 1.31) {
            double lnq = ref_ln_q_even(x, df);
            double q = exp(lnq);
            if (q > 1e-300 && q < 0.9) {
                CHECK_REL(es_chi2_sf(x, df), q, 1e-12);
                CHECK_REL(es_chi2_log10sf(x, df), -lnq / M_LN10, 1e-12);
            } else if (q <= 1e-300) {
                CHECK_REL(es_chi2_log10sf(x, df), -lnq / M_LN10, 1e-12);
            }
            if (q >= 0.9) CHECK_REL(es_chi2_sf(x, df), q, 1e-13);
        }
    }
    /* near p = 1, -log10 p keeps its relative accuracy: for df 2 it is x/(2 ln 10) */
    for (double x = 1e-14; x < 1; x *= 10)
        CHECK_REL(es_chi2_log10sf(x, 2), x / 2 / M_LN10, 1e-13);
    /* and for df 4: -log10(e^-y (1+y)) = (y - log1p(y)) / ln 10 */
    for (double x = 1e-7; x < 1; x *= 10) {
        double y = x / 2;
        CHECK_REL(es_chi2_log10sf(x, 4), (y - log1p(y)) / M_LN10, 1e-9);
    }
}

static void test_chi2_log10sf_consistent(void **state)
{
    (void)state;
    for (int df = 1; df <= 12; df++) {
        double prev = 0.0;
        for (double x = 1e-6; x < 1e5; x *= 1.07) {
            double p = es_chi2_sf(x, df), lg = es_chi2_log10sf(x, df);
            assert_true(isfinite(lg));
            assert_true(lg > prev); /* strictly increasing in x */
            prev = lg;
            if (p > 1e-290 && p < 0.9) CHECK_REL(lg, -log10(p), 1e-12);
            assert_true(p >= 0.0 && p <= 1.0);
        }
    }
    /* edge arguments */
    assert_true(es_chi2_sf(0.0, 4) == 1.0);
    assert_true(es_chi2_sf(-3.0, 4) == 1.0);
    assert_true(es_chi2_log10sf(0.0, 4) == 0.0);
    assert_true(es_chi2_sf(5.0, 0) == 1.0);
    assert_true(es_chi2_log10sf(5.0, 0) == 0.0);
    assert_true(es_chi2_sf(INFINITY, 4) == 0.0);
    assert_true(isnan(es_chi2_sf(NAN, 4)));
}

/* ---- chi2, MI, IG, K2 ------------------------------------------------------------- */

static void test_hand_tables(void **state)
{
    (void)state;
    es_table2_t t;
    int df;
    /* two non-empty columns: controls (10, 20), cases (20, 10); E = 15 everywhere,
     * chi2 = 4 * 5^2 / 15 = 20/3 with 1 df */
    memset(&t, 0, sizeof t);
    t.n[0][0] = 10;
    t.n[0][4] = 20;
    t.n[1][0] = 20;
    t.n[1][4] = 10;
    CHECK_REL(es_stat_chi2(&t, &df), 20.0 / 3.0, 1e-14);
    assert_int_equal(df, 1);
    /* MI = 1 - H(1/3) bits: each column is a 1/3 - 2/3 split of a fair class */
    double h = -(1.0 / 3) * log2(1.0 / 3) - (2.0 / 3) * log2(2.0 / 3);
    CHECK_REL(es_stat_mi(&t, &df), 1.0 - h, 1e-13);
    assert_int_equal(df, 1);
    /* A and B are both 0 or 1 together, so I(Y;A) = I(Y;B) = I(Y;A,B): IG = 0 */
    CHECK_CLOSE(es_stat_ig(&t, &df), 0.0, 0.0, 1e-14);
    /* K2 = 2 [ln 31! - ln 10! - ln 20!] */
    CHECK_REL(es_stat_k2(&t), 2 * (lgamma(32) - lgamma(11) - lgamma(21)), 1e-13);

    /* a pure interaction: class = [a == b] on a, b in {0, 1}; no marginal
     * information at all, IG = MI = 1 bit */
    memset(&t, 0, sizeof t);
    t.n[1][0] = 25;
    t.n[0][1] = 25;
    t.n[0][3] = 25;
    t.n[1][4] = 25;
    CHECK_REL(es_stat_mi(&t, &df), 1.0, 1e-14);
    CHECK_REL(es_stat_ig(&t, &df), 1.0, 1e-14);
    CHECK_REL(es_stat_chi2(&t, &df), 100.0, 1e-14);
    assert_int_equal(df, 3);
    /* IG's df: 4 columns, A and B with 2 levels each: 4 - 2 */
    es_stat_ig(&t, &df);
    assert_int_equal(df, 2);

    /* IG's df in a full table is (2-1)(9-1) - (2-1)(3-1) = 6, not chi2's 8 */
    for (int c = 0; c < 9; c++) {
        t.n[0][c] = 10 + c;
        t.n[1][c] = 20 - c * (c % 3);
    }
    es_stat_ig(&t, &df);
    assert_int_equal(df, 6);
    es_stat_chi2(&t, &df);
    assert_int_equal(df, 8);
    /* A's level 2 empty (columns 6-8): 6 columns; B has the larger MI (its
     * level 0 holds the cases) and 3 levels: 6 - 3 */
    memset(&t, 0, sizeof t);
    for (int c = 0; c < 6; c++) {
        t.n[0][c] = c % 3 == 0 ? 2 : 30;
        t.n[1][c] = c % 3 == 0 ? 30 : 2 + c;
    }
    es_stat_ig(&t, &df);
    assert_int_equal(df, 3);
    /* the same with A the stronger one (its level 0 holds the cases): 6 - 2 */
    memset(&t, 0, sizeof t);
    for (int c = 0; c < 6; c++) {
        t.n[0][c] = c < 3 ? 2 : 30;
        t.n[1][c] = c < 3 ? 30 : 2 + c;
    }
    es_stat_ig(&t, &df);
    assert_int_equal(df, 4);
    /* B a function of A (b = a): 3 columns, 3 levels each, df 0, p 1 */
    memset(&t, 0, sizeof t);
    for (int a = 0; a < 3; a++) {
        t.n[0][a * 4] = 10 + 5 * a;
        t.n[1][a * 4] = 30 - 7 * a;
    }
    es_stat_ig(&t, &df);
    assert_int_equal(df, 0);
    es_stat_result_t rr;
    es_stat_compute(ES_STAT_IG, &t, &rr);
    assert_true(rr.df == 0 && rr.p == 1.0 && rr.log10p == 0.0);
    /* a tie: neither variant says anything of the class (every column 1:1),
     * A with 3 levels, B with 2: the fewer levels, df 6 - 2 */
    memset(&t, 0, sizeof t);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 2; b++) t.n[0][a * 3 + b] = t.n[1][a * 3 + b] = 5 + a + b;
    CHECK_CLOSE(es_stat_ig(&t, &df), 0.0, 0.0, 1e-14);
    assert_int_equal(df, 4);

    /* the references on random tables */
    uint64_t rng = 42;
    for (int it = 0; it < 20000; it++) {
        table_random(&rng, &t, it);
        int dref, d1, d2, d3;
        double c = ref_chi2(&t, &dref);
        CHECK_CLOSE(es_stat_chi2(&t, &d1), c, 1e-11, 1e-12);
        assert_int_equal(d1, dref);
        double n = (double)table_total(&t);
        if (dref > 0) {
            int dig, dig_alt;
            CHECK_CLOSE(es_stat_mi(&t, &d2), ref_mi(&t), 1e-10, 1e-13 * (1 + log(n)));
            double ig = ref_ig(&t, &dig, &dig_alt);
            CHECK_CLOSE(es_stat_ig(&t, &d3), ig, 1e-10, 1e-13 * (1 + log(n)));
            assert_int_equal(d2, dref);
            if (d3 != dig) assert_int_equal(d3, dig_alt);
            assert_true(d3 >= 0 && d3 <= 6);
        }
        CHECK_CLOSE(es_stat_k2(&t), ref_k2(&t), 1e-12, 1e-9);
    }
}

/* a table too large for the lookup tables takes the computed path */
static void test_large_counts(void **state)
{
    (void)state;
    uint64_t rng = 7;
    es_table2_t t, big;
    for (int it = 0; it < 500; it++) {
        table_realistic(&rng, &t, 300 + tu_randn(&rng, 1000), 0.02);
        uint32_t f = 100 + tu_randn(&rng, 5000);
        for (int y = 0; y < 2; y++)
            for (int c = 0; c < 9; c++)
                big.n[y][c] = t.n[y][c] * f;
        int df, dfb;
        double c = es_stat_chi2(&t, &df);
        /* chi2 scales with N, MI and IG are proportions only */
        CHECK_CLOSE(es_stat_chi2(&big, &dfb), c * f, 1e-11, 1e-9);
        assert_int_equal(df, dfb);
        CHECK_CLOSE(es_stat_mi(&big, &dfb), es_stat_mi(&t, &df), 1e-9, 1e-13);
        CHECK_CLOSE(es_stat_ig(&big, &dfb), es_stat_ig(&t, &df), 1e-9, 1e-13);
        CHECK_CLOSE(es_stat_k2(&big), ref_k2(&big), 1e-12, 1e-6);
        /* boost: the MLE's G scales with N; PLINK's stopping rule is absolute */
        double gb = es_stat_boost(&big), g = es_stat_boost(&t);
        CHECK_CLOSE(gb, g * f, 1e-5, 1e-3 * f);
        assert_true(es_stat_boost_bound(&big) >= gb);
    }
}

static void test_stat_compute(void **state)
{
    (void)state;
    uint64_t rng = 99;
    es_table2_t t;
    es_stat_result_t r;
    for (int it = 0; it < 5000; it++) {
        table_random(&rng, &t, it);
        double n = (double)table_total(&t);
        int df;
        es_stat_compute(ES_STAT_CHI2, &t, &r);
        assert_true(r.stat == es_stat_chi2(&t, &df) && r.df == df);
        if (df > 0 && r.stat > 0) {
            assert_true(r.p == es_chi2_sf(r.stat, df));
            assert_true(r.log10p == es_chi2_log10sf(r.stat, df));
        } else {
            assert_true(r.p == 1.0 && r.log10p == 0.0);
        }
        es_stat_compute(ES_STAT_MI, &t, &r);
        assert_true(r.stat == es_stat_mi(&t, &df) && r.df == df);
        if (df > 0 && r.stat > 0) CHECK_REL(r.p, es_chi2_sf(2 * n * M_LN2 * r.stat, df), 1e-12);
        es_stat_compute(ES_STAT_IG, &t, &r);
        assert_true(r.stat == es_stat_ig(&t, &df) && r.df == df);
        if (r.stat <= 0)
            assert_true(r.p == 1.0 && r.log10p == 0.0);
        else
            CHECK_REL(r.p, es_chi2_sf(2 * n * M_LN2 * r.stat, df), 1e-12);
        es_stat_compute(ES_STAT_K2, &t, &r);
        assert_true(r.stat == es_stat_k2(&t) && r.df == 0 && isnan(r.p) && isnan(r.log10p));
        es_stat_compute(ES_STAT_BOOST, &t, &r);
        assert_true(r.df == 0 || r.df == 1 || r.df == 2 || r.df == 4);
        assert_true(isfinite(r.stat) && r.stat >= 0 && isfinite(r.log10p));
        if (r.df) {
            assert_true(r.stat == es_stat_boost(&t));
            if (r.stat > 0) assert_true(r.p == es_chi2_sf(r.stat, r.df));
        } else {
            assert_true(r.stat == 0 && r.p == 1.0 && r.log10p == 0.0);
        }
    }
}

static void check_degenerate(const es_table2_t *t, int boost_too)
{
    es_stat_result_t r;
    for (int s = ES_STAT_BOOST; s <= ES_STAT_IG; s++) {
        if (s == ES_STAT_BOOST && !boost_too) continue;
        es_stat_compute((es_stat_t)s, t, &r);
        assert_true(r.stat == 0.0);
        assert_true(r.p == 1.0);
        assert_true(r.log10p == 0.0);
        assert_int_equal(r.df, 0);
    }
}

static void test_degenerate(void **state)
{
    (void)state;
    es_table2_t t;
    es_stat_result_t r;
    memset(&t, 0, sizeof t);
    check_degenerate(&t, 1); /* empty */
    assert_true(es_stat_k2(&t) == 0.0);
    es_stat_compute(ES_STAT_K2, &t, &r);
    assert_true(r.stat == 0.0 && r.df == 0 && isnan(r.p));
    assert_true(es_stat_boost_bound(&t) >= 0.0);
    /* one non-empty column */
    t.n[0][4] = 17;
    t.n[1][4] = 30;
    check_degenerate(&t, 1);
    /* one class only */
    memset(&t, 0, sizeof t);
    for (int c = 0; c < 9; c++)
        t.n[1][c] = 3 + c;
    check_degenerate(&t, 0);
    /* BOOST: two empty levels of A (PLINK prints nan), in both classes */
    memset(&t, 0, sizeof t);
    for (int b = 0; b < 3; b++) {
        t.n[0][3 + b] = 5 + b;
        t.n[1][3 + b] = 9 - b;
    }
    es_stat_compute(ES_STAT_BOOST, &t, &r);
    assert_true(r.stat == 0.0 && r.p == 1.0 && r.log10p == 0.0 && r.df == 0);
    assert_true(es_stat_boost(&t) == 0.0);
    /* ... and of B */
    memset(&t, 0, sizeof t);
    for (int a = 0; a < 3; a++) {
        t.n[0][a * 3 + 2] = 5 + a;
        t.n[1][a * 3 + 2] = 9 - a;
    }
    es_stat_compute(ES_STAT_BOOST, &t, &r);
    assert_true(r.stat == 0.0 && r.df == 0);
}

static void test_boost_df(void **state)
{
    (void)state;
    es_table2_t t;
    es_stat_result_t r;
    uint64_t rng = 5;
    for (int it = 0; it < 300; it++) {
        for (int y = 0; y < 2; y++)
            for (int c = 0; c < 9; c++)
                t.n[y][c] = 1 + tu_randn(&rng, 30);
        es_stat_compute(ES_STAT_BOOST, &t, &r);
        assert_int_equal(r.df, 4);
        int ea = tu_randn(&rng, 3), eb = tu_randn(&rng, 3);
        for (int y = 0; y < 2; y++)
            for (int b = 0; b < 3; b++)
                t.n[y][ea * 3 + b] = 0; /* empty level of A */
        es_stat_compute(ES_STAT_BOOST, &t, &r);
        assert_int_equal(r.df, 2);
        for (int y = 0; y < 2; y++)
            for (int a = 0; a < 3; a++)
                t.n[y][a * 3 + eb] = 0; /* and of B */
        es_stat_compute(ES_STAT_BOOST, &t, &r);
        assert_int_equal(r.df, 1);
        assert_true(r.stat >= 0 && isfinite(r.stat));
        assert_true(r.stat >= ref_boost_mle(&t) - 1e-7 * (1 + r.stat));
        assert_true(r.stat <= es_stat_boost_bound(&t));
        assert_true(r.stat <= es_stat_boost_bound_mi(&t));
    }
}

/* ---- BOOST ---------------------------------------------------------------------- */

static void test_boost_exact_cases(void **state)
{
    (void)state;
    es_table2_t t;
    /* counts of the form f(a) g(b) h(k) fit the model exactly: G = 0 */
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            t.n[0][a * 3 + b] = (uint32_t)((a + 1) * (b + 2) * 3);
            t.n[1][a * 3 + b] = (uint32_t)((a + 1) * (b + 2) * 5);
        }
    CHECK_CLOSE(es_stat_boost(&t), 0.0, 0.0, 1e-9);
    /* the pure interaction table of test_hand_tables: every two-way margin is
     * uniform, so the fit is 12.5 in each of the 8 cells and G = 2 * 100 ln 2 */
    memset(&t, 0, sizeof t);
    t.n[1][0] = 25;
    t.n[0][1] = 25;
    t.n[0][3] = 25;
    t.n[1][4] = 25;
    CHECK_REL(es_stat_boost(&t), 200.0 * M_LN2, 1e-12);
    CHECK_REL(ref_boost_mle(&t), 200.0 * M_LN2, 1e-12);
}

static void test_boost_vs_mle(void **state)
{
    (void)state;
    uint64_t rng = 2024;
    es_table2_t t;
    double worst = 0.0, worst_dense = 0.0;
    for (int it = 0; it < 4000; it++) {
        table_random(&rng, &t, it);
        es_stat_result_t r;
        es_stat_compute(ES_STAT_BOOST, &t, &r);
        if (!r.df) continue;
        double mle = ref_boost_mle(&t), g = r.stat;
        /* PLINK's early-stopped fit is a member of the model family: its G
         * cannot beat the optimum's, nor exceed the Kirkwood bound */
        assert_true(g >= mle - 1e-7 * (1 + mle));
        assert_true(g <= es_stat_boost_bound(&t));
        assert_true(g <= es_stat_boost_bound_mi(&t));
        if (g - mle > worst) worst = g - mle;
        /* and with no small cell the stopping rule leaves it very close */
        uint32_t mn = UINT32_MAX;
        for (int y = 0; y < 2; y++)
            for (int c = 0; c < 9; c++)
                mn = t.n[y][c] < mn ? t.n[y][c] : mn;
        if (mn >= 10) {
            CHECK_CLOSE(g, mle, 1e-7, 1e-7);
            if (fabs(g - mle) > worst_dense) worst_dense = fabs(g - mle);
        }
    }
    print_message("BOOST: early-stopped G above the MLE by up to %.3g (%.3g without small cells)\n",
                  worst, worst_dense);
}

static void test_boost_bound(void **state)
{
    (void)state;
    uint64_t rng = 31337;
    es_table2_t t;
    long n = 0;
    for (int it = 0; it < 200000; it++) {
        table_random(&rng, &t, it);
        double g = es_stat_boost(&t), b = es_stat_boost_bound(&t), bm = es_stat_boost_bound_mi(&t);
        /* the [AB][K] bound is G of the mutual information, plus a margin */
        es_stat_result_t mi;
        es_stat_compute(ES_STAT_MI, &t, &mi);
        uint64_t tot = 0;
        for (int y = 0; y < 2; y++)
            for (int c = 0; c < 9; c++) tot += t.n[y][c];
        double gmi = 2.0 * (double)tot * M_LN2 * mi.stat, margin = 2e-9 * (double)tot * (log((double)tot + 1) + 1);
        assert_true(bm >= gmi - 1e-9 * (1 + gmi));
        CHECK_CLOSE(bm, gmi, 1e-9, margin + 1e-8);
        if (!(bm >= g)) {
            print_error("[AB][K] bound %.17g < exact %.17g on table", bm, g);
            for (int y = 0; y < 2; y++)
                for (int c = 0; c < 9; c++)
                    print_error(" %u", t.n[y][c]);
            print_error("\n");
            fail();
        }
        if (!(b >= g)) {
            print_error("bound %.17g < exact %.17g on table", b, g);
            for (int y = 0; y < 2; y++)
                for (int c = 0; c < 9; c++)
                    print_error(" %u", t.n[y][c]);
            print_error("\n");
            fail();
        }
        n++;
    }
    /* a hand-made worst case: exact KSA (A independent of B and class), large N */
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int k = 0; k < 2; k++)
                t.n[k][a * 3 + b] = (uint32_t)((a + 1) * 1000 * (b * 2 + k + 3) * 7);
    assert_true(es_stat_boost_bound(&t) >= es_stat_boost(&t));
    assert_true(es_stat_boost_bound_mi(&t) >= es_stat_boost(&t));
    /* and the [AB][K] bound's own worst case: class independent of the
     * genotype pair (G_[AB][K] = 0), with and without interaction in AB */
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int k = 0; k < 2; k++)
                t.n[k][a * 3 + b] = (uint32_t)((a == b ? 40 : 3 + a * b) * (k + 2) * 11);
    assert_true(es_stat_boost_bound_mi(&t) >= es_stat_boost(&t));
    assert_true(es_stat_boost(&t) < 1e-6);
    print_message("BOOST bounds held on %ld tables\n", n);
}

/* The run form of the [AB][K] bound (AVX-512 eight pairs a vector where the
 * CPU has it): bit for bit the scalar function, on runs of every length up to
 * ES_RUN2, with tables too large for the lookups mixed in. */
static void test_boost_bound_mi_run(void **state)
{
    (void)state;
    uint64_t rng = 4242;
    static es_table2_soa_t s;
    double got[ES_RUN2];
    es_table2_t t[ES_RUN2];
    long n = 0;
    for (int round = 0; round < 600; round++) {
        uint32_t nq = 1 + (uint32_t)(round % ES_RUN2);
        memset(&s, 0xa5, sizeof s);
        for (uint32_t q = 0; q < nq; q++) {
            table_random(&rng, &t[q], round + (int)q);
            if ((round + q) % 23 == 5) /* total at or above ES_STATS_TAB */
                for (int c = 0; c < 9; c++) t[q].n[c % 2][c] += 9000 + (uint32_t)c;
            for (int y = 0; y < 2; y++)
                for (int c = 0; c < 9; c++) s.n[y][c][q] = t[q].n[y][c];
        }
        es_stat_boost_bound_mi_run(&s, nq, got);
        for (uint32_t q = 0; q < nq; q++, n++) {
            double want = es_stat_boost_bound_mi(&t[q]);
            if (memcmp(&got[q], &want, sizeof want))
                fail_msg("run of %u, pair %u: %.17g, want %.17g", nq, q, got[q], want);
        }
    }
    print_message("[AB][K] bound of runs: %ld pairs bit for bit\n", n);
}

/* ---- invariances -------------------------------------------------------------------- */

static void transform(const es_table2_t *t, es_table2_t *u, int swap_ab, const int *pa,
                      const int *pb, int swap_y)
{
    for (int y = 0; y < 2; y++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                int na = pa[a], nb = pb[b];
                int cell = swap_ab ? nb * 3 + na : na * 3 + nb;
                u->n[swap_y ? 1 - y : y][cell] = t->n[y][a * 3 + b];
            }
}

static void test_invariances(void **state)
{
    (void)state;
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    uint64_t rng = 77;
    es_table2_t t, u;
    for (int it = 0; it < 6000; it++) {
        table_random(&rng, &t, it);
        int swap_ab = it & 1, swap_y = (it >> 1) & 1;
        const int *pa = perms[tu_randn(&rng, 6)], *pb = perms[tu_randn(&rng, 6)];
        transform(&t, &u, swap_ab, pa, pb, swap_y);
        int d1, d2;
        CHECK_CLOSE(es_stat_chi2(&u, &d2), es_stat_chi2(&t, &d1), 1e-12, 1e-12);
        assert_int_equal(d1, d2);
        CHECK_CLOSE(es_stat_mi(&u, &d2), es_stat_mi(&t, &d1), 1e-10, 1e-13);
        CHECK_CLOSE(es_stat_ig(&u, &d2), es_stat_ig(&t, &d1), 1e-10, 1e-13);
        CHECK_CLOSE(es_stat_k2(&u), es_stat_k2(&t), 1e-12, 1e-10);
        es_stat_result_t r1, r2;
        es_stat_compute(ES_STAT_BOOST, &t, &r1);
        es_stat_compute(ES_STAT_BOOST, &u, &r2);
        assert_int_equal(r1.df, r2.df);
        /* Relabelling levels or classes permutes PLINK's sweeps and changes
         * only the rounding of three-term sums (which can move the stopping
         * test by a sweep on large tables).  Swapping the variants reorders
         * the sweeps (AB, BK, AK): the same optimum, but on sparse tables a
         * different early-stopped value, so there only dense tables compare. */
        uint32_t mn = UINT32_MAX;
        for (int y = 0; y < 2; y++)
            for (int c = 0; c < 9; c++)
                mn = t.n[y][c] < mn ? t.n[y][c] : mn;
        if (!swap_ab)
            CHECK_CLOSE(r2.stat, r1.stat, 1e-6, 1e-9);
        else if (mn >= 10)
            CHECK_CLOSE(r2.stat, r1.stat, 1e-7, 1e-7);
        CHECK_CLOSE(es_stat_boost_bound(&u), es_stat_boost_bound(&t), 1e-10, 1e-8);
    }
}

/* ---- threads and names ------------------------------------------------------------------ */

static void test_threads_first_call(void **state)
{
    (void)state;
    enum { NT = 64 };
    static es_table2_t tabs[NT];
    static double par[NT][6], ser[NT][6];
    uint64_t rng = 1;
    for (int i = 0; i < NT; i++)
        table_realistic(&rng, &tabs[i], 500 + 37 * i, 0.01);
#pragma omp parallel for schedule(static, 1) num_threads(8)
    for (int i = 0; i < NT; i++) {
        int df;
        par[i][0] = es_stat_boost(&tabs[i]);
        par[i][1] = es_stat_boost_bound(&tabs[i]);
        par[i][2] = es_stat_mi(&tabs[i], &df);
        par[i][3] = es_stat_ig(&tabs[i], &df);
        par[i][4] = es_stat_k2(&tabs[i]);
        par[i][5] = es_chi2_log10sf(3.0 + i, 3 + i % 20);
    }
    for (int i = 0; i < NT; i++) {
        int df;
        ser[i][0] = es_stat_boost(&tabs[i]);
        ser[i][1] = es_stat_boost_bound(&tabs[i]);
        ser[i][2] = es_stat_mi(&tabs[i], &df);
        ser[i][3] = es_stat_ig(&tabs[i], &df);
        ser[i][4] = es_stat_k2(&tabs[i]);
        ser[i][5] = es_chi2_log10sf(3.0 + i, 3 + i % 20);
    }
    assert_memory_equal(par, ser, sizeof par);
}

static void test_names(void **state)
{
    (void)state;
    static const char *names[] = {"boost", "chi2", "mi", "ig", "k2"};
    es_stat_t s;
    for (int i = 0; i < 5; i++) {
        assert_int_equal(es_stat_parse(names[i], &s), ES_OK);
        assert_int_equal((int)s, i);
        assert_string_equal(es_stat_name(s), names[i]);
        assert_int_equal(es_stat_higher_is_better(s), s != ES_STAT_K2);
        assert_int_equal(es_stat_has_p(s), s != ES_STAT_K2);
    }
    es_log_set_level(ES_LOG_QUIET);
    assert_int_equal(es_stat_parse("chisq", &s), ES_ERR_ARG);
    assert_int_equal(es_stat_parse("", &s), ES_ERR_ARG);
    assert_int_equal(es_stat_parse(NULL, &s), ES_ERR_ARG);
    es_log_set_level(ES_LOG_WARN);
}

/* Triples: es_stat3_value() against the textbook forms (expected counts,
 * per-cell logarithms, lgamma) on random 2x27 tables, and es_stat3_batch()
 * bit for bit against es_stat3_value() on runs of tables of every shape:
 * empty columns and classes, one column, counts around the end of the
 * lookup tables (65,536), run lengths that are not a multiple of 8. */
static double ref3_chi2(const es_table3_t *t, int *df)
{
    double n0 = 0, n1 = 0;
    int cols = 0;
    for (int c = 0; c < 27; c++) {
        n0 += t->n[0][c];
        n1 += t->n[1][c];
        cols += t->n[0][c] + t->n[1][c] > 0;
    }
    *df = n0 > 0 && n1 > 0 && cols > 1 ? cols - 1 : 0;
    if (!*df) return 0.0;
    double n = n0 + n1, x = 0;
    for (int c = 0; c < 27; c++) {
        double nc = (double)t->n[0][c] + t->n[1][c];
        if (nc == 0) continue;
        double e0 = nc * n0 / n, e1 = nc * n1 / n;
        x += (t->n[0][c] - e0) * (t->n[0][c] - e0) / e0 + (t->n[1][c] - e1) * (t->n[1][c] - e1) / e1;
    }
    return x;
}

static double ref3_mi_bits(const es_table3_t *t)
{
    double n0 = 0, n1 = 0;
    for (int c = 0; c < 27; c++) n0 += t->n[0][c], n1 += t->n[1][c];
    double n = n0 + n1, mi = 0;
    for (int y = 0; y < 2; y++)
        for (int c = 0; c < 27; c++) {
            double v = t->n[y][c], nc = (double)t->n[0][c] + t->n[1][c];
            if (v > 0) mi += v / n * log(v * n / (nc * (y ? n1 : n0)));
        }
    return mi / log(2.0);
}

static double ref3_k2(const es_table3_t *t)
{
    double k = 0;
    for (int c = 0; c < 27; c++)
        k += lgamma((double)t->n[0][c] + t->n[1][c] + 2) - lgamma(t->n[0][c] + 1.0) - lgamma(t->n[1][c] + 1.0);
    return k;
}

static void random_table3(es_table3_t *t, uint64_t *rng, int shape)
{
    uint32_t top = shape == 3 ? 5000 : shape == 4 ? 2427 : 60;
    for (int y = 0; y < 2; y++)
        for (int c = 0; c < 27; c++) {
            uint32_t v = (uint32_t)(tu_rand(rng) % (top + 1));
            if (shape == 1 && tu_rand(rng) % 3) v = 0;           /* sparse columns */
            if (shape == 2 && y == 1) v = 0;                        /* one class only */
            if (shape == 5 && c != 13) v = 0;                       /* one column */
            if (shape == 6 && c / 9 != c / 3 % 3) v = 0;            /* B = A: AC and BC tie */
            t->n[y][c] = v;
        }
}

static void test_triple_stats(void **state)
{
    (void)state;
    uint64_t rng = 77;
    es_table3_soa_t *soa = aligned_alloc(64, sizeof *soa);
    assert_non_null(soa);
    static const es_stat_t stats[] = {ES_STAT_CHI2, ES_STAT_MI, ES_STAT_IG, ES_STAT_K2};
    for (int round = 0; round < 60; round++) {
        uint32_t nq = 1 + (uint32_t)(tu_rand(&rng) % ES_RUN3);
        es_table3_t t[ES_RUN3];
        for (uint32_t q = 0; q < nq; q++) random_table3(&t[q], &rng, (int)((round + q) % 7));
        if (round % 7 == 3) { /* totals just below, at and above the lookup tables' end */
            memset(&t[0], 0, sizeof t[0]);
            t[0].n[0][0] = 30000, t[0].n[1][26] = 35534, t[0].n[1][1] = (uint32_t)(round % 3);
        }
        for (uint32_t q = 0; q < nq; q++)
            for (int y = 0; y < 2; y++)
                for (int c = 0; c < 27; c++) soa->n[y][c][q] = t[q].n[y][c];
        for (size_t si = 0; si < sizeof stats / sizeof stats[0]; si++) {
            double st[ES_RUN3];
            int df[ES_RUN3];
            uint32_t n[ES_RUN3];
            es_stat3_batch(stats[si], soa, nq, st, df, n);
            for (uint32_t q = 0; q < nq; q++) {
                es_stat_result_t r;
                es_stat3_value(stats[si], &t[q], &r);
                uint32_t sum = 0;
                for (int c = 0; c < 27; c++) sum += t[q].n[0][c] + t[q].n[1][c];
                if (memcmp(&st[q], &r.stat, sizeof r.stat) || df[q] != r.df || n[q] != sum)
                    fail_msg("round %d stat %d triple %u: batch %.17g df %d n %u, table %.17g df %d n %u", round,
                             (int)stats[si], q, st[q], df[q], n[q], r.stat, r.df, sum);
                int rdf;
                if (stats[si] == ES_STAT_CHI2) {
                    CHECK_REL(r.stat, ref3_chi2(&t[q], &rdf), 1e-11);
                    assert_int_equal(r.df, rdf);
                } else if (stats[si] == ES_STAT_MI) {
                    if (ref3_chi2(&t[q], &rdf) > 0) CHECK_REL(r.stat, ref3_mi_bits(&t[q]), 1e-9);
                    else assert_true(r.stat == 0.0);
                } else if (stats[si] == ES_STAT_K2) {
                    CHECK_REL(r.stat, ref3_k2(&t[q]), 1e-11);
                }
            }
        }
    }
    free(soa);
}

/* ig with its pair parts given (the CPU scan's path where no call is
 * missing): runs of triples (i, j, k_q) counted from random genotypes, with
 * ties among the pairs (k = i, k = j) and sparse genotypes, give
 * es_stat3_value()'s stat and df bit for bit. */
static void test_triple_ig_pairs(void **state)
{
    (void)state;
    uint64_t rng = 91;
    es_table3_soa_t *soa = aligned_alloc(64, sizeof *soa);
    assert_non_null(soa);
    for (int round = 0; round < 40; round++) {
        uint32_t ns = 20 + (uint32_t)(tu_rand(&rng) % (round % 4 == 0 ? 3000 : 300));
        uint32_t nq = 1 + (uint32_t)(tu_rand(&rng) % ES_RUN3);
        uint8_t *g = malloc((size_t)(2 + nq) * ns), *y = malloc(ns);
        assert_non_null(g);
        assert_non_null(y);
        for (uint32_t s2 = 0; s2 < ns; s2++) y[s2] = (uint8_t)(round % 5 == 1 ? 0 : tu_rand(&rng) % 2);
        for (uint32_t v = 0; v < 2 + nq; v++)
            for (uint32_t s2 = 0; s2 < ns; s2++) {
                uint32_t r = (uint32_t)(tu_rand(&rng) % 100);
                g[(size_t)v * ns + s2] = (uint8_t)(round % 3 == 2 ? (r < 80 ? 0 : r < 97 ? 1 : 2) : r % 3);
            }
        /* some k equal i or j: pairs that tie */
        if (nq > 2) {
            memcpy(g + (size_t)2 * ns, g, ns);
            memcpy(g + (size_t)3 * ns, g + ns, ns);
        }
        es_table2_t tab;
        es_ig_pair_t ab, ik[ES_RUN3], jk[ES_RUN3];
        es_table3_t t[ES_RUN3];
        memset(&tab, 0, sizeof tab);
        for (uint32_t s2 = 0; s2 < ns; s2++) tab.n[y[s2]][g[s2] * 3 + g[ns + s2]]++;
        es_stat3_ig_pair(&tab, &ab);
        for (uint32_t q = 0; q < nq; q++) {
            const uint8_t *gk = g + (size_t)(2 + q) * ns;
            es_table2_t ti, tj;
            memset(&ti, 0, sizeof ti);
            memset(&tj, 0, sizeof tj);
            memset(&t[q], 0, sizeof t[q]);
            for (uint32_t s2 = 0; s2 < ns; s2++) {
                ti.n[y[s2]][g[s2] * 3 + gk[s2]]++;
                tj.n[y[s2]][g[ns + s2] * 3 + gk[s2]]++;
                t[q].n[y[s2]][g[s2] * 9 + g[ns + s2] * 3 + gk[s2]]++;
            }
            es_stat3_ig_pair(&ti, &ik[q]);
            es_stat3_ig_pair(&tj, &jk[q]);
            for (int yy = 0; yy < 2; yy++)
                for (int c = 0; c < 27; c++) soa->n[yy][c][q] = t[q].n[yy][c];
        }
        double st[ES_RUN3];
        int df[ES_RUN3];
        uint32_t n[ES_RUN3];
        es_stat3_batch_ig(soa, nq, &ab, ik, jk, st, df, n);
        for (uint32_t q = 0; q < nq; q++) {
            es_stat_result_t r;
            es_stat3_value(ES_STAT_IG, &t[q], &r);
            if (memcmp(&st[q], &r.stat, sizeof r.stat) || df[q] != r.df || n[q] != ns)
                fail_msg("round %d triple %u: given pairs %.17g df %d n %u, table %.17g df %d n %u", round, q, st[q],
                         df[q], n[q], r.stat, r.df, ns);
        }
        free(g);
        free(y);
    }
    free(soa);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_first_call), /* first: the tables are built here */
        cmocka_unit_test(test_chi2_sf_closed_forms),
        cmocka_unit_test(test_chi2_sf_general),
        cmocka_unit_test(test_chi2_log10sf_consistent),
        cmocka_unit_test(test_hand_tables),
        cmocka_unit_test(test_large_counts),
        cmocka_unit_test(test_stat_compute),
        cmocka_unit_test(test_degenerate),
        cmocka_unit_test(test_boost_df),
        cmocka_unit_test(test_boost_exact_cases),
        cmocka_unit_test(test_boost_vs_mle),
        cmocka_unit_test(test_boost_bound),
        cmocka_unit_test(test_boost_bound_mi_run),
        cmocka_unit_test(test_invariances),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_triple_stats),
        cmocka_unit_test(test_triple_ig_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
