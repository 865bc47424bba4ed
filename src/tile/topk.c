/* topk.c -- bounded heaps of the k best pairs, and the one total order on pairs.
 *
 * The order is total (statistic, then i, then j), so merging per-thread heaps in
 * any order gives the same k pairs: that is what makes the output independent of
 * thread count and tile size. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tile.h"

/* The statistic part of the total order: -1 when a ranks first, 1 when b
 * does, 0 when equal.  NaN never ranks above a number (defensive:
 * statistics are never NaN). */
static int stat_rank(double a, double b, int higher_is_better)
{
    int an = isnan(a), bn = isnan(b);
    if (an != bn) return an ? 1 : -1;
    if (an || a == b) return 0;
    return (higher_is_better ? a > b : a < b) ? -1 : 1;
}

int es_pair_rank_cmp(const es_pair_t *a, const es_pair_t *b, int higher_is_better)
{
    int c = stat_rank(a->stat, b->stat, higher_is_better);
    if (c) return c;
    if (a->i != b->i) return a->i < b->i ? -1 : 1;
    if (a->j != b->j) return a->j < b->j ? -1 : 1;
    return 0;
}

/* Both heaps' fields but the element type are the same: their set-up. */
#define INIT_BODY(t, k_, hib)                                                                      \
    do {                                                                                           \
        (t)->n = 0;                                                                                \
        (t)->has_floor = 0;                                                                        \
        (t)->floor = 0;                                                                            \
        (t)->k = (k_);                                                                             \
        (t)->higher_is_better = (hib);                                                             \
        (t)->heap = (k_) ? malloc((k_) * sizeof *(t)->heap) : NULL;                                \
        if ((k_) && !(t)->heap) {                                                                  \
            es_error("cannot allocate a top-%zu list", (size_t)(k_));                              \
            return ES_ERR_NOMEM;                                                                   \
        }                                                                                          \
        return ES_OK;                                                                              \
    } while (0)

int es_topk_init(es_topk_t *t, size_t k, int higher_is_better) { INIT_BODY(t, k, higher_is_better); }

void es_topk_free(es_topk_t *t)
{
    free(t->heap);
    t->heap = NULL;
    t->n = t->k = 0;
}

/* "x is worse than y": x belongs nearer the root */
static inline int worse(const es_topk_t *t, const es_pair_t *x, const es_pair_t *y)
{
    return es_pair_rank_cmp(x, y, t->higher_is_better) > 0;
}

static void sift_down(es_topk_t *t, size_t i)
{
    es_pair_t *h = t->heap;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, w = i;
        if (l < t->n && worse(t, &h[l], &h[w])) w = l;
        if (r < t->n && worse(t, &h[r], &h[w])) w = r;
        if (w == i) return;
        es_pair_t tmp = h[i];
        h[i] = h[w];
        h[w] = tmp;
        i = w;
    }
}

static void sift_up(es_topk_t *t, size_t i)
{
    es_pair_t *h = t->heap;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!worse(t, &h[i], &h[parent])) return;
        es_pair_t tmp = h[i];
        h[i] = h[parent];
        h[parent] = tmp;
        i = parent;
    }
}

/* ---- floors: the heaps of one tile, and the scan's list ---------------------
 * A worker's heap holds one tile's best (merged into the scan's list when the
 * tile is done, so that the list always covers exactly the finished tiles);
 * the list's k-th best, taken as the heap's floor, keeps the worker from
 * pushing what could never enter. */
#define KTH_BODY(t, out)                                                                           \
    do {                                                                                           \
        int have = 0;                                                                              \
        double v = 0;                                                                              \
        if ((t)->k && (t)->n == (t)->k) {                                                          \
            v = (t)->heap[0].stat;                                                                 \
            have = 1;                                                                              \
        }                                                                                          \
        if ((t)->has_floor && (!have || ((t)->higher_is_better ? (t)->floor > v : (t)->floor < v))) { \
            v = (t)->floor;                                                                        \
            have = 1;                                                                              \
        }                                                                                          \
        *(out) = v;                                                                                \
        return have;                                                                               \
    } while (0)

int es_topk_kth(const es_topk_t *t, double *out) { KTH_BODY(t, out); }
int es_topk3_kth(const es_topk3_t *t, double *out) { KTH_BODY(t, out); }

void es_topk_clear(es_topk_t *t) { t->n = 0; }
void es_topk3_clear(es_topk3_t *t) { t->n = 0; }

#define SET_FLOOR_BODY(t, full)                                                                    \
    do {                                                                                           \
        if (!(full)->k || (full)->n < (full)->k) return;                                           \
        (t)->floor = (full)->heap[0].stat;                                                         \
        (t)->has_floor = 1;                                                                        \
    } while (0)

void es_topk_set_floor(es_topk_t *t, const es_topk_t *full) { SET_FLOOR_BODY(t, full); }
void es_topk3_set_floor(es_topk3_t *t, const es_topk3_t *full) { SET_FLOOR_BODY(t, full); }

/* Could stat enter (equal statistics may, on the index tie-break)? */
#define WOULD_ACCEPT_BODY(t, stat)                                                                 \
    do {                                                                                           \
        if ((t)->k == 0) return 0;                                                                 \
        int hib_ = (t)->higher_is_better;                                                          \
        if ((t)->has_floor && (hib_ ? (stat) < (t)->floor : (stat) > (t)->floor)) return 0;        \
        if ((t)->n < (t)->k) return 1;                                                             \
        double w_ = (t)->heap[0].stat;                                                             \
        return hib_ ? (stat) >= w_ : (stat) <= w_;                                                 \
    } while (0)

int es_topk_would_accept(const es_topk_t *t, double stat) { WOULD_ACCEPT_BODY(t, stat); }

void es_topk_push(es_topk_t *t, const es_pair_t *p)
{
    if (t->k == 0) return;
    if (t->n < t->k) {
        t->heap[t->n++] = *p;
        sift_up(t, t->n - 1);
        return;
    }
    if (!worse(t, &t->heap[0], p)) return;
    t->heap[0] = *p;
    sift_down(t, 0);
}

void es_topk_merge(es_topk_t *dst, const es_topk_t *src)
{
    for (size_t i = 0; i < src->n; i++) es_topk_push(dst, &src->heap[i]);
}

static int cmp_hib(const void *a, const void *b) { return es_pair_rank_cmp(a, b, 1); }
static int cmp_lib(const void *a, const void *b) { return es_pair_rank_cmp(a, b, 0); }

void es_topk_sort(es_topk_t *t)
{
    if (t->n) qsort(t->heap, t->n, sizeof *t->heap, t->higher_is_better ? cmp_hib : cmp_lib);
}

/* ---- triples: the same heap over es_triple_t ------------------------------ */

int es_triple_rank_cmp(const es_triple_t *a, const es_triple_t *b, int higher_is_better)
{
    int c = stat_rank(a->stat, b->stat, higher_is_better);
    if (c) return c;
    if (a->i != b->i) return a->i < b->i ? -1 : 1;
    if (a->j != b->j) return a->j < b->j ? -1 : 1;
    if (a->k != b->k) return a->k < b->k ? -1 : 1;
    return 0;
}

int es_topk3_init(es_topk3_t *t, size_t k, int higher_is_better) { INIT_BODY(t, k, higher_is_better); }

void es_topk3_free(es_topk3_t *t)
{
    free(t->heap);
    t->heap = NULL;
    t->n = t->k = 0;
}

static inline int worse3(const es_topk3_t *t, const es_triple_t *x, const es_triple_t *y)
{
    return es_triple_rank_cmp(x, y, t->higher_is_better) > 0;
}

int es_topk3_would_accept(const es_topk3_t *t, double stat) { WOULD_ACCEPT_BODY(t, stat); }

void es_topk3_push(es_topk3_t *t, const es_triple_t *p)
{
    es_triple_t *h = t->heap;
    size_t i;
    if (t->k == 0) return;
    if (t->n < t->k) {
        /* sift up */
        for (i = t->n++; i > 0 && worse3(t, p, &h[(i - 1) / 2]); i = (i - 1) / 2) h[i] = h[(i - 1) / 2];
        h[i] = *p;
        return;
    }
    if (!worse3(t, &h[0], p)) return;
    /* replace the root and sift down */
    for (i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, w = i;
        const es_triple_t *hw = p;
        if (l < t->n && worse3(t, &h[l], hw)) w = l, hw = &h[l];
        if (r < t->n && worse3(t, &h[r], hw)) w = r;
        if (w == i) break;
        h[i] = h[w];
        i = w;
    }
    h[i] = *p;
}

void es_topk3_merge(es_topk3_t *dst, const es_topk3_t *src)
{
    for (size_t i = 0; i < src->n; i++) es_topk3_push(dst, &src->heap[i]);
}

static int cmp3_hib(const void *a, const void *b) { return es_triple_rank_cmp(a, b, 1); }
static int cmp3_lib(const void *a, const void *b) { return es_triple_rank_cmp(a, b, 0); }

void es_topk3_sort(es_topk3_t *t)
{
    if (t->n) qsort(t->heap, t->n, sizeof *t->heap, t->higher_is_better ? cmp3_hib : cmp3_lib);
}
