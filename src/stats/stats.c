/* stats.c -- per-table statistics (chi2, MI, IG, K2), their p-values and the
 * chi-square survival function.  BOOST lives in boost.c.
 *
 * Every function here runs once per variant pair of a genome-wide scan, so
 * the hot paths avoid log()/lgamma() calls: the entropy-style statistics are
 * rewritten as sums of n*ln(n) and ln(n!) terms read from tables built once
 * (pthread_once, so concurrent first calls are safe).  All functions are pure
 * functions of their arguments: no mutable state after the tables are built.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "stats_internal.h"

/* ---- shared table summaries -------------------------------------------- */

/* Column (genotype pair) and class totals and the chi2 degrees of freedom:
 * (non-empty columns - 1) x (non-empty classes - 1).  A table with one class
 * only has no association to measure; it gets df 0 like an empty table. */
typedef struct {
    uint64_t n0, n1, n; /* controls, cases, total */
    int df;
} margins_t;

static inline void table_margins(const es_table2_t *t, margins_t *m)
{
    uint64_t n0 = 0, n1 = 0;
    int cols = 0;
    for (int c = 0; c < 9; c++) {
        n0 += t->n[0][c];
        n1 += t->n[1][c];
        cols += (t->n[0][c] | t->n[1][c]) != 0;
    }
    m->n0 = n0;
    m->n1 = n1;
    m->n = n0 + n1;
    m->df = (n0 && n1 && cols > 1) ? cols - 1 : 0;
}

/* N * I(Y; X) in nats for the 2 x ncol table given as two rows; the entropy
 * form  sum n ln n - sum_y n_y ln n_y - sum_c n_c ln n_c + N ln N  needs no
 * per-cell logarithm.  The column terms are added in column order on purpose:
 * an empty column adds an exact 0, so two tables with the same non-empty
 * columns in the same order (a variant constant in the pair's table, for
 * instance) give bit-identical values, and IG is then exactly 0; and a single
 * column gives exactly 0 (x - y + (y - x)). */
static inline __attribute__((always_inline)) double
n_mi_nats(const uint64_t *r0, const uint64_t *r1, int ncol, const margins_t *m, int small)
{
    double f[9];
    for (int c = 0; c < ncol; c++)
        f[c] = (es_stats_nlogn(r0[c], small) + es_stats_nlogn(r1[c], small)) - es_stats_nlogn(r0[c] + r1[c], small);
    double s = 0.0;
    for (int c = 0; c < ncol; c++)
        s += f[c];
    return s + (es_stats_nlogn(m->n, small) - (es_stats_nlogn(m->n0, small) + es_stats_nlogn(m->n1, small)));
}

/* The table as two rows of 64-bit counts, plus its A and B margins */
typedef struct {
    uint64_t r0[9], r1[9], a0[3], a1[3], b0[3], b1[3];
} rows_t;

static inline void table_rows(const es_table2_t *t, rows_t *r, int with_margins)
{
    for (int c = 0; c < 9; c++) {
        r->r0[c] = t->n[0][c];
        r->r1[c] = t->n[1][c];
    }
    if (!with_margins) return;
    for (int i = 0; i < 3; i++) {
        r->a0[i] = r->r0[3 * i] + r->r0[3 * i + 1] + r->r0[3 * i + 2];
        r->a1[i] = r->r1[3 * i] + r->r1[3 * i + 1] + r->r1[3 * i + 2];
        r->b0[i] = r->r0[i] + r->r0[i + 3] + r->r0[i + 6];
        r->b1[i] = r->r1[i] + r->r1[i + 3] + r->r1[i + 6];
    }
}

/* ---- statistics ----------------------------------------------------------- */

double es_stat_chi2(const es_table2_t *t, int *df)
{
    margins_t m;
    table_margins(t, &m);
    if (df) *df = m.df;
    if (m.df <= 0) return 0.0;
    /* With two rows, (O - E)^2 is the same in both cells of a column and
     * sum_y (O-E)^2/E = (n0c*n1 - n1c*n0)^2 / (nc*n0*n1).  The difference is an
     * exact integer, so small statistics suffer no cancellation (the textbook
     * N*(sum O^2/E - 1) loses digits when chi2 << N). */
    double s[3] = {0.0, 0.0, 0.0};
    for (int c = 0; c < 9; c++) {
        uint64_t a = t->n[0][c], b = t->n[1][c];
        if (!(a | b)) continue;
        double d = (double)((int64_t)(a * m.n1) - (int64_t)(b * m.n0));
        s[c % 3] += d * d / (double)(a + b);
    }
    return ((s[0] + s[1]) + s[2]) / ((double)m.n0 * (double)m.n1);
}

double es_stat_mi(const es_table2_t *t, int *df)
{
    es_stats_tables_init();
    margins_t m;
    rows_t r;
    table_margins(t, &m);
    if (df) *df = m.df;
    if (m.df <= 0) return 0.0;
    table_rows(t, &r, 0);
    double g =
        m.n < ES_STATS_TAB ? n_mi_nats(r.r0, r.r1, 9, &m, 1) : n_mi_nats(r.r0, r.r1, 9, &m, 0);
    /* MI is non-negative; a negative value is rounding of an exact zero */
    return g > 0.0 ? g / ((double)m.n * M_LN2) : 0.0;
}

/* Non-empty levels of a variant: its margin's columns with a sample in either class */
static inline int levels3(const uint64_t *r0, const uint64_t *r1)
{
    return ((r0[0] | r1[0]) != 0) + ((r0[1] | r1[1]) != 0) + ((r0[2] | r1[2]) != 0);
}

/* N * IG in nats (may be negative), and its G-test's degrees of freedom.
 * IG = I(Y;A,B) - I(Y;A) = I(Y;B|A) when I(Y;A) is the larger (A|B
 * otherwise): G = 2 N IG is the likelihood ratio of Y ~ A x B (one class
 * probability per non-empty genotype pair) against Y ~ A (one per non-empty
 * level of A), df = non-empty columns - non-empty levels of A (9 - 3 = 6 in a
 * full table).  On a tie the variant with fewer levels: the larger df, the
 * larger p. */
static inline __attribute__((always_inline)) double n_ig_nats(const rows_t *r, const margins_t *m,
                                                              int small, int *df)
{
    /* each MI is >= 0; clamping its rounding noise keeps IG exactly 0 when
     * I(Y;A,B) and I(Y;A) are the same sum (see n_mi_nats) */
    double g_ab = fmax(n_mi_nats(r->r0, r->r1, 9, m, small), 0.0);
    double g_a = fmax(n_mi_nats(r->a0, r->a1, 3, m, small), 0.0);
    double g_b = fmax(n_mi_nats(r->b0, r->b1, 3, m, small), 0.0);
    int la = levels3(r->a0, r->a1), lb = levels3(r->b0, r->b1);
    int lc = g_a > g_b ? la : g_b > g_a ? lb : la < lb ? la : lb;
    *df = m->df + 1 - lc; /* m->df + 1 = non-empty columns */
    return g_ab - (g_a > g_b ? g_a : g_b);
}

double es_stat_ig(const es_table2_t *t, int *df)
{
    es_stats_tables_init();
    margins_t m;
    rows_t r;
    int d;
    table_margins(t, &m);
    if (df) *df = m.df;
    if (m.df <= 0) return 0.0;
    table_rows(t, &r, 1);
    double g = m.n < ES_STATS_TAB ? n_ig_nats(&r, &m, 1, &d) : n_ig_nats(&r, &m, 0, &d);
    if (df) *df = d;
    return g / ((double)m.n * M_LN2);
}

static inline __attribute__((always_inline)) double k2_sum(const es_table2_t *t, int small)
{
    /* ln Gamma(n_c + 2) = ln (n_c + 1)!; an empty column adds ln 1! = 0 */
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    for (int c = 0; c < 9; c += 3) {
        uint64_t a0 = t->n[0][c], b0 = t->n[1][c], a1 = t->n[0][c + 1], b1 = t->n[1][c + 1];
        uint64_t a2 = t->n[0][c + 2], b2 = t->n[1][c + 2];
        s0 += es_stats_lnfact(a0 + b0 + 1, small) - (es_stats_lnfact(a0, small) + es_stats_lnfact(b0, small));
        s1 += es_stats_lnfact(a1 + b1 + 1, small) - (es_stats_lnfact(a1, small) + es_stats_lnfact(b1, small));
        s2 += es_stats_lnfact(a2 + b2 + 1, small) - (es_stats_lnfact(a2, small) + es_stats_lnfact(b2, small));
    }
    return (s0 + s1) + s2;
}

double es_stat_k2(const es_table2_t *t)
{
    es_stats_tables_init();
    uint64_t n = 0;
    for (int c = 0; c < 9; c++)
        n += (uint64_t)t->n[0][c] + t->n[1][c];
    return n + 1 < ES_STATS_TAB ? k2_sum(t, 1) : k2_sum(t, 0);
}

/* ---- chi-square tail ------------------------------------------------------ */

/* ln Gamma(df / 2) for df >= 1: exact factorial forms, (a-1)! for integer a
 * and Gamma(m + 1/2) = (2m)! sqrt(pi) / (4^m m!) for half-integers. */
static double lngamma_half(int df)
{
    es_stats_tables_init();
    if (!(df & 1)) return es_stats_lnfact((uint64_t)(df / 2 - 1), 0);
    uint64_t m = (uint64_t)(df / 2);
    const double half_ln_pi = 0.57236494292470008707;
    return es_stats_lnfact(2 * m, 0) - es_stats_lnfact(m, 0) - (double)m * (2.0 * M_LN2) + half_ln_pi;
}

/* ln P(a, y) (regularized lower incomplete gamma) by its power series; used
 * for y < a + 1 where it converges quickly with positive terms only. */
static double ln_gamma_p_series(double a, double y, double lng_a)
{
    double term = 1.0 / a, sum = term;
    for (int k = 1; k < 100000; k++) {
        term *= y / (a + k);
        sum += term;
        if (term < sum * 1e-17) break;
    }
    return -y + a * log(y) - lng_a + log(sum);
}

/* ln Q(a, y) (regularized upper incomplete gamma) by the continued fraction
 * Q = e^-y y^a / Gamma(a) * 1 / (y+1-a - 1(1-a) / (y+3-a - 2(2-a) / ...)),
 * evaluated with the modified Lentz method; used for y >= a + 1. */
static double ln_gamma_q_cf(double a, double y, double lng_a)
{
    const double tiny = 1e-300;
    double b = y + 1.0 - a;
    double c = 1.0 / tiny, d = 1.0 / b, h = d;
    for (int i = 1; i < 100000; i++) {
        double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if (fabs(d) < tiny) d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        double delta = d * c;
        h *= delta;
        if (fabs(delta - 1.0) < 1e-16) break;
    }
    return -y + a * log(y) - lng_a + log(h);
}

/* Closed forms for small integer df, where they are both faster and more
 * accurate than the general expansions:
 *   even df = 2m:   Q = e^-y sum_{i<m} y^i / i!
 *   odd df = 2m+1:  Q = erfc(sqrt y) + e^-y sum_{i<m} y^(i+1/2) / Gamma(i + 3/2)
 * All terms are positive, so the relative error stays at a few ulps.  Valid
 * while e^-y is a normal number (y <= 700, Q >= ~1e-304). */
#define ES_CHI2_CLOSED_DF 64
static double chi2_sf_closed(double y, int df)
{
    double s = 0.0, term;
    if (!(df & 1)) {
        term = 1.0;
        for (int i = 0; i < df / 2; i++) {
            s += term;
            term *= y / (i + 1);
        }
        s *= exp(-y);
        return s < 1.0 ? s : 1.0; /* rounding could step just past 1 */
    }
    const double two_over_sqrt_pi = 1.12837916709551257390;
    double sy = sqrt(y);
    term = two_over_sqrt_pi * sy;
    for (int i = 0; i < df / 2; i++) {
        s += term;
        term *= y / (i + 1.5);
    }
    s = erfc(sy) + exp(-y) * s;
    return s < 1.0 ? s : 1.0;
}

/* Upper tail Q and -log10 Q of chi2(df) at x, both to near full precision:
 * Q from the closed forms where they apply (small df, Q >= ~1e-304), else
 * from the series/continued fraction; -log10 Q from Q while Q is a normal
 * number below 0.9, from the lower-tail series when Q > 0.9 (there
 * -log10 Q ~ (1 - Q)/ln 10 and 1 - Q must not be formed by subtraction), and
 * in log space when Q underflows.  lg may be NULL. */
static void chi2_tail(double x, int df, double *q_out, double *lg)
{
    if (isnan(x)) {
        *q_out = x;
        if (lg) *lg = x;
        return;
    }
    if (!(x > 0.0) || df <= 0) {
        *q_out = 1.0;
        if (lg) *lg = 0.0;
        return;
    }
    if (isinf(x)) {
        *q_out = 0.0;
        if (lg) *lg = INFINITY;
        return;
    }
    double y = 0.5 * x, a = 0.5 * df;
    if (df <= ES_CHI2_CLOSED_DF && y <= 700.0) {
        double q = chi2_sf_closed(y, df);
        *q_out = q;
        if (!lg) return;
        if (q <= 0.9) {
            *lg = -log10(q);
            return;
        }
        /* Q > 0.9 implies y < a, where the lower series converges fast */
        *lg = -log1p(-exp(ln_gamma_p_series(a, y, lngamma_half(df)))) / M_LN10;
        return;
    }
    double lng = lngamma_half(df);
    if (y < a + 1.0) {
        double lnp = ln_gamma_p_series(a, y, lng);
        *q_out = -expm1(lnp);
        if (lg) *lg = -log1p(-exp(lnp)) / M_LN10;
        return;
    }
    double lnq = ln_gamma_q_cf(a, y, lng);
    *q_out = exp(lnq);
    if (lg) *lg = -lnq / M_LN10;
}

double es_chi2_sf(double x, int df)
{
    double q;
    chi2_tail(x, df, &q, NULL);
    return q;
}

double es_chi2_log10sf(double x, int df)
{
    double q, lg;
    chi2_tail(x, df, &q, &lg);
    return lg;
}

/* ---- one entry point for the scan ----------------------------------------- */

/* PLINK --fast-epistasis boost degrees of freedom: 4, minus 2 for each empty
 * genotype level (row of A, column of B, both classes together), i.e. 4, 2, 1;
 * with two empty levels on one variant PLINK reports nan, here 0 (no test). */
static int boost_df(const es_table2_t *t)
{
    uint32_t ra[3] = {0}, cb[3] = {0};
    for (int a = 0; a < 3; a++) {
        for (int b = 0; b < 3; b++) {
            uint32_t v = t->n[0][a * 3 + b] | t->n[1][a * 3 + b];
            ra[a] |= v;
            cb[b] |= v;
        }
    }
    int ea = !ra[0] + !ra[1] + !ra[2], eb = !cb[0] + !cb[1] + !cb[2];
    if (ea > 1 || eb > 1) return 0;
    return 4 >> (ea + eb);
}

void es_stats_set_g_test(double g, int df, es_stat_result_t *r)
{
    if (df > 0 && g > 0.0) {
        chi2_tail(g, df, &r->p, &r->log10p);
    } else {
        r->p = 1.0;
        r->log10p = 0.0;
    }
}

/* BOOST's statistic and df; mu: its fit (es_stat_boost_fitted), or NULL
 * to fit it here (es_stat_boost) */
static void boost_value(const es_table2_t *t, const double *mu, es_stat_result_t *r)
{
    r->df = boost_df(t);
    r->stat = !r->df ? 0.0 : mu ? es_stat_boost_fitted(t, mu) : es_stat_boost(t);
}

void es_stat_value(es_stat_t s, const es_table2_t *t, es_stat_result_t *r)
{
    r->df = 0;
    r->p = NAN;
    r->log10p = NAN;
    switch (s) {
    case ES_STAT_BOOST: boost_value(t, NULL, r); break;
    case ES_STAT_CHI2: r->stat = es_stat_chi2(t, &r->df); break;
    case ES_STAT_MI: r->stat = es_stat_mi(t, &r->df); break;
    case ES_STAT_IG: r->stat = es_stat_ig(t, &r->df); break;
    case ES_STAT_K2: r->stat = es_stat_k2(t); break;
    case ES_STAT_LOGISTIC: {
        double beta;
        es_stat_logistic(t, r, &beta);
        r->p = r->log10p = NAN;
        break;
    }
    default: r->stat = NAN; break;
    }
}

void es_stat_value_boost_fitted(const es_table2_t *t, const double mu[18], es_stat_result_t *r)
{
    r->p = NAN;
    r->log10p = NAN;
    boost_value(t, mu, r);
}

double es_stat_g(es_stat_t s, const es_table2_t *t, double stat)
{
    margins_t m;
    switch (s) {
    case ES_STAT_BOOST:
    case ES_STAT_LOGISTIC:
    case ES_STAT_CHI2: return stat;
    case ES_STAT_MI:
    case ES_STAT_IG:
        /* G = 2 N ln2 I, I in bits */
        table_margins(t, &m);
        return 2.0 * (double)m.n * M_LN2 * stat;
    default: return NAN;
    }
}

void es_stat_pvalue(es_stat_t s, const es_table2_t *t, es_stat_result_t *r)
{
    if (!es_stat_has_p(s)) {
        r->p = NAN;
        r->log10p = NAN;
        return;
    }
    es_stats_set_g_test(es_stat_g(s, t, r->stat), r->df, r);
}

void es_stat_compute(es_stat_t s, const es_table2_t *t, es_stat_result_t *r)
{
    es_stat_value(s, t, r);
    es_stat_pvalue(s, t, r);
}

/* ---- names ------------------------------------------------------------------ */

static const char *const stat_names[] = {
    [ES_STAT_BOOST] = "boost", [ES_STAT_CHI2] = "chi2", [ES_STAT_MI] = "mi",
    [ES_STAT_IG] = "ig",       [ES_STAT_K2] = "k2",     [ES_STAT_LINEAR] = "linear",
    [ES_STAT_LINEAR4] = "linear4", [ES_STAT_LOGISTIC] = "logistic",
};
#define ES_N_STATS ((int)(sizeof stat_names / sizeof stat_names[0]))

int es_stat_parse(const char *name, es_stat_t *out)
{
    if (!name || !out) {
        es_error("no statistic name given");
        return ES_ERR_ARG;
    }
    for (int s = 0; s < ES_N_STATS; s++) {
        if (!strcmp(name, stat_names[s])) {
            *out = (es_stat_t)s;
            return ES_OK;
        }
    }
    es_error("unknown statistic '%s' (expected boost, chi2, mi, ig, k2, logistic, or for a quantitative trait linear or linear4)", name);
    return ES_ERR_ARG;
}

const char *es_stat_name(es_stat_t stat)
{
    if ((int)stat < 0 || (int)stat >= ES_N_STATS) return "unknown";
    return stat_names[stat];
}

int es_stat_higher_is_better(es_stat_t stat) { return stat != ES_STAT_K2; }

int es_stat_has_p(es_stat_t stat) { return stat != ES_STAT_K2; }

int es_stat_is_qt(es_stat_t stat) { return stat == ES_STAT_LINEAR || stat == ES_STAT_LINEAR4; }
