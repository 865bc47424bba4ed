/* linear_batch.c -- es_stat_linear_prep() and es_stat_linear_bound() for a
 * run of pairs at once (the pruning of `scan --stat linear`, src/backend/cpu.c).
 *
 * The AVX-512 variant does, eight pairs a vector, the same IEEE operations
 * in the same order as the scalar functions in linear.c (no fused
 * multiply-add: the build has -ffp-contract=off; max_pd(a, b) is `a > b ?
 * a : b`), so each lane's X'X inverse and each failure decision are the
 * scalar's, bit for bit: the rules are all evaluated and or-ed, where the
 * scalar code returns at the first that fails (a pair that fails one rule
 * fails either way; one that passes all computed the same values).  Only
 * the bound may differ from es_stat_linear_bound() in its last bits: it
 * carries its own margins (linear.c says why they suffice).  The scalar
 * loop is the twin and the oracle (tests/test_qt.c). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "stats.h"
#include "stats_internal.h"
#include "util.h"

#if ES_CPU_X86
#include <immintrin.h>
#endif

void es_stat_linear_batch_scalar(const es_table2_t *t, const es_qt_dsums_t *d, const double *saby1, uint32_t n,
                                 uint8_t *fail, uint8_t *cert, double *zsq)
{
    for (uint32_t k = 0; k < n; k++) {
        es_linear_prep_t p;
        fail[k] = (uint8_t)es_stat_linear_prep(&t[k], &p);
        cert[k] = !fail[k] && es_stat_linear_bound(&t[k], &p, &d[k], saby1[k], &zsq[k]);
    }
}

#if ES_CPU_X86
#define PLINK_EPSILON 0.000000000931322574615478515625
#define PLINK_VIF 50.0

typedef __m512d vd;

static inline ES_TARGET_AVX512 __attribute__((always_inline)) __mmask8 gt(vd a, vd b)
{
    return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ);
}

static inline ES_TARGET_AVX512 __attribute__((always_inline)) vd vabs(vd a)
{
    return _mm512_abs_pd(a);
}

static ES_TARGET_AVX512 void batch_avx512(const es_table2_t *t, const es_qt_dsums_t *d, const double *saby1,
                                          uint32_t n, uint8_t *fail, uint8_t *cert, double *zsq)
{
    const __m512i lane = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    for (uint32_t k0 = 0; k0 < n; k0 += 8) {
        /* lanes past n repeat pair k0 (their results are not written) */
        __mmask8 in = (__mmask8)(n - k0 >= 8 ? 0xff : (1u << (n - k0)) - 1);
        __m512i idx = _mm512_mask_add_epi64(_mm512_set1_epi64(k0), in, _mm512_set1_epi64(k0), lane);
        /* the table's cells and integer sums, exact in double (gathered:
         * a vector loaded from eight scalar stores stalls) */
        __m512i tix = _mm512_mul_epu32(idx, _mm512_set1_epi64(sizeof *t / 4));
        const int *tb = (const int *)t;
        vd cell[9];
        for (int e = 0; e < 9; e++)
            cell[e] = _mm512_cvtepu32_pd(
                _mm512_i64gather_epi32(_mm512_add_epi64(tix, _mm512_set1_epi64(e)), tb, 4));
        const vd two_ = _mm512_set1_pd(2.0), four_ = _mm512_set1_pd(4.0);
        vd na1 = cell[3] + cell[4] + cell[5], na2 = cell[6] + cell[7] + cell[8];
        vd nb1 = cell[1] + cell[4] + cell[7], nb2 = cell[2] + cell[5] + cell[8];
        vd ctv = cell[0] + cell[1] + cell[2] + na1 + na2;
        __mmask8 bad = _mm512_cmp_pd_mask(ctv, _mm512_set1_pd(4.0), _CMP_LE_OQ);
        ctv = _mm512_mask_blend_pd(bad, ctv, _mm512_set1_pd(6.0)); /* any value: the lane fails */
        vd n11 = cell[4], n12 = cell[5], n21 = cell[7], n22 = cell[8];
        vd nd = ctv, sad = na1 + two_ * na2, sbd = nb1 + two_ * nb2;
        vd sabd = n11 + two_ * (n12 + n21) + four_ * n22, saa = na1 + four_ * na2, sbb = nb1 + four_ * nb2;
        vd saab = n11 + two_ * n12 + four_ * n21 + _mm512_set1_pd(8.0) * n22;
        vd sabb = n11 + four_ * n12 + two_ * n21 + _mm512_set1_pd(8.0) * n22;
        vd saabb = n11 + four_ * (n12 + n21) + _mm512_set1_pd(16.0) * n22;
        const vd one = _mm512_set1_pd(1.0), zero = _mm512_setzero_pd();
        /* es_stat_linear_prep, operation for operation */
        vd inv_n = one / nd, inv_n1 = one / (nd - one);
        vd mb = sbd * inv_n, mab = sabd * inv_n;
        vd va = saa - sad * sad * inv_n;
        vd vb = sbb - sbd * mb;
        vd vab = saabb - sabd * mab;
        bad |= _mm512_cmp_pd_mask(va, zero, _CMP_LE_OQ) | _mm512_cmp_pd_mask(vb, zero, _CMP_LE_OQ) |
               _mm512_cmp_pd_mask(vab, zero, _CMP_LE_OQ);
        va = one / _mm512_sqrt_pd(va * inv_n1);
        vb = one / _mm512_sqrt_pd(vb * inv_n1);
        vab = one / _mm512_sqrt_pd(vab * inv_n1);
        vd r12 = (sabd - sad * mb) * inv_n1 * va * vb;
        vd r13 = (saab - sad * mab) * inv_n1 * va * vab;
        vd r23 = (sabb - sbd * mab) * inv_n1 * vb * vab;
        const vd c999 = _mm512_set1_pd(0.999);
        bad |= gt(r12, c999) | gt(r13, c999) | gt(r23, c999);
        vd q12 = r12 * r12, q13 = r13 * r13, q23 = r23 * r23;
        vd cdet = one + _mm512_set1_pd(2.0) * r12 * r13 * r23 - q12 - q13 - q23;
        const vd peps = _mm512_set1_pd(PLINK_EPSILON);
        bad |= _mm512_cmp_pd_mask(vabs(cdet), peps, _CMP_LT_OQ);
        vd lim = one - _mm512_set1_pd(PLINK_VIF) * cdet;
        __mmask8 pos = gt(cdet, zero), neg = _mm512_cmp_pd_mask(cdet, zero, _CMP_LT_OQ);
        bad |= pos & (gt(lim, q12) | gt(lim, q13) | gt(lim, q23));
        bad |= neg & (gt(q12, lim) | gt(q13, lim) | gt(q23, lim));
        /* invert4 on X'X */
        vd a = nd, b = sad, c = sbd, dd = sabd, e = saa, f = sabd, g = saab, h = sbb, i = sabb, j = saabb;
        ES_INVERT4_COFACTORS(vd, a, b, c, dd, e, f, g, h, i, j);
        bad |= _mm512_cmp_pd_mask(vabs(det), peps, _CMP_LT_OQ);
        vd r = one / det;
        vd m[16];
        ES_INVERT4_STORE(m, r);
        vd sd[4];
        for (int q = 0; q < 4; q++) sd[q] = _mm512_sqrt_pd(m[q * 5]);
        const vd c99999 = _mm512_set1_pd(0.99999);
        for (int q = 1; q < 4; q++)
            for (int l = 0; l < q; l++) bad |= gt(m[q * 4 + l], c99999 * sd[q] * sd[l]);
        vd min_sigma = _mm512_max_pd(m[5], m[10]);
        min_sigma = _mm512_max_pd(m[15], min_sigma);
        min_sigma = _mm512_set1_pd(1e-20) / min_sigma;
        /* es_stat_linear_bound, with its margins (not bit for bit) */
        __m512i dix = _mm512_mul_epu32(idx, _mm512_set1_epi64(sizeof *d / 8));
#define DGATHER(f) _mm512_i64gather_pd(_mm512_add_epi64(dix, _mm512_set1_epi64(offsetof(es_qt_dsums_t, f) / 8)), \
                                       (const double *)d, 8)
        vd sy = DGATHER(sy), say = DGATHER(say), sby = DGATHER(sby), syy = DGATHER(syy), x0 = DGATHER(saby);
        vd quantum = DGATHER(quantum);
#undef DGATHER
        vd x1 = _mm512_i64gather_pd(idx, saby1, 8);
        __mmask8 ok = (__mmask8)~bad & gt(m[15], zero);
        vd dn = nd - _mm512_set1_pd(4.0), c3[2], sig[2], tabs[2];
        for (int s = 0; s < 2; s++) {
            vd x = s ? x1 : x0, cc[4];
            for (int q = 0; q < 4; q++) cc[q] = sy * m[q * 4] + say * m[q * 4 + 1] + sby * m[q * 4 + 2] + x * m[q * 4 + 3];
            c3[s] = cc[3];
            vd two = _mm512_set1_pd(2.0);
            sig[s] = (cc[0] * cc[0] * nd + cc[1] * cc[1] * saa + cc[2] * cc[2] * sbb + cc[3] * cc[3] * saabb + syy +
                      two * (cc[0] * (cc[1] * sad + cc[2] * sbd + cc[3] * sabd - sy) +
                             cc[1] * (cc[2] * sabd + cc[3] * saab - say) + cc[2] * (cc[3] * sabb - sby) - cc[3] * x)) /
                     dn;
            vd a0 = vabs(cc[0]), a1 = vabs(cc[1]), a2 = vabs(cc[2]), a3 = vabs(cc[3]);
            tabs[s] = a0 * a0 * nd + a1 * a1 * saa + a2 * a2 * sbb + a3 * a3 * saabb + syy +
                      two * (a0 * (a1 * sad + a2 * sbd + a3 * sabd + sy) + a1 * (a2 * sabd + a3 * saab + say) +
                             a2 * (a3 * sabb + sby) + a3 * x);
        }
        vd cabs = vabs(m[12] * sy) + vabs(m[13] * say) + vabs(m[14] * sby) + vabs(m[15] * x1);
        vd slack = _mm512_set1_pd(1e-12) * cabs;
        vd tmax = _mm512_max_pd(tabs[0], tabs[1]);
        vd sig_lo = _mm512_min_pd(sig[0], sig[1]) - _mm512_set1_pd(1e-8) * tmax / dn;
        ok &= _mm512_cmp_pd_mask(sig_lo, min_sigma * _mm512_set1_pd(1 + 1e-12), _CMP_GE_OQ) & gt(sig_lo, zero);
        vd b0 = vabs(c3[0]), b1 = vabs(c3[1]);
        __mmask8 same = (gt(c3[0], zero) & gt(c3[1], zero)) |
                        (_mm512_cmp_pd_mask(c3[0], zero, _CMP_LT_OQ) & _mm512_cmp_pd_mask(c3[1], zero, _CMP_LT_OQ));
        vd cmin = _mm512_maskz_mov_pd(same, _mm512_min_pd(b0, b1) - slack);
        /* the rounding bound of linear.c (linear_rounding) */
        vd rb = zero;
        for (int ai = 0; ai < 3; ai++)
            for (int bi = 0; bi < 3; bi++) {
                vd av = _mm512_set1_pd((double)ai), bv = _mm512_set1_pd((double)bi);
                vd w = m[12] + m[13] * av + m[14] * bv + m[15] * av * bv;
                rb = rb + cell[ai * 3 + bi] * vabs(w);
            }
        ok &= _mm512_cmp_pd_mask(rb * quantum * _mm512_set1_pd(1 + 1e-12),
                                 _mm512_set1_pd(ES_QT_REL_TOL) * cmin * _mm512_set1_pd(1 - 1e-12), _CMP_LT_OQ);
        vd cmax = _mm512_max_pd(b0, b1) + slack;
        vd z = cmax * cmax / (m[15] * sig_lo) * _mm512_set1_pd(1 + 1e-9);
        ok &= _mm512_cmp_pd_mask(vabs(z), _mm512_set1_pd(INFINITY), _CMP_LT_OQ);
        double zo[8];
        _mm512_storeu_pd(zo, z);
        for (int l = 0; l < 8 && k0 + l < n; l++) {
            fail[k0 + l] = (uint8_t)(bad >> l & 1);
            cert[k0 + l] = (uint8_t)(ok >> l & 1);
            zsq[k0 + l] = zo[l];
        }
    }
}
#endif

void es_stat_linear_batch(const es_table2_t *t, const es_qt_dsums_t *d, const double *saby1, uint32_t n,
                          uint8_t *fail, uint8_t *cert, double *zsq)
{
#if ES_CPU_X86
    if (es_cpu_has(ES_CPU_AVX512)) {
        batch_avx512(t, d, saby1, n, fail, cert, zsq);
        return;
    }
#endif
    es_stat_linear_batch_scalar(t, d, saby1, n, fail, cert, zsq);
}
