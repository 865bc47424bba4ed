/* table.c -- general tables for mutual-information feature selection: CSV/TSV
 * with a header line, ARFF (dense and sparse rows) and LIBSVM, read into a
 * discrete table (es_dtable_t).
 *
 * Tables can be large (400,000 rows x 2,000 columns is a 4-8 GB CSV), so the
 * file is streamed in chunks of whole records and never held whole.  Each
 * chunk of a CSV or ARFF file goes through the same steps:
 *   1. split into records (sequential; memchr finds the newlines, and only a
 *      line with a quote character is scanned byte by byte, since a quoted
 *      field may go on over the next line);
 *   2. cut every record into fields in place (parallel over records);
 *   3. fix the kind of the CSV columns not yet known (numbers or text) from
 *      their first non-missing value;
 *   4. parse numbers and look up nominal values into a row-major block of
 *      floats, NaN = missing (parallel over records);
 *   5. intern text values (parallel over the text columns: one thread owns
 *      each column's dictionary, so no locks).
 * After the last chunk the blocks are transposed 16 columns at a time (16
 * floats = one cache line of a row) and each column is coded alone: integer
 * columns by the rank of their distinct values, other numbers into equal-width
 * bins, text by sorted value, nominal attributes by declared order.  Floats
 * halve the memory of doubles; whether a column is integer is decided from
 * the doubles while parsing, so rounding never makes a value look integral.
 * Errors found in parallel are kept per thread and the first one in file
 * order is reported, so the message does not depend on the thread count.
 * The LIBSVM reader is in table_libsvm.c, the coding step in table_code.c and
 * the machinery all readers share in table_store.c (table_internal.h). */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "table_internal.h"

#define TABLE_CHUNK ((size_t)32 << 20)     /* bytes read per step */
#define OFF_ZERO (UINT32_MAX - 1)          /* sparse ARFF: value left out (0) */
/* ---- CSV and ARFF records --------------------------------------------------------- */

/* A sparse ARFF row "{i v, j w}": 0-based indices, left-out values 0. */
static int tokenize_sparse(const tstore_t *st, char *buf, char *p, char *end, uint32_t *cell,
                           terr_t *e)
{
    const dialect_t *d = &st->d;
    for (uint32_t c = 0; c < st->n_cols; c++) cell[c] = OFF_ZERO;
    char *q = end;
    while (q > p && is_pad(q[-1], d->delim)) q--;
    if (q - p < 2 || q[-1] != '}') {
        e->what = E_SPARSE_SYNTAX;
        e->val = p;
        return -1;
    }
    end = q - 1;
    *end = '\0';
    p++;
    while (p < end && is_pad(*p, d->delim)) p++;
    int more = p < end;
    while (more) {
        while (p < end && is_pad(*p, d->delim)) p++;
        char *is = p, *fs;
        uint64_t idx = 0;
        for (; p < end && *p >= '0' && *p <= '9'; p++)
            if (idx <= UINT32_MAX) idx = idx * 10 + (uint64_t)(*p - '0');
        if (p == is || p >= end || !is_pad(*p, d->delim)) {
            e->what = E_SPARSE_SYNTAX;
            e->val = is;
            return -1;
        }
        if (idx >= st->n_cols) {
            e->what = E_SPARSE_INDEX;
            e->a = idx;
            e->b = st->n_cols;
            return -1;
        }
        if (cell[idx] != OFF_ZERO) {
            e->what = E_SPARSE_DUP;
            e->a = idx;
            return -1;
        }
        int k = es_tbl_cut_field(d, &p, end, &fs, &more);
        if (k) {
            e->what = k == -1 ? E_UNCLOSED : E_AFTER_QUOTE;
            e->a = idx + 1;
            e->val = p;
            return -1;
        }
        cell[idx] = (uint32_t)(fs - buf);
    }
    return 0;
}

static int tokenize(const tstore_t *st, char *buf, const rec_t *rc, uint32_t *cell, terr_t *e)
{
    const dialect_t *d = &st->d;
    char *p = buf + rc->start, *end = buf + rc->end;
    e->col = UINT32_MAX;
    if (st->fmt == F_ARFF) {
        char *q = p;
        while (q < end && is_pad(*q, d->delim)) q++;
        if (*q == '{') return tokenize_sparse(st, buf, q, end, cell, e);
    }
    uint32_t nf = 0;
    int more = 1;
    while (more) {
        char *fs;
        int k = es_tbl_cut_field(d, &p, end, &fs, &more);
        if (k) {
            e->what = k == -1 ? E_UNCLOSED : E_AFTER_QUOTE;
            e->a = (uint64_t)nf + 1;
            e->val = p;
            return -1;
        }
        if (nf < st->n_cols) cell[nf] = (uint32_t)(fs - buf);
        if (nf < UINT32_MAX) nf++;
    }
    if (nf != st->n_cols) {
        e->what = E_FIELDS;
        e->a = nf;
        e->b = st->n_cols;
        return -1;
    }
    return 0;
}

/* CSV: a column's kind is numbers when its first non-missing value is a
 * number, text otherwise; later values must agree (a word in a column of
 * numbers is a typo to report, not a reason to code the column as text). */
static void resolve_kinds(tstore_t *st, const char *buf, const rec_t *rec, size_t n)
{
    uint32_t nc = st->n_cols, n_pend = 0;
    uint32_t *pend = NULL;
    for (uint32_t c = 0; c < nc; c++)
        if (st->col[c].kind == K_UNDET) n_pend++;
    if (!n_pend || !(pend = malloc(n_pend * sizeof *pend))) {
        if (n_pend) { /* no memory for the list: one column at a time */
            for (uint32_t c = 0; c < nc; c++)
                for (size_t r = 0; r < n && st->col[c].kind == K_UNDET; r++) {
                    const char *s = buf + st->cell[r * nc + c];
                    double v;
                    if (is_missing(s)) continue;
                    st->col[c].kind = es_tbl_parse_num(s, &v) ? K_NUM : K_TEXT;
                    st->col[c].first_line = rec[r].line;
                }
        }
        return;
    }
    n_pend = 0;
    for (uint32_t c = 0; c < nc; c++)
        if (st->col[c].kind == K_UNDET) pend[n_pend++] = c;
    for (size_t r = 0; r < n && n_pend; r++) {
        for (uint32_t k = 0; k < n_pend;) {
            uint32_t c = pend[k];
            const char *s = buf + st->cell[r * nc + c];
            double v;
            if (is_missing(s)) {
                k++;
                continue;
            }
            st->col[c].kind = es_tbl_parse_num(s, &v) ? K_NUM : K_TEXT;
            st->col[c].first_line = rec[r].line;
            pend[k] = pend[--n_pend];
        }
    }
    free(pend);
}

/* One record's fields into its row of floats (numbers, nominal ids, NaN). */
static int convert_rec(const tstore_t *st, const char *buf, const uint32_t *cell, float *row,
                       uint8_t *nonint, terr_t *e)
{
    for (uint32_t c = 0; c < st->n_cols; c++) {
        const tcol_t *col = &st->col[c];
        uint32_t o = cell[c];
        if (o == OFF_ZERO) { /* sparse ARFF: left out = 0 (text: "0", set by intern_col) */
            row[c] = 0.0f;
            continue;
        }
        const char *s = buf + o;
        double v;
        if (is_missing(s)) {
            if (c == st->class_col) {
                e->what = E_CLASS_MISSING;
                e->col = c;
                e->val = s;
                return -1;
            }
            row[c] = NAN;
            continue;
        }
        switch (col->kind) {
        case K_NUM:
            if (!es_tbl_parse_num(s, &v)) {
                e->what = E_NOT_NUM;
                e->col = c;
                e->val = s;
                return -1;
            }
            if (fabs(v) > FLT_MAX) {
                e->what = E_RANGE;
                e->col = c;
                e->val = s;
                return -1;
            }
            row[c] = (float)v;
            if (!(v == floor(v) && fabs(v) <= INT_EXACT)) nonint[c] = 1;
            break;
        case K_TEXT:
            if (col->must_num && !es_tbl_parse_num(s, &v)) {
                e->what = E_NOT_NUM;
                e->col = c;
                e->val = s;
                return -1;
            }
            row[c] = 0.0f; /* the id comes from intern_col() */
            break;
        case K_NOMINAL: {
            uint32_t id = es_tbl_dict_find(&col->dict, s);
            if (id == NO_ID) {
                e->what = E_NOT_DECL;
                e->col = c;
                e->val = s;
                return -1;
            }
            row[c] = (float)id;
            break;
        }
        default: row[c] = NAN; break; /* K_UNDET: only missing values so far */
        }
    }
    return 0;
}

/* Intern text column c of the batch; one thread per column. */
static int intern_col(tstore_t *st, const char *buf, size_t n, uint32_t c, float *v, terr_t *e)
{
    uint32_t nc = st->n_cols;
    for (size_t r = 0; r < n; r++) {
        uint32_t o = st->cell[r * nc + c], id;
        const char *s = o == OFF_ZERO ? "0" : buf + o;
        if (o != OFF_ZERO && is_missing(s)) continue;
        if (st->fmt == F_DELIM && c != st->class_col) { /* for the warning in check_text() */
            double x;
            st->col[c].n_text++;
            st->col[c].n_numlike += (uint64_t)es_tbl_parse_num(s, &x);
        }
        int k = es_tbl_dict_add(&st->col[c].dict, s, &id);
        if (k) {
            e->what = k == 1 ? E_TOO_MANY : E_NOMEM;
            e->rec = r;
            e->col = c;
            return -1;
        }
        v[r * nc + c] = (float)id;
    }
    return 0;
}

/* Steps 2-5 of the file comment for one batch of CSV/ARFF records. */
static int do_batch(tstore_t *st, char *buf, size_t n)
{
    const rec_t *rec = st->rec;
    uint32_t nc = st->n_cols;
    const terr_t *fe;
    if (st->n_rows + n > UINT32_MAX - 1) {
        terror("%s: more than 4,294,967,294 data rows are not supported", st->path);
        return ES_ERR_FORMAT;
    }
    if (n * nc > st->cap_cell) {
        free(st->cell);
        st->cap_cell = n * nc;
        if (!(st->cell = malloc(st->cap_cell * sizeof *st->cell))) {
            st->cap_cell = 0;
            return ES_ERR_NOMEM;
        }
    }
    es_tbl_err_reset(st);
#pragma omp parallel num_threads(st->nt)
    {
        terr_t *e = &st->err[es_tbl_thread_id()];
#pragma omp for schedule(static)
        for (size_t r = 0; r < n; r++) {
            if (e->rec != NO_REC) continue;
            if (tokenize(st, buf, &rec[r], st->cell + r * nc, e)) e->rec = r;
        }
    }
    if ((fe = es_tbl_err_first(st))) return es_tbl_report(st, rec, fe);

    if (st->fmt == F_DELIM) resolve_kinds(st, buf, rec, n);

    float *v = malloc(n * nc * sizeof *v);
    if (!v) return ES_ERR_NOMEM;
    es_tbl_err_reset(st);
#pragma omp parallel num_threads(st->nt)
    {
        int t = es_tbl_thread_id();
        terr_t *e = &st->err[t];
        uint8_t *ni = st->nonint + (size_t)t * nc;
#pragma omp for schedule(static)
        for (size_t r = 0; r < n; r++) {
            if (e->rec != NO_REC) continue;
            if (convert_rec(st, buf, st->cell + r * nc, v + r * nc, ni, e)) e->rec = r;
        }
    }
    if ((fe = es_tbl_err_first(st))) {
        free(v);
        return es_tbl_report(st, rec, fe);
    }

    uint32_t n_text = 0;
    for (uint32_t c = 0; c < nc; c++) n_text += st->col[c].kind == K_TEXT;
    if (n_text) {
        uint32_t *tc = malloc(n_text * sizeof *tc);
        if (!tc) {
            free(v);
            return ES_ERR_NOMEM;
        }
        n_text = 0;
        for (uint32_t c = 0; c < nc; c++)
            if (st->col[c].kind == K_TEXT) tc[n_text++] = c;
        es_tbl_err_reset(st);
#pragma omp parallel num_threads(st->nt)
        {
            terr_t *e = &st->err[es_tbl_thread_id()];
            terr_t mine;
#pragma omp for schedule(dynamic, 1)
            for (uint32_t k = 0; k < n_text; k++) {
                mine.rec = NO_REC;
                mine.val = NULL;
                if (intern_col(st, buf, n, tc[k], v, &mine) &&
                    (e->rec == NO_REC || mine.rec < e->rec ||
                     (mine.rec == e->rec && mine.col < e->col)))
                    *e = mine;
            }
        }
        free(tc);
        if ((fe = es_tbl_err_first(st))) {
            free(v);
            return es_tbl_report(st, rec, fe);
        }
    }
    int ret = es_tbl_add_block(st, v, n);
    if (ret) free(v);
    return ret;
}

static int read_records(tstore_t *st, rdr_t *r)
{
    size_t n;
    int ret;
    for (;;) {
        if ((ret = es_tbl_rdr_records(r, &st->d, &st->rec, &st->cap_rec, &n))) return ret;
        if (!n) return ES_OK;
        if ((ret = do_batch(st, r->buf, n))) return ret;
    }
}

/* ---- which columns: the class (--class) and the features ----------------------- */

enum { COL_FOUND, COL_DUP, COL_RANGE, COL_NONE };

/* The column named by want[0..len): a name first, then a 1-based number.
 * @return COL_FOUND with *c; COL_DUP with *c and *c2 the first two columns of
 *         that name; COL_RANGE for a number beyond the columns; COL_NONE */
static int find_col(const tstore_t *st, const char *want, size_t len, uint32_t *c, uint32_t *c2)
{
    uint32_t nc = st->n_cols, hit = UINT32_MAX;
    for (uint32_t k = 0; k < nc; k++) {
        const char *name = st->col[k].name;
        if (strncmp(name, want, len) != 0 || name[len] != '\0') continue;
        if (hit != UINT32_MAX) {
            *c = hit;
            *c2 = k;
            return COL_DUP;
        }
        hit = k;
    }
    if (hit == UINT32_MAX && len) {
        size_t i = 0;
        uint64_t v = 0;
        for (; i < len && want[i] >= '0' && want[i] <= '9'; i++)
            if (v <= UINT32_MAX) v = v * 10 + (uint64_t)(want[i] - '0');
        if (i == len) {
            if (v < 1 || v > nc) return COL_RANGE;
            hit = (uint32_t)v - 1;
        }
    }
    if (hit == UINT32_MAX) return COL_NONE;
    *c = hit;
    return COL_FOUND;
}

/* The first column names, for a message: "a, b, ... (N more)". */
static void col_list(const tstore_t *st, char *list, size_t size)
{
    uint32_t nc = st->n_cols;
    size_t used = 0;
    list[0] = '\0';
    for (uint32_t c = 0; c < nc && c < 12; c++) {
        int w = snprintf(list + used, size - used, "%s%s", c ? ", " : "", st->col[c].name);
        if (w < 0 || (size_t)w >= size - used) break;
        used += (size_t)w;
    }
    if (nc > 12 && used + 32 < size) snprintf(list + used, size - used, ", ... (%u more)", nc - 12);
}

/* The class column from --class: a name first, then a 1-based number;
 * NULL = the last column. */
static int pick_class(tstore_t *st, const char *want)
{
    uint32_t nc = st->n_cols, hit = 0, hit2 = 0;
    char list[1024];
    if (!want) {
        st->class_col = nc - 1;
        return ES_OK;
    }
    switch (find_col(st, want, strlen(want), &hit, &hit2)) {
    case COL_DUP:
        terror("%s: the class column name '%s' is used by columns %u and %u; give its number",
               st->path, want, hit + 1, hit2 + 1);
        return ES_ERR_ARG;
    case COL_RANGE:
        terror("%s: class column %s is out of range: the table has %u columns", st->path, want,
               nc);
        return ES_ERR_ARG;
    case COL_NONE:
        col_list(st, list, sizeof list);
        terror("%s: no column '%s' for the class; columns: %s (or a number 1..%u)", st->path,
               want, list, nc);
        return ES_ERR_ARG;
    default: break;
    }
    st->class_col = hit;
    return ES_OK;
}

/* Set mark[c] = value for each column of the comma-separated list of option
 * opt.  @return ES_OK or ES_ERR_ARG (logged: the option, the item, why) */
static int mark_list(const tstore_t *st, const char *opt, const char *list, uint8_t *mark,
                     uint8_t value, uint8_t *seen)
{
    uint32_t nc = st->n_cols;
    char names[1024];
    memset(seen, 0, nc);
    for (const char *s = list;; s++) {
        size_t len = strcspn(s, ",");
        uint32_t c = 0, c2 = 0;
        int w = (int)(len < 200 ? len : 200);
        if (!len) {
            terror("%s: %s: empty column name in '%s' (expected names or 1-based numbers "
                   "separated by commas)", st->path, opt, list);
            return ES_ERR_ARG;
        }
        switch (find_col(st, s, len, &c, &c2)) {
        case COL_DUP:
            terror("%s: %s: the column name '%.*s' is used by columns %u and %u; give its number",
                   st->path, opt, w, s, c + 1, c2 + 1);
            return ES_ERR_ARG;
        case COL_RANGE:
            terror("%s: %s: column %.*s is out of range: the table has %u columns", st->path, opt,
                   w, s, nc);
            return ES_ERR_ARG;
        case COL_NONE:
            col_list(st, names, sizeof names);
            terror("%s: %s: no column '%.*s'; columns: %s (or a number 1..%u)", st->path, opt, w,
                   s, names, nc);
            return ES_ERR_ARG;
        default: break;
        }
        if (c == st->class_col) {
            terror("%s: %s: column %u ('%s') is the class%s", st->path, opt, c + 1,
                   st->col[c].name,
                   value ? "; it cannot be a feature too" : ", which cannot be left out (pick "
                                                            "another class with --class)");
            return ES_ERR_ARG;
        }
        if (seen[c]) {
            terror("%s: %s: column %u ('%s') is listed twice", st->path, opt, c + 1,
                   st->col[c].name);
            return ES_ERR_ARG;
        }
        seen[c] = 1;
        mark[c] = value;
        s += len;
        if (!*s) return ES_OK;
    }
}

/* The feature columns into st->feat: those opt->features lists, or every
 * column but the class, less those opt->exclude_cols lists, in file order. */
static int pick_features(tstore_t *st, const es_table_opt_t *opt)
{
    uint32_t nc = st->n_cols, n = 0;
    uint8_t *mark = malloc(2 * (size_t)nc);
    int ret = ES_OK;
    if (!mark || !(st->feat = malloc((size_t)nc * sizeof *st->feat))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    memset(mark, !opt->features, nc);
    mark[st->class_col] = 0;
    if (opt->features && (ret = mark_list(st, "--features", opt->features, mark, 1, mark + nc)))
        goto out;
    if (opt->exclude_cols &&
        (ret = mark_list(st, "--exclude-cols", opt->exclude_cols, mark, 0, mark + nc)))
        goto out;
    for (uint32_t c = 0; c < nc; c++)
        if (mark[c]) st->feat[n++] = c;
    st->n_feat = n;
    if (!n) {
        terror("%s: --exclude-cols leaves no feature column (the table has %u columns, the "
               "class included)", st->path, nc);
        ret = ES_ERR_ARG;
    }
out:
    free(mark);
    return ret;
}

static int name_col(tstore_t *st, uint32_t c, const char *name)
{
    char tmp[32];
    if (!*name) { /* an unnamed column (a row-name column of R or pandas) */
        snprintf(tmp, sizeof tmp, "col%u", c + 1);
        name = tmp;
    }
    return (st->col[c].name = strdup(name)) ? ES_OK : ES_ERR_NOMEM;
}

/* ---- CSV / TSV ------------------------------------------------------------------ */

/* A CSV column is text when its first value is not a number; when it holds
 * numbers too, that first value may be a typo: say so. */
static void check_text(const tstore_t *st)
{
    for (uint32_t f = 0; f < st->n_feat; f++) {
        uint32_t c = st->feat[f];
        const tcol_t *col = &st->col[c];
        if (col->kind != K_TEXT || !col->n_numlike) continue;
        char a[32], b[32];
        es_log(ES_LOG_WARN, "es_table_read",
               "%s: column %u ('%s') is coded as text (%u distinct values) because its first "
               "value, on line %" PRIu64 ", is not a number, but %s of its %s values are numbers",
               st->path, c + 1, col->name, col->dict.n, col->first_line,
               es_fmt_count(col->n_numlike, a), es_fmt_count(col->n_text, b));
    }
}

static int read_delim(tstore_t *st, rdr_t *r, const es_table_opt_t *opt)
{
    char *line = NULL, **f = NULL;
    uint64_t ln = 0;
    int k, ret = ES_OK;
    do {
        if ((k = es_tbl_rdr_line(r, &line, &ln)) < 0) return k;
        if (k == 0) {
            terror("%s: empty file: expected a header line naming the columns", st->path);
            return ES_ERR_FORMAT;
        }
    } while (es_tbl_blank_or_comment(&st->d, line, line + strlen(line)));
    st->header_line = ln;
    /* the delimiter: the most frequent of tab, comma and ';' outside quotes */
    static const char dl[3] = {'\t', ',', ';'};
    size_t ct[3] = {0, 0, 0}, all = 0;
    int inq = 0, best = 0;
    for (const char *p = line; *p; p++) {
        if (*p == '"') inq = !inq;
        for (int j = 0; j < 3; j++)
            if (*p == dl[j]) {
                all += 1;
                if (!inq) ct[j]++;
            }
    }
    for (int j = 1; j < 3; j++)
        if (ct[j] > ct[best]) best = j;
    if (!ct[best]) {
        terror("%s: line %" PRIu64 ": the header '%.60s' has one column; expected the names of "
               "the feature columns and the class separated by tabs, commas or ';'", st->path, ln,
               line);
        return ES_ERR_FORMAT;
    }
    st->d = (dialect_t){.delim = dl[best], .q1 = '"'};
    size_t maxf = all + 1;
    uint32_t nf = 0;
    if (maxf > UINT32_MAX - 1 || !(f = malloc(maxf * sizeof *f))) return ES_ERR_NOMEM;
    char *p = line, *end = line + strlen(line);
    int more = 1;
    while (more && nf < maxf) {
        if ((k = es_tbl_cut_field(&st->d, &p, end, &f[nf], &more))) {
            terror("%s: line %" PRIu64 " (header), field %u: %s", st->path, ln, nf + 1,
                   k == -1 ? "quoted name not closed" : "text after the closing quote");
            ret = ES_ERR_FORMAT;
            goto out;
        }
        nf++;
    }
    if ((ret = es_tbl_store_cols(st, nf))) goto out;
    for (uint32_t c = 0; c < nf; c++)
        if ((ret = name_col(st, c, f[c]))) goto out;
    if (st->raw) st->class_col = NO_ID;
    else if ((ret = pick_class(st, opt->class_col))) goto out;
    else st->col[st->class_col].kind = K_TEXT;
out:
    free(f);
    if (ret) return ret;
    return read_records(st, r);
}

/* ---- ARFF ----------------------------------------------------------------------- */

static int keyword(const char *p, const char *kw)
{
    size_t n = strlen(kw);
    return strncasecmp(p, kw, n) == 0 && (p[n] == '\0' || p[n] == ' ' || p[n] == '\t' ||
                                          p[n] == '{' || p[n] == '\'' || p[n] == '"');
}

/* The name at p (after blanks): quoted (backslash escapes, unescaped in place)
 * or a word; [*ns, *ne) (empty when missing or not closed).  @return past it */
static char *arff_name(char *p, char **ns, char **ne)
{
    while (*p == ' ' || *p == '\t') p++;
    *ns = *ne = p;
    if (*p == '\'' || *p == '"') {
        char q = *p++;
        *ns = *ne = p;
        for (; *p && *p != q; p++) {
            if (*p == '\\' && p[1]) p++;
            *(*ne)++ = *p;
        }
        if (!*p) *ns = *ne; /* not closed: no name */
        else p++;
    } else {
        while (*p && *p != ' ' && *p != '\t' && *p != '{') p++;
        *ne = p;
    }
    return p;
}

/* "@attribute NAME TYPE" into a new column. */
static int arff_attribute(tstore_t *st, char *p, uint64_t ln, uint32_t *cap)
{
    static const dialect_t ad = {.delim = ',', .q1 = '\'', .q2 = '"', .backslash = 1};
    char *end = p + strlen(p), *ns, *ne;
    int more, k;
    p += 10; /* "@attribute" */
    if (st->n_cols == *cap) {
        uint32_t nc = *cap ? 2 * *cap : 64;
        tcol_t *n = realloc(st->col, nc * sizeof *n);
        if (!n) return ES_ERR_NOMEM;
        st->col = n;
        *cap = nc;
    }
    tcol_t *col = &st->col[st->n_cols];
    memset(col, 0, sizeof *col);
    p = arff_name(p, &ns, &ne);
    if (ne == ns) {
        terror("%s: line %" PRIu64 ": @attribute: expected a name and a type", st->path, ln);
        return ES_ERR_FORMAT;
    }
    if (!(col->name = strndup(ns, (size_t)(ne - ns)))) return ES_ERR_NOMEM;
    st->n_cols++; /* owned by the store from here on */
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    if (*p == '{') {
        char *q = end;
        while (q > p && (q[-1] == ' ' || q[-1] == '\t')) q--;
        if (q[-1] != '}') {
            terror("%s: line %" PRIu64 ": @attribute %s: nominal values not closed by '}'",
                   st->path, ln, col->name);
            return ES_ERR_FORMAT;
        }
        q[-1] = '\0';
        end = q - 1;
        p++;
        col->kind = K_NOMINAL;
        more = 1;
        while (more) {
            char *v;
            uint32_t id;
            if ((k = es_tbl_cut_field(&ad, &p, end, &v, &more))) {
                terror("%s: line %" PRIu64 ": @attribute %s: malformed nominal value list",
                       st->path, ln, col->name);
                return ES_ERR_FORMAT;
            }
            if (!*v) {
                terror("%s: line %" PRIu64 ": @attribute %s: empty nominal value", st->path, ln,
                       col->name);
                return ES_ERR_FORMAT;
            }
            if (es_tbl_dict_find(&col->dict, v) != NO_ID) {
                terror("%s: line %" PRIu64 ": @attribute %s: value '%.60s' declared twice",
                       st->path, ln, col->name, v);
                return ES_ERR_FORMAT;
            }
            if ((k = es_tbl_dict_add(&col->dict, v, &id))) {
                if (k < 0) return k;
                terror("%s: line %" PRIu64 ": @attribute %s: more than %u nominal values",
                       st->path, ln, col->name, MAX_VALUES);
                return ES_ERR_FORMAT;
            }
        }
        return ES_OK;
    }
    if (keyword(p, "numeric") || keyword(p, "real") || keyword(p, "integer")) col->kind = K_NUM;
    else if (keyword(p, "string") || keyword(p, "date")) col->kind = K_TEXT;
    else if (keyword(p, "relational")) {
        terror("%s: line %" PRIu64 ": @attribute %s: relational attributes are not supported",
               st->path, ln, col->name);
        return ES_ERR_UNSUPPORTED;
    } else {
        terror("%s: line %" PRIu64 ": @attribute %s: unknown type '%.40s' (expected numeric, "
               "real, integer, string, date or {values})", st->path, ln, col->name, p);
        return ES_ERR_FORMAT;
    }
    return ES_OK;
}

static int read_arff(tstore_t *st, rdr_t *r, const es_table_opt_t *opt)
{
    char *line;
    uint64_t ln = 0;
    uint32_t cap = 0;
    int k, ret;
    for (;;) {
        if ((k = es_tbl_rdr_line(r, &line, &ln)) < 0) return k;
        if (k == 0) {
            if (!st->n_cols && !ln) terror("%s: empty file: expected an ARFF header", st->path);
            else terror("%s: no @data line after the @attribute lines", st->path);
            return ES_ERR_FORMAT;
        }
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (!*p || *p == '%') continue;
        if (keyword(p, "@relation")) {
            char *ns, *ne;
            arff_name(p + 9, &ns, &ne);
            free(st->relation);
            if (!(st->relation = strndup(ns, (size_t)(ne - ns)))) return ES_ERR_NOMEM;
            continue;
        }
        if (keyword(p, "@attribute")) {
            if ((ret = arff_attribute(st, p, ln, &cap))) return ret;
            continue;
        }
        if (keyword(p, "@data")) break;
        terror("%s: line %" PRIu64 ": expected @relation, @attribute or @data, found '%.40s'",
               st->path, ln, p);
        return ES_ERR_FORMAT;
    }
    st->header_line = ln;
    if (st->n_cols < 2) {
        terror("%s: %s: need at least one feature and the class", st->path,
               st->n_cols ? "one @attribute" : "no @attribute lines");
        return ES_ERR_FORMAT;
    }
    if (!(st->nonint = calloc((size_t)st->nt * st->n_cols, 1))) return ES_ERR_NOMEM;
    st->d = (dialect_t){.delim = ',', .q1 = '\'', .q2 = '"', .backslash = 1, .comment = '%'};
    if (st->raw) {
        st->class_col = NO_ID;
        return read_records(st, r);
    }
    if ((ret = pick_class(st, opt->class_col))) return ret;
    tcol_t *cl = &st->col[st->class_col];
    if (cl->kind == K_NUM) { /* distinct values, ordered numerically, are the classes */
        cl->kind = K_TEXT;
        cl->must_num = 1;
    }
    st->d = (dialect_t){.delim = ',', .q1 = '\'', .q2 = '"', .backslash = 1, .comment = '%'};
    return read_records(st, r);
}

/* ---- entry points ------------------------------------------------------------------ */

/* Format from the extension, else from the first non-blank line. */
static int table_format(const char *path, const rdr_t *r)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (dot && (!slash || dot > slash)) {
        if (!strcasecmp(dot, ".csv") || !strcasecmp(dot, ".tsv") || !strcasecmp(dot, ".txt"))
            return F_DELIM;
        if (!strcasecmp(dot, ".arff")) return F_ARFF;
        if (!strcasecmp(dot, ".libsvm") || !strcasecmp(dot, ".svm") ||
            !strcasecmp(dot, ".svmlight"))
            return F_LIBSVM;
    }
    const char *p = r->buf + r->pos, *e = r->buf + r->len;
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
    if (p < e && (*p == '%' || *p == '@')) return F_ARFF;
    /* LIBSVM: a label, then only INDEX:VALUE tokens, at least one */
    const char *le = memchr(p, '\n', (size_t)(e - p));
    if (!le) le = e;
    while (p < le && !is_ls_blank(*p)) p++;
    int pairs = 0;
    for (;;) {
        while (p < le && is_ls_blank(*p)) p++;
        if (p == le || *p == '#') break;
        const char *q = p;
        while (q < le && *q >= '0' && *q <= '9') q++;
        if (q == p || q == le || *q != ':') return F_DELIM;
        while (q < le && !is_ls_blank(*q)) q++;
        p = q;
        pairs++;
    }
    return pairs ? F_LIBSVM : F_DELIM;
}

/* Start reading path: the store's error slots, the first chunk (past a UTF-8
 * byte-order mark) and the format. */
static int table_open(tstore_t *st, rdr_t *r, const char *path, size_t chunk)
{
    int ret;
    st->path = path;
    st->nt = es_tbl_n_threads();
    if (!(st->err = calloc((size_t)st->nt, sizeof *st->err))) return ES_ERR_NOMEM;
    if ((ret = es_tbl_rdr_open(r, path, chunk)) || (ret = es_tbl_rdr_fill(r))) return ret;
    if (r->len >= 3 && memcmp(r->buf, "\xEF\xBB\xBF", 3) == 0) r->pos = 3;
    st->fmt = table_format(path, r);
    return ES_OK;
}

/* es_table_read with a chosen read size (tests use small ones to cross
 * record boundaries). */
int es_table_read_chunk(const char *path, const es_table_opt_t *opt, es_dtable_t *out,
                        size_t chunk)
{
    es_table_opt_t def = {NULL, 128, NULL, NULL};
    tstore_t st;
    rdr_t r;
    es_dtable_t d;
    int ret;
    memset(&st, 0, sizeof st);
    memset(&d, 0, sizeof d);
    r.fd = -1;
    r.buf = NULL;
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out) {
        terror("no table path or output given");
        return ES_ERR_ARG;
    }
    if (!opt) opt = &def;
    if (opt->bins < 2 || opt->bins > MAX_VALUES) {
        terror("%s: the number of bins must be in [2, %u], got %u", path, MAX_VALUES, opt->bins);
        return ES_ERR_ARG;
    }
    if ((ret = table_open(&st, &r, path, chunk ? chunk : TABLE_CHUNK))) goto out;
    switch (st.fmt) {
    case F_ARFF: ret = read_arff(&st, &r, opt); break;
    case F_LIBSVM: ret = es_tbl_read_libsvm(&st, &r, opt); break;
    default: ret = read_delim(&st, &r, opt); break;
    }
    if (ret) goto out;
    if (st.fmt == F_LIBSVM && !st.n_rows) {
        terror("%s: %s", path, r.line > 1 ? "no data lines" : "empty file");
        ret = ES_ERR_FORMAT;
        goto out;
    }
    if (st.n_cols < 2) {
        terror("%s: no feature columns besides the class", path);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    /* merge the per-thread integer flags */
    for (int t = 0; t < st.nt && st.fmt != F_LIBSVM; t++)
        for (uint32_t c = 0; c < st.n_cols; c++)
            st.col[c].nonint |= st.nonint[(size_t)t * st.n_cols + c];
    if (!st.n_rows) {
        terror("%s: no data rows after the header (line %" PRIu64 ")", path, st.header_line);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    if ((ret = pick_features(&st, opt))) goto out;
    if (st.fmt == F_DELIM) check_text(&st);
    if ((ret = es_tbl_code_store(&st, opt->bins, &d))) goto out;
    *out = d;
    memset(&d, 0, sizeof d);
out:
    if (ret == ES_ERR_NOMEM) terror("%s: out of memory reading the table", path);
    es_dtable_free(&d);
    es_tbl_rdr_close(&r);
    es_tbl_store_free(&st);
    return ret;
}

int es_table_read(const char *path, const es_table_opt_t *opt, es_dtable_t *out)
{
    return es_table_read_chunk(path, opt, out, TABLE_CHUNK);
}

/* ---- the table as read (es_ntable_read) --------------------------------------------- */

void es_ntable_free(es_ntable_t *t)
{
    if (!t) return;
    for (uint32_t c = 0; c < t->n_cols; c++) {
        if (t->names) free(t->names[c]);
        if (t->values && t->values[c]) {
            for (uint32_t k = 0; k < t->n_values[c]; k++) free(t->values[c][k]);
            free(t->values[c]);
        }
    }
    free(t->names);
    free(t->relation);
    free(t->values);
    free(t->n_values);
    free(t->kind);
    free(t->v);
    memset(t, 0, sizeof *t);
}

/* Move the store's columns into t: names, kinds, declared values, and the
 * row-major blocks transposed into columns. */
static int ntable_from_store(tstore_t *st, es_ntable_t *t)
{
    uint32_t nc = st->n_cols, n = (uint32_t)st->n_rows;
    t->n_rows = n;
    t->n_cols = nc;
    t->relation = st->relation;
    st->relation = NULL;
    if (!(t->v = malloc((size_t)n * nc * sizeof *t->v)) ||
        !(t->names = calloc(nc, sizeof *t->names)) || !(t->kind = calloc(nc, sizeof *t->kind)) ||
        !(t->n_values = calloc(nc, sizeof *t->n_values)) ||
        !(t->values = calloc(nc, sizeof *t->values)))
        return ES_ERR_NOMEM;
    for (uint32_t c = 0; c < nc; c++) {
        tcol_t *col = &st->col[c];
        t->names[c] = col->name;
        col->name = NULL;
        t->kind[c] = col->kind == K_NOMINAL ? ES_NCOL_NOMINAL
                     : col->kind == K_TEXT  ? ES_NCOL_TEXT
                                            : ES_NCOL_NUMERIC;
        if (col->kind != K_NOMINAL) continue;
        if (!(t->values[c] = calloc(col->dict.n ? col->dict.n : 1, sizeof *t->values[c])))
            return ES_ERR_NOMEM;
        t->n_values[c] = col->dict.n;
        for (uint32_t k = 0; k < col->dict.n; k++)
            if (!(t->values[c][k] = strdup(col->dict.str[k]))) return ES_ERR_NOMEM;
    }
    size_t r0 = 0;
    for (size_t b = 0; b < st->n_blk; b++) {
        const float *v = st->blk[b].v;
        for (uint32_t i = 0; i < st->blk[b].n_rows; i++, v += nc)
            for (uint32_t c = 0; c < nc; c++) t->v[(size_t)c * n + r0 + i] = v[c];
        r0 += st->blk[b].n_rows;
    }
    return ES_OK;
}

int es_ntable_read(const char *path, es_ntable_t *out)
{
    es_table_opt_t def = {NULL, 128, NULL, NULL};
    tstore_t st;
    rdr_t r;
    int ret;
    memset(&st, 0, sizeof st);
    r.fd = -1;
    r.buf = NULL;
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out) {
        terror("no table path or output given");
        return ES_ERR_ARG;
    }
    st.raw = 1;
    if ((ret = table_open(&st, &r, path, TABLE_CHUNK))) goto out;
    if (st.fmt == F_LIBSVM) {
        terror("%s: a LIBSVM file; give a CSV/TSV file with a header line or an ARFF file", path);
        ret = ES_ERR_UNSUPPORTED;
        goto out;
    }
    ret = st.fmt == F_ARFF ? read_arff(&st, &r, &def) : read_delim(&st, &r, &def);
    if (ret) goto out;
    if (!st.n_rows) {
        terror("%s: no data rows after the header (line %" PRIu64 ")", path, st.header_line);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    if ((ret = ntable_from_store(&st, out))) goto out;
out:
    if (ret == ES_ERR_NOMEM) terror("%s: out of memory reading the table", path);
    if (ret) es_ntable_free(out);
    es_tbl_rdr_close(&r);
    es_tbl_store_free(&st);
    return ret;
}

void es_dtable_free(es_dtable_t *d)
{
    if (!d) return;
    if (d->names) {
        for (uint32_t f = 0; f < d->n_features; f++) free(d->names[f]);
        free(d->names);
    }
    free(d->class_name);
    free(d->x);
    free(d->n_states);
    free(d->y);
    memset(d, 0, sizeof *d);
}
