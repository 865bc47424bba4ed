/* scan.c -- the scan driver: checks the options, picks the backend, packs the
 * dataset into blocks (in memory or in a file under --tmp-dir), sets up the
 * tile queue (src/tile) and lets the backend consume it, then sorts the top-k.
 * Its output is deterministic because the tile layer's merges are. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "dist.h"
#include "scan.h"

/* ---- the public scan object ------------------------------------------------ */

int es_scan_create(es_scan_t **out, es_dataset_t *ds, const es_opt_t *opt)
{
    int ret = es_opt_check(opt);
    es_scan_t *s = NULL;
    *out = NULL;
    if (ret) return ret;
    uint32_t min_m = opt->order == 3 ? 3 : 2;
    if (es_dataset_n_variants(ds) < min_m) {
        es_error("%s: %u variant(s); a %s scan needs at least %u", ds->plink->bim_path,
                 es_dataset_n_variants(ds), opt->order == 3 ? "triple" : "pair", min_m);
        return ES_ERR_DATA;
    }
    /* a dataset opened with require_pheno = 0 may have no case or no
     * control: the pair tables would be empty of one class (or of both, and
     * the block size a division by zero) */
    if (es_stat_is_qt(opt->stat) != ds->qt) {
        if (ds->qt)
            es_error("%s: the phenotype is quantitative; --stat %s tests a case/control one (use --stat "
                     "linear or linear4)", ds->plink->fam_path, es_stat_name(opt->stat));
        else
            es_error("--stat %s tests a quantitative trait, and the phenotype is case/control (%u cases, "
                     "%u controls); give a quantitative phenotype (--pheno, or --qt to read 1/2 as numbers)",
                     es_stat_name(opt->stat), ds->n_case, ds->n_ctrl);
        return ES_ERR_ARG;
    }
    if (ds->qt && opt->order == 3) {
        es_error("--order 3 has no quantitative-trait test yet (linear and linear4 are tests of pairs)");
        return ES_ERR_UNSUPPORTED;
    }
    /* the GPU's quantitative-trait kernel: --stat linear where no call is
     * missing (it takes every sum but one from per-variant totals) */
    int qt_gpu = ds->qt && opt->stat == ES_STAT_LINEAR && opt->order == 2 && opt->device != ES_DEVICE_CPU &&
                 !es_dataset_any_missing(ds);
    int cpu_only = (ds->qt && !qt_gpu) || opt->stat == ES_STAT_LOGISTIC;
    if (cpu_only && opt->device == ES_DEVICE_GPU) {
        if (ds->qt && opt->stat == ES_STAT_LINEAR) {
            es_warn("--device gpu: %s has missing calls, and the GPU's quantitative-trait kernel needs every "
                    "call present; the scan runs on the CPU (the same results)", ds->plink->bed_path);
        } else {
            es_error("--device gpu: --stat %s runs on the CPU only so far; use --device cpu or auto",
                     es_stat_name(opt->stat));
            return ES_ERR_UNSUPPORTED;
        }
    }
    if (opt->stat == ES_STAT_LOGISTIC && opt->order == 3) {
        es_error("--stat logistic is a test of pairs; with --order 3 use chi2, mi, ig or k2");
        return ES_ERR_ARG;
    }
    if (!ds->qt && (ds->n_case == 0 || ds->n_ctrl == 0)) {
        es_error("%s: %u cases and %u controls among the samples in the analysis; a "
                 "case/control scan needs both", ds->plink->fam_path, ds->n_case, ds->n_ctrl);
        return ES_ERR_DATA;
    }
    s = calloc(1, sizeof *s);
    if (!s) return ES_ERR_NOMEM;
    s->ds = ds;
    s->opt = *opt;
    /* --device auto: the device that is faster for this scan (the backends'
     * cost estimates; opening a GPU alone costs about 0.2 s) */
    uint64_t m = es_dataset_n_variants(ds);
    es_work_t work = {.op = opt->order == 3 ? ES_OP_TRIPLE_SCAN : ES_OP_PAIR_SCAN,
                      .n_samples = (uint64_t)ds->n_case + ds->n_ctrl,
                      .pairs = opt->order == 3 ? m * (m - 1) / 2 * (m - 2) / 3 : m * (m - 1) / 2,
                      .threads = opt->threads,
                      .qt = ds->qt};
    if (cpu_only) {
        es_opt_t cpu = *opt;
        cpu.device = ES_DEVICE_CPU;
        if (opt->device == ES_DEVICE_AUTO)
            es_info("--device auto: --stat %s%s runs on the CPU", es_stat_name(opt->stat),
                    ds->qt && opt->stat == ES_STAT_LINEAR ? " with missing calls" : "");
        s->backend = es_backend_select_work(&cpu, &work, &ret);
    } else {
        s->backend = es_backend_select_work(opt, &work, &ret);
    }
    if (!s->backend) goto out;
    if (opt->order == 3) {
        if (!s->backend->run3) {
            es_error("--device %s: the 3-way scan has no kernels for this device yet; use --device cpu",
                     s->backend->name);
            ret = ES_ERR_UNSUPPORTED;
            goto out;
        }
        ret = es_topk3_init(&s->top3, opt->top_k, es_stat_higher_is_better(opt->stat));
        if (ret) goto out;
        s->summary3 = calloc(m, sizeof *s->summary3);
        if (!s->summary3) ret = ES_ERR_NOMEM;
        goto out;
    }
    ret = es_topk_init(&s->top, opt->top_k, es_stat_higher_is_better(opt->stat));
    if (ret) goto out;
    s->summary = malloc((size_t)es_dataset_n_variants(ds) * sizeof *s->summary);
    if (!s->summary) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    es_summary_reset(s->summary, es_dataset_n_variants(ds));
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

void es_scan_set_sig3_callback(es_scan_t *scan, es_sig3_cb cb, void *userdata)
{
    scan->sig3_cb = cb;
    scan->sig3_ud = userdata;
}

void es_scan_set_progress_callback(es_scan_t *scan, es_progress_cb cb, void *userdata)
{
    scan->prog_cb = cb;
    scan->prog_ud = userdata;
}

static size_t bytes_per_variant(const es_dataset_t *ds, uint32_t n_planes)
{
    return (size_t)n_planes * (es_class_words(ds, ds->n_case) + es_class_words(ds, ds->n_ctrl)) * 8;
}

/* Tile side: two blocks' planes should sit in a core's L2 (about 1 MiB), and
 * a small scan still needs enough tiles that every thread stays busy to the
 * end (the queue is self-scheduling, so 16 tiles a thread leave at most a
 * sixteenth of the work for the last tile): nb blocks give nb (nb + 1) / 2
 * tiles, so nb >= sqrt(32 T).  Blocks stay >= 64 variants, where a tile's
 * set-up is still small against its pairs. */
static uint32_t auto_block(const es_dataset_t *ds, uint32_t n_planes, uint32_t m, int threads)
{
    size_t b = (size_t)(512 * 1024) / bytes_per_variant(ds, n_planes);
    if (b > 1024) b = 1024;
    uint32_t nb = 1;
    while ((uint64_t)nb * nb < 32ull * (uint64_t)(threads > 0 ? threads : 1)) nb++;
    size_t fine = ((size_t)m + nb - 1) / nb;
    if (fine < b) b = fine < 64 ? 64 : fine;
    if (b < 16) b = 16;
    return (uint32_t)((b + 15) / 16 * 16);
}

/* Where the packed planes go: memory, or -- when they exceed --host-mem
 * (default half the physical memory) -- an unlinked temporary file mapped
 * MAP_SHARED, so that the kernel writes them back and drops them as memory
 * runs short, and the scan's own memory stays bounded by the .bed mapping,
 * the planes file's page cache and small per-block counts.  Nothing is left
 * on disk: the file has no name from the moment it is created.  @return the
 * open file (-1: memory) or -2 after an error. */
static int planes_file(const es_opt_t *opt, size_t total)
{
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
    /* reserve the blocks now: a sparse file that the disk cannot hold kills
     * the scan with SIGBUS at the first page written that does not fit */
    int err = posix_fallocate(fd, 0, (off_t)total);
    if (err) {
        char a[32];
        if (err == ENOSPC)
            es_error("no space left on %s for %s bytes (the packed genotypes, which exceed "
                     "--host-mem); free space there, or choose another --tmp-dir", dir,
                     es_fmt_count(total, a));
        else
            es_error("%s: cannot reserve %s bytes for the temporary planes file (%s)", dir,
                     es_fmt_count(total, a), strerror(err));
        close(fd);
        free(path);
        return -2;
    }
    es_info("packed planes (%.2f GiB) exceed the host memory limit (%.2f GiB): kept in an unlinked "
            "temporary file in %s", total / 1073741824.0, limit / 1073741824.0, dir);
    free(path);
    return fd;
}

/* The blocks' memory (in memory or in the planes file), nothing packed yet. */
static int alloc_blocks(const es_dataset_t *ds, const es_opt_t *opt, uint32_t m, uint32_t block,
                        uint32_t n_blocks, uint32_t n_planes, es_planes_t **out)
{
    int ret = ES_OK;
    es_planes_t *blocks = *out = calloc(n_blocks, sizeof *blocks);
    if (!blocks) return ES_ERR_NOMEM;
    /* block b's planes at a page-aligned offset of the file */
    size_t page = (size_t)sysconf(_SC_PAGESIZE), total = 0;
    for (uint32_t b = 0; b < n_blocks; b++) {
        uint32_t first = b * block;
        uint32_t cnt = first + block <= m ? block : m - first;
        total += (es_planes_bytes(ds, cnt, n_planes) + page - 1) / page * page;
    }
    int fd = planes_file(opt, total);
    if (fd == -2) return ES_ERR_IO;
    size_t off = 0;
    for (uint32_t b = 0; b < n_blocks && !ret; b++) {
        uint32_t first = b * block;
        uint32_t cnt = first + block <= m ? block : m - first;
        if (fd >= 0) {
            ret = es_planes_alloc_mapped(&blocks[b], ds, cnt, n_planes, fd, off);
            off += (es_planes_bytes(ds, cnt, n_planes) + page - 1) / page * page;
        } else {
            ret = es_planes_alloc(&blocks[b], ds, cnt, n_planes);
        }
    }
    if (fd >= 0) close(fd); /* the mappings keep the file */
    return ret;
}

int es_scan_pack_blocks(const es_dataset_t *ds, const es_opt_t *opt, uint32_t m, uint32_t block,
                        uint32_t n_blocks, uint32_t n_planes, int threads, es_planes_t **out)
{
    int ret = alloc_blocks(ds, opt, m, block, n_blocks, n_planes, out);
    if (ret) return ret;
    es_planes_t *blocks = *out;
    int err = ES_OK;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (uint32_t b = 0; b < n_blocks; b++) {
        uint32_t first = b * block;
        uint32_t cnt = blocks[b].count;
        int r = es_pack(ds, first, cnt, &blocks[b]);
        if (r) {
#pragma omp critical(es_pack_err)
            if (!err) err = r;
        }
    }
    return err;
}

/* ---- packing beside the backend ----------------------------------------------
 * A backend with pack_overlap (the GPU's) starts on the first blocks while
 * the others are packed: a thread of its own packs them in order (an OpenMP
 * team, blocks handed out one at a time from the first), and the backend
 * waits for each block before it reads it (ctx->wait_block).  The device
 * takes its tiles block by block (tile.c's tile_at), so it starts after one
 * block instead of all of them (issue 24). */
typedef struct {
    const es_dataset_t *ds;
    es_planes_t *blocks;
    uint32_t n_blocks, block;
    int threads, err, started;
    int cancel;          /* the scan failed: the blocks left are not packed (under mu) */
    unsigned char *done; /* per block: packed (or failed, or skipped after cancel: err) */
    double seconds;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} pack_job_t;

static void *pack_main(void *arg)
{
    pack_job_t *j = arg;
    double t0 = es_time_now();
#pragma omp parallel for schedule(dynamic, 1) num_threads(j->threads)
    for (uint32_t b = 0; b < j->n_blocks; b++) {
        pthread_mutex_lock(&j->mu);
        int skip = j->cancel;
        pthread_mutex_unlock(&j->mu);
        /* (a skipped block's error never reaches the caller: the scan has
         * failed already, and pack_wait is not called after pack_cancel) */
        int r = skip ? ES_ERR_DATA : es_pack(j->ds, b * j->block, j->blocks[b].count, &j->blocks[b]);
        pthread_mutex_lock(&j->mu);
        if (r && !j->err) j->err = r;
        j->done[b] = 1;
        pthread_cond_broadcast(&j->cv);
        pthread_mutex_unlock(&j->mu);
    }
    j->seconds = es_time_now() - t0;
    return NULL;
}

/* ctx->wait_block: block b is packed.  @return ES_OK or the packing's error. */
static int pack_wait(es_scan_ctx_t *ctx, uint32_t b)
{
    pack_job_t *j = ctx->wait_ud;
    pthread_mutex_lock(&j->mu);
    while (!j->done[b]) pthread_cond_wait(&j->cv, &j->mu);
    int r = j->err;
    pthread_mutex_unlock(&j->mu);
    return r;
}

/* Start packing ctx's (allocated) blocks beside the run.  @return ES_OK,
 * ES_ERR_NOMEM; without a thread the blocks are packed here. */
static int pack_start(pack_job_t *j, es_scan_ctx_t *ctx, int threads)
{
    memset(j, 0, sizeof *j);
    j->ds = ctx->ds;
    j->blocks = ctx->blocks;
    j->n_blocks = ctx->n_blocks;
    j->block = ctx->block;
    j->threads = threads;
    if (!(j->done = calloc(ctx->n_blocks ? ctx->n_blocks : 1, 1))) return ES_ERR_NOMEM;
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    ctx->wait_block = pack_wait;
    ctx->wait_ud = j;
    if (pthread_create(&j->th, NULL, pack_main, j) == 0) j->started = 1;
    else pack_main(j);
    return ES_OK;
}

/* The scan failed: the packing thread packs no further block, so that the
 * error is reported without waiting for the whole data (e.g. a planes file
 * of many gigabytes). */
static void pack_cancel(pack_job_t *j)
{
    if (!j->done) return;
    pthread_mutex_lock(&j->mu);
    j->cancel = 1;
    pthread_mutex_unlock(&j->mu);
}

/* Wait for the packing (if it started) and release its state.  @return
 * the packing's error. */
static int pack_join(pack_job_t *j, es_scan_ctx_t *ctx)
{
    if (!j->done) return ES_OK;
    if (j->started) pthread_join(j->th, NULL);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    free(j->done);
    j->done = NULL;
    ctx->wait_block = NULL;
    ctx->wait_ud = NULL;
    return j->err;
}

/* Pack beside the backend: it can, the data are a case/control trait (a
 * quantitative one's backend reads every block up front), and the run is
 * one plain process (src/dist fingerprints the packed blocks before a
 * checkpointed, merged or MPI run: es_dist_start2's own test);
 * EPISTREAM_PACK_OVERLAP=0 packs first (same-run comparisons). */
static int pack_overlaps(const es_scan_t *s)
{
    const es_opt_t *o = &s->opt;
    const char *v = getenv("EPISTREAM_PACK_OVERLAP");
    return s->backend->pack_overlap && !s->ds->qt && !o->checkpoint && !o->merge &&
           (o->local || es_dist_mpi_size() <= 1) && !(v && !strcmp(v, "0"));
}

/* Smallest G whose p-value can be <= thr, with a margin so that rounding in the
 * p-value never makes a pair below it significant; above it the p-value itself
 * decides.  G is chi-square distributed with df degrees of freedom. */
double es_scan_g_critical(double thr, int df)
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
        ctx->sig_crit[df] = ctx->do_sig ? es_scan_g_critical(ctx->p_threshold, df) : INFINITY;
        /* the prune limit is in statistic units: only boost prunes, and its G is its STAT */
        if (ctx->sig_crit[df] < ctx->sig_min) ctx->sig_min = ctx->sig_crit[df];
    }
}

/* A variant with no called genotype among the samples in the analysis has
 * only empty pair tables: every partner ties on the empty table's statistic,
 * and none is its best (the summary says NA, on every device). */
static void clear_uncalled_best(es_scan_ctx_t *ctx)
{
    for (uint32_t b = 0; b < ctx->n_blocks; b++) {
        const es_planes_t *pl = &ctx->blocks[b];
        for (uint32_t v = 0; v < pl->count; v++) {
            uint64_t called = 0;
            for (int y = 0; y < 2; y++)
                for (int g = 0; g < 3; g++) called += pl->gcount[v][y][g];
            if (called) continue;
            es_summary_t *sv = &ctx->summary[pl->first + v];
            sv->best_partner = UINT32_MAX;
            sv->best_stat = NAN;
            sv->best_p = NAN;
        }
    }
}

/* The significant pairs of a row panel of tiles wait in memory until the
 * panel is complete (they are written in (i, j) order): about block * m *
 * p_threshold pairs under the null.  When the threshold lets many through
 * (every pair, for PLINK's --epi1 1), narrower panels keep that below about
 * 16 MiB; on the CPU a narrower tile costs little next to the pairs'
 * p-values, and the output does not depend on it.  (A device backend picks
 * its own blocks.) */
static uint32_t sig_block_cap(const es_scan_ctx_t *ctx, uint32_t block)
{
    if (!ctx->do_sig || ctx->p_threshold <= 0) return block;
    double per_variant = (double)ctx->m * (ctx->p_threshold < 1 ? ctx->p_threshold : 1.0) *
                         2.0 * (double)sizeof(es_pair_t); /* x2: the buffer doubles */
    double cap = (double)(16u << 20) / per_variant;
    if (cap >= block) return block;
    uint32_t b = cap < 16 ? 16 : (uint32_t)cap / 16 * 16;
    return b < block ? b : block;
}

void es_scan_blocks_free(es_planes_t *blocks, uint32_t n_blocks)
{
    if (blocks)
        for (uint32_t b = 0; b < n_blocks; b++) es_planes_free(&blocks[b]);
    free(blocks);
}

typedef struct {
    es_planes_t *blocks;
    uint32_t n_blocks;
    void (*finish)(void); /* the backend's, or NULL */
} unpack_job_t;

static void *unpack_main(void *arg)
{
    unpack_job_t *j = arg;
    if (j->finish) j->finish();
    es_scan_blocks_free(j->blocks, j->n_blocks);
    free(j);
    return NULL;
}

/* Wait for the previous run's blocks to be freed. */
static void unpack_join(es_scan_t *s)
{
    if (!s->unpack_on) return;
    pthread_join(s->unpack, NULL);
    s->unpack_on = 0;
}

/* Free the packed blocks: a gigabyte takes the kernel about 0.06 s to give
 * back, so after a successful run (ok) a thread of its own does it while the
 * caller writes the results (issue 24); es_scan_destroy waits for it.  The
 * backend's finish() comes first: a device's closing may still use them
 * (the GPU unpins streamed blocks there). */
static void blocks_free(es_scan_t *s, es_planes_t *blocks, uint32_t n_blocks, int ok)
{
    unpack_job_t *j = ok && blocks ? malloc(sizeof *j) : NULL;
    if (j) {
        j->blocks = blocks;
        j->n_blocks = n_blocks;
        j->finish = s->backend->finish;
        unpack_join(s);
        if (pthread_create(&s->unpack, NULL, unpack_main, j) == 0) {
            s->unpack_on = 1;
            return;
        }
        free(j);
    }
    if (blocks && s->backend->finish) s->backend->finish();
    es_scan_blocks_free(blocks, n_blocks);
}

static void ctx_free(es_scan_ctx_t *ctx, int ok)
{
    blocks_free(ctx->scan, ctx->blocks, ctx->n_blocks, ok);
    if (ctx->rows)
        for (uint32_t b = 0; b < ctx->n_blocks; b++) free(ctx->rows[b].pairs);
    free(ctx->rows);
    free(ctx->row_start);
    free(ctx->blk_ntot);
    pthread_mutex_destroy(&ctx->lock);
}

int es_scan_run(es_scan_t *s)
{
    if (s->opt.order == 3) return es_scan3_run(s);
    es_scan_ctx_t ctx;
    es_dist_t *dist = NULL;
    pack_job_t pj; /* packing beside the backend */
    void *warm = NULL;  /* the backend's warm() */
    int ret = ES_OK;
    memset(&ctx, 0, sizeof ctx);
    memset(&pj, 0, sizeof pj);
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
    /* pad the planes only as much as the backend's kernels need */
    ret = es_dataset_set_pad(s->ds, s->backend->pad_bits ? s->backend->pad_bits : ES_PAD_BITS);
    if (ret) goto out;
    if (s->ds->qt) {
        es_qt_y_free(&s->qt_y);
        if ((ret = es_qt_y_init(&s->qt_y, s->ds))) goto out;
        ctx.qt = &s->qt_y;
    }
    uint32_t n_planes = es_dataset_any_missing(s->ds) ? 3 : 2;
    /* the device's first kernels loaded while the blocks are packed */
    if (s->backend->warm) warm = s->backend->warm(&ctx, n_planes);
    if (s->opt.block_variants) ctx.block = s->opt.block_variants;
    else if (s->backend->auto_block) ctx.block = s->backend->auto_block(&ctx, bytes_per_variant(s->ds, n_planes));
    else ctx.block = auto_block(s->ds, n_planes, ctx.m, threads);
    if (!s->opt.block_variants && !s->backend->auto_block) ctx.block = sig_block_cap(&ctx, ctx.block);
    uint32_t no_chunk = 0;
    /* a resumed checkpoint's tiles; under MPI, rank 0's */
    if ((ret = es_dist_geometry(s, &ctx.block, &no_chunk))) goto out;
    ctx.n_blocks = (ctx.m + ctx.block - 1) / ctx.block;
    ctx.row_start = malloc(((size_t)ctx.n_blocks + 1) * sizeof *ctx.row_start);
    ctx.rows = calloc(ctx.n_blocks, sizeof *ctx.rows);
    ctx.blk_ntot = calloc(ctx.n_blocks, sizeof *ctx.blk_ntot);
    if (!ctx.row_start || !ctx.rows || !ctx.blk_ntot) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    ctx.row_start[0] = 0;
    for (uint32_t b = 0; b < ctx.n_blocks; b++) {
        ctx.row_start[b + 1] = ctx.row_start[b] + (ctx.n_blocks - b);
        ctx.rows[b].need = ctx.n_blocks - b;
    }
    ctx.n_tiles = ctx.row_start[ctx.n_blocks];
    int overlap = pack_overlaps(s);
    if (overlap) {
        ret = alloc_blocks(ctx.ds, &s->opt, ctx.m, ctx.block, ctx.n_blocks, n_planes, &ctx.blocks);
        if (!ret) ret = pack_start(&pj, &ctx, threads);
    } else {
        ret = es_scan_pack_blocks(ctx.ds, &s->opt, ctx.m, ctx.block, ctx.n_blocks, n_planes, threads, &ctx.blocks);
        if (!ret) ret = es_fileset_check(s->ds->plink); /* the .bed shrank while packed? */
    }
    /* checkpoints, shards, MPI ranks (every rank comes here, even after an error) */
    ret = es_dist_start2(&dist, &ctx, n_planes, ret);
    if (ret) goto out;
    double t1 = es_time_now();
    s->t_pack = t1 - t0;
    if (!overlap)
        es_info("packed %u variants in %u blocks of %u (%u bit planes each), %.2f s", ctx.m,
                ctx.n_blocks, ctx.block, n_planes, s->t_pack);

    ctx.t_start = ctx.t_last_progress = t1;
    ret = es_dist_run2(dist, &ctx);
    if (!ret) ret = ctx.err;
    ret = es_dist_end(dist, ret);
    dist = NULL;
    if (pj.done) {
        if (ret) pack_cancel(&pj);
        int r = pack_join(&pj, &ctx);
        if (!ret) ret = r;
        if (!ret) ret = es_fileset_check(s->ds->plink); /* the .bed shrank while packed? */
        s->t_pack += pj.seconds;
        es_info("packed %u variants in %u blocks of %u (%u bit planes each), %.2f s beside the scan", ctx.m,
                ctx.n_blocks, ctx.block, n_planes, pj.seconds);
    }
    if (ret) goto out;
    double t_merge = es_time_now();
    es_ctx_fold_block_counts(&ctx);
    clear_uncalled_best(&ctx);
    s->pairs_done = ctx.pairs_done;
    es_topk_sort(&s->top);
    s->t_scan = es_time_now() - t1;
    es_info("the backend done, its counts folded and the top pairs sorted in %.3f s", es_time_now() - t_merge);
    if (s->prog_cb) s->prog_cb(ctx.pairs_done, ctx.pairs_done, s->t_scan, s->prog_ud);
out:
    es_dist_end(dist, ret);
    if (ret) pack_cancel(&pj);
    pack_join(&pj, &ctx);
    if (warm) s->backend->warm_join(warm);
    ctx_free(&ctx, !ret);
    return ret;
}

const es_pair_t *es_scan_top(const es_scan_t *scan) { return scan->top.heap; }
const es_triple_t *es_scan_top3(const es_scan_t *scan) { return scan->top3.heap; }
size_t es_scan_top3_count(const es_scan_t *scan) { return scan->top3.n; }
const es_summary3_t *es_scan_summary3(const es_scan_t *scan) { return scan->summary3; }

const uint32_t *es_scan_seeds(const es_scan_t *scan, size_t *n_pairs)
{
    if (n_pairs) *n_pairs = scan->n_seeds;
    return scan->seeds;
}
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
    unpack_join(scan);
    if (scan->backend && scan->backend->finish) scan->backend->finish(); /* the device's closing */
    es_topk_free(&scan->top);
    free(scan->summary);
    es_topk3_free(&scan->top3);
    free(scan->summary3);
    free(scan->seeds);
    es_qt_y_free(&scan->qt_y);
    free(scan);
}
