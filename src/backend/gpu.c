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
    (void)op; /* every op: pairs, triples, selection */
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

/* A pair scan's closing, left to a thread of its own (closing_start, below);
 * every later use of a device by this backend, the scan's destruction
 * (finish()) and settle() wait for it. */
static pthread_mutex_t closing_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t closing_th;
static int closing_on;

static void closing_wait(void)
{
    pthread_mutex_lock(&closing_lock);
    if (closing_on) {
        pthread_join(closing_th, NULL);
        closing_on = 0;
    }
    pthread_mutex_unlock(&closing_lock);
}

/* Wait for a preparation of dev, if one runs; from now on it counts as open. */
static void prepared(int dev)
{
    closing_wait();
    if (dev < 0 || dev >= GPU_MAX) return;
    pthread_once(&opened_once, opened_init);
    gpu_open_t *o = &opened[dev];
    pthread_mutex_lock(&o->lock);
    if (atomic_load(&o->state) == 1) pthread_join(o->thread, NULL);
    atomic_store(&o->state, 2);
    pthread_mutex_unlock(&o->lock);
}

/* Join every preparation still running (backend settle()). */
static void gpu_settle(void)
{
    closing_wait();
    pthread_once(&opened_once, opened_init);
    for (int d = 0; d < GPU_MAX; d++)
        if (atomic_load(&opened[d].state) == 1) prepared(d);
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
/*   - a 3-way scan: opening the device, GPU3_SETUP_S of set-up, then 40 ps
 *     a triple plus 4.4 ps per 1,024 samples (the mma kernel on the H200,
 *     bench_triple_gpu: 2.24e10 triples/s at N = 1,024, 1.32e10 at 8,192,
 *     doc/BENCHMARKS.md; with missing calls the popc kernel is several
 *     times slower, which this does not model). */
/*   - a quantitative trait's linear scan (gpu/pair/qt.cu): GPU_QT_PAIR_S a
 *     pair plus GPU_QT_SAMPLE_S a pair and sample (bench_qt_gpu on the
 *     H200, the scan's rate with its host scoring: 4.1e9 pairs/s at
 *     N = 1,024, 1.3e9 at 8,192; doc/BENCHMARKS.md). */
#define GPU_QT_PAIR_S 1.7e-10
#define GPU_QT_SAMPLE_S 7.1e-14
#define GPU3_SETUP_S 0.15
#define GPU3_TRIPLE_S 40e-12
#define GPU3_SAMPLE_S 4.3e-15
static double gpu_cost(const es_work_t *w)
{
    const double n = (double)w->n_samples, f = (double)w->features, r = (double)w->rounds;
    double t = open_left(w->dev);
    if (w->op == ES_OP_PAIR_SCAN && w->qt) return t + 0.1 + (double)w->pairs * (GPU_QT_PAIR_S + n * GPU_QT_SAMPLE_S);
    if (w->op == ES_OP_PAIR_SCAN) return t + 0.1 + (double)w->pairs * n / 4e13;
    if (w->op == ES_OP_TRIPLE_SCAN) return t + GPU3_SETUP_S + (double)w->pairs * (GPU3_TRIPLE_S + n * GPU3_SAMPLE_S);
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

/* ---- what the pair and triple scans share ---------------------------------------- */

/* The GPUs of --device gpu[:N,...] into devs.  @return their number. */
static int pick_devices(const es_opt_t *opt, int devs[64])
{
    int n_vis = es_backend_gpu_count(), n = 0;
    for (int d = 0; d < n_vis && d < 64; d++)
        if (!opt->gpu_mask || (opt->gpu_mask >> d & 1)) devs[n++] = d;
    return n;
}

/* The words of a class of n samples that the pair kernels count (es_gpu_config_t's
 * kw_case, kw_ctrl): whole 64-bit words, in groups of four. */
static uint32_t class_kw(uint32_t n) { return ((n + 63) / 64 + 3) / 4 * 4; }

/* ---- a pair scan's first kernels loaded while its blocks are packed ---------------
 * (backend warm): the driver loads a kernel when first used, about 3 ms
 * each, and a scan's first tiles launch four to six of them, so that its
 * first tile waited 13-14 ms for them (N = 1,024, issue 24).  A thread per
 * device loads them beside the packing (es_gpu_warm), and makes the flights'
 * first pinned host buffers, which es_gpu_open adopts; es_gpu_open's own
 * thread then finds both done.  EPISTREAM_GPU_WARM=open (or 0): not, the
 * kernels loaded from the opening on, as before (comparisons). */
typedef struct {
    int n;
    es_gpu_config_t cfg;
    struct gpu_warm_one {
        pthread_t th;
        int dev;
        const es_gpu_config_t *cfg;
    } one[64];
} gpu_warm_t;

static void *warm_one_main(void *arg)
{
    const struct gpu_warm_one *o = arg;
    (void)es_gpu_warm(o->dev, o->cfg); /* errors: es_gpu_open's to report */
    return NULL;
}

static void *gpu_warm(const es_scan_ctx_t *ctx, uint32_t n_planes)
{
    const es_opt_t *opt = &ctx->scan->opt;
    const char *wv = getenv("EPISTREAM_GPU_WARM");
    /* (a merge of shards scans no tile) */
    if (ctx->ds->qt || opt->merge || (wv && (!strcmp(wv, "0") || !strcmp(wv, "open")))) return NULL;
    int devs[64], n_dev = pick_devices(opt, devs);
    gpu_warm_t *w = n_dev ? calloc(1, sizeof *w) : NULL;
    if (!w) return NULL;
    w->cfg.stat = ctx->stat;
    w->cfg.top_k = opt->top_k;
    w->cfg.n_planes = n_planes;
    w->cfg.kw_case = class_kw(ctx->ds->n_case); /* as gpu_run's, from the packed blocks */
    w->cfg.kw_ctrl = class_kw(ctx->ds->n_ctrl);
    w->cfg.kernel = opt->gpu_kernel;
    w->cfg.nlogn = es_nlogn_table();
    w->cfg.n_nlogn = ES_NLOGN_TAB;
    for (int k = 0; k < n_dev; k++) {
        struct gpu_warm_one *o = &w->one[w->n];
        o->dev = devs[k];
        o->cfg = &w->cfg;
        if (pthread_create(&o->th, NULL, warm_one_main, o) == 0) w->n++;
    }
    return w;
}

static void gpu_warm_join(void *h)
{
    gpu_warm_t *w = h;
    if (!w) return;
    for (int k = 0; k < w->n; k++) {
        pthread_join(w->one[k].th, NULL);
        es_gpu_warm_release(w->one[k].dev); /* host buffers no opening took */
    }
    free(w);
}

/* Pin (on) or unpin the packed blocks, so that streamed copies are
 * asynchronous: the planes and the genotype counts, for a copy from
 * pageable memory first waits for the copy stream's earlier work (the
 * slot's previous block's tiles), so that the counts alone held the device
 * thread 0.19 s of a 0.39 s scan at N = 1,024 with the cache at 1/8 of the
 * data (issue 24).  Planes in a file are never pinned: that would hold
 * them all in memory (and their copies wait anyway). */
static void pin_planes(const es_planes_t *blocks, uint32_t n, int on)
{
    for (uint32_t b = 0; b < n; b++) {
        const es_planes_t *pl = &blocks[b];
        if (pl->mapped) continue;
        if (on) {
            es_gpu_host_register(pl->planes, (size_t)pl->count * pl->n_planes * pl->words * 8);
            es_gpu_host_register(pl->gcount, (size_t)pl->count * sizeof *pl->gcount);
        } else {
            es_gpu_host_unregister(pl->planes);
            es_gpu_host_unregister(pl->gcount);
        }
    }
}

/* Pin a pair scan's blocks (pin_planes); blocks packed beside the scan are
 * pinned each once packed (the packer writes the block's fields).  They are
 * unpinned after the devices close (closing_start).  @return ES_OK or the
 * packing's error. */
static int pin_blocks(es_scan_ctx_t *ctx)
{
    for (uint32_t b = 0; b < ctx->n_blocks; b++) {
        int ret;
        if (ctx->wait_block && (ret = ctx->wait_block(ctx, b))) return ret;
        pin_planes(&ctx->blocks[b], 1, 1);
    }
    return ES_OK;
}

/* The scan's device_info: "2 GPU(s): 0 ...; 1 ...". */
static void device_info_set(es_scan_t *scan, int n_dev, const char *const *desc)
{
    char *info = scan->device_info;
    size_t len = sizeof scan->device_info, used = 0;
    used += (size_t)snprintf(info, len, "%d GPU(s)", n_dev);
    for (int k = 0; k < n_dev && used < len; k++)
        used += (size_t)snprintf(info + used, len - used, "%s %s", k ? ";" : ":", desc[k]);
}

/* ln n! for n < n_ent, the statistics' own values (K2's device bounds);
 * the caller frees it.  NULL: no memory. */
static double *lnfact_table(uint32_t n_ent)
{
    double *t = malloc((size_t)n_ent * sizeof *t);
    for (uint32_t n = 0; t && n < n_ent; n++) t[n] = es_lnfact(n);
    return t;
}

/* ---- the scan ---------------------------------------------------------------- */

/* Blocks large enough that one tile fills a GPU (8192 variants: 33 million
 * pairs), small enough that every device gets several tiles. */
static uint32_t gpu_auto_block(const es_scan_ctx_t *ctx, size_t bytes_per_variant)
{
    int n_dev = es_backend_gpu_count();
    uint64_t m = ctx->m;
    uint64_t b = (m + 4 * (uint64_t)(n_dev > 0 ? n_dev : 1) - 1) / (4 * (uint64_t)(n_dev > 0 ? n_dev : 1));
    b = (b + 63) / 64 * 64;
    if (b < 512) b = 512;
    /* at most 8,192 variants, or 16,384 for a case/control scan whose
     * variants pack into 512 bytes or less (about 2,000 samples): a tile's
     * kernel is then short and the host's work per tile (its team, the
     * merges, the second stage's launches) weighs more; four times fewer
     * tiles were 1.03-1.07x faster at N = 1,024 and the same at 8,192,
     * while end to end at 10,000 samples the larger first block (packed
     * beside the scan) cost more than it saved (doc/BENCHMARKS.md) */
    const uint64_t cap = !ctx->qt && bytes_per_variant <= 512 ? 16384 : 8192;
    if (b > cap) b = cap;
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

/* The best k-th best the workers know (heaps, or the scan list's floor), as a score key (0: none). */
static uint32_t host_tau(const es_scan_ctx_t *ctx, const es_worker_t *w, int nw)
{
    uint32_t best = 0;
    for (int h = 0; h < nw; h++) {
        double s;
        if (!es_topk_kth(&w[h].top, &s)) continue;
        uint32_t k = score_key(ctx->higher_is_better ? s : -s);
        if (k > best) best = k;
    }
    return best;
}

/* How many of a device's nw helper workers score a tile's n candidates:
 * one per `chunk` of them.  With BOOST's fits from the device a candidate
 * costs the host about 0.4 us, 1 us without (its bounds, fit and p-value),
 * and starting a team and merging its workers' parts costs tens to hundreds
 * of microseconds on a busy host, so a chunk of SCORE_CHUNK is 0.2-0.5 ms of
 * work (H200 host, N = 1,024: chunks of 128, 512 and 2,048 candidates
 * scored a scan's 859,422 in 0.41, 0.27 and 0.31 s; doc/BENCHMARKS.md).
 * Chunk 0 is the previous rule (EPISTREAM_GPU_SCORE_CHUNK=0, for same-run
 * comparisons): every helper from 2,048 candidates, else the device thread
 * alone, which at N = 1,024 scored most tiles' 400-2,000 candidates more
 * slowly than the device ran the next tile. */
#define SCORE_CHUNK 512
static int score_chunk(void)
{
    const char *e = getenv("EPISTREAM_GPU_SCORE_CHUNK");
    if (!e || !*e) return SCORE_CHUNK;
    char *end;
    long v = strtol(e, &end, 10);
    return *end || v < 0 || v > (1L << 30) ? SCORE_CHUNK : (int)v;
}

static int score_team(size_t n, int nw, int chunk)
{
    if (chunk == 0) return n < 2048 ? 1 : nw;
    size_t t = n / (size_t)chunk;
    return t < 1 ? 1 : t < (size_t)nw ? (int)t : nw;
}

/* Score a tile's candidates exactly, split over score_team()'s helper
 * workers (each keeps its own top-k heap; fold_tile then folds their tile
 * summaries and significant pairs into w[0], whose merges are total
 * orders, so the split does not change the outputs).  *n_fit gains the
 * candidates scored from the device's fit (fit: es_gpu_collect_fits).
 * prof (EPISTREAM_GPU_TRACE; NULL: not timed) gets the team's size, its
 * slowest and its summed seconds in the scoring loop.  Returns the team's
 * size. */
static int score_tile(es_scan_ctx_t *ctx, es_worker_t *w, int nw, int chunk, const es_gpu_cand_t *c,
                      const double *fit, size_t n, uint32_t bi, uint32_t bj, uint64_t *n_fit, double prof[3])
{
    nw = score_team(n, nw, chunk);
    double tmax = 0.0, tsum = 0.0;
    uint64_t nf = 0;
    for (int h = 0; h < nw; h++) es_worker_begin_tile(ctx, &w[h], bi, bj);
#pragma omp parallel for num_threads(nw) schedule(static, 1) reduction(max : tmax) reduction(+ : tsum, nf)
    for (int h = 0; h < nw; h++) {
        double t0 = prof ? es_time_now() : 0.0;
        size_t lo = n * (size_t)h / (size_t)nw, hi = n * (size_t)(h + 1) / (size_t)nw;
        for (size_t k = lo; k < hi; k++) {
            const es_table2_t *t = (const es_table2_t *)c[k].n;
            if (fit && !isnan(fit[18 * k])) {
                es_worker_offer_fitted(ctx, &w[h], c[k].i, c[k].j, t, fit + 18 * k);
                nf++;
            } else {
                es_worker_offer_screened(ctx, &w[h], c[k].i, c[k].j, t);
            }
        }
        if (prof) {
            double t = es_time_now() - t0;
            tmax = t > tmax ? t : tmax;
            tsum += t;
        }
    }
    *n_fit += nf;
    if (prof) {
        prof[0] = nw;
        prof[1] = tmax;
        prof[2] = tsum;
    }
    return nw;
}

/* The bookkeeping of a tile that score_tile's team of nw scored: the team's
 * parts folded into w[0] (total orders), its pairs counted, and the tile
 * done (es_ctx_tile_done).  prof (NULL: not timed) gets its seconds and
 * the part of them folding the team. */
static int fold_tile(es_scan_ctx_t *ctx, es_worker_t *w, int nw, double prof[2])
{
    double t0 = prof ? es_time_now() : 0.0;
    for (int h = 1; h < nw; h++) es_worker_merge(ctx, &w[0], &w[h]);
    es_worker_count_tile(ctx, &w[0]);
    double t1 = prof ? es_time_now() : 0.0;
    int ret = es_ctx_tile_done(ctx, &w[0]);
    if (prof) {
        prof[0] = es_time_now() - t0;
        prof[1] = t1 - t0;
    }
    return ret;
}

/* A device's tiles' bookkeeping (fold_tile) on a thread of its own, one tile
 * behind their scoring, so that the device thread collects and scores the
 * next tile meanwhile (issue 24: the first tiles of a scan, whose
 * candidates are many, kept the host behind the device, and folding the
 * team and the tile's summaries was 0.3-1.5 ms of each).  The scoring
 * alternates between two sets of helper workers: set s is scored into only
 * once its previous tile is folded.  The outputs do not depend on the
 * order in which tiles are done (es_ctx_tile_done's merges are total
 * orders; significant pairs are sorted a row at a time). */
typedef struct {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    es_scan_ctx_t *ctx;
    es_worker_t *set[2];
    int n_init, *nw_init[2]; /* the sets' workers, made by the thread first (helpers_init) */
    int team[2];   /* the team that scored set s's queued tile */
    int queued[2]; /* set s holds a scored tile not yet done */
    int next;      /* the set folded next */
    int quit, ret;
    _Atomic uint32_t tau; /* the best k-th best a folded tile's worker knows (score key) */
    double secs;          /* seconds folding */
} fold_t;

static int helpers_n(int n);
static int helpers_init(es_scan_ctx_t *ctx, es_worker_t *w, int n, int *nw);

static void *fold_main(void *arg)
{
    fold_t *f = arg;
    /* the sets' workers, while the device runs the first tiles (made at
     * the opening, they delayed the first tile by 7 ms, and a second set
     * by 4 ms more: writing the workers' summaries touches 25 MB a set at
     * N = 1,024); a set stays queued until it is made */
    int ret = ES_OK;
    for (int s = 0; s < 2; s++) {
        if (!ret) ret = helpers_init(f->ctx, f->set[s], f->n_init, f->nw_init[s]);
        pthread_mutex_lock(&f->mu);
        if (ret && !f->ret) f->ret = ret;
        f->queued[s] = 0;
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->mu);
    }
    pthread_mutex_lock(&f->mu);
    for (;;) {
        while (!f->queued[f->next] && !f->quit) pthread_cond_wait(&f->cv, &f->mu);
        if (!f->queued[f->next]) break; /* quit, nothing left */
        const int s = f->next, nw = f->team[s], failed = f->ret;
        pthread_mutex_unlock(&f->mu);
        double t0 = es_time_now();
        /* after a failed tile the scan stops: the queued one is dropped, as
         * the device thread stopped at once before */
        ret = failed ? failed : fold_tile(f->ctx, f->set[s], nw, NULL);
        /* w[0] now has the scan list's floor (on an MPI rank other than 0,
         * whose tiles go to rank 0, none: the scored sets' thresholds serve) */
        uint32_t tau = failed ? 0u : host_tau(f->ctx, f->set[s], 1), old = atomic_load(&f->tau);
        while (tau > old && !atomic_compare_exchange_weak(&f->tau, &old, tau)) {
        }
        double t = es_time_now() - t0;
        pthread_mutex_lock(&f->mu);
        f->secs += t;
        if (ret && !f->ret) f->ret = ret;
        f->queued[s] = 0;
        f->next = s ^ 1;
        pthread_cond_broadcast(&f->cv);
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

/* Waits until set s holds no tile to fold; the first error of a fold. */
static int fold_wait(fold_t *f, int s)
{
    pthread_mutex_lock(&f->mu);
    while (f->queued[s]) pthread_cond_wait(&f->cv, &f->mu);
    int ret = f->ret;
    pthread_mutex_unlock(&f->mu);
    return ret;
}

static void fold_push(fold_t *f, int s, int nw)
{
    pthread_mutex_lock(&f->mu);
    f->team[s] = nw;
    f->queued[s] = 1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

/* Folds what is queued, stops the thread; the first error of a fold. */
static int fold_stop(fold_t *f)
{
    pthread_mutex_lock(&f->mu);
    f->quit = 1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    pthread_join(f->th, NULL);
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    return f->ret;
}

/* One device's share of a scan: its helper workers (which score candidates
 * on the host) and its engine. */
typedef struct {
    int dev, nw, err;
    es_gpu_t *g;
    es_worker_t w[64];
    es_worker_t w2[64]; /* the second set (fold_t; nw2 of them, made by its thread) */
    int nw2, n_helpers;
    int fold;           /* fold_t does the tiles' bookkeeping and makes the helpers (fold_on, read once) */
    char desc[320];
    /* the preloading thread (blocks uploaded ahead of their first tile) */
    es_scan_ctx_t *ctx;
    pthread_t pre;
    int pre_on, pre_err;
    atomic_int pre_stop;
    double t_pre; /* its seconds */
} gpu_dev_t;

/* Where every block has a slot on the device, a thread of its own uploads
 * them in the order the tiles first need them (block b with the diagonal
 * tile b, b), so that the device thread, which scores the candidates of the
 * early tiles, does not also stage 2.5 GB of pageable copies (issue 24). */
static void *preload_main(void *arg)
{
    gpu_dev_t *d = arg;
    es_scan_ctx_t *ctx = d->ctx;
    double t0 = es_time_now();
    for (uint32_t b = 0; b < ctx->n_blocks && !d->pre_err; b++) {
        if (atomic_load(&d->pre_stop) || atomic_load_explicit(&ctx->stop, memory_order_relaxed)) break;
        if (ctx->wait_block && (d->pre_err = ctx->wait_block(ctx, b))) break; /* packed beside */
        es_gpu_block_t x;
        block_desc(ctx, b, &x);
        d->pre_err = es_gpu_preload(d->g, &x);
    }
    d->t_pre = es_time_now() - t0;
    return NULL;
}

/* A device thread's helper workers w[0 .. *nw) (1 to 64 of them), which
 * score its tiles' candidates.  A tile's candidates touch few of its
 * variants: w[0], which owns the tile, and the helpers that score part of
 * it merge only what they touch (sparse workers), and the tile's pairs are
 * counted per block.  *nw: the workers to free, whatever the return. */
static int helpers_n(int n) { return n < 1 ? 1 : n > 64 ? 64 : n; }

static int helpers_init(es_scan_ctx_t *ctx, es_worker_t *w, int n, int *nw)
{
    int ret = ES_OK;
    n = helpers_n(n);
    /* each on a thread of its own: a worker's summaries (two blocks'
     * variants) are written as it is made, about 1 ms a worker */
    int err[64] = {0};
#pragma omp parallel for num_threads(n) schedule(static, 1)
    for (int h = 0; h < n; h++) {
        err[h] = es_worker_init(&w[h], ctx);
        if (err[h]) memset(&w[h], 0, sizeof w[h]); /* nothing held: freeing it is harmless */
        else err[h] = es_worker_set_sparse(&w[h], ctx);
    }
    *nw = n;
    for (int h = 0; h < n && !ret; h++) ret = err[h];
    return ret;
}

/* EPISTREAM_GPU_FOLD=0: each tile's bookkeeping on the device thread
 * after its scoring, and the helpers made at the opening, as before fold_t
 * (same-run comparisons). */
static int fold_on(void)
{
    const char *v = getenv("EPISTREAM_GPU_FOLD");
    return !(v && !strcmp(v, "0"));
}

/* The device first: its kernels load on a thread of their own (es_gpu_open)
 * while the scan starts.  The helpers are made by dev_loop's fold_t, beside
 * the first tiles (EPISTREAM_GPU_FOLD=0: here). */
static int dev_open(es_scan_ctx_t *ctx, gpu_dev_t *d, int n_helpers, const es_gpu_config_t *cfg)
{
    double t_open = es_time_now();
    int ret = es_gpu_open(d->dev, cfg, &d->g);
    if (ret) return ret;
    t_open = es_time_now() - t_open;
    /* (EPISTREAM_GPU_FOLD=0; else dev_loop's fold_t makes them) */
    d->fold = fold_on();
    if (!d->fold) ret = helpers_init(ctx, d->w, n_helpers, &d->nw);
    if (ret) return ret;
    d->n_helpers = n_helpers;
    char name[200];
    if (es_gpu_device_describe(d->dev, name, sizeof name)) snprintf(name, sizeof name, "device %d", d->dev);
    snprintf(d->desc, sizeof d->desc, "%d %s (%s kernel, %d block slots%s)", d->dev, name, es_gpu_kernel_name(d->g),
             es_gpu_cache_slots(d->g), es_gpu_cache_lite(d->g) ? ", the constants built per block beside the slots" : "");
    es_info("GPU %s, opened in %.3f s", d->desc, t_open);
    return ES_OK;
}

static int dev_loop(es_scan_ctx_t *ctx, gpu_dev_t *d)
{
    es_gpu_t *g = d->g;
    es_worker_t *w = d->w;
    const int dev = d->dev;
    int ret = ES_OK;
    uint64_t cands = 0, tiles = 0, n_fit = 0;
    double t_wait = 0.0, t_score = 0.0, t_submit = 0.0, t_set = 0.0;
    double t_loop = es_time_now(), t_first = -1.0, t_diag = -1.0;
    /* EPISTREAM_GPU_TRACE=1: one line per tile on stderr (doc/GPU.md) */
    const char *tr = getenv("EPISTREAM_GPU_TRACE");
    const int trace = tr && *tr && strcmp(tr, "0") != 0, chunk = score_chunk();
    /* the tiles' bookkeeping on a thread of its own (fold_t), which first
     * makes both sets of helper workers */
    fold_t f;
    memset(&f, 0, sizeof f);
    int fold = d->fold, set = 0, nw = d->nw;
    if (fold) {
        nw = helpers_n(d->n_helpers);
        f.ctx = ctx;
        f.set[0] = d->w;
        f.set[1] = d->w2;
        f.n_init = nw;
        f.nw_init[0] = &d->nw;
        f.nw_init[1] = &d->nw2;
        f.queued[0] = f.queued[1] = 1; /* until the thread has made them */
        atomic_init(&f.tau, 0u);
        pthread_mutex_init(&f.mu, NULL);
        pthread_cond_init(&f.cv, NULL);
        if (pthread_create(&f.th, NULL, fold_main, &f) != 0) {
            pthread_cond_destroy(&f.cv);
            pthread_mutex_destroy(&f.mu);
            es_error("GPU %d: cannot start the thread that makes the helper workers", dev);
            return ES_ERR_NOMEM;
        }
    }
    uint32_t tau = 0; /* (fold) the best k-th best the scored sets' workers knew */
    for (;;) {
        uint32_t bi, bj;
        if (es_ctx_claim_tile(ctx, &bi, &bj) == 0) {
            es_gpu_block_t a, b;
            /* blocks packed beside the scan: both must be */
            if (ctx->wait_block && ((ret = ctx->wait_block(ctx, bi)) || (ret = ctx->wait_block(ctx, bj)))) break;
            block_desc(ctx, bi, &a);
            block_desc(ctx, bj, &b);
            double ts = es_time_now();
            uint32_t t = fold ? atomic_load(&f.tau) : host_tau(ctx, w, nw);
            ret = es_gpu_submit(g, &a, &b, t > tau ? t : tau);
            t_submit += es_time_now() - ts;
            if (t_first < 0) t_first = es_time_now() - t_loop;
            if (ret) break;
            if (es_gpu_in_flight(g) < ES_GPU_FLIGHTS) continue; /* keep the device's queue full */
        }
        if (!es_gpu_in_flight(g)) break;
        const es_gpu_cand_t *c;
        size_t n;
        double t0 = es_time_now(), k0 = es_gpu_kernel_seconds(g), p0 = es_gpu_prepass_seconds(g);
        double g0 = es_gpu_gap_seconds(g);
        ret = es_gpu_collect(g, &c, &n, &bi, &bj);
        if (ret) break;
        double t1 = es_time_now();
        cands += n;
        tiles++;
        double prof[5] = {0};
        if (fold) {
            /* the set's previous tile done, this one scored into it and queued */
            w = set ? d->w2 : d->w;
            double tw = es_time_now();
            ret = fold_wait(&f, set);
            if (ret) break;
            prof[3] = es_time_now() - tw;
            t_set += prof[3];
            int team = score_tile(ctx, w, nw, chunk, c, es_gpu_collect_fits(g), n, bi, bj, &n_fit,
                                  trace ? prof : NULL);
            uint32_t t = host_tau(ctx, w, team);
            if (t > tau) tau = t;
            fold_push(&f, set, team);
            set ^= 1;
        } else {
            int team = score_tile(ctx, w, nw, chunk, c, es_gpu_collect_fits(g), n, bi, bj, &n_fit,
                                  trace ? prof : NULL);
            ret = fold_tile(ctx, w, team, trace ? prof + 3 : NULL);
        }
        double t2 = es_time_now();
        t_wait += t1 - t0;
        t_score += t2 - t1;
        if (bi == bj) t_diag = t2 - t_loop; /* this device's last diagonal tile */
        if (trace) {
            char bk[96];
            if (fold) snprintf(bk, sizeof bk, "its set free after %.3f ms", prof[3] * 1e3);
            else snprintf(bk, sizeof bk, "merged %.3f ms, %.3f of it the team's parts", prof[3] * 1e3, prof[4] * 1e3);
            fprintf(stderr, "[gpu-trace] dev %d tile %u,%u: kernel %.3f ms, %zu candidates, pre-pass %.3f ms, waited "
                    "%.3f ms, scored in %.3f ms (%d thread(s): slowest %.3f, all %.3f ms; %s), done at %.4f s, the "
                    "device idle %.3f ms before it\n",
                    dev, bi, bj, (es_gpu_kernel_seconds(g) - k0) * 1e3, n, (es_gpu_prepass_seconds(g) - p0) * 1e3,
                    (t1 - t0) * 1e3, (t2 - t1) * 1e3, (int)prof[0], prof[1] * 1e3, prof[2] * 1e3, bk, t2 - t_loop,
                    (es_gpu_gap_seconds(g) - g0) * 1e3);
        }
        if (ret) break;
    }
    if (fold) {
        int r = fold_stop(&f);
        if (!ret) ret = r;
        es_info("GPU %d: the tiles' bookkeeping on a thread of its own, %.3f s; the scoring waited %.3f s of its "
                "%.3f s for a free set of helpers", dev, f.secs, t_set, t_score);
    }
    es_info("GPU %d: %llu tiles, %.3f s in tile kernels (%.3f s of it the diagonal tiles' pre-passes); %llu "
            "candidate pairs scored exactly on %d host thread(s) (%llu from the device's fits); %.3f s waiting "
            "for the device, %.3f s scoring",
            dev, (unsigned long long)tiles, es_gpu_kernel_seconds(g), es_gpu_prepass_seconds(g),
            (unsigned long long)cands, nw, (unsigned long long)n_fit, t_wait, t_score);
    es_info("GPU %d: the first tile queued %.3f s into the loop, its last of the scan's %u diagonal tiles "
            "done at %.3f s, the loop %.3f s; %.3f s queueing tiles, %.3f s of it uploading blocks; the device "
            "%.3f s between its tiles",
            dev, t_first, ctx->n_blocks, t_diag, es_time_now() - t_loop, t_submit, es_gpu_upload_seconds(g),
            es_gpu_gap_seconds(g));
    unsigned long long scr[4];
    if (!ret && es_gpu_screen_stats(g, scr) == ES_OK && scr[0])
        es_info("GPU %d: screen passed %llu pairs; %llu of %llu CTAs scored their survivors from the queue; %llu "
                "CTA tiles without BOOST's in-tile fits", dev, scr[2], scr[1], scr[0], scr[3]);
    unsigned long long ex[3];
    if (!ret && es_gpu_exact_stats(g, ex) == ES_OK && ex[1])
        es_info("GPU %d: the exact statistic on the device (%.3f s, %s) decided %llu of %llu candidates and "
                "dropped %llu; the host scored %llu", dev, es_gpu_exact_seconds(g),
                es_gpu_stage2_side(g) ? "beside the next tiles" : "after each tile", ex[1], ex[0], ex[2],
                ex[0] - ex[2]);
    return ret;
}

static void dev_close(gpu_dev_t *d)
{
    es_gpu_close(d->g);
    d->g = NULL;
    for (int h = 0; h < d->nw; h++) es_worker_free(&d->w[h]);
    for (int h = 0; h < d->nw2; h++) es_worker_free(&d->w2[h]);
    d->nw = d->nw2 = 0;
}

/* Closing the devices after a pair scan (their memory, pinned buffers and
 * streams, the helpers' workers) took 5-6 ms at N = 1,024 (issue 24), and
 * unpinning streamed blocks 8 ms more, after the results were in: a thread
 * of its own does both while the caller writes them (closing_wait above;
 * the scan frees the blocks after finish(), src/scan/scan.c's
 * blocks_free).  EPISTREAM_GPU_CLOSE=now: at once, as before
 * (comparisons).  After an error (ok 0) at once: a device may still hold
 * copies of blocks the scan is about to free.  Takes dv (n_dev entries,
 * freed); pinned: the n_pinned blocks to unpin after, or NULL.  @return 1:
 * left to the thread, 0: closed. */
typedef struct {
    gpu_dev_t *dv;
    int n_dev;
    const es_planes_t *pinned;
    uint32_t n_pinned;
} closing_t;

/* Close the n_dev devices of dv (freed), then unpin the n_pinned blocks
 * pinned (NULL: none). */
static void close_all(gpu_dev_t *dv, int n_dev, const es_planes_t *pinned, uint32_t n_pinned)
{
    for (int k = 0; k < n_dev; k++) dev_close(&dv[k]);
    if (pinned) pin_planes(pinned, n_pinned, 0);
    free(dv);
}

static void *closing_main(void *arg)
{
    closing_t *c = arg;
    close_all(c->dv, c->n_dev, c->pinned, c->n_pinned);
    free(c);
    return NULL;
}

static int closing_start(gpu_dev_t *dv, int n_dev, int ok, const es_planes_t *pinned, uint32_t n_pinned)
{
    const char *cv = getenv("EPISTREAM_GPU_CLOSE");
    closing_t *c = !ok || (cv && !strcmp(cv, "now")) ? NULL : malloc(sizeof *c);
    int on = 0;
    pthread_mutex_lock(&closing_lock);
    if (closing_on) { /* one closing at a time (scans of several threads) */
        pthread_join(closing_th, NULL);
        closing_on = 0;
    }
    if (c) {
        c->dv = dv;
        c->n_dev = n_dev;
        c->pinned = pinned;
        c->n_pinned = n_pinned;
        on = closing_on = pthread_create(&closing_th, NULL, closing_main, c) == 0;
    }
    pthread_mutex_unlock(&closing_lock);
    if (on) return 1;
    free(c);
    close_all(dv, n_dev, pinned, n_pinned);
    return 0;
}

/* ---- a quantitative trait (--stat linear, no call missing) ------------------------
 * The device counts each tile's tables and phenotype sums and drops the
 * pairs its bound proves irrelevant (gpu/pair/qt.cu); the rest come back
 * with their exact integer sums and are scored here by the CPU backend's own
 * calls (es_stat_linear, and the double sums where the fixed point could
 * move BETA_INT by more than ES_QT_REL_TOL), so the outputs are the CPU's
 * bytes.  The device blocks are the variants' genotype codes, built here
 * from the planes when a block is not on the device yet. */

typedef struct {
    uint32_t (*cnt)[2]; /* per variant: codes 1 and 2 */
    int64_t (*tot)[2];  /* per variant: sum of q over them */
    int64_t sy, syy;
    /* es_qt_dsums_exact()'s sums of y and y^2 (its sum of g y, per
     * variant, is qt_sgy()'s, for the few pairs that need it), added in
     * slot order as it adds them */
    double dsy, dsyy;
} qt_host_t;

/* es_qt_dsums_exact()'s sum of g y of a variant without missing calls: in
 * slot order, the terms of 0 skipped (they would add +0) */
static double qt_sgy(const uint64_t *p1, const uint64_t *p2, const es_qt_y_t *y)
{
    double sg = 0;
    for (uint32_t w = 0; w < y->slots / 64; w++)
        for (uint64_t m = p1[w] | p2[w]; m; m &= m - 1) {
            unsigned bit = (unsigned)__builtin_ctzll(m);
            sg += (double)(((p1[w] >> bit) & 1) + ((p2[w] >> bit) & 1)) * y->yd[w * 64 + bit];
        }
    return sg;
}

static int qt_host_init(const es_scan_ctx_t *ctx, qt_host_t *h)
{
    const es_qt_y_t *y = ctx->qt;
    memset(h, 0, sizeof *h);
    h->cnt = malloc((size_t)ctx->m * sizeof *h->cnt);
    h->tot = malloc((size_t)ctx->m * sizeof *h->tot);
    if (!h->cnt || !h->tot) return ES_ERR_NOMEM;
    for (uint32_t s = 0; s < y->slots; s++) {
        double v = y->yd[s];
        h->sy += (int64_t)y->q[s];
        h->syy += (int64_t)y->q2[s];
        h->dsy += v;
        h->dsyy += v * v;
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(ctx->n_threads)
    for (uint32_t b = 0; b < ctx->n_blocks; b++) {
        const es_planes_t *pl = &ctx->blocks[b];
        for (uint32_t v = 0; v < pl->count; v++) {
            const uint64_t *p1 = es_plane(pl, v, 0), *p2 = es_plane(pl, v, 1);
            int64_t t1 = 0, t2 = 0;
            uint32_t c1 = 0, c2 = 0;
            for (uint32_t w = 0; w < y->slots / 64; w++) {
                /* code = bit of P1 + bit of P2: 1 where they differ, 2 where both are set */
                uint64_t m1 = p1[w] ^ p2[w], m2 = p1[w] & p2[w];
                c1 += (uint32_t)__builtin_popcountll(m1);
                c2 += (uint32_t)__builtin_popcountll(m2);
                for (; m1; m1 &= m1 - 1) t1 += (int64_t)y->q[w * 64 + (unsigned)__builtin_ctzll(m1)];
                for (; m2; m2 &= m2 - 1) t2 += (int64_t)y->q[w * 64 + (unsigned)__builtin_ctzll(m2)];
            }
            uint32_t gv = pl->first + v;
            h->cnt[gv][0] = c1;
            h->cnt[gv][1] = c2;
            h->tot[gv][0] = t1;
            h->tot[gv][1] = t2;
        }
    }
    return ES_OK;
}

static void qt_host_free(qt_host_t *h)
{
    free(h->cnt);
    free(h->tot);
}

/* Block b's descriptor: its planes, which the device makes codes. */
static void qt_block(const es_scan_ctx_t *ctx, const qt_host_t *h, uint32_t b, es_gpu_qt_block_t *out)
{
    const es_planes_t *pl = &ctx->blocks[b];
    memset(out, 0, sizeof *out);
    out->index = b;
    out->first = pl->first;
    out->count = pl->count;
    out->planes = pl->planes;
    out->words = pl->words;
    out->cnt = (const uint32_t(*)[2])h->cnt + pl->first;
    out->tot = (const int64_t(*)[2])h->tot + pl->first;
}

/* es_qt_dsums_exact() of pair (i, j) without a missing call: the same
 * doubles, added in the same slot order (the sums are of values >= 0, so
 * the terms of 0 it adds change nothing), the partner-free ones from h and
 * the sum of a b y over the slots where both are called non-zero, 64 slots
 * a word. */
static void qt_dsums_exact(const es_scan_ctx_t *ctx, const qt_host_t *h, uint32_t i, uint32_t j, es_qt_dsums_t *d)
{
    const es_planes_t *pa = &ctx->blocks[i / ctx->block], *pb = &ctx->blocks[j / ctx->block];
    const uint64_t *a1 = es_plane(pa, i - pa->first, 0), *a2 = es_plane(pa, i - pa->first, 1);
    const uint64_t *b1 = es_plane(pb, j - pb->first, 0), *b2 = es_plane(pb, j - pb->first, 1);
    const double *yd = ctx->qt->yd;
    double saby = 0;
    for (uint32_t w = 0; w < ctx->qt->slots / 64; w++) {
        for (uint64_t m = a1[w] & b1[w]; m; m &= m - 1) {
            unsigned bit = (unsigned)__builtin_ctzll(m), s = w * 64 + bit;
            unsigned ga = 1 + (unsigned)((a2[w] >> bit) & 1), gb = 1 + (unsigned)((b2[w] >> bit) & 1);
            saby += ga * gb * yd[s];
        }
    }
    memset(d, 0, sizeof *d);
    d->sy = h->dsy;
    d->syy = h->dsyy;
    d->say = qt_sgy(a1, a2, ctx->qt);
    d->sby = qt_sgy(b1, b2, ctx->qt);
    d->saby = saby;
}

/* Score a candidate as cpu.c's qt_score() does, from its exact sums. */
static void qt_score_cand(es_scan_ctx_t *ctx, es_worker_t *w, const qt_host_t *h, const es_gpu_qt_cand_t *c,
                          uint64_t *exact)
{
    es_table2_t t;
    memset(&t, 0, sizeof t);
    memcpy(t.n[0], c->n, sizeof c->n);
    es_qt_sums_t s;
    memset(&s, 0, sizeof s);
    s.sy = h->sy;
    s.syy = h->syy;
    s.ra[0] = h->tot[c->i][0];
    s.ra[1] = h->tot[c->i][1];
    s.cb[0] = h->tot[c->j][0];
    s.cb[1] = h->tot[c->j][1];
    s.saby = c->saby;
    es_qt_dsums_t d;
    es_stat_result_t r;
    double beta = NAN;
    es_qt_dsums(&s, ctx->qt, &d);
    if (es_stat_linear(&t, &d, &r, &beta)) {
        qt_dsums_exact(ctx, h, c->i, c->j, &d);
        es_stat_linear(&t, &d, &r, &beta);
        (*exact)++;
    }
    uint32_t n = 0;
    for (int k = 0; k < 9; k++) n += t.n[0][k];
    es_worker_offer_result_screened(ctx, w, c->i, c->j, &r, n, beta);
}

typedef struct {
    int dev, nw, err;
    es_gpu_qt_t *g;
    es_worker_t w[64];
    char desc[320];
} gpu_qt_dev_t;

/* The host's k-th best the device's tiles may start from. */
static double qt_tau(const gpu_qt_dev_t *d)
{
    double tau = -INFINITY;
    for (int k = 0; k < d->nw; k++) {
        double s;
        if (es_topk_kth(&d->w[k].top, &s) && s > tau) tau = s;
    }
    return tau;
}

/* Claim a tile and start it on the device: 1 when one is started (*ret ES_OK). */
static int qt_next(es_scan_ctx_t *ctx, gpu_qt_dev_t *d, const qt_host_t *h, uint32_t *bi, uint32_t *bj, int *ret)
{
    if (es_ctx_claim_tile(ctx, bi, bj)) return 0;
    es_gpu_qt_block_t a, b;
    qt_block(ctx, h, *bi, &a);
    qt_block(ctx, h, *bj, &b);
    *ret = es_gpu_qt_start(d->g, &a, &b, qt_tau(d));
    return !*ret;
}

/* The device's tiles: the host scores one tile's candidates while the
 * device counts the next (EPISTREAM_GPU_QT_SERIAL=1: one after the other,
 * for comparisons). */
static int qt_dev_loop(es_scan_ctx_t *ctx, gpu_qt_dev_t *d, const qt_host_t *h)
{
    int ret = ES_OK;
    uint64_t cands = 0, tiles = 0, exact = 0;
    double t_score = 0.0, t_wait = 0.0, t_loop = es_time_now();
    const char *tr = getenv("EPISTREAM_GPU_TRACE"), *se = getenv("EPISTREAM_GPU_QT_SERIAL");
    const int trace = tr && *tr && strcmp(tr, "0") != 0, serial = se && *se && strcmp(se, "0") != 0;
    uint32_t bi, bj;
    int pending = qt_next(ctx, d, h, &bi, &bj, &ret);
    while (pending) {
        double k0 = es_gpu_qt_seconds(d->g), w0 = es_time_now();
        const es_gpu_qt_cand_t *c;
        size_t n;
        ret = es_gpu_qt_finish(d->g, &c, &n);
        t_wait += es_time_now() - w0;
        if (ret) break;
        const uint32_t ti = bi, tj = bj;
        const double kt = es_gpu_qt_seconds(d->g) - k0;
        if (!serial) pending = qt_next(ctx, d, h, &bi, &bj, &ret);
        if (ret) break;
        double t0 = es_time_now();
        int nw = score_team(n, d->nw, 0); /* the previous rule: not measured with smaller teams */
        for (int k = 0; k < nw; k++) es_worker_begin_tile(ctx, &d->w[k], ti, tj);
        uint64_t ex = 0;
#pragma omp parallel for num_threads(nw) schedule(static, 1) reduction(+ : ex)
        for (int k = 0; k < nw; k++) {
            size_t lo = n * (size_t)k / (size_t)nw, hi = n * (size_t)(k + 1) / (size_t)nw;
            for (size_t q = lo; q < hi; q++) qt_score_cand(ctx, &d->w[k], h, &c[q], &ex);
        }
        for (int k = 1; k < nw; k++) es_worker_merge(ctx, &d->w[0], &d->w[k]);
        es_worker_count_tile(ctx, &d->w[0]);
        ret = es_ctx_tile_done(ctx, &d->w[0]);
        t_score += es_time_now() - t0;
        cands += n;
        exact += ex;
        tiles++;
        if (trace)
            fprintf(stderr, "[gpu-trace] dev %d tile %u,%u: kernels %.3f ms, %zu candidates (%llu on double sums), "
                    "scored in %.3f ms\n", d->dev, ti, tj, kt * 1e3, n, (unsigned long long)ex,
                    (es_time_now() - t0) * 1e3);
        if (ret) break;
        if (serial) pending = qt_next(ctx, d, h, &bi, &bj, &ret);
    }
    if (ret && pending) { /* the started tile's kernels are not waited for by anyone else */
        const es_gpu_qt_cand_t *c;
        size_t n;
        es_gpu_qt_finish(d->g, &c, &n);
    }
    es_info("GPU %d: %llu tiles, %.3f s in the quantitative-trait kernels (counting %.3f s), %.3f s uploading "
            "blocks, %.3f s waiting for tiles, %.3f s in all; %llu candidate pairs scored exactly on %d host "
            "thread(s) in %.3f s%s", d->dev, (unsigned long long)tiles, es_gpu_qt_seconds(d->g),
            es_gpu_qt_count_seconds(d->g), es_gpu_qt_upload_seconds(d->g), t_wait, es_time_now() - t_loop,
            (unsigned long long)cands, d->nw, t_score, serial ? " (after each tile)" : " (while the next ran)");
    if (exact)
        es_info("GPU %d: %llu pair(s) scored on sums in double: their fixed-point sums could have moved BETA_INT "
                "by more than %g of it", d->dev, (unsigned long long)exact, ES_QT_REL_TOL);
    return ret;
}

static int gpu_run_qt(es_scan_ctx_t *ctx)
{
    const es_opt_t *opt = &ctx->scan->opt;
    int devs[64], n_dev = pick_devices(opt, devs);
    if (!n_dev) {
        es_error("no GPU to scan on");
        return ES_ERR_UNSUPPORTED;
    }
    if (!ctx->n_blocks) return ES_OK;
    if (ctx->stat != ES_STAT_LINEAR || ctx->blocks[0].n_planes != 2) {
        es_error("the GPU's quantitative-trait path is --stat linear without missing calls");
        return ES_ERR_UNSUPPORTED;
    }
    ctx->order = ES_TILES_DIAG_FIRST;
    qt_host_t h;
    double t_init = es_time_now();
    int ret = qt_host_init(ctx, &h);
    if (ret) {
        qt_host_free(&h);
        return ret;
    }
    es_info("the variants' sums of the trait in %.3f s", es_time_now() - t_init);
    es_gpu_qt_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_variants = ctx->m;
    cfg.block = ctx->block;
    cfg.slots = ctx->qt->slots;
    cfg.n = ctx->qt->n;
    cfg.q = ctx->qt->q;
    cfg.sy = h.sy;
    cfg.syy = h.syy;
    cfg.scale = ctx->qt->scale;
    cfg.scale2 = ctx->qt->scale2;
    cfg.top_k = opt->top_k;
    cfg.sig_min = ctx->do_sig ? ctx->sig_min : INFINITY;
    cfg.mem_limit = opt->gpu_mem;
    gpu_qt_dev_t *dv = calloc((size_t)n_dev, sizeof *dv);
    if (!dv) {
        qt_host_free(&h);
        return ES_ERR_NOMEM;
    }
    int helpers = ctx->n_threads / n_dev;
#ifdef _OPENMP
    omp_set_max_active_levels(2);
#endif
#pragma omp parallel num_threads(n_dev)
    {
        int k = 0;
#ifdef _OPENMP
        k = omp_get_thread_num();
#endif
        gpu_qt_dev_t *d = &dv[k];
        d->dev = devs[k];
        int err = helpers_init(ctx, d->w, helpers, &d->nw);
        if (!err) {
            prepared(d->dev);
            double t_open = es_time_now();
            err = es_gpu_qt_open(d->dev, &cfg, &d->g);
            if (!err) {
                char name[200];
                if (es_gpu_device_describe(d->dev, name, sizeof name)) snprintf(name, sizeof name, "device %d", d->dev);
                snprintf(d->desc, sizeof d->desc, "%d %s (quantitative-trait mma kernel)", d->dev, name);
                es_info("GPU %s, opened in %.3f s", d->desc, es_time_now() - t_open);
            }
        }
        if (!err) err = qt_dev_loop(ctx, d, &h);
        if (err) es_ctx_fail(ctx, err);
        d->err = err;
    }
    {
        const char *desc[64] = {NULL};
        for (int k = 0; k < n_dev; k++) desc[k] = dv[k].desc;
        device_info_set(ctx->scan, n_dev, desc);
    }
    for (int k = 0; k < n_dev; k++) {
        gpu_qt_dev_t *d = &dv[k];
        if (!ret && d->err) ret = d->err;
        es_gpu_qt_close(d->g);
        for (int w = 0; w < d->nw; w++) es_worker_free(&d->w[w]);
    }
    free(dv);
    qt_host_free(&h);
    return ret;
}

static int gpu_run(es_scan_ctx_t *ctx)
{
    const es_opt_t *opt = &ctx->scan->opt;
    if (ctx->qt) return gpu_run_qt(ctx);
    int devs[64], n_dev = pick_devices(opt, devs);
    if (!n_dev) {
        es_error("no GPU to scan on");
        return ES_ERR_UNSUPPORTED;
    }
    closing_wait(); /* the previous scan's devices closed */
    /* the device thresholds: see es_ctx_claim_tile (by growing squares once
     * every block is known to have a slot, below) */
    ctx->order = ES_TILES_DIAG_FIRST;
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
    cfg.kw_case = class_kw(p0->n_case);
    cfg.kw_ctrl = class_kw(p0->n_ctrl);
    cfg.mem_limit = opt->gpu_mem;
    cfg.kernel = opt->gpu_kernel;
    /* K2: the device's ln n! table, the statistics' own values (es_gpu_open copies it) */
    double *lnf = NULL;
    if (cfg.stat == ES_STAT_K2) {
        cfg.n_lnfact = ES_GPU_LNFACT_N(cfg.kw_case, cfg.kw_ctrl);
        if (!(lnf = lnfact_table(cfg.n_lnfact))) return ES_ERR_NOMEM;
        cfg.lnfact = lnf;
    }
    /* mi, ig: the host's n ln n table, with which the device scores the
     * candidates exactly as the host does (gpu/pair/exact.cuh) */
    cfg.nlogn = es_nlogn_table();
    cfg.n_nlogn = ES_NLOGN_TAB;

    gpu_dev_t *dv = calloc((size_t)n_dev, sizeof *dv);
    if (!dv) {
        free(lnf);
        return ES_ERR_NOMEM;
    }
    /* the CPU threads score candidates: split among the devices */
    int helpers = ctx->n_threads / n_dev, pinned = 0, ret = ES_OK, stream = 0;
    double t_open = es_time_now(), t_close = 0.0;
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
            for (int j = 0; j < n_dev; j++) {
                if (dv[j].err) ret = dv[j].err;
                else if ((uint32_t)es_gpu_cache_slots(dv[j].g) < ctx->n_blocks) stream = 1;
            }
            if (!ret && stream) {
                double t_pin = es_time_now();
                ret = pin_blocks(ctx);
                pinned = 1; /* (after an error, unregistering what was not pinned is harmless) */
                es_info("blocks are streamed: pinned the packed blocks in %.3f s", es_time_now() - t_pin);
            }
            /* every block has a slot on every device: the tiles by growing
             * squares, so that the uploads run beside the tiles of the blocks
             * already there; streamed blocks keep the diagonal tiles first and
             * rows, whose partner blocks the cache measured for (both upload
             * about n^2 / 2 blocks; the rows alternate their direction).
             * EPISTREAM_GPU_ORDER=diag: the diagonal tiles first and rows,
             * for comparisons.  (No tile is claimed before this point.) */
            const char *ov = getenv("EPISTREAM_GPU_ORDER");
            if (!stream && !(ov && strcmp(ov, "diag") == 0)) ctx->order = ES_TILES_SQUARES;
        }
#pragma omp single
        es_info("GPU scan: %d device(s) %s in %.3f s", n_dev,
                d->fold ? "opened (their helpers are made beside the first tiles)" : "and their helpers opened",
                es_time_now() - t_open);
        if (!ret) {
            /* every block fits: a thread of its own uploads them ahead */
            d->ctx = ctx;
            atomic_init(&d->pre_stop, 0);
            /* (EPISTREAM_GPU_PRELOAD=0: the device thread uploads them, for comparisons) */
            const char *pv = getenv("EPISTREAM_GPU_PRELOAD");
            d->pre_on = !stream && !(pv && !strcmp(pv, "0")) && pthread_create(&d->pre, NULL, preload_main, d) == 0;
            d->err = dev_loop(ctx, d);
            if (d->pre_on) {
                atomic_store(&d->pre_stop, 1);
                pthread_join(d->pre, NULL);
                es_info("GPU %d: the preloading thread uploaded the blocks in %.3f s", d->dev, d->t_pre);
                if (!d->err && d->pre_err) d->err = d->pre_err;
            }
            if (d->err) es_ctx_fail(ctx, d->err);
        }
    }
    t_close = es_time_now();
    {
        const char *desc[64] = {NULL};
        for (int k = 0; k < n_dev; k++) desc[k] = dv[k].desc;
        device_info_set(ctx->scan, n_dev, desc);
    }
    for (int k = 0; k < n_dev; k++)
        if (!ret && dv[k].err) ret = dv[k].err;
    /* (unpinning a block that was not pinned, after an error, is harmless) */
    int later = closing_start(dv, n_dev, !ret, pinned ? ctx->blocks : NULL, ctx->n_blocks);
    es_info("GPU scan: the device(s) %s in %.3f s", later ? "left to close beside the caller" : "closed",
            es_time_now() - t_close);
    free(lnf);
    return ret;
}

/* ---- the 3-way scan -------------------------------------------------------------
 * Each device thread takes tiles from the triple queue (es_ctx3_next_tile),
 * keeps ES_GPU3_FLIGHTS of them on its device, and scores each finished
 * tile's candidates (exact tables, gpu/triple/engine.cu) with the CPU's
 * es_worker3_offer_screened(); es_worker3_count_tile() counts the triples
 * that never came back.  The slots and the seeded tiles' axis orders are the
 * CPU backend's (cpu.c), so the merges see the same per-variant records. */

/* Blocks of 256 variants (16.7 million triples a tile, a few milliseconds
 * of device time; fewer for small scans so that every device gets tiles);
 * seeded tiles of up to 512 seeds against 2,048 third variants. */
static void gpu_shape3(const es_scan3_ctx_t *ctx, uint32_t *block, uint32_t *seed_chunk)
{
    if (ctx->seeds) {
        *block = 2048;
        *seed_chunk = ctx->n_seeds < 512 ? (ctx->n_seeds ? ctx->n_seeds : 1) : 512;
        return;
    }
    int n_dev = es_backend_gpu_count();
    uint64_t b = 256;
    while (b > 64 && (uint64_t)ctx->m < b * 2 * (uint64_t)(n_dev > 0 ? n_dev : 1)) b /= 2;
    *block = (uint32_t)b;
}

typedef struct {
    int dev, err;
    es_gpu3_t *g;
    es_worker3_t w;
    uint32_t *var;        /* slot variables */
    uint32_t *sidx;       /* a seeded tile's variants, 2 a seed */
    const uint64_t **spl; /* ... their planes */
    const uint32_t **sgc; /* ... their genotype counts */
    uint32_t ring[ES_GPU3_FLIGHTS][3]; /* the tiles in flight, oldest at ring_head */
    int ring_head, ring_n;
    char desc[320];
} gpu3_dev_t;


/* The k-th best the worker knows (its heap, or the scan list's floor) as a score key (0: none). */
static uint32_t host_tau3(const es_scan3_ctx_t *ctx, const es_worker3_t *w)
{
    double s;
    if (!es_topk3_kth(&w->top, &s)) return 0;
    return score_key(ctx->higher_is_better ? s : -s);
}

static void block_desc3(const es_scan3_ctx_t *ctx, uint32_t b, es_gpu_block_t *out)
{
    const es_planes_t *pl = &ctx->blocks[b];
    out->index = b;
    out->first = pl->first;
    out->count = pl->count;
    out->planes = pl->planes;
    out->gcount = (const uint32_t *)pl->gcount;
}

/* Slots of exhaustive tile (bi, bj, bk) as cpu3_tile sets them. */
static void begin_tile3(const es_scan3_ctx_t *ctx, gpu3_dev_t *d, uint32_t bi, uint32_t bj, uint32_t bk)
{
    const es_planes_t *pa = &ctx->blocks[bi], *pb = &ctx->blocks[bj], *pc = &ctx->blocks[bk];
    uint32_t B = ctx->block, base_b = bj == bi ? 0 : B, base_c = bk == bj ? base_b : 2 * B, n = pa->count;
    for (uint32_t v = 0; v < B; v++) d->var[v] = pa->first + (v < pa->count ? v : 0);
    if (base_b) {
        for (uint32_t v = 0; v < B; v++) d->var[B + v] = pb->first + (v < pb->count ? v : 0);
        n = B + pb->count;
    }
    if (base_c > base_b) {
        for (uint32_t v = 0; v < pc->count; v++) d->var[2 * B + v] = pc->first + v;
        n = 2 * B + pc->count;
    }
    es_worker3_begin(ctx, &d->w, bi, bj, bk, d->var, n);
}

static int score_tile3(es_scan3_ctx_t *ctx, gpu3_dev_t *d, const es_gpu_cand3_t *c, size_t n, const uint32_t *tag)
{
    uint32_t bi = tag[0], bj = tag[1], bk = tag[2], B = ctx->block;
    const es_planes_t *pa = &ctx->blocks[bi], *pb = &ctx->blocks[bj], *pc = &ctx->blocks[bk];
    uint32_t base_b = bj == bi ? 0 : B, base_c = bk == bj ? base_b : 2 * B;
    begin_tile3(ctx, d, bi, bj, bk);
    for (size_t q = 0; q < n; q++)
        es_worker3_offer_screened(ctx, &d->w, c[q].i, c[q].j, c[q].k, c[q].i - pa->first,
                                  base_b + c[q].j - pb->first, base_c + c[q].k - pc->first,
                                  (const es_table3_t *)c[q].n);
    es_worker3_count_tile(ctx, &d->w, bi, bj, bk);
    return es_ctx3_tile_done(ctx, &d->w);
}

static int in_sorted(const uint32_t *a, size_t n, uint32_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && a[lo] == v;
}

/* The seed of chunk [p0, p1) that is the pair (i, j) (seeds are sorted). */
static uint32_t seed_of(const es_scan3_ctx_t *ctx, uint32_t p0, uint32_t p1, uint32_t i, uint32_t j)
{
    while (p1 - p0 > 1) {
        uint32_t mid = p0 + (p1 - p0) / 2, a = ctx->seeds[2 * mid], b = ctx->seeds[2 * mid + 1];
        if (a < i || (a == i && b <= j)) p0 = mid;
        else p1 = mid;
    }
    return p0;
}

static int score_seed_tile3(es_scan3_ctx_t *ctx, gpu3_dev_t *d, const es_gpu_cand3_t *c, size_t n, uint32_t chunk,
                            uint32_t bk)
{
    const es_planes_t *pc = &ctx->blocks[bk];
    uint32_t B = ctx->block, p0 = chunk * ctx->seed_chunk;
    uint32_t p1 = p0 + ctx->seed_chunk < ctx->n_seeds ? p0 + ctx->seed_chunk : ctx->n_seeds;
    for (uint32_t v = 0; v < B; v++) d->var[v] = pc->first + (v < pc->count ? v : 0);
    for (uint32_t p = p0; p < p1; p++) {
        d->var[B + 2 * (p - p0)] = ctx->seeds[2 * p];
        d->var[B + 2 * (p - p0) + 1] = ctx->seeds[2 * p + 1];
    }
    es_worker3_begin(ctx, &d->w, chunk, bk, 0, d->var, B + 2 * (p1 - p0));
    for (size_t q = 0; q < n; q++) {
        uint32_t i = c[q].i, j = c[q].j, k = c[q].k, p = seed_of(ctx, p0, p1, i, j), sk = k - pc->first;
        uint32_t si = B + 2 * (p - p0), sj = si + 1;
        /* a triple an earlier seed holds is scored there */
        if (in_sorted(ctx->excl + ctx->excl_off[p], ctx->excl_off[p + 1] - ctx->excl_off[p], k)) continue;
        es_table3_t t;
        if (k > j) {
            es_worker3_offer_screened(ctx, &d->w, i, j, k, si, sj, sk, (const es_table3_t *)c[q].n);
        } else if (k < i) {
            const int rank[3] = {1, 2, 0};
            es_table3_permute((const es_table3_t *)c[q].n, rank, &t);
            es_worker3_offer_screened(ctx, &d->w, k, i, j, sk, si, sj, &t);
        } else {
            const int rank[3] = {0, 2, 1};
            es_table3_permute((const es_table3_t *)c[q].n, rank, &t);
            es_worker3_offer_screened(ctx, &d->w, i, k, j, si, sk, sj, &t);
        }
    }
    es_worker3_count_seed_tile(ctx, &d->w, chunk, bk);
    return es_ctx3_tile_done(ctx, &d->w);
}

static int submit_seeds3(es_scan3_ctx_t *ctx, gpu3_dev_t *d, uint32_t chunk, uint32_t bk)
{
    uint32_t B = ctx->block, p0 = chunk * ctx->seed_chunk;
    uint32_t p1 = p0 + ctx->seed_chunk < ctx->n_seeds ? p0 + ctx->seed_chunk : ctx->n_seeds;
    for (uint32_t p = p0; p < p1; p++)
        for (int e = 0; e < 2; e++) {
            uint32_t v = ctx->seeds[2 * p + e], r = 2 * (p - p0) + (uint32_t)e;
            const es_planes_t *pl = &ctx->blocks[v / B];
            d->sidx[r] = v;
            d->spl[r] = es_plane(pl, v % B, 0);
            d->sgc[r] = pl->gcount[v % B][0];
        }
    es_gpu_block_t c;
    block_desc3(ctx, bk, &c);
    return es_gpu3_submit_seeds(d->g, p1 - p0, d->sidx, d->spl, d->sgc, &c, host_tau3(ctx, &d->w));
}

static int dev3_loop(es_scan3_ctx_t *ctx, gpu3_dev_t *d)
{
    int ret = ES_OK, claiming = 1;
    uint64_t cands = 0, tiles = 0;
    double t_wait = 0.0, t_score = 0.0;
    const char *tr = getenv("EPISTREAM_GPU_TRACE");
    const int trace = tr && *tr && strcmp(tr, "0") != 0;
    for (;;) {
        uint32_t a, b, c;
        if (claiming && es_gpu3_in_flight(d->g) < ES_GPU3_FLIGHTS) {
            if (es_ctx3_next_tile(ctx, &a, &b, &c) == 0) {
                if (ctx->seeds) {
                    ret = submit_seeds3(ctx, d, a, b);
                } else {
                    es_gpu_block_t x, y, z;
                    block_desc3(ctx, a, &x);
                    block_desc3(ctx, b, &y);
                    block_desc3(ctx, c, &z);
                    ret = es_gpu3_submit(d->g, &x, &y, &z, host_tau3(ctx, &d->w));
                }
                if (ret) break;
                uint32_t *r = d->ring[(d->ring_head + d->ring_n++) % ES_GPU3_FLIGHTS];
                r[0] = a, r[1] = b, r[2] = c;
                continue;
            }
            claiming = 0;
        }
        if (!es_gpu3_in_flight(d->g)) break;
        const es_gpu_cand3_t *cand;
        size_t n;
        uint32_t tag[3];
        double t0 = es_time_now(), k0 = es_gpu3_kernel_seconds(d->g);
        ret = es_gpu3_collect(d->g, &cand, &n, tag);
        if (ret) break;
        double t1 = es_time_now();
        const uint32_t *r = d->ring[d->ring_head];
        d->ring_head = (d->ring_head + 1) % ES_GPU3_FLIGHTS;
        d->ring_n--;
        if (ctx->seeds) ret = score_seed_tile3(ctx, d, cand, n, r[0], r[1]);
        else ret = score_tile3(ctx, d, cand, n, r);
        double t2 = es_time_now();
        cands += n;
        tiles++;
        t_wait += t1 - t0;
        t_score += t2 - t1;
        if (trace)
            fprintf(stderr, "[gpu-trace] dev %d tile %u,%u,%u: device %.3f ms, %zu candidates, waited %.3f ms, "
                    "scored in %.3f ms\n", d->dev, tag[0], tag[1], tag[2], (es_gpu3_kernel_seconds(d->g) - k0) * 1e3,
                    n, (t1 - t0) * 1e3, (t2 - t1) * 1e3);
        if (ret) break;
    }
    es_info("GPU %d: %llu tiles, %.3f s on the device; %llu candidate triples scored exactly on the host; "
            "%.3f s waiting for the device, %.3f s scoring", d->dev, (unsigned long long)tiles,
            es_gpu3_kernel_seconds(d->g), (unsigned long long)cands, t_wait, t_score);
    return ret;
}

static int dev3_open(es_scan3_ctx_t *ctx, gpu3_dev_t *d, const es_gpu3_config_t *cfg)
{
    int ret = es_worker3_init(&d->w, ctx);
    if (ret) return ret;
    size_t ns = ctx->seeds ? ctx->block + 2 * (size_t)ctx->seed_chunk : 3 * (size_t)ctx->block;
    size_t nsd = 2 * (size_t)(ctx->seeds ? ctx->seed_chunk : 1);
    d->var = malloc(ns * sizeof *d->var);
    d->sidx = malloc(nsd * sizeof *d->sidx);
    d->spl = malloc(nsd * sizeof *d->spl);
    d->sgc = malloc(nsd * sizeof *d->sgc);
    if (!d->var || !d->sidx || !d->spl || !d->sgc) return ES_ERR_NOMEM;
    prepared(d->dev);
    double t_open = es_time_now();
    ret = es_gpu3_open(d->dev, cfg, ctx->n_blocks, &d->g);
    if (ret) return ret;
    t_open = es_time_now() - t_open;
    char name[200];
    if (es_gpu_device_describe(d->dev, name, sizeof name)) snprintf(name, sizeof name, "device %d", d->dev);
    snprintf(d->desc, sizeof d->desc, "%d %s (3-way %s kernel, %d block slots)", d->dev, name,
             es_gpu3_kernel_name(d->g), es_gpu3_cache_slots(d->g));
    es_info("GPU %s, opened in %.3f s", d->desc, t_open);
    return ES_OK;
}

static void dev3_close(gpu3_dev_t *d)
{
    es_gpu3_close(d->g);
    d->g = NULL;
    es_worker3_free(&d->w);
    free(d->var);
    free(d->sidx);
    free(d->spl);
    free(d->sgc);
}

static int gpu_run3(es_scan3_ctx_t *ctx)
{
    const es_opt_t *opt = &ctx->scan->opt;
    int devs[64], n_dev = pick_devices(opt, devs);
    if (!n_dev) {
        es_error("no GPU to scan on");
        return ES_ERR_UNSUPPORTED;
    }
    if (!ctx->n_blocks) return ES_OK;
    const es_planes_t *p0 = &ctx->blocks[0];
    es_gpu3_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.stat = ctx->stat;
    cfg.top_k = opt->top_k;
    cfg.n_variants = ctx->m;
    cfg.block = ctx->block;
    cfg.max_seeds = ctx->seeds ? ctx->seed_chunk : 0;
    cfg.n_planes = p0->n_planes;
    cfg.words = p0->words;
    cfg.off_ctrl = p0->w_case;
    cfg.n_case = p0->n_case;
    cfg.n_ctrl = p0->n_ctrl;
    cfg.mem_limit = opt->gpu_mem;
    cfg.kernel = opt->gpu_kernel;
    /* per df, the smallest G that may be significant at that df or a larger
     * one (IG's test df is known only on the host), rounded down */
    double crit = INFINITY;
    for (int df = 26; df >= 0; df--) {
        if (ctx->do_sig && df >= 1 && ctx->sig_crit[df] < crit) crit = ctx->sig_crit[df];
        float f = (float)crit;
        if ((double)f > crit) f = nextafterf(f, -INFINITY);
        cfg.sig_crit[df] = f;
    }
    double *lnf = NULL;
    if (cfg.stat == ES_STAT_K2) {
        cfg.n_lnfact = p0->n_case + p0->n_ctrl + 2;
        if (!(lnf = lnfact_table(cfg.n_lnfact))) return ES_ERR_NOMEM;
        cfg.lnfact = lnf;
    }
    gpu3_dev_t *dv = calloc((size_t)n_dev, sizeof *dv);
    if (!dv) {
        free(lnf);
        return ES_ERR_NOMEM;
    }
    int ret = ES_OK, pinned = 0;
#pragma omp parallel num_threads(n_dev)
    {
        int k = 0;
#ifdef _OPENMP
        k = omp_get_thread_num();
#endif
        gpu3_dev_t *d = &dv[k];
        d->dev = devs[k];
        d->err = dev3_open(ctx, d, &cfg);
#pragma omp barrier
#pragma omp single
        {
            /* blocks that do not all fit are streamed: pinned, so that their
             * copies are asynchronous (as gpu_run does for pairs) */
            int stream = 0;
            for (int j = 0; j < n_dev; j++) {
                if (dv[j].err) ret = dv[j].err;
                else if ((uint32_t)es_gpu3_cache_slots(dv[j].g) < ctx->n_blocks) stream = 1;
            }
            if (!ret && stream) {
                pin_planes(ctx->blocks, ctx->n_blocks, 1);
                pinned = 1;
            }
        }
        if (!ret) {
            d->err = dev3_loop(ctx, d);
            if (d->err) es_ctx3_fail(ctx, d->err);
        }
    }
    if (pinned) pin_planes(ctx->blocks, ctx->n_blocks, 0);
    {
        const char *desc[64] = {NULL};
        for (int k = 0; k < n_dev; k++) desc[k] = dv[k].desc;
        device_info_set(ctx->scan, n_dev, desc);
    }
    for (int k = 0; k < n_dev; k++) {
        if (!ret && dv[k].err) ret = dv[k].err;
        dev3_close(&dv[k]);
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
    .settle = gpu_settle,
    .warm = gpu_warm,
    .warm_join = gpu_warm_join,
    .finish = closing_wait,
    .run = gpu_run,
    .auto_block = gpu_auto_block,
    .pack_overlap = 1,
    .run3 = gpu_run3,
    .shape3 = gpu_shape3,
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
