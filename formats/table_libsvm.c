/* table_libsvm.c -- the LIBSVM reader of es_table_read (table.c): sparse
 * "LABEL INDEX:VALUE ..." lines, parsed in parallel per batch of records and
 * spread into one dense row-major block (features 0..D-1, the class last).
 * Tables are dense from here on, so the width D (the largest index) is
 * bounded by what the file holds: a few bytes must not ask for gigabytes. */

#include <float.h>
#include <inttypes.h>
#include <math.h>
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
