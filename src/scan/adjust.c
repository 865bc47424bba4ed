/* adjust.c -- covariates (scan --covar): the screen's phenotype and the exact
 * model for its survivors (doc/QT.md, "Covariates").
 *
 * Every pair is screened at counting speed: a quantitative trait on the
 * trait residualised on the covariates (an approximation: the exact model
 * would residualise the genotype terms too), case/control with the chosen
 * statistic as without covariates.  Then the exact model, y ~ 1 + A + B +
 * AB + covariates (least squares, or logistic by Newton's method; src/
 * regress), is fitted for the screen's best pairs, one pair per task, each
 * from the samples' own values: the same numbers for any thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "scan.h"

int es_scan_covar_samples(es_dataset_t *ds, const es_covar_t *cv, const char *path, uint32_t *dropped)
{
    uint32_t n = es_dataset_n_samples_total(ds);
    uint8_t *keep = malloc(n ? n : 1);
    if (!keep) return ES_ERR_NOMEM;
    for (uint32_t s = 0; s < n; s++) keep[s] = !cv->missing[s];
    int ret = es_dataset_keep_samples(ds, keep, path, dropped);
    free(keep);
    return ret;
}

/* The samples in the analysis, in input order, and their covariate rows. */
typedef struct {
    uint32_t n, k;
    uint32_t *in;  /* input index of each */
    double *C;     /* n x k */
} used_t;

static void used_free(used_t *u)
{
    free(u->in);
    free(u->C);
}

static int used_init(used_t *u, const es_dataset_t *ds, const es_covar_t *cv)
{
    uint32_t ns = es_dataset_n_samples_total(ds);
    memset(u, 0, sizeof *u);
    u->k = cv->k;
    u->in = malloc((ns ? ns : 1) * sizeof *u->in);
    u->C = malloc(((size_t)ns * cv->k + 1) * sizeof *u->C);
    if (!u->in || !u->C) {
        used_free(u);
        return ES_ERR_NOMEM;
    }
    for (uint32_t s = 0; s < ns; s++) {
        if (!es_dataset_sample_used(ds, s)) continue;
        memcpy(u->C + (size_t)u->n * cv->k, cv->val + (size_t)s * cv->k, cv->k * sizeof *u->C);
        u->in[u->n++] = s;
    }
    return ES_OK;
}

int es_scan_covar_residualize(es_dataset_t *ds, const es_covar_t *cv)
{
    used_t u;
    int ret = used_init(&u, ds, cv);
    if (ret) return ret;
    double *y = malloc((u.n ? u.n : 1) * sizeof *y), *r = malloc((u.n ? u.n : 1) * sizeof *r);
    if (!y || !r) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < u.n; i++) y[i] = es_dataset_qt_value(ds, u.in[i]);
    if ((ret = es_reg_residualize(y, u.C, u.n, u.k, r))) goto out;
    for (uint32_t i = 0; i < u.n; i++) ds->qt_y[u.in[i]] = r[i];
out:
    free(y);
    free(r);
    used_free(&u);
    return ret;
}

int es_scan_adjust(const es_dataset_t *ds, const es_covar_t *cv, const double *trait, const es_pair_t *pairs,
                   size_t n_pairs, int threads, es_reg_result_t *out)
{
    used_t u;
    int ret = used_init(&u, ds, cv);
    if (ret) return ret;
    uint32_t ns = es_dataset_n_samples_total(ds);
    double *y = malloc((u.n ? u.n : 1) * sizeof *y);
    if (!y) {
        used_free(&u);
        return ES_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < u.n; i++)
        y[i] = trait ? trait[u.in[i]] : (double)(ds->status[u.in[i]] == 1); /* case 1, control 0 */
    int logistic = !ds->qt;
#ifdef _OPENMP
    if (threads <= 0) threads = omp_get_max_threads();
#else
    (void)threads; /* one thread */
#endif
    int err = ES_OK;
#pragma omp parallel num_threads(threads)
    {
        es_reg_ws_t *ws = es_reg_ws_create();
        uint8_t *ga = malloc(ns ? ns : 1), *gb = malloc(ns ? ns : 1);
        double *a = malloc((u.n ? u.n : 1) * sizeof *a), *b = malloc((u.n ? u.n : 1) * sizeof *b);
        int ok = ws && ga && gb && a && b;
        if (!ok) {
#pragma omp critical
            err = ES_ERR_NOMEM;
        }
#pragma omp for schedule(dynamic, 4)
        for (size_t k = 0; k < n_pairs; k++) {
            if (!ok) continue;
            es_dataset_decode(ds, pairs[k].i, ga);
            es_dataset_decode(ds, pairs[k].j, gb);
            for (uint32_t i = 0; i < u.n; i++) {
                uint8_t x = ga[u.in[i]], z = gb[u.in[i]];
                a[i] = x == 3 ? NAN : x;
                b[i] = z == 3 ? NAN : z;
            }
            int r = logistic ? es_reg_logistic(ws, y, a, b, u.C, u.n, u.k, &out[k])
                             : es_reg_linear(ws, y, a, b, u.C, u.n, u.k, &out[k]);
            if (r) {
#pragma omp critical
                err = r;
            }
        }
        es_reg_ws_destroy(ws);
        free(ga);
        free(gb);
        free(a);
        free(b);
    }
    free(y);
    used_free(&u);
    return err;
}

/* the exact fits, best first: a fit before a failed one, then by -log10 P,
 * then by the screen's rank (their index) */
typedef struct {
    int ok;
    double log10p;
    size_t k;
} adj_key_t;

static int adj_cmp(const void *x, const void *y)
{
    const adj_key_t *a = x, *b = y;
    if (a->ok != b->ok) return b->ok - a->ok;
    if (a->ok && a->log10p != b->log10p) return a->log10p > b->log10p ? -1 : 1;
    return a->k < b->k ? -1 : a->k > b->k;
}

int es_adjust_order(const es_reg_result_t *fits, size_t n, size_t *order)
{
    adj_key_t *key = malloc((n ? n : 1) * sizeof *key);
    if (!key) return ES_ERR_NOMEM;
    for (size_t k = 0; k < n; k++) key[k] = (adj_key_t){fits[k].status == ES_REG_OK, fits[k].log10p, k};
    qsort(key, n, sizeof *key, adj_cmp);
    for (size_t k = 0; k < n; k++) order[k] = key[k].k;
    free(key);
    return ES_OK;
}
