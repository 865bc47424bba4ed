/* count.c -- the 2x3x3 table of a variant pair from packed bit planes.
 *
 * Per class, the nine cells of the 3x3 genotype table follow from AND +
 * popcount of the two variants' planes.  With no missing call at either
 * variant only the four inner products |P1a&P1b|, |P1a&P2b|, |P2a&P1b|,
 * |P2a&P2b| are counted; the rest comes from the per-variant genotype counts
 * (es_planes_t.gcount), which pack.c computed once.  With a missing call the
 * pair's table holds only samples called at both variants, so the margins
 * depend on the pair and five more products with the called planes (V) are
 * needed.  Both paths feed one derivation (derive()) from nine sums. */
#include <pthread.h>
#include <string.h>

#include "count.h"

#if ES_CPU_X86
#include <immintrin.h>
#endif

/* The nine sums of one class, in the order of es_and9_fn's out[]. */
enum { X11, X12, X21, X22, A1V, A2V, VB1, VB2, VV };

/* Cells n[a*3+b] of the samples called at both variants, by
 * inclusion-exclusion.  A missing call has P1 = P2 = V = 0, so the products
 * of the P planes already exclude samples missing at either variant. */
static inline void derive(const uint64_t x[9], uint32_t n[9])
{
    n[2 * 3 + 2] = (uint32_t)x[X22];
    n[2 * 3 + 1] = (uint32_t)(x[X21] - x[X22]);
    n[1 * 3 + 2] = (uint32_t)(x[X12] - x[X22]);
    n[1 * 3 + 1] = (uint32_t)(x[X11] - x[X12] - x[X21] + x[X22]);
    n[2 * 3 + 0] = (uint32_t)(x[A2V] - x[X21]);
    n[1 * 3 + 0] = (uint32_t)(x[A1V] - x[A2V] - x[X11] + x[X21]);
    n[0 * 3 + 2] = (uint32_t)(x[VB2] - x[X12]);
    n[0 * 3 + 1] = (uint32_t)(x[VB1] - x[VB2] - x[X11] + x[X12]);
    n[0 * 3 + 0] = (uint32_t)(x[VV] - x[A1V] - x[VB1] + x[X11]);
}

/* Words of a class that can hold a set bit.  Planes pad each class to 1024
 * bits with zeros; the pad words add nothing to a count, and skipping them
 * saves up to a fifth of the work (N = 5000: 40 of 48 words per class). */
static inline size_t class_words(uint32_t n) { return ((size_t)n + 63) / 64; }

/* Fill the marginal sums a variant without missing calls contributes:
 * against such a variant, "called" is every kept sample of the class. */
static inline void margins_a(const uint32_t g[3], uint64_t x[9])
{
    x[A1V] = (uint64_t)g[1] + g[2];
    x[A2V] = g[2];
}

static inline void margins_b(const uint32_t g[3], uint64_t x[9])
{
    x[VB1] = (uint64_t)g[1] + g[2];
    x[VB2] = g[2];
}

/* Any implementation, through its per-class and4/and9. */
static void count_generic(const es_popcount_impl_t *impl, const es_planes_t *pa, uint32_t a,
                          const es_planes_t *pb, uint32_t b, es_table2_t *t)
{
    /* Both blocks come from one dataset, so they share the class layout. */
    const size_t off = pa->w_case, nc = class_words(pa->n_case), nt = class_words(pa->n_ctrl);
    const uint64_t *a1 = es_plane(pa, a, 0), *a2 = es_plane(pa, a, 1);
    const uint64_t *b1 = es_plane(pb, b, 0), *b2 = es_plane(pb, b, 1);
    const uint32_t(*ga)[3] = pa->gcount[a], (*gb)[3] = pb->gcount[b];
    const int miss_a = pa->miss_ct[a] != 0, miss_b = pb->miss_ct[b] != 0;
    /* x[y]: the nine sums of class y (0 control, 1 case) */
    uint64_t x[2][9] = {{0}};

    if (!miss_a && !miss_b) {
        impl->and4(a1, a2, b1, b2, nc, x[1]);
        impl->and4(a1 + off, a2 + off, b1 + off, b2 + off, nt, x[0]);
        for (int y = 0; y < 2; y++) {
            margins_a(ga[y], x[y]);
            margins_b(gb[y], x[y]);
            x[y][VV] = (uint64_t)ga[y][0] + ga[y][1] + ga[y][2];
        }
    } else if (pa->n_planes == 3 && pb->n_planes == 3) {
        const uint64_t *av = es_plane(pa, a, 2), *bv = es_plane(pb, b, 2);
        impl->and9(a1, a2, av, b1, b2, bv, nc, x[1]);
        impl->and9(a1 + off, a2 + off, av + off, b1 + off, b2 + off, bv + off, nt, x[0]);
    } else if (miss_a) {
        /* b's block has no V plane (so b has no missing call): against b
         * every kept sample is called; only a's V plane meets b's planes.
         * and4(av, av, b1, b2) yields |av&b1|, |av&b2| twice each. */
        const uint64_t *av = es_plane(pa, a, 2);
        uint64_t v[2][4] = {{0}};
        impl->and4(a1, a2, b1, b2, nc, x[1]);
        impl->and4(a1 + off, a2 + off, b1 + off, b2 + off, nt, x[0]);
        impl->and4(av, av, b1, b2, nc, v[1]);
        impl->and4(av + off, av + off, b1 + off, b2 + off, nt, v[0]);
        for (int y = 0; y < 2; y++) {
            margins_a(ga[y], x[y]);
            x[y][VB1] = v[y][0];
            x[y][VB2] = v[y][1];
            x[y][VV] = (uint64_t)ga[y][0] + ga[y][1] + ga[y][2];
        }
    } else {
        /* The mirror image: a has no V plane, b has missing calls. */
        const uint64_t *bv = es_plane(pb, b, 2);
        uint64_t v[2][4] = {{0}};
        impl->and4(a1, a2, b1, b2, nc, x[1]);
        impl->and4(a1 + off, a2 + off, b1 + off, b2 + off, nt, x[0]);
        impl->and4(a1, a2, bv, bv, nc, v[1]);
        impl->and4(a1 + off, a2 + off, bv + off, bv + off, nt, v[0]);
        for (int y = 0; y < 2; y++) {
            margins_b(gb[y], x[y]);
            x[y][A1V] = v[y][0];
            x[y][A2V] = v[y][2];
            x[y][VV] = (uint64_t)gb[y][0] + gb[y][1] + gb[y][2];
        }
    }
    derive(x[0], t->n[0]);
    derive(x[1], t->n[1]);
}

/* ---- fused kernels ------------------------------------------------------------
 * Through es_popcount_impl_t a pair costs two kernel calls (one per class),
 * each ending in a horizontal sum per product.  At N ~ 5000 that overhead
 * is as large as the counting itself, so for AVX-512 VPOPCNTDQ both classes
 * are counted in one pass and all sums are reduced together (hsum8).  The
 * fused path stands in for the "avx512" implementation only: the sums are
 * the same, so the tables are too (tests compare them with the naive count). */

#if ES_CPU_X86

#define ES_AVX512_INLINE static inline ES_TARGET_AVX512 __attribute__((always_inline))

/* The lane sums of eight vectors, as the eight lanes of one. */
ES_AVX512_INLINE __m512i hsum8(__m512i v0, __m512i v1, __m512i v2, __m512i v3, __m512i v4,
                               __m512i v5, __m512i v6, __m512i v7)
{
    /* each 128-bit lane of tij: (part of vi, part of vj) */
    __m512i t01 = _mm512_add_epi64(_mm512_unpacklo_epi64(v0, v1), _mm512_unpackhi_epi64(v0, v1));
    __m512i t23 = _mm512_add_epi64(_mm512_unpacklo_epi64(v2, v3), _mm512_unpackhi_epi64(v2, v3));
    __m512i t45 = _mm512_add_epi64(_mm512_unpacklo_epi64(v4, v5), _mm512_unpackhi_epi64(v4, v5));
    __m512i t67 = _mm512_add_epi64(_mm512_unpacklo_epi64(v6, v7), _mm512_unpackhi_epi64(v6, v7));
    /* 0x88 takes 128-bit lanes 0, 2 of each source, 0xdd lanes 1, 3 */
    __m512i u0 = _mm512_add_epi64(_mm512_shuffle_i64x2(t01, t23, 0x88),
                                  _mm512_shuffle_i64x2(t01, t23, 0xdd));
    __m512i u1 = _mm512_add_epi64(_mm512_shuffle_i64x2(t45, t67, 0x88),
                                  _mm512_shuffle_i64x2(t45, t67, 0xdd));
    return _mm512_add_epi64(_mm512_shuffle_i64x2(u0, u1, 0x88), _mm512_shuffle_i64x2(u0, u1, 0xdd));
}

#define F_LOAD(p, i) _mm512_loadu_si512((const void *)((p) + (i)))
#define F_MLOAD(p, i) _mm512_maskz_loadu_epi64(m, (const void *)((p) + (i)))
#define F_ACC(acc, x, y) acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(_mm512_and_si512(x, y)))

/* One class's words [lo, hi): four or nine products into named accumulators
 * (named, not an array, so they stay in registers). */
#define CLASS_LOOP(STEP)                                                                           \
    do {                                                                                           \
        size_t i;                                                                                  \
        for (i = lo; i + 8 <= hi; i += 8)                                                          \
            STEP(F_LOAD);                                                                          \
        if (i < hi) {                                                                              \
            __mmask8 m = (__mmask8)((1u << (hi - i)) - 1);                                         \
            STEP(F_MLOAD);                                                                         \
        }                                                                                          \
    } while (0)

/* x[0..3]: the four P products of the cases (words [0, nc)), x[4..7] of the
 * controls (words [off, off + nt)). */
ES_AVX512_INLINE void fused4(const uint64_t *restrict a1, const uint64_t *restrict a2,
                             const uint64_t *restrict b1, const uint64_t *restrict b2, size_t nc,
                             size_t off, size_t nt, uint64_t x[8])
{
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
    __m512i c0 = s0, c1 = s0, c2 = s0, c3 = s0;
    size_t lo, hi;
#define STEP4(A0, A1, A2, A3, LD)                                                                  \
    do {                                                                                           \
        __m512i x1 = LD(a1, i), x2 = LD(a2, i), y1 = LD(b1, i), y2 = LD(b2, i);                    \
        F_ACC(A0, x1, y1);                                                                         \
        F_ACC(A1, x1, y2);                                                                         \
        F_ACC(A2, x2, y1);                                                                         \
        F_ACC(A3, x2, y2);                                                                         \
    } while (0)
#define STEP4_CASE(LD) STEP4(s0, s1, s2, s3, LD)
#define STEP4_CTRL(LD) STEP4(c0, c1, c2, c3, LD)
    lo = 0, hi = nc;
    CLASS_LOOP(STEP4_CASE);
    lo = off, hi = off + nt;
    CLASS_LOOP(STEP4_CTRL);
#undef STEP4_CASE
#undef STEP4_CTRL
#undef STEP4
    _mm512_storeu_si512((void *)x, hsum8(s0, s1, s2, s3, c0, c1, c2, c3));
}

/* x[0..8]: the nine products of es_and9_fn for the cases, x[9..17] the controls. */
ES_AVX512_INLINE void fused9(const uint64_t *restrict a1, const uint64_t *restrict a2,
                             const uint64_t *restrict av, const uint64_t *restrict b1,
                             const uint64_t *restrict b2, const uint64_t *restrict bv, size_t nc,
                             size_t off, size_t nt, uint64_t x[18])
{
    const __m512i z = _mm512_setzero_si512();
    __m512i s0 = z, s1 = z, s2 = z, s3 = z, s4 = z, s5 = z, s6 = z, s7 = z, s8 = z;
    size_t lo, hi;
#define STEP9(LD)                                                                                  \
    do {                                                                                           \
        __m512i x1 = LD(a1, i), x2 = LD(a2, i), xv = LD(av, i);                                    \
        __m512i y1 = LD(b1, i), y2 = LD(b2, i), yv = LD(bv, i);                                    \
        F_ACC(s0, x1, y1);                                                                         \
        F_ACC(s1, x1, y2);                                                                         \
        F_ACC(s2, x2, y1);                                                                         \
        F_ACC(s3, x2, y2);                                                                         \
        F_ACC(s4, x1, yv);                                                                         \
        F_ACC(s5, x2, yv);                                                                         \
        F_ACC(s6, xv, y1);                                                                         \
        F_ACC(s7, xv, y2);                                                                         \
        F_ACC(s8, xv, yv);                                                                         \
    } while (0)
    lo = 0, hi = nc;
    CLASS_LOOP(STEP9);
    _mm512_storeu_si512((void *)x, hsum8(s0, s1, s2, s3, s4, s5, s6, s7));
    x[8] = (uint64_t)_mm512_reduce_add_epi64(s8);
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = s8 = z;
    lo = off, hi = off + nt;
    CLASS_LOOP(STEP9);
#undef STEP9
    _mm512_storeu_si512((void *)(x + 9), hsum8(s0, s1, s2, s3, s4, s5, s6, s7));
    x[17] = (uint64_t)_mm512_reduce_add_epi64(s8);
}

/* One pair with the fused kernels; blocks of mixed plane counts (rare) go
 * through the generic path. */
ES_AVX512_INLINE void count_avx512(const es_popcount_impl_t *impl, const es_planes_t *pa,
                                   uint32_t a, const es_planes_t *pb, uint32_t b, es_table2_t *t)
{
    const size_t off = pa->w_case, nc = class_words(pa->n_case), nt = class_words(pa->n_ctrl);
    const int miss_a = pa->miss_ct[a] != 0, miss_b = pb->miss_ct[b] != 0;
    uint64_t x[2][9];

    if (!miss_a && !miss_b) {
        const uint32_t(*ga)[3] = pa->gcount[a], (*gb)[3] = pb->gcount[b];
        uint64_t p[8];
        fused4(es_plane(pa, a, 0), es_plane(pa, a, 1), es_plane(pb, b, 0), es_plane(pb, b, 1), nc,
               off, nt, p);
        for (int y = 0; y < 2; y++) {
            const uint64_t *py = p + 4 * (1 - y); /* cases first in p, y = 1 in x */
            x[y][X11] = py[0];
            x[y][X12] = py[1];
            x[y][X21] = py[2];
            x[y][X22] = py[3];
            margins_a(ga[y], x[y]);
            margins_b(gb[y], x[y]);
            x[y][VV] = (uint64_t)ga[y][0] + ga[y][1] + ga[y][2];
        }
    } else if (pa->n_planes == 3 && pb->n_planes == 3) {
        uint64_t p[18];
        fused9(es_plane(pa, a, 0), es_plane(pa, a, 1), es_plane(pa, a, 2), es_plane(pb, b, 0),
               es_plane(pb, b, 1), es_plane(pb, b, 2), nc, off, nt, p);
        for (int k = 0; k < 9; k++) {
            x[1][k] = p[k];
            x[0][k] = p[9 + k];
        }
    } else {
        count_generic(impl, pa, a, pb, b, t);
        return;
    }
    derive(x[0], t->n[0]);
    derive(x[1], t->n[1]);
}

static ES_TARGET_AVX512 void count_pair_avx512(const es_popcount_impl_t *impl, const es_planes_t *pa,
                                        uint32_t a, const es_planes_t *pb, uint32_t b,
                                        es_table2_t *t)
{
    count_avx512(impl, pa, a, pb, b, t);
}

static ES_TARGET_AVX512 void count_block_avx512(const es_popcount_impl_t *impl, const es_planes_t *pa,
                                         uint32_t a, const es_planes_t *pb, uint32_t b0,
                                         uint32_t nb, es_table2_t *t)
{
    for (uint32_t k = 0; k < nb; k++)
        count_avx512(impl, pa, a, pb, b0 + k, t + k);
}

/* The implementation the fused kernels stand in for (NULL: none). */
static const es_popcount_impl_t *fused_impl;
static pthread_once_t fused_once = PTHREAD_ONCE_INIT;

static void fused_init(void)
{
    const es_popcount_impl_t *const *all = es_popcount_all();
    for (size_t k = 0; all[k]; k++)
        if (!strcmp(all[k]->name, "avx512")) fused_impl = all[k];
}

#endif /* ES_CPU_X86 */

void es_count_pair(const es_popcount_impl_t *impl, const es_planes_t *pa, uint32_t a,
                   const es_planes_t *pb, uint32_t b, es_table2_t *t)
{
#if ES_CPU_X86
    pthread_once(&fused_once, fused_init);
    if (impl == fused_impl) {
        count_pair_avx512(impl, pa, a, pb, b, t);
        return;
    }
#endif
    count_generic(impl, pa, a, pb, b, t);
}

void es_count_block(const es_popcount_impl_t *impl, const es_planes_t *pa, uint32_t a,
                    const es_planes_t *pb, uint32_t b0, uint32_t nb, es_table2_t *t)
{
#if ES_CPU_X86
    pthread_once(&fused_once, fused_init);
    if (impl == fused_impl) {
        count_block_avx512(impl, pa, a, pb, b0, nb, t);
        return;
    }
#endif
    for (uint32_t k = 0; k < nb; k++)
        count_generic(impl, pa, a, pb, b0 + k, t + k);
}

void es_count_pair_naive(const uint8_t *ga, const uint8_t *gb, const int8_t *status, uint32_t n,
                         es_table2_t *t)
{
    for (int y = 0; y < 2; y++)
        for (int c = 0; c < 9; c++)
            t->n[y][c] = 0;
    for (uint32_t s = 0; s < n; s++) {
        if (status[s] < 0 || ga[s] > 2 || gb[s] > 2) continue;
        t->n[status[s] ? 1 : 0][ga[s] * 3 + gb[s]]++;
    }
}
