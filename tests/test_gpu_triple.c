/* test_gpu_triple.c -- the 3-way GPU engine against its CPU twins (skips
 * with 77 where no CUDA device is visible; always compiled).
 *
 *  - counts: every 2x27 table of every kernel family (mma, popc) bit-
 *    identical to es_count_triple(), itself checked against
 *    es_count_triple_naive() here on a sample, for sample counts that are
 *    not multiples of 64, 512 or 1024, with and without missing calls, a
 *    monomorphic and an all-missing variant, one block used twice or three
 *    times;
 *  - bounds: the device's float bounds of chi2, mi, ig and k2 hold the
 *    exact CPU value (es_stat3_value) on random, sparse and tiny tables;
 *  - scans: top-k, summary and significant triples of --device gpu
 *    identical to --device cpu, byte for byte, for every statistic and
 *    kernel, exhaustive and seeded, several block sizes. */
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

static const int kernels[] = {ES_GPU_KERNEL_MMA, ES_GPU_KERNEL_POPC};
static const char *const kernel_names[] = {"mma", "popc"};

static void config_of(const es_planes_t *pl, uint32_t m, es_gpu3_config_t *c)
{
    memset(c, 0, sizeof *c);
    c->stat = ES_STAT_CHI2;
    c->top_k = 1;
    c->n_variants = m;
    c->block = 32;
    c->n_planes = pl->n_planes;
    c->words = pl->words;
    c->off_ctrl = pl->w_case;
    c->n_case = pl->n_case;
    c->n_ctrl = pl->n_ctrl;
    for (int d = 0; d < 27; d++) c->sig_crit[d] = INFINITY;
}

/* All tables of a x b x c on every kernel against the CPU. */
static void check_tile(const es_planes_t *pa, const es_planes_t *pb, const es_planes_t *pc, uint32_t m)
{
    es_gpu_block_t a, b, c;
    es_gpu3_config_t cfg;
    tu_gpu_block_of(pa, 0, &a);
    tu_gpu_block_of(pb, 1, &b);
    tu_gpu_block_of(pc, 2, &c);
    config_of(pa, m, &cfg);
    size_t n = (size_t)pa->count * pb->count * pc->count;
    uint32_t *out = malloc(n * 54 * sizeof *out);
    assert_non_null(out);
    for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
        memset(out, 0xff, n * 54 * sizeof *out); /* poison: every table must be written */
        int ret = es_gpu3_count_tables(0, kernels[k], &cfg, &a, &b, &c, out);
        if (ret) fail_msg("kernel %s: error %d", kernel_names[k], ret);
        for (uint32_t x = 0; x < pa->count; x++)
            for (uint32_t y = 0; y < pb->count; y++)
                for (uint32_t z = 0; z < pc->count; z++) {
                    es_table3_t t;
                    assert_int_equal(es_count_triple(pa, x, pb, y, pc, z, &t), ES_OK);
                    const uint32_t *g = out + (((size_t)x * pb->count + y) * pc->count + z) * 54;
                    if (memcmp(g, t.n, sizeof t.n) != 0)
                        fail_msg("kernel %s, N=%u, planes %u: table of (%u, %u, %u) differs", kernel_names[k],
                                 pa->n_case + pa->n_ctrl, pa->n_planes, pa->first + x, pb->first + y,
                                 pc->first + z);
                }
    }
    free(out);
}

static void counts_case(uint32_t n_samples, double miss, uint64_t seed)
{
    tu_geno_t *f = tu_geno_make(40, n_samples, miss, seed);
    es_dataset_t *ds = NULL;
    assert_int_equal(es_dataset_open_bfile(&ds, f->prefix, NULL, NULL), ES_OK);
    uint32_t np = es_dataset_any_missing(ds) ? 3 : 2;
    es_planes_t b0, b1;
    assert_int_equal(es_planes_alloc(&b0, ds, 17, np), ES_OK);
    assert_int_equal(es_planes_alloc(&b1, ds, 23, np), ES_OK);
    assert_int_equal(es_pack(ds, 0, 17, &b0), ES_OK);
    assert_int_equal(es_pack(ds, 17, 23, &b1), ES_OK);
    /* the CPU twin against the decoded genotypes, on a sample */
    {
        uint32_t n_in = f->n;
        int8_t *st = malloc(n_in);
        for (uint32_t s = 0; s < n_in; s++) st[s] = f->pheno[s] == 2 ? 1 : f->pheno[s] == 1 ? 0 : -1;
        for (uint32_t q = 0; q < 30; q++) {
            uint32_t x = q % 17, y = (q * 7) % 23, z = (q * 5 + 3) % 17;
            es_table3_t t, r;
            assert_int_equal(es_count_triple(&b0, x, &b1, y, &b0, z, &t), ES_OK);
            es_count_triple_naive(f->geno + (size_t)x * n_in, f->geno + (size_t)(17 + y) * n_in,
                                  f->geno + (size_t)z * n_in, st, n_in, &r);
            if (memcmp(&t, &r, sizeof t) != 0) fail_msg("CPU twin: (%u, %u, %u) differs from the naive count", x, 17 + y, z);
        }
        free(st);
    }
    check_tile(&b0, &b1, &b0, 40);
    check_tile(&b0, &b0, &b0, 40);
    check_tile(&b1, &b0, &b1, 40);
    es_planes_free(&b0);
    es_planes_free(&b1);
    es_dataset_destroy(ds);
    tu_geno_free(f);
}

static void test_counts(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {7, 63, 65, 513, 1000, 1025, 2500};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        counts_case(sizes[k], 0.0, 100 + k);
        counts_case(sizes[k], 0.03, 200 + k);
    }
    /* both classes past 65,535: the mma kernel's path without PACK16 */
    counts_case(140000, 0.0, 300);
}

/* ---- bounds ---------------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static void random_table(uint32_t *t, int kind)
{
    memset(t, 0, 54 * sizeof *t);
    static const uint32_t sizes[] = {12, 100, 999, 4096, 8192, 20000, 100000};
    uint32_t N = kind == 2 ? 2 + tu_randn(&rng, 30) : sizes[tu_randn(&rng, 7)];
    double p[3], pc = 0.05 + 0.9 * tu_randn(&rng, 1000) / 1000.0;
    for (int v = 0; v < 3; v++) p[v] = 0.01 + 0.9 * tu_randn(&rng, 1000) / 1000.0;
    int drop = kind == 1 ? (int)tu_randn(&rng, 3) : -1;
    for (uint32_t s = 0; s < N; s++) {
        int g[3];
        for (int v = 0; v < 3; v++) {
            g[v] = (tu_randn(&rng, 1000) < p[v] * 1000) + (tu_randn(&rng, 1000) < p[v] * 1000);
            if (g[v] == drop) g[v] = (g[v] + 1) % 3;
        }
        int cell = g[0] * 9 + g[1] * 3 + g[2];
        double q = pc + (kind == 3 && g[0] == 2 && g[2] == 1 ? 0.3 : 0.0);
        int y = tu_randn(&rng, 1000) < (q > 0.99 ? 0.99 : q) * 1000;
        t[y * 27 + cell]++;
    }
}

/* Tables at the packed path's edges (each class under 65,536): perfect
 * association at 65,535 samples (chi2 = N), one column, one sample in a
 * class, one cell against 26 of one sample, both classes' sizes at 65,535
 * (the sum past 65,536: chi2's unpacked path), classes split across cells */
static uint32_t *edge_next(uint32_t *t, size_t *k)
{
    uint32_t *x = t + 54 * (*k)++;
    memset(x, 0, 54 * sizeof *x);
    return x;
}

static size_t edge_tables(uint32_t *t)
{
    size_t k = 0;
    uint32_t *x = edge_next(t, &k);
    x[0] = 30000, x[27 + 26] = 35535;
    x = edge_next(t, &k);
    x[13] = 40000, x[27 + 13] = 25535;
    x = edge_next(t, &k);
    x[13] = 1, x[27 + 13] = 65534;
    x = edge_next(t, &k);
    x[5] = 1, x[27 + 7] = 65534;
    x = edge_next(t, &k);
    x[0] = 65000, x[27] = 9, x[27 + 26] = 500;
    for (int c = 1; c < 27; c++) x[c] = 1;
    x = edge_next(t, &k);
    x[0] = 65535, x[27 + 1] = 65535;
    x = edge_next(t, &k);
    for (int c = 0; c < 27; c++) x[c] = 2000 + 17 * c, x[27 + c] = 2400 - 31 * c;
    x = edge_next(t, &k);
    x[4] = 32767, x[9] = 32767, x[27 + 4] = 1, x[27 + 22] = 2;
    x = edge_next(t, &k);
    x[0] = 1, x[27] = 1;
    return k;
}

static void test_bounds(void **state)
{
    (void)state;
    const size_t nr = 4000, cap = nr + 16;
    uint32_t *t = malloc(cap * 54 * sizeof *t);
    float *out = malloc(cap * 4 * sizeof *out);
    uint32_t nl = 140002;
    double *lnf = malloc(nl * sizeof *lnf);
    assert_true(t && out && lnf);
    for (uint32_t k = 0; k < nl; k++) lnf[k] = es_lnfact(k);
    for (size_t k = 0; k < nr; k++) random_table(t + k * 54, (int)(k % 4));
    const size_t n = nr + edge_tables(t + nr * 54);
    for (int run = 0; run < 2 * (ES_STAT_K2 - ES_STAT_CHI2 + 1); run++) {
        /* each statistic as gk3_bound sees a table, then as the PACK16 kernels do */
        int stat = ES_STAT_CHI2 + run / 2, p16 = run % 2;
        assert_int_equal(es_gpu3_bounds(0, stat | (p16 ? ES_GPU3_BOUNDS_P16 : 0), t, n, lnf, nl, out), ES_OK);
        int hib = es_stat_higher_is_better((es_stat_t)stat);
        for (size_t k = 0; k < n; k++) {
            es_table3_t tb;
            memcpy(tb.n, t + k * 54, sizeof tb.n);
            es_stat_result_t r;
            es_stat3_value((es_stat_t)stat, &tb, &r);
            double score = hib ? r.stat : -r.stat;
            const float *b = out + k * 4;
            if (!((double)b[1] <= score && score <= (double)b[0]))
                fail_msg("%s%s, table %zu: exact %.17g outside [%.9g, %.9g]", es_stat_name((es_stat_t)stat),
                         p16 ? " (packed)" : "", k, score, (double)b[1], (double)b[0]);
            if (stat != ES_STAT_K2 && r.df > 0) {
                double g = es_stat3_g((es_stat_t)stat, &tb, r.stat);
                if (g > (double)b[2]) fail_msg("%s, table %zu: G %.17g above its bound %.9g",
                                               es_stat_name((es_stat_t)stat), k, g, (double)b[2]);
                if ((double)r.df < (double)b[3]) fail_msg("%s, table %zu: df %d below the device's %g",
                                                          es_stat_name((es_stat_t)stat), k, r.df, (double)b[3]);
            }
        }
    }
    free(t);
    free(out);
    free(lnf);
}

/* ---- scans ------------------------------------------------------------------ */

typedef struct {
    es_triple_t *t;
    size_t n, cap;
} sig3_t;

static int sig3_collect(const es_triple_t *t, void *ud)
{
    sig3_t *s = ud;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->t = realloc(s->t, s->cap * sizeof *s->t);
        assert_non_null(s->t);
    }
    s->t[s->n++] = *t;
    return 0;
}

typedef struct {
    es_triple_t *top;
    size_t n_top;
    es_summary3_t *sum;
    sig3_t sig;
} res3_t;

static void run3(es_dataset_t *ds, const es_opt_t *opt, const uint32_t *seeds, size_t n_seeds, res3_t *r)
{
    es_scan_t *scan = NULL;
    memset(r, 0, sizeof *r);
    assert_int_equal(es_scan_create(&scan, ds, opt), ES_OK);
    if (seeds) assert_int_equal(es_scan_set_seeds(scan, seeds, n_seeds), ES_OK);
    es_scan_set_sig3_callback(scan, sig3_collect, &r->sig);
    assert_int_equal(es_scan_run(scan), ES_OK);
    r->n_top = es_scan_top3_count(scan);
    r->top = malloc((r->n_top + 1) * sizeof *r->top);
    memcpy(r->top, es_scan_top3(scan), r->n_top * sizeof *r->top);
    uint32_t m = es_dataset_n_variants(ds);
    r->sum = malloc(m * sizeof *r->sum);
    memcpy(r->sum, es_scan_summary3(scan), m * sizeof *r->sum);
    es_scan_destroy(scan);
}

static void free3(res3_t *r)
{
    free(r->top);
    free(r->sum);
    free(r->sig.t);
}

/* field by field (the structs have padding); doubles bit for bit, NaN included */
static int same_triple(const es_triple_t *x, const es_triple_t *y)
{
    return x->i == y->i && x->j == y->j && x->k == y->k && x->n == y->n && x->df == y->df &&
           memcmp(&x->stat, &y->stat, sizeof x->stat) == 0 && memcmp(&x->p, &y->p, sizeof x->p) == 0 &&
           memcmp(&x->log10p, &y->log10p, sizeof x->log10p) == 0;
}

static void same3(const res3_t *a, const res3_t *b, uint32_t m, const char *what)
{
    if (a->n_top != b->n_top) fail_msg("%s: top-k of %zu and %zu triples", what, a->n_top, b->n_top);
    for (size_t q = 0; q < a->n_top; q++) {
        const es_triple_t *x = &a->top[q], *y = &b->top[q];
        if (!same_triple(x, y))
            fail_msg("%s: top-k differs at rank %zu: cpu (%u, %u, %u) %.17g n %u df %d, gpu (%u, %u, %u) %.17g n %u df %d",
                     what, q, x->i, x->j, x->k, x->stat, x->n, x->df, y->i, y->j, y->k, y->stat, y->n, y->df);
    }
    for (uint32_t v = 0; v < m; v++) {
        const es_summary3_t *x = &a->sum[v], *y = &b->sum[v];
        if (x->best_i != y->best_i || x->best_j != y->best_j || x->best_k != y->best_k || x->n_sig != y->n_sig ||
            x->n_tot != y->n_tot || memcmp(&x->best_stat, &y->best_stat, sizeof x->best_stat) != 0 ||
            memcmp(&x->best_p, &y->best_p, sizeof x->best_p) != 0)
            fail_msg("%s: summary of variant %u differs (n_tot %llu / %llu, n_sig %llu / %llu, best %u,%u,%u / "
                     "%u,%u,%u)", what, v, (unsigned long long)x->n_tot, (unsigned long long)y->n_tot,
                     (unsigned long long)x->n_sig, (unsigned long long)y->n_sig, x->best_i, x->best_j, x->best_k,
                     y->best_i, y->best_j, y->best_k);
    }
    if (a->sig.n != b->sig.n) fail_msg("%s: %zu and %zu significant triples", what, a->sig.n, b->sig.n);
    for (size_t q = 0; q < a->sig.n; q++)
        if (!same_triple(&a->sig.t[q], &b->sig.t[q])) fail_msg("%s: significant triple %zu differs", what, q);
}

static void scans_case(uint32_t m, uint32_t n, double miss, uint64_t seed)
{
    tu_geno_t *f = tu_geno_make(m, n, miss, seed);
    es_dataset_t *ds = NULL;
    assert_int_equal(es_dataset_open_bfile(&ds, f->prefix, NULL, NULL), ES_OK);
    uint32_t seeds[] = {0, 1, 2, 7, 1, 7, 10, 40, 3, 5, m - 1, m - 2, 12, 13, 13, 40};
    for (int stat = ES_STAT_CHI2; stat <= ES_STAT_K2; stat++) {
        for (int seeded = 0; seeded < 2; seeded++) {
            es_opt_t opt;
            es_opt_init(&opt);
            opt.order = 3;
            opt.stat = (es_stat_t)stat;
            opt.top_k = 25;
            opt.threads = 2;
            if (es_stat_has_p(opt.stat)) opt.p_threshold = 0.01;
            opt.device = ES_DEVICE_CPU;
            res3_t ref;
            run3(ds, &opt, seeded ? seeds : NULL, sizeof seeds / sizeof *seeds / 2, &ref);
            opt.device = ES_DEVICE_GPU;
            for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
                static const uint32_t blocks[] = {0, 16, 40};
                opt.gpu_kernel = kernels[k];
                for (size_t b = 0; b < 3; b++) {
                    char what[160];
                    opt.block_variants = blocks[b];
                    res3_t got;
                    run3(ds, &opt, seeded ? seeds : NULL, sizeof seeds / sizeof *seeds / 2, &got);
                    snprintf(what, sizeof what, "%s, %s, %s kernel, block %u, N=%u, missing %g",
                             es_stat_name(opt.stat), seeded ? "seeded" : "exhaustive", kernel_names[k], blocks[b],
                             n, miss);
                    same3(&ref, &got, m, what);
                    free3(&got);
                }
            }
            free3(&ref);
        }
    }
    es_dataset_destroy(ds);
    tu_geno_free(f);
}

static void test_scans_complete(void **state)
{
    (void)state;
    scans_case(70, 301, 0.0, 11);
}

static void test_scans_missing(void **state)
{
    (void)state;
    scans_case(66, 277, 0.02, 12);
}

/* classes past 65,536 samples: the mma kernel without PACK16, chi2's
 * bound above 65,536 samples */
static void test_scans_large(void **state)
{
    (void)state;
    scans_case(45, 140000, 0.0, 13);
}

/* argv[1]: run only the tests whose name matches this pattern (cmocka's
 * filter; compute-sanitizer runs take one test at a time) */
int main(int argc, char **argv)
{
    int have_wgmma = 0;
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    int skip = tu_gpu_probe(&have_wgmma);
    if (skip) return skip;
    es_log_set_level(ES_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_scans_complete),
        cmocka_unit_test(test_scans_missing),
        cmocka_unit_test(test_scans_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
