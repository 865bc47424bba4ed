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
 * The LIBSVM reader is in table_libsvm.c and the coding step in table_code.c;
 * table_internal.h holds what the three files share. */
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
#define TABLE_MAX_BUF ((size_t)UINT32_MAX - 16) /* cell offsets are 32-bit */
#define OFF_ZERO (UINT32_MAX - 1)          /* sparse ARFF: value left out (0) */

static int n_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

int es_tbl_thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* ---- numbers --------------------------------------------------------------- */

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Parse a whole NUL-terminated field as a plain decimal number ([+-]digits
 * [.digits][e[+-]digits]; no hex, inf or nan).  Short numbers take the exact
 * fast path (a mantissa below 2^53 times an exact power of ten is correctly
 * rounded); the rest go to strtod.  @return 1 with *v finite, 0 if not a number. */
int es_tbl_parse_num(const char *s, double *v)
{
    const char *p = s;
    int neg = 0, any = 0, dropped = 0, nd = 0;
    int64_t e10 = 0;
    uint64_t m = 0;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    for (; *p >= '0' && *p <= '9'; p++, any = 1) {
        if (m == 0 && *p == '0') continue;
        if (nd < 19) m = m * 10 + (uint64_t)(*p - '0'), nd++;
        else dropped = 1, e10++;
    }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++, any = 1) {
            if (m == 0 && *p == '0') e10--;
            else if (nd < 19) m = m * 10 + (uint64_t)(*p - '0'), nd++, e10--;
            else dropped = 1;
        }
    }
    if (!any) return 0;
    if (*p == 'e' || *p == 'E') {
        int eneg = 0;
        int64_t ex = 0;
        p++;
        if (*p == '+' || *p == '-') eneg = *p++ == '-';
        if (*p < '0' || *p > '9') return 0;
        for (; *p >= '0' && *p <= '9'; p++)
            if (ex < 100000) ex = ex * 10 + (*p - '0');
        e10 += eneg ? -ex : ex;
    }
    if (*p) return 0;
    double x;
    if (!dropped && m <= (1ULL << 53) && e10 >= -22 && e10 <= 22) {
        x = (double)m;
        x = e10 < 0 ? x / pow10_exact[-e10] : x * pow10_exact[e10];
        if (neg) x = -x;
    } else {
        x = strtod(s, NULL); /* a valid decimal: strtod reads all of it, correctly rounded */
    }
    if (!isfinite(x)) return 0;
    *v = x;
    return 1;
}

/* ---- dictionaries of strings -------------------------------------------------- */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h ^ (h >> 29);
}

void es_tbl_dict_free(dict_t *d)
{
    for (size_t b = 0; b < d->n_blk; b++) free(d->blk[b]);
    free(d->blk);
    free(d->str);
    free(d->tab);
    memset(d, 0, sizeof *d);
}

static uint32_t dict_find(const dict_t *d, const char *s)
{
    if (!d->tab) return NO_ID;
    for (size_t h = (size_t)hash_str(s) & d->mask;; h = (h + 1) & d->mask) {
        uint32_t t = d->tab[h];
        if (!t) return NO_ID;
        if (strcmp(d->str[t - 1], s) == 0) return t - 1;
    }
}

/* Copy s into the arena.  @return the copy or NULL (no memory). */
static char *dict_store(dict_t *d, const char *s)
{
    size_t len = strlen(s) + 1;
    if (len > d->blk_left) {
        size_t sz = len > 65536 ? len : 65536;
        char **nb = realloc(d->blk, (d->n_blk + 1) * sizeof *nb);
        if (!nb) return NULL;
        d->blk = nb;
        if (!(d->blk[d->n_blk] = malloc(sz))) return NULL;
        d->blk_at = d->blk[d->n_blk++];
        d->blk_left = sz;
    }
    char *c = d->blk_at;
    memcpy(c, s, len);
    d->blk_at += len;
    d->blk_left -= len;
    return c;
}

/* Add s unless present.  @return ES_OK with *id, ES_ERR_NOMEM, or 1 when the
 * dictionary is full (MAX_VALUES strings) and s is new. */
int es_tbl_dict_add(dict_t *d, const char *s, uint32_t *id)
{
    uint32_t f = dict_find(d, s);
    if (f != NO_ID) {
        *id = f;
        return ES_OK;
    }
    if (d->n >= MAX_VALUES) return 1;
    if (2 * ((size_t)d->n + 1) > (d->tab ? d->mask + 1 : 0)) { /* load <= 1/2 */
        size_t cap = d->tab ? 2 * (d->mask + 1) : 64;
        uint32_t *nt = calloc(cap, sizeof *nt);
        if (!nt) return ES_ERR_NOMEM;
        for (uint32_t i = 0; i < d->n; i++) {
            size_t h = (size_t)hash_str(d->str[i]) & (cap - 1);
            while (nt[h]) h = (h + 1) & (cap - 1);
            nt[h] = i + 1;
        }
        free(d->tab);
        d->tab = nt;
        d->mask = cap - 1;
    }
    if (d->n == d->cap) {
        uint32_t nc = d->cap ? 2 * d->cap : 16;
        char **ns = realloc(d->str, nc * sizeof *ns);
        if (!ns) return ES_ERR_NOMEM;
        d->str = ns;
        d->cap = nc;
    }
    char *c = dict_store(d, s);
    if (!c) return ES_ERR_NOMEM;
    size_t h = (size_t)hash_str(s) & d->mask;
    while (d->tab[h]) h = (h + 1) & d->mask;
    d->tab[h] = d->n + 1;
    d->str[d->n] = c;
    *id = d->n++;
    return ES_OK;
}

/* ---- streaming reader ---------------------------------------------------------- */

static int rdr_open(rdr_t *r, const char *path, size_t chunk)
{
    struct stat st;
    memset(r, 0, sizeof *r);
    r->path = path;
    r->line = 1;
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) {
        terror("%s: cannot open the table: %s", path, strerror(errno));
        return ES_ERR_IO;
    }
    if (fstat(r->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        terror("%s: is a directory, expected a table (CSV/TSV, ARFF or LIBSVM)", path);
        return ES_ERR_IO;
    }
    r->cap = chunk < 64 ? 64 : chunk > TABLE_MAX_BUF ? TABLE_MAX_BUF : chunk;
    if (!(r->buf = malloc(r->cap + 1))) return ES_ERR_NOMEM;
    r->buf[0] = '\0';
    return ES_OK;
}

static void rdr_close(rdr_t *r)
{
    if (r->fd >= 0) close(r->fd);
    free(r->buf);
    r->fd = -1;
    r->buf = NULL;
}

/* Keep [pos, len), move it to the front and read until the buffer is full
 * or the file ends; grow the buffer when one record fills it. */
static int rdr_fill(rdr_t *r)
{
    if (r->pos) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->off += r->pos;
        r->len -= r->pos;
        r->pos = 0;
    }
    if (r->len == r->cap) {
        if (r->cap >= TABLE_MAX_BUF) {
            terror("%s: line %" PRIu64 ": a record longer than 4 GB", r->path, r->line);
            return ES_ERR_FORMAT;
        }
        size_t nc = r->cap > TABLE_MAX_BUF / 2 ? TABLE_MAX_BUF : 2 * r->cap;
        char *nb = realloc(r->buf, nc + 1);
        if (!nb) return ES_ERR_NOMEM;
        r->buf = nb;
        r->cap = nc;
    }
    while (r->len < r->cap) {
        ssize_t k = read(r->fd, r->buf + r->len, r->cap - r->len);
        if (k < 0) {
            if (errno == EINTR) continue;
            terror("%s: read failed: %s", r->path, strerror(errno));
            return ES_ERR_IO;
        }
        if (k == 0) {
            r->eof = 1;
            break;
        }
        /* a NUL would silently cut a field short: the file is not text */
        const char *nul = memchr(r->buf + r->len, '\0', (size_t)k);
        if (nul) {
            terror("%s: NUL byte at offset %" PRIu64 ": expected a text table", r->path,
                   r->off + (uint64_t)(nul - r->buf));
            return ES_ERR_FORMAT;
        }
        r->len += (size_t)k;
    }
    r->buf[r->len] = '\0';
    return ES_OK;
}

/* The next physical line, NUL-terminated without its CR, valid until the
 * next call.  @return 1, 0 at the end of the file, or an error (< 0). */
static int rdr_line(rdr_t *r, char **line, uint64_t *lineno)
{
    for (;;) {
        char *s = r->buf + r->pos;
        char *nl = memchr(s, '\n', r->len - r->pos);
        if (nl || (r->eof && r->pos < r->len)) {
            char *e = nl ? nl : r->buf + r->len;
            r->pos = (size_t)(e - r->buf) + (nl != NULL);
            if (e > s && e[-1] == '\r') e--;
            *e = '\0';
            *line = s;
            *lineno = r->line++;
            return 1;
        }
        if (r->eof) return 0;
        int ret = rdr_fill(r);
        if (ret) return ret;
    }
}

static inline int is_quote(const dialect_t *d, char c)
{
    return c && (c == d->q1 || c == d->q2);
}

/* Blanks around fields (a tab is a blank unless it is the delimiter). */
static inline int is_pad(char c, char delim)
{
    return c == ' ' || c == '\r' || (c == '\t' && delim != '\t');
}

/* Advance the quote state over [p, e): *inq is the open quote or 0, *fstart
 * says whether the next character begins a field.  A quote opens a quoted
 * field only at the start of a field, as in cut_field(). */
static void quote_scan(const dialect_t *d, const char *p, const char *e, char *inq, int *fstart)
{
    for (; p < e; p++) {
        char c = *p;
        if (*inq) {
            if (d->backslash && c == '\\') {
                if (p + 1 < e) p++;
            } else if (c == *inq) {
                if (!d->backslash && p + 1 < e && p[1] == c) p++;
                else *inq = 0;
            }
        } else if (c == d->delim) {
            *fstart = 1;
        } else if (*fstart && is_quote(d, c)) {
            *inq = c;
            *fstart = 0;
        } else if (!is_pad(c, d->delim)) {
            *fstart = 0;
        }
    }
}

static int blank_or_comment(const dialect_t *d, const char *s, const char *e)
{
    while (s < e && (*s == ' ' || *s == '\t' || *s == '\r')) s++;
    return s == e || (d->comment && *s == d->comment);
}

/* The next batch of complete records in the buffer (blank and comment lines
 * skipped), reading more when none is complete.  Newlines inside quoted
 * fields belong to the record.  *n = 0 at the end of the file. */
int es_tbl_rdr_records(rdr_t *r, const dialect_t *d, rec_t **recs, size_t *cap, size_t *n_out)
{
    size_t n = 0;
    for (;;) {
        size_t p = r->pos;
        uint64_t line = r->line;
        char *buf = r->buf;
        while (p < r->len) {
            size_t rs = p, le;
            uint64_t rline = line;
            char inq = 0;
            int fstart = 1, complete;
            for (;;) {
                char *nl = memchr(buf + p, '\n', r->len - p);
                le = nl ? (size_t)(nl - buf) : r->len;
                if (d->q1 && (inq || memchr(buf + p, d->q1, le - p) ||
                              (d->q2 && memchr(buf + p, d->q2, le - p))))
                    quote_scan(d, buf + p, buf + le, &inq, &fstart);
                if (!nl) {
                    complete = r->eof;
                    break;
                }
                line++;
                if (!inq) {
                    complete = 1;
                    break;
                }
                p = le + 1; /* a quoted field goes on over the next line */
            }
            if (!complete) { /* keep it for the next fill */
                p = rs;
                line = rline;
                break;
            }
            if (inq) {
                terror("%s: line %" PRIu64 ": quoted field not closed before the end of the file",
                       r->path, rline);
                return ES_ERR_FORMAT;
            }
            p = le < r->len ? le + 1 : le;
            if (le > rs && buf[le - 1] == '\r') le--;
            buf[le] = '\0';
            if (blank_or_comment(d, buf + rs, buf + le)) continue;
            if (n == *cap) {
                size_t nc = *cap ? 2 * *cap : 4096;
                rec_t *nr = realloc(*recs, nc * sizeof *nr);
                if (!nr) return ES_ERR_NOMEM;
                *recs = nr;
                *cap = nc;
            }
            (*recs)[n++] = (rec_t){(uint32_t)rs, (uint32_t)le, rline};
        }
        r->pos = p;
        r->line = line;
        if (n > 0 || (r->eof && r->pos == r->len)) break;
        int ret = rdr_fill(r);
        if (ret) return ret;
    }
    *n_out = n;
    return ES_OK;
}

/* Cut the field starting at *pp in place: blanks around it dropped, quotes
 * removed ("" or backslash escapes inside), NUL-terminated.  *pp moves past
 * the delimiter; *more says whether one followed.
 * @return 0, -1 for a quote not closed, -2 for text after a closing quote */
static int cut_field(const dialect_t *d, char **pp, char *end, char **fs_out, int *more)
{
    char *p = *pp, *fs, *w;
    while (p < end && is_pad(*p, d->delim)) p++;
    fs = p;
    if (p < end && is_quote(d, *p)) {
        char q = *p++;
        fs = w = p;
        for (;;) {
            if (p >= end) {
                *pp = fs;
                return -1;
            }
            char c = *p;
            if (c == q) {
                if (!d->backslash && p + 1 < end && p[1] == q) {
                    *w++ = q;
                    p += 2;
                    continue;
                }
                p++;
                break;
            }
            if (d->backslash && c == '\\' && p + 1 < end) {
                c = p[1] == 'n' ? '\n' : p[1] == 't' ? '\t' : p[1] == 'r' ? '\r' : p[1];
                p += 2;
            } else {
                p++;
            }
            *w++ = c;
        }
        while (p < end && is_pad(*p, d->delim)) p++;
        if (p < end && *p != d->delim) {
            *pp = p;
            return -2;
        }
    } else {
        char *dp = memchr(p, d->delim, (size_t)(end - p));
        p = dp ? dp : end;
        w = p;
        while (w > fs && is_pad(w[-1], d->delim)) w--;
    }
    *more = p < end;
    *w = '\0';
    *pp = p + (p < end);
    *fs_out = fs;
    return 0;
}

/* ---- the table being read -------------------------------------------------------- */

static void store_free(tstore_t *st)
{
    for (uint32_t c = 0; st->col && c < st->n_cols; c++) {
        free(st->col[c].name);
        es_tbl_dict_free(&st->col[c].dict);
    }
    free(st->col);
    for (size_t b = 0; b < st->n_blk; b++) free(st->blk[b].v);
    free(st->blk);
    free(st->nonint);
    free(st->cell);
    free(st->rec);
    free(st->err);
    memset(st, 0, sizeof *st);
}

int es_tbl_store_cols(tstore_t *st, uint32_t n_cols)
{
    st->n_cols = n_cols;
    st->col = calloc(n_cols, sizeof *st->col);
    st->nonint = calloc((size_t)st->nt * n_cols, 1);
    return st->col && st->nonint ? ES_OK : ES_ERR_NOMEM;
}

void es_tbl_err_reset(tstore_t *st)
{
    for (int t = 0; t < st->nt; t++) st->err[t].rec = NO_REC;
}

/* The first error of the batch in file order (record, then column), or NULL. */
const terr_t *es_tbl_err_first(const tstore_t *st)
{
    const terr_t *best = NULL;
    for (int t = 0; t < st->nt; t++) {
        const terr_t *e = &st->err[t];
        if (e->rec == NO_REC) continue;
        if (!best || e->rec < best->rec || (e->rec == best->rec && e->col < best->col)) best = e;
    }
    return best;
}

/* "column 3 ('age')" or "feature 17" for messages */
static const char *col_label(const tstore_t *st, uint32_t c, char *buf, size_t n)
{
    if (st->fmt == F_LIBSVM) snprintf(buf, n, "feature %u", c + 1);
    else snprintf(buf, n, "column %u ('%.60s')", c + 1, st->col[c].name);
    return buf;
}

int es_tbl_report(const tstore_t *st, const rec_t *rec, const terr_t *e)
{
    const char *path = st->path;
    uint64_t line = rec[e->rec].line;
    char cl[128];
    const char *val = e->val ? e->val : "";
    if (e->col != UINT32_MAX && (st->fmt == F_LIBSVM || e->col < st->n_cols))
        col_label(st, e->col, cl, sizeof cl);
    else cl[0] = '\0';
    switch (e->what) {
    case E_NOMEM: return ES_ERR_NOMEM;
    case E_FIELDS:
        if (st->fmt == F_ARFF)
            terror("%s: line %" PRIu64 ": %" PRIu64 " fields, expected %" PRIu64
                   " (one per @attribute)", path, line, e->a, e->b);
        else
            terror("%s: line %" PRIu64 ": %" PRIu64 " fields, expected %" PRIu64
                   " as in the header (line %" PRIu64 ")", path, line, e->a, e->b,
                   st->header_line);
        break;
    case E_UNCLOSED:
        terror("%s: line %" PRIu64 ", field %" PRIu64 ": quoted field not closed", path, line,
               e->a);
        break;
    case E_AFTER_QUOTE:
        terror("%s: line %" PRIu64 ", field %" PRIu64 ": unexpected text '%.40s' after the "
               "closing quote", path, line, e->a, val);
        break;
    case E_NOT_NUM:
        if (st->fmt != F_LIBSVM && st->col[e->col].first_line)
            terror("%s: line %" PRIu64 ", %s: expected a number, found '%.60s' (the column holds "
                   "numbers from line %" PRIu64 ")", path, line, cl, val,
                   st->col[e->col].first_line);
        else
            terror("%s: line %" PRIu64 ", %s: expected a number, found '%.60s'", path, line, cl,
                   val);
        break;
    case E_RANGE:
        terror("%s: line %" PRIu64 ", %s: %.60s is beyond the single-precision range (about "
               "3.4e38)", path, line, cl, val);
        break;
    case E_NOT_DECL:
        terror("%s: line %" PRIu64 ", %s: '%.60s' is not one of the %u values declared by its "
               "@attribute", path, line, cl, val, st->col[e->col].dict.n);
        break;
    case E_CLASS_MISSING:
        terror("%s: line %" PRIu64 ", %s: the class value is missing ('%.20s')", path, line,
               cl[0] ? cl : "label", val);
        break;
    case E_TOO_MANY:
        terror("%s: line %" PRIu64 ", %s: more than %u distinct values; a column of labels with "
               "so many values is not a categorical feature (leave it out of the table)", path,
               line, cl, MAX_VALUES);
        break;
    case E_SPARSE_SYNTAX:
        terror("%s: line %" PRIu64 ": sparse row: expected '{INDEX VALUE, ...}', found '%.40s'",
               path, line, val);
        break;
    case E_SPARSE_INDEX:
        terror("%s: line %" PRIu64 ": sparse row: index %" PRIu64 " is out of range (%" PRIu64
               " attributes, indices from 0)", path, line, e->a, e->b);
        break;
    case E_SPARSE_DUP:
        terror("%s: line %" PRIu64 ": sparse row: index %" PRIu64 " given twice", path, line,
               e->a);
        break;
    case E_LS_TOKEN:
        terror("%s: line %" PRIu64 ": expected INDEX:VALUE, found '%.40s'", path, line, val);
        break;
    case E_LS_INDEX:
        terror("%s: line %" PRIu64 ": feature index in '%.40s' must be an integer in [1, %u]",
               path, line, val, (unsigned)INT32_MAX);
        break;
    case E_LS_ORDER:
        terror("%s: line %" PRIu64 ": feature indices must increase: %" PRIu64 " after %" PRIu64,
               path, line, e->a, e->b);
        break;
    default: terror("%s: line %" PRIu64 ": malformed record", path, line); break;
    }
    return ES_ERR_FORMAT;
}

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
        int k = cut_field(d, &p, end, &fs, &more);
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
        int k = cut_field(d, &p, end, &fs, &more);
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
            uint32_t id = dict_find(&col->dict, s);
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

int es_tbl_add_block(tstore_t *st, float *v, size_t n)
{
    if (st->n_blk == st->cap_blk) {
        size_t nc = st->cap_blk ? 2 * st->cap_blk : 64;
        tblk_t *nb = realloc(st->blk, nc * sizeof *nb);
        if (!nb) return ES_ERR_NOMEM;
        st->blk = nb;
        st->cap_blk = nc;
    }
    st->blk[st->n_blk++] = (tblk_t){v, (uint32_t)n};
    st->n_rows += n;
    return ES_OK;
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

/* The class column from --class: a name first, then a 1-based number;
 * NULL = the last column. */
static int pick_class(tstore_t *st, const char *want)
{
    uint32_t nc = st->n_cols, hit = UINT32_MAX;
    if (!want) {
        st->class_col = nc - 1;
        return ES_OK;
    }
    for (uint32_t c = 0; c < nc; c++) {
        if (strcmp(st->col[c].name, want) != 0) continue;
        if (hit != UINT32_MAX) {
            terror("%s: the class column name '%s' is used by columns %u and %u; give its number",
                   st->path, want, hit + 1, c + 1);
            return ES_ERR_ARG;
        }
        hit = c;
    }
    if (hit == UINT32_MAX && *want) {
        const char *q = want;
        uint64_t v = 0;
        for (; *q >= '0' && *q <= '9'; q++)
            if (v <= UINT32_MAX) v = v * 10 + (uint64_t)(*q - '0');
        if (!*q) {
            if (v < 1 || v > nc) {
                terror("%s: class column %s is out of range: the table has %u columns", st->path,
                       want, nc);
                return ES_ERR_ARG;
            }
            hit = (uint32_t)v - 1;
        }
    }
    if (hit == UINT32_MAX) {
        char list[1024];
        size_t used = 0;
        list[0] = '\0';
        for (uint32_t c = 0; c < nc && c < 12; c++) {
            int w = snprintf(list + used, sizeof list - used, "%s%s", c ? ", " : "",
                             st->col[c].name);
            if (w < 0 || (size_t)w >= sizeof list - used) break;
            used += (size_t)w;
        }
        if (nc > 12 && used + 32 < sizeof list)
            snprintf(list + used, sizeof list - used, ", ... (%u more)", nc - 12);
        terror("%s: no column '%s' for the class; columns: %s (or a number 1..%u)", st->path,
               want, list, nc);
        return ES_ERR_ARG;
    }
    st->class_col = hit;
    return ES_OK;
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
    for (uint32_t c = 0; c < st->n_cols; c++) {
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
        if ((k = rdr_line(r, &line, &ln)) < 0) return k;
        if (k == 0) {
            terror("%s: empty file: expected a header line naming the columns", st->path);
            return ES_ERR_FORMAT;
        }
    } while (blank_or_comment(&st->d, line, line + strlen(line)));
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
        if ((k = cut_field(&st->d, &p, end, &f[nf], &more))) {
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
    if ((ret = pick_class(st, opt->class_col))) goto out;
    st->col[st->class_col].kind = K_TEXT;
out:
    free(f);
    if (ret) return ret;
    if ((ret = read_records(st, r))) return ret;
    check_text(st);
    return ES_OK;
}

/* ---- ARFF ----------------------------------------------------------------------- */

static int keyword(const char *p, const char *kw)
{
    size_t n = strlen(kw);
    return strncasecmp(p, kw, n) == 0 && (p[n] == '\0' || p[n] == ' ' || p[n] == '\t' ||
                                          p[n] == '{' || p[n] == '\'' || p[n] == '"');
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
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    /* the name: quoted (backslash escapes) or a word */
    ns = ne = p;
    if (*p == '\'' || *p == '"') {
        char q = *p++;
        ns = ne = p;
        for (; *p && *p != q; p++) {
            if (*p == '\\' && p[1]) p++;
            *ne++ = *p;
        }
        if (!*p) ns = ne; /* not closed: no name */
        else p++;
    } else {
        while (*p && *p != ' ' && *p != '\t' && *p != '{') p++;
        ne = p;
    }
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
            if ((k = cut_field(&ad, &p, end, &v, &more))) {
                terror("%s: line %" PRIu64 ": @attribute %s: malformed nominal value list",
                       st->path, ln, col->name);
                return ES_ERR_FORMAT;
            }
            if (!*v) {
                terror("%s: line %" PRIu64 ": @attribute %s: empty nominal value", st->path, ln,
                       col->name);
                return ES_ERR_FORMAT;
            }
            if (dict_find(&col->dict, v) != NO_ID) {
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
        if ((k = rdr_line(r, &line, &ln)) < 0) return k;
        if (k == 0) {
            if (!st->n_cols && !ln) terror("%s: empty file: expected an ARFF header", st->path);
            else terror("%s: no @data line after the @attribute lines", st->path);
            return ES_ERR_FORMAT;
        }
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (!*p || *p == '%') continue;
        if (keyword(p, "@relation")) continue;
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

/* es_table_read with a chosen read size (tests use small ones to cross
 * record boundaries). */
int es_table_read_chunk(const char *path, const es_table_opt_t *opt, es_dtable_t *out,
                        size_t chunk)
{
    es_table_opt_t def = {NULL, 128};
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
    st.path = path;
    st.nt = n_threads();
    if (!(st.err = calloc((size_t)st.nt, sizeof *st.err))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    if ((ret = rdr_open(&r, path, chunk ? chunk : TABLE_CHUNK))) goto out;
    if ((ret = rdr_fill(&r))) goto out;
    if (r.len >= 3 && memcmp(r.buf, "\xEF\xBB\xBF", 3) == 0) r.pos = 3; /* UTF-8 byte-order mark */
    st.fmt = table_format(path, &r);
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
    if ((ret = es_tbl_code_store(&st, opt->bins, &d))) goto out;
    *out = d;
    memset(&d, 0, sizeof d);
out:
    if (ret == ES_ERR_NOMEM) terror("%s: out of memory reading the table", path);
    es_dtable_free(&d);
    rdr_close(&r);
    store_free(&st);
    return ret;
}

int es_table_read(const char *path, const es_table_opt_t *opt, es_dtable_t *out)
{
    return es_table_read_chunk(path, opt, out, TABLE_CHUNK);
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
