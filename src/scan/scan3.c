/* scan3.c -- the 3-way scan: every triple of variants (exhaustive), or every
 * extension of a list of seed pairs by a third variant (seeded: the seeds of
 * es_scan_set_seeds(), or the best pairs of a 2-way scan run first).  The
 * dataset is packed into blocks as for pairs (scan.c), the tiles of
 * src/tile/tile3.c are handed to the backend's run3, and the result is the
 * same bytes for any thread count, block size and device. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "dist.h"
#include "scan.h"

static int cmp_pair(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    if (x[1] != y[1]) return x[1] < y[1] ? -1 : 1;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int es_scan_set_seeds(es_scan_t *scan, const uint32_t *pairs, size_t n_pairs)
{
    uint32_t m = es_dataset_n_variants(scan->ds);
    uint32_t *s = malloc((n_pairs ? n_pairs : 1) * 2 * sizeof *s);
    if (!s) return ES_ERR_NOMEM;
    for (size_t p = 0; p < n_pairs; p++) {
        uint32_t i = pairs[2 * p], j = pairs[2 * p + 1];
        if (i >= m || j >= m || i == j) {
            es_error("seed pair %zu: (%u, %u) is not a pair of the dataset's %u variants", p + 1, i, j, m);
            free(s);
            return ES_ERR_ARG;
        }
        s[2 * p] = i < j ? i : j;
        s[2 * p + 1] = i < j ? j : i;
    }
    qsort(s, n_pairs, 2 * sizeof *s, cmp_pair);
    size_t n = 0;
    for (size_t p = 0; p < n_pairs; p++) {
        if (n && s[2 * (n - 1)] == s[2 * p] && s[2 * (n - 1) + 1] == s[2 * p + 1]) continue;
        s[2 * n] = s[2 * p];
        s[2 * n + 1] = s[2 * p + 1];
        n++;
    }
    free(scan->seeds);
    scan->seeds = s;
    scan->n_seeds = n;
    return ES_OK;
}

/* --pairs-top K: the K best pairs of a 2-way scan of the same data, statistic,
 * device and threads.  A resume or a merge takes them from its state file
 * instead (its fingerprints, checked later, cover the data and options they
 * come from); under MPI every rank takes part in the 2-way scan and rank 0's
 * list goes to every rank. */
static int seeds_from_pair_scan(es_scan_t *s)
{
    struct stat st;
    const char *state = s->opt.merge ? s->opt.merge[0]
                        : s->opt.resume && s->opt.checkpoint && !stat(s->opt.checkpoint, &st) ? s->opt.checkpoint
                                                                                                : NULL;
    if (state) {
        uint32_t *p = NULL;
        size_t n = 0;
        int ret = es_dist_state_seeds(state, &p, &n);
        if (!ret) ret = es_scan_set_seeds(s, p, n);
        free(p);
        if (!ret) es_info("seeds: the %zu pairs of %s", n, state);
        return ret;
    }
    es_opt_t o = s->opt;
    o.order = 2;
    o.top_k = s->opt.pairs_top;
    o.pairs_top = 0;
    o.p_threshold = -1.0;
    o.progress = 0;
    /* a shard runs this scan whole for itself (run it once and give
     * --pairs-from instead, README says); MPI ranks run it together */
    o.checkpoint = NULL;
    o.resume = 0;
    o.shard_n = o.shard_i = 0;
    o.merge = NULL;
    es_scan_t *ps = NULL;
    int ret = es_scan_create(&ps, s->ds, &o);
    if (!ret) ret = es_scan_run(ps);
    if (!ret) {
        size_t n = es_scan_top_count(ps);
        uint32_t *p = malloc((n ? n : 1) * 2 * sizeof *p);
        if (!p) ret = ES_ERR_NOMEM;
        for (size_t q = 0; q < n && p; q++) {
            p[2 * q] = es_scan_top(ps)[q].i;
            p[2 * q + 1] = es_scan_top(ps)[q].j;
        }
        /* under MPI only rank 0 holds the merged list */
        if (p && !s->opt.local) ret = es_dist_bcast_seeds(&p, &n);
        if (p && !ret) ret = es_scan_set_seeds(s, p, n);
        free(p);
        es_info("seeds: the %zu best pairs of a 2-way %s scan (%.2f s)", n, es_stat_name(o.stat),
                ps->t_pack + ps->t_scan);
    }
    es_scan_destroy(ps);
    return ret;
}

/* Seed p's excluded third variants: k such that (i, k) or (j, k) is a seed
 * listed before p, whose extensions already hold {i, j, k}.  From each
 * variant's list of seed partners. */
static int build_exclusions(es_scan3_ctx_t *ctx, uint32_t m)
{
    uint32_t n = ctx->n_seeds;
    const uint32_t *sd = ctx->seeds;
    uint32_t *deg = calloc((size_t)m + 1, sizeof *deg);
    uint32_t *adj = malloc((size_t)(n ? n : 1) * 2 * 2 * sizeof *adj); /* (partner, seed) */
    ctx->excl_off = malloc(((size_t)n + 1) * sizeof *ctx->excl_off);
    if (!deg || !adj || !ctx->excl_off) goto nomem;
    for (uint32_t p = 0; p < n; p++) deg[sd[2 * p] + 1]++, deg[sd[2 * p + 1] + 1]++;
    for (uint32_t v = 0; v < m; v++) deg[v + 1] += deg[v];
    {
        uint32_t *fill = malloc(((size_t)m + 1) * sizeof *fill);
        if (!fill) goto nomem;
        memcpy(fill, deg, ((size_t)m + 1) * sizeof *fill);
        for (uint32_t p = 0; p < n; p++) {
            uint32_t i = sd[2 * p], j = sd[2 * p + 1];
            adj[2 * fill[i]] = j, adj[2 * fill[i]++ + 1] = p;
            adj[2 * fill[j]] = i, adj[2 * fill[j]++ + 1] = p;
        }
        free(fill);
    }
    /* count, then fill, each seed's list (sorted, unique) */
    size_t total = 0, cap = 0;
    uint32_t *ex = NULL;
    for (uint32_t p = 0; p < n; p++) {
        ctx->excl_off[p] = (uint32_t)total;
        for (int e = 0; e < 2; e++) {
            uint32_t v = sd[2 * p + e], other = sd[2 * p + 1 - e];
            for (uint32_t q = deg[v]; q < deg[v + 1]; q++) {
                if (adj[2 * q + 1] >= p || adj[2 * q] == other) continue;
                if (total == cap) {
                    cap = cap ? 2 * cap : 1024;
                    uint32_t *t = realloc(ex, cap * sizeof *t);
                    if (!t) {
                        free(ex);
                        goto nomem;
                    }
                    ex = t;
                }
                ex[total++] = adj[2 * q];
            }
        }
        if (total == ctx->excl_off[p]) continue;
        uint32_t *b = ex + ctx->excl_off[p];
        size_t len = total - ctx->excl_off[p], u = 1;
        qsort(b, len, sizeof *b, cmp_u32);
        for (size_t q = 1; q < len; q++)
            if (b[q] != b[u - 1]) b[u++] = b[q];
        total = ctx->excl_off[p] + u;
    }
    ctx->excl_off[n] = (uint32_t)total;
    ctx->excl = ex;
    free(deg);
    free(adj);
    return ES_OK;
nomem:
    free(deg);
    free(adj);
    return ES_ERR_NOMEM;
}

/* Variants per block: exhaustive, enough blocks that every thread has tiles
 * to the end (nb (nb + 1) (nb + 2) / 6 tiles >= 32 a thread) and at most 64,
 * where a tile's pair sums (2 B^2 pairs) cost little beside its B^3 / 6
 * triples; fewer when significant triples would pile up in a row (about
 * B m^2 / 2 p of them wait for their row to complete).  Seeded: 256 third
 * variants a block, 16 seeds a tile. */
static uint32_t auto_block3(const es_scan3_ctx_t *ctx, int threads)
{
    if (ctx->seeds) return 256;
    uint32_t nb = 1;
    while ((uint64_t)nb * (nb + 1) * (nb + 2) / 6 < 32ull * (uint64_t)(threads > 0 ? threads : 1)) nb++;
    uint64_t b = ((uint64_t)ctx->m + nb - 1) / nb;
    if (b > 64) b = 64;
    if (ctx->do_sig && ctx->p_threshold > 0) {
        double per = (double)ctx->m * ctx->m / 2.0 * (ctx->p_threshold < 1 ? ctx->p_threshold : 1.0) *
                     2.0 * (double)sizeof(es_triple_t);
        double cap = (double)(64u << 20) / per;
        if (cap < (double)b) b = cap < 16 ? 16 : (uint64_t)cap;
    }
    if (b < 16) b = 16;
    return (uint32_t)((b + 15) / 16 * 16);
}

static void ctx3_free(es_scan3_ctx_t *ctx)
{
    es_scan_blocks_free(ctx->blocks, ctx->n_blocks);
    if (ctx->rows)
        for (uint32_t r = 0; r < ctx->n_rows; r++) free(ctx->rows[r].t);
    free(ctx->rows);
    free(ctx->row_start);
    free(ctx->excl);
    free(ctx->excl_off);
    free(ctx->sum);
    pthread_mutex_destroy(&ctx->lock);
}

/* The scan's results: top-k p-values and the public summary. */
static void finish_results(es_scan_t *s, es_scan3_ctx_t *ctx)
{
    es_topk3_sort(&s->top3);
    for (size_t q = 0; q < s->top3.n; q++) {
        es_triple_t *t = &s->top3.heap[q];
        es_stat_result_t r;
        es_stat_p_from(ctx->stat, t->stat, t->df, t->n, &r);
        t->p = r.p;
        t->log10p = r.log10p;
    }
    for (uint32_t v = 0; v < ctx->m; v++) {
        const es_sum3_t *u = &ctx->sum[v];
        es_summary3_t *o = &s->summary3[v];
        o->n_sig = u->n_sig;
        o->n_tot = u->n_tot;
        o->best_i = u->best_i;
        o->best_j = u->best_j;
        o->best_k = u->best_k;
        o->best_stat = u->stat;
        o->best_p = NAN;
        if (u->best_i != UINT32_MAX && es_stat_has_p(ctx->stat)) {
            es_stat_result_t r;
            es_stat_p_from(ctx->stat, u->stat, u->df, u->n, &r);
            o->best_p = r.p;
        }
    }
    /* a variant with no called genotype has only empty tables, all tied:
     * none is its best (as for pairs) */
    for (uint32_t b = 0; b < ctx->n_blocks; b++) {
        const es_planes_t *pl = &ctx->blocks[b];
        for (uint32_t v = 0; v < pl->count; v++) {
            uint64_t called = 0;
            for (int y = 0; y < 2; y++)
                for (int g = 0; g < 3; g++) called += pl->gcount[v][y][g];
            if (called) continue;
            es_summary3_t *o = &s->summary3[pl->first + v];
            o->best_i = o->best_j = o->best_k = UINT32_MAX;
            o->best_stat = NAN;
            o->best_p = NAN;
        }
    }
}

int es_scan3_run(es_scan_t *s)
{
    es_scan3_ctx_t ctx;
    es_dist_t *dist = NULL;
    int ret = ES_OK;
    memset(&ctx, 0, sizeof ctx);
    pthread_mutex_init(&ctx.lock, NULL);
    if (s->opt.pairs_top && !s->seeds) {
        ret = seeds_from_pair_scan(s);
        if (ret) goto out;
    }
    ctx.scan = s;
    ctx.ds = s->ds;
    ctx.stat = s->opt.stat;
    ctx.higher_is_better = es_stat_higher_is_better(s->opt.stat);
    ctx.do_sig = s->opt.p_threshold >= 0;
    ctx.p_threshold = s->opt.p_threshold;
    ctx.m = es_dataset_n_variants(s->ds);
    ctx.top = &s->top3;
    for (int df = 0; df <= ES_MAX_DF3; df++)
        ctx.sig_crit[df] = ctx.do_sig ? es_scan_g_critical(ctx.p_threshold, df) : INFINITY;
    ctx.seeds = s->seeds;
    ctx.n_seeds = (uint32_t)s->n_seeds;
    int threads = s->opt.threads;
#ifdef _OPENMP
    if (threads <= 0) threads = omp_get_max_threads();
#else
    threads = 1;
#endif
    ctx.n_threads = threads;
    ctx.sum = malloc((size_t)ctx.m * sizeof *ctx.sum);
    if (!ctx.sum) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t v = 0; v < ctx.m; v++) {
        ctx.sum[v] = (es_sum3_t){.best_i = UINT32_MAX, .best_j = UINT32_MAX, .best_k = UINT32_MAX,
                                 .stat = NAN};
    }

    double t0 = es_time_now();
    ret = es_dataset_set_pad(s->ds, s->backend->pad_bits ? s->backend->pad_bits : ES_PAD_BITS);
    if (ret) goto out;
    uint32_t n_planes = es_dataset_any_missing(s->ds) ? 3 : 2;
    uint32_t blk = auto_block3(&ctx, threads), chunk = 16;
    if (s->backend->shape3) s->backend->shape3(&ctx, &blk, &chunk);
    if (s->opt.block_variants) blk = s->opt.block_variants;
    /* a resumed checkpoint's tiles; under MPI, rank 0's */
    if ((ret = es_dist_geometry(s, &blk, &chunk))) goto out;
    ctx.block = blk;
    ctx.n_blocks = (ctx.m + ctx.block - 1) / ctx.block;
    uint64_t m = ctx.m;
    if (ctx.seeds) {
        ctx.seed_chunk = chunk;
        ret = build_exclusions(&ctx, ctx.m);
        if (ret) goto out;
        ctx.n_rows = 1;
        ctx.n_tiles = (uint64_t)((ctx.n_seeds + ctx.seed_chunk - 1) / ctx.seed_chunk) * ctx.n_blocks;
        ctx.total = 0;
        for (uint32_t p = 0; p < ctx.n_seeds; p++)
            ctx.total += m - 2 - (ctx.excl_off[p + 1] - ctx.excl_off[p]);
    } else {
        ctx.n_rows = ctx.n_blocks;
        ctx.row_start = malloc(((size_t)ctx.n_rows + 1) * sizeof *ctx.row_start);
        if (!ctx.row_start) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        ctx.row_start[0] = 0;
        for (uint32_t b = 0; b < ctx.n_blocks; b++) {
            uint64_t r = ctx.n_blocks - b;
            ctx.row_start[b + 1] = ctx.row_start[b] + r * (r + 1) / 2;
        }
        ctx.n_tiles = ctx.row_start[ctx.n_blocks];
        ctx.total = m * (m - 1) / 2 * (m - 2) / 3;
    }
    ctx.rows = calloc(ctx.n_rows, sizeof *ctx.rows);
    if (!ctx.rows) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t r = 0; r < ctx.n_rows; r++)
        ctx.rows[r].need = ctx.seeds ? ctx.n_tiles : ctx.row_start[r + 1] - ctx.row_start[r];
    ret = es_scan_pack_blocks(ctx.ds, &s->opt, ctx.m, ctx.block, ctx.n_blocks, n_planes, threads, &ctx.blocks);
    if (!ret) ret = es_fileset_check(s->ds->plink);
    ret = es_dist_start3(&dist, &ctx, n_planes, ret);
    if (ret) goto out;
    double t1 = es_time_now();
    s->t_pack = t1 - t0;
    char num[32];
    if (ctx.seeds)
        es_info("3-way scan seeded by %u pairs: %s triples, %u blocks of %u third variants", ctx.n_seeds,
                es_fmt_count(ctx.total, num), ctx.n_blocks, ctx.block);
    else
        es_info("3-way scan, exhaustive: %s triples in %llu tiles of blocks of %u", es_fmt_count(ctx.total, num),
                (unsigned long long)ctx.n_tiles, ctx.block);
    ctx.t_start = ctx.t_last_progress = t1;
    ret = es_dist_run3(dist, &ctx);
    if (!ret) ret = ctx.err;
    if (!ret) ret = es_ctx3_finish(&ctx);
    ret = es_dist_end(dist, ret);
    dist = NULL;
    if (ret) goto out;
    s->pairs_done = ctx.done;
    finish_results(s, &ctx);
    s->t_scan = es_time_now() - t1;
    if (s->prog_cb) s->prog_cb(ctx.done, ctx.total, s->t_scan, s->prog_ud);
out:
    es_dist_end(dist, ret);
    ctx3_free(&ctx);
    return ret;
}
