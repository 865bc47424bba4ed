/* stats.h -- the statistics of a pair table (BOOST, chi2, MI, IG, K2), their
 * p-values, and the one place for the n ln n and ln n! tables.  Internal (not
 * installed); depends on src/count (the table type). */
#ifndef ES_STATS_H
#define ES_STATS_H

#include <stdint.h>

#include "count.h"

/* ---- statistics (src/stats.c, src/boost.c) ------------------------------ */

/** n ln n for 0 <= n < ES_NLOGN_TAB (0 ln 0 = 0): one table shared by the
 *  statistics, built once (thread-safe) on the first call. */
#define ES_NLOGN_TAB 65536
const double *es_nlogn_table(void);
/** ln n!, as the statistics use it (exact sums for n < 32, then Stirling;
 *  tabulated below ES_NLOGN_TAB).  Also the GPU's K2 table, which
 *  src/backend/gpu.c builds from it. */
double es_lnfact(uint64_t n);

/** Result of one statistic evaluation. */
typedef struct {
    double stat;
    double p;      /* NaN when the statistic has no p-value */
    double log10p; /* -log10 p; NaN when none */
    int df;        /* 0 when none */
} es_stat_result_t;

/** Compute statistic s of table t.  Deterministic: a pure function of t. */
void es_stat_compute(es_stat_t s, const es_table2_t *t, es_stat_result_t *r);
/** The two halves of es_stat_compute, so the scan can skip the p-value of
 *  pairs that go nowhere: es_stat_value sets stat and df (p, log10p NaN),
 *  es_stat_pvalue then sets p and log10p.  value + pvalue == compute, bit for bit. */
void es_stat_value(es_stat_t s, const es_table2_t *t, es_stat_result_t *r);
void es_stat_pvalue(es_stat_t s, const es_table2_t *t, es_stat_result_t *r);
/** The chi-square-distributed quantity behind a statistic's p-value: the
 *  statistic itself (boost, chi2) or G = 2 N ln2 I (mi, ig); NaN for k2. */
double es_stat_g(es_stat_t s, const es_table2_t *t, double stat);

/** Individual statistics (exposed for tests). */
double es_stat_boost(const es_table2_t *t);
/** es_stat_boost(t) from PLINK's fit of t as boost.c's IPF leaves it (the
 *  18 fitted values, mu[2 * (a * 3 + b) + k], k 0 the cases, 1 the
 *  controls): the same value bit for bit when mu is that fit, without the
 *  fit (the GPU's second stage computes it, gpu/pair/exact.cuh). */
double es_stat_boost_fitted(const es_table2_t *t, const double mu[18]);
/** es_stat_value(ES_STAT_BOOST, t, r) from that fit (es_stat_boost_fitted). */
void es_stat_value_boost_fitted(const es_table2_t *t, const double mu[18], es_stat_result_t *r);
double es_stat_boost_bound(const es_table2_t *t); /* cheap, always >= es_stat_boost(t) */
/* cheaper, looser: G of [AB][K], always >= es_stat_boost(t) (boost.c says why) */
double es_stat_boost_bound_mi(const es_table2_t *t);
/* es_stat_boost_bound_mi() of pairs 0 .. nq-1 of a cell-by-cell run (out[q]),
 * bit for bit (eight pairs a vector with AVX-512) */
void es_stat_boost_bound_mi_run(const es_table2_soa_t *s, uint32_t nq, double *out);
double es_stat_chi2(const es_table2_t *t, int *df);
double es_stat_mi(const es_table2_t *t, int *df);  /* bits */
/* bits; df of its G-test: non-empty columns - non-empty levels of the
 * variant with the larger single-variant MI (on a tie, the fewer levels) */
double es_stat_ig(const es_table2_t *t, int *df);
double es_stat_k2(const es_table2_t *t);

/* ---- triples (src/stats3.c) ------------------------------------------------
 * The same statistics on a 2x27 table (no BOOST: it has no 3-way form):
 * chi2 (df = non-empty columns - 1), mi = I(Y; A,B,C) in bits with the
 * G-test of chi2's df, ig = I(Y; A,B,C) - max of the three pairs' I(Y; pair)
 * from this table's margins (G-test df: non-empty columns - non-empty columns
 * of that pair), k2.  Pure functions of the table. */
void es_stat3_value(es_stat_t s, const es_table3_t *t, es_stat_result_t *r);
void es_stat3_pvalue(es_stat_t s, const es_table3_t *t, es_stat_result_t *r);
void es_stat3_compute(es_stat_t s, const es_table3_t *t, es_stat_result_t *r);
/** p and log10p of statistic s (not boost) from its value, df and the table's
 *  N alone: the same numbers es_stat3_pvalue() (and, for chi2, mi and ig,
 *  es_stat_pvalue()) gives.  Sets r's stat and df too. */
void es_stat_p_from(es_stat_t s, double stat, int df, uint64_t n, es_stat_result_t *r);
/** G behind the p-value (chi2: the statistic; mi, ig: 2 N ln2 I; k2: NaN). */
double es_stat3_g(es_stat_t s, const es_table3_t *t, double stat);
double es_stat3_chi2(const es_table3_t *t, int *df);
double es_stat3_mi(const es_table3_t *t, int *df);
double es_stat3_ig(const es_table3_t *t, int *df);
double es_stat3_k2(const es_table3_t *t);
/**
 * es_stat3_value() of triples 0 .. nq-1 of a cell-by-cell run (nq <=
 * ES_RUN3): stat[q] and df[q] bit for bit as es_stat3_value() gives them,
 * n[q] the samples in triple q's table.  chi2, mi, ig and k2 run 8 triples a
 * vector where the CPU has AVX-512 (the same operations in the same order
 * in each lane, no fused multiply-add), the rest one table at a time.
 */
void es_stat3_batch(es_stat_t s, const es_table3_soa_t *t, uint32_t nq, double *stat, int *df, uint32_t *n);

/** A pair's part in the IG of the triples that hold it: N I(Y; pair) in
 *  nats (not below 0) and its non-empty columns, from its 2 x 9 table.
 *  Where no call is missing, a triple's pair margin is that pair's table,
 *  and IG needs this once per pair instead of once per triple. */
typedef struct {
    double g;
    int cols;
} es_ig_pair_t;
void es_stat3_ig_pair(const es_table2_t *t, es_ig_pair_t *out);

/** es_stat3_batch(ES_STAT_IG, ...) of a run of triples (i, j, k_q) with no
 *  missing call, given the pair parts of (i, j) (ab), (i, k_q) (ik[q]) and
 *  (j, k_q) (jk[q]): the same stat, df and n bit for bit, without
 *  recomputing the three pair MIs of every triple. */
void es_stat3_batch_ig(const es_table3_soa_t *t, uint32_t nq, const es_ig_pair_t *ab, const es_ig_pair_t *ik,
                       const es_ig_pair_t *jk, double *stat, int *df, uint32_t *n);

/** Upper tail of the chi-square distribution: P(X > x), X ~ chi2(df).
 *  Accurate (relative error < 1e-12) down to 1e-300; 0 below. */
double es_chi2_sf(double x, int df);
/** -log10 of es_chi2_sf(x, df), accurate far beyond the double range of p. */
double es_chi2_log10sf(double x, int df);

/* ---- quantitative traits (src/stats/linear.c) --------------------------------
 * The tests of a pair from its 3x3 table (class 0 of an es_table2_t: a
 * quantitative trait has one class) and its phenotype sums in double. */
/** The integer sums in the phenotype's units. */
void es_qt_dsums(const es_qt_sums_t *s, const es_qt_y_t *y, es_qt_dsums_t *d);
/** es_qt_dsums() of the fields `--stat linear` reads (sy, syy, say, sby,
 *  saby, quantum: the same values, given u = 1 / y->scale and u2 = 1 /
 *  y->scale2); the others are left as they are. */
static inline void es_qt_dsums_linear(const es_qt_sums_t *s, double u, double u2, es_qt_dsums_t *d)
{
    d->sy = (double)s->sy * u;
    d->syy = (double)s->syy * u2;
    d->say = (double)(s->ra[0] + 2 * s->ra[1]) * u;
    d->sby = (double)(s->cb[0] + 2 * s->cb[1]) * u;
    d->saby = (double)s->saby * u;
    d->quantum = 0.5 * u;
}
/** The rounding of y may move BETA_INT by at most this much, relatively, in
 *  what is written (es_stat_linear() says when a pair needs its exact sums). */
#define ES_QT_REL_TOL 1e-6
/** PLINK 1.9 --epistasis for a quantitative trait: r->stat = z^2 of the
 *  interaction term (df 1; p and log10p NaN: es_stat_linear_p() sets them,
 *  from the chi-square), *beta = its coefficient; a failed fit (PLINK's
 *  rules) is stat 0, p 1, df 0, beta NaN.  @return 1 when
 *  the sums' rounding could move beta by more than ES_QT_REL_TOL of it (the
 *  caller recomputes the sums in double), else 0. */
int es_stat_linear(const es_table2_t *t, const es_qt_dsums_t *d, es_stat_result_t *r, double *beta);
void es_stat_linear_p(es_stat_result_t *r);
/** What es_stat_linear() takes from the table alone: X'X, its inverse and
 *  the residual-variance floor of PLINK's rules. */
typedef struct {
    double g[16], m[16]; /* X'X and (X'X)^-1 (1, A, B, AB; row-major) */
    double min_sigma;    /* a residual variance below this fails the fit */
    uint64_t ct;         /* samples in the table */
} es_linear_prep_t;
/** es_stat_linear()'s failure rules that depend on the table alone (n <= 4,
 *  a zero variance, a correlation above 0.999, the VIF check, a singular
 *  X'X, estimates correlated above 0.99999), with the same arithmetic.
 *  @return 1 when the fit fails on them, else 0 and p filled. */
int es_stat_linear_prep(const es_table2_t *t, es_linear_prep_t *p);
/** es_stat_linear() after es_stat_linear_prep() returned 0 (the same
 *  result, bit for bit, and the same return value). */
int es_stat_linear_fit(const es_table2_t *t, const es_linear_prep_t *p, const es_qt_dsums_t *d, es_stat_result_t *r,
                       double *beta);
/** A bound on es_stat_linear()'s z^2 for every sum of a b y in [d->saby,
 *  saby1] (the other sums as in d), after es_stat_linear_prep() returned 0.
 *  @return 1 when *zsq is such a bound and, for every such sum, the fit
 *  neither fails (the residual-variance rule) nor asks for the exact sums;
 *  0 when that cannot be certified (the caller fits the exact sums). */
int es_stat_linear_bound(const es_table2_t *t, const es_linear_prep_t *p, const es_qt_dsums_t *d, double saby1,
                         double *zsq);
/** A run of n pairs (src/stats/linear_batch.c): fail[k] = es_stat_linear_prep()
 *  of t[k] (bit for bit), and where it is 0, cert[k] and zsq[k] with
 *  es_stat_linear_bound()'s guarantee for d[k] and saby1[k]: the float
 *  certificate's (es_stat_linear_sure) where it certifies, else the double
 *  bound (its last bits may differ from es_stat_linear_bound's).  Sixteen
 *  (float) and eight (double) pairs a vector where the CPU has AVX-512;
 *  es_stat_linear_batch_scalar() is the double path alone, the oracle. */
void es_stat_linear_batch(const es_table2_t *t, const es_qt_dsums_t *d, const double *saby1, uint32_t n,
                          uint8_t *fail, uint8_t *cert, double *zsq);
void es_stat_linear_batch_scalar(const es_table2_t *t, const es_qt_dsums_t *d, const double *saby1, uint32_t n,
                                 uint8_t *fail, uint8_t *cert, double *zsq);
/** es_stat_linear_batch() without AVX-512: the float certificate's scalar
 *  twin, then the double path alone for the pairs it leaves (the same
 *  decisions as the AVX-512 variant; its bounds are the same bits where the
 *  float certificate gives them). */
void es_stat_linear_batch_twin(const es_table2_t *t, const es_qt_dsums_t *d, const double *saby1, uint32_t n,
                               uint8_t *fail, uint8_t *cert, double *zsq);
/** The certificate of the batch (src/stats/linear_batch.c), in single
 *  precision from exact integers with proven margins (doc/QT.md): sure[k] =
 *  1 only where es_stat_linear_prep() of t[k] passes (returns 0); cert[k] =
 *  1 (then sure[k] = 1) only where, for every sum of a b y in [d[k].saby,
 *  saby1[k]], es_stat_linear() neither fails nor asks for the exact sums
 *  and its z^2 is at most zsq[k] (0 where not certified).  0 where it
 *  cannot tell.  Sixteen pairs a vector where the CPU has AVX-512, the same
 *  decisions and bounds as es_stat_linear_sure_scalar(). */
void es_stat_linear_sure(const es_table2_t *t, const es_qt_dsums_t *d, const double *saby1, uint32_t n, uint8_t *sure,
                         uint8_t *cert, double *zsq);
void es_stat_linear_sure_scalar(const es_table2_t *t, const es_qt_dsums_t *d, const double *saby1, uint32_t n,
                                uint8_t *sure, uint8_t *cert, double *zsq);
/** PLINK 1.9 --epistasis for case/control: the A x B term of a logistic
 *  regression on A, B and AB, fitted on the table's nine cells; stat = its
 *  Wald z^2 (df 1; p, log10p NaN), *beta = the coefficient (log odds ratio);
 *  a failed fit (PLINK's rules) is stat 0, df 0, beta NaN. */
void es_stat_logistic(const es_table2_t *t, es_stat_result_t *r, double *beta);
/** The 4-df genotypic interaction F test: stat F, df its numerator df
 *  (non-empty cells - additive parameters), p from F(df, n - cells). */
void es_stat_linear4(const es_table2_t *t, const es_qt_dsums_t *d, es_stat_result_t *r);
/** P(F > f) for F ~ F(d1, d2), and -log10 of it in *log10p (may be NULL). */
double es_f_sf(double f, double d1, double d2, double *log10p);

#endif /* ES_STATS_H */
