/* test_screen.c -- the GPU's first-stage screen (gpu/pair/screen.cuh,
 * gk_screen_sum2) never below the exact statistic, on the CPU: the screen's
 * functions are __host__ __device__, and es_gpu_screen_host() runs them here
 * (both forms: a stratum's sum with three reciprocals and with one)
 * with exact reciprocals (the device's rcp.approx is within 1 ulp of them,
 * inside the screen's relative margin; test_gpu checks the device's own
 * values the same way).  Needs no GPU, only a CUDA build (77 without one).
 *
 * Tables: random ones of every size the screen serves (12 to 4,000,000
 * samples), and adversarial ones: empty cells and whole empty levels, one
 * class of 1 sample, a single genotype of either variant, every sample in one
 * cell, perfect association, extreme class splits, strata of one class, and
 * tables whose exact statistic sits near a typical threshold.  Each bound of
 * boost, chi2, mi and ig must be >= the exact value (src/stats, in double).
 *
 * The same tables check the second stage's exact statistic
 * (gpu/pair/exact.cuh, es_gpu_exact_host()): with the host's log() it is
 * the host's value bit for bit; test_gpu checks the device's own values
 * against the margin. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpu_test.h"
#include "stats.h"
#include "tu_rand.h"

static const es_stat_t stats[] = {ES_STAT_BOOST, ES_STAT_CHI2, ES_STAT_MI, ES_STAT_IG};

static uint64_t rng = 0x5eed2401u;
static uint32_t rnd(uint32_t n) { return n ? (uint32_t)(tu_rand(&rng) % n) : 0u; }
static double unif(void) { return (double)(tu_rand(&rng) >> 11) * 0x1p-53; }

/* The exact statistic of t in the screen's unit, nats: boost G / 2, chi2
 * X^2, mi and ig N I ln 2. */
static double exact_nats(es_stat_t s, const es_table2_t *t)
{
    double n = 0;
    for (int y = 0; y < 2; y++)
        for (int c = 0; c < 9; c++) n += t->n[y][c];
    switch (s) {
    case ES_STAT_BOOST: return es_stat_boost(t) / 2.0;
    case ES_STAT_CHI2: return es_stat_chi2(t, NULL);
    case ES_STAT_MI: return es_stat_mi(t, NULL) * n * M_LN2;
    default: return es_stat_ig(t, NULL) * n * M_LN2;
    }
}

/* A table of N samples: genotype frequencies pa, pb, case fraction pc,
 * (effect) one cell's case odds pushed to pe. */
static void draw(es_table2_t *t, uint32_t N, double pa, double pb, double pc, int effect, double pe)
{
    memset(t, 0, sizeof *t);
    int ea = (int)rnd(3), eb = (int)rnd(3);
    for (uint32_t k = 0; k < N; k++) {
        int a = (unif() < pa) + (unif() < pa), b = (unif() < pb) + (unif() < pb);
        double p = effect && a == ea && b == eb ? pe : pc;
        t->n[unif() < p][a * 3 + b]++;
    }
}

/* A table of N samples drawn fast, by cell probabilities (large N). */
static void draw_big(es_table2_t *t, uint32_t N, double pa, double pb, double pc)
{
    memset(t, 0, sizeof *t);
    double g[3] = {(1 - pa) * (1 - pa), 2 * pa * (1 - pa), pa * pa}, h[3] = {(1 - pb) * (1 - pb), 2 * pb * (1 - pb), pb * pb};
    uint32_t left = N;
    for (int c = 0; c < 9 && left; c++) {
        double p = g[c / 3] * h[c % 3];
        uint32_t k = c == 8 ? left : (uint32_t)fmin((double)left, floor(p * N + (unif() - 0.5) * sqrt(p * N + 1)));
        uint32_t cas = (uint32_t)fmin((double)k, floor(k * pc + (unif() - 0.5) * sqrt(k * pc + 1) * 2));
        t->n[1][c] = cas;
        t->n[0][c] = k - cas;
        left -= k;
    }
}

static int failures;

/* The second stage's twin (gpu/pair/exact.cuh), run here with the host's
 * log(): every value it decides must be es_stat_value()'s bit for bit (the
 * same operations in the same order, BOOST's whole fit included), within
 * its margin, and it may leave undecided only mi and ig tables of
 * ES_NLOGN_TAB samples or more, and BOOST fits slower than its sweep cap. */
static int boost_undecided;
static size_t boost_fitted; /* decided BOOST tables with a fit for the host (es_stat_boost_fitted) */

static void check_exact(es_stat_t st, const es_table2_t *t, const es_gpu_cand_t *c, size_t k)
{
    double v = NAN, eps = NAN, fit[18];
    int ok = -1;
    assert_int_equal(es_gpu_exact_host((int)st, c, 1, es_nlogn_table(), ES_NLOGN_TAB, &v, &eps, &ok, fit), 0);
    uint64_t n = 0;
    for (int y = 0; y < 2; y++)
        for (int i = 0; i < 9; i++) n += t->n[y][i];
    if (!ok) {
        if ((st == ES_STAT_MI || st == ES_STAT_IG) && n >= ES_NLOGN_TAB) return;
        if (st == ES_STAT_BOOST && ++boost_undecided <= 2) return; /* a slow fit: rare */
    }
    es_stat_result_t r;
    es_stat_value(st, t, &r);
    if (!ok || memcmp(&v, &r.stat, sizeof v) != 0 || !(eps >= 0.0) || !(eps <= 1e-9 * (fabs(v) + (double)n) + 1e-300)) {
        if (failures++ < 20) {
            fprintf(stderr, "table %zu %s: exact twin %.17g (eps %.3g, ok %d), host %.17g:", k, es_stat_name(st), v,
                    eps, ok, r.stat);
            for (int y = 0; y < 2; y++)
                for (int i = 0; i < 9; i++) fprintf(stderr, " %u", t->n[y][i]);
            fputc('\n', stderr);
        }
    }
    /* BOOST: the fit the second stage sends gives es_stat_value() bit for
     * bit through es_stat_value_boost_fitted(); there is one wherever the
     * value was decided and the table not degenerate (df != 0) */
    if (st == ES_STAT_BOOST && ok) {
        int bad = 0;
        if (!isnan(fit[0])) {
            es_stat_result_t rf;
            boost_fitted++;
            es_stat_value_boost_fitted(t, fit, &rf);
            bad = memcmp(&rf.stat, &r.stat, sizeof rf.stat) != 0 || rf.df != r.df;
        } else {
            bad = r.df != 0;
        }
        if (bad && failures++ < 20)
            fprintf(stderr, "table %zu boost: the fit %s, host %.17g\n", k,
                    isnan(fit[0]) ? "is missing" : "gives another value", r.stat);
    }
}

static void check(const es_table2_t *t, size_t k)
{
    es_gpu_cand_t c;
    memset(&c, 0, sizeof c);
    memcpy(c.n, t->n, sizeof c.n);
    for (size_t s = 0; s < sizeof stats / sizeof *stats; s++) {
        check_exact(stats[s], t, &c, k);
        double ex = exact_nats(stats[s], t);
        /* both forms: three reciprocals a stratum, and one (s3) */
        for (int s3 = 0; s3 < 2; s3++) {
            float up = 0.0f;
            assert_int_equal(es_gpu_screen_host((int)stats[s], s3, &c, 1, &up), 0);
            /* the CPU's own double rounding */
            if (!((double)up >= ex - 1e-9 * fabs(ex) - 1e-9)) {
                if (failures++ < 20) {
                    fprintf(stderr, "table %zu %s (s3 %d): screen %.9g < exact %.12g nats:", k,
                            es_stat_name(stats[s]), s3, up, ex);
                    for (int y = 0; y < 2; y++)
                        for (int i = 0; i < 9; i++) fprintf(stderr, " %u", t->n[y][i]);
                    fputc('\n', stderr);
                }
            }
        }
    }
}

static void test_random(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {12, 100, 999, 1024, 4096, 8192, 20000, 100000};
    es_table2_t t;
    for (size_t k = 0; k < 3000; k++) {
        uint32_t N = sizes[rnd(8)];
        double pa = 0.01 + 0.9 * unif(), pb = 0.01 + 0.9 * unif(), pc = 0.02 + 0.96 * unif();
        draw(&t, N > 20000 ? 20000 : N, pa, pb, pc, (int)(k % 3), k % 2 ? 0.98 : 0.02);
        check(&t, k);
    }
    /* large cohorts, where the offset o grows to 1/2 */
    static const uint32_t big[] = {200000, 1000000, 4000000, 8000000};
    for (size_t k = 0; k < 400; k++) {
        draw_big(&t, big[k % 4], 0.02 + 0.9 * unif(), 0.02 + 0.9 * unif(), 0.02 + 0.96 * unif());
        check(&t, 10000 + k);
    }
    assert_int_equal(failures, 0);
    assert_true(boost_fitted > 3000); /* nearly every table of both loops had its fit checked */
}

/* Tables at the edges of the bound's cases. */
static void test_adversarial(void **state)
{
    (void)state;
    es_table2_t t;
    size_t k = 0;
    /* every sample in one cell, either class or both */
    for (int c = 0; c < 9; c++)
        for (int y = 0; y < 3; y++) {
            memset(&t, 0, sizeof t);
            if (y < 2) t.n[y][c] = 500;
            else t.n[0][c] = t.n[1][c] = 250;
            check(&t, k++);
        }
    /* the empty table, one sample, two samples in different cells */
    memset(&t, 0, sizeof t);
    check(&t, k++);
    t.n[1][4] = 1;
    check(&t, k++);
    t.n[0][8] = 1;
    check(&t, k++);
    /* perfect association: cases only in one cell, controls elsewhere */
    for (int c = 0; c < 9; c++) {
        memset(&t, 0, sizeof t);
        for (int i = 0; i < 9; i++) t.n[0][i] = 40 + (uint32_t)i;
        t.n[0][c] = 0;
        t.n[1][c] = 300;
        check(&t, k++);
    }
    /* one case among many controls (and the reverse), in every cell */
    for (int c = 0; c < 9; c++)
        for (int y = 0; y < 2; y++) {
            draw(&t, 5000, 0.3, 0.4, y ? 0.0 : 1.0, 0, 0.5);
            t.n[y][c]++;
            check(&t, k++);
        }
    /* a monomorphic variant (A or B), a variant with one level missing */
    for (int r = 0; r < 200; r++) {
        draw(&t, 2000, r % 4 == 0 ? 0.0 : 0.3, r % 4 == 1 ? 0.0 : 0.3, 0.2 + 0.6 * unif(), r % 2, 0.9);
        if (r % 4 == 2)
            for (int y = 0; y < 2; y++)
                for (int b = 0; b < 3; b++) {
                    t.n[y][3 + b] += t.n[y][6 + b]; /* no [A=2] */
                    t.n[y][6 + b] = 0;
                }
        check(&t, k++);
    }
    /* strata of one class: every case in [A=2] */
    for (int r = 0; r < 100; r++) {
        draw(&t, 3000, 0.4, 0.2 + 0.5 * unif(), 0.0, 0, 0.0);
        for (int b = 0; b < 3; b++) {
            t.n[1][6 + b] = t.n[0][6 + b];
            t.n[0][6 + b] = 0;
        }
        check(&t, k++);
    }
    /* extreme class splits, sparse tables, and small cohorts */
    for (int r = 0; r < 600; r++) {
        double pc = r % 3 == 0 ? 0.001 : r % 3 == 1 ? 0.999 : 0.5;
        draw(&t, 2 + rnd(r % 2 ? 40 : 60000), 0.02 + 0.5 * unif(), 0.02 + 0.5 * unif(), pc, r % 5 == 0, 0.5);
        check(&t, k++);
    }
    /* near a typical threshold: a weak effect in one cell, N = 1,024 */
    for (int r = 0; r < 600; r++) {
        draw(&t, 1024, 0.1 + 0.4 * unif(), 0.1 + 0.4 * unif(), 0.5, 1, 0.5 + 0.25 * unif());
        check(&t, k++);
    }
    assert_int_equal(failures, 0);
}

/* And tight where it should be: chi2's bound is Pearson's X^2 itself (at
 * the float class weight), plus margins of 1e-5 relative and 4e-6 N U per
 * stratum absolute, so a wrong cell, weight or offset would show here as
 * well as in the soundness checks. */
static void test_tight(void **state)
{
    (void)state;
    es_table2_t t;
    double worst = 0.0;
    for (int r = 0; r < 300; r++) {
        draw(&t, 1024, 0.2 + 0.3 * unif(), 0.2 + 0.3 * unif(), 0.5, 1, 0.8);
        es_gpu_cand_t c;
        memcpy(c.n, t.n, sizeof c.n);
        double ex = exact_nats(ES_STAT_CHI2, &t);
        for (int s3 = 0; s3 < 2; s3++) {
            float up = 0.0f;
            assert_int_equal(es_gpu_screen_host(ES_STAT_CHI2, s3, &c, 1, &up), 0);
            if (ex > 20.0 && up / ex > worst) worst = up / ex;
        }
    }
    /* chi2's screen is Pearson's X^2 itself, with the float margins */
    assert_true(worst < 1.01);
}

int main(void)
{
    float o;
    es_gpu_cand_t c;
    memset(&c, 0, sizeof c);
    if (es_gpu_screen_host(ES_STAT_CHI2, 0, &c, 1, &o) == ES_ERR_UNSUPPORTED) {
        printf("SKIP: built without CUDA (the screen's code is CUDA C++)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_adversarial),
        cmocka_unit_test(test_tight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
