/* backend_gpu.c -- the CUDA backend (built with --with-cuda only).
 *
 * One host thread per GPU takes tiles from the scan's single queue, so a
 * faster or less loaded GPU simply takes more.  Each device counts a tile's
 * pairs and screens them with float bounds of the statistic (gpu/); only
 * pairs that could reach the top-k, a variant's best or the p-threshold
 * come back, with their tables, and are scored here by the same exact code as
 * the CPU backend.  The outputs are therefore the CPU's byte for byte.  While
 * the host scores one tile, the device runs the next. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gpu.h"
#include "backend.h"

static int gpu_device_count(void)
{
    int n = 0;
    if (es_gpu_device_count(&n) != ES_OK) return 0;
    return n;
}

static int gpu_supports(es_op_t op, const es_work_t *w)
{
    (void)w;
    if (op == ES_OP_TRIPLE_SCAN) return 0; /* no 3-way kernels yet: run3 is NULL */
    return es_backend_gpu_count() > 0;
}

/* ---- opening a device, and what it costs -------------------------------------- */

/* Opening a device (the CUDA runtime, a context, the kernels' module) takes
 * about 0.2 s on the H100 and H200 hosts, whatever the work.  prepare()
 * starts it on a thread of its own, so that it overlaps reading the input;
 * the selection's opens wait for that thread (the runtime itself would
 * serialise them anyway). */
#define GPU_OPEN_S 0.2
#define GPU_MAX 64

typedef struct {
    atomic_int state; /* 0 untouched, 1 being prepared, 2 opened once */
    double t0;        /* when the preparation started */
    pthread_t thread;
    pthread_mutex_t lock;
} gpu_open_t;

static gpu_open_t opened[GPU_MAX];
static pthread_once_t opened_once = PTHREAD_ONCE_INIT;

static void opened_init(void)
{
    for (int d = 0; d < GPU_MAX; d++) pthread_mutex_init(&opened[d].lock, NULL);
}

static void *prepare_main(void *arg)
{
    es_gpu_mi_prepare((int)(intptr_t)arg);
    return NULL;
}

static void gpu_prepare(int dev)
{
    if (dev < 0 || dev >= GPU_MAX || dev >= es_backend_gpu_count()) return;
    pthread_once(&opened_once, opened_init);
    gpu_open_t *o = &opened[dev];
    pthread_mutex_lock(&o->lock);
    if (atomic_load(&o->state) == 0) {
        o->t0 = es_time_now();
        if (pthread_create(&o->thread, NULL, prepare_main, (void *)(intptr_t)dev) == 0) atomic_store(&o->state, 1);
    }
    pthread_mutex_unlock(&o->lock);
}

/* Wait for a preparation of dev, if one runs; from now on it counts as open. */
static void prepared(int dev)
{
    if (dev < 0 || dev >= GPU_MAX) return;
    pthread_once(&opened_once, opened_init);
    gpu_open_t *o = &opened[dev];
    pthread_mutex_lock(&o->lock);
    if (atomic_load(&o->state) == 1) pthread_join(o->thread, NULL);
    atomic_store(&o->state, 2);
    pthread_mutex_unlock(&o->lock);
}

/* Seconds until device dev is open: all of GPU_OPEN_S when nothing opened
 * it yet, what is left of it while prepare() runs, 0 once it was open. */
static double open_left(int dev)
{
    if (dev < 0 || dev >= GPU_MAX) return GPU_OPEN_S;
    pthread_once(&opened_once, opened_init);
    int st = atomic_load(&opened[dev].state);
    if (st == 2) return 0.0;
    if (st == 0) return GPU_OPEN_S;
    double left = GPU_OPEN_S - (es_time_now() - opened[dev].t0);
    return left > 0 ? left : 0.0;
}

/* The cost model (measured on the H100 and H200 hosts, doc/BENCHMARKS.md):
 *   - a scan: opening the device, about 0.1 s of set-up (pinning, the first
 *     tiles and their host scoring), then 4e13 pair-samples/s; so scans of
 *     1-5 M pairs, which the 16 CPU threads finish in a few hundredths of a
 *     second, run 1.5-9x slower here;
 *   - a selection: opening the device, the table's upload (packed on the
 *     host while the link moves it: about 2e10 values/s, set-up included),
 *     then per round about 0.1 ms of launches, copies and host scoring plus
 *     the kernels' 4e11 candidate-samples/s (histograms, and 2e-11 s a
 *     table cell); or, on the pair engine, the bit planes made on the host
 *     (3e9 values/s) and 0.01 s to set the engine up, then 1e13
 *     candidate-samples/s (bit planes) and 30 ns a candidate for its
 *     80-byte table's trip to the host and the sums there. */
static double gpu_cost(const es_work_t *w)
{
    const double n = (double)w->n_samples, f = (double)w->features, r = (double)w->rounds;
    double t = open_left(w->dev);
    if (w->op == ES_OP_PAIR_SCAN) return t + 0.1 + (double)w->pairs * n / 4e13;
    if (w->op == ES_OP_MI_ROWS) return t + 0.01 + f * n / 3e9 + r * (1e-4 + f * n / 1e13 + f * 3e-8);
    return t + f * n / 2e10 + r * (1e-4 + f * (n * 2.5e-12 + (double)w->cells * 2e-11));
}

/* The selection's opens: after any preparation, and the device counts as open. */
static int gpu_mi_open(int dev, uint32_t n_samples, uint32_t n_features, unsigned bits, es_gpu_mi_pack_fn pack,
                       void *pack_arg, const uint32_t *n_states, const uint16_t *y, uint32_t n_classes,
                       const double *nl, uint32_t n_nl, es_gpu_mi_t **out)
{
    prepared(dev);
    return es_gpu_mi_open(dev, n_samples, n_features, bits, pack, pack_arg, n_states, y, n_classes, nl, n_nl,
                          out);
}

static int gpu_rows_open(int dev, int kernel, const es_gpu_config_t *cfg, const es_gpu_block_t *all,
                         es_gpu_rows_t **out)
{
    prepared(dev);
    return es_gpu_rows_open(dev, kernel, cfg, all, out);
}

/* ---- the scan ---------------------------------------------------------------- */

/* Blocks large enough that one tile fills a GPU (8192 variants: 33 million
 * pairs), small enough that every device gets several tiles. */
static uint32_t gpu_auto_block(const es_scan_ctx_t *ctx, size_t bytes_per_variant)
{
    (void)bytes_per_variant;
    int n_dev = es_backend_gpu_count();
    uint64_t m = ctx->m;
    uint64_t b = (m + 4 * (uint64_t)(n_dev > 0 ? n_dev : 1) - 1) / (4 * (uint64_t)(n_dev > 0 ? n_dev : 1));
    b = (b + 63) / 64 * 64;
    if (b < 512) b = 512;
    if (b > 8192) b = 8192;
    return (uint32_t)b;
}

static void block_desc(const es_scan_ctx_t *ctx, uint32_t b, es_gpu_block_t *out)
{
    const es_planes_t *pl = &ctx->blocks[b];
    out->index = b;
    out->first = pl->first;
    out->count = pl->count;
    out->planes = pl->planes;
    out->gcount = (const uint32_t *)pl->gcount;
}

/* Order-preserving key of a score rounded down to a float, as the kernels
 * keep their thresholds (gpu/pair/params.cuh's gk_fkey). */
static uint32_t score_key(double score)
{
    float f = (float)score;
    if ((double)f > score) f = nextafterf(f, -INFINITY);
    uint32_t u;
    memcpy(&u, &f, 4);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/* The best exact k-th best the workers have seen, as a score key (0: none). */
static uint32_t host_tau(const es_scan_ctx_t *ctx, const es_worker_t *w, int nw)
{
    uint32_t best = 0;
    for (int h = 0; h < nw; h++) {
        if (w[h].top.n < w[h].top.k) continue;
        double s = w[h].top.heap[0].stat;
        uint32_t k = score_key(ctx->higher_is_better ? s : -s);
        if (k > best) best = k;
    }
    return best;
}

/* Score a tile's candidates exactly: on the device thread alone when they
 * are few, else split over nw helper workers (each keeps its own top-k
 * heap; their tile summaries and significant pairs are folded into w[0]). */
static int score_tile(es_scan_ctx_t *ctx, es_worker_t *w, int nw, const es_gpu_cand_t *c,
                      size_t n, uint32_t bi, uint32_t bj)
{
    if (n < 2048) nw = 1;
    for (int h = 0; h < nw; h++) es_worker_begin_tile(ctx, &w[h], bi, bj);
#pragma omp parallel for num_threads(nw) schedule(static, 1)
    for (int h = 0; h < nw; h++) {
        size_t lo = n * (size_t)h / (size_t)nw, hi = n * (size_t)(h + 1) / (size_t)nw;
        for (size_t k = lo; k < hi; k++)
            es_worker_offer_screened(ctx, &w[h], c[k].i, c[k].j, (const es_table2_t *)c[k].n);
    }
    for (int h = 1; h < nw; h++) es_worker_merge(ctx, &w[0], &w[h]);
    es_worker_count_tile(ctx, &w[0]);
    return es_ctx_tile_done(ctx, &w[0]);
}

/* One device's share of a scan: its helper workers (which score candidates
 * on the host) and its engine. */
typedef struct {
    int dev, nw, err;
    es_gpu_t *g;
    es_worker_t w[64];
    char desc[320];
} gpu_dev_t;

static int dev_open(es_scan_ctx_t *ctx, gpu_dev_t *d, int n_helpers, const es_gpu_config_t *cfg)
{
    int ret = ES_OK;
    if (n_helpers < 1) n_helpers = 1;
    if (n_helpers > 64) n_helpers = 64;
    for (d->nw = 0; d->nw < n_helpers && !ret; d->nw++) {
        ret = es_worker_init(&d->w[d->nw], ctx);
        /* a tile's candidates touch few of its variants: w[0], which owns the
         * tile, and the helpers that score part of it merge only what they
         * touch, and the tile's pairs are counted per block */
        if (!ret) ret = es_worker_set_sparse(&d->w[d->nw], ctx);
    }
    if (ret) return ret;
    double t_open = es_time_now();
    ret = es_gpu_open(d->dev, cfg, &d->g);
    if (ret) return ret;
    t_open = es_time_now() - t_open;
    char name[200];
    if (es_gpu_device_describe(d->dev, name, sizeof name)) snprintf(name, sizeof name, "device %d", d->dev);
    snprintf(d->desc, sizeof d->desc, "%d %s (%s kernel, %d block slots)", d->dev, name, es_gpu_kernel_name(d->g),
             es_gpu_cache_slots(d->g));
    es_info("GPU %s, opened in %.3f s", d->desc, t_open);
    return ES_OK;
}

static int dev_loop(es_scan_ctx_t *ctx, gpu_dev_t *d)
{
    es_gpu_t *g = d->g;
    es_worker_t *w = d->w;
    const int nw = d->nw, dev = d->dev;
    int ret = ES_OK;
    uint64_t cands = 0, tiles = 0;
    double t_wait = 0.0, t_score = 0.0;
    /* EPISTREAM_GPU_TRACE=1: one line per tile on stderr (doc/GPU.md) */
    const char *tr = getenv("EPISTREAM_GPU_TRACE");
    const int trace = tr && *tr && strcmp(tr, "0") != 0;
    for (;;) {
        uint32_t bi, bj;
        if (es_ctx_claim_tile(ctx, &bi, &bj) == 0) {
            es_gpu_block_t a, b;
            block_desc(ctx, bi, &a);
            block_desc(ctx, bj, &b);
            ret = es_gpu_submit(g, &a, &b, host_tau(ctx, w, nw));
            if (ret) break;
            if (es_gpu_in_flight(g) < ES_GPU_FLIGHTS) continue; /* keep the device's queue full */
        }
        if (!es_gpu_in_flight(g)) break;
        const es_gpu_cand_t *c;
        size_t n;
        double t0 = es_time_now(), k0 = es_gpu_kernel_seconds(g);
        ret = es_gpu_collect(g, &c, &n, &bi, &bj);
        if (ret) break;
        double t1 = es_time_now();
        cands += n;
        tiles++;
        ret = score_tile(ctx, w, nw, c, n, bi, bj);
        double t2 = es_time_now();
        t_wait += t1 - t0;
        t_score += t2 - t1;
        if (trace)
            fprintf(stderr, "[gpu-trace] dev %d tile %u,%u: kernel %.3f ms, %zu candidates, waited %.3f ms, "
                    "scored in %.3f ms\n", dev, bi, bj, (es_gpu_kernel_seconds(g) - k0) * 1e3, n,
                    (t1 - t0) * 1e3, (t2 - t1) * 1e3);
        if (ret) break;
    }
    es_info("GPU %d: %llu tiles, %.3f s in tile kernels; %llu candidate pairs scored exactly on %d "
            "host thread(s); %.3f s waiting for the device, %.3f s scoring", dev,
            (unsigned long long)tiles, es_gpu_kernel_seconds(g), (unsigned long long)cands, nw,
            t_wait, t_score);
    unsigned long long scr[3];
    if (!ret && es_gpu_screen_stats(g, scr) == ES_OK && scr[0])
        es_info("GPU %d: screen passed %llu pairs; %llu of %llu CTAs scored their survivors from the queue", dev,
                scr[2], scr[1], scr[0]);
    if (!ret)
        for (int h = 0; h < nw; h++) es_ctx_merge_top(ctx, &w[h]);
    return ret;
}

static void dev_close(gpu_dev_t *d)
{
    es_gpu_close(d->g);
    d->g = NULL;
    for (int h = 0; h < d->nw; h++) es_worker_free(&d->w[h]);
    d->nw = 0;
}

static int gpu_run(es_scan_ctx_t *ctx)
{
    const es_opt_t *opt = &ctx->scan->opt;
    int n_vis = es_backend_gpu_count();
    int devs[64], n_dev = 0;
    for (int d = 0; d < n_vis && d < 64; d++)
        if (!opt->gpu_mask || (opt->gpu_mask >> d & 1)) devs[n_dev++] = d;
    if (!n_dev) {
        es_error("no GPU to scan on");
        return ES_ERR_UNSUPPORTED;
    }
    ctx->diag_first = 1; /* the device thresholds: see es_ctx_claim_tile */
    const es_planes_t *p0 = &ctx->blocks[0];
    es_gpu_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.stat = ctx->stat;
    cfg.top_k = opt->top_k;
    cfg.sig_min_g = INFINITY;
    if (ctx->do_sig && isfinite(ctx->sig_min)) {
        float f = (float)ctx->sig_min;
        if ((double)f > ctx->sig_min) f = nextafterf(f, -INFINITY);
        cfg.sig_min_g = f;
    } else if (ctx->do_sig) {
        cfg.sig_min_g = -INFINITY; /* every pair may be significant */
    }
    cfg.n_variants = ctx->m;
    cfg.block = ctx->block;
    cfg.n_planes = p0->n_planes;
    cfg.words = p0->words;
    cfg.off_ctrl = p0->w_case;
    cfg.kw_case = ((p0->n_case + 63) / 64 + 3) / 4 * 4;
    cfg.kw_ctrl = ((p0->n_ctrl + 63) / 64 + 3) / 4 * 4;
    cfg.mem_limit = opt->gpu_mem;
    cfg.kernel = opt->gpu_kernel;
    /* K2: the device's ln n! table, the statistics' own values (es_gpu_open copies it) */
    double *lnf = NULL;
    if (cfg.stat == ES_STAT_K2) {
        cfg.n_lnfact = ES_GPU_LNFACT_N(cfg.kw_case, cfg.kw_ctrl);
        lnf = malloc((size_t)cfg.n_lnfact * sizeof *lnf);
        if (!lnf) return ES_ERR_NOMEM;
        for (uint32_t n = 0; n < cfg.n_lnfact; n++) lnf[n] = es_lnfact(n);
        cfg.lnfact = lnf;
    }

    gpu_dev_t *dv = calloc((size_t)n_dev, sizeof *dv);
    if (!dv) {
        free(lnf);
        return ES_ERR_NOMEM;
    }
    /* the CPU threads score candidates: split among the devices */
    int helpers = ctx->n_threads / n_dev, pinned = 0, ret = ES_OK;
#ifdef _OPENMP
    omp_set_max_active_levels(2);
#endif
#pragma omp parallel num_threads(n_dev)
    {
        int k = 0;
#ifdef _OPENMP
        k = omp_get_thread_num();
#endif
        gpu_dev_t *d = &dv[k];
        d->dev = devs[k];
        d->err = dev_open(ctx, d, helpers, &cfg);
#pragma omp barrier
#pragma omp single
        {
            /* Pinned host memory lets block copies overlap the kernels, but
             * pinning costs about as much as a copy (0.1-0.2 s for 64-512 MiB).
             * Where every device holds all blocks, each block is copied once
             * and the copies are not worth it.  Planes in a file are never
             * pinned: that would hold them all in memory. */
            int stream = 0;
            for (int j = 0; j < n_dev; j++) {
                if (dv[j].err) ret = dv[j].err;
                else if ((uint32_t)es_gpu_cache_slots(dv[j].g) < ctx->n_blocks) stream = 1;
            }
            if (!ret && stream) {
                double t_pin = es_time_now();
                for (uint32_t b = 0; b < ctx->n_blocks; b++) {
                    const es_planes_t *pl = &ctx->blocks[b];
                    if (!pl->mapped)
                        es_gpu_host_register(pl->planes, (size_t)pl->count * pl->n_planes * pl->words * 8);
                }
                pinned = 1;
                es_info("blocks are streamed: pinned the packed blocks in %.3f s", es_time_now() - t_pin);
            }
        }
        if (!ret) {
            d->err = dev_loop(ctx, d);
            if (d->err) es_ctx_fail(ctx, d->err);
        }
    }
    if (pinned)
        for (uint32_t b = 0; b < ctx->n_blocks; b++)
            if (!ctx->blocks[b].mapped) es_gpu_host_unregister(ctx->blocks[b].planes);
    char *info = ctx->scan->device_info;
    size_t len = sizeof ctx->scan->device_info, used = 0;
    used += (size_t)snprintf(info, len, "%d GPU(s)", n_dev);
    for (int k = 0; k < n_dev && used < len; k++)
        used += (size_t)snprintf(info + used, len - used, "%s %s", k ? ";" : ":", dv[k].desc);
    for (int k = 0; k < n_dev; k++) {
        if (!ret && dv[k].err) ret = dv[k].err;
        dev_close(&dv[k]);
    }
    free(dv);
    free(lnf);
    return ret;
}

const es_backend_t es_backend_gpu = {
    .name = "gpu",
    .device_count = gpu_device_count,
    .supports = gpu_supports,
    .cost = gpu_cost,
    .device_describe = es_gpu_device_describe,
    .prepare = gpu_prepare,
    .run = gpu_run,
    .auto_block = gpu_auto_block,
    .mi_open = gpu_mi_open,
    .mi_round = es_gpu_mi_round,
    .mi_seconds = es_gpu_mi_seconds,
    .mi_close = es_gpu_mi_close,
    .rows_open = gpu_rows_open,
    .rows_count = es_gpu_rows_count,
    .rows_kernel = es_gpu_rows_kernel,
    .rows_seconds = es_gpu_rows_seconds,
    .rows_close = es_gpu_rows_close,
};
