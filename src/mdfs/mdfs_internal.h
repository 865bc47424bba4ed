/* mdfs_internal.h -- private to src/mdfs/, not public API: the mt19937 the
 * discretisation and the contrast variables draw from. */
#ifndef ES_MDFS_INTERNAL_H
#define ES_MDFS_INTERNAL_H

#include <stdint.h>

/** std::mt19937 (32-bit Mersenne twister, the C++ standard's parameters). */
typedef struct {
    uint32_t x[624];
    int i;
} es_mt_t;

/** Seed as std::mt19937(s). */
void es_mt_seed(es_mt_t *m, uint32_t s);
/** The next 32-bit output. */
uint32_t es_mt_next(es_mt_t *m);

/**
 * The counting kernel (kernel.c): for each prefix cell i < np and counted bin
 * b < nb, out[i][2 b + y] = |pre[i] & bin[b]| over class y's words (class 0:
 * [0, w0), class 1: [w0, W)).
 */
typedef void (*es_mdfs_cells_fn)(const uint64_t *const *pre, uint32_t np,
                                 const uint64_t *const *bin, uint32_t nb, uint32_t w0, uint32_t W,
                                 uint32_t *const *out);
/** The scalar twin (any CPU; tests). */
es_mdfs_cells_fn es_mdfs_cells_scalar(void);
/** The fastest variant this CPU has (EPISTREAM_POPCOUNT=scalar forces the twin). */
es_mdfs_cells_fn es_mdfs_cells_best(void);

#endif /* ES_MDFS_INTERNAL_H */
