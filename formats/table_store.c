/* table_store.c -- what the three table readers share (table_internal.h):
 * the thread index of a parallel step, number parsing, per-column dictionaries
 * of text values, the chunked file reader and its record splitter, the column
 * store with its per-thread errors and their report in file order, and the
 * row blocks.  The delimited and ARFF readers (table.c) and the LIBSVM reader
 * (table_libsvm.c) call down into it; the coding step (table_code.c) reads
 * the store; nothing here calls up into them. */
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

#define TABLE_MAX_BUF ((size_t)UINT32_MAX - 16) /* cell offsets are 32-bit */


int es_tbl_n_threads(void)
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

uint32_t es_tbl_dict_find(const dict_t *d, const char *s)
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
    uint32_t f = es_tbl_dict_find(d, s);
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

int es_tbl_rdr_open(rdr_t *r, const char *path, size_t chunk)
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

void es_tbl_rdr_close(rdr_t *r)
{
    if (r->fd >= 0) close(r->fd);
    free(r->buf);
    r->fd = -1;
    r->buf = NULL;
}

/* Keep [pos, len), move it to the front and read until the buffer is full
 * or the file ends; grow the buffer when one record fills it. */
int es_tbl_rdr_fill(rdr_t *r)
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
int es_tbl_rdr_line(rdr_t *r, char **line, uint64_t *lineno)
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
        int ret = es_tbl_rdr_fill(r);
        if (ret) return ret;
    }
}

static inline int is_quote(const dialect_t *d, char c)
{
    return c && (c == d->q1 || c == d->q2);
}

/* Blanks around fields (a tab is a blank unless it is the delimiter). */

/* Advance the quote state over [p, e): *inq is the open quote or 0, *fstart
 * says whether the next character begins a field.  A quote opens a quoted
 * field only at the start of a field, as in es_tbl_cut_field(). */
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

int es_tbl_blank_or_comment(const dialect_t *d, const char *s, const char *e)
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
            if (es_tbl_blank_or_comment(d, buf + rs, buf + le)) continue;
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
        int ret = es_tbl_rdr_fill(r);
        if (ret) return ret;
    }
    *n_out = n;
    return ES_OK;
}

/* Cut the field starting at *pp in place: blanks around it dropped, quotes
 * removed ("" or backslash escapes inside), NUL-terminated.  *pp moves past
 * the delimiter; *more says whether one followed.
 * @return 0, -1 for a quote not closed, -2 for text after a closing quote */
int es_tbl_cut_field(const dialect_t *d, char **pp, char *end, char **fs_out, int *more)
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

void es_tbl_store_free(tstore_t *st)
{
    for (uint32_t c = 0; st->col && c < st->n_cols; c++) {
        free(st->col[c].name);
        es_tbl_dict_free(&st->col[c].dict);
    }
    free(st->col);
    free(st->feat);
    free(st->relation);
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
