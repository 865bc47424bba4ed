/* pvalue.c -- MDFS's p-values: the chi-square p-values of the maximum IGs
 * refitted against the contrast variables' (the package's fit_p_value, a
 * weighted least-squares fit of the sorted contrast p-values, linear or
 * exponential, with a search for how many of the lowest to ignore), and
 * statsmodels' Holm and Benjamini-Hochberg adjustments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mdfs.h"

/* calcS of fit_p_value.cpp for ignoring the first ix sorted values: S[i] the
 * fit's score with i + 1 values, alpha[i] its parameter. */
static void calc_s(int ix, int n, int exp_fit, const double *K, const double *L, const double *Sw,
                   const double *Sv, const double *Swv, const double *Swv2, const double *Swl,
                   const double *Swl2, const double *Swlv, const double *Srt, double *S,
                   double *alpha)
{
    int npt = n - ix;
#define SUB(A, i) (A[ix + (i)] - (ix ? A[ix - 1] : 0))
    for (int i = 0; i < npt; i++) {
        double k = K[i], l = L[i];
        double sw = SUB(Sw, i), sv = SUB(Sv, i), swv = SUB(Swv, i), swv2 = SUB(Swv2, i);
        double swl = SUB(Swl, i), swl2 = SUB(Swl2, i), swlv = SUB(Swlv, i);
        double a;
        if (exp_fit) {
            a = sv / k;
            S[i] = swv2 + 2.0 * a * swlv - 2.0 * a * l * swv + a * a * swl2 - 2.0 * a * a * l * swl +
                   (a * l) * (a * l) * sw;
        } else {
            a = (swv - swlv / l) / (sw - 2.0 * swl / l + swl2 / (l * l));
            S[i] = swv2 - 2.0 * a * swv + 2.0 * a / l * swlv + a * a * sw -
                   2.0 * a * a / l * swl + a * a / (l * l) * swl2;
        }
        alpha[i] = a;
    }
    double swlast = SUB(Sw, npt - 1);
#undef SUB
    for (int i = npt - 1; i > 0; i--) S[i] = (S[i - 1] + Srt[ix + i]) / swlast;
    S[0] = Srt[ix] / swlast;
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

int es_mdfs_fit_p(const double *chisq, uint32_t n_vars, const double *chisq_c, uint32_t nc_u,
                  int exp_fit, double *p, double *alpha_out, const char **why)
{
    const int nc = (int)nc_u;
    *why = NULL;
    if (n_vars < 4) {
        *why = "IG needs at least 4 values";
        return ES_ERR_DATA;
    }
    int min_irr = nc / 3 < 30 ? nc / 3 : 30;
    int max_ign = nc - min_irr < nc / 3 ? nc - min_irr : nc / 3;
    if (min_irr + max_ign > nc || nc < 1) {
        *why = "too few contrast variables";
        return ES_ERR_DATA;
    }
    int ret = ES_OK;
    double *buf = malloc(sizeof(double) * 20 * (size_t)(nc + 1));
    if (!buf) return ES_ERR_NOMEM;
    double *K = buf, *V = K + nc, *L = V + nc, *W = L + nc, *rt = W + nc, *sw = rt + nc,
           *sv = sw + nc, *swv = sv + nc, *swv2 = swv + nc, *swl = swv2 + nc, *swl2 = swl + nc,
           *swlv = swl2 + nc, *srt = swlv + nc, *S = srt + nc, *A = S + nc;
    memcpy(V, chisq_c, sizeof(double) * nc);
    qsort(V, (size_t)nc, sizeof(double), cmp_desc);
    double acc[8] = {0};
    for (int i = 0; i < nc; i++) {
        K[i] = i + 1.0;
        L[i] = exp_fit ? log(K[i]) : K[i];
        W[i] = exp_fit ? K[i] / (nc - K[i] + 1) : 1.0 / K[i] / (nc - K[i] + 1);
        rt[nc - 1 - i] = W[i] * V[i] * V[i];
    }
    /* std::partial_sum in order */
    for (int i = 0; i < nc; i++) {
        acc[0] += W[i], sw[i] = acc[0];
        acc[1] += V[i], sv[i] = acc[1];
        acc[2] += W[i] * V[i], swv[i] = acc[2];
        acc[3] += W[i] * V[i] * V[i], swv2[i] = acc[3];
        acc[4] += W[i] * L[i], swl[i] = acc[4];
        acc[5] += W[i] * L[i] * L[i], swl2[i] = acc[5];
        acc[6] += W[i] * L[i] * V[i], swlv[i] = acc[6];
        acc[7] += rt[i], srt[i] = acc[7];
    }
    /* srt reversed */
    for (int i = 0, j = nc - 1; i < j; i++, j--) {
        double t = srt[i];
        srt[i] = srt[j], srt[j] = t;
    }
    int n0_min = 0, n0_max = max_ign - 1, n0 = -1, nv = -1, step;
    double smin = INFINITY, alpha = 0.0;
    do {
        step = (int)round((n0_max - n0_min) / 8.0);
        if (step < 1) step = 1;
        for (int n0_i = n0_min; n0_i < n0_max; n0_i += step) {
            calc_s(n0_i, nc, exp_fit, K, L, sw, sv, swv, swv2, swl, swl2, swlv, srt, S, A);
            int nv_i = nc - n0_i - 1;
            if (S[nv_i] < smin) {
                n0 = n0_i, nv = nv_i, smin = S[nv_i], alpha = A[nv];
            }
        }
        if (n0 > -1) {
            n0_min = n0 - step > 1 ? n0 - step : 1;
            n0_max = n0 + step < max_ign ? n0 + step : max_ign;
        }
    } while (step > 1);
    int ign = n0 - 1 < max_ign ? n0 - 1 : max_ign;
    int irr = min_irr > nv ? min_irr : nv;
    if (ign >= max_ign) {
        *why = "Border value reached for ignored variable number";
        ret = ES_ERR_DATA;
    } else if (irr <= min_irr) {
        *why = "Border value reached for irrelevant variable number";
        ret = ES_ERR_DATA;
    } else {
        for (uint32_t i = 0; i < n_vars; i++)
            p[i] = (exp_fit ? -expm1(log(1.0 - chisq[i]) / alpha) : chisq[i] / alpha) + 0.0; /* no -0 */
        *alpha_out = alpha;
    }
    free(buf);
    return ret;
}

/* p-value order: ascending, ties by index (any order gives the same values). */
typedef struct {
    double p;
    uint32_t i;
} pi_t;

static int cmp_pi(const void *a, const void *b)
{
    const pi_t *x = a, *y = b;
    if (x->p != y->p) return x->p < y->p ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

int es_mdfs_adjust(const double *p, uint32_t n, es_mdfs_adjust_t m, double level, double *adj,
                   int *reject)
{
    pi_t *s = malloc(sizeof *s * (n + 1));
    if (!s) return ES_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++) s[i].p = p[i], s[i].i = i;
    qsort(s, n, sizeof *s, cmp_pi);
    if (m == ES_MDFS_HOLM) {
        double run = 0.0;
        int stop = 0;
        for (uint32_t i = 0; i < n; i++) {
            double v = s[i].p * (double)(n - i);
            run = v > run ? v : run;
            adj[s[i].i] = run > 1.0 ? 1.0 : run;
            /* statsmodels: not rejected from the first p > level / (n - i) on */
            if (s[i].p > level / (double)(n - i)) stop = 1;
            reject[s[i].i] = !stop;
        }
    } else {
        double run = INFINITY;
        int64_t last = -1;
        for (uint32_t i = 0; i < n; i++)
            if (s[i].p <= (double)(i + 1) / n * level) last = i;
        for (uint32_t k = n; k-- > 0;) {
            double v = s[k].p / ((double)(k + 1) / n);
            run = v < run ? v : run;
            adj[s[k].i] = run > 1.0 ? 1.0 : run;
            reject[s[k].i] = (int64_t)k <= last;
        }
    }
    free(s);
    return ES_OK;
}
