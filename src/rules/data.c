/* data.c -- a table as read (es_ntable_t) split into the features and the
 * labels of a multi-label problem.  The features keep the table's floats
 * (mlrl-boomer's float32 feature matrix); the labels become 0/1 bytes. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules_internal.h"

#define derror(...) es_log(ES_LOG_ERROR, "es_rules_data", __VA_ARGS__)

void es_rl_free_names(char **names, uint32_t n)
{
    for (uint32_t k = 0; names && k < n; k++) free(names[k]);
    free(names);
}

void es_rl_free_values(char ***values, uint32_t *n_values, uint32_t n)
{
    for (uint32_t f = 0; values && f < n; f++) es_rl_free_names(values[f], values[f] ? n_values[f] : 0);
    free(values);
    free(n_values);
}

void es_rules_data_free(es_rules_data_t *d)
{
    if (!d) return;
    es_rl_free_names(d->feat_name, d->n_feat);
    es_rl_free_names(d->lab_name, d->n_lab);
    es_rl_free_values(d->values, d->n_values, d->n_feat);
    free(d->x);
    free(d->y);
    memset(d, 0, sizeof *d);
}

/* The column named s[0..len) (a name first, then a 1-based number).
 * @return its index, or UINT32_MAX */
static uint32_t find_col(const es_ntable_t *t, const char *s, size_t len)
{
    for (uint32_t c = 0; c < t->n_cols; c++)
        if (strlen(t->names[c]) == len && !strncmp(t->names[c], s, len)) return c;
    uint64_t v = 0;
    size_t i = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9' && v <= UINT32_MAX; i++) v = v * 10 + (uint64_t)(s[i] - '0');
    if (len && i == len && v >= 1 && v <= t->n_cols) return (uint32_t)v - 1;
    return UINT32_MAX;
}

/* Mark the label columns in is_lab.  @return the number, or -1 after a message */
static int64_t pick_labels(const es_ntable_t *t, const char *path, char *const *lab_names,
                           uint32_t n_lab_names, const char *lab_file, const char *lab_cols, char *const *want_lab,
                           uint32_t n_want_lab, uint8_t *is_lab, uint32_t *order)
{
    int64_t n = 0;
    if (lab_names) {
        for (uint32_t k = 0; k < n_lab_names; k++) {
            uint32_t c = UINT32_MAX;
            for (uint32_t j = 0; j < t->n_cols && c == UINT32_MAX; j++)
                if (!strcmp(t->names[j], lab_names[k])) c = j;
            if (c == UINT32_MAX) {
                derror("%s: no attribute '%s', a label named by %s", path, lab_names[k],
                       lab_file ? lab_file : "the label file");
                return -1;
            }
            is_lab[c] = 1;
            order[n++] = c;
        }
        return n;
    }
    if (lab_cols) {
        for (const char *s = lab_cols;;) {
            size_t len = strcspn(s, ",");
            uint32_t c = find_col(t, s, len);
            if (c == UINT32_MAX) {
                derror("%s: --labels: no column '%.*s' (names or 1-based numbers 1..%u)", path,
                       (int)(len < 200 ? len : 200), s, t->n_cols);
                return -1;
            }
            if (is_lab[c]) {
                derror("%s: --labels: column %u ('%s') is listed twice", path, c + 1,
                       t->names[c]);
                return -1;
            }
            is_lab[c] = 1;
            order[n++] = c;
            s += len;
            if (!*s++) break;
        }
        return n;
    }
    /* a model's labels, when the table has every one of them */
    for (uint32_t k = 0; k < n_want_lab; k++) {
        uint32_t c = UINT32_MAX;
        for (uint32_t j = 0; j < t->n_cols && c == UINT32_MAX; j++)
            if (!strcmp(t->names[j], want_lab[k])) c = j;
        if (c == UINT32_MAX) {
            memset(is_lab, 0, t->n_cols);
            return 0;
        }
        is_lab[c] = 1;
        order[n++] = c;
    }
    return n;
}

int es_rules_meka_labels(const es_ntable_t *t, const char *path, char ***names, uint32_t *n)
{
    *names = NULL;
    *n = 0;
    const char *r = t->relation, *c = NULL;
    /* "-C" as a word of the relation name (MEKA reads its options there), then a number */
    for (const char *p = r; p && (p = strstr(p, "-C")); p += 2)
        if ((p == r || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':') &&
            (p[2] == ' ' || p[2] == '\t')) {
            c = p + 2;
            break;
        }
    if (!c) return ES_OK;
    while (*c == ' ' || *c == '\t') c++;
    char *e;
    long k = strtol(c, &e, 10);
    if (e == c || (*e && *e != ' ' && *e != '\t')) {
        derror("%s: @relation '%s': MEKA's -C needs a number of label attributes (n: the first n, "
               "-n: the last n)", path, r);
        return ES_ERR_FORMAT;
    }
    uint32_t nc = t->n_cols, m = 0;
    if (k >= -(long)UINT32_MAX && k <= (long)UINT32_MAX) m = (uint32_t)(k < 0 ? -k : k);
    if (m == 0 || m >= nc) {
        derror("%s: @relation '%s': -C %ld: the labels must be 1 to %u of its %u attributes (at "
               "least one feature left)", path, r, k, nc ? nc - 1 : 0, nc);
        return ES_ERR_FORMAT;
    }
    uint32_t first = k > 0 ? 0 : nc - m;
    char **v = calloc(m, sizeof *v);
    if (!v) return ES_ERR_NOMEM;
    for (uint32_t j = 0; j < m; j++) {
        const char *name = t->names[first + j];
        for (uint32_t q = 0; q < nc; q++)
            if (q != first + j && !strcmp(t->names[q], name)) {
                derror("%s: label attribute %u ('%s') is not the only attribute of that name", path,
                       first + j + 1, name);
                es_rl_free_names(v, m);
                return ES_ERR_FORMAT;
            }
        if (!(v[j] = strdup(name))) {
            es_rl_free_names(v, m);
            return ES_ERR_NOMEM;
        }
    }
    *names = v;
    *n = m;
    return ES_OK;
}

int es_rules_data_from_table(es_ntable_t *t, const char *path, char *const *lab_names,
                             uint32_t n_lab_names, const char *lab_file, const char *lab_cols,
                             char *const *want_lab, uint32_t n_want_lab,
                             char *const *want_feat, uint32_t n_want_feat, es_rules_data_t *d)
{
    int ret = ES_OK;
    uint32_t nc = t->n_cols, n = t->n_rows;
    uint8_t *is_lab = calloc(nc ? nc : 1, 1);
    uint32_t *order = malloc((nc ? nc : 1) * sizeof *order);
    memset(d, 0, sizeof *d);
    if (!is_lab || !order) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    int64_t nl = pick_labels(t, path, lab_names, n_lab_names, lab_file, lab_cols, want_lab, n_want_lab,
                             is_lab, order);
    if (nl < 0) {
        ret = lab_cols ? ES_ERR_ARG : ES_ERR_FORMAT;
        goto out;
    }
    uint32_t nf = nc - (uint32_t)nl;
    if (!nf) {
        derror("%s: every column is a label: no feature left", path);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    d->n_ex = n;
    d->n_feat = nf;
    d->n_lab = (uint32_t)nl;
    if (!(d->x = malloc((size_t)n * nf * sizeof *d->x)) ||
        !(d->feat_name = calloc(nf, sizeof *d->feat_name)) ||
        !(d->n_values = calloc(nf, sizeof *d->n_values)) ||
        !(d->values = calloc(nf, sizeof *d->values)) ||
        (nl && !(d->lab_name = calloc((size_t)nl, sizeof *d->lab_name))) ||
        (nl && !(d->y = malloc((size_t)n * (size_t)nl)))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    uint32_t f = 0;
    for (uint32_t c = 0; c < nc; c++) {
        if (is_lab[c]) continue;
        if (t->kind[c] == ES_NCOL_TEXT) {
            derror("%s: column %u ('%s') holds text; features must be numbers or ARFF nominal "
                   "attributes", path, c + 1, t->names[c]);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        if (want_feat && (f >= n_want_feat || strcmp(want_feat[f], t->names[c]))) {
            derror("%s: feature %u is '%s' but the model's is '%s': the input must have the "
                   "model's features in the model's order", path, f + 1, t->names[c],
                   f < n_want_feat ? want_feat[f] : "(none: the model has fewer features)");
            ret = ES_ERR_FORMAT;
            goto out;
        }
        if (!(d->feat_name[f] = strdup(t->names[c]))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        memcpy(d->x + (size_t)f * n, t->v + (size_t)c * n, (size_t)n * sizeof *d->x);
        if (t->kind[c] == ES_NCOL_NOMINAL) {
            d->n_values[f] = t->n_values[c];
            d->values[f] = t->values[c];
            t->values[c] = NULL;
            t->n_values[c] = 0;
        }
        f++;
    }
    if (want_feat && nf != n_want_feat) {
        derror("%s: %u features but the model has %u", path, nf, n_want_feat);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    for (uint32_t l = 0; l < (uint32_t)nl; l++) {
        uint32_t c = order[l];
        if (!(d->lab_name[l] = strdup(t->names[c]))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        int nominal01 = t->kind[c] == ES_NCOL_NOMINAL && t->n_values[c] == 2 &&
                        !strcmp(t->values[c][0], "0") && !strcmp(t->values[c][1], "1");
        if (t->kind[c] == ES_NCOL_TEXT ||
            (t->kind[c] == ES_NCOL_NOMINAL && !nominal01)) {
            derror("%s: label column %u ('%s') must hold 0/1 (numbers or a nominal attribute "
                   "declared {0,1})", path, c + 1, t->names[c]);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        const float *v = t->v + (size_t)c * n;
        for (uint32_t i = 0; i < n; i++) {
            if (v[i] != 0.0f && v[i] != 1.0f) {
                derror("%s: label '%s' of data row %u is %s; labels must be 0 or 1", path,
                       t->names[c], i + 1, isnan(v[i]) ? "missing" : "not 0 or 1");
                ret = ES_ERR_FORMAT;
                goto out;
            }
            d->y[(size_t)i * (size_t)nl + l] = v[i] == 1.0f;
        }
    }
out:
    if (ret == ES_ERR_NOMEM) derror("%s: out of memory", path);
    if (ret) es_rules_data_free(d);
    free(is_lab);
    free(order);
    return ret;
}
