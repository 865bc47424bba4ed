/* boost.c -- the BOOST interaction statistic as PLINK 1.9 computes it
 * (--fast-epistasis boost; Wan et al. 2010, Am J Hum Genet 87:325).
 *
 * Model: the 2x3x3 table n[k][a][b] (class k, genotypes a, b) under the
 * log-linear model with all two-way interactions [AB][AK][BK] and no three-way
 * term.  STAT is the likelihood-ratio statistic against the saturated model,
 *     G = 2 sum n ln(n / mu),
 * where mu is PLINK's fit of the no-three-way model.  That fit has no closed
 * form; PLINK runs iterative proportional fitting from mu = 1, one sweep
 * scaling mu to the AB, then AK, then BK margins, until the summed absolute
 * change of the 18 fitted values in one sweep is <= 0.001.  The iteration is
 * stopped early by that rule, so reproducing PLINK to its printed digits means
 * reproducing the same sweeps in the same floating-point order, which
 * es_stat_boost() does.
 *
 * Screening: PLINK first evaluates the Kirkwood superposition approximation
 * (KSA) mu_ksa = N p(a|b) p(b|k) p(k|a) / tau (tau normalises), which is a
 * product of two-way terms and hence a member of the model family.  The fitted
 * mu maximises the likelihood over that family, so G_ksa >= G_exact: BOOST's
 * screening bound.  es_stat_boost_bound() returns G_ksa using only tabulated
 * n ln n terms and one logarithm, plus a margin covering rounding and PLINK's
 * early stop (see there).
 *
 * Degrees of freedom (PLINK): 4, reduced by 2 per empty genotype level of
 * either variant (4 -> 2 -> 1); two empty levels of one variant and PLINK
 * reports nan.  Both functions return 0 for such tables (and empty ones).
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "es_internal.h"

/* n ln n for small counts, built once (the same idea as in stats.c; kept
 * local so that the two files share no hidden interface) */
#define BOOST_TAB 65536
static double bnlogn_tab[BOOST_TAB];
static pthread_once_t btab_once = PTHREAD_ONCE_INIT;

static void btab_build(void)
{
    bnlogn_tab[0] = 0.0;
    for (uint32_t n = 1; n < BOOST_TAB; n++) bnlogn_tab[n] = (double)n * log((double)n);
}

static inline double bnlogn(uint64_t n)
{
    if (n < BOOST_TAB) return bnlogn_tab[n];
    double x = (double)n;
    return x * log(x);
}

/* PLINK's stopping rule, and a cap it does not have (IPF always converges,
 * but a pathological table must not be able to hang a scan) */
#define BOOST_IPF_TOL 0.001
#define BOOST_IPF_MAX_SWEEPS 100000

/* The table in PLINK's orientation: k = 0 cases, 1 controls (epistream's
 * es_table2_t has y = 1 for cases), fitted values indexed a*6 + b*2 + k. */
typedef struct {
    double n[18];   /* n[a*6 + b*2 + k] */
    double t_ab[9]; /* targets of the three margins */
    double t_ak[6]; /* [a*2 + k] */
    double t_bk[6]; /* [b*2 + k] */
    uint32_t cnt[18];
    uint64_t total;
    int empty_a, empty_b;
} boost_tab_t;

static inline void boost_load(const es_table2_t *t, boost_tab_t *bt)
{
    uint64_t ak[6] = {0}, bk[6] = {0}, ab[9], total = 0;
    for (int a = 0; a < 3; a++) {
        for (int b = 0; b < 3; b++) {
            uint32_t cs = t->n[1][a * 3 + b], ct = t->n[0][a * 3 + b];
            int i = a * 6 + b * 2;
            bt->cnt[i] = cs;
            bt->cnt[i + 1] = ct;
            bt->n[i] = (double)cs;
            bt->n[i + 1] = (double)ct;
            ab[a * 3 + b] = (uint64_t)cs + ct;
            ak[a * 2] += cs;
            ak[a * 2 + 1] += ct;
            bk[b * 2] += cs;
            bk[b * 2 + 1] += ct;
        }
    }
    for (int i = 0; i < 9; i++) {
        bt->t_ab[i] = (double)ab[i];
        total += ab[i];
    }
    int ea = 0, eb = 0;
    for (int i = 0; i < 3; i++) {
        bt->t_ak[2 * i] = (double)ak[2 * i];
        bt->t_ak[2 * i + 1] = (double)ak[2 * i + 1];
        bt->t_bk[2 * i] = (double)bk[2 * i];
        bt->t_bk[2 * i + 1] = (double)bk[2 * i + 1];
        ea += !(ak[2 * i] | ak[2 * i + 1]);
        eb += !(bk[2 * i] | bk[2 * i + 1]);
    }
    bt->total = total;
    bt->empty_a = ea;
    bt->empty_b = eb;
}

/* scale factor of one margin; a margin that has become 0 stays 0 (PLINK) */
static inline double ipf_factor(double target, double fitted)
{
    return fitted != 0.0 ? target / fitted : 0.0;
}

/* PLINK's iterative proportional fit: same start, sweep order, summation
 * order and stopping rule, so that the sweeps stop at the same iterate. */
static void boost_ipf(const boost_tab_t *bt, double *restrict mu)
{
    double prev[18];
    for (int i = 0; i < 18; i++) mu[i] = 1.0;
    for (int sweep = 0; sweep < BOOST_IPF_MAX_SWEEPS; sweep++) {
        memcpy(prev, mu, sizeof prev);
        for (int i = 0; i < 9; i++) { /* AB: the two classes of one cell */
            double f = ipf_factor(bt->t_ab[i], mu[2 * i] + mu[2 * i + 1]);
            mu[2 * i] *= f;
            mu[2 * i + 1] *= f;
        }
        for (int a = 0; a < 3; a++) { /* AK: sum over b */
            for (int k = 0; k < 2; k++) {
                double *m = mu + a * 6 + k;
                double f = ipf_factor(bt->t_ak[a * 2 + k], m[0] + m[2] + m[4]);
                m[0] *= f;
                m[2] *= f;
                m[4] *= f;
            }
        }
        for (int j = 0; j < 6; j++) { /* BK: sum over a; j = b*2 + k */
            double f = ipf_factor(bt->t_bk[j], mu[j] + mu[j + 6] + mu[j + 12]);
            mu[j] *= f;
            mu[j + 6] *= f;
            mu[j + 12] *= f;
        }
        double err = 0.0;
        for (int i = 0; i < 18; i++) err += fabs(mu[i] - prev[i]);
        if (!(err > BOOST_IPF_TOL)) break;
    }
}

double es_stat_boost(const es_table2_t *t)
{
    boost_tab_t bt;
    double mu[18];
    boost_load(t, &bt);
    if (bt.empty_a > 1 || bt.empty_b > 1) return 0.0;
    boost_ipf(&bt, mu);
    /* G = 2 [sum n ln(n/mu) + N ln(sum mu / N)]: the second term renormalises
     * mu (PLINK does the same); per-cell ratios keep small G accurate */
    double g = 0.0, tau = 0.0;
    for (int i = 0; i < 18; i++) {
        tau += mu[i];
        if (bt.cnt[i] && mu[i] > 0.0) g += bt.n[i] * log(bt.n[i] / mu[i]);
    }
    double n = (double)bt.total;
    g = 2.0 * (g + n * log(tau / n));
    /* G >= 0; a tiny negative value is rounding of an exact fit */
    return g > 0.0 ? g : 0.0;
}

double es_stat_boost_bound(const es_table2_t *t)
{
    pthread_once(&btab_once, btab_build);
    uint64_t ab[9], ak[6] = {0}, bk[6] = {0}, a_m[3] = {0}, b_m[3] = {0}, k_m[2] = {0};
    double s = 0.0;
    for (int a = 0; a < 3; a++) {
        for (int b = 0; b < 3; b++) {
            uint64_t cs = t->n[1][a * 3 + b], ct = t->n[0][a * 3 + b];
            s += bnlogn(cs) + bnlogn(ct);
            ab[a * 3 + b] = cs + ct;
            ak[a * 2] += cs;
            ak[a * 2 + 1] += ct;
            bk[b * 2] += cs;
            bk[b * 2 + 1] += ct;
        }
    }
    int ea = 0, eb = 0;
    for (int i = 0; i < 3; i++) {
        a_m[i] = ak[2 * i] + ak[2 * i + 1];
        b_m[i] = bk[2 * i] + bk[2 * i + 1];
        ea += !a_m[i];
        eb += !b_m[i];
    }
    if (ea > 1 || eb > 1) return 0.0;
    k_m[0] = ak[0] + ak[2] + ak[4];
    k_m[1] = ak[1] + ak[3] + ak[5];
    uint64_t total = k_m[0] + k_m[1];
    /* tau = sum_kab p(a|b) p(b|k) p(k|a) = sum n_ab n_bk n_ak / (n_b n_k n_a);
     * a zero margin zeroes its terms (PLINK's reciprocal of 0 is 0) */
    double ra[3], rb[3], rk[2];
    for (int i = 0; i < 3; i++) {
        ra[i] = a_m[i] ? 1.0 / (double)a_m[i] : 0.0;
        rb[i] = b_m[i] ? 1.0 / (double)b_m[i] : 0.0;
    }
    rk[0] = k_m[0] ? 1.0 / (double)k_m[0] : 0.0;
    rk[1] = k_m[1] ? 1.0 / (double)k_m[1] : 0.0;
    double tau = 0.0;
    for (int k = 0; k < 2; k++) {
        double tk = 0.0;
        for (int a = 0; a < 3; a++) {
            double ta = 0.0;
            for (int b = 0; b < 3; b++)
                ta += (double)ab[a * 3 + b] * rb[b] * (double)bk[b * 2 + k];
            tk += ta * (double)ak[a * 2 + k] * ra[a];
        }
        tau += tk * rk[k];
    }
    /* sum n ln(n / mu_ksa) with ln mu_ksa = ln n_ab - ln n_b + ln n_bk - ln n_k
     * + ln n_ak - ln n_a + ln N - ln tau, summed margin by margin */
    double big = bnlogn(total);
    for (int i = 0; i < 9; i++) s -= bnlogn(ab[i]);
    for (int i = 0; i < 6; i++) s -= bnlogn(ak[i]) + bnlogn(bk[i]);
    for (int i = 0; i < 3; i++) s += bnlogn(a_m[i]) + bnlogn(b_m[i]);
    s += bnlogn(k_m[0]) + bnlogn(k_m[1]) - big;
    double n = (double)total;
    double g = 2.0 * (s + n * log(tau));
    /* Margin: the sum above cancels terms of size up to N ln N (rounding
     * ~1e-14 relative to that), and PLINK stops its fit early, leaving its G a
     * little above the exact optimum.  1e-9 relative to N ln N + N dwarfs both
     * (checked on random and adversarial tables in tests/test_stats.c). */
    return g + 1e-9 * (big + n) + 1e-9;
}
