/* count_internal.h -- the scalar AND + popcount loops, private to src/count.
 *
 * The bodies are always_inline so the same C source is compiled several
 * times: once for any CPU (where, without -mpopcnt, __builtin_popcountll
 * becomes a libgcc call on x86), and inside target("popcnt") functions, where
 * it becomes the POPCNT instruction (popcount.c's kernels and count.c's
 * fused per-pair path). */
#ifndef ES_COUNT_INTERNAL_H
#define ES_COUNT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

static inline __attribute__((always_inline)) void
and4_body(const uint64_t *restrict a1, const uint64_t *restrict a2, const uint64_t *restrict b1,
          const uint64_t *restrict b2, size_t nw, uint64_t out[4])
{
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i < nw; i++) {
        uint64_t x1 = a1[i], x2 = a2[i], y1 = b1[i], y2 = b2[i];
        s0 += (uint64_t)__builtin_popcountll(x1 & y1);
        s1 += (uint64_t)__builtin_popcountll(x1 & y2);
        s2 += (uint64_t)__builtin_popcountll(x2 & y1);
        s3 += (uint64_t)__builtin_popcountll(x2 & y2);
    }
    out[0] += s0;
    out[1] += s1;
    out[2] += s2;
    out[3] += s3;
}

static inline __attribute__((always_inline)) void
and9_body(const uint64_t *restrict a1, const uint64_t *restrict a2, const uint64_t *restrict av,
          const uint64_t *restrict b1, const uint64_t *restrict b2, const uint64_t *restrict bv,
          size_t nw, uint64_t out[9])
{
    uint64_t s[9] = {0};
    for (size_t i = 0; i < nw; i++) {
        uint64_t x1 = a1[i], x2 = a2[i], xv = av[i], y1 = b1[i], y2 = b2[i], yv = bv[i];
        s[0] += (uint64_t)__builtin_popcountll(x1 & y1);
        s[1] += (uint64_t)__builtin_popcountll(x1 & y2);
        s[2] += (uint64_t)__builtin_popcountll(x2 & y1);
        s[3] += (uint64_t)__builtin_popcountll(x2 & y2);
        s[4] += (uint64_t)__builtin_popcountll(x1 & yv);
        s[5] += (uint64_t)__builtin_popcountll(x2 & yv);
        s[6] += (uint64_t)__builtin_popcountll(xv & y1);
        s[7] += (uint64_t)__builtin_popcountll(xv & y2);
        s[8] += (uint64_t)__builtin_popcountll(xv & yv);
    }
    for (int k = 0; k < 9; k++)
        out[k] += s[k];
}

#if ES_CPU_X86
#include <immintrin.h>

/* ---- AVX2 nibble-lookup popcount, shared by popcount.c's kernels and
 * count.c's fused pair path.  A byte count gains at most 8 per vector, so
 * byte accumulators are folded into 64-bit lanes every ES_AVX2_FLUSH
 * vectors, before they can wrap. */

#define ES_AVX2_FLUSH 31

#define ES_AVX2_INLINE static inline ES_TARGET_AVX2 __attribute__((always_inline))

ES_AVX2_INLINE __m256i es_avx2_bytes(__m256i v, __m256i lut, __m256i low)
{
    __m256i lo = _mm256_and_si256(v, low);
    __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
    return _mm256_add_epi8(_mm256_shuffle_epi8(lut, lo), _mm256_shuffle_epi8(lut, hi));
}

/* The lane sums of four vectors as the four lanes of one. */
ES_AVX2_INLINE __m256i es_avx2_hsum4(__m256i v0, __m256i v1, __m256i v2, __m256i v3)
{
    __m256i t01 = _mm256_add_epi64(_mm256_unpacklo_epi64(v0, v1), _mm256_unpackhi_epi64(v0, v1));
    __m256i t23 = _mm256_add_epi64(_mm256_unpacklo_epi64(v2, v3), _mm256_unpackhi_epi64(v2, v3));
    /* t01 = (v0 lo, v1 lo, v0 hi, v1 hi) in 128-bit halves */
    return _mm256_add_epi64(_mm256_permute2x128_si256(t01, t23, 0x20),
                            _mm256_permute2x128_si256(t01, t23, 0x31));
}

/* The four P products of words [lo, hi) (hi - lo a multiple of 4) into
 * out[0..3]; byte counts are folded into 64-bit lanes every ES_AVX2_FLUSH vectors. */
ES_AVX2_INLINE void es_avx2_class4(const uint64_t *a1, const uint64_t *a2, const uint64_t *b1,
                              const uint64_t *b2, size_t lo, size_t hi, uint64_t out[4])
{
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2,
                                         1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low = _mm256_set1_epi8(0x0f), zero = _mm256_setzero_si256();
    __m256i t0 = zero, t1 = zero, t2 = zero, t3 = zero;
    for (size_t i = lo; i < hi;) {
        size_t end = hi - i > 4 * ES_AVX2_FLUSH ? i + 4 * ES_AVX2_FLUSH : hi;
        __m256i c0 = zero, c1 = zero, c2 = zero, c3 = zero;
        for (; i < end; i += 4) {
            __m256i x1 = _mm256_loadu_si256((const __m256i *)(a1 + i));
            __m256i x2 = _mm256_loadu_si256((const __m256i *)(a2 + i));
            __m256i y1 = _mm256_loadu_si256((const __m256i *)(b1 + i));
            __m256i y2 = _mm256_loadu_si256((const __m256i *)(b2 + i));
            c0 = _mm256_add_epi8(c0, es_avx2_bytes(_mm256_and_si256(x1, y1), lut, low));
            c1 = _mm256_add_epi8(c1, es_avx2_bytes(_mm256_and_si256(x1, y2), lut, low));
            c2 = _mm256_add_epi8(c2, es_avx2_bytes(_mm256_and_si256(x2, y1), lut, low));
            c3 = _mm256_add_epi8(c3, es_avx2_bytes(_mm256_and_si256(x2, y2), lut, low));
        }
        t0 = _mm256_add_epi64(t0, _mm256_sad_epu8(c0, zero));
        t1 = _mm256_add_epi64(t1, _mm256_sad_epu8(c1, zero));
        t2 = _mm256_add_epi64(t2, _mm256_sad_epu8(c2, zero));
        t3 = _mm256_add_epi64(t3, _mm256_sad_epu8(c3, zero));
    }
    _mm256_storeu_si256((__m256i *)out, es_avx2_hsum4(t0, t1, t2, t3));
}
#endif /* ES_CPU_X86 */

#endif /* ES_COUNT_INTERNAL_H */
