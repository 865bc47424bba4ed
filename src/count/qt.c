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
    free(b->ar);
    free(b->br);
    free(b->tot);
    free(b->moff);
    free(b->mpos);
    memset(b, 0, sizeof *b);
}

static int block_reserve(es_qt_block_t *b, uint32_t count, uint32_t len, int cells)
{
    if (b->cap >= count && b->len == len && b->cells == cells) return ES_OK;
    es_qt_block_free(b);
    size_t rows = cells ? 2 : 1;
    b->code = malloc((size_t)count * len);
    b->ar = aligned_alloc(64, (size_t)count * rows * ES_QT_SLICES * len);
    b->br = aligned_alloc(64, (size_t)count * rows * len);
    b->tot = malloc((size_t)count * sizeof *b->tot);
    b->moff = malloc(((size_t)count + 1) * sizeof *b->moff);
    if (!b->code || !b->ar || !b->br || !b->tot || !b->moff) {
        es_qt_block_free(b);
        es_error("cannot allocate the phenotype rows of %u variants", count);
        return ES_ERR_NOMEM;
    }
    b->cap = count;
    b->len = len;
    b->cells = cells;
    return ES_OK;
}

int es_qt_block_fill(es_qt_block_t *b, const es_planes_t *pl, uint32_t v0, uint32_t count,
                     const es_qt_y_t *y, int cells)
{
    uint32_t len = y->slots;
    int ret = block_reserve(b, count, len, cells);
    if (ret) return ret;
    size_t rows = cells ? 2 : 1;
    uint32_t nm = 0;
    b->count = count;
    for (uint32_t v = 0; v < count; v++) {
        const uint64_t *p1 = es_plane(pl, v0 + v, 0), *p2 = es_plane(pl, v0 + v, 1);
        const uint64_t *pv = pl->n_planes == 3 ? es_plane(pl, v0 + v, 2) : NULL;
        uint8_t *code = b->code + (size_t)v * len;
        uint8_t *ar = b->ar + (size_t)v * rows * ES_QT_SLICES * len;
        int8_t *br = b->br + (size_t)v * rows * len;
        int64_t t1 = 0, t2 = 0, tq = 0, tq2 = 0;
        b->moff[v] = nm;
        for (uint32_t s = 0; s < len; s++) {
            uint32_t w = s / 64, bit = s % 64;
            unsigned g = (unsigned)((p1[w] >> bit) & 1) + (unsigned)((p2[w] >> bit) & 1);
            if (pv && s < y->n && !((pv[w] >> bit) & 1)) g = 3;
            code[s] = (uint8_t)g;
            uint64_t q = y->q[s];
            if (g == 3) {
                if (nm == b->mcap) {
                    size_t cap = b->mcap ? 2 * b->mcap : 1024;
                    uint32_t *np = realloc(b->mpos, cap * sizeof *np);
                    if (!np) {
                        es_error("cannot allocate the missing calls of a block");
                        return ES_ERR_NOMEM;
                    }
                    b->mpos = np;
                    b->mcap = cap;
                }
                b->mpos[nm++] = s;
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
    return ES_OK;
}

/* ---- dot kernels: out[k] = sum_s 256^slice ... of a5 (ES_QT_SLICES rows of
 * len bytes) with b + k * bstride, k < nb ------------------------------------ */

typedef void (*dot5_fn)(const uint8_t *a5, size_t len, const int8_t *b, size_t bstride, uint32_t nb,
                        int64_t *out);

static void dot5_scalar(const uint8_t *a5, size_t len, const int8_t *b, size_t bstride, uint32_t nb,
                        int64_t *out)
{
    for (uint32_t k = 0; k < nb; k++) {
        const int8_t *bk = b + (size_t)k * bstride;
        int64_t sum = 0;
        for (int sl = ES_QT_SLICES - 1; sl >= 0; sl--) {
            const uint8_t *a = a5 + (size_t)sl * len;
            int64_t d = 0;
            for (size_t s = 0; s < len; s++) d += (int64_t)a[s] * bk[s];
            sum = sum * 256 + d;
        }
        out[k] = sum;
    }
}

#if ES_CPU_X86
/* 32-bit lanes to one 64-bit sum (lanes may hold up to 2^31 each) */
static inline ES_TARGET_VNNI __attribute__((always_inline)) int64_t hsum512(__m512i v)
{
    __m512i lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(v));
    __m512i hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1));
    return _mm512_reduce_add_epi64(_mm512_add_epi64(lo, hi));
}

/* four partners at a time: 20 accumulators, the five slices loaded once per
 * 64 samples for all four */
static ES_TARGET_VNNI void dot5_vnni(const uint8_t *a5, size_t len, const int8_t *b, size_t bstride,
                                     uint32_t nb, int64_t *out)
{
    uint32_t k = 0;
    for (; k + 4 <= nb; k += 4) {
        const int8_t *b0 = b + (size_t)k * bstride;
        __m512i acc[ES_QT_SLICES][4];
        for (int sl = 0; sl < ES_QT_SLICES; sl++)
            for (int t = 0; t < 4; t++) acc[sl][t] = _mm512_setzero_si512();
        for (size_t s = 0; s < len; s += 64) {
            __m512i bv[4];
            for (int t = 0; t < 4; t++) bv[t] = _mm512_loadu_si512((const void *)(b0 + (size_t)t * bstride + s));
            for (int sl = 0; sl < ES_QT_SLICES; sl++) {
                __m512i av = _mm512_loadu_si512((const void *)(a5 + (size_t)sl * len + s));
                for (int t = 0; t < 4; t++) acc[sl][t] = _mm512_dpbusd_epi32(acc[sl][t], av, bv[t]);
            }
        }
        for (int t = 0; t < 4; t++) {
            int64_t sum = 0;
            for (int sl = ES_QT_SLICES - 1; sl >= 0; sl--) sum = sum * 256 + hsum512(acc[sl][t]);
            out[k + t] = sum;
        }
    }
    for (; k < nb; k++) {
        const int8_t *bk = b + (size_t)k * bstride;
        __m512i acc[ES_QT_SLICES];
        for (int sl = 0; sl < ES_QT_SLICES; sl++) acc[sl] = _mm512_setzero_si512();
        for (size_t s = 0; s < len; s += 64) {
            __m512i bv = _mm512_loadu_si512((const void *)(bk + s));
            for (int sl = 0; sl < ES_QT_SLICES; sl++)
                acc[sl] = _mm512_dpbusd_epi32(acc[sl], _mm512_loadu_si512((const void *)(a5 + (size_t)sl * len + s)),
                                              bv);
        }
        int64_t sum = 0;
        for (int sl = ES_QT_SLICES - 1; sl >= 0; sl--) sum = sum * 256 + hsum512(acc[sl]);
        out[k] = sum;
    }
}

static inline ES_TARGET_AVX2 __attribute__((always_inline)) int64_t hsum256(__m256i v)
{
    __m256i lo = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v));
    __m256i hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1));
    __m256i s = _mm256_add_epi64(lo, hi);
    __m128i t = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    return _mm_cvtsi128_si64(t) + _mm_extract_epi64(t, 1);
}

/* two partners at a time; maddubs pairs (at most 2 * 255 * 2, no saturation)
 * widened to 32 bits by madd with ones */
static ES_TARGET_AVX2 void dot5_avx2(const uint8_t *a5, size_t len, const int8_t *b, size_t bstride, uint32_t nb,
                                     int64_t *out)
{
    const __m256i ones = _mm256_set1_epi16(1);
    for (uint32_t k = 0; k < nb; k += 2) {
        int two = k + 1 < nb;
        const int8_t *b0 = b + (size_t)k * bstride, *b1 = two ? b0 + bstride : b0;
        __m256i acc[ES_QT_SLICES][2];
        for (int sl = 0; sl < ES_QT_SLICES; sl++) acc[sl][0] = acc[sl][1] = _mm256_setzero_si256();
        for (size_t s = 0; s < len; s += 32) {
            __m256i v0 = _mm256_loadu_si256((const __m256i *)(b0 + s));
            __m256i v1 = _mm256_loadu_si256((const __m256i *)(b1 + s));
            for (int sl = 0; sl < ES_QT_SLICES; sl++) {
                __m256i av = _mm256_loadu_si256((const __m256i *)(a5 + (size_t)sl * len + s));
                acc[sl][0] = _mm256_add_epi32(acc[sl][0], _mm256_madd_epi16(_mm256_maddubs_epi16(av, v0), ones));
                acc[sl][1] = _mm256_add_epi32(acc[sl][1], _mm256_madd_epi16(_mm256_maddubs_epi16(av, v1), ones));
            }
        }
        for (int t = 0; t < 1 + two; t++) {
            int64_t sum = 0;
            for (int sl = ES_QT_SLICES - 1; sl >= 0; sl--) sum = sum * 256 + hsum256(acc[sl][t]);
            out[k + t] = sum;
        }
    }
}
#endif

static dot5_fn dot5_pick(const char **name)
{
    const char *force = es_env_variant("EPISTREAM_QT_KERNEL");
#if ES_CPU_X86
    if ((!force || !strcmp(force, "avx512vnni")) && es_cpu_has(ES_CPU_AVX512VNNI)) {
        *name = "avx512vnni";
        return dot5_vnni;
    }
    if ((!force || !strcmp(force, "avx2")) && es_cpu_has(ES_CPU_AVX2)) {
        *name = "avx2";
        return dot5_avx2;
    }
#endif
    (void)force;
    *name = "scalar";
    return dot5_scalar;
}

static dot5_fn dot5_best;
static const char *dot5_name;
static pthread_once_t dot5_once = PTHREAD_ONCE_INIT;
static void dot5_init(void) { dot5_best = dot5_pick(&dot5_name); }

const char *es_qt_kernel_name(void)
{
    pthread_once(&dot5_once, dot5_init);
    return dot5_name;
}

/* ---- a run of pairs ------------------------------------------------------- */

#define RUN_CHUNK 64

static void sums_run(dot5_fn dot5, const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b0,
                     uint32_t nb, const es_qt_y_t *y, es_qt_sums_t *out)
{
    size_t len = A->len, rows = A->cells ? 2 : 1;
    const uint8_t *ar = A->ar + (size_t)a * rows * ES_QT_SLICES * len;
    const uint8_t *ca = A->code + (size_t)a * len;
    const uint64_t *q = y->q, *q2 = y->q2;
    int64_t d[4][RUN_CHUNK];
    for (uint32_t c0 = 0; c0 < nb; c0 += RUN_CHUNK) {
        uint32_t n = nb - c0 < RUN_CHUNK ? nb - c0 : RUN_CHUNK;
        const int8_t *br = B->br + (size_t)(b0 + c0) * rows * len;
        if (A->cells) {
            for (int r = 0; r < 2; r++) {
                dot5(ar + (size_t)r * ES_QT_SLICES * len, len, br, 2 * len, n, d[2 * r]);
                dot5(ar + (size_t)r * ES_QT_SLICES * len, len, br + len, 2 * len, n, d[2 * r + 1]);
            }
        } else {
            dot5(ar, len, br, len, n, d[0]);
        }
        for (uint32_t k = 0; k < n; k++) {
            uint32_t b = b0 + c0 + k;
            es_qt_sums_t *o = &out[c0 + k];
            const uint8_t *cb = B->code + (size_t)b * len;
            int64_t ra1 = A->tot[a][0], ra2 = A->tot[a][1], sy = A->tot[a][2], syy = A->tot[a][3];
            int64_t cb1 = B->tot[b][0], cb2 = B->tot[b][1];
            /* b's missing calls where a is called leave the pair */
            for (uint32_t m = B->moff[b]; m < B->moff[b + 1]; m++) {
                uint32_t s = B->mpos[m];
                unsigned g = ca[s];
                if (g == 3) continue;
                sy -= (int64_t)q[s];
                syy -= (int64_t)q2[s];
                if (g == 1) ra1 -= (int64_t)q[s];
                else if (g == 2) ra2 -= (int64_t)q[s];
            }
            for (uint32_t m = A->moff[a]; m < A->moff[a + 1]; m++) {
                uint32_t s = A->mpos[m];
                unsigned g = cb[s];
                if (g == 1) cb1 -= (int64_t)q[s];
                else if (g == 2) cb2 -= (int64_t)q[s];
            }
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
                    const es_qt_y_t *y, es_qt_sums_t *out)
{
    pthread_once(&dot5_once, dot5_init);
    sums_run(dot5_best, A, a, B, b0, nb, y, out);
}

void es_qt_sums_run_scalar(const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b0,
                           uint32_t nb, const es_qt_y_t *y, es_qt_sums_t *out)
{
    sums_run(dot5_scalar, A, a, B, b0, nb, y, out);
}

void es_qt_dsums_exact(const es_qt_block_t *A, uint32_t a, const es_qt_block_t *B, uint32_t b,
                       const es_qt_y_t *y, es_qt_dsums_t *d)
{
    const uint8_t *ca = A->code + (size_t)a * A->len, *cb = B->code + (size_t)b * B->len;
    memset(d, 0, sizeof *d);
    for (uint32_t s = 0; s < A->len; s++) {
        unsigned ga = ca[s], gb = cb[s];
        if (ga == 3 || gb == 3) continue;
        double v = y->yd[s];
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
