/* opt.c -- scan options: defaults and the validator run before any allocation. */
#include <math.h>

#include "es_internal.h"

void es_opt_init(es_opt_t *opt)
{
    opt->stat = ES_STAT_BOOST;
    opt->top_k = 1000;
    opt->p_threshold = -1.0;
    opt->threads = 0;
    opt->device = ES_DEVICE_AUTO;
    opt->block_variants = 0;
    opt->progress = 0;
}

int es_opt_check(const es_opt_t *opt)
{
    if ((unsigned)opt->stat > ES_STAT_K2) {
        es_error("unknown statistic code %d", (int)opt->stat);
        return ES_ERR_ARG;
    }
    if (opt->top_k == 0) {
        es_error("--top must be at least 1");
        return ES_ERR_ARG;
    }
    if (opt->top_k > 100000000u) {
        es_error("--top %u is too large (at most 100,000,000 pairs are kept in memory)",
                 opt->top_k);
        return ES_ERR_ARG;
    }
    if (opt->p_threshold >= 0) {
        if (!es_stat_has_p(opt->stat)) {
            es_error("--p-threshold needs a statistic with a p-value; %s has none",
                     es_stat_name(opt->stat));
            return ES_ERR_ARG;
        }
        if (!(opt->p_threshold <= 1.0) || isnan(opt->p_threshold)) {
            es_error("--p-threshold must be in [0, 1], got %g", opt->p_threshold);
            return ES_ERR_ARG;
        }
    }
    if (opt->threads < 0 || opt->threads > 4096) {
        es_error("--threads must be between 0 (all) and 4096, got %d", opt->threads);
        return ES_ERR_ARG;
    }
    if ((unsigned)opt->device > ES_DEVICE_GPU) {
        es_error("unknown device code %d", (int)opt->device);
        return ES_ERR_ARG;
    }
    if (opt->block_variants > 65536) {
        es_error("--block must be at most 65536 variants, got %u", opt->block_variants);
        return ES_ERR_ARG;
    }
    return ES_OK;
}
