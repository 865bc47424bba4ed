/* qt_linear.cuh -- the device twin of src/stats/linear.c's failure rules
 * (es_stat_linear_prep) and z^2 bound (es_stat_linear_bound) for the QT
 * pair engine (qt.cu), plus a lower bound of z^2 that only the device's
 * thresholds use.  GPU-internal (gq_ prefix).
 *
 * Bit for bit the CPU's: the same IEEE double operations in the same order
 * (qt.cu is compiled with -fmad=false, so nothing is fused; CUDA's double
 * +, -, *, / and sqrt are correctly rounded, as the host's), so a pair the
 * device decides not to fail on its table does not fail on the host either
 * -- a dropped pair is counted in N_TOT, as PLINK counts a test that ran.
 * tests/test_gpu_qt.c compares the decisions and the bound with the CPU's
 * on adversarial tables.  Keep this file in step with linear.c. */
#ifndef GQ_LINEAR_CUH
#define GQ_LINEAR_CUH

#include <stdint.h>

#define GQ_EPSILON 0.000000000931322574615478515625 /* PLINK's 2^-30 */
#define GQ_VIF 50.0
#define GQ_REL_TOL 1e-6 /* ES_QT_REL_TOL */

/* es_linear_prep_t */
struct gq_prep {
    double g[16], m[16];
    double min_sigma;
    uint64_t ct;
};

/* es_qt_dsums_t's fields the bound reads */
struct gq_dsums {
    double sy, syy, say, sby, saby, quantum;
};

/* es_stat_linear_prep(): 1 when the table fails one of PLINK's rules */
__device__ __forceinline__ int gq_prep_of(const uint32_t *n, gq_prep &p)
{
    uint64_t ct = 0, sa = 0, saa = 0, sb = 0, sbb = 0;
#pragma unroll
    for (int a = 0; a < 3; a++)
#pragma unroll
        for (int b = 0; b < 3; b++) {
            uint64_t c = n[a * 3 + b];
            ct += c;
            sa += c * (uint64_t)a;
            saa += c * (uint64_t)(a * a);
            sb += c * (uint64_t)b;
            sbb += c * (uint64_t)(b * b);
        }
    uint64_t c11 = n[4], c12 = n[5], c21 = n[7], c22 = n[8];
    uint64_t sab = c11 + 2 * (c12 + c21) + 4 * c22;
    uint64_t saab = c11 + 2 * c12 + 4 * c21 + 8 * c22;
    uint64_t sabb = c11 + 4 * c12 + 2 * c21 + 8 * c22;
    uint64_t saabb = c11 + 4 * (c12 + c21) + 16 * c22;
    p.ct = ct;
    if (ct <= 4) return 1;
    double nd = (double)ct, inv_n = 1.0 / nd, inv_n1 = 1.0 / (double)(ct - 1);
    double sad = (double)sa, sbd = (double)sb, sabd = (double)sab;
    double mb = sbd * inv_n, mab = sabd * inv_n;
    double va = (double)saa - sad * sad * inv_n;
    double vb = (double)sbb - sbd * mb;
    double vab = (double)saabb - sabd * mab;
    if (va <= 0 || vb <= 0 || vab <= 0) return 1;
    va = 1.0 / sqrt(va * inv_n1);
    vb = 1.0 / sqrt(vb * inv_n1);
    vab = 1.0 / sqrt(vab * inv_n1);
    double r12 = (sabd - sad * mb) * inv_n1 * va * vb;
    double r13 = ((double)saab - sad * mab) * inv_n1 * va * vab;
    double r23 = ((double)sabb - sbd * mab) * inv_n1 * vb * vab;
    if (r12 > 0.999 || r13 > 0.999 || r23 > 0.999) return 1;
    double q12 = r12 * r12, q13 = r13 * r13, q23 = r23 * r23;
    double det = 1 + 2 * r12 * r13 * r23 - q12 - q13 - q23;
    if (fabs(det) < GQ_EPSILON) return 1;
    double lim = 1 - GQ_VIF * det;
    if ((det > 0 && (lim > q12 || lim > q13 || lim > q23)) || (det < 0 && (lim < q12 || lim < q13 || lim < q23)))
        return 1;
    double *g = p.g, *m = p.m;
    g[0] = nd, g[1] = sad, g[2] = sbd, g[3] = sabd;
    g[4] = sad, g[5] = (double)saa, g[6] = sabd, g[7] = (double)saab;
    g[8] = sbd, g[9] = sabd, g[10] = (double)sbb, g[11] = (double)sabb;
    g[12] = sabd, g[13] = (double)saab, g[14] = (double)sabb, g[15] = (double)saabb;
    /* invert4(): the adjugate (stats_internal.h's ES_INVERT4_COFACTORS) */
    {
        double a = g[0], b = g[1], c = g[2], d = g[3], e = g[5], f = g[6], gg = g[7], h = g[10], i = g[11],
               j = g[15];
        double m23_23 = h * j - i * i, m23_13 = f * j - gg * i, m23_12 = f * i - gg * h;
        double m23_03 = c * j - d * i, m23_02 = c * i - d * h, m23_01 = c * gg - d * f;
        double c00 = e * m23_23 - f * m23_13 + gg * m23_12;
        double c01 = -(b * m23_23 - f * m23_03 + gg * m23_02);
        double c02 = b * m23_13 - e * m23_03 + gg * m23_01;
        double c03 = -(b * m23_12 - e * m23_02 + f * m23_01);
        double dt = a * c00 + b * c01 + c * c02 + d * c03;
        double c11 = a * m23_23 - c * m23_03 + d * m23_02;
        double c12 = -(a * m23_13 - b * m23_03 + d * m23_01);
        double c13 = a * m23_12 - b * m23_02 + c * m23_01;
        double k22 = a * (e * j - gg * gg) - b * (b * j - gg * d) + d * (b * gg - e * d);
        double k23 = -(a * (e * i - gg * f) - b * (b * i - gg * c) + d * (b * f - e * c));
        double k33 = a * (e * h - f * f) - b * (b * h - f * c) + c * (b * f - e * c);
        if (fabs(dt) < GQ_EPSILON) return 1;
        double r = 1.0 / dt;
        m[0] = c00 * r;
        m[1] = m[4] = c01 * r;
        m[2] = m[8] = c02 * r;
        m[3] = m[12] = c03 * r;
        m[5] = c11 * r;
        m[6] = m[9] = c12 * r;
        m[7] = m[13] = c13 * r;
        m[10] = k22 * r;
        m[11] = m[14] = k23 * r;
        m[15] = k33 * r;
    }
    double sd[4];
#pragma unroll
    for (int k = 0; k < 4; k++) sd[k] = sqrt(m[k * 5]);
#pragma unroll
    for (int k = 1; k < 4; k++)
#pragma unroll
        for (int l = 0; l < k; l++)
            if (m[k * 4 + l] > 0.99999 * sd[k] * sd[l]) return 1;
    double min_sigma = m[5] > m[10] ? m[5] : m[10];
    if (m[15] > min_sigma) min_sigma = m[15];
    p.min_sigma = 1e-20 / min_sigma;
    return 0;
}

/* linear_coef(), row 3 only is not enough: the RSS needs all of c */
__device__ __forceinline__ void gq_coef(const double *m, const double xy[4], double c[4])
{
#pragma unroll
    for (int k = 0; k < 4; k++)
        c[k] = xy[0] * m[k * 4] + xy[1] * m[k * 4 + 1] + xy[2] * m[k * 4 + 2] + xy[3] * m[k * 4 + 3];
}

/* linear_rss() with its absolute-terms sum */
__device__ __forceinline__ double gq_rss(const double *g, const double c[4], const gq_dsums &d, double saby,
                                         double *tabs)
{
    double nd = g[0], sad = g[1], sbd = g[2], sabd = g[3], saa = g[5], saab = g[7], sbb = g[10], sabb = g[11],
           saabb = g[15];
    double a0 = fabs(c[0]), a1 = fabs(c[1]), a2 = fabs(c[2]), a3 = fabs(c[3]);
    *tabs = a0 * a0 * nd + a1 * a1 * saa + a2 * a2 * sbb + a3 * a3 * saabb + d.syy +
            2 * (a0 * (a1 * sad + a2 * sbd + a3 * sabd + d.sy) + a1 * (a2 * sabd + a3 * saab + d.say) +
                 a2 * (a3 * sabb + d.sby) + a3 * saby);
    return c[0] * c[0] * nd + c[1] * c[1] * saa + c[2] * c[2] * sbb + c[3] * c[3] * saabb + d.syy +
           2 * (c[0] * (c[1] * sad + c[2] * sbd + c[3] * sabd - d.sy) + c[1] * (c[2] * sabd + c[3] * saab - d.say) +
                c[2] * (c[3] * sabb - d.sby) - c[3] * saby);
}

/* linear_rounding() */
__device__ __forceinline__ double gq_rounding(const uint32_t *n, const double *m)
{
    double bound = 0;
#pragma unroll
    for (int a = 0; a < 3; a++)
#pragma unroll
        for (int b = 0; b < 3; b++) {
            double w = m[12] + m[13] * a + m[14] * b + m[15] * a * b;
            bound += (double)n[a * 3 + b] * fabs(w);
        }
    return bound;
}

/* es_stat_linear_bound(): 1 (certified) with *zsq >= the exact fit's z^2 for
 * every ABy sum in [d.saby, saby1] (bit for bit the CPU's); 2 where the CPU
 * would not certify the pair only because its fit might ask for the double
 * sums, with *zsq >= either fit's z^2 and neither failing (so such a pair
 * may be dropped too); and, where 1, *zlo <= it (the same margins,
 * taken the other way, at the end with the smaller |c3|: z^2 = (n - 4) S^2
 * / (Sxx Syy - S^2) grows with |S| = |c3| Sxx, and c3 keeps its sign on the
 * interval of a certified pair). */
__device__ __forceinline__ int gq_bound(const uint32_t *n, const gq_prep &p, const gq_dsums &d, double saby1,
                                        double *zsq, double *zlo)
{
    const double *m = p.m;
    if (!(m[15] > 0)) return 0;
    double dn = (double)(p.ct - 4), c3[2], sig[2], tabs[2];
    double xs[2] = {d.saby, saby1};
#pragma unroll
    for (int e = 0; e < 2; e++) {
        double xy[4] = {d.sy, d.say, d.sby, xs[e]}, c[4];
        gq_coef(m, xy, c);
        c3[e] = c[3];
        sig[e] = gq_rss(p.g, c, d, xs[e], &tabs[e]) / dn;
    }
    double cabs = fabs(m[12] * d.sy) + fabs(m[13] * d.say) + fabs(m[14] * d.sby) + fabs(m[15] * saby1);
    double slack = 1e-12 * cabs;
    double tmax = tabs[0] > tabs[1] ? tabs[0] : tabs[1];
    double sig_lo = (sig[0] < sig[1] ? sig[0] : sig[1]) - 1e-8 * tmax / dn;
    if (!(sig_lo >= p.min_sigma * (1 + 1e-12)) || !(sig_lo > 0)) return 0;
    double a0 = fabs(c3[0]), a1 = fabs(c3[1]);
    double cmin = (c3[0] > 0) == (c3[1] > 0) && c3[0] != 0 && c3[1] != 0 ? (a0 < a1 ? a0 : a1) - slack : 0;
    double cmax = (a0 > a1 ? a0 : a1) + slack;
    double rb = gq_rounding(n, m) * d.quantum;
    if (!(rb * (1 + 1e-12) < GQ_REL_TOL * cmin * (1 - 1e-12))) {
        /* Not the CPU's certificate: the host may score this pair on the
         * double sums of y (es_qt_dsums_exact) instead.  Both fits are then
         * bounded (GQ_RELAXED, doc/QT.md): y is within one quantum of q /
         * scale at every sample, so c3 moves by at most rb = quantum sum
         * n_c |w_c| and the residual norm sqrt(RSS) by at most quantum
         * sqrt(n) (a projection does not lengthen); the double sums add
         * n terms >= 0 each (relative error <= n eps), covered by the slack
         * below for c3 and by the 1e-8 T margin of sig_lo for RSS. */
        double sq = sqrt(sig_lo) - d.quantum * sqrt((double)p.ct / dn) * (1 + 1e-9);
        double s2 = (sq * sq - 2e-8 * tmax / dn) * (1 - 1e-9);
        if (!(sq > 0) || !(s2 > 0) || !(s2 >= p.min_sigma * (1 + 1e-9))) return 0;
        double cr = cmax + rb * (1 + 1e-9) + (1e-12 + 8e-16 * (double)p.ct) * 2 * cabs;
        *zsq = cr * cr / (m[15] * s2) * (1 + 1e-9);
        *zlo = 0; /* which fit the host runs is not known: no lower bound */
        return isfinite(*zsq) ? 2 : 0;
    }
    *zsq = cmax * cmax / (m[15] * sig_lo) * (1 + 1e-9);
    /* the lower bound: the end with the smaller |c3|, its sigma raised by the margin */
    double sig_at = (a0 < a1 ? sig[0] : sig[1]) + 1e-8 * tmax / dn;
    double lo = cmin > 0 ? cmin * cmin / (m[15] * sig_at) * (1 - 1e-9) : 0;
    *zlo = isfinite(lo) && lo > 0 ? lo : 0;
    return isfinite(*zsq);
}

#endif
