/* qt.c -- the sums a quantitative trait's pair tests need, in exact integers.
 *
 * The phenotype is held in fixed point (count.h): q = round((y - y0) * scale)
 * with y0 the smallest value and scale a power of two such that q < 2^39.
 * Every sum below is then an exact integer, so it is the same on every
 * device, for any thread count or tile size; what the rounding of y to q can
 * move in a statistic is bounded per pair (src/stats/linear.c, doc/QT.md).
 *
 * A pair (a, b) needs the sum of a*b*q over its samples (linear), or the four
 * interior cell sums of q (linear4): dot products of a byte-sliced a*q (or
 * q[a=1], q[a=2]) with b (or [b=1], [b=2]) as signed bytes.  Each slice is
 * dotted 64 samples at a time (AVX512-VNNI vpdpbusd: u8 x s8 into 32-bit
 * lanes), then sum_k 256^k dot_k.  Everything else (sums over the pair's
 * called samples) is a variant total minus the other variant's missing
 * calls, looked up one by one. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "count.h"

#if ES_CPU_X86
#include <immintrin.h>
#endif

/* ---- the fixed-point phenotype ------------------------------------------- */

/* 2^e for the largest e with r * 2^e <= 2^bits - 1 (r > 0). */
static double pow2_scale(double r, int bits)
{
    int e;
    frexp(r, &e); /* r < 2^e */
    return ldexp(1.0, bits - e - 1 >= -1074 ? bits - e : -1074);
}

int es_qt_y_init(es_qt_y_t *y, const es_dataset_t *ds)
{
    memset(y, 0, sizeof *y);
    if (!ds->qt) {
        es_error("not a quantitative trait");
        return ES_ERR_DATA;
    }
    uint32_t ns = ds->plink->n_samples;
    double lo = INFINITY, hi = -INFINITY;
    for (uint32_t s = 0; s < ns; s++) {
        if (ds->status[s] != 0) continue;
        double v = ds->qt_y[s];
        if (v < lo) lo = v;
        if (v > hi) hi = v;
        y->n++;
    }
    if (!y->n || !(hi > lo)) {
        es_error("every sample has the same quantitative phenotype (%g): nothing to test", lo);
        return ES_ERR_DATA;
    }
    y->slots = es_class_words(ds, ds->n_ctrl) * 64u;
    y->y0 = lo;
    y->scale = pow2_scale(hi - lo, ES_QT_BITS);
    y->scale2 = pow2_scale((hi - lo) * (hi - lo), ES_QT_BITS);
    y->q = calloc(y->slots ? y->slots : 1, sizeof *y->q);
    y->q2 = calloc(y->slots ? y->slots : 1, sizeof *y->q2);
    y->yd = calloc(y->slots ? y->slots : 1, sizeof *y->yd);
    if (!y->q || !y->q2 || !y->yd) {
        es_qt_y_free(y);
        es_error("cannot allocate the phenotype of %u samples", ns);
        return ES_ERR_NOMEM;
    }
    for (uint32_t s = 0; s < ns; s++) {
        if (ds->status[s] != 0 || ds->slot[s] < 0) continue;
        double d = ds->qt_y[s] - lo;
        y->yd[ds->slot[s]] = d;
        y->q[ds->slot[s]] = (uint64_t)llround(d * y->scale);
        y->q2[ds->slot[s]] = (uint64_t)llround(d * d * y->scale2);
    }
    return ES_OK;
}

void es_qt_y_free(es_qt_y_t *y)
{
    free(y->q);
    free(y->q2);
    free(y->yd);
    memset(y, 0, sizeof *y);
}

/* ---- blocks ------------------------------------------------------------ */

void es_qt_block_free(es_qt_block_t *b)
{
    free(b->code);
    free(b->code_t);
    free(b->ar);
    free(b->br);
    free(b->tot);
    free(b->moff);
    free(b->mpos);
    free(b->mq);
    memset(b, 0, sizeof *b);
}

static int block_reserve(es_qt_block_t *b, uint32_t count, uint32_t len, int cells)
{
    if (b->cap >= count && b->len == len && b->cells == cells) return ES_OK;
    es_qt_block_free(b);
    size_t rows = cells ? 2 : 1;
    b->code = malloc((size_t)count * len);
    b->tstride = (count + 63) / 64 * 64;
    b->code_t = aligned_alloc(64, (size_t)b->tstride * len);
    b->ar = aligned_alloc(64, (size_t)count * rows * ES_QT_SLICES * len);
    b->br = aligned_alloc(64, (size_t)count * rows * len);
    b->tot = malloc((size_t)count * sizeof *b->tot);
    b->moff = malloc(((size_t)count + 1) * sizeof *b->moff);
    if (!b->code || !b->code_t || !b->ar || !b->br || !b->tot || !b->moff) {
        es_qt_block_free(b);
        es_error("cannot allocate the phenotype rows of %u variants", count);
        return ES_ERR_NOMEM;
    }
    b->cap = count;
    b->len = len;
    b->cells = cells;
    return ES_OK;
}

/* append slot s to the block's missing calls */
static int miss_push(es_qt_block_t *b, uint32_t *nm, uint32_t s, const es_qt_y_t *y)
{
    if (*nm == b->mcap) {
        size_t cap = b->mcap ? 2 * b->mcap : 1024;
        uint32_t *np = realloc(b->mpos, cap * sizeof *np);
        if (np) b->mpos = np;
        int64_t(*nq)[2] = np ? realloc(b->mq, cap * sizeof *nq) : NULL;
        if (!nq) {
            es_error("cannot allocate the missing calls of a block");
            return ES_ERR_NOMEM;
        }
        b->mq = nq;
        b->mcap = cap;
    }
    b->mq[*nm][0] = (int64_t)y->q[s];
    b->mq[*nm][1] = (int64_t)y->q2[s];
    b->mpos[(*nm)++] = s;
    return ES_OK;
}

#if ES_CPU_X86
/* A linear layout's row of one variant (the scalar loop below, 64 slots a
 * step): the codes, b, the five slices of a q, the totals and the missing
 * calls; not code_t. */
static ES_TARGET_AVX512 int fill_linear_avx512(es_qt_block_t *b, uint32_t v, const uint64_t *p1, const uint64_t *p2,
                                               const uint64_t *pv, const es_qt_y_t *y, uint32_t *nm)
{
    const uint32_t len = b->len;
    uint8_t *code = b->code + (size_t)v * len;
    uint8_t *ar = b->ar + (size_t)v * ES_QT_SLICES * len;
    int8_t *br = b->br + (size_t)v * len;
    const __m512i one = _mm512_set1_epi8(1), three = _mm512_set1_epi8(3);
    __m512i tq = _mm512_setzero_si512(), tq2 = tq, t1 = tq, t2 = tq;
    for (uint32_t w = 0; w < len / 64; w++) {
        uint32_t s0 = w * 64;
        /* missing: V clear at a slot below n (the pad is never missing) */
        uint64_t valid = s0 + 64 <= y->n ? ~0ull : s0 >= y->n ? 0 : (1ull << (y->n - s0)) - 1;
        uint64_t mm = pv ? ~pv[w] & valid : 0;
        __m512i g = _mm512_add_epi8(_mm512_maskz_mov_epi8(p1[w], one), _mm512_maskz_mov_epi8(p2[w], one));
        __m512i bv = _mm512_maskz_mov_epi8(~mm, g);
        _mm512_storeu_si512((void *)(code + s0), _mm512_mask_mov_epi8(g, mm, three));
        _mm512_storeu_si512((void *)(br + s0), bv);
        const uint64_t called = ~mm;
        for (; mm; mm &= mm - 1) { /* the missing calls, in slot order */
            int ret = miss_push(b, nm, s0 + (uint32_t)__builtin_ctzll(mm), y);
            if (ret) return ret;
        }
        for (uint32_t e = 0; e < 8; e++) {
            uint32_t s = s0 + 8 * e;
            __mmask8 k1 = (__mmask8)(p1[w] >> (8 * e)), k2 = (__mmask8)(p2[w] >> (8 * e));
            __mmask8 kc = (__mmask8)(called >> (8 * e));
            __m512i q = _mm512_loadu_si512((const void *)(y->q + s)), q2 = _mm512_loadu_si512((const void *)(y->q2 + s));
            /* a q: P1 and P2 are clear at a missing call */
            __m512i x = _mm512_maskz_mov_epi64(k1, q);
            x = _mm512_mask_add_epi64(x, k2, x, q);
            tq = _mm512_mask_add_epi64(tq, kc, tq, q);
            tq2 = _mm512_mask_add_epi64(tq2, kc, tq2, q2);
            t1 = _mm512_mask_add_epi64(t1, k1 & (__mmask8)~k2, t1, q);
            t2 = _mm512_mask_add_epi64(t2, k2, t2, q);
            for (int k = 0; k < ES_QT_SLICES; k++)
                _mm_storel_epi64((__m128i *)(ar + (size_t)k * len + s),
                                 _mm512_cvtepi64_epi8(_mm512_srli_epi64(x, 8 * k)));
        }
    }
    b->tot[v][0] = _mm512_reduce_add_epi64(t1);
    b->tot[v][1] = _mm512_reduce_add_epi64(t2);
    b->tot[v][2] = _mm512_reduce_add_epi64(tq);
    b->tot[v][3] = _mm512_reduce_add_epi64(tq2);
    return ES_OK;
}
#endif

int es_qt_block_fill(es_qt_block_t *b, const es_planes_t *pl, uint32_t v0, uint32_t count,
                     const es_qt_y_t *y, int cells)
{
    uint32_t len = y->slots;
    int ret = block_reserve(b, count, len, cells);
    if (ret) return ret;
    size_t rows = cells ? 2 : 1;
    uint32_t nm = 0;
    b->count = count;
#if ES_CPU_X86
    /* EPISTREAM_QT_KERNEL=scalar: the scalar loop (the tests' twin) */
    const char *force = es_env_variant("EPISTREAM_QT_KERNEL");
    const int fill_vector = es_cpu_has(ES_CPU_AVX512) && !(force && !strcmp(force, "scalar"));
#endif
    for (uint32_t v = 0; v < count; v++) {
        const uint64_t *p1 = es_plane(pl, v0 + v, 0), *p2 = es_plane(pl, v0 + v, 1);
        const uint64_t *pv = pl->n_planes == 3 ? es_plane(pl, v0 + v, 2) : NULL;
        uint8_t *code = b->code + (size_t)v * len;
        uint8_t *ar = b->ar + (size_t)v * rows * ES_QT_SLICES * len;
        int8_t *br = b->br + (size_t)v * rows * len;
        int64_t t1 = 0, t2 = 0, tq = 0, tq2 = 0;
        b->moff[v] = nm;
#if ES_CPU_X86
        if (!cells && len % 64 == 0 && fill_vector) {
            int r = fill_linear_avx512(b, v, p1, p2, pv, y, &nm);
            if (r) return r;
            for (uint32_t s = 0; s < len; s++) b->code_t[(size_t)s * b->tstride + v] = code[s];
            continue;
        }
#endif
        for (uint32_t s = 0; s < len; s++) {
            uint32_t w = s / 64, bit = s % 64;
            unsigned g = (unsigned)((p1[w] >> bit) & 1) + (unsigned)((p2[w] >> bit) & 1);
            if (pv && s < y->n && !((pv[w] >> bit) & 1)) g = 3;
            code[s] = (uint8_t)g;
            b->code_t[(size_t)s * b->tstride + v] = (uint8_t)g;
            uint64_t q = y->q[s];
            if (g == 3) {
                int r = miss_push(b, &nm, s, y);
                if (r) return r;
            } else {
                tq += (int64_t)q;
                tq2 += (int64_t)y->q2[s];
                if (g == 1) t1 += (int64_t)q;
                if (g == 2) t2 += (int64_t)q;
            }
            uint64_t x0, x1 = 0;
            if (cells) {
                x0 = g == 1 ? q : 0;
                x1 = g == 2 ? q : 0;
                br[s] = (int8_t)(g == 1);
                br[len + s] = (int8_t)(g == 2);
            } else {
                x0 = g < 3 ? g * q : 0;
                br[s] = (int8_t)(g < 3 ? g : 0);
            }
            for (int k = 0; k < ES_QT_SLICES; k++) {
                ar[(size_t)k * len + s] = (uint8_t)(x0 >> (8 * k));
                if (cells) ar[(size_t)(ES_QT_SLICES + k) * len + s] = (uint8_t)(x1 >> (8 * k));
            }
        }
        b->tot[v][0] = t1;
        b->tot[v][1] = t2;
        b->tot[v][2] = tq;
        b->tot[v][3] = tq2;
    }
    b->moff[count] = nm;
    for (uint32_t s = 0; s < len; s++) memset(b->code_t + (size_t)s * b->tstride + count, 0, b->tstride - count);
    return ES_OK;
}

/* ---- dot kernels: out[k] = sum_s 256^slice ... of a5 (ES_QT_SLICES rows of
 * len bytes) with b + k * bstride, k < nb ------------------------------------ */

typedef void (*dot5_fn)(const uint8_t *a5, size_t len, const int8_t *b, size_t bstride, uint32_t nb,
                        int64_t *out);

/* slices sl0 .. sl0 + nsl - 1 only: sum_k 256^k dot(slice sl0 + k, b) */
static void dotn_scalar(const uint8_t *a5, size_t len, int sl0, int nsl, const int8_t *b, size_t bstride, uint32_t nb,
                        int64_t *out)
{
    for (uint32_t k = 0; k < nb; k++) {
        const int8_t *bk = b + (size_t)k * bstride;
        int64_t sum = 0;
        for (int sl = sl0 + nsl - 1; sl >= sl0; sl--) {
            const uint8_t *a = a5 + (size_t)sl * len;
            int64_t d = 0;
            for (size_t s = 0; s < len; s++) d += (int64_t)a[s] * bk[s];
            sum = sum * 256 + d;
        }
        out[k] = sum;
    }
}

static void dot5_scalar(const uint8_t *a5, size_t len, const int8_t *b, size_t bstride, uint32_t nb, int64_t *out)
{
    dotn_scalar(a5, len, 0, ES_QT_SLICES, b, bstride, nb, out);
}

/* The top two slices (the bound's, es_qt_sums_run_hi) and the other three
 * (es_qt_saby_lo) */
#define QT_HI0 3
#define QT_HI ((int)ES_QT_SLICES - QT_HI0)

static void dothi_scalar(const uint8_t *a5, size_t len, const int8_t *b, size_t bstride, uint32_t nb, int64_t *out)
{
    dotn_scalar(a5, len, QT_HI0, QT_HI, b, bstride, nb, out);
}

static void dotlo_scalar(const uint8_t *a5, size_t len, const int8_t *b, size_t bstride, uint32_t nb, int64_t *out)
{
    dotn_scalar(a5, len, 0, QT_HI0, b, bstride, nb, out);
}

#if ES_CPU_X86
/* 32-bit lanes to one 64-bit sum (lanes may hold up to 2^31 each) */
static inline ES_TARGET_VNNI __attribute__((always_inline)) int64_t hsum512(__m512i v)
{
    __m512i lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(v));
    __m512i hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1));
    return _mm512_reduce_add_epi64(_mm512_add_epi64(lo, hi));
}

/* one slice sum: sum_k 256^k of five lanes-accumulators */
static inline ES_TARGET_VNNI __attribute__((always_inline)) int64_t join5(__m512i c0, __m512i c1, __m512i c2,
                                                                         __m512i c3, __m512i c4)
{
    return (((hsum512(c4) * 256 + hsum512(c3)) * 256 + hsum512(c2)) * 256 + hsum512(c1)) * 256 + hsum512(c0);
}

/* four partners at a time: 20 accumulators in registers (named: GCC keeps an
 * array of them in memory), the five slices loaded once per 64 samples for
 * all four */
#define DP4(k, av)                                                                                                     \
    do {                                                                                                               \
        c##k##0 = _mm512_dpbusd_epi32(c##k##0, av, b0);                                                                \
        c##k##1 = _mm512_dpbusd_epi32(c##k##1, av, b1);                                                                \
        c##k##2 = _mm512_dpbusd_epi32(c##k##2, av, b2);                                                                \
        c##k##3 = _mm512_dpbusd_epi32(c##k##3, av, b3);                                                                \
    } while (0)

static ES_TARGET_VNNI void dot5_vnni(const uint8_t *a5, size_t len, const int8_t *b, size_t bstride, uint32_t nb,
                                     int64_t *out)
{
    const uint8_t *s0 = a5, *s1 = a5 + len, *s2 = a5 + 2 * len, *s3 = a5 + 3 * len, *s4 = a5 + 4 * len;
    uint32_t k = 0;
    for (; k + 4 <= nb; k += 4) {
        const int8_t *p0 = b + (size_t)k * bstride, *p1 = p0 + bstride, *p2 = p1 + bstride, *p3 = p2 + bstride;
        __m512i z = _mm512_setzero_si512();
        __m512i c00 = z, c01 = z, c02 = z, c03 = z, c10 = z, c11 = z, c12 = z, c13 = z, c20 = z, c21 = z, c22 = z,
                c23 = z, c30 = z, c31 = z, c32 = z, c33 = z, c40 = z, c41 = z, c42 = z, c43 = z;
        for (size_t s = 0; s < len; s += 64) {
            __m512i b0 = _mm512_loadu_si512((const void *)(p0 + s)), b1 = _mm512_loadu_si512((const void *)(p1 + s));
            __m512i b2 = _mm512_loadu_si512((const void *)(p2 + s)), b3 = _mm512_loadu_si512((const void *)(p3 + s));
            DP4(0, _mm512_loadu_si512((const void *)(s0 + s)));
            DP4(1, _mm512_loadu_si512((const void *)(s1 + s)));
            DP4(2, _mm512_loadu_si512((const void *)(s2 + s)));
            DP4(3, _mm512_loadu_si512((const void *)(s3 + s)));
            DP4(4, _mm512_loadu_si512((const void *)(s4 + s)));
        }
        out[k] = join5(c00, c10, c20, c30, c40);
        out[k + 1] = join5(c01, c11, c21, c31, c41);
        out[k + 2] = join5(c02, c12, c22, c32, c42);
        out[k + 3] = join5(c03, c13, c23, c33, c43);
    }
    for (; k < nb; k++) {
        const int8_t *bk = b + (size_t)k * bstride;
        __m512i z = _mm512_setzero_si512(), c0 = z, c1 = z, c2 = z, c3 = z, c4 = z;
        for (size_t s = 0; s < len; s += 64) {
            __m512i bv = _mm512_loadu_si512((const void *)(bk + s));
            c0 = _mm512_dpbusd_epi32(c0, _mm512_loadu_si512((const void *)(s0 + s)), bv);
            c1 = _mm512_dpbusd_epi32(c1, _mm512_loadu_si512((const void *)(s1 + s)), bv);
            c2 = _mm512_dpbusd_epi32(c2, _mm512_loadu_si512((const void *)(s2 + s)), bv);
            c3 = _mm512_dpbusd_epi32(c3, _mm512_loadu_si512((const void *)(s3 + s)), bv);
            c4 = _mm512_dpbusd_epi32(c4, _mm512_loadu_si512((const void *)(s4 + s)), bv);
        }
        out[k] = join5(c0, c1, c2, c3, c4);
    }
}

/* the top two slices, four partners at a time (8 accumulators) */
static ES_TARGET_VNNI void dothi_vnni(const uint8_t *a5, size_t len, const int8_t *b, size_t bstride, uint32_t nb,
                                      int64_t *out)
{
    const uint8_t *s3 = a5 + (size_t)QT_HI0 * len, *s4 = s3 + len;
    uint32_t k = 0;
    for (; k + 4 <= nb; k += 4) {
        const int8_t *p0 = b + (size_t)k * bstride, *p1 = p0 + bstride, *p2 = p1 + bstride, *p3 = p2 + bstride;
        __m512i z = _mm512_setzero_si512();
        __m512i c30 = z, c31 = z, c32 = z, c33 = z, c40 = z, c41 = z, c42 = z, c43 = z;
        for (size_t s = 0; s < len; s += 64) {
            __m512i b0 = _mm512_loadu_si512((const void *)(p0 + s)), b1 = _mm512_loadu_si512((const void *)(p1 + s));
            __m512i b2 = _mm512_loadu_si512((const void *)(p2 + s)), b3 = _mm512_loadu_si512((const void *)(p3 + s));
            DP4(3, _mm512_loadu_si512((const void *)(s3 + s)));
            DP4(4, _mm512_loadu_si512((const void *)(s4 + s)));
        }
        out[k] = hsum512(c40) * 256 + hsum512(c30);
        out[k + 1] = hsum512(c41) * 256 + hsum512(c31);
        out[k + 2] = hsum512(c42) * 256 + hsum512(c32);
        out[k + 3] = hsum512(c43) * 256 + hsum512(c33);
    }
    for (; k < nb; k++) {
        const int8_t *bk = b + (size_t)k * bstride;
        __m512i c3 = _mm512_setzero_si512(), c4 = c3;
        for (size_t s = 0; s < len; s += 64) {
            __m512i bv = _mm512_loadu_si512((const void *)(bk + s));
            c3 = _mm512_dpbusd_epi32(c3, _mm512_loadu_si512((const void *)(s3 + s)), bv);
            c4 = _mm512_dpbusd_epi32(c4, _mm512_loadu_si512((const void *)(s4 + s)), bv);
        }
        out[k] = hsum512(c4) * 256 + hsum512(c3);
    }
}

/* the three low slices of single partners (the pairs the bound keeps) */
static ES_TARGET_VNNI void dotlo_vnni(const uint8_t *a5, size_t len, const int8_t *b, size_t bstride, uint32_t nb,
                                      int64_t *out)
{
    const uint8_t *s0 = a5, *s1 = a5 + len, *s2 = a5 + 2 * len;
    for (uint32_t k = 0; k < nb; k++) {
        const int8_t *bk = b + (size_t)k * bstride;
        __m512i c0 = _mm512_setzero_si512(), c1 = c0, c2 = c0;
        for (size_t s = 0; s < len; s += 64) {
            __m512i bv = _mm512_loadu_si512((const void *)(bk + s));
            c0 = _mm512_dpbusd_epi32(c0, _mm512_loadu_si512((const void *)(s0 + s)), bv);
            c1 = _mm512_dpbusd_epi32(c1, _mm512_loadu_si512((const void *)(s1 + s)), bv);
            c2 = _mm512_dpbusd_epi32(c2, _mm512_loadu_si512((const void *)(s2 + s)), bv);
        }
        out[k] = (hsum512(c2) * 256 + hsum512(c1)) * 256 + hsum512(c0);
    }
}
#undef DP4

/* Up to this many slots the top two slices' sums fit 32-bit lanes whole:
 * every term is >= 0 (b in 0..2, slices 0..255) and 256 y + x sums
 * (256 * 255 + 255) * 2 = 131,070 a slot, 1.07e9 < 2^31 for 8,192 slots */
#define QT_HI_JOIN32 8192

/* The lane sums of eight vectors of 32-bit lanes, as the eight lanes of one
 * (each sum < 2^31, so no partial one overflows: every lane is >= 0) */
static inline ES_TARGET_VNNI __attribute__((always_inline)) __m256i hsum8_epi32(__m512i v0, __m512i v1, __m512i v2,
                                                                                 __m512i v3, __m512i v4, __m512i v5,
                                                                                 __m512i v6, __m512i v7)
{
    /* each 128-bit lane of tij: (part of vi, part of vj) twice */
    __m512i t01 = _mm512_add_epi32(_mm512_unpacklo_epi32(v0, v1), _mm512_unpackhi_epi32(v0, v1));
    __m512i t23 = _mm512_add_epi32(_mm512_unpacklo_epi32(v2, v3), _mm512_unpackhi_epi32(v2, v3));
    __m512i t45 = _mm512_add_epi32(_mm512_unpacklo_epi32(v4, v5), _mm512_unpackhi_epi32(v4, v5));
    __m512i t67 = _mm512_add_epi32(_mm512_unpacklo_epi32(v6, v7), _mm512_unpackhi_epi32(v6, v7));
    /* each 128-bit lane: parts of v0..v3 (v4..v7) */
    __m512i s0 = _mm512_add_epi32(_mm512_unpacklo_epi64(t01, t23), _mm512_unpackhi_epi64(t01, t23));
    __m512i s1 = _mm512_add_epi32(_mm512_unpacklo_epi64(t45, t67), _mm512_unpackhi_epi64(t45, t67));
    /* 0x88 takes 128-bit lanes 0, 2 of each source, 0xdd lanes 1, 3 */
    __m512i u = _mm512_add_epi32(_mm512_shuffle_i32x4(s0, s1, 0x88), _mm512_shuffle_i32x4(s0, s1, 0xdd));
    __m512i w = _mm512_add_epi32(_mm512_shuffle_i32x4(u, u, 0x88), _mm512_shuffle_i32x4(u, u, 0xdd));
    return _mm512_castsi512_si256(w);
}

/* acc += a (u8) . b (s8) in asm: with the intrinsic, GCC 12 copies each
 * accumulator to a scratch register and back around every vpdpbusd when
 * many are live */
#define DPB(acc, a, b) __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b))

/* The top two slices of four first variants (a4[g]: the five slices of
 * variant g) against two partners at a time: 16 accumulators, so each
 * partner's row (read from L2 for a block of partners) serves four first
 * variants.  out[g * ostride + k]. */
static ES_TARGET_VNNI void dothi4_vnni(const uint8_t *const a4[4], size_t len, const int8_t *b, size_t bstride,
                                       uint32_t nb, int64_t *out, size_t ostride)
{
    const uint8_t *h0 = a4[0] + (size_t)QT_HI0 * len, *h1 = a4[1] + (size_t)QT_HI0 * len;
    const uint8_t *h2 = a4[2] + (size_t)QT_HI0 * len, *h3 = a4[3] + (size_t)QT_HI0 * len;
    uint32_t k = 0;
    for (; k < nb; k += 2) {
        const int8_t *p0 = b + (size_t)k * bstride, *p1 = k + 1 < nb ? p0 + bstride : p0;
        __m512i z = _mm512_setzero_si512();
        __m512i x00 = z, x01 = z, x10 = z, x11 = z, x20 = z, x21 = z, x30 = z, x31 = z; /* slice 3: [g][partner] */
        __m512i y00 = z, y01 = z, y10 = z, y11 = z, y20 = z, y21 = z, y30 = z, y31 = z; /* slice 4 */
        for (size_t s = 0; s < len; s += 64) {
            __m512i b0 = _mm512_loadu_si512((const void *)(p0 + s)), b1 = _mm512_loadu_si512((const void *)(p1 + s));
            __m512i l, h;
            l = _mm512_loadu_si512((const void *)(h0 + s)); h = _mm512_loadu_si512((const void *)(h0 + len + s));
            DPB(x00, l, b0); DPB(x01, l, b1); DPB(y00, h, b0); DPB(y01, h, b1);
            l = _mm512_loadu_si512((const void *)(h1 + s)); h = _mm512_loadu_si512((const void *)(h1 + len + s));
            DPB(x10, l, b0); DPB(x11, l, b1); DPB(y10, h, b0); DPB(y11, h, b1);
            l = _mm512_loadu_si512((const void *)(h2 + s)); h = _mm512_loadu_si512((const void *)(h2 + len + s));
            DPB(x20, l, b0); DPB(x21, l, b1); DPB(y20, h, b0); DPB(y21, h, b1);
            l = _mm512_loadu_si512((const void *)(h3 + s)); h = _mm512_loadu_si512((const void *)(h3 + len + s));
            DPB(x30, l, b0); DPB(x31, l, b1); DPB(y30, h, b0); DPB(y31, h, b1);
        }
        int64_t r[8];
        if (len <= QT_HI_JOIN32) {
            /* 256 y + x per lane, the eight sums at once */
#define J(x, y) _mm512_add_epi32(_mm512_slli_epi32(y, 8), x)
            _mm512_storeu_si512((void *)r, _mm512_cvtepi32_epi64(hsum8_epi32(J(x00, y00), J(x01, y01), J(x10, y10),
                                                                             J(x11, y11), J(x20, y20), J(x21, y21),
                                                                             J(x30, y30), J(x31, y31))));
#undef J
        } else {
            r[0] = hsum512(y00) * 256 + hsum512(x00), r[1] = hsum512(y01) * 256 + hsum512(x01);
            r[2] = hsum512(y10) * 256 + hsum512(x10), r[3] = hsum512(y11) * 256 + hsum512(x11);
            r[4] = hsum512(y20) * 256 + hsum512(x20), r[5] = hsum512(y21) * 256 + hsum512(x21);
            r[6] = hsum512(y30) * 256 + hsum512(x30), r[7] = hsum512(y31) * 256 + hsum512(x31);
        }
        for (int g = 0; g < 4; g++) {
            out[(size_t)g * ostride + k] = r[2 * g];
            if (k + 1 < nb) out[(size_t)g * ostride + k + 1] = r[2 * g + 1];
        }
    }
}
#undef DPB

static inline ES_TARGET_AVX2 __attribute__((always_inline)) int64_t hsum256(__m256i v)
{
    __m256i lo = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v));
    __m256i hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1));
    __m256i s = _mm256_add_epi64(lo, hi);
    __m128i t = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    return _mm_cvtsi128_si64(t) + _mm_extract_epi64(t, 1);
}

/* two partners at a time, slices sl0 .. sl0 + nsl - 1; maddubs pairs (at
 * most 2 * 255 * 2, no saturation) widened to 32 bits by madd with ones */
static ES_TARGET_AVX2 void dotn_avx2(const uint8_t *a5, size_t len, int sl0, int nsl, const int8_t *b, size_t bstride,
                                     uint32_t nb, int64_t *out)
{
    const __m256i ones = _mm256_set1_epi16(1);
    for (uint32_t k = 0; k < nb; k += 2) {
        int two = k + 1 < nb;
        const int8_t *b0 = b + (size_t)k * bstride, *b1 = two ? b0 + bstride : b0;
        __m256i acc[ES_QT_SLICES][2];
        for (int sl = 0; sl < nsl; sl++) acc[sl][0] = acc[sl][1] = _mm256_setzero_si256();
        for (size_t s = 0; s < len; s += 32) {
            __m256i v0 = _mm256_loadu_si256((const __m256i *)(b0 + s));
            __m256i v1 = _mm256_loadu_si256((const __m256i *)(b1 + s));
            for (int sl = 0; sl < nsl; sl++) {
                __m256i av = _mm256_loadu_si256((const __m256i *)(a5 + (size_t)(sl0 + sl) * len + s));
                acc[sl][0] = _mm256_add_epi32(acc[sl][0], _mm256_madd_epi16(_mm256_maddubs_epi16(av, v0), ones));
                acc[sl][1] = _mm256_add_epi32(acc[sl][1], _mm256_madd_epi16(_mm256_maddubs_epi16(av, v1), ones));
            }
        }
        for (int t = 0; t < 1 + two; t++) {
            int64_t sum = 0;
            for (int sl = nsl - 1; sl >= 0; sl--) sum = sum * 256 + hsum256(acc[sl][t]);
            out[k + t] = sum;
        }
    }
}

static ES_TARGET_AVX2 void dot5_avx2(const uint8_t *a5, size_t len, const int8_t *b, size_t bstride, uint32_t nb,
                                     int64_t *out)
{
    dotn_avx2(a5, len, 0, ES_QT_SLICES, b, bstride, nb, out);
}

static ES_TARGET_AVX2 void dothi_avx2(const uint8_t *a5, size_t len, const int8_t *b, size_t bstride, uint32_t nb,
                                      int64_t *out)
{
    dotn_avx2(a5, len, QT_HI0, QT_HI, b, bstride, nb, out);
}

static ES_TARGET_AVX2 void dotlo_avx2(const uint8_t *a5, size_t len, const int8_t *b, size_t bstride, uint32_t nb,
                                      int64_t *out)
{
    dotn_avx2(a5, len, 0, QT_HI0, b, bstride, nb, out);
}
#endif

/* A slot's bits for the table's corrections (es_count_block_listed): P1
 * ([g = 1 or 2]), P2 ([g = 2]) and V ([g called]) as three 21-bit counters */
#define QT_FB(g) ((uint64_t)((g) == 1 || (g) == 2) | (uint64_t)((g) == 2) << 21 | (uint64_t)((g) != 3) << 42)

/* ---- the missing calls of one variant against the other's codes:
 * out[0..3] = sums over the listed slots where `code` is 1, 2, called (!= 3)
 * of q, and where called of q2 (mq holds q, q2 of each slot); only where the
 * dense row of the first variant could not be allocated (miss_dense) ----- */

static void miss_scalar(const uint32_t *pos, const int64_t (*mq)[2], uint32_t n, const uint8_t *code,
                        int64_t out[4], uint64_t *bits)
{
    int64_t s1 = 0, s2 = 0, sc = 0, sc2 = 0;
    uint64_t bt = 0;
    for (uint32_t m = 0; m < n; m++) {
        unsigned g = code[pos[m]];
        int64_t q = mq[m][0], q2 = mq[m][1];
        int64_t c = -(int64_t)(g != 3), o = -(int64_t)(g == 1), t = -(int64_t)(g == 2);
        s1 += q & o;
        s2 += q & t;
        sc += q & c;
        sc2 += q2 & c;
        bt += QT_FB(g);
    }
    out[0] = s1;
    out[1] = s2;
    out[2] = sc;
    out[3] = sc2;
    *bits = bt;
}


/* ---- the first variant's missing calls against a run of n <= 64 partners:
 * o1[k], o2[k] = sum of q over those slots where partner k has g = 1, 2
 * (ct: the partners' codes slot-major, row stride ts; o1, o2 of 64 entries,
 * those past n unspecified) ------------------------------------------------ */

typedef void (*missrun_fn)(const uint32_t *pos, const int64_t (*mq)[2], uint32_t nm, const uint8_t *ct,
                           size_t ts, uint32_t n, int64_t *o1, int64_t *o2, uint32_t *c1, uint32_t *c2);

/* c1 (NULL: not wanted): c1[k], c2[k] = those slots where partner k has
 * g = 1 or 2, g = 2 (64 entries each) */
static void missrun_scalar(const uint32_t *pos, const int64_t (*mq)[2], uint32_t nm, const uint8_t *ct, size_t ts,
                           uint32_t n, int64_t *o1, int64_t *o2, uint32_t *c1, uint32_t *c2)
{
    for (uint32_t k = 0; k < n; k++) o1[k] = o2[k] = 0;
    for (uint32_t k = 0; c1 && k < n; k++) c1[k] = c2[k] = 0;
    for (uint32_t m = 0; m < nm; m++) {
        const uint8_t *c = ct + (size_t)pos[m] * ts;
        int64_t q = mq[m][0];
        for (uint32_t k = 0; k < n; k++) {
            o1[k] += q & -(int64_t)(c[k] == 1);
            o2[k] += q & -(int64_t)(c[k] == 2);
        }
        for (uint32_t k = 0; c1 && k < n; k++) {
            c1[k] += c[k] == 1 || c[k] == 2;
            c2[k] += c[k] == 2;
        }
    }
}

#if ES_CPU_X86
/* 64 partners' codes at a slot in one load; q added under the g = 1 and
 * g = 2 masks, eight partners per accumulator; the counts in bytes, added
 * to the 32-bit ones every 255 slots */
static ES_TARGET_VNNI void missrun_avx512(const uint32_t *pos, const int64_t (*mq)[2], uint32_t nm, const uint8_t *ct,
                                          size_t ts, uint32_t n, int64_t *o1, int64_t *o2, uint32_t *c1, uint32_t *c2)
{
    __m512i a1[8], a2[8];
    for (int j = 0; j < 8; j++) a1[j] = a2[j] = _mm512_setzero_si512();
    const __m512i one = _mm512_set1_epi8(1), two = _mm512_set1_epi8(2);
    __mmask64 kn = n >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << n) - 1;
    if (c1)
        for (int j = 0; j < 4; j++) {
            _mm512_storeu_si512((void *)(c1 + 16 * j), _mm512_setzero_si512());
            _mm512_storeu_si512((void *)(c2 + 16 * j), _mm512_setzero_si512());
        }
    for (uint32_t m0 = 0; m0 < nm; m0 += 255) {
        const uint32_t m1 = nm - m0 < 255 ? nm : m0 + 255;
        __m512i n1 = _mm512_setzero_si512(), n2 = n1;
        for (uint32_t m = m0; m < m1; m++) {
            __m512i c = _mm512_maskz_loadu_epi8(kn, (const void *)(ct + (size_t)pos[m] * ts));
            __mmask64 k1 = _mm512_cmpeq_epi8_mask(c, one), k2 = _mm512_cmpeq_epi8_mask(c, two);
            __m512i q = _mm512_set1_epi64(mq[m][0]);
            for (int j = 0; j < 8; j++) {
                a1[j] = _mm512_mask_add_epi64(a1[j], (__mmask8)(k1 >> (8 * j)), a1[j], q);
                a2[j] = _mm512_mask_add_epi64(a2[j], (__mmask8)(k2 >> (8 * j)), a2[j], q);
            }
            n1 = _mm512_mask_add_epi8(n1, k1 | k2, n1, one);
            n2 = _mm512_mask_add_epi8(n2, k2, n2, one);
        }
        if (c1) {
#define FOLD(j)                                                                                                  \
    do {                                                                                                         \
        __m512i w1 = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(n1, j));                                     \
        __m512i w2 = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(n2, j));                                     \
        w1 = _mm512_add_epi32(_mm512_loadu_si512((const void *)(c1 + 16 * j)), w1);                              \
        w2 = _mm512_add_epi32(_mm512_loadu_si512((const void *)(c2 + 16 * j)), w2);                              \
        _mm512_storeu_si512((void *)(c1 + 16 * j), w1);                                                          \
        _mm512_storeu_si512((void *)(c2 + 16 * j), w2);                                                          \
    } while (0)
            FOLD(0);
            FOLD(1);
            FOLD(2);
            FOLD(3);
#undef FOLD
        }
    }
    for (int j = 0; j < 8; j++) {
        _mm512_storeu_si512((void *)(o1 + 8 * j), a1[j]);
        _mm512_storeu_si512((void *)(o2 + 8 * j), a2[j]);
    }
}
#endif

#if ES_CPU_X86
/* one 32-byte load and add a call, two chains */
static ES_TARGET_AVX2 void miss_dense_avx2(const uint32_t *pos, uint32_t n, const int64_t (*fa)[4],
                                           const uint64_t *fb, int64_t out[4], uint64_t *bits)
{
    __m256i s0 = _mm256_setzero_si256(), s1 = s0;
    uint64_t b0 = 0, b1 = 0;
    uint32_t m = 0;
    if (fb) {
        for (; m + 2 <= n; m += 2) {
            s0 = _mm256_add_epi64(s0, _mm256_load_si256((const __m256i *)fa[pos[m]]));
            s1 = _mm256_add_epi64(s1, _mm256_load_si256((const __m256i *)fa[pos[m + 1]]));
            b0 += fb[pos[m]];
            b1 += fb[pos[m + 1]];
        }
        if (m < n) b0 += fb[pos[m]];
        *bits = b0 + b1;
        m = n & ~1u;
    } else {
        for (; m + 2 <= n; m += 2) {
            s0 = _mm256_add_epi64(s0, _mm256_load_si256((const __m256i *)fa[pos[m]]));
            s1 = _mm256_add_epi64(s1, _mm256_load_si256((const __m256i *)fa[pos[m + 1]]));
        }
    }
    if (m < n) s0 = _mm256_add_epi64(s0, _mm256_load_si256((const __m256i *)fa[pos[m]]));
    _mm256_storeu_si256((__m256i *)out, _mm256_add_epi64(s0, s1));
}
#endif

static void miss_dense(const uint32_t *pos, uint32_t n, const int64_t (*fa)[4], const uint64_t *fb, int64_t out[4],
                       uint64_t *bits)
{
    int64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    uint64_t bt = 0;
    for (uint32_t m = 0; m < n; m++) {
        const int64_t *f = fa[pos[m]];
        s0 += f[0];
        s1 += f[1];
        s2 += f[2];
        s3 += f[3];
        if (fb) bt += fb[pos[m]];
    }
    if (fb) *bits = bt;
    out[0] = s0;
    out[1] = s1;
    out[2] = s2;
    out[3] = s3;
}

typedef void (*dothi4_fn)(const uint8_t *const a4[4], size_t len, const int8_t *b, size_t bstride, uint32_t nb,
                          int64_t *out, size_t ostride);

typedef struct {
    const char *name;
    dot5_fn dot5;
    dot5_fn dothi, dotlo; /* the top QT_HI slices, the others */
    dothi4_fn dothi4;     /* dothi of four first variants at once (NULL: four dothi) */
    missrun_fn missrun;
    void (*dense)(const uint32_t *pos, uint32_t n, const int64_t (*fa)[4], const uint64_t *fb, int64_t out[4],
                  uint64_t *bits);
} qt_kernel_t;

static const qt_kernel_t k_scalar = {"scalar", dot5_scalar, dothi_scalar, dotlo_scalar, NULL, missrun_scalar, miss_dense};
#if ES_CPU_X86
static const qt_kernel_t k_vnni = {"avx512vnni", dot5_vnni,      dothi_vnni,     dotlo_vnni,
                                   dothi4_vnni,  missrun_avx512, miss_dense_avx2};
static const qt_kernel_t k_avx2 = {"avx2", dot5_avx2, dothi_avx2, dotlo_avx2, NULL, missrun_scalar, miss_dense_avx2};
#endif

static const qt_kernel_t *kernel_best;
static pthread_once_t kernel_once = PTHREAD_ONCE_INIT;

/* the fastest this CPU has, or the one EPISTREAM_QT_KERNEL names (when the CPU has it) */
static void kernel_init(void)
{
    const char *force = es_env_variant("EPISTREAM_QT_KERNEL");
    kernel_best = &k_scalar;
#if ES_CPU_X86
    if ((!force || !strcmp(force, "avx512vnni")) && es_cpu_has(ES_CPU_AVX512VNNI)) kernel_best = &k_vnni;
    else if ((!force || !strcmp(force, "avx2")) && es_cpu_has(ES_CPU_AVX2)) kernel_best = &k_avx2;
#endif
    (void)force;
}

const char *es_qt_kernel_name(void)
{
    pthread_once(&kernel_once, kernel_init);
    return kernel_best->name;
}

/* ---- a run of pairs ------------------------------------------------------- */

#define RUN_CHUNK 64

void es_qt_scratch_free(es_qt_scratch_t *sc)
{
    free(sc->fa);
    free(sc->fb);
    free(sc->c8);
    memset(sc, 0, sizeof *sc);
}

/* fa[s] = q [a = 1], q [a = 2], q [called], q2 [called] at slot s of
 * variant a of A: what a partner's missing call at s takes from the pair's
 * sums, one 32-byte load a call; fb[s] its bits (QT_FB).  Row a % ES_QT_ROWS
 * of sc, kept while the next runs have the same a. */
static int scratch_row(es_qt_scratch_t *sc, const es_qt_block_t *A, uint32_t a, const es_qt_y_t *y,
                       const int64_t (**fa)[4], const uint64_t **fb)
{
    uint32_t r = a % ES_QT_ROWS;
    if (sc->cap < A->len) {
        free(sc->fa);
        free(sc->fb);
        sc->fa = aligned_alloc(64, (size_t)ES_QT_ROWS * A->len * sizeof *sc->fa);
        sc->fb = malloc((size_t)ES_QT_ROWS * A->len * sizeof *sc->fb);
        for (int k = 0; k < ES_QT_ROWS; k++) sc->blk[k] = NULL;
        if (!sc->fa || !sc->fb) {
            free(sc->fa);
            free(sc->fb);
            sc->fa = NULL;
            sc->fb = NULL;
            sc->cap = 0;
            return ES_ERR_NOMEM;
        }
        sc->cap = A->len;
    }
    int64_t(*ra)[4] = sc->fa + (size_t)r * sc->cap;
    uint64_t *rb = sc->fb + (size_t)r * sc->cap;
    *fa = (const int64_t(*)[4])ra;
    *fb = rb;
    if (sc->blk[r] == A && sc->a[r] == a) return ES_OK;
    const uint8_t *ca = A->code + (size_t)a * A->len;
    for (uint32_t s = 0; s < A->len; s++) {
        unsigned g = ca[s];
        int64_t q = (int64_t)y->q[s], called = -(int64_t)(g != 3);
        ra[s][0] = g == 1 ? q : 0;
        ra[s][1] = g == 2 ? q : 0;
        ra[s][2] = q & called;
        ra[s][3] = (int64_t)y->q2[s] & called;
        rb[s] = QT_FB(g);
    }
    sc->blk[r] = A;
    sc->a[r] = a;
    return ES_OK;
}


/* hi: saby of the top QT_HI slices only (linear) */
static void sums_run(const qt_kernel_t *kn, const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b0,
                     uint32_t nb, const es_qt_y_t *y, es_qt_scratch_t *sc, es_qt_sums_t *out, int hi,
                     uint32_t (*mc)[5], const int64_t *hi_in)
{
    /* without the scratch row (no memory for it), the codes are looked up one by one */
    const int64_t(*fa)[4] = NULL;
    const uint64_t *fb = NULL;
    int dense = B->moff[B->count] > 0 && scratch_row(sc, A, a, y, &fa, &fb) == ES_OK;
    size_t len = A->len, rows = A->cells ? 2 : 1;
    const uint8_t *ar = A->ar + (size_t)a * rows * ES_QT_SLICES * len;
    const uint8_t *ca = A->code + (size_t)a * len;
    int64_t d[4][RUN_CHUNK], ma[2][RUN_CHUNK];
    uint32_t mcnt[2][RUN_CHUNK];
    uint32_t am0 = A->moff[a], anm = A->moff[a + 1] - am0;
    for (uint32_t c0 = 0; c0 < nb; c0 += RUN_CHUNK) {
        uint32_t n = nb - c0 < RUN_CHUNK ? nb - c0 : RUN_CHUNK;
        const int8_t *br = B->br + (size_t)(b0 + c0) * rows * len;
        if (A->cells) {
            for (int r = 0; r < 2; r++) {
                kn->dot5(ar + (size_t)r * ES_QT_SLICES * len, len, br, 2 * len, n, d[2 * r]);
                kn->dot5(ar + (size_t)r * ES_QT_SLICES * len, len, br + len, 2 * len, n, d[2 * r + 1]);
            }
        } else if (hi_in) {
            memcpy(d[0], hi_in + c0, (size_t)n * sizeof *hi_in);
        } else if (hi) {
            kn->dothi(ar, len, br, len, n, d[0]);
        } else {
            kn->dot5(ar, len, br, len, n, d[0]);
        }
        /* a's missing calls where a partner is called leave the pair */
        if (anm) {
            kn->missrun(A->mpos + am0, (const int64_t(*)[2])A->mq + am0, anm, B->code_t + b0 + c0, B->tstride, n,
                        ma[0], ma[1], mc ? mcnt[0] : NULL, mcnt[1]);
        } else {
            memset(ma, 0, sizeof ma);
            memset(mcnt, 0, sizeof mcnt);
        }
        for (uint32_t k = 0; k < n; k++) {
            uint32_t b = b0 + c0 + k;
            es_qt_sums_t *o = &out[c0 + k];
            int64_t mb[4];
            uint64_t bits = 0;
            /* b's missing calls where a is called leave the pair */
            if (dense)
                kn->dense(B->mpos + B->moff[b], B->moff[b + 1] - B->moff[b], fa, mc ? fb : NULL, mb, &bits);
            else
                miss_scalar(B->mpos + B->moff[b], (const int64_t(*)[2])B->mq + B->moff[b], B->moff[b + 1] - B->moff[b],
                            ca, mb, &bits);
            if (mc) {
                uint32_t *m5 = mc[c0 + k];
                m5[0] = (uint32_t)(bits & 0x1fffff);
                m5[1] = (uint32_t)(bits >> 21 & 0x1fffff);
                m5[2] = (uint32_t)(bits >> 42);
                m5[3] = mcnt[0][k];
                m5[4] = mcnt[1][k];
            }
            int64_t ra1 = A->tot[a][0] - mb[0], ra2 = A->tot[a][1] - mb[1];
            int64_t sy = A->tot[a][2] - mb[2], syy = A->tot[a][3] - mb[3];
            int64_t cb1 = B->tot[b][0] - ma[0][k], cb2 = B->tot[b][1] - ma[1][k];
            o->sy = sy;
            o->syy = syy;
            o->ra[0] = ra1;
            o->ra[1] = ra2;
            o->cb[0] = cb1;
            o->cb[1] = cb2;
            if (A->cells) {
                for (int c = 0; c < 4; c++) o->cell[c] = d[c][k];
                o->saby = d[0][k] + 2 * (d[1][k] + d[2][k]) + 4 * d[3][k];
            } else {
                o->saby = d[0][k];
                memset(o->cell, 0, sizeof o->cell);
            }
        }
    }
}

void es_qt_sums_run(const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b0, uint32_t nb,
                    const es_qt_y_t *y, es_qt_scratch_t *sc, es_qt_sums_t *out)
{
    pthread_once(&kernel_once, kernel_init);
    sums_run(kernel_best, A, a, B, b0, nb, y, sc, out, 0, NULL, NULL);
}

void es_qt_sums_run_hi(const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b0, uint32_t nb,
                       const es_qt_y_t *y, es_qt_scratch_t *sc, es_qt_sums_t *out, int scalar)
{
    pthread_once(&kernel_once, kernel_init);
    sums_run(scalar ? &k_scalar : kernel_best, A, a, B, b0, nb, y, sc, out, !A->cells, NULL, NULL);
}

void es_qt_sums_run_listed(const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b0, uint32_t nb,
                           const es_qt_y_t *y, es_qt_scratch_t *sc, es_qt_sums_t *out, uint32_t (*mc)[5],
                           const int64_t *hi, int scalar)
{
    pthread_once(&kernel_once, kernel_init);
    sums_run(scalar ? &k_scalar : kernel_best, A, a, B, b0, nb, y, sc, out, !A->cells, mc, hi);
}

/* ---- a group of first variants against a run of partners ---------------- */

/* out[0..4][g]: over the listed slots (a partner's missing calls), the sums
 * of q where first variant g has 1, 2, is called, of q2 where it is called,
 * and its QT_FB bits; c8[s]: the group's codes at slot s, a byte each */
static void bmiss_group_scalar(const uint64_t *c8, const uint64_t *q, const uint64_t *q2, const uint32_t *pos,
                               uint32_t n, int64_t out[5][ES_QT_GROUP])
{
    for (int g = 0; g < ES_QT_GROUP; g++) {
        int64_t s1 = 0, s2 = 0, sc = 0, sc2 = 0;
        uint64_t bt = 0;
        for (uint32_t m = 0; m < n; m++) {
            uint32_t p = pos[m];
            unsigned c = (unsigned)(c8[p] >> (8 * g) & 0xff);
            int64_t qq = (int64_t)q[p], called = -(int64_t)(c != 3);
            s1 += c == 1 ? qq : 0;
            s2 += c == 2 ? qq : 0;
            sc += qq & called;
            sc2 += (int64_t)q2[p] & called;
            bt += QT_FB(c);
        }
        out[0][g] = s1;
        out[1][g] = s2;
        out[2][g] = sc;
        out[3][g] = sc2;
        out[4][g] = (int64_t)bt;
    }
}

#if ES_CPU_X86
static ES_TARGET_VNNI void bmiss_group_avx512(const uint64_t *c8, const uint64_t *q, const uint64_t *q2,
                                              const uint32_t *pos, uint32_t n, int64_t out[5][ES_QT_GROUP])
{
    const __m512i one = _mm512_set1_epi64(1), two = _mm512_set1_epi64(2), three = _mm512_set1_epi64(3);
    /* QT_FB of a code, by the code (0..3: lanes 0..3 of the table) */
    const __m512i fb = _mm512_setr_epi64((int64_t)QT_FB(0), (int64_t)QT_FB(1), (int64_t)QT_FB(2), (int64_t)QT_FB(3),
                                         0, 0, 0, 0);
    __m512i s1 = _mm512_setzero_si512(), s2 = s1, sc = s1, sc2 = s1, bt = s1;
    for (uint32_t m = 0; m < n; m++) {
        uint32_t p = pos[m];
        __m512i cv = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(c8 + p)));
        __m512i qv = _mm512_set1_epi64((int64_t)q[p]), q2v = _mm512_set1_epi64((int64_t)q2[p]);
        __mmask8 k1 = _mm512_cmpeq_epi64_mask(cv, one), k2 = _mm512_cmpeq_epi64_mask(cv, two);
        __mmask8 kc = _mm512_cmpneq_epi64_mask(cv, three);
        s1 = _mm512_mask_add_epi64(s1, k1, s1, qv);
        s2 = _mm512_mask_add_epi64(s2, k2, s2, qv);
        sc = _mm512_mask_add_epi64(sc, kc, sc, qv);
        sc2 = _mm512_mask_add_epi64(sc2, kc, sc2, q2v);
        bt = _mm512_add_epi64(bt, _mm512_permutexvar_epi64(cv, fb));
    }
    _mm512_storeu_si512((void *)out[0], s1);
    _mm512_storeu_si512((void *)out[1], s2);
    _mm512_storeu_si512((void *)out[2], sc);
    _mm512_storeu_si512((void *)out[3], sc2);
    _mm512_storeu_si512((void *)out[4], bt);
}
#endif

#if ES_CPU_X86
/* c8[s] = byte g of rows[g][s & msk[g]] for s < len (a multiple of 64): an
 * 8 x 64 byte transpose a step, in 128-bit lanes (unpacks of bytes, words,
 * dwords), then the lanes put in slot order */
static ES_TARGET_AVX512 void group_codes_avx512(const uint8_t *const rows[8], const size_t msk[8], size_t len,
                                                uint64_t *c8)
{
#define LD(g) _mm512_loadu_si512((const void *)(rows[g] + (s & msk[g])))
    for (size_t s = 0; s < len; s += 64) {
        __m512i r0 = LD(0), r1 = LD(1), r2 = LD(2), r3 = LD(3), r4 = LD(4), r5 = LD(5), r6 = LD(6), r7 = LD(7);
        /* lane L of a01l: slots 16L + 0..7, a byte of rows 0 and 1 each; a01h: 16L + 8..15 */
        __m512i a01l = _mm512_unpacklo_epi8(r0, r1), a01h = _mm512_unpackhi_epi8(r0, r1);
        __m512i a23l = _mm512_unpacklo_epi8(r2, r3), a23h = _mm512_unpackhi_epi8(r2, r3);
        __m512i a45l = _mm512_unpacklo_epi8(r4, r5), a45h = _mm512_unpackhi_epi8(r4, r5);
        __m512i a67l = _mm512_unpacklo_epi8(r6, r7), a67h = _mm512_unpackhi_epi8(r6, r7);
        /* four slots a lane, rows 0..3 (4..7): 16L + 0..3, 4..7, 8..11, 12..15 */
        __m512i b0 = _mm512_unpacklo_epi16(a01l, a23l), b1 = _mm512_unpackhi_epi16(a01l, a23l);
        __m512i b2 = _mm512_unpacklo_epi16(a01h, a23h), b3 = _mm512_unpackhi_epi16(a01h, a23h);
        __m512i d0 = _mm512_unpacklo_epi16(a45l, a67l), d1 = _mm512_unpackhi_epi16(a45l, a67l);
        __m512i d2 = _mm512_unpacklo_epi16(a45h, a67h), d3 = _mm512_unpackhi_epi16(a45h, a67h);
        /* o[j] lane L: slots 16L + 2j, 16L + 2j + 1, eight rows each */
        __m512i o0 = _mm512_unpacklo_epi32(b0, d0), o1 = _mm512_unpackhi_epi32(b0, d0);
        __m512i o2 = _mm512_unpacklo_epi32(b1, d1), o3 = _mm512_unpackhi_epi32(b1, d1);
        __m512i o4 = _mm512_unpacklo_epi32(b2, d2), o5 = _mm512_unpackhi_epi32(b2, d2);
        __m512i o6 = _mm512_unpacklo_epi32(b3, d3), o7 = _mm512_unpackhi_epi32(b3, d3);
        /* slots 16L + 0..7 are lane L of o0..o3, 16L + 8..15 of o4..o7 */
        __m512i x = _mm512_shuffle_i64x2(o0, o1, 0x44), y = _mm512_shuffle_i64x2(o2, o3, 0x44);
        __m512i xh = _mm512_shuffle_i64x2(o0, o1, 0xee), yh = _mm512_shuffle_i64x2(o2, o3, 0xee);
        __m512i u = _mm512_shuffle_i64x2(o4, o5, 0x44), v = _mm512_shuffle_i64x2(o6, o7, 0x44);
        __m512i uh = _mm512_shuffle_i64x2(o4, o5, 0xee), vh = _mm512_shuffle_i64x2(o6, o7, 0xee);
        _mm512_storeu_si512((void *)(c8 + s), _mm512_shuffle_i64x2(x, y, 0x88));
        _mm512_storeu_si512((void *)(c8 + s + 8), _mm512_shuffle_i64x2(u, v, 0x88));
        _mm512_storeu_si512((void *)(c8 + s + 16), _mm512_shuffle_i64x2(x, y, 0xdd));
        _mm512_storeu_si512((void *)(c8 + s + 24), _mm512_shuffle_i64x2(u, v, 0xdd));
        _mm512_storeu_si512((void *)(c8 + s + 32), _mm512_shuffle_i64x2(xh, yh, 0x88));
        _mm512_storeu_si512((void *)(c8 + s + 40), _mm512_shuffle_i64x2(uh, vh, 0x88));
        _mm512_storeu_si512((void *)(c8 + s + 48), _mm512_shuffle_i64x2(xh, yh, 0xdd));
        _mm512_storeu_si512((void *)(c8 + s + 56), _mm512_shuffle_i64x2(uh, vh, 0xdd));
    }
#undef LD
}

static const uint8_t threes64[64] = {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
                                     3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
                                     3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
#endif

/* the group's codes a slot (lanes past na: 3, which adds nothing) */
static int group_codes(es_qt_scratch_t *sc, const es_qt_block_t *A, uint32_t a0, uint32_t na, int scalar)
{
    if (sc->c8_blk == A && sc->c8_a0 == a0) return ES_OK;
    if (sc->c8_cap < A->len) {
        free(sc->c8);
        sc->c8 = malloc((size_t)A->len * sizeof *sc->c8);
        sc->c8_blk = NULL;
        sc->c8_cap = sc->c8 ? A->len : 0;
        if (!sc->c8) return ES_ERR_NOMEM;
    }
    sc->c8_blk = A;
    sc->c8_a0 = a0;
#if ES_CPU_X86
    if (!scalar && A->len % 64 == 0 && es_cpu_has(ES_CPU_AVX512)) {
        const uint8_t *rows[8];
        size_t msk[8];
        for (uint32_t g = 0; g < ES_QT_GROUP; g++) {
            rows[g] = g < na ? A->code + (size_t)(a0 + g) * A->len : threes64;
            msk[g] = g < na ? ~(size_t)0 : 0;
        }
        group_codes_avx512(rows, msk, A->len, sc->c8);
        return ES_OK;
    }
#endif
    /* from the variant-major codes, row by row (the slot-major ones would
     * take a cache line a slot) */
    for (uint32_t s = 0; s < A->len; s++) sc->c8[s] = 0;
    for (uint32_t g = 0; g < ES_QT_GROUP; g++) {
        const uint8_t *c = A->code + (size_t)(a0 + g) * A->len;
        if (g < na)
            for (uint32_t s = 0; s < A->len; s++) sc->c8[s] |= (uint64_t)c[s] << (8 * g);
        else
            for (uint32_t s = 0; s < A->len; s++) sc->c8[s] |= (uint64_t)3 << (8 * g);
    }
    return ES_OK;
}

void es_qt_sums_group(const es_qt_block_t *A, uint32_t a0, uint32_t na, const es_qt_block_t *B, uint32_t b0,
                      uint32_t nb, const es_qt_y_t *y, es_qt_scratch_t *sc, const int64_t *hi, es_qt_sums_t *out,
                      uint32_t (*mc)[5], size_t stride, int scalar)
{
    pthread_once(&kernel_once, kernel_init);
    const qt_kernel_t *kn = scalar ? &k_scalar : kernel_best;
    if (B->moff[B->count] == 0 || group_codes(sc, A, a0, na, kn == &k_scalar) != ES_OK) {
        /* no partner misses a call (or no memory for the codes): run by run */
        for (uint32_t g = 0; g < na; g++)
            sums_run(kn, A, a0 + g, B, b0, nb, y, sc, out + g * stride, !A->cells, mc + g * stride,
                     hi + g * stride);
        return;
    }
    /* the partners' codes at the group's missing calls, read below after
     * the partners' own missing calls: fetched now (they are scattered
     * over the block's slot-major codes, a cache miss each) */
    for (uint32_t g = 0; g < na; g++)
        for (uint32_t m = A->moff[a0 + g]; m < A->moff[a0 + g + 1]; m++)
            __builtin_prefetch(B->code_t + (size_t)A->mpos[m] * B->tstride + b0);
    void (*bmiss)(const uint64_t *, const uint64_t *, const uint64_t *, const uint32_t *, uint32_t,
                  int64_t[5][ES_QT_GROUP]) = bmiss_group_scalar;
#if ES_CPU_X86
    if (kn == &k_vnni) bmiss = bmiss_group_avx512;
#endif
    int64_t ma[2][RUN_CHUNK];
    uint32_t mcnt[2][RUN_CHUNK];
    for (uint32_t k = 0; k < nb; k++) {
        uint32_t b = b0 + k;
        int64_t mb[5][ES_QT_GROUP];
        bmiss(sc->c8, y->q, y->q2, B->mpos + B->moff[b], B->moff[b + 1] - B->moff[b], mb);
        for (uint32_t g = 0; g < na; g++) {
            uint32_t a = a0 + g;
            es_qt_sums_t *o = &out[g * stride + k];
            uint64_t bits = (uint64_t)mb[4][g];
            o->sy = A->tot[a][2] - mb[2][g];
            o->syy = A->tot[a][3] - mb[3][g];
            o->ra[0] = A->tot[a][0] - mb[0][g];
            o->ra[1] = A->tot[a][1] - mb[1][g];
            o->saby = hi[g * stride + k];
            memset(o->cell, 0, sizeof o->cell);
            uint32_t *m5 = mc[g * stride + k];
            m5[0] = (uint32_t)(bits & 0x1fffff);
            m5[1] = (uint32_t)(bits >> 21 & 0x1fffff);
            m5[2] = (uint32_t)(bits >> 42);
        }
    }
    /* a's missing calls where a partner is called leave the pair */
    for (uint32_t g = 0; g < na; g++) {
        uint32_t a = a0 + g, am0 = A->moff[a], anm = A->moff[a + 1] - am0;
        if (anm) {
            kn->missrun(A->mpos + am0, (const int64_t(*)[2])A->mq + am0, anm, B->code_t + b0, B->tstride, nb, ma[0],
                        ma[1], mcnt[0], mcnt[1]);
        } else {
            memset(ma, 0, sizeof ma);
            memset(mcnt, 0, sizeof mcnt);
        }
        for (uint32_t k = 0; k < nb; k++) {
            uint32_t b = b0 + k;
            es_qt_sums_t *o = &out[g * stride + k];
            o->cb[0] = B->tot[b][0] - ma[0][k];
            o->cb[1] = B->tot[b][1] - ma[1][k];
            mc[g * stride + k][3] = mcnt[0][k];
            mc[g * stride + k][4] = mcnt[1][k];
        }
    }
}

void es_qt_dothi_group(const es_qt_block_t *A, uint32_t a0, uint32_t na, const es_qt_block_t *B, uint32_t b0,
                       uint32_t nb, int64_t *out, size_t ostride, int scalar)
{
    pthread_once(&kernel_once, kernel_init);
    const qt_kernel_t *kn = scalar ? &k_scalar : kernel_best;
    size_t len = A->len, row = (size_t)ES_QT_SLICES * len;
    const int8_t *br = B->br + (size_t)b0 * len;
    uint32_t g = 0;
    if (kn->dothi4)
        for (; g + 4 <= na; g += 4) {
            const uint8_t *a4[4];
            for (int k = 0; k < 4; k++) a4[k] = A->ar + (size_t)(a0 + g + k) * row;
            kn->dothi4(a4, len, br, len, nb, out + (size_t)g * ostride, ostride);
        }
    for (; g < na; g++) kn->dothi(A->ar + (size_t)(a0 + g) * row, len, br, len, nb, out + (size_t)g * ostride);
}

int64_t es_qt_saby_lo(const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b, int scalar)
{
    pthread_once(&kernel_once, kernel_init);
    int64_t lo;
    (scalar ? &k_scalar : kernel_best)
        ->dotlo(A->ar + (size_t)a * ES_QT_SLICES * A->len, A->len, B->br + (size_t)b * B->len, B->len, 1, &lo);
    return lo;
}

void es_qt_sums_run_scalar(const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b0,
                           uint32_t nb, const es_qt_y_t *y, es_qt_scratch_t *sc, es_qt_sums_t *out)
{
    sums_run(&k_scalar, A, a, B, b0, nb, y, sc, out, 0, NULL, NULL);
}

/* The per-sample loop: sample order, one sum after the other. */
static void dsums_exact_scalar(const uint8_t *ca, const uint8_t *cb, uint32_t len, const double *yd, es_qt_dsums_t *d)
{
    memset(d, 0, sizeof *d);
    for (uint32_t s = 0; s < len; s++) {
        unsigned ga = ca[s], gb = cb[s];
        if (ga == 3 || gb == 3) continue;
        double v = yd[s];
        d->sy += v;
        d->syy += v * v;
        d->say += ga * v;
        d->sby += gb * v;
        d->saby += ga * gb * v;
        if (ga) d->ra[ga - 1] += v;
        if (gb) d->cb[gb - 1] += v;
        if (ga && gb) d->cell[(ga - 1) * 2 + (gb - 1)] += v;
    }
}

#if ES_CPU_X86
/* The thirteen sums in the lanes of two vectors, a sample a step, in sample
 * order: each lane adds the same term as the loop above, or +0.0 where the
 * loop adds nothing, which leaves it the same bits (every term is >= 0, y
 * being y - y0, so no sum is -0.0).  The term is v times a factor from a
 * table by the two codes (ga, gb, ga gb as the loop converts them, 1 or 0;
 * 0 for a missing call), times v again in the lane of y^2: the products the
 * loop takes, in its order (x * 1.0 is exact and v * g is g * v). */
static const double dsums_coef[16][16] __attribute__((aligned(64))) = {
#define C(ga, gb)                                                                                                    \
    {(ga) < 3 && (gb) < 3, (ga) < 3 && (gb) < 3, (gb) < 3 && (ga) < 3 ? (ga) : 0, (ga) < 3 && (gb) < 3 ? (gb) : 0,   \
     (ga) < 3 && (gb) < 3 ? (ga) * (gb) : 0, (ga) == 1 && (gb) < 3, (ga) == 2 && (gb) < 3, (gb) == 1 && (ga) < 3,     \
     (gb) == 2 && (ga) < 3, (ga) == 1 && (gb) == 1, (ga) == 1 && (gb) == 2, (ga) == 2 && (gb) == 1,                   \
     (ga) == 2 && (gb) == 2, 0, 0, 0}
    C(0, 0), C(0, 1), C(0, 2), C(0, 3), C(1, 0), C(1, 1), C(1, 2), C(1, 3),
    C(2, 0), C(2, 1), C(2, 2), C(2, 3), C(3, 0), C(3, 1), C(3, 2), C(3, 3),
#undef C
};

static ES_TARGET_AVX512 void dsums_exact_avx512(const uint8_t *ca, const uint8_t *cb, uint32_t len, const double *yd,
                                                es_qt_dsums_t *d)
{
    __m512d s0 = _mm512_setzero_pd(), s1 = s0; /* sy syy say sby saby ra0 ra1 cb0 | cb1 cell0..3 */
    const __m512d one = _mm512_set1_pd(1.0);
    for (uint32_t s = 0; s < len; s++) {
        const double *c = dsums_coef[ca[s] * 4 + cb[s]];
        __m512d v = _mm512_set1_pd(yd[s]);
        __m512d t0 = _mm512_mul_pd(_mm512_load_pd(c), v);
        t0 = _mm512_mul_pd(t0, _mm512_mask_blend_pd(0x02, one, v)); /* (1 * v) * v in the lane of y^2 */
        s0 = _mm512_add_pd(s0, t0);
        s1 = _mm512_add_pd(s1, _mm512_mul_pd(_mm512_load_pd(c + 8), v));
    }
    double o[16];
    _mm512_storeu_pd(o, s0);
    _mm512_storeu_pd(o + 8, s1);
    memset(d, 0, sizeof *d);
    d->sy = o[0];
    d->syy = o[1];
    d->say = o[2];
    d->sby = o[3];
    d->saby = o[4];
    d->ra[0] = o[5];
    d->ra[1] = o[6];
    d->cb[0] = o[7];
    d->cb[1] = o[8];
    for (int k = 0; k < 4; k++) d->cell[k] = o[9 + k];
}
#endif

void es_qt_dsums_exact(const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b,
                       const es_qt_y_t *y, es_qt_dsums_t *d)
{
    const uint8_t *ca = A->code + (size_t)a * A->len, *cb = B->code + (size_t)b * B->len;
#if ES_CPU_X86
    /* (EPISTREAM_QT_KERNEL=scalar: the loop, the tests' twin) */
    pthread_once(&kernel_once, kernel_init);
    if (kernel_best != &k_scalar && es_cpu_has(ES_CPU_AVX512)) {
        dsums_exact_avx512(ca, cb, A->len, y->yd, d);
        return;
    }
#endif
    dsums_exact_scalar(ca, cb, A->len, y->yd, d);
}

void es_qt_dsums_exact_scalar(const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b,
                              const es_qt_y_t *y, es_qt_dsums_t *d)
{
    dsums_exact_scalar(A->code + (size_t)a * A->len, B->code + (size_t)b * B->len, A->len, y->yd, d);
}
