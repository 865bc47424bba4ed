/* tile.c -- the tile queue and the workers: the pair space cut into tiles
 * (bi <= bj) handed out from one queue, per-worker scoring, and the merge of
 * what the workers found into one deterministic top-k, summary and stream of
 * significant pairs (the driver is src/scan/scan.c).
 *
 * Determinism: every merge below uses a total order (statistic, then indices),
 * and significant pairs are emitted row panel by row panel, each panel sorted by
 * (i, j); so the output does not depend on thread count, tile size or device. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "tile.h"

/* ---- per-variant summary ----------------------------------------------- */

void es_summary_reset(es_summary_t *s, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        s[k].best_partner = UINT32_MAX;
        s[k].best_stat = NAN;
        s[k].best_p = NAN;
        s[k].n_sig = 0;
        s[k].n_tot = 0;
    }
}

/* Is (stat, partner) better than what s holds?  Ties go to the lower partner. */
static inline int summary_better(const es_summary_t *s, double stat, uint32_t partner, int hib)
{
    if (s->best_partner == UINT32_MAX) return 1;
    if (stat != s->best_stat) return hib ? stat > s->best_stat : stat < s->best_stat;
    return partner < s->best_partner;
}

static inline void summary_update(es_summary_t *s, double stat, double p, uint32_t partner,
                                  int sig, int hib)
{
    s->n_sig += (uint64_t)sig;
    if (summary_better(s, stat, partner, hib)) {
        s->best_stat = stat;
        s->best_p = p;
        s->best_partner = partner;
    }
}

static inline void summary_merge(es_summary_t *dst, const es_summary_t *src, int hib)
{
    dst->n_tot += src->n_tot;
    dst->n_sig += src->n_sig;
    if (src->best_partner != UINT32_MAX && summary_better(dst, src->best_stat, src->best_partner, hib)) {
        dst->best_stat = src->best_stat;
        dst->best_p = src->best_p;
        dst->best_partner = src->best_partner;
    }
}

void es_summary_merge(es_summary_t *dst, const es_summary_t *src, int higher_is_better)
{
    summary_merge(dst, src, higher_is_better);
}

/* ---- workers -------------------------------------------------------------- */

int es_worker_init(es_worker_t *w, const es_scan_ctx_t *ctx)
{
    memset(w, 0, sizeof *w);
    int ret = es_topk_init(&w->top, ctx->scan->opt.top_k, ctx->higher_is_better);
    if (ret) return ret;
    w->tsum = malloc(2 * (size_t)ctx->block * sizeof *w->tsum);
    /* BOOST and linear prune against the variants' best so far (es_ctx_next_tile) */
    int known = (ctx->stat == ES_STAT_BOOST || ctx->stat == ES_STAT_LINEAR) && ctx->higher_is_better;
    if (known) w->known = malloc(2 * (size_t)ctx->block * sizeof *w->known);
    if (!w->tsum || (known && !w->known)) {
        free(w->tsum);
        free(w->known);
        es_topk_free(&w->top);
        es_error("cannot allocate worker buffers");
        return ES_ERR_NOMEM;
    }
    return ES_OK;
}

int es_worker_set_sparse(es_worker_t *w, const es_scan_ctx_t *ctx)
{
    size_t n = 2 * (size_t)ctx->block;
    w->tmark = calloc(n, 1);
    w->touched = malloc(n * sizeof *w->touched);
    if (!w->tmark || !w->touched) {
        free(w->tmark);
        free(w->touched);
        w->tmark = NULL;
        w->touched = NULL;
        es_error("cannot allocate worker buffers");
        return ES_ERR_NOMEM;
    }
    w->n_touched = 0;
    es_summary_reset(w->tsum, n);
    return ES_OK;
}

void es_worker_free(es_worker_t *w)
{
    es_topk_free(&w->top);
    free(w->tmark);
    free(w->touched);
    free(w->sig);
    free(w->tsum);
    free(w->known);
    memset(w, 0, sizeof *w);
}

/* The t-th tile of the claim order (every tile once). */
static void tile_at(const es_scan_ctx_t *ctx, uint64_t t, uint32_t *bi, uint32_t *bj);

int es_ctx_claim_tile(es_scan_ctx_t *ctx, uint32_t *bi, uint32_t *bj)
{
    if (ctx->claim_remote) return ctx->claim_remote(ctx->claim_ud, bi, bj);
    if (!atomic_load_explicit(&ctx->claims_begun, memory_order_relaxed)) atomic_store(&ctx->claims_begun, 1);
    for (;;) {
        if (atomic_load_explicit(&ctx->stop, memory_order_relaxed)) return -1;
        uint64_t t = atomic_fetch_add(&ctx->next_tile, 1);
        if (t >= ctx->n_tiles) return -1;
        tile_at(ctx, t, bi, bj);
        /* a tile done before (resumed) or another shard's is not this run's */
        if (!ctx->tile_skip || !ctx->tile_skip[es_ctx_tile_index(ctx, *bi, *bj)]) return 0;
    }
}

static void tile_at(const es_scan_ctx_t *ctx, uint64_t t, uint32_t *bi, uint32_t *bj)
{
    if (ctx->order == ES_TILES_SQUARES) {
        /* growing squares: for k = 0, 1, ...: (k, k), then (0, k) ..
         * (k - 1, k).  Every tile still follows both blocks' diagonal
         * tiles, and block k is first needed after k (k + 1) / 2 tiles, so
         * a device's block uploads run beside the tiles of the blocks it has
         * (the diagonal tiles' many candidates spread among the others') */
        uint64_t k = (uint64_t)((sqrt(8.0 * (double)t + 1.0) - 1.0) / 2.0);
        while (k * (k + 1) / 2 > t) k--;
        while ((k + 1) * (k + 2) / 2 <= t) k++;
        const uint64_t u = t - k * (k + 1) / 2;
        *bj = (uint32_t)k;
        *bi = u ? (uint32_t)(u - 1) : (uint32_t)k;
        return;
    }
    if (ctx->order == ES_TILES_DIAG_FIRST) {
        /* the diagonal tiles, then the others by rows: every variant meets
         * its own block first, so a device's thresholds are known for both
         * blocks of every later tile.  The rows alternate their direction
         * (row 0 from its left, row 1 from its right, ...), so that a new
         * row starts on a column block the last tile had: a device whose
         * cache streams the blocks uploads one block there, beside the tile
         * before, instead of two after it (issue 24) */
        if (t < ctx->n_blocks) {
            *bi = *bj = (uint32_t)t;
            return;
        }
        t -= ctx->n_blocks;
        /* row bi has n_blocks - bi - 1 off-diagonal tiles, the first at
         * row_start[bi] - bi */
        uint32_t lo = 0, hi = ctx->n_blocks;
        while (hi - lo > 1) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (ctx->row_start[mid] - mid <= t) lo = mid; else hi = mid;
        }
        const uint32_t u = (uint32_t)(t - (ctx->row_start[lo] - lo)), len = ctx->n_blocks - lo - 1;
        *bi = lo;
        *bj = lo + 1 + (lo & 1 ? len - 1 - u : u);
        return;
    }
    /* row panels have n_blocks - bi tiles; find the row by binary search */
    uint32_t lo = 0, hi = ctx->n_blocks;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ctx->row_start[mid] <= t) lo = mid; else hi = mid;
    }
    *bi = lo;
    *bj = lo + (uint32_t)(t - ctx->row_start[lo]);
}

void es_worker_begin_tile(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t bi, uint32_t bj)
{
    w->bi = bi;
    w->bj = bj;
    w->sig_n = 0;
    w->tile_pairs = 0;
    w->known_ok = 0;
    if (!w->tmark) es_summary_reset(w->tsum, 2 * (size_t)ctx->block); /* sparse: cleared by the merge */
}

static inline uint32_t block_count(const es_scan_ctx_t *ctx, uint32_t b);

/* The best statistic each variant of the tile has so far in the scan's
 * merged summary: a value the variant's final best reaches at least, so a
 * pair whose bound is below it cannot be that variant's best (BOOST's
 * pruning; -inf where there is none yet). */
static void load_known(es_scan_ctx_t *ctx, es_worker_t *w)
{
    uint32_t blk = ctx->block, b[2] = {w->bi, w->bj};
    pthread_mutex_lock(&ctx->lock);
    for (int side = 0; side < 1 + (w->bi != w->bj); side++) {
        uint32_t n = block_count(ctx, b[side]);
        const es_summary_t *g = ctx->summary + (size_t)b[side] * blk;
        double *k = w->known + (size_t)side * blk;
        for (uint32_t v = 0; v < n; v++) k[v] = g[v].best_partner == UINT32_MAX ? -INFINITY : g[v].best_stat;
    }
    pthread_mutex_unlock(&ctx->lock);
    w->known_ok = 1;
}

int es_ctx_next_tile(es_scan_ctx_t *ctx, es_worker_t *w, uint32_t *bi, uint32_t *bj)
{
    if (es_ctx_claim_tile(ctx, bi, bj)) return -1;
    es_worker_begin_tile(ctx, w, *bi, *bj);
    if (w->known) load_known(ctx, w);
    return 0;
}

static int sig_append(es_worker_t *w, const es_pair_t *p);

/* Fold the slots sparse worker w scored into lo (slots of the tile's first
 * block) and hi (its second), and clear them in w; mark: a sparse worker that
 * receives them and must remember them too (or NULL). */
static void fold_touched(const es_scan_ctx_t *ctx, es_worker_t *w, es_summary_t *lo, es_summary_t *hi,
                         es_worker_t *mark)
{
    for (uint32_t k = 0; k < w->n_touched; k++) {
        uint32_t s = w->touched[k];
        if (mark && !mark->tmark[s]) {
            mark->tmark[s] = 1;
            mark->touched[mark->n_touched++] = s;
        }
        summary_merge(s < ctx->block ? &lo[s] : &hi[s - ctx->block], &w->tsum[s], ctx->higher_is_better);
        es_summary_reset(&w->tsum[s], 1);
        w->tmark[s] = 0;
    }
    w->n_touched = 0;
}

void es_worker_merge(const es_scan_ctx_t *ctx, es_worker_t *dst, es_worker_t *src)
{
    if (src->tmark) {
        fold_touched(ctx, src, dst->tsum, dst->tsum + ctx->block, dst->tmark ? dst : NULL);
    } else {
        size_t nsum = (dst->bi == dst->bj ? 1 : 2) * (size_t)ctx->block;
        for (size_t k = 0; k < nsum; k++) summary_merge(&dst->tsum[k], &src->tsum[k], ctx->higher_is_better);
    }
    for (size_t k = 0; k < src->sig_n; k++)
        if (sig_append(dst, &src->sig[k]) != ES_OK) dst->err = ES_ERR_NOMEM;
    src->sig_n = 0;
    dst->tile_pairs += src->tile_pairs;
    src->tile_pairs = 0;
    es_topk_merge(&dst->top, &src->top);
    es_topk_clear(&src->top);
    src->top.has_floor = dst->top.has_floor;
    src->top.floor = dst->top.floor;
    if (src->err && !dst->err) dst->err = src->err;
}

static inline uint32_t block_count(const es_scan_ctx_t *ctx, uint32_t b)
{
    return (b + 1) * ctx->block <= ctx->m ? ctx->block : ctx->m - b * ctx->block;
}

void es_worker_count_tile(const es_scan_ctx_t *ctx, es_worker_t *w)
{
    uint32_t ni = block_count(ctx, w->bi);
    if (w->tmark) { /* sparse: per block, folded in by es_ctx_tile_done */
        uint32_t nj = w->bi == w->bj ? ni : block_count(ctx, w->bj);
        w->cnt_i = w->bi == w->bj ? ni - 1 : nj;
        w->cnt_j = ni;
        w->tile_pairs += w->bi == w->bj ? (uint64_t)ni * (ni - 1) / 2 : (uint64_t)ni * nj;
        return;
    }
    if (w->bi == w->bj) {
        for (uint32_t k = 0; k < ni; k++) w->tsum[k].n_tot += ni - 1;
        w->tile_pairs += (uint64_t)ni * (ni - 1) / 2;
        return;
    }
    uint32_t nj = block_count(ctx, w->bj);
    for (uint32_t k = 0; k < ni; k++) w->tsum[k].n_tot += nj;
    for (uint32_t k = 0; k < nj; k++) w->tsum[ctx->block + k].n_tot += ni;
    w->tile_pairs += (uint64_t)ni * nj;
}

static int sig_append(es_worker_t *w, const es_pair_t *p)
{
    if (w->sig_n == w->sig_cap) {
        size_t cap = w->sig_cap ? 2 * w->sig_cap : 1024;
        es_pair_t *n = realloc(w->sig, cap * sizeof *n);
        if (!n) return ES_ERR_NOMEM;
        w->sig = n;
        w->sig_cap = cap;
    }
    w->sig[w->sig_n++] = *p;
    return ES_OK;
}

/* Largest statistic that surely cannot matter for the top-k or the summary of
 * variant slots si, sj of this tile (higher-is-better statistics only). */
static inline double prune_below(const es_scan_ctx_t *ctx, const es_worker_t *w, size_t si,
                                 size_t sj)
{
    double lim = ctx->sig_min, kth;
    if (!es_topk_kth(&w->top, &kth)) return -INFINITY;
    if (kth < lim) lim = kth;
    const es_summary_t *a = &w->tsum[si], *b = &w->tsum[sj];
    double la = a->best_partner == UINT32_MAX ? -INFINITY : a->best_stat;
    double lb = b->best_partner == UINT32_MAX ? -INFINITY : b->best_stat;
    /* the scan's best so far, when the tile came from es_ctx_next_tile */
    if (w->known && w->known_ok) {
        if (w->known[si] > la) la = w->known[si];
        if (w->known[sj] > lb) lb = w->known[sj];
    }
    if (la < lim) lim = la;
    if (lb < lim) lim = lb;
    return lim;
}

/* The tile's summary slots of pair (i, j), marked as touched in a sparse
 * worker; `count`: the pair is counted in the tile (n_tot, tile_pairs). */
static inline void worker_slots(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j, int count,
                                size_t *si_out, size_t *sj_out)
{
    uint32_t base_i = w->bi * ctx->block, base_j = w->bj * ctx->block;
    size_t si = i - base_i;
    size_t sj = (w->bi == w->bj ? 0 : ctx->block) + (j - base_j);
    if (w->tmark) {
        if (!w->tmark[si]) {
            w->tmark[si] = 1;
            w->touched[w->n_touched++] = (uint32_t)si;
        }
        if (!w->tmark[sj]) {
            w->tmark[sj] = 1;
            w->touched[w->n_touched++] = (uint32_t)sj;
        }
    }
    if (count) {
        w->tile_pairs++;
        w->tsum[si].n_tot++;
        w->tsum[sj].n_tot++;
    }
    *si_out = si;
    *sj_out = sj;
}

/* Keep a scored pair where it belongs: the significant list, the tile's
 * top-k and both variants' summaries. */
static inline void worker_keep(es_worker_t *w, size_t si, size_t sj, const es_pair_t *p, int sig, int to_top,
                               int hib)
{
    if (sig && sig_append(w, p) != ES_OK) w->err = ES_ERR_NOMEM;
    if (to_top) es_topk_push(&w->top, p);
    summary_update(&w->tsum[si], p->stat, p->p, p->j, sig, hib);
    summary_update(&w->tsum[sj], p->stat, p->p, p->i, sig, hib);
}

/* The table of a pair: given, or pair k of a cell-by-cell run, converted
 * only when something reads it. */
typedef struct {
    const es_table2_t *t;
    const es_table2_soa_t *soa;
    uint32_t k;
    es_table2_t buf;
} pair_tab_t;

static inline const es_table2_t *pair_tab(pair_tab_t *pt)
{
    if (!pt->t) {
        es_table2_from_soa(pt->soa, pt->k, &pt->buf);
        pt->t = &pt->buf;
    }
    return pt->t;
}

static inline void worker_score_tab(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j,
                                    const es_table2_t *t, size_t si, size_t sj, int count, const double *fit);

/* Score one pair; `count`: also count it in the tile (n_tot, tile_pairs);
 * mib: its es_stat_boost_bound_mi() when the caller has it (BOOST), else
 * NaN. */
static inline void worker_score(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j,
                                pair_tab_t *pt, int count, double mib)
{
    size_t si, sj;
    worker_slots(ctx, w, i, j, count, &si, &sj);
    /* BOOST's exact fit is iterative; two bounds are cheap and never below
     * it (the [AB][K] G, then the Kirkwood one), so a pair whose bound cannot
     * reach the top-k, either variant's best or the significance threshold is
     * counted and dropped without the fit. */
    if (ctx->stat == ES_STAT_BOOST) {
        double lim = prune_below(ctx, w, si, sj);
        if (isnan(mib)) mib = es_stat_boost_bound_mi(pair_tab(pt));
        if (mib < lim || es_stat_boost_bound(pair_tab(pt)) < lim) return;
    }
    worker_score_tab(ctx, w, i, j, pair_tab(pt), si, sj, count, NULL);
}

/* The rest of worker_score(): the statistic, and where the pair goes;
 * fit: BOOST's fit of t (es_stat_value_boost_fitted), or NULL. */
static inline void worker_score_tab(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j,
                                    const es_table2_t *t, size_t si, size_t sj, int count, const double *fit)
{
    es_summary_t *sa = &w->tsum[si], *sb = &w->tsum[sj];
    int hib = ctx->higher_is_better;
    es_stat_result_t r;
    if (fit) es_stat_value_boost_fitted(t, fit, &r);
    else es_stat_value(ctx->stat, t, &r);
    int have_p = 0, sig = 0;
    if (ctx->do_sig && r.df >= 0 && r.df <= ES_MAX_DF &&
        es_stat_g(ctx->stat, t, r.stat) >= ctx->sig_crit[r.df]) {
        es_stat_pvalue(ctx->stat, t, &r);
        have_p = 1;
        sig = r.p <= ctx->p_threshold;
    }
    int to_top = es_topk_would_accept(&w->top, r.stat);
    int to_a = summary_better(sa, r.stat, j, hib), to_b = summary_better(sb, r.stat, i, hib);
    if (!have_p && (to_top || to_a || to_b)) es_stat_pvalue(ctx->stat, t, &r);
    es_pair_t p = {.i = i, .j = j, .stat = r.stat, .p = r.p, .log10p = r.log10p, .df = r.df, .beta = NAN};
    if (to_top || sig) {
        uint32_t n = 0;
        for (int k = 0; k < 9; k++) n += t->n[0][k] + t->n[1][k];
        p.n = n;
        if (ctx->stat == ES_STAT_LOGISTIC) { /* the coefficient of the pairs written (the fit again) */
            es_stat_result_t rb;
            es_stat_logistic(t, &rb, &p.beta);
        }
    }
    if (ctx->stat == ES_STAT_LOGISTIC && r.df == 0 && count) { /* a failed fit: PLINK's N_TOT leaves it out */
        sa->n_tot--;
        sb->n_tot--;
    }
    worker_keep(w, si, sj, &p, sig, to_top, hib);
}

static void offer_result(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j, const es_stat_result_t *r,
                         uint32_t n, double beta, int count)
{
    size_t si, sj;
    worker_slots(ctx, w, i, j, count, &si, &sj);
    if (r->df == 0) { /* a failed fit is no test: PLINK leaves it out of N_TOT */
        w->tsum[si].n_tot--;
        w->tsum[sj].n_tot--;
    }
    es_pair_t p = {.i = i, .j = j, .n = n, .stat = r->stat, .p = r->p, .log10p = r->log10p, .df = r->df, .beta = beta};
    int hib = ctx->higher_is_better;
    int to_top = es_topk_would_accept(&w->top, r->stat);
    if (isnan(p.p)) { /* linear: the p-value of the pairs that go somewhere */
        int maybe_sig = ctx->do_sig && r->df <= ES_MAX_DF && r->stat >= ctx->sig_crit[r->df];
        if (!maybe_sig && !to_top && !summary_better(&w->tsum[si], r->stat, j, hib) &&
            !summary_better(&w->tsum[sj], r->stat, i, hib))
            return; /* nothing it could change */
        es_stat_result_t rp = *r;
        es_stat_linear_p(&rp);
        p.p = rp.p;
        p.log10p = rp.log10p;
    }
    int sig = ctx->do_sig && p.p <= ctx->p_threshold;
    worker_keep(w, si, sj, &p, sig, to_top, hib);
}

void es_worker_offer_result(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j,
                            const es_stat_result_t *r, uint32_t n, double beta)
{
    offer_result(ctx, w, i, j, r, n, beta, 1);
}

void es_worker_offer_result_screened(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j,
                                     const es_stat_result_t *r, uint32_t n, double beta)
{
    offer_result(ctx, w, i, j, r, n, beta, 0);
}

double es_worker_prune_below(const es_scan_ctx_t *ctx, const es_worker_t *w, uint32_t i, uint32_t j)
{
    size_t si = i - w->bi * ctx->block, sj = (w->bi == w->bj ? 0 : ctx->block) + (j - w->bj * ctx->block);
    return prune_below(ctx, w, si, sj);
}

void es_worker_offer_pruned(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j)
{
    size_t si, sj;
    worker_slots(ctx, w, i, j, 1, &si, &sj);
}

void es_worker_offer(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j,
                     const es_table2_t *t)
{
    pair_tab_t pt = {.t = t};
    worker_score(ctx, w, i, j, &pt, 1, NAN);
}

/* prune_below()'s limit without the partner's part: min(significance, k-th
 * best, a's best), or -inf where the top-k is not full yet. */
static inline double run_limit(const es_scan_ctx_t *ctx, const es_worker_t *w, size_t si)
{
    double lim = ctx->sig_min, kth;
    if (!es_topk_kth(&w->top, &kth)) return -INFINITY;
    if (kth < lim) lim = kth;
    const es_summary_t *a = &w->tsum[si];
    double la = a->best_partner == UINT32_MAX ? -INFINITY : a->best_stat;
    if (w->known && w->known_ok && w->known[si] > la) la = w->known[si];
    return la < lim ? la : lim;
}

void es_worker_offer_run(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j0, uint32_t nb,
                         const es_table2_soa_t *s, const double *mib)
{
    if (!mib || w->tmark || ctx->stat != ES_STAT_BOOST) {
        for (uint32_t k = 0; k < nb; k++) {
            pair_tab_t pt = {.soa = s, .k = k};
            worker_score(ctx, w, i, j0 + k, &pt, 1, mib ? mib[k] : NAN);
        }
        return;
    }
    /* BOOST in a dense worker: the pairs counted for the run at once, and
     * each pair's limit as prune_below() takes it, from the run's part
     * (refreshed after every pair that passes, the only ones that can move
     * it) and the partner's best */
    size_t si = i - (size_t)w->bi * ctx->block;
    size_t sj0 = (w->bi == w->bj ? 0 : ctx->block) + (j0 - (size_t)w->bj * ctx->block);
    w->tile_pairs += nb;
    w->tsum[si].n_tot += nb;
    const int known = w->known && w->known_ok;
    double lim0 = run_limit(ctx, w, si);
    for (uint32_t k = 0; k < nb; k++) {
        es_summary_t *b = &w->tsum[sj0 + k];
        b->n_tot++;
        double lb = b->best_partner == UINT32_MAX ? -INFINITY : b->best_stat;
        if (known && w->known[sj0 + k] > lb) lb = w->known[sj0 + k];
        if (mib[k] < (lb < lim0 ? lb : lim0)) continue;
        pair_tab_t pt = {.soa = s, .k = k};
        worker_score(ctx, w, i, j0 + k, &pt, 0, mib[k]);
        lim0 = run_limit(ctx, w, si);
    }
}

void es_worker_prune_run(const es_scan_ctx_t *ctx, const es_worker_t *w, uint32_t i, uint32_t j0, uint32_t nb,
                         double *lim)
{
    size_t si = i - (size_t)w->bi * ctx->block;
    size_t sj0 = (w->bi == w->bj ? 0 : ctx->block) + (j0 - (size_t)w->bj * ctx->block);
    const int known = w->known && w->known_ok;
    double lim0 = run_limit(ctx, w, si);
    for (uint32_t k = 0; k < nb; k++) {
        const es_summary_t *b = &w->tsum[sj0 + k];
        double lb = b->best_partner == UINT32_MAX ? -INFINITY : b->best_stat;
        if (known && w->known[sj0 + k] > lb) lb = w->known[sj0 + k];
        lim[k] = lb < lim0 ? lb : lim0;
    }
}

void es_worker_count_pruned(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j0, uint32_t nb,
                            const uint8_t *pruned)
{
    size_t si, sj;
    if (w->tmark) {
        for (uint32_t k = 0; k < nb; k++)
            if (pruned[k]) worker_slots(ctx, w, i, j0 + k, 1, &si, &sj);
        return;
    }
    /* a dense worker: worker_slots()'s counts, without a branch a pair */
    si = i - (size_t)w->bi * ctx->block;
    size_t sj0 = (w->bi == w->bj ? 0 : ctx->block) + (j0 - (size_t)w->bj * ctx->block);
    uint64_t c = 0;
    for (uint32_t k = 0; k < nb; k++) {
        c += pruned[k];
        w->tsum[sj0 + k].n_tot += pruned[k];
    }
    w->tile_pairs += c;
    w->tsum[si].n_tot += c;
}

void es_worker_offer_screened(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j,
                              const es_table2_t *t)
{
    pair_tab_t pt = {.t = t};
    worker_score(ctx, w, i, j, &pt, 0, NAN);
}

void es_worker_offer_fitted(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j,
                            const es_table2_t *t, const double mu[18])
{
    size_t si, sj;
    worker_slots(ctx, w, i, j, 0, &si, &sj);
    /* no bounds first: they only spare the fit, which is done */
    worker_score_tab(ctx, w, i, j, t, si, sj, 0, mu);
}

static int pair_ij_cmp(const void *a, const void *b)
{
    const es_pair_t *x = a, *y = b;
    if (x->i != y->i) return x->i < y->i ? -1 : 1;
    return x->j < y->j ? -1 : (x->j > y->j);
}

/* Emit every complete row panel in order; called with the lock held. */
static int emit_rows(es_scan_ctx_t *ctx)
{
    es_scan_t *s = ctx->scan;
    while (ctx->next_row < ctx->n_blocks) {
        es_row_pending_t *r = &ctx->rows[ctx->next_row];
        if (r->tiles_done < r->need) break;
        if (r->n) qsort(r->pairs, r->n, sizeof *r->pairs, pair_ij_cmp);
        for (size_t k = 0; k < r->n && s->sig_cb; k++) {
            if (s->sig_cb(&r->pairs[k], s->sig_ud)) {
                /* the callback said why (a full disk: which file) */
                es_info("the significant-pair callback stopped the scan");
                return ES_ERR_IO;
            }
        }
        free(r->pairs);
        r->pairs = NULL;
        r->n = r->cap = 0;
        ctx->next_row++;
    }
    return ES_OK;
}

int es_ctx_tile_done(es_scan_ctx_t *ctx, es_worker_t *w)
{
    if (ctx->tile_sink) return ctx->tile_sink(ctx->claim_ud, ctx, w);
    int ret = w->err;
    uint32_t bi = w->bi, bj = w->bj, blk = ctx->block;
    pthread_mutex_lock(&ctx->lock);
    if (ret) goto out;
    /* summary of the tile's variants */
    if (w->tmark) {
        /* sparse: the slots scored, then the pair counts per block */
        fold_touched(ctx, w, ctx->summary + (size_t)bi * blk, ctx->summary + (size_t)bj * blk, NULL);
        ctx->blk_ntot[bi] += w->cnt_i;
        if (bi != bj) ctx->blk_ntot[bj] += w->cnt_j;
        w->cnt_i = w->cnt_j = 0;
    } else {
        uint32_t ni = block_count(ctx, bi);
        for (uint32_t k = 0; k < ni; k++)
            summary_merge(&ctx->summary[bi * blk + k], &w->tsum[k], ctx->higher_is_better);
        if (bi != bj) {
            uint32_t nj = block_count(ctx, bj);
            for (uint32_t k = 0; k < nj; k++)
                summary_merge(&ctx->summary[bj * blk + k], &w->tsum[blk + k], ctx->higher_is_better);
        }
    }
    if (ctx->do_sig) {
        es_row_pending_t *r = &ctx->rows[bi];
        if (w->sig_n) {
            if (r->n + w->sig_n > r->cap) {
                size_t cap = r->cap ? r->cap : 1024;
                while (cap < r->n + w->sig_n) cap *= 2;
                es_pair_t *np = realloc(r->pairs, cap * sizeof *np);
                if (!np) {
                    ret = ES_ERR_NOMEM;
                    es_error("out of memory buffering significant pairs (%zu pending); "
                             "use a smaller --p-threshold", r->n);
                    goto out;
                }
                r->pairs = np;
                r->cap = cap;
            }
            memcpy(r->pairs + r->n, w->sig, w->sig_n * sizeof *w->sig);
            r->n += w->sig_n;
        }
        r->tiles_done++;
        ret = emit_rows(ctx);
        if (ret) goto out;
    }
    /* the tile's best into the scan's list, whose k-th best then bounds
     * what the worker keeps */
    es_topk_merge(ctx->top, &w->top);
    es_topk_clear(&w->top);
    es_topk_set_floor(&w->top, ctx->top);
    ctx->pairs_done += w->tile_pairs;
    if (ctx->tile_mark) ctx->tile_mark[ctx->row_start[bi] + (bj - bi)] = 1;
    if (ctx->on_tile && (ret = ctx->on_tile(ctx->on_tile_ud))) goto out;
    if (ctx->scan->prog_cb) {
        double now = es_time_now();
        if (now - ctx->t_last_progress >= 0.5) {
            ctx->t_last_progress = now;
            uint64_t total = (uint64_t)ctx->m * (ctx->m - 1) / 2;
            ctx->scan->prog_cb(ctx->pairs_done, total, now - ctx->t_start, ctx->scan->prog_ud);
        }
    }
out:
    if (ret && !ctx->err) ctx->err = ret;
    pthread_mutex_unlock(&ctx->lock);
    if (ret) atomic_store(&ctx->stop, 1);
    return ret;
}

void es_ctx_fail(es_scan_ctx_t *ctx, int err)
{
    pthread_mutex_lock(&ctx->lock);
    if (!ctx->err) ctx->err = err;
    pthread_mutex_unlock(&ctx->lock);
    atomic_store(&ctx->stop, 1);
}

void es_ctx_fold_block_counts(es_scan_ctx_t *ctx)
{
    for (uint32_t b = 0; b < ctx->n_blocks; b++) {
        if (!ctx->blk_ntot[b]) continue;
        es_summary_t *sb = ctx->summary + (size_t)b * ctx->block;
        for (uint32_t k = 0, n = block_count(ctx, b); k < n; k++) sb[k].n_tot += ctx->blk_ntot[b];
    }
}
