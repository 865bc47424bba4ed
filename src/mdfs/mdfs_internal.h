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

#define ES_MT_FIRST_MAX 32
/** The first k (<= ES_MT_FIRST_MAX) outputs of std::mt19937(s), computed from
 *  the 397 + k state words they depend on (a discretisation needs a few
 *  outputs of three generators: a whole state each was most of its cost). */
void es_mt_first(uint32_t s, uint32_t *out, int k);

/**
 * The counting kernel (kernel.c): eight next variables at once.  lanes holds
 * their counted bins interleaved: word w of bin b of variable 8g + j at
 * lanes[(b * W + w) * 8 + j].  For each prefix cell i < np and bin b < nb:
 * out[((i * nb + b) * 2 + y) * 8 + j] = |pre[i] & that bin| over class y's
 * words (class 0: [0, w0), class 1: [w0, W)).
 */
typedef void (*es_mdfs_cells8_fn)(const uint64_t *const *pre, uint32_t np, const uint64_t *lanes,
                                  uint32_t nb, uint32_t w0, uint32_t W, uint32_t *out);
/** The scalar twin (any CPU; tests). */
es_mdfs_cells8_fn es_mdfs_cells8_scalar(void);
/** The fastest variant this CPU has (AVX-512, AVX2, POPCNT, scalar), its name
 *  in *name (may be NULL); EPISTREAM_POPCOUNT=scalar|popcnt|avx2 forces a
 *  slower one. */
es_mdfs_cells8_fn es_mdfs_cells8_best(const char **name);

/** dst = a & x over W words; ct[y] = its set bits in class y's words (kernel.c:
 *  the prefix vectors one variable deeper). */
typedef void (*es_mdfs_and_fn)(uint64_t *restrict dst, const uint64_t *restrict a,
                               const uint64_t *restrict x, uint32_t w0, uint32_t W, uint32_t ct[2]);
/** The POPCNT variant where the CPU has it, else the scalar one. */
es_mdfs_and_fn es_mdfs_and_best(void);

#endif /* ES_MDFS_INTERNAL_H */
