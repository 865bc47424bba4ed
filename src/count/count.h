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
    const char *name; /* "scalar", "popcnt", "avx2", "avx512" */
    unsigned isa;     /* the ES_CPU_* feature its kernels need (0: none) */
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

/* ---- triple tables (src/count3.c) ----------------------------------------- */

/** A 2x27 contingency table of a variant triple: n[y][a*9+b*3+c], y 0
 *  control / 1 case, a, b, c the genotypes of the first, second and third
 *  variant (samples missing at any of the three left out). */
typedef struct {
    uint32_t n[2][27];
} es_table3_t;

/** The pair sums the 8-product path of a triple needs from one of its pairs
 *  (u, v) without missing calls: per class, |P1u&P1v|, |P1u&P2v|, |P2u&P1v|,
 *  |P2u&P2v|. */
typedef struct {
    uint32_t c[2][4];
} es_cum2_t;

/** es_cum2_t of pair table t (whose variants have no missing call). */
void es_cum2_from_table(const es_table2_t *t, es_cum2_t *c);

/**
 * The AND planes of a pair (a, b), counted against many third variants.
 * x holds 9 planes of `words` words, plane s*3+t = X_a^s & X_b^t with s, t
 * in {0: V (called; the class mask for planes without V), 1: P1, 2: P2},
 * then the class mask.
 */
typedef struct {
    uint64_t *x;                   /* 9 * words, 64-byte aligned (es_pair3_alloc) */
    uint32_t words, off[2], nw[2]; /* class y's counted words: [off[y], off[y] + nw[y]) */
    uint32_t n_planes;             /* of the planes the pair came from: 2 or 3 */
    uint32_t cls[2];               /* samples per class */
    uint32_t ga[2][3], gb[2][3];   /* genotype counts of a and b */
    uint32_t cum_ab[2][4];         /* |P_a^s & P_b^t|, s, t in {1, 2} */
    int missing;                   /* a or b has a missing call */
    int mask_ok;                   /* plane 9: the class mask (V of a variant without a V plane) */
    uint32_t mask_cls[2];
    /* Sparse missing calls (both of a and b listed in their planes' miss_pos):
     * the slots missing at a or b, each with its class and (a, b) cell
     * (a missing call read as genotype 0): code y * 9 + ga * 3 + gb.  A
     * triple whose third variant is listed too is counted as if every call
     * were made (8 products) and then corrected at these slots and the
     * third's (es_count3_soa). */
    int sparse;
    uint32_t n_miss, *miss_pos;
    uint8_t *miss_code;
    const uint64_t *pa[3], *pb[3]; /* a's and b's planes V (or the mask), P1, P2 */
    uint32_t cut;                  /* first control slot */
} es_pair3_t;

/** Allocate p's planes for planes like pl.  @return ES_OK or ES_ERR_NOMEM. */
int es_pair3_alloc(es_pair3_t *p, const es_planes_t *pl);
void es_pair3_free(es_pair3_t *p);
/** Build the AND planes of variants a (of pa) and b (of pb). */
void es_pair3_set(es_pair3_t *p, const es_planes_t *pa, uint32_t a, const es_planes_t *pb, uint32_t b);

/**
 * The tables of the pair in p with each of variants c0 .. c0+nc-1 of pc:
 * t[k] is the 2x27 table of (a, b, c0+k).  ac[k] and bc[k] are the pair sums
 * of (a, c0+k) and (b, c0+k); they are read only for triples without any
 * missing call (8 products a class and the margins); the others count all 27
 * products with the V planes.  The planes of a, b and c have one layout (the
 * same n_planes, as a scan's blocks do).
 */
void es_count3_run(const es_pair3_t *p, const es_planes_t *pc, uint32_t c0, uint32_t nc,
                   const es_cum2_t *ac, const es_cum2_t *bc, es_table3_t *t);

/** Triples of one es_count3_soa() run at most. */
#define ES_RUN3 64

/** The tables of a run of triples, cell by cell: n[y][c][q] is cell (y, c)
 *  of triple q (the layout the batched statistics read, a vector of
 *  triples per cell). */
typedef struct {
    _Alignas(64) uint32_t n[2][27][ES_RUN3];
} es_table3_soa_t;

/**
 * es_count3_run() with the kernels of impl (its isa: scalar, POPCNT, AVX2
 * or AVX-512 popcounts of the 8 products), the tables written cell by cell:
 * triple q (0 <= q < nc <= ES_RUN3) is (a, b, c0+q).  Every impl gives the
 * same tables.
 */
void es_count3_soa(const es_popcount_impl_t *impl, const es_pair3_t *p, const es_planes_t *pc, uint32_t c0,
                   uint32_t nc, const es_cum2_t *ac, const es_cum2_t *bc, es_table3_soa_t *t);

/** The fastest es_count3_soa() kernel for planes like pl on this CPU,
 *  measured on pl's first variants; es_popcount_best() when
 *  EPISTREAM_POPCOUNT forces one.  Every kernel gives the same tables. */
const es_popcount_impl_t *es_count3_pick(const es_planes_t *pl);

/** Triple q of a cell-by-cell run as a table. */
void es_table3_from_soa(const es_table3_soa_t *s, uint32_t q, es_table3_t *t);
/** Where each cell goes when a table's axes are moved as es_table3_permute()
 *  moves them: cell c of the input is cell dst[c] of the output. */
void es_table3_perm_cells(const int rank[3], uint8_t dst[27]);
/** The table of (x, y, z) with its axes moved: rank[v] is where axis v of
 *  in goes in out (0, 1, 2); the GPU backend puts a seeded triple's table in
 *  sorted variant order with it. */
void es_table3_permute(const es_table3_t *in, const int rank[3], es_table3_t *out);

/** The table of one triple, from the planes alone (tests).
 *  @return ES_OK or ES_ERR_NOMEM */
int es_count_triple(const es_planes_t *pa, uint32_t a, const es_planes_t *pb, uint32_t b,
                    const es_planes_t *pc, uint32_t c, es_table3_t *t);

/** Reference: the table from decoded genotypes (0,1,2,3=missing) and status
 *  (0,1,-1 left out). */
void es_count_triple_naive(const uint8_t *ga, const uint8_t *gb, const uint8_t *gc,
                           const int8_t *status, uint32_t n, es_table3_t *t);

#endif /* ES_COUNT_H */
