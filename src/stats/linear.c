/* linear.c -- the interaction tests of a quantitative trait from a pair's
 * 3x3 table and its phenotype sums (count.h's es_qt_sums_t).
 *
 * linear: PLINK 1.9's `--epistasis` for a quantitative trait, step for step
 * (plink_ld.c, epi_linear_thread): Y = b0 + b1 A + b2 B + b3 AB by least
 * squares over the samples called at both variants (A, B copies of A1), the
 * normal equations built from the table and the sums, the same failure rules
 * (n <= 4, a zero genotype variance, a genotype correlation above 0.999, the
 * VIF check at 50, a singular 4x4 system, a near-perfect correlation of two
 * estimates, a residual variance below 1e-20 over the largest diagonal),
 * STAT = (b3 / se)^2 with se^2 = sigma^2 [(X'X)^-1]_33, sigma^2 = RSS / (n - 4),
 * and P from the chi-square with 1 df, as PLINK prints it.
 *
 * linear4: the 4-df genotypic interaction F test: Y on the 9 cell means
 * against Y on A and B as factors (1 + 2 + 2 parameters), df1 = non-empty
 * cells - (1 + (levels of A - 1) + (levels of B - 1)), df2 = n - non-empty
 * cells, F = ((RSS_add - RSS_cells) / df1) / (RSS_cells / df2).
 *
 * Both work on the phenotype minus its smallest value (the sums' units): an
 * intercept absorbs the shift, so b3, its se and both tests are unchanged. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "regress.h"
#include "stats.h"
#include "stats_internal.h"

/* PLINK 1.9's constants (plink_common.h): EPSILON = 2^-30 */
#define PLINK_EPSILON 0.000000000931322574615478515625
#define PLINK_VIF 50.0

void es_qt_dsums(const es_qt_sums_t *s, const es_qt_y_t *y, es_qt_dsums_t *d)
{
    double u = 1.0 / y->scale, u2 = 1.0 / y->scale2;
    d->sy = (double)s->sy * u;
    d->syy = (double)s->syy * u2;
    d->say = (double)(s->ra[0] + 2 * s->ra[1]) * u;
    d->sby = (double)(s->cb[0] + 2 * s->cb[1]) * u;
    d->saby = (double)s->saby * u;
    for (int k = 0; k < 2; k++) {
        d->ra[k] = (double)s->ra[k] * u;
        d->cb[k] = (double)s->cb[k] * u;
    }
    for (int k = 0; k < 4; k++) d->cell[k] = (double)s->cell[k] * u;
    d->quantum = 0.5 * u;
}

/* Inverse of a symmetric 4x4 matrix (row-major, in place) by the adjugate;
 * 1 when |det| < PLINK's EPSILON (the system is treated as singular). */
static int invert4(double *m)
{
    double a = m[0], b = m[1], c = m[2], d = m[3], e = m[5], f = m[6], g = m[7], h = m[10], i = m[11], j = m[15];
    ES_INVERT4_COFACTORS(double, a, b, c, d, e, f, g, h, i, j);
    if (fabs(det) < PLINK_EPSILON) return 1;
    double r = 1.0 / det;
    ES_INVERT4_STORE(m, r);
    return 0;
}

static void fail(es_stat_result_t *r, double *beta)
{
    r->stat = 0;
    r->p = 1;
    r->log10p = 0;
    r->df = 0; /* a failed test (the writers' NA) */
    *beta = NAN;
}

int es_stat_linear_prep(const es_table2_t *t, es_linear_prep_t *p)
{
    uint64_t ts[9];
    es_linear_table_sums(t->n[0], ts);
    uint64_t ct = ts[0], sa = ts[1], saa = ts[2], sb = ts[3], sbb = ts[4], sab = ts[5], saab = ts[6], sabb = ts[7],
             saabb = ts[8];
    p->ct = ct;
    if (ct <= 4) return 1;
    /* the VIF check of PLINK (glm_check_vif with 4 parameters) */
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
    if (fabs(det) < PLINK_EPSILON) return 1;
    double lim = 1 - PLINK_VIF * det;
    if ((det > 0 && (lim > q12 || lim > q13 || lim > q23)) || (det < 0 && (lim < q12 || lim < q13 || lim < q23)))
        return 1;
    double *m = p->m;
    double g[16] = {nd, sad, sbd, sabd, sad, (double)saa, sabd, (double)saab,
                    sbd, sabd, (double)sbb, (double)sabb, sabd, (double)saab, (double)sabb, (double)saabb};
    memcpy(p->g, g, sizeof g);
    memcpy(m, g, sizeof g);
    if (invert4(m)) return 1;
    double sd[4];
    for (int k = 0; k < 4; k++) sd[k] = sqrt(m[k * 5]);
    for (int k = 1; k < 4; k++)
        for (int l = 0; l < k; l++)
            if (m[k * 4 + l] > 0.99999 * sd[k] * sd[l]) return 1;
    double min_sigma = m[5] > m[10] ? m[5] : m[10];
    if (m[15] > min_sigma) min_sigma = m[15];
    p->min_sigma = 1e-20 / min_sigma;
    return 0;
}

/* c = (X'X)^-1 X'y */
static inline void linear_coef(const double *m, const double xy[4], double c[4])
{
    for (int k = 0; k < 4; k++) c[k] = xy[0] * m[k * 4] + xy[1] * m[k * 4 + 1] + xy[2] * m[k * 4 + 2] + xy[3] * m[k * 4 + 3];
}

/* PLINK's expansion of the residual sum of squares at coefficients c
 * (g = X'X), and in *tabs the same sum with every term taken positive (the
 * scale of its rounding error; the sums of y are >= 0) */
static inline double linear_rss(const double *g, const double c[4], const es_qt_dsums_t *d, double saby,
                                double *tabs)
{
    double nd = g[0], sad = g[1], sbd = g[2], sabd = g[3], saa = g[5], saab = g[7], sbb = g[10], sabb = g[11],
           saabb = g[15];
    if (tabs) {
        double a0 = fabs(c[0]), a1 = fabs(c[1]), a2 = fabs(c[2]), a3 = fabs(c[3]);
        *tabs = a0 * a0 * nd + a1 * a1 * saa + a2 * a2 * sbb + a3 * a3 * saabb + d->syy +
                2 * (a0 * (a1 * sad + a2 * sbd + a3 * sabd + d->sy) + a1 * (a2 * sabd + a3 * saab + d->say) +
                     a2 * (a3 * sabb + d->sby) + a3 * saby);
    }
    return c[0] * c[0] * nd + c[1] * c[1] * saa + c[2] * c[2] * sbb + c[3] * c[3] * saabb + d->syy +
           2 * (c[0] * (c[1] * sad + c[2] * sbd + c[3] * sabd - d->sy) + c[1] * (c[2] * sabd + c[3] * saab - d->say) +
                c[2] * (c[3] * sabb - d->sby) - c[3] * saby);
}

/* What rounding each phenotype value by at most one quantum can move b3,
 * in quanta: b3 = sum_i w_i y_i with w_i = row 3 of (X'X)^-1 X', constant
 * per cell */
static inline double linear_rounding(const es_table2_t *t, const double *m)
{
    const uint32_t *n = t->n[0];
    double bound = 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double w = m[12] + m[13] * a + m[14] * b + m[15] * a * b;
            bound += (double)n[a * 3 + b] * fabs(w);
        }
    return bound;
}

int es_stat_linear_fit(const es_table2_t *t, const es_linear_prep_t *p, const es_qt_dsums_t *d, es_stat_result_t *r,
                       double *beta)
{
    const double *m = p->m;
    double xy[4] = {d->sy, d->say, d->sby, d->saby}, c[4];
    linear_coef(m, xy, c);
    double sigma = linear_rss(p->g, c, d, d->saby, NULL);
    sigma /= (double)(p->ct - 4);
    if (sigma < p->min_sigma) {
        fail(r, beta);
        return 0;
    }
    double zsq = c[3] * c[3] / (m[15] * sigma);
    *beta = c[3];
    r->stat = zsq;
    r->df = 1;
    r->p = NAN; /* es_stat_linear_p(), for the pairs that need it */
    r->log10p = NAN;
    double bound = linear_rounding(t, m) * d->quantum;
    return bound > ES_QT_REL_TOL * fabs(c[3]);
}

/* Why the bound is sound.  With the table's rules passed (prep), the fit
 * of sums d whose ABy sum x is only known to lie in [x0, x1] (its lower
 * byte slices not summed) computes, as es_stat_linear_fit() does,
 *     c(x) = m xy(x),   RSS(x) = PLINK's expansion at c(x),
 *     z2(x) = c3(x)^2 / (m33 RSS(x) / (n - 4)).
 * In real arithmetic c is linear in x, so c3(x)^2 is convex and its largest
 * value on [x0, x1] is at an end; and RSS(x) = Syy - S(x)^2 / Sxx (S the
 * residual cross product of AB and y given 1, A, B; c3 = S / Sxx), a
 * concave quadratic, so its smallest value on [x0, x1] is at an end.  Hence
 *     z2(x) <= max_end c3^2 / (m33 min_end RSS / (n - 4))
 * and both extremes are at the same end (the one with the larger |S|):
 * this is the larger of z2 at the two ends, and z2 = (n - 4) S^2 / (Sxx Syy
 * - S^2) is increasing in |S|.  (With m the computed inverse rather than
 * the exact one, RSS(x) is the quadratic xy' m G m xy - 2 xy' m xy + syy,
 * whose x^2 coefficient (mGm)_33 - 2 m_33 is -m_33 up to the inverse's
 * relative error, which the table's rules keep far below 1: still concave.)
 *
 * Rounding, and why the margins suffice.  The double the fit is given for
 * x lies in [fl(x0), fl(x1)] (rounding is monotone; the scale is a power
 * of two), so only the arithmetic after it differs from the ends':
 * - c3 is four products and three sums, off by at most 4 eps sum_k
 *   |m_3k xy_k| (eps = 2^-53) at x and at either end; 1e-12 of that sum is
 *   added to the largest |c3| (and taken from the smallest).
 * - RSS is 24 operations on terms whose absolute values sum to T (tabs),
 *   off by at most about 24 eps T; c, being off by O(eps) relative to its
 *   terms, moves it by as much again to first order.  1e-8 T (n - 4)^-1 is
 *   taken from the smallest sigma: over 10^6 times that error.
 * - z2 itself is two more roundings; the bound is then inflated by 1e-9
 *   relative, and an exact z2 of 0 needs no absolute slack (c3's slack
 *   above makes the bound positive whenever c3 can be non-zero).
 * The same margins certify the two other things a dropped pair must not
 * hide: sigma >= min_sigma (PLINK's residual-variance rule: else the pair
 * fails, and a failed pair leaves N_TOT), and no request for the exact
 * sums (the rounding bound below ES_QT_REL_TOL |c3| for every c3 in the
 * interval, which needs c3 of one sign on it).  0 when either cannot be
 * certified: the caller then sums every slice and fits. */
int es_stat_linear_bound(const es_table2_t *t, const es_linear_prep_t *p, const es_qt_dsums_t *d, double saby1,
                         double *zsq)
{
    const double *m = p->m;
    if (!(m[15] > 0)) return 0;
    double dn = (double)(p->ct - 4), c3[2], sig[2], tabs[2];
    double xs[2] = {d->saby, saby1};
    for (int e = 0; e < 2; e++) {
        double xy[4] = {d->sy, d->say, d->sby, xs[e]}, c[4];
        linear_coef(m, xy, c);
        c3[e] = c[3];
        sig[e] = linear_rss(p->g, c, d, xs[e], &tabs[e]) / dn;
    }
    double cabs = fabs(m[12] * d->sy) + fabs(m[13] * d->say) + fabs(m[14] * d->sby) + fabs(m[15] * saby1);
    double slack = 1e-12 * cabs;
    double tmax = tabs[0] > tabs[1] ? tabs[0] : tabs[1];
    double sig_lo = (sig[0] < sig[1] ? sig[0] : sig[1]) - 1e-8 * tmax / dn;
    if (!(sig_lo >= p->min_sigma * (1 + 1e-12)) || !(sig_lo > 0)) return 0;
    double a0 = fabs(c3[0]), a1 = fabs(c3[1]);
    double cmin = (c3[0] > 0) == (c3[1] > 0) && c3[0] != 0 && c3[1] != 0 ? (a0 < a1 ? a0 : a1) - slack : 0;
    if (!(linear_rounding(t, m) * d->quantum * (1 + 1e-12) < ES_QT_REL_TOL * cmin * (1 - 1e-12))) return 0;
    double cmax = (a0 > a1 ? a0 : a1) + slack;
    *zsq = cmax * cmax / (m[15] * sig_lo) * (1 + 1e-9);
    return isfinite(*zsq);
}

int es_stat_linear(const es_table2_t *t, const es_qt_dsums_t *d, es_stat_result_t *r, double *beta)
{
    es_linear_prep_t p;
    if (es_stat_linear_prep(t, &p)) {
        fail(r, beta);
        return 0;
    }
    return es_stat_linear_fit(t, &p, d, r, beta);
}

void es_stat_linear_p(es_stat_result_t *r)
{
    r->p = es_chi2_sf(r->stat, 1);
    r->log10p = es_chi2_log10sf(r->stat, 1);
}

/* ---- the F distribution's upper tail ------------------------------------- */

double es_f_sf(double f, double d1, double d2, double *log10p)
{
    if (!(f > 0)) {
        if (log10p) *log10p = 0;
        return 1;
    }
    /* P(F > f) = I_x(d2/2, d1/2) at x = d2 / (d2 + d1 f), 1 - x formed without cancellation */
    double ln = es_reg_log_ibeta(d2 / 2, d1 / 2, d2 / (d2 + d1 * f), d1 * f / (d2 + d1 * f));
    if (log10p) *log10p = -ln / M_LN10;
    return exp(ln);
}

/* ---- linear4 ---------------------------------------------------------------- */

/* Solve the k x k symmetric positive definite system a x = b (Cholesky, in
 * place); 1 when it is not positive definite. */
static int chol_solve(double *a, double *b, int k)
{
    for (int j = 0; j < k; j++) {
        double s = a[j * k + j];
        for (int l = 0; l < j; l++) s -= a[j * k + l] * a[j * k + l];
        if (!(s > 1e-9 * (a[j * k + j] > 1 ? a[j * k + j] : 1))) return 1;
        a[j * k + j] = sqrt(s);
        for (int i = j + 1; i < k; i++) {
            double u = a[i * k + j];
            for (int l = 0; l < j; l++) u -= a[i * k + l] * a[j * k + l];
            a[i * k + j] = u / a[j * k + j];
        }
    }
    for (int i = 0; i < k; i++) {
        double u = b[i];
        for (int l = 0; l < i; l++) u -= a[i * k + l] * b[l];
        b[i] = u / a[i * k + i];
    }
    for (int i = k - 1; i >= 0; i--) {
        double u = b[i];
        for (int l = i + 1; l < k; l++) u -= a[l * k + i] * b[l];
        b[i] = u / a[i * k + i];
    }
    return 0;
}

void es_stat_linear4(const es_table2_t *t, const es_qt_dsums_t *d, es_stat_result_t *r)
{
    const uint32_t *n = t->n[0];
    /* the nine cell sums from the interior four and the margins */
    double s[9], ct = 0;
    s[4] = d->cell[0];
    s[5] = d->cell[1];
    s[7] = d->cell[2];
    s[8] = d->cell[3];
    s[3] = d->ra[0] - s[4] - s[5];
    s[6] = d->ra[1] - s[7] - s[8];
    s[1] = d->cb[0] - s[4] - s[7];
    s[2] = d->cb[1] - s[5] - s[8];
    s[0] = d->sy - (s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7] + s[8]);
    int cells = 0;
    double fit_cells = 0;
    uint64_t na[3] = {0}, nb[3] = {0};
    for (int c = 0; c < 9; c++) {
        ct += n[c];
        na[c / 3] += n[c];
        nb[c % 3] += n[c];
        if (n[c]) {
            cells++;
            fit_cells += s[c] * s[c] / n[c];
        }
    }
    r->stat = 0;
    r->p = 1;
    r->log10p = 0;
    r->df = 0;
    /* the additive-factor model: 1, [A=l], [B=l] for the non-empty levels
     * after the first non-empty one of each */
    int cols[5], k = 0, lvl_a = 0, lvl_b = 0;
    cols[k++] = 0;
    for (int l = 0; l < 3; l++)
        if (na[l] && lvl_a++) cols[k++] = 1 + l;
    for (int l = 0; l < 3; l++)
        if (nb[l] && lvl_b++) cols[k++] = 4 + l;
    int df1 = cells - k, df2 = (int)ct - cells;
    r->df = df1 > 0 ? df1 : 0;
    if (df1 <= 0 || df2 <= 0) return;
    /* X'X and X'y over the cells: column 0 is 1, 1 + l is [A=l], 4 + l is [B=l] */
    double xtx[25], xty[5];
    for (int i = 0; i < k; i++) {
        xty[i] = 0;
        for (int j = 0; j < k; j++) xtx[i * k + j] = 0;
    }
    for (int c = 0; c < 9; c++) {
        if (!n[c]) continue;
        double x[5];
        for (int i = 0; i < k; i++) {
            int col = cols[i];
            x[i] = col == 0 ? 1 : col < 4 ? (c / 3 == col - 1) : (c % 3 == col - 4);
        }
        for (int i = 0; i < k; i++) {
            xty[i] += x[i] * s[c];
            for (int j = 0; j < k; j++) xtx[i * k + j] += x[i] * x[j] * n[c];
        }
    }
    double bcoef[5];
    memcpy(bcoef, xty, sizeof bcoef);
    if (chol_solve(xtx, bcoef, k)) return;
    double fit_add = 0;
    for (int i = 0; i < k; i++) fit_add += bcoef[i] * xty[i];
    /* RSS = syy - fit; the difference of the two fits needs no syy */
    double rss_cells = d->syy - fit_cells;
    double num = (fit_cells - fit_add) / df1;
    if (!(rss_cells > 1e-20 * (d->syy > 0 ? d->syy : 1)) || num < 0) {
        if (num < 0) num = 0;
        if (!(rss_cells > 0)) return;
    }
    double f = num / (rss_cells / df2);
    r->stat = f;
    r->p = es_f_sf(f, df1, df2, &r->log10p);
}

/* ---- logistic: PLINK 1.9 --epistasis for case/control ----------------------------
 * logit P(case) = b0 + b1 A + b2 B + b3 AB by maximum likelihood.  The design
 * takes one value per genotype cell, so the likelihood is that of the nine
 * cells' case and control counts: Newton's method on them (4 parameters,
 * nine cells an iteration) gives the same estimate as a fit over the samples.
 * PLINK fits in single precision and stops at a summed step below 1e-4;
 * this fit follows its stopping and failure rules in double, then polishes
 * the estimate to a step below 1e-12.
 * Failure rules as PLINK's: n <= 4, an empty 2x2 square of genotype cells
 * around an empty (1,1) cell, a singular information matrix, a variance below
 * 1e-20, two estimates correlated above 0.99999. */

/* Solve the symmetric positive definite 4x4 system h x = g in place (x in g)
 * and leave h's inverse in inv (NULL: not needed).  1 when h is not
 * positive definite. */
static int spd4_solve(const double h[16], double g[4], double inv[16])
{
    double l[16] = {0};
    for (int j = 0; j < 4; j++) {
        double s = h[j * 4 + j];
        for (int k = 0; k < j; k++) s -= l[j * 4 + k] * l[j * 4 + k];
        if (!(s > 0)) return 1;
        l[j * 4 + j] = sqrt(s);
        for (int i = j + 1; i < 4; i++) {
            double u = h[i * 4 + j];
            for (int k = 0; k < j; k++) u -= l[i * 4 + k] * l[j * 4 + k];
            l[i * 4 + j] = u / l[j * 4 + j];
        }
    }
    for (int c = -1; c < (inv ? 4 : 0); c++) {
        double x[4];
        for (int i = 0; i < 4; i++) x[i] = c < 0 ? g[i] : (double)(i == c);
        for (int i = 0; i < 4; i++) {
            for (int k = 0; k < i; k++) x[i] -= l[i * 4 + k] * x[k];
            x[i] /= l[i * 4 + i];
        }
        for (int i = 3; i >= 0; i--) {
            for (int k = i + 1; k < 4; k++) x[i] -= l[k * 4 + i] * x[k];
            x[i] /= l[i * 4 + i];
        }
        for (int i = 0; i < 4; i++) {
            if (c < 0) g[i] = x[i];
            else inv[i * 4 + c] = x[i];
        }
    }
    return 0;
}

/* the information matrix and the score at b over the nine cells */
static void logit_step(const es_table2_t *t, const double b[4], double h[16], double g[4])
{
    memset(h, 0, 16 * sizeof *h);
    memset(g, 0, 4 * sizeof *g);
    for (int c = 0; c < 9; c++) {
        double n1 = t->n[1][c], n = t->n[0][c] + n1;
        if (n == 0) continue;
        int a = c / 3, bb = c % 3;
        double x[4] = {1, a, bb, a * bb};
        double eta = b[0] + b[1] * x[1] + b[2] * x[2] + b[3] * x[3];
        double p = 1 / (1 + exp(-eta)), w = n * p * (1 - p), res = n1 - n * p;
        for (int i = 0; i < 4; i++) {
            g[i] += res * x[i];
            for (int j = 0; j < 4; j++) h[i * 4 + j] += w * x[i] * x[j];
        }
    }
}

void es_stat_logistic(const es_table2_t *t, es_stat_result_t *r, double *beta)
{
    r->stat = 0;
    r->df = 0;
    r->p = NAN;
    r->log10p = NAN;
    *beta = NAN;
    uint64_t n = 0;
    int present[9];
    for (int c = 0; c < 9; c++) {
        present[c] = t->n[0][c] + t->n[1][c] > 0;
        n += t->n[0][c] + t->n[1][c];
    }
    if (n <= 4) return;
    /* PLINK: not of full rank when the (1,1) cell is empty and so is one of
     * the 2x2 squares of cells around it */
    if (!present[4] && ((!present[0] && !present[1] && !present[3]) || (!present[1] && !present[2] && !present[5]) ||
                        (!present[3] && !present[6] && !present[7]) || (!present[5] && !present[7] && !present[8])))
        return;
    /* PLINK's stopping and failure rules (plink_glm.c, logistic_regression),
     * on the summed absolute step: after 4 iterations a step above 20 and
     * twice the smallest so far, or from the 8th one within 1e-3 of 1,
     * fails; the 15th iteration ends the fit (failed if a coefficient is
     * above 8e3); a step below 1e-4 ends it (failed above 6e4), and then
     * Newton goes on in double to a step below 1e-12 */
    double b[4] = {0, 0, 0, 0}, h[16], g[4], inv[16], min_step = 1e9;
    for (int it = 1;; it++) {
        logit_step(t, b, h, g);
        if (spd4_solve(h, g, NULL)) return;
        double step = 0, big = 0;
        for (int i = 0; i < 4; i++) {
            b[i] += g[i];
            step += fabs(g[i]);
            if (fabs(b[i]) > big) big = fabs(b[i]);
        }
        if (step != step) return;
        if (step < min_step) min_step = step;
        if (it > 4) {
            if ((step > 20 && step > 2 * min_step) || (it >= 8 && fabs(1 - step) < 1e-3)) return;
            if (it >= 15) {
                if (big > 8e3) return;
                break;
            }
        }
        if (step < 1e-4) {
            if (big > 6e4) return;
            for (int k = 0; k < 20 && step >= 1e-12; k++) { /* polish */
                double b2[4], h2[16];
                memcpy(b2, b, sizeof b2);
                logit_step(t, b2, h2, g);
                if (spd4_solve(h2, g, NULL)) break;
                step = 0;
                for (int i = 0; i < 4; i++) {
                    b2[i] += g[i];
                    step += fabs(g[i]);
                }
                if (!isfinite(step)) break;
                memcpy(b, b2, sizeof b2);
                memcpy(h, h2, sizeof h2);
            }
            break;
        }
    }
    /* the variances from the information matrix of the last step, taken at
     * the estimate before it (as PLINK takes them; the same at convergence,
     * not where the cells separate the classes and the fit stopped at 15) */
    if (spd4_solve(h, g, inv)) return;
    double sd[4];
    for (int i = 0; i < 4; i++) {
        if (!(inv[i * 5] >= 1e-20) || !isfinite(inv[i * 5])) return;
        sd[i] = sqrt(inv[i * 5]);
    }
    for (int i = 1; i < 4; i++)
        for (int j = 0; j < i; j++)
            if (inv[i * 4 + j] > 0.99999 * sd[i] * sd[j]) return;
    r->stat = b[3] * b[3] / inv[15];
    r->df = 1;
    *beta = b[3];
}
