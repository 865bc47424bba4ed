/* qq.c -- the numbers behind the QQ plot: the expected band of ordered
 * p-values under the null and the genomic inflation factor lambda, and what
 * they are computed from (README.md, "Reports"). */
#include <math.h>
#include <stdlib.h>

#include "report_internal.h"
#include "stats.h"
#include "util.h"

/* The continued fraction of the incomplete beta function (modified Lentz). */
static double betacf(double a, double b, double x)
{
    const double tiny = 1e-300, eps = 1e-15;
    double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap;
    if (fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 100000; m++) {
        int m2 = 2 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < eps) break;
    }
    return h;
}

/* The regularised incomplete beta function I_x(a, b). */
static double ibeta(double a, double b, double x)
{
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1) / (a + b + 2)) return exp(lbt) * betacf(a, b, x) / a;
    return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

double es_rp_beta_quantile(double a, double b, double q)
{
    /* bisection on ln x: the quantiles of small order statistics are tiny */
    double lo = -745, hi = 0;
    for (int it = 0; it < 200 && hi - lo > 1e-13; it++) {
        double mid = (lo + hi) / 2;
        if (ibeta(a, b, exp(mid)) < q) lo = mid;
        else hi = mid;
    }
    return exp((lo + hi) / 2);
}

/* The q-quantile of Gamma(i, 1) (i a positive integer <= 1e5): P(G > g) = P(chi2 with
 * 2i df > 2g). */
static double gamma_quantile(double i, double q)
{
    double lo = -745, hi = log(i * 10 + 100);
    for (int it = 0; it < 200 && hi - lo > 1e-13; it++) {
        double mid = (lo + hi) / 2;
        if (1 - es_chi2_sf(2 * exp(mid), (int)(2 * i)) < q) lo = mid;
        else hi = mid;
    }
    return exp((lo + hi) / 2);
}

void es_rp_qq_band(double i, double m, double *lo, double *hi)
{
    double ql, qh; /* the 2.5 % and 97.5 % quantiles of the i-th smallest p */
    if (m <= 1e5) {
        ql = es_rp_beta_quantile(i, m - i + 1, 0.025);
        qh = es_rp_beta_quantile(i, m - i + 1, 0.975);
    } else if (i <= 1000) {
        /* Beta(i, m - i + 1) -> Gamma(i, 1) / m for i << m */
        ql = gamma_quantile(i, 0.025) / m;
        qh = gamma_quantile(i, 0.975) / m;
    } else {
        /* i >= 1000: the normal limit, mean i/(m+1), variance mu (1 - mu) / (m + 2) */
        double mu = i / (m + 1), sd = sqrt(mu * (1 - mu) / (m + 2));
        ql = mu - 1.959963984540054 * sd;
        qh = mu + 1.959963984540054 * sd;
        if (ql < 1e-300) ql = 1e-300;
        if (qh > 1) qh = 1;
    }
    *hi = -log10(ql);
    *lo = -log10(qh);
}

/* qchisq(1 - p, 1): the x with P(chi2_1 > x) = p */
static double chi2_1_upper(double p)
{
    double lo = 0, hi = 2000;
    for (int it = 0; it < 200 && hi - lo > 1e-12 * (1 + hi); it++) {
        double mid = (lo + hi) / 2;
        if (es_chi2_sf(mid, 1) > p) lo = mid;
        else hi = mid;
    }
    return (lo + hi) / 2;
}

int es_rp_lambda(const double *p_sorted, size_t n, uint64_t m, double *lambda)
{
    if (m == 0 || n < m / 2 + 1) return 0;
    double med = (m % 2) ? p_sorted[m / 2] : (p_sorted[m / 2 - 1] + p_sorted[m / 2]) / 2;
    /* the median of chi2 with 1 df: qchisq(0.5, 1) */
    *lambda = chi2_1_upper(med) / 0.4549364231195724;
    return 1;
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

void es_rp_sort_desc(double *v, size_t n) { qsort(v, n, sizeof *v, cmp_desc); }
