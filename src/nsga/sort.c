/* sort.c -- NSGA-II's orderings (Deb, Pratap, Agarwal, Meyarivan 2002): the
 * non-dominated sort (Deb's ranks, in O(n log n) for two objectives), the crowding distance, and the two-objective
 * hypervolume the run reports per generation.  Every order is total (ties
 * by index), so the survivors never depend on a sort's stability. */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nsga_internal.h"

static int dominates(const double *a, const double *b)
{
    return a[0] <= b[0] && a[1] <= b[1] && (a[0] < b[0] || a[1] < b[1]);
}

typedef struct {
    double v;
    uint32_t k;
} key_t_;

static int cmp_key(const void *a, const void *b)
{
    const key_t_ *x = a, *y = b;
    if (x->v != y->v) return x->v < y->v ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

/* by F1, then F2, then index */
static int cmp_f01(const void *a, const void *b, void *ctx)
{
    const double *f = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (f[2 * i] != f[2 * j]) return f[2 * i] < f[2 * j] ? -1 : 1;
    if (f[2 * i + 1] != f[2 * j + 1]) return f[2 * i + 1] < f[2 * j + 1] ? -1 : 1;
    return (i > j) - (i < j);
}

/* Two objectives allow the sort in O(n log n) (the result is Deb's ranks):
 * taken by F1 (then F2), a point can be dominated only by points before
 * it, and within a front the last point taken has the smallest F2, so it
 * alone tells whether the front dominates the next point; the fronts that
 * do form a prefix, found by binary search. */
int es_nsga_sort(const double *f, uint32_t n, uint32_t *rank)
{
    uint32_t *ord = malloc((n ? n : 1) * sizeof *ord), *last = malloc((n ? n : 1) * sizeof *last);
    if (!ord || !last) {
        free(ord);
        free(last);
        return ES_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < n; i++) ord[i] = i;
    qsort_r(ord, n, sizeof *ord, cmp_f01, (void *)f);
    uint32_t fronts = 0;
    for (uint32_t q = 0; q < n; q++) {
        uint32_t i = ord[q], lo = 0, hi = fronts; /* first front that does not dominate i */
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (dominates(f + 2 * last[mid], f + 2 * i)) lo = mid + 1;
            else hi = mid;
        }
        rank[i] = lo;
        last[lo] = i;
        if (lo == fronts) fronts++;
    }
    free(ord);
    free(last);
    return (int)fronts;
}


int es_nsga_crowding(const double *f, const uint32_t *idx, uint32_t m, double *dist)
{
    for (uint32_t k = 0; k < m; k++) dist[k] = 0.0;
    if (m <= 2) {
        for (uint32_t k = 0; k < m; k++) dist[k] = INFINITY;
        return ES_OK;
    }
    key_t_ *key = malloc(m * sizeof *key);
    if (!key) return ES_ERR_NOMEM;
    for (int o = 0; o < 2; o++) {
        for (uint32_t k = 0; k < m; k++) {
            key[k].v = f[2 * idx[k] + o];
            key[k].k = k;
        }
        qsort(key, m, sizeof *key, cmp_key);
        double span = key[m - 1].v - key[0].v;
        dist[key[0].k] = INFINITY;
        dist[key[m - 1].k] = INFINITY;
        if (span <= 0.0) continue;
        for (uint32_t q = 1; q + 1 < m; q++)
            dist[key[q].k] += (key[q + 1].v - key[q - 1].v) / span;
    }
    free(key);
    return ES_OK;
}

static int cmp_pt(const void *a, const void *b)
{
    const double *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

double es_nsga_hv(const double *f, uint32_t n, const double ref[2])
{
    double *pt = malloc((n ? n : 1) * 2 * sizeof *pt);
    uint32_t m = 0;
    if (!pt) return NAN;
    for (uint32_t i = 0; i < n; i++)
        if (f[2 * i] < ref[0] && f[2 * i + 1] < ref[1]) {
            pt[2 * m] = f[2 * i];
            pt[2 * m + 1] = f[2 * i + 1];
            m++;
        }
    qsort(pt, m, 2 * sizeof *pt, cmp_pt);
    /* sweep by F1: each point adds the strip up to the best F2 so far */
    double hv = 0.0, best = ref[1];
    for (uint32_t i = 0; i < m; i++) {
        if (pt[2 * i + 1] >= best) continue;
        hv += (ref[0] - pt[2 * i]) * (best - pt[2 * i + 1]);
        best = pt[2 * i + 1];
    }
    free(pt);
    return hv;
}
