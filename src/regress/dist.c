/* dist.c -- the tails the regression tests need: Student's t (linear) and the standard normal
 * (logistic Wald z), each with its logarithm, which stays finite where the p-value underflows.
 *
 * Student's t.  For t > 0, P(T > t) = I_x(df/2, 1/2) / 2 with x = df / (df + t^2), I the
 * regularised incomplete beta function.  I_x(a, b) is evaluated as
 *
 *     x^a (1 - x)^b / (a B(a, b)) * K(x),   K the continued fraction of Abramowitz & Stegun
 *                                            26.5.8, in Lentz's form,
 *
 * where K converges quickly (x < (a + 1) / (a + b + 2)), and as 1 - I_{1-x}(b, a) elsewhere.
 * Everything is carried in logarithms, and x and 1 - x are formed from r = df / t^2 as
 * r / (1 + r) and 1 / (1 + r), never as 1 - x, so neither loses digits and t as large as 1e300
 * gives a finite log.  ln B(a, b) comes from a log-gamma built here (Stirling's series after an
 * upward shift) because glibc's lgamma() writes the global signgam (a data race under threads)
 * and because ln Gamma(a) - ln Gamma(a + 1/2) for huge a must be formed as a difference of
 * series, not of two nearly equal large numbers.
 *
 * Normal.  ln(erfc(z / sqrt 2) / 2) while erfc() has full precision (z < 35); beyond, the
 * Laplace continued fraction of the Mills ratio, Q(z) = phi(z) / (z + 1/(z + 2/(z + 3/...))),
 * which at z >= 35 is exact to double precision after a few dozen terms. */
#include <math.h>

#include "regress_internal.h"

#define LN_SQRT_2PI 0.91893853320467274178 /* ln sqrt(2 pi) */

/* Stirling's correction ln Gamma(x) - [(x - 1/2) ln x - x + ln sqrt(2 pi)], x >= 15: the
 * series' next term is below 2e-16 of the result there. */
static double stirling_corr(double x)
{
    double r = 1.0 / x, r2 = r * r;
    return r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680 - r2 / 1188))));
}

/* ln Gamma(x) for x > 0 */
static double lgamma_pos(double x)
{
    double shift = 0; /* ln of x (x + 1) ... (x + s - 1) */
    double prod = 1;
    while (x < 15) {
        prod *= x;
        x += 1;
        if (prod > 1e280) {
            shift += log(prod);
            prod = 1;
        }
    }
    shift += log(prod);
    return (x - 0.5) * log(x) - x + LN_SQRT_2PI + stirling_corr(x) - shift;
}

/* ln Gamma(a) - ln Gamma(a + b) for a > 0, 0 < b <= a: as a difference of two Stirling
 * expansions when a is large, where the two log-gammas would cancel. */
static double lgamma_diff(double a, double b)
{
    if (a < 15) return lgamma_pos(a) - lgamma_pos(a + b);
    double c = a + b;
    /* (a - 1/2) ln a - (c - 1/2) ln c + b = -(a - 1/2) ln(1 + b/a) - b ln c + b */
    return -(a - 0.5) * log1p(b / a) - b * log(c) + b + stirling_corr(a) - stirling_corr(c);
}

/* ln B(a, b) */
static double lbeta(double a, double b)
{
    double lo = a < b ? a : b, hi = a < b ? b : a;
    return lgamma_pos(lo) + lgamma_diff(hi, lo);
}

#define CF_TINY 1e-300
#define CF_EPS 1e-15
#define CF_MAX_ITER 1000000

/* One term of Lentz's evaluation: C and D updated for the partial numerator num (every
 * partial denominator is 1).  @return the factor the fraction's value is multiplied by. */
static double lentz_step(double *c, double *d, double num)
{
    *d = 1.0 + num * *d;
    *c = 1.0 + num / *c;
    if (fabs(*d) < CF_TINY) *d = CF_TINY;
    if (fabs(*c) < CF_TINY) *c = CF_TINY;
    *d = 1.0 / *d;
    return *d * *c;
}

/* ln I_x(a, b) by the continued fraction; x is the small side (x < (a + 1) / (a + b + 2)).
 * lx = ln x, ly = ln(1 - x). */
static double log_ibeta_cf(double a, double b, double x, double lx, double ly)
{
    /* f = 1 / (1 + d1 / (1 + d2 / (1 + ...))), d_{2m+1} = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)),
     * d_{2m} = m (b-m) x / ((a+2m-1)(a+2m)) */
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (fabs(d) < CF_TINY) d = CF_TINY;
    d = 1.0 / d;
    double f = d;
    for (int m = 1; m <= CF_MAX_ITER; m++) {
        double m2 = 2.0 * m;
        f *= lentz_step(&c, &d, m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)));
        double step = lentz_step(&c, &d, -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)));
        f *= step;
        if (fabs(step - 1.0) < CF_EPS) break;
    }
    return a * lx + b * ly - lbeta(a, b) - log(a) + log(f);
}

double es_reg_log_ibeta(double a, double b, double x, double y)
{
    if (!(a > 0 && b > 0) || !(x >= 0 && y >= 0) || isnan(x + y)) return NAN;
    if (x == 0) return -INFINITY;
    if (y == 0) return 0.0;
    double lx = log(x), ly = log(y);
    if (x < (a + 1) / (a + b + 2)) return log_ibeta_cf(a, b, x, lx, ly);
    return log1p(-exp(log_ibeta_cf(b, a, y, ly, lx)));
}

/* ln P(T > t) for t > 0 */
static double t_logsf_pos(double t, double df)
{
    double r = df / t / t; /* df / t^2 without overflowing t^2 */
    double a = df / 2, b = 0.5;
    double x = r / (1 + r), y = 1 / (1 + r);
    /* ln x = ln(r / (1 + r)) and ln(1 - x) = -ln(1 + r), each in the form without
     * cancellation: for large r, ln r - ln(1 + r) would lose the digits that a = df/2 then
     * multiplies */
    double lx = r >= 1 ? -log1p(1 / r) : log(r) - log1p(r), ly = -log1p(r);
    if (r == 0) lx = log(df) - 2 * log(t); /* r underflowed: t beyond 1e154 */
    if (x < (a + 1) / (a + b + 2)) return -M_LN2 + log_ibeta_cf(a, b, x, lx, ly);
    /* I_x(a, b) = 1 - I_y(b, a) */
    return -M_LN2 + log1p(-exp(log_ibeta_cf(b, a, y, ly, lx)));
}

double es_reg_norm_logsf(double z)
{
    if (isnan(z)) return NAN;
    if (z < 35) return log(0.5 * erfc(z * M_SQRT1_2));
    if (isinf(z)) return -INFINITY;
    double cf = z; /* z + 1/(z + 2/(z + 3/(z + ...))) from the bottom */
    for (int j = 60; j >= 1; j--) cf = z + j / cf;
    return -0.5 * z * z - LN_SQRT_2PI - log(cf);
}

double es_reg_t_logsf(double t, double df)
{
    if (isnan(t) || isnan(df) || !(df > 0)) return NAN;
    if (isinf(df)) return es_reg_norm_logsf(t);
    if (t == 0) return -M_LN2;
    if (isinf(t)) return t > 0 ? -INFINITY : 0.0;
    if (t > 0) return t_logsf_pos(t, df);
    return log1p(-exp(t_logsf_pos(-t, df)));
}

double es_reg_t_sf(double t, double df)
{
    return exp(es_reg_t_logsf(t, df));
}

/* p = 2 P(|T| > |stat|), and -log10 p from its logarithm */
void es_reg_pvalue(es_reg_result_t *res, double stat, double df)
{
    double lp = M_LN2 + (isinf(df) ? es_reg_norm_logsf(fabs(stat)) : es_reg_t_logsf(fabs(stat), df));
    if (lp > 0) lp = 0;
    res->p = exp(lp);
    res->log10p = -lp / M_LN10;
    if (res->log10p == 0) res->log10p = 0; /* no -0 */
}
