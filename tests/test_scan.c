/* test_scan.c -- the scan driver against a brute force over every pair: the
 * top-k, the per-variant summary and the stream of significant pairs must be
 * exactly what scoring every pair naively gives, for any thread count and tile
 * size (which must not change a single byte of the result). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "select.h"
#include "tile.h"
#include "testutil.h"

/* brute force: every pair's table from decoded genotypes, scored */
static es_pair_t *brute_force(const tu_geno_t *f, es_stat_t stat, size_t *np)
{
    int8_t *status = malloc(f->n);
    for (uint32_t s = 0; s < f->n; s++) status[s] = f->pheno[s] == 2 ? 1 : f->pheno[s] == 1 ? 0 : -1;
    size_t n = (size_t)f->m * (f->m - 1) / 2, k = 0;
    es_pair_t *all = malloc(n * sizeof *all);
    for (uint32_t i = 0; i < f->m; i++)
        for (uint32_t j = i + 1; j < f->m; j++) {
            es_table2_t t;
            es_count_pair_naive(f->geno + (size_t)i * f->n, f->geno + (size_t)j * f->n, status,
                                f->n, &t);
            es_stat_result_t r;
            es_stat_compute(stat, &t, &r);
            uint32_t cnt = 0;
            for (int c = 0; c < 9; c++) cnt += t.n[0][c] + t.n[1][c];
            all[k++] = (es_pair_t){.i = i, .j = j, .n = cnt, .df = r.df, .stat = r.stat, .p = r.p,
                                   .log10p = r.log10p};
        }
    free(status);
    *np = n;
    return all;
}

/* Has variant v a called genotype in a sample with a phenotype? */
static int called(const tu_geno_t *f, uint32_t v)
{
    for (uint32_t s = 0; s < f->n; s++)
        if (f->geno[(size_t)v * f->n + s] != 3 && f->pheno[s] != -9) return 1;
    return 0;
}

static int hib_global;
static int cmp_rank(const void *a, const void *b) { return es_pair_rank_cmp(a, b, hib_global); }

static void same_pair(const es_pair_t *a, const es_pair_t *b)
{
    assert_int_equal(a->i, b->i);
    assert_int_equal(a->j, b->j);
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->df, b->df);
    /* the same table gives the same bits: the statistic is a pure function of it */
    assert_memory_equal(&a->stat, &b->stat, sizeof a->stat);
}

static void run_case(uint32_t m, uint32_t n, double miss, es_stat_t stat, uint64_t seed)
{
    tu_geno_t *f = tu_geno_make(m, n, miss, seed);
    size_t nall;
    es_pair_t *all = brute_force(f, stat, &nall);
    int hib = es_stat_higher_is_better(stat);
    hib_global = hib;
    es_pair_t *ranked = malloc(nall * sizeof *ranked);
    memcpy(ranked, all, nall * sizeof *ranked);
    qsort(ranked, nall, sizeof *ranked, cmp_rank);
    double thr = 0.2;

    es_dataset_t *ds;
    assert_int_equal(es_dataset_open_bfile(&ds, f->prefix, NULL, NULL), ES_OK);
    const int threads[] = {1, 3};
    const uint32_t blocks[] = {16, 32, 0};
    for (size_t ti = 0; ti < 2; ti++)
        for (size_t bi = 0; bi < 3; bi++) {
            es_opt_t opt;
            es_opt_init(&opt);
            opt.stat = stat;
            opt.top_k = 25;
            opt.threads = threads[ti];
            opt.block_variants = blocks[bi];
            opt.device = ES_DEVICE_CPU;
            if (es_stat_has_p(stat)) opt.p_threshold = thr;
            es_scan_t *scan;
            assert_int_equal(es_scan_create(&scan, ds, &opt), ES_OK);
            tu_sig_list_t sig = {.order_ok = 1};
            es_scan_set_sig_callback(scan, tu_sig_collect, &sig);
            assert_int_equal(es_scan_run(scan), ES_OK);
            assert_int_equal(es_scan_pairs_done(scan), nall);
            /* top-k */
            assert_int_equal(es_scan_top_count(scan), 25);
            for (size_t r = 0; r < 25; r++) same_pair(&es_scan_top(scan)[r], &ranked[r]);
            /* significant pairs: exactly those with p <= thr, in (i, j) order */
            if (es_stat_has_p(stat)) {
                assert_true(sig.order_ok);
                size_t q = 0;
                for (size_t k = 0; k < nall; k++)
                    if (all[k].p <= thr) {
                        assert_true(q < sig.n);
                        same_pair(&sig.p[q++], &all[k]);
                    }
                assert_int_equal(q, sig.n);
            }
            /* summary */
            const es_summary_t *sum = es_scan_summary(scan);
            for (uint32_t v = 0; v < m; v++) {
                const es_pair_t *best = NULL;
                uint64_t n_sig = 0;
                for (size_t k = 0; k < nall; k++) {
                    if (all[k].i != v && all[k].j != v) continue;
                    if (es_stat_has_p(stat) && all[k].p <= thr) n_sig++;
                    uint32_t partner = all[k].i == v ? all[k].j : all[k].i;
                    if (!best) best = &all[k];
                    else {
                        uint32_t bp = best->i == v ? best->j : best->i;
                        int better = hib ? all[k].stat > best->stat : all[k].stat < best->stat;
                        if (better || (all[k].stat == best->stat && partner < bp)) best = &all[k];
                    }
                }
                assert_non_null(best);
                if (!best) return;
                assert_int_equal(sum[v].n_tot, m - 1);
                assert_int_equal(sum[v].n_sig, n_sig);
                if (!called(f, v)) { /* only empty tables: no best partner */
                    assert_int_equal(sum[v].best_partner, UINT32_MAX);
                    assert_true(isnan(sum[v].best_stat));
                    continue;
                }
                assert_int_equal(sum[v].best_partner, best->i == v ? best->j : best->i);
                assert_memory_equal(&sum[v].best_stat, &best->stat, sizeof(double));
            }
            free(sig.p);
            es_scan_destroy(scan);
        }
    es_dataset_destroy(ds);
    free(ranked);
    free(all);
    tu_geno_free(f);
}

static void test_boost_missing(void **s) { (void)s; run_case(70, 301, 0.02, ES_STAT_BOOST, 1); }
static void test_boost_complete(void **s) { (void)s; run_case(53, 1100, 0.0, ES_STAT_BOOST, 2); }
static void test_chi2(void **s) { (void)s; run_case(41, 257, 0.01, ES_STAT_CHI2, 3); }
static void test_mi(void **s) { (void)s; run_case(37, 200, 0.0, ES_STAT_MI, 4); }
static void test_ig(void **s) { (void)s; run_case(37, 130, 0.05, ES_STAT_IG, 5); }
static void test_k2(void **s) { (void)s; run_case(45, 190, 0.01, ES_STAT_K2, 6); }

static void test_bad_options(void **s)
{
    (void)s;
    tu_geno_t *f = tu_geno_make(4, 20, 0, 9);
    es_dataset_t *ds;
    assert_int_equal(es_dataset_open_bfile(&ds, f->prefix, NULL, NULL), ES_OK);
    es_opt_t opt;
    es_scan_t *scan = NULL;
    es_log_set_level(ES_LOG_QUIET);
    es_opt_init(&opt);
    opt.top_k = 0;
    assert_int_equal(es_scan_create(&scan, ds, &opt), ES_ERR_ARG);
    es_opt_init(&opt);
    opt.stat = ES_STAT_K2;
    opt.p_threshold = 0.01; /* k2 has no p-value */
    assert_int_equal(es_scan_create(&scan, ds, &opt), ES_ERR_ARG);
    assert_null(scan);
    es_log_set_level(ES_LOG_WARN);
    es_dataset_destroy(ds);
    tu_geno_free(f);
}

/* A dataset opened without the phenotype requirement, whose samples have no
 * case or no control, is refused by es_scan_create() (it used to reach
 * es_scan_run() and divide by zero choosing the block size). */
static void no_class_case(const int *pheno, uint32_t n)
{
    tu_geno_t *f = tu_geno_make(6, n, 0, 11);
    assert_int_equal(tu_write_bfile(f->prefix, f->geno, f->m, f->n, pheno), 0);
    es_input_opt_t in;
    es_input_opt_init(&in);
    in.bfile = f->prefix;
    in.require_pheno = 0;
    es_dataset_t *ds;
    assert_int_equal(es_dataset_open(&ds, &in), ES_OK);
    es_opt_t opt;
    es_opt_init(&opt);
    opt.device = ES_DEVICE_CPU;
    es_scan_t *scan = (es_scan_t *)&opt; /* must come back NULL */
    es_log_set_level(ES_LOG_QUIET);
    assert_int_equal(es_scan_create(&scan, ds, &opt), ES_ERR_DATA);
    es_log_set_level(ES_LOG_WARN);
    assert_null(scan);
    es_dataset_destroy(ds);
    tu_geno_free(f);
}

static void test_no_phenotype(void **s)
{
    (void)s;
    int none[8], cases[8];
    for (int k = 0; k < 8; k++) {
        none[k] = -9;
        cases[k] = k < 2 ? -9 : 2;
    }
    no_class_case(none, 8);
    no_class_case(cases, 8);
}

/* A .bed truncated after it was opened (mapped): reading the lost pages used
 * to kill the process with SIGBUS; now each reader of rows fails with
 * ES_ERR_IO and a message, and convert leaves nothing behind. */
static void test_bed_shrinks(void **s)
{
    (void)s;
    tu_geno_t *f = tu_geno_make(40, 1000, 0.01, 12); /* 10 KB: three pages */
    char bed[600], out[600], path[700];
    snprintf(bed, sizeof bed, "%s.bed", f->prefix);
    snprintf(out, sizeof out, "%s/conv", f->dir);
    es_log_set_level(ES_LOG_QUIET);
    for (int what = 0; what < 3; what++) {
        es_dataset_t *ds;
        assert_int_equal(tu_write_bfile(f->prefix, f->geno, f->m, f->n, f->pheno), 0);
        assert_int_equal(es_dataset_open_bfile(&ds, f->prefix, NULL, NULL), ES_OK);
        assert_int_equal(truncate(bed, 100), 0);
        if (what == 0) { /* the scan packs every row */
            es_opt_t opt;
            es_opt_init(&opt);
            opt.device = ES_DEVICE_CPU;
            opt.threads = 2;
            es_scan_t *scan;
            assert_int_equal(es_scan_create(&scan, ds, &opt), ES_OK);
            assert_int_equal(es_scan_run(scan), ES_ERR_IO);
            es_scan_destroy(scan);
        } else if (what == 1) { /* the reference decoder */
            uint8_t g[1000];
            assert_int_equal(es_dataset_decode(ds, 0, g), ES_OK);
            assert_int_equal(es_dataset_decode(ds, 39, g), ES_ERR_IO);
        } else { /* convert */
            assert_int_equal(es_dataset_write_plink(ds, out), ES_ERR_IO);
            for (int k = 0; k < 3; k++) {
                static const char *const ext[] = {".bed", ".bim", ".fam"};
                snprintf(path, sizeof path, "%s%s", out, ext[k]);
                assert_int_equal(access(path, F_OK), -1);
                snprintf(path, sizeof path, "%s%s.tmp", out, ext[k]);
                assert_int_equal(access(path, F_OK), -1);
            }
        }
        es_dataset_destroy(ds);
    }
    es_log_set_level(ES_LOG_WARN);
    tu_geno_free(f);
}

/* Tile hand-out: every tile (i <= j) exactly once, in row order, or
 * ES_TILES_DIAG_FIRST the n diagonal tiles first and then the others by
 * rows, each the other way from the one before (row 0 from its left), or ES_TILES_SQUARES by growing squares: (k, k), then (0, k) ..
 * (k - 1, k). */
static void claim_order(uint32_t nb, es_tile_order_t order)
{
    es_scan_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    uint64_t start[40];
    assert_true(nb < 40);
    start[0] = 0;
    for (uint32_t b = 0; b < nb; b++) start[b + 1] = start[b] + (nb - b);
    ctx.n_blocks = nb;
    ctx.row_start = start;
    ctx.n_tiles = start[nb];
    ctx.order = order;
    const int diag_first = order == ES_TILES_DIAG_FIRST;
    uint32_t seen[40][40];
    memset(seen, 0, sizeof seen);
    uint32_t bi, bj, pi = 0, pj = 0;
    for (uint64_t t = 0; t < ctx.n_tiles; t++) {
        assert_int_equal(es_ctx_claim_tile(&ctx, &bi, &bj), 0);
        assert_true(bi <= bj && bj < nb);
        seen[bi][bj]++;
        if (order == ES_TILES_SQUARES) {
            /* each tile after both blocks' diagonal tiles; column k's tiles in order */
            assert_int_equal(seen[bi][bi] + seen[bj][bj], 2);
            if (bi == bj) assert_true(t == 0 || (pj == bj - 1 && pi == pj - 1) || (pj == 0 && bj == 1));
            else assert_true(bj == pj && (bi == 0 ? pi == bj : bi == pi + 1));
        } else if (diag_first && t < nb) {
            assert_int_equal(bi, t);
            assert_int_equal(bj, t);
        } else if (diag_first) {
            /* by rows, alternating: a row's first tile follows the previous
             * row's last, (bi, bi + 1) in an even row and (bi, nb - 1) in an
             * odd one; within a row bj steps up (even) or down (odd) */
            assert_true(bi < bj);
            const uint32_t first = bi & 1 ? nb - 1 : bi + 1;
            if (t == nb || bi != pi) {
                assert_true(t == nb ? bi == 0 : bi == pi + 1);
                assert_int_equal(bj, first);
            } else {
                assert_int_equal(bj, bi & 1 ? pj - 1 : pj + 1);
            }
        } else if (t > 0) {
            /* row order: (bi, bj) follows (pi, pj) */
            assert_true(bi > pi || (bi == pi && bj > pj));
        }
        pi = bi;
        pj = bj;
    }
    assert_int_equal(es_ctx_claim_tile(&ctx, &bi, &bj), -1);
    for (uint32_t i = 0; i < nb; i++)
        for (uint32_t j = i; j < nb; j++) assert_int_equal(seen[i][j], 1);
}

static void test_claim_order(void **state)
{
    (void)state;
    for (uint32_t nb = 1; nb < 12; nb++) {
        claim_order(nb, ES_TILES_ROWS);
        claim_order(nb, ES_TILES_DIAG_FIRST);
        claim_order(nb, ES_TILES_SQUARES);
    }
    claim_order(37, ES_TILES_DIAG_FIRST);
    claim_order(37, ES_TILES_SQUARES);
}

/* ---- the screened path (the GPU backend's host side) ------------------------
 *
 * A backend that does on the CPU what the GPU backend's host thread does with
 * a device's candidates: each tile is owned by a sparse worker, helpers score
 * part of its candidates and are merged into it, the tile's pairs are counted
 * per block (es_worker_count_tile) and handed over (es_ctx_tile_done).  The
 * candidates are what a valid device screen passes -- every pair that could
 * be in the tile's top-k, either variant's best in the tile (ties included)
 * or significant -- so most pairs are only counted.  The result must be the
 * CPU backend's to the byte. */
static int screened_helpers = 1;

typedef struct {
    uint32_t i, j;
    double score;
    es_table2_t t;
} tile_pair_t;

static int by_score_desc(const void *a, const void *b)
{
    double x = ((const tile_pair_t *)a)->score, y = ((const tile_pair_t *)b)->score;
    return x > y ? -1 : x < y;
}

static int screened_run(es_scan_ctx_t *ctx)
{
    const es_popcount_impl_t *impl = es_popcount_best();
    es_worker_t w[4];
    const int nw = screened_helpers;
    assert_true(nw >= 1 && nw <= 4);
    for (int h = 0; h < nw; h++) {
        assert_int_equal(es_worker_init(&w[h], ctx), ES_OK);
        assert_int_equal(es_worker_set_sparse(&w[h], ctx), ES_OK);
    }
    const double sgn = ctx->higher_is_better ? 1.0 : -1.0;
    tile_pair_t *pairs = malloc((size_t)ctx->block * ctx->block * sizeof *pairs + 1);
    double *best = malloc(2 * (size_t)ctx->m * sizeof *best + 1);
    assert_non_null(pairs);
    assert_non_null(best);
    uint32_t bi, bj;
    while (es_ctx_claim_tile(ctx, &bi, &bj) == 0) {
        const es_planes_t *pa = &ctx->blocks[bi], *pb = &ctx->blocks[bj];
        size_t n = 0;
        for (uint32_t v = 0; v < ctx->m; v++) best[v] = -INFINITY;
        for (uint32_t a = 0; a < pa->count; a++)
            for (uint32_t b = bi == bj ? a + 1 : 0; b < pb->count; b++) {
                tile_pair_t *q = &pairs[n++];
                q->i = pa->first + a;
                q->j = pb->first + b;
                es_count_pair(impl, pa, a, pb, b, &q->t);
                es_stat_result_t r;
                es_stat_value(ctx->stat, &q->t, &r);
                q->score = isnan(r.stat) ? -INFINITY : sgn * r.stat;
                if (q->score > best[q->i]) best[q->i] = q->score;
                if (q->score > best[q->j]) best[q->j] = q->score;
            }
        /* the tile's k-th best score */
        double kth = -INFINITY;
        if (n >= ctx->top->k) {
            tile_pair_t *sorted = malloc(n * sizeof *sorted);
            assert_non_null(sorted);
            memcpy(sorted, pairs, n * sizeof *sorted);
            qsort(sorted, n, sizeof *sorted, by_score_desc);
            kth = sorted[ctx->top->k - 1].score;
            free(sorted);
        }
        size_t nc = 0;
        for (size_t k = 0; k < n; k++) {
            const tile_pair_t *q = &pairs[k];
            double g = es_stat_g(ctx->stat, &q->t, sgn * q->score);
            int could_be_sig = ctx->do_sig && !(g < ctx->sig_min);
            if (q->score >= kth || q->score >= best[q->i] || q->score >= best[q->j] || could_be_sig ||
                q->score == -INFINITY)
                pairs[nc++] = *q;
        }
        /* the owner and its helpers split the candidates */
        for (int h = 0; h < nw; h++) es_worker_begin_tile(ctx, &w[h], bi, bj);
        for (size_t k = 0; k < nc; k++)
            es_worker_offer_screened(ctx, &w[k * nw / (nc ? nc : 1)], pairs[k].i, pairs[k].j, &pairs[k].t);
        for (int h = 1; h < nw; h++) es_worker_merge(ctx, &w[0], &w[h]);
        es_worker_count_tile(ctx, &w[0]);
        assert_int_equal(es_ctx_tile_done(ctx, &w[0]), ES_OK);
        assert_true(nc < n || n < 40); /* the screen drops most pairs of a real tile */
    }
    for (int h = 0; h < nw; h++) es_worker_free(&w[h]);
    free(pairs);
    free(best);
    return ES_OK;
}

static const es_backend_t screened_backend = {.name = "screened", .run = screened_run};

static void screened_case(uint32_t m, uint32_t n, double miss, uint64_t seed)
{
    tu_geno_t *f = tu_geno_make(m, n, miss, seed);
    es_dataset_t *ds = NULL;
    assert_int_equal(es_dataset_open_bfile(&ds, f->prefix, NULL, NULL), ES_OK);
    static const es_stat_t stats[] = {ES_STAT_BOOST, ES_STAT_CHI2, ES_STAT_MI, ES_STAT_K2};
    for (size_t s = 0; s < sizeof stats / sizeof *stats; s++) {
        es_opt_t opt;
        es_opt_init(&opt);
        opt.stat = stats[s];
        opt.top_k = 25;
        opt.threads = 1;
        if (es_stat_has_p(opt.stat)) opt.p_threshold = 0.05;
        opt.device = ES_DEVICE_CPU;
        tu_result_t ref;
        tu_run_scan(ds, &opt, NULL, &ref);
        static const uint32_t blocks[] = {16, 23, 64};
        for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
            for (int h = 1; h <= 3; h += 2) {
                char what[128];
                opt.block_variants = blocks[b];
                screened_helpers = h;
                tu_result_t got;
                tu_run_scan(ds, &opt, &screened_backend, &got);
                snprintf(what, sizeof what, "screened %s, block %u, %d worker(s), N=%u", es_stat_name(opt.stat),
                         blocks[b], h, n);
                tu_same_result(&ref, &got, m, what);
                tu_free_result(&got);
            }
        tu_free_result(&ref);
    }
    es_dataset_destroy(ds);
    tu_geno_free(f);
}

static void test_screened(void **state)
{
    (void)state;
    screened_case(61, 240, 0.0, 11);
    screened_case(50, 177, 0.03, 12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_boost_missing), cmocka_unit_test(test_boost_complete),
        cmocka_unit_test(test_chi2),          cmocka_unit_test(test_mi),
        cmocka_unit_test(test_ig),            cmocka_unit_test(test_k2),
        cmocka_unit_test(test_bad_options),   cmocka_unit_test(test_claim_order),
        cmocka_unit_test(test_screened),      cmocka_unit_test(test_no_phenotype),
        cmocka_unit_test(test_bed_shrinks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
