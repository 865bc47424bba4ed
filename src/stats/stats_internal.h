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

/* The cofactors and determinant of the symmetric 4x4 matrix
 *     a b c d
 *     b e f g
 *     c f h i
 *     d g i j
 * as linear.c's invert4 takes them, declared as type T: a double there, an
 * AVX-512 vector of eight in linear_batch.c, so that both do the same IEEE
 * operations in the same order (PLINK's |det| rule must decide alike). */
#define ES_INVERT4_COFACTORS(T, a, b, c, d, e, f, g, h, i, j)                                                           \
    T m23_23 = h * j - i * i, m23_13 = f * j - g * i, m23_12 = f * i - g * h;                                          \
    T m23_03 = c * j - d * i, m23_02 = c * i - d * h, m23_01 = c * g - d * f;                                          \
    T c00 = e * m23_23 - f * m23_13 + g * m23_12;                                                                      \
    T c01 = -(b * m23_23 - f * m23_03 + g * m23_02);                                                                   \
    T c02 = b * m23_13 - e * m23_03 + g * m23_01;                                                                      \
    T c03 = -(b * m23_12 - e * m23_02 + f * m23_01);                                                                   \
    T det = a * c00 + b * c01 + c * c02 + d * c03;                                                                     \
    T c11 = a * m23_23 - c * m23_03 + d * m23_02;                                                                      \
    T c12 = -(a * m23_13 - b * m23_03 + d * m23_01);                                                                   \
    T c13 = a * m23_12 - b * m23_02 + c * m23_01;                                                                      \
    T k22 = a * (e * j - g * g) - b * (b * j - g * d) + d * (b * g - e * d);                                           \
    T k23 = -(a * (e * i - g * f) - b * (b * i - g * c) + d * (b * f - e * c));                                        \
    T k33 = a * (e * h - f * f) - b * (b * h - f * c) + c * (b * f - e * c)

/* ... and the inverse from them into m[16] (r = 1 / det) */
#define ES_INVERT4_STORE(m, r)                                                                                         \
    do {                                                                                                               \
        m[0] = c00 * r;                                                                                                \
        m[1] = m[4] = c01 * r;                                                                                         \
        m[2] = m[8] = c02 * r;                                                                                         \
        m[3] = m[12] = c03 * r;                                                                                        \
        m[5] = c11 * r;                                                                                                \
        m[6] = m[9] = c12 * r;                                                                                         \
        m[7] = m[13] = c13 * r;                                                                                        \
        m[10] = k22 * r;                                                                                               \
        m[11] = m[14] = k23 * r;                                                                                       \
        m[15] = k33 * r;                                                                                               \
    } while (0)

/* The linear tests' sums of a 3x3 table n[a * 3 + b]: ct, sum a, a^2, b,
 * b^2, ab, a^2 b, a b^2, a^2 b^2 (exact integers) into s[0..8]. */
static inline void es_linear_table_sums(const uint32_t *n, uint64_t s[9])
{
    uint64_t ct = 0, sa = 0, saa = 0, sb = 0, sbb = 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            uint64_t c = n[a * 3 + b];
            ct += c;
            sa += c * (uint64_t)a;
            saa += c * (uint64_t)(a * a);
            sb += c * (uint64_t)b;
            sbb += c * (uint64_t)(b * b);
        }
    uint64_t c11 = n[4], c12 = n[5], c21 = n[7], c22 = n[8];
    s[0] = ct;
    s[1] = sa;
    s[2] = saa;
    s[3] = sb;
    s[4] = sbb;
    s[5] = c11 + 2 * (c12 + c21) + 4 * c22;
    s[6] = c11 + 2 * c12 + 4 * c21 + 8 * c22;
    s[7] = c11 + 4 * c12 + 2 * c21 + 8 * c22;
    s[8] = c11 + 4 * (c12 + c21) + 16 * c22;
}

#endif /* ES_STATS_INTERNAL_H */
