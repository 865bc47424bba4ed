/* tu_rand.h -- splitmix64, the tests' deterministic random numbers: small,
 * good enough for test data.  No cmocka, so that benchmark programs share it
 * (tests/testutil.h includes it for the cmocka tests). */
#ifndef ES_TU_RAND_H
#define ES_TU_RAND_H

#include <stdint.h>

static inline uint64_t tu_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif /* ES_TU_RAND_H */
