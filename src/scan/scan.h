/* scan.h -- the scan driver (es_scan_create/run/destroy of epistream.h), its
 * options (opt.c) and its result files (output.h).  Internal (not installed);
 * depends on src/backend and below.  The public interface is epistream.h. */
#ifndef ES_SCAN_H
#define ES_SCAN_H

#include "backend.h"

/** Pack variants [0, m) of ds into n_blocks blocks of `block` (the last
 *  shorter), in memory or, beyond opt->host_mem, in an unlinked mapped file
 *  under opt->tmp_dir; *out gets the array (free each with es_planes_free()
 *  even after an error, then the array).  @return ES_OK, ES_ERR_NOMEM, ES_ERR_IO */
int es_scan_pack_blocks(const es_dataset_t *ds, const es_opt_t *opt, uint32_t m, uint32_t block,
                        uint32_t n_blocks, uint32_t n_planes, int threads, es_planes_t **out);
/** Smallest G (chi-square, df) whose p-value can be <= thr, with a margin for
 *  the p-value's rounding; -inf for thr >= 1, +inf for df <= 0. */
double es_scan_g_critical(double thr, int df);
/** The order-3 run (scan3.c), called by es_scan_run(). */
int es_scan3_run(es_scan_t *s);

#endif /* ES_SCAN_H */
