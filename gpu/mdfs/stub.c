/* stub.c -- the MDFS GPU door when CUDA is not built: no device opens. */
#include "epistream.h"
#include "gpu.h"
#include "mdfs_gpu.h"

int es_gkm_device_count(int *n)
{
    return es_gpu_device_count(n); /* gpu_stub.c's: none */
}

const char *es_gkm_unsupported(uint32_t k, uint32_t m, uint32_t n_vars, uint32_t n_con, uint32_t n_obj)
{
    (void)k;
    (void)m;
    (void)n_vars;
    (void)n_con;
    (void)n_obj;
    return "this build has no CUDA";
}

int es_gkm_open(int dev, const es_gkm_config_t *cfg, es_gkm_t **out)
{
    (void)dev;
    (void)cfg;
    *out = NULL;
    return ES_ERR_UNSUPPORTED;
}

int es_gkm_upload(es_gkm_t *g, const uint64_t *planes, const uint32_t *bin_ct, const double *hm1)
{
    (void)g;
    (void)planes;
    (void)bin_ct;
    (void)hm1;
    return ES_ERR_UNSUPPORTED;
}

int es_gkm_max(es_gkm_t *g, uint64_t *keys)
{
    (void)g;
    (void)keys;
    return ES_ERR_UNSUPPORTED;
}

int es_gkm_candidates(es_gkm_t *g, const uint64_t *keys, const es_gkm_cand_t **cand, uint64_t *n)
{
    (void)g;
    (void)keys;
    *cand = NULL;
    *n = 0;
    return ES_ERR_UNSUPPORTED;
}

double es_gkm_margin(const es_gkm_t *g)
{
    (void)g;
    return 0.0;
}

const char *es_gkm_name(const es_gkm_t *g)
{
    (void)g;
    return "none";
}

double es_gkm_kernel_seconds(const es_gkm_t *g)
{
    (void)g;
    return 0.0;
}

void es_gkm_close(es_gkm_t *g)
{
    (void)g;
}

int es_gkm_pin(void *p, size_t bytes)
{
    (void)p, (void)bytes;
    return ES_ERR_UNSUPPORTED;
}

void es_gkm_unpin(void *p)
{
    (void)p;
}
