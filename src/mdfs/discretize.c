/* discretize.c -- MDFS's random quantile discretisation and contrast
 * variables, bit for bit: the MDFS package is C++ and draws with std::mt19937,
 * std::uniform_real_distribution<double> and std::uniform_int_distribution<>
 * as libstdc++ implements them (generate_canonical with two 32-bit draws;
 * Lemire's multiply-shift), so those are written out here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mdfs.h"
#include "mdfs_internal.h"

/* ---- std::mt19937 ----------------------------------------------------------- */

void es_mt_seed(es_mt_t *m, uint32_t s)
{
    m->x[0] = s;
    for (int i = 1; i < 624; i++)
        m->x[i] = 1812433253u * (m->x[i - 1] ^ (m->x[i - 1] >> 30)) + (uint32_t)i;
    m->i = 624;
}

uint32_t es_mt_next(es_mt_t *m)
{
    if (m->i >= 624) {
        /* the twist in three runs, no index arithmetic modulo 624 */
        uint32_t *x = m->x;
        int k = 0;
#define ES_MT_TWIST(a, b, c)                                                                       \
    do {                                                                                           \
        uint32_t y = (x[a] & 0x80000000u) | (x[b] & 0x7fffffffu);                                  \
        x[a] = x[c] ^ (y >> 1) ^ ((0u - (y & 1u)) & 0x9908b0dfu);                                  \
    } while (0)
        for (; k < 624 - 397; k++) ES_MT_TWIST(k, k + 1, k + 397);
        for (; k < 623; k++) ES_MT_TWIST(k, k + 1, k + 397 - 624);
        ES_MT_TWIST(623, 0, 396);
#undef ES_MT_TWIST
        m->i = 0;
    }
    uint32_t y = m->x[m->i++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

void es_mt_first(uint32_t s, uint32_t *out, int k)
{
    /* output i (< 227) is the tempered twist of x[i], x[i + 1] and x[i + 397]
     * of the seeded state, none of them twisted yet: seed 397 + k words */
    uint32_t x[397 + ES_MT_FIRST_MAX];
    x[0] = s;
    for (int j = 1; j < 397 + k; j++) x[j] = 1812433253u * (x[j - 1] ^ (x[j - 1] >> 30)) + (uint32_t)j;
    for (int i = 0; i < k; i++) {
        uint32_t y = (x[i] & 0x80000000u) | (x[i + 1] & 0x7fffffffu);
        y = x[i + 397] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c5680u;
        y ^= (y << 15) & 0xefc60000u;
        y ^= y >> 18;
        out[i] = y;
    }
}

/* std::generate_canonical<double, 53> from two draws, the second the high part. */
static double canonical2(uint32_t lo, uint32_t hi)
{
    double sum = (double)lo;
    sum += (double)hi * 4294967296.0;
    double r = sum / 18446744073709551616.0;
    if (r >= 1.0) r = nextafter(1.0, 0.0);
    return r;
}

/* std::uniform_int_distribution<int>(0, range - 1) over a 32-bit engine:
 * libstdc++'s _S_nd (Lemire), 64-bit products. */
static uint32_t uniform_below(es_mt_t *m, uint32_t range)
{
    uint64_t prod = (uint64_t)es_mt_next(m) * range;
    uint32_t low = (uint32_t)prod;
    if (low < range) {
        uint32_t thr = (uint32_t)(-range) % range;
        while (low < thr) {
            prod = (uint64_t)es_mt_next(m) * range;
            low = (uint32_t)prod;
        }
    }
    return (uint32_t)(prod >> 32);
}

/* ---- discretisation ---------------------------------------------------------- */

/* Put the values of ranks rank[0 .. nr) (non-decreasing) of a[0 .. n) in
 * val[]: quickselect (median of three, Hoare partition) for the middle rank,
 * then each side for the ranks on it.  a is reordered. */
static void select_ranks(double *a, size_t n, const size_t *rank, int nr, double *val)
{
    if (nr <= 0) return;
    const int mid = nr / 2;
    const size_t k = rank[mid];
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1;
    while (hi > lo) {
        double x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi];
        double piv = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        ptrdiff_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < piv) i++;
            while (a[j] > piv) j--;
            if (i <= j) {
                double t = a[i];
                a[i++] = a[j], a[j--] = t;
            }
        }
        if ((ptrdiff_t)k <= j) hi = j;
        else if ((ptrdiff_t)k >= i) lo = i;
        else break;
    }
    val[mid] = a[k];
    int l = mid, r = mid + 1;
    while (l > 0 && rank[l - 1] == k) val[--l] = a[k];
    while (r < nr && rank[r] == k) val[r++] = a[k];
    /* left of k: a[0 .. k) holds the values <= a[k]; right: a(k .. n) >= a[k] */
    select_ranks(a, k, rank, l, val);
    size_t sub[ES_MDFS_MAX_DIV];
    for (int q = r; q < nr; q++) sub[q - r] = rank[q] - k - 1;
    select_ranks(a + k + 1, n - k - 1, sub, nr - r, val + r);
}

void es_mdfs_discretize(uint32_t seed, uint32_t disc, uint32_t feature, int divisions, uint32_t n,
                        const double *x, double *scratch, uint8_t *out, double range)
{
    double u[ES_MDFS_MAX_DIV + 1], thr[ES_MDFS_MAX_DIV];
    uint32_t r[2 * (ES_MDFS_MAX_DIV + 1)], s;
    const double lo = 1.0 - range, w = (1.0 + range) - lo;
    /* the chain: seed -> first output ^ disc -> first output ^ feature */
    es_mt_first(seed, &s, 1);
    es_mt_first(s ^ disc, &s, 1);
    es_mt_first(s ^ feature, r, 2 * (divisions + 1));
    double sum = 0.0;
    for (int d = 0; d <= divisions; d++) {
        u[d] = canonical2(r[2 * d], r[2 * d + 1]) * w + lo;
        sum += u[d];
    }
    size_t done = 0, rank[ES_MDFS_MAX_DIV];
    const double step = (double)n / sum;
    for (int d = 0; d < divisions; d++) {
        done += (size_t)lround(u[d] * step);
        if (done >= n) done = n - 1;
        rank[d] = done;
    }
    memcpy(scratch, x, sizeof(double) * n);
    select_ranks(scratch, n, rank, divisions, thr);
    for (uint32_t o = 0; o < n; o++) {
        uint8_t c = 0;
        for (int d = 0; d < divisions; d++) c += x[o] > thr[d];
        out[o] = c;
    }
}

/* ---- contrast variables --------------------------------------------------------- */

/* Draws gen() % space until one not yet used (MDFS's mdfs_sample_to and
 * mdfs_shuffle_to: a std::set of the used ones; a byte map here). */
static uint32_t draw_unused(es_mt_t *m, uint32_t space, uint8_t *used)
{
    uint32_t i = es_mt_next(m) % space;
    while (used[i]) i = es_mt_next(m) % space;
    used[i] = 1;
    return i;
}

int es_mdfs_contrast(uint32_t seed, uint32_t n, uint32_t n_vars, const double *x,
                     uint32_t n_contrast, double *out, uint32_t *idx)
{
    es_mt_t m;
    es_mt_seed(&m, seed);
    uint32_t big = n > n_vars ? n : n_vars;
    uint8_t *used = calloc(big ? big : 1, 1);
    if (!used) return ES_ERR_NOMEM;
    if (n_contrast > n_vars) {
        for (uint32_t i = 0; i < n_contrast; i++) idx[i] = uniform_below(&m, n_vars);
    } else {
        for (uint32_t i = 0; i < n_contrast; i++) idx[i] = draw_unused(&m, n_vars, used);
    }
    for (uint32_t i = 0; i < n_contrast; i++) {
        memset(used, 0, n);
        const double *src = x + (size_t)idx[i] * n;
        double *dst = out + (size_t)i * n;
        for (uint32_t o = 0; o < n; o++) dst[o] = src[draw_unused(&m, n, used)];
    }
    free(used);
    return ES_OK;
}

/* ---- the suggested range ---------------------------------------------------------- */

int es_mdfs_suggested_range(uint32_t n, int dim, int divisions, double *range)
{
    double ksi = pow(3.0 / n, 1.0 / dim);
    double r = (1.0 - ksi * (1 + divisions)) / (1.0 - ksi * (1 - divisions));
    r = r < 1.0 ? r : 1.0;
    r = r > 0.0 ? r : 0.0;
    *range = r;
    return r < 0.25 ? ES_ERR_ARG : ES_OK;
}
