/* scan.c -- the scan driver: packs the dataset into blocks, cuts the pair space
 * into tiles (bi <= bj), lets a backend consume them from one queue, and merges
 * what the workers found into one deterministic top-k, summary and stream of
 * significant pairs.
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

#include "scan_internal.h"

/* ---- per-variant summary ----------------------------------------------- */

static void summary_reset(es_summary_t *s, size_t n)
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

/* ---- workers -------------------------------------------------------------- */

int es_worker_init(es_worker_t *w, const es_scan_ctx_t *ctx)
{
    memset(w, 0, sizeof *w);
    int ret = es_topk_init(&w->top, ctx->scan->opt.top_k, ctx->higher_is_better);
    if (ret) return ret;
    w->tsum = malloc(2 * (size_t)ctx->block * sizeof *w->tsum);
    if (!w->tsum) {
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
    summary_reset(w->tsum, n);
    return ES_OK;
}

void es_worker_free(es_worker_t *w)
{
    es_topk_free(&w->top);
    free(w->tmark);
    free(w->touched);
    free(w->sig);
    free(w->tsum);
    memset(w, 0, sizeof *w);
}

int es_ctx_claim_tile(es_scan_ctx_t *ctx, uint32_t *bi, uint32_t *bj)
{
    if (atomic_load_explicit(&ctx->stop, memory_order_relaxed)) return -1;
    uint64_t t = atomic_fetch_add(&ctx->next_tile, 1);
    if (t >= ctx->n_tiles) return -1;
    if (ctx->diag_first) {
        /* the diagonal tiles, then the others in row order: every variant
         * meets its own block first, so a device's thresholds are known for
         * both blocks of every later tile */
        if (t < ctx->n_blocks) {
            *bi = *bj = (uint32_t)t;
            return 0;
        }
        t -= ctx->n_blocks;
        /* row bi has n_blocks - bi - 1 off-diagonal tiles, the first at
         * row_start[bi] - bi */
        uint32_t lo = 0, hi = ctx->n_blocks;
        while (hi - lo > 1) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (ctx->row_start[mid] - mid <= t) lo = mid; else hi = mid;
        }
        *bi = lo;
        *bj = lo + 1 + (uint32_t)(t - (ctx->row_start[lo] - lo));
        return 0;
    }
    /* row panels have n_blocks - bi tiles; find the row by binary search */
    uint32_t lo = 0, hi = ctx->n_blocks;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ctx->row_start[mid] <= t) lo = mid; else hi = mid;
    }
    *bi = lo;
    *bj = lo + (uint32_t)(t - ctx->row_start[lo]);
    return 0;
}

void es_worker_begin_tile(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t bi, uint32_t bj)
{
    w->bi = bi;
    w->bj = bj;
    w->sig_n = 0;
    w->tile_pairs = 0;
    if (!w->tmark) summary_reset(w->tsum, 2 * (size_t)ctx->block); /* sparse: cleared by the merge */
}

int es_ctx_next_tile(es_scan_ctx_t *ctx, es_worker_t *w, uint32_t *bi, uint32_t *bj)
{
    if (es_ctx_claim_tile(ctx, bi, bj)) return -1;
    es_worker_begin_tile(ctx, w, *bi, *bj);
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
        summary_reset(&w->tsum[s], 1);
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
    double lim = ctx->sig_min;
    if (w->top.n < w->top.k) return -INFINITY;
    if (w->top.heap[0].stat < lim) lim = w->top.heap[0].stat;
    const es_summary_t *a = &w->tsum[si], *b = &w->tsum[sj];
    if (a->best_partner == UINT32_MAX || b->best_partner == UINT32_MAX) return -INFINITY;
    if (a->best_stat < lim) lim = a->best_stat;
    if (b->best_stat < lim) lim = b->best_stat;
    return lim;
}

/* Score one pair; `count`: also count it in the tile (n_tot, tile_pairs). */
static inline void worker_score(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j,
                                const es_table2_t *t, int count)
{
    uint32_t base_i = w->bi * ctx->block, base_j = w->bj * ctx->block;
    size_t si = i - base_i;
    size_t sj = (w->bi == w->bj ? 0 : ctx->block) + (j - base_j);
    es_summary_t *sa = &w->tsum[si], *sb = &w->tsum[sj];
    int hib = ctx->higher_is_better;
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
        sa->n_tot++;
        sb->n_tot++;
    }
    /* BOOST's exact fit is iterative; its Kirkwood bound is cheap and never below
     * it, so a pair whose bound cannot reach the top-k, either variant's best or
     * the significance threshold is counted and dropped without the fit. */
    if (ctx->stat == ES_STAT_BOOST && es_stat_boost_bound(t) < prune_below(ctx, w, si, sj)) return;
    es_stat_result_t r;
    es_stat_value(ctx->stat, t, &r);
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
    es_pair_t p = {.i = i, .j = j, .stat = r.stat, .p = r.p, .log10p = r.log10p, .df = r.df};
    if (to_top || sig) {
        uint32_t n = 0;
        for (int k = 0; k < 9; k++) n += t->n[0][k] + t->n[1][k];
        p.n = n;
    }
    if (sig && sig_append(w, &p) != ES_OK) w->err = ES_ERR_NOMEM;
    if (to_top) es_topk_push(&w->top, &p);
    summary_update(sa, r.stat, r.p, j, sig, hib);
    summary_update(sb, r.stat, r.p, i, sig, hib);
}

void es_worker_offer(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j,
                     const es_table2_t *t)
{
    worker_score(ctx, w, i, j, t, 1);
}

void es_worker_offer_screened(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j,
                              const es_table2_t *t)
{
    worker_score(ctx, w, i, j, t, 0);
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
        if (r->tiles_done < ctx->n_blocks - ctx->next_row) break;
        if (r->n) qsort(r->pairs, r->n, sizeof *r->pairs, pair_ij_cmp);
        for (size_t k = 0; k < r->n && s->sig_cb; k++) {
            if (s->sig_cb(&r->pairs[k], s->sig_ud)) {
                es_error("the significant-pair writer stopped the scan");
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
    ctx->pairs_done += w->tile_pairs;
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

void es_ctx_merge_top(es_scan_ctx_t *ctx, es_worker_t *w)
{
    pthread_mutex_lock(&ctx->lock);
    es_topk_merge(ctx->top, &w->top);
    pthread_mutex_unlock(&ctx->lock);
}

void es_ctx_fail(es_scan_ctx_t *ctx, int err)
{
    pthread_mutex_lock(&ctx->lock);
    if (!ctx->err) ctx->err = err;
    pthread_mutex_unlock(&ctx->lock);
    atomic_store(&ctx->stop, 1);
}

/* ---- the public scan object ------------------------------------------------ */

int es_scan_create(es_scan_t **out, es_dataset_t *ds, const es_opt_t *opt)
{
    int ret = es_opt_check(opt);
    es_scan_t *s = NULL;
    *out = NULL;
    if (ret) return ret;
    if (es_dataset_n_variants(ds) < 2) {
        es_error("%s: %u variant(s); a pair scan needs at least 2", ds->plink->bim_path,
                 es_dataset_n_variants(ds));
        return ES_ERR_DATA;
    }
    s = calloc(1, sizeof *s);
    if (!s) return ES_ERR_NOMEM;
    s->ds = ds;
    s->opt = *opt;
    s->backend = es_backend_select(opt, &ret);
    if (!s->backend) goto out;
    ret = es_topk_init(&s->top, opt->top_k, es_stat_higher_is_better(opt->stat));
    if (ret) goto out;
    s->summary = malloc((size_t)es_dataset_n_variants(ds) * sizeof *s->summary);
    if (!s->summary) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    summary_reset(s->summary, es_dataset_n_variants(ds));
out:
    if (ret) {
        es_scan_destroy(s);
        return ret;
    }
    *out = s;
    return ES_OK;
}

void es_scan_set_sig_callback(es_scan_t *scan, es_sig_cb cb, void *userdata)
{
    scan->sig_cb = cb;
    scan->sig_ud = userdata;
}

void es_scan_set_progress_callback(es_scan_t *scan, es_progress_cb cb, void *userdata)
{
    scan->prog_cb = cb;
    scan->prog_ud = userdata;
}

static size_t bytes_per_variant(const es_dataset_t *ds, uint32_t n_planes)
{
    uint32_t w_case = (ds->n_case + ES_PAD_BITS - 1) / ES_PAD_BITS * ES_PAD_WORDS;
    uint32_t w_ctrl = (ds->n_ctrl + ES_PAD_BITS - 1) / ES_PAD_BITS * ES_PAD_WORDS;
    return (size_t)n_planes * (w_case + w_ctrl) * 8;
}

/* Tile side: two blocks' planes should sit in a core's L2 (about 1 MiB). */
static uint32_t auto_block(const es_dataset_t *ds, uint32_t n_planes)
{
    size_t b = (size_t)(512 * 1024) / bytes_per_variant(ds, n_planes);
    if (b < 16) b = 16;
    if (b > 1024) b = 1024;
    return (uint32_t)(b / 16 * 16);
}

/* Where the packed planes go: memory, or -- when they exceed --host-mem
 * (default half the physical memory) -- an unlinked temporary file mapped
 * MAP_SHARED, so that the kernel writes them back and drops them as memory
 * runs short, and the scan's own memory stays bounded by the .bed mapping,
 * the planes file's page cache and small per-block counts.  Nothing is left
 * on disk: the file has no name from the moment it is created.  @return the
 * open file (-1: memory) or -2 after an error. */
static int planes_file(const es_scan_ctx_t *ctx, size_t total)
{
    const es_opt_t *opt = &ctx->scan->opt;
    size_t limit = opt->host_mem;
    if (!limit) {
        long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
        limit = pages > 0 && psz > 0 ? (size_t)pages * (size_t)psz / 2 : SIZE_MAX;
    }
    if (total <= limit) return -1;
    const char *dir = opt->tmp_dir;
    if (!dir || !*dir) dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    size_t len = strlen(dir) + 32;
    char *path = malloc(len);
    if (!path) return -2;
    snprintf(path, len, "%s/epistream-planes-XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd < 0) {
        es_error("%s: cannot create the temporary planes file (%s); set --tmp-dir", dir, strerror(errno));
        free(path);
        return -2;
    }
    unlink(path);
    if (ftruncate(fd, (off_t)total) != 0) {
        es_error("%s: cannot size the temporary planes file to %zu bytes (%s)", dir, total, strerror(errno));
        close(fd);
        free(path);
        return -2;
    }
    es_info("packed planes (%.2f GiB) exceed the host memory limit (%.2f GiB): kept in an unlinked "
            "temporary file in %s", total / 1073741824.0, limit / 1073741824.0, dir);
    free(path);
    return fd;
}

static int pack_all(es_scan_ctx_t *ctx, uint32_t n_planes, int threads)
{
    int ret = ES_OK;
    ctx->blocks = calloc(ctx->n_blocks, sizeof *ctx->blocks);
    if (!ctx->blocks) return ES_ERR_NOMEM;
    /* block b's planes at a page-aligned offset of the file */
    size_t page = (size_t)sysconf(_SC_PAGESIZE), total = 0;
    for (uint32_t b = 0; b < ctx->n_blocks; b++) {
        uint32_t first = b * ctx->block;
        uint32_t cnt = first + ctx->block <= ctx->m ? ctx->block : ctx->m - first;
        total += (es_planes_bytes(ctx->ds, cnt, n_planes) + page - 1) / page * page;
    }
    int fd = planes_file(ctx, total);
    if (fd == -2) return ES_ERR_IO;
    size_t off = 0;
    for (uint32_t b = 0; b < ctx->n_blocks && !ret; b++) {
        uint32_t first = b * ctx->block;
        uint32_t cnt = first + ctx->block <= ctx->m ? ctx->block : ctx->m - first;
        if (fd >= 0) {
            ret = es_planes_alloc_mapped(&ctx->blocks[b], ctx->ds, cnt, n_planes, fd, off);
            off += (es_planes_bytes(ctx->ds, cnt, n_planes) + page - 1) / page * page;
        } else {
            ret = es_planes_alloc(&ctx->blocks[b], ctx->ds, cnt, n_planes);
        }
    }
    if (fd >= 0) close(fd); /* the mappings keep the file */
    if (ret) return ret;
    int err = ES_OK;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (uint32_t b = 0; b < ctx->n_blocks; b++) {
        uint32_t first = b * ctx->block;
        uint32_t cnt = ctx->blocks[b].count;
        int r = es_pack(ctx->ds, first, cnt, &ctx->blocks[b]);
        if (r) {
#pragma omp critical(es_pack_err)
            if (!err) err = r;
        }
    }
    return err;
}

/* Smallest G whose p-value can be <= thr, with a margin so that rounding in the
 * p-value never makes a pair below it significant; above it the p-value itself
 * decides.  G is chi-square distributed with df degrees of freedom. */
static double g_critical(double thr, int df)
{
    if (thr >= 1.0) return -INFINITY; /* every p-value is <= 1 */
    if (df <= 0) return INFINITY;     /* p is 1 */
    double lo = 0.0, hi = 1.0;
    while (es_chi2_sf(hi, df) > thr && hi < 1e7) hi *= 2.0;
    for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (es_chi2_sf(mid, df) > thr) lo = mid; else hi = mid;
    }
    return lo * (1.0 - 1e-7) - 1e-9;
}

static void set_sig_crit(es_scan_ctx_t *ctx)
{
    ctx->sig_min = INFINITY;
    for (int df = 0; df <= ES_MAX_DF; df++) {
        ctx->sig_crit[df] = ctx->do_sig ? g_critical(ctx->p_threshold, df) : INFINITY;
        /* the prune limit is in statistic units: only boost prunes, and its G is its STAT */
        if (ctx->sig_crit[df] < ctx->sig_min) ctx->sig_min = ctx->sig_crit[df];
    }
}

static void ctx_free(es_scan_ctx_t *ctx)
{
    if (ctx->blocks)
        for (uint32_t b = 0; b < ctx->n_blocks; b++) es_planes_free(&ctx->blocks[b]);
    free(ctx->blocks);
    if (ctx->rows)
        for (uint32_t b = 0; b < ctx->n_blocks; b++) free(ctx->rows[b].pairs);
    free(ctx->rows);
    free(ctx->row_start);
    free(ctx->blk_ntot);
    pthread_mutex_destroy(&ctx->lock);
}

int es_scan_run(es_scan_t *s)
{
    es_scan_ctx_t ctx;
    int ret = ES_OK;
    memset(&ctx, 0, sizeof ctx);
    pthread_mutex_init(&ctx.lock, NULL);
    ctx.scan = s;
    ctx.ds = s->ds;
    ctx.stat = s->opt.stat;
    ctx.higher_is_better = es_stat_higher_is_better(s->opt.stat);
    ctx.do_sig = s->opt.p_threshold >= 0;
    ctx.p_threshold = s->opt.p_threshold;
    ctx.m = es_dataset_n_variants(s->ds);
    ctx.top = &s->top;
    set_sig_crit(&ctx);
    ctx.summary = s->summary;
    int threads = s->opt.threads;
#ifdef _OPENMP
    if (threads <= 0) threads = omp_get_max_threads();
#else
    threads = 1;
#endif
    ctx.n_threads = threads;

    double t0 = es_time_now();
    uint32_t n_planes = es_dataset_any_missing(s->ds) ? 3 : 2;
    if (s->opt.block_variants) ctx.block = s->opt.block_variants;
    else if (s->backend->auto_block) ctx.block = s->backend->auto_block(&ctx, bytes_per_variant(s->ds, n_planes));
    else ctx.block = auto_block(s->ds, n_planes);
    ctx.n_blocks = (ctx.m + ctx.block - 1) / ctx.block;
    ctx.row_start = malloc(((size_t)ctx.n_blocks + 1) * sizeof *ctx.row_start);
    ctx.rows = calloc(ctx.n_blocks, sizeof *ctx.rows);
    ctx.blk_ntot = calloc(ctx.n_blocks, sizeof *ctx.blk_ntot);
    if (!ctx.row_start || !ctx.rows || !ctx.blk_ntot) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    ctx.row_start[0] = 0;
    for (uint32_t b = 0; b < ctx.n_blocks; b++) ctx.row_start[b + 1] = ctx.row_start[b] + (ctx.n_blocks - b);
    ctx.n_tiles = ctx.row_start[ctx.n_blocks];
    ret = pack_all(&ctx, n_planes, threads);
    if (ret) goto out;
    double t1 = es_time_now();
    s->t_pack = t1 - t0;
    es_info("packed %u variants in %u blocks of %u (%u bit planes each), %.2f s", ctx.m,
            ctx.n_blocks, ctx.block, n_planes, s->t_pack);

    ctx.t_start = ctx.t_last_progress = t1;
    ret = s->backend->run(&ctx);
    if (!ret) ret = ctx.err;
    if (ret) goto out;
    /* the pairs sparse tile owners counted per block */
    for (uint32_t b = 0; b < ctx.n_blocks; b++) {
        if (!ctx.blk_ntot[b]) continue;
        es_summary_t *sb = ctx.summary + (size_t)b * ctx.block;
        for (uint32_t k = 0, n = block_count(&ctx, b); k < n; k++) sb[k].n_tot += ctx.blk_ntot[b];
    }
    s->pairs_done = ctx.pairs_done;
    es_topk_sort(&s->top);
    s->t_scan = es_time_now() - t1;
    if (s->prog_cb) s->prog_cb(ctx.pairs_done, ctx.pairs_done, s->t_scan, s->prog_ud);
out:
    ctx_free(&ctx);
    return ret;
}

const es_pair_t *es_scan_top(const es_scan_t *scan) { return scan->top.heap; }
size_t es_scan_top_count(const es_scan_t *scan) { return scan->top.n; }
const es_summary_t *es_scan_summary(const es_scan_t *scan) { return scan->summary; }
const char *es_scan_backend_name(const es_scan_t *scan) { return scan->backend->name; }
const char *es_scan_device_info(const es_scan_t *scan) { return scan->device_info; }
uint64_t es_scan_pairs_done(const es_scan_t *scan) { return scan->pairs_done; }

void es_scan_timings(const es_scan_t *scan, double *pack_seconds, double *scan_seconds)
{
    if (pack_seconds) *pack_seconds = scan->t_pack;
    if (scan_seconds) *scan_seconds = scan->t_scan;
}

void es_scan_destroy(es_scan_t *scan)
{
    if (!scan) return;
    es_topk_free(&scan->top);
    free(scan->summary);
    free(scan);
}
