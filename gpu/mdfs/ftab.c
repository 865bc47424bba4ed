/* ftab.c -- the tensor-core MDFS screen's Hc sums in float (mdfs_gpu.h,
 * es_gkm_ftab_*): the shifted float tables, the proven bound of their sums'
 * error (doc/MDFS.md, "The float screen's margin") and the CPU twin of the
 * device's arithmetic, which tests/test_mdfs_fsum.c checks against the double
 * tables.  Plain C, built with and without CUDA. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "epistream.h"
#include "mdfs_gpu.h"

/* x - L q into a float of t, its error (the double subtraction's rounding
 * and the float's) into *e, |float| into *mx, both maxima */
static void ftab_fill(float *t, const double *src, uint32_t n, double L, double *e, double *mx, double *gabs)
{
    for (uint32_t q = 0; q <= n; q++) {
        /* L q is exact (L has at most 13 significant bits, q < 2^32) */
        const double xd = src[q] - L * (double)q;
        const float f = (float)xd;
        /* f - xd is exact in double; xd is within 2^-53 |xd| of the real x - L q */
        const double err = fabs((double)f - xd) + ldexp(fabs(xd), -52);
        t[q] = f;
        if (err > *e) *e = err;
        if (fabs((double)f) > *mx) *mx = fabs((double)f);
        if (fabs(src[q]) > *gabs) *gabs = fabs(src[q]);
    }
}

int es_gkm_ftab_build(const es_gkm_config_t *cfg, es_gkm_ftab_t *ft)
{
    memset(ft, 0, sizeof *ft);
    const uint32_t n0 = cfg->cls[0], n1 = cfg->cls[1], n = n0 + n1;
    ft->n = n;
    ft->o0 = n + 1;
    ft->o1 = ft->o0 + n0 + 1;
    ft->len = ft->o1 + n1 + 1;
    ft->t = malloc(sizeof(float) * ft->len);
    if (!ft->t) return ES_ERR_NOMEM;
    ft->xi = cfg->pseudo[0] + cfg->pseudo[1];
    /* L near log2 of the largest cell: c log2 c - L c lies in about
     * [-2^L / (e ln 2), c (log2 c - L)], within 0.53 n of 0 */
    ft->L = ldexp(nearbyint(ldexp(log2((double)n + ft->xi), 8)), -8);
    double eg = 0.0, e0 = 0.0, e1 = 0.0, mg = 0.0, m0 = 0.0, m1 = 0.0;
    ftab_fill(ft->t, cfg->G[0], n, ft->L, &eg, &mg, &ft->gabs);
    ftab_fill(ft->t + ft->o0, cfg->F[0][0], n0, ft->L, &e0, &m0, &ft->gabs);
    ftab_fill(ft->t + ft->o1, cfg->F[0][1], n1, ft->L, &e1, &m1, &ft->gabs);
    ft->e = eg + e0 + e1;
    ft->A = m0 + m1;
    return ES_OK;
}

double es_gkm_ftab_bound(const es_gkm_ftab_t *ft, uint32_t n_cells)
{
    const double u = ldexp(1.0, -24), N = (double)n_cells, n = (double)ft->n;
    /* the double tables' terms are within eps_tab of the exact
     * S H2(c0 / S) in [0, S], S = c0 + c1 + xi (log2 and the products within
     * a few ulps: 2^-48 of the largest entry and of n is ample) */
    const double eps_tab = ldexp(ft->gabs + n, -48);
    const double smax = n + ft->xi;
    /* one term: the entries' errors, the rounding of f0 + f1 (at most A) and
     * of g - (f0 + f1) (at most the term, S + eps_tab, plus those errors) */
    const double a = (1.0 + u) * ft->A;
    const double delta = ft->e + u * a + u * (smax + eps_tab + ft->e + u * a);
    /* the sum: a term passes through at most N - 1 adds of any order, each
     * within u of its result: gamma_{N-1} of the sum of |terms| */
    const double gam = N > 1.0 ? (N - 1.0) * u / (1.0 - (N - 1.0) * u) : 0.0;
    const double sum_abs = n + N * ft->xi + N * (eps_tab + delta);
    const double b = N * delta + gam * sum_abs;
    /* this bound's own double arithmetic rounded: a relative 2^-40 up */
    return b * (1.0 + ldexp(1.0, -40));
}

float es_gkm_ftab_hc(const es_gkm_ftab_t *ft, const uint32_t *cnt, uint32_t np, uint32_t m)
{
    const float *g = ft->t, *f0 = ft->t + ft->o0, *f1 = ft->t + ft->o1;
    float acc[16] = {0.0f};
    /* a partial sum a last bin, over the prefix cells in order, then the
     * partial sums in order: screen_mma.cu's epilogue */
    for (uint32_t i = 0; i < np; i++)
        for (uint32_t j = 0; j < m; j++) {
            const uint32_t a0 = cnt[(i * m + j) * 2], a1 = cnt[(i * m + j) * 2 + 1];
            const float s = f0[a0] + f1[a1];
            acc[j] += g[a0 + a1] - s;
        }
    float h = acc[0];
    for (uint32_t j = 1; j < m; j++) h += acc[j];
    return h;
}

void es_gkm_ftab_free(es_gkm_ftab_t *ft)
{
    free(ft->t);
    memset(ft, 0, sizeof *ft);
}
