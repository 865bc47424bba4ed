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
 * es_count_block() for planes of one class (n_case 0: a quantitative trait)
 * whose missing calls the caller has matched against the partner: mc[k] =
 * the numbers of b0+k's missing calls at which a has P1, P2, V set, then of
 * a's missing calls at which b0+k has P1, P2 set (es_qt_sums_run_hi() counts
 * them).  The tables are es_count_block()'s; with two classes it is
 * es_count_block() (mc unused).
 */
void es_count_block_listed(const es_popcount_impl_t *impl, const es_planes_t *pa, uint32_t a,
                           const es_planes_t *pb, uint32_t b0, uint32_t nb, const uint32_t (*mc)[5],
                           es_table2_t *t);

/** Pairs of one es_count_run() at most (the CPU scan's run of partners). */
#define ES_RUN2 64

/** The tables of a run of pairs, cell by cell: n[y][c][k] is cell (y, c) of
 *  pair k (the layout the batched BOOST bound reads, a vector of pairs per
 *  cell). */
typedef struct {
    _Alignas(64) uint32_t n[2][9][ES_RUN2];
} es_table2_soa_t;

/** A block's P1 and P2 planes with its variants side by side: word w of
 *  plane p of variant v at w[((size_t)p * words + w) * stride + v], columns
 *  count .. stride-1 zero, and the genotype counts the margins read, laid
 *  out the same way.  es_count_run() reads eight partners' words in one
 *  vector from it, so their products need no horizontal sums.  Owned by the
 *  caller (one per thread): fill with es_planes_tr_fill(), free with
 *  es_planes_tr_free(). */
typedef struct {
    uint64_t *w;
    uint32_t *gc;                    /* gcount[v][y][g], g = 1, 2, at gc[(2 * y + g - 1) * stride + v] */
    size_t cap, cap_gc;              /* elements allocated */
    uint32_t stride, words, count;
    const es_planes_t *of;           /* the planes it holds (NULL: none) */
} es_planes_tr_t;

/** Lay out pl's planes in t (the buffer grows as needed).
 *  @return 0, or ES_ERR_NOMEM (t then holds nothing). */
int es_planes_tr_fill(es_planes_tr_t *t, const es_planes_t *pl);
/** Free t's buffer (the struct itself is the caller's). */
void es_planes_tr_free(es_planes_tr_t *t);

/** es_count_block_listed() of first variants a0 .. a0+na-1 against b0 ..
 *  b0+nb-1: t[g * stride + k] the table of pair (a0 + g, b0 + k), from
 *  mc[g * stride + k] (es_qt_sums_group()'s layout); each partner's planes
 *  are read once for the group.  tb: pb's planes side by side
 *  (es_planes_tr_fill(), read when tb->of == pb; else, or NULL, pb's own),
 *  which lets AVX-512 count eight partners a vector with no horizontal
 *  sums; the tables are the same. */
void es_count_group_listed(const es_popcount_impl_t *impl, const es_planes_t *pa, uint32_t a0, uint32_t na,
                           const es_planes_t *pb, const es_planes_tr_t *tb, uint32_t b0, uint32_t nb,
                           const uint32_t (*mc)[5], size_t stride, es_table2_t *t);

/** @return 1 if es_count_run() with impl reads a side-by-side layout
 *  (AVX-512), 0 if it would ignore one. */
int es_count_run_uses_tr(const es_popcount_impl_t *impl);

/**
 * es_count_block() written cell by cell: pair k (0 <= k < nb <= ES_RUN2) is
 * (a, b0+k), its table exactly es_count_pair()'s.  With AVX-512 the products
 * (from tb, pb laid out by es_planes_tr_fill(), when given), the margins, the
 * corrections at listed missing calls and the derivation of the cells run
 * eight pairs a vector; other kernels count through es_count_block().
 * @param tb pb side by side, or NULL
 */
void es_count_run(const es_popcount_impl_t *impl, const es_planes_t *pa, uint32_t a,
                  const es_planes_t *pb, const es_planes_tr_t *tb, uint32_t b0, uint32_t nb,
                  es_table2_soa_t *s);

/** Pair k of a cell-by-cell run as a table. */
static inline void es_table2_from_soa(const es_table2_soa_t *s, uint32_t k, es_table2_t *t)
{
    for (int y = 0; y < 2; y++)
        for (int c = 0; c < 9; c++) t->n[y][c] = s->n[y][c][k];
}

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

/* ---- quantitative traits (src/count/qt.c) ---------------------------------
 * A pair's linear interaction test needs, besides its 3x3 table, sums of the
 * phenotype over the pair's cells.  The phenotype is held in fixed point,
 * q = round((y - y0) * scale) < 2^ES_QT_BITS with y0 the smallest value, so
 * that every sum is an exact integer: the same on every device, in any order
 * (doc/QT.md says what the rounding can move and how that is bounded).  The
 * products a * q, (a = 0, 1, 2 copies of A1) split into ES_QT_SLICES bytes,
 * are dotted with the other variant's codes 8 bits at a time (AVX512-VNNI
 * u8 x s8 products, AVX2 maddubs, or the scalar twin): sum_k 256^k dot(slice_k, b). */
#define ES_QT_BITS 39
#define ES_QT_SLICES 5

/** The fixed-point phenotype, per plane slot of class 0 (0 in the pad). */
typedef struct {
    uint32_t slots;   /* plane bits of the class (words * 64) */
    uint32_t n;       /* samples */
    double y0;        /* the smallest value */
    double scale;     /* q = round((y - y0) * scale) */
    double scale2;    /* q2 = round((y - y0)^2 * scale2) < 2^ES_QT_BITS */
    uint64_t *q, *q2;
    double *yd;       /* y - y0 in double (the exact sums) */
} es_qt_y_t;

/** Build the fixed-point phenotype of a quantitative-trait dataset.
 *  @return ES_OK, ES_ERR_DATA (not a quantitative trait, or every value
 *  equal) or ES_ERR_NOMEM */
int es_qt_y_init(es_qt_y_t *y, const es_dataset_t *ds);
void es_qt_y_free(es_qt_y_t *y);

/** Integer sums of one pair over the samples called at both variants (in
 *  units of 1/scale; syy of 1/scale2): a, b the genotypes of the first and
 *  second variant. */
typedef struct {
    int64_t sy, syy;      /* sum of q, of q2 */
    int64_t ra[2], cb[2]; /* sum of q over a = 1, 2 and over b = 1, 2 */
    int64_t saby;         /* sum of a b q */
    int64_t cell[4];      /* cells only: sum of q over (a, b) = (1,1), (1,2), (2,1), (2,2) */
} es_qt_sums_t;

/** The same sums in double, in the phenotype's units (y minus y0). */
typedef struct {
    double sy, syy, say, sby, saby; /* sums of y, y^2, a y, b y, a b y (y minus its smallest value) */
    double ra[2], cb[2];            /* sum of y over a = 1, 2 and b = 1, 2 */
    double cell[4];                 /* linear4: sum of y over (a, b) = (1,1), (1,2), (2,1), (2,2) */
    double quantum;                 /* the most a value of y may be off (half a fixed-point step; 0: exact) */
} es_qt_dsums_t;

/** A block of variants laid out for the QT kernels. */
typedef struct {
    uint32_t count, cap; /* variants filled, allocated */
    uint32_t len;        /* bytes per sample row (slots) */
    int cells;           /* 0: the a*q row per variant (linear); 1: the q[a=1], q[a=2] rows (cells) */
    uint8_t *code;       /* [count][len] 0, 1, 2 copies of A1, 3 missing (pad: 0) */
    uint8_t *code_t;     /* the same slot-major: [len][tstride], tstride = count rounded up to 64 */
    uint32_t tstride;
    uint8_t *ar;         /* [count][rows][ES_QT_SLICES][len] the byte slices */
    int8_t *br;          /* [count][rows][len] b (linear) or [b=1], [b=2] (cells); 0 when missing */
    int64_t (*tot)[4];   /* over the variant's called samples: sum q[g=1], q[g=2], q, q2 */
    uint32_t *moff;      /* count + 1 */
    uint32_t *mpos;      /* missing slots, mpos[moff[v] .. moff[v+1]) */
    int64_t (*mq)[2];    /* q and q2 of each of those slots */
    size_t mcap;
} es_qt_block_t;

/** Lay out variants [v0, v0 + count) of pl (v0 relative to pl) in b; cells
 *  selects the rows the cell sums need.  b is reused (grown as needed);
 *  zero it before the first call.  @return ES_OK or ES_ERR_NOMEM */
int es_qt_block_fill(es_qt_block_t *b, const es_planes_t *pl, uint32_t v0, uint32_t count,
                     const es_qt_y_t *y, int cells);
void es_qt_block_free(es_qt_block_t *b);

/** A thread's scratch for es_qt_sums_run() (zero it first; free with
 *  es_qt_scratch_free()): the first variant's row of what the partners'
 *  missing calls take from the sums, kept while it is the same variant (one
 *  row for each of ES_QT_ROWS consecutive first variants, a % ES_QT_ROWS). */
#define ES_QT_ROWS 4
typedef struct {
    const es_qt_block_t *blk[ES_QT_ROWS]; /* row r holds variant a[r] of blk[r] (NULL: none) */
    uint32_t a[ES_QT_ROWS];
    size_t cap;                           /* slots a row */
    int64_t (*fa)[4];                     /* ES_QT_ROWS rows of cap slots */
    uint64_t *fb; /* per slot [P1] | [P2] << 21 | [V] << 42 of the first variant (the table's corrections) */
    /* es_qt_sums_group(): the codes of ES_QT_GROUP first variants, eight
     * bytes a slot (3 for lanes past the group), of c8_blk from c8_a0 */
    uint64_t *c8;
    size_t c8_cap;
    const es_qt_block_t *c8_blk;
    uint32_t c8_a0;
} es_qt_scratch_t;
void es_qt_scratch_free(es_qt_scratch_t *sc);

/** Sums of variant a of A with variants b0 .. b0+nb-1 of B (out[k]: pair
 *  (a, b0 + k)); A and B laid out alike.  es_qt_sums_run_scalar() is the
 *  oracle of the tests. */
void es_qt_sums_run(const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b0, uint32_t nb,
                    const es_qt_y_t *y, es_qt_scratch_t *sc, es_qt_sums_t *out);
void es_qt_sums_run_scalar(const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b0,
                           uint32_t nb, const es_qt_y_t *y, es_qt_scratch_t *sc, es_qt_sums_t *out);
/** es_qt_sums_run() of a linear layout (cells 0) with saby from the top
 *  ES_QT_SLICES - 3 byte slices of a q only: saby = sum b floor(a q / 2^24),
 *  so the pair's sum of a b q is 2^24 saby + es_qt_saby_lo() and lies in
 *  [2^24 saby, 2^24 saby + (2^24 - 1) sum_{a > 0} b] (the rest exact);
 *  scalar: the scalar kernels (the tests' oracle). */
void es_qt_sums_run_hi(const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b0, uint32_t nb,
                       const es_qt_y_t *y, es_qt_scratch_t *sc, es_qt_sums_t *out, int scalar);
/** es_qt_sums_run_hi() that also counts, for es_count_block_listed(), each
 *  pair's missing calls against the other variant: mc[k] = at b0+k's
 *  missing calls, how many have a = 1 or 2 (P1), a = 2 (P2), a called (V);
 *  at a's missing calls, how many have b0+k = 1 or 2, = 2.  Needs fewer
 *  than 2^21 slots (ES_QT_LISTED_SLOTS). */
void es_qt_sums_run_listed(const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b0, uint32_t nb,
                           const es_qt_y_t *y, es_qt_scratch_t *sc, es_qt_sums_t *out, uint32_t (*mc)[5],
                           const int64_t *hi, int scalar);
/** The saby of es_qt_sums_run_hi() (sum b floor(a q / 2^24)) of variants
 *  a0 .. a0+na-1 of A (linear layout) against b0 .. b0+nb-1 of B:
 *  out[g * ostride + k] for pair (a0 + g, b0 + k), four first variants at a
 *  time, so that each partner's row is read once for the four.  What
 *  es_qt_sums_run_listed() takes as `hi` (NULL there: it dots them itself). */
void es_qt_dothi_group(const es_qt_block_t *A, uint32_t a0, uint32_t na, const es_qt_block_t *B, uint32_t b0,
                       uint32_t nb, int64_t *out, size_t ostride, int scalar);
#define ES_QT_LISTED_SLOTS ((uint32_t)1 << 21)
/** First variants of one es_qt_sums_group() at most. */
#define ES_QT_GROUP 8
/** es_qt_sums_run_listed() of first variants a0 .. a0+na-1 (na <=
 *  ES_QT_GROUP) against b0 .. b0+nb-1 (nb <= 64), with the dot products
 *  given (hi[g * stride + k], from es_qt_dothi_group()): out[g * stride + k]
 *  and mc[g * stride + k] for pair (a0 + g, b0 + k), the same values.  A
 *  partner's missing calls are matched against the group's codes eight
 *  first variants a vector. */
void es_qt_sums_group(const es_qt_block_t *A, uint32_t a0, uint32_t na, const es_qt_block_t *B, uint32_t b0,
                      uint32_t nb, const es_qt_y_t *y, es_qt_scratch_t *sc, const int64_t *hi, es_qt_sums_t *out,
                      uint32_t (*mc)[5], size_t stride, int scalar);
/** The rest of pair (a, b)'s sum of a b q: sum b (a q mod 2^24). */
int64_t es_qt_saby_lo(const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b, int scalar);
/** The sums of pair (a of A, b of B) in double, one sample after the other
 *  in plane order (quantum 0): what a pair whose integer sums are not
 *  precise enough for its coefficient is scored with.
 *  es_qt_dsums_exact_scalar() is its per-sample loop (the same bits; the
 *  tests' twin). */
void es_qt_dsums_exact(const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b,
                       const es_qt_y_t *y, es_qt_dsums_t *d);
void es_qt_dsums_exact_scalar(const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b,
                              const es_qt_y_t *y, es_qt_dsums_t *d);
/** The dot kernel in use: "avx512vnni", "avx2" or "scalar" (EPISTREAM_QT_KERNEL forces one). */
const char *es_qt_kernel_name(void);

#endif /* ES_COUNT_H */
