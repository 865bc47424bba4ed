/* regress_internal.h -- not public API: what linear.c and logistic.c share inside src/regress/
 * (the workspace, the design matrix, the QR through LAPACK). */
#ifndef ES_REGRESS_INTERNAL_H
#define ES_REGRESS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "regress.h"

/* A design's column j is "zero" after the columns before it (rank deficient) when its QR
 * diagonal is below this fraction of its own norm: a column that is a combination of the
 * others leaves ~1e-16 of its norm; genotypes in LD r^2 = 1 - 1e-12 still leave 1e-6. */
#define ES_REG_RANK_TOL 1e-9

struct es_reg_ws {
    size_t cap_rows, cap_cols; /* room: rows x cols of A and X0 */
    uint32_t m, p;       /* complete samples, parameters of the current design */
    uint32_t *row;       /* m: the input index of each complete sample */
    double *X0;          /* m x p, column-major: 1, a, b, C..., a*b (the interaction last) */
    double *y0;          /* m: the trait of the complete samples */
    double *A;           /* m x (p + 1), column-major: [X | y] (weighted for IRLS), then its QR */
    double *norm;        /* p + 1: column norms of A before the QR */
    double *tau;         /* p + 1: Householder scalars */
    double *work;        /* lwork */
    int lwork;
    double *beta, *beta_new; /* p */
    double *eta;         /* m: the linear predictor (logistic) */
};

/* Size ws for rows x cols (cols = p + 1).  @return ES_OK or ES_ERR_NOMEM */
int es_reg_ws_reserve(es_reg_ws_t *ws, size_t rows, size_t cols);

/* Check the arguments of a fit (res: where its result will go) and put the complete samples of
 * (y, a, b, C) into ws->row, ws->y0 and the design ws->X0 (column order: 1, a, b, C_1..C_k,
 * a*b).  Sets ws->m and ws->p.  @return ES_OK, ES_ERR_ARG (a NULL pointer, n or k too large)
 * or ES_ERR_NOMEM */
int es_reg_design(es_reg_ws_t *ws, const double *y, const double *a, const double *b,
                  const double *C, uint32_t n, uint32_t k, const es_reg_result_t *res);

/* covariates a fit takes at most (so that 4 + k and the workspace sizes cannot overflow) */
#define ES_REG_MAX_COVARIATES 100000u

/* QR (LAPACK dgeqrf) of ws->A, m x cols, after recording the column norms.
 * @return 0, or 1 when one of the first cols - 1 columns is rank deficient
 * (ES_REG_RANK_TOL) */
int es_reg_qr(es_reg_ws_t *ws, uint32_t m, uint32_t cols);

/* Solve R beta = (Q'y)[0..p) from the QR of [X | y] in ws->A (LAPACK dtrtrs) into beta.
 * @return 0, or 1 when R is singular */
int es_reg_qr_solve(es_reg_ws_t *ws, uint32_t m, uint32_t p, double *beta);

/* Fill res for a failed fit. */
void es_reg_fail(es_reg_result_t *res, es_reg_status_t st, uint32_t m, uint32_t p);

/* The two-sided p-value of a statistic with df degrees of freedom (INFINITY: normal) into
 * res->p and res->log10p. */
void es_reg_pvalue(es_reg_result_t *res, double stat, double df);

#endif /* ES_REGRESS_INTERNAL_H */
