/* count_internal.h -- the scalar AND + popcount loops, private to src/count.
 *
 * The bodies are always_inline so the same C source is compiled several
 * times: once for any CPU (where, without -mpopcnt, __builtin_popcountll
 * becomes a libgcc call on x86), and inside target("popcnt") functions, where
 * it becomes the POPCNT instruction (popcount.c's kernels and count.c's
 * fused per-pair path). */
#ifndef ES_COUNT_INTERNAL_H
#define ES_COUNT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

static inline __attribute__((always_inline)) void
and4_body(const uint64_t *restrict a1, const uint64_t *restrict a2, const uint64_t *restrict b1,
          const uint64_t *restrict b2, size_t nw, uint64_t out[4])
{
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i < nw; i++) {
        uint64_t x1 = a1[i], x2 = a2[i], y1 = b1[i], y2 = b2[i];
        s0 += (uint64_t)__builtin_popcountll(x1 & y1);
        s1 += (uint64_t)__builtin_popcountll(x1 & y2);
        s2 += (uint64_t)__builtin_popcountll(x2 & y1);
        s3 += (uint64_t)__builtin_popcountll(x2 & y2);
    }
    out[0] += s0;
    out[1] += s1;
    out[2] += s2;
    out[3] += s3;
}

static inline __attribute__((always_inline)) void
and9_body(const uint64_t *restrict a1, const uint64_t *restrict a2, const uint64_t *restrict av,
          const uint64_t *restrict b1, const uint64_t *restrict b2, const uint64_t *restrict bv,
          size_t nw, uint64_t out[9])
{
    uint64_t s[9] = {0};
    for (size_t i = 0; i < nw; i++) {
        uint64_t x1 = a1[i], x2 = a2[i], xv = av[i], y1 = b1[i], y2 = b2[i], yv = bv[i];
        s[0] += (uint64_t)__builtin_popcountll(x1 & y1);
        s[1] += (uint64_t)__builtin_popcountll(x1 & y2);
        s[2] += (uint64_t)__builtin_popcountll(x2 & y1);
        s[3] += (uint64_t)__builtin_popcountll(x2 & y2);
        s[4] += (uint64_t)__builtin_popcountll(x1 & yv);
        s[5] += (uint64_t)__builtin_popcountll(x2 & yv);
        s[6] += (uint64_t)__builtin_popcountll(xv & y1);
        s[7] += (uint64_t)__builtin_popcountll(xv & y2);
        s[8] += (uint64_t)__builtin_popcountll(xv & yv);
    }
    for (int k = 0; k < 9; k++)
        out[k] += s[k];
}

#endif /* ES_COUNT_INTERNAL_H */
