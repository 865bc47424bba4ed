/* test_select.c -- input selection (formats/select.c through src/dataset.c):
 * --keep/--remove with FID IID and IID-only lists, --chr lists with ranges
 * and aliases, --extract/--exclude, --geno/--maf at their boundaries and
 * against a naive oracle, the order of the filters and their counts, the
 * empty-selection errors, var_src (kept variants decode to their source
 * rows), and a scan of a selection equal to a scan of a fileset that holds
 * only the selection; PLINK 1.9's --snps, --from/--to, --mind, --hwe (and its
 * exact test against exactly summed p-values) and --1. */
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "select.h"
#include "testutil.h"

typedef struct {
    tu_fixture_t base; /* first: temp dir + stderr capture (tu_fixture_new) */
    char prefix[1024], bim[1100], fam[1100], list[1100], list2[1100], pheno[1100];
} fx_t;

static int setup(void **state)
{
    fx_t *fx = tu_fixture_new(sizeof *fx);
    if (!fx) return -1;
    snprintf(fx->prefix, sizeof fx->prefix, "%s/d", fx->base.dir);
    snprintf(fx->bim, sizeof fx->bim, "%s.bim", fx->prefix);
    snprintf(fx->fam, sizeof fx->fam, "%s.fam", fx->prefix);
    snprintf(fx->list, sizeof fx->list, "%s/list.txt", fx->base.dir);
    snprintf(fx->list2, sizeof fx->list2, "%s/list2.txt", fx->base.dir);
    snprintf(fx->pheno, sizeof fx->pheno, "%s/pheno.txt", fx->base.dir);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fx_t *fx = *state;
    tu_cap_stop(&fx->base.cap);
    es_log_set_level(ES_LOG_WARN);
    tu_fixture_free(fx);
    return 0;
}

/* Open with opt (bfile = the fixture) at INFO level, expect rc `want` and
 * each needle (NULL-terminated) in stderr; returns the dataset (NULL on error). */
static es_dataset_t *open_sel(fx_t *fx, es_input_opt_t *opt, int want, ...)
{
    va_list ap;
    es_dataset_t *ds = (es_dataset_t *)0x1;
    if (!opt->vcf && !opt->bfile) opt->bfile = fx->prefix;
    es_log_set_level(ES_LOG_INFO);
    tu_cap_start(&fx->base.cap);
    int rc = es_dataset_open(&ds, opt);
    const char *msg = tu_cap_stop(&fx->base.cap);
    es_log_set_level(ES_LOG_WARN);
    assert_int_equal(rc, want);
    if (want != ES_OK) assert_null(ds);
    else assert_non_null(ds);
    va_start(ap, want);
    tu_expect_msg_va(msg, ap);
    va_end(ap);
    return rc == ES_OK ? ds : NULL;
}

/* Number of [W::...] lines in the last capture. */
static int warn_count(const fx_t *fx)
{
    int n = 0;
    for (const char *s = fx->base.cap.text; (s = strstr(s, "[W::")) != NULL; s++) n++;
    return n;
}

/* Random genotypes, missing with probability miss_pct/100; the per-variant
 * allele frequency varies so that --maf has work to do.  Phenotypes
 * alternate control/case.  Returns the malloc'd matrix (variant-major). */
static uint8_t *random_geno(uint32_t m, uint32_t n, unsigned miss_pct, uint64_t seed)
{
    uint8_t *g = malloc((size_t)m * n + 1);
    assert_non_null(g);
    for (uint32_t v = 0; v < m; v++) {
        unsigned f = tu_randn(&seed, 101); /* A1 frequency, percent */
        for (uint32_t s = 0; s < n; s++) {
            uint8_t x = 3;
            if (tu_randn(&seed, 100) >= miss_pct)
                x = (uint8_t)((tu_randn(&seed, 100) < f) + (tu_randn(&seed, 100) < f));
            g[(size_t)v * n + s] = x;
        }
    }
    return g;
}

static void write_fileset(fx_t *fx, const uint8_t *g, uint32_t m, uint32_t n, const int *ph)
{
    assert_int_equal(tu_write_bfile(fx->prefix, g, m, n, ph), 0);
}

static int *alt_pheno(uint32_t n)
{
    int *ph = malloc((n ? n : 1) * sizeof *ph);
    assert_non_null(ph);
    for (uint32_t s = 0; s < n; s++) ph[s] = (s & 1) ? 2 : 1;
    return ph;
}

/* Source rows of the kept variants (var_src, or the identity). */
static uint32_t src_of(const es_dataset_t *ds, uint32_t v)
{
    return ds->plink->var_src ? ds->plink->var_src[v] : v;
}

/* ---- options --------------------------------------------------------------- */

static void test_opt_init_and_errors(void **state)
{
    fx_t *fx = *state;
    es_input_opt_t opt;
    memset(&opt, 0x5a, sizeof opt);
    es_input_opt_init(&opt);
    assert_null(opt.bfile);
    assert_null(opt.vcf);
    assert_null(opt.pheno);
    assert_null(opt.pheno_name);
    assert_null(opt.keep);
    assert_null(opt.remove);
    assert_null(opt.extract);
    assert_null(opt.exclude);
    assert_null(opt.chr);
    assert_null(opt.regions);
    assert_int_equal(opt.n_regions, 0);
    assert_true(opt.maf == 0.0);
    assert_true(opt.geno == 1.0);
    assert_int_equal(opt.threads, 0);
    assert_int_equal(opt.require_pheno, 1);

    uint8_t g[4] = {0, 1, 2, 0};
    int ph[2] = {1, 2};
    write_fileset(fx, g, 2, 2, ph);
    es_dataset_t *ds = NULL;
    tu_cap_start(&fx->base.cap);
    assert_int_equal(es_dataset_open(NULL, &opt), ES_ERR_ARG);
    assert_int_equal(es_dataset_open(&ds, NULL), ES_ERR_ARG);
    tu_cap_stop(&fx->base.cap);
    assert_null(ds);
    /* neither input, and both */
    es_input_opt_init(&opt);
    opt.vcf = "x.vcf";
    opt.bfile = fx->prefix;
    open_sel(fx, &opt, ES_ERR_ARG, "exactly one input", END);
    es_input_opt_init(&opt);
    opt.pheno_name = "P";
    open_sel(fx, &opt, ES_ERR_ARG, "(P)", "no phenotype file", END);
    const double bad_maf[] = {-0.1, 0.6, NAN};
    for (size_t k = 0; k < 3; k++) {
        es_input_opt_init(&opt);
        opt.maf = bad_maf[k];
        open_sel(fx, &opt, ES_ERR_ARG, "--maf", "[0, 0.5]", END);
    }
    const double bad_geno[] = {-0.1, 1.5, NAN};
    for (size_t k = 0; k < 3; k++) {
        es_input_opt_init(&opt);
        opt.geno = bad_geno[k];
        open_sel(fx, &opt, ES_ERR_ARG, "--geno", "[0, 1]", END);
    }
    const char *regions[1] = {"1:1-100"};
    es_input_opt_init(&opt);
    opt.regions = regions;
    opt.n_regions = 1;
    open_sel(fx, &opt, ES_ERR_ARG, fx->prefix, "indexed VCF", END);
    /* a VCF needs --pheno when a phenotype is required: refused before reading */
    es_input_opt_init(&opt);
    opt.vcf = "/nonexistent/x.vcf";
    open_sel(fx, &opt, ES_ERR_ARG, "/nonexistent/x.vcf", "--pheno", END);
    /* the wrapper still works and still checks */
    assert_int_equal(es_dataset_open_bfile(&ds, fx->prefix, NULL, NULL), ES_OK);
    assert_int_equal(es_dataset_n_variants(ds), 2);
    assert_null(ds->plink->var_src);
    es_dataset_destroy(ds);
}

/* ---- samples ---------------------------------------------------------------- */

static void test_keep_remove(void **state)
{
    fx_t *fx = *state;
    const uint32_t n = 10;
    uint8_t *g = random_geno(3, n, 0, 1);
    int *ph = alt_pheno(n);
    write_fileset(fx, g, 3, n, ph);
    es_input_opt_t opt;

    /* --keep: a header, FID IID lines, an IID-only line, an unknown ID, extra columns */
    assert_int_equal(tu_write_text(fx->list, "#FID IID\nFAM1 IND1\n\nIND3\nFAM9 NOPE\n"
                                             "FAM4 IND4 extra\nFAM6 IND7\nFAM8\tIND8\r\n"),
                     0);
    es_input_opt_init(&opt);
    opt.keep = fx->list;
    es_dataset_t *ds = open_sel(fx, &opt, ES_OK, fx->list, "2 of 6 listed samples are not in",
                                fx->fam, "'FAM9 NOPE' on line 5", "6 samples removed", END);
    assert_int_equal(warn_count(fx), 1);
    const int8_t want_keep[10] = {-2, 1, -2, 1, 0, -2, -2, -2, 0, -2};
    assert_memory_equal(ds->status, want_keep, n);
    assert_int_equal(es_dataset_n_cases(ds), 2);
    assert_int_equal(es_dataset_n_controls(ds), 2);
    assert_int_equal(es_dataset_n_samples_total(ds), n);
    for (uint32_t s = 0; s < n; s++) {
        assert_int_equal(es_dataset_sample_used(ds, s), want_keep[s] >= 0);
        if (want_keep[s] < 0) assert_int_equal(ds->slot[s], -1);
    }
    /* slots stay dense in .fam order within a class */
    assert_int_equal(ds->slot[1], 0);
    assert_int_equal(ds->slot[3], 1);
    assert_int_equal(ds->slot[4], 16 * 64);
    assert_int_equal(ds->slot[8], 16 * 64 + 1);
    const char *fid, *iid;
    es_dataset_sample(ds, 3, &fid, &iid);
    assert_string_equal(fid, "FAM3");
    assert_string_equal(iid, "IND3");
    es_dataset_sample(ds, n, &fid, &iid); /* out of range: empty, no crash */
    assert_string_equal(fid, "");
    assert_string_equal(iid, "");
    assert_int_equal(es_dataset_sample_used(ds, n), 0);
    es_dataset_destroy(ds);

    /* --remove with the same list: the complement (IDs with wrong FID stay) */
    es_input_opt_init(&opt);
    opt.remove = fx->list;
    ds = open_sel(fx, &opt, ES_OK, "2 of 6 listed samples are not in",
                  "4 samples removed", END);
    for (uint32_t s = 0; s < n; s++)
        assert_int_equal(ds->status[s] == -2, want_keep[s] != -2);
    es_dataset_destroy(ds);

    /* both: keep first, then remove from what is left */
    assert_int_equal(tu_write_text(fx->list2, "IND1\nFAM8 IND8\nIND0\n"), 0);
    es_input_opt_init(&opt);
    opt.keep = fx->list;
    opt.remove = fx->list2;
    ds = open_sel(fx, &opt, ES_OK, "6 samples removed", "2 samples removed", "8 removed", END);
    const int8_t want_both[10] = {-2, -2, -2, 1, 0, -2, -2, -2, -2, -2};
    assert_memory_equal(ds->status, want_both, n);
    es_dataset_destroy(ds);
    free(g);
    free(ph);
}

/* An IID-only line names every sample with that IID (with one warning when
 * they are in different families); a FID IID line names one family's. */
static void test_keep_iid_families(void **state)
{
    fx_t *fx = *state;
    uint8_t g[6] = {0};
    int ph[6] = {1, 2, 1, 2, 1, 2};
    write_fileset(fx, g, 1, 6, ph);
    assert_int_equal(tu_write_text(fx->fam, "F1 A 0 0 0 1\nF1 B 0 0 0 2\nF2 A 0 0 0 1\n"
                                            "F2 B 0 0 0 2\nF3 C 0 0 0 1\nF3 D 0 0 0 2\n"),
                     0);
    es_input_opt_t opt;
    es_input_opt_init(&opt);
    opt.keep = fx->list;
    /* no header: each line by its own field count */
    assert_int_equal(tu_write_text(fx->list, "A\nF2 B\nD\n"), 0);
    es_dataset_t *ds = open_sel(fx, &opt, ES_OK, "1 IID-only line matched samples of more than "
                                "one family", "'A' on line 1", "all of them are kept", END);
    const int8_t want[6] = {0, -2, 0, 1, -2, 1};
    assert_memory_equal(ds->status, want, 6);
    es_dataset_destroy(ds);
    /* after a PLINK 2 "#IID ..." header, the first field is the IID whatever follows */
    assert_int_equal(tu_write_text(fx->list, "#IID SEX\nB 1\nC 2\n"), 0);
    ds = open_sel(fx, &opt, ES_OK, END);
    const int8_t want2[6] = {-2, 1, -2, 1, 0, -2};
    assert_memory_equal(ds->status, want2, 6);
    es_dataset_destroy(ds);
    /* after "FID IID", two fields are FID and IID */
    assert_int_equal(tu_write_text(fx->list, "FID IID\nF3 C\nF1 B x\n"), 0);
    ds = open_sel(fx, &opt, ES_OK, END);
    const int8_t want3[6] = {-2, 1, -2, -2, 0, -2};
    assert_memory_equal(ds->status, want3, 6);
    es_dataset_destroy(ds);
}

static void test_sample_selection_errors(void **state)
{
    fx_t *fx = *state;
    uint8_t *g = random_geno(2, 8, 0, 3);
    int *ph = alt_pheno(8);
    write_fileset(fx, g, 2, 8, ph);
    es_input_opt_t opt;

    /* nobody left: an error naming the list */
    assert_int_equal(tu_write_text(fx->list, "X Y\nZ\n"), 0);
    es_input_opt_init(&opt);
    opt.keep = fx->list;
    open_sel(fx, &opt, ES_ERR_DATA, fx->list, "no samples left", "all 8 samples", END);
    opt.require_pheno = 0; /* the same without a phenotype requirement */
    open_sel(fx, &opt, ES_ERR_DATA, "no samples left", END);
    /* only cases left */
    assert_int_equal(tu_write_text(fx->list, "FAM1 IND1\nFAM3 IND3\n"), 0);
    es_input_opt_init(&opt);
    opt.keep = fx->list;
    open_sel(fx, &opt, ES_ERR_DATA, "no controls", "2 cases", "6 removed by --keep/--remove",
             END);
    opt.require_pheno = 0;
    es_dataset_t *ds = open_sel(fx, &opt, ES_OK, END);
    es_dataset_destroy(ds);
    /* unreadable lists */
    char path[4300];
    snprintf(path, sizeof path, "%s/nope.txt", fx->base.dir);
    es_input_opt_init(&opt);
    opt.remove = path;
    open_sel(fx, &opt, ES_ERR_IO, path, "No such file", END);
    opt.remove = fx->base.dir;
    open_sel(fx, &opt, ES_ERR_IO, fx->base.dir, "directory", END);
    assert_int_equal(tu_write_bytes(fx->list, "A\0B\n", 4), 0);
    opt.remove = fx->list;
    open_sel(fx, &opt, ES_ERR_FORMAT, fx->list, "NUL byte", END);
    free(g);
    free(ph);
}

/* Without a required phenotype, samples without one are used (not removed ones). */
static void test_require_pheno_off(void **state)
{
    fx_t *fx = *state;
    const uint32_t n = 8;
    /* variant 0: missing at samples 0 and 1 (no phenotype) only */
    uint8_t g[8] = {3, 3, 0, 0, 0, 0, 0, 0};
    int ph[8] = {-9, -9, 1, 2, 1, 2, -9, 1};
    write_fileset(fx, g, 1, n, ph);
    assert_int_equal(tu_write_text(fx->list, "FAM6 IND6\n"), 0);
    es_input_opt_t opt;
    es_input_opt_init(&opt);
    opt.remove = fx->list;
    opt.geno = 0.2;
    /* required phenotype: 5 used samples, no missing call: kept */
    es_dataset_t *ds = open_sel(fx, &opt, ES_OK, "--geno 0.2: 0 variants removed", END);
    es_dataset_destroy(ds);
    /* not required: 7 used samples, 2 missing (0.286 > 0.2): removed */
    opt.require_pheno = 0;
    open_sel(fx, &opt, ES_ERR_DATA, "no variants left", "1 by --geno", END);
    opt.geno = 2.0 / 7.0;
    ds = open_sel(fx, &opt, ES_OK, END);
    for (uint32_t s = 0; s < n; s++) assert_int_equal(es_dataset_sample_used(ds, s), s != 6);
    assert_int_equal(es_dataset_n_cases(ds), 2);
    assert_int_equal(es_dataset_n_controls(ds), 3);
    es_dataset_destroy(ds);
}

/* ---- chromosomes -------------------------------------------------------------- */

static const char *const chr_codes[] = {"1",  "chr2", "3",  "X",   "chrX",       "23",
                                        "Y",  "XY",   "MT", "chrM", "26",        "4",
                                        "22", "0",    "x",  "chr10", "scaffold_1", "HLA-A"};
#define N_CHR (sizeof chr_codes / sizeof chr_codes[0])

static void write_chr_fileset(fx_t *fx)
{
    uint8_t g[N_CHR * 4];
    int ph[4] = {1, 2, 1, 2};
    for (size_t i = 0; i < sizeof g; i++) g[i] = (uint8_t)(i % 3);
    write_fileset(fx, g, N_CHR, 4, ph);
    FILE *f = fopen(fx->bim, "w");
    assert_non_null(f);
    for (size_t v = 0; v < N_CHR; v++)
        fprintf(f, "%s\tv%zu\t0\t%zu\tA\tG\n", chr_codes[v], v, 100 * (v + 1));
    fclose(f);
}

/* The rows (indices into chr_codes) that --chr list keeps, as a string "0,1,2". */
static void expect_chr(fx_t *fx, const char *list, const char *want_rows)
{
    es_input_opt_t opt;
    es_input_opt_init(&opt);
    opt.chr = list;
    es_dataset_t *ds = open_sel(fx, &opt, ES_OK, END);
    char got[256] = "";
    for (uint32_t v = 0; v < es_dataset_n_variants(ds); v++) {
        uint32_t r = src_of(ds, v);
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%u", v ? "," : "", r);
        assert_string_equal(es_dataset_variant(ds, v).chr, chr_codes[r]);
    }
    if (strcmp(got, want_rows) != 0)
        fail_msg("--chr %s: rows %s, expected %s", list, got, want_rows);
    es_dataset_destroy(ds);
}

static void test_chr(void **state)
{
    fx_t *fx = *state;
    write_chr_fileset(fx);
    expect_chr(fx, "1", "0");
    expect_chr(fx, "1-3", "0,1,2");
    expect_chr(fx, "chr1-chr3", "0,1,2");
    expect_chr(fx, "2", "1");          /* "chr2" in the data matches 2 */
    expect_chr(fx, "X", "3,4,5,14");   /* X, chrX, 23, x */
    expect_chr(fx, "23", "3,4,5,14");
    expect_chr(fx, "chrx", "3,4,5,14");
    expect_chr(fx, "y", "6");
    expect_chr(fx, "XY", "7");
    expect_chr(fx, "25", "7");
    expect_chr(fx, "MT", "8,9,10");    /* MT, chrM, 26 */
    expect_chr(fx, "M", "8,9,10");
    expect_chr(fx, "X-MT", "3,4,5,6,7,8,9,10,14");
    expect_chr(fx, "22-24", "3,4,5,6,12,14");
    expect_chr(fx, "0", "13");
    expect_chr(fx, "10", "15");
    expect_chr(fx, " 4 , 1 ", "0,11");
    expect_chr(fx, "scaffold_1", "16");
    expect_chr(fx, "chrscaffold_1", "16");
    expect_chr(fx, "HLA-A", "17");
    expect_chr(fx, "1-4,7,X,MT", "0,1,2,3,4,5,8,9,10,11,14");

    /* listed chromosomes missing from the input: one counted warning */
    es_input_opt_t opt;
    es_input_opt_init(&opt);
    opt.chr = "1,7,8-9,foo";
    es_dataset_t *ds = open_sel(fx, &opt, ES_OK, "3 of the 4 listed items match no chromosome",
                                fx->bim, "first: '7'", END);
    assert_int_equal(warn_count(fx), 1);
    assert_int_equal(es_dataset_n_variants(ds), 1);
    es_dataset_destroy(ds);

    /* malformed lists */
    const char *bad[] = {"", ",", "1,,2", "1,", "4-2", "1-q", "1-", "X-1", "chr1-foo", "-3"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        es_input_opt_init(&opt);
        opt.chr = bad[k];
        open_sel(fx, &opt, ES_ERR_ARG, "--chr", END);
    }
    /* nothing on the listed chromosomes */
    es_input_opt_init(&opt);
    opt.chr = "5-9";
    open_sel(fx, &opt, ES_ERR_DATA, fx->prefix, "no variants left", "18 removed: 18 by --chr",
             END);
}

static void test_chrset_api(void **state)
{
    (void)state;
    es_chrset_t cs;
    assert_int_equal(es_chrset_parse(&cs, "1-3,X,chrMT,foo"), ES_OK);
    assert_int_equal(cs.n_item, 4);
    assert_true(es_chrset_has(&cs, "1"));
    assert_true(es_chrset_has(&cs, "CHR3"));
    assert_true(es_chrset_has(&cs, "01"));
    assert_false(es_chrset_has(&cs, "4"));
    assert_true(es_chrset_has(&cs, "23"));
    assert_true(es_chrset_has(&cs, "chrM"));
    assert_true(es_chrset_has(&cs, "foo"));
    assert_true(es_chrset_has(&cs, "chrfoo"));
    assert_false(es_chrset_has(&cs, "Foo"));
    assert_false(es_chrset_has(&cs, "chr"));
    assert_false(es_chrset_has(&cs, ""));
    es_chrset_free(&cs);
    es_chrset_free(&cs); /* idempotent */
}

/* ---- variant lists --------------------------------------------------------------- */

static void test_extract_exclude(void **state)
{
    fx_t *fx = *state;
    const uint32_t m = 8, n = 6;
    uint8_t *g = random_geno(m, n, 0, 5);
    int *ph = alt_pheno(n);
    write_fileset(fx, g, m, n, ph); /* IDs rs1 .. rs8 */
    es_input_opt_t opt;

    /* first field only; blank lines; CRLF; unknown IDs counted; duplicates harmless */
    assert_int_equal(tu_write_text(fx->list, "rs2 extra fields\n\nrs5\r\nrs99\nrs2\nrs7\nfoo\n"),
                     0);
    es_input_opt_init(&opt);
    opt.extract = fx->list;
    es_dataset_t *ds = open_sel(fx, &opt, ES_OK, "2 of 6 listed variant IDs are not in",
                                fx->bim, "'rs99' on line 4", "--extract", "5 variants removed",
                                END);
    assert_int_equal(warn_count(fx), 1);
    assert_int_equal(es_dataset_n_variants(ds), 3);
    assert_string_equal(es_dataset_variant(ds, 0).id, "rs2");
    assert_string_equal(es_dataset_variant(ds, 1).id, "rs5");
    assert_string_equal(es_dataset_variant(ds, 2).id, "rs7");
    es_dataset_destroy(ds);

    es_input_opt_init(&opt);
    opt.exclude = fx->list;
    ds = open_sel(fx, &opt, ES_OK, "--exclude", "3 variants removed", END);
    assert_int_equal(es_dataset_n_variants(ds), 5);
    const char *want_exc[5] = {"rs1", "rs3", "rs4", "rs6", "rs8"};
    for (uint32_t v = 0; v < 5; v++) assert_string_equal(es_dataset_variant(ds, v).id, want_exc[v]);
    es_dataset_destroy(ds);

    /* both: extract then exclude; counts are of what each step removed */
    assert_int_equal(tu_write_text(fx->list2, "rs5\nrs1\n"), 0);
    es_input_opt_init(&opt);
    opt.extract = fx->list;
    opt.exclude = fx->list2;
    ds = open_sel(fx, &opt, ES_OK, "--extract", "5 variants removed", "--exclude",
                  "1 variants removed", END);
    assert_int_equal(es_dataset_n_variants(ds), 2);
    assert_string_equal(es_dataset_variant(ds, 0).id, "rs2");
    assert_string_equal(es_dataset_variant(ds, 1).id, "rs7");
    es_dataset_destroy(ds);

    /* an ID that occurs twice in the input selects both variants */
    FILE *f = fopen(fx->bim, "w");
    assert_non_null(f);
    for (uint32_t v = 0; v < m; v++) fprintf(f, "1 %s 0 %u A G\n", v % 3 ? "dup" : "u", v + 1);
    fclose(f);
    assert_int_equal(tu_write_text(fx->list, "dup\n"), 0);
    es_input_opt_init(&opt);
    opt.extract = fx->list;
    ds = open_sel(fx, &opt, ES_OK, END);
    assert_int_equal(es_dataset_n_variants(ds), 5);
    for (uint32_t v = 0; v < 5; v++) assert_int_equal(src_of(ds, v) % 3 != 0, 1);
    es_dataset_destroy(ds);

    /* an empty result, an empty list, an unreadable list */
    assert_int_equal(tu_write_text(fx->list, "nothing\n"), 0);
    open_sel(fx, &opt, ES_ERR_DATA, "no variants left", "8 by --extract", END);
    assert_int_equal(tu_write_text(fx->list, ""), 0);
    open_sel(fx, &opt, ES_ERR_DATA, "no variants left", END);
    char path[4300];
    snprintf(path, sizeof path, "%s/nope.txt", fx->base.dir);
    opt.extract = path;
    open_sel(fx, &opt, ES_ERR_IO, path, END);
    free(g);
    free(ph);
}

/* ---- --geno / --maf at their boundaries ------------------------------------------- */

/* 20 samples; variant k has k missing calls (k = 0..6): rates 0, .05, .1, ... */
static void test_geno_boundary(void **state)
{
    fx_t *fx = *state;
    const uint32_t m = 7, n = 20;
    uint8_t g[7 * 20];
    int *ph = alt_pheno(n);
    for (uint32_t v = 0; v < m; v++)
        for (uint32_t s = 0; s < n; s++) g[v * n + s] = s < v ? 3 : (uint8_t)(s % 3);
    write_fileset(fx, g, m, n, ph);
    es_input_opt_t opt;
    static const struct {
        double geno;
        uint32_t kept;
    } cases[] = {{0.0, 1}, {0.05, 2}, {0.1, 3}, {0.1499, 3}, {0.15, 4}, {0.3, 7}, {1.0, 7}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        es_input_opt_init(&opt);
        opt.geno = cases[k].geno;
        es_dataset_t *ds = open_sel(fx, &opt, ES_OK, END);
        /* keep missing rate <= geno: the first `kept` variants */
        assert_int_equal(es_dataset_n_variants(ds), cases[k].kept);
        for (uint32_t v = 0; v < cases[k].kept; v++) assert_int_equal(src_of(ds, v), v);
        es_dataset_destroy(ds);
    }
    /* the base is the used samples: removing samples 0..2 (3 missing calls of
     * variants >= 3) changes the rates to (k-3)/17 */
    assert_int_equal(tu_write_text(fx->list, "IND0\nIND1\nIND2\n"), 0);
    es_input_opt_init(&opt);
    opt.remove = fx->list;
    opt.geno = 2.0 / 17.0;
    es_dataset_t *ds = open_sel(fx, &opt, ES_OK, "over 17 samples", END);
    assert_int_equal(es_dataset_n_variants(ds), 6); /* k - 3 <= 2 */
    es_dataset_destroy(ds);
    free(ph);
}

/* 20 samples, all called; variant c has minor allele count c of 40 alleles,
 * half of them with A2 as the minor allele.  Then missing calls shrink the
 * denominator to the called genotypes. */
static void test_maf_boundary(void **state)
{
    fx_t *fx = *state;
    const uint32_t n = 20, m = 22;
    uint8_t g[22 * 20];
    int *ph = alt_pheno(n);
    for (uint32_t v = 0; v < 11; v++) {
        /* c = v copies of A1 as hets, the rest hom A2; and the mirror image */
        for (uint32_t s = 0; s < n; s++) {
            g[v * n + s] = s < v ? 1 : 0;
            g[(v + 11) * n + s] = s < v ? 1 : 2;
        }
    }
    write_fileset(fx, g, m, n, ph);
    es_input_opt_t opt;
    static const struct {
        double maf;
        uint32_t min_c; /* kept: minor count >= min_c */
    } cases[] = {{0.025, 1}, {0.1, 4}, {0.1001, 5}, {0.25, 10}, {0.2501, 11}, {0.5, 20}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        es_input_opt_init(&opt);
        opt.maf = cases[k].maf;
        uint32_t want = cases[k].min_c <= 10 ? 2 * (11 - cases[k].min_c) : 0;
        if (!want) {
            open_sel(fx, &opt, ES_ERR_DATA, "no variants left", "22 by --maf", END);
            continue;
        }
        es_dataset_t *ds = open_sel(fx, &opt, ES_OK, END);
        assert_int_equal(es_dataset_n_variants(ds), want);
        for (uint32_t v = 0; v < want; v++) assert_true(src_of(ds, v) % 11 >= cases[k].min_c);
        es_dataset_destroy(ds);
    }
    /* maf 0 (off) keeps monomorphic variants */
    es_input_opt_init(&opt);
    es_dataset_t *ds = open_sel(fx, &opt, ES_OK, END);
    assert_int_equal(es_dataset_n_variants(ds), m);
    es_dataset_destroy(ds);

    /* 10 called of 20: a het and 9 hom A2 is maf 1/20 = 0.05; a variant
     * without a call has no frequency and stays (as in PLINK 1.9) */
    uint8_t g2[3 * 20];
    for (uint32_t s = 0; s < n; s++) {
        g2[s] = s < 10 ? 3 : s == 10 ? 1 : 0;
        g2[n + s] = 3;
        g2[2 * n + s] = (uint8_t)(s % 3);
    }
    write_fileset(fx, g2, 3, n, ph);
    es_input_opt_init(&opt);
    opt.maf = 0.05;
    ds = open_sel(fx, &opt, ES_OK, "--maf 0.05: 0 variants removed", END);
    assert_int_equal(es_dataset_n_variants(ds), 3);
    es_dataset_destroy(ds);
    opt.maf = 0.0501;
    ds = open_sel(fx, &opt, ES_OK, "--maf 0.0501: 1 variants removed", END);
    assert_int_equal(es_dataset_n_variants(ds), 2);
    assert_int_equal(src_of(ds, 0), 1);
    assert_int_equal(src_of(ds, 1), 2);
    es_dataset_destroy(ds);
    opt.geno = 0.5; /* the call-less variant goes with --geno */
    ds = open_sel(fx, &opt, ES_OK, "--geno 0.5: 1 variants removed", END);
    assert_int_equal(es_dataset_n_variants(ds), 1);
    es_dataset_destroy(ds);
    free(ph);
}

/* --geno runs before --maf: a variant failing both counts under --geno. */
static void test_filter_order_and_counts(void **state)
{
    fx_t *fx = *state;
    const uint32_t n = 10, m = 6;
    uint8_t g[6 * 10];
    int *ph = alt_pheno(n);
    for (uint32_t s = 0; s < n; s++) {
        g[0 * n + s] = (uint8_t)(s % 3);            /* fine */
        g[1 * n + s] = s < 5 ? 3 : 0;               /* fails both (monomorphic, 50% missing) */
        g[2 * n + s] = 0;                           /* fails --maf */
        g[3 * n + s] = s < 5 ? 3 : (uint8_t)(s % 3); /* fails --geno */
        g[4 * n + s] = (uint8_t)(s % 2);            /* excluded by --exclude */
        g[5 * n + s] = (uint8_t)(s % 3);            /* on chromosome 2 */
    }
    write_fileset(fx, g, m, n, ph);
    assert_int_equal(tu_write_text(fx->bim, "1 a 0 1 A G\n1 b 0 2 A G\n1 c 0 3 A G\n"
                                            "1 d 0 4 A G\n1 e 0 5 A G\n2 f 0 6 A G\n"),
                     0);
    assert_int_equal(tu_write_text(fx->list, "a\nb\nc\nd\ne\n"), 0);
    assert_int_equal(tu_write_text(fx->list2, "e\n"), 0);
    es_input_opt_t opt;
    es_input_opt_init(&opt);
    opt.chr = "1";
    opt.extract = fx->list;
    opt.exclude = fx->list2;
    opt.geno = 0.2;
    opt.maf = 0.1;
    es_dataset_t *ds = open_sel(fx, &opt, ES_OK, "--chr 1: 1 of 6 variants removed",
                                "--extract", "0 variants removed", "--exclude",
                                "--geno 0.2: 2 variants removed",
                                "--maf 0.1: 1 variants removed", "1 variants (of 6)", END);
    assert_int_equal(es_dataset_n_variants(ds), 1);
    assert_string_equal(es_dataset_variant(ds, 0).id, "a");
    es_dataset_destroy(ds);
    /* everything removed: the error gives each filter's count */
    assert_int_equal(tu_write_text(fx->list2, "e\na\n"), 0);
    open_sel(fx, &opt, ES_ERR_DATA, fx->prefix, "no variants left",
             "all 6 removed: 1 by --chr, 0 by --extract, 2 by --exclude, 2 by --geno, 1 by --maf",
             END);
    free(ph);
}

/* --geno/--maf against a naive per-sample oracle, for sample counts around
 * word boundaries and enough variants for the parallel loop. */
static void test_qc_oracle(void **state)
{
    fx_t *fx = *state;
    static const uint32_t ns[] = {1, 3, 4, 5, 31, 32, 33, 64, 65, 130};
    const uint32_t m = 1500;
    const double maf = 0.2, geno = 0.1;
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
        uint32_t n = ns[a];
        uint8_t *g = random_geno(m, n, 8, 100 + a);
        int *ph = alt_pheno(n);
        uint64_t seed = a;
        /* some samples without phenotype, some removed */
        char rm[4096] = "";
        uint8_t used[256];
        /* one sample has no case and no control: then no phenotype is required */
        int require = n >= 2;
        for (uint32_t s = 0; s < n; s++) {
            uint32_t r = tu_randn(&seed, 6);
            if (r == 0 && s > 1) ph[s] = -9;
            if (r == 1 && s > 1)
                snprintf(rm + strlen(rm), sizeof rm - strlen(rm), "FAM%u IND%u\n", s, s);
            used[s] = (!require || ph[s] != -9) && !(r == 1 && s > 1);
        }
        write_fileset(fx, g, m, n, ph);
        assert_int_equal(tu_write_text(fx->list, rm), 0);
        for (int threads = 0; threads <= 3; threads += 3) {
            es_input_opt_t opt;
            es_input_opt_init(&opt);
            opt.remove = fx->list;
            opt.maf = maf;
            opt.geno = geno;
            opt.threads = threads;
            opt.require_pheno = require;
            opt.bfile = fx->prefix;
            es_dataset_t *ds = NULL;
            tu_cap_start(&fx->base.cap);
            int rc = es_dataset_open(&ds, &opt);
            tu_cap_stop(&fx->base.cap);
            uint32_t k = 0;
            for (uint32_t v = 0; v < m; v++) {
                uint64_t nu = 0, miss = 0, a1 = 0;
                for (uint32_t s = 0; s < n; s++) {
                    if (!used[s]) continue;
                    nu++;
                    uint8_t x = g[(size_t)v * n + s];
                    if (x == 3) miss++;
                    else a1 += x;
                }
                uint64_t called = nu - miss;
                uint64_t minor = a1 < 2 * called - a1 ? a1 : 2 * called - a1;
                int keep = (double)miss / (double)nu <= geno &&
                           (!called || (double)minor / (double)(2 * called) >= maf);
                if (keep) {
                    assert_int_equal(rc, ES_OK);
                    if (src_of(ds, k) != v)
                        fail_msg("n=%u: kept variant %u is row %u, not %u", n, k, src_of(ds, k),
                                 v);
                    k++;
                }
            }
            if (rc == ES_OK) assert_int_equal(es_dataset_n_variants(ds), k);
            else assert_int_equal(k, 0);
            es_dataset_destroy(ds);
        }
        free(g);
        free(ph);
    }
}

/* ---- PLINK 1.9's filters: --snps, --from/--to, --mind, --hwe, --1 ------------- */

/* Each of the n values v[k] in the double option at offset off is refused
 * with ES_ERR_ARG and a message holding m1 and m2. */
static void refuse_values(fx_t *fx, size_t off, const double *v, size_t n, const char *m1,
                          const char *m2)
{
    for (size_t k = 0; k < n; k++) {
        es_input_opt_t opt;
        es_input_opt_init(&opt);
        memcpy((char *)&opt + off, &v[k], sizeof v[k]);
        open_sel(fx, &opt, ES_ERR_ARG, m1, m2, END);
    }
}

/* IDs of the kept variants, comma-separated, into buf. */
static const char *kept_ids(const es_dataset_t *ds, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (uint32_t v = 0; v < es_dataset_n_variants(ds); v++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", v ? "," : "",
                 es_dataset_variant(ds, v).id);
    return buf;
}

/* The Wigginton et al. exact test against p-values summed exactly (python
 * fractions: P(h) = n! 2^h / (homr! h! homc!), the mass of the het counts no
 * more likely than the observed one). */
static void test_hwe_exact_p(void **state)
{
    (void)state;
    static const struct {
        uint32_t het, hom1, hom2;
        double p;
    } c[] = {
        {0, 0, 0, 1.0},
        {1, 0, 0, 1.0},
        {57, 14, 50, 0.8422797565707926},
        {0, 5, 5, 0.0013639611162830976},
        {10, 10, 10, 0.07421943138053523},
        {2, 10, 2, 0.0647342995169082},
        {20, 40, 0, 0.33949668557549917},
        {3, 100, 0, 1.0},
        {1, 1000, 0, 1.0},
        {100, 200, 100, 8.872310582456577e-21},
        {150, 150, 100, 1.7613425391856423e-06},
        {500, 300, 200, 0.7982999314006535},
        {21, 379, 0, 1.0},
        {0, 999, 1, 0.0005002501250625312},
        {250, 8000, 2, 0.721949933232077},
        {30, 60, 10, 0.05885814563252747},
        {6, 0, 7, 1.0},
        {400, 1800, 2800, 0.0}, /* about 1e-700: the centre overflows, p = 0 */
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        double p = es_hwe_exact_p(c[k].het, c[k].hom1, c[k].hom2);
        double q = es_hwe_exact_p(c[k].het, c[k].hom2, c[k].hom1); /* allele labels swapped */
        if (c[k].p == 0) assert_true(p < 1e-300);
        else if (fabs(p - c[k].p) > 1e-9 * c[k].p)
            fail_msg("HWE(%u, %u, %u) = %.17g, expected %.17g", c[k].het, c[k].hom1, c[k].hom2,
                     p, c[k].p);
        assert_true(p == q);
        assert_true(p >= 0 && p <= 1);
    }
}

/* rs1-rs4 on chr 1, rs5-rs7 on chr 2 and rs8 on "chr2" (the same chromosome,
 * out of position order), rs9-rs10 on X. */
static void write_snps_fixture(fx_t *fx)
{
    const uint32_t n = 6, m = 10;
    uint8_t *g = random_geno(m, n, 0, 7);
    int *ph = alt_pheno(n);
    write_fileset(fx, g, m, n, ph);
    assert_int_equal(tu_write_text(fx->bim, "1 rs1 0 100 A G\n1 rs2 0 200 A G\n1 rs3 0 300 A G\n"
                                            "1 rs4 0 400 A G\n2 rs5 0 150 A G\n2 rs6 0 250 A G\n"
                                            "2 rs7 0 350 A G\nchr2 rs8 0 300 A G\n"
                                            "X rs9 0 100 A G\nX rs10 0 200 A G\n"),
                     0);
    free(g);
    free(ph);
}

static void test_snps_from_to(void **state)
{
    fx_t *fx = *state;
    char ids[256];
    es_input_opt_t opt;
    es_dataset_t *ds;
    write_snps_fixture(fx);

    es_input_opt_init(&opt);
    assert_null(opt.snps);
    assert_null(opt.from);
    assert_null(opt.to);
    assert_true(opt.mind == 1.0);
    assert_true(opt.hwe == 0.0);
    assert_int_equal(opt.hwe_all, 0);
    assert_int_equal(opt.pheno_01, 0);

    static const struct {
        const char *chr, *snps, *from, *to, *want;
    } ok[] = {
        {NULL, "rs2-rs4,rs9", NULL, NULL, "rs2,rs3,rs4,rs9"},
        {NULL, "rs4-rs2", NULL, NULL, "rs2,rs3,rs4"},           /* either way round */
        {NULL, " rs3 , ,rs6 - rs5", NULL, NULL, "rs3,rs5,rs6"}, /* blanks, empty item */
        {NULL, "rs3-rs6", NULL, NULL, "rs3,rs4,rs5,rs6"},       /* across chromosomes */
        {NULL, "rs1-rs3,rs2-rs4", NULL, NULL, "rs1,rs2,rs3,rs4"}, /* overlapping spans */
        {"2,X", "rs5-rs9", NULL, NULL, "rs5,rs6,rs7,rs8,rs9"},
        {NULL, NULL, "rs6", "rs7", "rs6,rs7,rs8"}, /* chr2 at 300 is inside 250..350 */
        {NULL, NULL, "rs7", "rs6", "rs6,rs7,rs8"}, /* PLINK swaps the ends */
        {NULL, NULL, "rs2", NULL, "rs2,rs3,rs4"},
        {NULL, NULL, NULL, "rs2", "rs1,rs2"},
        {NULL, NULL, "rs9", "rs9", "rs9"},
    };
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        es_input_opt_init(&opt);
        opt.chr = ok[k].chr;
        opt.snps = ok[k].snps;
        opt.from = ok[k].from;
        opt.to = ok[k].to;
        ds = open_sel(fx, &opt, ES_OK, END);
        if (strcmp(kept_ids(ds, ids, sizeof ids), ok[k].want) != 0)
            fail_msg("--snps '%s' --from %s --to %s: kept %s, expected %s",
                     ok[k].snps ? ok[k].snps : "", ok[k].from ? ok[k].from : "-",
                     ok[k].to ? ok[k].to : "-", ids, ok[k].want);
        es_dataset_destroy(ds);
    }
    es_input_opt_init(&opt);
    opt.snps = "rs1-rs2";
    opt.extract = fx->list;
    assert_int_equal(tu_write_text(fx->list, "rs2\nrs3\n"), 0);
    ds = open_sel(fx, &opt, ES_OK, "--snps rs1-rs2: 8 variants removed",
                  "--extract", "1 variants removed", END);
    assert_string_equal(kept_ids(ds, ids, sizeof ids), "rs2");
    es_dataset_destroy(ds);

    static const struct {
        const char *chr, *snps, *from, *to, *msg1, *msg2;
    } bad[] = {
        {NULL, "rs2,nosuch", NULL, NULL, "variant 'nosuch' is not in", "d.bim"},
        {"1", "rs2,rs5", NULL, NULL, "'rs5' is on chromosome 2", "--chr"},
        {NULL, "rs2,rs3-rs2", NULL, NULL, "'rs2' is listed more than once", "--snps"},
        {NULL, "rs1-rs2-rs3", NULL, NULL, "neither a variant ID nor a range", "rs1-rs2-rs3"},
        {NULL, "rs1-", NULL, NULL, "neither a variant ID nor a range", "--snps"},
        {NULL, " , ", NULL, NULL, "no variant ID", "--snps"},
        {NULL, NULL, "rs1", "rs5", "on chromosome 1 but --to rs5 on chromosome 2", "--from"},
        {NULL, NULL, "nosuch", NULL, "--from: variant 'nosuch' is not in", "d.bim"},
        {"1", NULL, "rs1", NULL, "--from/--to", "--chr"},
        {NULL, "rs1", NULL, "rs2", "--snps", "--from/--to"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        es_input_opt_init(&opt);
        opt.chr = bad[k].chr;
        opt.snps = bad[k].snps;
        opt.from = bad[k].from;
        opt.to = bad[k].to;
        open_sel(fx, &opt, ES_ERR_ARG, bad[k].msg1, bad[k].msg2, END);
    }
    /* a listed ID that is not unique in the .bim */
    assert_int_equal(tu_write_text(fx->bim, "1 rs1 0 100 A G\n1 rs2 0 200 A G\n1 rs3 0 300 A G\n"
                                            "1 rs4 0 400 A G\n2 rs5 0 150 A G\n2 rs6 0 250 A G\n"
                                            "2 rs7 0 350 A G\n2 rs8 0 300 A G\n"
                                            "X rs9 0 100 A G\nX rs1 0 200 A G\n"),
                     0);
    es_input_opt_init(&opt);
    opt.snps = "rs1-rs3";
    /* (the .bim reader warns about the duplicate: open_sel captures it) */
    open_sel(fx, &opt, ES_ERR_ARG, "'rs1' appears more than once", END);
    es_input_opt_init(&opt);
    opt.snps = "rs2-rs3"; /* the duplicate is not named: fine */
    ds = open_sel(fx, &opt, ES_OK, END);
    assert_int_equal(es_dataset_n_variants(ds), 2);
    es_dataset_destroy(ds);
}

/* 12 samples (even: male, odd: female), 8 chr-1 variants and 2 on Y.  Sample
 * s misses the chr-1 variants v < s / 2; every female and the male 10 miss
 * both Y variants. */
static void write_mind_fixture(fx_t *fx, uint32_t n, uint32_t m)
{
    uint8_t *g = malloc((size_t)m * n);
    assert_non_null(g);
    for (uint32_t v = 0; v < m; v++)
        for (uint32_t s = 0; s < n; s++)
            g[v * n + s] = v < 8 ? (v < s / 2 ? 3 : (uint8_t)((s + v) % 3))
                                 : ((s & 1) || s == 10 ? 3 : 2);
    int *ph = alt_pheno(n);
    write_fileset(fx, g, m, n, ph);
    char bim[1024] = "";
    for (uint32_t v = 0; v < m; v++)
        snprintf(bim + strlen(bim), sizeof bim - strlen(bim), "%s rs%u 0 %u A G\n",
                 v < 8 ? "1" : "Y", v + 1, 100 * (v + 1));
    assert_int_equal(tu_write_text(fx->bim, bim), 0);
    free(g);
    free(ph);
}

static void test_mind(void **state)
{
    fx_t *fx = *state;
    const uint32_t n = 12, m = 10;
    es_input_opt_t opt;
    es_dataset_t *ds;
    char ids[256];
    write_mind_fixture(fx, n, m);

    /* males: limit floor(0.25 x 10) = 2 over all variants; the others:
     * floor(0.25 x 8) = 2 over the non-Y ones, their Y calls not counted */
    es_input_opt_init(&opt);
    opt.mind = 0.25;
    ds = open_sel(fx, &opt, ES_OK, "--mind 0.25: 6 of 12 samples removed", "over 10 variants",
                  "6 removed", END);
    for (uint32_t s = 0; s < n; s++)
        if ((ds->status[s] == -2) != (s >= 6)) fail_msg("--mind 0.25: sample %u", s);
    es_dataset_destroy(ds);
    /* ties stay: the male 4 misses 0.2 x 10 = 2 calls, not above the limit; the
     * female 5 misses 2 of 8 (limit 1) */
    opt.mind = 0.2;
    ds = open_sel(fx, &opt, ES_OK, "--mind 0.2: 7 of 12", END);
    for (uint32_t s = 0; s < n; s++)
        if ((ds->status[s] == -2) != (s >= 5)) fail_msg("--mind 0.2: sample %u", s);
    es_dataset_destroy(ds);
    /* over the variants --extract leaves (rs5-rs10: 4 on chr 1, 2 on Y):
     * only samples 10 and 11 miss a chr-1 call there */
    assert_int_equal(tu_write_text(fx->list, "rs5\nrs6\nrs7\nrs8\nrs9\nrs10\n"), 0);
    es_input_opt_init(&opt);
    opt.extract = fx->list;
    opt.mind = 0.1;
    ds = open_sel(fx, &opt, ES_OK, "--mind 0.1: 2 of 12 samples removed", "over 6 variants",
                  END);
    assert_int_equal(ds->status[10], -2);
    assert_int_equal(ds->status[11], -2);
    assert_int_equal(ds->status[9], 1);
    es_dataset_destroy(ds);
    /* --mind runs before --geno: what the removed samples miss no longer counts */
    es_input_opt_init(&opt);
    opt.mind = 0.25;
    opt.geno = 0;
    ds = open_sel(fx, &opt, ES_OK, "--geno 0: 4 variants removed", "over 6 samples", END);
    assert_string_equal(kept_ids(ds, ids, sizeof ids), "rs3,rs4,rs5,rs6,rs7,rs8");
    es_dataset_destroy(ds);
    /* with --remove first; nobody left; out of range */
    assert_int_equal(tu_write_text(fx->list, "IND0\nIND1\n"), 0);
    es_input_opt_init(&opt);
    opt.remove = fx->list;
    opt.mind = 0;
    open_sel(fx, &opt, ES_ERR_DATA, "no samples left after --mind 0", "d.fam",
             "10 by their missing-call rate", END);
    const double bad[] = {-0.1, 1.5, NAN};
    refuse_values(fx, offsetof(es_input_opt_t, mind), bad, 3, "--mind", "[0, 1]");
}

/* --hwe against an oracle that picks PLINK's samples itself: founder
 * controls (or all founders), non-males on X, nothing on Y and MT. */
static void test_hwe_filter(void **state)
{
    fx_t *fx = *state;
    const uint32_t n = 240, m = 64;
    uint64_t seed = 11;
    uint8_t *g = malloc((size_t)m * n);
    int ph[240];
    int8_t sex[240];
    uint8_t founder[240];
    assert_non_null(g);
    char *fam = malloc(64 * (size_t)n), *bim = malloc(64 * (size_t)m);
    assert_non_null(fam);
    assert_non_null(bim);
    fam[0] = bim[0] = '\0';
    for (uint32_t s = 0; s < n; s++) {
        ph[s] = s % 4 < 2 ? 1 : 2;
        sex[s] = s % 5 == 4 ? 0 : 1 + (int8_t)(s & 1);
        founder[s] = s % 10 != 3;
        snprintf(fam + strlen(fam), 64, "FAM%u IND%u %s 0 %d %d\n", s, s,
                 founder[s] ? "0" : "IND0", sex[s], ph[s]);
    }
    static const char *const chr[8] = {"1", "1", "2", "2", "3", "X", "Y", "MT"};
    for (uint32_t v = 0; v < m; v++) {
        /* some variants have too many hets in the controls, some in the cases */
        unsigned f = 10 + tu_randn(&seed, 40), kind = v % 3;
        for (uint32_t s = 0; s < n; s++) {
            int control = ph[s] == 1;
            uint8_t x = (uint8_t)((tu_randn(&seed, 100) < f) + (tu_randn(&seed, 100) < f));
            if ((kind == 1 && control) || (kind == 2 && !control))
                if (tu_randn(&seed, 100) < 60) x = 1;
            if (tu_randn(&seed, 100) < 5) x = 3;
            g[(size_t)v * n + s] = x;
        }
        snprintf(bim + strlen(bim), 64, "%s rs%u 0 %u A G\n", chr[v % 8], v + 1, 100 * (v + 1));
    }
    write_fileset(fx, g, m, n, ph);
    assert_int_equal(tu_write_text(fx->fam, fam), 0);
    assert_int_equal(tu_write_text(fx->bim, bim), 0);
    const double thr = 1e-2;
    uint32_t want_of[2];
    for (int all = 0; all <= 1; all++) {
        uint32_t want = 0, k = 0;
        es_input_opt_t opt;
        es_input_opt_init(&opt);
        opt.hwe = thr;
        opt.hwe_all = all;
        es_dataset_t *ds = open_sel(fx, &opt, ES_OK, all ? "in the founders" : "founder controls",
                                    END);
        for (uint32_t v = 0; v < m; v++) {
            const char *c = chr[v % 8];
            int keep = 1;
            if (strcmp(c, "Y") != 0 && strcmp(c, "MT") != 0) {
                uint32_t cnt[4] = {0, 0, 0, 0};
                for (uint32_t s = 0; s < n; s++) {
                    if (!founder[s] || (!all && ph[s] != 1)) continue;
                    if (!strcmp(c, "X") && sex[s] == 1) continue;
                    cnt[g[(size_t)v * n + s]]++;
                }
                keep = es_hwe_exact_p(cnt[1], cnt[0], cnt[2]) >= thr;
            }
            if (!keep) continue;
            want++;
            if (k >= es_dataset_n_variants(ds) || src_of(ds, k) != v)
                fail_msg("--hwe%s: variant %u should be kept", all ? " (all)" : "", v);
            k++;
        }
        assert_int_equal(es_dataset_n_variants(ds), want);
        /* the fixture is not trivial: some go, more with every founder tested */
        assert_true(want < m - 8 && want > m / 4);
        want_of[all] = want;
        es_dataset_destroy(ds);
    }
    assert_true(want_of[1] < want_of[0]);
    /* no control left (--remove takes them; no phenotype required): every
     * founder is tested */
    fam[0] = '\0';
    for (uint32_t s = 0; s < n; s++)
        if (ph[s] == 1) snprintf(fam + strlen(fam), 64, "FAM%u IND%u\n", s, s);
    assert_int_equal(tu_write_text(fx->list, fam), 0);
    es_input_opt_t opt;
    es_input_opt_init(&opt);
    opt.hwe = thr;
    opt.require_pheno = 0;
    opt.remove = fx->list;
    es_dataset_t *ds = open_sel(fx, &opt, ES_OK, "in the founders", END);
    es_dataset_destroy(ds);
    const double bad[] = {-0.1, 1.0, NAN};
    refuse_values(fx, offsetof(es_input_opt_t, hwe), bad, 3, "--hwe", "[0, 1)");
    free(fam);
    free(bim);
    free(g);
}

/* --1: 0 control, 1 case; anything else missing, in .fam column 6 and in
 * a --pheno file. */
static void test_pheno_01(void **state)
{
    fx_t *fx = *state;
    const uint32_t n = 8;
    uint8_t *g = random_geno(3, n, 0, 3);
    int *ph = alt_pheno(n);
    write_fileset(fx, g, 3, n, ph);
    assert_int_equal(tu_write_text(fx->fam, "F0 I0 0 0 1 0\nF1 I1 0 0 1 1\nF2 I2 0 0 1 2\n"
                                            "F3 I3 0 0 1 -9\nF4 I4 0 0 1 NA\nF5 I5 0 0 1 1\n"
                                            "F6 I6 0 0 1 0\nF7 I7 0 0 1 3.5\n"),
                     0);
    es_input_opt_t opt;
    es_input_opt_init(&opt);
    opt.pheno_01 = 1;
    es_dataset_t *ds = open_sel(fx, &opt, ES_OK, "2 samples with a column 6 value other than",
                                "first: 'F2 I2'", "2 cases, 2 controls, 4 without phenotype", END);
    static const int8_t want[8] = {0, 1, -1, -1, -1, 1, 0, -1};
    assert_memory_equal(ds->status, want, 8);
    es_dataset_destroy(ds);
    /* without --1 the same file is quantitative (3.5): no case/control scan */
    es_input_opt_init(&opt);
    open_sel(fx, &opt, ES_ERR_DATA, "not case/control", END);

    assert_int_equal(tu_write_text(fx->pheno, "FID IID A B\nF0 I0 2 0\nF1 I1 1 1\nF2 I2 1 2\n"
                                              "F3 I3 1 x\nF4 I4 1 -9\nF5 I5 1 0\nF6 I6 1 1\n"
                                              "F7 I7 1 NA\n"),
                     0);
    es_input_opt_init(&opt);
    opt.pheno = fx->pheno;
    opt.pheno_name = "2";
    opt.pheno_01 = 1;
    ds = open_sel(fx, &opt, ES_OK, "2 phenotype values other than 0 (control), 1 (case)",
                  "first: '2' on line 4", END);
    static const int8_t want2[8] = {0, 1, -1, -1, -1, 0, 1, -1};
    assert_memory_equal(ds->status, want2, 8);
    es_dataset_destroy(ds);
    /* column A has no 0: under --1 there are no controls */
    opt.pheno_name = "A";
    open_sel(fx, &opt, ES_ERR_DATA, "no controls (phenotype 0)", "controls (0 with --1)", END);
    free(g);
    free(ph);
}

/* ---- var_src ----------------------------------------------------------------- */

static void test_var_src_decode(void **state)
{
    fx_t *fx = *state;
    const uint32_t m = 300, n = 37;
    uint8_t *g = random_geno(m, n, 5, 9);
    int *ph = alt_pheno(n);
    write_fileset(fx, g, m, n, ph);
    /* metadata that differs per row, so compaction errors show */
    FILE *f = fopen(fx->bim, "w");
    assert_non_null(f);
    for (uint32_t v = 0; v < m; v++)
        fprintf(f, "%u\tid%u\t%u.5\t%u\t%c\t%c\n", 1 + v % 5, v, v, 10 * v + 7, "ACGT"[v % 4],
                "ACGT"[(v + 1) % 4]);
    fclose(f);
    char ext[8192] = "";
    for (uint32_t v = 0; v < m; v += 3)
        snprintf(ext + strlen(ext), sizeof ext - strlen(ext), "id%u\n", v);
    assert_int_equal(tu_write_text(fx->list, ext), 0);
    es_input_opt_t opt;
    es_input_opt_init(&opt);
    opt.chr = "1-2,4";
    opt.extract = fx->list;
    opt.maf = 0.05;
    es_dataset_t *ds = open_sel(fx, &opt, ES_OK, END);
    uint32_t k = es_dataset_n_variants(ds);
    assert_true(k > 10 && k < m / 3);
    uint8_t out[37];
    uint32_t prev = 0;
    for (uint32_t v = 0; v < k; v++) {
        uint32_t r = src_of(ds, v);
        assert_true(v == 0 || r > prev); /* source order is kept */
        prev = r;
        assert_true(r % 3 == 0 && r % 5 != 2 && r % 5 != 4);
        es_variant_info_t vi = es_dataset_variant(ds, v);
        char id[32], chr[8];
        snprintf(id, sizeof id, "id%u", r);
        snprintf(chr, sizeof chr, "%u", 1 + r % 5);
        assert_string_equal(vi.id, id);
        assert_string_equal(vi.chr, chr);
        assert_int_equal(vi.pos, 10 * r + 7);
        assert_true(vi.cm == r + 0.5);
        assert_true(vi.a1[0] == "ACGT"[r % 4] && vi.a2[0] == "ACGT"[(r + 1) % 4]);
        assert_int_equal(es_dataset_decode(ds, v, out), ES_OK);
        assert_memory_equal(out, g + (size_t)r * n, n);
    }
    tu_cap_start(&fx->base.cap);
    assert_int_equal(es_dataset_decode(ds, k, out), ES_ERR_ARG); /* past the kept ones */
    tu_cap_stop(&fx->base.cap);
    es_dataset_destroy(ds);
    free(g);
    free(ph);
}

/* es_filter_compact() twice composes the selections. */
static void test_compact_composes(void **state)
{
    fx_t *fx = *state;
    const uint32_t m = 10, n = 4;
    uint8_t *g = random_geno(m, n, 0, 2);
    int *ph = alt_pheno(n);
    write_fileset(fx, g, m, n, ph);
    es_fileset_t *p = NULL;
    assert_int_equal(es_plink_open(&p, fx->prefix), ES_OK);
    uint8_t keep1[10] = {1, 0, 1, 1, 0, 1, 1, 1, 0, 1}; /* rows 0 2 3 5 6 7 9 */
    assert_int_equal(es_filter_compact(p, keep1), ES_OK);
    assert_int_equal(p->n_variants, 7);
    uint8_t keep2[7] = {0, 1, 0, 1, 1, 0, 1}; /* rows 2 5 6 9 */
    assert_int_equal(es_filter_compact(p, keep2), ES_OK);
    assert_int_equal(p->n_variants, 4);
    const uint32_t want[4] = {2, 5, 6, 9};
    for (uint32_t v = 0; v < 4; v++) {
        assert_int_equal(p->var_src[v], want[v]);
        char id[16];
        snprintf(id, sizeof id, "rs%u", want[v] + 1);
        assert_string_equal(p->id[v], id);
        assert_ptr_equal(es_fileset_row(p, v), p->bed_map + 3 + want[v] * p->bytes_per_variant);
    }
    /* keeping all changes nothing */
    uint8_t all[4] = {1, 1, 1, 1};
    assert_int_equal(es_filter_compact(p, all), ES_OK);
    assert_int_equal(p->n_variants, 4);
    free(p->var_src);
    p->var_src = NULL;
    es_fileset_close(p);
    free(g);
    free(ph);
}

/* ---- a scan of a selection == a scan of the selected fileset ------------------- */

static void scan_of(es_dataset_t *ds, es_pair_t **top, size_t *n_top, es_summary_t **sum)
{
    es_opt_t opt;
    es_opt_init(&opt);
    opt.top_k = 100000;
    opt.device = ES_DEVICE_CPU;
    opt.threads = 2;
    es_scan_t *scan = NULL;
    assert_int_equal(es_scan_create(&scan, ds, &opt), ES_OK);
    assert_int_equal(es_scan_run(scan), ES_OK);
    *n_top = es_scan_top_count(scan);
    *top = malloc(*n_top * sizeof **top + 1);
    *sum = malloc(es_dataset_n_variants(ds) * sizeof **sum + 1);
    assert_non_null(*top);
    assert_non_null(*sum);
    memcpy(*top, es_scan_top(scan), *n_top * sizeof **top);
    memcpy(*sum, es_scan_summary(scan), es_dataset_n_variants(ds) * sizeof **sum);
    es_scan_destroy(scan);
}

/* Bitwise equality, with NaN == NaN (p-values of k2 etc.). */
static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static void test_scan_equals_physical_selection(void **state)
{
    fx_t *fx = *state;
    const uint32_t m = 60, n = 157;
    uint8_t *g = random_geno(m, n, 4, 77);
    int *ph = alt_pheno(n);
    uint64_t seed = 5;
    for (uint32_t s = 0; s < n; s++)
        if (tu_randn(&seed, 9) == 0) ph[s] = -9;
    write_fileset(fx, g, m, n, ph);
    FILE *f = fopen(fx->bim, "w");
    assert_non_null(f);
    for (uint32_t v = 0; v < m; v++) fprintf(f, "%u rs%u 0 %u A G\n", 1 + v / 20, v + 1, v + 1);
    fclose(f);
    /* --remove every 7th sample, --chr 1,3, --exclude some, --geno, --maf */
    char rm[8192] = "", exc[1024] = "";
    uint8_t removed[157] = {0};
    for (uint32_t s = 3; s < n; s += 7) {
        snprintf(rm + strlen(rm), sizeof rm - strlen(rm), "IND%u\n", s);
        removed[s] = 1;
    }
    for (uint32_t v = 0; v < m; v += 5)
        snprintf(exc + strlen(exc), sizeof exc - strlen(exc), "rs%u\n", v + 1);
    assert_int_equal(tu_write_text(fx->list, rm), 0);
    assert_int_equal(tu_write_text(fx->list2, exc), 0);
    es_input_opt_t opt;
    es_input_opt_init(&opt);
    opt.remove = fx->list;
    opt.chr = "1,3";
    opt.exclude = fx->list2;
    opt.geno = 0.05;
    opt.maf = 0.15;
    es_dataset_t *ds = open_sel(fx, &opt, ES_OK, END);
    uint32_t k = es_dataset_n_variants(ds);
    assert_true(k >= 5);
    assert_true(k < m * 2 / 3 * 4 / 5);

    /* the physical selection: kept samples (with a phenotype) and kept rows */
    uint32_t nk = 0;
    uint8_t *g2 = malloc((size_t)k * n);
    int *ph2 = malloc(n * sizeof *ph2);
    assert_non_null(g2);
    assert_non_null(ph2);
    for (uint32_t s = 0; s < n; s++)
        if (!removed[s] && ph[s] != -9) ph2[nk++] = ph[s];
    for (uint32_t v = 0; v < k; v++) {
        uint32_t r = src_of(ds, v), t = 0;
        for (uint32_t s = 0; s < n; s++)
            if (!removed[s] && ph[s] != -9) g2[(size_t)v * nk + t++] = g[(size_t)r * n + s];
    }
    char prefix2[1100];
    snprintf(prefix2, sizeof prefix2, "%s/phys", fx->base.dir);
    assert_int_equal(tu_write_bfile(prefix2, g2, k, nk, ph2), 0);
    es_dataset_t *ds2 = NULL;
    assert_int_equal(es_dataset_open_bfile(&ds2, prefix2, NULL, NULL), ES_OK);
    assert_int_equal(es_dataset_n_variants(ds2), k);
    assert_int_equal(es_dataset_n_cases(ds2), es_dataset_n_cases(ds));
    assert_int_equal(es_dataset_n_controls(ds2), es_dataset_n_controls(ds));
    assert_int_equal(es_dataset_any_missing(ds2), es_dataset_any_missing(ds));

    es_pair_t *t1, *t2;
    es_summary_t *s1, *s2;
    size_t n1, n2;
    scan_of(ds, &t1, &n1, &s1);
    scan_of(ds2, &t2, &n2, &s2);
    assert_int_equal(n1, (size_t)k * (k - 1) / 2);
    assert_int_equal(n1, n2);
    for (size_t r = 0; r < n1; r++) {
        assert_int_equal(t1[r].i, t2[r].i);
        assert_int_equal(t1[r].j, t2[r].j);
        assert_int_equal(t1[r].n, t2[r].n);
        assert_int_equal(t1[r].df, t2[r].df);
        assert_true(same_double(t1[r].stat, t2[r].stat));
        assert_true(same_double(t1[r].p, t2[r].p));
        assert_true(same_double(t1[r].log10p, t2[r].log10p));
    }
    for (uint32_t v = 0; v < k; v++) {
        assert_int_equal(s1[v].best_partner, s2[v].best_partner);
        assert_true(same_double(s1[v].best_stat, s2[v].best_stat));
        assert_true(same_double(s1[v].best_p, s2[v].best_p));
        assert_int_equal(s1[v].n_tot, s2[v].n_tot);
        assert_int_equal(s1[v].n_sig, s2[v].n_sig);
    }
    free(t1);
    free(t2);
    free(s1);
    free(s2);
    es_dataset_destroy(ds);
    es_dataset_destroy(ds2);
    free(g2);
    free(ph2);
    free(g);
    free(ph);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_opt_init_and_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keep_remove, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keep_iid_families, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sample_selection_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_require_pheno_off, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chrset_api, setup, teardown),
        cmocka_unit_test_setup_teardown(test_extract_exclude, setup, teardown),
        cmocka_unit_test_setup_teardown(test_geno_boundary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_maf_boundary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_filter_order_and_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_qc_oracle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_var_src_decode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compact_composes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scan_equals_physical_selection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hwe_exact_p, setup, teardown),
        cmocka_unit_test_setup_teardown(test_snps_from_to, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mind, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hwe_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pheno_01, setup, teardown),
    };
    es_log_set_level(ES_LOG_WARN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
