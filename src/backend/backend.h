/* backend.h -- the devices: a table of operations per backend (CPU, CUDA) and
 * the registry that picks one.  Internal (not installed); depends on src/tile
 * (the scan's worker interface) and gpu/gpu.h.  Only registry.c knows whether
 * CUDA was compiled in. */
#ifndef ES_BACKEND_H
#define ES_BACKEND_H

#include "tile.h"

/** A compute backend: a table of operations (designated initialisers). */
typedef struct es_backend {
    const char *name;
    /** @return number of usable devices (CPU: 1). */
    int (*device_count)(void);
    /** Run tiles from the scan's queue until it is empty. */
    int (*run)(struct es_scan_ctx *ctx);
    /** Variants per block when --block is not given (bytes: packed size of
     *  one variant); NULL: the scan's CPU default. */
    uint32_t (*auto_block)(const struct es_scan_ctx *ctx, size_t bytes_per_variant);
} es_backend_t;

extern const es_backend_t es_backend_cpu;
/** The CUDA backend; compiled in every build (against gpu/gpu_stub.c when
 *  CUDA is not), registered only by registry.c when CUDA is. */
extern const es_backend_t es_backend_gpu;
/** @return the backend for a device choice, or NULL with *err set. */
const es_backend_t *es_backend_select(const es_opt_t *opt, int *err);
/** @return number of CUDA devices (0 without CUDA). */
int es_backend_gpu_count(void);

#endif /* ES_BACKEND_H */
