/* engine.c -- the MDFS counting engine: every k-tuple of variables, every
 * discretisation, the 2 x m^k table of each tuple counted with bit vectors and
 * the information gain of each of its variables.
 *
 * Objects are sorted by class (class 0 in words [0, w0), class 1 in [w0, W)),
 * each variable has one bit vector per class of its discretisation (bin).
 * A tuple's table is built one variable at a time: the AND vectors of the
 * first l variables' cells (a "prefix", m^l vectors) are ANDed with the bins
 * of the next variable; only the innermost variable is done per tuple, eight
 * of them at once (kernel.c: their bins interleaved in lanes), and only m - 1
 * of its bins are counted: the last bin is the prefix cell's count less the
 * others.  Empty prefix cells are skipped.
 *
 * Hc(T) = sum over cells of (c0 + c1) log2(c0 + c1) - c0 log2 c0 - c1 log2 c1
 * with c_y = n_y + pseudo_y (the full table) or n_y + m pseudo_y (a table with
 * one variable summed out), from tables of n log n precomputed per class; the
 * IG of variable j = Hc(table without j) - Hc(table).  The table without the
 * innermost variable is the prefix's, computed once per prefix; the others
 * are (k-1)-tuples whose Hc is precomputed once per discretisation (or, for
 * very many variables, summed per tuple).
 *
 * Threads take first variables from a dynamic queue; every reduction (each
 * variable's maximum, the best tuples) uses a total order (IG, then the lower
 * discretisation, then the lexicographically lower tuple), so the result does
 * not depend on the thread count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "mdfs.h"
#include "mdfs_gpu.h"
#include "mdfs_internal.h"
#include "util.h"

/* What every thread reads (one discretisation at a time). */
typedef struct {
    uint32_t k, m, n_vars, n_con, n_obj;
    uint32_t cls[2], w0, W;
    uint64_t *planes;      /* (n_vars + n_con) * m * W words */
    uint32_t *bin_ct;      /* (n_vars + n_con) * m * 2: per bin, per class */
    double *F[2][2];       /* [level 0 full / 1 margin][class][n] = c log2 c, c = n + pseudo */
    double *G[2];          /* [level][n0 + n1] = c log2 c, c = n0 + n1 + both pseudos */
    double ps[2];          /* the full table's pseudocount a cell, a class */
    uint32_t *inv;         /* 64 W: the object at each position, UINT32_MAX where none */
    uint8_t *xs;           /* 64 W a thread: a variable's classes in position order */
    uint64_t *lanes;       /* the counted bins (m - 1) interleaved by 8 variables (kernel.c):
                              slot s = a variable v < n_vars, or n_vars8 + a contrast variable */
    uint32_t n_vars8;      /* n_vars rounded up to 8: the first contrast slot */
    es_mdfs_cells8_fn cells8;
    es_mdfs_and_fn and_ct;
    uint64_t *all;         /* W words: every object's bit */
    uint32_t disc;
    uint64_t keep;         /* best (tuple, variable) entries kept per thread */
    /* Hc (margin pseudocounts) of every (k-1)-tuple of variables, precomputed
     * per discretisation, at the tuple's combinatorial rank sum_i C(t_i, i + 1)
     * (binom[i * (n_vars + 1) + x] = C(x, i)): a tuple's IG for each of its
     * first k - 1 variables is then a load.  NULL when that would exceed
     * HM_MAX_BYTES: the margins are summed per tuple. */
    double *hm;
    uint64_t *binom;
    double h0;             /* Hc of an empty cell of a full table */
} ctx_t;

/* The (k-1)-tuples' Hc are precomputed up to this many bytes. */
#define HM_MAX_BYTES (256ull << 20)

/* A variable's best so far. */
typedef struct {
    double ig;
    uint32_t disc;
    uint32_t tuple[ES_MDFS_MAX_DIM];
} best_t;

/* One thread's state. */
typedef struct {
    uint64_t *lvl[ES_MDFS_MAX_DIM];  /* prefix vectors of level l (m^l * W words) */
    uint32_t *lct[ES_MDFS_MAX_DIM];  /* their counts, [cell][2] */
    uint32_t *cells;                 /* full table: [cell][2], m^k cells */
    uint32_t *mar;                   /* a margin: m^(k-1) cells * 2 */
    uint32_t *nz;                    /* nonempty prefix cells */
    uint32_t nnz;
    const uint64_t **pre;            /* their vectors */
    uint32_t *out8;                  /* the kernel's counts: [cell][bin][class][8] */
    best_t *best;                    /* n_vars */
    double *cbest;                   /* n_con */
    es_mdfs_tuple_t *heap;           /* the kept entries, a min-heap (worst on top) */
    uint64_t n_heap;
} thr_t;

static double plogp(double c) { return c * log2(c); }

static inline double hc_cells(const ctx_t *c, int lev, const uint32_t *t, uint32_t n_cells)
{
    const double *f0 = c->F[lev][0], *f1 = c->F[lev][1], *g = c->G[lev];
    double h = 0.0;
    for (uint32_t i = 0; i < n_cells; i++) {
        uint32_t a = t[2 * i], b = t[2 * i + 1];
        h += g[a + b] - f0[a] - f1[b];
    }
    return h;
}

/* a better than b: higher IG, then the lower discretisation, then the
 * lexicographically lower tuple (then the lower variable). */
static int better(double ig_a, uint32_t d_a, const uint32_t *t_a, uint32_t v_a, double ig_b,
                  uint32_t d_b, const uint32_t *t_b, uint32_t v_b, uint32_t k)
{
    if (ig_a != ig_b) return ig_a > ig_b;
    if (d_a != d_b) return d_a < d_b;
    for (uint32_t j = 0; j < k; j++)
        if (t_a[j] != t_b[j]) return t_a[j] < t_b[j];
    return v_a < v_b;
}

static int ent_better(const es_mdfs_tuple_t *a, const es_mdfs_tuple_t *b, uint32_t k)
{
    return better(a->ig, a->disc, a->tuple, a->var, b->ig, b->disc, b->tuple, b->var, k);
}

/* The min-heap of kept entries: the worst on top. */
static void heap_offer(thr_t *t, uint64_t cap, const es_mdfs_tuple_t *e, uint32_t k)
{
    es_mdfs_tuple_t *h = t->heap;
    uint64_t i;
    if (t->n_heap < cap) {
        i = t->n_heap++;
        while (i) {
            uint64_t p = (i - 1) / 2;
            if (!ent_better(&h[p], e, k)) break;
            h[i] = h[p];
            i = p;
        }
        h[i] = *e;
        return;
    }
    if (!ent_better(e, &h[0], k)) return;
    i = 0;
    for (;;) {
        uint64_t l = 2 * i + 1, r = l + 1, w = i;
        const es_mdfs_tuple_t *wv = e;
        if (l < t->n_heap && ent_better(wv, &h[l], k)) w = l, wv = &h[l];
        if (r < t->n_heap && ent_better(wv, &h[r], k)) w = r, wv = &h[r];
        if (w == i) break;
        h[i] = h[w];
        i = w;
    }
    h[i] = *e;
}

/* qsort orders of kept entries: rank (best first) and key (tuple, variable;
 * the best first within a key). */
static int by_rank(const void *a, const void *b)
{
    const es_mdfs_tuple_t *x = a, *y = b;
    if (ent_better(x, y, ES_MDFS_MAX_DIM)) return -1;
    return ent_better(y, x, ES_MDFS_MAX_DIM) ? 1 : 0;
}

static int by_key_only(const es_mdfs_tuple_t *x, const es_mdfs_tuple_t *y)
{
    int c = memcmp(x->tuple, y->tuple, sizeof x->tuple);
    if (c) return c;
    return (x->var > y->var) - (x->var < y->var);
}

static int by_key(const void *a, const void *b)
{
    int c = by_key_only(a, b);
    return c ? c : by_rank(a, b);
}

static const uint64_t *plane(const ctx_t *c, uint32_t v, uint32_t b)
{
    return c->planes + ((size_t)v * c->m + b) * c->W;
}

/* Count the tables of the prefix of level lv (m^lv cells) with the eight
 * variables of lane group g: m - 1 bins a cell by AND + popcount (kernel.c),
 * into t->out8; the rows of empty prefix cells in t->cells are zeroed. */
static void count_group(const ctx_t *c, thr_t *t, uint32_t lv, uint32_t g)
{
    const uint32_t m = c->m, nb = m - 1, W = c->W;
    uint32_t n_pre = 1;
    for (uint32_t j = 0; j < lv; j++) n_pre *= m;
    const uint64_t *pv = t->lvl[lv];
    const uint32_t *pct = t->lct[lv];
    uint32_t nnz = 0;
    for (uint32_t p = 0; p < n_pre; p++) {
        if (pct[2 * p] | pct[2 * p + 1]) {
            t->pre[nnz] = pv + (size_t)p * W;
            t->nz[nnz++] = p;
        } else {
            memset(t->cells + (size_t)p * m * 2, 0, sizeof(uint32_t) * 2 * m);
        }
    }
    t->nnz = nnz;
    c->cells8(t->pre, nnz, c->lanes + (size_t)g * nb * W * 8, nb, c->w0, W, t->out8);
}

/* The table of lane j of the last count_group() into t->cells: the counted
 * bins, and the last bin of each prefix cell as its count less the others. */
static void assemble(const ctx_t *c, thr_t *t, uint32_t lv, uint32_t j)
{
    const uint32_t m = c->m, nb = m - 1;
    const uint32_t *pct = t->lct[lv], *o8 = t->out8 + j;
    for (uint32_t i = 0; i < t->nnz; i++) {
        const uint32_t p = t->nz[i];
        uint32_t *cp = t->cells + (size_t)p * m * 2, s0 = 0, s1 = 0;
        const uint32_t *oi = o8 + (size_t)i * nb * 16;
        for (uint32_t b = 0; b < nb; b++) {
            uint32_t a0 = oi[b * 16], a1 = oi[b * 16 + 8];
            cp[2 * b] = a0, cp[2 * b + 1] = a1;
            s0 += a0, s1 += a1;
        }
        cp[2 * nb] = pct[2 * p] - s0;
        cp[2 * nb + 1] = pct[2 * p + 1] - s1;
    }
}

static inline __attribute__((always_inline)) double
hc_lane_body(const ctx_t *c, const thr_t *t, uint32_t lv, uint32_t j, double h_empty, const uint32_t nb)
{
    /* each cell's term is independent: one partial sum per bin keeps the adds
     * out of one serial chain (one chain of 2 x 27 dependent adds was a third
     * of a 3D run); nb is a constant in the usual cases, so they stay in
     * registers */
    const double *f0 = c->F[0][0], *f1 = c->F[0][1], *g = c->G[0];
    const uint32_t *pct = t->lct[lv], *o8 = t->out8 + j;
    double acc[ES_MDFS_MAX_DIV + 1] = {0.0};
    for (uint32_t i = 0; i < t->nnz; i++) {
        const uint32_t p = t->nz[i];
        const uint32_t *oi = o8 + (size_t)i * nb * 16;
        uint32_t s0 = 0, s1 = 0;
        for (uint32_t b = 0; b < nb; b++) {
            uint32_t a0 = oi[b * 16], a1 = oi[b * 16 + 8];
            acc[b] += g[a0 + a1] - (f0[a0] + f1[a1]);
            s0 += a0, s1 += a1;
        }
        uint32_t a0 = pct[2 * p] - s0, a1 = pct[2 * p + 1] - s1;
        acc[nb] += g[a0 + a1] - (f0[a0] + f1[a1]);
    }
    double h = h_empty;
    for (uint32_t b = 0; b <= nb; b++) h += acc[b];
    return h;
}

/* Hc of the full table of lane j of the last count_group(), without writing
 * it (the cells of empty prefix cells add h_empty). */
static double hc_lane(const ctx_t *c, const thr_t *t, uint32_t lv, uint32_t j, double h_empty)
{
    switch (c->m - 1) {
    case 1: return hc_lane_body(c, t, lv, j, h_empty, 1);
    case 2: return hc_lane_body(c, t, lv, j, h_empty, 2);
    case 3: return hc_lane_body(c, t, lv, j, h_empty, 3);
    default: return hc_lane_body(c, t, lv, j, h_empty, c->m - 1);
    }
}

/* Hc of the full table with axis j (0 = the first variable) summed out. */
static double hc_without(const ctx_t *c, thr_t *t, uint32_t j)
{
    const uint32_t m = c->m, k = c->k;
    uint32_t s = 1, hi = 1;
    for (uint32_t q = j + 1; q < k; q++) s *= m;
    for (uint32_t q = 0; q < j; q++) hi *= m;
    /* the margin block by block: for each value of the axes before j, the
     * m slabs of s cells (both classes contiguous) added together */
    uint32_t *mar = t->mar, o = hi * s;
    const uint32_t *cells = t->cells;
    for (uint32_t h = 0; h < hi; h++) {
        uint32_t *dst = mar + (size_t)2 * h * s;
        const uint32_t *src = cells + (size_t)2 * h * s * m;
        memcpy(dst, src, sizeof(uint32_t) * 2 * s);
        for (uint32_t q = 1; q < m; q++) {
            const uint32_t *sq = src + (size_t)2 * q * s;
            for (uint32_t l = 0; l < 2 * s; l++) dst[l] += sq[l];
        }
    }
    return hc_cells(c, 1, mar, o);
}

static void offer_var_slow(const ctx_t *c, thr_t *t, const uint32_t *tuple, uint32_t j, double ig)
{
    uint32_t v = tuple[j];
    best_t *b = &t->best[v];
    if (better(ig, c->disc, tuple, v, b->ig, b->disc, b->tuple, v, c->k)) {
        b->ig = ig;
        b->disc = c->disc;
        memcpy(b->tuple, tuple, sizeof(uint32_t) * c->k);
    }
    if (c->keep) {
        es_mdfs_tuple_t e;
        memset(&e, 0, sizeof e);
        e.ig = ig, e.var = v, e.disc = c->disc;
        memcpy(e.tuple, tuple, sizeof(uint32_t) * c->k);
        heap_offer(t, c->keep, &e, c->k);
    }
}

/* Most IGs are below the variable's best so far and no tuples are kept:
 * that test inline, the rest out of line. */
static inline void offer_var(const ctx_t *c, thr_t *t, const uint32_t *tuple, uint32_t j, double ig)
{
    if (ig < t->best[tuple[j]].ig && !c->keep) return;
    offer_var_slow(c, t, tuple, j, ig);
}

/* Level l (>= 1) of the prefix: level l-1 AND the bins of variable v. */
static void build_level(const ctx_t *c, thr_t *t, uint32_t l, uint32_t v)
{
    const uint32_t m = c->m, W = c->W, w0 = c->w0;
    uint32_t n_prev = 1;
    for (uint32_t j = 1; j < l; j++) n_prev *= m;
    const uint64_t *prev = t->lvl[l - 1];
    const uint32_t *pct = t->lct[l - 1];
    uint64_t *cur = t->lvl[l];
    uint32_t *cct = t->lct[l];
    for (uint32_t p = 0; p < n_prev; p++)
        for (uint32_t b = 0; b < m; b++) {
            uint32_t q = p * m + b;
            uint64_t *dst = cur + (size_t)q * W;
            if (!(pct[2 * p] | pct[2 * p + 1])) {
                cct[2 * q] = cct[2 * q + 1] = 0;
                continue;
            }
            c->and_ct(dst, prev + (size_t)p * W, plane(c, v, b), w0, W, cct + 2 * q);
        }
}

/* The innermost loop for the prefix in tuple[0 .. k-2] (levels built): real
 * variables after tuple[k-2] and every contrast variable. */
static void inner(const ctx_t *c, thr_t *t, uint32_t *tuple)
{
    const uint32_t k = c->k;
    uint32_t n_pre = 1;
    for (uint32_t j = 1; j < k; j++) n_pre *= c->m;
    const uint32_t n_cells = n_pre * c->m;
    const double h_pre = hc_cells(c, 1, t->lct[k - 1], n_pre);
    const uint32_t first = k > 1 ? tuple[k - 2] + 1 : 0;
    /* the rank of the tuple without its j-th variable (j < k - 1), less the
     * last variable's term C(v, k - 1) */
    uint64_t base[ES_MDFS_MAX_DIM] = {0};
    const uint64_t *bn = c->binom;
    const size_t bs = (size_t)c->n_vars + 1;
    if (c->hm)
        for (uint32_t j = 0; j + 1 < k; j++)
            for (uint32_t i = 0; i + 1 < k; i++)
                if (i != j) base[j] += bn[(i < j ? i + 1 : i) * bs + tuple[i]];
    for (uint32_t g = first / 8; g * 8 < c->n_vars; g++) {
        count_group(c, t, k - 1, g);
        const double h_empty = (double)(n_pre - t->nnz) * c->m * c->h0;
        for (uint32_t j = 0; j < 8; j++) {
            const uint32_t v = g * 8 + j;
            if (v < first || v >= c->n_vars) continue;
            tuple[k - 1] = v;
            if (c->hm) {
                const double h = hc_lane(c, t, k - 1, j, h_empty);
                const uint64_t last = bn[(k - 1) * bs + v];
                offer_var(c, t, tuple, k - 1, h_pre - h);
                for (uint32_t q = 0; q + 1 < k; q++) offer_var(c, t, tuple, q, c->hm[base[q] + last] - h);
            } else {
                assemble(c, t, k - 1, j);
                const double h = hc_cells(c, 0, t->cells, n_cells);
                offer_var(c, t, tuple, k - 1, h_pre - h);
                for (uint32_t q = 0; q + 1 < k; q++) offer_var(c, t, tuple, q, hc_without(c, t, q) - h);
            }
        }
    }
    for (uint32_t g = 0; g * 8 < c->n_con; g++) {
        count_group(c, t, k - 1, c->n_vars8 / 8 + g);
        const double h_empty = (double)(n_pre - t->nnz) * c->m * c->h0;
        for (uint32_t j = 0; j < 8 && g * 8 + j < c->n_con; j++) {
            double ig = h_pre - hc_lane(c, t, k - 1, j, h_empty);
            if (ig > t->cbest[g * 8 + j]) t->cbest[g * 8 + j] = ig;
        }
    }
}

/* k = 1: the variables of group g (< ng: real ones; else contrast group g - ng). */
static void inner1(const ctx_t *c, thr_t *t, uint32_t g, uint32_t ng)
{
    const double h_pre = hc_cells(c, 1, t->lct[0], 1);
    const int con = g >= ng;
    count_group(c, t, 0, con ? c->n_vars8 / 8 + (g - ng) : g);
    for (uint32_t j = 0; j < 8; j++) {
        const uint32_t v = (con ? g - ng : g) * 8 + j;
        if (v >= (con ? c->n_con : c->n_vars)) break;
        const double ig = h_pre - hc_lane(c, t, 0, j, 0.0);
        if (con) {
            if (ig > t->cbest[v]) t->cbest[v] = ig;
        } else {
            offer_var(c, t, &v, 0, ig);
        }
    }
}

/* Every prefix extending tuple[0 .. l-1] (level l built). */
static void walk(const ctx_t *c, thr_t *t, uint32_t *tuple, uint32_t l)
{
    if (l + 1 == c->k) {
        inner(c, t, tuple);
        return;
    }
    for (uint32_t v = tuple[l - 1] + 1; v < c->n_vars; v++) {
        tuple[l] = v;
        build_level(c, t, l + 1, v);
        walk(c, t, tuple, l + 1);
    }
}

static void thr_free(thr_t *t)
{
    for (int l = 0; l < ES_MDFS_MAX_DIM; l++) free(t->lvl[l]), free(t->lct[l]);
    free(t->cells), free(t->mar), free(t->nz), free(t->pre), free(t->out8), free(t->best), free(t->cbest), free(t->heap);
    memset(t, 0, sizeof *t);
}

static int thr_alloc(const ctx_t *c, thr_t *t)
{
    memset(t, 0, sizeof *t);
    uint32_t n = 1;
    for (uint32_t l = 0; l < c->k; l++) {
        size_t bytes = (size_t)n * c->W * sizeof(uint64_t);
        t->lvl[l] = aligned_alloc(64, (bytes + 63) / 64 * 64);
        t->lct[l] = malloc(sizeof(uint32_t) * 2 * n);
        if (!t->lvl[l] || !t->lct[l]) goto fail;
        n *= c->m;
    }
    t->cells = malloc(sizeof(uint32_t) * 2 * n);
    t->mar = malloc(sizeof(uint32_t) * 2 * (n / c->m));
    t->nz = malloc(sizeof(uint32_t) * (n / c->m));
    t->pre = malloc(sizeof(uint64_t *) * (n / c->m));
    t->out8 = malloc(sizeof(uint32_t) * 16 * (c->m - 1) * (n / c->m));
    t->best = malloc(sizeof(best_t) * (c->n_vars ? c->n_vars : 1));
    t->cbest = malloc(sizeof(double) * (c->n_con ? c->n_con : 1));
    t->heap = c->keep ? malloc(sizeof(es_mdfs_tuple_t) * c->keep) : NULL;
    if (!t->cells || !t->mar || !t->nz || !t->pre || !t->out8 || !t->best || !t->cbest || (c->keep && !t->heap)) goto fail;
    for (uint32_t v = 0; v < c->n_vars; v++) {
        memset(&t->best[v], 0, sizeof(best_t));
        t->best[v].ig = -INFINITY;
        t->best[v].disc = UINT32_MAX;
    }
    for (uint32_t q = 0; q < c->n_con; q++) t->cbest[q] = -INFINITY;
    /* level 0: one cell, every object */
    memcpy(t->lvl[0], c->all, sizeof(uint64_t) * c->W);
    t->lct[0][0] = c->cls[0], t->lct[0][1] = c->cls[1];
    return ES_OK;
fail:
    thr_free(t);
    return ES_ERR_NOMEM;
}

/* The planes and bin counts of discretised data d (variables, then contrast cd). */
/* The calling thread's number (0 without OpenMP). */
static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* The planes, bin counts and lanes of one discretisation. */
static void fill_planes(ctx_t *c, const uint8_t *d, const uint8_t *cd)
{
    const uint32_t nv = c->n_vars + c->n_con, m = c->m, W = c->W, n = c->n_obj;
#pragma omp parallel for schedule(static)
    for (uint32_t v = 0; v < nv; v++) {
        uint64_t *pl = c->planes + (size_t)v * m * W;
        uint32_t *bc = c->bin_ct + (size_t)v * m * 2;
        const uint8_t *x = v < c->n_vars ? d + (size_t)v * n : cd + (size_t)(v - c->n_vars) * n;
        /* the classes in position order (the objects sorted by class: c->inv),
         * then a word's bit k of every class from eight bytes at a time (a
         * multiply gathers the low bits of eight bytes into one), the bins
         * from those bits (m <= 16: four of them) */
        uint8_t *xs = c->xs + (size_t)thread_id() * 64 * W;
        for (uint32_t q = 0; q < 64 * W; q++) xs[q] = c->inv[q] == UINT32_MAX ? 0 : x[c->inv[q]];
        memset(bc, 0, sizeof(uint32_t) * m * 2);
        const uint32_t nbits = m <= 2 ? 1 : m <= 4 ? 2 : m <= 8 ? 3 : 4;
        for (uint32_t w = 0; w < W; w++) {
            uint64_t bit[4] = {0, 0, 0, 0};
            for (uint32_t g = 0; g < 8; g++) {
                uint64_t u;
                memcpy(&u, xs + (size_t)w * 64 + 8 * g, 8);
                for (uint32_t k = 0; k < nbits; k++)
                    bit[k] |= ((((u >> k) & 0x0101010101010101ull) * 0x0102040810204080ull) >> 56) << (8 * g);
            }
            const uint64_t valid = c->all[w]; /* the positions that hold an object */
            const int y = w >= c->w0;
            for (uint32_t b = 0; b < m; b++) {
                uint64_t q = valid;
                for (uint32_t k = 0; k < nbits; k++) q &= (b >> k & 1) ? bit[k] : ~bit[k];
                pl[(size_t)b * W + w] = q;
                bc[2 * b + y] += (uint32_t)__builtin_popcountll(q);
            }
        }
        const uint32_t s = v < c->n_vars ? v : c->n_vars8 + (v - c->n_vars), nb = m - 1;
        uint64_t *ln = c->lanes + (size_t)(s / 8) * nb * W * 8 + s % 8;
        for (uint32_t b = 0; b < nb; b++)
            for (uint32_t w = 0; w < W; w++) ln[((size_t)b * W + w) * 8] = pl[(size_t)b * W + w];
    }
}

/* Every (k-1)-tuple extending tuple[0 .. l-1] (level l built): its Hc into
 * c->hm at its rank. */
static void pre_walk(const ctx_t *c, thr_t *t, uint32_t *tuple, uint32_t l)
{
    const uint32_t nv = c->n_vars, k1 = c->k - 1;
    if (l + 1 == k1) {
        uint32_t cells = 1;
        for (uint32_t j = 0; j < k1; j++) cells *= c->m;
        const size_t bs = (size_t)nv + 1;
        uint64_t base = 0;
        for (uint32_t i = 0; i < l; i++) base += c->binom[(i + 1) * bs + tuple[i]];
        for (uint32_t g = (tuple[l - 1] + 1) / 8; g * 8 < nv; g++) {
            count_group(c, t, l, g);
            for (uint32_t j = 0; j < 8; j++) {
                const uint32_t w = g * 8 + j;
                if (w <= tuple[l - 1] || w >= nv) continue;
                assemble(c, t, l, j);
                c->hm[base + c->binom[k1 * bs + w]] = hc_cells(c, 1, t->cells, cells);
            }
        }
        return;
    }
    for (uint32_t v = tuple[l - 1] + 1; v < nv; v++) {
        tuple[l] = v;
        build_level(c, t, l + 1, v);
        pre_walk(c, t, tuple, l + 1);
    }
}

/* fn(tuple, 1) for every first variable v (level 1 built), the variables
 * shared out to the threads one at a time. */
static void each_first(const ctx_t *c, thr_t *th, void (*fn)(const ctx_t *, thr_t *, uint32_t *, uint32_t))
{
#pragma omp parallel for schedule(dynamic, 1)
    for (uint32_t v = 0; v < c->n_vars; v++) {
        thr_t *t = &th[thread_id()];
        uint32_t tuple[ES_MDFS_MAX_DIM];
        tuple[0] = v;
        build_level(c, t, 1, v);
        fn(c, t, tuple, 1);
    }
}

/* c->hm for this discretisation (see ctx_t). */
static void precompute_hm(ctx_t *c, thr_t *th)
{
    const uint32_t nv = c->n_vars, m = c->m;
    if (!c->hm) return;
    if (c->k == 2) {
        for (uint32_t v = 0; v < nv; v++) c->hm[v] = hc_cells(c, 1, c->bin_ct + (size_t)v * m * 2, m);
        return;
    }
    each_first(c, th, pre_walk);
}

/* One discretisation on the CPU: every tuple (planes and hm ready). */
static void cpu_disc(const ctx_t *c, thr_t *th)
{
    if (c->k == 1) {
        /* single variables: the groups of eight (then the contrast ones) shared out */
        const uint32_t ng = c->n_vars8 / 8, ngc = (c->n_con + 7) / 8;
#pragma omp parallel for schedule(dynamic, 4)
        for (uint32_t g = 0; g < ng + ngc; g++) inner1(c, &th[thread_id()], g, ng);
        return;
    }
    each_first(c, th, walk);
}

/* ---- the GPU screen (gpu/mdfs/) and the exact IGs of what it returns ------ */

/* Hc (margin pseudocounts) of the pair x < w, as pre_walk() stores it in c->hm. */
static double pair_hm(const ctx_t *c, thr_t *t, uint32_t x, uint32_t w)
{
    build_level(c, t, 1, x);
    count_group(c, t, 1, w / 8);
    assemble(c, t, 1, w % 8);
    return hc_cells(c, 1, t->cells, c->m * c->m);
}

/* The IGs of one tuple the GPU returned (k = 2, 3; its last slot a variable
 * or n_vars + a contrast variable), computed as inner() computes them, the
 * same functions in the same order, and offered as it offers them. */
static void rescore(const ctx_t *c, thr_t *t, const uint32_t *slot)
{
    const uint32_t k = c->k, m = c->m, s = slot[k - 1];
    uint32_t tuple[ES_MDFS_MAX_DIM] = {0};
    for (uint32_t j = 0; j < k; j++) tuple[j] = slot[j];
    const int con = s >= c->n_vars;
    /* Hc of the tuple without its variable q < k - 1 (the hm path) */
    double hw[ES_MDFS_MAX_DIM] = {0.0};
    if (!con && c->hm) {
        if (k == 2) {
            hw[0] = c->hm[s];
        } else {
            hw[0] = pair_hm(c, t, tuple[1], s);
            hw[1] = pair_hm(c, t, tuple[0], s);
        }
    }
    for (uint32_t l = 1; l < k; l++) build_level(c, t, l, tuple[l - 1]);
    uint32_t n_pre = 1;
    for (uint32_t j = 1; j < k; j++) n_pre *= m;
    const double h_pre = hc_cells(c, 1, t->lct[k - 1], n_pre);
    if (con) {
        const uint32_t q = s - c->n_vars;
        count_group(c, t, k - 1, c->n_vars8 / 8 + q / 8);
        const double h_empty = (double)(n_pre - t->nnz) * c->m * c->h0;
        const double ig = h_pre - hc_lane(c, t, k - 1, q % 8, h_empty);
        if (ig > t->cbest[q]) t->cbest[q] = ig;
        return;
    }
    count_group(c, t, k - 1, s / 8);
    const double h_empty = (double)(n_pre - t->nnz) * c->m * c->h0;
    if (c->hm) {
        const double h = hc_lane(c, t, k - 1, s % 8, h_empty);
        offer_var(c, t, tuple, k - 1, h_pre - h);
        for (uint32_t q = 0; q + 1 < k; q++) offer_var(c, t, tuple, q, hw[q] - h);
    } else {
        assemble(c, t, k - 1, s % 8);
        const double h = hc_cells(c, 0, t->cells, n_pre * m);
        offer_var(c, t, tuple, k - 1, h_pre - h);
        for (uint32_t q = 0; q + 1 < k; q++) offer_var(c, t, tuple, q, hc_without(c, t, q) - h);
    }
}

/* Every tuple through rescore() (EPISTREAM_MDFS_RESCORE=all, k = 2, 3: a
 * test, without a GPU, that the rescoring gives the CPU engine's result). */
static void rescore_all(const ctx_t *c, thr_t *th)
{
    const uint32_t nv = c->n_vars, ns = c->n_vars + c->n_con;
#pragma omp parallel for schedule(dynamic, 1)
    for (uint32_t a = 0; a < nv; a++) {
        const int tid = thread_id();
        uint32_t slot[3] = {a, 0, 0};
        for (uint32_t b = a + 1; b < (c->k == 3 ? nv : a + 2); b++)
            for (uint32_t s = (c->k == 3 ? b : a) + 1; s < ns; s++) {
                if (c->k == 3) slot[1] = b, slot[2] = s;
                else slot[1] = s;
                rescore(c, &th[tid], slot);
            }
    }
}

#define GPU_MAX 64

/* The GPUs of a run. */
typedef struct {
    es_gkm_t *g[GPU_MAX];
    int n;
    uint64_t *keys[GPU_MAX]; /* each device's maxima, then merged in keys[0] */
} gpus_t;

static void gpus_close(gpus_t *gd)
{
    for (int i = 0; i < gd->n; i++) es_gkm_close(gd->g[i]), free(gd->keys[i]);
    memset(gd, 0, sizeof *gd);
}

/* The GPUs o asks for, or none (the CPU: why logged); ES_ERR_ARG when
 * --device gpu cannot be honoured. */
static int gpus_open(const ctx_t *c, const es_mdfs_opt_t *o, gpus_t *gd, char *name, size_t len)
{
    memset(gd, 0, sizeof *gd);
    if (o->device == ES_MDFS_DEV_CPU) return ES_OK;
    const char *why = NULL;
    int nd = 0;
    if (es_gkm_device_count(&nd) || !nd) why = "no GPU is visible";
    else if (c->k != 2 && c->k != 3) why = "the GPU counts --dim 2 and 3 only";
    else if (o->n_tuples) why = "--tuples is counted on the CPU only";
    else why = es_gkm_unsupported(c->k, c->m, c->n_vars, c->n_con, c->n_obj);
    if (!why && o->device == ES_MDFS_DEV_AUTO) {
        double a = 1.0, b = 1.0;
        for (uint32_t j = 0; j < c->k; j++) a = a * (double)(c->n_vars - j) / (double)(j + 1);
        for (uint32_t j = 0; j + 1 < c->k; j++) b = b * (double)(c->n_vars - j) / (double)(j + 1);
        if ((a + b * c->n_con) * c->n_obj < 1e9) why = "too few tuples to gain from a GPU";
    }
    if (why) {
        if (o->device == ES_MDFS_DEV_GPU) {
            es_error("--device gpu: %s", why);
            return ES_ERR_ARG;
        }
        es_info("device: the CPU (%s)", why);
        return ES_OK;
    }
    int devs[GPU_MAX], n = 0;
    for (int d = 0; d < nd && d < GPU_MAX; d++)
        if (!o->gpu_mask || (o->gpu_mask >> d & 1)) devs[n++] = d;
    if (!n || (nd < 64 && (o->gpu_mask >> nd))) {
        es_error("--device: no such GPU (%d visible)", nd);
        return ES_ERR_ARG;
    }
    es_gkm_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.k = c->k, cfg.m = c->m, cfg.n_vars = c->n_vars, cfg.n_con = c->n_con;
    cfg.w0 = c->w0, cfg.W = c->W, cfg.cls[0] = c->cls[0], cfg.cls[1] = c->cls[1];
    for (int lev = 0; lev < 2; lev++) {
        cfg.G[lev] = c->G[lev];
        cfg.F[lev][0] = c->F[lev][0], cfg.F[lev][1] = c->F[lev][1];
    }
    const char *env = getenv("EPISTREAM_MDFS_GPU_CAND");
    if (env && *env) cfg.max_cand = strtoull(env, NULL, 10);
    /* EPISTREAM_MDFS_GPU_KERNEL=popc: the CUDA-core kernel even where the
     * tensor cores apply (tests, benchmarks) */
    const char *kv = es_env_variant("EPISTREAM_MDFS_GPU_KERNEL");
    if (kv && !strcmp(kv, "popc")) cfg.kernel = 1;
    else if (kv && strcmp(kv, "mma")) {
        es_error("EPISTREAM_MDFS_GPU_KERNEL=%s: expected popc or mma", kv);
        return ES_ERR_ARG;
    }
    /* EPISTREAM_MDFS_GPU_SUM=double: the tensor-core screen sums each Hc in
     * double from the host's tables, not in float with its proven margin
     * (tests, benchmarks) */
    const char *sv = es_env_variant("EPISTREAM_MDFS_GPU_SUM");
    if (sv && !strcmp(sv, "double")) cfg.sum = 1;
    else if (sv && strcmp(sv, "float")) {
        es_error("EPISTREAM_MDFS_GPU_SUM=%s: expected float or double", sv);
        return ES_ERR_ARG;
    }
    cfg.pseudo[0] = c->ps[0], cfg.pseudo[1] = c->ps[1];
    cfg.parts = (uint32_t)n;
    size_t at = 0;
    name[0] = 0;
    for (int i = 0; i < n; i++) {
        cfg.part = (uint32_t)i;
        int ret = es_gkm_open(devs[i], &cfg, &gd->g[i]);
        gd->keys[i] = malloc(sizeof(uint64_t) * ((size_t)c->n_vars + c->n_con + 1));
        if (ret || !gd->keys[i]) {
            gd->n = i + 1;
            gpus_close(gd);
            ret = ret ? ret : ES_ERR_NOMEM;
            if (o->device == ES_MDFS_DEV_AUTO) {
                es_warn("GPU %d: %s: counting on the CPU", devs[i], es_strerror(ret));
                name[0] = 0;
                return ES_OK;
            }
            es_error("GPU %d: %s", devs[i], es_strerror(ret));
            return ret;
        }
        gd->n = i + 1;
        if (at < len) at += (size_t)snprintf(name + at, len - at, "%s%s", i ? "; " : "", es_gkm_name(gd->g[i]));
    }
    es_info("device: %s", name);
    return ES_OK;
}

/* One discretisation on the GPUs: their maxima merged, the tuples near them
 * rescored exactly.  ES_ERR_UNSUPPORTED: too many such tuples (nothing
 * offered: the caller counts this discretisation on the CPU). */
static int gpu_disc(const ctx_t *c, thr_t *th, gpus_t *gd, es_mdfs_result_t *r)
{
    const size_t NS = (size_t)c->n_vars + c->n_con;
    int err = ES_OK;
    double ks = 0.0, us = 0.0;
#pragma omp parallel for num_threads(gd->n) schedule(static, 1) reduction(max : ks, us)
    for (int i = 0; i < gd->n; i++) {
        const double t0 = es_time_now();
        int e = es_gkm_upload(gd->g[i], c->planes, c->bin_ct, c->hm);
        us = es_time_now() - t0;
        if (!e) e = es_gkm_max(gd->g[i], gd->keys[i]);
        if (e) {
#pragma omp critical(mdfs_gpu_err)
            err = e;
        }
        ks = es_gkm_kernel_seconds(gd->g[i]);
    }
    if (err) return err == ES_ERR_UNSUPPORTED ? ES_ERR_GPU : err;
    for (int i = 1; i < gd->n; i++)
        for (size_t v = 0; v < NS; v++)
            if (gd->keys[i][v] > gd->keys[0][v]) gd->keys[0][v] = gd->keys[i][v];
    const es_gkm_cand_t *cand[GPU_MAX];
    uint64_t nc[GPU_MAX];
    double ks2 = 0.0;
#pragma omp parallel for num_threads(gd->n) schedule(static, 1) reduction(max : ks2)
    for (int i = 0; i < gd->n; i++) {
        int e = es_gkm_candidates(gd->g[i], gd->keys[0], &cand[i], &nc[i]);
        if (e) {
#pragma omp critical(mdfs_gpu_err)
            err = e;
        }
        ks2 = es_gkm_kernel_seconds(gd->g[i]);
    }
    r->kernel_seconds += ks + ks2;
    r->upload_seconds += us;
    if (err) return err;
    const double t_rs = es_time_now();
    for (int i = 0; i < gd->n; i++) {
        const es_gkm_cand_t *cd = cand[i];
        const int64_t n = (int64_t)nc[i];
        r->rescored += (uint64_t)n;
#pragma omp parallel for schedule(dynamic, 8)
        for (int64_t q = 0; q < n; q++) rescore(c, &th[thread_id()], cd[q].t);
    }
    r->rescore_seconds += es_time_now() - t_rs;
    return ES_OK;
}

int es_mdfs_max_ig(const es_mdfs_opt_t *o, uint32_t n_obj, uint32_t n_vars, uint32_t n_contrast,
                   const uint8_t *y,
                   int (*disc_fn)(void *ctx, uint32_t disc, uint8_t *d, uint8_t *cd), void *dctx,
                   es_mdfs_result_t *r)
{
    int ret = ES_OK;
    ctx_t c;
    memset(&c, 0, sizeof c);
    uint8_t *d = NULL, *cd = NULL;
    uint32_t *pos = NULL;
    thr_t *th = NULL;
    gpus_t gd;
    memset(&gd, 0, sizeof gd);
    int pinned = 0;
    int nt = 1;
#ifdef _OPENMP
    nt = omp_get_max_threads();
#endif
    c.k = (uint32_t)o->dim, c.m = (uint32_t)o->divisions + 1, c.n_vars = n_vars;
    c.n_con = n_contrast, c.n_obj = n_obj;
    for (uint32_t i = 0; i < n_obj; i++) c.cls[y[i] != 0]++;
    c.w0 = (c.cls[0] + 63) / 64;
    c.W = c.w0 + (c.cls[1] + 63) / 64;
    const char *kname;
    {
        c.cells8 = es_mdfs_cells8_best(&kname);
        c.and_ct = es_mdfs_and_best();
        es_info("counting kernel: %s", kname);
    }
    c.n_vars8 = (n_vars + 7) / 8 * 8;
    const size_t n_slots = c.n_vars8 + ((size_t)n_contrast + 7) / 8 * 8;
    c.keep = o->n_tuples * (uint64_t)o->discretizations;
    r->n_vars = n_vars, r->n_contrast = n_contrast, r->dim = c.k;
    const uint32_t nv = n_vars + n_contrast;
    d = malloc((size_t)n_vars * n_obj + 1);
    cd = malloc((size_t)n_contrast * n_obj + 1);
    pos = malloc(sizeof(uint32_t) * (n_obj + 1));
    c.planes = aligned_alloc(64, ((size_t)nv * c.m * c.W * sizeof(uint64_t) + 63) / 64 * 64 + 64);
    c.bin_ct = malloc(sizeof(uint32_t) * 2 * c.m * (size_t)nv + 1);
    c.all = calloc(c.W + 1, sizeof(uint64_t));
    c.lanes = calloc(n_slots * (c.m - 1) * c.W + 8, sizeof(uint64_t));
    c.inv = malloc(sizeof(uint32_t) * 64 * (size_t)c.W);
    c.xs = malloc((size_t)nt * 64 * c.W);
    for (int lev = 0; lev < 2; lev++) {
        c.F[lev][0] = malloc(sizeof(double) * (c.cls[0] + 1));
        c.F[lev][1] = malloc(sizeof(double) * (c.cls[1] + 1));
        c.G[lev] = malloc(sizeof(double) * (n_obj + 1));
    }
    th = calloc((size_t)nt, sizeof *th);
    /* C(x, i) for i < k, x <= n_vars (doubles for the size test: no overflow) */
    c.binom = malloc(sizeof(uint64_t) * ES_MDFS_MAX_DIM * ((size_t)n_vars + 1));
    if (!c.binom) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    {
        const size_t bs = (size_t)n_vars + 1;
        double n_hm = 1.0;
        for (uint32_t i = 0; i < ES_MDFS_MAX_DIM; i++)
            for (uint32_t x = 0; x <= n_vars; x++) {
                double b = 1.0;
                for (uint32_t q = 0; q < i; q++) b = b * (double)(x - q) / (double)(q + 1);
                c.binom[i * bs + x] = x < i ? 0 : b < 1.8e19 ? (uint64_t)(b + 0.5) : UINT64_MAX;
            }
        for (uint32_t q = 0; q + 1 < c.k; q++) n_hm = n_hm * (double)(n_vars - q) / (double)(q + 1);
        /* EPISTREAM_MDFS_MARGINS=sum forces the summed margins (tests) */
        const char *mv = es_env_variant("EPISTREAM_MDFS_MARGINS");
        const int sum = mv && !strcmp(mv, "sum") && c.k > 2;
        if (c.k >= 2 && !sum && n_hm * sizeof(double) <= (double)HM_MAX_BYTES)
            c.hm = malloc(sizeof(double) * ((size_t)n_hm + 1));
        if (c.k == 2 && !c.hm) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
    }
    r->max_ig = malloc(sizeof(double) * (n_vars + 1));
    r->arg_tuple = malloc(sizeof(uint32_t) * c.k * (n_vars + 1));
    r->arg_disc = malloc(sizeof(uint32_t) * (n_vars + 1));
    r->contrast_ig = malloc(sizeof(double) * (n_contrast + 1));
    if (!d || !cd || !pos || !c.planes || !c.lanes || !c.inv || !c.xs || !c.bin_ct || !c.all || !c.F[0][0] || !c.F[0][1] ||
        !c.F[1][0] || !c.F[1][1] || !c.G[0] || !c.G[1] || !th || !r->max_ig || !r->arg_tuple ||
        !r->arg_disc || !r->contrast_ig) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    /* class-sorted positions */
    {
        uint32_t i0 = 0, i1 = 64 * c.w0;
        for (uint32_t i = 0; i < n_obj; i++) pos[i] = y[i] ? i1++ : i0++;
        for (uint32_t i = 0; i < n_obj; i++) c.all[pos[i] / 64] |= 1ull << (pos[i] % 64);
        for (size_t q = 0; q < 64 * (size_t)c.W; q++) c.inv[q] = UINT32_MAX;
        for (uint32_t i = 0; i < n_obj; i++) c.inv[pos[i]] = i;
    }
    /* n log n tables: pseudo_y = n_y / min(n0, n1) * xi per cell of the full
     * table, m times that in a margin */
    {
        double cmin = c.cls[0] < c.cls[1] ? c.cls[0] : c.cls[1];
        double ps[2] = {c.cls[0] / cmin * o->pc_xi, c.cls[1] / cmin * o->pc_xi};
        c.ps[0] = ps[0], c.ps[1] = ps[1];
        for (int lev = 0; lev < 2; lev++) {
            double mul = lev ? (double)c.m : 1.0;
            for (int yy = 0; yy < 2; yy++)
                for (uint32_t q = 0; q <= c.cls[yy]; q++) c.F[lev][yy][q] = plogp(q + mul * ps[yy]);
            for (uint32_t q = 0; q <= n_obj; q++) c.G[lev][q] = plogp(q + mul * (ps[0] + ps[1]));
        }
        c.h0 = c.G[0][0] - c.F[0][0][0] - c.F[0][1][0];
    }
    for (int i = 0; i < nt; i++)
        if ((ret = thr_alloc(&c, &th[i]))) goto out;
    if ((ret = gpus_open(&c, o, &gd, r->device, sizeof r->device))) goto out;
    /* the planes page-locked for the uploads (each discretisation's) */
    if (gd.n) {
        const double t_pin = es_time_now();
        pinned = es_gkm_pin(c.planes, sizeof(uint64_t) * nv * c.m * c.W) == ES_OK;
        es_debug("planes page-locked: %s (%.3f s)", pinned ? "yes" : "no", es_time_now() - t_pin);
    }
    if (!gd.n) snprintf(r->device, sizeof r->device, "cpu (%s)", kname);
    const double t_count = es_time_now();
    double disc_seconds = 0.0;
    const char *rv = es_env_variant("EPISTREAM_MDFS_RESCORE");
    const int rescore_test = rv && !strcmp(rv, "all");
    for (uint32_t disc = 0; disc < (uint32_t)o->discretizations; disc++) {
        const double t_disc = es_time_now();
        if ((ret = disc_fn(dctx, disc, d, cd))) goto out;
        disc_seconds += es_time_now() - t_disc;
        const double t_pack = es_time_now();
        fill_planes(&c, d, cd);
        r->pack_seconds += es_time_now() - t_pack;
        c.disc = disc;
        if (gd.n) {
            if (c.k == 2) precompute_hm(&c, th); /* each variable's Hc: cheap, and the device's too */
            ret = gpu_disc(&c, th, &gd, r);
            if (ret == ES_ERR_UNSUPPORTED) {
                es_info("discretisation %u: more tuples near the maxima than the GPU returns: "
                        "counted on the CPU", disc);
                ret = ES_OK;
                precompute_hm(&c, th);
                cpu_disc(&c, th);
            }
            if (ret) goto out;
        } else if (rescore_test && (c.k == 2 || c.k == 3)) {
            if (c.k == 2) precompute_hm(&c, th);
            rescore_all(&c, th);
        } else {
            precompute_hm(&c, th);
            cpu_disc(&c, th);
        }
    }
    r->count_seconds = es_time_now() - t_count - disc_seconds;
    /* merge in a total order */
    for (uint32_t v = 0; v < n_vars; v++) {
        best_t b = th[0].best[v];
        for (int i = 1; i < nt; i++) {
            const best_t *x = &th[i].best[v];
            if (x->disc != UINT32_MAX &&
                (b.disc == UINT32_MAX || better(x->ig, x->disc, x->tuple, v, b.ig, b.disc, b.tuple, v, c.k)))
                b = *x;
        }
        r->max_ig[v] = b.ig;
        r->arg_disc[v] = b.disc;
        memcpy(r->arg_tuple + (size_t)v * c.k, b.tuple, sizeof(uint32_t) * c.k);
    }
    for (uint32_t q = 0; q < n_contrast; q++) {
        double b = th[0].cbest[q];
        for (int i = 1; i < nt; i++)
            if (th[i].cbest[q] > b) b = th[i].cbest[q];
        r->contrast_ig[q] = b;
    }
    if (c.keep) {
        /* every thread's kept entries, best per (tuple, variable), the first n_tuples */
        uint64_t tot = 0;
        for (int i = 0; i < nt; i++) tot += th[i].n_heap;
        es_mdfs_tuple_t *all = malloc(sizeof *all * (tot + 1));
        if (!all) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        uint64_t n = 0;
        for (int i = 0; i < nt; i++) {
            memcpy(all + n, th[i].heap, sizeof *all * th[i].n_heap);
            n += th[i].n_heap;
        }
        /* best per (tuple, variable), then best first (the unused tuple
         * slots are zero, so the orders need no k) */
        qsort(all, n, sizeof *all, by_key);
        uint64_t w = 0;
        for (uint64_t i = 0; i < n; i++)
            if (!w || by_key_only(&all[w - 1], &all[i])) all[w++] = all[i];
        qsort(all, w, sizeof *all, by_rank);
        if (w > o->n_tuples) w = o->n_tuples;
        r->tuples = all;
        r->n_tuples = w;
    }
    {
        /* tuples counted: C(n_vars, k) + C(n_vars, k - 1) * n_contrast per discretisation */
        double a = 1.0, b = 1.0;
        for (uint32_t j = 0; j < c.k; j++) a = a * (double)(n_vars - j) / (double)(j + 1);
        for (uint32_t j = 0; j + 1 < c.k; j++) b = b * (double)(n_vars - j) / (double)(j + 1);
        r->tuples_done = (uint64_t)((a + b * n_contrast) * o->discretizations + 0.5);
    }
    {
        const double td = (double)r->tuples_done, cs = r->count_seconds, ks = r->kernel_seconds;
        if (gd.n)
            es_info("counting: %.4g tuples in %.3f s (%.4g tuples/s) on %s; GPU kernels %.3f s "
                    "(%.4g tuples/s, two passes), %llu tuples rescored; packing %.3f s, uploads %.3f s, "
                    "rescoring %.3f s", td, cs, cs > 0 ? td / cs : 0.0, r->device, ks, ks > 0 ? td / ks : 0.0,
                    (unsigned long long)r->rescored, r->pack_seconds, r->upload_seconds, r->rescore_seconds);
        else
            es_info("counting: %.4g tuples in %.3f s (%.4g tuples/s) on %s", td, cs,
                    cs > 0 ? td / cs : 0.0, r->device);
    }
out:
    if (pinned) es_gkm_unpin(c.planes);
    gpus_close(&gd);
    if (th)
        for (int i = 0; i < nt; i++) thr_free(&th[i]);
    free(th);
    for (int lev = 0; lev < 2; lev++) free(c.F[lev][0]), free(c.F[lev][1]), free(c.G[lev]);
    free(c.planes), free(c.lanes), free(c.inv), free(c.xs), free(c.bin_ct), free(c.all), free(c.hm), free(c.binom), free(d), free(cd), free(pos);
    return ret;
}
