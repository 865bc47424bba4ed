/* table_code.c -- the last step of es_table_read (table.c): each column of the
 * read table coded alone into discrete states (integer columns by the rank of
 * their distinct values, other numbers into equal-width bins, text by sorted
 * value, nominal attributes by declared order), 16 columns transposed at a time. */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "table_internal.h"

#define GROUP 16                           /* columns per transpose step */
#define LUT_RANGE (1u << 20)               /* integer columns this narrow use a lookup table */

/* how a feature was coded (for the log) */
enum { C_INT, C_BINS, C_TEXT, C_NOMINAL, C_EMPTY, C_N };

/* ---- coding into states -------------------------------------------------------------- */

typedef struct {
    const char *s;
    double num;
    uint32_t id;
} sortkey_t;

static int cmp_str(const void *a, const void *b)
{
    const sortkey_t *x = a, *y = b;
    return strcmp(x->s, y->s);
}

static int cmp_num(const void *a, const void *b)
{
    const sortkey_t *x = a, *y = b;
    if (x->num != y->num) return x->num < y->num ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* map[id] = rank of dictionary entry id in sorted order.  numeric: order
 * by value when every entry is a number (equal numbers share a rank).
 * @return the number of ranks, or 0 (no memory) */
static uint32_t dict_order(const dict_t *d, int numeric, uint32_t *map)
{
    sortkey_t *k = malloc((d->n ? d->n : 1) * sizeof *k);
    if (!k) return 0;
    int all_num = numeric;
    for (uint32_t i = 0; i < d->n; i++) {
        k[i] = (sortkey_t){d->str[i], 0, i};
        if (all_num && !es_tbl_parse_num(d->str[i], &k[i].num)) all_num = 0;
    }
    qsort(k, d->n, sizeof *k, all_num ? cmp_num : cmp_str);
    uint32_t rank = 0;
    for (uint32_t i = 0; i < d->n; i++) {
        if (i && (all_num ? k[i].num != k[i - 1].num : 1)) rank++;
        map[k[i].id] = rank;
    }
    free(k);
    return d->n ? rank + 1 : 0;
}

typedef struct {
    float *tmp;     /* n floats */
    uint8_t *pres;  /* LUT_RANGE + 1 */
    uint16_t *lut;  /* LUT_RANGE + 1 */
} scratch_t;

/* Code one feature column v[0..n) into x; @return how it was coded, or -1 (no memory). */
static int code_column(const tcol_t *col, const float *v, uint32_t n, uint32_t bins,
                       scratch_t *sc, uint16_t *x, uint32_t *n_states)
{
    uint32_t base, i;
    int miss = 0;
    if (col->kind == K_NOMINAL || col->kind == K_TEXT) {
        uint32_t *map = NULL;
        base = col->dict.n;
        if (col->kind == K_TEXT && base) {
            if (!(map = malloc(base * sizeof *map)) || !dict_order(&col->dict, 0, map)) {
                free(map);
                return -1;
            }
        }
        for (i = 0; i < n; i++) {
            if (isnan(v[i])) {
                x[i] = (uint16_t)base;
                miss = 1;
            } else {
                uint32_t id = (uint32_t)v[i];
                x[i] = (uint16_t)(map ? map[id] : id);
            }
        }
        free(map);
        *n_states = base + (uint32_t)miss;
        if (!*n_states) *n_states = 1;
        return col->kind == K_TEXT ? C_TEXT : C_NOMINAL;
    }
    float lo = INFINITY, hi = -INFINITY;
    uint32_t n_val = 0;
    for (i = 0; i < n; i++) {
        if (isnan(v[i])) {
            miss = 1;
            continue;
        }
        if (v[i] < lo) lo = v[i];
        if (v[i] > hi) hi = v[i];
        n_val++;
    }
    if (!n_val) { /* all missing: one state */
        memset(x, 0, n * sizeof *x);
        *n_states = 1;
        return C_EMPTY;
    }
    if (!col->nonint) { /* integers: the rank among the distinct values */
        double range = (double)hi - (double)lo;
        if (range < LUT_RANGE) {
            uint32_t w = (uint32_t)range + 1, nd = 0;
            memset(sc->pres, 0, w);
            for (i = 0; i < n; i++)
                if (!isnan(v[i])) sc->pres[(uint32_t)(v[i] - lo)] = 1;
            for (uint32_t j = 0; j < w; j++) {
                if (!sc->pres[j]) continue;
                sc->lut[j] = (uint16_t)(nd < MAX_VALUES ? nd : 0);
                nd++;
            }
            if (nd <= MAX_VALUES) {
                for (i = 0; i < n; i++)
                    x[i] = isnan(v[i]) ? (uint16_t)nd : sc->lut[(uint32_t)(v[i] - lo)];
                *n_states = nd + (uint32_t)miss;
                return C_INT;
            }
        } else {
            uint32_t m = 0, nd = 0;
            for (i = 0; i < n; i++)
                if (!isnan(v[i])) sc->tmp[m++] = v[i];
            qsort(sc->tmp, m, sizeof *sc->tmp, cmp_float);
            for (i = 0; i < m; i++)
                if (!i || sc->tmp[i] != sc->tmp[i - 1]) sc->tmp[nd++] = sc->tmp[i];
            if (nd <= MAX_VALUES) {
                for (i = 0; i < n; i++) {
                    if (isnan(v[i])) {
                        x[i] = (uint16_t)nd;
                        continue;
                    }
                    uint32_t a = 0, b = nd; /* first entry >= v[i]: it is there */
                    while (a < b) {
                        uint32_t mid = a + (b - a) / 2;
                        if (sc->tmp[mid] < v[i]) a = mid + 1;
                        else b = mid;
                    }
                    x[i] = (uint16_t)a;
                }
                *n_states = nd + (uint32_t)miss;
                return C_INT;
            }
        }
    }
    /* equal-width bins over [lo, hi]: bin floor(bins (v - lo) / (hi - lo)), hi in the last */
    if (hi == lo) {
        for (i = 0; i < n; i++) x[i] = isnan(v[i]) ? 1 : 0;
        *n_states = 1 + (uint32_t)miss;
        return C_BINS;
    }
    double w = (double)hi - (double)lo;
    for (i = 0; i < n; i++) {
        if (isnan(v[i])) {
            x[i] = (uint16_t)bins;
            continue;
        }
        uint32_t b = (uint32_t)(((double)v[i] - (double)lo) * bins / w);
        x[i] = (uint16_t)(b < bins ? b : bins - 1);
    }
    *n_states = bins + (uint32_t)miss;
    return C_BINS;
}

int es_tbl_code_store(tstore_t *st, uint32_t bins, es_dtable_t *d)
{
    uint32_t n = (uint32_t)st->n_rows, nc = st->n_cols, nf = st->n_feat, cc = st->class_col;
    uint32_t *cmap = NULL, count[C_N] = {0};
    uint8_t *how = NULL;
    int ret = ES_OK, fail = 0;
    if (!n) {
        terror("%s: no data rows", st->path);
        return ES_ERR_FORMAT;
    }
    d->n_samples = n;
    d->n_features = nf;
    d->x = malloc((size_t)nf * n * sizeof *d->x);
    d->n_states = malloc(nf * sizeof *d->n_states);
    d->y = malloc((size_t)n * sizeof *d->y);
    d->names = calloc(nf, sizeof *d->names);
    d->class_name = strdup(st->col[cc].name);
    how = malloc(nf);
    const tcol_t *ccol = &st->col[cc];
    cmap = malloc((ccol->dict.n ? ccol->dict.n : 1) * sizeof *cmap);
    if (!d->x || !d->n_states || !d->y || !d->names || !d->class_name || !how || !cmap) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t f = 0; f < nf; f++)
        if (!(d->names[f] = strdup(st->col[st->feat[f]].name))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
    /* the class: nominal in declared order, else distinct values sorted */
    if (ccol->kind == K_NOMINAL) {
        for (uint32_t i = 0; i < ccol->dict.n; i++) cmap[i] = i;
        d->n_classes = ccol->dict.n;
    } else if (!(d->n_classes = dict_order(&ccol->dict, 1, cmap))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    size_t row = 0;
    for (size_t b = 0; b < st->n_blk; b++)
        for (uint32_t i = 0; i < st->blk[b].n_rows; i++)
            d->y[row++] = (uint16_t)cmap[(uint32_t)st->blk[b].v[(size_t)i * nc + cc]];

    uint32_t n_grp = (nf + GROUP - 1) / GROUP;
#pragma omp parallel num_threads(st->nt)
    {
        float *g = malloc((size_t)GROUP * n * sizeof *g);
        scratch_t sc = {malloc((size_t)n * sizeof(float)), malloc(LUT_RANGE + 1),
                        malloc((LUT_RANGE + 1) * sizeof(uint16_t))};
        if (!g || !sc.tmp || !sc.pres || !sc.lut) {
#pragma omp atomic write
            fail = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (uint32_t gi = 0; gi < n_grp; gi++) {
            int failed;
#pragma omp atomic read
            failed = fail;
            if (failed) continue;
            uint32_t f0 = gi * GROUP, w = nf - f0 < GROUP ? nf - f0 : GROUP, cidx[GROUP];
            for (uint32_t j = 0; j < w; j++) cidx[j] = st->feat[f0 + j];
            /* transpose: each row's GROUP values are one or two cache lines */
            size_t r0 = 0;
            for (size_t b = 0; b < st->n_blk; b++) {
                const float *v = st->blk[b].v;
                for (uint32_t i = 0; i < st->blk[b].n_rows; i++, v += nc)
                    for (uint32_t j = 0; j < w; j++) g[(size_t)j * n + r0 + i] = v[cidx[j]];
                r0 += st->blk[b].n_rows;
            }
            for (uint32_t j = 0; j < w; j++) {
                int k = code_column(&st->col[cidx[j]], g + (size_t)j * n, n, bins, &sc,
                                    d->x + (size_t)(f0 + j) * n, &d->n_states[f0 + j]);
                if (k < 0) {
#pragma omp atomic write
                    fail = 1;
                    break;
                }
                how[f0 + j] = (uint8_t)k;
            }
        }
        free(g);
        free(sc.tmp);
        free(sc.pres);
        free(sc.lut);
    }
    if (fail) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t f = 0; f < nf; f++) count[how[f]]++;
    char a[32];
    es_log(ES_LOG_INFO, "es_table_read",
           "%s: %s rows, %u features (%u integer-coded, %u binned into %u bins, %u text, "
           "%u nominal, %u all missing), class '%s' with %u classes", st->path,
           es_fmt_count(n, a), nf, count[C_INT], count[C_BINS], bins, count[C_TEXT],
           count[C_NOMINAL], count[C_EMPTY], d->class_name, d->n_classes);
out:
    free(cmap);
    free(how);
    return ret;
}
