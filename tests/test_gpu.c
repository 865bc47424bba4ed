/* test_gpu.c -- the GPU engine against its CPU twins (skips with 77 where no
 * CUDA device is visible; always compiled).
 *
 *  - counts: every pair table of every kernel family bit-identical to
 *    es_count_pair(), for sample counts that are not multiples of 64, 256 or
 *    1024, with and without missing calls, a monomorphic and an all-missing
 *    variant, on off-diagonal and diagonal tiles;
 *  - bounds: the device's float bounds of every statistic (both the
 *    two-plane per-variant form and the per-pair form, and the first-stage
 *    screen's) hold the exact CPU value, on random, sparse, unbalanced,
 *    monomorphic and strongly associated tables, and are tight where they
 *    should be;
 *  - exact: the second stage's exact statistic on the device within its
 *    proven margin of the host's (chi2, mi, ig: equal);
 *  - scans: top-k, summary and significant pairs of --device gpu identical to
 *    --device cpu for every statistic and kernel, several tile sizes, and a
 *    block cache capped to two blocks (streaming). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "select.h"
#include "gpu.h"
#include "gpu_test.h"
#include "testutil.h"

static const int kernels[] = {ES_GPU_KERNEL_WGMMA, ES_GPU_KERNEL_WS, ES_GPU_KERNEL_MMA, ES_GPU_KERNEL_POPC};
static const char *const kernel_names[] = {"wgmma", "ws", "mma", "popc"};
static int have_wgmma; /* an sm_90 device and sm_90a code: set in main */

/* Kernel k runs here (wgmma and ws only on Hopper, with sm_90a code). */
static int usable(size_t k)
{
    return (kernels[k] != ES_GPU_KERNEL_WGMMA && kernels[k] != ES_GPU_KERNEL_WS) || have_wgmma;
}

static void config_of(const es_planes_t *pl, es_gpu_config_t *c)
{
    memset(c, 0, sizeof *c);
    c->stat = ES_STAT_CHI2;
    c->top_k = 1;
    c->sig_min_g = INFINITY;
    c->n_planes = pl->n_planes;
    c->words = pl->words;
    c->off_ctrl = pl->w_case;
    c->kw_case = ((pl->n_case + 63) / 64 + 3) / 4 * 4;
    c->kw_ctrl = ((pl->n_ctrl + 63) / 64 + 3) / 4 * 4;
}

/* All tables of blocks a x b (diag: a == b, pairs i < j) on every kernel. */
static void check_tile(const es_planes_t *pa, uint32_t ia, const es_planes_t *pb, uint32_t ib)
{
    es_gpu_block_t a, b;
    es_gpu_config_t cfg;
    tu_gpu_block_of(pa, ia, &a);
    tu_gpu_block_of(pb, ib, &b);
    config_of(pa, &cfg);
    size_t n = (size_t)pa->count * pb->count;
    es_gpu_cand_t *out = calloc(n ? n : 1, sizeof *out);
    const es_popcount_impl_t *impl = es_popcount_best();
    for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
        if (!usable(k)) continue;
        memset(out, 0xff, n * sizeof *out); /* poison: every compared table must be written */
        int ret = es_gpu_count_tables(0, kernels[k], &cfg, &a, &b, out);
        if (ret) fail_msg("kernel %s: error %d", kernel_names[k], ret);
        for (uint32_t x = 0; x < pa->count; x++) {
            for (uint32_t y = 0; y < pb->count; y++) {
                if (ia == ib && y <= x) continue;
                es_table2_t t;
                es_count_pair(impl, pa, x, pb, y, &t);
                const es_gpu_cand_t *c = &out[(size_t)x * pb->count + y];
                if (c->i != pa->first + x || c->j != pb->first + y ||
                    memcmp(c->n, t.n, sizeof t.n) != 0)
                    fail_msg("kernel %s, N=%u, planes %u: table of (%u, %u) differs", kernel_names[k],
                             pa->n_case + pa->n_ctrl, pa->n_planes, pa->first + x, pb->first + y);
            }
        }
    }
    free(out);
}

static void counts_case(uint32_t n_samples, double miss, uint64_t seed)
{
    tu_geno_t *f = tu_geno_make(150, n_samples, miss, seed);
    es_dataset_t *ds = NULL;
    assert_int_equal(es_dataset_open_bfile(&ds, f->prefix, NULL, NULL), ES_OK);
    uint32_t np = es_dataset_any_missing(ds) ? 3 : 2;
    es_planes_t b0, b1;
    assert_int_equal(es_planes_alloc(&b0, ds, 70, np), ES_OK);
    assert_int_equal(es_planes_alloc(&b1, ds, 80, np), ES_OK);
    assert_int_equal(es_pack(ds, 0, 70, &b0), ES_OK);
    assert_int_equal(es_pack(ds, 70, 80, &b1), ES_OK);
    check_tile(&b0, 0, &b1, 1);
    check_tile(&b0, 0, &b0, 0);
    check_tile(&b1, 1, &b1, 1);
    es_planes_free(&b0);
    es_planes_free(&b1);
    es_dataset_destroy(ds);
    tu_geno_free(f);
}

static void test_counts(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {7, 63, 65, 257, 1000, 1025, 2500};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        counts_case(sizes[k], 0.0, 100 + k);
        counts_case(sizes[k], 0.03, 200 + k);
    }
}

/* ---- scans ------------------------------------------------------------------ */

static void scans_case(uint32_t m, uint32_t n, double miss, uint64_t seed)
{
    tu_geno_t *f = tu_geno_make(m, n, miss, seed);
    es_dataset_t *ds = NULL;
    assert_int_equal(es_dataset_open_bfile(&ds, f->prefix, NULL, NULL), ES_OK);
    for (int stat = ES_STAT_BOOST; stat <= ES_STAT_K2; stat++) {
        es_opt_t opt;
        es_opt_init(&opt);
        opt.stat = (es_stat_t)stat;
        opt.top_k = 40;
        opt.threads = 2;
        if (es_stat_has_p(opt.stat)) opt.p_threshold = stat == ES_STAT_BOOST ? 0.3 : 0.05;
        opt.device = ES_DEVICE_CPU;
        tu_result_t ref;
        tu_run_scan(ds, &opt, NULL, &ref);
        opt.device = ES_DEVICE_GPU;
        for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
            static const uint32_t blocks[] = {0, 64, 100};
            if (!usable(k)) continue;
            opt.gpu_kernel = kernels[k];
            for (size_t b = 0; b < 3; b++) {
                char what[128];
                opt.block_variants = blocks[b];
                opt.gpu_mem = 0;
                tu_result_t got;
                tu_run_scan(ds, &opt, NULL, &got);
                snprintf(what, sizeof what, "%s, %s kernel, block %u, N=%u", es_stat_name(opt.stat),
                         kernel_names[k], blocks[b], n);
                tu_same_result(&ref, &got, m, what);
                tu_free_result(&got);
            }
            /* a cache of two blocks: every tile streams its partner block;
             * the per-variant constants in the slots (EPISTREAM_GPU_SLOTPRE=1),
             * then two slots of planes and counts only, the constants built
             * per block beside them (a cap that held no two slots with
             * them); three such slots (the sets kept along a row, the rows
             * alternating); every block in such a slot, uploaded ahead by
             * the preloading thread (a cap that holds fewer slots with the
             * constants than blocks) */
            es_planes_t probe;
            uint32_t np = es_dataset_any_missing(ds) ? 3 : 2;
            assert_int_equal(es_planes_alloc(&probe, ds, 1, np), ES_OK);
            const size_t per_full = es_gpu_slot_bytes(64, np, probe.words);
            const size_t per_lite = es_gpu_slot_bytes_lite(64, np, probe.words);
            es_planes_free(&probe);
            assert_true(per_lite < per_full);
            opt.block_variants = 64;
            const size_t nb = (m + 63) / 64;
            const struct {
                size_t slots, per;
                const char *what;
            } cache[] = {{2, per_full, "two-block cache"},
                         {2, per_lite, "two-slot cache, the constants per block"},
                         {3, per_lite, "three-slot cache, the constants per block"},
                         {nb, per_lite, "every block without its constants, preloaded"}};
            for (size_t c = 0; c < sizeof cache / sizeof *cache; c++) {
                if (cache[c].per == per_full) setenv("EPISTREAM_GPU_SLOTPRE", "1", 1);
                opt.gpu_mem = cache[c].slots * cache[c].per + cache[c].per / 2;
                assert_true(nb > 3 && opt.gpu_mem < nb * per_full); /* (it streams, or fits lite only) */
                tu_result_t got;
                tu_run_scan(ds, &opt, NULL, &got);
                unsetenv("EPISTREAM_GPU_SLOTPRE");
                tu_same_result(&ref, &got, m, cache[c].what);
                tu_free_result(&got);
            }
        }
        tu_free_result(&ref);
    }
    es_dataset_destroy(ds);
    tu_geno_free(f);
}

/* ---- bounds ---------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return n ? (uint32_t)(rng_state % n) : 0u;
}

/* A random table of N samples: genotype frequencies of A and B, a case
 * fraction, and (kind 1) an effect of the pair on the case odds, (kind 2)
 * empty genotype levels, (kind 3) a tiny cohort. */
static void random_table(es_table2_t *t, int kind)
{
    memset(t, 0, sizeof *t);
    static const uint32_t sizes[] = {12, 100, 999, 4096, 8192, 20000, 100000};
    uint32_t N = kind == 3 ? 2 + rnd(30) : sizes[rnd(7)];
    double pa = 0.02 + 0.9 * rnd(1000) / 1000.0, pb = 0.02 + 0.9 * rnd(1000) / 1000.0;
    double pc = 0.05 + 0.9 * rnd(1000) / 1000.0;
    int drop_a = kind == 2 ? (int)rnd(3) : -1, drop_b = kind == 2 ? (int)rnd(4) - 1 : -1;
    int ea = (int)rnd(3), eb = (int)rnd(3);
    for (uint32_t k = 0; k < N; k++) {
        int a = (rnd(1000) < pa * 1000) + (rnd(1000) < pa * 1000);
        int b = (rnd(1000) < pb * 1000) + (rnd(1000) < pb * 1000);
        if (a == drop_a) a = (a + 1) % 3;
        if (b == drop_b) b = (b + 1) % 3;
        double p = pc;
        if (kind == 1 && a == ea && b == eb) p = p > 0.5 ? 0.02 : 0.98;
        int y = rnd(1000) < p * 1000;
        t->n[y][a * 3 + b]++;
    }
}

static int bound_failures;

static void bound_fail(const es_table2_t *tab)
{
    for (int y = 0; y < 2; y++)
        for (int c = 0; c < 9; c++) fprintf(stderr, "%u%c", tab->n[y][c], c == 8 ? '\n' : ' ');
    bound_failures++;
}

static void check_bounds(es_stat_t st, const es_table2_t *tab, const float *o, size_t k)
{
    es_stat_result_t r;
    es_stat_value(st, tab, &r);
    double score = es_stat_higher_is_better(st) ? r.stat : -r.stat;
    double g = es_stat_has_p(st) ? es_stat_g(st, tab, r.stat) : NAN;
    double tol = 1e-6 * fabs(score) + 1e-9;
    for (int f = 0; f < 2; f++) {
        const float *b = o + 3 * f;
        if (!((double)b[0] + tol >= score && (double)b[1] - tol <= score) ||
            (r.df > 0 && !isnan(g) && !((double)b[2] + tol >= g))) {
            fprintf(stderr, "table %zu stat %s form %d: up %.9g lo %.9g gup %.9g exact %.12g G %.12g\n", k,
                    es_stat_name(st), f, b[0], b[1], b[2], score, g);
            bound_fail(tab);
        }
        /* tight enough to screen: chi2, mi, ig, k2 to a small margin */
        if (st != ES_STAT_BOOST) {
            double N = 0;
            for (int y = 0; y < 2; y++)
                for (int c = 0; c < 9; c++) N += tab->n[y][c];
            double slack = st == ES_STAT_K2 ? 1e-3 * fabs(score) + 1e-3
                         : st == ES_STAT_CHI2 ? 1e-4 * fabs(score) + 1e-5
                                              : 1e-4 * fabs(score) + 2e-4 * (1.0 + 1.0 / N);
            if ((double)b[0] - (double)b[1] > 2.0 * slack) {
                fprintf(stderr, "table %zu stat %s form %d: loose bounds up %.9g lo %.9g exact %.12g\n", k,
                        es_stat_name(st), f, b[0], b[1], score);
                bound_fail(tab);
            }
        }
    }
    /* the first-stage screen's bound (nats; the device's rcp.approx) */
    if (st != ES_STAT_K2) {
        double N = 0;
        for (int y = 0; y < 2; y++)
            for (int c = 0; c < 9; c++) N += tab->n[y][c];
        double nats = st == ES_STAT_BOOST ? r.stat / 2.0 : st == ES_STAT_CHI2 ? r.stat : r.stat * N * M_LN2;
        for (int f = 7; f <= 8; f++) /* both forms: three reciprocals a stratum, one */
            if (!((double)o[f] >= nats - 1e-9 * fabs(nats) - 1e-9)) {
                fprintf(stderr, "table %zu stat %s: screen (form %d) %.9g below exact %.12g nats\n", k,
                        es_stat_name(st), f - 7, o[f], nats);
                bound_fail(tab);
            }
    }
    if (st == ES_STAT_BOOST && !((double)o[6] <= r.stat + tol)) {
        fprintf(stderr, "table %zu: BOOST lower bound %.9g above exact %.12g\n", k, o[6], r.stat);
        bound_fail(tab);
    }
    /* and tight: it is what raises the variants' thresholds on the device */
    if (st == ES_STAT_BOOST && !((double)o[6] >= r.stat * (1.0 - 1e-3) - 0.1)) {
        fprintf(stderr, "table %zu: BOOST lower bound %.9g far below exact %.12g\n", k, o[6], r.stat);
        bound_fail(tab);
    }
}

static void test_bounds(void **state)
{
    (void)state;
    enum { NT = 4000 };
    es_table2_t *tab = calloc(NT, sizeof *tab);
    es_gpu_cand_t *c = calloc(NT, sizeof *c);
    float *o = calloc((size_t)NT * 9, sizeof *o);
    assert_non_null(tab);
    assert_non_null(c);
    assert_non_null(o);
    for (size_t k = 0; k < NT; k++) {
        random_table(&tab[k], (int)(k % 4));
        memcpy(c[k].n, tab[k].n, sizeof c[k].n);
    }
    /* fixed corner cases: all in one cell, one class empty, a single column */
    memset(&tab[0], 0, sizeof tab[0]);
    tab[0].n[1][4] = 50;
    memset(&tab[1], 0, sizeof tab[1]);
    tab[1].n[0][0] = 7;
    tab[1].n[0][4] = 9;
    memset(&tab[2], 0, sizeof tab[2]);
    tab[2].n[0][2] = 5;
    tab[2].n[1][2] = 11;
    for (int k = 0; k < 3; k++) memcpy(c[k].n, tab[k].n, sizeof c[k].n);
    /* the K2 bounds' ln n!: the statistics' own values, as the scan's host hands them over */
    const uint32_t n_lnf = es_gpu_cand_max_total(c, NT) + 2u;
    double *lnf = malloc(n_lnf * sizeof *lnf);
    assert_non_null(lnf);
    for (uint32_t i = 0; i < n_lnf; i++) lnf[i] = es_lnfact(i);
    static const es_stat_t stats[] = {ES_STAT_BOOST, ES_STAT_CHI2, ES_STAT_MI, ES_STAT_IG, ES_STAT_K2};
    for (size_t s = 0; s < 5; s++) {
        assert_int_equal(es_gpu_bounds(0, (int)stats[s], c, NT, lnf, n_lnf, o), ES_OK);
        for (size_t k = 0; k < NT && bound_failures < 20; k++) check_bounds(stats[s], &tab[k], o + 9 * k, k);
    }
    assert_int_equal(bound_failures, 0);
    free(lnf);
    free(tab);
    free(c);
    free(o);
}

/* The second stage's exact statistic on the device (gpu/pair/exact.cuh):
 * decided where its host twin decides (test_screen checks that twin bit for
 * bit against es_stat_value()), and within its margin of the host's value;
 * chi2, mi and ig read no logarithm there, so they are the host's bit for
 * bit.  Random tables of test_bounds plus cohorts past the n ln n table
 * (mi and ig undecided). */
static void test_exact(void **state)
{
    (void)state;
    enum { NT = 6000 };
    es_gpu_cand_t *c = calloc(NT, sizeof *c);
    double *v = calloc(NT, sizeof *v), *e = calloc(NT, sizeof *e), *hv = calloc(NT, sizeof *hv),
           *he = calloc(NT, sizeof *he);
    int *ok = calloc(NT, sizeof *ok), *hok = calloc(NT, sizeof *hok);
    double *fit = calloc((size_t)NT * 18, sizeof *fit);
    assert_true(c && v && e && hv && he && ok && hok && fit);
    for (size_t k = 0; k < NT; k++) {
        es_table2_t t;
        random_table(&t, (int)(k % 4));
        if (k % 50 == 0) /* past ES_NLOGN_TAB samples */
            for (int y = 0; y < 2; y++)
                for (int i = 0; i < 9; i++) t.n[y][i] = t.n[y][i] * 7 + 3;
        memcpy(c[k].n, t.n, sizeof c[k].n);
    }
    static const es_stat_t stats[] = {ES_STAT_BOOST, ES_STAT_CHI2, ES_STAT_MI, ES_STAT_IG};
    int fails = 0;
    for (size_t s = 0; s < 4; s++) {
        const int st = (int)stats[s];
        assert_int_equal(es_gpu_exact(0, st, c, NT, es_nlogn_table(), ES_NLOGN_TAB, v, e, ok, fit), ES_OK);
        assert_int_equal(es_gpu_exact_host(st, c, NT, es_nlogn_table(), ES_NLOGN_TAB, hv, he, hok, NULL), ES_OK);
        size_t decided = 0, same = 0, fitted = 0, tested = 0;
        double worst = 0.0;
        for (size_t k = 0; k < NT; k++) {
            if (ok[k] != hok[k]) {
                if (fails++ < 20) fprintf(stderr, "table %zu %s: decided %d on the device, %d on the host\n", k,
                                          es_stat_name(stats[s]), ok[k], hok[k]);
                continue;
            }
            if (!ok[k]) continue;
            decided++;
            es_stat_result_t r;
            es_stat_value(stats[s], (const es_table2_t *)c[k].n, &r);
            const double d = fabs(v[k] - r.stat);
            same += v[k] == r.stat;
            if (e[k] > 0.0 && d / e[k] > worst) worst = d / e[k];
            const int exact_only = stats[s] != ES_STAT_BOOST; /* no logarithm on the device */
            if (!(d <= e[k]) || (exact_only && d != 0.0)) {
                if (fails++ < 20) fprintf(stderr, "table %zu %s: device %.17g, host %.17g, margin %.3g\n", k,
                                          es_stat_name(stats[s]), v[k], r.stat, e[k]);
            }
            /* BOOST: the device's fit, which the second stage sends to the
             * host, gives the host's value bit for bit (the host's logs) */
            tested += r.df != 0;
            if (stats[s] == ES_STAT_BOOST && !isnan(fit[18 * k])) {
                es_stat_result_t rf;
                es_stat_value_boost_fitted((const es_table2_t *)c[k].n, fit + 18 * k, &rf);
                fitted++;
                if (memcmp(&rf.stat, &r.stat, sizeof rf.stat) != 0 || rf.df != r.df) {
                    if (fails++ < 20) fprintf(stderr, "table %zu boost: from the device's fit %.17g, host %.17g\n", k,
                                              rf.stat, r.stat);
                }
            } else if (stats[s] == ES_STAT_BOOST && r.df != 0) {
                if (fails++ < 20) fprintf(stderr, "table %zu boost: decided without a fit\n", k);
            }
        }
        if (stats[s] == ES_STAT_BOOST) {
            fprintf(stderr, "exact boost: %zu fits from the device (of %zu decided tables with a test) give the host's "
                    "value bit for bit\n", fitted, tested);
            assert_true(fitted == tested && fitted > NT / 2);
        }
        fprintf(stderr, "exact %s: %zu of %d decided, %zu bit for bit the host's, worst |difference| / margin %.3g\n",
                es_stat_name(stats[s]), decided, NT, same, worst);
        size_t want = NT; /* mi, ig: those below ES_NLOGN_TAB samples */
        if (stats[s] == ES_STAT_MI || stats[s] == ES_STAT_IG)
            for (size_t k = 0; k < NT; k++) want -= es_gpu_cand_max_total(&c[k], 1) >= ES_NLOGN_TAB;
        if (stats[s] == ES_STAT_BOOST) assert_true(decided + 2 >= want); /* a slow fit is rare */
        else assert_int_equal(decided, want);
    }
    assert_int_equal(fails, 0);
    free(c);
    free(v);
    free(e);
    free(hv);
    free(he);
    free(ok);
    free(hok);
    free(fit);
}

static void test_scans_complete(void **state)
{
    (void)state;
    scans_case(333, 1111, 0.0, 7);
}

static void test_scans_missing(void **state)
{
    (void)state;
    scans_case(290, 777, 0.02, 8);
}

static void test_bad_mem(void **state)
{
    (void)state;
    tu_geno_t *f = tu_geno_make(100, 300, 0.0, 9);
    es_dataset_t *ds = NULL;
    assert_int_equal(es_dataset_open_bfile(&ds, f->prefix, NULL, NULL), ES_OK);
    es_opt_t opt;
    es_opt_init(&opt);
    opt.device = ES_DEVICE_GPU;
    opt.gpu_mem = 1000; /* not even two blocks */
    es_scan_t *scan = NULL;
    assert_int_equal(es_scan_create(&scan, ds, &opt), ES_OK);
    assert_int_equal(es_scan_run(scan), ES_ERR_ARG);
    es_scan_destroy(scan);
    es_dataset_destroy(ds);
    tu_geno_free(f);
}

int main(void)
{
    int skip = tu_gpu_probe(&have_wgmma);
    if (skip) return skip;
    es_log_set_level(ES_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_scans_complete),
        cmocka_unit_test(test_scans_missing),
        cmocka_unit_test(test_bad_mem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
