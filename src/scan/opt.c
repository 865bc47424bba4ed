/* opt.c -- scan options: defaults and the validator run before any allocation. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"

void es_opt_init(es_opt_t *opt)
{
    memset(opt, 0, sizeof *opt); /* every field, including ones added later */
    opt->stat = ES_STAT_BOOST;
    opt->top_k = 1000;
    opt->p_threshold = -1.0;
    opt->threads = 0;
    opt->device = ES_DEVICE_AUTO;
    opt->block_variants = 0;
    opt->progress = 0;
    opt->gpu_mask = 0;
    opt->gpu_mem = 0;
    opt->gpu_kernel = 0;
    opt->host_mem = 0;
    opt->tmp_dir = NULL;
    opt->order = 2;
    opt->pairs_top = 0;
    opt->checkpoint_every = 600.0;
}

int es_gpu_kernel_parse(const char *name, int *out)
{
    static const char *const names[] = {"auto", "wgmma", "mma", "popc", "ws"};
    for (int k = 0; k < 5; k++) {
        if (!strcmp(name, names[k])) {
            *out = k;
            return ES_OK;
        }
    }
    es_error("unknown GPU kernel '%s' (expected auto, wgmma, ws, mma or popc)", name);
    return ES_ERR_ARG;
}

int es_device_parse(const char *text, es_opt_t *opt)
{
    if (!strcmp(text, "auto")) {
        opt->device = ES_DEVICE_AUTO;
        opt->gpu_mask = 0;
        return ES_OK;
    }
    if (!strcmp(text, "cpu")) {
        opt->device = ES_DEVICE_CPU;
        return ES_OK;
    }
    if (!strcmp(text, "gpu")) {
        opt->device = ES_DEVICE_GPU;
        opt->gpu_mask = 0;
        return ES_OK;
    }
    if (strncmp(text, "gpu:", 4) != 0 || !text[4]) goto bad;
    uint64_t mask = 0;
    const char *p = text + 4;
    for (;;) {
        char *end;
        errno = 0;
        if (*p < '0' || *p > '9') goto bad;
        unsigned long d = strtoul(p, &end, 10);
        if (errno || d > 63) {
            es_error("--device %s: GPU numbers go from 0 to 63", text);
            return ES_ERR_ARG;
        }
        mask |= (uint64_t)1 << d;
        if (!*end) break;
        if (*end != ',') goto bad;
        p = end + 1;
    }
    opt->device = ES_DEVICE_GPU;
    opt->gpu_mask = mask;
    return ES_OK;
bad:
    es_error("--device: expected auto, cpu, gpu or gpu:N[,N...], got '%s'", text);
    return ES_ERR_ARG;
}

int es_opt_check(const es_opt_t *opt)
{
    if ((unsigned)opt->stat > ES_STAT_LOGISTIC) {
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
    if (opt->gpu_kernel < 0 || opt->gpu_kernel > 4) {
        es_error("unknown GPU kernel code %d", opt->gpu_kernel);
        return ES_ERR_ARG;
    }
    /* the GPUs asked for exist, and --gpu-kernel has a GPU to choose for:
     * the registry's messages, the same for every command */
    static const char *const kernels[] = {"auto", "wgmma", "mma", "popc", "ws"};
    char gpu_opt[32];
    snprintf(gpu_opt, sizeof gpu_opt, "--gpu-kernel %s", kernels[opt->gpu_kernel]);
    int ret = es_backend_check(opt->device, opt->gpu_mask, opt->gpu_kernel ? gpu_opt : NULL);
    if (ret) return ret;
    if (opt->order != 2 && opt->order != 3) {
        es_error("--order must be 2 (pairs) or 3 (triples), got %d", opt->order);
        return ES_ERR_ARG;
    }
    if (opt->order == 3 && opt->stat == ES_STAT_BOOST) {
        es_error("--stat boost has no 3-way form (it is a test of pairwise interaction in a "
                 "log-linear model); with --order 3 use chi2, mi, ig or k2");
        return ES_ERR_ARG;
    }
    if (opt->pairs_top && opt->order != 3) {
        es_error("--pairs-top seeds a 3-way scan; it needs --order 3");
        return ES_ERR_ARG;
    }
    if (opt->pairs_top > 10000000u) {
        es_error("--pairs-top %u is too large (at most 10,000,000 seed pairs)", opt->pairs_top);
        return ES_ERR_ARG;
    }
    if (opt->block_variants > 65536) {
        es_error("--block must be at most 65536 variants, got %u", opt->block_variants);
        return ES_ERR_ARG;
    }
    if (!(opt->checkpoint_every >= 0) || opt->checkpoint_every > 1e9) {
        es_error("--checkpoint-every must be a number of seconds >= 0, got %g", opt->checkpoint_every);
        return ES_ERR_ARG;
    }
    if (opt->resume && !opt->checkpoint) {
        es_error("--resume continues from a checkpoint: give --checkpoint FILE");
        return ES_ERR_ARG;
    }
    if (opt->shard_n && (opt->shard_i >= opt->shard_n || !opt->checkpoint)) {
        es_error(opt->shard_i >= opt->shard_n ? "--shard I/N: I must be below N (0-based), got %u/%u"
                                              : "a shard (%u/%u) needs a file for its state",
                 opt->shard_i, opt->shard_n);
        return ES_ERR_ARG;
    }
    if (opt->merge && (opt->shard_n || opt->checkpoint)) {
        es_error("a merge of shards is not itself a shard or a checkpointed run");
        return ES_ERR_ARG;
    }
    return ES_OK;
}
