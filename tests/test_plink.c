/* test_plink.c -- the PLINK 1 reader (formats/plink.c) and the dataset layer
 * (src/dataset.c): round trips through tu_write_bfile(), decoding for every
 * N mod 4, the slot layout, the missing-call scan, and every malformed-input
 * class with its exact return code and a message naming the file. */
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "output.h" /* es_plink_epi_failed */
#include "select.h"
#include "testutil.h"
#include "summary_ref.h"

typedef struct {
    tu_fixture_t base; /* first: temp dir + stderr capture (tu_fixture_new) */
    char prefix[4096], bed[4200], bim[4200], fam[4200], pheno[4200];
} fx_t;

static int setup(void **state)
{
    fx_t *fx = tu_fixture_new(sizeof *fx);
    if (!fx) return -1;
    snprintf(fx->prefix, sizeof fx->prefix, "%s/d", fx->base.dir);
    snprintf(fx->bed, sizeof fx->bed, "%s.bed", fx->prefix);
    snprintf(fx->bim, sizeof fx->bim, "%s.bim", fx->prefix);
    snprintf(fx->fam, sizeof fx->fam, "%s.fam", fx->prefix);
    snprintf(fx->pheno, sizeof fx->pheno, "%s/pheno.txt", fx->base.dir);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fx_t *fx = *state;
    tu_fixture_free(fx);
    return 0;
}

static void expect_plink_fail(fx_t *fx, int want, ...)
{
    es_fileset_t *p = (es_fileset_t *)0x1;
    va_list ap;
    tu_cap_start(&fx->base.cap);
    int rc = es_plink_open(&p, fx->prefix);
    const char *text = tu_cap_stop(&fx->base.cap);
    assert_int_equal(rc, want);
    assert_null(p);
    assert_non_null(strstr(text, "[E::"));
    va_start(ap, want);
    tu_expect_msg_va(text, ap);
    va_end(ap);
}

static void expect_dataset_fail(fx_t *fx, const char *pheno, const char *name, int want, ...)
{
    es_dataset_t *ds = (es_dataset_t *)0x1;
    va_list ap;
    tu_cap_start(&fx->base.cap);
    int rc = es_dataset_open_bfile(&ds, fx->prefix, pheno, name);
    const char *text = tu_cap_stop(&fx->base.cap);
    assert_int_equal(rc, want);
    assert_null(ds);
    va_start(ap, want);
    tu_expect_msg_va(text, ap);
    va_end(ap);
}

/* ---- data helpers ------------------------------------------------------- */

/* Random genotypes (missing with probability miss_pct/100), phenotype
 * alternating control/case.  Returns the malloc'd matrix. */
static uint8_t *write_random(fx_t *fx, uint32_t m, uint32_t n, unsigned miss_pct, uint64_t seed)
{
    uint8_t *g = malloc((size_t)m * n + 1);
    int *ph = malloc(((size_t)n + 1) * sizeof *ph);
    assert_non_null(g);
    assert_non_null(ph);
    for (size_t i = 0; i < (size_t)m * n; i++)
        g[i] = tu_randn(&seed, 100) < miss_pct ? 3 : (uint8_t)tu_randn(&seed, 3);
    for (uint32_t s = 0; s < n; s++) ph[s] = (s & 1) ? 2 : 1;
    assert_int_equal(tu_write_bfile(fx->prefix, g, m, n, ph), 0);
    free(ph);
    return g;
}

static void write_good(fx_t *fx)
{
    free(write_random(fx, 3, 10, 10, 7));
}

static size_t file_size(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (size_t)st.st_size;
}

static void truncate_to(const char *path, size_t n)
{
    assert_int_equal(truncate(path, (off_t)n), 0);
}

/* ---- round trips -------------------------------------------------------- */

static void test_roundtrip_all_tails(void **state)
{
    fx_t *fx = *state;
    static const uint32_t ns[] = {2,  3,  4,  5,   6,   7,   8,   9,    15,   16,   17,  31,
                                  32, 33, 63, 64,  65,  127, 128, 129,  255,  1023, 1024, 1025,
                                  1026, 1027, 2049};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        uint32_t n = ns[k], m = 1 + (uint32_t)(k % 7);
        uint8_t *g = write_random(fx, m, n, 15, 100 + k);
        es_dataset_t *ds = NULL;
        assert_int_equal(es_dataset_open_bfile(&ds, fx->prefix, NULL, NULL), ES_OK);
        assert_int_equal(es_dataset_n_variants(ds), m);
        assert_int_equal(es_dataset_n_samples_total(ds), n);
        assert_int_equal(es_dataset_n_cases(ds), n / 2);
        assert_int_equal(es_dataset_n_controls(ds), n - n / 2);
        assert_int_equal(ds->plink->bytes_per_variant, (n + 3) / 4);
        /* canary byte after the row: decode must write exactly n bytes */
        uint8_t *out = malloc(n + 1);
        assert_non_null(out);
        for (uint32_t v = 0; v < m; v++) {
            out[n] = 0xAB;
            assert_int_equal(es_dataset_decode(ds, v, out), ES_OK);
            assert_memory_equal(out, g + (size_t)v * n, n);
            assert_int_equal(out[n], 0xAB);
            es_variant_info_t vi = es_dataset_variant(ds, v);
            char id[32];
            snprintf(id, sizeof id, "rs%u", v + 1);
            assert_string_equal(vi.chr, "1");
            assert_string_equal(vi.id, id);
            assert_int_equal(vi.pos, 1000 * (int64_t)(v + 1));
            assert_true(vi.cm == 0.0);
            assert_string_equal(vi.a1, "A");
            assert_string_equal(vi.a2, "G");
        }
        for (uint32_t s = 0; s < n; s++) {
            char fid[32], iid[32];
            snprintf(fid, sizeof fid, "FAM%u", s);
            snprintf(iid, sizeof iid, "IND%u", s);
            assert_string_equal(ds->plink->fid[s], fid);
            assert_string_equal(ds->plink->iid[s], iid);
        }
        free(out);
        free(g);
        es_dataset_destroy(ds);
    }
}

/* One sample cannot form a dataset (no controls) but the reader still works. */
static void test_single_sample_reader(void **state)
{
    fx_t *fx = *state;
    uint8_t g[3] = {0, 2, 3};
    int ph[1] = {2};
    assert_int_equal(tu_write_bfile(fx->prefix, g, 3, 1, ph), 0);
    es_fileset_t *p = NULL;
    assert_int_equal(es_plink_open(&p, fx->prefix), ES_OK);
    assert_int_equal(p->n_samples, 1);
    assert_int_equal(p->bytes_per_variant, 1);
    assert_int_equal(es_fileset_row(p, 0)[0] & 3, 3); /* 0 copies of A1 = hom A2 = 11 */
    assert_int_equal(es_fileset_row(p, 1)[0] & 3, 0); /* 2 copies = 00 */
    assert_int_equal(es_fileset_row(p, 2)[0] & 3, 1); /* missing = 01 */
    es_fileset_close(p);
    expect_dataset_fail(fx, NULL, NULL, ES_ERR_DATA, fx->fam, "no controls", END);
}

/* The decoder against the PLINK byte layout written by hand (not through
 * tu_write_bfile, so the two cannot share a mistake). */
static void test_decode_known_bytes(void **state)
{
    fx_t *fx = *state;
    /* 5 samples: byte 0 = s3 s2 s1 s0 = 11 10 01 00 -> s0 2, s1 NA, s2 1, s3 0;
     * byte 1 = s4 = 10 (het); upper pad bits zero */
    const uint8_t bed[] = {0x6c, 0x1b, 0x01, 0xE4, 0x02};
    assert_int_equal(tu_write_bytes(fx->bed, bed, sizeof bed), 0);
    assert_int_equal(tu_write_text(fx->bim, "1 v1 0 10 C T\n"), 0);
    assert_int_equal(tu_write_text(fx->fam, "a a 0 0 0 1\nb b 0 0 0 2\nc c 0 0 0 1\n"
                                            "d d 0 0 0 2\ne e 0 0 0 1\n"), 0);
    es_dataset_t *ds = NULL;
    assert_int_equal(es_dataset_open_bfile(&ds, fx->prefix, NULL, NULL), ES_OK);
    uint8_t out[5];
    const uint8_t want[5] = {2, 3, 1, 0, 1};
    assert_int_equal(es_dataset_decode(ds, 0, out), ES_OK);
    assert_memory_equal(out, want, 5);
    es_dataset_destroy(ds);
}

static void test_metadata_and_crlf(void **state)
{
    fx_t *fx = *state;
    free(write_random(fx, 3, 4, 0, 1));
    /* CRLF endings, tabs and spaces mixed, a blank line and a trailing blank line */
    assert_int_equal(tu_write_text(fx->bim, "chrX\trs_a\t1.25\t123456789012\tAC\tA\r\n"
                                            "\r\n"
                                            "MT  .  -0.5  -7  G  T\r\n"
                                            "22 x 0 0 0 I\r\n\r\n"), 0);
    assert_int_equal(tu_write_text(fx->fam, "F1 I1 0 0 1 2\r\nF2 I2 P M 2 1\r\n"
                                            "F3\tI3\t0\t0\t0\t-9\r\nF4 I4 0 0 0 NA"), 0);
    es_dataset_t *ds = NULL;
    assert_int_equal(es_dataset_open_bfile(&ds, fx->prefix, NULL, NULL), ES_OK);
    es_variant_info_t v0 = es_dataset_variant(ds, 0), v1 = es_dataset_variant(ds, 1),
                      v2 = es_dataset_variant(ds, 2);
    assert_string_equal(v0.chr, "chrX");
    assert_string_equal(v0.id, "rs_a");
    assert_true(v0.cm == 1.25);
    assert_true(v0.pos == INT64_C(123456789012));
    assert_string_equal(v0.a1, "AC");
    assert_string_equal(v0.a2, "A");
    assert_string_equal(v1.chr, "MT");
    assert_string_equal(v1.id, ".");
    assert_true(v1.cm == -0.5);
    assert_int_equal(v1.pos, -7);
    assert_string_equal(v2.a2, "I"); /* no trailing \r */
    assert_int_equal(ds->plink->n_samples, 4);
    assert_string_equal(ds->plink->iid[3], "I4");
    const int8_t want[4] = {1, 0, -1, -1};
    assert_memory_equal(ds->plink->fam_pheno, want, 4);
    assert_memory_equal(ds->status, want, 4);
    assert_int_equal(ds->plink->fam_pheno_quantitative, 0);
    assert_int_equal(es_dataset_n_cases(ds), 1);
    assert_int_equal(es_dataset_n_controls(ds), 1);
    /* out-of-range access is refused, not a crash */
    uint8_t out[4];
    tu_cap_start(&fx->base.cap);
    assert_int_equal(es_dataset_decode(ds, 3, out), ES_ERR_ARG);
    tu_cap_stop(&fx->base.cap);
    es_variant_info_t bad = es_dataset_variant(ds, 3);
    assert_string_equal(bad.id, "");
    es_dataset_destroy(ds);
}

/* The one info line a user sees on opening: every count distinct. */
static void test_info_line(void **state)
{
    fx_t *fx = *state;
    uint8_t g[2 * 7] = {0};
    int ph[7] = {2, 1, -9, 1, 2, 1, 1};
    assert_int_equal(tu_write_bfile(fx->prefix, g, 2, 7, ph), 0);
    es_dataset_t *ds = NULL;
    es_log_set_level(ES_LOG_INFO);
    tu_cap_start(&fx->base.cap);
    int rc = es_dataset_open_bfile(&ds, fx->prefix, NULL, NULL);
    const char *text = tu_cap_stop(&fx->base.cap);
    es_log_set_level(ES_LOG_WARN);
    assert_int_equal(rc, ES_OK);
    assert_non_null(strstr(text, "[I::"));
    assert_non_null(strstr(text, "2 variants, 7 samples: 2 cases, 4 controls, 1 without "
                                 "phenotype"));
    assert_non_null(strstr(text, fx->fam));
    es_dataset_destroy(ds);
}

/* Cases at bits 0..n_case-1 in .fam order; controls from w_case*64. */
static void test_slots(void **state)
{
    fx_t *fx = *state;
    static const uint32_t case_cts[] = {1, 5, 1023, 1024, 1025, 2048};
    for (size_t k = 0; k < sizeof case_cts / sizeof case_cts[0]; k++) {
        uint32_t nc = case_cts[k], n = nc + 700;
        uint8_t *g = calloc(n, 1);
        int *ph = malloc(n * sizeof *ph);
        assert_non_null(g);
        assert_non_null(ph);
        /* interleave: every third sample left out until cases are placed */
        uint64_t seed = k;
        uint32_t left = nc;
        for (uint32_t s = 0; s < n; s++) {
            uint32_t r = tu_randn(&seed, 3);
            ph[s] = (left && r == 0) ? (left--, 2) : (r == 1 ? -9 : 1);
        }
        for (uint32_t s = n; left && s-- > 0;) /* place the rest at the end */
            if (ph[s] != 2) ph[s] = 2, left--;
        assert_int_equal(tu_write_bfile(fx->prefix, g, 1, n, ph), 0);
        es_dataset_t *ds = NULL;
        assert_int_equal(es_dataset_open_bfile(&ds, fx->prefix, NULL, NULL), ES_OK);
        assert_int_equal(ds->n_case, nc);
        int64_t w_case = ((int64_t)nc + 1023) / 1024 * 16;
        int64_t next_case = 0, next_ctrl = w_case * 64;
        for (uint32_t s = 0; s < n; s++) {
            if (ph[s] == 2) assert_int_equal(ds->slot[s], next_case++);
            else if (ph[s] == 1) assert_int_equal(ds->slot[s], next_ctrl++);
            else assert_int_equal(ds->slot[s], -1);
            assert_int_equal(ds->status[s], ph[s] == 2 ? 1 : ph[s] == 1 ? 0 : -1);
        }
        assert_int_equal(next_case, nc);
        assert_int_equal(next_ctrl - w_case * 64, ds->n_ctrl);
        es_dataset_destroy(ds);
        free(g);
        free(ph);
    }
}

/* ---- es_dataset_any_missing ---------------------------------------------- */

static int any_missing_of(fx_t *fx, const uint8_t *g, uint32_t m, uint32_t n, const int *ph)
{
    es_dataset_t *ds = NULL;
    assert_int_equal(tu_write_bfile(fx->prefix, g, m, n, ph), 0);
    assert_int_equal(es_dataset_open_bfile(&ds, fx->prefix, NULL, NULL), ES_OK);
    int r = es_dataset_any_missing(ds);
    es_dataset_destroy(ds);
    return r;
}

static void test_any_missing(void **state)
{
    fx_t *fx = *state;
    /* sizes hitting: tail-only rows, exact words, word + tail; and a variant
     * count large enough for the parallel loop */
    static const uint32_t ns[] = {3, 4, 5, 31, 32, 33, 64, 65, 100, 257};
    static const uint32_t ms[] = {1, 2, 3000};
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
        for (size_t b = 0; b < sizeof ms / sizeof ms[0]; b++) {
            uint32_t n = ns[a], m = ms[b];
            uint64_t seed = a * 31 + b;
            uint8_t *g = malloc((size_t)m * n);
            int *ph = malloc(n * sizeof *ph);
            assert_non_null(g);
            assert_non_null(ph);
            for (size_t i = 0; i < (size_t)m * n; i++) g[i] = (uint8_t)tu_randn(&seed, 3);
            for (uint32_t s = 0; s < n; s++) ph[s] = (s & 1) ? 2 : 1;
            ph[n - 1] = -9; /* the last sample is left out */
            if (n > 4) ph[2] = 0;
            assert_int_equal(any_missing_of(fx, g, m, n, ph), 0);
            /* missing only among left-out samples: still no missing */
            g[(size_t)(m - 1) * n + n - 1] = 3;
            if (n > 4) g[2] = 3;
            assert_int_equal(any_missing_of(fx, g, m, n, ph), 0);
            /* one missing call, last kept sample of the last variant */
            g[(size_t)(m - 1) * n + n - 2] = 3;
            assert_int_equal(any_missing_of(fx, g, m, n, ph), 1);
            g[(size_t)(m - 1) * n + n - 2] = 0;
            /* one missing call, first sample of the first variant */
            g[0] = 3;
            assert_int_equal(any_missing_of(fx, g, m, n, ph), 1);
            free(g);
            free(ph);
        }
    }
}

/* ---- es_dataset_levels: against the byte decoder ----------------------------- */

static void test_levels(void **state)
{
    fx_t *fx = *state;
    static const uint32_t ns[] = {3, 4, 5, 31, 32, 33, 64, 65, 100, 257};
    static const uint32_t ms[] = {1, 7, 3000};
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
        for (size_t b = 0; b < sizeof ms / sizeof ms[0]; b++) {
            uint32_t n = ns[a], m = ms[b];
            uint64_t seed = a * 131 + b + 7;
            uint8_t *g = malloc((size_t)m * n), *dec = malloc(n);
            int *ph = malloc(n * sizeof *ph);
            uint32_t(*lev)[3] = malloc((size_t)m * sizeof *lev);
            size_t *moff = malloc(((size_t)m + 1) * sizeof *moff);
            assert_true(g && dec && ph && lev && moff);
            /* a missing rate per variant from none to most */
            for (uint32_t v = 0; v < m; v++) {
                uint32_t rate = tu_randn(&seed, 4) * 30;
                for (uint32_t s = 0; s < n; s++)
                    g[(size_t)v * n + s] = tu_randn(&seed, 100) < rate ? 3 : (uint8_t)tu_randn(&seed, 3);
            }
            for (uint32_t s = 0; s < n; s++) ph[s] = (s & 1) ? 2 : 1;
            ph[n - 1] = -9; /* left out: its calls are not counted */
            if (n > 4) ph[2] = 0;
            assert_int_equal(tu_write_bfile(fx->prefix, g, m, n, ph), 0);
            es_dataset_t *ds = NULL;
            assert_int_equal(es_dataset_open_bfile(&ds, fx->prefix, NULL, NULL), ES_OK);
            /* the POPCNT loop (where the CPU has it), then the portable one */
            for (int pv = 0; pv < 2; pv++) {
                if (pv) setenv("EPISTREAM_POPCOUNT", "scalar", 1);
                uint32_t *mpos = NULL;
                memset(lev, 0xff, (size_t)m * sizeof *lev);
                assert_int_equal(es_dataset_levels(ds, lev, moff, &mpos), ES_OK);
                assert_int_equal(moff[0], 0);
                for (uint32_t v = 0; v < m; v++) {
                    uint32_t want[3] = {0, 0, 0};
                    size_t k = moff[v];
                    assert_int_equal(es_dataset_decode(ds, v, dec), ES_OK);
                    for (uint32_t s = 0; s < n; s++) {
                        if (!es_dataset_sample_used(ds, s)) continue;
                        if (dec[s] < 3) {
                            want[dec[s]]++;
                        } else {
                            assert_true(k < moff[v + 1]);
                            assert_int_equal(mpos[k++], s);
                        }
                    }
                    assert_int_equal(k, moff[v + 1]);
                    for (int c = 0; c < 3; c++) assert_int_equal(lev[v][c], want[c]);
                }
                free(mpos);
            }
            unsetenv("EPISTREAM_POPCOUNT");
            es_dataset_destroy(ds);
            free(g);
            free(dec);
            free(ph);
            free(lev);
            free(moff);
        }
    }
}

/* ---- es_plink_epi_failed: against the definition, pair by pair -------------- */

/* Does variant a keep fewer than two genotype levels among the used samples
 * called at both a and b? */
static int bf_loses(const uint8_t *ga, const uint8_t *gb, const es_dataset_t *ds, uint32_t n)
{
    unsigned seen = 0;
    for (uint32_t s = 0; s < n; s++)
        if (es_dataset_sample_used(ds, s) && ga[s] < 3 && gb[s] < 3) seen |= 1u << ga[s];
    return (seen & (seen - 1)) == 0;
}

static void test_epi_failed(void **state)
{
    fx_t *fx = *state;
    uint64_t all_failed = 0, all_pairs = 0; /* the rounds must test both answers */
    for (int round = 0; round < 12; round++) {
        uint64_t seed = 1000 + (uint64_t)round;
        uint32_t n = 8 + tu_randn(&seed, 60), m = 2 + tu_randn(&seed, 70);
        uint8_t *g = malloc((size_t)m * n);
        int *ph = malloc(n * sizeof *ph);
        uint64_t *failed = malloc(m * sizeof *failed), *want = calloc(m, sizeof *want), total = 0, want_total = 0;
        assert_true(g && ph && failed && want);
        /* rare, monomorphic and common variants; missing rates from none to
         * most, so that the minor levels of many fit inside others' gaps */
        for (uint32_t v = 0; v < m; v++) {
            uint32_t kind = tu_randn(&seed, 8), miss = tu_randn(&seed, 5) * 15;
            for (uint32_t s = 0; s < n; s++) {
                uint8_t x = kind == 0 ? 0 : kind <= 2 ? (tu_randn(&seed, 100) < 8) : (uint8_t)tu_randn(&seed, 3);
                g[(size_t)v * n + s] = tu_randn(&seed, 100) < miss ? 3 : x;
            }
        }
        for (uint32_t s = 0; s < n; s++) ph[s] = (s % 3) ? 2 : 1;
        ph[0] = -9;
        assert_int_equal(tu_write_bfile(fx->prefix, g, m, n, ph), 0);
        es_dataset_t *ds = NULL;
        assert_int_equal(es_dataset_open_bfile(&ds, fx->prefix, NULL, NULL), ES_OK);
        assert_int_equal(es_plink_epi_failed(ds, failed, &total), ES_OK);
        for (uint32_t i = 0; i < m; i++)
            for (uint32_t j = i + 1; j < m; j++) {
                const uint8_t *gi = g + (size_t)i * n, *gj = g + (size_t)j * n;
                if (bf_loses(gi, gj, ds, n) || bf_loses(gj, gi, ds, n)) {
                    want[i]++;
                    want[j]++;
                    want_total++;
                }
            }
        assert_int_equal(total, want_total);
        for (uint32_t v = 0; v < m; v++) assert_int_equal(failed[v], want[v]);
        all_failed += total;
        all_pairs += (uint64_t)m * (m - 1) / 2;
        es_dataset_destroy(ds);
        free(g);
        free(ph);
        free(failed);
        free(want);
    }
    assert_true(all_failed > 0 && all_failed < all_pairs);
}

/* ---- malformed input: missing files -------------------------------------- */

static void test_missing_files(void **state)
{
    fx_t *fx = *state;
    const char *files[3] = {fx->bed, fx->bim, fx->fam};
    for (int k = 0; k < 3; k++) {
        write_good(fx);
        assert_int_equal(unlink(files[k]), 0);
        expect_plink_fail(fx, ES_ERR_IO, files[k], "No such file", END);
        expect_dataset_fail(fx, NULL, NULL, ES_ERR_IO, files[k], END);
    }
    /* a directory where the .bim should be */
    write_good(fx);
    assert_int_equal(unlink(fx->bim), 0);
    assert_int_equal(mkdir(fx->bim, 0700), 0);
    expect_plink_fail(fx, ES_ERR_IO, fx->bim, "directory", END);
    rmdir(fx->bim);
}

static void test_bad_args(void **state)
{
    fx_t *fx = *state;
    es_dataset_t *ds = NULL;
    es_fileset_t *p = NULL;
    write_good(fx);
    tu_cap_start(&fx->base.cap);
    assert_int_equal(es_dataset_open_bfile(&ds, NULL, NULL, NULL), ES_ERR_ARG);
    assert_int_equal(es_dataset_open_bfile(NULL, fx->prefix, NULL, NULL), ES_ERR_ARG);
    assert_int_equal(es_plink_open(&p, ""), ES_ERR_ARG);
    assert_int_equal(es_dataset_open_bfile(&ds, fx->prefix, NULL, "P1"), ES_ERR_ARG);
    tu_cap_stop(&fx->base.cap);
    assert_null(ds);
    assert_null(p);
    es_dataset_destroy(NULL);
    es_fileset_close(NULL);
}

/* ---- malformed .bed ------------------------------------------------------ */

static void write_bed_bytes(fx_t *fx, const uint8_t head[3], size_t body)
{
    uint8_t *b = calloc(3 + body, 1);
    assert_non_null(b);
    memcpy(b, head, 3);
    assert_int_equal(tu_write_bytes(fx->bed, b, 3 + body), 0);
    free(b);
}

static void test_bed_magic(void **state)
{
    fx_t *fx = *state;
    write_good(fx); /* 3 variants x 10 samples: 3 bytes per variant, 12 bytes */
    static const uint8_t sample_major[3] = {0x6c, 0x1b, 0x00};
    write_bed_bytes(fx, sample_major, 9);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bed, "sample-major", "plink1.9 --bfile",
                      "--make-bed", END);

    static const uint8_t bad_mode[3] = {0x6c, 0x1b, 0x02};
    write_bed_bytes(fx, bad_mode, 9);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bed, "mode byte 02", END);

    /* pre-1.0: no magic, rows start at byte 0 (9 bytes for 3 x 10) */
    uint8_t pre[9];
    memset(pre, 0xff, sizeof pre);
    assert_int_equal(tu_write_bytes(fx->bed, pre, sizeof pre), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bed, "pre-1.0", "no magic number",
                      "plink1.9 --bfile", "--make-bed", END);

    /* random garbage of the right size: same class */
    static const uint8_t garbage[3] = {'B', 'E', 'D'};
    write_bed_bytes(fx, garbage, 9);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bed, "found 42 45", "pre-1.0", END);

    /* tiny files: no crash, no reads past the end */
    assert_int_equal(tu_write_bytes(fx->bed, "\x6c", 1), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bed, "magic", END);
    assert_int_equal(tu_write_bytes(fx->bed, "\x6c\x1b", 2), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bed, "2 bytes but 3 variants x 10 samples need 12",
                      END);
    assert_int_equal(tu_write_bytes(fx->bed, "", 0), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bed, "0 bytes", "need 12", END);
    expect_dataset_fail(fx, NULL, NULL, ES_ERR_FORMAT, fx->bed, END);
}

static void test_bed_size(void **state)
{
    fx_t *fx = *state;
    /* 2,000 variants x 1,001 samples: 251 bytes each, 502,003 with the magic */
    free(write_random(fx, 2000, 1001, 0, 3));
    assert_int_equal(file_size(fx->bed), 502003);
    truncate_to(fx->bed, 1234);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bed,
                      ".bed: 1,234 bytes but 2,000 variants x 1,001 samples need 502,003",
                      "truncated", END);
    /* one byte short and one byte long */
    free(write_random(fx, 5, 13, 0, 3));
    size_t sz = file_size(fx->bed);
    truncate_to(fx->bed, sz - 1);
    expect_plink_fail(fx, ES_ERR_FORMAT, "22 bytes but 5 variants x 13 samples need 23", END);
    truncate_to(fx->bed, sz + 1);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bed, "24 bytes but 5 variants x 13 samples need 23",
                      END);
    expect_dataset_fail(fx, NULL, NULL, ES_ERR_FORMAT, fx->bed, "need 23", END);
    /* a .bim with one variant too many is the same mismatch */
    truncate_to(fx->bed, sz);
    FILE *f = fopen(fx->bim, "a");
    assert_non_null(f);
    fputs("1 extra 0 99999 A G\n", f);
    fclose(f);
    expect_plink_fail(fx, ES_ERR_FORMAT, "23 bytes but 6 variants x 13 samples need 27", END);
}

/* ---- malformed .bim ------------------------------------------------------ */

static void test_bim_errors(void **state)
{
    fx_t *fx = *state;
    write_good(fx);
    assert_int_equal(tu_write_text(fx->bim, "1 a 0 1 A G\n1 b 0 2 A G\n1 c 0 3 A\n"), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bim, "line 3", "expected 6 columns", "found 5",
                      END);
    assert_int_equal(tu_write_text(fx->bim, "1 a 0 1 A G x\n1 b 0 2 A G\n1 c 0 3 A G\n"), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bim, "line 1", "found 7", END);
    assert_int_equal(tu_write_text(fx->bim, "1 a 0 1 A G\n1 b 0 12.5 A G\n1 c 0 3 A G\n"), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bim, "line 2", "'12.5'", "not an integer", END);
    assert_int_equal(tu_write_text(fx->bim, "1 a 0 1 A G\n1 b 0 2 A G\n1 c 0 3e5 A G\n"), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bim, "line 3", "'3e5'", END);
    assert_int_equal(tu_write_text(fx->bim, "1 a 0 pos A G\n1 b 0 2 A G\n1 c 0 3 A G\n"), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bim, "line 1", "'pos'", END);
    assert_int_equal(tu_write_text(fx->bim, "1 a 0 1 A G\n1 b cm 2 A G\n1 c 0 3 A G\n"), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bim, "line 2", "'cm'", "not a number", END);
    assert_int_equal(tu_write_text(fx->bim, "1 a 0 99999999999999999999 A G\n"), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bim, "line 1", END);
    /* empty, blank-only */
    assert_int_equal(tu_write_text(fx->bim, ""), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bim, "no variants", END);
    assert_int_equal(tu_write_text(fx->bim, "\n  \r\n\t\n"), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bim, "no variants", END);
    expect_dataset_fail(fx, NULL, NULL, ES_ERR_FORMAT, fx->bim, "no variants", END);
    /* a binary file given as .bim */
    assert_int_equal(tu_write_bytes(fx->bim, "1 a 0 1 A G\n1 b\0 0 2 A G\n", 25), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bim, "NUL byte", END);
}

/* ---- malformed .fam ------------------------------------------------------ */

static void test_fam_errors(void **state)
{
    fx_t *fx = *state;
    write_good(fx);
    /* 10 samples are needed by the .bed; column errors come first anyway */
    assert_int_equal(tu_write_text(fx->fam, "F1 I1 0 0 1 1\nF2 I2 0 0 1\n"), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->fam, "line 2", "expected 6 columns", "found 5",
                      END);
    assert_int_equal(tu_write_text(fx->fam, "F1 I1 0 0 1 1 7\n"), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->fam, "line 1", "found 7", END);
    assert_int_equal(tu_write_text(fx->fam, "F1 I1 0 0 1 1\nF2 I2 0 0 1 case\n"), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->fam, "line 2", "'case'", "column 6", END);
    assert_int_equal(tu_write_text(fx->fam, ""), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->fam, "no samples", END);
    assert_int_equal(tu_write_text(fx->fam, "\r\n\n"), 0);
    expect_dataset_fail(fx, NULL, NULL, ES_ERR_FORMAT, fx->fam, "no samples", END);
    /* 8 samples where the .bed was written for 10: 2 bytes per variant, not 3 */
    assert_int_equal(tu_write_text(fx->fam, "a a 0 0 0 1\nb b 0 0 0 2\nc c 0 0 0 1\n"
                                            "d d 0 0 0 2\ne e 0 0 0 1\nf f 0 0 0 2\n"
                                            "g g 0 0 0 1\nh h 0 0 0 2\n"), 0);
    expect_plink_fail(fx, ES_ERR_FORMAT, fx->bed, "12 bytes but 3 variants x 8 samples need 9",
                      END);
}

/* Column 6 codes, and a quantitative column 6 (needs --pheno). */
static void test_fam_phenotypes(void **state)
{
    fx_t *fx = *state;
    free(write_random(fx, 2, 8, 0, 9));
    assert_int_equal(tu_write_text(fx->fam, "a a 0 0 0 1\nb b 0 0 0 2\nc c 0 0 0 0\n"
                                            "d d 0 0 0 -9\ne e 0 0 0 NA\nf f 0 0 0 2.0\n"
                                            "g g 0 0 0 1.0\nh h 0 0 0 -9.0\n"), 0);
    es_fileset_t *p = NULL;
    assert_int_equal(es_plink_open(&p, fx->prefix), ES_OK);
    const int8_t want[8] = {0, 1, -1, -1, -1, 1, 0, -1};
    assert_memory_equal(p->fam_pheno, want, 8);
    assert_int_equal(p->fam_pheno_quantitative, 0);
    es_fileset_close(p);

    assert_int_equal(tu_write_text(fx->fam, "a a 0 0 0 1.5\nb b 0 0 0 2\nc c 0 0 0 0.3\n"
                                            "d d 0 0 0 -9\ne e 0 0 0 1\nf f 0 0 0 2\n"
                                            "g g 0 0 0 17\nh h 0 0 0 1\n"), 0);
    assert_int_equal(es_plink_open(&p, fx->prefix), ES_OK);
    assert_int_equal(p->fam_pheno_quantitative, 1);
    assert_int_equal(p->fam_pheno[0], -1);
    es_fileset_close(p);
    expect_dataset_fail(fx, NULL, NULL, ES_ERR_DATA, fx->fam, "column 6",
                        "not case/control (1/2)", "--pheno", END);
    /* a phenotype file makes the quantitative column irrelevant */
    assert_int_equal(tu_write_text(fx->pheno, "a a 2\nb b 1\n"), 0);
    es_dataset_t *ds = NULL;
    assert_int_equal(es_dataset_open_bfile(&ds, fx->prefix, fx->pheno, NULL), ES_OK);
    assert_int_equal(es_dataset_n_cases(ds), 1);
    assert_int_equal(es_dataset_n_controls(ds), 1);
    es_dataset_destroy(ds);
}

static void test_no_cases_no_controls(void **state)
{
    fx_t *fx = *state;
    uint8_t g[12] = {0};
    int ph[6] = {1, 1, -9, 1, 0, 1};
    assert_int_equal(tu_write_bfile(fx->prefix, g, 2, 6, ph), 0);
    expect_dataset_fail(fx, NULL, NULL, ES_ERR_DATA, fx->fam, "no cases",
                        "4 controls, 2 with missing phenotype", END);
    int ph2[6] = {2, 2, 2, 0, 2, 2};
    assert_int_equal(tu_write_bfile(fx->prefix, g, 2, 6, ph2), 0);
    expect_dataset_fail(fx, NULL, NULL, ES_ERR_DATA, fx->fam, "no controls", "5 cases", END);
    int ph3[6] = {-9, -9, 0, 0, -9, -9};
    assert_int_equal(tu_write_bfile(fx->prefix, g, 2, 6, ph3), 0);
    expect_dataset_fail(fx, NULL, NULL, ES_ERR_DATA, fx->fam, "no cases", END);
}

/* Duplicate FID+IID: one warning with the count and the first duplicate. */
static void test_duplicate_ids(void **state)
{
    fx_t *fx = *state;
    free(write_random(fx, 2, 6, 0, 5));
    assert_int_equal(tu_write_text(fx->fam, "F I1 0 0 0 1\nF I2 0 0 0 2\nF I1 0 0 0 1\n"
                                            "G I2 0 0 0 2\nF I2 0 0 0 1\nF I1 0 0 0 2\n"), 0);
    es_dataset_t *ds = NULL;
    tu_cap_start(&fx->base.cap);
    int rc = es_dataset_open_bfile(&ds, fx->prefix, NULL, NULL);
    const char *text = tu_cap_stop(&fx->base.cap);
    assert_int_equal(rc, ES_OK);
    assert_int_equal(tu_count_lines(text), 1);
    assert_non_null(strstr(text, "[W::"));
    assert_non_null(strstr(text, fx->fam));
    assert_non_null(strstr(text, "3 duplicate sample IDs"));
    assert_non_null(strstr(text, "'F I1' on line 3 (also on line 1)"));
    assert_int_equal(es_dataset_n_samples_total(ds), 6);
    assert_int_equal(es_dataset_n_cases(ds), 3);
    es_dataset_destroy(ds);
}

/* A 100,000-sample .fam (an O(n^2) duplicate check would take minutes). */
static void test_many_samples(void **state)
{
    fx_t *fx = *state;
    uint32_t n = 100000;
    uint8_t *g = calloc(n, 1);
    int *ph = malloc(n * sizeof *ph);
    assert_non_null(g);
    assert_non_null(ph);
    for (uint32_t s = 0; s < n; s++) ph[s] = 1 + (int)(s % 2);
    assert_int_equal(tu_write_bfile(fx->prefix, g, 1, n, ph), 0);
    es_dataset_t *ds = NULL;
    assert_int_equal(es_dataset_open_bfile(&ds, fx->prefix, NULL, NULL), ES_OK);
    assert_int_equal(es_dataset_n_cases(ds), n / 2);
    assert_int_equal(es_dataset_any_missing(ds), 0);
    es_dataset_destroy(ds);
    free(g);
    free(ph);
}

/* ---- the per-variant summaries (src/scan/output.c) against printf ---------- */

/* The file's bytes (NUL-terminated; free them); *n its length. */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    char *b = malloc((size_t)len + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
    b[len] = '\0';
    fclose(f);
    *n = (size_t)len;
    return b;
}

/* 41,000 variants (five chunks of rows: two rounds on one thread) with
 * chromosome codes and IDs of every kind, random summaries (no partner,
 * NaN statistics and p-values, huge and tiny values, counts at their
 * limits): the writers' bytes are printf's for 1, 3 and 8 threads. */
static void test_summary_writers(void **state)
{
    fx_t *fx = *state;
    const uint32_t m = 41000, n = 8;
    uint8_t *geno = calloc((size_t)m * n, 1);
    int pheno[8] = {1, 2, 1, 2, 1, 2, 1, 2};
    assert_non_null(geno);
    for (size_t k = 0; k < (size_t)m * n; k++) geno[k] = (uint8_t)(k * 7 % 3);
    char pre[512], bim_path[520];
    snprintf(pre, sizeof pre, "%.400s/s", fx->base.dir);
    snprintf(bim_path, sizeof bim_path, "%s.bim", pre);
    assert_int_equal(tu_write_bfile(pre, geno, m, n, pheno), 0);
    free(geno);
    static const char *chrs[] = {"1", "X", "chr22", "MT", "0Y", "26", "XY", "contig_with_a_long_name"};
    FILE *bim = fopen(bim_path, "w");
    assert_non_null(bim);
    uint64_t rng = 17;
    for (uint32_t v = 0; v < m; v++) {
        uint32_t idlen = 1 + tu_randn(&rng, 30);
        char id[40];
        for (uint32_t c = 0; c < idlen; c++) id[c] = (char)('a' + tu_randn(&rng, 26));
        id[idlen] = '\0';
        fprintf(bim, "%s\t%s_%u\t0\t%lld\tA\tG\n", chrs[tu_randn(&rng, 8)], id, v,
                (long long)tu_randn(&rng, 2000000000u) * (v % 3 ? 1 : 100));
    }
    fclose(bim);
    es_dataset_t *ds = NULL;
    assert_int_equal(es_dataset_open_bfile(&ds, pre, NULL, NULL), ES_OK);
    es_summary_t *s = calloc(m, sizeof *s);
    uint64_t *n_sig = calloc(m, sizeof *n_sig), *failed = calloc(m, sizeof *failed);
    assert_true(s && n_sig && failed);
    for (uint32_t v = 0; v < m; v++) {
        uint32_t r = tu_randn(&rng, 10);
        s[v].best_partner = r == 0 ? UINT32_MAX : tu_randn(&rng, m);
        double x = (double)tu_randn(&rng, 1000000000u) / (1.0 + tu_randn(&rng, 1000000u));
        s[v].best_stat = r == 1 ? NAN : r == 2 ? x * 1e200 : r == 3 ? x * 1e-200 : r == 4 ? 0.0 : x;
        s[v].best_p = r == 5 || r == 1 ? NAN : (double)tu_randn(&rng, 1000000000u) * 1e-9 * pow(10.0, -(double)tu_randn(&rng, 300));
        s[v].n_tot = r == 6 ? UINT64_MAX : r == 7 ? 0 : tu_randn(&rng, 2000000000u);
        s[v].n_sig = tu_randn(&rng, 1000);
        n_sig[v] = r == 8 ? UINT64_MAX / 2 : tu_randn(&rng, 100000);
        failed[v] = s[v].n_tot && r == 9 ? s[v].n_tot : s[v].n_tot > 10 ? tu_randn(&rng, 10) : 0;
    }
    char path[530], rpath[530];
    snprintf(rpath, sizeof rpath, "%s.ref", pre);
    snprintf(path, sizeof path, "%s.out", pre);
    const int threads[] = {1, 3, 8};
    for (int form = 0; form < 4; form++) {
        FILE *f = fopen(rpath, "w");
        assert_non_null(f);
        if (form == 0) ref_summary(f, ds, s, NULL);
        else if (form == 1) ref_summary(f, ds, s, n_sig);
        else ref_plink_summary(f, ds, form == 2 ? 4 : 40, s, n_sig, form == 2 ? NULL : failed);
        fclose(f);
        size_t nr = 0, no = 0;
        char *want = slurp(rpath, &nr);
        for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
            f = fopen(path, "w");
            assert_non_null(f);
            int ret = form < 2 ? es_write_summary(f, ds, s, form ? n_sig : NULL, threads[t])
                               : es_write_plink_summary(f, ds, form == 2 ? 4 : 40, s, n_sig,
                                                        form == 2 ? NULL : failed, threads[t]);
            assert_int_equal(ret, ES_OK);
            fclose(f);
            char *got = slurp(path, &no);
            if (no != nr || memcmp(got, want, nr)) {
                size_t k = 0;
                while (k < no && k < nr && got[k] == want[k]) k++;
                fail_msg("form %d, %d threads: byte %zu differs (got %zu bytes, want %zu): '%.60s' vs '%.60s'", form,
                         threads[t], k, no, nr, got + (k > 20 ? k - 20 : 0), want + (k > 20 ? k - 20 : 0));
            }
            free(got);
        }
        free(want);
    }
    free(s);
    free(n_sig);
    free(failed);
    es_dataset_destroy(ds);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_roundtrip_all_tails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_single_sample_reader, setup, teardown),
        cmocka_unit_test_setup_teardown(test_decode_known_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metadata_and_crlf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_info_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_slots, setup, teardown),
        cmocka_unit_test_setup_teardown(test_any_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_levels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_epi_failed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_args, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bed_magic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bed_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bim_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fam_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fam_phenotypes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_cases_no_controls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_duplicate_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_samples, setup, teardown),
        cmocka_unit_test_setup_teardown(test_summary_writers, setup, teardown),
    };
    es_log_set_level(ES_LOG_WARN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
