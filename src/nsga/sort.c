/* sort.c -- NSGA-II's orderings (Deb, Pratap, Agarwal, Meyarivan 2002): the
 * fast non-dominated sort, the crowding distance, and the two-objective
 * hypervolume the run reports per generation.  Every order is total (ties
 * by index), so the survivors never depend on a sort's stability. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nsga_internal.h"

static int dominates(const double *a, const double *b)
{
    return a[0] <= b[0] && a[1] <= b[1] && (a[0] < b[0] || a[1] < b[1]);
}

int es_nsga_sort(const double *f, uint32_t n, uint32_t *rank)
{
    /* S_p as one flat list per point (Deb's sets), n_p the domination counts */
    uint32_t *cnt = calloc(n ? n : 1, sizeof *cnt), *start = malloc((n + 1) * sizeof *start);
    uint32_t *front = malloc((n ? n : 1) * sizeof *front);
    uint32_t *dom = NULL;
    size_t n_dom = 0;
    int fronts = 0;
    if (!cnt || !start || !front) goto nomem;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++)
            if (dominates(f + 2 * i, f + 2 * j)) n_dom++;
    if (!(dom = malloc((n_dom ? n_dom : 1) * sizeof *dom))) goto nomem;
    n_dom = 0;
    for (uint32_t i = 0; i < n; i++) {
        start[i] = (uint32_t)n_dom;
        for (uint32_t j = 0; j < n; j++) {
            if (dominates(f + 2 * i, f + 2 * j)) dom[n_dom++] = j;
            else if (dominates(f + 2 * j, f + 2 * i)) cnt[i]++;
        }
    }
    start[n] = (uint32_t)n_dom;
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!cnt[i]) {
            rank[i] = 0;
            front[m++] = i;
        }
    uint32_t lo = 0;
    while (lo < m) {
        uint32_t hi = m;
        for (uint32_t q = lo; q < hi; q++) {
            uint32_t i = front[q];
            for (uint32_t e = start[i]; e < start[i + 1]; e++)
                if (!--cnt[dom[e]]) {
                    rank[dom[e]] = (uint32_t)fronts + 1;
                    front[m++] = dom[e];
                }
        }
        fronts++;
        lo = hi;
    }
    free(cnt);
    free(start);
    free(front);
    free(dom);
    return fronts;
nomem:
    free(cnt);
    free(start);
    free(front);
    free(dom);
    return ES_ERR_NOMEM;
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
