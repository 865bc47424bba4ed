/* table_libsvm.c -- the LIBSVM reader of es_table_read (table.c): sparse
 * "LABEL INDEX:VALUE ..." lines, parsed in parallel per batch of records and
 * spread into one dense row-major block (features 0..D-1, the class last).
 * Tables are dense from here on, so the width D (the largest index) is
 * bounded by what the file holds: a few bytes must not ask for gigabytes. */

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_internal.h"

/* ---- LIBSVM ------------------------------------------------------------------- */

/* Columns and dense cells (rows x columns) allowed per stored value (and
 * row), and always allowed: a sparse file up to 1024 times denser is fine, a
 * 26-byte file naming feature 2^31 - 1 is not, and neither is one line
 * naming feature 7,483,647 (every column costs its coding, whatever the
 * rows). */
#define DENSE_PER_VALUE 1024u
#define DENSE_FREE_COLS 65536u
#define DENSE_FREE_CELLS ((uint64_t)1 << 26)

/* idx[] holds 0-based features (< 2^31); the top bit marks a value that is
 * not an integer (the column is then binned rather than coded by value). */
#define IDX_NONINT 0x80000000u
#define IDX_MASK 0x7fffffffu

typedef struct {
    uint32_t *idx; /* 0-based feature of each stored value, | IDX_NONINT */
    float *val;
    uint64_t n, cap;
    uint64_t *row_end; /* per row: end of its values in idx/val */
    uint32_t *cls;     /* per row: class dictionary id */
    uint64_t cap_rows;
    dict_t classes;
    uint32_t n_feat;   /* the largest index */
    uint64_t n_feat_line; /* the first line holding it */
} sparse_t;

/* Label and the number of INDEX:VALUE tokens of a line; the label is
 * NUL-terminated in place and a '#' comment cut off. */
static void ls_scan(char *buf, const rec_t *rc, uint32_t *lab, uint32_t *rest, uint32_t *cnt)
{
    char *p = buf + rc->start, *end = buf + rc->end;
    char *h = memchr(p, '#', (size_t)(end - p));
    if (h) end = h, *h = '\0';
    while (p < end && is_ls_blank(*p)) p++;
    *lab = (uint32_t)(p - buf);
    while (p < end && !is_ls_blank(*p)) p++;
    if (p < end) *p++ = '\0';
    *rest = (uint32_t)(p - buf);
    uint32_t n = 0;
    while (p < end) {
        while (p < end && is_ls_blank(*p)) p++;
        if (p == end) break;
        n++;
        while (p < end && !is_ls_blank(*p)) p++;
    }
    *cnt = n;
}

static int ls_parse(char *p, uint32_t *idx, float *val, uint32_t *max_idx, terr_t *e)
{
    uint64_t prev = 0;
    for (;;) {
        while (is_ls_blank(*p)) p++;
        if (!*p) return 0;
        char *ts = p, *q;
        uint64_t i = 0;
        for (q = p; *q >= '0' && *q <= '9'; q++)
            if (i <= INT32_MAX) i = i * 10 + (uint64_t)(*q - '0');
        char *te = q;
        while (*te && !is_ls_blank(*te)) te++;
        int last = !*te;
        *te = '\0';
        if (q == ts || *q != ':') {
            e->what = E_LS_TOKEN;
            e->val = ts;
            return -1;
        }
        if (i < 1 || i > INT32_MAX) {
            e->what = E_LS_INDEX;
            e->val = ts;
            return -1;
        }
        if (i <= prev) {
            e->what = E_LS_ORDER;
            e->a = i;
            e->b = prev;
            return -1;
        }
        prev = i;
        const char *vs = q + 1;
        double v = 0;
        if (is_missing(vs)) {
            *val = NAN;
        } else if (!es_tbl_parse_num(vs, &v) || fabs(v) > FLT_MAX) {
            e->what = E_NOT_NUM;
            e->col = (uint32_t)i - 1;
            e->val = vs;
            return -1;
        } else {
            *val = (float)v;
        }
        int nonint = !isnan(*val) && !(v == floor(v) && fabs(v) <= INT_EXACT);
        *idx++ = ((uint32_t)i - 1) | (nonint ? IDX_NONINT : 0);
        val++;
        if (i > *max_idx) *max_idx = (uint32_t)i;
        if (last) return 0;
        p = te + 1;
    }
}

static void sparse_free(sparse_t *sp)
{
    free(sp->idx);
    free(sp->val);
    free(sp->row_end);
    free(sp->cls);
    es_tbl_dict_free(&sp->classes);
}

static int ls_batch(tstore_t *st, sparse_t *sp, char *buf, size_t n, uint32_t *tmp)
{
    const rec_t *rec = st->rec;
    uint32_t *lab = tmp, *rest = tmp + n, *cnt = tmp + 2 * n;
    const terr_t *fe;
    if (st->n_rows + n > UINT32_MAX - 1) {
        terror("%s: more than 4,294,967,294 data rows are not supported", st->path);
        return ES_ERR_FORMAT;
    }
#pragma omp parallel for num_threads(st->nt) schedule(static)
    for (size_t r = 0; r < n; r++) ls_scan(buf, &rec[r], &lab[r], &rest[r], &cnt[r]);
    uint64_t total = 0;
    uint64_t rows = st->n_rows + n;
    if (rows > sp->cap_rows) {
        uint64_t nc = sp->cap_rows ? sp->cap_rows : 4096;
        while (nc < rows) nc *= 2;
        uint64_t *nr = realloc(sp->row_end, nc * sizeof *nr);
        if (nr) sp->row_end = nr;
        uint32_t *ncl = realloc(sp->cls, nc * sizeof *ncl);
        if (ncl) sp->cls = ncl;
        if (!nr || !ncl) return ES_ERR_NOMEM;
        sp->cap_rows = nc;
    }
    for (size_t r = 0; r < n; r++) {
        total += cnt[r];
        sp->row_end[st->n_rows + r] = sp->n + total;
    }
    if (sp->n + total > sp->cap) {
        uint64_t nc = sp->cap ? sp->cap : 65536;
        while (nc < sp->n + total) nc *= 2;
        uint32_t *ni = realloc(sp->idx, nc * sizeof *ni);
        if (ni) sp->idx = ni;
        float *nv = realloc(sp->val, nc * sizeof *nv);
        if (nv) sp->val = nv;
        if (!ni || !nv) return ES_ERR_NOMEM;
        sp->cap = nc;
    }
    es_tbl_err_reset(st);
#pragma omp parallel num_threads(st->nt)
    {
        int t = es_tbl_thread_id();
        terr_t *e = &st->err[t];
        uint32_t mx = 0;
        size_t mx_r = 0;
#pragma omp for schedule(static)
        for (size_t r = 0; r < n; r++) {
            /* a label alone has nothing to parse (and idx may be NULL) */
            if (e->rec != NO_REC || !cnt[r]) continue;
            uint64_t at = sp->row_end[st->n_rows + r] - cnt[r];
            uint32_t before = mx;
            e->col = UINT32_MAX;
            if (ls_parse(buf + rest[r], sp->idx + at, sp->val + at, &mx, e)) e->rec = r;
            else if (mx > before) mx_r = r;
        }
#pragma omp critical(es_table_maxidx)
        if (mx > sp->n_feat || (mx && mx == sp->n_feat && rec[mx_r].line < sp->n_feat_line)) {
            sp->n_feat = mx;
            sp->n_feat_line = rec[mx_r].line;
        }
    }
    if ((fe = es_tbl_err_first(st))) return es_tbl_report(st, rec, fe);
    for (size_t r = 0; r < n; r++) {
        const char *s = buf + lab[r];
        uint32_t id;
        if (is_missing(s) || memchr(s, ':', strlen(s))) {
            terror("%s: line %" PRIu64 ": the class label is missing (expected 'LABEL "
                   "INDEX:VALUE ...')", st->path, rec[r].line);
            return ES_ERR_FORMAT;
        }
        int k = es_tbl_dict_add(&sp->classes, s, &id);
        if (k < 0) return k;
        if (k) {
            terror("%s: line %" PRIu64 ": more than %u distinct class labels", st->path,
                   rec[r].line, MAX_VALUES);
            return ES_ERR_FORMAT;
        }
        sp->cls[st->n_rows + r] = id;
    }
    sp->n += total;
    st->n_rows += n;
    return ES_OK;
}

int es_tbl_read_libsvm(tstore_t *st, rdr_t *r, const es_table_opt_t *opt)
{
    sparse_t sp;
    uint32_t *tmp = NULL;
    size_t cap_tmp = 0, n;
    int ret = ES_OK;
    memset(&sp, 0, sizeof sp);
    if (opt->class_col) {
        terror("%s: --class does not apply to a LIBSVM file: the label starting each line is "
               "the class", st->path);
        return ES_ERR_ARG;
    }
    st->d = (dialect_t){.delim = ' ', .comment = '#'};
    for (;;) {
        if ((ret = es_tbl_rdr_records(r, &st->d, &st->rec, &st->cap_rec, &n))) goto out;
        if (!n) break;
        if (3 * n > cap_tmp) {
            free(tmp);
            cap_tmp = 3 * n;
            if (!(tmp = malloc(cap_tmp * sizeof *tmp))) {
                ret = ES_ERR_NOMEM;
                goto out;
            }
        }
        if ((ret = ls_batch(st, &sp, r->buf, n, tmp))) goto out;
    }
    if (!st->n_rows) goto out; /* reported by the caller */
    if (!sp.n_feat) {
        terror("%s: no features: no line has an INDEX:VALUE pair", st->path);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    /* dense rows: features 0..D-1, the class last */
    uint32_t nf = sp.n_feat, nc = nf + 1;
    uint64_t cells = st->n_rows * (uint64_t)nc; /* < 2^32 * 2^31 */
    uint64_t allowed = DENSE_PER_VALUE * (sp.n + st->n_rows);
    if ((cells > DENSE_FREE_CELLS && cells > allowed) ||
        (nf > DENSE_FREE_COLS && nf > DENSE_PER_VALUE * sp.n)) {
        char a[32], b[32], c[32];
        terror("%s: line %" PRIu64 ": feature index %u makes a table of %s rows x %u columns "
               "(%s cells) from %s stored values; tables are kept dense, and one over %u "
               "columns or cells per value is refused: number the features 1..D without "
               "large gaps",
               st->path, sp.n_feat_line, nf, es_fmt_count(st->n_rows, a), nc,
               es_fmt_count(cells, b), es_fmt_count(sp.n, c), DENSE_PER_VALUE);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    if ((ret = es_tbl_store_cols(st, nc))) goto out;
    st->class_col = nf;
    for (uint32_t c = 0; c < nc; c++) {
        char name[32];
        if (c < nf) snprintf(name, sizeof name, "f%u", c + 1);
        else snprintf(name, sizeof name, "label");
        if (!(st->col[c].name = strdup(name))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        st->col[c].kind = c < nf ? K_NUM : K_TEXT;
    }
    for (uint64_t k = 0; k < sp.n; k++)
        if (sp.idx[k] & IDX_NONINT) st->col[sp.idx[k] & IDX_MASK].nonint = 1;
    st->col[nf].dict = sp.classes;
    memset(&sp.classes, 0, sizeof sp.classes);
    size_t rows = (size_t)st->n_rows;
    if (rows > SIZE_MAX / sizeof(float) / nc) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    float *v = calloc(rows * nc, sizeof *v);
    if (!v) {
        char a[32];
        terror("%s: out of memory for %s rows x %u features", st->path,
               es_fmt_count(st->n_rows, a), nf);
        ret = ES_ERR_NOMEM;
        goto out;
    }
#pragma omp parallel for num_threads(st->nt) schedule(static)
    for (size_t i = 0; i < rows; i++) {
        float *row = v + i * nc;
        for (uint64_t k = i ? sp.row_end[i - 1] : 0; k < sp.row_end[i]; k++)
            row[sp.idx[k] & IDX_MASK] = sp.val[k];
        row[nf] = (float)sp.cls[i];
    }
    st->n_rows = 0;
    if ((ret = es_tbl_add_block(st, v, rows))) free(v);
out:
    free(tmp);
    sparse_free(&sp);
    return ret;
}

/* ---- multi-label LIBSVM, as read (es_ntable_read_libsvm) ----------------------- */

/* One "i:v" token at p (NUL-terminated): 1-based index and value.
 * @return 0, or -1 when malformed */
static int ml_pair(const char *p, uint64_t *idx, float *val)
{
    char *e;
    if (*p < '0' || *p > '9') return -1;
    unsigned long long i = strtoull(p, &e, 10);
    if (*e != ':' || i == 0 || i > IDX_MASK) return -1;
    p = e + 1;
    double v = strtod(p, &e);
    if (e == p || *e || !isfinite(v) || fabs(v) > FLT_MAX) return -1;
    *idx = i;
    *val = (float)v;
    return 0;
}

/* The labels of a line: a comma-separated list of integers 0.. (no blanks),
 * or nothing.  Bit per label into lab[0..max_lab] when lab is not NULL.
 * @return the largest label + 1, 0 for none, or -1 when malformed */
static int64_t ml_labels(const char *p, uint8_t *lab)
{
    int64_t top = 0;
    while (*p) {
        char *e;
        if (*p < '0' || *p > '9') return -1;
        unsigned long long k = strtoull(p, &e, 10);
        if (k >= 65536 || (*e && *e != ',') || (*e == ',' && !e[1])) return -1;
        if (lab) lab[k] = 1;
        if ((int64_t)k + 1 > top) top = (int64_t)k + 1;
        p = *e ? e + 1 : e;
    }
    return top;
}

/* The next blank-separated token of [*p, e), NUL-terminated in place.
 * @return its start, or NULL at the end */
static char *ml_token(char **p, char *e)
{
    while (*p < e && is_ls_blank(**p)) (*p)++;
    if (*p == e) return NULL;
    char *tok = *p;
    while (*p < e && !is_ls_blank(**p)) (*p)++;
    if (*p < e) *(*p)++ = '\0';
    return tok;
}

/* The next line of [*q, end) copied, NUL-terminated and cut at a '#', into
 * *buf (grown as needed; the text is left intact for the second pass).
 * @return 1, 0 at the end, or -1 out of memory */
static int ml_line(const char **q, const char *end, char **buf, size_t *cap, size_t *len)
{
    if (*q >= end) return 0;
    const char *ls = *q, *nl = memchr(ls, '\n', (size_t)(end - ls)), *le = nl ? nl : end;
    *q = le + (le < end);
    const char *h = memchr(ls, '#', (size_t)(le - ls));
    if (h) le = h;
    size_t ll = (size_t)(le - ls);
    if (ll + 1 > *cap) {
        char *b = realloc(*buf, ll + 1);
        if (!b) return -1;
        *buf = b;
        *cap = ll + 1;
    }
    memcpy(*buf, ls, ll);
    (*buf)[ll] = '\0';
    *len = ll;
    return 1;
}

int es_ntable_read_libsvm(const char *path, uint32_t min_feat, uint32_t min_lab, es_ntable_t *out,
                          uint32_t *n_lab)
{
    char *text = NULL, *copy = NULL;
    const char *q, *end;
    size_t len, cap_copy = 0, ll;
    uint64_t n_rows = 0, n_vals = 0, ln = 0, max_idx = min_feat;
    int64_t max_lab = min_lab;
    int ret;
    memset(out, 0, sizeof *out);
    *n_lab = 0;
    if ((ret = es_text_read(path, "LIBSVM file", &text, &len))) return ret;
    /* pass 1: check every line, the width and the rows */
    end = text + len;
    q = text;
    for (int k; (k = ml_line(&q, end, &copy, &cap_copy, &ll));) {
        if (k < 0) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        ln++;
        char *p = copy, *e = copy + ll, *tok = ml_token(&p, e);
        if (!tok) continue; /* blank or comment only */
        n_rows++;
        uint64_t prev = 0, idx;
        float val;
        if (!strchr(tok, ':')) {
            int64_t top = ml_labels(tok, NULL);
            if (top < 0) {
                es_log(ES_LOG_ERROR, "es_ntable_read_libsvm",
                       "%s: line %" PRIu64 ": labels '%.40s': expected comma-separated label "
                       "numbers 0..65535 (e.g. 0,3,7)", path, ln, tok);
                ret = ES_ERR_FORMAT;
                goto out;
            }
            if (top > max_lab) max_lab = top;
            tok = NULL;
        }
        for (;;) {
            if (!tok && !(tok = ml_token(&p, e))) break;
            if (ml_pair(tok, &idx, &val)) {
                es_log(ES_LOG_ERROR, "es_ntable_read_libsvm",
                       "%s: line %" PRIu64 ": '%.40s': expected INDEX:VALUE with an index >= 1 and a "
                       "finite number", path, ln, tok);
                ret = ES_ERR_FORMAT;
                goto out;
            }
            if (idx <= prev) {
                es_log(ES_LOG_ERROR, "es_ntable_read_libsvm",
                       "%s: line %" PRIu64 ": index %" PRIu64 " after %" PRIu64
                       ": indices must increase along a line", path, ln, idx, prev);
                ret = ES_ERR_FORMAT;
                goto out;
            }
            prev = idx;
            if (idx > max_idx) max_idx = idx;
            n_vals++;
            tok = NULL;
        }
    }
    if (!n_rows) {
        es_log(ES_LOG_ERROR, "es_ntable_read_libsvm", "%s: no data lines", path);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    if (!max_idx) {
        es_log(ES_LOG_ERROR, "es_ntable_read_libsvm", "%s: no feature (INDEX:VALUE) on any line", path);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    if (n_rows > UINT32_MAX ||
        (max_idx > min_feat && max_idx > DENSE_FREE_COLS &&
         max_idx > (n_vals + n_rows) * DENSE_PER_VALUE) ||
        (n_rows * (max_idx + (uint64_t)max_lab) > DENSE_FREE_CELLS &&
         n_rows * (max_idx + (uint64_t)max_lab) > (n_vals + n_rows) * DENSE_PER_VALUE)) {
        es_log(ES_LOG_ERROR, "es_ntable_read_libsvm",
               "%s: %" PRIu64 " rows x %" PRIu64 " features is too sparse to hold densely (%" PRIu64
               " values)", path, n_rows, max_idx, n_vals);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    uint32_t nf = (uint32_t)max_idx, nl = (uint32_t)max_lab, nc = nf + nl, n = (uint32_t)n_rows;
    out->n_rows = n;
    out->n_cols = nc;
    if (!(out->v = calloc((size_t)n * nc, sizeof *out->v)) ||
        !(out->names = calloc(nc, sizeof *out->names)) || !(out->kind = calloc(nc, sizeof *out->kind)) ||
        !(out->n_values = calloc(nc, sizeof *out->n_values)) ||
        !(out->values = calloc(nc, sizeof *out->values))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t c = 0; c < nc; c++) {
        char name[32];
        if (c < nf) snprintf(name, sizeof name, "f%u", c + 1);
        else snprintf(name, sizeof name, "label%u", c - nf);
        if (!(out->names[c] = strdup(name))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        out->kind[c] = ES_NCOL_NUMERIC;
    }
    /* pass 2: the values (a value left out is 0, as LIBSVM's sparse rows mean) */
    uint8_t *lab = calloc(nl ? nl : 1, 1);
    if (!lab) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    q = text;
    uint32_t r = 0;
    for (int k; (k = ml_line(&q, end, &copy, &cap_copy, &ll));) {
        if (k < 0) {
            free(lab);
            ret = ES_ERR_NOMEM;
            goto out;
        }
        char *p = copy, *e = copy + ll, *tok = ml_token(&p, e);
        if (!tok) continue;
        if (!strchr(tok, ':')) {
            memset(lab, 0, nl ? nl : 1);
            ml_labels(tok, lab);
            for (uint32_t l = 0; l < nl; l++) out->v[(size_t)(nf + l) * n + r] = lab[l];
            tok = NULL;
        }
        for (;;) {
            if (!tok && !(tok = ml_token(&p, e))) break;
            uint64_t idx;
            float val;
            ml_pair(tok, &idx, &val);
            out->v[(size_t)(idx - 1) * n + r] = val;
            tok = NULL;
        }
        r++;
    }
    free(lab);
    *n_lab = nl;
out:
    if (ret == ES_ERR_NOMEM) es_log(ES_LOG_ERROR, "es_ntable_read_libsvm", "%s: out of memory", path);
    if (ret) es_ntable_free(out);
    free(copy);
    free(text);
    return ret;
}
