/* popcount.c -- AND + popcount kernels over genotype bit planes.
 *
 * Counting a pair's table is, per class, a handful of |x & y| over two
 * variants' planes (count.h).  Every variant here
 * computes the same sums: the plain scalar twin is always compiled and is the
 * oracle in tests; the SIMD variants are compiled with per-function target
 * attributes (the build itself has no -m flags) and chosen once at run time
 * from what the CPU reports, so one binary runs everywhere.
 *
 * Contracts shared by all kernels: out[] is added to, never overwritten; nw
 * may be any count (planes are padded to 16 words, but the tails are handled
 * so tests can use odd lengths); pointers need no alignment. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "count.h"
#include "count_internal.h"

#if ES_CPU_X86
#include <immintrin.h>
#endif

/* ---- scalar twin ----------------------------------------------------------
 * The loops are in count_internal.h: compiled here once for any CPU and once
 * inside target("popcnt") wrappers. */

static void and4_scalar(const uint64_t *restrict a1, const uint64_t *restrict a2,
                        const uint64_t *restrict b1, const uint64_t *restrict b2, size_t nw,
                        uint64_t out[4])
{
    and4_body(a1, a2, b1, b2, nw, out);
}

static void and9_scalar(const uint64_t *restrict a1, const uint64_t *restrict a2,
                        const uint64_t *restrict av, const uint64_t *restrict b1,
                        const uint64_t *restrict b2, const uint64_t *restrict bv, size_t nw,
                        uint64_t out[9])
{
    and9_body(a1, a2, av, b1, b2, bv, nw, out);
}

const es_popcount_impl_t es_popcount_scalar = {
    .name = "scalar",
    .isa = 0,
    .and4 = and4_scalar,
    .and9 = and9_scalar,
};

#if ES_CPU_X86

/* ---- scalar with the POPCNT instruction (any x86-64 since ~2008) ------- */

ES_TARGET_POPCNT static void
and4_popcnt(const uint64_t *restrict a1, const uint64_t *restrict a2, const uint64_t *restrict b1,
            const uint64_t *restrict b2, size_t nw, uint64_t out[4])
{
    and4_body(a1, a2, b1, b2, nw, out);
}

ES_TARGET_POPCNT static void
and9_popcnt(const uint64_t *restrict a1, const uint64_t *restrict a2, const uint64_t *restrict av,
            const uint64_t *restrict b1, const uint64_t *restrict b2, const uint64_t *restrict bv,
            size_t nw, uint64_t out[9])
{
    and9_body(a1, a2, av, b1, b2, bv, nw, out);
}

static const es_popcount_impl_t popcount_popcnt = {
    .name = "popcnt",
    .isa = ES_CPU_POPCNT,
    .and4 = and4_popcnt,
    .and9 = and9_popcnt,
};

/* ---- AVX2: nibble lookup (vpshufb) per byte, byte counts summed with
 * vpsadbw (the lookup and its four-product loop are in count_internal.h). */

/* Through memory: the 64-bit lane extracts do not exist on 32-bit x86. */
static inline ES_TARGET_AVX2 __attribute__((always_inline)) uint64_t avx2_hsum(__m256i v)
{
    uint64_t t[4];
    _mm256_storeu_si256((__m256i *)t, v);
    return t[0] + t[1] + t[2] + t[3];
}

#define LOADU256(p, i) _mm256_loadu_si256((const __m256i *)((p) + 4 * (i)))

/* K products per step; idx pairs (x, y) name the two operands of each. */
static ES_TARGET_AVX2 void and4_avx2(const uint64_t *restrict a1, const uint64_t *restrict a2,
                              const uint64_t *restrict b1, const uint64_t *restrict b2, size_t nw,
                              uint64_t out[4])
{
    uint64_t s[4];
    size_t nv = nw / 4 * 4;
    es_avx2_class4(a1, a2, b1, b2, 0, nv, s);
    for (int k = 0; k < 4; k++) out[k] += s[k];
    and4_body(a1 + nv, a2 + nv, b1 + nv, b2 + nv, nw - nv, out); /* the last nw % 4 words */
}

static ES_TARGET_AVX2 void and9_avx2(const uint64_t *restrict a1, const uint64_t *restrict a2,
                              const uint64_t *restrict av, const uint64_t *restrict b1,
                              const uint64_t *restrict b2, const uint64_t *restrict bv, size_t nw,
                              uint64_t out[9])
{
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2,
                                         1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low = _mm256_set1_epi8(0x0f), zero = _mm256_setzero_si256();
    __m256i t[9];
    for (int k = 0; k < 9; k++)
        t[k] = zero;
    size_t nv = nw / 4, i = 0;
    while (i < nv) {
        size_t end = nv - i > ES_AVX2_FLUSH ? i + ES_AVX2_FLUSH : nv;
        __m256i c[9];
        for (int k = 0; k < 9; k++)
            c[k] = zero;
        for (; i < end; i++) {
            __m256i x1 = LOADU256(a1, i), x2 = LOADU256(a2, i), xv = LOADU256(av, i);
            __m256i y1 = LOADU256(b1, i), y2 = LOADU256(b2, i), yv = LOADU256(bv, i);
            c[0] = _mm256_add_epi8(c[0], es_avx2_bytes(_mm256_and_si256(x1, y1), lut, low));
            c[1] = _mm256_add_epi8(c[1], es_avx2_bytes(_mm256_and_si256(x1, y2), lut, low));
            c[2] = _mm256_add_epi8(c[2], es_avx2_bytes(_mm256_and_si256(x2, y1), lut, low));
            c[3] = _mm256_add_epi8(c[3], es_avx2_bytes(_mm256_and_si256(x2, y2), lut, low));
            c[4] = _mm256_add_epi8(c[4], es_avx2_bytes(_mm256_and_si256(x1, yv), lut, low));
            c[5] = _mm256_add_epi8(c[5], es_avx2_bytes(_mm256_and_si256(x2, yv), lut, low));
            c[6] = _mm256_add_epi8(c[6], es_avx2_bytes(_mm256_and_si256(xv, y1), lut, low));
            c[7] = _mm256_add_epi8(c[7], es_avx2_bytes(_mm256_and_si256(xv, y2), lut, low));
            c[8] = _mm256_add_epi8(c[8], es_avx2_bytes(_mm256_and_si256(xv, yv), lut, low));
        }
        for (int k = 0; k < 9; k++)
            t[k] = _mm256_add_epi64(t[k], _mm256_sad_epu8(c[k], zero));
    }
    for (int k = 0; k < 9; k++)
        out[k] += avx2_hsum(t[k]);
    size_t r = nv * 4; /* the last nw % 4 words, scalar */
    and9_body(a1 + r, a2 + r, av + r, b1 + r, b2 + r, bv + r, nw - r, out);
}

static const es_popcount_impl_t popcount_avx2 = {
    .name = "avx2",
    .isa = ES_CPU_AVX2,
    .and4 = and4_avx2,
    .and9 = and9_avx2,
};

/* ---- AVX-512 VPOPCNTDQ: one popcount instruction per 8 words.  The tail
 * (nw not a multiple of 8) uses masked loads, which never touch the words
 * past the end, so no scalar loop is needed. */


#define LOAD512(p, i) _mm512_loadu_si512((const void *)((p) + 8 * (i)))
#define MLOAD512(m, p, i) _mm512_maskz_loadu_epi64((m), (const void *)((p) + 8 * (i)))
#define ACC512(acc, x, y) acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(_mm512_and_si512(x, y)))

static ES_TARGET_AVX512 void and4_avx512(const uint64_t *restrict a1, const uint64_t *restrict a2,
                                  const uint64_t *restrict b1, const uint64_t *restrict b2,
                                  size_t nw, uint64_t out[4])
{
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
    size_t nv = nw / 8, i;
    for (i = 0; i < nv; i++) {
        __m512i x1 = LOAD512(a1, i), x2 = LOAD512(a2, i), y1 = LOAD512(b1, i), y2 = LOAD512(b2, i);
        ACC512(s0, x1, y1);
        ACC512(s1, x1, y2);
        ACC512(s2, x2, y1);
        ACC512(s3, x2, y2);
    }
    if (nw % 8) {
        __mmask8 m = (__mmask8)((1u << (nw % 8)) - 1);
        __m512i x1 = MLOAD512(m, a1, i), x2 = MLOAD512(m, a2, i);
        __m512i y1 = MLOAD512(m, b1, i), y2 = MLOAD512(m, b2, i);
        ACC512(s0, x1, y1);
        ACC512(s1, x1, y2);
        ACC512(s2, x2, y1);
        ACC512(s3, x2, y2);
    }
    out[0] += (uint64_t)_mm512_reduce_add_epi64(s0);
    out[1] += (uint64_t)_mm512_reduce_add_epi64(s1);
    out[2] += (uint64_t)_mm512_reduce_add_epi64(s2);
    out[3] += (uint64_t)_mm512_reduce_add_epi64(s3);
}

static ES_TARGET_AVX512 void and9_avx512(const uint64_t *restrict a1, const uint64_t *restrict a2,
                                  const uint64_t *restrict av, const uint64_t *restrict b1,
                                  const uint64_t *restrict b2, const uint64_t *restrict bv,
                                  size_t nw, uint64_t out[9])
{
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0,
            s7 = s0, s8 = s0;
#define STEP9(LD)                                                                                  \
    do {                                                                                           \
        __m512i x1 = LD(a1), x2 = LD(a2), xv = LD(av), y1 = LD(b1), y2 = LD(b2), yv = LD(bv);      \
        ACC512(s0, x1, y1);                                                                        \
        ACC512(s1, x1, y2);                                                                        \
        ACC512(s2, x2, y1);                                                                        \
        ACC512(s3, x2, y2);                                                                        \
        ACC512(s4, x1, yv);                                                                        \
        ACC512(s5, x2, yv);                                                                        \
        ACC512(s6, xv, y1);                                                                        \
        ACC512(s7, xv, y2);                                                                        \
        ACC512(s8, xv, yv);                                                                        \
    } while (0)
    size_t nv = nw / 8, i;
#define LD_FULL(p) LOAD512(p, i)
#define LD_TAIL(p) MLOAD512(m, p, i)
    for (i = 0; i < nv; i++)
        STEP9(LD_FULL);
    if (nw % 8) {
        __mmask8 m = (__mmask8)((1u << (nw % 8)) - 1);
        STEP9(LD_TAIL);
    }
#undef LD_FULL
#undef LD_TAIL
#undef STEP9
    out[0] += (uint64_t)_mm512_reduce_add_epi64(s0);
    out[1] += (uint64_t)_mm512_reduce_add_epi64(s1);
    out[2] += (uint64_t)_mm512_reduce_add_epi64(s2);
    out[3] += (uint64_t)_mm512_reduce_add_epi64(s3);
    out[4] += (uint64_t)_mm512_reduce_add_epi64(s4);
    out[5] += (uint64_t)_mm512_reduce_add_epi64(s5);
    out[6] += (uint64_t)_mm512_reduce_add_epi64(s6);
    out[7] += (uint64_t)_mm512_reduce_add_epi64(s7);
    out[8] += (uint64_t)_mm512_reduce_add_epi64(s8);
}

static const es_popcount_impl_t popcount_avx512 = {
    .name = "avx512",
    .isa = ES_CPU_AVX512,
    .and4 = and4_avx512,
    .and9 = and9_avx512,
};

#endif /* ES_CPU_X86 */

/* ---- run-time selection ---------------------------------------------------- */

/* Supported implementations, slowest first; filled once by resolve(). */
static const es_popcount_impl_t *supported[5];
static const es_popcount_impl_t *best;
static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;

static void resolve(void)
{
    size_t n = 0;
    supported[n++] = &es_popcount_scalar;
#if ES_CPU_X86
    if (es_cpu_has(ES_CPU_POPCNT)) supported[n++] = &popcount_popcnt;
    if (es_cpu_has(ES_CPU_AVX2)) supported[n++] = &popcount_avx2;
    if (es_cpu_has(ES_CPU_AVX512)) supported[n++] = &popcount_avx512;
#endif
    supported[n] = NULL;
    best = supported[n - 1];

    /* EPISTREAM_POPCOUNT forces one implementation (benchmarks, tests). */
    const char *want = es_env_variant("EPISTREAM_POPCOUNT");
    if (!want) return;
    for (size_t k = 0; k < n; k++)
        if (!strcmp(supported[k]->name, want)) {
            best = supported[k];
            return;
        }
    es_warn("EPISTREAM_POPCOUNT=%s: not a popcount kernel this CPU supports (scalar, popcnt, avx2, "
            "avx512); using %s",
            want, best->name);
}

const es_popcount_impl_t *es_popcount_best(void)
{
    pthread_once(&resolve_once, resolve);
    return best;
}

const es_popcount_impl_t *const *es_popcount_all(void)
{
    pthread_once(&resolve_once, resolve);
    return supported;
}
