/* stats_internal.h -- private to src/stats: the tables every statistic reads
 * (n ln n, ln n!, 1/n of small counts), built once in tables.c, and their
 * lookups.  Not part of any interface outside this folder. */
#ifndef ES_STATS_INTERNAL_H
#define ES_STATS_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include "stats.h"

/* Counts below this read n ln n, ln n! and 1/n from tables (3 x 512 KiB);
 * larger counts (only margins of very large samples) compute them. */
#define ES_STATS_TAB ES_NLOGN_TAB

extern double es_stats_nlogn_tab[ES_STATS_TAB];  /* n ln n, 0 ln 0 = 0 */
extern double es_stats_lnfact_tab[ES_STATS_TAB]; /* ln n! */
extern double es_stats_recip_tab[ES_STATS_TAB];  /* 1/n, and 0 for n = 0 as PLINK uses it */

/** Build the tables once (pthread_once: concurrent first calls are safe). */
void es_stats_tables_init(void);
/** ln Gamma(z) for z >= 16 by Stirling's series. */
double es_stats_lngamma_stirling(double z);

/** p and -log10 p of a G-test: G ~ chi2(df); p = 1 when df <= 0 or G <= 0. */
void es_stats_set_g_test(double g, int df, es_stat_result_t *r);

/* Lookups; `small` is a compile-time constant after inlining: 1 when the
 * caller has checked that every argument is below ES_STATS_TAB, which removes
 * the range check from the hot loops.  The tables must have been built. */
static inline __attribute__((always_inline)) double es_stats_nlogn(uint64_t n, int small)
{
    if (small || n < ES_STATS_TAB) return es_stats_nlogn_tab[n];
    double x = (double)n;
    return x * log(x);
}

static inline __attribute__((always_inline)) double es_stats_lnfact(uint64_t n, int small)
{
    if (small || n < ES_STATS_TAB) return es_stats_lnfact_tab[n];
    return es_stats_lngamma_stirling((double)n + 1.0);
}

static inline __attribute__((always_inline)) double es_stats_recip(uint64_t n, int small)
{
    if (small || n < ES_STATS_TAB) return es_stats_recip_tab[n];
    return 1.0 / (double)n; /* n >= ES_STATS_TAB > 0 here */
}

#endif /* ES_STATS_INTERNAL_H */
