/* bench_stats.c -- ns per call of each statistic on realistic tables: random
 * genotype pairs (MAF 0.05-0.5) of N samples (half cases) with 1 % missing calls.
 * Prints a table; not part of make check.
 *
 *   build/tests/bench/bench_stats [N]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "select.h"

#define N_TABLES 4096
#define ROUNDS 7

static uint64_t rng_state = 12345;
static double urand(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1p-53;
}

static int genotype(double maf)
{
    if (urand() < 0.01) return -1;
    return (urand() < maf) + (urand() < maf);
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 2000;
    es_table2_t *t = calloc(N_TABLES, sizeof *t);
    if (!t || n < 2) return 1;
    for (int k = 0; k < N_TABLES; k++) {
        double ma = 0.05 + 0.45 * urand(), mb = 0.05 + 0.45 * urand();
        for (uint32_t s = 0; s < n; s++) {
            int ga = genotype(ma), gb = genotype(mb);
            if (ga >= 0 && gb >= 0) t[k].n[s < n / 2][ga * 3 + gb]++;
        }
    }
    printf("statistics, one thread, ns per call (best of %d rounds of %d tables; N=%u, 1%% missing)\n",
           ROUNDS, N_TABLES, n);
    printf("%-8s %14s %14s\n", "stat", "value only", "with p-value");
    volatile double sink = 0;
    for (int s = ES_STAT_BOOST; s <= ES_STAT_K2 + 1; s++) {
        double best[2] = {INFINITY, INFINITY};
        for (int mode = 0; mode < 2; mode++) {
            if (s > ES_STAT_K2 && mode == 1) continue;
            for (int r = 0; r < ROUNDS; r++) {
                double t0 = es_time_now();
                for (int k = 0; k < N_TABLES; k++) {
                    es_stat_result_t res;
                    if (s > ES_STAT_K2) {
                        sink += es_stat_boost_bound(&t[k]);
                        continue;
                    }
                    if (mode == 0) es_stat_value((es_stat_t)s, &t[k], &res);
                    else es_stat_compute((es_stat_t)s, &t[k], &res);
                    sink += res.stat;
                }
                double ns = (es_time_now() - t0) * 1e9 / N_TABLES;
                if (ns < best[mode]) best[mode] = ns;
            }
        }
        const char *name = s > ES_STAT_K2 ? "boost-bd" : es_stat_name((es_stat_t)s);
        if (s > ES_STAT_K2) printf("%-8s %14.1f %14s\n", name, best[0], "-");
        else printf("%-8s %14.1f %14.1f\n", name, best[0], best[1]);
    }
    free(t);
    return sink == 42.0;
}
