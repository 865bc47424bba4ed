/* stub.c -- the NSGA-II GPU door when CUDA is not built: no device opens. */
#include "epistream.h"
#include "gpu.h"
#include "nsga_gpu.h"

int es_gkn_device_count(int *n)
{
    return es_gpu_device_count(n); /* gpu_stub.c's: none */
}

int es_gkn_open(int dev, const es_gkn_config_t *cfg, es_gkn_t **out)
{
    (void)dev;
    (void)cfg;
    *out = NULL;
    return ES_ERR_UNSUPPORTED;
}

int es_gkn_population(es_gkn_t *g, const uint64_t *masks, uint32_t n, const uint32_t *init,
                      const uint32_t *order)
{
    (void)g;
    (void)masks;
    (void)n;
    (void)init;
    (void)order;
    return ES_ERR_UNSUPPORTED;
}

int es_gkn_launch(es_gkn_t *g, uint32_t first, uint32_t count)
{
    (void)g;
    (void)first;
    (void)count;
    return ES_ERR_UNSUPPORTED;
}

int es_gkn_wait(es_gkn_t *g, double *f)
{
    (void)g;
    (void)f;
    return ES_ERR_UNSUPPORTED;
}

int es_gkn_eval(es_gkn_t *g, uint32_t first, uint32_t count, double *f)
{
    (void)g;
    (void)first;
    (void)count;
    (void)f;
    return ES_ERR_UNSUPPORTED;
}

double es_gkn_kernel_seconds(es_gkn_t *g, int *wide)
{
    (void)g;
    if (wide) *wide = 0;
    return 0.0;
}

double es_gkn_launch_overhead(const es_gkn_t *g)
{
    (void)g;
    return 0.0;
}

uint32_t es_gkn_chunk(const es_gkn_t *g)
{
    (void)g;
    return 1;
}

uint32_t es_gkn_sms(const es_gkn_t *g)
{
    (void)g;
    return 1;
}

const char *es_gkn_name(const es_gkn_t *g)
{
    (void)g;
    return "none";
}

void es_gkn_close(es_gkn_t *g)
{
    (void)g;
}
