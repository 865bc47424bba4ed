/* test_nsga.c -- NSGA-II's parts against brute-force references: the
 * non-dominated sort (ranks by repeatedly peeling the non-dominated points),
 * the crowding distance (neighbours found by counting), the hypervolume (the
 * dominated cells of the coordinate grid); the fitness kernels' scalar twin
 * against the SIMD kernel on random data; whole runs the same for 1 and 3
 * threads and for every split between the CPU and simulated GPUs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nsga.h"
#include "backend.h" /* testutil.h's scan helpers need it */
#include "testutil.h"
#include "nsga_test.h"

static int dom(const double *a, const double *b)
{
    return a[0] <= b[0] && a[1] <= b[1] && (a[0] < b[0] || a[1] < b[1]);
}

/* points on a coarse grid, so that ties and duplicates are common */
static double *random_points(uint32_t n, uint64_t *rng)
{
    double *f = malloc(2 * (n ? n : 1) * sizeof *f);
    for (uint32_t i = 0; i < 2 * n; i++) f[i] = (double)tu_randn(rng, 12) / 4.0;
    return f;
}

static void test_sort_brute(void **state)
{
    (void)state;
    uint64_t rng = 7;
    for (int rep = 0; rep < 200; rep++) {
        uint32_t n = (uint32_t)tu_randn(&rng, 120);
        double *f = random_points(n, &rng);
        uint32_t *rank = malloc((n + 1) * sizeof *rank), *want = malloc((n + 1) * sizeof *want);
        int fronts = es_nsga_sort(f, n, rank);
        /* peel: a point's rank is the round in which nothing left dominates it */
        uint32_t left = n, r = 0;
        for (uint32_t i = 0; i < n; i++) want[i] = UINT32_MAX;
        while (left) {
            uint32_t *now = malloc(n * sizeof *now), m = 0;
            for (uint32_t i = 0; i < n; i++) {
                if (want[i] != UINT32_MAX) continue;
                int d = 0;
                for (uint32_t j = 0; j < n && !d; j++)
                    d = want[j] == UINT32_MAX && dom(f + 2 * j, f + 2 * i);
                if (!d) now[m++] = i;
            }
            for (uint32_t k = 0; k < m; k++) want[now[k]] = r;
            left -= m;
            r++;
            free(now);
        }
        assert_int_equal(fronts, (int)r);
        for (uint32_t i = 0; i < n; i++) assert_int_equal(rank[i], want[i]);
        free(f);
        free(rank);
        free(want);
    }
}

static void test_crowding_brute(void **state)
{
    (void)state;
    uint64_t rng = 11;
    for (int rep = 0; rep < 200; rep++) {
        uint32_t n = 1 + (uint32_t)tu_randn(&rng, 40);
        double *f = random_points(n, &rng);
        uint32_t *idx = malloc(n * sizeof *idx), m = 0;
        for (uint32_t i = 0; i < n; i++)
            if (tu_randn(&rng, 3)) idx[m++] = i;
        double *cd = malloc((m + 1) * sizeof *cd);
        assert_int_equal(es_nsga_crowding(f, idx, m, cd), ES_OK);
        for (uint32_t k = 0; k < m; k++) {
            double want = 0.0;
            if (m <= 2) want = INFINITY;
            for (int o = 0; o < 2 && m > 2; o++) {
                /* position of k in the order by (value, position in idx) */
                double v = f[2 * idx[k] + o], lo = INFINITY, hi = -INFINITY;
                uint32_t pos = 0;
                for (uint32_t q = 0; q < m; q++) {
                    double w = f[2 * idx[q] + o];
                    pos += w < v || (w == v && q < k);
                    if (w < lo) lo = w;
                    if (w > hi) hi = w;
                }
                if (pos == 0 || pos == m - 1) {
                    want = INFINITY;
                    continue;
                }
                double prev = 0, next = 0;
                for (uint32_t q = 0; q < m; q++) {
                    double w = f[2 * idx[q] + o];
                    uint32_t pq = 0;
                    for (uint32_t t = 0; t < m; t++) {
                        double u = f[2 * idx[t] + o];
                        pq += u < w || (u == w && t < q);
                    }
                    if (pq == pos - 1) prev = w;
                    if (pq == pos + 1) next = w;
                }
                if (hi > lo) want += (next - prev) / (hi - lo);
            }
            if (isinf(want)) assert_true(isinf(cd[k]));
            else assert_true(fabs(cd[k] - want) < 1e-12);
        }
        free(f);
        free(idx);
        free(cd);
    }
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_hv_brute(void **state)
{
    (void)state;
    uint64_t rng = 5;
    const double ref[2] = {2.5, 2.75};
    for (int rep = 0; rep < 200; rep++) {
        uint32_t n = (uint32_t)tu_randn(&rng, 30);
        double *f = random_points(n, &rng);
        /* the grid of every coordinate and the reference: a cell counts when a point
           dominates its lower-left corner */
        double *xs = malloc((n + 1) * sizeof *xs), *ys = malloc((n + 1) * sizeof *ys);
        for (uint32_t i = 0; i < n; i++) {
            xs[i] = f[2 * i] < ref[0] ? f[2 * i] : ref[0];
            ys[i] = f[2 * i + 1] < ref[1] ? f[2 * i + 1] : ref[1];
        }
        xs[n] = ref[0];
        ys[n] = ref[1];
        qsort(xs, n + 1, sizeof *xs, cmp_d);
        qsort(ys, n + 1, sizeof *ys, cmp_d);
        double want = 0.0;
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = 0; b < n; b++) {
                double w = xs[a + 1] - xs[a], h = ys[b + 1] - ys[b];
                if (w <= 0 || h <= 0) continue;
                int in = 0;
                for (uint32_t i = 0; i < n && !in; i++) in = f[2 * i] <= xs[a] && f[2 * i + 1] <= ys[b];
                if (in) want += w * h;
            }
        assert_true(fabs(es_nsga_hv(f, n, ref) - want) < 1e-9);
        free(f);
        free(xs);
        free(ys);
    }
}

/* A random table file in a directory of its own (drop_table() removes both). */
static char *random_table(uint32_t n, uint32_t p, uint32_t c, uint64_t *rng)
{
    char *dir = tu_mkdtemp(), *path = nsga_random_table(dir, n, p, c, rng);
    free(dir);
    return path;
}

static void drop_table(char *path)
{
    *strrchr(path, '/') = '\0';
    tu_rmtree(path);
    free(path);
}

static void test_kernels_scalar_simd(void **state)
{
    (void)state;
    uint64_t rng = 99;
    for (int rep = 0; rep < 6; rep++) {
        /* sizes that hit the 16- and 64-lane tails */
        uint32_t n = 20 + (uint32_t)tu_randn(&rng, 150), p = 1 + (uint32_t)tu_randn(&rng, 70);
        char *path = random_table(n, p, 2 + (uint32_t)tu_randn(&rng, 3), &rng);
        for (int obj = 0; obj < 3; obj++) {
            es_nsga_data_t d;
            es_nsga_opt_t o;
            nsga_load_obj(path, obj, &d, &o);
            o.knn_k = 1 + (uint32_t)tu_randn(&rng, 7);
            uint32_t init[3] = {0, n / 2, n - 1};
            uint64_t m[2];
            for (int k = 0; k < 20; k++) {
                m[0] = ((uint64_t)tu_randn(&rng, 1u << 30) << 34) ^ (uint64_t)tu_randn(&rng, 1u << 30);
                m[1] = (uint64_t)tu_randn(&rng, 1u << 30);
                if (p < 64) m[0] &= (1ull << p) - 1, m[1] = 0;
                else if (p < 128) m[1] &= (1ull << (p - 64)) - 1;
                double a[2], b[2];
                assert_int_equal(es_nsga_eval_one(&d, &o, m, init, 0, a), ES_OK);
                assert_int_equal(es_nsga_eval_one(&d, &o, m, init, 1, b), ES_OK);
                assert_memory_equal(a, b, sizeof a);
            }
            es_nsga_data_free(&d);
        }
        drop_table(path);
    }
}

/* k-NN with many ties (features of 3 values) and k up to 20: the SIMD scan's
 * three ways to the k best (exactly k within the bound, up to 16 ranked in
 * registers, offers past 16 or with k > 16) against the scalar twin. */
static void test_knn_ties_scalar_simd(void **state)
{
    (void)state;
    uint64_t rng = 7;
    for (int rep = 0; rep < 4; rep++) {
        uint32_t n = 40 + (uint32_t)tu_randn(&rng, 200), p = 2 + (uint32_t)tu_randn(&rng, 20);
        char *dir = tu_mkdtemp(), *path = malloc(strlen(dir) + 16);
        sprintf(path, "%s/ties.csv", dir);
        free(dir);
        FILE *fp = fopen(path, "w");
        assert_non_null(fp);
        for (uint32_t f = 0; f < p; f++) fprintf(fp, "x%u,", f);
        fprintf(fp, "y\n");
        for (uint32_t i = 0; i < n; i++) {
            uint32_t y = (uint32_t)tu_randn(&rng, 3);
            for (uint32_t f = 0; f < p; f++) fprintf(fp, "%u,", (unsigned)tu_randn(&rng, 3) + (f == 0 ? y : 0));
            fprintf(fp, "%u\n", y);
        }
        fclose(fp);
        es_nsga_load_opt_t lo = {0};
        lo.folds = 5;
        es_nsga_data_t d;
        assert_int_equal(es_nsga_data_from_table(path, &lo, &d), ES_OK);
        es_nsga_opt_t o;
        es_nsga_opt_init(&o);
        o.obj = ES_NSGA_KNN;
        for (o.knn_k = 1; o.knn_k <= 20; o.knn_k++)
            for (int k = 0; k < 10; k++) {
                uint64_t m = (uint64_t)tu_randn(&rng, 1u << 30) & ((1ull << p) - 1);
                double a[2], b[2];
                assert_int_equal(es_nsga_eval_one(&d, &o, &m, NULL, 0, a), ES_OK);
                assert_int_equal(es_nsga_eval_one(&d, &o, &m, NULL, 1, b), ES_OK);
                assert_memory_equal(a, b, sizeof a);
            }
        es_nsga_data_free(&d);
        drop_table(path);
    }
}

static void test_threads_same_front(void **state)
{
    (void)state;
    uint64_t rng = 3;
    char *path = random_table(90, 12, 2, &rng);
    es_nsga_load_opt_t lo = {0};
    lo.folds = 5;
    es_nsga_data_t d;
    assert_int_equal(es_nsga_data_from_table(path, &lo, &d), ES_OK);
    es_nsga_result_t r1, r3;
    es_nsga_opt_t o;
    es_nsga_opt_init(&o);
    o.population = 20;
    o.generations = 8;
    o.seed = 17;
    o.threads = 1;
    assert_int_equal(es_nsga_run(&d, &o, &r1), ES_OK);
    o.threads = 3;
    assert_int_equal(es_nsga_run(&d, &o, &r3), ES_OK);
    assert_int_equal(r1.n_front, r3.n_front);
    assert_memory_equal(r1.front_mask, r3.front_mask, (size_t)r1.n_front * r1.words * 8);
    assert_memory_equal(r1.front_f, r3.front_f, (size_t)r1.n_front * 2 * sizeof(double));
    assert_memory_equal(r1.hv, r3.hv, r1.n_hv * sizeof(double));
    /* the hypervolume of an elitist run never falls */
    for (uint32_t g = 1; g < r1.n_hv; g++) assert_true(r1.hv[g] >= r1.hv[g - 1]);
    es_nsga_result_free(&r1);
    es_nsga_result_free(&r3);
    es_nsga_data_free(&d);
    drop_table(path);
}

/* The mixed schedule without a GPU: EPISTREAM_NSGA_SIM_GPU makes each gpu:N a
 * host thread that evaluates what a GPU would: with one GPU the planned
 * schedule's launch (the CPU threads taking the heaviest individuals the plan
 * gives them), with several (or EPISTREAM_NSGA_SCHED=dynamic) chunks claimed
 * from the front while the CPU pool's threads claim from the back by the
 * measured rates.  Every split gives the front and hypervolumes of the CPU
 * alone, and every individual is evaluated exactly once (EPISTREAM_NSGA_TAKEBACK=all:
 * also where the GPU's host thread takes back what the CPU threads have not done). */
static void test_sim_gpu_same_front(void **state)
{
    (void)state;
    uint64_t rng = 11;
    char *path = random_table(120, 30, 2, &rng);
    setenv("EPISTREAM_NSGA_SIM_GPU", "1", 1);
    for (int obj = 0; obj < 3; obj++) {
        es_nsga_data_t d;
        es_nsga_opt_t o;
        nsga_load_obj(path, obj, &d, &o);
        o.population = 40;
        o.generations = 12;
        o.seed = 9;
        o.threads = 2;
        const char *dev[] = {"cpu", "gpu:0", "cpu,gpu:0", "gpu:0,gpu:1", "cpu,gpu:1,gpu:0"};
        nsga_same_runs(&d, &o, dev, 5);
        /* one GPU: the planned schedule (above), and the chunked one */
        setenv("EPISTREAM_NSGA_SCHED", "dynamic", 1);
        nsga_same_runs(&d, &o, dev, 3);
        unsetenv("EPISTREAM_NSGA_SCHED");
        /* the GPU's host thread taking back every CPU individual not done when its values
           are back (stopping the threads that began them): the same bytes */
        setenv("EPISTREAM_NSGA_TAKEBACK", "all", 1);
        nsga_same_runs(&d, &o, dev, 3);
        unsetenv("EPISTREAM_NSGA_TAKEBACK");
        /* the simulated GPU is one host thread: the plan gives the two CPU threads a part,
           once a probe has timed them with the GPU busy (on a loaded machine their start
           can outlast the simulated GPU's generation, which then runs alone: a few tries) */
        o.devices = "cpu,gpu:0";
        o.generations = 30;
        int shared = 0;
        for (int k = 0; k < 8 && !shared; k++) {
            es_nsga_result_t r;
            assert_int_equal(es_nsga_run(&d, &o, &r), ES_OK);
            assert_int_equal(r.n_dev, 2);
            assert_int_equal(r.dev[0].evaluations + r.dev[1].evaluations, (uint64_t)o.population * 31);
            shared = r.dev[0].evaluations > 0 && r.dev[1].evaluations > 0;
            es_nsga_result_free(&r);
        }
#ifdef _OPENMP
        assert_true(shared);
#else
        (void)shared; /* without OpenMP no CPU thread runs beside the GPU's: the GPU alone */
#endif
        es_nsga_data_free(&d);
    }
    unsetenv("EPISTREAM_NSGA_SIM_GPU");
    drop_table(path);
}

static void test_bad_options(void **state)
{
    (void)state;
    es_nsga_data_t d = {0};
    d.p = 10;
    es_nsga_opt_t o;
    es_nsga_opt_init(&o);
    es_log_set_level(ES_LOG_QUIET); /* the errors expected here */
    o.population = 5; /* odd */
    es_nsga_result_t r;
    assert_int_equal(es_nsga_run(&d, &o, &r), ES_ERR_ARG);
    o.population = 10; /* k-NN without a class */
    assert_int_equal(es_nsga_run(&d, &o, &r), ES_ERR_ARG);
    o.obj = ES_NSGA_ZDT1;
    o.zdt_vars = 3; /* 10 bits are not 3 variables */
    assert_int_equal(es_nsga_run(&d, &o, &r), ES_ERR_ARG);
    es_log_set_level(ES_LOG_ERROR);
}

int main(void)
{
    es_log_set_level(ES_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_brute),
        cmocka_unit_test(test_crowding_brute),
        cmocka_unit_test(test_hv_brute),
        cmocka_unit_test(test_kernels_scalar_simd),
        cmocka_unit_test(test_knn_ties_scalar_simd),
        cmocka_unit_test(test_threads_same_front),
        cmocka_unit_test(test_sim_gpu_same_front),
        cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
