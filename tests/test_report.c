/* test_report.c -- the report's numbers and escaping (src/report/qq.c,
 * html.c): the QQ band against scipy.stats.beta.ppf (values printed by scipy
 * 1.x, -log10 of the 97.5 % and 2.5 % quantiles of Beta(i, m - i + 1)), lambda
 * against scipy.stats.chi2.isf, and the escaping of hostile IDs for HTML and
 * inline SVG, and PLINK's epistasis files as read_plink.c reads them (values
 * against scipy.stats.chi2) (built with or without cairo: none of this draws). */
#define _POSIX_C_SOURCE 200809L
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

#include "report_internal.h"

static void test_band(void **state)
{
    (void)state;
    /* i, m, lo (from the 97.5 % quantile), hi (2.5 %), relative tolerance */
    static const double c[][5] = {
        {1, 100, 1.4410912125402646, 3.596628874003054, 1e-9},
        {5, 100, 1.0032381696151036, 1.7843127669527952, 1e-9},
        {50, 100, 0.22770494536470628, 0.3997666552193528, 1e-9},
        {1, 2e5, 4.734139537304642, 6.897603921393901, 1e-5},    /* Gamma limit */
        {10, 1e6, 4.767391768682552, 5.3191752717703995, 1e-5},  /* Gamma limit */
        {5000, 1e6, 2.289106718969889, 2.3131232535487856, 1e-3} /* normal limit */
    };
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        double lo, hi;
        es_rp_qq_band(c[k][0], c[k][1], &lo, &hi);
        if (fabs(lo - c[k][2]) > c[k][4] * c[k][2] || fabs(hi - c[k][3]) > c[k][4] * c[k][3])
            fail_msg("band of %g of %g: %.12g %.12g, scipy %.12g %.12g", c[k][0], c[k][1], lo, hi,
                     c[k][2], c[k][3]);
    }
}

static void test_lambda(void **state)
{
    (void)state;
    enum { M = 1001 };
    double *p = malloc(M * sizeof *p), l;
    assert_non_null(p);
    /* uniform p-values: median 0.5, lambda 1 */
    for (int i = 0; i < M; i++) p[i] = (i + 0.5) / M;
    assert_int_equal(es_rp_lambda(p, M, M, &l), 1);
    assert_true(fabs(l - 1) < 1e-9);
    /* the median at 0.01: chi2.isf(0.01, 1) / chi2.isf(0.5, 1) = 14.584228177477332 */
    for (int i = 0; i < M; i++) p[i] = i < M / 2 ? 1e-3 : i == M / 2 ? 0.01 : 0.5;
    assert_int_equal(es_rp_lambda(p, M / 2 + 1, M, &l), 1);
    assert_true(fabs(l - 14.584228177477332) < 1e-7);
    /* an even count: the mean of the two middle ones */
    p[499] = 0.01;
    p[500] = 0.01;
    assert_int_equal(es_rp_lambda(p, 501, 1000, &l), 1);
    assert_true(fabs(l - 14.584228177477332) < 1e-7);
    /* fewer than half the tests listed: no median, no lambda */
    assert_int_equal(es_rp_lambda(p, M / 2, M, &l), 0);
    assert_int_equal(es_rp_lambda(p, 10, 0, &l), 0);
    free(p);
}

/* what f wrote into a memory stream */
static char *capture(void (*f)(FILE *, const void *), const void *arg)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    assert_non_null(fp);
    f(fp, arg);
    fclose(fp);
    return buf;
}

static void put_escaped(FILE *fp, const void *s) { es_rp_html_escape(fp, s); }

static void test_escape(void **state)
{
    (void)state;
    static const char *const in[][2] = {
        {"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
        {"a\"b'c&d", "a&quot;b&#39;c&amp;d"},
        {"rs\xff\xfe" "1", "rs\xef\xbf\xbd\xef\xbf\xbd" "1"},               /* not UTF-8 */
        {"\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9"},                          /* UTF-8 kept */
        {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},                            /* overlong '/' */
        {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},            /* a surrogate */
        {"\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd"},                            /* cut short */
        {"a\x01" "b\x7f", "a\xef\xbf\xbd" "b\xef\xbf\xbd"},                  /* controls */
        {"tab\there", "tab\there"},
    };
    for (size_t k = 0; k < sizeof in / sizeof *in; k++) {
        char *out = capture(put_escaped, in[k][0]);
        assert_string_equal(out, in[k][1]);
        free(out);
    }
}

static const char svg[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
    "width=\"10pt\">\n<defs><g id=\"glyph0-1\"/><clipPath id=\"clip1\"/></defs>"
    "<use xlink:href=\"#glyph0-1\" x=\"1\"/><g clip-path=\"url(#clip1)\"></g>\n</svg>\n";

static void put_inline(FILE *fp, const void *arg)
{
    (void)arg;
    es_rp_svg_put(fp, svg, sizeof svg - 1, "qq-", "QQ <plot>", "p & \"q\"");
}

static void put_file(FILE *fp, const void *arg)
{
    (void)arg;
    es_rp_svg_put(fp, svg, sizeof svg - 1, NULL, "t", "d");
}

static void test_svg(void **state)
{
    (void)state;
    char *out = capture(put_inline, NULL);
    assert_null(strstr(out, "<?xml"));
    assert_non_null(strstr(out, "<title>QQ &lt;plot&gt;</title>"));
    assert_non_null(strstr(out, "<desc>p &amp; &quot;q&quot;</desc>"));
    assert_non_null(strstr(out, "id=\"qq-glyph0-1\""));
    assert_non_null(strstr(out, "id=\"qq-clip1\""));
    assert_non_null(strstr(out, "href=\"#qq-glyph0-1\""));
    assert_non_null(strstr(out, "url(#qq-clip1)"));
    assert_null(strstr(out, "\"glyph0-1\""));
    free(out);
    out = capture(put_file, NULL);
    assert_true(!strncmp(out, "<?xml", 5));
    assert_non_null(strstr(out, "id=\"glyph0-1\""));
    free(out);
}

/* ---- PLINK's files (read_plink.c): values against scipy.stats.chi2 ---------------- */

static void put(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* relative to a reference (absolute below 1) */
static int near(double x, double want, double tol)
{
    return fabs(x - want) <= tol * (fabs(want) > 1 ? fabs(want) : 1);
}

static const rp_var_t *var_named(const rp_data_t *d, const char *id)
{
    for (size_t v = 0; v < d->n_var; v++)
        if (!strcmp(d->var[v].id, id)) return &d->var[v];
    fail_msg("variant %s not read", id);
    return NULL;
}

static void test_plink(void **state)
{
    (void)state;
    char dir[] = "/tmp/es_test_report.XXXXXX", prefix[600], log[2048], bim[600];
    assert_non_null(mkdtemp(dir));
    /* X is 23 in PLINK's files; the .bim's relative path is found in PLINK's working directory */
    put(dir, "data.bim", "1\ta\t0\t100\tA\tG\n1\tb\t0\t200\tA\tG\nX\tc\t0\t300\tA\tG\n2\td\t0\t50\tA\tG\n");
    snprintf(log, sizeof log,
             "PLINK v1.90b6.26 64-bit (2 Apr 2022)\nOptions in effect:\n  --bfile data\n  --epi1 1e-3\n"
             "  --fast-epistasis boost\n  --out run\n\nWorking directory: %s\n"
             "6 valid tests performed, summary written to run.epi.cc.summary .\n", dir);
    put(dir, "run.log", log);
    put(dir, "run.epi.cc",
        "CHR1 SNP1 CHR2 SNP2         STAT   DF            P \n"
        "   1    a   23    c         2000    4            0 \n"
        "   1    b    2    d        19.14    4    0.0007452 \n"
        "   2    d   23    c         18.6    4      0.00101 \n"
        "   1    a    1    b          nan    0           NA \n");
    put(dir, "run.epi.cc.summary",
        " CHR SNP N_SIG N_TOT PROP BEST_CHISQ BEST_CHR BEST_SNP \n"
        "   1   a     1     2  0.5      25.37       23        c \n"
        "   1   b     0     3    0      19.14        2        d \n"
        "  23   c     0     3    0         NA       NA       NA \n"
        "   2   d     1     3 0.3333     1500        1        b \n");
    snprintf(prefix, sizeof prefix, "%s/run", dir);
    rp_data_t d;
    assert_int_equal(es_rp_read(&d, prefix, NULL), ES_OK);
    assert_int_equal(d.pk.test, RP_PK_BOOST);
    assert_int_equal(d.n_tests, 6);
    assert_true(d.list_thr == 1e-3);
    assert_int_equal(d.n_sig_lines, 4);
    assert_int_equal(d.n_sig, 4);
    assert_int_equal(d.n_qq_above, 1); /* 0.00101 > --epi1: BOOST's screen let it through */
    assert_int_equal(d.n_qq, 2);        /* and the failed test has no p */
    const rp_var_t *a = &d.var[d.sig[0].v[0]], *c = &d.var[d.sig[0].v[1]];
    assert_string_equal(a->id, "a");
    assert_int_equal(a->pos, 100);
    assert_string_equal(c->chr, "X");
    assert_int_equal(c->pos, 300);
    /* P printed as 0: from STAT, chi-square 4 df; -log10 sf(2000) = 1000 - ln 1001, / ln 10 */
    assert_true(near(d.sig[0].log10p, 431.29404782577245, 1e-9));
    assert_true(near(d.sig[1].log10p, -log10(0.0007452), 1e-12));
    assert_int_equal(d.sig[1].df, 4);
    assert_true(isnan(d.sig[3].log10p));
    /* the summary: -log10 chi2.sf(BEST_CHISQ, 4) (scipy; 1500 from the closed form) */
    assert_true(near(var_named(&d, "a")->best, 4.372780701196607, 1e-9));
    assert_true(near(var_named(&d, "b")->best, 3.132123204506694, 1e-9));
    assert_true(isnan(var_named(&d, "c")->best));
    assert_true(near(var_named(&d, "d")->best, 322.84522149043465, 1e-9));
    assert_int_equal(d.pk.tab.n_rows, 5); /* the header and the 4 lines, best P first */
    assert_string_equal(d.pk.tab.cell[9 + 1], "a");
    assert_string_equal(d.pk.tab.cell[9 + 8], "0");
    assert_string_equal(d.pk.tab.cell[4 * 9 + 8], "NA");
    es_rp_free(&d);

    /* --epistasis on a quantitative trait, no log: the .bim given; 1 df */
    put(dir, "qt.epi.qt",
        "CHR1 SNP1 CHR2 SNP2     BETA_INT         STAT            P \n"
        "   1    a    2    d    -0.449951      11.6905    0.0006283 \n");
    put(dir, "qt.epi.qt.summary",
        " CHR SNP N_SIG N_TOT PROP BEST_CHISQ BEST_CHR BEST_SNP \n"
        "   1   a     1     3 0.3333    11.69       2        d \n"
        "   2   d     0     3    0        9.1       1        a \n");
    snprintf(prefix, sizeof prefix, "%s/qt", dir);
    snprintf(bim, sizeof bim, "%s/data.bim", dir);
    assert_int_equal(es_rp_read(&d, prefix, NULL), ES_ERR_DATA); /* no log names a .bim */
    assert_int_equal(es_rp_read(&d, prefix, bim), ES_OK);
    assert_int_equal(d.pk.test, RP_PK_LINEAR);
    assert_true(d.sig[0].coef == -0.449951);
    assert_true(isnan(d.list_thr)); /* no log: every listed p is drawn */
    assert_int_equal(d.n_qq, 1);
    assert_true(near(var_named(&d, "a")->best, 3.2017852558352677, 1e-9));
    assert_true(near(var_named(&d, "d")->best, 2.5924230179916394, 1e-9));
    assert_string_equal(d.pk.tab.cell[6], "BETA_INT");
    assert_string_equal(d.pk.tab.cell[9 + 6], "-0.449951");
    es_rp_free(&d);

    /* an ID the .bim does not have */
    put(dir, "qt.epi.qt", "CHR1 SNP1 CHR2 SNP2 BETA_INT STAT P\n1 a 2 zz 0.1 1 0.3\n");
    assert_int_equal(es_rp_read(&d, prefix, bim), ES_ERR_FORMAT);
    static const char *const files[] = {"data.bim", "run.log", "run.epi.cc", "run.epi.cc.summary", "qt.epi.qt",
                                        "qt.epi.qt.summary"};
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
        snprintf(prefix, sizeof prefix, "%s/%s", dir, files[k]);
        remove(prefix);
    }
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_band),
        cmocka_unit_test(test_lambda),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_svg),
        cmocka_unit_test(test_plink),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
