/* kernel.c -- the counting kernel of the MDFS engine: a tuple's table one
 * variable deeper, for eight next variables at once.
 *
 * With a thousand objects a class is eight 64-bit words, so counting one
 * tuple's cell is one vector AND + popcount and then a horizontal sum that
 * costs more than the counting (the count module's and4 kernels, measured
 * here: 1.9e7 pairs/s on two threads).  Instead the counted bins of eight
 * consecutive variables are interleaved word by word (lane j of a vector is
 * variable 8g + j), a prefix cell's word is broadcast to the eight lanes, and
 * each lane accumulates its own variable's count: no horizontal sums, eight
 * tuples per instruction.
 *
 * out[((i * nb + b) * 2 + y) * 8 + j] = |pre[i] & bin b of variable 8g + j|
 * over class y's words (class 0: [0, w0), class 1: [w0, W)).
 *
 * Variants: the scalar twin (any CPU; the oracle in tests), the same loops
 * inside target("popcnt"), AVX2 (nibble-lookup byte counts) and AVX-512
 * (VPOPCNTDQ); all give the same counts; EPISTREAM_POPCOUNT=scalar|popcnt|avx2
 * forces a slower one. */
#include <string.h>

#include "mdfs.h"
#include "mdfs_internal.h"
#include "util.h"

#if ES_CPU_X86
#include <immintrin.h>
#endif

static inline __attribute__((always_inline)) void
cells8_body(const uint64_t *const *pre, uint32_t np, const uint64_t *lanes, uint32_t nb,
            uint32_t w0, uint32_t W, uint32_t *out)
{
    for (uint32_t i = 0; i < np; i++) {
        const uint64_t *p = pre[i];
        for (uint32_t b = 0; b < nb; b++) {
            const uint64_t *L = lanes + (size_t)b * W * 8;
            uint64_t s[2][8] = {{0}};
            for (uint32_t w = 0; w < W; w++) {
                const int y = w >= w0;
                for (int j = 0; j < 8; j++) s[y][j] += (uint64_t)__builtin_popcountll(p[w] & L[(size_t)w * 8 + j]);
            }
            uint32_t *o = out + (size_t)(i * nb + b) * 16;
            for (int j = 0; j < 8; j++) o[j] = (uint32_t)s[0][j], o[8 + j] = (uint32_t)s[1][j];
        }
    }
}

static void cells8_scalar(const uint64_t *const *pre, uint32_t np, const uint64_t *lanes,
                          uint32_t nb, uint32_t w0, uint32_t W, uint32_t *out)
{
    cells8_body(pre, np, lanes, nb, w0, W, out);
}

#if ES_CPU_X86
ES_TARGET_POPCNT static void cells8_popcnt(const uint64_t *const *pre, uint32_t np,
                                           const uint64_t *lanes, uint32_t nb, uint32_t w0,
                                           uint32_t W, uint32_t *out)
{
    cells8_body(pre, np, lanes, nb, w0, W, out);
}

/* AVX2 has no vector popcount: bytes counted by nibble lookup, summed in byte
 * lanes for at most 31 words (8 bits a word each: 248 < 256), then folded into
 * 64-bit lanes with VPSADBW.  Four variables a register, two registers. */
ES_TARGET_AVX2 static inline __m256i bytes_popcnt(__m256i v)
{
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2,
                                         1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i lo4 = _mm256_set1_epi8(0x0f);
    return _mm256_add_epi8(_mm256_shuffle_epi8(lut, _mm256_and_si256(v, lo4)),
                           _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(v, 4), lo4)));
}

ES_TARGET_AVX2 static void cells8_avx2(const uint64_t *const *pre, uint32_t np, const uint64_t *lanes,
                                       uint32_t nb, uint32_t w0, uint32_t W, uint32_t *out)
{
    const __m256i zero = _mm256_setzero_si256();
    for (uint32_t i = 0; i < np; i++) {
        const uint64_t *p = pre[i];
        for (uint32_t b = 0; b < nb; b++) {
            const uint64_t *L = lanes + (size_t)b * W * 8;
            for (int y = 0; y < 2; y++) {
                const uint32_t lo = y ? w0 : 0, hi = y ? W : w0;
                __m256i s0 = zero, s1 = zero;
                for (uint32_t c = lo; c < hi; c += 31) {
                    const uint32_t e = hi - c < 31 ? hi : c + 31;
                    __m256i a0 = zero, a1 = zero;
                    for (uint32_t w = c; w < e; w++) {
                        const __m256i q = _mm256_set1_epi64x((long long)p[w]);
                        const __m256i *x = (const __m256i *)(L + (size_t)w * 8);
                        a0 = _mm256_add_epi8(a0, bytes_popcnt(_mm256_and_si256(q, _mm256_loadu_si256(x))));
                        a1 = _mm256_add_epi8(a1, bytes_popcnt(_mm256_and_si256(q, _mm256_loadu_si256(x + 1))));
                    }
                    s0 = _mm256_add_epi64(s0, _mm256_sad_epu8(a0, zero));
                    s1 = _mm256_add_epi64(s1, _mm256_sad_epu8(a1, zero));
                }
                uint64_t t[8];
                _mm256_storeu_si256((__m256i *)t, s0);
                _mm256_storeu_si256((__m256i *)(t + 4), s1);
                uint32_t *o = out + ((size_t)(i * nb + b) * 2 + (size_t)y) * 8;
                for (int j = 0; j < 8; j++) o[j] = (uint32_t)t[j];
            }
        }
    }
}

/* R prefix cells (1..4) against NB bins over words [lo, hi): the R * NB
 * accumulators stay in registers; the bins' words are loaded once for R cells. */
#define ES_MDFS_BLOCK(R, NB)                                                                       \
    do {                                                                                           \
        for (int y = 0; y < 2; y++) {                                                              \
            const uint32_t lo = y ? w0 : 0, hi = y ? W : w0;                                       \
            __m512i acc[4][NB];                                                                    \
            for (int r = 0; r < (R); r++)                                                          \
                for (int b = 0; b < (NB); b++) acc[r][b] = _mm512_setzero_si512();                 \
            for (uint32_t w = lo; w < hi; w++) {                                                   \
                __m512i x[NB];                                                                     \
                for (int b = 0; b < (NB); b++)                                                     \
                    x[b] = _mm512_loadu_si512((const void *)(lanes + ((size_t)b * W + w) * 8));    \
                for (int r = 0; r < (R); r++) {                                                    \
                    __m512i q = _mm512_set1_epi64((long long)pre[i + r][w]);                      \
                    for (int b = 0; b < (NB); b++)                                                 \
                        acc[r][b] = _mm512_add_epi64(acc[r][b],                                    \
                                                     _mm512_popcnt_epi64(_mm512_and_si512(q, x[b]))); \
                }                                                                                  \
            }                                                                                      \
            for (int r = 0; r < (R); r++)                                                          \
                for (int b = 0; b < (NB); b++)                                                     \
                    _mm256_storeu_si256((__m256i *)(out + ((size_t)((i + r) * (NB) + b) * 2 + y) * 8), \
                                        _mm512_cvtepi64_epi32(acc[r][b]));                         \
        }                                                                                          \
    } while (0)

/* AVX-512 with the bin count known at compile time (the usual m = 2, 3, 4). */
#define ES_MDFS_NB(NB)                                                                             \
    ES_TARGET_AVX512 static void cells8_avx512_##NB(const uint64_t *const *pre, uint32_t np,      \
                                                    const uint64_t *lanes, uint32_t w0, uint32_t W, \
                                                    uint32_t *out)                                 \
    {                                                                                              \
        uint32_t i = 0;                                                                            \
        for (; i + 4 <= np; i += 4) ES_MDFS_BLOCK(4, NB);                                          \
        for (; i < np; i++) ES_MDFS_BLOCK(1, NB);                                                  \
    }
ES_MDFS_NB(1)
ES_MDFS_NB(2)
ES_MDFS_NB(3)

ES_TARGET_AVX512 static void cells8_avx512(const uint64_t *const *pre, uint32_t np,
                                           const uint64_t *lanes, uint32_t nb, uint32_t w0,
                                           uint32_t W, uint32_t *out)
{
    switch (nb) {
    case 1: cells8_avx512_1(pre, np, lanes, w0, W, out); return;
    case 2: cells8_avx512_2(pre, np, lanes, w0, W, out); return;
    case 3: cells8_avx512_3(pre, np, lanes, w0, W, out); return;
    default: break;
    }
    for (uint32_t i = 0; i < np; i++) {
        const uint64_t *p = pre[i];
        for (uint32_t b = 0; b < nb; b++) {
            const uint64_t *L = lanes + (size_t)b * W * 8;
            __m512i a0 = _mm512_setzero_si512(), a1 = _mm512_setzero_si512();
            for (uint32_t w = 0; w < w0; w++) {
                __m512i x = _mm512_and_si512(_mm512_set1_epi64((long long)p[w]),
                                             _mm512_loadu_si512((const void *)(L + (size_t)w * 8)));
                a0 = _mm512_add_epi64(a0, _mm512_popcnt_epi64(x));
            }
            for (uint32_t w = w0; w < W; w++) {
                __m512i x = _mm512_and_si512(_mm512_set1_epi64((long long)p[w]),
                                             _mm512_loadu_si512((const void *)(L + (size_t)w * 8)));
                a1 = _mm512_add_epi64(a1, _mm512_popcnt_epi64(x));
            }
            uint32_t *o = out + (size_t)(i * nb + b) * 16;
            _mm256_storeu_si256((__m256i *)o, _mm512_cvtepi64_epi32(a0));
            _mm256_storeu_si256((__m256i *)(o + 8), _mm512_cvtepi64_epi32(a1));
        }
    }
}
#endif

/* dst = a & x over W words; the set bits of class 0 ([0, w0)) and class 1. */
static inline __attribute__((always_inline)) void and_body(uint64_t *restrict dst,
                                                           const uint64_t *restrict a,
                                                           const uint64_t *restrict x, uint32_t w0,
                                                           uint32_t W, uint32_t ct[2])
{
    uint64_t n0 = 0, n1 = 0;
    for (uint32_t w = 0; w < w0; w++) dst[w] = a[w] & x[w], n0 += (uint64_t)__builtin_popcountll(dst[w]);
    for (uint32_t w = w0; w < W; w++) dst[w] = a[w] & x[w], n1 += (uint64_t)__builtin_popcountll(dst[w]);
    ct[0] = (uint32_t)n0, ct[1] = (uint32_t)n1;
}

static void and_scalar(uint64_t *restrict dst, const uint64_t *restrict a, const uint64_t *restrict x,
                       uint32_t w0, uint32_t W, uint32_t ct[2])
{
    and_body(dst, a, x, w0, W, ct);
}

#if ES_CPU_X86
ES_TARGET_POPCNT static void and_popcnt(uint64_t *restrict dst, const uint64_t *restrict a,
                                        const uint64_t *restrict x, uint32_t w0, uint32_t W,
                                        uint32_t ct[2])
{
    and_body(dst, a, x, w0, W, ct);
}
#endif

es_mdfs_and_fn es_mdfs_and_best(void)
{
#if ES_CPU_X86
    const char *force = es_env_variant("EPISTREAM_POPCOUNT");
    if (!(force && !strcmp(force, "scalar")) && es_cpu_has(ES_CPU_POPCNT)) return and_popcnt;
#endif
    return and_scalar;
}

es_mdfs_cells8_fn es_mdfs_cells8_scalar(void) { return cells8_scalar; }

es_mdfs_cells8_fn es_mdfs_cells8_best(const char **name)
{
    const char *force = es_env_variant("EPISTREAM_POPCOUNT");
    es_mdfs_cells8_fn f = cells8_scalar;
    const char *nm = "scalar";
#if ES_CPU_X86
    if (!(force && !strcmp(force, "scalar")) && es_cpu_has(ES_CPU_POPCNT)) f = cells8_popcnt, nm = "popcnt";
    if (!(force && (!strcmp(force, "scalar") || !strcmp(force, "popcnt"))) && es_cpu_has(ES_CPU_AVX2))
        f = cells8_avx2, nm = "avx2";
    if (!(force && (!strcmp(force, "scalar") || !strcmp(force, "popcnt") || !strcmp(force, "avx2"))) &&
        es_cpu_has(ES_CPU_AVX512))
        f = cells8_avx512, nm = "avx512";
#else
    (void)force;
#endif
    if (name) *name = nm;
    return f;
}
