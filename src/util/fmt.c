/* fmt.c -- number formatting without printf for the result writers, and the
 * buffer they format into.
 *
 * A scan that writes every pair writes millions of lines of six to eight
 * numbers each; printf's %g spends most of that time in its arbitrary-
 * precision digit generation.  es_fmt_g() produces the bytes of
 * printf("%.*g") (C99 7.19.6.1, glibc's spelling of nan and inf) from one
 * scaling in extended precision: the P significant digits are the integer
 * part of |x| * 10^(P-1-e), rounded by its fraction.  The scaling is exact
 * for |P-1-e| <= 27 (powers of ten up to 10^27 fit a 64-bit significand) and
 * otherwise carries a few roundings of 2^-64 relative each; its absolute
 * error on an integer part below 10^13 (precision up to 13) is below 1e-5,
 * so a fraction
 * further than that from one half rounds as printf would.  Fractions within
 * it (exact ties, which printf rounds to even, and near-ties) and platforms
 * without a 64-bit long double significand go to snprintf: the result is
 * always printf's.  Precisions up to 8 with a power of ten up to 10^22 scale
 * in double precision (one rounding, an error below 1e-7 on the integer
 * part).  tests/test_fmt.c compares the two on millions of
 * values. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- integers --------------------------------------------------------------- */

char *es_fmt_u64(char *dst, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n) *dst++ = tmp[--n];
    return dst;
}

char *es_fmt_i64(char *dst, int64_t v)
{
    if (v < 0) {
        *dst++ = '-';
        return es_fmt_u64(dst, (uint64_t)0 - (uint64_t)v);
    }
    return es_fmt_u64(dst, (uint64_t)v);
}

char *es_fmt_str_w(char *dst, const char *s, int width)
{
    size_t n = strlen(s);
    if (width > 0 && n < (size_t)width) {
        memset(dst, ' ', (size_t)width - n);
        dst += (size_t)width - n;
    }
    memcpy(dst, s, n);
    return dst + n;
}

/* ---- %g --------------------------------------------------------------------- */

#if LDBL_MANT_DIG >= 64
#define ES_FMT_FAST 1
/* 10^k, exact for k <= 27 in a 64-bit significand */
static const long double pow10_tab[28] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};

/* a * 10^k: exact powers, each step one rounding */
static long double scale10(long double a, int k)
{
    while (k > 27) {
        a *= pow10_tab[27];
        k -= 27;
    }
    while (k < -27) {
        a /= pow10_tab[27];
        k += 27;
    }
    return k >= 0 ? a * pow10_tab[k] : a / pow10_tab[-k];
}

/* The P (1..13) significant digits of a > 0 (finite) rounded as printf
 * rounds, in *digits (10^(P-1) <= *digits < 10^P), and the decimal exponent
 * of the first in *e10.  @return 0, or -1 when the rounding is too close to
 * call. */
static int sig_digits(double a, int prec, uint64_t *digits, int *e10)
{
    static const uint64_t p10[18] = {1ull,
                                     10ull,
                                     100ull,
                                     1000ull,
                                     10000ull,
                                     100000ull,
                                     1000000ull,
                                     10000000ull,
                                     100000000ull,
                                     1000000000ull,
                                     10000000000ull,
                                     100000000000ull,
                                     1000000000000ull,
                                     10000000000000ull,
                                     100000000000000ull,
                                     1000000000000000ull,
                                     10000000000000000ull,
                                     100000000000000000ull};
    /* e = floor(log10(a)) or one less, from the binary exponent (a = f 2^b,
     * 0.5 <= f < 1: log10 a in [(b-1) log10 2, b log10 2)); fixed below */
    int b;
    (void)frexp(a, &b);
    int e = (int)floor((double)(b - 1) * 0.30102999566398120);
    /* short precisions with an exact power of ten: one rounding in double
     * precision, an error below 10^8 * 2^-53 on the integer part */
    if (prec <= 8) {
        static const double p10d[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
        for (int tries = 0; tries < 2; tries++) {
            int k = prec - 1 - e;
            if (k > 22 || k < -22) break;
            double sd = k >= 0 ? a * p10d[k] : a / p10d[-k];
            if (sd >= (double)p10[prec]) {
                e++;
                continue;
            }
            if (sd < (double)p10[prec - 1]) {
                e--;
                continue;
            }
            uint64_t n = (uint64_t)sd;
            double frac = sd - (double)n;
            if (fabs(frac - 0.5) < 1e-3) return -1;
            if (frac > 0.5) n++;
            if (n == p10[prec]) {
                n = p10[prec - 1];
                e++;
            }
            *digits = n;
            *e10 = e;
            return 0;
        }
    }
    long double s = 0.0L;
    for (int tries = 0; tries < 3; tries++) {
        s = scale10((long double)a, prec - 1 - e);
        if (s >= (long double)p10[prec]) e++;
        else if (s < (long double)p10[prec - 1]) e--;
        else break;
    }
    if (s < (long double)p10[prec - 1] || s >= (long double)p10[prec]) return -1;
    uint64_t n = (uint64_t)s;
    long double frac = s - (long double)n;
    if (fabsl(frac - 0.5L) < 1e-3L) return -1;
    if (frac > 0.5L) n++;
    if (n == p10[prec]) {
        n = p10[prec - 1];
        e++;
    }
    *digits = n;
    *e10 = e;
    return 0;
}
#else
#define ES_FMT_FAST 0
#endif

/* printf("%.*g") into dst (at least 32 bytes); @return the end */
static char *fmt_g_slow(char *dst, double x, int prec)
{
    int n = snprintf(dst, 32, "%.*g", prec, x);
    return dst + (n > 0 ? n : 0);
}

char *es_fmt_g(char *dst, double x, int prec)
{
    if (prec < 1) prec = 1;
    if (isnan(x)) {
        if (signbit(x)) *dst++ = '-';
        memcpy(dst, "nan", 3);
        return dst + 3;
    }
    if (signbit(x)) *dst++ = '-';
    double a = fabs(x);
    if (isinf(a)) {
        memcpy(dst, "inf", 3);
        return dst + 3;
    }
    if (a == 0.0) {
        *dst++ = '0';
        return dst;
    }
#if ES_FMT_FAST
    uint64_t dig;
    int e;
    if (prec > 13 || sig_digits(a, prec, &dig, &e)) return fmt_g_slow(dst, a, prec);
    /* the digits, trailing zeros dropped (no '#' flag) */
    char d[20];
    for (int k = prec - 1; k >= 0; k--) {
        d[k] = (char)('0' + dig % 10);
        dig /= 10;
    }
    int nd = prec;
    while (nd > 1 && d[nd - 1] == '0') nd--;
    if (e < -4 || e >= prec) {
        /* d.ddde+XX */
        *dst++ = d[0];
        if (nd > 1) {
            *dst++ = '.';
            memcpy(dst, d + 1, (size_t)nd - 1);
            dst += nd - 1;
        }
        *dst++ = 'e';
        *dst++ = e < 0 ? '-' : '+';
        int ae = e < 0 ? -e : e;
        if (ae >= 100) *dst++ = (char)('0' + ae / 100);
        *dst++ = (char)('0' + ae / 10 % 10);
        *dst++ = (char)('0' + ae % 10);
    } else if (e >= 0) {
        /* ddd.ddd: e + 1 digits before the point */
        int ip = e + 1;
        for (int k = 0; k < ip; k++) *dst++ = k < nd ? d[k] : '0';
        if (nd > ip) {
            *dst++ = '.';
            memcpy(dst, d + ip, (size_t)(nd - ip));
            dst += nd - ip;
        }
    } else {
        /* 0.000ddd */
        *dst++ = '0';
        *dst++ = '.';
        for (int k = 0; k < -e - 1; k++) *dst++ = '0';
        memcpy(dst, d, (size_t)nd);
        dst += nd;
    }
    return dst;
#else
    return fmt_g_slow(dst, a, prec);
#endif
}

char *es_fmt_g_w(char *dst, double x, int width, int prec)
{
    char tmp[40];
    char *e = es_fmt_g(tmp, x, prec);
    size_t n = (size_t)(e - tmp);
    if (width > 0 && n < (size_t)width) {
        memset(dst, ' ', (size_t)width - n);
        dst += (size_t)width - n;
    }
    memcpy(dst, tmp, n);
    return dst + n;
}

/* ---- the write buffer ---------------------------------------------------------- */

int es_wbuf_init(es_wbuf_t *b, FILE *fp, size_t cap)
{
    b->fp = fp;
    b->n = 0;
    b->cap = cap < 4096 ? 4096 : cap;
    b->buf = malloc(b->cap);
    return b->buf ? ES_OK : ES_ERR_NOMEM;
}

int es_wbuf_flush(es_wbuf_t *b)
{
    if (b->n && fwrite(b->buf, 1, b->n, b->fp) != b->n) {
        b->n = 0;
        return ES_ERR_IO;
    }
    b->n = 0;
    return ferror(b->fp) ? ES_ERR_IO : ES_OK;
}

char *es_wbuf_reserve(es_wbuf_t *b, size_t need)
{
    if (b->cap - b->n >= need) return b->buf + b->n;
    if (es_wbuf_flush(b)) return NULL;
    if (b->cap < need) {
        char *nb = realloc(b->buf, need);
        if (!nb) return NULL;
        b->buf = nb;
        b->cap = need;
    }
    return b->buf;
}

void es_wbuf_free(es_wbuf_t *b)
{
    free(b->buf);
    b->buf = NULL;
    b->n = b->cap = 0;
}
