/* tu_planes.h -- planes of one class built by hand, as es_pack() lays them
 * out (P1 = [g >= 1], P2 = [g == 2], V = [called]; g = 3 a missing call,
 * which sets none; each class padded to 256 bits), for tests and
 * benchmarks.  No cmocka, so that benchmark programs share it. */
#ifndef ES_TU_PLANES_H
#define ES_TU_PLANES_H

#include <stdint.h>
#include <stdlib.h>

#include "select.h"

/* m variants of n samples, one class, every bit clear (free pl->planes).
 * @return 0, or -1 without memory */
static inline int tu_planes_alloc(es_planes_t *pl, uint32_t m, uint32_t n)
{
    uint32_t words = (n + 255) / 256 * 4;
    pl->count = m;
    pl->n_ctrl = n;
    pl->w_ctrl = pl->words = words;
    pl->n_planes = 3;
    pl->planes = calloc((size_t)m * 3 * words, sizeof(uint64_t));
    return pl->planes ? 0 : -1;
}

/* p: the variant's three planes of `words` words each; s: the slot */
static inline void tu_plane_set(uint64_t *p, uint32_t words, uint32_t s, unsigned g)
{
    uint64_t bit = (uint64_t)1 << (s % 64);
    if (g == 3) return;
    p[2 * (size_t)words + s / 64] |= bit;
    if (g >= 1) p[s / 64] |= bit;
    if (g == 2) p[(size_t)words + s / 64] |= bit;
}

#endif /* ES_TU_PLANES_H */
