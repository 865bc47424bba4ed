/* linear_batch.c -- es_stat_linear_prep() and es_stat_linear_bound() for a
 * run of pairs at once (the pruning of `scan --stat linear`, src/backend/cpu.c).
 *
 * First, in single precision (es_stat_linear_sure: sixteen pairs a vector
 * with AVX-512, the scalar twin otherwise, the same float operations in the
 * same order), a certificate with proven margins (doc/QT.md, "Pruning",
 * step 4): a pair "sure" to pass PLINK's table rules, and "certified" when
 * the double fit on the whole interval neither fails nor asks for the
 * exact sums and its z^2 is below a float bound.  A certified pair is done;
 * the others take the double path below.
 *
 * The double path: the AVX-512 variant does, eight pairs a vector, the same
 * IEEE operations in the same order as the scalar functions in linear.c (no
 * fused multiply-add: the build has -ffp-contract=off; max_pd(a, b) is `a > b ?
 * a : b`), so each lane's X'X inverse and each failure decision are the
 * scalar's, bit for bit: the rules are all evaluated and or-ed, where the
 * scalar code returns at the first that fails (a pair that fails one rule
 * fails either way; one that passes all computed the same values); a sure
 * pair skips the rules.  Only the bound may differ from
 * es_stat_linear_bound() in its last bits: it carries its own margins
 * (linear.c says why they suffice).  es_stat_linear_batch_scalar(), the
 * double path alone, is the oracle (tests/test_qt.c). */
#include <float.h>
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


/* ---- the single-precision certificate of the table's rules ------------------
 * es_stat_linear_prep()'s rules decided in float from exact integers, with
 * margins that make "sure" (1) imply that the double rules pass: doc/QT.md,
 * "The certificate in single precision", has the proof, whose constants are
 * these.  0 is "not sure" (the double rules decide).  The AVX-512 variant
 * does the same float operations in the same order, so the same decisions
 * (tests/test_qt.c). */
#define SURE_N_MAX 8192         /* n C_xx <= 2^30: the centred sums exact in int32 */
#define SURE_R_MAX 0.99899f     /* 0.999 - 1e-5, below which every r in double is below 0.999 */
#define SURE_CDET_MIN 1.1e-3f   /* det of the correlations, above 2^-30 and every slope pair's rule */
#define SURE_VIF_MIN 1.004f     /* 50 det + r^2 >= 1 + 4e-3: PLINK's VIF check passes */
#define SURE_CDET_SLACK 1e-4f   /* above the float det's error (< 1e-5) */
#define SURE_D2_MAX 2e4f        /* the intercept's estimate correlations below 1 - 2.5e-5 */
#define SURE_RHO_LIM 16609443.0f /* 0.99 * 2^24 (< its exact value): perm(X'X) / det(X'X) <= 2^24, the double
                                  * inverse's entries within 3e-8 of their scale */

#define SURE_KY_MAX 1e4f         /* n sum y^2 / C_yy: the float y sums' cancellation */
#define SURE_U 5.9604645e-08f     /* 2^-24 */

/* y in the certificate's units: q 2^-39 (q the fixed point, < 2^39), so
 * every float sum stays in range; k = scale 2^-39 = 2^-40 / quantum, a
 * power of two (exact scalings) */
#define SURE_K(quantum) (0x1p-40 / (quantum))
/* PLINK's residual-variance floor 1e-20 (with 1 % to spare) in those
 * units, rounded up into float */
static inline float sure_thr(double k)
{
    float f = (float)(1.01e-20 * k * k * 1.000001);
    return f > FLT_MIN ? f : FLT_MIN;
}

/* The certificate of one pair: cells c[9], the sums d (ABy sum in
 * [d->saby, x1]).  0: not sure of the table's rules; 1: sure of them; 2:
 * sure, and *zsq (float) bounds the double fit's z^2 on the interval,
 * which neither fails nor asks for the exact sums there.  The order of
 * operations is the vector's (sure16_avx512). */
static inline int sure_scalar(const uint32_t *c, const es_qt_dsums_t *d, double x1, float *zsq)
{
    uint32_t ctu = c[0] + c[1] + c[2] + c[3] + c[4] + c[5] + c[6] + c[7] + c[8];
    if (!(ctu > 4 && ctu <= SURE_N_MAX)) return 0;
    int32_t n1 = (int32_t)(c[3] + c[4] + c[5]), n2 = (int32_t)(c[6] + c[7] + c[8]);
    int32_t m1 = (int32_t)(c[1] + c[4] + c[7]), m2 = (int32_t)(c[2] + c[5] + c[8]);
    int32_t c11 = (int32_t)c[4], c12 = (int32_t)c[5], c21 = (int32_t)c[7], c22 = (int32_t)c[8], ct = (int32_t)ctu;
    int32_t sa = n1 + (n2 << 1), saa = n1 + (n2 << 2), sb = m1 + (m2 << 1), sbb = m1 + (m2 << 2);
    int32_t sab = c11 + ((c12 + c21) << 1) + (c22 << 2);
    int32_t saab = c11 + (c12 << 1) + (c21 << 2) + (c22 << 3);
    int32_t sabb = c11 + (c12 << 2) + (c21 << 1) + (c22 << 3);
    int32_t sxx = c11 + ((c12 + c21) << 2) + (c22 << 4);
    int32_t caa = ct * saa - sa * sa, cbb = ct * sbb - sb * sb, cxx = ct * sxx - sab * sab;
    int32_t cab = ct * sab - sa * sb, cax = ct * saab - sa * sab, cbx = ct * sabb - sb * sab;
    if (!(caa > 0 && cbb > 0 && cxx > 0)) return 0;
    float faa = (float)caa, fbb = (float)cbb, fxx = (float)cxx;
    float ia = 1.0f / sqrtf(faa), ib = 1.0f / sqrtf(fbb), ix = 1.0f / sqrtf(fxx);
    float r12 = (float)cab * ia * ib, r13 = (float)cax * ia * ix, r23 = (float)cbx * ib * ix;
    if (!(r12 <= SURE_R_MAX && r13 <= SURE_R_MAX && r23 <= SURE_R_MAX)) return 0;
    float q12 = r12 * r12, q13 = r13 * r13, q23 = r23 * r23;
    float cdet = 1.0f + 2.0f * r12 * r13 * r23 - q12 - q13 - q23;
    if (!(cdet >= SURE_CDET_MIN)) return 0;
    float c50 = 50.0f * cdet;
    if (!(c50 + q12 >= SURE_VIF_MIN && c50 + q13 >= SURE_VIF_MIN && c50 + q23 >= SURE_VIF_MIN)) return 0;
    float clo = cdet - SURE_CDET_SLACK;
    float wa = (float)sa * ia, wb = (float)sb * ib, wx = (float)sab * ix;
    float ss = wa * wa + wb * wb + wx * wx;
    if (!(ss * 9.1f <= SURE_D2_MAX * clo)) return 0;
    float rprod = (float)(ct + sa + sb + sab) * (float)(sa + saa + sab + saab) * (float)(sb + sab + sbb + sabb) *
                  (float)(sab + saab + sabb + sxx);
    if (!(rprod * (float)(ct * ct) <= SURE_RHO_LIM * (faa * fbb * fxx * clo))) return 0;
    /* the bound (doc/QT.md, "The bound in single precision") */
    double k = SURE_K(d->quantum);
    float fy = (float)(d->sy * k), fa = (float)(d->say * k), fb = (float)(d->sby * k), fyy = (float)(d->syy * k * k);
    float fx0 = (float)(d->saby * k), fx1 = (float)(x1 * k), thr = sure_thr(k);
    float nf = (float)ct, fsa = (float)sa, fsb = (float)sb, fsab = (float)sab, u = SURE_U;
    float cyy = nf * fyy - fy * fy;
    if (!(cyy > 0.0f)) return 1;
    float ry = sqrtf(cyy), iy = 1.0f / ry;
    float ky = nf * fyy * iy * iy;
    float ta = (nf * fa - fsa * fy) * ia * iy, tb = (nf * fb - fsb * fy) * ib * iy;
    float t0 = (nf * fx0 - fsab * fy) * ix * iy, t1 = (nf * fx1 - fsab * fy) * ix * iy;
    float ek = 2.2f * u * ky + 9.1f * u;
    float se = 2.1f * u * (((nf * fa + fsa * fy) * ia + (nf * fb + fsb * fy) * ib + (nf * fx1 + fsab * fy) * ix) * iy) +
               3.0f * ek;
    if (!(ky <= SURE_KY_MAX && se <= 1e-3f && fabsf(ta) <= 1.005f && fabsf(tb) <= 1.005f && fabsf(t0) <= 1.005f &&
          fabsf(t1) <= 1.005f))
        return 1;
    float a11 = 1.0f - q23, a22 = 1.0f - q13, a33 = 1.0f - q12;
    float a12 = r13 * r23 - r12, a13 = r12 * r23 - r13, a23 = r12 * r13 - r23;
    float ev = 110.0f * u + 2.01f * se, ed = 700.0f * u + 12.5f * se;
    float va = a13 * ta + a23 * tb, ga = a11 * ta + a12 * tb, gb = a12 * ta + a22 * tb;
    float qa = ta * ga + tb * gb;
    float v0 = va + a33 * t0, v1 = va + a33 * t1;
    float d0 = cdet - (qa + (ta * a13 + tb * a23) * t0 + t0 * v0) - ed;
    float d1 = cdet - (qa + (ta * a13 + tb * a23) * t1 + t1 * v1) - ed;
    float h0 = fabsf(v0) + ev, h1 = fabsf(v1) + ev, l0 = fabsf(v0) - ev, l1 = fabsf(v1) - ev;
    float n4 = nf - 4.0f, rd = 1.0f / (a33 * 0.99f * d0 * d1);
    float z0 = n4 * h0 * h0 * d1 * rd, z1 = n4 * h1 * h1 * d0 * rd;
    float zmax = z0 > z1 ? z0 : z1, dmin = d0 < d1 ? d0 : d1, vmin = l0 < l1 ? l0 : l1;
    int same = (v0 > 0.0f && v1 > 0.0f) || (v0 < 0.0f && v1 < 0.0f);
    /* the double fit against the exact one (ρ <= 2^24) */
    float cdh = cdet * 1.01f, icd = 1.0f / (cdet * 0.99f), d2 = 9.0f * ss * icd, sn = sqrtf(nf);
    float w = (sqrtf(1.0f + d2) / sn * fy + 3.0f * sn * sqrtf(icd) * (ia * fa + ib * fb + ix * fx1)) * 1.01f;
    float sig = cyy * 0.99f * dmin, isig = nf * n4 * cdh / sig; /* sig / (n (n - 4) cdh): sigma's lower bound */
    float q2 = 4.0f * (1.0f + d2 + 9.0f * (3.0f + ss) * icd);
    float beta = 1.2e-15f * (w * w * (q2 + 2.0f) + fyy) * isig / n4;
    float z = (zmax * 1.001f + 8.5e-16f * w * w * isig * 1001.0f) * 1.0001f * (1.0f + 1.002f * beta);
    float pa = a33 * 1.01f * cdh, sp = sqrtf(pa);
    float lhs = nf * sp * 0x1p-40f * 1.0001f;
    float rhs = 0.999999e-6f * (vmin * ry * 0.99f - 2.9e-8f * 1.01f * sn * sp * w);
    if (!(same && vmin > 0.0f && d0 > 0.0f && d1 > 0.0f && beta <= 1e-3f &&
          sig * (1.0f - beta) * a33 * 0.99f >= thr * 1.00001f * n4 * cdh * cdh * fxx && lhs <= rhs && z < INFINITY))
        return 1;
    *zsq = z;
    return 2;
}

void es_stat_linear_sure_scalar(const es_table2_t *t, const es_qt_dsums_t *d, const double *saby1, uint32_t n,
                                uint8_t *sure, uint8_t *cert, double *zsq)
{
    for (uint32_t k = 0; k < n; k++) {
        float z = 0;
        int r = sure_scalar(t[k].n[0], &d[k], saby1[k], &z);
        sure[k] = r > 0;
        cert[k] = r > 1;
        zsq[k] = r > 1 ? (double)z : 0;
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

typedef __m512 vf;
typedef __m512i vi;

/* sure_scalar() of sixteen pairs idx (lanes outside `in` ignored): the
 * same float operations in the same order (the int32 sums are exact either
 * way), *cert the lanes certified with their bound in zsq */
static ES_TARGET_AVX512 __mmask16 sure16_avx512(const es_table2_t *t, const es_qt_dsums_t *d, const double *saby1,
                                                vi idx, __mmask16 in, __mmask16 *cert, vf *zsq)
{
    const int *tbase = (const int *)t;
    vi tix = _mm512_mullo_epi32(idx, _mm512_set1_epi32(sizeof *t / 4));
    vi c[9];
    for (int e = 0; e < 9; e++) c[e] = _mm512_i32gather_epi32(_mm512_add_epi32(tix, _mm512_set1_epi32(e)), tbase, 4);
#define ADD _mm512_add_epi32
#define SHL _mm512_slli_epi32
#define MUL _mm512_mullo_epi32
#define LE(a, b) _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ)
#define GE(a, b) _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ)
#define GT(a, b) _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ)
#define LT(a, b) _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ)
#define F(x) _mm512_set1_ps(x)
    *cert = 0;
    vi ct = ADD(ADD(ADD(ADD(ADD(ADD(ADD(ADD(c[0], c[1]), c[2]), c[3]), c[4]), c[5]), c[6]), c[7]), c[8]);
    __mmask16 ok = in & _mm512_cmpgt_epu32_mask(ct, _mm512_set1_epi32(4)) &
                   _mm512_cmple_epu32_mask(ct, _mm512_set1_epi32(SURE_N_MAX));
    vi n1 = ADD(ADD(c[3], c[4]), c[5]), n2 = ADD(ADD(c[6], c[7]), c[8]);
    vi m1 = ADD(ADD(c[1], c[4]), c[7]), m2 = ADD(ADD(c[2], c[5]), c[8]);
    vi c11 = c[4], c12 = c[5], c21 = c[7], c22 = c[8];
    vi sa = ADD(n1, SHL(n2, 1)), saa = ADD(n1, SHL(n2, 2)), sb = ADD(m1, SHL(m2, 1)), sbb = ADD(m1, SHL(m2, 2));
    vi sab = ADD(ADD(c11, SHL(ADD(c12, c21), 1)), SHL(c22, 2));
    vi saab = ADD(ADD(ADD(c11, SHL(c12, 1)), SHL(c21, 2)), SHL(c22, 3));
    vi sabb = ADD(ADD(ADD(c11, SHL(c12, 2)), SHL(c21, 1)), SHL(c22, 3));
    vi sxx = ADD(ADD(c11, SHL(ADD(c12, c21), 2)), SHL(c22, 4));
    vi caa = _mm512_sub_epi32(MUL(ct, saa), MUL(sa, sa)), cbb = _mm512_sub_epi32(MUL(ct, sbb), MUL(sb, sb));
    vi cxx = _mm512_sub_epi32(MUL(ct, sxx), MUL(sab, sab));
    vi cab = _mm512_sub_epi32(MUL(ct, sab), MUL(sa, sb)), cax = _mm512_sub_epi32(MUL(ct, saab), MUL(sa, sab));
    vi cbx = _mm512_sub_epi32(MUL(ct, sabb), MUL(sb, sab));
    const vi zi = _mm512_setzero_si512();
    ok &= _mm512_cmpgt_epi32_mask(caa, zi) & _mm512_cmpgt_epi32_mask(cbb, zi) & _mm512_cmpgt_epi32_mask(cxx, zi);
    if (!ok) return 0;
    vf faa = _mm512_cvtepi32_ps(caa), fbb = _mm512_cvtepi32_ps(cbb), fxx = _mm512_cvtepi32_ps(cxx);
    const vf one = F(1.0f);
    vf ia = one / _mm512_sqrt_ps(faa), ib = one / _mm512_sqrt_ps(fbb), ix = one / _mm512_sqrt_ps(fxx);
    vf r12 = _mm512_cvtepi32_ps(cab) * ia * ib, r13 = _mm512_cvtepi32_ps(cax) * ia * ix;
    vf r23 = _mm512_cvtepi32_ps(cbx) * ib * ix;
    const vf rmax = F(SURE_R_MAX);
    ok &= LE(r12, rmax) & LE(r13, rmax) & LE(r23, rmax);
    vf q12 = r12 * r12, q13 = r13 * r13, q23 = r23 * r23;
    vf cdet = one + F(2.0f) * r12 * r13 * r23 - q12 - q13 - q23;
    ok &= GE(cdet, F(SURE_CDET_MIN));
    vf c50 = F(50.0f) * cdet;
    const vf vmin_ = F(SURE_VIF_MIN);
    ok &= GE(c50 + q12, vmin_) & GE(c50 + q13, vmin_) & GE(c50 + q23, vmin_);
    vf clo = cdet - F(SURE_CDET_SLACK);
    vf fsa = _mm512_cvtepi32_ps(sa), fsb = _mm512_cvtepi32_ps(sb), fsab = _mm512_cvtepi32_ps(sab);
    vf wa = fsa * ia, wb = fsb * ib, wx = fsab * ix;
    vf ss = wa * wa + wb * wb + wx * wx;
    ok &= LE(ss * F(9.1f), F(SURE_D2_MAX) * clo);
    vf rprod = _mm512_cvtepi32_ps(ADD(ADD(ADD(ct, sa), sb), sab)) * _mm512_cvtepi32_ps(ADD(ADD(ADD(sa, saa), sab), saab)) *
               _mm512_cvtepi32_ps(ADD(ADD(ADD(sb, sab), sbb), sabb)) *
               _mm512_cvtepi32_ps(ADD(ADD(ADD(sab, saab), sabb), sxx));
    ok &= LE(rprod * _mm512_cvtepi32_ps(MUL(ct, ct)), F(SURE_RHO_LIM) * (faa * fbb * fxx * clo));
    if (!ok) return 0;
    /* the bound: the sums in the certificate's units, eight lanes a gather */
    vf fy, fa, fb, fyy, fx0, fx1, thr;
    {
        __m512d hy[2], ha[2], hb[2], hyy[2], h0[2], h1[2], ht[2];
        for (int h = 0; h < 2; h++) {
            __m256i ix8 = h ? _mm512_extracti64x4_epi64(idx, 1) : _mm512_castsi512_si256(idx);
            __m256i dx8 = _mm256_mullo_epi32(ix8, _mm256_set1_epi32(sizeof *d / 8));
#define DG(f) _mm512_i32gather_pd(_mm256_add_epi32(dx8, _mm256_set1_epi32(offsetof(es_qt_dsums_t, f) / 8)), \
                                  (const double *)d, 8)
            __m512d k = _mm512_set1_pd(0x1p-40) / DG(quantum);
            hy[h] = DG(sy) * k;
            ha[h] = DG(say) * k;
            hb[h] = DG(sby) * k;
            hyy[h] = DG(syy) * k * k;
            h0[h] = DG(saby) * k;
#undef DG
            h1[h] = _mm512_i32gather_pd(ix8, saby1, 8) * k;
            ht[h] = _mm512_set1_pd(1.01e-20) * k * k * _mm512_set1_pd(1.000001);
        }
#define CAT(x) _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(_mm512_cvtpd_ps(x[0]))), \
                                                   _mm256_castps_pd(_mm512_cvtpd_ps(x[1])), 1))
        fy = CAT(hy);
        fa = CAT(ha);
        fb = CAT(hb);
        fyy = CAT(hyy);
        fx0 = CAT(h0);
        fx1 = CAT(h1);
        thr = CAT(ht);
#undef CAT
        thr = _mm512_mask_blend_ps(GT(thr, F(FLT_MIN)), F(FLT_MIN), thr);
    }
    const vf u = F(SURE_U);
    vf nf = _mm512_cvtepi32_ps(ct);
    vf cyy = nf * fyy - fy * fy;
    __mmask16 ok2 = ok & GT(cyy, _mm512_setzero_ps());
    vf ry = _mm512_sqrt_ps(cyy), iy = one / ry;
    vf ky = nf * fyy * iy * iy;
    vf ta = (nf * fa - fsa * fy) * ia * iy, tb = (nf * fb - fsb * fy) * ib * iy;
    vf t0 = (nf * fx0 - fsab * fy) * ix * iy, t1 = (nf * fx1 - fsab * fy) * ix * iy;
    vf ek = F(2.2f) * u * ky + F(9.1f) * u;
    vf se = F(2.1f) * u * (((nf * fa + fsa * fy) * ia + (nf * fb + fsb * fy) * ib + (nf * fx1 + fsab * fy) * ix) * iy) +
            F(3.0f) * ek;
    const vf e1 = F(1.005f);
    ok2 &= LE(ky, F(SURE_KY_MAX)) & LE(se, F(1e-3f)) & LE(_mm512_abs_ps(ta), e1) & LE(_mm512_abs_ps(tb), e1) &
           LE(_mm512_abs_ps(t0), e1) & LE(_mm512_abs_ps(t1), e1);
    vf a11 = one - q23, a22 = one - q13, a33 = one - q12;
    vf a12 = r13 * r23 - r12, a13 = r12 * r23 - r13, a23 = r12 * r13 - r23;
    vf ev = F(110.0f) * u + F(2.01f) * se, ed = F(700.0f) * u + F(12.5f) * se;
    vf va = a13 * ta + a23 * tb, ga = a11 * ta + a12 * tb, gb = a12 * ta + a22 * tb;
    vf qa = ta * ga + tb * gb;
    vf v0 = va + a33 * t0, v1 = va + a33 * t1;
    vf d0 = cdet - (qa + (ta * a13 + tb * a23) * t0 + t0 * v0) - ed;
    vf d1 = cdet - (qa + (ta * a13 + tb * a23) * t1 + t1 * v1) - ed;
    vf h0 = _mm512_abs_ps(v0) + ev, h1 = _mm512_abs_ps(v1) + ev, l0 = _mm512_abs_ps(v0) - ev,
       l1 = _mm512_abs_ps(v1) - ev;
    vf n4 = nf - F(4.0f), rd = one / (a33 * F(0.99f) * d0 * d1);
    vf z0 = n4 * h0 * h0 * d1 * rd, z1 = n4 * h1 * h1 * d0 * rd;
    vf zmax = _mm512_max_ps(z0, z1), dmin = _mm512_min_ps(d0, d1), vmn = _mm512_min_ps(l0, l1);
    const vf zf = _mm512_setzero_ps();
    __mmask16 same = (GT(v0, zf) & GT(v1, zf)) | (LT(v0, zf) & LT(v1, zf));
    vf cdh = cdet * F(1.01f), icd = one / (cdet * F(0.99f)), d2 = F(9.0f) * ss * icd, sn = _mm512_sqrt_ps(nf);
    vf w = (_mm512_sqrt_ps(one + d2) / sn * fy + F(3.0f) * sn * _mm512_sqrt_ps(icd) * (ia * fa + ib * fb + ix * fx1)) *
           F(1.01f);
    vf sig = cyy * F(0.99f) * dmin, isig = nf * n4 * cdh / sig;
    vf q2 = F(4.0f) * (one + d2 + F(9.0f) * (F(3.0f) + ss) * icd);
    vf beta = F(1.2e-15f) * (w * w * (q2 + F(2.0f)) + fyy) * isig / n4;
    vf z = (zmax * F(1.001f) + F(8.5e-16f) * w * w * isig * F(1001.0f)) * F(1.0001f) * (one + F(1.002f) * beta);
    vf pa = a33 * F(1.01f) * cdh, sp = _mm512_sqrt_ps(pa);
    vf lhs = nf * sp * F(0x1p-40f) * F(1.0001f);
    vf rhs = F(0.999999e-6f) * (vmn * ry * F(0.99f) - F(2.9e-8f) * F(1.01f) * sn * sp * w);
    ok2 &= same & GT(vmn, zf) & GT(d0, zf) & GT(d1, zf) & LE(beta, F(1e-3f)) &
           GE(sig * (one - beta) * a33 * F(0.99f), thr * F(1.00001f) * n4 * cdh * cdh * fxx) & LE(lhs, rhs) &
           LT(z, F(INFINITY));
    *cert = ok2;
    *zsq = z;
#undef ADD
#undef SHL
#undef MUL
#undef LE
#undef GE
#undef GT
#undef LT
#undef F
    return ok;
}

static ES_TARGET_AVX512 void sure_avx512(const es_table2_t *t, const es_qt_dsums_t *d, const double *saby1, uint32_t n,
                                         uint8_t *sure, uint8_t *cert, double *zsq)
{
    const vi lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (uint32_t k0 = 0; k0 < n; k0 += 16) {
        __mmask16 in = (__mmask16)(n - k0 >= 16 ? 0xffff : (1u << (n - k0)) - 1), ce;
        vi idx = _mm512_mask_blend_epi32(in, _mm512_set1_epi32((int)k0), _mm512_add_epi32(_mm512_set1_epi32((int)k0), lane));
        vf z;
        __mmask16 ok = sure16_avx512(t, d, saby1, idx, in, &ce, &z);
        float zo[16];
        _mm512_storeu_ps(zo, z);
        for (uint32_t l = 0; l < 16 && k0 + l < n; l++) {
            sure[k0 + l] = (uint8_t)(ok >> l & 1);
            cert[k0 + l] = (uint8_t)(ce >> l & 1);
            zsq[k0 + l] = ce >> l & 1 ? (double)zo[l] : 0;
        }
    }
}

/* Pairs list[0 .. n-1], eight a vector (the list padded to a multiple of
 * eight with its first entry).  full: es_stat_linear_prep()'s rules in
 * double; else the pairs are sure to pass them (sure16_avx512) and only
 * the inverse is computed, by the same operations (so the same bits). */
static inline ES_TARGET_AVX512 __attribute__((always_inline)) void
batch_list(const es_table2_t *t, const es_qt_dsums_t *d, const double *saby1, const uint32_t *list, uint32_t n,
           uint8_t *fail, uint8_t *cert, double *zsq, int full)
{
    for (uint32_t k0 = 0; k0 < n; k0 += 8) {
        __m512i idx = _mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i *)(list + k0)));
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
        if (full) {
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
        }
        /* invert4 on X'X */
        vd a = nd, b = sad, c = sbd, dd = sabd, e = saa, f = sabd, g = saab, h = sbb, i = sabb, j = saabb;
        ES_INVERT4_COFACTORS(vd, a, b, c, dd, e, f, g, h, i, j);
        vd r = one / det;
        vd m[16];
        ES_INVERT4_STORE(m, r);
        if (full) {
            bad |= _mm512_cmp_pd_mask(vabs(det), _mm512_set1_pd(PLINK_EPSILON), _CMP_LT_OQ);
            vd sd[4];
            for (int q = 0; q < 4; q++) sd[q] = _mm512_sqrt_pd(m[q * 5]);
            const vd c99999 = _mm512_set1_pd(0.99999);
            for (int q = 1; q < 4; q++)
                for (int l = 0; l < q; l++) bad |= gt(m[q * 4 + l], c99999 * sd[q] * sd[l]);
        }
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
        for (uint32_t l = 0; l < 8 && k0 + l < n; l++) {
            uint32_t k = list[k0 + l];
            fail[k] = (uint8_t)(bad >> l & 1);
            cert[k] = (uint8_t)(ok >> l & 1);
            zsq[k] = zo[l];
        }
    }
}

/* The pairs certified in float (sure16_avx512, sixteen a vector: the
 * table's rules and the bound) are done; the others sure of the rules take
 * the inverse and the bound in double; the rest es_stat_linear_prep()'s
 * rules too. */
static ES_TARGET_AVX512 void batch_avx512(const es_table2_t *t, const es_qt_dsums_t *d, const double *saby1,
                                          uint32_t n, uint8_t *fail, uint8_t *cert, double *zsq)
{
    enum { CHUNK = 64 };
    const vi lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (uint32_t c0 = 0; c0 < n; c0 += CHUNK) {
        uint32_t nc = n - c0 < CHUNK ? n - c0 : CHUNK, ns = 0, nu = 0;
        uint32_t sure[CHUNK + 8], unsure[CHUNK + 8];
        for (uint32_t k0 = 0; k0 < nc; k0 += 16) {
            __mmask16 in = (__mmask16)(nc - k0 >= 16 ? 0xffff : (1u << (nc - k0)) - 1), ce;
            vi idx = _mm512_mask_blend_epi32(in, _mm512_set1_epi32((int)(c0 + k0)),
                                             _mm512_add_epi32(_mm512_set1_epi32((int)(c0 + k0)), lane));
            vf z;
            __mmask16 ok = sure16_avx512(t, d, saby1, idx, in, &ce, &z);
            if (ce) {
                float zo[16];
                _mm512_storeu_ps(zo, z);
                for (uint32_t l = 0; l < 16; l++)
                    if (ce >> l & 1) {
                        fail[c0 + k0 + l] = 0;
                        cert[c0 + k0 + l] = 1;
                        zsq[c0 + k0 + l] = zo[l];
                    }
            }
            /* the lists, in order */
            _mm512_mask_compressstoreu_epi32(sure + ns, (__mmask16)(ok & ~ce), idx);
            _mm512_mask_compressstoreu_epi32(unsure + nu, (__mmask16)(in & ~ok), idx);
            ns += (uint32_t)__builtin_popcount((unsigned)(ok & ~ce));
            nu += (uint32_t)__builtin_popcount((unsigned)(in & ~ok));
        }
        for (uint32_t k = ns; k < ns + 8; k++) sure[k] = sure[0];
        for (uint32_t k = nu; k < nu + 8; k++) unsure[k] = unsure[0];
        if (ns) batch_list(t, d, saby1, sure, ns, fail, cert, zsq, 0);
        if (nu) batch_list(t, d, saby1, unsure, nu, fail, cert, zsq, 1);
    }
}
#endif

void es_stat_linear_sure(const es_table2_t *t, const es_qt_dsums_t *d, const double *saby1, uint32_t n, uint8_t *sure,
                         uint8_t *cert, double *zsq)
{
#if ES_CPU_X86
    if (es_cpu_has(ES_CPU_AVX512)) {
        sure_avx512(t, d, saby1, n, sure, cert, zsq);
        return;
    }
#endif
    es_stat_linear_sure_scalar(t, d, saby1, n, sure, cert, zsq);
}

void es_stat_linear_batch(const es_table2_t *t, const es_qt_dsums_t *d, const double *saby1, uint32_t n,
                          uint8_t *fail, uint8_t *cert, double *zsq)
{
#if ES_CPU_X86
    if (es_cpu_has(ES_CPU_AVX512)) {
        batch_avx512(t, d, saby1, n, fail, cert, zsq);
        return;
    }
#endif
    es_stat_linear_batch_twin(t, d, saby1, n, fail, cert, zsq);
}

void es_stat_linear_batch_twin(const es_table2_t *t, const es_qt_dsums_t *d, const double *saby1, uint32_t n,
                               uint8_t *fail, uint8_t *cert, double *zsq)
{
    for (uint32_t k = 0; k < n; k++) {
        float z = 0;
        if (sure_scalar(t[k].n[0], &d[k], saby1[k], &z) == 2) {
            fail[k] = 0;
            cert[k] = 1;
            zsq[k] = z;
        } else {
            es_stat_linear_batch_scalar(&t[k], &d[k], &saby1[k], 1, &fail[k], &cert[k], &zsq[k]);
        }
    }
}
