/* gpu_stub.c -- gpu.h and gpu_test.h for builds without CUDA: no devices. */
#include <stdio.h>

#include "epistream.h"
#include "gpu.h"
#include "gpu_test.h"

int es_gpu_device_count(int *n)
{
    *n = 0;
    return ES_OK;
}

int es_gpu_device_describe(int dev, char *buf, size_t len)
{
    if (len) snprintf(buf, len, "no CUDA support in this build (device %d)", dev);
    return ES_ERR_ARG;
}

/* Without CUDA there is no device to open: every engine entry point says so.
 * (The scan never reaches them: with no device the CPU backend is used.) */
int es_gpu_open(int dev, const es_gpu_config_t *cfg, es_gpu_t **out)
{
    (void)dev;
    (void)cfg;
    *out = NULL;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_warm(int dev, const es_gpu_config_t *cfg)
{
    (void)dev;
    (void)cfg;
    return ES_ERR_UNSUPPORTED;
}

void es_gpu_warm_release(int dev) { (void)dev; }

void es_gpu_close(es_gpu_t *g) { (void)g; }

const char *es_gpu_kernel_name(const es_gpu_t *g)
{
    (void)g;
    return "none";
}

size_t es_gpu_slot_bytes(uint32_t block, uint32_t n_planes, uint32_t words)
{
    return (size_t)block * n_planes * words * 8 + (size_t)block * 24; /* no device: planes and counts */
}

size_t es_gpu_slot_bytes_lite(uint32_t block, uint32_t n_planes, uint32_t words)
{
    return es_gpu_slot_bytes(block, n_planes, words); /* no device: the planes and counts either way */
}

int es_gpu_cache_slots(const es_gpu_t *g)
{
    (void)g;
    return 0;
}

int es_gpu_cache_lite(const es_gpu_t *g)
{
    (void)g;
    return 0;
}

int es_gpu_preload(es_gpu_t *g, const es_gpu_block_t *b)
{
    (void)g;
    (void)b;
    return ES_ERR_UNSUPPORTED;
}

double es_gpu_upload_seconds(const es_gpu_t *g)
{
    (void)g;
    return 0.0;
}

void es_gpu_host_register(void *p, size_t bytes)
{
    (void)p;
    (void)bytes;
}

void es_gpu_host_unregister(void *p) { (void)p; }

int es_gpu_submit(es_gpu_t *g, const es_gpu_block_t *a, const es_gpu_block_t *b, uint32_t tau_key)
{
    (void)g;
    (void)a;
    (void)b;
    (void)tau_key;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_collect(es_gpu_t *g, const es_gpu_cand_t **cand, size_t *n, uint32_t *bi, uint32_t *bj)
{
    (void)g;
    (void)cand;
    (void)bi;
    (void)bj;
    *n = 0;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_in_flight(const es_gpu_t *g)
{
    (void)g;
    return 0;
}

int es_gpu_count_tables(int dev, int kernel, const es_gpu_config_t *cfg, const es_gpu_block_t *a,
                        const es_gpu_block_t *b, es_gpu_cand_t *out)
{
    (void)dev;
    (void)kernel;
    (void)cfg;
    (void)a;
    (void)b;
    (void)out;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_b1_ceiling(int dev, double *bitmac_per_s)
{
    (void)dev;
    *bitmac_per_s = 0.0;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_b1_gemm_test(int dev, int np, const uint64_t *a, uint32_t na, const uint64_t *b, uint32_t nb,
                        uint32_t words, uint32_t off_ctrl, uint32_t kw0, uint32_t kw1, uint32_t *out)
{
    (void)dev;
    (void)np;
    (void)a;
    (void)na;
    (void)b;
    (void)nb;
    (void)words;
    (void)off_ctrl;
    (void)kw0;
    (void)kw1;
    (void)out;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_b1_ceiling_wgmma(int dev, double *bitmac_per_s)
{
    (void)dev;
    *bitmac_per_s = 0.0;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_wgmma_feed_rate(int dev, uint32_t n_samples, double *pairs_per_s)
{
    (void)dev;
    (void)n_samples;
    *pairs_per_s = 0.0;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_wgmma_loader(int mode)
{
    (void)mode;
    return 0;
}

double es_gpu_kernel_seconds(const es_gpu_t *g)
{
    (void)g;
    return 0.0;
}

int es_gpu_screen_stats(es_gpu_t *g, unsigned long long out[4])
{
    (void)g;
    out[0] = out[1] = out[2] = out[3] = 0;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_bounds(int dev, int stat, const es_gpu_cand_t *tables, size_t n, const double *lnfact,
                  uint32_t n_lnfact, float *out)
{
    (void)dev;
    (void)stat;
    (void)tables;
    (void)n;
    (void)lnfact;
    (void)n_lnfact;
    (void)out;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_screen_host(int stat, int s3, const es_gpu_cand_t *tables, size_t n, float *out)
{
    (void)stat;
    (void)s3;
    (void)tables;
    (void)n;
    (void)out;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_exact(int dev, int stat, const es_gpu_cand_t *tables, size_t n, const double *nlogn, uint32_t n_nlogn,
                 double *val, double *eps, int *ok, double *fit)
{
    (void)dev;
    return es_gpu_exact_host(stat, tables, n, nlogn, n_nlogn, val, eps, ok, fit);
}

int es_gpu_exact_host(int stat, const es_gpu_cand_t *tables, size_t n, const double *nlogn, uint32_t n_nlogn,
                      double *val, double *eps, int *ok, double *fit)
{
    (void)fit;
    (void)stat;
    (void)tables;
    (void)n;
    (void)nlogn;
    (void)n_nlogn;
    (void)val;
    (void)eps;
    (void)ok;
    return ES_ERR_UNSUPPORTED;
}

double es_gpu_exact_seconds(const es_gpu_t *g)
{
    (void)g;
    return 0.0;
}

double es_gpu_prepass_seconds(const es_gpu_t *g)
{
    (void)g;
    return 0.0;
}

double es_gpu_gap_seconds(const es_gpu_t *g)
{
    (void)g;
    return 0.0;
}

const double *es_gpu_collect_fits(const es_gpu_t *g)
{
    (void)g;
    return NULL;
}

int es_gpu_exact_stats(es_gpu_t *g, unsigned long long out[3])
{
    (void)g;
    out[0] = out[1] = out[2] = 0;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_mi_open(int dev, uint32_t n_samples, uint32_t n_features, unsigned bits, es_gpu_mi_pack_fn pack,
                   void *pack_arg, const uint32_t *n_states, const uint16_t *y, uint32_t n_classes,
                   const double *nl, uint32_t n_nl, es_gpu_mi_t **out)
{
    (void)dev, (void)n_samples, (void)n_features, (void)bits, (void)pack, (void)pack_arg, (void)n_states;
    (void)y, (void)n_classes, (void)nl, (void)n_nl;
    *out = NULL;
    return ES_ERR_UNSUPPORTED;
}

void es_gpu_mi_close(es_gpu_mi_t *g) { (void)g; }

int es_gpu_mi_prepare(int dev)
{
    (void)dev;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_mi_round(es_gpu_mi_t *g, const es_gpu_mi_cond_t *c, const uint8_t *want, double *e3,
                    double *e2)
{
    (void)g, (void)c, (void)want, (void)e3, (void)e2;
    return ES_ERR_UNSUPPORTED;
}

double es_gpu_mi_seconds(const es_gpu_mi_t *g)
{
    (void)g;
    return 0.0;
}

int es_gpu_rows_open(int dev, int kernel, const es_gpu_config_t *cfg, const es_gpu_block_t *all,
                     es_gpu_rows_t **out)
{
    (void)dev, (void)kernel, (void)cfg, (void)all;
    *out = NULL;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_rows_count(es_gpu_rows_t *r, uint32_t row, es_gpu_cand_t *out)
{
    (void)r, (void)row, (void)out;
    return ES_ERR_UNSUPPORTED;
}

const char *es_gpu_rows_kernel(const es_gpu_rows_t *r)
{
    (void)r;
    return "none";
}

double es_gpu_rows_seconds(const es_gpu_rows_t *r)
{
    (void)r;
    return 0.0;
}

void es_gpu_rows_close(es_gpu_rows_t *r) { (void)r; }

/* ---- the 3-way engine ------------------------------------------------------- */

int es_gpu3_open(int dev, const es_gpu3_config_t *cfg, uint32_t n_blocks, es_gpu3_t **out)
{
    (void)dev;
    (void)cfg;
    (void)n_blocks;
    *out = NULL;
    return ES_ERR_UNSUPPORTED;
}

void es_gpu3_close(es_gpu3_t *g) { (void)g; }

const char *es_gpu3_kernel_name(const es_gpu3_t *g)
{
    (void)g;
    return "none";
}

double es_gpu3_kernel_seconds(const es_gpu3_t *g)
{
    (void)g;
    return 0.0;
}

int es_gpu3_cache_slots(const es_gpu3_t *g)
{
    (void)g;
    return 0;
}

int es_gpu3_submit(es_gpu3_t *g, const es_gpu_block_t *a, const es_gpu_block_t *b, const es_gpu_block_t *c,
                   uint32_t tau_key)
{
    (void)g;
    (void)a;
    (void)b;
    (void)c;
    (void)tau_key;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu3_submit_seeds(es_gpu3_t *g, uint32_t n, const uint32_t *idx, const uint64_t *const *planes,
                         const uint32_t *const *gcount, const es_gpu_block_t *c, uint32_t tau_key)
{
    (void)g;
    (void)n;
    (void)idx;
    (void)planes;
    (void)gcount;
    (void)c;
    (void)tau_key;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu3_collect(es_gpu3_t *g, const es_gpu_cand3_t **cand, size_t *n, uint32_t tag[3])
{
    (void)g;
    (void)tag;
    *cand = NULL;
    *n = 0;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu3_in_flight(const es_gpu3_t *g)
{
    (void)g;
    return 0;
}

int es_gpu3_count_tables(int dev, int kernel, const es_gpu3_config_t *cfg, const es_gpu_block_t *a,
                         const es_gpu_block_t *b, const es_gpu_block_t *c, uint32_t *out)
{
    (void)dev;
    (void)kernel;
    (void)cfg;
    (void)a;
    (void)b;
    (void)c;
    (void)out;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu3_bounds(int dev, int stat, const uint32_t *tables, size_t n, const double *lnfact,
                   uint32_t n_lnfact, float *out)
{
    (void)dev;
    (void)stat;
    (void)tables;
    (void)n;
    (void)lnfact;
    (void)n_lnfact;
    (void)out;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_qt_open(int dev, const es_gpu_qt_config_t *cfg, es_gpu_qt_t **out)
{
    (void)dev;
    (void)cfg;
    *out = NULL;
    return ES_ERR_UNSUPPORTED;
}

void es_gpu_qt_close(es_gpu_qt_t *g) { (void)g; }

int es_gpu_qt_tile(es_gpu_qt_t *g, const es_gpu_qt_block_t *a, const es_gpu_qt_block_t *b, double tau,
                   const es_gpu_qt_cand_t **cand, size_t *n)
{
    (void)g;
    (void)a;
    (void)b;
    (void)tau;
    *cand = NULL;
    *n = 0;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_qt_start(es_gpu_qt_t *g, const es_gpu_qt_block_t *a, const es_gpu_qt_block_t *b, double tau)
{
    (void)g;
    (void)a;
    (void)b;
    (void)tau;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_qt_finish(es_gpu_qt_t *g, const es_gpu_qt_cand_t **cand, size_t *n)
{
    (void)g;
    *cand = NULL;
    *n = 0;
    return ES_ERR_UNSUPPORTED;
}

int es_gpu_qt_cached(const es_gpu_qt_t *g, uint32_t index)
{
    (void)g;
    (void)index;
    return 0;
}

double es_gpu_qt_seconds(const es_gpu_qt_t *g)
{
    (void)g;
    return 0.0;
}

double es_gpu_qt_count_seconds(const es_gpu_qt_t *g)
{
    (void)g;
    return 0.0;
}

double es_gpu_qt_upload_seconds(const es_gpu_qt_t *g)
{
    (void)g;
    return 0.0;
}

int es_gpu_qt_bound_test(int dev, const es_gpu_qt_pair_t *p, size_t n, double scale, double scale2, uint8_t *fail,
                         uint8_t *cert, double *zsq, double *zlo)
{
    (void)dev;
    (void)p;
    (void)n;
    (void)scale;
    (void)scale2;
    (void)fail;
    (void)cert;
    (void)zsq;
    (void)zlo;
    return ES_ERR_UNSUPPORTED;
}
