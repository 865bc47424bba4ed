/* regress.h -- exact per-pair regression tests of interaction and the covariate file
 * (doc/REGRESSION.md says what each function computes).
 *
 * Internal (not installed); depends on src/util and formats only, so any module from data up
 * may use it.  Names: es_reg_* for the regressions, es_covar_* for the covariate file.
 *
 *   covar.c      PLINK 1.9 --covar files with --covar-name selection
 *   linear.c     OLS of y ~ 1 + a + b + a*b + C through a LAPACK QR; residualisation on 1 + C
 *   logistic.c   logistic regression of the same design by IRLS (Newton), each step a LAPACK QR
 *   dist.c       Student's t and standard normal tails, with their logarithms where p underflows
 */
#ifndef ES_REGRESS_H
#define ES_REGRESS_H

#include <stdint.h>

#include "util.h"

/* ---- covariates (covar.c) ------------------------------------------------------------ */

/** The selected covariates of every input sample. */
typedef struct {
    uint32_t n_samples; /**< input samples (rows of val) */
    uint32_t k;         /**< selected covariates (columns of val), in the file's column order */
    char **names;       /**< k names: the header's, or COV1..COVm (m = covariate columns) */
    double *val;        /**< n_samples x k, row-major; NAN where missing */
    uint8_t *missing;   /**< per sample: 1 when the sample has no line in the file or any
                             selected covariate is missing (-9, NA, nan) */
    uint32_t n_missing; /**< samples with missing[s] == 1 */
} es_covar_t;

/**
 * Read a PLINK 1.9 covariate file: whitespace-separated lines "FID IID c1 c2 ...", matched to the
 * input samples on FID and IID; an optional header line whose first two fields are FID and IID
 * ("#FID" also) names the covariates (otherwise they are COV1, COV2, ...).  A value -9 (any
 * spelling whose number is -9), NA or nan is missing.  Lines of samples not in the input are
 * ignored (counted in a warning); input samples without a line are flagged missing.
 *
 * @param path   the file
 * @param names  NULL for every covariate, or a --covar-name list: comma-separated names and
 *               ranges NAME1-NAME2 (inclusive, in column order); a token that is no name may be
 *               a 1-based covariate column number or a range of them ("1-3").  The selected
 *               covariates keep the file's column order; one named twice is taken once.
 * @param n_samples, fid, iid  the input samples' IDs (borrowed)
 * @param out    filled on success (free with es_covar_free(); zeroed on failure)
 * @return ES_OK; ES_ERR_FORMAT (an empty file, a header with no covariate, a ragged line, a
 *         value that is not a number, a sample listed twice), ES_ERR_ARG (an unknown or empty
 *         --covar-name entry, a column number out of range), ES_ERR_IO, ES_ERR_NOMEM; each
 *         logged with the file and the line.
 */
int es_covar_read(const char *path, const char *names, uint32_t n_samples,
                  const char *const *fid, const char *const *iid, es_covar_t *out);
/** Release what es_covar_read() filled (a zeroed struct is fine) and zero it. */
void es_covar_free(es_covar_t *c);

/* ---- regressions (linear.c, logistic.c) ------------------------------------------------ */

/** Outcome of one fit. */
typedef enum {
    ES_REG_OK = 0,     /**< fitted; every field of es_reg_result_t is set */
    ES_REG_TOO_FEW,    /**< fewer complete samples than parameters + 1 (no residual df) */
    ES_REG_SINGULAR,   /**< the design is rank deficient (a monomorphic variant, a == b, a
                            covariate that is a combination of the others, ...) */
    ES_REG_PERFECT_FIT, /**< linear: the design fits y exactly (RSS = 0), so no SE */
    ES_REG_NOT_BINARY, /**< logistic: y has a value other than 0 and 1, or only one class */
    ES_REG_SEPARATION, /**< logistic: fitted probabilities reach 0 or 1 (separation) */
    ES_REG_NO_CONVERGE /**< logistic: no convergence in ES_REG_MAX_ITER Newton steps */
} es_reg_status_t;

/** Newton steps a logistic fit may take. */
#define ES_REG_MAX_ITER 50

/** The interaction term's estimate and test.  When status != ES_REG_OK every double is NAN. */
typedef struct {
    es_reg_status_t status;
    uint32_t n;       /**< complete samples used */
    uint32_t n_param; /**< parameters p = 4 + k */
    double beta;      /**< BETA_INT: the coefficient of a*b */
    double se;        /**< SE_INT: its standard error */
    double stat;      /**< T (linear, df = n - p) or Z (logistic, Wald) = beta / se */
    double p;         /**< two-sided p-value (may underflow to 0) */
    double log10p;    /**< -log10 p, accurate when p underflows */
    double df;        /**< residual df n - p (linear); INFINITY for the logistic Wald z */
    int iter;         /**< Newton steps (logistic); 0 for linear */
} es_reg_result_t;

/** A fit's working memory, grown as needed and reused across fits.  One per thread. */
typedef struct es_reg_ws es_reg_ws_t;

/** @return a new workspace (free with es_reg_ws_destroy()), or NULL when out of memory. */
es_reg_ws_t *es_reg_ws_create(void);
/** Release a workspace (NULL is allowed). */
void es_reg_ws_destroy(es_reg_ws_t *ws);

/**
 * Linear regression y ~ 1 + a + b + a*b + C by least squares (Householder QR of the design,
 * LAPACK dgeqrf), and the t test of the a*b coefficient: SE = sqrt(RSS / (n - p) *
 * [(X'X)^-1]_{ab,ab}), T = BETA / SE, P = 2 P(t_{n-p} > |T|), as plink2 --glm interaction and
 * plink1.9 --epistasis report it for a quantitative trait.
 *
 * @param ws  workspace (not shared between threads)
 * @param y, a, b  n values: the trait and the two variants' genotype codes (copies of A1)
 * @param C   n x k covariates, row-major (NULL when k == 0)
 * A sample with a non-finite value in y, a, b or its row of C is left out.
 * @param res the result; res->status says whether the fit succeeded
 * @return ES_OK (whether or not the fit succeeded), ES_ERR_ARG (NULL pointers) or ES_ERR_NOMEM
 */
int es_reg_linear(es_reg_ws_t *ws, const double *y, const double *a, const double *b,
                  const double *C, uint32_t n, uint32_t k, es_reg_result_t *res);

/**
 * Logistic regression of a 0/1 y on the same design by Newton's method (IRLS; each step a
 * weighted least-squares solve by QR), from beta = 0, until every coefficient moves by less than
 * 1e-10 (1 + |beta_j|) (at most ES_REG_MAX_ITER steps); then the Wald test of the a*b
 * coefficient: Z = BETA / SE, SE from the inverse Fisher information at the estimate,
 * P = 2 P(N(0,1) > |Z|), as plink2 --glm reports Z_STAT and P.  Separation (a fitted linear
 * predictor beyond +-30 while the coefficients still move) and non-convergence are failures.
 * Arguments and returns as es_reg_linear().
 */
int es_reg_logistic(es_reg_ws_t *ws, const double *y, const double *a, const double *b,
                    const double *C, uint32_t n, uint32_t k, es_reg_result_t *res);

/**
 * Residualise: out = y minus its least-squares fit on 1 + C (n x k, row-major; k may be 0, then
 * out = y minus its mean).  Samples with a non-finite y or covariate get NAN and take no part in
 * the fit.
 * @return ES_OK, ES_ERR_ARG (NULL pointers; fewer complete samples than 1 + k; 1 + C rank
 *         deficient on the complete samples; each logged) or ES_ERR_NOMEM
 */
int es_reg_residualize(const double *y, const double *C, uint32_t n, uint32_t k, double *out);

/** @return a short English name of a fit status ("singular design", ...). */
const char *es_reg_status_str(es_reg_status_t st);

/* ---- distributions (dist.c) ------------------------------------------------------------ */

/** P(T > t) for Student's t with df > 0 degrees of freedom (df may be fractional or INFINITY).
 *  Relative accuracy about 1e-12 for df below 1e4 and 1e-10 up to df = 1e6 (tests/regress.sh
 *  measures it against scipy), where the result is representable. */
double es_reg_t_sf(double t, double df);
/** ln P(T > t), finite where es_reg_t_sf() underflows. */
double es_reg_t_logsf(double t, double df);
/** ln I_x(a, b), the regularised incomplete beta function (a, b > 0), from x and y = 1 - x,
 *  which the caller forms without cancellation (e.g. x = d/(d + t^2), y = t^2/(d + t^2)): the
 *  F and t tails are I_x of such ratios.  Thread-safe (no lgamma()). */
double es_reg_log_ibeta(double a, double b, double x, double y);
/** ln P(Z > z) for the standard normal, finite for every finite z. */
double es_reg_norm_logsf(double z);

#endif /* ES_REGRESS_H */
