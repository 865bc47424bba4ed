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
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "count.h"
#include "count_internal.h"

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

/* ---- sparse missing calls --------------------------------------------------
 * Real genotype data has a few missing calls per variant (0.1-1 %).  Counting
 * the five products with the V planes then costs more than the 4 products
 * themselves; instead the margins are corrected sample by sample.  A missing
 * call has P1 = P2 = V = 0, so the four P products already hold only samples
 * called at both variants, and for class y
 *   |P1a & Vb| = |P1a| - |P1a & Mb|,   |P2a & Vb| = |P2a| - |P2a & Mb|,
 *   |Va & P1b| = |P1b| - |P1b & Ma|,   |Va & P2b| = |P2b| - |P2b & Ma|,
 *   |Va & Vb|  = |Va| - |Va & Mb|,
 * where Ma, Mb are the variants' missing calls (es_planes_t.miss_pos) and
 * |P1a| = g1 + g2 etc. come from the genotype counts.  The result equals the
 * 9-product path's exactly (tests compare both with the naive count). */

static inline uint64_t bit_at(const uint64_t *p, uint32_t s) { return (p[s >> 6] >> (s & 63)) & 1; }

/* Tested bits of a list of slots, cases (slots below cut) and controls
 * apart; the lists hold cases first, in slot order. */
typedef struct {
    uint64_t p1[2], p2[2], v[2]; /* [y]: bits set in P1, P2, V at the slots */
} miss_hits_t;

static inline __attribute__((always_inline)) void
hits(const uint32_t *p, const uint32_t *e, uint32_t cut, const uint64_t *q1, const uint64_t *q2,
     const uint64_t *qv, miss_hits_t *h)
{
    uint64_t s1 = 0, s2 = 0, sv = 0;
    for (; p < e && *p < cut; p++) {
        s1 += bit_at(q1, *p);
        s2 += bit_at(q2, *p);
        if (qv) sv += bit_at(qv, *p);
    }
    h->p1[1] = s1, h->p2[1] = s2, h->v[1] = sv;
    s1 = s2 = sv = 0;
    for (; p < e; p++) {
        s1 += bit_at(q1, *p);
        s2 += bit_at(q2, *p);
        if (qv) sv += bit_at(qv, *p);
    }
    h->p1[0] = s1, h->p2[0] = s2, h->v[0] = sv;
}

/* margins_sparse() for two variants whose missing calls lie in at most
 * ES_MISS_WORDS plane words each (nearly every variant of real data: 0.2 %
 * missing at N = 1,000 is two calls a variant): per word, the popcounts of
 * the other variant's planes under the missing mask, in a fixed loop with
 * unused entries' masks 0, so no branch depends on the data.  Case and
 * control sums are taken apart by a mask on the word index. */
static inline __attribute__((always_inline)) void
margins_words(const es_planes_t *pa, uint32_t a, const es_planes_t *pb, uint32_t b, uint64_t x[2][9])
{
    const uint32_t(*ga)[3] = pa->gcount[a], (*gb)[3] = pb->gcount[b];
    const uint32_t wc = pa->w_case;
    const uint64_t *a1 = es_plane(pa, a, 0), *a2 = es_plane(pa, a, 1);
    const uint64_t *b1 = es_plane(pb, b, 0), *b2 = es_plane(pb, b, 1);
    const uint64_t *av = pa->n_planes == 3 ? es_plane(pa, a, 2) : NULL;
    const uint32_t *wb = pb->miss_word + (size_t)b * ES_MISS_WORDS, *wa = pa->miss_word + (size_t)a * ES_MISS_WORDS;
    const uint64_t *mb = pb->miss_mask + (size_t)b * ES_MISS_WORDS, *ma = pa->miss_mask + (size_t)a * ES_MISS_WORDS;
    /* [0]: all classes, [1]: cases */
    uint64_t p1[2] = {0, 0}, p2[2] = {0, 0}, v[2] = {0, 0}, q1[2] = {0, 0}, q2[2] = {0, 0};
    for (uint32_t k = 0; k < ES_MISS_WORDS; k++) {
        uint32_t w = wb[k];
        uint64_t m = mb[k], cs = 0 - (uint64_t)(w < wc);
        uint64_t t1 = (uint64_t)__builtin_popcountll(a1[w] & m), t2 = (uint64_t)__builtin_popcountll(a2[w] & m);
        uint64_t tv = (uint64_t)__builtin_popcountll(av ? av[w] & m : m);
        p1[0] += t1, p1[1] += t1 & cs;
        p2[0] += t2, p2[1] += t2 & cs;
        v[0] += tv, v[1] += tv & cs;
        w = wa[k];
        m = ma[k], cs = 0 - (uint64_t)(w < wc);
        t1 = (uint64_t)__builtin_popcountll(b1[w] & m), t2 = (uint64_t)__builtin_popcountll(b2[w] & m);
        q1[0] += t1, q1[1] += t1 & cs;
        q2[0] += t2, q2[1] += t2 & cs;
    }
    for (int y = 0; y < 2; y++) {
        /* the class's share: cases as counted, controls the rest */
        uint64_t f1 = y ? p1[1] : p1[0] - p1[1], f2 = y ? p2[1] : p2[0] - p2[1];
        uint64_t fv = y ? v[1] : v[0] - v[1];
        uint64_t g1 = y ? q1[1] : q1[0] - q1[1], g2 = y ? q2[1] : q2[0] - q2[1];
        x[y][A1V] = (uint64_t)ga[y][1] + ga[y][2] - f1;
        x[y][A2V] = (uint64_t)ga[y][2] - f2;
        x[y][VB1] = (uint64_t)gb[y][1] + gb[y][2] - g1;
        x[y][VB2] = (uint64_t)gb[y][2] - g2;
        x[y][VV] = (uint64_t)ga[y][0] + ga[y][1] + ga[y][2] - fv;
    }
}

/* Fill the five margins of x[y] (y 0 control, 1 case) for a pair whose
 * missing calls are both listed; x[y][X11..X22] are already counted. */
static inline __attribute__((always_inline)) void
margins_sparse(const es_planes_t *pa, uint32_t a, const es_planes_t *pb, uint32_t b, uint64_t x[2][9])
{
    if (pa->miss_nw[a] <= ES_MISS_WORDS && pb->miss_nw[b] <= ES_MISS_WORDS) {
        margins_words(pa, a, pb, b, x);
        return;
    }
    const uint32_t(*ga)[3] = pa->gcount[a], (*gb)[3] = pb->gcount[b];
    const uint32_t cut = pa->w_case * 64;
    miss_hits_t at_b, at_a;
    memset(&at_b, 0, sizeof at_b);
    memset(&at_a, 0, sizeof at_a);
    /* a's planes at b's missing calls (V: whether a has them called; a
     * block without V planes has no missing call, so all of them) */
    if (pb->miss_off[b] != pb->miss_off[b + 1])
        hits(pb->miss_pos + pb->miss_off[b], pb->miss_pos + pb->miss_off[b + 1], cut, es_plane(pa, a, 0),
             es_plane(pa, a, 1), pa->n_planes == 3 ? es_plane(pa, a, 2) : NULL, &at_b);
    if (pa->n_planes != 3)
        for (uint32_t k = pb->miss_off[b]; k < pb->miss_off[b + 1]; k++) at_b.v[pb->miss_pos[k] < cut]++;
    /* b's planes at a's missing calls */
    if (pa->miss_off[a] != pa->miss_off[a + 1])
        hits(pa->miss_pos + pa->miss_off[a], pa->miss_pos + pa->miss_off[a + 1], cut, es_plane(pb, b, 0),
             es_plane(pb, b, 1), NULL, &at_a);
    for (int y = 0; y < 2; y++) {
        x[y][A1V] = (uint64_t)ga[y][1] + ga[y][2] - at_b.p1[y];
        x[y][A2V] = (uint64_t)ga[y][2] - at_b.p2[y];
        x[y][VB1] = (uint64_t)gb[y][1] + gb[y][2] - at_a.p1[y];
        x[y][VB2] = (uint64_t)gb[y][2] - at_a.p2[y];
        x[y][VV] = (uint64_t)ga[y][0] + ga[y][1] + ga[y][2] - at_b.v[y];
    }
}

/* Can the pair's table come from the four P products?  Yes when neither
 * variant has a missing call, or both have theirs listed. */
static inline int four_products(const es_planes_t *pa, uint32_t a, const es_planes_t *pb, uint32_t b)
{
    return (!pa->miss_ct[a] && !pb->miss_ct[b]) || (es_planes_sparse(pa, a) && es_planes_sparse(pb, b));
}

/* The five margins of x[y] for such a pair: from the genotype counts when
 * neither has a missing call, else corrected at the listed ones. */
static inline __attribute__((always_inline)) void
margins4(const es_planes_t *pa, uint32_t a, const es_planes_t *pb, uint32_t b, uint64_t x[2][9])
{
    if (pa->miss_ct[a] || pb->miss_ct[b]) {
        margins_sparse(pa, a, pb, b, x);
        return;
    }
    const uint32_t(*ga)[3] = pa->gcount[a], (*gb)[3] = pb->gcount[b];
    for (int y = 0; y < 2; y++) {
        margins_a(ga[y], x[y]);
        margins_b(gb[y], x[y]);
        x[y][VV] = (uint64_t)ga[y][0] + ga[y][1] + ga[y][2];
    }
}

/* Any implementation, through its per-class and4/and9 (inlined where they
 * are known at compile time: see count_block_popcnt()). */
static inline __attribute__((always_inline)) void
count_with(es_and4_fn and4, es_and9_fn and9, const es_planes_t *pa, uint32_t a, const es_planes_t *pb,
           uint32_t b, es_table2_t *t)
{
    /* Both blocks come from one dataset, so they share the class layout. */
    const size_t off = pa->w_case, nc = class_words(pa->n_case), nt = class_words(pa->n_ctrl);
    const uint64_t *a1 = es_plane(pa, a, 0), *a2 = es_plane(pa, a, 1);
    const uint64_t *b1 = es_plane(pb, b, 0), *b2 = es_plane(pb, b, 1);
    const uint32_t(*ga)[3] = pa->gcount[a], (*gb)[3] = pb->gcount[b];
    const int miss_a = pa->miss_ct[a] != 0;
    /* x[y]: the nine sums of class y (0 control, 1 case) */
    uint64_t x[2][9] = {{0}};

    if (four_products(pa, a, pb, b)) {
        and4(a1, a2, b1, b2, nc, x[1]);
        and4(a1 + off, a2 + off, b1 + off, b2 + off, nt, x[0]);
        margins4(pa, a, pb, b, x);
    } else if (pa->n_planes == 3 && pb->n_planes == 3) {
        const uint64_t *av = es_plane(pa, a, 2), *bv = es_plane(pb, b, 2);
        and9(a1, a2, av, b1, b2, bv, nc, x[1]);
        and9(a1 + off, a2 + off, av + off, b1 + off, b2 + off, bv + off, nt, x[0]);
    } else if (miss_a) {
        /* b's block has no V plane (so b has no missing call): against b
         * every kept sample is called; only a's V plane meets b's planes.
         * and4(av, av, b1, b2) yields |av&b1|, |av&b2| twice each. */
        const uint64_t *av = es_plane(pa, a, 2);
        uint64_t v[2][4] = {{0}};
        and4(a1, a2, b1, b2, nc, x[1]);
        and4(a1 + off, a2 + off, b1 + off, b2 + off, nt, x[0]);
        and4(av, av, b1, b2, nc, v[1]);
        and4(av + off, av + off, b1 + off, b2 + off, nt, v[0]);
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
        and4(a1, a2, b1, b2, nc, x[1]);
        and4(a1 + off, a2 + off, b1 + off, b2 + off, nt, x[0]);
        and4(a1, a2, bv, bv, nc, v[1]);
        and4(a1 + off, a2 + off, bv + off, bv + off, nt, v[0]);
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

static void count_generic(const es_popcount_impl_t *impl, const es_planes_t *pa, uint32_t a,
                          const es_planes_t *pb, uint32_t b, es_table2_t *t)
{
    count_with(impl->and4, impl->and9, pa, a, pb, b, t);
}

/* ---- POPCNT, fused ----------------------------------------------------------
 * At the sample counts of real cohorts (a few words a class) a pair costs
 * little more than the calls through es_popcount_impl_t; with the scalar
 * loops inlined into one function per run of partners the compiler keeps the
 * sums in registers.  On CPUs whose POPCNT retires several per cycle (AMD Zen)
 * this beats the AVX2 nibble lookup at those sizes; es_count_pick() measures
 * which is faster. */

#if ES_CPU_X86
static ES_TARGET_POPCNT void pc_and4(const uint64_t *restrict a1, const uint64_t *restrict a2,
                                     const uint64_t *restrict b1, const uint64_t *restrict b2,
                                     size_t nw, uint64_t out[4])
{
    and4_body(a1, a2, b1, b2, nw, out);
}

static ES_TARGET_POPCNT void pc_and9(const uint64_t *restrict a1, const uint64_t *restrict a2,
                                     const uint64_t *restrict av, const uint64_t *restrict b1,
                                     const uint64_t *restrict b2, const uint64_t *restrict bv,
                                     size_t nw, uint64_t out[9])
{
    and9_body(a1, a2, av, b1, b2, bv, nw, out);
}

static ES_TARGET_POPCNT void count_block_popcnt(const es_planes_t *pa, uint32_t a, const es_planes_t *pb,
                                                uint32_t b0, uint32_t nb, es_table2_t *t)
{
    const size_t off = pa->w_case, nc = class_words(pa->n_case), nt = class_words(pa->n_ctrl);
    const uint64_t *a1 = es_plane(pa, a, 0), *a2 = es_plane(pa, a, 1);
    for (uint32_t k = 0; k < nb; k++) {
        const uint32_t b = b0 + k;
        if (!four_products(pa, a, pb, b)) {
            count_with(pc_and4, pc_and9, pa, a, pb, b, t + k);
            continue;
        }
        const uint64_t *b1 = es_plane(pb, b, 0), *b2 = es_plane(pb, b, 1);
        uint64_t x[2][9]; /* no initialiser: a memset (rep stos) costs 15 % here */
        for (int i = 0; i < 4; i++) x[0][i] = x[1][i] = 0;
        and4_body(a1, a2, b1, b2, nc, x[1]);
        and4_body(a1 + off, a2 + off, b1 + off, b2 + off, nt, x[0]);
        margins4(pa, a, pb, b, x);
        derive(x[0], t[k].n[0]);
        derive(x[1], t[k].n[1]);
    }
}
#endif

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
    uint64_t x[2][9];

    if (four_products(pa, a, pb, b)) {
        uint64_t p[8];
        fused4(es_plane(pa, a, 0), es_plane(pa, a, 1), es_plane(pb, b, 0), es_plane(pb, b, 1), nc,
               off, nt, p);
        for (int y = 0; y < 2; y++) {
            const uint64_t *py = p + 4 * (1 - y); /* cases first in p, y = 1 in x */
            x[y][X11] = py[0];
            x[y][X12] = py[1];
            x[y][X21] = py[2];
            x[y][X22] = py[3];
        }
        margins4(pa, a, pb, b, x);
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

/* ---- AVX-512, a run cell by cell ----------------------------------------------
 * Per pair, the four products need one pass over two vectors a class; what
 * follows them (the margins, their corrections at missing calls, the nine
 * cells) cost more than the products when done pair by pair, most of all the
 * corrections, whose loops follow each variant's list of missing calls and
 * mispredict.  Here they run on eight pairs a vector: lane l is partner
 * b0 + k0 + l, the partners' genotype counts and list offsets are loaded
 * (from the side-by-side layout; gathered without it), and a lane's
 * corrections loop to the longest list of the eight, masked.
 * The arithmetic is margins_sparse()'s and derive()'s, in exact integers, so
 * the tables are es_count_pair()'s. */

#define R_GATHER32(m, idx, base) \
    _mm512_cvtepu32_epi64(_mm512_mask_i64gather_epi32(_mm256_setzero_si256(), (m), (idx), (const void *)(base), 4))
#define R_LOAD32(m, p) _mm512_cvtepu32_epi64(_mm512_castsi512_si256(_mm512_maskz_loadu_epi32((__mmask16)(m), (p))))
#define R_GATHER64(m, idx, base) \
    _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), (m), (idx), (const void *)(base), 8)

/* Lanes m of group k0 of the run: the pairs counted from the four products
 * (prod: cases' X11 X12 X21 X22, then the controls', a lane a pair), written
 * to s; tb: pb side by side, or NULL. */
ES_AVX512_INLINE void run_group_avx512(const es_planes_t *pa, uint32_t a, const es_planes_t *pb,
                                       const es_planes_tr_t *tb, uint32_t b0, uint32_t k0, __mmask8 m,
                                       const __m512i prod[8], es_table2_soa_t *s)
{
    const __m512i lane = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi64(1), six3 = _mm512_set1_epi64(63);
    const __m512i bidx = _mm512_add_epi64(_mm512_set1_epi64((long long)(b0 + k0)), lane);
    /* x[y][...]: the nine sums of class y (enum order), eight pairs a vector */
    __m512i x[2][9];
    for (int p = 0; p < 4; p++) {
        x[1][p] = prod[p];
        x[0][p] = prod[4 + p];
    }
    /* corrections: f* a's planes at b's missing calls, g* b's planes at a's
     * ([0] all classes, [1] cases) */
    __m512i f1[2] = {zero, zero}, f2[2] = {zero, zero}, fv[2] = {zero, zero};
    __m512i g1[2] = {zero, zero}, g2[2] = {zero, zero};
    const __m512i cut = _mm512_set1_epi64((long long)pa->w_case * 64);
    if (pb->miss_off) {
        /* the partners' list offsets are consecutive: loads, not gathers */
        const __m512i off = R_LOAD32(m, pb->miss_off + b0 + k0);
        const __m512i cnt = _mm512_sub_epi64(R_LOAD32(m, pb->miss_off + b0 + k0 + 1), off);
        const long long most = _mm512_reduce_max_epi64(cnt);
        const uint64_t *a1 = es_plane(pa, a, 0), *a2 = es_plane(pa, a, 1);
        const uint64_t *av = pa->n_planes == 3 ? es_plane(pa, a, 2) : NULL;
        /* planes of at most 16 words (N up to about 1,000) are held in two
         * registers each and read by permutes instead of gathers */
        const int held = pa->words <= 16;
        __m512i r1[2] = {zero, zero}, r2[2] = {zero, zero}, rv[2] = {zero, zero};
        if (held) {
            const __mmask8 lo = (__mmask8)(pa->words >= 8 ? 0xff : (1u << pa->words) - 1);
            const __mmask8 hi = (__mmask8)(pa->words >= 16 ? 0xff : pa->words > 8 ? (1u << (pa->words - 8)) - 1 : 0);
            r1[0] = _mm512_maskz_loadu_epi64(lo, a1), r1[1] = _mm512_maskz_loadu_epi64(hi, a1 + 8);
            r2[0] = _mm512_maskz_loadu_epi64(lo, a2), r2[1] = _mm512_maskz_loadu_epi64(hi, a2 + 8);
            if (av) rv[0] = _mm512_maskz_loadu_epi64(lo, av), rv[1] = _mm512_maskz_loadu_epi64(hi, av + 8);
        }
        for (long long j = 0; j < most; j++) {
            __mmask8 act = _mm512_mask_cmpgt_epi64_mask(m, cnt, _mm512_set1_epi64(j));
            __m512i pos = R_GATHER32(act, _mm512_add_epi64(off, _mm512_set1_epi64(j)), pb->miss_pos);
            __m512i w = _mm512_srli_epi64(pos, 6), sh = _mm512_and_si512(pos, six3);
            __mmask8 cs = _mm512_mask_cmplt_epu64_mask(act, pos, cut);
            __m512i w1, w2, wv;
            if (held) {
                w1 = _mm512_permutex2var_epi64(r1[0], w, r1[1]);
                w2 = _mm512_permutex2var_epi64(r2[0], w, r2[1]);
                wv = av ? _mm512_permutex2var_epi64(rv[0], w, rv[1]) : one;
            } else {
                w1 = R_GATHER64(act, w, a1);
                w2 = R_GATHER64(act, w, a2);
                wv = av ? R_GATHER64(act, w, av) : one;
            }
            __m512i t1 = _mm512_and_si512(_mm512_srlv_epi64(w1, sh), one);
            __m512i t2 = _mm512_and_si512(_mm512_srlv_epi64(w2, sh), one);
            /* without a V plane a is called at every slot */
            __m512i tv = av ? _mm512_and_si512(_mm512_srlv_epi64(wv, sh), one) : one;
            f1[0] = _mm512_mask_add_epi64(f1[0], act, f1[0], t1);
            f1[1] = _mm512_mask_add_epi64(f1[1], cs, f1[1], t1);
            f2[0] = _mm512_mask_add_epi64(f2[0], act, f2[0], t2);
            f2[1] = _mm512_mask_add_epi64(f2[1], cs, f2[1], t2);
            fv[0] = _mm512_mask_add_epi64(fv[0], act, fv[0], tv);
            fv[1] = _mm512_mask_add_epi64(fv[1], cs, fv[1], tv);
        }
    }
    if (pa->miss_off && pa->miss_off[a] != pa->miss_off[a + 1]) {
        /* 32 x 32 -> 64-bit products (no AVX512-DQ needed) */
        const __m512i row = _mm512_mul_epu32(bidx, _mm512_set1_epi64((long long)pb->n_planes * pb->words));
        const uint32_t cutp = pa->w_case * 64;
        for (uint32_t q = pa->miss_off[a]; q < pa->miss_off[a + 1]; q++) {
            const uint32_t pos = pa->miss_pos[q];
            const int y = pos < cutp;
            const __m512i idx = _mm512_add_epi64(row, _mm512_set1_epi64(pos >> 6)), sh = _mm512_set1_epi64(pos & 63);
            __m512i v1, v2;
            if (tb) { /* the partners' words side by side: plain loads */
                const uint64_t *c = tb->w + (size_t)(pos >> 6) * tb->stride + b0 + k0;
                v1 = _mm512_maskz_loadu_epi64(m, c);
                v2 = _mm512_maskz_loadu_epi64(m, c + (size_t)tb->words * tb->stride);
            } else {
                v1 = R_GATHER64(m, idx, pb->planes);
                v2 = R_GATHER64(m, idx, pb->planes + pb->words);
            }
            __m512i t1 = _mm512_and_si512(_mm512_srlv_epi64(v1, sh), one);
            __m512i t2 = _mm512_and_si512(_mm512_srlv_epi64(v2, sh), one);
            g1[0] = _mm512_add_epi64(g1[0], t1);
            g2[0] = _mm512_add_epi64(g2[0], t2);
            if (y) {
                g1[1] = _mm512_add_epi64(g1[1], t1);
                g2[1] = _mm512_add_epi64(g2[1], t2);
            }
        }
    }
    const uint32_t(*ga)[3] = pa->gcount[a];
    const uint32_t *gbase = &pb->gcount[0][0][0];
    const __m512i g6 = _mm512_mul_epu32(bidx, _mm512_set1_epi64(6));
    for (int y = 0; y < 2; y++) {
        /* the class's share: cases as counted, controls the rest */
        __m512i c1 = y ? f1[1] : _mm512_sub_epi64(f1[0], f1[1]), c2 = y ? f2[1] : _mm512_sub_epi64(f2[0], f2[1]);
        __m512i cv = y ? fv[1] : _mm512_sub_epi64(fv[0], fv[1]);
        __m512i d1 = y ? g1[1] : _mm512_sub_epi64(g1[0], g1[1]), d2 = y ? g2[1] : _mm512_sub_epi64(g2[0], g2[1]);
        __m512i gb1, gb2;
        if (tb) {
            gb1 = R_LOAD32(m, tb->gc + (size_t)(2 * y) * tb->stride + b0 + k0);
            gb2 = R_LOAD32(m, tb->gc + (size_t)(2 * y + 1) * tb->stride + b0 + k0);
        } else {
            gb1 = R_GATHER32(m, _mm512_add_epi64(g6, _mm512_set1_epi64(3 * y + 1)), gbase);
            gb2 = R_GATHER32(m, _mm512_add_epi64(g6, _mm512_set1_epi64(3 * y + 2)), gbase);
        }
        x[y][A1V] = _mm512_sub_epi64(_mm512_set1_epi64((long long)ga[y][1] + ga[y][2]), c1);
        x[y][A2V] = _mm512_sub_epi64(_mm512_set1_epi64((long long)ga[y][2]), c2);
        x[y][VB1] = _mm512_sub_epi64(_mm512_add_epi64(gb1, gb2), d1);
        x[y][VB2] = _mm512_sub_epi64(gb2, d2);
        x[y][VV] = _mm512_sub_epi64(_mm512_set1_epi64((long long)ga[y][0] + ga[y][1] + ga[y][2]), cv);
        /* derive(), a lane a pair */
        const __m512i *v = x[y];
        __m512i n[9];
        n[8] = v[X22];
        n[7] = _mm512_sub_epi64(v[X21], v[X22]);
        n[5] = _mm512_sub_epi64(v[X12], v[X22]);
        n[4] = _mm512_add_epi64(_mm512_sub_epi64(_mm512_sub_epi64(v[X11], v[X12]), v[X21]), v[X22]);
        n[6] = _mm512_sub_epi64(v[A2V], v[X21]);
        n[3] = _mm512_add_epi64(_mm512_sub_epi64(_mm512_sub_epi64(v[A1V], v[A2V]), v[X11]), v[X21]);
        n[2] = _mm512_sub_epi64(v[VB2], v[X12]);
        n[1] = _mm512_add_epi64(_mm512_sub_epi64(_mm512_sub_epi64(v[VB1], v[VB2]), v[X11]), v[X12]);
        n[0] = _mm512_add_epi64(_mm512_sub_epi64(_mm512_sub_epi64(v[VV], v[A1V]), v[VB1]), v[X11]);
        for (int c = 0; c < 9; c++)
            _mm512_mask_storeu_epi32(&s->n[y][c][k0], (__mmask16)m, _mm512_castsi256_si512(_mm512_cvtepi64_epi32(n[c])));
    }
}

/* The four products of eight partners side by side (tb): a's words broadcast
 * against one vector of their words, so lane l sums pair l's products and no
 * horizontal sum is needed.  p[0..3]: cases' X11 X12 X21 X22, p[4..7] the
 * controls'. */
ES_AVX512_INLINE void products8_tr(const uint64_t *restrict a1, const uint64_t *restrict a2,
                                   const es_planes_tr_t *tb, uint32_t col, size_t nc, size_t off, size_t nt,
                                   __m512i p[8])
{
    const size_t st = tb->stride, p2 = (size_t)tb->words * st;
    const uint64_t *c = tb->w + col;
    for (int y = 0; y < 2; y++) {
        __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
        const size_t lo = y ? off : 0, hi = y ? off + nt : nc;
        for (size_t w = lo; w < hi; w++) {
            __m512i y1 = _mm512_loadu_si512((const void *)(c + w * st));
            __m512i y2 = _mm512_loadu_si512((const void *)(c + p2 + w * st));
            __m512i x1 = _mm512_set1_epi64((long long)a1[w]), x2 = _mm512_set1_epi64((long long)a2[w]);
            F_ACC(s0, x1, y1);
            F_ACC(s1, x1, y2);
            F_ACC(s2, x2, y1);
            F_ACC(s3, x2, y2);
        }
        p[4 * y] = s0, p[4 * y + 1] = s1, p[4 * y + 2] = s2, p[4 * y + 3] = s3;
    }
}

static ES_TARGET_AVX512 void count_run_avx512(const es_popcount_impl_t *impl, const es_planes_t *pa, uint32_t a,
                                              const es_planes_t *pb, const es_planes_tr_t *tb, uint32_t b0,
                                              uint32_t nb, es_table2_soa_t *s)
{
    const size_t off = pa->w_case, nc = class_words(pa->n_case), nt = class_words(pa->n_ctrl);
    const uint64_t *a1 = es_plane(pa, a, 0), *a2 = es_plane(pa, a, 1);
    _Alignas(64) uint64_t prod[ES_RUN2][8];
    uint64_t four = 0; /* bit k: pair k is counted from the four products */
    if (tb && tb->of != pb) tb = NULL;
    /* four_products() of the run, sixteen partners a vector: with lists,
     * both variants listed (no missing call counts as listed); without,
     * neither with a missing call */
    const int listed = pa->miss_off && pb->miss_off;
    if (listed ? es_planes_sparse(pa, a) : !pa->miss_ct[a]) {
        for (uint32_t k = 0; k < nb; k += 16) {
            __mmask16 v = (__mmask16)(nb - k >= 16 ? 0xffff : (1u << (nb - k)) - 1);
            __m512i ct = _mm512_maskz_loadu_epi32(v, pb->miss_ct + b0 + k);
            __mmask16 ok;
            if (listed) {
                __m512i lo = _mm512_maskz_loadu_epi32(v, pb->miss_off + b0 + k);
                __m512i hi = _mm512_maskz_loadu_epi32(v, pb->miss_off + b0 + k + 1);
                ok = _mm512_mask_cmpeq_epi32_mask(v, _mm512_sub_epi32(hi, lo), ct);
            } else {
                ok = _mm512_mask_cmpeq_epi32_mask(v, ct, _mm512_setzero_si512());
            }
            four |= (uint64_t)ok << k;
        }
    }
    /* pairs from the four products: each pair's sums here without tb (with
     * tb, eight at a time below); the others (a missing call not listed)
     * pair by pair */
    const uint64_t run = nb == 64 ? ~0ull : (1ull << nb) - 1;
    for (uint64_t left = tb ? ~four & run : run; left; left &= left - 1) {
        const uint32_t k = (uint32_t)__builtin_ctzll(left), b = b0 + k;
        if (four >> k & 1) {
            fused4(a1, a2, es_plane(pb, b, 0), es_plane(pb, b, 1), nc, off, nt, prod[k]);
        } else {
            es_table2_t t = {{{0}}}; /* written by count_avx512 (cppcheck cannot tell) */
            count_avx512(impl, pa, a, pb, b, &t);
            for (int y = 0; y < 2; y++)
                for (int c = 0; c < 9; c++) s->n[y][c][k] = t.n[y][c];
        }
    }
    const __m512i pidx = _mm512_slli_epi64(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7), 3);
    for (uint32_t k0 = 0; k0 < nb; k0 += 8) {
        __mmask8 m = (__mmask8)(four >> k0);
        if (!m) continue;
        __m512i p[8];
        if (tb) {
            products8_tr(a1, a2, tb, b0 + k0, nc, off, nt, p);
        } else { /* each pair's eight sums (fused4), lane by lane */
            for (int q = 0; q < 8; q++) p[q] = R_GATHER64(m, pidx, &prod[k0][q]);
        }
        run_group_avx512(pa, a, pb, tb, b0, k0, m, p, s);
    }
}

#undef R_GATHER32
#undef R_LOAD32
#undef R_GATHER64

/* ---- AVX2, fused ---------------------------------------------------------------
 * The nibble-lookup popcount of popcount.c, both classes and all four
 * products of a pair in one pass with one horizontal sum at the end.  It
 * reads whole 4-word vectors, so it needs planes padded to 256 bits a class
 * (the CPU scan's; the pad words are zero), else the generic path runs. */

static ES_TARGET_AVX2 void count_block_avx2(const es_popcount_impl_t *impl, const es_planes_t *pa,
                                            uint32_t a, const es_planes_t *pb, uint32_t b0,
                                            uint32_t nb, es_table2_t *t)
{
    const size_t off = pa->w_case, nc = (class_words(pa->n_case) + 3) & ~(size_t)3;
    const size_t nt = (class_words(pa->n_ctrl) + 3) & ~(size_t)3;
    const uint64_t *a1 = es_plane(pa, a, 0), *a2 = es_plane(pa, a, 1);
    for (uint32_t k = 0; k < nb; k++) {
        const uint32_t b = b0 + k;
        if (!four_products(pa, a, pb, b)) {
            count_generic(impl, pa, a, pb, b, t + k);
            continue;
        }
        const uint64_t *b1 = es_plane(pb, b, 0), *b2 = es_plane(pb, b, 1);
        uint64_t x[2][9];
        es_avx2_class4(a1, a2, b1, b2, 0, nc, x[1]);
        es_avx2_class4(a1, a2, b1, b2, off, off + nt, x[0]);
        margins4(pa, a, pb, b, x);
        derive(x[0], t[k].n[0]);
        derive(x[1], t[k].n[1]);
    }
}

/* The implementations the fused kernels stand in for (NULL: none). */
static const es_popcount_impl_t *fused_impl, *popcnt_impl, *avx2_impl;
static pthread_once_t fused_once = PTHREAD_ONCE_INIT;

static void fused_init(void)
{
    const es_popcount_impl_t *const *all = es_popcount_all();
    for (size_t k = 0; all[k]; k++) {
        if (!strcmp(all[k]->name, "avx512")) fused_impl = all[k];
        if (!strcmp(all[k]->name, "popcnt")) popcnt_impl = all[k];
        if (!strcmp(all[k]->name, "avx2")) avx2_impl = all[k];
    }
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
    if (impl == popcnt_impl) {
        count_block_popcnt(pa, a, pb, b, 1, t);
        return;
    }
    if (impl == avx2_impl && pa->w_case % 4 == 0 && pa->w_ctrl % 4 == 0) {
        count_block_avx2(impl, pa, a, pb, b, 1, t);
        return;
    }
#endif
    count_generic(impl, pa, a, pb, b, t);
}

/* ---- one class, the missing calls matched by the caller --------------------
 * A quantitative trait's planes hold one class (n_case 0), and its scan
 * matches each pair's missing calls against the other variant anyway (the
 * phenotype sums need them, src/count/qt.c): with those counts (mc) the
 * table is the four P products plus the margins, with no per-pair walk
 * through the lists (the sparse path's, which mispredicts). */

static inline __attribute__((always_inline)) void listed_derive(const uint64_t p[4], const uint32_t (*ga)[3],
                                                               const uint32_t (*gb)[3], const uint32_t mc[5],
                                                               es_table2_t *t)
{
    uint64_t x[9];
    x[X11] = p[0];
    x[X12] = p[1];
    x[X21] = p[2];
    x[X22] = p[3];
    x[A1V] = (uint64_t)ga[0][1] + ga[0][2] - mc[0];
    x[A2V] = (uint64_t)ga[0][2] - mc[1];
    x[VV] = (uint64_t)ga[0][0] + ga[0][1] + ga[0][2] - mc[2];
    x[VB1] = (uint64_t)gb[0][1] + gb[0][2] - mc[3];
    x[VB2] = (uint64_t)gb[0][2] - mc[4];
    derive(x, t->n[0]);
    memset(t->n[1], 0, sizeof t->n[1]);
}

#if ES_CPU_X86
static ES_TARGET_POPCNT void listed_popcnt(const es_planes_t *pa, uint32_t a, const es_planes_t *pb, uint32_t b0,
                                           uint32_t nb, const uint32_t (*mc)[5], es_table2_t *t)
{
    const size_t off = pa->w_case, nt = class_words(pa->n_ctrl);
    const uint64_t *a1 = es_plane(pa, a, 0) + off, *a2 = es_plane(pa, a, 1) + off;
    for (uint32_t k = 0; k < nb; k++) {
        uint64_t p[4] = {0, 0, 0, 0};
        and4_body(a1, a2, es_plane(pb, b0 + k, 0) + off, es_plane(pb, b0 + k, 1) + off, nt, p);
        listed_derive(p, pa->gcount[a], pb->gcount[b0 + k], mc[k], t + k);
    }
}
#endif

/* a group of first variants: each partner's planes read (from L2) once for
 * the group, two first variants a pass */
static ES_TARGET_AVX512 void listed_group_avx512(const es_planes_t *pa, uint32_t a0, uint32_t na,
                                                 const es_planes_t *pb, uint32_t b0, uint32_t nb,
                                                 const uint32_t (*mc)[5], size_t stride, es_table2_t *t)
{
    const size_t off = pa->w_case, nt = class_words(pa->n_ctrl);
    for (uint32_t k = 0; k < nb; k++) {
        const uint64_t *b1 = es_plane(pb, b0 + k, 0) + off, *b2 = es_plane(pb, b0 + k, 1) + off;
        for (uint32_t g = 0; g < na; g += 2) {
            const uint32_t h = g + 1 < na ? g + 1 : g;
            const uint64_t *x1 = es_plane(pa, a0 + g, 0) + off, *x2 = es_plane(pa, a0 + g, 1) + off;
            const uint64_t *u1 = es_plane(pa, a0 + h, 0) + off, *u2 = es_plane(pa, a0 + h, 1) + off;
            __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0, c0 = s0, c1 = s0, c2 = s0, c3 = s0;
            size_t lo = 0, hi = nt;
#define STEPG(LD)                                                                                  \
    do {                                                                                           \
        __m512i y1 = LD(b1, i), y2 = LD(b2, i), v1 = LD(x1, i), v2 = LD(x2, i);                    \
        F_ACC(s0, v1, y1);                                                                         \
        F_ACC(s1, v1, y2);                                                                         \
        F_ACC(s2, v2, y1);                                                                         \
        F_ACC(s3, v2, y2);                                                                         \
        v1 = LD(u1, i), v2 = LD(u2, i);                                                            \
        F_ACC(c0, v1, y1);                                                                         \
        F_ACC(c1, v1, y2);                                                                         \
        F_ACC(c2, v2, y1);                                                                         \
        F_ACC(c3, v2, y2);                                                                         \
    } while (0)
            CLASS_LOOP(STEPG);
#undef STEPG
            uint64_t p[8];
            _mm512_storeu_si512((void *)p, hsum8(s0, s1, s2, s3, c0, c1, c2, c3));
            listed_derive(p, pa->gcount[a0 + g], pb->gcount[b0 + k], mc[g * stride + k], &t[g * stride + k]);
            if (h != g)
                listed_derive(p + 4, pa->gcount[a0 + h], pb->gcount[b0 + k], mc[h * stride + k], &t[h * stride + k]);
        }
    }
}

/* listed_derive() of one first variant (genotype counts ga) against nk <= 8
 * partners b0 .. b0+nk-1 (their counts from tb), a pair a vector: lanes
 * 0..4 of x hold the margins A1V A2V VV VB1 VB2 (the counts less the
 * missing-call counts mc, loaded into lanes 0..4), 5..8 its four products,
 * 9..15 zero; each cell is two terms less two, lanes picked by vpermd (15:
 * zero), and the vector's 16 lanes are the table's n[0][0..8] and zeros
 * for n[1][0..6].  The same integers as listed_derive(): both are
 * arithmetic modulo 2^32 on the same terms. */
static inline ES_TARGET_AVX512 __attribute__((always_inline)) void listed_derive8(
    const uint64_t prod[4][8], const uint32_t (*ga)[3], const es_planes_tr_t *tb, uint32_t b, uint32_t nk,
    const uint32_t (*mc)[5], es_table2_t *t)
{
    /* lanes 0..7 of r01 the eight pairs' X11, 8..15 their X12; r23: X21, X22 */
    const __m512i r01 = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(_mm512_load_si512(prod[0]))),
                                           _mm512_cvtepi64_epi32(_mm512_load_si512(prod[1])), 1);
    const __m512i r23 = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(_mm512_load_si512(prod[2]))),
                                           _mm512_cvtepi64_epi32(_mm512_load_si512(prod[3])), 1);
    /* lanes 0..7: the partners' P1 counts (g >= 1), 8..15 their P2 counts */
    const __m256i gb2 = _mm256_loadu_si256((const __m256i *)(tb->gc + (size_t)tb->stride + b));
    const __m256i gb1 = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(tb->gc + b)), gb2);
    const __m512i gbv = _mm512_inserti64x4(_mm512_castsi256_si512(gb1), gb2, 1);
    /* the first variant's margins in lanes 0..2 */
    const uint32_t ka3[3] = {ga[0][1] + ga[0][2], ga[0][2], ga[0][0] + ga[0][1] + ga[0][2]};
    const __m512i ka = _mm512_maskz_loadu_epi32(0x0007, (const void *)ka3);
    const __m512i ip = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 8, 16, 24, 0, 0, 0, 0, 0, 0, 0);
    const __m512i ib = _mm512_setr_epi32(0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    /* n = x[P1] + x[P2] - x[M1] - x[M2], cell by cell (derive()) */
    const __m512i p1 = _mm512_setr_epi32(2, 3, 4, 0, 5, 6, 1, 7, 8, 15, 15, 15, 15, 15, 15, 15);
    const __m512i p2 = _mm512_setr_epi32(5, 6, 15, 7, 8, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15);
    const __m512i m1 = _mm512_setr_epi32(0, 4, 6, 1, 6, 8, 7, 8, 15, 15, 15, 15, 15, 15, 15, 15);
    const __m512i m2 = _mm512_setr_epi32(3, 5, 15, 5, 7, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15);
    for (uint32_t l = 0; l < nk; l++) {
        const __m512i lv = _mm512_set1_epi32((int)l);
        __m512i x = _mm512_maskz_permutex2var_epi32(0x01e0, r01, _mm512_add_epi32(ip, lv), r23);
        x = _mm512_add_epi32(x, ka);
        x = _mm512_add_epi32(x, _mm512_maskz_permutexvar_epi32(0x0018, _mm512_add_epi32(ib, lv), gbv));
        x = _mm512_sub_epi32(x, _mm512_maskz_loadu_epi32(0x001f, (const void *)mc[l]));
        __m512i n = _mm512_add_epi32(_mm512_permutexvar_epi32(p1, x), _mm512_permutexvar_epi32(p2, x));
        n = _mm512_sub_epi32(n, _mm512_add_epi32(_mm512_permutexvar_epi32(m1, x), _mm512_permutexvar_epi32(m2, x)));
        _mm512_storeu_si512((void *)t[l].n[0], n); /* n[0][0..8], n[1][0..6] */
        t[l].n[1][7] = t[l].n[1][8] = 0;
    }
}

/* The same with the partners' planes side by side (tb, es_planes_tr_fill):
 * four first variants against eight partners a pass, each first variant's
 * word broadcast against one vector of the eight partners' words, so that
 * lane l sums pair l's product and no horizontal sum is needed (the one
 * above spends about as long in its sums as in its 16 AND + popcount a pair
 * at 2,048 samples).  16 accumulators, two vector loads and eight
 * broadcasts (load-port only) a word: the triples alone bound it. */
static ES_TARGET_AVX512 void listed_group_tr_avx512(const es_planes_t *pa, uint32_t a0, uint32_t na,
                                                    const es_planes_tr_t *tb, uint32_t b0,
                                                    uint32_t nb, const uint32_t (*mc)[5], size_t stride,
                                                    es_table2_t *t)
{
    const size_t off = pa->w_case, nt = class_words(pa->n_ctrl), st = tb->stride, p2 = (size_t)tb->words * st;
    _Alignas(64) uint64_t prod[4][4][8]; /* [first variant][product][partner] */
    for (uint32_t k0 = 0; k0 < nb; k0 += 8) {
        /* columns past the block's last variant are zero (es_planes_tr_fill) */
        const uint64_t *c = tb->w + b0 + k0;
        const uint32_t nk = nb - k0 < 8 ? nb - k0 : 8;
        for (uint32_t g = 0; g < na; g += 4) {
            const uint32_t ng = na - g < 4 ? na - g : 4;
            /* first variants past na repeat the last (computed, not kept) */
            const uint64_t *u1 = es_plane(pa, a0 + g, 0) + off, *u2 = es_plane(pa, a0 + g, 1) + off;
            const uint64_t *v1 = es_plane(pa, a0 + g + (ng > 1), 0) + off, *v2 = es_plane(pa, a0 + g + (ng > 1), 1) + off;
            const uint64_t *w1 = es_plane(pa, a0 + g + (ng > 2 ? 2 : ng - 1), 0) + off;
            const uint64_t *w2 = es_plane(pa, a0 + g + (ng > 2 ? 2 : ng - 1), 1) + off;
            const uint64_t *x1 = es_plane(pa, a0 + g + ng - 1, 0) + off, *x2 = es_plane(pa, a0 + g + ng - 1, 1) + off;
            __m512i z = _mm512_setzero_si512();
            __m512i s0 = z, s1 = z, s2 = z, s3 = z, t0 = z, t1 = z, t2 = z, t3 = z;
            __m512i r0 = z, r1 = z, r2 = z, r3 = z, q0 = z, q1 = z, q2 = z, q3 = z;
            /* one first variant's word against the eight partners' (y1, y2) */
#define TR_ACC(A, P1, P2)                                                                                     \
    do {                                                                                                      \
        __m512i e1 = _mm512_set1_epi64((long long)(P1)[i]), e2 = _mm512_set1_epi64((long long)(P2)[i]);      \
        F_ACC(A##0, e1, y1);                                                                                  \
        F_ACC(A##1, e1, y2);                                                                                  \
        F_ACC(A##2, e2, y1);                                                                                  \
        F_ACC(A##3, e2, y2);                                                                                  \
    } while (0)
            for (size_t i = 0; i < nt; i++) {
                const size_t w = off + i;
                __m512i y1 = _mm512_loadu_si512((const void *)(c + w * st));
                __m512i y2 = _mm512_loadu_si512((const void *)(c + p2 + w * st));
                TR_ACC(s, u1, u2);
                TR_ACC(t, v1, v2);
                TR_ACC(r, w1, w2);
                TR_ACC(q, x1, x2);
            }
#undef TR_ACC
#define TR_ST(j, A)                                                                                           \
    do {                                                                                                      \
        _mm512_store_si512((void *)prod[j][0], A##0), _mm512_store_si512((void *)prod[j][1], A##1);          \
        _mm512_store_si512((void *)prod[j][2], A##2), _mm512_store_si512((void *)prod[j][3], A##3);          \
    } while (0)
            TR_ST(0, s);
            TR_ST(1, t);
            TR_ST(2, r);
            TR_ST(3, q);
#undef TR_ST
            for (uint32_t j = 0; j < ng; j++)
                listed_derive8(prod[j], pa->gcount[a0 + g + j], tb, b0 + k0, nk, mc + (size_t)(g + j) * stride + k0,
                               t + (size_t)(g + j) * stride + k0);
        }
    }
}

void es_count_group_listed(const es_popcount_impl_t *impl, const es_planes_t *pa, uint32_t a0, uint32_t na,
                           const es_planes_t *pb, const es_planes_tr_t *tb, uint32_t b0, uint32_t nb,
                           const uint32_t (*mc)[5], size_t stride, es_table2_t *t)
{
#if ES_CPU_X86
    pthread_once(&fused_once, fused_init);
    if (impl == fused_impl && !pa->n_case) {
        if (tb && tb->of == pb)
            listed_group_tr_avx512(pa, a0, na, tb, b0, nb, mc, stride, t);
        else
            listed_group_avx512(pa, a0, na, pb, b0, nb, mc, stride, t);
        return;
    }
#else
    (void)tb;
#endif
    for (uint32_t g = 0; g < na; g++)
        es_count_block_listed(impl, pa, a0 + g, pb, b0, nb, mc + g * stride, t + g * stride);
}

void es_count_block_listed(const es_popcount_impl_t *impl, const es_planes_t *pa, uint32_t a,
                           const es_planes_t *pb, uint32_t b0, uint32_t nb, const uint32_t (*mc)[5],
                           es_table2_t *t)
{
    if (pa->n_case) { /* two classes: not this function's */
        es_count_block(impl, pa, a, pb, b0, nb, t);
        return;
    }
#if ES_CPU_X86
    /* (AVX-512 runs whole groups: es_count_group_listed) */
    pthread_once(&fused_once, fused_init);
    if (impl == popcnt_impl) {
        listed_popcnt(pa, a, pb, b0, nb, mc, t);
        return;
    }
#endif
    const size_t off = pa->w_case, nt = class_words(pa->n_ctrl);
    const uint64_t *a1 = es_plane(pa, a, 0) + off, *a2 = es_plane(pa, a, 1) + off;
    for (uint32_t k = 0; k < nb; k++) {
        uint64_t p[4] = {0, 0, 0, 0};
        impl->and4(a1, a2, es_plane(pb, b0 + k, 0) + off, es_plane(pb, b0 + k, 1) + off, nt, p);
        listed_derive(p, pa->gcount[a], pb->gcount[b0 + k], mc[k], t + k);
    }
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
    if (impl == popcnt_impl) {
        count_block_popcnt(pa, a, pb, b0, nb, t);
        return;
    }
    if (impl == avx2_impl && pa->w_case % 4 == 0 && pa->w_ctrl % 4 == 0) {
        count_block_avx2(impl, pa, a, pb, b0, nb, t);
        return;
    }
#endif
    for (uint32_t k = 0; k < nb; k++)
        count_generic(impl, pa, a, pb, b0 + k, t + k);
}

int es_planes_tr_fill(es_planes_tr_t *t, const es_planes_t *pl)
{
    /* eight columns past the last variant: a run's last vector of partners
     * may start at it */
    const uint32_t stride = (pl->count + 7 + 7) & ~7u;
    const size_t need = 2 * (size_t)pl->words * stride, need_gc = 4 * (size_t)stride;
    t->of = NULL;
    if (need > t->cap || need_gc > t->cap_gc) {
        free(t->w);
        free(t->gc);
        t->w = aligned_alloc(64, (need * sizeof *t->w + 63) & ~(size_t)63);
        t->gc = aligned_alloc(64, (need_gc * sizeof *t->gc + 63) & ~(size_t)63);
        t->cap = t->w && t->gc ? need : 0;
        t->cap_gc = t->w && t->gc ? need_gc : 0;
        if (!t->w || !t->gc) return ES_ERR_NOMEM;
    }
    for (uint32_t y = 0; y < 2; y++)
        for (uint32_t g = 1; g <= 2; g++) {
            uint32_t *row = t->gc + (size_t)(2 * y + g - 1) * stride;
            for (uint32_t v = 0; v < pl->count; v++) row[v] = pl->gcount[v][y][g];
            memset(row + pl->count, 0, (stride - pl->count) * sizeof *row);
        }
    t->stride = stride;
    t->words = pl->words;
    t->count = pl->count;
    for (uint32_t p = 0; p < 2; p++)
        for (uint32_t w = 0; w < pl->words; w++) {
            uint64_t *row = t->w + ((size_t)p * pl->words + w) * stride;
            for (uint32_t v = 0; v < pl->count; v++) row[v] = es_plane(pl, v, p)[w];
            memset(row + pl->count, 0, (stride - pl->count) * sizeof *row);
        }
    t->of = pl;
    return ES_OK;
}

int es_count_run_uses_tr(const es_popcount_impl_t *impl)
{
#if ES_CPU_X86
    pthread_once(&fused_once, fused_init);
    return impl == fused_impl;
#else
    (void)impl;
    return 0;
#endif
}

void es_planes_tr_free(es_planes_tr_t *t)
{
    free(t->w);
    free(t->gc);
    memset(t, 0, sizeof *t);
}

void es_count_run(const es_popcount_impl_t *impl, const es_planes_t *pa, uint32_t a,
                  const es_planes_t *pb, const es_planes_tr_t *tb, uint32_t b0, uint32_t nb,
                  es_table2_soa_t *s)
{
#if ES_CPU_X86
    pthread_once(&fused_once, fused_init);
    if (impl == fused_impl) {
        count_run_avx512(impl, pa, a, pb, tb, b0, nb, s);
        return;
    }
#else
    (void)tb;
#endif
    es_table2_t t[ES_RUN2];
    es_count_block(impl, pa, a, pb, b0, nb, t);
    for (uint32_t k = 0; k < nb; k++)
        for (int y = 0; y < 2; y++)
            for (int c = 0; c < 9; c++) s->n[y][c][k] = t[k].n[y][c];
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

/* ---- choosing the kernel ----------------------------------------------------
 * Which kernel is fastest depends on the CPU and on the sample count: AVX2's
 * nibble lookup wins on long planes and where POPCNT retires one per cycle,
 * the fused POPCNT path on short planes where it retires several (AMD Zen).
 * So the scan measures: each candidate counts the same few thousand pairs of
 * the first block three times, and the fastest minimum wins
 * (about a millisecond in all).  The tables do not depend on the choice. */

#define PICK_A 8u   /* variants of the block ... */
#define PICK_B 256u /* ... against this many partners */

static double pick_time(const es_popcount_impl_t *impl, const es_planes_t *pl, const es_planes_tr_t *tr,
                        es_table2_soa_t *t)
{
    uint32_t na = pl->count < PICK_A ? pl->count : PICK_A;
    uint32_t nb = pl->count < PICK_B ? pl->count : PICK_B;
    double t0 = es_time_now();
    /* in runs, as the scan counts (es_count_run) */
    for (uint32_t a = 0; a < na; a++)
        for (uint32_t b0 = 0; b0 < nb; b0 += ES_RUN2)
            es_count_run(impl, pl, a, pl, tr, b0, nb - b0 < ES_RUN2 ? nb - b0 : ES_RUN2, t);
    return es_time_now() - t0;
}

const es_popcount_impl_t *es_count_pick(const es_planes_t *pl)
{
    const es_popcount_impl_t *best = es_popcount_best();
    if (es_env_variant("EPISTREAM_POPCOUNT") || !pl || !pl->count) return best;
    const es_popcount_impl_t *const *all = es_popcount_all();
    es_table2_soa_t *t = aligned_alloc(64, sizeof *t);
    if (!t) return best;
    /* the side-by-side layout the scan gives the kernels that read it */
    es_planes_tr_t tr = {0};
    int have_tr = es_planes_tr_fill(&tr, pl) == ES_OK;
    double tbest = INFINITY;
    /* every kernel but the scalar twin (all[0]), which only runs where it is alone */
    for (size_t k = 1; all[k]; k++) {
        double tmin = INFINITY;
        for (int r = 0; r < 3; r++) {
            double dt = pick_time(all[k], pl, have_tr ? &tr : NULL, t);
            if (dt < tmin) tmin = dt;
        }
        if (tmin < tbest) best = all[k], tbest = tmin;
    }
    es_planes_tr_free(&tr);
    free(t);
    return best;
}

