/* backend.h -- the devices: a table of operations per backend (CPU, CUDA) and
 * the registry that picks one.  Internal (not installed); depends on src/tile
 * (the scan's worker interface) and gpu/gpu.h (the plain-C types the device
 * operations take).  Code outside src/backend reaches a device only through
 * this table, never through gpu.h's functions; only registry.c knows whether
 * CUDA was compiled in.
 *
 * The table follows ggml's backend interface: required members first, then
 * optional ones that a backend leaves NULL when it has no such operation, and
 * a capability query (supports) with a cost estimate (cost) that `--device
 * auto` compares.  Every member is safe to call from any thread; the handles
 * the MI operations return belong to the caller, who closes them. */
#ifndef ES_BACKEND_H
#define ES_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "gpu.h"
#include "tile.h"

/** What a piece of work is, for supports() and cost(). */
typedef enum {
    ES_OP_PAIR_SCAN = 0, /**< a 2-way scan (run) */
    ES_OP_MI_HIST,       /**< feature-selection rounds, any table (mi_*) */
    ES_OP_MI_ROWS,       /**< feature-selection rounds, <= 4 states and 2 classes (rows_*) */
    ES_OP_TRIPLE_SCAN    /**< a 3-way scan (run3) */
} es_op_t;

/** The size of a piece of work.  Fields that do not apply stay 0. */
typedef struct {
    es_op_t op;
    uint64_t n_samples;
    uint64_t pairs;    /**< ES_OP_PAIR_SCAN: pairs to test; ES_OP_TRIPLE_SCAN: triples */
    uint64_t features; /**< MI: features (candidates of a round) */
    uint64_t rounds;   /**< MI: rounds counted, the relevance pass included */
    uint64_t cells;    /**< MI: table cells per candidate and round (states x conditioning cells) */
    int threads;       /**< CPU threads the work may use (0: all) */
    int qt;            /**< ES_OP_PAIR_SCAN: a quantitative trait's linear test */
    int dev;           /**< the GPU it would run on (auto: 0) */
} es_work_t;

/** A compute backend: a table of operations (designated initialisers). */
typedef struct es_backend {
    const char *name;

    /* ---- required ---------------------------------------------------------- */
    /** @return number of usable devices (CPU: 1). */
    int (*device_count)(void);
    /** Can this backend do op on work w (NULL w: of any size)?  @return 1 or 0. */
    int (*supports)(es_op_t op, const es_work_t *w);
    /** Estimated wall seconds of w here, opening the device included (the
     *  model and the measurements it rests on: the backend's file). */
    double (*cost)(const es_work_t *w);

    /* ---- optional: NULL (0) when the backend has none ----------------------- */
    /** Bits each class of the scan's packed planes is padded to: a multiple
     *  of 64 that divides ES_PAD_BITS; 0: ES_PAD_BITS (the GPU's tiles). */
    uint32_t pad_bits;
    /** Describe device dev ("NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79.1 GiB").
     *  @return ES_OK, ES_ERR_ARG for a bad index, ES_ERR_GPU. */
    int (*device_describe)(int dev, char *buf, size_t len);
    /** Start opening device dev in the background (its runtime and the
     *  selection kernels), so that a later open does not wait; safe to call
     *  more than once. */
    void (*prepare)(int dev);
    /** Wait for what prepare() started (so that no such thread is still in
     *  the device's runtime when the process exits, e.g. after a command
     *  failed before it used the device); safe to call at any time. */
    void (*settle)(void);

    /* scan: ES_OP_PAIR_SCAN */
    /** Run tiles from the scan's queue until it is empty. */
    int (*run)(struct es_scan_ctx *ctx);
    /** Start loading, on threads of its own, what a pair scan of ctx's shape
     *  (its statistic, options and classes; no block packed yet) with
     *  n_planes bit planes will run first, so that run() does not wait for
     *  it; NULL when there is nothing to do.  The scan passes the handle to
     *  warm_join() before it returns, whatever happened. */
    void *(*warm)(const struct es_scan_ctx *ctx, uint32_t n_planes);
    /** Wait for what warm() started, and free its handle (NULL: nothing). */
    void (*warm_join)(void *h);
    /** Wait for what run() left running beside the caller once its results
     *  were in (the device's closing, which may still unpin the blocks);
     *  the scan calls it before it frees the blocks, and its destruction. */
    void (*finish)(void);
    /** Variants per block when --block is not given (bytes: packed size of
     *  one variant); NULL: the scan's CPU default. */
    uint32_t (*auto_block)(const struct es_scan_ctx *ctx, size_t bytes_per_variant);
    /** 1: run() may start while the blocks are packed (src/scan decides
     *  when): it calls ctx->wait_block(ctx, b), when set, before it reads
     *  block b beyond its count and layout (planes, gcount, first). */
    int pack_overlap;

    /* scan: ES_OP_TRIPLE_SCAN */
    /** Run the triple scan's tiles until its queue is empty. */
    int (*run3)(struct es_scan3_ctx *ctx);
    /** The tile shape of a 3-way scan: may replace *block (variants per
     *  block, the scan's CPU default on entry; --block, when given, wins)
     *  and *seed_chunk (seed pairs per seeded tile, 16 on entry); NULL:
     *  the CPU's shape. */
    void (*shape3)(const struct es_scan3_ctx *ctx, uint32_t *block, uint32_t *seed_chunk);

    /* feature selection, ES_OP_MI_HIST: a discrete table on the device (the
     * contracts are gpu.h's es_gpu_mi_*; close with mi_close) */
    int (*mi_open)(int dev, uint32_t n_samples, uint32_t n_features, unsigned bits, es_gpu_mi_pack_fn pack,
                   void *pack_arg, const uint32_t *n_states, const uint16_t *y, uint32_t n_classes,
                   const double *nl, uint32_t n_nl, es_gpu_mi_t **out);
    int (*mi_round)(es_gpu_mi_t *g, const es_gpu_mi_cond_t *c, const uint8_t *want, double *e3,
                    double *e2);
    double (*mi_seconds)(const es_gpu_mi_t *g);
    void (*mi_close)(es_gpu_mi_t *g);

    /* feature selection, ES_OP_MI_ROWS: the pair engine, one row of tables
     * per round (gpu.h's es_gpu_rows_*; close with rows_close) */
    int (*rows_open)(int dev, int kernel, const es_gpu_config_t *cfg, const es_gpu_block_t *all,
                     es_gpu_rows_t **out);
    int (*rows_count)(es_gpu_rows_t *r, uint32_t row, es_gpu_cand_t *out);
    const char *(*rows_kernel)(const es_gpu_rows_t *r);
    double (*rows_seconds)(const es_gpu_rows_t *r);
    void (*rows_close)(es_gpu_rows_t *r);
} es_backend_t;

extern const es_backend_t es_backend_cpu;
/** The CUDA backend; compiled in every build (against gpu/gpu_stub.c when
 *  CUDA is not), registered only by registry.c when CUDA is. */
extern const es_backend_t es_backend_gpu;

/* ---- the registry (registry.c) --------------------------------------------- */

/** The registered backend of a device kind: the CPU always, the GPU backend
 *  when CUDA is compiled in (even with no device visible), else NULL. */
const es_backend_t *es_backend_get(es_device_t dev);

/** @return number of visible CUDA devices (0 without CUDA); probed once. */
int es_backend_gpu_count(void);
/** Every registered backend's settle(): call before the process exits. */
void es_backend_settle(void);

/**
 * Check a device choice before any work, with the one message each mistake
 * gets: a GPU asked for where there is none (or no CUDA in the build), a GPU
 * number that does not exist ("--device gpu:1: there is no such GPU (1
 * visible: 0)"), a GPU-only option with --device cpu.
 * @param gpu_mask the GPUs of --device gpu:N[,N...] (0: every visible one)
 * @param gpu_opt  NULL, or a GPU-only option that was given, as the user
 *                 wrote it ("--gpu-kernel mma")
 * @return ES_OK, or ES_ERR_ARG after the message
 */
int es_backend_check(es_device_t dev, uint64_t gpu_mask, const char *gpu_opt);

/**
 * The backend for a device choice and a piece of work: cpu and gpu as asked
 * (checked as es_backend_check() does); auto the one whose cost() is lower
 * among those that support the work, said in the log with both estimates.
 * @param w the work; NULL: its size is unknown and auto takes a GPU when
 *          one is visible
 * @return the backend, or NULL with *err set (the message logged)
 */
const es_backend_t *es_backend_choose(es_device_t dev, uint64_t gpu_mask, const es_work_t *w, int *err);

/** es_backend_choose() for a scan's options and work (w NULL: unknown). */
const es_backend_t *es_backend_select_work(const es_opt_t *opt, const es_work_t *w, int *err);

#endif /* ES_BACKEND_H */
