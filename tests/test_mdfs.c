/* test_mdfs.c -- unit tests of the MDFS engine's pieces: std::mt19937 (the
 * standard's 10,000th output; the first outputs computed without a whole
 * state), the counting kernels (every variant against the scalar twin on
 * sizes that hit every tail), the equal-frequency discretisation with ties,
 * the p-value adjustments (statsmodels' values), the engine's counts
 * against a direct count (k = 1..4), and the GPU screen's float Hc sums
 * (es_gkm_ftab_hc, the CPU twin of the device's float arithmetic) within
 * their proven bound of the double tables' sums on adversarial tables. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mdfs.h"
#include "mdfs_gpu.h"
#include "mdfs_internal.h"
#include "select.h" /* testutil.h names the backend and table types */
#include "testutil.h"

static void test_mt19937(void **state)
{
    (void)state;
    es_mt_t m;
    es_mt_seed(&m, 5489u);
    uint32_t v = 0;
    for (int i = 0; i < 10000; i++) v = es_mt_next(&m);
    assert_int_equal(v, 4123659995u); /* [rand.predef]: mt19937's 10,000th output */
    uint64_t st = 7;
    for (int r = 0; r < 50; r++) {
        uint32_t seed = (uint32_t)tu_rand(&st), first[ES_MT_FIRST_MAX];
        es_mt_first(seed, first, ES_MT_FIRST_MAX);
        es_mt_seed(&m, seed);
        for (int i = 0; i < ES_MT_FIRST_MAX; i++) assert_int_equal(first[i], es_mt_next(&m));
    }
}

static void test_kernels(void **state)
{
    (void)state;
    uint64_t st = 11;
    /* every variant this CPU has (EPISTREAM_POPCOUNT picks it) against the twin */
    static const char *const force[] = {"popcnt", "avx2", NULL};
    es_mdfs_cells8_fn ref = es_mdfs_cells8_scalar(), var[3];
    for (int f = 0; f < 3; f++) {
        if (force[f]) setenv("EPISTREAM_POPCOUNT", force[f], 1);
        else unsetenv("EPISTREAM_POPCOUNT");
        var[f] = es_mdfs_cells8_best(NULL);
    }
    unsetenv("EPISTREAM_POPCOUNT");
    for (int r = 0; r < 300; r++) {
        es_mdfs_cells8_fn best = var[r % 3];
        uint32_t W = 1 + tu_randn(&st, r % 10 ? 20 : 80), w0 = tu_randn(&st, W + 1), np = 1 + tu_randn(&st, 10),
                 nb = 1 + tu_randn(&st, 5);
        uint64_t *pre = malloc(sizeof(uint64_t) * np * W), *lanes = malloc(sizeof(uint64_t) * nb * W * 8);
        const uint64_t **pp = malloc(sizeof(uint64_t *) * np);
        uint32_t *o1 = malloc(sizeof(uint32_t) * np * nb * 16), *o2 = malloc(sizeof(uint32_t) * np * nb * 16);
        for (uint32_t i = 0; i < np * W; i++) pre[i] = tu_rand(&st) & tu_rand(&st);
        for (uint32_t i = 0; i < nb * W * 8; i++) lanes[i] = tu_rand(&st);
        for (uint32_t i = 0; i < np; i++) pp[i] = pre + (size_t)i * W;
        ref(pp, np, lanes, nb, w0, W, o1);
        best(pp, np, lanes, nb, w0, W, o2);
        assert_memory_equal(o1, o2, sizeof(uint32_t) * np * nb * 16);
        /* one count by hand */
        uint32_t i = tu_randn(&st, np), b = tu_randn(&st, nb), j = tu_randn(&st, 8), c0 = 0, c1 = 0;
        for (uint32_t w = 0; w < W; w++) {
            uint32_t c = (uint32_t)__builtin_popcountll(pre[(size_t)i * W + w] & lanes[((size_t)b * W + w) * 8 + j]);
            if (w < w0) c0 += c;
            else c1 += c;
        }
        assert_int_equal(o1[((i * nb + b) * 2 + 0) * 8 + j], c0);
        assert_int_equal(o1[((i * nb + b) * 2 + 1) * 8 + j], c1);
        uint64_t dst[80];
        uint32_t ct[2];
        es_mdfs_and_best()(dst, pre, lanes, w0, W, ct);
        uint32_t e0 = 0, e1 = 0;
        for (uint32_t w = 0; w < W; w++) {
            assert_true(dst[w] == (pre[w] & lanes[w]));
            if (w < w0) e0 += (uint32_t)__builtin_popcountll(dst[w]);
            else e1 += (uint32_t)__builtin_popcountll(dst[w]);
        }
        assert_int_equal(ct[0], e0);
        assert_int_equal(ct[1], e1);
        free(pre), free(lanes), free(pp), free(o1), free(o2);
    }
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* range 0: every u is 1, so the ranks are sum_{i<=j} lround(n / (d + 1)) and
 * the classes follow from a sorted copy */
static void test_discretize_equal_frequency(void **state)
{
    (void)state;
    uint64_t st = 3;
    for (int r = 0; r < 100; r++) {
        uint32_t n = 2 + tu_randn(&st, 300);
        int d = 1 + (int)tu_randn(&st, 15);
        double *x = malloc(sizeof(double) * n), *s = malloc(sizeof(double) * n),
               *scr = malloc(sizeof(double) * n);
        uint8_t *out = malloc(n);
        uint32_t levels = 1 + tu_randn(&st, 2) * tu_randn(&st, 20); /* some data with many ties */
        for (uint32_t i = 0; i < n; i++)
            x[i] = levels > 1 ? (double)tu_randn(&st, levels) : (double)(tu_rand(&st) >> 11) * 0x1p-53 - 0.5;
        memcpy(s, x, sizeof(double) * n);
        qsort(s, n, sizeof(double), cmp_d);
        es_mdfs_discretize((uint32_t)tu_rand(&st) >> 1, 0, 0, d, n, x, scr, out, 0.0);
        double thr[16];
        size_t done = 0;
        for (int j = 0; j < d; j++) {
            done += (size_t)lround((double)n / (d + 1));
            if (done >= n) done = n - 1;
            thr[j] = s[done];
        }
        for (uint32_t o = 0; o < n; o++) {
            int c = 0;
            for (int j = 0; j < d; j++) c += x[o] > thr[j];
            assert_int_equal(out[o], c);
        }
        free(x), free(s), free(scr), free(out);
    }
}

static void test_adjust(void **state)
{
    (void)state;
    const double p[4] = {0.01, 0.04, 0.03, 0.2};
    double adj[4];
    int rej[4];
    /* statsmodels.stats.multitest.multipletests(p, 0.05, 'holm' / 'fdr_bh') */
    assert_int_equal(es_mdfs_adjust(p, 4, ES_MDFS_HOLM, 0.05, adj, rej), ES_OK);
    const double holm[4] = {0.04, 0.09, 0.09, 0.2};
    for (int i = 0; i < 4; i++) assert_true(fabs(adj[i] - holm[i]) < 1e-15);
    assert_true(rej[0] && !rej[1] && !rej[2] && !rej[3]);
    assert_int_equal(es_mdfs_adjust(p, 4, ES_MDFS_BH, 0.05, adj, rej), ES_OK);
    const double bh[4] = {0.04, 0.04 / 0.75, 0.04 / 0.75, 0.2};
    for (int i = 0; i < 4; i++) assert_true(fabs(adj[i] - bh[i]) < 1e-15);
    assert_true(rej[0] && !rej[1] && !rej[2] && !rej[3]);
    const double q[3] = {0.9, 0.8, 0.95};
    assert_int_equal(es_mdfs_adjust(q, 3, ES_MDFS_HOLM, 0.05, adj, rej), ES_OK);
    for (int i = 0; i < 3; i++) assert_true(adj[i] == 1.0 && !rej[i]);
}

/* The engine on given classes: each variable's MAX_IG against a direct count
 * of every tuple (k = 1..4, m = 2..5, odd class sizes, 1 and 2 threads). */
typedef struct {
    const uint8_t *d;
    uint32_t n, nv;
} given_t;

static int given(void *ctx, uint32_t disc, uint8_t *d, uint8_t *cd)
{
    const given_t *g = ctx;
    (void)disc, (void)cd;
    memcpy(d, g->d, (size_t)g->n * g->nv);
    return ES_OK;
}

static double hc_direct(const double *c0, const double *c1, uint32_t cells)
{
    double h = 0.0;
    for (uint32_t i = 0; i < cells; i++) {
        double s = c0[i] + c1[i];
        h -= c0[i] * log2(c0[i] / s) + c1[i] * log2(c1[i] / s);
    }
    return h;
}

static void test_engine_direct(void **state)
{
    (void)state;
    uint64_t st = 99;
    for (int r = 0; r < 12; r++) {
        const uint32_t k = 1 + (uint32_t)r % 4, m = 2 + tu_randn(&st, 4 - (k > 2)), nv = k + 3, n = 40 + tu_randn(&st, 90);
        uint8_t *d = malloc((size_t)n * nv), *y = malloc(n);
        for (uint32_t i = 0; i < n * nv; i++) d[i] = (uint8_t)tu_randn(&st, m);
        for (uint32_t o = 0; o < n; o++) y[o] = (d[o] + d[n + o] + tu_randn(&st, 2)) % 2;
        es_mdfs_opt_t o;
        es_mdfs_opt_init(&o);
        o.dim = (int)k, o.divisions = (int)m - 1, o.discrete = 1;
        given_t g = {d, n, nv};
        es_mdfs_result_t res;
        memset(&res, 0, sizeof res);
        assert_int_equal(es_mdfs_max_ig(&o, n, nv, 0, y, given, &g, &res), ES_OK);
        /* direct: every tuple */
        uint32_t n1 = 0;
        for (uint32_t i = 0; i < n; i++) n1 += y[i];
        double cmin = n1 < n - n1 ? n1 : n - n1, ps[2] = {(n - n1) / cmin * 0.25, n1 / cmin * 0.25};
        double best[16];
        for (uint32_t v = 0; v < nv; v++) best[v] = -INFINITY;
        uint32_t cells = 1;
        for (uint32_t j = 0; j < k; j++) cells *= m;
        double *t0 = malloc(sizeof(double) * cells), *t1 = malloc(sizeof(double) * cells);
        double *u0 = malloc(sizeof(double) * cells), *u1 = malloc(sizeof(double) * cells);
        uint32_t tup[5];
        for (uint32_t j = 0; j < k; j++) tup[j] = j;
        for (;;) {
            for (uint32_t c = 0; c < cells; c++) t0[c] = ps[0], t1[c] = ps[1];
            for (uint32_t ob = 0; ob < n; ob++) {
                uint32_t c = 0;
                for (uint32_t j = 0; j < k; j++) c = c * m + d[(size_t)tup[j] * n + ob];
                (y[ob] ? t1 : t0)[c] += 1.0;
            }
            double h = hc_direct(t0, t1, cells);
            for (uint32_t j = 0; j < k; j++) {
                /* sum out axis j */
                uint32_t s = 1;
                for (uint32_t q = j + 1; q < k; q++) s *= m;
                uint32_t nm = cells / m;
                for (uint32_t c = 0; c < nm; c++) u0[c] = u1[c] = 0.0;
                for (uint32_t c = 0; c < cells; c++) {
                    uint32_t mc = (c / (s * m)) * s + c % s;
                    u0[mc] += t0[c], u1[mc] += t1[c];
                }
                double ig = hc_direct(u0, u1, nm) - h;
                if (ig > best[tup[j]]) best[tup[j]] = ig;
            }
            int j = (int)k - 1;
            while (j >= 0 && tup[j] == nv - k + (uint32_t)j) j--;
            if (j < 0) break;
            tup[j]++;
            for (uint32_t q = (uint32_t)j + 1; q < k; q++) tup[q] = tup[q - 1] + 1;
        }
        for (uint32_t v = 0; v < nv; v++) assert_true(fabs(res.max_ig[v] - best[v]) <= 1e-9 * fmax(1.0, fabs(best[v])));
        free(t0), free(t1), free(u0), free(u1), free(d), free(y);
        es_mdfs_result_free(&res);
    }
}

static uint64_t fs_rng(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ull;
    uint64_t x = *s;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* cnt[c * 2 + y] for c < N: the n_y objects of each class spread over the
 * cells by pattern p (0: all in one cell; 1: even; 2: random cuts; 3: one
 * class in one cell, the other even; 4: most in one cell, single objects
 * elsewhere; 5: the cells where the float entries err most, the rest in the
 * last cell) */
static void fs_fill(uint32_t *cnt, uint32_t N, const uint32_t *ny, int pat, uint64_t *rs, const uint32_t *worst)
{
    memset(cnt, 0, sizeof(uint32_t) * 2 * N);
    for (int y = 0; y < 2; y++) {
        uint32_t left = ny[y];
        switch (pat) {
        case 0: cnt[(fs_rng(rs) % N) * 2 + y] = left; break;
        case 1:
            for (uint32_t c = 0; c < N; c++) cnt[c * 2 + y] = left / N + (c < left % N);
            break;
        case 3:
            if (y == 0) cnt[(fs_rng(rs) % N) * 2] = left;
            else
                for (uint32_t c = 0; c < N; c++) cnt[c * 2 + 1] = left / N + (c < left % N);
            break;
        case 4:
            for (uint32_t c = 1; c < N && left; c++) cnt[c * 2 + y] = 1, left--;
            cnt[y] += left;
            break;
        case 5:
            for (uint32_t c = 0; c + 1 < N; c++) {
                const uint32_t v = worst[y] <= left ? worst[y] : (uint32_t)(fs_rng(rs) % (left + 1));
                cnt[c * 2 + y] = v, left -= v;
            }
            cnt[(N - 1) * 2 + y] += left;
            break;
        default:
            for (uint32_t c = 0; c + 1 < N; c++) {
                const uint32_t v = left ? (uint32_t)(fs_rng(rs) % (left + 1)) : 0;
                cnt[c * 2 + y] = v, left -= v;
            }
            cnt[(N - 1) * 2 + y] += left;
        }
    }
}

static void test_gpu_float_bound(void **state)
{
    (void)state;
    static const uint32_t shapes[][2] = {{500, 500}, {1, 999}, {999, 1}, {3, 7}, {2500, 7500},
                                         {5000, 5000}, {16000, 4000}, {1, 1}, {1024, 1024}};
    static const double xis[] = {0.25, 1.0, 0.01};
    /* (prefix cells, classes a variable): k = 2, m = 2..4; k = 3, m = 2, 3 */
    static const uint32_t tabs[][2] = {{2, 2}, {3, 3}, {4, 4}, {4, 2}, {9, 3}};
    uint64_t rs = 12345;
    double worst_ratio = 0.0;
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (size_t xi = 0; xi < sizeof xis / sizeof xis[0]; xi++) {
            const uint32_t n0 = shapes[si][0], n1 = shapes[si][1], n = n0 + n1;
            const double cmin = n0 < n1 ? n0 : n1;
            es_gkm_config_t cfg;
            memset(&cfg, 0, sizeof cfg);
            cfg.cls[0] = n0, cfg.cls[1] = n1;
            cfg.pseudo[0] = n0 / cmin * xis[xi], cfg.pseudo[1] = n1 / cmin * xis[xi];
            double *f0 = malloc(sizeof(double) * (n0 + 1)), *f1 = malloc(sizeof(double) * (n1 + 1));
            double *g = malloc(sizeof(double) * (n + 1));
            assert_non_null(f0), assert_non_null(f1), assert_non_null(g);
            /* the engine's tables (engine.c: plogp) */
            for (uint32_t q = 0; q <= n0; q++) f0[q] = (q + cfg.pseudo[0]) * log2(q + cfg.pseudo[0]);
            for (uint32_t q = 0; q <= n1; q++) f1[q] = (q + cfg.pseudo[1]) * log2(q + cfg.pseudo[1]);
            for (uint32_t q = 0; q <= n; q++)
                g[q] = (q + (cfg.pseudo[0] + cfg.pseudo[1])) * log2(q + (cfg.pseudo[0] + cfg.pseudo[1]));
            cfg.G[0] = g, cfg.F[0][0] = f0, cfg.F[0][1] = f1;
            es_gkm_ftab_t ft;
            assert_int_equal(es_gkm_ftab_build(&cfg, &ft), ES_OK);
            /* the counts whose float entries err most (pattern 5) */
            uint32_t worst[2] = {0, 0};
            for (int y = 0; y < 2; y++) {
                double e = -1.0;
                const uint32_t ny = y ? n1 : n0, o = y ? ft.o1 : ft.o0;
                for (uint32_t q = 0; q <= ny; q++) {
                    const double x = (y ? f1 : f0)[q] - ft.L * q, d = fabs((double)ft.t[o + q] - x);
                    if (d > e) e = d, worst[y] = q;
                }
            }
            for (size_t ti = 0; ti < sizeof tabs / sizeof tabs[0]; ti++) {
                const uint32_t np = tabs[ti][0], m = tabs[ti][1], N = np * m;
                const double bound = es_gkm_ftab_bound(&ft, N);
                /* sound but not empty: below a thousandth of a bit an object */
                assert_true(bound > 0.0 && bound < 1e-3 * n + 1e-3);
                uint32_t cnt[2 * 64];
                for (int pat = 0; pat < 6; pat++)
                    for (int rep = 0; rep < (pat == 2 || pat == 5 ? 200 : 4); rep++) {
                        const uint32_t ny[2] = {n0, n1};
                        fs_fill(cnt, N, ny, pat, &rs, worst);
                        const float hf = es_gkm_ftab_hc(&ft, cnt, np, m);
                        /* the real sum of the double tables' terms (long
                         * double: 11 more bits than the bound needs) and the
                         * host's double sum (engine.c's hc_cells order) */
                        long double ref = 0.0L;
                        double hd = 0.0;
                        for (uint32_t c = 0; c < N; c++) {
                            const uint32_t a0 = cnt[2 * c], a1 = cnt[2 * c + 1];
                            ref += (long double)g[a0 + a1] - (long double)f0[a0] - (long double)f1[a1];
                            hd += g[a0 + a1] - f0[a0] - f1[a1];
                        }
                        const double err = fabs((double)((long double)hf - ref));
                        if (err > bound) fprintf(stderr, "n0 %u n1 %u xi %g N %u pattern %d: |%.9g - %.12Lg| = %g > %g\n",
                                                 n0, n1, xis[xi], N, pat, (double)hf, ref, err, bound);
                        assert_true(err <= bound);
                        /* the device's IG upper bound (float IG + the margin,
                         * which adds the double sums' own) never below the
                         * host's double IG: Hc(float) - bound <= Hc(double) */
                        const double gmax = fmax(fabs(g[n]), fmax(fabs(f0[n0]), fabs(f1[n1])));
                        const double dmargin = 16.0 * (N + 2.0) * 3.0 * fmax(gmax, 1.0) * ldexp(1.0, -52);
                        assert_true((double)hf - (bound + dmargin) <= hd && hd <= (double)hf + (bound + dmargin));
                        if (err / bound > worst_ratio) worst_ratio = err / bound;
                    }
            }
            es_gkm_ftab_free(&ft);
            free(f0), free(f1), free(g);
        }
    print_message("float Hc: the largest error seen is %.3g of the bound\n", worst_ratio);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mt19937),
        cmocka_unit_test(test_kernels),
        cmocka_unit_test(test_discretize_equal_frequency),
        cmocka_unit_test(test_adjust),
        cmocka_unit_test(test_engine_direct),
        cmocka_unit_test(test_gpu_float_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
