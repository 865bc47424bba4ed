/* mdfs.c -- the MDFS run as the package's run() does it: options, contrast
 * variables, the discretisations (one per pass of the engine), the maximum
 * IGs, the chi-square p-values, their fit on the contrast variables and the
 * adjustment. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "mdfs.h"
#include "util.h"

void es_mdfs_opt_init(es_mdfs_opt_t *o)
{
    memset(o, 0, sizeof *o);
    o->dim = 1;
    o->divisions = 1;
    o->discretizations = 1;
    o->range = -1.0;
    o->seed = 0;
    o->pc_xi = 0.25;
    o->n_contrast = -1;
    o->adjust = ES_MDFS_HOLM;
    o->level = 0.05;
}

/* Cells of one tuple's table and the bytes of one thread's prefix vectors:
 * refused beyond these (the package would run out of memory or time). */
#define MAX_CELLS (1u << 20)
#define MAX_THREAD_BYTES (1ull << 30)

int es_mdfs_opt_check(const es_mdfs_opt_t *o, uint32_t n_obj, uint32_t n_vars)
{
    if (o->dim < 1 || o->dim > ES_MDFS_MAX_DIM) {
        es_error("--dim: expected 1 to %d, got %d", ES_MDFS_MAX_DIM, o->dim);
        return ES_ERR_ARG;
    }
    if (o->divisions < 1 || o->divisions > ES_MDFS_MAX_DIV) {
        es_error("--divisions: expected 1 to %d, got %d", ES_MDFS_MAX_DIV, o->divisions);
        return ES_ERR_ARG;
    }
    if (o->discretizations < 1) {
        es_error("--discretizations: expected a positive integer, got %d", o->discretizations);
        return ES_ERR_ARG;
    }
    if (!(o->pc_xi > 0.0) || !isfinite(o->pc_xi)) {
        es_error("--pseudocount: expected a number > 0, got %g", o->pc_xi);
        return ES_ERR_ARG;
    }
    if (o->range >= 0.0 && o->range > 1.0) {
        es_error("--range: expected a number in [0, 1], got %g", o->range);
        return ES_ERR_ARG;
    }
    if (o->range == 0.0 && o->discretizations > 1) {
        es_error("--range 0 with --discretizations %d: every discretisation would be the same",
                 o->discretizations);
        return ES_ERR_ARG;
    }
    if (o->seed > 2147483647u) {
        es_error("--seed: expected 0 to 2147483647 (MDFS's portable seeds), got %u", o->seed);
        return ES_ERR_ARG;
    }
    if (!(o->level > 0.0 && o->level <= 1.0)) {
        es_error("--level: expected a number in (0, 1], got %g", o->level);
        return ES_ERR_ARG;
    }
    if (o->n_tuples > 100000000u) {
        es_error("--tuples: at most 100,000,000, got %llu", (unsigned long long)o->n_tuples);
        return ES_ERR_ARG;
    }
    if ((double)o->n_tuples * o->discretizations * sizeof(es_mdfs_tuple_t) > 16e9) {
        es_error("--tuples %llu with --discretizations %d: %.3g GB of kept tuples a thread "
                 "(at most 16 GB)", (unsigned long long)o->n_tuples, o->discretizations,
                 (double)o->n_tuples * o->discretizations * sizeof(es_mdfs_tuple_t) / 1e9);
        return ES_ERR_ARG;
    }
    if (o->discrete && o->discretizations != 1) {
        es_error("--discretizations: genotypes are not discretised (0/1/2 as they are): use 1");
        return ES_ERR_ARG;
    }
    if ((uint32_t)o->dim > n_vars) {
        es_error("--dim %d: the data have only %u variable%s", o->dim, n_vars, n_vars == 1 ? "" : "s");
        return ES_ERR_ARG;
    }
    double cells = pow(o->divisions + 1, o->dim);
    if (cells > MAX_CELLS) {
        es_error("--dim %d with --divisions %d: %.0f cells a tuple (at most %u)", o->dim,
                 o->divisions, cells, MAX_CELLS);
        return ES_ERR_ARG;
    }
    double words = (double)(n_obj / 64 + 2);
    double bytes = pow(o->divisions + 1, o->dim - 1) * 2.0 * words * 8.0;
    if (bytes > (double)MAX_THREAD_BYTES) {
        es_error("--dim %d with --divisions %d on %u objects: %.3g GB of bit vectors a thread "
                 "(at most 1 GiB): use fewer divisions or a lower --dim",
                 o->dim, o->divisions, n_obj, bytes / 1e9);
        return ES_ERR_ARG;
    }
    return ES_OK;
}

void es_mdfs_result_free(es_mdfs_result_t *r)
{
    free(r->max_ig), free(r->arg_tuple), free(r->arg_disc), free(r->contrast_ig);
    free(r->contrast_idx), free(r->p), free(r->adj_p), free(r->relevant), free(r->tuples);
    memset(r, 0, sizeof *r);
}

/* The discretisation callback of a run: the raw values. */
typedef struct {
    const es_mdfs_opt_t *o;
    const double *x, *cx; /* variables, contrast variables */
    double *scratch;      /* n_obj a thread */
    uint32_t n, nv, nc;
    double range;
} disc_t;

static int discretise(void *ctx, uint32_t disc, uint8_t *d, uint8_t *cd)
{
    const disc_t *q = ctx;
    const uint32_t n = q->n, tot = q->nv + q->nc;
#pragma omp parallel for schedule(dynamic, 16)
    for (uint32_t v = 0; v < tot; v++) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        const int con = v >= q->nv;
        const uint32_t i = con ? v - q->nv : v;
        const double *x = (con ? q->cx : q->x) + (size_t)i * n;
        uint8_t *out = (con ? cd : d) + (size_t)i * n;
        if (q->o->discrete) {
            for (uint32_t k = 0; k < n; k++) out[k] = (uint8_t)x[k];
            continue;
        }
        /* contrast variables are features n_vars + i (the package's offset) */
        es_mdfs_discretize(q->o->seed, disc, v, q->o->divisions, n, x, q->scratch + (size_t)tid * n,
                           out, q->range);
    }
    return ES_OK;
}

int es_mdfs_run(const es_mdfs_opt_t *o, const double *x, uint32_t n_obj, uint32_t n_vars,
                const uint8_t *y, es_mdfs_result_t *r)
{
    int ret;
    memset(r, 0, sizeof *r);
    if ((ret = es_mdfs_opt_check(o, n_obj, n_vars))) return ret;
    uint32_t cls[2] = {0, 0};
    for (uint32_t i = 0; i < n_obj; i++) cls[y[i] != 0]++;
    if (!cls[0] || !cls[1]) {
        es_error("the decision has %s: both classes are needed", cls[0] ? "no 1" : "no 0");
        return ES_ERR_DATA;
    }
    const char *fit = (o->dim == 1 && o->discretizations == 1) ? "raw"
                      : (o->dim == 1 && o->discretizations * o->divisions < 12) ? "lin"
                                                                               : "exp";
    int64_t nc64 = o->n_contrast;
    if (nc64 < 0) nc64 = strcmp(fit, "raw") ? (n_vars > 30 ? n_vars : 30) : 0;
    if (nc64 > 0 && (double)nc64 * n_obj * (sizeof(double) * 2 + 1) > 64e9) {
        es_error("--contrast %lld: %.3g GB for %lld contrast variables of %u objects (too much "
                 "memory)", (long long)nc64, (double)nc64 * n_obj * 17 / 1e9, (long long)nc64, n_obj);
        return ES_ERR_ARG;
    }
    if (nc64 > UINT32_MAX - n_vars) {
        es_error("--contrast %lld: too many", (long long)nc64);
        return ES_ERR_ARG;
    }
    const uint32_t nc = (uint32_t)nc64;
    disc_t q;
    memset(&q, 0, sizeof q);
    q.o = o, q.x = x, q.n = n_obj, q.nv = n_vars, q.nc = nc;
    q.range = o->range;
    if (!o->discrete && q.range < 0.0 && es_mdfs_suggested_range(n_obj, o->dim, o->divisions, &q.range)) {
        es_error("MDFS's suggested range for %u objects at --dim %d --divisions %d is %g: %s; "
                 "give --range R (0 to 1) to run anyway", n_obj, o->dim, o->divisions, q.range,
                 q.range == 0.0 ? "too small a sample for the test"
                                : "too small a sample for multiple discretizations");
        return ES_ERR_ARG;
    }
    double *cx = NULL, *scratch = NULL, *chisq = NULL, *chisq_c = NULL;
    int nt = 1;
#ifdef _OPENMP
    nt = omp_get_max_threads();
#endif
    r->contrast_idx = malloc(sizeof(uint32_t) * (nc + 1));
    cx = malloc(sizeof(double) * ((size_t)nc * n_obj + 1));
    scratch = malloc(sizeof(double) * ((size_t)nt * n_obj + 1));
    if (!r->contrast_idx || !cx || !scratch) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    if (nc && (ret = es_mdfs_contrast(o->seed, n_obj, n_vars, x, nc, cx, r->contrast_idx))) goto out;
    q.cx = cx, q.scratch = scratch;
    if ((ret = es_mdfs_max_ig(o, n_obj, n_vars, nc, y, discretise, &q, r))) goto out;
    r->n_contrast = nc;
    /* p-values */
    const int df = o->divisions * (int)pow(o->divisions + 1, o->dim - 1);
    r->p = malloc(sizeof(double) * (n_vars + 1));
    r->adj_p = malloc(sizeof(double) * (n_vars + 1));
    r->relevant = malloc(sizeof(int) * (n_vars + 1));
    chisq = malloc(sizeof(double) * (n_vars + 1));
    chisq_c = malloc(sizeof(double) * (nc + 1));
    if (!r->p || !r->adj_p || !r->relevant || !chisq || !chisq_c) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    const double two_ln2 = log(2.0) * 2.0;
    for (uint32_t v = 0; v < n_vars; v++) chisq[v] = es_chi2_sf(r->max_ig[v] * two_ln2, df);
    for (uint32_t c = 0; c < nc; c++) chisq_c[c] = es_chi2_sf(r->contrast_ig[c] * two_ln2, df);
    r->fit = fit;
    if (!strcmp(fit, "raw") || !nc) {
        if (strcmp(fit, "raw"))
            es_warn("no contrast variables: p-values straight from the chi-square distribution");
        r->fit = "raw";
        memcpy(r->p, chisq, sizeof(double) * n_vars);
    } else {
        const char *why;
        ret = es_mdfs_fit_p(chisq, n_vars, chisq_c, nc, !strcmp(fit, "exp"), r->p, &r->fit_alpha, &why);
        if (ret == ES_ERR_DATA)
            es_error("the p-value fit on %u contrast variables failed (as MDFS's fit_p_value "
                     "would): %s; try more --contrast variables or other options", nc, why);
        if (ret) goto out;
    }
    ret = es_mdfs_adjust(r->p, n_vars, o->adjust, o->level, r->adj_p, r->relevant);
out:
    free(cx), free(scratch), free(chisq), free(chisq_c);
    if (ret) es_mdfs_result_free(r);
    return ret;
}
