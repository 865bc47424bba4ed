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

#endif /* ES_MDFS_INTERNAL_H */
