/* count.h -- AND+popcount kernels over bit planes (a scalar twin and the SIMD
 * variants this CPU has) and the 2x3x3 pair tables built from them.  Internal
 * (not installed); depends on src/data. */
#ifndef ES_COUNT_H
#define ES_COUNT_H

#include <stddef.h>
#include <stdint.h>

#include "data.h"

/* ---- popcount kernels (src/popcount.c) ---------------------------------- */

/** out[0..3] += popcounts of a1&b1, a1&b2, a2&b1, a2&b2 over nw words. */
typedef void (*es_and4_fn)(const uint64_t *restrict a1, const uint64_t *restrict a2,
                           const uint64_t *restrict b1, const uint64_t *restrict b2, size_t nw,
                           uint64_t out[4]);
/** out[0..8] += popcounts of a1&b1, a1&b2, a2&b1, a2&b2, a1&bv, a2&bv,
 *  av&b1, av&b2, av&bv over nw words (the missing-aware path). */
typedef void (*es_and9_fn)(const uint64_t *restrict a1, const uint64_t *restrict a2,
                           const uint64_t *restrict av, const uint64_t *restrict b1,
                           const uint64_t *restrict b2, const uint64_t *restrict bv, size_t nw,
                           uint64_t out[9]);

typedef struct {
    const char *name; /* "scalar", "avx2", "avx512" */
    es_and4_fn and4;
    es_and9_fn and9;
} es_popcount_impl_t;

/** The scalar twins (always compiled; the oracle in tests). */
extern const es_popcount_impl_t es_popcount_scalar;
/** @return the fastest implementation this CPU supports (resolved once). */
const es_popcount_impl_t *es_popcount_best(void);
/** @return all implementations this CPU supports, NULL-terminated (tests). */
const es_popcount_impl_t *const *es_popcount_all(void);

/* ---- pair tables (src/count.c) ------------------------------------------ */

/** A 2x3x3 contingency table: n[y][a*3+b], y 0 control / 1 case,
 *  a, b genotype (copies of A1) of the first and second variant. */
typedef struct {
    uint32_t n[2][9];
} es_table2_t;

/**
 * Count the table of variants a and b (indices relative to their planes).
 * Uses the 4-product path when neither variant has a missing call and the
 * 9-product path otherwise; samples missing at either variant are left out.
 */
void es_count_pair(const es_popcount_impl_t *impl, const es_planes_t *pa, uint32_t a,
                   const es_planes_t *pb, uint32_t b, es_table2_t *t);

/**
 * The tables of variant a against each of variants b0 .. b0+nb-1 of pb:
 * t[k] is the table of (a, b0+k), exactly es_count_pair()'s.  The CPU scan's
 * inner loop: one dispatch for the run of partners, kernels inlined.
 * @param t nb tables
 */
void es_count_block(const es_popcount_impl_t *impl, const es_planes_t *pa, uint32_t a,
                    const es_planes_t *pb, uint32_t b0, uint32_t nb, es_table2_t *t);

/**
 * The fastest kernel for planes like pl on this CPU, measured on pl's first
 * variants (about a millisecond); es_popcount_best() when EPISTREAM_POPCOUNT
 * forces one.  Every kernel gives the same tables.
 */
const es_popcount_impl_t *es_count_pick(const es_planes_t *pl);
/** Reference: the same table from decoded genotypes (0,1,2,3=missing) and
 *  per-sample status (0,1,-1 left out).  Used by tests. */
void es_count_pair_naive(const uint8_t *ga, const uint8_t *gb, const int8_t *status, uint32_t n,
                         es_table2_t *t);

#endif /* ES_COUNT_H */
