/* test_gpu_nsga.c -- the NSGA-II GPU kernels against the CPU's: every
 * objective's two values bit for bit on random data and masks (sizes that
 * hit the 16-slot and block tails), and whole runs on cpu, gpu:0 and
 * cpu,gpu:0 giving the same front and hypervolumes.  Exits 77 (skip) where
 * no GPU is visible or CUDA is not built. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpu.h"
#include "nsga.h"
#include "nsga_gpu.h"
#include "backend.h" /* testutil.h's scan helpers need it */
#include "testutil.h"
#include "nsga_test.h"

static char *dir;

static char *random_table(uint32_t n, uint32_t p, uint32_t c, uint64_t *rng)
{
    return nsga_random_table(dir, n, p, c, rng);
}

/* Every objective on random sizes, bit for bit the CPU's: the individuals in a
 * shuffled order (position q evaluates order[q]) over two launches; K-means
 * on the 256-thread kernel and on the 1,024-thread one (EPISTREAM_NSGA_GPU_WIDE
 * 0 and 2). */
static void test_values_bitwise(void **state)
{
    (void)state;
    uint64_t rng = 1234;
    for (int rep = 0; rep < 4; rep++) {
        uint32_t n = 30 + (uint32_t)tu_randn(&rng, 300), p = 1 + (uint32_t)tu_randn(&rng, 150);
        char *path = random_table(n, p, 2 + (uint32_t)tu_randn(&rng, 3), &rng);
        for (int run = 0; run < 4; run++) {
            int obj = run < 3 ? run : ES_GKN_KMEANS;
            setenv("EPISTREAM_NSGA_GPU_WIDE", run == 0 ? "0" : "2", 1);
            es_nsga_data_t d;
            es_nsga_opt_t o;
            nsga_load_obj(path, obj, &d, &o);
            o.knn_k = 1 + (uint32_t)tu_randn(&rng, 9);
            uint32_t words = (p + 63) / 64, pop = 37, init[3] = {1, n / 3, n - 2}, order[37];
            uint64_t *m = calloc((size_t)pop * words, 8);
            for (uint32_t i = 0; i < pop; i++)
                for (uint32_t f = 0; f < p; f++)
                    if (tu_randn(&rng, 4) == 0 || (i == 1)) m[(size_t)i * words + f / 64] |= 1ull << (f % 64);
            /* individual 0 stays empty; the order a random permutation */
            for (uint32_t i = 0; i < pop; i++) order[i] = i;
            for (uint32_t i = pop - 1; i > 0; i--) {
                uint32_t j = (uint32_t)tu_randn(&rng, i + 1), x = order[i];
                order[i] = order[j];
                order[j] = x;
            }
            uint32_t one_fold[2] = {0, d.n_slots};
            es_gkn_config_t cfg = {.obj = obj, .n = d.n, .p = d.p, .n_slots = d.n_slots,
                                   .n_classes = d.n_classes, .n_folds = d.n_folds,
                                   .fold_off = d.n_folds ? d.fold_off : one_fold, .fold_n = d.fold_n,
                                   .xc = d.xc, .xr = d.xr, .orig = d.orig, .y = d.y,
                                   .knn_k = o.knn_k, .clusters = 3, .kmeans_iter = o.kmeans_iter,
                                   .max_pop = pop, .words = words};
            es_gkn_t *g;
            assert_int_equal(es_gkn_open(0, &cfg, &g), ES_OK);
            assert_int_equal(es_gkn_population(g, m, pop, init, order), ES_OK);
            double *fg = calloc(2 * pop, sizeof *fg);
            assert_int_equal(es_gkn_eval(g, 0, 20, fg), ES_OK);
            assert_int_equal(es_gkn_launch(g, 20, pop - 20), ES_OK);
            assert_int_equal(es_gkn_wait(g, fg + 40), ES_OK);
            int wide = -1;
            assert_true(es_gkn_kernel_seconds(g, &wide) >= 0.0);
            assert_int_equal(wide, obj == ES_GKN_KMEANS && run ? 1 : 0);
            for (uint32_t q = 0; q < pop; q++) {
                double fc[2];
                uint32_t i = order[q];
                assert_int_equal(es_nsga_eval_one(&d, &o, m + (size_t)i * words, init, 1, fc), ES_OK);
                if (memcmp(fc, fg + 2 * q, sizeof fc))
                    fail_msg("obj %d (wide %d) n %u p %u individual %u: cpu %.17g %.17g gpu %.17g %.17g", obj,
                             run > 0, n, p, i, fc[0], fc[1], fg[2 * q], fg[2 * q + 1]);
            }
            es_gkn_close(g);
            free(fg);
            free(m);
            es_nsga_data_free(&d);
        }
        free(path);
    }
    unsetenv("EPISTREAM_NSGA_GPU_WIDE");
}

/* The paper's shape on the wide K-means kernel: more features than a block has
 * threads (the centroid update a thread per feature), the default 20 Lloyd
 * iterations, bit for bit the CPU's. */
static void test_kmeans_wide_large(void **state)
{
    (void)state;
    uint64_t rng = 99;
    char *path = random_table(178, 1500, 3, &rng);
    es_nsga_data_t d;
    es_nsga_opt_t o;
    nsga_load_obj(path, ES_GKN_KMEANS, &d, &o);
    uint32_t words = (d.p + 63) / 64, pop = 24, init[3] = {5, 60, 170};
    uint64_t *m = calloc((size_t)pop * words, 8);
    for (uint32_t i = 0; i < pop; i++)
        for (uint32_t f = 0; f < d.p; f++)
            if (tu_randn(&rng, 24) <= i) m[(size_t)i * words + f / 64] |= 1ull << (f % 64);
    uint32_t one_fold[2] = {0, d.n_slots};
    es_gkn_config_t cfg = {.obj = ES_GKN_KMEANS, .n = d.n, .p = d.p, .n_slots = d.n_slots,
                           .n_classes = d.n_classes, .n_folds = d.n_folds,
                           .fold_off = d.n_folds ? d.fold_off : one_fold, .fold_n = d.fold_n,
                           .xc = d.xc, .xr = d.xr, .orig = d.orig, .y = d.y,
                           .clusters = 3, .kmeans_iter = o.kmeans_iter, .max_pop = pop, .words = words};
    double *fg = calloc(2 * pop, sizeof *fg);
    for (int wide = 0; wide < 2; wide++) {
        setenv("EPISTREAM_NSGA_GPU_WIDE", wide ? "1" : "0", 1);
        es_gkn_t *g;
        assert_int_equal(es_gkn_open(0, &cfg, &g), ES_OK);
        assert_int_equal(es_gkn_population(g, m, pop, init, NULL), ES_OK);
        assert_int_equal(es_gkn_eval(g, 0, pop, fg), ES_OK);
        int used = -1;
        es_gkn_kernel_seconds(g, &used);
        assert_int_equal(used, wide && pop <= es_gkn_sms(g)); /* at most one block an SM */
        for (uint32_t i = 0; i < pop; i++) {
            double fc[2];
            assert_int_equal(es_nsga_eval_one(&d, &o, m + (size_t)i * words, init, 1, fc), ES_OK);
            if (memcmp(fc, fg + 2 * i, sizeof fc))
                fail_msg("wide %d individual %u: cpu %.17g %.17g gpu %.17g %.17g", wide, i, fc[0], fc[1],
                         fg[2 * i], fg[2 * i + 1]);
        }
        es_gkn_close(g);
    }
    unsetenv("EPISTREAM_NSGA_GPU_WIDE");
    free(fg);
    free(m);
    es_nsga_data_free(&d);
    free(path);
}

static void test_runs_same_front(void **state)
{
    (void)state;
    uint64_t rng = 77;
    char *path = random_table(200, 40, 3, &rng);
    for (int obj = 0; obj < 3; obj++) {
        es_nsga_data_t d;
        es_nsga_opt_t o;
        nsga_load_obj(path, obj, &d, &o);
        o.population = 64;
        o.generations = 10;
        o.seed = 5;
        const char *dev[] = {"cpu", "gpu:0", "cpu,gpu:0"};
        nsga_same_runs(&d, &o, dev, 3);
        setenv("EPISTREAM_NSGA_SCHED", "dynamic", 1); /* the chunked self-scheduling */
        nsga_same_runs(&d, &o, dev, 3);
        unsetenv("EPISTREAM_NSGA_SCHED");
        /* every CPU individual not done when the GPU's values are back taken back (its
           thread stopped) and evaluated by a second launch */
        setenv("EPISTREAM_NSGA_TAKEBACK", "all", 1);
        nsga_same_runs(&d, &o, dev, 3);
        unsetenv("EPISTREAM_NSGA_TAKEBACK");
        es_nsga_data_free(&d);
    }
    free(path);
}

int main(void)
{
    int skip = tu_gpu_none();
    if (skip) return skip;
    es_log_set_level(ES_LOG_ERROR);
    dir = tu_mkdtemp();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_bitwise),
        cmocka_unit_test(test_kmeans_wide_large),
        cmocka_unit_test(test_runs_same_front),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tu_rmtree(dir);
    free(dir);
    return rc;
}
