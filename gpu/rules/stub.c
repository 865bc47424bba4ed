/* stub.c -- the rule learner's GPU door when CUDA is not built: no device opens. */
#include "epistream.h"
#include "gpu.h"
#include "rules_gpu.h"

int es_gkr_device_count(int *n)
{
    return es_gpu_device_count(n); /* gpu_stub.c's: none */
}

int es_gkr_open(int dev, const es_gkr_config_t *cfg, es_gkr_t **out)
{
    (void)dev;
    (void)cfg;
    *out = NULL;
    return ES_ERR_UNSUPPORTED;
}

int es_gkr_stats(es_gkr_t *g, const double *grad, const double *hess, const uint32_t *w)
{
    (void)g;
    (void)grad;
    (void)hess;
    (void)w;
    return ES_ERR_UNSUPPORTED;
}

int es_gkr_search(es_gkr_t *g, const es_gkr_refine_t *r, es_gkr_best_t *b, double *G, double *H)
{
    (void)g;
    (void)r;
    (void)G;
    (void)H;
    b->found = 0;
    return ES_ERR_UNSUPPORTED;
}

const char *es_gkr_name(const es_gkr_t *g)
{
    (void)g;
    return "none";
}

void es_gkr_close(es_gkr_t *g)
{
    (void)g;
}
