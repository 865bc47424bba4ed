/* test_vcf.c -- the VCF/BCF reader (formats/vcf.c) and the .bed writer
 * (formats/bed_write.c).  Small VCFs are written as text and turned into
 * bgzipped VCF and BCF through htslib itself (no bcftools needed); each case
 * checks the decoded rows, the metadata, the skip counts, and for bad input
 * the exact return code and a message naming the file and the record. */
#include <fcntl.h>
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

#include <htslib/hts.h>
#include <htslib/tbx.h>
#include <htslib/vcf.h>

#include "select.h"
#include "testutil.h"

typedef struct {
    tu_fixture_t base; /* first: temp dir + stderr capture (tu_fixture_new) */
    char vcf[4200], vcfgz[4200], bcf[4200], out[4200], tmp[4200];
} fx_t;

static int setup(void **state)
{
    fx_t *fx = tu_fixture_new(sizeof *fx);
    if (!fx) return -1;
    snprintf(fx->vcf, sizeof fx->vcf, "%s/t.vcf", fx->base.dir);
    snprintf(fx->vcfgz, sizeof fx->vcfgz, "%s/t.vcf.gz", fx->base.dir);
    snprintf(fx->bcf, sizeof fx->bcf, "%s/t.bcf", fx->base.dir);
    snprintf(fx->out, sizeof fx->out, "%s/out", fx->base.dir);
    snprintf(fx->tmp, sizeof fx->tmp, "%s/list.txt", fx->base.dir);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fx_t *fx = *state;
    tu_fixture_free(fx);
    return 0;
}

/* ---- writing test files ----------------------------------------------------- */

#define HDR_META                                                                                   \
    "##fileformat=VCFv4.2\n"                                                                       \
    "##contig=<ID=1,length=100000>\n"                                                              \
    "##contig=<ID=2,length=100000>\n"                                                              \
    "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">\n"                             \
    "##FORMAT=<ID=DP,Number=1,Type=Integer,Description=\"Depth\">\n"
#define HDR_COLS "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT"
/* 5 samples: one partial .bed byte, so pad bits are exercised */
#define HDR5 HDR_META HDR_COLS "\tS1\tS2\tS3\tS4\tS5\n"

/* Copy the text VCF to bgzipped VCF ("wz") or BCF ("wb") with htslib. */
static void convert_with_htslib(const char *src, const char *dst, const char *mode)
{
    htsFile *in = hts_open(src, "r"), *out = hts_open(dst, mode);
    assert_non_null(in);
    assert_non_null(out);
    bcf_hdr_t *h = bcf_hdr_read(in);
    assert_non_null(h);
    assert_int_equal(bcf_hdr_write(out, h), 0);
    bcf1_t *rec = bcf_init();
    int rc;
    while ((rc = bcf_read(in, h, rec)) == 0)
        assert_int_equal(bcf_write(out, h, rec), 0);
    assert_int_equal(rc, -1);
    bcf_destroy(rec);
    bcf_hdr_destroy(h);
    assert_int_equal(hts_close(in), 0);
    assert_int_equal(hts_close(out), 0);
}

/* Text VCF plus its vcf.gz and BCF copies. */
static void write_all_forms(fx_t *fx, const char *text)
{
    assert_int_equal(tu_write_text(fx->vcf, text), 0);
    convert_with_htslib(fx->vcf, fx->vcfgz, "wz");
    convert_with_htslib(fx->vcf, fx->bcf, "wb");
}

/* Genotype of sample s at variant v as a character: '0' '1' '2' copies of
 * A1 (ALT), '.' missing. */
static char geno_char(const es_fileset_t *p, uint32_t v, uint32_t s)
{
    unsigned code = (es_fileset_row(p, v)[s / 4] >> (2 * (s % 4))) & 3;
    return "2.10"[code];
}

/* The row of variant v as a string, e.g. "012.1"; also checks pad bits are zero. */
static const char *row_str(const es_fileset_t *p, uint32_t v, char *buf)
{
    for (uint32_t s = 0; s < p->n_samples; s++)
        buf[s] = geno_char(p, v, s);
    buf[p->n_samples] = '\0';
    if (p->n_samples % 4) {
        uint8_t last = es_fileset_row(p, v)[p->bytes_per_variant - 1];
        assert_int_equal(last >> (2 * (p->n_samples % 4)), 0);
    }
    return buf;
}

/* Open with multi-allelic records split (multi) or skipped, as told. */
static es_fileset_t *open_multi(const char *path, const char *const *regions, int n_regions,
                                int threads, es_vcf_multiallelic_t multi, es_vcf_stats_t *st)
{
    es_fileset_t *p = NULL;
    assert_int_equal(es_vcf_open(&p, path, regions, n_regions, threads, multi, st), ES_OK);
    assert_non_null(p);
    assert_non_null(p->rows_owned);
    assert_ptr_equal(p->bed_map, p->rows_owned);
    assert_memory_equal(p->bed_map, "\x6c\x1b\x01", 3);
    assert_int_equal(p->bed_size, 3 + (size_t)p->n_variants * p->bytes_per_variant);
    return p;
}

/* The tests of the other rules skip multi-allelic records (calls_vcf has one). */
static es_fileset_t *open_ok(const char *path, const char *const *regions, int n_regions,
                             int threads, es_vcf_stats_t *st)
{
    return open_multi(path, regions, n_regions, threads, ES_VCF_MULTIALLELIC_SKIP, st);
}

static void expect_vcf_fail_v(fx_t *fx, const char *path, const char *const *regions,
                              int n_regions, es_vcf_multiallelic_t multi, int want, va_list ap)
{
    es_fileset_t *p = (es_fileset_t *)0x1;
    tu_cap_start(&fx->base.cap);
    int rc = es_vcf_open(&p, path, regions, n_regions, 0, multi, NULL);
    const char *text = tu_cap_stop(&fx->base.cap);
    assert_int_equal(rc, want);
    assert_null(p);
    assert_non_null(strstr(text, "[E::"));
    tu_expect_msg_va(text, ap);
}

static void expect_vcf_fail(fx_t *fx, const char *path, const char *const *regions, int n_regions,
                            int want, ...)
{
    va_list ap;
    va_start(ap, want);
    expect_vcf_fail_v(fx, path, regions, n_regions, ES_VCF_MULTIALLELIC_SKIP, want, ap);
    va_end(ap);
}

static void expect_split_fail(fx_t *fx, const char *path, int want, ...)
{
    va_list ap;
    va_start(ap, want);
    expect_vcf_fail_v(fx, path, NULL, 0, ES_VCF_MULTIALLELIC_SPLIT, want, ap);
    va_end(ap);
}

/* Two readings of the same data agree on everything es_fileset_t holds. */
static void assert_same_fileset(const es_fileset_t *a, const es_fileset_t *b)
{
    assert_int_equal(a->n_samples, b->n_samples);
    assert_int_equal(a->n_variants, b->n_variants);
    assert_int_equal(a->bed_size, b->bed_size);
    assert_memory_equal(a->bed_map, b->bed_map, a->bed_size);
    for (uint32_t v = 0; v < a->n_variants; v++) {
        assert_string_equal(a->chr[v], b->chr[v]);
        assert_string_equal(a->id[v], b->id[v]);
        assert_string_equal(a->a1[v], b->a1[v]);
        assert_string_equal(a->a2[v], b->a2[v]);
        assert_int_equal(a->pos[v], b->pos[v]);
    }
    for (uint32_t s = 0; s < a->n_samples; s++)
        assert_string_equal(a->iid[s], b->iid[s]);
    assert_memory_equal(&a->vcf_stats, &b->vcf_stats, sizeof a->vcf_stats);
}

/* ---- genotypes and site rules ---------------------------------------------- */

static const char calls_vcf[] = HDR5
    /* 1: unphased and phased diploid calls; ID kept */
    "1\t100\trs1\tA\tG\t.\tPASS\t.\tGT\t0/0\t0/1\t1/0\t1/1\t0|1\n"
    /* 2: missing forms and a half-missing call, ID '.' -> CHR:POS:REF:ALT */
    "1\t200\t.\tC\tT\t.\tPASS\t.\tGT\t./.\t.|.\t.\t./1\t1|1\n"
    /* 3: more than two alleles: skipped (split in test_split_multiallelic) */
    "1\t300\trs3\tA\tG,T\t.\tPASS\t.\tGT\t0/1\t1/2\t0/0\t0/0\t0/0\n"
    /* 4: no GT field: skipped */
    "1\t400\trs4\tA\tG\t.\tPASS\t.\tDP\t3\t4\t5\t6\t7\n"
    /* 5: haploid calls at a diploid site: missing, counted */
    "1\t500\trs5\tA\tG\t.\tPASS\t.\tGT\t0\t1\t0/1\t1/1\t.\n"
    /* 6: every called genotype haploid: skipped */
    "2\t600\trs6\tA\tG\t.\tPASS\t.\tGT\t0\t1\t.\t1\t./.\n"
    /* 7: monomorphic, ALT '.' */
    "2\t700\t.\tG\t.\t.\tPASS\t.\tGT\t0/0\t0|0\t./.\t0/0\t0/0\n"
    /* 8: GT with more FORMAT keys; a sample with trailing subfields dropped */
    "2\t800\trs8\tT\tC\t.\tPASS\t.\tGT:DP\t1/1:5\t0/1:.\t0/0\t./.:3\t1|0:9\n"
    /* 9: ploidy > 2 calls: missing, counted */
    "2\t900\trs9\tT\tC\t.\tPASS\t.\tGT\t0/1/1\t0/1\t./././.\t1/1\t0/0\n";

static const char *const calls_rows[] = {"01121", "....2", "..12.", "00.00", "210.1", ".1.20"};

static void check_calls(const es_fileset_t *p, const es_vcf_stats_t *st)
{
    char buf[64];
    static const char *const ids[] = {"rs1", "1:200:C:T", "rs5", "2:700:G:.", "rs8", "rs9"};
    static const int64_t pos[] = {100, 200, 500, 700, 800, 900};
    assert_int_equal(p->n_samples, 5);
    assert_int_equal(p->bytes_per_variant, 2);
    assert_int_equal(p->n_variants, 6);
    for (uint32_t v = 0; v < 6; v++) {
        assert_string_equal(row_str(p, v, buf), calls_rows[v]);
        assert_string_equal(p->id[v], ids[v]);
        assert_int_equal(p->pos[v], pos[v]);
        assert_true(p->cm[v] == 0.0);
        assert_string_equal(p->chr[v], v < 3 ? "1" : "2");
    }
    assert_string_equal(p->a1[0], "G"); /* A1 = ALT */
    assert_string_equal(p->a2[0], "A"); /* A2 = REF */
    assert_string_equal(p->a1[3], "."); /* monomorphic: ALT '.' */
    assert_string_equal(p->a2[3], "G");
    for (uint32_t s = 0; s < 5; s++) {
        char name[8];
        snprintf(name, sizeof name, "S%u", s + 1);
        assert_string_equal(p->fid[s], name);
        assert_string_equal(p->iid[s], name);
        assert_int_equal(p->fam_pheno[s], -1);
    }
    assert_int_equal(p->fam_pheno_quantitative, 0);
    assert_int_equal(st->records, 9);
    assert_int_equal(st->multiallelic, 1);
    assert_int_equal(st->no_gt, 1);
    assert_int_equal(st->haploid_sites, 1);
    assert_int_equal(st->haploid_calls, 2);
    assert_memory_equal(&p->vcf_stats, st, sizeof *st);
}

static void test_calls_all_forms(void **state)
{
    fx_t *fx = *state;
    write_all_forms(fx, calls_vcf);
    const char *paths[] = {fx->vcf, fx->vcfgz, fx->bcf};
    es_fileset_t *first = NULL;
    for (int k = 0; k < 3; k++) {
        for (int threads = 0; threads <= 2; threads += 2) {
            es_vcf_stats_t st;
            tu_cap_start(&fx->base.cap);
            es_fileset_t *p = open_ok(paths[k], NULL, 0, threads, &st);
            const char *text = tu_cap_stop(&fx->base.cap);
            check_calls(p, &st);
            assert_string_equal(p->bed_path, paths[k]); /* messages name the VCF */
            /* one warning per category, with the first place it happened */
            assert_non_null(strstr(text, "skipped 1 of 9 records with more than two alleles"));
            assert_non_null(strstr(text, "first at 1:300"));
            assert_non_null(strstr(text, "skipped 1 record without a GT field (first at 1:400)"));
            assert_non_null(strstr(text, "skipped 1 site whose called genotypes are all haploid"));
            assert_non_null(strstr(text, "set 2 haploid calls at diploid sites to missing (first "
                                         "at 1:500, sample S1)"));
            assert_non_null(strstr(text, "set 1 half-missing call"));
            assert_non_null(strstr(text, "set 1 call with more than two alleles (ploidy > 2)"));
            if (first) {
                assert_same_fileset(first, p);
                es_fileset_close(p);
            } else {
                first = p;
            }
        }
    }
    es_fileset_close(first);
}

/* ---- multi-allelic records split as bcftools norm -m- splits them -------------- */

static const char split_vcf[] = HDR5
    /* 1: C and G: 1/2 is one copy of each, 0|2 no C; the ID is kept for both */
    "1\t100\trs1\tA\tC,G\t.\tPASS\t.\tGT\t0/0\t0/1\t1/2\t2/2\t0|2\n"
    /* 2: three ALTs, ID '.': CHR:POS:REF:ALT each; a half call (./1) and a
     * haploid call stay missing in every variant */
    "1\t200\t.\tA\tC,G,T\t.\tPASS\t.\tGT\t0/3\t./1\t2/3\t1\t3/3\n"
    /* 3: all haploid: both variants skipped */
    "1\t300\trs3\tA\tC,G\t.\tPASS\t.\tGT\t1\t2\t0\t.\t1\n"
    /* 4: biallelic, untouched */
    "1\t400\trs4\tA\tC\t.\tPASS\t.\tGT\t0/1\t1/1\t0/0\t./.\t0|1\n"
    /* 5: no GT: skipped whatever its alleles */
    "1\t500\trs5\tA\tC,G\t.\tPASS\t.\tDP\t1\t2\t3\t4\t5\n"
    /* 6: GT second among the FORMAT keys, ploidy 3 missing */
    "2\t600\trs6\tG\tA,T\t.\tPASS\t.\tDP:GT\t3:1/1\t4:2|1\t5:0/2/2\t6:.\t7:2/2\n";

static const char *const split_rows[] = {"01100", "00121", "0.0.0", "0.1.0", "1.1.2",
                                         "120.1", "21..0", "01..2"};
static const char *const split_ids[] = {"rs1",       "rs1", "1:200:A:C", "1:200:A:G",
                                        "1:200:A:T", "rs4", "rs6",       "rs6"};
static const char *const split_a1[] = {"C", "G", "C", "G", "T", "C", "A", "T"};

static void test_split_multiallelic(void **state)
{
    fx_t *fx = *state;
    char buf[64];
    write_all_forms(fx, split_vcf);
    const char *paths[] = {fx->vcf, fx->vcfgz, fx->bcf};
    for (int k = 0; k < 3; k++) {
        es_vcf_stats_t st;
        es_log_set_level(ES_LOG_INFO);
        tu_cap_start(&fx->base.cap);
        es_fileset_t *p = open_multi(paths[k], NULL, 0, 2 * (k & 1), ES_VCF_MULTIALLELIC_SPLIT, &st);
        const char *text = tu_cap_stop(&fx->base.cap);
        es_log_set_level(ES_LOG_WARN);
        assert_int_equal(p->n_variants, 8);
        for (uint32_t v = 0; v < 8; v++) {
            assert_string_equal(row_str(p, v, buf), split_rows[v]);
            assert_string_equal(p->id[v], split_ids[v]);
            assert_string_equal(p->a1[v], split_a1[v]);
            assert_string_equal(p->a2[v], v < 6 ? "A" : "G");
        }
        assert_int_equal(st.records, 6);
        assert_int_equal(st.split_records, 4);
        assert_int_equal(st.split_variants, 7);
        assert_int_equal(st.multiallelic, 0);
        assert_int_equal(st.no_gt, 1);
        assert_int_equal(st.haploid_sites, 2);
        assert_int_equal(st.haploid_calls, 3);
        assert_non_null(strstr(text, "split 4 of 6 records with more than two alleles into 7 "
                                     "biallelic variants, one per ALT allele (as bcftools norm "
                                     "-m-; first at 1:100)"));
        assert_non_null(strstr(text, "skipped 2 sites whose called genotypes are all haploid "
                                     "(first at 1:300)"));
        assert_null(strstr(text, "skipped 4 of"));
        es_fileset_close(p);
    }
    /* skipped instead: only the biallelic record is left */
    es_vcf_stats_t st;
    tu_cap_start(&fx->base.cap);
    es_fileset_t *p = open_multi(fx->bcf, NULL, 0, 0, ES_VCF_MULTIALLELIC_SKIP, &st);
    const char *text = tu_cap_stop(&fx->base.cap);
    assert_int_equal(p->n_variants, 1);
    assert_string_equal(row_str(p, 0, buf), "120.1");
    assert_int_equal(st.multiallelic, 5); /* the one without GT too, as before */
    assert_int_equal(st.no_gt, 0);
    assert_int_equal(st.split_records, 0);
    assert_non_null(strstr(text, "skipped 5 of 6 records with more than two alleles (as asked"));
    es_fileset_close(p);

    /* an allele beyond the site's at a multi-allelic site, text and BCF */
    assert_int_equal(tu_write_text(fx->vcf, HDR5 "1\t10\tx\tA\tC,G\t.\t.\t.\tGT\t0/0\t0/1\t"
                                                 "1/2\t0/3\t0/0\n"),
                     0);
    expect_split_fail(fx, fx->vcf, ES_ERR_FORMAT, fx->vcf, "(record 1, 1:10)", "sample S4",
                      "GT '0/3' has allele 3 but the site has 3 alleles (REF and 2 ALTs)", END);
    expect_vcf_fail(fx, fx->vcf, NULL, 0, ES_ERR_DATA, "none of the 1 records", END);
    /* a mode that does not exist */
    p = (es_fileset_t *)0x1;
    tu_cap_start(&fx->base.cap);
    assert_int_equal(es_vcf_open(&p, fx->vcf, NULL, 0, 0, (es_vcf_multiallelic_t)7, NULL),
                     ES_ERR_ARG);
    text = tu_cap_stop(&fx->base.cap);
    assert_null(p);
    assert_non_null(strstr(text, "unknown multi-allelic mode 7"));
}

/* Without warnings at the default level when nothing is skipped; NULL stats allowed. */
static void test_clean_file_is_quiet(void **state)
{
    fx_t *fx = *state;
    assert_int_equal(tu_write_text(fx->vcf, HDR5 "1\t10\tx\tA\tC\t.\t.\t.\tGT\t0/0\t0/1\t1/1\t"
                                                 "0|0\t1|0\n"),
                     0);
    es_fileset_t *p = NULL;
    tu_cap_start(&fx->base.cap);
    assert_int_equal(es_vcf_open(&p, fx->vcf, NULL, 0, 0, ES_VCF_MULTIALLELIC_SPLIT, NULL), ES_OK);
    const char *text = tu_cap_stop(&fx->base.cap);
    assert_null(strstr(text, "[W::"));
    assert_null(strstr(text, "[E::"));
    char buf[8];
    assert_string_equal(row_str(p, 0, buf), "01201");
    es_fileset_close(p);
}

/* CRLF line ends, a missing contig header line (htslib warns, we read on),
 * GT not the first FORMAT key, multi-digit DP. */
static void test_text_variants(void **state)
{
    fx_t *fx = *state;
    assert_int_equal(tu_write_text(fx->vcf,
                                   "##fileformat=VCFv4.2\r\n" HDR_COLS "\tA\tB\tC\r\n"
                                   "chrU\t5\t.\tA\tC\t.\t.\t.\tGT\t0/1\t1/1\t0/0\r\n"
                                   "chrU\t6\tq\tA\tC\t.\t.\t.\tDP:GT\t12:0/1\t:1|1\t7\r\n"),
                     0);
    es_fileset_t *p = open_ok(fx->vcf, NULL, 0, 0, NULL);
    char buf[8];
    assert_int_equal(p->n_variants, 2);
    assert_string_equal(row_str(p, 0, buf), "120");
    assert_string_equal(row_str(p, 1, buf), "12."); /* "7": GT dropped -> missing */
    assert_string_equal(p->chr[0], "chrU");
    assert_string_equal(p->id[0], "chrU:5:A:C");
    assert_string_equal(p->a2[1], "A");
    assert_string_equal(p->iid[2], "C"); /* no CR in the last sample name */
    es_fileset_close(p);
}

/* Random genotypes in every spelling, for many N mod 4 and more variants
 * than the first row allocation holds; text, vcf.gz and BCF agree with the
 * truth and with each other. */
static void test_random_roundtrip(void **state)
{
    fx_t *fx = *state;
    static const uint32_t ns[] = {1, 2, 3, 4, 7, 37, 64, 129};
    uint64_t seed = 42;
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        uint32_t n = ns[k], m = k == 5 ? 2500 : 50 + (uint32_t)k;
        uint8_t *g = malloc((size_t)m * n);
        size_t cap = (size_t)m * (60 + 8 * (size_t)n) + 4096, len = 0;
        char *text = malloc(cap);
        assert_non_null(g);
        assert_non_null(text);
        len += (size_t)snprintf(text + len, cap - len, HDR_META HDR_COLS);
        for (uint32_t s = 0; s < n; s++)
            len += (size_t)snprintf(text + len, cap - len, "\ts%u", s);
        text[len++] = '\n';
        static const char *const spell[4][4] = {{"0/0", "0|0", "0/0", "0|0"},
                                                {"0/1", "1/0", "0|1", "1|0"},
                                                {"1/1", "1|1", "1/1", "1|1"},
                                                {"./.", ".|.", ".", "./."}};
        for (uint32_t v = 0; v < m; v++) {
            int with_dp = tu_randn(&seed, 3) == 0;
            len += (size_t)snprintf(text + len, cap - len, "%u\t%u\tv%u\tA\tT\t.\t.\t.\t%s",
                                    1 + v % 2, 10 + v, v, with_dp ? "GT:DP" : "GT");
            for (uint32_t s = 0; s < n; s++) {
                uint8_t x = tu_randn(&seed, 10) == 0 ? 3 : (uint8_t)tu_randn(&seed, 3);
                g[(size_t)v * n + s] = x;
                len += (size_t)snprintf(text + len, cap - len, "\t%s%s",
                                        spell[x][tu_randn(&seed, 4)], with_dp ? ":17" : "");
            }
            text[len++] = '\n';
        }
        text[len] = '\0';
        /* position order: contig 1 records first, then contig 2, as an index wants */
        write_all_forms(fx, text);
        const char *paths[] = {fx->vcf, fx->vcfgz, fx->bcf};
        es_fileset_t *first = NULL;
        for (int f = 0; f < 3; f++) {
            es_fileset_t *p = open_ok(paths[f], NULL, 0, f, NULL);
            assert_int_equal(p->n_variants, m);
            assert_int_equal(p->n_samples, n);
            for (uint32_t v = 0; v < m; v++)
                for (uint32_t s = 0; s < n; s++)
                    assert_int_equal(geno_char(p, v, s), "012."[g[(size_t)v * n + s]]);
            if (first) {
                assert_same_fileset(first, p);
                es_fileset_close(p);
            } else {
                first = p;
            }
        }
        es_fileset_close(first);
        free(text);
        free(g);
    }
}

/* ---- regions --------------------------------------------------------------- */

static const char region_vcf[] =
    HDR5 "1\t100\ta\tA\tG\t.\t.\t.\tGT\t0/0\t0/1\t1/1\t0/0\t0/0\n"
         "1\t200\tb\tA\tG\t.\t.\t.\tGT\t0/1\t0/1\t1/1\t0/0\t0/0\n"
         /* a deletion spanning 295..305: overlaps both 1:290-296 and 1:304-310 */
         "1\t295\tdel\tACCCCCCCCCC\tA\t.\t.\t.\tGT\t1/1\t0/1\t1/1\t0/0\t0/0\n"
         "1\t300\tc\tA\tG\t.\t.\t.\tGT\t1/1\t0/1\t1/1\t0/0\t0/0\n"
         "1\t400\td\tA\tG\t.\t.\t.\tGT\t0/0\t0/0\t1/1\t0/0\t0/0\n"
         "2\t100\te\tA\tG\t.\t.\t.\tGT\t0/0\t0/0\t0/0\t0/0\t1/1\n"
         "2\t500\tf\tA\tG\t.\t.\t.\tGT\t0/0\t0/0\t0/0\t0/1\t1/1\n";

static void ids_are(const es_fileset_t *p, const char *want)
{
    char got[256] = "";
    for (uint32_t v = 0; v < p->n_variants; v++) {
        strcat(got, p->id[v]);
        strcat(got, " ");
    }
    assert_string_equal(got, want);
}

static void test_regions(void **state)
{
    fx_t *fx = *state;
    write_all_forms(fx, region_vcf);
    /* tabix and CSI for the vcf.gz, CSI for the BCF */
    assert_int_equal(tbx_index_build(fx->vcfgz, 0, &tbx_conf_vcf), 0);
    assert_int_equal(bcf_index_build(fx->bcf, 14), 0);
    const char *paths[] = {fx->vcfgz, fx->bcf};
    for (int k = 0; k < 2; k++) {
        /* out of order, overlapping, a deletion spanning two regions, a whole contig */
        const char *r1[] = {"2", "1:150-250", "1:200-200", "1:290-296", "1:304-310"};
        es_fileset_t *p = open_ok(paths[k], r1, 5, 2, NULL);
        ids_are(p, "b del e f ");
        es_fileset_close(p);
        /* CHR:POS form, and a region beyond every record of its contig */
        const char *r2[] = {"1:400", "2:600-900"};
        es_vcf_stats_t st;
        p = open_ok(paths[k], r2, 2, 0, &st);
        ids_are(p, "d ");
        assert_int_equal(st.records, 1);
        es_fileset_close(p);
        /* an unknown contig is a warning; with nothing left it is no data */
        const char *r3[] = {"chr7:1-100"};
        expect_vcf_fail(fx, paths[k], r3, 1, ES_ERR_DATA, "no variant records in the regions", END);
        assert_non_null(strstr(fx->base.cap.text, "'chr7:1-100': contig not in the index"));
        /* malformed regions */
        static const char *const bad[] = {"1:abc", "1:0-5", "1:9-3", "1:5-x", ":5-9", "1:-5"};
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            const char *r4[] = {bad[b]};
            expect_vcf_fail(fx, paths[k], r4, 1, ES_ERR_ARG, paths[k], "bad region", bad[b], END);
        }
    }
    /* the CSI index of a vcf.gz works too */
    assert_int_equal(bcf_index_build(fx->vcfgz, 14), 0);
    char tbi[4300];
    snprintf(tbi, sizeof tbi, "%s.tbi", fx->vcfgz);
    assert_int_equal(unlink(tbi), 0);
    const char *r5[] = {"1:100-200"};
    es_fileset_t *p = open_ok(fx->vcfgz, r5, 1, 0, NULL);
    ids_are(p, "a b ");
    es_fileset_close(p);
}

static void test_regions_without_index(void **state)
{
    fx_t *fx = *state;
    write_all_forms(fx, region_vcf);
    const char *r[] = {"1:100-200"};
    expect_vcf_fail(fx, fx->vcfgz, r, 1, ES_ERR_ARG, fx->vcfgz, "--region needs an index",
                    "bcftools index", END);
    expect_vcf_fail(fx, fx->bcf, r, 1, ES_ERR_ARG, fx->bcf, "--region needs an index", END);
    expect_vcf_fail(fx, fx->vcf, r, 1, ES_ERR_ARG, fx->vcf, "--region needs an index", "bgzip",
                    END);
}

/* ---- malformed input ------------------------------------------------------- */

static void test_malformed_records(void **state)
{
    fx_t *fx = *state;
    static const struct {
        const char *record, *msg;
    } cases[] = {
        {"1\tabc\t.\tA\tG\t.\t.\t.\tGT\t0/0\t0/0\t0/0\t0/0\t0/0\n", "POS (column 2) 'abc'"},
        {"1\t-5\t.\tA\tG\t.\t.\t.\tGT\t0/0\t0/0\t0/0\t0/0\t0/0\n", "POS (column 2) '-5'"},
        {"1\t50\t.\tA\tG\t.\t.\t.\tGT\t0/0\t0/0\t0/0\t0/0\n",
         "expected 14 columns (9 + 5 samples) but found 13"},
        {"1\t50\t.\tA\tG\t.\t.\t.\tGT\t0/0\t0/0\t0/0\t0/0\t0/0\t0/1\n",
         "expected 14 columns (9 + 5 samples) but found 15"},
        {"1\t50\t.\tA\tG\t.\t.\t.\n", "expected 14 columns (9 + 5 samples) but found 8"},
        {"1\t50\t.\tA\tG\t.\t.\t.\tGT\t0/0\t0/x\t0/0\t0/0\t0/0\n",
         "sample S2 (column 11): GT '0/x' is not a genotype"},
        {"1\t50\t.\tA\tG\t.\t.\t.\tGT\t0/0\t0/0\t0/2\t0/0\t0/0\n",
         "sample S3 (column 12): GT '0/2' has allele 2 but the site has 2 alleles"},
        {"1\t50\t.\tA\t.\t.\t.\t.\tGT\t0/0\t0/0\t0/0\t0/1\t0/0\n", "GT '0/1' has allele 1"},
        {"1\t50\t.\tA\tG\t.\t.\t.\tGT\t0/0\t\t0/0\t0/0\t0/0\n", "sample S2 (column 11): GT ''"},
        {"1\t50\t.\tA\tG\t.\t.\t.\tGT\t0/0\t0/0\t0/1x\t0/0\t0/0\n", "GT '0/1x'"},
        {"1\t50\t.\tA\tG\t.\t.\t.\tGT:DP\t0/0:1\t0/0:1\t0/0:1\t0/0:1\n",
         "expected 14 columns (9 + 5 samples) but found 13"},
        /* skipped records still have their columns counted */
        {"1\t50\t.\tA\tG,T\t.\t.\t.\tGT\t0/0\t0/0\t0/0\t0/0\n", "but found 13"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[2048];
        /* two good records first: the bad one is record 3 on line 9 */
        snprintf(text, sizeof text, "%s%s%s%s", HDR5,
                 "1\t10\t.\tA\tG\t.\t.\t.\tGT\t0/0\t0/0\t0/0\t0/0\t0/0\n",
                 "1\t20\t.\tA\tG\t.\t.\t.\tGT\t0/0\t0/0\t0/0\t0/0\t0/0\n", cases[k].record);
        assert_int_equal(tu_write_text(fx->vcf, text), 0);
        char loc[64];
        const char *tab = strchr(cases[k].record, '\t');
        snprintf(loc, sizeof loc, "line 9 (record 3, 1:%.*s)",
                 (int)(strchr(tab + 1, '\t') - tab - 1), tab + 1);
        expect_vcf_fail(fx, fx->vcf, NULL, 0, ES_ERR_FORMAT, fx->vcf, loc, cases[k].msg, END);
    }
}

/* A BCF allele index out of range (htslib writes what it is given). */
static void test_malformed_bcf(void **state)
{
    fx_t *fx = *state;
    write_all_forms(fx, HDR5 "1\t10\t.\tA\tG\t.\t.\t.\tGT\t0/0\t0/0\t0/0\t0/0\t0/0\n"
                             "1\t20\t.\tA\tG\t.\t.\t.\tGT\t0/0\t0/0\t0/0\t0/0\t0/0\n");
    /* rewrite record 2 with an allele 3 at sample S4 */
    htsFile *in = hts_open(fx->bcf, "r"), *out = NULL;
    char bad[4300];
    snprintf(bad, sizeof bad, "%s/bad.bcf", fx->base.dir);
    out = hts_open(bad, "wb");
    assert_non_null(in);
    assert_non_null(out);
    bcf_hdr_t *h = bcf_hdr_read(in);
    assert_int_equal(bcf_hdr_write(out, h), 0);
    bcf1_t *rec = bcf_init();
    for (int k = 0; bcf_read(in, h, rec) == 0; k++) {
        if (k == 1) {
            int32_t gt[10];
            for (int s = 0; s < 10; s++)
                gt[s] = bcf_gt_unphased(0);
            gt[7] = bcf_gt_unphased(3);
            assert_int_equal(bcf_update_genotypes(h, rec, gt, 10), 0);
        }
        assert_int_equal(bcf_write(out, h, rec), 0);
    }
    bcf_destroy(rec);
    bcf_hdr_destroy(h);
    hts_close(in);
    hts_close(out);
    expect_vcf_fail(fx, bad, NULL, 0, ES_ERR_FORMAT, bad, "record 2 (1:20)", "sample S4",
                    "allele value 8", END);
}

static void test_bad_files(void **state)
{
    fx_t *fx = *state;
    char path[4300];
    snprintf(path, sizeof path, "%s/none.vcf", fx->base.dir);
    expect_vcf_fail(fx, path, NULL, 0, ES_ERR_IO, path, "cannot open", END);
    /* no samples */
    assert_int_equal(tu_write_text(fx->vcf, HDR_META "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\t"
                                                     "INFO\n1\t5\t.\tA\tC\t.\t.\t.\n"),
                     0);
    expect_vcf_fail(fx, fx->vcf, NULL, 0, ES_ERR_DATA, fx->vcf, "no samples", END);
    /* header only */
    assert_int_equal(tu_write_text(fx->vcf, HDR5), 0);
    expect_vcf_fail(fx, fx->vcf, NULL, 0, ES_ERR_DATA, fx->vcf, "no variant records", END);
    /* nothing usable */
    assert_int_equal(tu_write_text(fx->vcf, HDR5 "1\t5\t.\tA\tC,G\t.\t.\t.\tGT\t0/1\t0/0\t0/0\t"
                                                 "0/0\t0/0\n1\t6\t.\tA\tC\t.\t.\t.\tDP\t1\t1\t1\t"
                                                 "1\t1\n"),
                     0);
    expect_vcf_fail(fx, fx->vcf, NULL, 0, ES_ERR_DATA, fx->vcf,
                    "none of the 2 records is a biallelic site with diploid GT calls",
                    "1 with more than two alleles, 1 without GT", END);
    /* not a VCF: text without a header, and a PLINK .bed */
    assert_int_equal(tu_write_text(fx->vcf, "hello\tworld\n"), 0);
    expect_vcf_fail(fx, fx->vcf, NULL, 0, ES_ERR_FORMAT, fx->vcf, END);
    snprintf(path, sizeof path, "%s/x.bed", fx->base.dir);
    assert_int_equal(tu_write_bytes(path, "\x6c\x1b\x01\x00", 4), 0);
    expect_vcf_fail(fx, path, NULL, 0, ES_ERR_FORMAT, path, "not a VCF or BCF", END);
    /* truncated bgzip data */
    write_all_forms(fx, region_vcf);
    struct stat st;
    assert_int_equal(stat(fx->vcfgz, &st), 0);
    assert_int_equal(truncate(fx->vcfgz, st.st_size - 40), 0);
    es_fileset_t *p = (es_fileset_t *)0x1;
    tu_cap_start(&fx->base.cap);
    int rc = es_vcf_open(&p, fx->vcfgz, NULL, 0, 0, ES_VCF_MULTIALLELIC_SPLIT, NULL);
    tu_cap_stop(&fx->base.cap);
    assert_true(rc == ES_ERR_FORMAT); /* the header or a record is cut short */
    assert_null(p);
    /* bad arguments */
    expect_vcf_fail(fx, "", NULL, 0, ES_ERR_ARG, "no VCF/BCF path", END);
    expect_vcf_fail(fx, fx->vcf, NULL, 1, ES_ERR_ARG, END);
}

/* ---- es_plink_write --------------------------------------------------------- */

/* A .bed written from a VCF reads back with the PLINK reader as the same rows. */
static void test_write_from_vcf(void **state)
{
    fx_t *fx = *state;
    assert_int_equal(tu_write_text(fx->vcf, calls_vcf), 0);
    es_input_opt_t opt;
    es_input_opt_init(&opt);
    assert_int_equal(opt.vcf_multiallelic, ES_VCF_MULTIALLELIC_SPLIT); /* the default */
    opt.vcf = fx->vcf;
    opt.require_pheno = 0;
    opt.vcf_multiallelic = ES_VCF_MULTIALLELIC_SKIP; /* the rows of calls_vcf as skipped */
    es_dataset_t *ds = NULL;
    tu_cap_start(&fx->base.cap);
    assert_int_equal(es_dataset_open(&ds, &opt), ES_OK);
    tu_cap_stop(&fx->base.cap);
    assert_int_equal(es_dataset_write_plink(ds, fx->out), ES_OK);
    es_fileset_t *p = NULL;
    assert_int_equal(es_plink_open(&p, fx->out), ES_OK);
    assert_int_equal(p->n_variants, 6);
    char buf[8];
    for (uint32_t v = 0; v < 6; v++) {
        assert_string_equal(row_str(p, v, buf), calls_rows[v]);
        assert_string_equal(p->id[v], ds->plink->id[v]);
        assert_int_equal(p->pos[v], ds->plink->pos[v]);
    }
    assert_string_equal(p->a1[3], "0"); /* VCF's missing ALT is PLINK's "0" */
    assert_string_equal(p->a1[0], "G");
    assert_string_equal(p->a2[0], "A");
    assert_string_equal(p->fid[4], "S5");
    assert_int_equal(p->fam_pheno[4], -1);
    es_fileset_close(p);
    /* no temporary file is left */
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.bed.tmp", fx->out);
    assert_int_equal(access(tmp, F_OK), -1);
    es_dataset_destroy(ds);
}

/* From a fileset with --remove and --extract: removed samples are squeezed
 * out of each row (every N mod 4), parents/sex and phenotype kept. */
static void test_write_selection(void **state)
{
    fx_t *fx = *state;
    char prefix[3000]; /* tu_write_bfile appends the extensions in 4,096 bytes */
    snprintf(prefix, sizeof prefix, "%s/src", fx->base.dir);
    uint32_t m = 9, n = 11;
    uint8_t g[99];
    int ph[11];
    uint64_t seed = 5;
    for (size_t i = 0; i < sizeof g; i++)
        g[i] = (uint8_t)tu_randn(&seed, 4);
    for (uint32_t s = 0; s < n; s++)
        ph[s] = s % 3 == 0 ? -9 : 1 + (int)(s & 1);
    assert_int_equal(tu_write_bfile(prefix, g, m, n, ph), 0);
    for (uint32_t drop = 0; drop < 4; drop++) {
        /* remove samples 0..drop-1 and sample 5; keep variants rs2, rs5, rs9 */
        FILE *f = fopen(fx->tmp, "w");
        assert_non_null(f);
        for (uint32_t s = 0; s < drop; s++)
            fprintf(f, "FAM%u IND%u\n", s, s);
        fprintf(f, "FAM5 IND5\n");
        fclose(f);
        char ext[4300];
        snprintf(ext, sizeof ext, "%s/extract.txt", fx->base.dir);
        assert_int_equal(tu_write_text(ext, "rs2\nrs5\nrs9\n"), 0);
        es_input_opt_t opt;
        es_input_opt_init(&opt);
        opt.bfile = prefix;
        opt.remove = fx->tmp;
        opt.extract = ext;
        opt.require_pheno = 0;
        es_dataset_t *ds = NULL;
        tu_cap_start(&fx->base.cap);
        assert_int_equal(es_dataset_open(&ds, &opt), ES_OK);
        tu_cap_stop(&fx->base.cap);
        assert_int_equal(es_dataset_write_plink(ds, fx->out), ES_OK);
        es_dataset_destroy(ds);
        es_fileset_t *p = NULL;
        assert_int_equal(es_plink_open(&p, fx->out), ES_OK);
        assert_int_equal(p->n_variants, 3);
        assert_int_equal(p->n_samples, n - drop - 1);
        static const uint32_t vsrc[3] = {1, 4, 8};
        for (uint32_t v = 0; v < 3; v++) {
            uint32_t k = 0;
            for (uint32_t s = 0; s < n; s++) {
                if (s < drop || s == 5) continue;
                assert_int_equal(geno_char(p, v, k), "012."[g[vsrc[v] * n + s]]);
                k++;
            }
            char buf[16];
            row_str(p, v, buf); /* pad bits zero */
        }
        uint32_t k = 0;
        for (uint32_t s = 0; s < n; s++) {
            if (s < drop || s == 5) continue;
            char iid[16];
            snprintf(iid, sizeof iid, "IND%u", s);
            assert_string_equal(p->iid[k], iid);
            /* column 6 from the status: -9 -> -1, 1 control -> 0, 2 case -> 1 */
            assert_int_equal(p->fam_pheno[k], ph[s] == -9 ? -1 : ph[s] - 1);
            k++;
        }
        es_fileset_close(p);
    }
    /* parents and sex fields survive: tu_write_bfile writes sex 1 + (s & 1) */
    char fam[4300], line[256];
    snprintf(fam, sizeof fam, "%s.fam", fx->out);
    FILE *f = fopen(fam, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "FAM3 IND3 0 0 2 -9\n");
    fclose(f);
}

/* Names PLINK cannot hold are refused before anything is written. */
static void test_write_refuses_blanks(void **state)
{
    fx_t *fx = *state;
    assert_int_equal(tu_write_text(fx->vcf, HDR_META HDR_COLS "\tS 1\tS2\n"
                                                              "1\t10\t.\tA\tG\t.\t.\t.\tGT\t0/0\t"
                                                              "0/1\n"),
                     0);
    es_input_opt_t opt;
    es_input_opt_init(&opt);
    opt.vcf = fx->vcf;
    opt.require_pheno = 0;
    es_dataset_t *ds = NULL;
    assert_int_equal(es_dataset_open(&ds, &opt), ES_OK);
    tu_cap_start(&fx->base.cap);
    int rc = es_dataset_write_plink(ds, fx->out);
    const char *text = tu_cap_stop(&fx->base.cap);
    assert_int_equal(rc, ES_ERR_FORMAT);
    assert_non_null(strstr(text, "'S 1'"));
    assert_non_null(strstr(text, "contains a blank"));
    es_dataset_destroy(ds);
    static const char *const exts[] = {".bed", ".bim", ".fam", ".bed.tmp", ".bim.tmp", ".fam.tmp"};
    for (size_t k = 0; k < 6; k++) {
        char path[4300];
        snprintf(path, sizeof path, "%s%s", fx->out, exts[k]);
        assert_int_equal(access(path, F_OK), -1);
    }
    /* an unwritable destination is an I/O error naming the file */
    char nodir[4300];
    snprintf(nodir, sizeof nodir, "%s/no/such/dir/x", fx->base.dir);
    assert_int_equal(tu_write_text(fx->vcf, calls_vcf), 0);
    tu_cap_start(&fx->base.cap);
    assert_int_equal(es_dataset_open(&ds, &opt), ES_OK);
    rc = es_dataset_write_plink(ds, nodir);
    text = tu_cap_stop(&fx->base.cap);
    assert_int_equal(rc, ES_ERR_IO);
    assert_non_null(strstr(text, "cannot create"));
    assert_non_null(strstr(text, nodir));
    es_dataset_destroy(ds);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_calls_all_forms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clean_file_is_quiet, setup, teardown),
        cmocka_unit_test_setup_teardown(test_split_multiallelic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_variants, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_regions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_regions_without_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_records, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_bcf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_from_vcf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_selection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_refuses_blanks, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
