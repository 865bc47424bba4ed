/* test_qt.c -- the quantitative-trait sums and tests against plain loops.
 *
 * Planes of one class are built by hand from random genotypes (missing calls
 * at several rates, sample counts that are not multiples of 64, monomorphic
 * and all-missing variants) with a random fixed-point phenotype.  Every pair's
 * integer sums from es_qt_sums_run() (the kernel this CPU picks) and from the
 * scalar twin must equal per-sample sums, in the linear and the cell layouts;
 * es_qt_dsums_exact() must give the same sums in double; es_stat_linear()
 * must give the z^2 and coefficient of a least-squares fit solved here by
 * Gauss-Jordan elimination; es_f_sf() must meet known F tails.  The group
 * kernels of the pruned scan (dot products, sums, missing-call counts and
 * tables of eight first variants at once) and the vector layout fill must
 * give the same values as the per-sample loops and the scalar fill. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "select.h"
#include "testutil.h"
#include "tu_planes.h"

typedef struct {
    es_planes_t pl;
    es_qt_y_t y;
    uint8_t *g; /* g[v * n + s]: 0..2, 3 missing */
    uint32_t m, n;
} fake_t;

static void fake_make(fake_t *f, uint32_t m, uint32_t n, double miss, uint64_t seed)
{
    uint64_t rng = seed;
    memset(f, 0, sizeof *f);
    f->m = m;
    f->n = n;
    assert_int_equal(tu_planes_alloc(&f->pl, m, n), 0);
    const uint32_t words = f->pl.words;
    f->g = malloc((size_t)m * n);
    assert_non_null(f->g);
    for (uint32_t v = 0; v < m; v++) {
        double maf = 0.05 + 0.4 * (double)(tu_rand(&rng) >> 11) / 9007199254740992.0;
        for (uint32_t s = 0; s < n; s++) {
            uint8_t g = 0;
            if (v % 7 == 3) g = 1;                /* monomorphic */
            else if (v % 11 == 5 && miss > 0) g = 3; /* all missing */
            else if (miss > 0 && (double)(tu_rand(&rng) >> 11) / 9007199254740992.0 < miss) g = 3;
            else
                for (int k = 0; k < 2; k++) g += (double)(tu_rand(&rng) >> 11) / 9007199254740992.0 < maf;
            f->g[(size_t)v * n + s] = g;
            tu_plane_set(f->pl.planes + (size_t)v * 3 * words, words, s, g);
        }
    }
    f->y.slots = words * 64;
    f->y.n = n;
    f->y.scale = ldexp(1.0, 30);
    f->y.scale2 = ldexp(1.0, 20);
    f->y.q = calloc(f->y.slots, sizeof *f->y.q);
    f->y.q2 = calloc(f->y.slots, sizeof *f->y.q2);
    f->y.yd = calloc(f->y.slots, sizeof *f->y.yd);
    for (uint32_t s = 0; s < n; s++) {
        f->y.q[s] = tu_rand(&rng) >> (64 - ES_QT_BITS); /* up to 2^39 - 1 */
        f->y.q2[s] = tu_rand(&rng) >> (64 - ES_QT_BITS);
        f->y.yd[s] = (double)f->y.q[s] / f->y.scale;
    }
}

static void fake_free(fake_t *f)
{
    free(f->pl.planes);
    free(f->g);
    es_qt_y_free(&f->y);
}

/* the sums of pair (a, b) one sample at a time */
static void naive(const fake_t *f, uint32_t a, uint32_t b, es_qt_sums_t *o)
{
    memset(o, 0, sizeof *o);
    for (uint32_t s = 0; s < f->n; s++) {
        unsigned ga = f->g[(size_t)a * f->n + s], gb = f->g[(size_t)b * f->n + s];
        if (ga == 3 || gb == 3) continue;
        int64_t q = (int64_t)f->y.q[s];
        o->sy += q;
        o->syy += (int64_t)f->y.q2[s];
        o->saby += (int64_t)(ga * gb) * q;
        if (ga) o->ra[ga - 1] += q;
        if (gb) o->cb[gb - 1] += q;
        if (ga && gb) o->cell[(ga - 1) * 2 + (gb - 1)] += q;
    }
}

/* the 3x3 table of pair (a, b) */
static void tab_of(const fake_t *f, uint32_t a, uint32_t b, es_table2_t *t)
{
    memset(t, 0, sizeof *t);
    for (uint32_t s = 0; s < f->n; s++) {
        unsigned ga = f->g[(size_t)a * f->n + s], gb = f->g[(size_t)b * f->n + s];
        if (ga != 3 && gb != 3) t->n[0][ga * 3 + gb]++;
    }
}

static void check_sums(double miss, uint32_t n, int cells)
{
    fake_t f;
    fake_make(&f, 40, n, miss, 7 + n);
    es_qt_block_t blk;
    memset(&blk, 0, sizeof blk);
    assert_int_equal(es_qt_block_fill(&blk, &f.pl, 0, f.m, &f.y, cells), ES_OK);
    es_qt_scratch_t sc, sc2;
    memset(&sc, 0, sizeof sc);
    memset(&sc2, 0, sizeof sc2);
    es_qt_sums_t got[40], ref[40];
    for (uint32_t a = 0; a < f.m; a++) {
        uint32_t b0 = a + 1, nb = f.m - b0;
        if (!nb) continue;
        es_qt_sums_run(&blk, a, &blk, b0, nb, &f.y, &sc, got);
        es_qt_sums_run_scalar(&blk, a, &blk, b0, nb, &f.y, &sc2, ref);
        for (uint32_t k = 0; k < nb; k++) {
            es_qt_sums_t want;
            naive(&f, a, b0 + k, &want);
            if (!cells) memset(want.cell, 0, sizeof want.cell);
            assert_memory_equal(&ref[k], &want, sizeof want);
            assert_memory_equal(&got[k], &want, sizeof want);
            if (!cells) { /* the top two slices and the rest (the bound's split) */
                for (int sc_only = 0; sc_only < 2; sc_only++) {
                    es_qt_sums_t h[40];
                    es_qt_sums_run_hi(&blk, a, &blk, b0, nb, &f.y, sc_only ? &sc2 : &sc, h, sc_only);
                    es_qt_sums_t hk = h[k];
                    int64_t x0 = hk.saby * ((int64_t)1 << 24);
                    assert_true(x0 + es_qt_saby_lo(&blk, a, &blk, b0 + k, sc_only) == want.saby);
                    hk.saby = want.saby;
                    assert_memory_equal(&hk, &want, sizeof want);
                    es_table2_t t;
                    tab_of(&f, a, b0 + k, &t);
                    const uint32_t *c = t.n[0];
                    int64_t wb = (int64_t)(c[4] + 2 * c[5] + c[7] + 2 * c[8]);
                    assert_true(want.saby >= x0 && want.saby <= x0 + wb * ((1 << 24) - 1));
                }
            }
            es_qt_dsums_t d, dr;
            es_qt_dsums_exact(&blk, a, &blk, b0 + k, &f.y, &d);
            es_qt_dsums_exact_scalar(&blk, a, &blk, b0 + k, &f.y, &dr);
            assert_memory_equal(&d, &dr, sizeof d); /* the same bits as the loop with its tests */
            assert_true(fabs(d.sy - (double)want.sy / f.y.scale) <= 1e-9 * (1 + fabs(d.sy)));
            assert_true(fabs(d.saby - (double)want.saby / f.y.scale) <= 1e-9 * (1 + fabs(d.saby)));
        }
    }
    es_qt_scratch_free(&sc);
    es_qt_scratch_free(&sc2);
    es_qt_block_free(&blk);
    fake_free(&f);
}

static void test_sums_linear(void **state)
{
    (void)state;
    check_sums(0, 300, 0);
    check_sums(0.02, 300, 0);
    check_sums(0.3, 77, 0);
}

/* The group kernels of the pruned linear scan (es_qt_dothi_group,
 * es_qt_sums_group, es_count_group_listed; the vector kernels and the scalar
 * twins) against the per-sample sums and tables, and the vector fill of a
 * linear layout against the scalar one, byte for byte. */
static void check_group(double miss, uint32_t n, uint64_t seed, int extreme)
{
    fake_t f;
    fake_make(&f, 45, n, miss, seed);
    if (extreme) { /* the largest top slices: q = 2^39 - 1, every call of even variants 2 */
        uint32_t words = f.pl.words;
        for (uint32_t s = 0; s < n; s++) {
            f.y.q[s] = ((uint64_t)1 << ES_QT_BITS) - 1;
            f.y.yd[s] = (double)f.y.q[s] / f.y.scale;
        }
        for (uint32_t v = 0; v < f.m; v += 2)
            for (uint32_t s = 0; s < n; s++) {
                uint64_t *p = f.pl.planes + (size_t)v * 3 * words, bit = (uint64_t)1 << (s % 64);
                if (f.g[(size_t)v * n + s] == 3) continue;
                f.g[(size_t)v * n + s] = 2;
                p[s / 64] |= bit;
                p[words + s / 64] |= bit;
            }
    }
    /* what es_pack() gives the counting kernels: one class's genotype counts */
    f.pl.gcount = calloc(f.m, sizeof *f.pl.gcount);
    assert_non_null(f.pl.gcount);
    for (uint32_t v = 0; v < f.m; v++)
        for (uint32_t s = 0; s < n; s++) {
            unsigned g = f.g[(size_t)v * n + s];
            if (g != 3) f.pl.gcount[v][0][g]++;
        }
    es_qt_block_t blk, ref;
    memset(&blk, 0, sizeof blk);
    memset(&ref, 0, sizeof ref);
    assert_int_equal(es_qt_block_fill(&blk, &f.pl, 0, f.m, &f.y, 0), ES_OK);
    setenv("EPISTREAM_QT_KERNEL", "scalar", 1);
    assert_int_equal(es_qt_block_fill(&ref, &f.pl, 0, f.m, &f.y, 0), ES_OK);
    unsetenv("EPISTREAM_QT_KERNEL");
    size_t len = blk.len;
    assert_memory_equal(blk.code, ref.code, (size_t)f.m * len);
    assert_memory_equal(blk.code_t, ref.code_t, (size_t)blk.tstride * len);
    assert_memory_equal(blk.ar, ref.ar, (size_t)f.m * ES_QT_SLICES * len);
    assert_memory_equal(blk.br, ref.br, (size_t)f.m * len);
    assert_memory_equal(blk.tot, ref.tot, (size_t)f.m * sizeof *blk.tot);
    assert_memory_equal(blk.moff, ref.moff, ((size_t)f.m + 1) * sizeof *blk.moff);
    if (blk.moff[f.m]) {
        assert_memory_equal(blk.mpos, ref.mpos, (size_t)blk.moff[f.m] * sizeof *blk.mpos);
        assert_memory_equal(blk.mq, ref.mq, (size_t)blk.moff[f.m] * sizeof *blk.mq);
    }
    const size_t st = 64;
    int64_t *hi = malloc(ES_QT_GROUP * st * sizeof *hi), *hs = malloc(ES_QT_GROUP * st * sizeof *hs);
    es_qt_sums_t *sg = malloc(ES_QT_GROUP * st * sizeof *sg);
    uint32_t(*mc)[5] = malloc(ES_QT_GROUP * st * sizeof *mc);
    es_table2_t *tg = malloc(ES_QT_GROUP * st * sizeof *tg), *th = malloc(ES_QT_GROUP * st * sizeof *th);
    assert_true(hi && hs && sg && mc && tg && th);
    const es_popcount_impl_t *impls[2] = {es_popcount_best(), &es_popcount_scalar};
    /* the partners' planes side by side: the table from them (eight
     * partners a vector with AVX-512) and from the planes themselves */
    es_planes_tr_t tr;
    memset(&tr, 0, sizeof tr);
    assert_int_equal(es_planes_tr_fill(&tr, &f.pl), ES_OK);
    for (int scalar = 0; scalar < 2; scalar++) {
        es_qt_scratch_t sc;
        memset(&sc, 0, sizeof sc);
        for (uint32_t a0 = 0; a0 < f.m; a0 += 3) { /* groups of every size, overlapping */
            uint32_t na = f.m - a0 < ES_QT_GROUP ? f.m - a0 : ES_QT_GROUP;
            uint32_t b0 = a0 % 5, nb = f.m - b0;
            es_qt_dothi_group(&blk, a0, na, &blk, b0, nb, hi, st, scalar);
            es_qt_dothi_group(&blk, a0, na, &blk, b0, nb, hs, st, 1);
            es_qt_sums_group(&blk, a0, na, &blk, b0, nb, &f.y, &sc, hi, sg, mc, st, scalar);
            es_count_group_listed(impls[scalar], &f.pl, a0, na, &f.pl, &tr, b0, nb, (const uint32_t(*)[5])mc, st, tg);
            es_count_group_listed(impls[scalar], &f.pl, a0, na, &f.pl, NULL, b0, nb, (const uint32_t(*)[5])mc, st, th);
            for (uint32_t g = 0; g < na; g++) {
                es_qt_sums_t h[64];
                es_qt_sums_run_hi(&blk, a0 + g, &blk, b0, nb, &f.y, &sc, h, 1);
                for (uint32_t k = 0; k < nb; k++) {
                    size_t o = g * st + k;
                    es_qt_sums_t want;
                    naive(&f, a0 + g, b0 + k, &want);
                    memset(want.cell, 0, sizeof want.cell);
                    assert_true(hi[o] == h[k].saby && hs[o] == h[k].saby);
                    es_qt_sums_t got = sg[o];
                    assert_true(got.saby == hi[o]);
                    got.saby = want.saby;
                    assert_memory_equal(&got, &want, sizeof want);
                    es_table2_t t;
                    tab_of(&f, a0 + g, b0 + k, &t);
                    assert_memory_equal(&tg[o], &t, sizeof t);
                    assert_memory_equal(&th[o], &t, sizeof t);
                }
            }
        }
        es_qt_scratch_free(&sc);
    }
    free(hi);
    free(hs);
    free(sg);
    free(mc);
    free(tg);
    free(th);
    es_planes_tr_free(&tr);
    free(f.pl.gcount);
    f.pl.gcount = NULL;
    es_qt_block_free(&blk);
    es_qt_block_free(&ref);
    fake_free(&f);
}

static void test_group(void **state)
{
    (void)state;
    check_group(0, 300, 11, 0);
    check_group(0.02, 300, 12, 0);
    check_group(0.3, 77, 13, 0);
    check_group(0.01, 2000, 14, 0);
    /* the dot kernel's 32-bit join at its largest (8,192 slots) and past it */
    check_group(0, 8192, 15, 1);
    check_group(0.01, 8200, 16, 1);
}

static void test_sums_cells(void **state)
{
    (void)state;
    check_sums(0, 513, 1);
    check_sums(0.05, 200, 1);
}

/* Solve the 4x4 system m x = r by Gauss-Jordan with partial pivoting. */
static void solve4(double m[4][5])
{
    for (int c = 0; c < 4; c++) {
        int p = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(m[r][c]) > fabs(m[p][c])) p = r;
        for (int k = 0; k < 5; k++) {
            double t = m[c][k];
            m[c][k] = m[p][k];
            m[p][k] = t;
        }
        for (int r = 0; r < 4; r++) {
            if (r == c) continue;
            double f = m[r][c] / m[c][c];
            for (int k = 0; k < 5; k++) m[r][k] -= f * m[c][k];
        }
    }
}

/* es_stat_linear against least squares on the samples: beta = (X'X)^-1 X'y,
 * se^2 = RSS / (n - 4) [(X'X)^-1]_33 (the inverse's last column from a
 * second solve) */
static void test_linear_vs_lsq(void **state)
{
    (void)state;
    fake_t f;
    fake_make(&f, 12, 400, 0.01, 99);
    int checked = 0;
    for (uint32_t a = 0; a < f.m; a++)
        for (uint32_t b = a + 1; b < f.m; b++) {
            es_table2_t t;
            memset(&t, 0, sizeof t);
            double xtx[4][4] = {{0}}, xty[4] = {0};
            es_qt_dsums_t d;
            memset(&d, 0, sizeof d);
            for (uint32_t s = 0; s < f.n; s++) {
                unsigned ga = f.g[a * f.n + s], gb = f.g[b * f.n + s];
                if (ga == 3 || gb == 3) continue;
                t.n[0][ga * 3 + gb]++;
                double x[4] = {1, ga, gb, ga * gb}, y = f.y.yd[s];
                for (int i = 0; i < 4; i++) {
                    xty[i] += x[i] * y;
                    for (int j = 0; j < 4; j++) xtx[i][j] += x[i] * x[j];
                }
                d.sy += y;
                d.syy += y * y;
                d.say += ga * y;
                d.sby += gb * y;
                d.saby += ga * gb * y;
            }
            es_stat_result_t r;
            double beta;
            es_stat_linear(&t, &d, &r, &beta);
            if (r.df == 0) continue; /* a failed fit (monomorphic, ...) */
            double m1[4][5], m2[4][5];
            for (int i = 0; i < 4; i++) {
                for (int j = 0; j < 4; j++) m1[i][j] = m2[i][j] = xtx[i][j];
                m1[i][4] = xty[i];
                m2[i][4] = i == 3;
            }
            solve4(m1);
            solve4(m2);
            double bhat[4], n = 0, rss = 0;
            for (int i = 0; i < 4; i++) bhat[i] = m1[i][4] / m1[i][i];
            for (uint32_t s = 0; s < f.n; s++) {
                unsigned ga = f.g[a * f.n + s], gb = f.g[b * f.n + s];
                if (ga == 3 || gb == 3) continue;
                double e = f.y.yd[s] - (bhat[0] + bhat[1] * ga + bhat[2] * gb + bhat[3] * ga * gb);
                rss += e * e;
                n++;
            }
            double v33 = m2[3][4] / m2[3][3];
            double z2 = bhat[3] * bhat[3] / (rss / (n - 4) * v33);
            assert_true(fabs(beta - bhat[3]) <= 1e-7 * fabs(bhat[3]) + 1e-12);
            assert_true(fabs(r.stat - z2) <= 1e-6 * z2 + 1e-12);
            es_stat_linear_p(&r);
            assert_true(fabs(r.p - erfc(sqrt(z2 / 2))) <= 1e-6 * r.p);
            checked++;
        }
    assert_true(checked > 20);
    fake_free(&f);
}

/* ---- the bound of the pruning (es_stat_linear_bound, es_stat_linear_batch) ----
 * Random and extreme pairs: tiny n, rare and near-fixed genotypes, genotypes
 * equal or mirrored, phenotypes near-constant, exactly fitted by the model
 * (the residual-variance rule), heavy-tailed, far from 0; and intervals of
 * the ABy sum from a point to wider than the data.  Wherever a pair is
 * certified, the exact fit at the interval's ends and at points inside must
 * neither fail nor ask for the exact sums, and its z^2 must be <= the
 * bound; the table's failure decisions of the batch (AVX-512 and scalar)
 * must be es_stat_linear_prep()'s. */

/* draw pair number `it` (tu_qt_draw): table t and sums d (as es_qt_dsums
 * makes them, ABy sum exact) */
static void draw_pair(uint64_t *r, int it, es_table2_t *t, es_qt_dsums_t *d)
{
    uint8_t ga[2000], gb[2000];
    double y[2000], lo;
    es_qt_y_t qy;
    memset(&qy, 0, sizeof qy);
    uint32_t n = tu_qt_draw(r, it, ga, gb, y, &lo, &qy.scale, &qy.scale2);
    es_qt_sums_t q;
    memset(&q, 0, sizeof q);
    memset(t, 0, sizeof *t);
    for (uint32_t s = 0; s < n; s++) {
        int64_t v = llround((y[s] - lo) * qy.scale), v2 = llround((y[s] - lo) * (y[s] - lo) * qy.scale2);
        t->n[0][ga[s] * 3 + gb[s]]++;
        q.sy += v;
        q.syy += v2;
        q.saby += ga[s] * gb[s] * v;
        if (ga[s]) q.ra[ga[s] - 1] += v;
        if (gb[s]) q.cb[gb[s] - 1] += v;
    }
    es_qt_dsums(&q, &qy, d);
}

/* the exact fit at ABy sum x must be certified's: no failure, no request
 * for the exact sums, z^2 <= zb */
static void check_at(const es_table2_t *t, const es_qt_dsums_t *d, double x, double zb, double *worst)
{
    es_qt_dsums_t dx = *d;
    dx.saby = x;
    es_stat_result_t r;
    double beta;
    assert_int_equal(es_stat_linear(t, &dx, &r, &beta), 0);
    assert_int_equal(r.df, 1);
    assert_true(r.stat <= zb);
    if (zb > 0 && r.stat / zb > *worst) *worst = r.stat / zb;
}

static void test_linear_bound(void **state)
{
    (void)state;
    uint64_t rng = 2121;
    enum { RUN = 61 };
    int n_fail = 0, n_cert = 0, n_unsure = 0, n_pairs = 0;
    double worst = 0, fworst = 0, loose = 0; /* the largest exact z^2 / bound seen (double, float bound) */
    int n_fcert = 0;
    for (int round = 0; round < 1500; round++) {
        es_table2_t t[RUN];
        es_qt_dsums_t d[RUN], dx[RUN];
        double x1[RUN];
        for (int k = 0; k < RUN; k++) {
            draw_pair(&rng, round * RUN + k, &t[k], &d[k]);
            /* an interval of the ABy sum around the exact one: a point, the
             * scan's width, or wide (crossing c3 = 0 in some) */
            double x = d[k].saby, w = fabs(x) + 1;
            int mode = (int)tu_randn(&rng, 4);
            double below = mode == 0 ? 0 : mode == 1 ? 1e-7 * w * tu_unif(&rng) : mode == 2 ? 1e-3 * w * tu_unif(&rng)
                                                                                         : w * tu_unif(&rng);
            double above = mode == 0 ? 0 : below * 2 * tu_unif(&rng);
            dx[k] = d[k];
            dx[k].saby = x - below;
            x1[k] = x + above;
        }
        uint8_t fail[RUN], cert[RUN], fail_s[RUN], cert_s[RUN];
        double zb[RUN], zb_s[RUN];
        es_stat_linear_batch(t, dx, x1, RUN, fail, cert, zb);
        es_stat_linear_batch_scalar(t, dx, x1, RUN, fail_s, cert_s, zb_s);
        uint8_t fail_t[RUN], cert_t[RUN];
        double zb_t[RUN];
        es_stat_linear_batch_twin(t, dx, x1, RUN, fail_t, cert_t, zb_t);
        /* the single-precision certificate: the vector's decisions and
         * bounds are the scalar twin's, bit for bit; a sure pair passes the
         * table's rules; a certified one's fit neither fails nor asks for
         * the exact sums on the interval, and its z^2 is below the bound */
        uint8_t sv[RUN], ss[RUN], cv[RUN], cs[RUN];
        double zv[RUN], zs[RUN];
        es_stat_linear_sure(t, dx, x1, RUN, sv, cv, zv);
        es_stat_linear_sure_scalar(t, dx, x1, RUN, ss, cs, zs);
        for (int k = 0; k < RUN; k++) {
            assert_int_equal(sv[k], ss[k]);
            assert_int_equal(cv[k], cs[k]);
            assert_memory_equal(&zv[k], &zs[k], sizeof zv[k]);
            es_linear_prep_t p;
            if (sv[k]) assert_int_equal(es_stat_linear_prep(&t[k], &p), 0);
            if (!cv[k]) continue;
            n_fcert++;
            check_at(&t[k], &dx[k], dx[k].saby, zv[k], &fworst);
            check_at(&t[k], &dx[k], x1[k], zv[k], &fworst);
            check_at(&t[k], &dx[k], d[k].saby, zv[k], &fworst);
            for (int i = 0; i < 3; i++)
                check_at(&t[k], &dx[k], dx[k].saby + (x1[k] - dx[k].saby) * tu_unif(&rng), zv[k], &fworst);
        }
        for (int k = 0; k < RUN; k++) {
            n_pairs++;
            es_linear_prep_t p;
            int pf = es_stat_linear_prep(&t[k], &p);
            assert_int_equal(fail[k], pf);
            assert_int_equal(fail_s[k], pf);
            assert_int_equal(fail_t[k], pf);
            es_stat_result_t r;
            double beta;
            es_stat_linear(&t[k], &d[k], &r, &beta);
            if (pf) { /* the table's rules: the fit fails, whatever the sums */
                assert_int_equal(r.df, 0);
                n_fail++;
                continue;
            }
            for (int v = 0; v < 2; v++) {
                if (!(v ? cert_s[k] : cert[k])) continue;
                double b = v ? zb_s[k] : zb[k];
                check_at(&t[k], &dx[k], dx[k].saby, b, &worst);
                check_at(&t[k], &dx[k], x1[k], b, &worst);
                check_at(&t[k], &dx[k], d[k].saby, b, &worst);
                for (int i = 0; i < 3; i++) check_at(&t[k], &dx[k], dx[k].saby + (x1[k] - dx[k].saby) * tu_unif(&rng), b, &worst);
            }
            /* the batch's bound is the double one where the float
             * certificate could not decide (differing in the last bits at
             * most), else the float one, a little looser */
            if (cert[k] && cert_s[k]) {
                if (cv[k]) {
                    assert_memory_equal(&zb[k], &zv[k], sizeof zb[k]);
                    if (zb[k] / (zb_s[k] + 1e-3) > loose) loose = zb[k] / (zb_s[k] + 1e-3);
                } else {
                    assert_true(fabs(zb[k] - zb_s[k]) <= 1e-9 * zb_s[k] + 1e-300);
                }
            }
            if (cv[k]) assert_true(cert[k]);
            /* the batch without AVX-512 */
            assert_int_equal(fail_t[k], fail[k]);
            assert_int_equal(cert_t[k], cert[k]);
            if (cv[k]) assert_memory_equal(&zb_t[k], &zb[k], sizeof zb[k]);
            else if (cert[k]) assert_true(fabs(zb_t[k] - zb[k]) <= 1e-9 * zb[k] + 1e-300);
            n_cert += cert_s[k];
            n_unsure += !cert_s[k];
        }
    }
    print_message("bound: %d pairs, %d fail on the table, %d certified, %d not; largest z2 / bound %.9f\n", n_pairs,
                  n_fail, n_cert, n_unsure, worst);
    print_message("bound in float: %d certified; largest z2 / bound %.6f; float / double bound at most %.6f\n", n_fcert,
                  fworst, loose);
    assert_true(n_fcert > n_cert / 3);
    assert_true(fworst > 0.9);
    /* every kind was met, and the bound is tight where the interval is a point */
    assert_true(n_fail > n_pairs / 20);
    assert_true(n_cert > n_pairs / 20);
    assert_true(n_unsure > n_pairs / 50);
    assert_true(worst > 0.999);
}

/* F tails from scipy.stats.f.sf(f, d1, d2) */
/* ---- the single-precision certificate of the table's rules ------------------
 * es_stat_linear_sure() may say "sure" only where es_stat_linear_prep()
 * passes in double, and its AVX-512 and scalar variants must agree.  Tables
 * from families that reach every rule (identical, mirrored, nearly identical
 * genotypes: r near 0.999; B nearly fixed at 1: A and AB collinear, the VIF
 * and the determinant; A nearly fixed at 2: the intercept's estimate
 * correlation; rare cells; n from 5 to past the certificate's 8,192), then
 * walked cell by cell towards the nearest rule threshold (an adversary
 * that keeps a step when it brings the exact rule quantities, computed here
 * in long double from exact integers, closer to a threshold). */

/* the distance of table c to the nearest of PLINK's table thresholds, from
 * exact integer cross products (long double) */
static long double rule_margin(const uint32_t *c)
{
    int64_t ct = 0, s[3] = {0}, q[3][3] = {{0}};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            int64_t v[3] = {a, b, a * b}, k = c[a * 3 + b];
            ct += k;
            for (int i = 0; i < 3; i++) {
                s[i] += k * v[i];
                for (int j = 0; j < 3; j++) q[i][j] += k * v[i] * v[j];
            }
        }
    long double cc[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) cc[i][j] = (long double)(ct * q[i][j] - s[i] * s[j]);
    if (ct <= 4 || !(cc[0][0] > 0 && cc[1][1] > 0 && cc[2][2] > 0)) return 0;
    long double r12 = cc[0][1] / sqrtl(cc[0][0] * cc[1][1]), r13 = cc[0][2] / sqrtl(cc[0][0] * cc[2][2]);
    long double r23 = cc[1][2] / sqrtl(cc[1][1] * cc[2][2]);
    long double cdet = 1 + 2 * r12 * r13 * r23 - r12 * r12 - r13 * r13 - r23 * r23;
    long double m = fabsl(cdet), rr[3] = {r12, r13, r23};
    for (int i = 0; i < 3; i++) {
        if (fabsl(0.999L - rr[i]) < m) m = fabsl(0.999L - rr[i]);
        long double v = fabsl(50 * cdet + rr[i] * rr[i] - 1) / 50;
        if (v < m) m = v;
    }
    return m;
}

/* a table of n samples from family f */
static void sure_draw(uint64_t *r, int f, uint32_t n, uint32_t *c)
{
    double pa = 0.01 + 0.49 * tu_unif(r), pb = 0.01 + 0.49 * tu_unif(r), eps = pow(10, -4 + 3 * tu_unif(r));
    if (f == 4) pa = pb = 0.001 + 0.01 * tu_unif(r);
    memset(c, 0, 9 * sizeof *c);
    for (uint32_t k = 0; k < n; k++) {
        int a = (tu_unif(r) < pa) + (tu_unif(r) < pa), b = (tu_unif(r) < pb) + (tu_unif(r) < pb);
        if (f == 1 && tu_unif(r) > eps) b = a;                      /* nearly identical */
        if (f == 2 && tu_unif(r) > eps) b = 2 - a;                  /* nearly mirrored */
        if (f == 3 && tu_unif(r) > eps * 30) b = 1;                 /* AB nearly A */
        if (f == 5 && tu_unif(r) > eps * 30) a = 2;                 /* A nearly fixed at 2 */
        if (f == 6) a = (int)tu_randn(r, 3), b = tu_unif(r) < 0.5 ? a : (int)tu_randn(r, 3);
        c[a * 3 + b]++;
    }
}

/* phenotype sums for table c: a mean per cell (random, exactly additive
 * plus an interaction, or far from 0) and a within-cell spread (ordinary,
 * tiny, or none), in a power-of-two fixed point as the scan's; *x1 the
 * upper end of an interval of the ABy sum around its value */
static void sure_sums(uint64_t *r, const uint32_t *c, es_qt_dsums_t *d, double *x1)
{
    int mode = (int)tu_randn(r, 6);
    double b[4] = {tu_unif(r) * 10, tu_gauss(r), tu_gauss(r), tu_randn(r, 2) ? tu_gauss(r) * 0.1 : 0};
    double sp = mode == 3 ? 1e-7 : mode == 4 ? 0 : 0.1 + tu_unif(r) * 3, off = mode == 5 ? 1e4 : 0, scale = 0x1p36;
    memset(d, 0, sizeof *d);
    for (int a = 0; a < 3; a++)
        for (int bb = 0; bb < 3; bb++) {
            double n = c[a * 3 + bb];
            if (!n) continue;
            double mu = off + b[0] + 3 + b[1] * a + b[2] * bb + b[3] * a * bb + (mode < 2 ? tu_gauss(r) * 0.05 : 0);
            if (mu < 0) mu = 0;
            mu = floor(mu * scale) / scale;
            d->sy += n * mu;
            d->say += a * n * mu;
            d->sby += bb * n * mu;
            d->saby += a * bb * n * mu;
            d->syy += n * (mu * mu + sp * sp);
        }
    d->quantum = 0.5 / scale;
    double w = (fabs(d->saby) + 1) * (tu_randn(r, 2) ? 1e-9 : 1e-5) * tu_unif(r);
    *x1 = d->saby + w;
    d->saby -= w * tu_unif(r);
}

static void test_linear_sure(void **state)
{
    (void)state;
    uint64_t rng = 2122;
    enum { RUN = 64 };
    static const uint32_t ns[] = {5, 6, 9, 20, 100, 700, 2000, 5000, 8191, 8192, 8193, 12000};
    es_table2_t t[RUN];
    memset(t, 0, sizeof t);
    uint8_t sv[RUN], ss[RUN], cv[RUN], cs[RUN];
    double zv[RUN], zs[RUN], x1[RUN];
    es_qt_dsums_t yd[RUN];
    long double mg[RUN], closest = 1;
    int n_cert = 0, k = 0, n_tab = 0, n_sure = 0, n_near = 0, n_near_sure = 0, n_common = 0, n_common_sure = 0;
    for (int base = 0; base < 2100; base++) {
        int f = base % 7;
        uint32_t n = ns[tu_randn(&rng, 12)], c[9];
        sure_draw(&rng, f, n, c);
        long double cur = rule_margin(c);
        for (int step = 0; step < 60; step++) {
            if (step) { /* move up to 1 % of the samples between two cells; keep it if nearer a threshold */
                uint32_t d[9], from = tu_randn(&rng, 9), to = tu_randn(&rng, 9), mv = 1 + tu_randn(&rng, 1 + n / 100);
                memcpy(d, c, sizeof d);
                if (d[from] < mv || from == to) continue;
                d[from] -= mv;
                d[to] += mv;
                long double nm = rule_margin(d);
                if (!(nm < cur) && tu_randn(&rng, 10)) continue;
                memcpy(c, d, sizeof d);
                cur = nm;
            }
            memcpy(t[k].n[0], c, sizeof c);
            mg[k] = cur;
            sure_sums(&rng, c, &yd[k], &x1[k]);
            if (++k < RUN) continue;
            es_stat_linear_sure(t, yd, x1, RUN, sv, cv, zv);
            es_stat_linear_sure_scalar(t, yd, x1, RUN, ss, cs, zs);
            for (int i = 0; i < RUN; i++) {
                es_linear_prep_t p;
                int fails = es_stat_linear_prep(&t[i], &p);
                assert_int_equal(sv[i], ss[i]);
                assert_int_equal(cv[i], cs[i]);
                assert_memory_equal(&zv[i], &zs[i], sizeof zv[i]);
                if (sv[i]) assert_int_equal(fails, 0); /* sure: the double rules pass */
                if (cv[i]) { /* certified: the fit on the interval */
                    n_cert++;
                    double fw = 0;
                    check_at(&t[i], &yd[i], yd[i].saby, zv[i], &fw);
                    check_at(&t[i], &yd[i], x1[i], zv[i], &fw);
                    check_at(&t[i], &yd[i], yd[i].saby + (x1[i] - yd[i].saby) * tu_unif(&rng), zv[i], &fw);
                }
                uint32_t ct = 0;
                for (int e = 0; e < 9; e++) ct += t[i].n[0][e];
                if (ct > 8192) assert_int_equal(sv[i], 0);
                n_tab++;
                n_sure += sv[i];
                if (mg[i] < 1e-2L) {
                    n_near++;
                    n_near_sure += sv[i];
                    if (sv[i] && mg[i] < closest) closest = mg[i];
                }
                if (mg[i] > 0.05L && ct >= 100 && ct <= 8192 && !fails) {
                    n_common++;
                    n_common_sure += sv[i];
                }
            }
            k = 0;
        }
    }
    print_message("sure: %d certified with a bound\n", n_cert);
    print_message("sure: %d tables, %d sure; %d within 1e-2 of a threshold (%d sure, the closest sure %.3Le); "
                  "%d of %d passing tables of n >= 100 at least 0.05 from every threshold sure\n",
                  n_tab, n_sure, n_near, n_near_sure, closest, n_common_sure, n_common);
    /* the adversary got near the thresholds, and the certificate is not vacuous */
    assert_true(n_near > n_tab / 10);
    assert_true(n_common_sure > n_common * 9 / 10);
}

static void test_f_sf(void **state)
{
    (void)state;
    static const struct {
        double f, d1, d2, p;
    } k[] = {
        {1.0, 4, 100, 0.41131379866639306},
        {3.5, 4, 1000, 0.007565434654198345},
        {25.0, 2, 50, 2.9802322387695312e-08},
        {0.2, 1, 10, 0.6642514717311352},
    };
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        double l10;
        double p = es_f_sf(k[i].f, k[i].d1, k[i].d2, &l10);
        assert_true(fabs(p - k[i].p) <= 1e-9 * k[i].p);
        assert_true(fabs(l10 + log10(k[i].p)) <= 1e-9);
    }
    double l10;
    assert_true(es_f_sf(0, 4, 10, &l10) == 1 && l10 == 0);
    /* far in the tail: p underflows, -log10 p does not */
    es_f_sf(1e6, 4, 10000, &l10);
    assert_true(isfinite(l10) && l10 > 300);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sums_linear),
        cmocka_unit_test(test_sums_cells),
        cmocka_unit_test(test_group),
        cmocka_unit_test(test_linear_vs_lsq),
        cmocka_unit_test(test_linear_bound),
        cmocka_unit_test(test_linear_sure),
        cmocka_unit_test(test_f_sf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
