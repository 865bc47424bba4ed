/* data.c -- the samples an NSGA-II run evaluates: a numeric table or
 * variants' genotype codes, z-scored, cut into stratified folds as
 * scikit-learn's StratifiedKFold(shuffle=True, random_state=S) cuts them (its
 * numpy Mersenne Twister reproduced, so that our errors and the reference's
 * are the same problem), and laid out fold by fold for the kernels. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nsga_internal.h"

void es_nsga_data_free(es_nsga_data_t *d)
{
    if (d->names)
        for (uint32_t f = 0; f < d->p; f++) free(d->names[f]);
    if (d->class_values)
        for (uint32_t c = 0; c < d->n_classes; c++) free(d->class_values[c]);
    free(d->names);
    free(d->class_values);
    free(d->xc);
    free(d->xr);
    free(d->orig);
    free(d->y);
    memset(d, 0, sizeof *d);
}

/* ---- numpy's RandomState: MT19937, seeded as mt19937_seed() seeds it -------------- */

typedef struct {
    uint32_t mt[624];
    int pos;
} mt_t;

static void mt_seed(mt_t *r, uint32_t seed)
{
    for (int k = 0; k < 624; k++) {
        r->mt[k] = seed;
        seed = 1812433253u * (seed ^ (seed >> 30)) + (uint32_t)k + 1u;
    }
    r->pos = 624;
}

static uint32_t mt_next(mt_t *r)
{
    if (r->pos >= 624) {
        for (int k = 0; k < 624; k++) {
            uint32_t y = (r->mt[k] & 0x80000000u) | (r->mt[(k + 1) % 624] & 0x7fffffffu);
            r->mt[k] = r->mt[(k + 397) % 624] ^ (y >> 1) ^ (y & 1u ? 0x9908b0dfu : 0u);
        }
        r->pos = 0;
    }
    uint32_t y = r->mt[r->pos++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

/* numpy's legacy random_interval(max): masked draws until one is <= max. */
static uint32_t mt_interval(mt_t *r, uint32_t max)
{
    if (!max) return 0;
    uint32_t mask = max;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    uint32_t v;
    while ((v = (mt_next(r) & mask)) > max) continue;
    return v;
}

int es_nsga_stratified_folds(const uint32_t *y, uint32_t n, uint32_t k, uint32_t seed,
                             uint8_t *fold)
{
    if (k < 2 || k > n || k > 32) return ES_ERR_ARG;
    int ret = ES_OK;
    uint32_t *code = malloc((size_t)n * sizeof *code), *first = malloc((size_t)n * sizeof *first);
    uint32_t *cnt = calloc(n, sizeof *cnt), *alloc = NULL, *seq = malloc((size_t)n * sizeof *seq);
    mt_t *r = malloc(sizeof *r);
    uint32_t nc = 0;
    if (!code || !first || !cnt || !seq || !r) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    /* classes numbered in order of first appearance, as sklearn encodes them */
    for (uint32_t s = 0; s < n; s++) {
        uint32_t c = 0;
        while (c < nc && y[first[c]] != y[s]) c++;
        if (c == nc) first[nc++] = s;
        code[s] = c;
        cnt[c]++;
    }
    /* allocation[i][c]: class c's samples in y_order[i::k], y_order the sorted codes */
    if (!(alloc = calloc((size_t)k * nc, sizeof *alloc))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t c = 0, pos = 0; c < nc; c++)
        for (uint32_t q = 0; q < cnt[c]; q++, pos++) alloc[(size_t)(pos % k) * nc + c]++;
    mt_seed(r, seed);
    for (uint32_t c = 0; c < nc; c++) {
        uint32_t m = 0;
        for (uint32_t i = 0; i < k; i++)
            for (uint32_t q = 0; q < alloc[(size_t)i * nc + c]; q++) seq[m++] = i;
        for (uint32_t i = m; i-- > 1;) { /* RandomState.shuffle */
            uint32_t j = mt_interval(r, i), t = seq[i];
            seq[i] = seq[j];
            seq[j] = t;
        }
        for (uint32_t s = 0, q = 0; s < n; s++)
            if (code[s] == c) fold[s] = (uint8_t)seq[q++];
    }
out:
    free(code);
    free(first);
    free(cnt);
    free(alloc);
    free(seq);
    free(r);
    return ret;
}

/* ---- the layout --------------------------------------------------------------------- */

static uint32_t round_lanes(uint32_t n)
{
    return (n + ES_NSGA_LANES - 1) / ES_NSGA_LANES * ES_NSGA_LANES;
}

/* From x (column-major, n per feature, double), classes y (0..n_classes-1 or
 * NULL) and names (taken): z-score, fold and lay out into d. */
static int finish(es_nsga_data_t *d, const double *x, const uint16_t *y, uint32_t n, uint32_t p,
                  const es_nsga_load_opt_t *opt, const char *what)
{
    int ret = ES_OK;
    uint8_t *fold = calloc(n ? n : 1, 1);
    uint32_t *slot = malloc((n ? n : 1) * sizeof *slot), *yy = malloc((n ? n : 1) * sizeof *yy);
    if (!fold || !slot || !yy) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    d->n = n;
    d->p = p;
    d->n_folds = y && opt->folds ? opt->folds : 0;
    if (d->n_folds) {
        if (n < d->n_folds) {
            es_error("%s: %u samples cannot be cut into %u folds", what, n, d->n_folds);
            ret = ES_ERR_DATA;
            goto out;
        }
        for (uint32_t s = 0; s < n; s++) yy[s] = y[s];
        if ((ret = es_nsga_stratified_folds(yy, n, d->n_folds, opt->cv_seed, fold))) goto out;
        uint32_t *cc = calloc(d->n_classes ? d->n_classes : 1, sizeof *cc);
        if (!cc) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        for (uint32_t s = 0; s < n; s++) cc[y[s]]++;
        for (uint32_t c = 0; c < d->n_classes; c++)
            if (cc[c] < d->n_folds)
                es_warn("%s: class '%s' has %u samples, fewer than the %u folds", what,
                        d->class_values[c], cc[c], d->n_folds);
        free(cc);
    }
    uint32_t nf = d->n_folds ? d->n_folds : 1, off = 0;
    for (uint32_t k = 0; k < nf; k++) {
        d->fold_off[k] = off;
        d->fold_n[k] = 0;
        for (uint32_t s = 0; s < n; s++)
            if (fold[s] == k) slot[s] = off + d->fold_n[k]++;
        off += round_lanes(d->fold_n[k]);
    }
    d->fold_off[nf] = off;
    d->n_slots = off ? off : ES_NSGA_LANES;
    uint32_t ns = d->n_slots;
    d->xc = aligned_alloc(64, (size_t)(p ? p : 1) * ns * sizeof *d->xc);
    d->xr = malloc((size_t)(p ? p : 1) * ns * sizeof *d->xr);
    d->orig = malloc((size_t)ns * sizeof *d->orig);
    d->y = calloc(ns, sizeof *d->y);
    if (!d->xc || !d->xr || !d->orig || !d->y) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    memset(d->xc, 0, (size_t)p * ns * sizeof *d->xc);
    for (uint32_t j = 0; j < ns; j++) d->orig[j] = UINT32_MAX;
    for (uint32_t s = 0; s < n; s++) {
        d->orig[slot[s]] = s;
        if (y) d->y[slot[s]] = y[s];
    }
    for (uint32_t f = 0; f < p; f++) {
        const double *col = x + (size_t)f * n;
        double mean = 0.0, var = 0.0;
        for (uint32_t s = 0; s < n; s++) mean += col[s];
        mean /= n;
        for (uint32_t s = 0; s < n; s++) var += (col[s] - mean) * (col[s] - mean);
        double sd = sqrt(var / n);
        for (uint32_t s = 0; s < n; s++)
            d->xc[(size_t)f * ns + slot[s]] = sd > 0 ? (float)((col[s] - mean) / sd) : 0.0f;
    }
    for (uint32_t j = 0; j < ns; j++)
        for (uint32_t f = 0; f < p; f++) d->xr[(size_t)j * p + f] = d->xc[(size_t)f * ns + j];
out:
    free(fold);
    free(slot);
    free(yy);
    return ret;
}

/* ---- tables -------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The column named s, or given as a 1-based number; UINT32_MAX if none. */
static uint32_t find_col(const es_ntable_t *t, const char *s)
{
    for (uint32_t c = 0; c < t->n_cols; c++)
        if (!strcmp(t->names[c], s)) return c;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*s && !*end && v >= 1 && v <= t->n_cols) return (uint32_t)v - 1;
    return UINT32_MAX;
}

/* The class column's values as codes 0.. in ascending order; class_values gets their text. */
static int code_class(const es_ntable_t *t, uint32_t cc, const char *path, es_nsga_data_t *d,
                      uint16_t *y)
{
    uint32_t n = t->n_rows;
    const float *v = t->v + (size_t)cc * n;
    double *u = malloc((n ? n : 1) * sizeof *u);
    if (!u) return ES_ERR_NOMEM;
    for (uint32_t r = 0; r < n; r++) {
        if (isnan(v[r])) {
            es_error("%s: the class column '%s' has no value in data row %u", path, t->names[cc],
                     r + 1);
            free(u);
            return ES_ERR_FORMAT;
        }
        u[r] = v[r];
    }
    qsort(u, n, sizeof *u, cmp_double);
    uint32_t nc = 0;
    for (uint32_t r = 0; r < n; r++)
        if (!nc || u[r] != u[nc - 1]) u[nc++] = u[r];
    if (nc > 65535) {
        es_error("%s: the class column '%s' has %u values (at most 65,535)", path, t->names[cc], nc);
        free(u);
        return ES_ERR_DATA;
    }
    d->n_classes = nc;
    if (!(d->class_values = calloc(nc ? nc : 1, sizeof *d->class_values))) {
        free(u);
        return ES_ERR_NOMEM;
    }
    for (uint32_t c = 0; c < nc; c++) {
        char buf[64];
        if (t->kind[cc] == ES_NCOL_NOMINAL) snprintf(buf, sizeof buf, "%s", t->values[cc][(uint32_t)u[c]]);
        else if (t->kind[cc] == ES_NCOL_TEXT) snprintf(buf, sizeof buf, "#%u", (uint32_t)u[c]);
        else *es_fmt_g(buf, u[c], 10) = '\0';
        if (!(d->class_values[c] = strdup(buf))) {
            free(u);
            return ES_ERR_NOMEM;
        }
    }
    for (uint32_t r = 0; r < n; r++) {
        double *hit = bsearch(&(double){v[r]}, u, nc, sizeof *u, cmp_double);
        y[r] = (uint16_t)(hit - u);
    }
    free(u);
    return ES_OK;
}

int es_nsga_data_from_table(const char *path, const es_nsga_load_opt_t *opt, es_nsga_data_t *d)
{
    es_ntable_t t;
    int ret;
    memset(d, 0, sizeof *d);
    if ((ret = es_ntable_read(path, &t))) return ret;
    uint32_t n = t.n_rows, cc = UINT32_MAX, p = 0;
    uint32_t *col = NULL;
    uint16_t *y = NULL;
    double *x = NULL;
    if (!opt->no_class) {
        cc = opt->class_col ? find_col(&t, opt->class_col) : t.n_cols - 1;
        if (cc == UINT32_MAX) {
            es_error("%s: no column '%s' (--class)", path, opt->class_col);
            ret = ES_ERR_ARG;
            goto out;
        }
    }
    if (!(col = malloc((t.n_cols + 1) * sizeof *col))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    if (opt->features) {
        for (uint32_t k = 0; k < opt->n_features; k++) {
            uint32_t c = UINT32_MAX;
            for (uint32_t q = 0; q < t.n_cols; q++)
                if (!strcmp(t.names[q], opt->features[k])) {
                    c = q;
                    break;
                }
            if (c == UINT32_MAX) {
                es_error("%s: no column '%s' (a feature asked for)", path, opt->features[k]);
                ret = ES_ERR_ARG;
                goto out;
            }
            if (c == cc) {
                es_error("%s: '%s' is the class column, not a feature", path, opt->features[k]);
                ret = ES_ERR_ARG;
                goto out;
            }
            for (uint32_t q = 0; q < p; q++)
                if (col[q] == c) {
                    es_error("%s: feature '%s' asked for twice", path, opt->features[k]);
                    ret = ES_ERR_ARG;
                    goto out;
                }
            col[p++] = c;
        }
    } else {
        for (uint32_t c = 0; c < t.n_cols; c++)
            if (c != cc) col[p++] = c;
    }
    if (!p) {
        es_error("%s: no feature column", path);
        ret = ES_ERR_DATA;
        goto out;
    }
    if (!n) {
        es_error("%s: no data row", path);
        ret = ES_ERR_DATA;
        goto out;
    }
    for (uint32_t k = 0; k < p; k++) {
        const float *v = t.v + (size_t)col[k] * n;
        if (t.kind[col[k]] == ES_NCOL_TEXT) {
            es_error("%s: feature column '%s' holds text, not numbers", path, t.names[col[k]]);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        for (uint32_t r = 0; r < n; r++)
            if (!isfinite(v[r])) {
                es_error("%s: feature column '%s' has no value in data row %u (nsga needs "
                         "complete features)", path, t.names[col[k]], r + 1);
                ret = ES_ERR_FORMAT;
                goto out;
            }
    }
    x = malloc((size_t)p * n * sizeof *x);
    y = malloc((size_t)n * sizeof *y);
    d->names = calloc(p, sizeof *d->names);
    if (!x || !y || !d->names) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    d->p = p; /* for es_nsga_data_free() of the names */
    for (uint32_t k = 0; k < p; k++) {
        if (!(d->names[k] = strdup(t.names[col[k]]))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        for (uint32_t r = 0; r < n; r++) x[(size_t)k * n + r] = t.v[(size_t)col[k] * n + r];
    }
    if (cc != UINT32_MAX && (ret = code_class(&t, cc, path, d, y))) goto out;
    ret = finish(d, x, cc != UINT32_MAX ? y : NULL, n, p, opt, path);
out:
    if (ret) es_nsga_data_free(d);
    es_ntable_free(&t);
    free(col);
    free(y);
    free(x);
    return ret;
}

/* ---- genotypes --------------------------------------------------------------------------- */

int es_nsga_data_from_variants(const es_dataset_t *ds, const uint32_t *var, uint32_t n_var,
                               const es_nsga_load_opt_t *opt, es_nsga_data_t *d)
{
    memset(d, 0, sizeof *d);
    uint32_t n_all = es_dataset_n_samples_total(ds), n = 0;
    int ret = ES_OK;
    uint32_t *used = malloc((n_all ? n_all : 1) * sizeof *used);
    uint8_t *g = malloc(n_all ? n_all : 1);
    uint16_t *y = NULL;
    double *x = NULL;
    if (!used || !g) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t s = 0; s < n_all; s++)
        if (es_dataset_sample_used(ds, s)) used[n++] = s;
    if (!n || !n_var) {
        es_error("no %s to analyse", n ? "variant" : "sample");
        ret = ES_ERR_DATA;
        goto out;
    }
    x = malloc((size_t)n_var * n * sizeof *x);
    y = malloc((size_t)n * sizeof *y);
    d->names = calloc(n_var, sizeof *d->names);
    d->class_values = calloc(2, sizeof *d->class_values);
    if (!x || !y || !d->names || !d->class_values) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    d->p = n_var;
    d->n_classes = 2;
    if (!(d->class_values[0] = strdup("control")) || !(d->class_values[1] = strdup("case"))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) y[i] = ds->status[used[i]] == 1;
    for (uint32_t f = 0; f < n_var; f++) {
        if (!(d->names[f] = strdup(es_dataset_variant(ds, var[f]).id))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        if ((ret = es_dataset_decode(ds, var[f], g))) goto out;
        double sum = 0.0;
        uint32_t called = 0;
        for (uint32_t i = 0; i < n; i++)
            if (g[used[i]] < 3) {
                sum += g[used[i]];
                called++;
            }
        double mean = called ? sum / called : 0.0;
        for (uint32_t i = 0; i < n; i++)
            x[(size_t)f * n + i] = g[used[i]] < 3 ? g[used[i]] : mean;
    }
    ret = finish(d, x, y, n, n_var, opt, "genotypes");
out:
    if (ret) es_nsga_data_free(d);
    free(used);
    free(g);
    free(y);
    free(x);
    return ret;
}

/* ---- feature lists ---------------------------------------------------------------------- */

int es_nsga_read_names(const char *path, char ***names, uint32_t *n)
{
    char *text = NULL, *q, *le, *line;
    size_t len;
    int ret = es_text_read(path, "feature list", &text, &len);
    *names = NULL;
    *n = 0;
    if (ret) return ret;
    uint32_t cap = 0, lineno = 0;
    int col = -1; /* a .select.tsv's FEATURE column; -1: one name per line */
    char *end = text + len;
    q = text;
    while ((line = es_next_line(&q, end, &le))) {
        lineno++;
        if (le > line && le[-1] == '\r') *--le = '\0';
        if (!*line || *line == '#') continue;
        char *f[64];
        if (lineno == 1 && strchr(line, '\t')) {
            int nf = es_split_fields(line, le, f, 64);
            for (int k = 0; k < nf && k < 64; k++)
                if (!strcmp(f[k], "FEATURE")) col = k;
            if (col < 0) {
                es_error("%s:1: a tab-separated header without a FEATURE column (expected a "
                         ".select.tsv: RANK FEATURE SCORE RELEVANCE)", path);
                ret = ES_ERR_FORMAT;
                goto out;
            }
            continue;
        }
        const char *name = line;
        if (col >= 0) {
            int nf = es_split_fields(line, le, f, 64);
            if (nf <= col) {
                es_error("%s:%u: %d fields, the FEATURE column is field %d", path, lineno, nf,
                         col + 1);
                ret = ES_ERR_FORMAT;
                goto out;
            }
            name = f[col];
        } else {
            while (le > line && es_is_blank(le[-1])) *--le = '\0';
            while (es_is_blank(*line)) line++;
            name = line;
            if (!*name) continue;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            char **t = realloc(*names, cap * sizeof *t);
            if (!t) {
                ret = ES_ERR_NOMEM;
                goto out;
            }
            *names = t;
        }
        if (!((*names)[*n] = strdup(name))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        (*n)++;
    }
    if (!*n) {
        es_error("%s: no feature listed", path);
        ret = ES_ERR_FORMAT;
    }
out:
    if (ret) {
        for (uint32_t k = 0; k < *n; k++) free((*names)[k]);
        free(*names);
        *names = NULL;
        *n = 0;
    }
    free(text);
    return ret;
}
