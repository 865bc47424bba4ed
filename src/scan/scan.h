/* scan.h -- the scan driver (es_scan_create/run/destroy of epistream.h), its
 * options (opt.c) and its result files (output.h).  Internal (not installed);
 * depends on src/backend and below.  The public interface is epistream.h. */
#ifndef ES_SCAN_H
#define ES_SCAN_H

#include "backend.h"
#include "regress.h"

/** Pack variants [0, m) of ds into n_blocks blocks of `block` (the last
 *  shorter), in memory or, beyond opt->host_mem, in an unlinked mapped file
 *  under opt->tmp_dir; *out gets the array (free each with es_planes_free()
 *  even after an error, then the array).  @return ES_OK, ES_ERR_NOMEM, ES_ERR_IO */
int es_scan_pack_blocks(const es_dataset_t *ds, const es_opt_t *opt, uint32_t m, uint32_t block,
                        uint32_t n_blocks, uint32_t n_planes, int threads, es_planes_t **out);
/** Smallest G (chi-square, df) whose p-value can be <= thr, with a margin for
 *  the p-value's rounding; -inf for thr >= 1, +inf for df <= 0. */
double es_scan_g_critical(double thr, int df);
/** Free an array of n packed blocks (es_scan_pack_blocks()'s, or the
 *  order-3 run's): each block's planes, then the array; NULL: nothing. */
void es_scan_blocks_free(es_planes_t *blocks, uint32_t n);
/** The order-3 run (scan3.c), called by es_scan_run(). */
int es_scan3_run(es_scan_t *s);

/* ---- covariates (adjust.c) ---------------------------------------------------- */

/** Leave out of the analysis the samples that miss a covariate of cv
 *  (path: the file, for messages); *dropped: how many.  @return as
 *  es_dataset_keep_samples() */
int es_scan_covar_samples(es_dataset_t *ds, const es_covar_t *cv, const char *path, uint32_t *dropped);
/** A quantitative trait's values replaced by their residuals on 1 + the
 *  covariates (the screen's phenotype).  @return ES_OK, ES_ERR_ARG (a
 *  singular covariate matrix; logged), ES_ERR_NOMEM */
int es_scan_covar_residualize(es_dataset_t *ds, const es_covar_t *cv);
/** The exact model with covariates for each of pairs[0 .. n_pairs): y ~ 1 +
 *  A + B + AB + covariates over the samples in the analysis called at both,
 *  least squares for a quantitative trait (trait: per input sample) and
 *  logistic for case/control (trait NULL: the cases are 1); out[k] its
 *  interaction term.  @return ES_OK (each fit's own status in out[k]) or
 *  ES_ERR_NOMEM */
int es_scan_adjust(const es_dataset_t *ds, const es_covar_t *cv, const double *trait, const es_pair_t *pairs,
                   size_t n_pairs, int threads, es_reg_result_t *out);
/** order[0 .. n): the indices of fits, best first: fitted before failed,
 *  then by -log10 P, ties by index (the screen's rank).  @return ES_OK or
 *  ES_ERR_NOMEM */
int es_adjust_order(const es_reg_result_t *fits, size_t n, size_t *order);

#endif /* ES_SCAN_H */
