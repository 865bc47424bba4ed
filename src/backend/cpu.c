/* backend_cpu.c -- the CPU backend: OpenMP threads take tiles from the scan's
 * queue (self-scheduling, so uneven tiles balance), count each pair's table with
 * the fastest popcount kernel this CPU has, and score it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"

static int cpu_device_count(void) { return 1; }

static int cpu_supports(es_op_t op, const es_work_t *w)
{
    (void)w;
    return op == ES_OP_PAIR_SCAN || op == ES_OP_TRIPLE_SCAN || op == ES_OP_MI_HIST || op == ES_OP_MI_ROWS;
}

/* The cost model, from measurements (doc/BENCHMARKS.md): a scan counts a
 * pair's table in about 7 ps a sample and spends about 70 ns more on the
 * statistic and its bounds, per thread (105 ns a pair at N = 5,000), and
 * threads scale at about 70 %; a selection round costs about 1.2 ns per
 * sample and candidate and 1 ns per table cell swept, per thread (a FEAST-
 * sized selection, 4,000 x 10,000, k = 50, takes 0.15-0.17 s on the 16
 * threads of the H100 host). */
static double cpu_cost(const es_work_t *w)
{
    double th = w->threads > 0 ? w->threads : (double)sysconf(_SC_NPROCESSORS_ONLN);
    if (th < 1) th = 1;
    if (w->op == ES_OP_TRIPLE_SCAN) /* about 25 ps a sample and 150 ns of statistics a triple */
        return (double)w->pairs * (150e-9 + 25e-12 * (double)w->n_samples) / (th > 1 ? 0.8 * th : 1.0);
    if (w->op == ES_OP_PAIR_SCAN) {
        double eff = th > 1 ? 0.7 * th : 1.0;
        /* a quantitative trait (linear, pruned): 100 ns + 68 ps a sample a
         * pair and thread (bench_qt_gpu on the H200 host's 16 threads:
         * 6.6e7 pairs/s at N = 1,024, 1.7e7 at 8,192) */
        if (w->qt) return (double)w->pairs * (100e-9 + 68e-12 * (double)w->n_samples) / eff;
        return (double)w->pairs * (70e-9 + 7e-12 * (double)w->n_samples) / eff;
    }
    double per = 1.2e-9 * (double)w->n_samples + 1e-9 * (double)w->cells;
    return (double)w->rounds * (double)w->features * per / th;
}

/* Partners are counted in runs so the tables of one variant against many stay
 * in L1 while they are scored. */
#define CPU_RUN ES_RUN2

static void cpu_tile(es_scan_ctx_t *ctx, es_worker_t *w, const es_popcount_impl_t *impl,
                     es_planes_tr_t *tr, uint32_t bi, uint32_t bj)
{
    const es_planes_t *pa = &ctx->blocks[bi], *pb = &ctx->blocks[bj];
    /* the partners' block side by side, for the kernels that read it (laid
     * out once a tile: a small fraction of the tile's counting) */
    const es_planes_tr_t *tb = NULL;
    if (es_count_run_uses_tr(impl) && (tr->of == pb || es_planes_tr_fill(tr, pb) == ES_OK)) tb = tr;
    es_table2_soa_t t;
    double mib[CPU_RUN];
    const int boost = ctx->stat == ES_STAT_BOOST;
    for (uint32_t a = 0; a < pa->count; a++) {
        for (uint32_t b0 = bi == bj ? a + 1 : 0; b0 < pb->count; b0 += CPU_RUN) {
            uint32_t nb = pb->count - b0 < CPU_RUN ? pb->count - b0 : CPU_RUN;
            es_count_run(impl, pa, a, pb, tb, b0, nb, &t);
            /* BOOST screens the run with its cheapest bound, eight pairs a vector */
            if (boost) es_stat_boost_bound_mi_run(&t, nb, mib);
            es_worker_offer_run(ctx, w, pa->first + a, pb->first + b0, nb, &t, boost ? mib : NULL);
        }
    }
}

/* A quantitative trait: each run of partners also gets its phenotype sums
 * (es_qt_sums_run, on the blocks laid out once per tile side and kept while
 * the next tile shares it), and is scored by the linear tests.  A pair whose
 * integer sums could move its coefficient by more than ES_QT_REL_TOL is
 * scored again on sums in double. */
typedef struct {
    const es_qt_block_t *all; /* every block laid out once (when they fit in CPU_QT_ALL bytes), or NULL */
    es_qt_block_t blk[2];
    uint32_t which[2]; /* the tile block each holds (UINT32_MAX: none) */
    uint64_t exact;    /* pairs rescored on double sums */
    uint64_t pruned;   /* linear: pairs dropped on their bound */
    int bound;         /* linear: prune on the bound (EPISTREAM_QT_BOUND=0: not; 2: with the scalar batch) */
    es_qt_scratch_t sc;
    /* linear with the bound: a group's dot products, sums and missing-call
     * counts, [g * CPU_RUN + k] for pair (a0 + g, r0 + k) */
    int64_t *hig;
    es_qt_sums_t *sg;
    uint32_t (*mcg)[5];
    es_table2_t *tg;
} cpu_qt_t;

/* Up to this many bytes, every block is laid out once, before the tiles. */
#define CPU_QT_ALL ((size_t)1 << 30)

static const es_qt_block_t *qt_side(es_scan_ctx_t *ctx, cpu_qt_t *q, uint32_t b, int side, uint32_t keep)
{
    if (q->all) return &q->all[b];
    if (q->which[side] == b) return &q->blk[side];
    /* the scratch's rows are keyed by the block's address, which is about to
     * hold another block */
    for (int r = 0; r < ES_QT_ROWS; r++) q->sc.blk[r] = NULL;
    q->sc.c8_blk = NULL;
    if (q->which[side ^ 1] == b && b != keep) { /* swap in the other side's copy */
        es_qt_block_t t = q->blk[side];
        q->blk[side] = q->blk[side ^ 1];
        q->blk[side ^ 1] = t;
        q->which[side ^ 1] = q->which[side];
        q->which[side] = b;
        return &q->blk[side];
    }
    int ret = es_qt_block_fill(&q->blk[side], &ctx->blocks[b], 0, ctx->blocks[b].count, ctx->qt,
                               ctx->stat == ES_STAT_LINEAR4);
    if (ret) {
        q->which[side] = UINT32_MAX;
        es_ctx_fail(ctx, ret);
        return NULL;
    }
    q->which[side] = b;
    return &q->blk[side];
}

/* Score pair (a of A, b of B) from its full sums and keep it. */
static void qt_score(es_scan_ctx_t *ctx, es_worker_t *w, cpu_qt_t *q, const es_qt_block_t *A, uint32_t a,
                     const es_qt_block_t *B, uint32_t b, uint32_t i, uint32_t j, const es_table2_t *t,
                     const es_qt_sums_t *s, const es_linear_prep_t *prep)
{
    es_qt_dsums_t d;
    es_stat_result_t r;
    double beta = NAN;
    es_qt_dsums(s, ctx->qt, &d);
    if (ctx->stat == ES_STAT_LINEAR4) {
        es_stat_linear4(t, &d, &r);
    } else if (prep ? es_stat_linear_fit(t, prep, &d, &r, &beta) : es_stat_linear(t, &d, &r, &beta)) {
        es_qt_dsums_exact(A, a, B, b, ctx->qt, &d);
        es_stat_linear(t, &d, &r, &beta);
        q->exact++;
    }
    uint32_t n = 0;
    for (int c = 0; c < 9; c++) n += t->n[0][c];
    es_worker_offer_result(ctx, w, i, j, &r, n, beta);
}

/* linear: the sums with the top two byte slices of a q only, which put the
 * pair's sum of a b q in an interval of width 2^24 sum_{a>0} b; a pair whose
 * z^2 bound on it (es_stat_linear_bound) is below what it could matter for
 * (es_worker_prune_below) is counted and dropped; the failure rules of the
 * table (es_stat_linear_prep) are evaluated for every pair, as the exact
 * fit does, since a failed fit leaves N_TOT.  The others get the three low
 * slices and the exact fit. */
static void cpu_run_linear(es_scan_ctx_t *ctx, es_worker_t *w, cpu_qt_t *q, const es_qt_block_t *A, uint32_t a,
                           const es_qt_block_t *B, uint32_t b0, uint32_t nb, uint32_t i, uint32_t j0,
                           const es_table2_t *t, es_qt_sums_t *s)
{
    es_qt_dsums_t d[CPU_RUN];
    int64_t hi[CPU_RUN];
    double x1[CPU_RUN], zb[CPU_RUN];
    uint8_t fail[CPU_RUN], cert[CPU_RUN];
    const double u = 1.0 / ctx->qt->scale, u2 = 1.0 / ctx->qt->scale2;
    for (uint32_t k = 0; k < nb; k++) {
        const uint32_t *n = t[k].n[0];
        int64_t wb = (int64_t)(n[4] + 2 * n[5] + n[7] + 2 * n[8]);
        hi[k] = s[k].saby;
        s[k].saby = hi[k] << 24;
        es_qt_dsums_linear(&s[k], u, u2, &d[k]);
        /* as es_qt_dsums converts (1 / scale is a power of two) */
        x1[k] = (double)((hi[k] << 24) + wb * ((1 << 24) - 1)) * u;
    }
    if (q->bound > 1) es_stat_linear_batch_scalar(t, d, x1, nb, fail, cert, zb);
    else es_stat_linear_batch(t, d, x1, nb, fail, cert, zb);
    /* the limits of the run as the worker stands, taken again after each
     * pair kept (the only offers that raise them; stale ones are lower, so
     * they only keep more) */
    double lim[CPU_RUN];
    uint8_t pr[CPU_RUN];
    es_worker_prune_run(ctx, w, i, j0, nb, lim);
    for (uint32_t k = 0; k < nb; k++) {
        pr[k] = 0;
        if (fail[k]) { /* fails on the table: no sum needed */
            es_stat_result_t r = {.stat = 0, .p = 1, .log10p = 0, .df = 0};
            uint32_t ct = 0;
            for (int c = 0; c < 9; c++) ct += t[k].n[0][c];
            es_worker_offer_result(ctx, w, i, j0 + k, &r, ct, NAN);
            continue;
        }
        if (cert[k] && zb[k] < lim[k]) {
            pr[k] = 1;
            q->pruned++;
            continue;
        }
        s[k].saby = (hi[k] << 24) + es_qt_saby_lo(A, a, B, b0 + k, 0);
        qt_score(ctx, w, q, A, a, B, b0 + k, i, j0 + k, &t[k], &s[k], NULL);
        if (k + 1 < nb) es_worker_prune_run(ctx, w, i, j0 + k + 1, nb - k - 1, lim + k + 1);
    }
    es_worker_count_pruned(ctx, w, i, j0, nb, pr);
}

/* ES_QT_GROUP first variants at once (a0 .. a0 + na - 1 of tile block bi)
 * against a run of partners (r0 .. r0 + nr - 1 of bj): the bound's dot
 * products (each partner's row read once for four of them) and the
 * phenotype sums (a partner's missing calls matched against eight of them a
 * vector); then each first variant's table, bound and fits */
static void cpu_group_linear(es_scan_ctx_t *ctx, es_worker_t *w, const es_popcount_impl_t *impl, cpu_qt_t *q,
                             const es_planes_tr_t *tb, const es_qt_block_t *A, const es_qt_block_t *B, uint32_t a0,
                             uint32_t na, uint32_t r0, uint32_t nr, uint32_t bi, uint32_t bj)
{
    const es_planes_t *pa = &ctx->blocks[bi], *pb = &ctx->blocks[bj];
    const int diag = bi == bj, listed = ctx->qt->slots < ES_QT_LISTED_SLOTS;
    es_table2_t t[CPU_RUN];
    es_qt_sums_t s[CPU_RUN];
    es_qt_dothi_group(A, a0, na, B, r0, nr, q->hig, CPU_RUN, 0);
    if (listed) {
        es_qt_sums_group(A, a0, na, B, r0, nr, ctx->qt, &q->sc, q->hig, q->sg, q->mcg, CPU_RUN, 0);
        es_count_group_listed(impl, pa, a0, na, pb, tb, r0, nr, (const uint32_t(*)[5])q->mcg, CPU_RUN, q->tg);
    }
    for (uint32_t g = 0; g < na; g++) {
        uint32_t a = a0 + g, b0 = diag && a + 1 > r0 ? a + 1 : r0, nb = r0 + nr - b0;
        if (b0 >= r0 + nr) continue;
        size_t o = (size_t)g * CPU_RUN + (b0 - r0);
        es_qt_sums_t *sa = s;
        const es_table2_t *ta = t;
        if (listed) { /* the table from the sums' matching of missing calls */
            sa = q->sg + o;
            ta = q->tg + o;
        } else {
            es_count_block(impl, pa, a, pb, b0, nb, t);
            es_qt_sums_run_listed(A, a, B, b0, nb, ctx->qt, &q->sc, s, NULL, q->hig + o, 0);
        }
        cpu_run_linear(ctx, w, q, A, a, B, b0, nb, pa->first + a, pb->first + b0, ta, sa);
    }
}

/* Partners a chunk of the pruned linear scan: their rows of b (len bytes)
 * and two planes (len / 4 bytes) in about 1 MiB, half this CPU's L2 (the
 * rest for the first variants' rows, codes and the other kernels' data),
 * a whole number of runs and at least two.  EPISTREAM_QT_CHUNK=N sets it
 * (tests: chunks that split runs; any N >= 1 gives the same outputs). */
static uint32_t qt_chunk(size_t len)
{
    const char *env = es_env_variant("EPISTREAM_QT_CHUNK");
    const long n = env ? atol(env) : 0;
    if (n >= 1) return n < (1l << 20) ? (uint32_t)n : (1u << 20);
    size_t c = ((size_t)1 << 20) / (len + len / 4 + 1) / CPU_RUN * CPU_RUN;
    return (uint32_t)(c < 2 * CPU_RUN ? 2 * CPU_RUN : c > (1u << 20) ? (1u << 20) : c);
}

static void cpu_tile_qt(es_scan_ctx_t *ctx, es_worker_t *w, const es_popcount_impl_t *impl, cpu_qt_t *q,
                        es_planes_tr_t *tr, uint32_t bi, uint32_t bj)
{
    const es_planes_t *pa = &ctx->blocks[bi], *pb = &ctx->blocks[bj];
    const es_qt_block_t *A = qt_side(ctx, q, bi, 0, bj);
    const es_qt_block_t *B = bi == bj ? A : qt_side(ctx, q, bj, 1, bi);
    if (!A || !B) return;
    es_table2_t t[CPU_RUN];
    es_qt_sums_t s[CPU_RUN];
    if (ctx->stat == ES_STAT_LINEAR && q->bound) {
        /* groups of first variants against runs of partners
         * (cpu_group_linear). */
        const int diag = bi == bj;
        /* the partners' planes side by side for the table's products (as
         * cpu_tile's es_count_run; without memory for them, their own) */
        const es_planes_tr_t *tb = NULL;
        if (ctx->qt->slots < ES_QT_LISTED_SLOTS && es_count_run_uses_tr(impl) &&
            (tr->of == pb || es_planes_tr_fill(tr, pb) == ES_OK))
            tb = tr;
        /* The partners in chunks that stay in L2 while every group of the
         * tile meets them: a group reads each partner's row (len bytes)
         * and planes once, so a tile of about 700 partners streamed them
         * from L3 for every group, which held the dot products at half
         * their rate (doc/BENCHMARKS.md, "the kernels to this CPU's
         * peak").  The first variants' rows are read once a chunk. */
        const uint32_t chunk = qt_chunk(A->len);
        for (uint32_t c0 = 0; c0 < pb->count; c0 += chunk) {
            const uint32_t c1 = pb->count - c0 < chunk ? pb->count : c0 + chunk;
            for (uint32_t a0 = 0; a0 < pa->count && !(diag && a0 + 1 >= c1); a0 += ES_QT_GROUP) {
                uint32_t na = pa->count - a0 < ES_QT_GROUP ? pa->count - a0 : ES_QT_GROUP;
                for (uint32_t r0 = diag && a0 + 1 > c0 ? a0 + 1 : c0; r0 < c1; r0 += CPU_RUN)
                    cpu_group_linear(ctx, w, impl, q, tb, A, B, a0, na, r0, c1 - r0 < CPU_RUN ? c1 - r0 : CPU_RUN,
                                     bi, bj);
            }
        }
        return;
    }
    for (uint32_t a = 0; a < pa->count; a++) {
        for (uint32_t b0 = bi == bj ? a + 1 : 0; b0 < pb->count; b0 += CPU_RUN) {
            uint32_t nb = pb->count - b0 < CPU_RUN ? pb->count - b0 : CPU_RUN;
            es_count_block(impl, pa, a, pb, b0, nb, t);
            es_qt_sums_run(A, a, B, b0, nb, ctx->qt, &q->sc, s);
            for (uint32_t k = 0; k < nb; k++)
                qt_score(ctx, w, q, A, a, B, b0 + k, pa->first + a, pb->first + b0 + k, &t[k], &s[k], NULL);
        }
    }
}

static int cpu_run(es_scan_ctx_t *ctx)
{
    const es_popcount_impl_t *impl = es_count_pick(ctx->n_blocks ? &ctx->blocks[0] : NULL);
    snprintf(ctx->scan->device_info, sizeof ctx->scan->device_info, "%s", impl->name);
    es_info("CPU backend: %d thread(s), %s popcount (the fastest here at this sample count)%s%s",
            ctx->n_threads, impl->name, ctx->qt ? ", phenotype sums: " : "", ctx->qt ? es_qt_kernel_name() : "");
    _Atomic uint64_t exact = 0, pruned = 0;
    const char *nobound = es_env_variant("EPISTREAM_QT_BOUND");
    int bound = !(nobound && !strcmp(nobound, "0"));
    if (bound && !strcmp(es_qt_kernel_name(), "scalar")) bound = 2; /* the scalar twins throughout */
    es_qt_block_t *all = NULL;
    if (ctx->qt) {
        size_t rows = ctx->stat == ES_STAT_LINEAR4 ? 2 : 1;
        size_t bytes = (size_t)ctx->m * ctx->qt->slots * (rows * (ES_QT_SLICES + 1) + 1);
        if (bytes <= CPU_QT_ALL && (all = calloc(ctx->n_blocks, sizeof *all))) {
            _Atomic int bad = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(ctx->n_threads)
            for (uint32_t b = 0; b < ctx->n_blocks; b++)
                if (es_qt_block_fill(&all[b], &ctx->blocks[b], 0, ctx->blocks[b].count, ctx->qt,
                                     ctx->stat == ES_STAT_LINEAR4))
                    bad = 1;
            if (bad) {
                for (uint32_t b = 0; b < ctx->n_blocks; b++) es_qt_block_free(&all[b]);
                free(all);
                all = NULL; /* then per tile */
            }
        }
    }
#pragma omp parallel num_threads(ctx->n_threads)
    {
        es_worker_t w;
        cpu_qt_t q = {.all = all, .which = {UINT32_MAX, UINT32_MAX}, .bound = bound};
        es_planes_tr_t tr = {0};
        int ret = es_worker_init(&w, ctx);
        if (!ret && ctx->qt && bound) {
            q.hig = malloc((size_t)ES_QT_GROUP * CPU_RUN * sizeof *q.hig);
            q.sg = malloc((size_t)ES_QT_GROUP * CPU_RUN * sizeof *q.sg);
            q.mcg = malloc((size_t)ES_QT_GROUP * CPU_RUN * sizeof *q.mcg);
            q.tg = malloc((size_t)ES_QT_GROUP * CPU_RUN * sizeof *q.tg);
            if (!q.hig || !q.sg || !q.mcg || !q.tg) ret = ES_ERR_NOMEM;
        }
        if (ret) {
            es_ctx_fail(ctx, ret);
        } else {
            uint32_t bi, bj;
            while (es_ctx_next_tile(ctx, &w, &bi, &bj) == 0) {
                if (ctx->qt) cpu_tile_qt(ctx, &w, impl, &q, &tr, bi, bj);
                else cpu_tile(ctx, &w, impl, &tr, bi, bj);
                if (es_ctx_tile_done(ctx, &w)) break;
            }
        }
        exact += q.exact;
        pruned += q.pruned;
        es_qt_scratch_free(&q.sc);
        free(q.hig);
        free(q.sg);
        free(q.mcg);
        free(q.tg);
        es_qt_block_free(&q.blk[0]);
        es_qt_block_free(&q.blk[1]);
        es_planes_tr_free(&tr);
        es_worker_free(&w);
    }
    if (all) {
        for (uint32_t b = 0; b < ctx->n_blocks; b++) es_qt_block_free(&all[b]);
        free(all);
    }
    if (pruned)
        es_info("%llu pair(s) dropped on a bound of their statistic (the top two byte slices of the "
                "phenotype sums)", (unsigned long long)pruned);
    if (exact)
        es_info("%llu pair(s) scored on sums in double: their fixed-point sums could have moved BETA_INT "
                "by more than %g of it", (unsigned long long)exact, ES_QT_REL_TOL);
    return ES_OK;
}

static int cpu_run3(es_scan3_ctx_t *ctx);

const es_backend_t es_backend_cpu = {
    .name = "cpu",
    .device_count = cpu_device_count,
    .supports = cpu_supports,
    .cost = cpu_cost,
    .pad_bits = 256, /* the kernels handle any length; one AVX2 vector */
    .run = cpu_run,
    .run3 = cpu_run3,
};

/* ---- triples ------------------------------------------------------------------
 * A tile's pair sums (es_cum2_t) of its first and second blocks against its
 * third are counted once with the pair kernels; each pair's AND planes are
 * then counted against runs of third variants (es_count3_run). */

typedef struct {
    es_pair3_t x;
    es_cum2_t *ac, *bc;   /* [a * block + k], [b * block + k] */
    /* ig without missing calls: the pair parts of the same pairs (NULL: not used) */
    es_ig_pair_t *iac, *ibc;
    es_table2_t *t2;      /* one run of pair tables */
    const es_popcount_impl_t *impl3; /* the triple kernel */
    es_table3_soa_t *soa; /* one run, cell by cell */
    es_table3_soa_t *soa2; /* the run with its axes permuted (seeds) */
    double stat[ES_RUN3];
    int df[ES_RUN3];
    uint32_t n[ES_RUN3];
    uint32_t *var;        /* slot variables */
} cpu3_scratch_t;

static int cpu3_scratch_init(cpu3_scratch_t *s, const es_scan3_ctx_t *ctx)
{
    memset(s, 0, sizeof *s);
    size_t b = ctx->block, ns = ctx->seeds ? b + 2 * (size_t)ctx->seed_chunk : 3 * b;
    size_t na = ctx->seeds ? 1 : b;
    s->ac = malloc(na * b * sizeof *s->ac);
    s->bc = malloc(na * b * sizeof *s->bc);
    /* a triple's pair margins are its pairs' tables when no call is missing:
     * ig reads their MIs, computed once a tile (exhaustive tiles) */
    int ig_pairs = ctx->stat == ES_STAT_IG && !ctx->seeds && ctx->n_blocks && ctx->blocks[0].n_planes == 2;
    if (ig_pairs) {
        s->iac = malloc(na * b * sizeof *s->iac);
        s->ibc = malloc(na * b * sizeof *s->ibc);
        if (!s->iac || !s->ibc) return ES_ERR_NOMEM;
    }
    s->t2 = malloc(b * sizeof *s->t2);
    s->var = malloc(ns * sizeof *s->var);
    s->soa = aligned_alloc(64, sizeof *s->soa);
    s->soa2 = ctx->seeds ? aligned_alloc(64, sizeof *s->soa2) : NULL;
    int ret = s->ac && s->bc && s->t2 && s->var && s->soa && (s->soa2 || !ctx->seeds) ? ES_OK : ES_ERR_NOMEM;
    if (!ret) ret = es_pair3_alloc(&s->x, &ctx->blocks[0]);
    return ret;
}

static void cpu3_scratch_free(cpu3_scratch_t *s)
{
    es_pair3_free(&s->x);
    free(s->ac);
    free(s->bc);
    free(s->iac);
    free(s->ibc);
    free(s->t2);
    free(s->soa);
    free(s->soa2);
    free(s->var);
}

/* The pair sums of variant a of pa against every variant of pc (and, for
 * ig, the pairs' parts in it: ig non-NULL). */
static void cum_row(const es_popcount_impl_t *impl, cpu3_scratch_t *s, const es_planes_t *pa, uint32_t a,
                    const es_planes_t *pc, es_cum2_t *out, es_ig_pair_t *ig)
{
    es_count_block(impl, pa, a, pc, 0, pc->count, s->t2);
    for (uint32_t k = 0; k < pc->count; k++) es_cum2_from_table(&s->t2[k], &out[k]);
    for (uint32_t k = 0; ig && k < pc->count; k++) es_stat3_ig_pair(&s->t2[k], &ig[k]);
}

static void cpu3_tile(es_scan3_ctx_t *ctx, es_worker3_t *w, cpu3_scratch_t *s,
                      const es_popcount_impl_t *impl, uint32_t bi, uint32_t bj, uint32_t bk)
{
    const es_planes_t *pa = &ctx->blocks[bi], *pb = &ctx->blocks[bj], *pc = &ctx->blocks[bk];
    uint32_t B = ctx->block;
    /* slots: each distinct block once */
    uint32_t base_b = bj == bi ? 0 : B, base_c = bk == bj ? base_b : 2 * B, n = 0;
    for (uint32_t v = 0; v < pa->count; v++) s->var[v] = pa->first + v;
    n = pa->count;
    if (base_b) {
        for (uint32_t v = 0; v < pb->count; v++) s->var[B + v] = pb->first + v;
        n = B + pb->count;
    }
    if (base_c > base_b) {
        for (uint32_t v = 0; v < pc->count; v++) s->var[2 * B + v] = pc->first + v;
        n = 2 * B + pc->count;
    }
    /* unused slots of a short first block stay unused (n_tot 0) */
    for (uint32_t v = pa->count; v < B && v < n; v++) s->var[v] = pa->first;
    for (uint32_t v = pb->count; base_b && v < B && B + v < n; v++) s->var[B + v] = pb->first;
    es_worker3_begin(ctx, w, bi, bj, bk, s->var, n);
    for (uint32_t a = 0; a < pa->count; a++)
        cum_row(impl, s, pa, a, pc, &s->ac[(size_t)a * B], s->iac ? &s->iac[(size_t)a * B] : NULL);
    for (uint32_t b = 0; b < pb->count; b++)
        cum_row(impl, s, pb, b, pc, &s->bc[(size_t)b * B], s->ibc ? &s->ibc[(size_t)b * B] : NULL);
    for (uint32_t a = 0; a < pa->count; a++) {
        for (uint32_t b = bi == bj ? a + 1 : 0; b < pb->count; b++) {
            uint32_t k0 = bj == bk ? b + 1 : 0;
            if (k0 >= pc->count) continue;
            es_pair3_set(&s->x, pa, a, pb, b);
            es_ig_pair_t iab;
            if (s->iac) {
                es_table2_t tab;
                es_count_block(impl, pa, a, pb, b, 1, &tab);
                es_stat3_ig_pair(&tab, &iab);
            }
            for (; k0 < pc->count; k0 += ES_RUN3) {
                uint32_t nk = pc->count - k0 < ES_RUN3 ? pc->count - k0 : ES_RUN3;
                es_count3_soa(s->impl3, &s->x, pc, k0, nk, &s->ac[(size_t)a * B + k0], &s->bc[(size_t)b * B + k0],
                              s->soa);
                if (s->iac)
                    es_stat3_batch_ig(s->soa, nk, &iab, &s->iac[(size_t)a * B + k0], &s->ibc[(size_t)b * B + k0],
                                      s->stat, s->df, s->n);
                else
                    es_stat3_batch(ctx->stat, s->soa, nk, s->stat, s->df, s->n);
                es_worker3_offer_run(ctx, w, pa->first + a, pb->first + b, pc->first + k0, a, base_b + b,
                                     base_c + k0, nk, s->stat, s->df, s->n);
            }
        }
    }
}

/* A run's tables with their axes put in sorted variant order (rank as for
 * es_table3_permute()), cell row by cell row. */
static void soa_permute(const es_table3_soa_t *in, const int rank[3], es_table3_soa_t *out)
{
    uint8_t dst[27];
    es_table3_perm_cells(rank, dst);
    for (int y = 0; y < 2; y++)
        for (int c = 0; c < 27; c++) memcpy(out->n[y][dst[c]], in->n[y][c], sizeof out->n[y][0]);
}

/* A seed (i, j) against one run of third variants k: the triple is (k, i,
 * j), (i, k, j) or (i, j, k) by where k falls, each region's tables put in
 * that order before they are scored. */
static void seed_run(es_scan3_ctx_t *ctx, es_worker3_t *w, cpu3_scratch_t *s, uint32_t i, uint32_t j,
                     uint32_t si, uint32_t sj, uint32_t k_first, uint32_t sk0, uint32_t nk,
                     const uint32_t **ex, const uint32_t *ex_end)
{
    static const int rank_lo[3] = {1, 2, 0}, rank_mid[3] = {0, 2, 1};
    for (int region = 0; region < 3; region++) {
        /* region 0: k < i; 1: i < k < j; 2: k > j */
        uint32_t lo = region == 0 ? 0 : region == 1 ? i + 1 : j + 1;
        uint32_t hi = region == 0 ? i : region == 1 ? j : UINT32_MAX;
        uint32_t q0 = lo > k_first ? lo - k_first : 0;
        uint32_t q1 = hi > k_first ? (hi - k_first < nk ? hi - k_first : nk) : 0;
        if (q0 >= q1) continue;
        const es_table3_soa_t *t = s->soa;
        if (region < 2) {
            soa_permute(s->soa, region == 0 ? rank_lo : rank_mid, s->soa2);
            t = s->soa2;
        }
        es_stat3_batch(ctx->stat, t, q1, s->stat, s->df, s->n);
        for (uint32_t q = q0; q < q1; q++) {
            uint32_t k = k_first + q, sk = sk0 + q;
            while (*ex < ex_end && **ex < k) (*ex)++;
            if (*ex < ex_end && **ex == k) continue;
            if (region == 0)
                es_worker3_offer_stat(ctx, w, k, i, j, sk, si, sj, s->stat[q], s->df[q], s->n[q]);
            else if (region == 1)
                es_worker3_offer_stat(ctx, w, i, k, j, si, sk, sj, s->stat[q], s->df[q], s->n[q]);
            else
                es_worker3_offer_stat(ctx, w, i, j, k, si, sj, sk, s->stat[q], s->df[q], s->n[q]);
        }
    }
}

static void cpu3_seed_tile(es_scan3_ctx_t *ctx, es_worker3_t *w, cpu3_scratch_t *s,
                           const es_popcount_impl_t *impl, uint32_t chunk, uint32_t bk)
{
    const es_planes_t *pc = &ctx->blocks[bk];
    uint32_t B = ctx->block, p0 = chunk * ctx->seed_chunk;
    uint32_t p1 = p0 + ctx->seed_chunk < ctx->n_seeds ? p0 + ctx->seed_chunk : ctx->n_seeds;
    for (uint32_t v = 0; v < B; v++) s->var[v] = pc->first + (v < pc->count ? v : 0);
    for (uint32_t p = p0; p < p1; p++) {
        s->var[B + 2 * (p - p0)] = ctx->seeds[2 * p];
        s->var[B + 2 * (p - p0) + 1] = ctx->seeds[2 * p + 1];
    }
    es_worker3_begin(ctx, w, chunk, bk, 0, s->var, B + 2 * (p1 - p0));
    for (uint32_t p = p0; p < p1; p++) {
        uint32_t i = ctx->seeds[2 * p], j = ctx->seeds[2 * p + 1];
        const es_planes_t *pi = &ctx->blocks[i / B], *pj = &ctx->blocks[j / B];
        uint32_t si = B + 2 * (p - p0), sj = si + 1;
        es_pair3_set(&s->x, pi, i % B, pj, j % B);
        cum_row(impl, s, pi, i % B, pc, s->ac, NULL);
        cum_row(impl, s, pj, j % B, pc, s->bc, NULL);
        /* the earlier seeds' third variants in this block */
        const uint32_t *ex = ctx->excl + ctx->excl_off[p], *ex_end = ctx->excl + ctx->excl_off[p + 1];
        while (ex < ex_end && *ex < pc->first) ex++;
        for (uint32_t k0 = 0; k0 < pc->count; k0 += ES_RUN3) {
            uint32_t nk = pc->count - k0 < ES_RUN3 ? pc->count - k0 : ES_RUN3;
            es_count3_soa(s->impl3, &s->x, pc, k0, nk, &s->ac[k0], &s->bc[k0], s->soa);
            seed_run(ctx, w, s, i, j, si, sj, pc->first + k0, k0, nk, &ex, ex_end);
        }
    }
}

static int cpu_run3(es_scan3_ctx_t *ctx)
{
    const es_planes_t *pl = ctx->n_blocks ? &ctx->blocks[0] : NULL;
    const es_popcount_impl_t *impl = es_count_pick(pl), *impl3 = es_count3_pick(pl);
    snprintf(ctx->scan->device_info, sizeof ctx->scan->device_info, "%s", impl3->name);
    es_info("CPU backend: %d thread(s), %s popcount for the triples, %s for the pair sums", ctx->n_threads,
            impl3->name, impl->name);
#pragma omp parallel num_threads(ctx->n_threads)
    {
        es_worker3_t w;
        cpu3_scratch_t s;
        int ret = es_worker3_init(&w, ctx);
        int ret2 = cpu3_scratch_init(&s, ctx);
        s.impl3 = impl3;
        if (ret || ret2) {
            es_ctx3_fail(ctx, ret ? ret : ret2);
        } else {
            uint32_t a, b, c;
            while (es_ctx3_next_tile(ctx, &a, &b, &c) == 0) {
                if (ctx->seeds) cpu3_seed_tile(ctx, &w, &s, impl, a, b);
                else cpu3_tile(ctx, &w, &s, impl, a, b, c);
                if (es_ctx3_tile_done(ctx, &w)) break;
            }
        }
        cpu3_scratch_free(&s);
        es_worker3_free(&w);
    }
    return ES_OK;
}
