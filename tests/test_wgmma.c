/* test_wgmma.c -- the sm_90a wgmma b1 main loops (gpu/pair/wgmma_cp.cuh and
 * wgmma_tma.cuh, over wgmma_common.cuh) against a
 * plain CPU popcount loop: every raw product popcount(a_r & b_c) of both
 * classes, bit-identical (skips with 77 where no CUDA device is visible or
 * the device or build has no sm_90a wgmma; always compiled).
 *
 *  - 2 and 3 planes; variant counts that are not multiples of the CTA tile
 *    (1, 63, 65, 130, 200: partial and single-row tiles on both sides);
 *  - class geometries kw0 = 16, kw1 = 32 (one and two 1024-bit slices),
 *    kw0 = kw1 = 128 (eight slices each), and kw0 = 20, kw1 = 36 with a gap
 *    before off_ctrl and words after the controls (partial slices: the words
 *    outside the classes hold random junk that must not be counted);
 *  - samples past n_case / n_ctrl are zero in every class (the planes'
 *    padding invariant); a diagonal tile (a and b the same block);
 *  - two planes with each operand loader (cp.async, TMA, TMA multicast in
 *    clusters of 2 and 4). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "epistream.h"
#include "gpu.h"
#include "gpu_test.h"
#include "testutil.h"

typedef struct {
    uint32_t words, off_ctrl, kw0, kw1;
    uint32_t n_case, n_ctrl; /* samples: bits past them are zero */
} geom_t;

static const geom_t geoms[] = {
    {48, 16, 16, 32, 16 * 64 - 37, 32 * 64 - 5},
    {256, 128, 128, 128, 128 * 64 - 1000, 128 * 64},
    {80, 32, 20, 36, 20 * 64 - 3, 36 * 64 - 64},
};

/* Random planes of n variants: class words random up to the class's sample
 * count, zero past it; the words outside both classes random junk. */
static uint64_t *make_planes(uint32_t n, int np, const geom_t *g, uint64_t *seed)
{
    size_t rows = (size_t)n * np;
    uint64_t *p = malloc((rows ? rows : 1) * g->words * sizeof *p);
    assert_non_null(p);
    for (size_t r = 0; r < rows; r++) {
        uint64_t *row = p + r * g->words;
        for (uint32_t w = 0; w < g->words; w++) row[w] = tu_rand(seed);
        /* sparse or dense rows now and then, so counts span their range */
        uint32_t kind = tu_randn(seed, 8);
        for (uint32_t c = 0; c < 2; c++) {
            uint32_t w0 = c ? g->off_ctrl : 0, kw = c ? g->kw1 : g->kw0, ns = c ? g->n_ctrl : g->n_case;
            for (uint32_t w = 0; w < kw; w++) {
                uint64_t x = row[w0 + w];
                if (kind == 0) x &= tu_rand(seed) & tu_rand(seed);
                else if (kind == 1) x |= tu_rand(seed) | tu_rand(seed);
                else if (kind == 2) x = ~0ULL;
                uint32_t bit0 = w * 64;
                if (bit0 >= ns) x = 0;
                else if (ns - bit0 < 64) x &= (1ULL << (ns - bit0)) - 1;
                row[w0 + w] = x;
            }
        }
    }
    return p;
}

static uint32_t popc_and(const uint64_t *x, const uint64_t *y, uint32_t n)
{
    uint32_t s = 0;
    for (uint32_t w = 0; w < n; w++) s += (uint32_t)__builtin_popcountll(x[w] & y[w]);
    return s;
}

/* All products of a (na variants) x b (nb variants) against the CPU. */
static void check(int np, const geom_t *g, const uint64_t *a, uint32_t na, const uint64_t *b, uint32_t nb)
{
    size_t ra = (size_t)na * np, rb = (size_t)nb * np, n = 2 * ra * rb;
    uint32_t *out = malloc((n ? n : 1) * sizeof *out);
    assert_non_null(out);
    int ret = es_gpu_b1_gemm_test(0, np, a, na, b, nb, g->words, g->off_ctrl, g->kw0, g->kw1, out);
    if (ret != ES_OK) {
        free(out);
        fail_msg("np %d, %u x %u variants, kw %u/%u: error %d", np, na, nb, g->kw0, g->kw1, ret);
    }
    size_t bad = 0;
    for (uint32_t y = 0; y < 2; y++) {
        uint32_t w0 = y ? g->off_ctrl : 0, kw = y ? g->kw1 : g->kw0;
        for (size_t r = 0; r < ra; r++) {
            for (size_t c = 0; c < rb; c++) {
                uint32_t want = popc_and(a + r * g->words + w0, b + c * g->words + w0, kw);
                uint32_t got = out[(y * ra + r) * rb + c];
                if (got != want && bad++ < 8)
                    fprintf(stderr,
                            "np %d, %u x %u variants, words %u, kw %u/%u: class %u row %zu (tile row "
                            "%zu) col %zu (tile col %zu): %u, expected %u\n",
                            np, na, nb, g->words, g->kw0, g->kw1, y, r, r % (size_t)(64 * np), c,
                            c % (size_t)(np == 2 ? 128 : 96), got, want);
            }
        }
    }
    free(out);
    if (bad) fail_msg("np %d, %u x %u variants, kw %u/%u: %zu of %zu products differ", np, na, nb, g->kw0, g->kw1,
                      bad, n);
}

static void run_np(int np)
{
    static const uint32_t sizes[][2] = {{1, 1}, {63, 65}, {65, 63}, {130, 200}, {200, 130}, {1, 200}, {200, 1}};
    uint64_t seed = 0x5eed0000u + (uint64_t)np;
    for (size_t k = 0; k < sizeof geoms / sizeof *geoms; k++) {
        const geom_t *g = &geoms[k];
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            uint64_t *a = make_planes(sizes[s][0], np, g, &seed);
            uint64_t *b = make_planes(sizes[s][1], np, g, &seed);
            check(np, g, a, sizes[s][0], b, sizes[s][1]);
            free(a);
            free(b);
        }
        /* diagonal: one block against itself */
        uint64_t *d = make_planes(130, np, g, &seed);
        check(np, g, d, 130, d, 130);
        free(d);
    }
}

/* Two planes with every operand loader: per-thread cp.async (the default
 * per shape, then its two copy codes, cp-regs 8 and cp-plain 9), and the
 * bulk tensor copy alone and in clusters of 2 and 4 CTAs multicasting the A
 * tile (grids rounded up to whole clusters: CTAs past the last variant). */
static void test_np2(void **state)
{
    (void)state;
    static const int loaders[] = {0, 8, 9, 1, 2, 4};
    const int was = es_gpu_wgmma_loader(-1);
    for (size_t i = 0; i < sizeof loaders / sizeof *loaders; i++) {
        es_gpu_wgmma_loader(loaders[i]);
        run_np(2);
        /* a loader whose tensor maps the driver refused falls back to 0 */
        assert_int_equal(es_gpu_wgmma_loader(-1), loaders[i]);
    }
    es_gpu_wgmma_loader(was);
}

static void test_np3(void **state)
{
    (void)state;
    run_np(3);
}

/* Arguments the mainloop cannot take are refused before any device work. */
static void test_bad_args(void **state)
{
    (void)state;
    uint64_t a[48] = {0};
    uint32_t out[8];
    assert_int_equal(es_gpu_b1_gemm_test(0, 4, a, 1, a, 1, 48, 16, 16, 32, out), ES_ERR_ARG);
    assert_int_equal(es_gpu_b1_gemm_test(0, 2, a, 1, a, 1, 47, 16, 16, 30, out), ES_ERR_ARG);
    assert_int_equal(es_gpu_b1_gemm_test(0, 2, a, 1, a, 1, 48, 16, 16, 34, out), ES_ERR_ARG);
}

int main(void)
{
    int skip = tu_gpu_none();
    if (skip) return skip;
    uint64_t a[48] = {0};
    uint32_t out[8];
    int ret = es_gpu_b1_gemm_test(0, 2, a, 1, a, 1, 48, 16, 16, 32, out);
    if (ret == ES_ERR_UNSUPPORTED) {
        printf("device 0 or this build has no sm_90a wgmma: skipped\n");
        return 77;
    }
    double rate = 0.0;
    if (es_gpu_b1_ceiling_wgmma(0, &rate) == ES_OK) printf("# wgmma b1 ceiling: %.3g bit-MAC/s\n", rate);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_np2),
        cmocka_unit_test(test_np3),
        cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
