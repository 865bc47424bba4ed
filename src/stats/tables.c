/* tables.c -- the one place for the statistics' log and lgamma tables: n ln n,
 * ln n! and 1/n for counts below ES_STATS_TAB, built once.  stats.c and
 * boost.c read them through stats_internal.h; es_nlogn_table() and
 * es_lnfact() hand them to other modules (the GPU host builds its K2 table
 * from es_lnfact()). */
#include <math.h>
#include <pthread.h>
#include <stdint.h>

#include "stats_internal.h"

double es_stats_nlogn_tab[ES_STATS_TAB];
double es_stats_lnfact_tab[ES_STATS_TAB];
double es_stats_recip_tab[ES_STATS_TAB];
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

/* The omitted term is below 1/(1188 z^9) < 1e-14 absolute at z = 16, far
 * under one ulp of the result. */
double es_stats_lngamma_stirling(double z)
{
    const double half_ln_2pi = 0.91893853320467274178;
    double r = 1.0 / z, r2 = r * r;
    double series = r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680))));
    return (z - 0.5) * log(z) - z + half_ln_2pi + series;
}

static void tables_build(void)
{
    /* ln n! summed exactly enough in long double for small n, then Stirling
     * (independent per entry, so no error accumulates along the table). */
    long double acc = 0.0L;
    es_stats_nlogn_tab[0] = 0.0;
    es_stats_lnfact_tab[0] = 0.0;
    es_stats_recip_tab[0] = 0.0;
    for (uint32_t n = 1; n < ES_STATS_TAB; n++) {
        double x = (double)n;
        es_stats_nlogn_tab[n] = x * log(x);
        es_stats_recip_tab[n] = 1.0 / x;
        if (n < 32) {
            acc += logl((long double)n);
            es_stats_lnfact_tab[n] = (double)acc;
        } else {
            es_stats_lnfact_tab[n] = es_stats_lngamma_stirling(x + 1.0);
        }
    }
}

void es_stats_tables_init(void) { pthread_once(&tab_once, tables_build); }

const double *es_nlogn_table(void)
{
    es_stats_tables_init();
    return es_stats_nlogn_tab;
}

double es_lnfact(uint64_t n)
{
    es_stats_tables_init();
    return es_stats_lnfact(n, 0);
}
