/* backend_cpu.c -- the CPU backend: OpenMP threads take tiles from the scan's
 * queue (self-scheduling, so uneven tiles balance), count each pair's table with
 * the fastest popcount kernel this CPU has, and score it. */
#include <stdio.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"

static int cpu_device_count(void) { return 1; }

static int cpu_supports(es_op_t op, const es_work_t *w)
{
    (void)w;
    return op == ES_OP_PAIR_SCAN || op == ES_OP_MI_HIST || op == ES_OP_MI_ROWS;
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
    if (w->op == ES_OP_PAIR_SCAN) {
        double eff = th > 1 ? 0.7 * th : 1.0;
        return (double)w->pairs * (70e-9 + 7e-12 * (double)w->n_samples) / eff;
    }
    double per = 1.2e-9 * (double)w->n_samples + 1e-9 * (double)w->cells;
    return (double)w->rounds * (double)w->features * per / th;
}

/* Partners are counted in runs so the tables of one variant against many stay
 * in L1 while they are scored. */
#define CPU_RUN 64

static void cpu_tile(es_scan_ctx_t *ctx, es_worker_t *w, const es_popcount_impl_t *impl,
                     uint32_t bi, uint32_t bj)
{
    const es_planes_t *pa = &ctx->blocks[bi], *pb = &ctx->blocks[bj];
    es_table2_t t[CPU_RUN];
    for (uint32_t a = 0; a < pa->count; a++) {
        for (uint32_t b0 = bi == bj ? a + 1 : 0; b0 < pb->count; b0 += CPU_RUN) {
            uint32_t nb = pb->count - b0 < CPU_RUN ? pb->count - b0 : CPU_RUN;
            es_count_block(impl, pa, a, pb, b0, nb, t);
            for (uint32_t k = 0; k < nb; k++)
                es_worker_offer(ctx, w, pa->first + a, pb->first + b0 + k, &t[k]);
        }
    }
}

static int cpu_run(es_scan_ctx_t *ctx)
{
    const es_popcount_impl_t *impl = es_count_pick(ctx->n_blocks ? &ctx->blocks[0] : NULL);
    snprintf(ctx->scan->device_info, sizeof ctx->scan->device_info, "%s", impl->name);
    es_info("CPU backend: %d thread(s), %s popcount (the fastest here at this sample count)",
            ctx->n_threads, impl->name);
#pragma omp parallel num_threads(ctx->n_threads)
    {
        es_worker_t w;
        int ret = es_worker_init(&w, ctx);
        if (ret) {
            es_ctx_fail(ctx, ret);
        } else {
            uint32_t bi, bj;
            while (es_ctx_next_tile(ctx, &w, &bi, &bj) == 0) {
                cpu_tile(ctx, &w, impl, bi, bj);
                if (es_ctx_tile_done(ctx, &w)) break;
            }
            es_ctx_merge_top(ctx, &w);
        }
        es_worker_free(&w);
    }
    return ES_OK;
}

const es_backend_t es_backend_cpu = {
    .name = "cpu",
    .device_count = cpu_device_count,
    .supports = cpu_supports,
    .cost = cpu_cost,
    .pad_bits = 256, /* the kernels handle any length; one AVX2 vector */
    .run = cpu_run,
};
