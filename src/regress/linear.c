/* linear.c -- the exact linear interaction test y ~ 1 + a + b + a*b + C, residualisation on
 * 1 + C, and what the logistic fit shares: the workspace, the design, the QR.
 *
 * Why a QR of [X | y] and not the normal equations: the interaction column is put last, so after
 * the Householder QR of the augmented matrix [X | y] (LAPACK dgeqrf) with R its triangle,
 *
 *     BETA_INT = R[p-1][p] / R[p-1][p-1],   RSS = R[p][p]^2,   [(X'X)^-1]_{p-1,p-1} = 1 / R[p-1][p-1]^2
 *
 * (the last row of R^-1 has the single entry 1 / R[p-1][p-1]), with no solve at all and without
 * squaring the condition number of X as X'X would: covariates such as age next to 0/1/2 codes
 * cost the normal equations half their digits.  A column whose diagonal entry of R is tiny
 * against its own norm lies in the span of the columns before it: the design is rank deficient
 * and the test is reported as failed (ES_REG_SINGULAR), never computed from rounding noise. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "regress_internal.h"

extern void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau,
                    double *work, const int *lwork, int *info);
extern void dtrtrs_(const char *uplo, const char *trans, const char *diag, const int *n,
                    const int *nrhs, const double *a, const int *lda, double *b, const int *ldb,
                    int *info);

/* ---- the workspace ------------------------------------------------------------------------ */

es_reg_ws_t *es_reg_ws_create(void)
{
    return calloc(1, sizeof(es_reg_ws_t));
}

void es_reg_ws_destroy(es_reg_ws_t *ws)
{
    if (!ws) return;
    free(ws->row);
    free(ws->X0);
    free(ws->y0);
    free(ws->A);
    free(ws->norm);
    free(ws->tau);
    free(ws->work);
    free(ws->beta);
    free(ws->beta_new);
    free(ws->eta);
    free(ws);
}

/* realloc *p to n elements of size sz; leaves *p as it was on failure */
static int grow(void *pp, size_t n, size_t sz)
{
    void **p = pp;
    void *q = realloc(*p, (n ? n : 1) * sz);
    if (!q) return ES_ERR_NOMEM;
    *p = q;
    return ES_OK;
}

int es_reg_ws_reserve(es_reg_ws_t *ws, size_t rows, size_t cols)
{
    if (rows > ws->cap_rows) {
        if (grow(&ws->row, rows, sizeof *ws->row) || grow(&ws->y0, rows, sizeof *ws->y0) ||
            grow(&ws->eta, rows, sizeof *ws->eta))
            return ES_ERR_NOMEM;
    }
    if (rows > ws->cap_rows || cols > ws->cap_cols) {
        size_t r = rows > ws->cap_rows ? rows : ws->cap_rows;
        size_t c = cols > ws->cap_cols ? cols : ws->cap_cols;
        if (r > SIZE_MAX / sizeof(double) / c) return ES_ERR_NOMEM;
        if (grow(&ws->A, r * c, sizeof *ws->A) || grow(&ws->X0, r * c, sizeof *ws->X0))
            return ES_ERR_NOMEM;
        ws->cap_rows = r;
    }
    if (cols > ws->cap_cols) {
        /* dgeqrf needs lwork >= cols; 64 columns' worth lets it block */
        int lw = (int)(cols * 64);
        if (grow(&ws->norm, cols, sizeof *ws->norm) || grow(&ws->tau, cols, sizeof *ws->tau) ||
            grow(&ws->work, (size_t)lw, sizeof *ws->work) ||
            grow(&ws->beta, cols, sizeof *ws->beta) ||
            grow(&ws->beta_new, cols, sizeof *ws->beta_new))
            return ES_ERR_NOMEM;
        ws->lwork = lw;
        ws->cap_cols = cols;
    }
    return ES_OK;
}

/* ---- the design ---------------------------------------------------------------------------- */

int es_reg_design(es_reg_ws_t *ws, const double *y, const double *a, const double *b,
                  const double *C, uint32_t n, uint32_t k, const es_reg_result_t *res)
{
    if (!ws || !y || !a || !b || (k && !C) || !res || n > INT_MAX || k > ES_REG_MAX_COVARIATES)
        return ES_ERR_ARG;
    uint32_t p = 4 + k, m = 0;
    int ret = es_reg_ws_reserve(ws, n, (size_t)p + 1);
    if (ret != ES_OK) return ret;
    for (uint32_t s = 0; s < n; s++) {
        int ok = isfinite(y[s]) && isfinite(a[s]) && isfinite(b[s]);
        for (uint32_t j = 0; ok && j < k; j++) ok = isfinite(C[(size_t)s * k + j]);
        if (ok) ws->row[m++] = s;
    }
    ws->m = m;
    ws->p = p;
    double *X = ws->X0;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t s = ws->row[i];
        ws->y0[i] = y[s];
        X[i] = 1.0;
        X[(size_t)m + i] = a[s];
        X[2 * (size_t)m + i] = b[s];
        for (uint32_t j = 0; j < k; j++) X[(3 + (size_t)j) * m + i] = C[(size_t)s * k + j];
        X[(size_t)(p - 1) * m + i] = a[s] * b[s];
    }
    return ES_OK;
}

/* ---- QR ----------------------------------------------------------------------------------- */

int es_reg_qr(es_reg_ws_t *ws, uint32_t m, uint32_t cols)
{
    double *A = ws->A;
    for (uint32_t j = 0; j < cols; j++) {
        /* scaled sum of squares: no overflow for any finite column */
        const double *c = A + (size_t)j * m;
        double mx = 0, ss = 0;
        for (uint32_t i = 0; i < m; i++)
            if (fabs(c[i]) > mx) mx = fabs(c[i]);
        if (mx > 0)
            for (uint32_t i = 0; i < m; i++) ss += (c[i] / mx) * (c[i] / mx);
        ws->norm[j] = mx * sqrt(ss);
    }
    int im = (int)m, in = (int)cols, info = 0;
    dgeqrf_(&im, &in, A, &im, ws->tau, ws->work, &ws->lwork, &info);
    if (info != 0) return 1;
    for (uint32_t j = 0; j + 1 < cols; j++) {
        double r = fabs(A[(size_t)j * m + j]);
        if (!(ws->norm[j] > 0) || !(r > ES_REG_RANK_TOL * ws->norm[j])) return 1;
    }
    return 0;
}

int es_reg_qr_solve(es_reg_ws_t *ws, uint32_t m, uint32_t p, double *beta)
{
    int ip = (int)p, im = (int)m, one = 1, info = 0;
    /* the first p entries of the last column are Q'y */
    memcpy(beta, ws->A + (size_t)p * m, p * sizeof *beta);
    dtrtrs_("U", "N", "N", &ip, &one, ws->A, &im, beta, &ip, &info);
    return info != 0;
}

void es_reg_fail(es_reg_result_t *res, es_reg_status_t st, uint32_t m, uint32_t p)
{
    res->status = st;
    res->n = m;
    res->n_param = p;
    res->beta = res->se = res->stat = res->p = res->log10p = res->df = NAN;
    res->iter = 0;
}

const char *es_reg_status_str(es_reg_status_t st)
{
    switch (st) {
    case ES_REG_OK: return "ok";
    case ES_REG_TOO_FEW: return "too few complete samples";
    case ES_REG_SINGULAR: return "singular design";
    case ES_REG_PERFECT_FIT: return "perfect fit";
    case ES_REG_NOT_BINARY: return "outcome not 0/1 with both classes";
    case ES_REG_SEPARATION: return "separation";
    case ES_REG_NO_CONVERGE: return "no convergence";
    }
    return "unknown";
}

/* ---- the linear test ------------------------------------------------------------------------ */

int es_reg_linear(es_reg_ws_t *ws, const double *y, const double *a, const double *b,
                  const double *C, uint32_t n, uint32_t k, es_reg_result_t *res)
{
    int ret = es_reg_design(ws, y, a, b, C, n, k, res);
    if (ret != ES_OK) return ret;
    uint32_t m = ws->m, p = ws->p;
    if (m < (uint64_t)p + 1) {
        es_reg_fail(res, ES_REG_TOO_FEW, m, p);
        return ES_OK;
    }
    memcpy(ws->A, ws->X0, (size_t)m * p * sizeof *ws->A);
    memcpy(ws->A + (size_t)m * p, ws->y0, (size_t)m * sizeof *ws->A);
    if (es_reg_qr(ws, m, p + 1)) {
        es_reg_fail(res, ES_REG_SINGULAR, m, p);
        return ES_OK;
    }
    const double *A = ws->A;
    double r_ii = A[(size_t)(p - 1) * m + (p - 1)];
    double r_iy = A[(size_t)p * m + (p - 1)];
    double r_yy = A[(size_t)p * m + p];
    double df = (double)(m - p);
    double sigma = fabs(r_yy) / sqrt(df);
    /* RSS at rounding level of y: the design reproduces y, and the SE is noise */
    if (!(fabs(r_yy) > 1e-13 * ws->norm[p])) {
        es_reg_fail(res, ES_REG_PERFECT_FIT, m, p);
        return ES_OK;
    }
    res->status = ES_REG_OK;
    res->n = m;
    res->n_param = p;
    res->beta = r_iy / r_ii;
    res->se = sigma / fabs(r_ii);
    res->stat = res->beta / res->se;
    res->df = df;
    res->iter = 0;
    es_reg_pvalue(res, res->stat, df);
    return ES_OK;
}

/* ---- residualisation ------------------------------------------------------------------------ */

int es_reg_residualize(const double *y, const double *C, uint32_t n, uint32_t k, double *out)
{
    if (!y || (k && !C) || !out || n > INT_MAX || k > ES_REG_MAX_COVARIATES) {
        es_error("invalid arguments (a NULL array, or %u samples x %u covariates)", n, k);
        return ES_ERR_ARG;
    }
    int ret = ES_OK;
    uint32_t p = 1 + k, m = 0;
    es_reg_ws_t *ws = es_reg_ws_create();
    if (!ws || es_reg_ws_reserve(ws, n, (size_t)p + 1) != ES_OK) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t s = 0; s < n; s++) {
        int ok = isfinite(y[s]);
        for (uint32_t j = 0; ok && j < k; j++) ok = isfinite(C[(size_t)s * k + j]);
        out[s] = NAN;
        if (ok) ws->row[m++] = s;
    }
    if (m < p) {
        es_error("%u complete samples cannot fit an intercept and %u covariate%s", m, k,
                 k == 1 ? "" : "s");
        ret = ES_ERR_ARG;
        goto out;
    }
    double *A = ws->A;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t s = ws->row[i];
        A[i] = 1.0;
        for (uint32_t j = 0; j < k; j++) A[(1 + (size_t)j) * m + i] = C[(size_t)s * k + j];
        A[(size_t)p * m + i] = y[s];
    }
    if (es_reg_qr(ws, m, p + 1) || es_reg_qr_solve(ws, m, p, ws->beta)) {
        es_error("the covariates are collinear (with each other or the intercept) on the %u "
                 "complete samples", m);
        ret = ES_ERR_ARG;
        goto out;
    }
    for (uint32_t i = 0; i < m; i++) {
        uint32_t s = ws->row[i];
        double fit = ws->beta[0];
        for (uint32_t j = 0; j < k; j++) fit += ws->beta[1 + j] * C[(size_t)s * k + j];
        out[s] = y[s] - fit;
    }
out:
    if (ret == ES_ERR_NOMEM) es_error("out of memory residualising %u samples on %u covariates", n, k);
    es_reg_ws_destroy(ws);
    return ret;
}
