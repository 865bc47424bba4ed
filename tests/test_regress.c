/* test_regress.c -- src/regress: the covariate reader (selection, missing values, every error
 * with its code and a message naming the file and line), the linear and logistic interaction
 * tests against a brute force written here (normal equations solved by Gauss-Jordan in long
 * double, Newton's method for the logistic), their failures (collinear and monomorphic
 * variants, too few samples, a perfect fit, separation, a non-binary outcome), residualisation,
 * and the t and normal tails against closed forms.  tests/regress.sh compares with statsmodels
 * and scipy. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "regress.h"
#include "select.h" /* testutil.h's scan fixtures need the types above regress */
#include "testutil.h"

/* ---- the covariate reader ------------------------------------------------------------- */

#define NS 5
static const char *const FID[NS] = {"F1", "F2", "F3", "F4", "F5"};
static const char *const IID[NS] = {"I1", "I2", "I3", "I4", "I5"};

typedef struct {
    tu_fixture_t base;
    char path[4200];
    es_covar_t c;
} fx_t;

static int setup(void **state)
{
    fx_t *fx = tu_fixture_new(sizeof *fx);
    if (!fx) return -1;
    snprintf(fx->path, sizeof fx->path, "%s/my.covar", fx->base.dir);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fx_t *fx = *state;
    es_covar_free(&fx->c);
    tu_fixture_free(fx);
    return 0;
}

/* write text, read with names, expect rc and every message fragment */
static void read_covar(fx_t *fx, const char *text, const char *names, int want, ...)
{
    va_list ap;
    es_covar_free(&fx->c);
    if (text) assert_int_equal(tu_write_text(fx->path, text), 0);
    tu_cap_start(&fx->base.cap);
    int rc = es_covar_read(fx->path, names, NS, FID, IID, &fx->c);
    const char *msg = tu_cap_stop(&fx->base.cap);
    assert_int_equal(rc, want);
    va_start(ap, want);
    tu_expect_msg_va(msg, ap);
    va_end(ap);
    if (rc != ES_OK) {
        assert_int_equal(fx->c.k, 0);
        assert_null(fx->c.val);
    }
}

static void expect_names(const es_covar_t *c, const char *want)
{
    char buf[256] = "";
    for (uint32_t j = 0; j < c->k; j++) {
        strcat(buf, j ? "," : "");
        strcat(buf, c->names[j]);
    }
    assert_string_equal(buf, want);
}

static const char *HEAD = "FID IID AGE SEX PC1 PC2 PC3\n"
                          "F1 I1 50 1 0.5 -1 2\n"
                          "F2 I2 61.5 2 -9 0.25 1e-3\n"
                          "F3 I3 NA 1 0.1 0.2 0.3\n"
                          "F5 I5 40 2 nan 7 8\n"
                          "X9 I9 1 1 1 1 1\n";

static void test_select(void **state)
{
    fx_t *fx = *state;
    read_covar(fx, HEAD, NULL, ES_OK, "1 of 5 sample lines not in the input", "'X9 I9' on line 6",
               END);
    expect_names(&fx->c, "AGE,SEX,PC1,PC2,PC3");
    assert_int_equal(fx->c.k, 5);
    assert_true(fx->c.val[0] == 50 && fx->c.val[4] == 2);
    assert_true(fx->c.val[5] == 61.5 && isnan(fx->c.val[7]) && fx->c.val[9] == 1e-3);
    const uint8_t all_miss[NS] = {0, 1, 1, 1, 1}; /* F4 has no line */
    assert_memory_equal(fx->c.missing, all_miss, NS);
    assert_int_equal(fx->c.n_missing, 4);

    /* a range of names and a name; file order kept; F2's -9 is in PC1, not selected */
    read_covar(fx, NULL, "PC2-PC3,SEX", ES_OK, END);
    expect_names(&fx->c, "SEX,PC2,PC3");
    assert_true(fx->c.val[0] == 1 && fx->c.val[1] == -1 && fx->c.val[2] == 2);
    const uint8_t m2[NS] = {0, 0, 0, 1, 0};
    assert_memory_equal(fx->c.missing, m2, NS);
    assert_true(isnan(fx->c.val[3 * 3]));

    /* numbers and ranges of numbers, overlapping entries taken once */
    read_covar(fx, NULL, "1,4-5,5", ES_OK, END);
    expect_names(&fx->c, "AGE,PC2,PC3");
    read_covar(fx, NULL, "AGE-SEX", ES_OK, END);
    expect_names(&fx->c, "AGE,SEX");
    const uint8_t m3[NS] = {0, 0, 1, 1, 0};
    assert_memory_equal(fx->c.missing, m3, NS);
}

static void test_no_header(void **state)
{
    fx_t *fx = *state;
    /* tabs, CRLF, a blank line; a name with '-' in a header matches whole */
    read_covar(fx, "F2\tI2\t3\t4\r\n\r\nF1 I1 1 2\r\nF3 I3 5 6\nF4 I4 7 8\nF5 I5 -9.0 10\n",
               "COV2", ES_OK, END);
    expect_names(&fx->c, "COV2");
    assert_true(fx->c.val[0] == 2 && fx->c.val[1] == 4 && fx->c.val[4] == 10);
    assert_int_equal(fx->c.n_missing, 0);
    read_covar(fx, NULL, "COV1", ES_OK, END);
    assert_true(isnan(fx->c.val[4]) && fx->c.missing[4] == 1);
    read_covar(fx, "#FID IID PC-1 B\nF1 I1 1 2\n", "PC-1", ES_OK, END);
    expect_names(&fx->c, "PC-1");
}

static void test_errors(void **state)
{
    fx_t *fx = *state;
    read_covar(fx, "", NULL, ES_ERR_FORMAT, fx->path, "empty covariate file", END);
    read_covar(fx, "\n  \n", NULL, ES_ERR_FORMAT, "empty covariate file", END);
    read_covar(fx, "FID IID A B\n", NULL, ES_ERR_FORMAT, fx->path, "a header and no sample lines",
               END);
    read_covar(fx, "FID IID\nF1 I1\n", NULL, ES_ERR_FORMAT, "line 1", "names no covariate", END);
    read_covar(fx, "F1 I1\n", NULL, ES_ERR_FORMAT, "line 1", "at least 3 fields", "found 2", END);
    read_covar(fx, "FID IID A B\nF1 I1 1 2\nF2 I2 3\n", NULL, ES_ERR_FORMAT, fx->path, "line 3",
               "expected 4 fields", "found 3", END);
    read_covar(fx, "FID IID A B\nF1 I1 1 2\nF2 I2 3 4 5\n", NULL, ES_ERR_FORMAT, "line 3",
               "found 5", END);
    read_covar(fx, "FID IID A B\nF1 I1 1 2\nF2 I2 3 x7\n", NULL, ES_ERR_FORMAT, fx->path, "line 3",
               "column 4 (B)", "'x7' is not a number", END);
    /* a non-number in a column not selected is still an error; inf is no number */
    read_covar(fx, "FID IID A B\nF1 I1 1 male\n", "A", ES_ERR_FORMAT, "'male'", END);
    read_covar(fx, "F1 I1 inf\n", NULL, ES_ERR_FORMAT, "column 3 (COV1)", "'inf'", END);
    read_covar(fx, "FID IID A\nF1 I1 1\nF2 I2 2\nF1 I1 3\n", NULL, ES_ERR_FORMAT, "line 4",
               "'F1 I1' is listed again (first on line 2)", END);
    read_covar(fx, "FID IID A B A\nF1 I1 1 2 3\n", NULL, ES_ERR_FORMAT, "'A' appears twice", END);
    read_covar(fx, HEAD, "PC4", ES_ERR_ARG, fx->path, "no covariate 'PC4'",
               "available: AGE, SEX, PC1, PC2, PC3", END);
    read_covar(fx, HEAD, "PC1,,PC2", ES_ERR_ARG, "empty entry", END);
    read_covar(fx, HEAD, "", ES_ERR_ARG, "empty entry", END);
    read_covar(fx, HEAD, "6", ES_ERR_ARG, "'6': covariate number out of range", "5 covariates",
               END);
    read_covar(fx, HEAD, "0", ES_ERR_ARG, "out of range", END);
    read_covar(fx, HEAD, "2-9", ES_ERR_ARG, "out of range", END);
    read_covar(fx, HEAD, "PC3-PC1", ES_ERR_ARG, "runs backwards", END);
    read_covar(fx, HEAD, "PC1-", ES_ERR_ARG, "no covariate 'PC1-'", END);
    char missing_path[4300];
    snprintf(missing_path, sizeof missing_path, "%s/none.covar", fx->base.dir);
    tu_cap_start(&fx->base.cap);
    int rc = es_covar_read(missing_path, NULL, NS, FID, IID, &fx->c);
    const char *msg = tu_cap_stop(&fx->base.cap);
    assert_int_equal(rc, ES_ERR_IO);
    assert_non_null(strstr(msg, "none.covar"));
}

/* ---- a brute force: normal equations in long double --------------------------------------- */

/* Solve M z = r (p x p, p <= 16) by Gauss-Jordan with partial pivoting; inv gets M^-1. */
static int gj_solve(long double M[16][16], long double *r, int p, long double inv[16][16])
{
    long double A[16][32];
    for (int i = 0; i < p; i++) {
        for (int j = 0; j < p; j++) A[i][j] = M[i][j], A[i][p + j] = i == j;
        A[i][2 * p] = r[i];
    }
    for (int c = 0; c < p; c++) {
        int piv = c;
        for (int i = c + 1; i < p; i++)
            if (fabsl(A[i][c]) > fabsl(A[piv][c])) piv = i;
        if (fabsl(A[piv][c]) < 1e-14L) return 1;
        for (int j = 0; j <= 2 * p; j++) {
            long double t = A[c][j];
            A[c][j] = A[piv][j];
            A[piv][j] = t;
        }
        for (int i = 0; i < p; i++) {
            if (i == c) continue;
            long double f = A[i][c] / A[c][c];
            for (int j = 0; j <= 2 * p; j++) A[i][j] -= f * A[c][j];
        }
    }
    for (int i = 0; i < p; i++) {
        r[i] = A[i][2 * p] / A[i][i];
        for (int j = 0; j < p; j++) inv[i][j] = A[i][p + j] / A[i][i];
    }
    return 0;
}

/* The design row of sample s: 1, a, b, a*b, C (this order; the interaction is index 3). */
static void xrow(const double *a, const double *b, const double *C, uint32_t k, uint32_t s,
                 long double *x)
{
    x[0] = 1;
    x[1] = a[s];
    x[2] = b[s];
    x[3] = (long double)a[s] * b[s];
    for (uint32_t j = 0; j < k; j++) x[4 + j] = C[(size_t)s * k + j];
}

/* beta and se of the interaction: OLS (logit = 0) or logistic by Newton (logit = 1) */
static void brute(const double *y, const double *a, const double *b, const double *C, uint32_t n,
                  uint32_t k, int logit, double *beta_i, double *se_i)
{
    int p = 4 + (int)k;
    long double beta[16] = {0}, inv[16][16], x[16];
    for (int it = 0; it < (logit ? 40 : 1); it++) {
        long double M[16][16] = {{0}}, r[16] = {0};
        for (uint32_t s = 0; s < n; s++) {
            xrow(a, b, C, k, s, x);
            long double w = 1, resp = y[s];
            if (logit) {
                long double eta = 0;
                for (int j = 0; j < p; j++) eta += x[j] * beta[j];
                long double mu = 1 / (1 + expl(-eta));
                w = mu * (1 - mu);
                resp = y[s] - mu; /* Newton: M d = X'(y - mu) */
            }
            for (int i = 0; i < p; i++) {
                r[i] += x[i] * resp;
                for (int j = 0; j < p; j++) M[i][j] += w * x[i] * x[j];
            }
        }
        assert_int_equal(gj_solve(M, r, p, inv), 0);
        for (int j = 0; j < p; j++) beta[j] = logit ? beta[j] + r[j] : r[j];
    }
    long double scale = 1;
    if (!logit) {
        long double rss = 0;
        for (uint32_t s = 0; s < n; s++) {
            xrow(a, b, C, k, s, x);
            long double f = 0;
            for (int j = 0; j < p; j++) f += x[j] * beta[j];
            rss += (y[s] - f) * (y[s] - f);
        }
        scale = rss / (long double)(n - (uint32_t)p);
    } else {
        /* the information at the final beta */
        long double M[16][16] = {{0}}, r[16] = {0};
        for (uint32_t s = 0; s < n; s++) {
            xrow(a, b, C, k, s, x);
            long double eta = 0;
            for (int j = 0; j < p; j++) eta += x[j] * beta[j];
            long double mu = 1 / (1 + expl(-eta));
            for (int i = 0; i < p; i++)
                for (int j = 0; j < p; j++) M[i][j] += mu * (1 - mu) * x[i] * x[j];
        }
        assert_int_equal(gj_solve(M, r, p, inv), 0);
    }
    *beta_i = (double)beta[3];
    *se_i = (double)sqrtl(scale * inv[3][3]);
}

typedef struct {
    uint32_t n, k;
    double *y, *a, *b, *C;
} data_t;

static double gauss(uint64_t *st)
{
    double u1 = ((double)(tu_rand(st) >> 11) + 0.5) * 0x1.0p-53;
    double u2 = (double)(tu_rand(st) >> 11) * 0x1.0p-53;
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static int geno(uint64_t *st, double maf)
{
    return ((double)(tu_rand(st) >> 11) * 0x1.0p-53 < maf) +
           ((double)(tu_rand(st) >> 11) * 0x1.0p-53 < maf);
}

/* random data; logit: y from a logistic model, else normal noise */
static data_t make_data(uint32_t n, uint32_t k, int logit, uint64_t seed)
{
    data_t d = {n, k, malloc(n * sizeof(double)), malloc(n * sizeof(double)),
                malloc(n * sizeof(double)), malloc((n * k + 1) * sizeof(double))};
    assert_true(d.y && d.a && d.b && d.C);
    uint64_t st = seed;
    for (uint32_t s = 0; s < n; s++) {
        d.a[s] = geno(&st, 0.3);
        d.b[s] = geno(&st, 0.45);
        double eta = 0.3 * d.a[s] - 0.2 * d.b[s] + 0.25 * d.a[s] * d.b[s];
        for (uint32_t j = 0; j < k; j++) {
            double c = j == 0 ? 50 + 10 * gauss(&st) : gauss(&st); /* an age, then PCs */
            d.C[(size_t)s * k + j] = c;
            eta += (j == 0 ? 0.01 : 0.2) * c - (j == 0 ? 0.5 : 0);
        }
        d.y[s] = logit ? (double)((double)(tu_rand(&st) >> 11) * 0x1.0p-53 < 1 / (1 + exp(-eta)))
                       : eta + gauss(&st);
    }
    return d;
}

static void free_data(data_t *d)
{
    free(d->y);
    free(d->a);
    free(d->b);
    free(d->C);
}

static void near(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want))) fail_msg("got %.17g, want %.17g", got, want);
}

static void test_against_brute(void **state)
{
    (void)state;
    es_reg_ws_t *ws = es_reg_ws_create();
    assert_non_null(ws);
    for (int logit = 0; logit < 2; logit++) {
        for (uint32_t k = 0; k <= 4; k += 2) {
            /* sizes vary so the workspace grows and is reused */
            uint32_t n = 150 + 97 * k + 50 * (uint32_t)logit;
            data_t d = make_data(n, k, logit, 11 + k + 100 * (uint64_t)logit);
            es_reg_result_t r;
            int rc = logit ? es_reg_logistic(ws, d.y, d.a, d.b, d.C, n, k, &r)
                           : es_reg_linear(ws, d.y, d.a, d.b, d.C, n, k, &r);
            assert_int_equal(rc, ES_OK);
            assert_int_equal(r.status, ES_REG_OK);
            assert_int_equal(r.n, n);
            assert_int_equal(r.n_param, 4 + k);
            double beta, se;
            brute(d.y, d.a, d.b, d.C, n, k, logit, &beta, &se);
            near(r.beta, beta, 1e-9);
            near(r.se, se, 1e-9);
            near(r.stat, beta / se, 1e-9);
            if (logit) {
                assert_true(isinf(r.df));
                near(r.p, erfc(fabs(beta / se) / sqrt(2)), 1e-9);
                assert_true(r.iter >= 3 && r.iter < ES_REG_MAX_ITER);
            } else {
                assert_true(r.df == n - 4.0 - k);
            }
            near(r.log10p, -log10(r.p), 1e-12);
            free_data(&d);
        }
    }
    es_reg_ws_destroy(ws);
}

/* samples with a missing value anywhere are left out: the same fit as without them */
static void test_missing_rows(void **state)
{
    (void)state;
    es_reg_ws_t *ws = es_reg_ws_create();
    data_t d = make_data(300, 1, 0, 5);
    es_reg_result_t full, holes;
    assert_int_equal(es_reg_linear(ws, d.y + 3, d.a + 3, d.b + 3, d.C + 3, 297, 1, &full), ES_OK);
    d.y[0] = NAN;
    d.a[1] = INFINITY;
    d.C[2] = NAN;
    assert_int_equal(es_reg_linear(ws, d.y, d.a, d.b, d.C, 300, 1, &holes), ES_OK);
    assert_int_equal(holes.n, 297);
    near(holes.beta, full.beta, 1e-12);
    near(holes.se, full.se, 1e-12);
    free_data(&d);
    es_reg_ws_destroy(ws);
}

static void expect_fail(es_reg_ws_t *ws, int logit, const data_t *d, es_reg_status_t want)
{
    es_reg_result_t r;
    int rc = logit ? es_reg_logistic(ws, d->y, d->a, d->b, d->C, d->n, d->k, &r)
                   : es_reg_linear(ws, d->y, d->a, d->b, d->C, d->n, d->k, &r);
    assert_int_equal(rc, ES_OK);
    if (r.status != want)
        fail_msg("%s: status '%s', want '%s'", logit ? "logistic" : "linear",
                 es_reg_status_str(r.status), es_reg_status_str(want));
    assert_true(isnan(r.beta) && isnan(r.se) && isnan(r.stat) && isnan(r.p) && isnan(r.log10p));
}

static void test_failures(void **state)
{
    (void)state;
    es_reg_ws_t *ws = es_reg_ws_create();
    for (int logit = 0; logit < 2; logit++) {
        data_t d = make_data(200, 1, logit, 77);
        /* collinear: b == a; b == 2 - a (the same variant, alleles swapped) */
        double *b0 = d.b;
        d.b = d.a;
        expect_fail(ws, logit, &d, ES_REG_SINGULAR);
        double flip[200];
        for (int s = 0; s < 200; s++) flip[s] = 2 - d.a[s];
        d.b = flip;
        expect_fail(ws, logit, &d, ES_REG_SINGULAR);
        d.b = b0;
        /* monomorphic: a all 0 (zero column), a all 1 (the intercept again), b all 2 */
        double *a0 = d.a, mono[200];
        for (int v = 0; v < 2; v++) {
            for (int s = 0; s < 200; s++) mono[s] = v;
            d.a = mono;
            expect_fail(ws, logit, &d, ES_REG_SINGULAR);
        }
        d.a = a0;
        for (int s = 0; s < 200; s++) mono[s] = 2;
        d.b = mono;
        expect_fail(ws, logit, &d, ES_REG_SINGULAR);
        d.b = b0;
        /* a covariate that is the intercept scaled */
        double *c0 = d.C, cst[200];
        for (int s = 0; s < 200; s++) cst[s] = 3.5;
        d.C = cst;
        expect_fail(ws, logit, &d, ES_REG_SINGULAR);
        d.C = c0;
        /* as many samples as parameters: no residual df */
        d.n = 5;
        expect_fail(ws, logit, &d, ES_REG_TOO_FEW);
        d.n = 200;
        free_data(&d);
    }
    /* linear: y an exact function of the design */
    data_t d = make_data(100, 0, 0, 3);
    for (uint32_t s = 0; s < 100; s++) d.y[s] = 1 + 2 * d.a[s] - d.b[s] + 0.5 * d.a[s] * d.b[s];
    expect_fail(ws, 0, &d, ES_REG_PERFECT_FIT);
    /* logistic: y not 0/1, one class only */
    for (uint32_t s = 0; s < 100; s++) d.y[s] = s % 3;
    expect_fail(ws, 1, &d, ES_REG_NOT_BINARY);
    for (uint32_t s = 0; s < 100; s++) d.y[s] = 1;
    expect_fail(ws, 1, &d, ES_REG_NOT_BINARY);
    /* complete separation by the interaction: y = [a*b > 1] */
    for (uint32_t s = 0; s < 100; s++) d.y[s] = d.a[s] * d.b[s] > 1;
    expect_fail(ws, 1, &d, ES_REG_SEPARATION);
    /* quasi-complete: a 0/1 covariate whose 1s are all cases, its 0s mixed (the MLE of its
     * coefficient is +infinity) */
    uint64_t st = 9;
    double ind[100];
    for (uint32_t s = 0; s < 100; s++) {
        ind[s] = (double)(tu_rand(&st) % 3 == 0);
        d.y[s] = ind[s] == 1 ? 1 : (double)(tu_rand(&st) & 1);
    }
    free(d.C);
    d.C = ind;
    d.k = 1;
    expect_fail(ws, 1, &d, ES_REG_SEPARATION);
    d.C = NULL;
    free_data(&d);
    /* NULL arguments are errors, not fits */
    es_reg_result_t r;
    double one = 1;
    assert_int_equal(es_reg_linear(NULL, &one, &one, &one, NULL, 1, 0, &r), ES_ERR_ARG);
    assert_int_equal(es_reg_logistic(ws, &one, &one, &one, NULL, 1, 2, &r), ES_ERR_ARG);
    es_reg_ws_destroy(ws);
}

static void test_residualize(void **state)
{
    (void)state;
    data_t d = make_data(120, 2, 0, 21);
    double r[120];
    /* k = 0: y minus its mean */
    assert_int_equal(es_reg_residualize(d.y, NULL, 120, 0, r), ES_OK);
    double mean = 0;
    for (int s = 0; s < 120; s++) mean += d.y[s] / 120;
    for (int s = 0; s < 120; s++) near(r[s], d.y[s] - mean, 1e-12);
    /* k = 2: residuals orthogonal to 1 and each covariate, and y - r in their span (the
     * brute force's fit of y on 1 + C gives the same residuals) */
    d.y[7] = NAN;
    assert_int_equal(es_reg_residualize(d.y, d.C, 120, 2, r), ES_OK);
    assert_true(isnan(r[7]));
    long double s0 = 0, s1 = 0, s2 = 0, ss = 0;
    for (int s = 0; s < 120; s++) {
        if (s == 7) continue;
        s0 += r[s];
        s1 += r[s] * d.C[2 * s];
        s2 += r[s] * d.C[2 * s + 1];
        ss += (long double)r[s] * r[s];
    }
    assert_true(fabsl(s0) < 1e-9 && fabsl(s1) < 1e-7 && fabsl(s2) < 1e-9 && ss > 10);
    /* collinear covariates are an error */
    for (int s = 0; s < 120; s++) d.C[2 * s + 1] = 2 * d.C[2 * s] - 1;
    assert_int_equal(es_reg_residualize(d.y, d.C, 120, 2, r), ES_ERR_ARG);
    assert_int_equal(es_reg_residualize(d.y, d.C, 2, 2, r), ES_ERR_ARG);
    free_data(&d);
}

/* ---- tails ------------------------------------------------------------------------------- */

static void test_tails(void **state)
{
    (void)state;
    /* df 1 (Cauchy): 1/2 - atan(t)/pi; df 2: 1/2 - t / (2 sqrt(2 + t^2)) */
    const double ts[] = {-30, -2.5, -0.3, 0, 1e-8, 0.7, 3, 12.5, 1e3};
    for (size_t i = 0; i < sizeof ts / sizeof *ts; i++) {
        double t = ts[i];
        near(es_reg_t_sf(t, 1), t > 0 ? atan(1 / t) / M_PI : 0.5 - atan(t) / M_PI, 1e-13);
        /* the closed form cancels for large t: looser there, exact below */
        near(es_reg_t_sf(t, 2), 0.5 - t / (2 * sqrt(2 + t * t)), t > 10 ? 1e-9 : 1e-13);
    }
    /* the df-2 tail for large t without cancellation: 1/(2 t^2) (1 - 3/t^2 + ...) exactly
     * equals (1 - t / sqrt(2 + t^2)) / 2 = 1 / (sqrt(2 + t^2) (sqrt(2 + t^2) + t)) */
    for (double t = 10; t < 1e150; t *= 1e7) {
        double s = sqrt(2 + t * t);
        near(es_reg_t_sf(t, 2), 1 / (s * (s + t)), 1e-13);
    }
    /* far tails: P(T > t) -> 1 / (pi t) for df = 1 and 1 / (2 t^2) for df = 2 */
    near(es_reg_t_logsf(1e200, 1), -log(M_PI) - log(1e200), 1e-14);
    near(es_reg_t_logsf(1e300, 2), -M_LN2 - 2 * log(1e300), 1e-14);
    assert_true(es_reg_t_sf(1e200, 3) == 0 && isfinite(es_reg_t_logsf(1e200, 3)));
    /* df -> infinity: the normal */
    near(es_reg_t_sf(1.7, INFINITY), 0.5 * erfc(1.7 / sqrt(2)), 1e-15);
    near(es_reg_t_sf(1.7, 1e9), 0.5 * erfc(1.7 / sqrt(2)), 1e-8);
    /* normal: erfc where it is accurate, then the asymptotic series */
    near(es_reg_norm_logsf(5), log(0.5 * erfc(5 / sqrt(2))), 1e-14);
    near(es_reg_norm_logsf(-3), log1p(-0.5 * erfc(3 / sqrt(2))), 1e-14);
    for (double z = 40; z < 1e6; z *= 3) {
        double z2 = z * z, z4 = z2 * z2;
        double series = 1 - 1 / z2 + 3 / z4 - 15 / (z4 * z2) + 105 / (z4 * z4);
        near(es_reg_norm_logsf(z), -z2 / 2 - log(z * sqrt(2 * M_PI)) + log(series), 1e-14);
    }
    /* the incomplete beta: I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b, I_x(a, b) + I_y(b, a) = 1 */
    for (double x = 0.001; x < 1; x += 0.0977) {
        near(exp(es_reg_log_ibeta(3.5, 1, x, 1 - x)), pow(x, 3.5), 1e-13);
        near(exp(es_reg_log_ibeta(1, 40, x, 1 - x)), -expm1(40 * log1p(-x)), 1e-12);
        near(exp(es_reg_log_ibeta(2.5, 7, x, 1 - x)) + exp(es_reg_log_ibeta(7, 2.5, 1 - x, x)), 1,
             1e-13);
    }
    assert_true(es_reg_log_ibeta(2, 3, 0, 1) == -INFINITY && es_reg_log_ibeta(2, 3, 1, 0) == 0);
    assert_true(isnan(es_reg_log_ibeta(0, 3, 0.5, 0.5)));
    /* continuity where the method changes (z = 35) */
    near(es_reg_norm_logsf(35 - 1e-9), es_reg_norm_logsf(35), 1e-9);
    assert_true(isnan(es_reg_t_sf(1, 0)) && isnan(es_reg_t_sf(NAN, 3)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_select, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_header, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test(test_against_brute),
        cmocka_unit_test(test_missing_rows),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_residualize),
        cmocka_unit_test(test_tails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
