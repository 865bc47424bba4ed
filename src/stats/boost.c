/* boost.c -- the BOOST interaction statistic as PLINK 1.9 computes it
 * (--fast-epistasis boost; Wan et al. 2010, Am J Hum Genet 87:325).
 *
 * Model: the 2x3x3 table n[k][a][b] (class k, genotypes a, b) under the
 * log-linear model with all two-way interactions [AB][AK][BK] and no three-way
 * term.  STAT is the likelihood-ratio statistic against the saturated model,
 *     G = 2 sum n ln(n / mu),
 * with mu PLINK's fit of the no-three-way model.  The fit has no closed form;
 * PLINK runs iterative proportional fitting (IPF) from mu = 1, each sweep
 * scaling mu to the AB, then the AK, then the BK margin, and stops after the
 * first sweep whose summed absolute change of the 18 fitted values is
 * <= 0.001.  The rule stops well before convergence on small tables, so
 * agreeing with PLINK to its printed digits means running the same sweeps with
 * the same floating-point operations in the same order, which boost_ipf()
 * does (only the test sum is reassociated, and rechecked in PLINK's order when
 * it is within rounding of the threshold).  A GPU twin must do the same,
 * without fused multiply-adds in the sweeps.
 *
 * Screening bound: PLINK first evaluates the Kirkwood superposition
 * approximation (KSA)  mu_ksa = N p(a|b) p(b|k) p(k|a) / tau  (tau normalises)
 * and fits only pairs whose G_ksa passes --epi1.  G_ksa bounds PLINK's G from
 * above, not only the optimum's: from mu = 1, the AB and AK steps of the first
 * sweep give n_ab n_ak / n_a, and its BK step rescales every (b,k) slice of
 * that to the n_bk margin -- the best likelihood over all such rescalings,
 * among which is the (constant) one that turns n_ab n_ak / n_a into mu_ksa.  So
 * the first sweep is at least as likely as the KSA, and every IPF step only
 * increases the likelihood: G_ksa >= G(sweep 1) >= G(any later sweep) >=
 * G_mle.  es_stat_boost_bound() returns G_ksa, computed without iteration:
 * expanding ln mu_ksa turns sum n ln(n / mu_ksa) into tabulated n ln n terms of
 * the cells and margins plus N ln tau, one logarithm in all; a margin covers
 * rounding.
 *
 * Degrees of freedom (PLINK): 4, reduced by 2 for each genotype level of
 * either variant that is empty in both classes (4 -> 2 -> 1).  With two empty
 * levels of one variant PLINK reports nan; both functions here return 0 and
 * es_stat_compute() reports df 0 (no test), as for an empty table.
 *
 * The 18 cells are processed as 9 pairs {case, control} in GCC/Clang vector
 * extensions (SSE2 on x86-64, scalar code where there is no vector unit); each
 * lane performs exactly PLINK's scalar operations.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "stats_internal.h"

#if ES_CPU_X86
#include <immintrin.h>
#endif

typedef double v2d __attribute__((vector_size(16)));
typedef long long v2l __attribute__((vector_size(16)));

/* PLINK's stopping rule, and a cap PLINK does not have (IPF converges, but a
 * pathological table must not be able to stall a scan).  Realistic tables stop
 * after 3-5 sweeps; the slowest of 2 million random and adversarial tables
 * (a boundary optimum, which IPF approaches sublinearly) took 1,164, and
 * scaling such a table by 1000 raised that to 4,555; the cap is far above. */
#define BOOST_IPF_TOL 0.001
#define BOOST_IPF_MAX_SWEEPS 100000

/* n ln n and 1/n of small counts come from the statistics' tables
 * (tables.c): bnlogn/brecip are their lookups under BOOST's names. */
#define bnlogn es_stats_nlogn
#define brecip es_stats_recip

/* ---- small vector helpers ------------------------------------------------ */

static inline v2d v2_select(v2l mask, v2d yes, v2d no)
{
    return (v2d)(((v2l)yes & mask) | ((v2l)no & ~mask));
}

static inline v2d v2_abs(v2d x)
{
    const v2l nosign = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL};
    return (v2d)((v2l)x & nosign);
}

/* target / fitted, or 0 where the fitted margin is 0 (PLINK leaves a zero
 * margin at zero; the quotient computed there is discarded) */
static inline v2d v2_factor(v2d target, v2d fitted)
{
    const v2d zero = {0.0, 0.0};
    return v2_select(fitted != zero, target / fitted, zero);
}

/* ---- the table in PLINK's orientation -------------------------------------- */

/* Lane 0 holds cases (PLINK's first class), lane 1 controls; cell a*3 + b. */
typedef struct {
    v2d n[9];
    v2d t_ak[3]; /* per-class margins of A */
    v2d t_bk[3]; /* per-class margins of B */
    v2d t_ab[5]; /* AB margins (both classes) packed two per vector: [i/2][i%2] */
    double total;
    int degenerate; /* two empty levels of one variant, or no sample at all */
} boost_tab_t;

static inline void boost_load(const es_table2_t *t, boost_tab_t *bt)
{
    uint32_t ra = 0, rb = 0; /* bit per non-empty level */
    v2d ak[3] = {{0, 0}, {0, 0}, {0, 0}}, bk[3] = {{0, 0}, {0, 0}, {0, 0}};
    double ab[10];
    for (int a = 0; a < 3; a++) {
        for (int b = 0; b < 3; b++) {
            int i = a * 3 + b;
            uint32_t cs = t->n[1][i], ct = t->n[0][i];
            v2d v = {(double)cs, (double)ct};
            bt->n[i] = v;
            ak[a] += v;
            bk[b] += v;
            ab[i] = (double)((uint64_t)cs + ct);
            if (cs | ct) {
                ra |= 1u << a;
                rb |= 1u << b;
            }
        }
    }
    ab[9] = 0.0;
    for (int i = 0; i < 3; i++) {
        bt->t_ak[i] = ak[i];
        bt->t_bk[i] = bk[i];
    }
    for (int i = 0; i < 5; i++)
        bt->t_ab[i] = (v2d){ab[2 * i], ab[2 * i + 1]};
    v2d tot = ak[0] + ak[1] + ak[2];
    bt->total = tot[0] + tot[1];
    /* fewer than two non-empty levels on a side: 0 or 1 bit set */
    bt->degenerate = !(ra & (ra - 1)) || !(rb & (rb - 1));
}

/* PLINK's stopping sum: 18 terms in its cell order (a, b, k) */
static double ipf_change_plink_order(const v2d *mu, const v2d *prev)
{
    double err = 0.0;
    for (int i = 0; i < 9; i++) {
        err += fabs(mu[i][0] - prev[i][0]);
        err += fabs(mu[i][1] - prev[i][1]);
    }
    return err;
}

static void boost_ipf(const boost_tab_t *bt, v2d *restrict mu)
{
    v2d prev[9];
    for (int i = 0; i < 9; i++)
        mu[i] = (v2d){1.0, 1.0};
    for (int sweep = 0; sweep < BOOST_IPF_MAX_SWEEPS; sweep++) {
        memcpy(prev, mu, sizeof prev);
        /* AB: each cell's two classes scaled to n_ab; cells in pairs so that
         * the nine divisions take five instructions (element-wise vector
         * construction compiles to unpack/broadcast instructions) */
        for (int i = 0; i < 8; i += 2) {
            v2d cases = {mu[i][0], mu[i + 1][0]};
            v2d ctrls = {mu[i][1], mu[i + 1][1]};
            v2d f = v2_factor(bt->t_ab[i / 2], cases + ctrls);
            mu[i] *= (v2d){f[0], f[0]};
            mu[i + 1] *= (v2d){f[1], f[1]};
        }
        {
            v2d sum = {mu[8][0] + mu[8][1], 0.0};
            v2d f = v2_factor(bt->t_ab[4], sum);
            mu[8] *= (v2d){f[0], f[0]};
        }
        for (int a = 0; a < 3; a++) { /* AK: sum over b, in b order */
            v2d *m = mu + 3 * a;
            v2d f = v2_factor(bt->t_ak[a], m[0] + m[1] + m[2]);
            m[0] *= f;
            m[1] *= f;
            m[2] *= f;
        }
        for (int b = 0; b < 3; b++) { /* BK: sum over a, in a order */
            v2d f = v2_factor(bt->t_bk[b], mu[b] + mu[b + 3] + mu[b + 6]);
            mu[b] *= f;
            mu[b + 3] *= f;
            mu[b + 6] *= f;
        }
        v2d e0 = v2_abs(mu[0] - prev[0]), e1 = v2_abs(mu[1] - prev[1]);
        v2d e2 = v2_abs(mu[2] - prev[2]);
        for (int i = 3; i < 9; i += 3) {
            e0 += v2_abs(mu[i] - prev[i]);
            e1 += v2_abs(mu[i + 1] - prev[i + 1]);
            e2 += v2_abs(mu[i + 2] - prev[i + 2]);
        }
        e0 += e1 + e2;
        double err = e0[0] + e0[1];
        /* the two-lane sum may round differently from PLINK's serial one:
         * near the threshold decide with PLINK's order */
        if (fabs(err - BOOST_IPF_TOL) < 1e-12) err = ipf_change_plink_order(mu, prev);
        if (!(err > BOOST_IPF_TOL)) break;
    }
}

/* G = 2 [sum n ln(n/mu) + N ln(sum mu / N)] of fit mu: the second term
 * renormalises mu as PLINK does; per-cell ratios keep small G accurate.
 * Empty cells (and, defensively, a zero fit) contribute nothing. */
static double boost_g(const boost_tab_t *bt, const v2d *mu)
{
    const v2d zero = {0.0, 0.0}, one = {1.0, 1.0};
    v2d r[9], g0 = zero, g1 = zero, g2 = zero, tau = zero;
    for (int i = 0; i < 9; i++) {
        tau += mu[i];
        v2l use = (bt->n[i] > zero) & (mu[i] > zero);
        r[i] = v2_select(use, bt->n[i] / mu[i], one);
    }
    for (int i = 0; i < 9; i += 3) {
        g0 += bt->n[i] * (v2d){log(r[i][0]), log(r[i][1])};
        g1 += bt->n[i + 1] * (v2d){log(r[i + 1][0]), log(r[i + 1][1])};
        g2 += bt->n[i + 2] * (v2d){log(r[i + 2][0]), log(r[i + 2][1])};
    }
    g0 += g1 + g2;
    double n = bt->total;
    double gs = 2.0 * (g0[0] + g0[1] + n * log((tau[0] + tau[1]) / n));
    /* G >= 0; a tiny negative value is rounding of an exact fit */
    return gs > 0.0 ? gs : 0.0;
}

double es_stat_boost(const es_table2_t *t)
{
    boost_tab_t bt;
    v2d mu[9];
    es_stats_tables_init();
    boost_load(t, &bt);
    if (bt.degenerate) return 0.0;
    boost_ipf(&bt, mu);
    return boost_g(&bt, mu);
}

double es_stat_boost_fitted(const es_table2_t *t, const double mu[18])
{
    boost_tab_t bt;
    v2d m[9];
    boost_load(t, &bt);
    if (bt.degenerate) return 0.0;
    for (int i = 0; i < 9; i++)
        m[i] = (v2d){mu[2 * i], mu[2 * i + 1]};
    return boost_g(&bt, m);
}

/* G_ksa of es_stat_boost_bound(); small: every count of the table is below
 * ES_STATS_TAB (so no lookup needs a range check).  Sums use several
 * accumulators: a single chain of ~50 dependent additions would dominate. */
static inline __attribute__((always_inline)) double ksa_bound(const es_table2_t *t, int small)
{
    const uint32_t *ctl = t->n[0], *cas = t->n[1];
    uint32_t ab[9], ak0[3], ak1[3], bk0[3], bk1[3], am[3], bm[3];
    for (int i = 0; i < 9; i++)
        ab[i] = cas[i] + ctl[i];
    for (int i = 0; i < 3; i++) {
        ak0[i] = cas[3 * i] + cas[3 * i + 1] + cas[3 * i + 2];
        ak1[i] = ctl[3 * i] + ctl[3 * i + 1] + ctl[3 * i + 2];
        bk0[i] = cas[i] + cas[i + 3] + cas[i + 6];
        bk1[i] = ctl[i] + ctl[i + 3] + ctl[i + 6];
        am[i] = ak0[i] + ak1[i];
        bm[i] = bk0[i] + bk1[i];
    }
    if (((am[0] != 0) + (am[1] != 0) + (am[2] != 0)) < 2 ||
        ((bm[0] != 0) + (bm[1] != 0) + (bm[2] != 0)) < 2)
        return 0.0;
    uint32_t k0 = ak0[0] + ak0[1] + ak0[2], k1 = ak1[0] + ak1[1] + ak1[2];
    uint64_t total = (uint64_t)k0 + k1;
    /* tau = sum_kab p(a|b) p(b|k) p(k|a) = sum_ab n_ab/(n_a n_b) sum_k n_ak n_bk/n_k,
     * where a zero margin zeroes its terms (PLINK's 1/0 is 0) */
    double rk0 = brecip(k0, small), rk1 = brecip(k1, small);
    double w0[3], w1[3], ta[3];
    for (int b = 0; b < 3; b++) {
        double rb = brecip(bm[b], small);
        w0[b] = (double)bk0[b] * rk0 * rb;
        w1[b] = (double)bk1[b] * rk1 * rb;
    }
    for (int a = 0; a < 3; a++) {
        double x0 = (double)ak0[a], x1 = (double)ak1[a];
        const uint32_t *r = ab + 3 * a;
        ta[a] =
            ((double)r[0] * (x0 * w0[0] + x1 * w1[0]) + (double)r[1] * (x0 * w0[1] + x1 * w1[1]) +
             (double)r[2] * (x0 * w0[2] + x1 * w1[2])) *
            brecip(am[a], small);
    }
    double tau = ta[0] + ta[1] + ta[2];
    /* sum n ln(n / mu_ksa), with ln mu_ksa = ln n_ab - ln n_b + ln n_bk - ln n_k
     * + ln n_ak - ln n_a + ln N - ln tau, summed margin by margin */
    double c0 = 0.0, c1 = 0.0, c2 = 0.0;
    for (int i = 0; i < 9; i += 3) {
        c0 += (bnlogn(cas[i], small) + bnlogn(ctl[i], small)) - bnlogn(ab[i], small);
        c1 += (bnlogn(cas[i + 1], small) + bnlogn(ctl[i + 1], small)) - bnlogn(ab[i + 1], small);
        c2 += (bnlogn(cas[i + 2], small) + bnlogn(ctl[i + 2], small)) - bnlogn(ab[i + 2], small);
    }
    double m0 = 0.0, m1 = 0.0, m2 = 0.0;
    for (int i = 0; i < 3; i++) {
        m0 += bnlogn(am[i], small) - (bnlogn(ak0[i], small) + bnlogn(ak1[i], small));
        m1 += bnlogn(bm[i], small) - (bnlogn(bk0[i], small) + bnlogn(bk1[i], small));
    }
    double big = bnlogn(total, small);
    m2 = (bnlogn(k0, small) + bnlogn(k1, small)) - big;
    double n = (double)total;
    double g = 2.0 * (((c0 + c1) + (c2 + m2)) + (m0 + m1) + n * log(tau));
    /* Margin for rounding: the sum above cancels terms as large as N ln N
     * (rounding about 1e-15 of that, and as much in the fitted G).  The bound
     * itself is exact (see the top of the file), so the margin can be
     * generous at no cost to screening. */
    return g + 1e-9 * (big + n) + 1e-9;
}

/* G of the model [AB][K] (class independent of the genotype pair),
 * 2 N ln 2 I(Y; A,B).  It bounds PLINK's G from above too: the AB step of
 * IPF's first sweep gives n_ab / 2, and the AK step that follows is the best
 * likelihood over all rescalings of that by a factor of (a, k), among which
 * is the factor 2 n_k / N that gives the [AB][K] fit n_ab n_k / N; later
 * steps and PLINK's final renormalisation only increase the likelihood.  It
 * needs 30 tabulated n ln n and no logarithm, about a third of G_ksa's
 * work, and under the null it is below a typical pruning limit for about 98
 * of 100 pairs (chi-square with 8 df against G_ksa's 4), so it screens first. */
static inline __attribute__((always_inline)) double mi_bound(const es_table2_t *t, int small)
{
    const uint32_t *ctl = t->n[0], *cas = t->n[1];
    double c0 = 0.0, c1 = 0.0, c2 = 0.0;
    uint64_t k0 = 0, k1 = 0;
    for (int i = 0; i < 9; i += 3) {
        c0 += (bnlogn(cas[i], small) + bnlogn(ctl[i], small)) - bnlogn((uint64_t)cas[i] + ctl[i], small);
        c1 += (bnlogn(cas[i + 1], small) + bnlogn(ctl[i + 1], small)) -
              bnlogn((uint64_t)cas[i + 1] + ctl[i + 1], small);
        c2 += (bnlogn(cas[i + 2], small) + bnlogn(ctl[i + 2], small)) -
              bnlogn((uint64_t)cas[i + 2] + ctl[i + 2], small);
        k0 += (uint64_t)cas[i] + cas[i + 1] + cas[i + 2];
        k1 += (uint64_t)ctl[i] + ctl[i + 1] + ctl[i + 2];
    }
    double big = bnlogn(k0 + k1, small);
    double g = 2.0 * ((c0 + c1) + (c2 + (big - (bnlogn(k0, small) + bnlogn(k1, small)))));
    /* the same rounding margin as G_ksa's */
    return g + 1e-9 * (big + (double)(k0 + k1)) + 1e-9;
}

double es_stat_boost_bound_mi(const es_table2_t *t)
{
    es_stats_tables_init();
    uint64_t total = 0;
    for (int i = 0; i < 9; i++)
        total += (uint64_t)t->n[0][i] + t->n[1][i];
    return total < ES_STATS_TAB ? mi_bound(t, 1) : mi_bound(t, 0);
}

double es_stat_boost_bound(const es_table2_t *t)
{
    es_stats_tables_init();
    uint64_t total = 0;
    for (int i = 0; i < 9; i++)
        total += (uint64_t)t->n[0][i] + t->n[1][i];
    return total < ES_STATS_TAB ? ksa_bound(t, 1) : ksa_bound(t, 0);
}

/* ---- the [AB][K] bound of a run of pairs --------------------------------------
 * The CPU scan counts a variant against a run of partners cell by cell
 * (es_count_run) and screens the run with this bound before anything else
 * reads a table.  With AVX-512, eight pairs a vector: each lane performs
 * mi_bound()'s operations in its order (table lookups as gathers, no fused
 * multiply-adds), so the values are bit for bit es_stat_boost_bound_mi()'s. */

#if ES_CPU_X86
#define MI_LOAD8(m, p) _mm512_castsi512_si256(_mm512_maskz_loadu_epi32((__mmask16)(m), (p)))
#define MI_LOOKUP(i) _mm512_i32gather_pd((i), es_stats_nlogn_tab, 8)

/* Pairs q0 .. q0+7 of the run (lanes past nq read as empty tables, their
 * values unused).  @return the lanes whose tables are too large for the
 * lookups (total >= ES_STATS_TAB), left for the scalar function. */
ES_TARGET_AVX512 static __mmask8 mi_bound8(const es_table2_soa_t *s, uint32_t q0, uint32_t nq, double *out)
{
    uint32_t left = nq - q0;
    __mmask8 m = left >= 8 ? (__mmask8)0xff : (__mmask8)((1u << left) - 1);
    __m256i k0 = _mm256_setzero_si256(), k1 = k0;
    __m256i cas[9], ctl[9];
    for (int c = 0; c < 9; c++) {
        cas[c] = MI_LOAD8(m, &s->n[1][c][q0]);
        ctl[c] = MI_LOAD8(m, &s->n[0][c][q0]);
        k0 = _mm256_add_epi32(k0, cas[c]);
        k1 = _mm256_add_epi32(k1, ctl[c]);
    }
    __m256i tot = _mm256_add_epi32(k0, k1);
    /* unsigned compare: lanes at or above the table go to the scalar path */
    __mmask8 big_lanes = (__mmask8)(_mm512_cmpge_epu32_mask(_mm512_castsi256_si512(tot),
                                                             _mm512_set1_epi32(ES_STATS_TAB)) & m);
    if (big_lanes) {
        /* keep the gathers in the table: such lanes look up 0 */
        const __m256i keep = _mm256_set1_epi32(-1);
        __m256i ok = _mm512_castsi512_si256(_mm512_maskz_mov_epi32((__mmask16)(m & ~big_lanes),
                                                                   _mm512_castsi256_si512(keep)));
        for (int c = 0; c < 9; c++) {
            cas[c] = _mm256_and_si256(cas[c], ok);
            ctl[c] = _mm256_and_si256(ctl[c], ok);
        }
        k0 = _mm256_and_si256(k0, ok);
        k1 = _mm256_and_si256(k1, ok);
        tot = _mm256_and_si256(tot, ok);
    }
    __m512d c0 = _mm512_setzero_pd(), c1 = c0, c2 = c0;
    for (int i = 0; i < 9; i += 3) {
        c0 = _mm512_add_pd(c0, _mm512_sub_pd(_mm512_add_pd(MI_LOOKUP(cas[i]), MI_LOOKUP(ctl[i])),
                                             MI_LOOKUP(_mm256_add_epi32(cas[i], ctl[i]))));
        c1 = _mm512_add_pd(c1, _mm512_sub_pd(_mm512_add_pd(MI_LOOKUP(cas[i + 1]), MI_LOOKUP(ctl[i + 1])),
                                             MI_LOOKUP(_mm256_add_epi32(cas[i + 1], ctl[i + 1]))));
        c2 = _mm512_add_pd(c2, _mm512_sub_pd(_mm512_add_pd(MI_LOOKUP(cas[i + 2]), MI_LOOKUP(ctl[i + 2])),
                                             MI_LOOKUP(_mm256_add_epi32(cas[i + 2], ctl[i + 2]))));
    }
    __m512d big = MI_LOOKUP(tot);
    __m512d cls = _mm512_sub_pd(big, _mm512_add_pd(MI_LOOKUP(k0), MI_LOOKUP(k1)));
    __m512d g = _mm512_mul_pd(_mm512_set1_pd(2.0), _mm512_add_pd(_mm512_add_pd(c0, c1), _mm512_add_pd(c2, cls)));
    __m512d n = _mm512_cvtepu32_pd(tot);
    __m512d r = _mm512_add_pd(_mm512_add_pd(g, _mm512_mul_pd(_mm512_set1_pd(1e-9), _mm512_add_pd(big, n))),
                              _mm512_set1_pd(1e-9));
    _mm512_mask_storeu_pd(out + q0, m, r);
    return big_lanes;
}
#undef MI_LOAD8
#undef MI_LOOKUP
#endif

void es_stat_boost_bound_mi_run(const es_table2_soa_t *s, uint32_t nq, double *out)
{
    es_stats_tables_init();
    uint32_t q = 0;
#if ES_CPU_X86
    if (es_cpu_has(ES_CPU_AVX512)) {
        for (; q < nq; q += 8) {
            __mmask8 rest = mi_bound8(s, q, nq, out);
            for (uint32_t l = 0; rest; l++, rest >>= 1) {
                if (!(rest & 1)) continue;
                es_table2_t t;
                es_table2_from_soa(s, q + l, &t);
                out[q + l] = es_stat_boost_bound_mi(&t);
            }
        }
        return;
    }
#endif
    for (; q < nq; q++) {
        es_table2_t t;
        es_table2_from_soa(s, q, &t);
        out[q] = es_stat_boost_bound_mi(&t);
    }
}
