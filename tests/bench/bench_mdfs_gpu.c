/* bench_mdfs_gpu.c -- the MDFS counting engine's tuples/s on the CPU and the
 * GPU in the same run (es_mdfs_max_ig on random discretised data: the
 * counting alone, no table reading or discretisation), and a check that the
 * two give the same maxima, tuples and discretisations bit for bit.
 *
 *   bench_mdfs_gpu DIM OBJECTS VARS_GPU VARS_CPU [DIVISIONS [DISCRETIZATIONS [CONTRAST]]]
 *
 * Runs VARS_CPU variables on the CPU (the OpenMP threads in effect) and on
 * the GPUs (every visible one; EPISTREAM_BENCH_GPUS=N for the first N), then
 * VARS_GPU variables on the GPUs; prints one table row: tuples/s of each,
 * the GPU's kernels alone, their ratio to the CPU and to 1.35e9 pairs/s (the
 * MDFS paper's CuCubes on a Titan Black), and the GPU kernel that ran (the
 * tensor cores or CUDA-core popcount; EPISTREAM_MDFS_GPU_KERNEL=popc forces
 * the latter; "tensor cores, double sums" with EPISTREAM_MDFS_GPU_SUM=double).
 * Exit 1 when the CPU and GPU results differ.
 *
 *   bench_mdfs_gpu peak
 *
 * prints device 0's b1 tensor-core ceilings (mma.sync on register operands,
 * wgmma from shared memory; bit multiply-accumulates a second) and what they
 * allow the screen: tuples/s when a pair counts (m - 1)^2 and a triple
 * (m - 1)^3 products a class over the padded bits (divisions 2), at 1,000 and
 * 10,000 objects, against 100x the seed's 1.35e9 pairs/s. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "gpu_test.h"
#include "mdfs.h"
#include "util.h"

typedef struct {
    uint32_t n, nv, nc, m;
} gen_t;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* classes 0 .. m - 1 from a hash of (discretisation, variable, object) */
static int gen(void *ctx, uint32_t disc, uint8_t *d, uint8_t *cd)
{
    const gen_t *g = ctx;
    const uint32_t tot = g->nv + g->nc;
#pragma omp parallel for schedule(static)
    for (uint32_t v = 0; v < tot; v++) {
        uint8_t *out = v < g->nv ? d + (size_t)v * g->n : cd + (size_t)(v - g->nv) * g->n;
        for (uint32_t o = 0; o < g->n; o++)
            out[o] = (uint8_t)(mix(((uint64_t)disc << 48) ^ ((uint64_t)v << 24) ^ o) % g->m);
    }
    return ES_OK;
}

static int run(const es_mdfs_opt_t *o, uint32_t n, uint32_t nv, uint32_t nc, const uint8_t *y,
               es_mdfs_result_t *r, double *sec)
{
    gen_t g = {n, nv, nc, (uint32_t)o->divisions + 1};
    memset(r, 0, sizeof *r);
    double t0 = es_time_now();
    int ret = es_mdfs_max_ig(o, n, nv, nc, y, gen, &g, r);
    *sec = es_time_now() - t0;
    if (ret) fprintf(stderr, "es_mdfs_max_ig: %s\n", es_strerror(ret));
    return ret;
}

/* The b1 ceilings and the screen's tuples/s at them (divisions 2: 4 products
 * a pair and 8 a triple, each over a class's words padded to 8). */
static int peak(void)
{
    double mma = 0.0, wg = 0.0;
    if (es_gpu_b1_ceiling(0, &mma)) {
        fprintf(stderr, "bench_mdfs_gpu peak: no b1 mma.sync ceiling (no GPU, or before sm_80)\n");
        return 1;
    }
    if (es_gpu_b1_ceiling_wgmma(0, &wg)) wg = 0.0;
    printf("b1 ceilings, device 0: mma.sync %.3g bit-MAC/s, wgmma %.3g bit-MAC/s (0: not sm_90a)\n", mma, wg);
    printf("| dim | objects | padded bits | bit-MACs a tuple | tuples/s at the mma.sync ceiling | / 1.35e9 | at the wgmma ceiling | / 1.35e9 |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    for (int k = 2; k <= 3; k++)
        for (int n = 1000; n <= 10000; n *= 10) {
            const uint32_t w0 = (uint32_t)(n / 2 + 63) / 64, w1 = (uint32_t)(n - n / 2 + 63) / 64;
            const double bits = 64.0 * ((w0 + 7) / 8 * 8 + (w1 + 7) / 8 * 8);
            const double macs = bits * (k == 2 ? 4.0 : 8.0);
            printf("| %dD | %d | %.0f | %.0f | %.3g | %.1fx | %.3g | %.1fx |\n", k, n, bits, macs, mma / macs,
                   mma / macs / 1.35e9, wg / macs, wg / macs / 1.35e9);
        }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "peak")) return peak();
    if (argc < 5) {
        fprintf(stderr, "usage: bench_mdfs_gpu DIM OBJECTS VARS_GPU VARS_CPU [DIVISIONS [DISCRETIZATIONS [CONTRAST]]] | peak\n");
        return 2;
    }
    es_mdfs_opt_t o;
    es_mdfs_opt_init(&o);
    o.dim = atoi(argv[1]);
    const uint32_t n = (uint32_t)atol(argv[2]), nv_gpu = (uint32_t)atol(argv[3]), nv_cpu = (uint32_t)atol(argv[4]);
    o.divisions = argc > 5 ? atoi(argv[5]) : 2;
    o.discretizations = argc > 6 ? atoi(argv[6]) : 1;
    const uint32_t nc = argc > 7 ? (uint32_t)atol(argv[7]) : 0;
    if (es_mdfs_opt_check(&o, n, nv_gpu) || es_mdfs_opt_check(&o, n, nv_cpu)) return 2;
    const char *ng = getenv("EPISTREAM_BENCH_GPUS");
    if (ng && *ng) o.gpu_mask = (1ull << atoi(ng)) - 1;
    uint8_t *y = malloc(n);
    if (!y) return 1;
    for (uint32_t i = 0; i < n; i++) y[i] = (uint8_t)(mix(0xabcdefull + i) & 1);
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    es_mdfs_result_t rc, rg, rb;
    double sc, sg, sb;
    o.device = ES_MDFS_DEV_CPU;
    if (run(&o, n, nv_cpu, nc, y, &rc, &sc)) return 1;
    o.device = ES_MDFS_DEV_GPU;
    if (run(&o, n, nv_cpu, nc, y, &rg, &sg)) return 1;
    int same = 1;
    for (uint32_t v = 0; v < nv_cpu; v++)
        if (memcmp(&rc.max_ig[v], &rg.max_ig[v], sizeof(double)) || rc.arg_disc[v] != rg.arg_disc[v] ||
            memcmp(rc.arg_tuple + (size_t)v * o.dim, rg.arg_tuple + (size_t)v * o.dim, sizeof(uint32_t) * o.dim))
            same = 0;
    for (uint32_t q = 0; q < nc; q++)
        if (memcmp(&rc.contrast_ig[q], &rg.contrast_ig[q], sizeof(double))) same = 0;
    if (run(&o, n, nv_gpu, nc, y, &rb, &sb)) return 1;
    const double tc = (double)rc.tuples_done / rc.count_seconds, tg = (double)rb.tuples_done / rb.count_seconds;
    const double tk = (double)rb.tuples_done / rb.kernel_seconds;
    printf("| %dD | %u | %u | %d | %u | %.3g | %u | %.3g | %.3g | %llu | %.1fx | %.1fx | %.1fx | %s | %s |\n", o.dim, n,
           o.divisions, threads, nv_cpu, tc, nv_gpu, tg, tk, (unsigned long long)rb.rescored, tg / tc, tg / 1.35e9,
           tk / 1.35e9, same ? "same" : "DIFFERENT", strstr(rb.device, "double sums") ? "tensor cores, double sums"
           : strstr(rb.device, "tensor cores") ? "tensor cores, float sums" : "popcount");
    fprintf(stderr, "cpu %s %.3f s (packing %.3f); gpu (cpu's size) %.3f s, kernels %.3f s, %llu rescored; gpu %.3f s, "
            "kernels %.3f s, packing %.3f s, upload %.3f s, rescoring %.3f s; %s\n",
            rc.device, rc.count_seconds, rc.pack_seconds, rg.count_seconds, rg.kernel_seconds,
            (unsigned long long)rg.rescored, rb.count_seconds, rb.kernel_seconds, rb.pack_seconds, rb.upload_seconds,
            rb.rescore_seconds, rb.device);
    es_mdfs_result_free(&rc), es_mdfs_result_free(&rg), es_mdfs_result_free(&rb);
    free(y);
    return same ? 0 : 1;
}
