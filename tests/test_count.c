/* test_count.c -- packing and pair counting against plain per-sample loops.
 *
 * A dataset is built in memory (an es_fileset_t over a .bed image, status and
 * slots filled by hand, as dataset.c would), so these tests need no file I/O.
 * Random genotype matrices with and without missing calls, sample counts that
 * are not multiples of 64 or 1024, monomorphic and all-missing variants and
 * left-out samples are packed by every pack variant, checked bit for bit, and
 * then every pair's table from es_count_pair() under every popcount kernel
 * must equal es_count_pair_naive(), also across two plane blocks; so must
 * every table es_count_block() gives, and every triple's 2x27 table
 * (es_count3_run, es_count_triple) es_count_triple_naive(). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "select.h"
#include "testutil.h"

/* How slots are assigned. */
enum {
    SLOTS_FAM_ORDER, /* as dataset.c: each class in .fam order (the compress path) */
    SLOTS_REVERSED,  /* each class in reverse .fam order (the scatter path) */
    SLOTS_SORTED     /* .fam lists all cases, then all controls, none left out */
};

typedef struct {
    es_fileset_t pk;
    es_dataset_t ds;
    uint8_t *bed;  /* magic + rows */
    uint8_t *geno; /* geno[v*n + s]: 0..2 copies of A1, 3 missing */
    int8_t *status;
    int64_t *slot;
    uint32_t m, n;
} fake_t;

/* Variant kinds cycle so every matrix has the edge cases. */
static uint8_t draw_genotype(uint64_t *rng, uint32_t v, double maf, double miss)
{
    switch (v % 9) {
    case 1: return 0;                /* monomorphic hom A2 */
    case 2: return 2;                /* monomorphic hom A1 */
    case 3: return miss > 0 ? 3 : 1; /* all missing (or all het) */
    default: break;
    }
    if (miss > 0 && v % 9 != 4 && (double)tu_rand(rng) / 18446744073709551616.0 < miss) return 3;
    uint8_t g = 0;
    for (int k = 0; k < 2; k++)
        g += (double)tu_rand(rng) / 18446744073709551616.0 < maf;
    return g;
}

/* Words each class of the planes is padded to: the GPU's 16 (1,024 bits),
 * the CPU scan's 4, or 1; the tests run under each. */
static uint32_t fake_pad_words = ES_PAD_WORDS;

/* miss: missing-call rate of the variants that have any; miss_from: variants
 * before it have no missing call at all (for blocks without a V plane). */
static void fake_make(fake_t *f, uint32_t n, uint32_t m, double miss, uint32_t miss_from, int slots,
                      uint64_t seed)
{
    uint64_t rng = seed;
    memset(f, 0, sizeof *f);
    f->n = n;
    f->m = m;
    f->geno = malloc((size_t)m * n + 1);
    f->status = malloc(n + 1);
    f->slot = malloc(((size_t)n + 1) * sizeof *f->slot);
    assert_non_null(f->geno);
    assert_non_null(f->status);
    assert_non_null(f->slot);

    uint32_t n_case = 0, n_ctrl = 0;
    for (uint32_t s = 0; s < n; s++) {
        if (slots == SLOTS_SORTED)
            f->status[s] = s < (n + 1) / 2 ? 1 : 0;
        else {
            uint32_t r = tu_randn(&rng, 10);
            f->status[s] = r == 0 ? -1 : r <= 5 ? 1 : 0;
        }
        n_case += f->status[s] == 1;
        n_ctrl += f->status[s] == 0;
    }
    uint64_t pb = 64u * fake_pad_words;
    uint64_t w_case = ((uint64_t)n_case + pb - 1) / pb * fake_pad_words;
    int64_t ctrl0 = (int64_t)w_case * 64, idx[2] = {0, 0};
    const int64_t n_cls[2] = {n_ctrl, n_case};
    for (uint32_t s = 0; s < n; s++) {
        int y = f->status[s];
        if (y < 0) {
            f->slot[s] = -1;
            continue;
        }
        int64_t i = idx[y]++;
        if (slots == SLOTS_REVERSED) i = n_cls[y] - 1 - i;
        f->slot[s] = (y ? 0 : ctrl0) + i;
    }

    size_t bpv = (n + 3) / 4;
    f->bed = malloc(3 + (size_t)m * bpv + 1);
    assert_non_null(f->bed);
    f->bed[0] = 0x6c;
    f->bed[1] = 0x1b;
    f->bed[2] = 0x01;
    static const uint8_t code_of[4] = {3, 2, 0, 1}; /* g -> PLINK 2-bit code */
    for (uint32_t v = 0; v < m; v++) {
        double maf = 0.05 + 0.45 * (double)tu_randn(&rng, 1000) / 1000.0;
        uint8_t *row = f->bed + 3 + (size_t)v * bpv;
        /* random pad bits past the last sample: they must be ignored */
        memset(row, 0, bpv);
        if (bpv) row[bpv - 1] = (uint8_t)tu_rand(&rng);
        for (uint32_t s = 0; s < n; s++) {
            uint8_t g = draw_genotype(&rng, v, maf, v >= miss_from ? miss : 0);
            f->geno[(size_t)v * n + s] = g;
            unsigned sh = 2 * (s % 4);
            row[s / 4] = (uint8_t)((row[s / 4] & ~(3u << sh)) | (unsigned)code_of[g] << sh);
        }
    }
    f->pk.n_variants = m;
    f->pk.n_samples = n;
    f->pk.bed_map = f->bed;
    f->pk.bed_size = 3 + (size_t)m * bpv;
    f->pk.bytes_per_variant = bpv;
    f->ds.plink = &f->pk;
    f->ds.status = f->status;
    f->ds.n_case = n_case;
    f->ds.n_ctrl = n_ctrl;
    f->ds.slot = f->slot;
    f->ds.pad_words = fake_pad_words;
}

static void fake_free(fake_t *f)
{
    free(f->geno);
    free(f->status);
    free(f->slot);
    free(f->bed);
}

/* The planes, genotype counts and missing counts of variants [first, ...)
 * in pl, against the genotype matrix, bit for bit (pad bits included). */
static unsigned sparse_listed; /* variants with listed missing calls seen */

static void check_planes(const fake_t *f, const es_planes_t *pl)
{
    size_t words = pl->words;
    uint64_t *want = calloc(words * 3 + 1, sizeof(uint64_t));
    assert_non_null(want);
    assert_int_equal(pl->w_case % fake_pad_words, 0);
    assert_int_equal(pl->w_ctrl % fake_pad_words, 0);
    assert_true((uint64_t)pl->w_case * 64 >= f->ds.n_case);
    assert_true((uint64_t)pl->w_case * 64 < f->ds.n_case + 64u * fake_pad_words || f->ds.n_case == 0);
    assert_int_equal(((uintptr_t)pl->planes) % 64, 0);
    for (uint32_t v = 0; v < pl->count; v++) {
        const uint8_t *g = f->geno + (size_t)(pl->first + v) * f->n;
        uint32_t gc[2][3] = {{0}}, miss = 0;
        memset(want, 0, words * 3 * sizeof(uint64_t));
        for (uint32_t s = 0; s < f->n; s++) {
            if (f->slot[s] < 0) continue;
            uint64_t d = (uint64_t)f->slot[s], bit = 1ULL << (d % 64);
            if (g[s] == 3) {
                miss++;
                continue;
            }
            gc[f->status[s]][g[s]]++;
            if (g[s] >= 1) want[d / 64] |= bit;
            if (g[s] == 2) want[words + d / 64] |= bit;
            want[2 * words + d / 64] |= bit;
        }
        for (uint32_t p = 0; p < pl->n_planes; p++) {
            const uint64_t *got = es_plane(pl, v, p);
            for (size_t w = 0; w < words; w++)
                if (got[w] != want[p * words + w])
                    fail_msg("variant %u plane %u word %zu: %016llx, want %016llx (n=%u)",
                             pl->first + v, p, w, (unsigned long long)got[w],
                             (unsigned long long)want[p * words + w], f->n);
        }
        for (int y = 0; y < 2; y++)
            for (int k = 0; k < 3; k++)
                assert_int_equal(pl->gcount[v][y][k], gc[y][k]);
        assert_int_equal(pl->miss_ct[v], miss);
        /* listed missing calls: exactly the kept samples without a call, in
         * slot order; listed whenever there are at most ES_SPARSE_MISS */
        assert_int_equal(es_planes_sparse(pl, v), miss <= ES_SPARSE_MISS(words));
        if (miss && es_planes_sparse(pl, v)) {
            sparse_listed++;
            uint32_t k = pl->miss_off[v];
            for (uint32_t d = 0; d < words * 64; d++) {
                int kept = d < f->ds.n_case || (d >= pl->w_case * 64 && d < pl->w_case * 64 + f->ds.n_ctrl);
                if (!kept || (want[2 * words + d / 64] >> (d % 64)) & 1) continue;
                assert_true(k < pl->miss_off[v + 1]);
                assert_int_equal(pl->miss_pos[k++], d);
            }
            assert_int_equal(k, pl->miss_off[v + 1]);
            /* the same slots as words and masks, when they fit */
            uint32_t nw = 0, last = UINT32_MAX;
            for (k = pl->miss_off[v]; k < pl->miss_off[v + 1]; k++)
                if (pl->miss_pos[k] / 64 != last) last = pl->miss_pos[k] / 64, nw++;
            assert_int_equal(pl->miss_nw[v], nw);
            if (nw <= ES_MISS_WORDS) {
                uint64_t bits = 0;
                for (uint32_t e = 0; e < ES_MISS_WORDS; e++) {
                    uint64_t m = pl->miss_mask[(size_t)v * ES_MISS_WORDS + e];
                    uint32_t w = pl->miss_word[(size_t)v * ES_MISS_WORDS + e];
                    if (e >= nw) assert_true(m == 0 && w == 0);
                    for (; m; m &= m - 1, bits++)
                        assert_true(!((want[2 * words + w] >> __builtin_ctzll(m)) & 1));
                }
                assert_int_equal(bits, miss);
            }
        }
    }
    free(want);
}

/* Every pair (a, b), a and b anywhere in the two blocks, under every kernel,
 * by es_count_pair() and by es_count_block(). */
static void check_pairs(const fake_t *f, const es_planes_t *blk, int n_blk)
{
    const es_popcount_impl_t *const *impls = es_popcount_all();
    for (uint32_t a = 0; a < f->m; a++)
        for (uint32_t b = 0; b < f->m; b++) {
            const es_planes_t *pa = &blk[0], *pb = &blk[0];
            for (int k = 0; k < n_blk; k++) {
                if (a >= blk[k].first && a < blk[k].first + blk[k].count) pa = &blk[k];
                if (b >= blk[k].first && b < blk[k].first + blk[k].count) pb = &blk[k];
            }
            es_table2_t want, got;
            es_count_pair_naive(f->geno + (size_t)a * f->n, f->geno + (size_t)b * f->n, f->status,
                                f->n, &want);
            for (size_t k = 0; impls[k]; k++) {
                memset(&got, 0xa5, sizeof got);
                es_count_pair(impls[k], pa, a - pa->first, pb, b - pb->first, &got);
                for (int y = 0; y < 2; y++)
                    for (int c = 0; c < 9; c++)
                        if (got.n[y][c] != want.n[y][c])
                            fail_msg("%s n=%u pair (%u,%u) class %d cell %d: %u, want %u",
                                     impls[k]->name, f->n, a, b, y, c, got.n[y][c], want.n[y][c]);
            }
        }
    /* es_count_block: each variant against every run of partners of each block */
    es_table2_t *tabs = malloc((f->m + 1) * sizeof *tabs), want;
    es_table2_soa_t soa;
    assert_non_null(tabs);
    for (size_t k = 0; impls[k]; k++)
        for (int ia = 0; ia < n_blk; ia++)
            for (uint32_t a = 0; a < blk[ia].count; a++)
                for (int ib = 0; ib < n_blk; ib++) {
                    const es_planes_t *pa = &blk[ia], *pb = &blk[ib];
                    /* the whole block, then a run from the middle */
                    for (uint32_t run = 0; run < 2; run++) {
                        uint32_t b0 = run ? pb->count / 3 : 0;
                        uint32_t nb = run ? (pb->count - b0 + 1) / 2 : pb->count;
                        memset(tabs, 0xa5, (f->m + 1) * sizeof *tabs);
                        es_count_block(impls[k], pa, a, pb, b0, nb, tabs);
                        for (uint32_t j = 0; j < nb; j++) {
                            uint32_t ga = pa->first + a, gb = pb->first + b0 + j;
                            es_count_pair_naive(f->geno + (size_t)ga * f->n,
                                                f->geno + (size_t)gb * f->n, f->status, f->n,
                                                &want);
                            if (memcmp(&tabs[j], &want, sizeof want))
                                fail_msg("%s n=%u es_count_block (%u,%u) differs", impls[k]->name,
                                         f->n, ga, gb);
                        }
                        /* es_count_run: the same tables, cell by cell, in runs of ES_RUN2,
                         * with and without pb laid out side by side */
                        es_planes_tr_t tr = {0};
                        assert_int_equal(es_planes_tr_fill(&tr, pb), ES_OK);
                        for (int use_tr = 0; use_tr < 2; use_tr++)
                        for (uint32_t r0 = 0; r0 < nb; r0 += ES_RUN2) {
                            uint32_t nr = nb - r0 < ES_RUN2 ? nb - r0 : ES_RUN2;
                            es_table2_t got;
                            memset(&soa, 0xa5, sizeof soa);
                            es_count_run(impls[k], pa, a, pb, use_tr ? &tr : NULL, b0 + r0, nr, &soa);
                            for (uint32_t j = 0; j < nr; j++) {
                                es_table2_from_soa(&soa, j, &got);
                                if (memcmp(&got, &tabs[r0 + j], sizeof got))
                                    fail_msg("%s n=%u es_count_run%s (%u,%u) differs", impls[k]->name, f->n,
                                             use_tr ? " side by side" : "", pa->first + a, pb->first + b0 + r0 + j);
                            }
                        }
                        es_planes_tr_free(&tr);
                        /* nothing written past the run */
                        const unsigned char *past = (const unsigned char *)&tabs[nb];
                        for (size_t c = 0; c < sizeof *tabs; c++)
                            assert_int_equal(past[c], 0xa5);
                    }
                }
    free(tabs);
}

static const es_planes_t *block_of(const es_planes_t *blk, int n_blk, uint32_t v)
{
    for (int k = 0; k < n_blk; k++)
        if (v >= blk[k].first && v < blk[k].first + blk[k].count) return &blk[k];
    return &blk[0];
}

/* Triples: each pair's AND planes (es_pair3_set) against every run of third
 * variants of each block (es_count3_run, pair sums from es_count_block), and
 * es_count_triple(), against es_count_triple_naive(). */
static void check_triples(const fake_t *f, const es_planes_t *blk, int n_blk)
{
    /* the triple kernels take blocks of one layout, as a scan packs them */
    for (int k = 1; k < n_blk; k++)
        if (blk[k].n_planes != blk[0].n_planes) return;
    es_pair3_t p;
    assert_int_equal(es_pair3_alloc(&p, &blk[0]), ES_OK);
    es_table3_t *t3 = malloc((f->m + 1) * sizeof *t3), want, one;
    es_table2_t *t2 = malloc((f->m + 1) * sizeof *t2);
    es_cum2_t *ac = malloc((f->m + 1) * sizeof *ac), *bc = malloc((f->m + 1) * sizeof *bc);
    es_table3_soa_t *soa = aligned_alloc(64, sizeof *soa);
    assert_non_null(soa);
    assert_non_null(t3);
    assert_non_null(t2);
    assert_non_null(ac);
    assert_non_null(bc);
    for (uint32_t a = 0; a < f->m; a++)
        for (uint32_t b = a + 1; b < f->m; b++) {
            const es_planes_t *pa = block_of(blk, n_blk, a), *pb = block_of(blk, n_blk, b);
            es_pair3_set(&p, pa, a - pa->first, pb, b - pb->first);
            for (int kb = 0; kb < n_blk; kb++) {
                const es_planes_t *pc = &blk[kb];
                es_count_block(es_popcount_best(), pa, a - pa->first, pc, 0, pc->count, t2);
                for (uint32_t k = 0; k < pc->count; k++) es_cum2_from_table(&t2[k], &ac[k]);
                es_count_block(es_popcount_best(), pb, b - pb->first, pc, 0, pc->count, t2);
                for (uint32_t k = 0; k < pc->count; k++) es_cum2_from_table(&t2[k], &bc[k]);
                /* the block from its second variant on: runs need not start at 0 */
                uint32_t c0 = pc->count > 1 ? 1 : 0;
                es_count3_run(&p, pc, c0, pc->count - c0, ac + c0, bc + c0, t3);
                for (uint32_t k = c0; k < pc->count; k++) {
                    uint32_t c = pc->first + k;
                    es_count_triple_naive(f->geno + (size_t)a * f->n, f->geno + (size_t)b * f->n,
                                          f->geno + (size_t)c * f->n, f->status, f->n, &want);
                    if (memcmp(&t3[k - c0], &want, sizeof want)) {
                        for (int y = 0; y < 2; y++)
                            for (int q = 0; q < 27; q++)
                                if (t3[k - c0].n[y][q] != want.n[y][q])
                                    print_message("class %d cell %d: %u, want %u (miss %u %u %u) words %u wcase %u n %u/%u planes %u %u %u\n", y, q,
                                                  t3[k - c0].n[y][q], want.n[y][q], pa->miss_ct[a - pa->first],
                                                  pb->miss_ct[b - pb->first], pc->miss_ct[k], pa->words, pa->w_case, pa->n_case, pa->n_ctrl, pa->n_planes, pb->n_planes, pc->n_planes);
                        fail_msg("n=%u triple (%u,%u,%u): es_count3_run differs", f->n, a, b, c);
                    }
                    if (c % 5) continue;
                    assert_int_equal(es_count_triple(pa, a - pa->first, pb, b - pb->first, pc, k, &one), ES_OK);
                    if (memcmp(&one, &want, sizeof want))
                        fail_msg("n=%u triple (%u,%u,%u): es_count_triple differs", f->n, a, b, c);
                }
                /* every kernel, cell by cell, in runs of at most ES_RUN3 (t3 is checked) */
                for (const es_popcount_impl_t *const *im = es_popcount_all(); *im; im++)
                    for (uint32_t r0 = c0; r0 < pc->count; r0 += ES_RUN3) {
                        uint32_t nr = pc->count - r0 < ES_RUN3 ? pc->count - r0 : ES_RUN3;
                        es_count3_soa(*im, &p, pc, r0, nr, ac + r0, bc + r0, soa);
                        for (uint32_t q = 0; q < nr; q++) {
                            es_table3_from_soa(soa, q, &one);
                            if (memcmp(&one, &t3[r0 + q - c0], sizeof one))
                                fail_msg("n=%u triple (%u,%u,%u): es_count3_soa (%s) differs", f->n, a, b,
                                         pc->first + r0 + q, (*im)->name);
                        }
                    }
            }
        }
    es_pair3_free(&p);
    free(soa);
    free(t3);
    free(t2);
    free(ac);
    free(bc);
}

static const char *pack_variants[] = {"generic", "popcnt", "bmi2", NULL};

/* Pack f into two blocks [0, split) and [split, m) with n_planes of each,
 * under every pack variant (unknown names fall back to the best), and check. */
static void run_case(const fake_t *f, uint32_t split, uint32_t np0, uint32_t np1, int pairs)
{
    for (int pv = 0; pack_variants[pv]; pv++) {
        es_planes_t blk[2];
        setenv("EPISTREAM_PACK", pack_variants[pv], 1);
        assert_int_equal(es_planes_alloc(&blk[0], &f->ds, split, np0), ES_OK);
        assert_int_equal(es_planes_alloc(&blk[1], &f->ds, f->m - split + 3, np1), ES_OK);
        /* garbage first, so stale bits would show */
        memset(blk[0].planes, 0xff, (size_t)split * np0 * blk[0].words * 8);
        memset(blk[1].planes, 0xff, (size_t)(f->m - split + 3) * np1 * blk[1].words * 8);
        assert_int_equal(es_pack(&f->ds, 0, split, &blk[0]), ES_OK);
        assert_int_equal(es_pack(&f->ds, split, f->m - split, &blk[1]), ES_OK);
        assert_int_equal(blk[1].first, split);
        assert_int_equal(blk[1].count, f->m - split);
        check_planes(f, &blk[0]);
        check_planes(f, &blk[1]);
        /* pair counting does not depend on the pack variant: once is enough */
        if (pairs && pv == 0) {
            check_pairs(f, blk, 2);
            check_triples(f, blk, 2);
        }
        es_planes_free(&blk[0]);
        es_planes_free(&blk[1]);
    }
    unsetenv("EPISTREAM_PACK");
}

static const uint32_t sizes[] = {1, 2, 5, 63, 64, 65, 127, 1023, 1024, 1025, 2049, 3001};
#define N_SIZES (sizeof sizes / sizeof sizes[0])
#define M 22

static void test_no_missing(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SIZES; k++) {
        fake_t f;
        fake_make(&f, sizes[k], M, 0, M, SLOTS_FAM_ORDER, 100 + k);
        run_case(&f, 9, 2, 2, 1);
        run_case(&f, 13, 3, 3, 1); /* a V plane although nothing is missing */
        fake_free(&f);
    }
}

static void test_missing(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SIZES; k++) {
        fake_t f;
        fake_make(&f, sizes[k], M, 0.07, 0, SLOTS_FAM_ORDER, 200 + k);
        run_case(&f, 10, 3, 3, 1);
        fake_free(&f);
    }
}

/* Few missing calls: below ES_SPARSE_MISS the kernels correct the 4-product
 * table from the listed slots instead of counting 9 products; near the cap
 * some variants are listed and some are not, so pairs mix both paths, and a
 * block without a V plane meets listed variants. */
static void test_sparse_missing(void **state)
{
    (void)state;
    static const double rates[] = {0.003, 0.015};
    sparse_listed = 0;
    for (size_t r = 0; r < 2; r++)
        for (size_t k = 0; k < N_SIZES; k++) {
            fake_t f;
            fake_make(&f, sizes[k], M, rates[r], r ? 11 : 0, SLOTS_FAM_ORDER, 400 + k + 50 * r);
            run_case(&f, 10, r ? 2 : 3, 3, 1);
            fake_free(&f);
        }
    assert_true(sparse_listed > 100); /* the sparse path did run */
}

/* One block without a V plane (no missing call in it), one with. */
static void test_mixed_blocks(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SIZES; k++) {
        fake_t f;
        fake_make(&f, sizes[k], M, 0.1, 11, SLOTS_FAM_ORDER, 300 + k);
        run_case(&f, 11, 2, 3, 1);
        fake_free(&f);
    }
}

/* Slots not in .fam order take the scatter path: same planes, same tables. */
static void test_scatter_slots(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SIZES; k++) {
        fake_t f;
        fake_make(&f, sizes[k], M, 0.05, 5, SLOTS_REVERSED, 400 + k);
        run_case(&f, 7, 3, 3, 1);
        fake_free(&f);
    }
}

/* Cases then controls in .fam, none left out: whole words copy unmasked. */
static void test_sorted_samples(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SIZES; k++) {
        fake_t f;
        fake_make(&f, sizes[k], M, 0.05, 3, SLOTS_SORTED, 500 + k);
        run_case(&f, 12, 3, 3, 1);
        fake_free(&f);
    }
}

/* Long classes (more than 31 AVX2 vectors of 4 words a class): the triple
 * kernels fold their byte counts more than once. */
static void test_long_classes(void **state)
{
    (void)state;
    fake_t f;
    fake_make(&f, 16501, 8, 0, 8, SLOTS_FAM_ORDER, 600);
    run_case(&f, 5, 2, 2, 1);
    fake_free(&f);
}

/* The naive counter itself on a hand-made example. */
static void test_naive(void **state)
{
    (void)state;
    const uint8_t ga[] = {0, 1, 2, 3, 2, 1, 0, 2};
    const uint8_t gb[] = {0, 2, 2, 0, 3, 1, 1, 2};
    const int8_t st[] = {1, 1, 0, 0, 1, -1, 0, 0};
    es_table2_t t;
    es_count_pair_naive(ga, gb, st, 8, &t);
    es_table2_t want = {{{0}}};
    want.n[1][0 * 3 + 0] = 1;
    want.n[1][1 * 3 + 2] = 1;
    want.n[0][2 * 3 + 2] = 2;
    want.n[0][0 * 3 + 1] = 1;
    assert_memory_equal(&t, &want, sizeof t);
}

static void test_errors(void **state)
{
    (void)state;
    fake_t f;
    es_planes_t pl;
    es_log_level_t lv = es_log_get_level();
    es_log_set_level(ES_LOG_QUIET);
    fake_make(&f, 100, 12, 0.1, 0, SLOTS_FAM_ORDER, 7);
    assert_int_equal(es_planes_alloc(&pl, &f.ds, 4, 1), ES_ERR_ARG);
    assert_int_equal(es_planes_alloc(&pl, &f.ds, 4, 4), ES_ERR_ARG);
    assert_int_equal(es_planes_alloc(&pl, &f.ds, 4, 2), ES_OK);
    assert_int_equal(es_pack(&f.ds, 10, 4, &pl), ES_ERR_ARG); /* past the last variant */
    assert_int_equal(es_pack(&f.ds, 0, 4, &pl), ES_ERR_ARG);  /* missing calls, no V plane */
    /* a slot outside the layout */
    int64_t keep = f.slot[3];
    f.slot[3] = (int64_t)pl.words * 64 + 5;
    assert_int_equal(es_pack(&f.ds, 0, 1, &pl), ES_ERR_ARG);
    f.slot[3] = keep;
    es_planes_free(&pl);
    es_planes_free(&pl); /* harmless twice */
    es_log_set_level(lv);
    fake_free(&f);
}

/* Zero variants and an empty class still allocate and pack. */
static void test_empty(void **state)
{
    (void)state;
    fake_t f;
    es_planes_t pl;
    fake_make(&f, 40, 3, 0, 3, SLOTS_FAM_ORDER, 9);
    assert_int_equal(es_planes_alloc(&pl, &f.ds, 0, 2), ES_OK);
    assert_int_equal(es_pack(&f.ds, 1, 0, &pl), ES_OK);
    es_planes_free(&pl);
    /* every sample a case */
    for (uint32_t s = 0; s < f.n; s++) {
        f.status[s] = 1;
        f.slot[s] = s;
    }
    f.ds.n_case = f.n;
    f.ds.n_ctrl = 0;
    run_case(&f, 1, 2, 2, 1);
    fake_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_naive),          cmocka_unit_test(test_no_missing),
        cmocka_unit_test(test_missing),        cmocka_unit_test(test_sparse_missing),
        cmocka_unit_test(test_mixed_blocks),   cmocka_unit_test(test_scatter_slots),
        cmocka_unit_test(test_sorted_samples),
        cmocka_unit_test(test_long_classes), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_empty),
    };
    /* the GPU's padding, the CPU scan's and the least there can be */
    static const uint32_t pads[] = {ES_PAD_WORDS, 4, 1};
    int fails = 0;
    for (size_t k = 0; k < sizeof pads / sizeof pads[0]; k++) {
        fake_pad_words = pads[k];
        print_message("planes padded to %u bits a class\n", 64 * pads[k]);
        fails += cmocka_run_group_tests(tests, NULL, NULL);
    }
    return fails;
}
