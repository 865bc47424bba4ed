/* test_fmt.c -- the writers' number formatting (src/util/fmt.c) against the C
 * library's printf, byte for byte: random doubles over the whole exponent
 * range and at every width and precision the writers use (%.12g, %.10g,
 * %12.6g, %12.4g, %.4g), values of the kind the writers print (p-values,
 * statistics, ratios of counts), exact decimal ties, values on both sides of
 * every rounding carry (9.9999995, 99999.95, 0.000099999995, ...), powers of
 * ten, subnormals, signed zeros, nan and inf; integers at their limits; and
 * the write buffer's flushing and growth. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util.h"

/* the (width, precision) pairs the writers use; width 0: none */
static const int formats[][2] = {{0, 12}, {0, 10}, {12, 6}, {12, 4}, {0, 4}, {0, 6}, {0, 1},
                                 {0, 17}, {0, 15}, {8, 3}};
#define N_FORMATS (sizeof formats / sizeof *formats)

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
    /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static long mismatches;

static void check_one(double x, int w, int p)
{
    char want[512], got[512];
    if (w) snprintf(want, sizeof want, "%*.*g", w, p, x);
    else snprintf(want, sizeof want, "%.*g", p, x);
    char *e = w ? es_fmt_g_w(got, x, w, p) : es_fmt_g(got, x, p);
    *e = '\0';
    if (strcmp(want, got) != 0) {
        if (mismatches++ < 20)
            print_error("x = %a (%.17g), %%%d.%dg: printf '%s', es_fmt '%s'\n", x, x, w, p, want,
                        got);
    }
}

static void check_all(double x)
{
    for (size_t f = 0; f < N_FORMATS; f++) check_one(x, formats[f][0], formats[f][1]);
}

static void test_special(void **state)
{
    (void)state;
    mismatches = 0;
    const double v[] = {0.0, -0.0, NAN, -NAN, INFINITY, -INFINITY, 1.0, -1.0, 0.5, 1e-4,
                        9.99999e-5, 1e-5, 1e15, 1e16, 1e17, 1e21, 1e22, 1e23, DBL_MAX, -DBL_MAX,
                        DBL_MIN, DBL_TRUE_MIN, 5e-324, 2.2250738585072009e-308, 1e-300, 1e300,
                        0.1, 0.2, 0.3, 123456789012.5, 1234567890123.0, 0.000123456789012345};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++) check_all(v[k]);
    /* powers of ten and their neighbours */
    for (int e = -323; e <= 308; e++) {
        double x = pow(10.0, e);
        check_all(x);
        check_all(nextafter(x, 0.0));
        check_all(nextafter(x, INFINITY));
        check_all(-x);
    }
    assert_int_equal(mismatches, 0);
}

/* values whose rounding carries into a new digit, at every precision used,
 * and decimal ties (k + 0.5) * 10^e that are exact in binary */
static void test_carries_and_ties(void **state)
{
    (void)state;
    mismatches = 0;
    for (int p = 1; p <= 17; p++) {
        for (int e = -30; e <= 30; e++) {
            /* 0.999...95 x 10^e with p nines */
            double nines = 1.0 - 0.5 * pow(10.0, -p);
            double x = nines * pow(10.0, e);
            for (int d = -3; d <= 3; d++) {
                double y = x;
                for (int s = 0; s < (d < 0 ? -d : d); s++) y = nextafter(y, d < 0 ? 0.0 : INFINITY);
                check_all(y);
            }
        }
    }
    for (int k = 0; k < 50000; k++) {
        /* (m + 0.5) / 2^s: exact binary, often exact decimal ties */
        double m = (double)(rng() % 100000000ull);
        int s = (int)(rng() % 20);
        check_all(ldexp(m + 0.5, -s));
        check_all((double)(rng() % 1000000ull) + 0.5);
        check_all(((double)(rng() % 100000ull) + 0.5) / 100.0);
    }
    assert_int_equal(mismatches, 0);
}

/* random bit patterns: every exponent, every significand */
static void test_random_bits(void **state)
{
    (void)state;
    mismatches = 0;
    for (long k = 0; k < 100000; k++) {
        uint64_t b = rng();
        double x;
        memcpy(&x, &b, sizeof x);
        check_all(x);
    }
    assert_int_equal(mismatches, 0);
}

/* what the writers print: chi-square statistics, p-values down to 1e-300,
 * -log10 p, proportions of counts */
static void test_writer_values(void **state)
{
    (void)state;
    mismatches = 0;
    for (long k = 0; k < 150000; k++) {
        double u = (double)(rng() >> 11) / 9007199254740992.0;
        double stat = -log(u + 1e-300) * 10.0;
        check_all(stat);
        check_all(exp(-stat * 7.0));
        check_all(pow(10.0, -300.0 * u));
        uint32_t a = (uint32_t)(rng() % 5000), b = 1 + (uint32_t)(rng() % 5000);
        check_all((double)a / (double)b);
    }
    assert_int_equal(mismatches, 0);
}

static void test_integers(void **state)
{
    (void)state;
    const uint64_t u[] = {0, 1, 9, 10, 99, 100, 4294967295u, 4294967296ull, UINT64_MAX};
    const int64_t s[] = {0, -1, 1, INT64_MIN, INT64_MAX, -1234567890123ll};
    char want[64], got[64];
    for (size_t k = 0; k < sizeof u / sizeof *u; k++) {
        snprintf(want, sizeof want, "%" PRIu64, u[k]);
        *es_fmt_u64(got, u[k]) = '\0';
        assert_string_equal(got, want);
    }
    for (size_t k = 0; k < sizeof s / sizeof *s; k++) {
        snprintf(want, sizeof want, "%" PRId64, s[k]);
        *es_fmt_i64(got, s[k]) = '\0';
        assert_string_equal(got, want);
    }
    for (long k = 0; k < 100000; k++) {
        uint64_t v = rng() >> (rng() % 64);
        snprintf(want, sizeof want, "%" PRIu64, v);
        *es_fmt_u64(got, v) = '\0';
        assert_string_equal(got, want);
    }
    const char *str[] = {"", "a", "snp1", "rs123456789", "a_long_identifier_beyond_width"};
    for (size_t k = 0; k < sizeof str / sizeof *str; k++) {
        for (int w = 0; w < 14; w++) {
            snprintf(want, sizeof want, "%*s", w, str[k]);
            *es_fmt_str_w(got, str[k], w) = '\0';
            assert_string_equal(got, want);
        }
    }
}

/* the buffer writes everything, in order, through flushes and growth */
static void test_wbuf(void **state)
{
    (void)state;
    char *mem = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&mem, &len);
    assert_non_null(fp);
    es_wbuf_t b;
    assert_int_equal(es_wbuf_init(&b, fp, 0), ES_OK);
    size_t want_len = 0;
    for (int k = 0; k < 5000; k++) {
        size_t n = (size_t)(k % 7 == 0 ? 6000 : 1 + k % 50); /* some longer than the buffer */
        char *p = es_wbuf_reserve(&b, n);
        assert_non_null(p);
        memset(p, 'a' + k % 26, n);
        b.n += n;
        want_len += n;
    }
    assert_int_equal(es_wbuf_flush(&b), ES_OK);
    es_wbuf_free(&b);
    fclose(fp);
    assert_int_equal(len, want_len);
    size_t off = 0;
    for (int k = 0; k < 5000; k++) {
        size_t n = (size_t)(k % 7 == 0 ? 6000 : 1 + k % 50);
        for (size_t i = 0; i < n; i++) assert_int_equal(mem[off + i], 'a' + k % 26);
        off += n;
    }
    free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_special),     cmocka_unit_test(test_carries_and_ties),
        cmocka_unit_test(test_random_bits), cmocka_unit_test(test_writer_values),
        cmocka_unit_test(test_integers),    cmocka_unit_test(test_wbuf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
