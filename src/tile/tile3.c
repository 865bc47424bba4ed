/* tile3.c -- the triple scan's queue and workers: tiles of block triples
 * (exhaustive) or of seed-pair chunks against a block (seeded), per-worker
 * scoring into a top-k, per-variant summaries and significant triples, and
 * the merges that make the result independent of thread count, tile size and
 * device: every merge uses a total order (statistic, then i, j, k), and the
 * significant triples are emitted sorted by (i, j, k). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* M_LN2 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tile.h"

static void sum3_reset(es_sum3_t *s, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        s[k].best_i = s[k].best_j = s[k].best_k = UINT32_MAX;
        s[k].n = 0;
        s[k].df = 0;
        s[k].stat = NAN;
        s[k].n_sig = s[k].n_tot = 0;
    }
}

/* Is the triple (stat; i, j, k) better than s's best?  Ties to the lower triple. */
static inline int sum3_better(const es_sum3_t *s, double stat, uint32_t i, uint32_t j, uint32_t k, int hib)
{
    if (s->best_i == UINT32_MAX) return 1;
    if (stat != s->stat) return hib ? stat > s->stat : stat < s->stat;
    if (i != s->best_i) return i < s->best_i;
    if (j != s->best_j) return j < s->best_j;
    return k < s->best_k;
}

static inline void sum3_take(es_sum3_t *s, double stat, int df, uint32_t n, uint32_t i, uint32_t j,
                             uint32_t k)
{
    s->stat = stat;
    s->df = df;
    s->n = n;
    s->best_i = i;
    s->best_j = j;
    s->best_k = k;
}

void es_sum3_merge(es_sum3_t *dst, const es_sum3_t *src, int hib)
{
    dst->n_tot += src->n_tot;
    dst->n_sig += src->n_sig;
    if (src->best_i != UINT32_MAX &&
        sum3_better(dst, src->stat, src->best_i, src->best_j, src->best_k, hib))
        sum3_take(dst, src->stat, src->df, src->n, src->best_i, src->best_j, src->best_k);
}

static uint32_t worker_slots(const es_scan3_ctx_t *ctx)
{
    return ctx->seeds ? ctx->block + 2 * ctx->seed_chunk : 3 * ctx->block;
}

int es_worker3_init(es_worker3_t *w, const es_scan3_ctx_t *ctx)
{
    memset(w, 0, sizeof *w);
    int ret = es_topk3_init(&w->top, ctx->scan->opt.top_k, ctx->higher_is_better);
    if (ret) return ret;
    w->cap_slots = worker_slots(ctx);
    w->tsum = malloc((size_t)w->cap_slots * sizeof *w->tsum);
    w->slot_var = malloc((size_t)w->cap_slots * sizeof *w->slot_var);
    if (!w->tsum || !w->slot_var) {
        es_worker3_free(w);
        es_error("cannot allocate worker buffers");
        return ES_ERR_NOMEM;
    }
    return ES_OK;
}

void es_worker3_free(es_worker3_t *w)
{
    es_topk3_free(&w->top);
    free(w->tsum);
    free(w->slot_var);
    free(w->sig);
    memset(w, 0, sizeof *w);
}

uint64_t es_ctx3_tile_index(const es_scan3_ctx_t *ctx, uint32_t a, uint32_t b, uint32_t c)
{
    if (ctx->seeds) return (uint64_t)a * ctx->n_blocks + b;
    /* row a: for bj = a .. nb-1, the tiles (bj, bk >= bj) */
    uint64_t t = ctx->row_start[a];
    for (uint32_t bj = a; bj < b; bj++) t += ctx->n_blocks - bj;
    return t + (c - b);
}

void es_worker3_begin(const es_scan3_ctx_t *ctx, es_worker3_t *w, uint32_t a, uint32_t b, uint32_t c,
                      const uint32_t *var, uint32_t n)
{
    w->row = ctx->seeds ? 0 : a;
    w->tile = es_ctx3_tile_index(ctx, a, b, c);
    w->n_slots = n;
    memcpy(w->slot_var, var, (size_t)n * sizeof *var);
    sum3_reset(w->tsum, n);
    w->sig_n = 0;
    w->tile_triples = 0;
}

static void tile3_at(const es_scan3_ctx_t *ctx, uint64_t t, uint32_t *a, uint32_t *b, uint32_t *c);

int es_ctx3_next_tile(es_scan3_ctx_t *ctx, uint32_t *a, uint32_t *b, uint32_t *c)
{
    if (ctx->claim_remote) return ctx->claim_remote(ctx->claim_ud, a, b, c);
    for (;;) {
        if (atomic_load_explicit(&ctx->stop, memory_order_relaxed)) return -1;
        uint64_t t = atomic_fetch_add(&ctx->next_tile, 1);
        if (t >= ctx->n_tiles) return -1;
        /* a tile done before (resumed) or another shard's is not this run's */
        if (ctx->tile_skip && ctx->tile_skip[t]) continue;
        tile3_at(ctx, t, a, b, c);
        return 0;
    }
}

static void tile3_at(const es_scan3_ctx_t *ctx, uint64_t t, uint32_t *a, uint32_t *b, uint32_t *c)
{
    if (ctx->seeds) {
        *a = (uint32_t)(t / ctx->n_blocks);
        *b = (uint32_t)(t % ctx->n_blocks);
        *c = 0;
        return;
    }
    uint32_t lo = 0, hi = ctx->n_rows;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ctx->row_start[mid] <= t) lo = mid; else hi = mid;
    }
    /* row bi: for bj = bi .. nb-1, the tiles (bj, bk >= bj) */
    uint64_t r = t - ctx->row_start[lo];
    uint32_t bj = lo;
    while (r >= (uint64_t)(ctx->n_blocks - bj)) {
        r -= ctx->n_blocks - bj;
        bj++;
    }
    *a = lo;
    *b = bj;
    *c = bj + (uint32_t)r;
}

static int sig_push(es_worker3_t *w, const es_triple_t *t)
{
    if (w->sig_n == w->sig_cap) {
        size_t cap = w->sig_cap ? 2 * w->sig_cap : 256;
        es_triple_t *p = realloc(w->sig, cap * sizeof *p);
        if (!p) return ES_ERR_NOMEM;
        w->sig = p;
        w->sig_cap = cap;
    }
    w->sig[w->sig_n++] = *t;
    return ES_OK;
}

/* Score a triple from its statistic; count: add it to N_TOT and the tile's
 * triples (a device's candidates are counted by es_worker3_count_tile()
 * instead). */
/* Is triple t significant?  Then it goes to the tile's list with its p.
 * The G of its statistic is checked against the df's critical value first,
 * so the p-value is computed only near the threshold.  @return 1 or 0 */
static inline int worker3_sig(const es_scan3_ctx_t *ctx, es_worker3_t *w, const es_triple_t *t)
{
    if (!ctx->do_sig || t->df <= 0) return 0;
    double g = ctx->stat == ES_STAT_CHI2 ? t->stat : 2.0 * (double)t->n * M_LN2 * t->stat;
    if (g < ctx->sig_crit[t->df]) return 0;
    es_stat_result_t r;
    es_stat_p_from(ctx->stat, t->stat, t->df, t->n, &r);
    if (!(r.p <= ctx->p_threshold)) return 0;
    es_triple_t s = *t;
    s.p = r.p;
    s.log10p = r.log10p;
    if (sig_push(w, &s)) w->err = ES_ERR_NOMEM;
    return 1;
}

static inline void worker3_score(const es_scan3_ctx_t *ctx, es_worker3_t *w, uint32_t i, uint32_t j, uint32_t k,
                                 uint32_t si, uint32_t sj, uint32_t sk, double stat, int df, uint32_t n, int count)
{
    w->tile_triples += (uint64_t)count;
    es_sum3_t *s[3] = {&w->tsum[si], &w->tsum[sj], &w->tsum[sk]};
    es_triple_t tr = {.i = i, .j = j, .k = k, .n = n, .df = df, .stat = stat, .p = NAN, .log10p = NAN};
    int sig = worker3_sig(ctx, w, &tr);
    for (int v = 0; v < 3; v++) {
        s[v]->n_tot += (uint64_t)count;
        s[v]->n_sig += (uint64_t)sig;
        if (sum3_better(s[v], stat, i, j, k, ctx->higher_is_better)) sum3_take(s[v], stat, df, n, i, j, k);
    }
    if (es_topk3_would_accept(&w->top, stat)) es_topk3_push(&w->top, &tr);
}

/* A table's statistic, df and sample count, as es_worker3_offer() scores it. */
static inline void table3_value(const es_scan3_ctx_t *ctx, const es_table3_t *t, es_stat_result_t *r, uint32_t *n)
{
    es_stat3_value(ctx->stat, t, r);
    *n = 0;
    for (int c = 0; c < 27; c++) *n += t->n[0][c] + t->n[1][c];
}

void es_worker3_offer(const es_scan3_ctx_t *ctx, es_worker3_t *w, uint32_t i, uint32_t j, uint32_t k,
                      uint32_t si, uint32_t sj, uint32_t sk, const es_table3_t *t)
{
    es_stat_result_t r;
    uint32_t n;
    table3_value(ctx, t, &r, &n);
    worker3_score(ctx, w, i, j, k, si, sj, sk, r.stat, r.df, n, 1);
}

void es_worker3_offer_stat(const es_scan3_ctx_t *ctx, es_worker3_t *w, uint32_t i, uint32_t j, uint32_t k,
                           uint32_t si, uint32_t sj, uint32_t sk, double stat, int df, uint32_t n)
{
    worker3_score(ctx, w, i, j, k, si, sj, sk, stat, df, n, 1);
}

void es_worker3_offer_screened(const es_scan3_ctx_t *ctx, es_worker3_t *w, uint32_t i, uint32_t j, uint32_t k,
                               uint32_t si, uint32_t sj, uint32_t sk, const es_table3_t *t)
{
    es_stat_result_t r;
    uint32_t n;
    table3_value(ctx, t, &r, &n);
    worker3_score(ctx, w, i, j, k, si, sj, sk, r.stat, r.df, n, 0);
}

void es_worker3_offer_run(const es_scan3_ctx_t *ctx, es_worker3_t *w, uint32_t i, uint32_t j, uint32_t k0,
                          uint32_t si, uint32_t sj, uint32_t sk0, uint32_t nk, const double *stat, const int *df,
                          const uint32_t *n)
{
    if (!nk) return;
    int hib = ctx->higher_is_better;
    uint64_t n_sig = 0;
    uint32_t best = 0;
    for (uint32_t q = 0; q < nk; q++) {
        uint32_t k = k0 + q;
        es_triple_t tr = {.i = i, .j = j, .k = k, .n = n[q], .df = df[q], .stat = stat[q], .p = NAN,
                          .log10p = NAN};
        int sig = worker3_sig(ctx, w, &tr);
        n_sig += (uint64_t)sig;
        es_sum3_t *sc = &w->tsum[sk0 + q];
        sc->n_tot++;
        sc->n_sig += (uint64_t)sig;
        if (sum3_better(sc, stat[q], i, j, k, hib)) sum3_take(sc, stat[q], df[q], n[q], i, j, k);
        /* the run's best for the pair's two variants: ties to the lower k */
        if (hib ? stat[q] > stat[best] : stat[q] < stat[best]) best = q;
        if (es_topk3_would_accept(&w->top, stat[q])) es_topk3_push(&w->top, &tr);
    }
    w->tile_triples += nk;
    es_sum3_t *s2[2] = {&w->tsum[si], &w->tsum[sj]};
    for (int v = 0; v < 2; v++) {
        s2[v]->n_tot += nk;
        s2[v]->n_sig += n_sig;
        if (sum3_better(s2[v], stat[best], i, j, k0 + best, hib))
            sum3_take(s2[v], stat[best], df[best], n[best], i, j, k0 + best);
    }
}

static inline uint32_t blk_count(const es_scan3_ctx_t *ctx, uint32_t b) { return ctx->blocks[b].count; }

void es_worker3_count_tile(const es_scan3_ctx_t *ctx, es_worker3_t *w, uint32_t bi, uint32_t bj, uint32_t bk)
{
    const uint64_t na = blk_count(ctx, bi), nb = blk_count(ctx, bj), nc = blk_count(ctx, bk);
    const uint32_t B = ctx->block, base_b = bj == bi ? 0 : B, base_c = bk == bj ? base_b : 2 * B;
    uint64_t ca, cb, cc, tot;
    if (bi == bj && bj == bk) {
        ca = cb = cc = (na - 1) * (na - 2) / 2;
        tot = na * (na - 1) * (na - 2) / 6;
    } else if (bi == bj) { /* pairs a < b of one block, k of another */
        ca = cb = (na - 1) * nc;
        cc = na * (na - 1) / 2;
        tot = na * (na - 1) / 2 * nc;
    } else if (bj == bk) { /* a of one block, pairs b < k of another */
        ca = nb * (nb - 1) / 2;
        cb = cc = na * (nb - 1);
        tot = na * nb * (nb - 1) / 2;
    } else {
        ca = nb * nc;
        cb = na * nc;
        cc = na * nb;
        tot = na * nb * nc;
    }
    for (uint32_t v = 0; v < na; v++) w->tsum[v].n_tot += ca;
    if (base_b)
        for (uint32_t v = 0; v < nb; v++) w->tsum[base_b + v].n_tot += cb;
    if (base_c > base_b)
        for (uint32_t v = 0; v < nc; v++) w->tsum[base_c + v].n_tot += cc;
    w->tile_triples += tot;
}

void es_worker3_count_seed_tile(const es_scan3_ctx_t *ctx, es_worker3_t *w, uint32_t chunk, uint32_t bk)
{
    const es_planes_t *pc = &ctx->blocks[bk];
    const uint32_t B = ctx->block, p0 = chunk * ctx->seed_chunk, lo = pc->first, hi = pc->first + pc->count;
    const uint32_t p1 = p0 + ctx->seed_chunk < ctx->n_seeds ? p0 + ctx->seed_chunk : ctx->n_seeds;
    /* every seed of the chunk extends every k of the block, but for its own
     * two variants and the k it excludes */
    for (uint32_t v = 0; v < pc->count; v++) w->tsum[v].n_tot += p1 - p0;
    for (uint32_t p = p0; p < p1; p++) {
        uint32_t n = pc->count;
        for (int e = 0; e < 2; e++) {
            uint32_t v = ctx->seeds[2 * p + e];
            if (v >= lo && v < hi) {
                n--;
                w->tsum[v - lo].n_tot--;
            }
        }
        for (uint32_t x = ctx->excl_off[p]; x < ctx->excl_off[p + 1]; x++) {
            uint32_t v = ctx->excl[x];
            if (v >= lo && v < hi) {
                n--;
                w->tsum[v - lo].n_tot--;
            }
        }
        uint32_t si = B + 2 * (p - p0);
        w->tsum[si].n_tot += n;
        w->tsum[si + 1].n_tot += n;
        w->tile_triples += n;
    }
}

static int cmp_ijk(const void *pa, const void *pb)
{
    const es_triple_t *a = pa, *b = pb;
    if (a->i != b->i) return a->i < b->i ? -1 : 1;
    if (a->j != b->j) return a->j < b->j ? -1 : 1;
    if (a->k != b->k) return a->k < b->k ? -1 : 1;
    return 0;
}

/* Sort a finished row's triples and hand them to the callback (lock held). */
static int emit_row(es_scan3_ctx_t *ctx, es_row3_t *row)
{
    int ret = ES_OK;
    if (row->n) qsort(row->t, row->n, sizeof *row->t, cmp_ijk);
    es_scan_t *s = ctx->scan;
    if (s->sig3_cb)
        for (size_t q = 0; q < row->n && !ret; q++)
            if (s->sig3_cb(&row->t[q], s->sig3_ud)) ret = ES_ERR_IO;
    free(row->t);
    row->t = NULL;
    row->n = row->cap = 0;
    return ret;
}

int es_ctx3_tile_done(es_scan3_ctx_t *ctx, es_worker3_t *w)
{
    if (ctx->tile_sink) return ctx->tile_sink(ctx->claim_ud, ctx, w);
    int ret = w->err;
    pthread_mutex_lock(&ctx->lock);
    for (uint32_t q = 0; q < w->n_slots; q++)
        if (w->tsum[q].n_tot) es_sum3_merge(&ctx->sum[w->slot_var[q]], &w->tsum[q], ctx->higher_is_better);
    es_row3_t *row = &ctx->rows[w->row];
    if (!ret && w->sig_n) {
        if (row->n + w->sig_n > row->cap) {
            size_t cap = row->cap ? row->cap : 1024;
            while (cap < row->n + w->sig_n) cap *= 2;
            es_triple_t *p = realloc(row->t, cap * sizeof *p);
            if (!p) ret = ES_ERR_NOMEM;
            else {
                row->t = p;
                row->cap = cap;
            }
        }
        if (!ret) {
            memcpy(row->t + row->n, w->sig, w->sig_n * sizeof *w->sig);
            row->n += w->sig_n;
        }
    }
    row->tiles_done++;
    ctx->done += w->tile_triples;
    /* the tile's best into the scan's list; its k-th best floors the worker's */
    es_topk3_merge(ctx->top, &w->top);
    es_topk3_clear(&w->top);
    es_topk3_set_floor(&w->top, ctx->top);
    if (ctx->tile_mark) ctx->tile_mark[w->tile] = 1;
    /* exhaustive: emit every complete row, in order */
    while (!ret && !ctx->seeds && ctx->next_row < ctx->n_rows &&
           ctx->rows[ctx->next_row].tiles_done >= ctx->rows[ctx->next_row].need) {
        ret = emit_row(ctx, &ctx->rows[ctx->next_row]);
        ctx->next_row++;
    }
    if (!ret && ctx->on_tile) ret = ctx->on_tile(ctx->on_tile_ud);
    es_scan_t *s = ctx->scan;
    if (s->prog_cb) {
        double now = es_time_now();
        if (now - ctx->t_last_progress >= 1.0) {
            ctx->t_last_progress = now;
            s->prog_cb(ctx->done, ctx->total, now - ctx->t_start, s->prog_ud);
        }
    }
    if (ret && !ctx->err) ctx->err = ret;
    pthread_mutex_unlock(&ctx->lock);
    if (ret) atomic_store(&ctx->stop, 1);
    w->sig_n = 0;
    return ret;
}

void es_ctx3_fail(es_scan3_ctx_t *ctx, int err)
{
    pthread_mutex_lock(&ctx->lock);
    if (!ctx->err) ctx->err = err;
    pthread_mutex_unlock(&ctx->lock);
    atomic_store(&ctx->stop, 1);
}

int es_ctx3_finish(es_scan3_ctx_t *ctx)
{
    if (ctx->err) return ctx->err;
    if (ctx->seeds) return emit_row(ctx, &ctx->rows[0]);
    return ES_OK;
}
