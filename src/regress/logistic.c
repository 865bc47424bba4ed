/* logistic.c -- the exact logistic interaction test: logit P(y = 1) = 1 + a + b + a*b + C, by
 * Newton's method in its IRLS form, and the Wald test of the a*b coefficient.
 *
 * Each step solves the weighted least-squares problem min || W^1/2 (z - X beta) || with
 * w = mu (1 - mu) and the working response z = eta + (y - mu) / w, by the same QR of the
 * augmented matrix [W^1/2 X | W^1/2 z] that the linear test uses (linear.c): the new beta is the
 * triangular solve, and at the estimate the interaction's variance [(X'WX)^-1]_{p-1,p-1} is
 * 1 / R[p-1][p-1]^2 from the last QR, taken at the converged beta.
 *
 * Convergence: every coefficient moved by less than 1e-10 (1 + |beta_j|) in the last step.
 * Newton's method converges quadratically near the estimate, so this is reached a step or two
 * after the estimate is exact to double precision, far tighter than PLINK's (plink2 --glm stops
 * on a change of the log-likelihood); ES_REG_MAX_ITER steps at most.  Under complete or
 * quasi-complete separation the estimate does not exist: the coefficients grow without bound and
 * fitted probabilities go to 0 or 1.  That is reported as ES_REG_SEPARATION when, after the step
 * cap, a fitted linear predictor exceeds +-30 (probability within 1e-13 of 0 or 1), or as soon
 * as a weight mu (1 - mu) underflows; any other failure to converge is ES_REG_NO_CONVERGE.
 * PLINK reports NA in both cases. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "regress_internal.h"

#define ETA_SEPARATED 30.0
#define CONV_TOL 1e-10

/* Build the weighted augmented matrix at ws->eta; @return 1 when a weight underflowed. */
static int weigh(es_reg_ws_t *ws)
{
    uint32_t m = ws->m, p = ws->p;
    for (uint32_t i = 0; i < m; i++) {
        double eta = ws->eta[i];
        /* mu and 1 - mu each without cancellation */
        double e = exp(-fabs(eta));
        double mu_small = e / (1 + e); /* the smaller of mu, 1 - mu */
        double w = mu_small * (1 - mu_small);
        if (!(w > 1e-300)) return 1;
        /* y - mu formed without rounding mu to 1 first: beyond eta = 37, 1 - mu would be 0, the
         * step would vanish and a separated fit would look converged */
        int y1 = ws->y0[i] == 1.0;
        double resid = eta >= 0 ? (y1 ? mu_small : -(1 - mu_small)) : (y1 ? 1 - mu_small : -mu_small);
        double sw = sqrt(w);
        for (uint32_t j = 0; j < p; j++) ws->A[(size_t)j * m + i] = sw * ws->X0[(size_t)j * m + i];
        ws->A[(size_t)p * m + i] = sw * eta + resid / sw;
    }
    return 0;
}

int es_reg_logistic(es_reg_ws_t *ws, const double *y, const double *a, const double *b,
                    const double *C, uint32_t n, uint32_t k, es_reg_result_t *res)
{
    int ret = es_reg_design(ws, y, a, b, C, n, k, res);
    if (ret != ES_OK) return ret;
    uint32_t m = ws->m, p = ws->p;
    uint32_t n1 = 0;
    for (uint32_t i = 0; i < m; i++) {
        if (ws->y0[i] != 0.0 && ws->y0[i] != 1.0) {
            es_reg_fail(res, ES_REG_NOT_BINARY, m, p);
            return ES_OK;
        }
        n1 += ws->y0[i] == 1.0;
    }
    if (m < (uint64_t)p + 1) {
        es_reg_fail(res, ES_REG_TOO_FEW, m, p);
        return ES_OK;
    }
    if (n1 == 0 || n1 == m) {
        es_reg_fail(res, ES_REG_NOT_BINARY, m, p);
        return ES_OK;
    }
    double *beta = ws->beta, *bn = ws->beta_new;
    for (uint32_t j = 0; j < p; j++) beta[j] = 0;
    memset(ws->eta, 0, (size_t)m * sizeof *ws->eta);
    int converged = 0, iter = 0;
    while (iter < ES_REG_MAX_ITER && !converged) {
        if (weigh(ws)) {
            es_reg_fail(res, ES_REG_SEPARATION, m, p);
            res->iter = iter;
            return ES_OK;
        }
        if (es_reg_qr(ws, m, p + 1) || es_reg_qr_solve(ws, m, p, bn)) {
            es_reg_fail(res, ES_REG_SINGULAR, m, p);
            res->iter = iter;
            return ES_OK;
        }
        iter++;
        converged = 1;
        for (uint32_t j = 0; j < p; j++) {
            if (!isfinite(bn[j])) {
                es_reg_fail(res, ES_REG_SEPARATION, m, p);
                res->iter = iter;
                return ES_OK;
            }
            if (fabs(bn[j] - beta[j]) >= CONV_TOL * (1 + fabs(bn[j]))) converged = 0;
            beta[j] = bn[j];
        }
        for (uint32_t i = 0; i < m; i++) {
            double e = 0;
            for (uint32_t j = 0; j < p; j++) e += ws->X0[(size_t)j * m + i] * beta[j];
            ws->eta[i] = e;
        }
    }
    if (!converged) {
        double emax = 0;
        for (uint32_t i = 0; i < m; i++)
            if (fabs(ws->eta[i]) > emax) emax = fabs(ws->eta[i]);
        es_reg_fail(res, emax > ETA_SEPARATED ? ES_REG_SEPARATION : ES_REG_NO_CONVERGE, m, p);
        res->iter = iter;
        return ES_OK;
    }
    /* the information at the estimate itself */
    if (weigh(ws)) {
        es_reg_fail(res, ES_REG_SEPARATION, m, p);
        res->iter = iter;
        return ES_OK;
    }
    if (es_reg_qr(ws, m, p + 1)) {
        es_reg_fail(res, ES_REG_SINGULAR, m, p);
        res->iter = iter;
        return ES_OK;
    }
    double r_ii = ws->A[(size_t)(p - 1) * m + (p - 1)];
    res->status = ES_REG_OK;
    res->n = m;
    res->n_param = p;
    res->beta = beta[p - 1];
    res->se = 1.0 / fabs(r_ii);
    res->stat = res->beta / res->se;
    res->df = INFINITY;
    res->iter = iter;
    es_reg_pvalue(res, res->stat, INFINITY);
    return ES_OK;
}
