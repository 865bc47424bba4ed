/* count3.c -- the 2x27 table of a variant triple from packed bit planes.
 *
 * Per class, the table of (a, b, c) follows from the 27 "cumulative" counts
 * C(s, t, u) = |X_a^s & X_b^t & X_c^u|, s, t, u in {V, P1, P2} (V: called,
 * P1: g >= 1, P2: g == 2), by inclusion-exclusion along each variant (level 0
 * = V - P1, level 1 = P1 - P2, level 2 = P2).  A triple is counted as a pair's
 * AND planes (es_pair3_set, once per pair) against the third variant's
 * planes:
 *  - no missing call at any of the three: only the 8 counts with s, t, u in
 *    {P1, P2} are products of three variants; those with a V are the pairs'
 *    sums (es_cum2_t, counted once per pair of the tile), single genotype
 *    counts and the class size;
 *  - otherwise all 27 products with the V planes, so that a sample missing
 *    at any of the three drops out of that triple's table only.
 * The loops are compiled once for any CPU and once with POPCNT. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "count.h"

#if ES_CPU_X86
#define ES_COUNT3_POPCNT ES_TARGET_POPCNT
#else
#define ES_COUNT3_POPCNT
#endif

void es_cum2_from_table(const es_table2_t *t, es_cum2_t *c)
{
    for (int y = 0; y < 2; y++) {
        const uint32_t *n = t->n[y];
        c->c[y][3] = n[8];
        c->c[y][2] = n[7] + n[8];
        c->c[y][1] = n[5] + n[8];
        c->c[y][0] = n[4] + n[5] + n[7] + n[8];
    }
}

int es_pair3_alloc(es_pair3_t *p, const es_planes_t *pl)
{
    memset(p, 0, sizeof *p);
    size_t bytes = (size_t)10 * pl->words * sizeof(uint64_t); /* 9 planes and a class mask */
    p->x = aligned_alloc(64, bytes ? (bytes + 63) / 64 * 64 : 64);
    /* at most ES_SPARSE_MISS(words) listed calls a variant, two variants */
    size_t nm = 2 * (size_t)ES_SPARSE_MISS(pl->words) + 1;
    p->miss_pos = malloc(nm * sizeof *p->miss_pos);
    p->miss_code = malloc(nm);
    if (!p->x || !p->miss_pos || !p->miss_code) {
        es_pair3_free(p);
        return ES_ERR_NOMEM;
    }
    memset(p->x, 0, bytes);
    p->words = pl->words;
    return ES_OK;
}

void es_pair3_free(es_pair3_t *p)
{
    free(p->x);
    free(p->miss_pos);
    free(p->miss_code);
    p->x = NULL;
    p->miss_pos = NULL;
    p->miss_code = NULL;
}

static inline uint32_t bit_at(const uint64_t *plane, uint32_t pos) { return (uint32_t)(plane[pos / 64] >> (pos % 64)) & 1u; }

/* The genotype at slot pos of planes P1, P2 (a missing call reads 0). */
static inline uint32_t geno_at(const uint64_t *const pl[3], uint32_t pos)
{
    return bit_at(pl[1], pos) + bit_at(pl[2], pos);
}

/* The slots missing at a or b (a's list, then b's calls not missing at a). */
static void pair3_list_missing(es_pair3_t *p, const es_planes_t *pa, uint32_t a, const es_planes_t *pb,
                               uint32_t b)
{
    p->n_miss = 0;
    for (int side = 0; side < 2; side++) {
        const es_planes_t *pl = side ? pb : pa;
        uint32_t v = side ? b : a;
        for (uint32_t q = pl->miss_off[v]; q < pl->miss_off[v + 1]; q++) {
            uint32_t pos = pl->miss_pos[q];
            if (side && !bit_at(p->pa[0], pos)) continue; /* missing at a too: listed */
            p->miss_pos[p->n_miss] = pos;
            p->miss_code[p->n_miss++] =
                (uint8_t)((pos < p->cut ? 9 : 0) + geno_at(p->pa, pos) * 3 + geno_at(p->pb, pos));
        }
    }
}

static inline uint32_t used_words(uint32_t n) { return (n + 63) / 64; }

void es_pair3_set(es_pair3_t *p, const es_planes_t *pa, uint32_t a, const es_planes_t *pb, uint32_t b)
{
    uint32_t w = pa->words;
    p->n_planes = pa->n_planes;
    p->cls[1] = pa->n_case;
    p->cls[0] = pa->n_ctrl;
    p->off[1] = 0;
    p->nw[1] = used_words(pa->n_case);
    p->off[0] = pa->w_case;
    p->nw[0] = used_words(pa->n_ctrl);
    memcpy(p->ga, pa->gcount[a], sizeof p->ga);
    memcpy(p->gb, pb->gcount[b], sizeof p->gb);
    p->missing = pa->miss_ct[a] || pb->miss_ct[b];

    const uint64_t *xa[3], *xb[3];
    /* all nine planes: a third variant with missing calls needs the V x V,
     * V x P and P x V ones; a variant without a V plane is called everywhere
     * (its V is the class mask) */
    uint64_t *mask = p->x + (size_t)9 * w;
    for (int s = 1; s <= 2; s++) {
        xa[s] = es_plane(pa, a, (uint32_t)(s - 1));
        xb[s] = es_plane(pb, b, (uint32_t)(s - 1));
    }
    if (!p->mask_ok || p->mask_cls[0] != p->cls[0] || p->mask_cls[1] != p->cls[1]) {
        memset(mask, 0, (size_t)w * sizeof *mask);
        for (int y = 0; y < 2; y++)
            for (uint32_t s = 0; s < p->cls[y]; s++) mask[p->off[y] + s / 64] |= (uint64_t)1 << (s % 64);
        p->mask_cls[0] = p->cls[0];
        p->mask_cls[1] = p->cls[1];
        p->mask_ok = 1;
    }
    xa[0] = pa->n_planes == 3 ? es_plane(pa, a, 2) : mask;
    xb[0] = pb->n_planes == 3 ? es_plane(pb, b, 2) : mask;
    for (int s = 0; s < 3; s++) p->pa[s] = xa[s], p->pb[s] = xb[s];
    p->cut = pa->w_case * 64;
    p->sparse = p->missing && es_planes_sparse(pa, a) && es_planes_sparse(pb, b);
    p->n_miss = 0;
    if (p->sparse) pair3_list_missing(p, pa, a, pb, b);
    for (int y = 0; y < 2; y++) {
        uint32_t lo = p->off[y], hi = p->off[y] + p->nw[y];
        for (int s = 0; s <= 2; s++)
            for (int t = 0; t <= 2; t++) {
                uint64_t *x = p->x + (size_t)(s * 3 + t) * w;
                for (uint32_t i = lo; i < hi; i++) x[i] = xa[s][i] & xb[t][i];
            }
        uint64_t cum[4] = {0, 0, 0, 0};
        es_popcount_best()->and4(xa[1] + lo, xa[2] + lo, xb[1] + lo, xb[2] + lo, p->nw[y], cum);
        for (int q = 0; q < 4; q++) p->cum_ab[y][q] = (uint32_t)cum[q];
    }
}

/* Four products of one class: the pair's P x P planes against one plane k. */
static inline __attribute__((always_inline)) void
prod4(const uint64_t *restrict x, size_t w, const uint64_t *restrict k, uint32_t lo, uint32_t hi,
      uint32_t out[4])
{
    const uint64_t *x11 = x + 4 * w, *x12 = x + 5 * w, *x21 = x + 7 * w, *x22 = x + 8 * w;
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (uint32_t i = lo; i < hi; i++) {
        uint64_t q = k[i];
        s0 += (uint64_t)__builtin_popcountll(x11[i] & q);
        s1 += (uint64_t)__builtin_popcountll(x12[i] & q);
        s2 += (uint64_t)__builtin_popcountll(x21[i] & q);
        s3 += (uint64_t)__builtin_popcountll(x22[i] & q);
    }
    out[0] = (uint32_t)s0, out[1] = (uint32_t)s1, out[2] = (uint32_t)s2, out[3] = (uint32_t)s3;
}

/* All 27 products of one class (planes with V), three X rows at a time. */
static inline __attribute__((always_inline)) void
prod27(const uint64_t *restrict x, size_t w, const uint64_t *const kc[3], uint32_t lo, uint32_t hi,
       uint32_t out[27])
{
    for (int s = 0; s < 3; s++) {
        const uint64_t *x0 = x + (size_t)(s * 3) * w, *x1 = x0 + w, *x2 = x1 + w;
        const uint64_t *k0 = kc[0], *k1 = kc[1], *k2 = kc[2];
        uint64_t a[9] = {0};
        for (uint32_t i = lo; i < hi; i++) {
            uint64_t u0 = k0[i], u1 = k1[i], u2 = k2[i], v0 = x0[i], v1 = x1[i], v2 = x2[i];
            a[0] += (uint64_t)__builtin_popcountll(v0 & u0);
            a[1] += (uint64_t)__builtin_popcountll(v0 & u1);
            a[2] += (uint64_t)__builtin_popcountll(v0 & u2);
            a[3] += (uint64_t)__builtin_popcountll(v1 & u0);
            a[4] += (uint64_t)__builtin_popcountll(v1 & u1);
            a[5] += (uint64_t)__builtin_popcountll(v1 & u2);
            a[6] += (uint64_t)__builtin_popcountll(v2 & u0);
            a[7] += (uint64_t)__builtin_popcountll(v2 & u1);
            a[8] += (uint64_t)__builtin_popcountll(v2 & u2);
        }
        for (int k = 0; k < 9; k++) out[s * 9 + k] = (uint32_t)a[k];
    }
}

/* Cell by cell over a whole run: d -= s, d = v (fixed trip counts, no
 * aliasing: loops the compiler vectorises for each kernel's target). */
static inline __attribute__((always_inline)) void cells_sub(uint32_t *restrict d, const uint32_t *restrict s)
{
    for (int k = 0; k < ES_RUN3; k++) d[k] -= s[k];
}

static inline __attribute__((always_inline)) void cells_fill(uint32_t *restrict d, uint32_t v)
{
    for (int k = 0; k < ES_RUN3; k++) d[k] = v;
}

/* The 8 products of one class without missing calls: q[2 * st + u - 1] =
 * |X_st & P_c^u| for the pair's P x P planes st = 11, 12, 21, 22 and the
 * third variant's planes u = 1, 2 (k1, k2). */
static inline __attribute__((always_inline)) void prod8(const uint64_t *restrict x, size_t w,
                                                        const uint64_t *restrict k1,
                                                        const uint64_t *restrict k2, uint32_t lo,
                                                        uint32_t hi, uint32_t q[8])
{
    uint32_t q1[4], q2[4];
    prod4(x, w, k1, lo, hi, q1);
    prod4(x, w, k2, lo, hi, q2);
    for (int st = 0; st < 4; st++) {
        q[2 * st] = q1[st];
        q[2 * st + 1] = q2[st];
    }
}

#if ES_CPU_X86
#include <immintrin.h>

/* prod8 with AVX-512 VPOPCNTQ: 8 words an instruction, masked loads for the
 * tail (they never touch a word past hi), the eight sums reduced together. */
ES_TARGET_AVX512 static inline __attribute__((always_inline)) void
prod8_avx512(const uint64_t *restrict x, size_t w, const uint64_t *restrict k1, const uint64_t *restrict k2,
             uint32_t lo, uint32_t hi, uint32_t q[8])
{
    const uint64_t *x11 = x + 4 * w, *x12 = x + 5 * w, *x21 = x + 7 * w, *x22 = x + 8 * w;
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
#define ES_ACC(acc, v, u) acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(_mm512_and_si512(v, u)))
    for (uint32_t i = lo; i < hi; i += 8) {
        __mmask8 m = hi - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (hi - i)) - 1);
        __m512i u1 = _mm512_maskz_loadu_epi64(m, k1 + i), u2 = _mm512_maskz_loadu_epi64(m, k2 + i);
        __m512i v = _mm512_maskz_loadu_epi64(m, x11 + i);
        ES_ACC(a0, v, u1);
        ES_ACC(a1, v, u2);
        v = _mm512_maskz_loadu_epi64(m, x12 + i);
        ES_ACC(a2, v, u1);
        ES_ACC(a3, v, u2);
        v = _mm512_maskz_loadu_epi64(m, x21 + i);
        ES_ACC(a4, v, u1);
        ES_ACC(a5, v, u2);
        v = _mm512_maskz_loadu_epi64(m, x22 + i);
        ES_ACC(a6, v, u1);
        ES_ACC(a7, v, u2);
    }
#undef ES_ACC
    /* pairs of sums per 128-bit lane, then across the four lanes */
    __m512i t0 = _mm512_add_epi64(_mm512_unpacklo_epi64(a0, a1), _mm512_unpackhi_epi64(a0, a1));
    __m512i t1 = _mm512_add_epi64(_mm512_unpacklo_epi64(a2, a3), _mm512_unpackhi_epi64(a2, a3));
    __m512i t2 = _mm512_add_epi64(_mm512_unpacklo_epi64(a4, a5), _mm512_unpackhi_epi64(a4, a5));
    __m512i t3 = _mm512_add_epi64(_mm512_unpacklo_epi64(a6, a7), _mm512_unpackhi_epi64(a6, a7));
    __m512i h0 = _mm512_add_epi64(_mm512_shuffle_i64x2(t0, t1, _MM_SHUFFLE(2, 0, 2, 0)),
                                  _mm512_shuffle_i64x2(t0, t1, _MM_SHUFFLE(3, 1, 3, 1)));
    __m512i h1 = _mm512_add_epi64(_mm512_shuffle_i64x2(t2, t3, _MM_SHUFFLE(2, 0, 2, 0)),
                                  _mm512_shuffle_i64x2(t2, t3, _MM_SHUFFLE(3, 1, 3, 1)));
    __m512i all = _mm512_add_epi64(_mm512_shuffle_i64x2(h0, h1, _MM_SHUFFLE(2, 0, 2, 0)),
                                   _mm512_shuffle_i64x2(h0, h1, _MM_SHUFFLE(3, 1, 3, 1)));
    _mm256_storeu_si256((__m256i *)q, _mm512_cvtepi64_epi32(all));
}

/* Byte counts of the bits of v (nibble lookup). */
ES_TARGET_AVX2 static inline __attribute__((always_inline)) __m256i popcnt8_avx2(__m256i v)
{
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3,
                                         1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low = _mm256_set1_epi8(0x0f);
    __m256i a = _mm256_and_si256(v, low), b = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
    return _mm256_add_epi8(_mm256_shuffle_epi8(lut, a), _mm256_shuffle_epi8(lut, b));
}

/* prod8 with AVX2: byte counts summed over up to 31 vectors of 4 words (at
 * most 8 a byte each time), then widened; masked loads for the tail. */
ES_TARGET_AVX2 static inline __attribute__((always_inline)) void
prod8_avx2(const uint64_t *restrict x, size_t w, const uint64_t *restrict k1, const uint64_t *restrict k2,
           uint32_t lo, uint32_t hi, uint32_t q[8])
{
    const uint64_t *xs[4] = {x + 4 * w, x + 5 * w, x + 7 * w, x + 8 * w};
    const __m256i zero = _mm256_setzero_si256();
    __m256i acc[8];
    for (int r = 0; r < 8; r++) acc[r] = zero;
    for (uint32_t i0 = lo; i0 < hi; i0 += 4 * 31) {
        uint32_t i1 = hi - i0 > 4 * 31 ? i0 + 4 * 31 : hi;
        __m256i b8[8];
        for (int r = 0; r < 8; r++) b8[r] = zero;
        for (uint32_t i = i0; i < i1; i += 4) {
            __m256i m = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)(i1 - i)), _mm256_setr_epi64x(0, 1, 2, 3));
            __m256i u1 = _mm256_maskload_epi64((const long long *)(k1 + i), m);
            __m256i u2 = _mm256_maskload_epi64((const long long *)(k2 + i), m);
            for (int st = 0; st < 4; st++) {
                __m256i v = _mm256_maskload_epi64((const long long *)(xs[st] + i), m);
                b8[2 * st] = _mm256_add_epi8(b8[2 * st], popcnt8_avx2(_mm256_and_si256(v, u1)));
                b8[2 * st + 1] = _mm256_add_epi8(b8[2 * st + 1], popcnt8_avx2(_mm256_and_si256(v, u2)));
            }
        }
        for (int r = 0; r < 8; r++) acc[r] = _mm256_add_epi64(acc[r], _mm256_sad_epu8(b8[r], zero));
    }
    __m256i t[4];
    for (int r = 0; r < 4; r++)
        t[r] = _mm256_add_epi64(_mm256_unpacklo_epi64(acc[2 * r], acc[2 * r + 1]),
                                _mm256_unpackhi_epi64(acc[2 * r], acc[2 * r + 1]));
    uint64_t out[8];
    for (int r = 0; r < 2; r++)
        _mm256_storeu_si256((__m256i *)(out + 4 * r),
                            _mm256_add_epi64(_mm256_permute2x128_si256(t[2 * r], t[2 * r + 1], 0x20),
                                             _mm256_permute2x128_si256(t[2 * r], t[2 * r + 1], 0x31)));
    for (int r = 0; r < 8; r++) q[r] = (uint32_t)out[r];
}
#endif

/* A triple whose three variants have their missing calls listed is counted
 * as if every call were made, a missing call reading as genotype 0 (the 8
 * products, the pair sums and the genotype counts all agree on that: a
 * missing call has P1 = P2 = 0); each sample missing at any of the three is
 * then taken out of the cell it was counted in.  The pair's list holds those
 * missing at a or b; c's own list adds those called at both. */
static void fix_missing(const es_pair3_t *p, const es_planes_t *pc, uint32_t c, es_table3_soa_t *t, uint32_t k)
{
    const uint64_t *cp[3] = {NULL, es_plane(pc, c, 0), es_plane(pc, c, 1)};
    for (uint32_t e = 0; e < p->n_miss; e++) {
        uint32_t code = p->miss_code[e];
        t->n[code / 9][code % 9 * 3 + geno_at(cp, p->miss_pos[e])][k]--;
    }
    for (uint32_t q = pc->miss_off[c]; q < pc->miss_off[c + 1]; q++) {
        uint32_t pos = pc->miss_pos[q];
        if (!bit_at(p->pa[0], pos) || !bit_at(p->pb[0], pos)) continue; /* in the pair's list */
        t->n[pos < p->cut][(geno_at(p->pa, pos) * 3 + geno_at(p->pb, pos)) * 3][k]--;
    }
}

/* The run loops, once per kernel (count3_internal.h). */
#define RUN3_SOA_NAME run_generic_soa
#define RUN3_TARGET
#define RUN3_PROD8 prod8
#include "count3_internal.h"

#if ES_CPU_X86
#define RUN3_SOA_NAME run_popcnt_soa
#define RUN3_TARGET ES_COUNT3_POPCNT
#define RUN3_PROD8 prod8
#include "count3_internal.h"

#define RUN3_SOA_NAME run_avx2_soa
#define RUN3_TARGET ES_TARGET_AVX2
#define RUN3_PROD8 prod8_avx2
#include "count3_internal.h"

#define RUN3_SOA_NAME run_avx512_soa
#define RUN3_TARGET ES_TARGET_AVX512
#define RUN3_PROD8 prod8_avx512
#include "count3_internal.h"
#endif

/* The run loop of each kernel. */
typedef void (*run3_fn)(const es_pair3_t *, const es_planes_t *, uint32_t, uint32_t, const es_cum2_t *,
                        const es_cum2_t *, es_table3_soa_t *);

static run3_fn kernel3(unsigned isa)
{
#if ES_CPU_X86
    if (isa == ES_CPU_AVX512) return run_avx512_soa;
    if (isa == ES_CPU_AVX2) return run_avx2_soa;
    if (isa == ES_CPU_POPCNT) return run_popcnt_soa;
#endif
    (void)isa;
    return run_generic_soa;
}

void es_count3_run(const es_pair3_t *p, const es_planes_t *pc, uint32_t c0, uint32_t nc,
                   const es_cum2_t *ac, const es_cum2_t *bc, es_table3_t *t)
{
    es_table3_soa_t s;
    for (uint32_t r0 = 0; r0 < nc; r0 += ES_RUN3) {
        uint32_t nr = nc - r0 < ES_RUN3 ? nc - r0 : ES_RUN3;
        es_count3_soa(es_popcount_best(), p, pc, c0 + r0, nr, ac + r0, bc + r0, &s);
        for (uint32_t q = 0; q < nr; q++) es_table3_from_soa(&s, q, &t[r0 + q]);
    }
}

void es_count3_soa(const es_popcount_impl_t *impl, const es_pair3_t *p, const es_planes_t *pc, uint32_t c0,
                   uint32_t nc, const es_cum2_t *ac, const es_cum2_t *bc, es_table3_soa_t *t)
{
    kernel3(impl->isa)(p, pc, c0, nc, ac, bc, t);
}

/* Which triple kernel is fastest depends on the CPU as for pairs (AVX2's
 * nibble lookup loses to POPCNT where POPCNT retires several a cycle), so
 * the scan measures: each candidate counts a few runs of the first block's
 * triples three times (well under a millisecond in all).  The pair sums
 * are left zero: the tables are not used, only the time. */
const es_popcount_impl_t *es_count3_pick(const es_planes_t *pl)
{
    const es_popcount_impl_t *best = es_popcount_best();
    if (es_env_variant("EPISTREAM_POPCOUNT") || !pl || pl->count < 2) return best;
    es_pair3_t p;
    es_table3_soa_t *t = aligned_alloc(64, sizeof *t);
    es_cum2_t *cum = calloc(ES_RUN3, sizeof *cum);
    if (!t || !cum || es_pair3_alloc(&p, pl)) {
        free(t);
        free(cum);
        return best;
    }
    es_pair3_set(&p, pl, 0, pl, 1);
    uint32_t nc = pl->count < ES_RUN3 ? pl->count : ES_RUN3;
    const es_popcount_impl_t *const *all = es_popcount_all();
    double tbest = INFINITY;
    for (size_t k = 1; all[k]; k++) { /* the scalar twin only runs where it is alone */
        double tmin = INFINITY;
        for (int r = 0; r < 3; r++) {
            double t0 = es_time_now();
            for (int rep = 0; rep < 16; rep++) es_count3_soa(all[k], &p, pl, 0, nc, cum, cum, t);
            double dt = es_time_now() - t0;
            if (dt < tmin) tmin = dt;
        }
        if (tmin < tbest) best = all[k], tbest = tmin;
    }
    es_pair3_free(&p);
    free(t);
    free(cum);
    return best;
}

void es_table3_from_soa(const es_table3_soa_t *s, uint32_t q, es_table3_t *t)
{
    for (int y = 0; y < 2; y++)
        for (int c = 0; c < 27; c++) t->n[y][c] = s->n[y][c][q];
}

void es_table3_perm_cells(const int rank[3], uint8_t dst[27])
{
    for (int g0 = 0; g0 < 3; g0++)
        for (int g1 = 0; g1 < 3; g1++)
            for (int g2 = 0; g2 < 3; g2++) {
                int g[3] = {0, 0, 0};
                g[rank[0]] = g0;
                g[rank[1]] = g1;
                g[rank[2]] = g2;
                dst[g0 * 9 + g1 * 3 + g2] = (uint8_t)(g[0] * 9 + g[1] * 3 + g[2]);
            }
}

void es_table3_permute(const es_table3_t *in, const int rank[3], es_table3_t *out)
{
    uint8_t dst[27];
    es_table3_perm_cells(rank, dst);
    for (int y = 0; y < 2; y++)
        for (int c = 0; c < 27; c++) out->n[y][dst[c]] = in->n[y][c];
}

int es_count_triple(const es_planes_t *pa, uint32_t a, const es_planes_t *pb, uint32_t b,
                    const es_planes_t *pc, uint32_t c, es_table3_t *t)
{
    es_pair3_t p;
    es_table2_t tac, tbc;
    es_cum2_t ac, bc;
    int ret = es_pair3_alloc(&p, pa);
    if (ret) return ret;
    es_pair3_set(&p, pa, a, pb, b);
    es_count_pair(es_popcount_best(), pa, a, pc, c, &tac);
    es_count_pair(es_popcount_best(), pb, b, pc, c, &tbc);
    es_cum2_from_table(&tac, &ac);
    es_cum2_from_table(&tbc, &bc);
    es_count3_run(&p, pc, c, 1, &ac, &bc, t);
    es_pair3_free(&p);
    return ES_OK;
}

void es_count_triple_naive(const uint8_t *ga, const uint8_t *gb, const uint8_t *gc,
                           const int8_t *status, uint32_t n, es_table3_t *t)
{
    memset(t, 0, sizeof *t);
    for (uint32_t s = 0; s < n; s++) {
        if (status[s] < 0 || ga[s] > 2 || gb[s] > 2 || gc[s] > 2) continue;
        t->n[status[s]][ga[s] * 9 + gb[s] * 3 + gc[s]]++;
    }
}
