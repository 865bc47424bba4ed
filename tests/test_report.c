/* test_report.c -- the report's numbers and escaping (src/report/qq.c,
 * html.c): the QQ band against scipy.stats.beta.ppf (values printed by scipy
 * 1.x, -log10 of the 97.5 % and 2.5 % quantiles of Beta(i, m - i + 1)), lambda
 * against scipy.stats.chi2.isf, and the escaping of hostile IDs for HTML and
 * inline SVG (built with or without cairo: none of this draws). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_band),
        cmocka_unit_test(test_lambda),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_svg),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
