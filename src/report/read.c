/* read.c -- the run's files as the report needs them: every line checked
 * (the file and line named on a bad one), the variants they name indexed once,
 * the chromosomes laid out on one axis. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report_internal.h"
#include "util.h"

#define MAX_COLS 96 /* a 3-way list with --tables has 68 */

/* Split line [p, end) at tabs in place.  @return the number of fields (may exceed max) */
static int split_tabs(char *p, char *end, char **f, int max)
{
    int n = 0;
    if (end > p && end[-1] == '\r') *--end = '\0'; /* CRLF */
    for (;;) {
        if (n < max) f[n] = p;
        n++;
        char *t = memchr(p, '\t', (size_t)(end - p));
        if (!t) break;
        *t = '\0';
        p = t + 1;
    }
    return n;
}

int es_rp_parse_num(const char *s, double *out)
{
    if (!strcmp(s, "NA")) {
        *out = NAN;
        return 0;
    }
    char *e;
    errno = 0;
    double v = strtod(s, &e);
    if (e == s || *e || (errno && v != 0 && fabs(v) > 1)) return -1;
    *out = isfinite(v) ? v : NAN;
    return 0;
}

int es_rp_parse_pos(const char *s, int64_t *out)
{
    char *e;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    if (e == s || *e || errno || v < 0) return -1;
    *out = v;
    return 0;
}

/* ---- the variant index ------------------------------------------------------------ */

static uint64_t hash_var(const char *chr, const char *id, int64_t pos)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *s = chr; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
    for (const char *s = id; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (h ^ (uint64_t)pos) * 1099511628211ull;
}

static int rehash(rp_data_t *d, size_t cap)
{
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t) return ES_ERR_NOMEM;
    for (size_t v = 0; v < d->n_var; v++) {
        const rp_var_t *x = &d->var[v];
        size_t s = hash_var(x->chr, x->id, x->pos) & (cap - 1);
        while (t[s]) s = (s + 1) & (cap - 1);
        t[s] = (uint32_t)v + 1;
    }
    free(d->hash);
    d->hash = t;
    d->hash_cap = cap;
    return ES_OK;
}

int es_rp_var_find(const rp_data_t *d, const char *chr, const char *id, int64_t pos, uint32_t *idx)
{
    if (!d->hash_cap) return -1;
    size_t s = hash_var(chr, id, pos) & (d->hash_cap - 1);
    for (; d->hash[s]; s = (s + 1) & (d->hash_cap - 1)) {
        const rp_var_t *x = &d->var[d->hash[s] - 1];
        if (x->pos == pos && !strcmp(x->chr, chr) && !strcmp(x->id, id)) {
            *idx = d->hash[s] - 1;
            return 0;
        }
    }
    return -1;
}

int es_rp_var_get(rp_data_t *d, const char *chr, const char *id, int64_t pos, uint32_t *idx)
{
    if ((d->n_var + 1) * 2 > d->hash_cap && rehash(d, d->hash_cap ? d->hash_cap * 2 : 1024))
        return ES_ERR_NOMEM;
    size_t s = hash_var(chr, id, pos) & (d->hash_cap - 1);
    for (; d->hash[s]; s = (s + 1) & (d->hash_cap - 1)) {
        const rp_var_t *x = &d->var[d->hash[s] - 1];
        if (x->pos == pos && !strcmp(x->chr, chr) && !strcmp(x->id, id)) {
            *idx = d->hash[s] - 1;
            return ES_OK;
        }
    }
    if (d->n_var == UINT32_MAX - 1) return ES_ERR_NOMEM;
    if (d->n_var == d->cap_var) {
        size_t cap = d->cap_var ? d->cap_var * 2 : 1024;
        rp_var_t *nv = realloc(d->var, cap * sizeof *nv);
        if (!nv) return ES_ERR_NOMEM;
        d->var = nv;
        d->cap_var = cap;
    }
    d->var[d->n_var] = (rp_var_t){chr, id, pos, NAN, 0};
    d->hash[s] = (uint32_t)d->n_var + 1;
    *idx = (uint32_t)d->n_var++;
    return ES_OK;
}

/* ---- files -------------------------------------------------------------------- */

/* Read PREFIX SUFFIX when it exists.  @return ES_OK (*text NULL when absent), or an error */
static int read_opt(const char *prefix, const char *suffix, char **path, char **text, size_t *len,
                    int whole)
{
    *text = NULL;
    size_t n = strlen(prefix) + strlen(suffix) + 1;
    if (!(*path = malloc(n))) return ES_ERR_NOMEM;
    snprintf(*path, n, "%s%s", prefix, suffix);
    struct stat st;
    if (stat(*path, &st) != 0) {
        if (errno == ENOENT) return ES_OK;
        es_error("%s: %s", *path, strerror(errno));
        return ES_ERR_IO;
    }
    if (whole) return es_text_read(*path, "result file", text, len);
    if (S_ISDIR(st.st_mode)) {
        es_error("%s: is a directory, not a result file", *path);
        return ES_ERR_IO;
    }
    /* read line by line later: mark it present */
    if (!(*text = strdup(""))) return ES_ERR_NOMEM;
    return ES_OK;
}

/* A row kept for the page's table. */
static int table_keep(rp_table_t *t, char **f, int nf)
{
    t->n_total++;
    if (t->n_rows > RP_TABLE_MAX) return ES_OK; /* the header and RP_TABLE_MAX rows */
    if (!t->cell && !(t->cell = malloc((size_t)(RP_TABLE_MAX + 1) * (size_t)nf * sizeof *t->cell)))
        return ES_ERR_NOMEM;
    memcpy(t->cell + t->n_rows * (size_t)nf, f, (size_t)nf * sizeof *f);
    t->n_rows++;
    return ES_OK;
}

static const char *const pair_cols[] = {"CHR1", "SNP1", "POS1", "CHR2", "SNP2", "POS2",
                                        "CHR3", "SNP3", "POS3"};
static const char *const stat_cols[] = {"STAT", "P", "LOG10P", "N", "DF"};

/* The header of a .top.tsv / .sig.tsv (--tables columns after DF allowed):
 * its order into d->order (the run's lists must agree).  @return ES_OK or ES_ERR_FORMAT */
static int hits_header(rp_data_t *d, const char *path, char **f, int ncol)
{
    int order = ncol >= 14 && !strcmp(f[6], "CHR3") ? 3 : 2;
    int ok = ncol <= MAX_COLS && ncol >= 3 * order + 5;
    for (int c = 0; ok && c < 3 * order; c++) ok = !strcmp(f[c], pair_cols[c]);
    for (int c = 0; ok && c < 5; c++) ok = !strcmp(f[3 * order + c], stat_cols[c]);
    if (!ok) {
        es_error("%s line 1: expected the header CHR1 SNP1 POS1 CHR2 SNP2 POS2 [CHR3 SNP3 POS3] "
                 "STAT P LOG10P N DF of a scan's pair list", path);
        return ES_ERR_FORMAT;
    }
    if (d->order && d->order != order) {
        es_error("%s: a %d-way list, but the run's other list is %d-way", path, order, d->order);
        return ES_ERR_FORMAT;
    }
    d->order = order;
    return ES_OK;
}

/* Check one line of a pair (triple) list, fields f[0..nf), into x.  add: its
 * variants are added to the index; else *known = 0 when one is not in it.
 * @return ES_OK, ES_ERR_FORMAT (logged with the file and line) or ES_ERR_NOMEM */
static int hits_line(rp_data_t *d, const char *path, size_t ln, char **f, int nf, int ncol,
                     int add, rp_hit_t *x, int *known)
{
    int order = d->order;
    if (nf != ncol) {
        es_error("%s line %zu: %d fields, but the header has %d", path, ln, nf, ncol);
        return ES_ERR_FORMAT;
    }
    memset(x, 0, sizeof *x);
    x->coef = NAN;
    x->df = -1;
    *known = 1;
    for (int k = 0; k < order; k++) {
        int64_t pos;
        if (es_rp_parse_pos(f[3 * k + 2], &pos)) {
            es_error("%s line %zu: POS%d '%s' is not a position", path, ln, k + 1, f[3 * k + 2]);
            return ES_ERR_FORMAT;
        }
        if (!*f[3 * k] || !*f[3 * k + 1]) {
            es_error("%s line %zu: empty CHR%d or SNP%d", path, ln, k + 1, k + 1);
            return ES_ERR_FORMAT;
        }
        if (add) {
            int ret = es_rp_var_get(d, f[3 * k], f[3 * k + 1], pos, &x->v[k]);
            if (ret) return ret;
        } else if (*known && es_rp_var_find(d, f[3 * k], f[3 * k + 1], pos, &x->v[k])) {
            *known = 0;
        }
    }
    double *num[3] = {&x->stat, &x->p, &x->log10p};
    for (int c = 0; c < 3; c++) {
        if (es_rp_parse_num(f[3 * order + c], num[c])) {
            es_error("%s line %zu: %s '%s' is not a number or NA", path, ln, stat_cols[c],
                     f[3 * order + c]);
            return ES_ERR_FORMAT;
        }
    }
    if (!isnan(x->p) && (x->p < 0 || x->p > 1)) {
        es_error("%s line %zu: P %s is not in [0, 1]", path, ln, f[3 * order + 1]);
        return ES_ERR_FORMAT;
    }
    return ES_OK;
}

static int push_hit(rp_hit_t **h, size_t *n, size_t *cap, const rp_hit_t *x)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 1024;
        rp_hit_t *nh = realloc(*h, c * sizeof *nh);
        if (!nh) return ES_ERR_NOMEM;
        *h = nh;
        *cap = c;
    }
    (*h)[(*n)++] = *x;
    return ES_OK;
}

/* Grow *a (element size sz) to hold n + 1. */
static int grow(void **a, size_t n, size_t *cap, size_t sz)
{
    if (n < *cap) return ES_OK;
    size_t c = *cap ? *cap * 2 : 64;
    void *na = realloc(*a, c * sz);
    if (!na) return ES_ERR_NOMEM;
    *a = na;
    *cap = c;
    return ES_OK;
}

int es_rp_sig_keep(rp_data_t *d, rp_sig_state_t *st, const rp_hit_t *x, int known)
{
    d->n_sig_lines++;
    /* a list screened by a bound (PLINK's BOOST) also lists pairs whose exact
     * p fails its threshold: not the tail the QQ plot draws */
    if (!isnan(x->p) && x->p > d->list_cut) d->n_qq_above++;
    else if (!isnan(x->log10p)) {
        if (grow((void **)&d->qq, d->n_qq, &st->qcap, sizeof *d->qq)) return ES_ERR_NOMEM;
        d->qq[d->n_qq++] = x->log10p;
    }
    return known ? push_hit(&d->sig, &d->n_sig, &st->cap, x) : ES_OK;
}

/* .top.tsv, read whole (its fields stay for the page's table) */
static int read_top(rp_data_t *d, const char *path, char *text, size_t len)
{
    char *q = text, *end = text + len, *le, *line, *f[MAX_COLS];
    size_t ln = 0, cap = 0;
    int ncol = 0, ret = ES_OK, known;
    while ((line = es_next_line(&q, end, &le))) {
        ln++;
        int nf = split_tabs(line, le, f, MAX_COLS);
        if (ln == 1) {
            ncol = nf;
            if ((ret = hits_header(d, path, f, ncol))) return ret;
            d->top_tab.n_cols = ncol;
            if ((ret = table_keep(&d->top_tab, f, ncol))) return ret;
            d->top_tab.n_total = 0;
            continue;
        }
        if (nf == 1 && !*f[0]) continue; /* an empty last line */
        rp_hit_t x;
        if ((ret = hits_line(d, path, ln, f, nf, ncol, 1, &x, &known))) return ret;
        if ((ret = push_hit(&d->top, &d->n_top, &cap, &x))) return ret;
        if ((ret = table_keep(&d->top_tab, f, ncol))) return ret;
    }
    if (ln == 0) {
        es_error("%s: empty (not even a header line)", path);
        return ES_ERR_FORMAT;
    }
    return ES_OK;
}

int es_rp_stream(rp_data_t *d, const char *path, rp_line_fn fn, void *ctx)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        es_error("%s: cannot open: %s", path, strerror(errno));
        return ES_ERR_IO;
    }
    char *line = NULL;
    size_t lcap = 0, ln = 0;
    ssize_t got;
    int ret = ES_OK;
    while ((got = getline(&line, &lcap, fp)) >= 0) {
        ln++;
        char *le = line + got;
        if (le > line && le[-1] == '\n') *--le = '\0';
        if (memchr(line, '\0', (size_t)(le - line))) {
            es_error("%s line %zu: a NUL byte (not a text file)", path, ln);
            ret = ES_ERR_FORMAT;
            break;
        }
        if ((ret = fn(d, ctx, path, ln, line, le))) break;
    }
    if (!ret && ferror(fp)) {
        es_error("%s: read failed: %s", path, strerror(errno));
        ret = ES_ERR_IO;
    }
    if (!ret && ln == 0) {
        es_error("%s: empty (not even a header line)", path);
        ret = ES_ERR_FORMAT;
    }
    free(line);
    fclose(fp);
    return ret;
}

/* .sig.tsv's reading state: the list's, and its header's width */
typedef struct {
    rp_sig_state_t st;
    int ncol;
} sig_ctx_t;

static int sig_line(rp_data_t *d, void *ctx, const char *path, size_t ln, char *line, char *le)
{
    sig_ctx_t *c = ctx;
    char *f[MAX_COLS];
    int nf = split_tabs(line, le, f, MAX_COLS), known, ret;
    if (ln == 1) return hits_header(d, path, f, c->ncol = nf);
    if (nf == 1 && !*f[0]) return ES_OK;
    rp_hit_t x;
    if ((ret = hits_line(d, path, ln, f, nf, c->ncol, c->st.add, &x, &known))) return ret;
    return es_rp_sig_keep(d, &c->st, &x, known);
}

/* .sig.tsv, line by line (it can be far larger than memory): every line
 * checked; its -log10 p kept for the QQ plot (8 bytes a line); a line kept
 * whole only when there is no top list, or when its variants are all among
 * the top list's (the heat map's cells). */
static int read_sig(rp_data_t *d, const char *path)
{
    sig_ctx_t c = {{!d->have_top, 0, 0}, 0};
    return es_rp_stream(d, path, sig_line, &c);
}

/* The column named name in the header f[0..n), or -1. */
static int col_of(char **f, int n, const char *name)
{
    for (int c = 0; c < n && c < MAX_COLS; c++)
        if (!strcmp(f[c], name)) return c;
    return -1;
}

/* .summary.tsv (2-way or 3-way): CHR SNP POS ... BEST_STAT BEST_P ... */
static int read_summary(rp_data_t *d, const char *path, char *text, size_t len)
{
    char *q = text, *end = text + len, *le, *line, *f[MAX_COLS];
    size_t ln = 0;
    int ncol = 0, cchr = -1, csnp = -1, cpos = -1, cstat = -1, cp = -1;
    while ((line = es_next_line(&q, end, &le))) {
        ln++;
        if (ln == 1) {
            ncol = split_tabs(line, le, f, MAX_COLS);
            cchr = col_of(f, ncol, "CHR");
            csnp = col_of(f, ncol, "SNP");
            cpos = col_of(f, ncol, "POS");
            cstat = col_of(f, ncol, "BEST_STAT");
            cp = col_of(f, ncol, "BEST_P");
            if (ncol > MAX_COLS || cchr < 0 || csnp < 0 || cpos < 0 || cstat < 0 || cp < 0) {
                es_error("%s line 1: expected a scan's summary header (CHR SNP POS N_SIG N_TOT "
                         "BEST_STAT BEST_P ...)", path);
                return ES_ERR_FORMAT;
            }
            continue;
        }
        if (le == line) continue;
        int nf = split_tabs(line, le, f, MAX_COLS);
        if (nf != ncol) {
            es_error("%s line %zu: %d fields, but the header has %d", path, ln, nf, ncol);
            return ES_ERR_FORMAT;
        }
        int64_t pos;
        double st, p;
        if (es_rp_parse_pos(f[cpos], &pos)) {
            es_error("%s line %zu: POS '%s' is not a position", path, ln, f[cpos]);
            return ES_ERR_FORMAT;
        }
        if (es_rp_parse_num(f[cstat], &st) || es_rp_parse_num(f[cp], &p) || (!isnan(p) && (p < 0 || p > 1))) {
            es_error("%s line %zu: BEST_STAT '%s' or BEST_P '%s' is not a number, a p-value or NA",
                     path, ln, f[cstat], f[cp]);
            return ES_ERR_FORMAT;
        }
        if (!*f[cchr] || !*f[csnp]) {
            es_error("%s line %zu: empty CHR or SNP", path, ln);
            return ES_ERR_FORMAT;
        }
        uint32_t v;
        int ret = es_rp_var_get(d, f[cchr], f[csnp], pos, &v);
        if (ret) return ret;
        rp_var_t *x = &d->var[v];
        x->in_summary = 1;
        /* p printed as 0 underflowed a double: drawn at 323.3, past the smallest one */
        x->best = d->has_p ? (isnan(p) ? NAN : p > 0 ? -log10(p) : 323.3) : st;
    }
    if (ln == 0) {
        es_error("%s: empty (not even a header line)", path);
        return ES_ERR_FORMAT;
    }
    return ES_OK;
}

/* "1,234,567" (the log's counts) */
static int parse_count(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    int digits = 0;
    for (; *s; s++) {
        if (*s == ',') continue;
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10) return -1;
        v = v * 10 + (uint64_t)(*s - '0');
        digits++;
    }
    if (!digits) return -1;
    *out = v;
    return 0;
}

static int read_log(rp_data_t *d, const char *path, char *text, size_t len)
{
    char *q = text, *end = text + len, *le, *line;
    size_t cap = 0;
    /* PLINK's log: lines of text, kept as keys without values */
    d->pk.log = !strncmp(text, "PLINK v", 7);
    while ((line = es_next_line(&q, end, &le))) {
        if (le > line && le[-1] == '\r') *--le = '\0';
        if (le == line) continue;
        if (d->n_log == cap) {
            cap = cap ? cap * 2 : 64;
            const char **nk = realloc(d->log_key, cap * sizeof *nk);
            if (!nk) return ES_ERR_NOMEM;
            d->log_key = nk;
            const char **nv = realloc(d->log_val, cap * sizeof *nv);
            if (!nv) return ES_ERR_NOMEM;
            d->log_val = nv;
        }
        char *t = d->pk.log ? NULL : strchr(line, '\t');
        if (t) *t = '\0';
        d->log_key[d->n_log] = line;
        d->log_val[d->n_log++] = t ? t + 1 : "";
    }
    (void)path;
    return ES_OK;
}

const char *es_rp_log(const rp_data_t *d, const char *key)
{
    for (size_t k = 0; k < d->n_log; k++)
        if (!strcmp(d->log_key[k], key)) return d->log_val[k];
    return NULL;
}

/* rules train's PREFIX.rules.txt: one rule a line, "IF ... THEN ..." */
static int read_rules(rp_data_t *d, const char *path, char *text, size_t len)
{
    char *q = text, *end = text + len, *le, *line;
    size_t ln = 0, cap = 0;
    while ((line = es_next_line(&q, end, &le))) {
        ln++;
        if (le == line) continue;
        *le = '\0';
        if (strncmp(line, "IF ", 3) || !strstr(line, " THEN ")) {
            es_error("%s line %zu: expected a rule, IF <conditions> THEN <head>", path, ln);
            return ES_ERR_FORMAT;
        }
        if (d->n_rules == cap) {
            cap = cap ? cap * 2 : 64;
            char **nr = realloc(d->rules, cap * sizeof *nr);
            if (!nr) return ES_ERR_NOMEM;
            d->rules = nr;
        }
        d->rules[d->n_rules++] = line;
    }
    if (!d->n_rules) {
        es_error("%s: no rules in it", path);
        return ES_ERR_FORMAT;
    }
    return ES_OK;
}

/* ---- files of rows under one fixed header ---------------------------------------- */

typedef struct rows rows_t;
/* One data line (f[0..nf), nf the header's width, checked): ES_OK or an error (logged). */
typedef int (*row_fn)(rp_data_t *d, rows_t *r, const char *path, size_t ln, char **f);
struct rows {
    const char *const *head; /* the header's names */
    int ncol;
    rp_table_t *tab;         /* the page's table of the file, or NULL */
    row_fn row;
    const char *expect;      /* what a line holds, for the message of a bad one */
    size_t cap;              /* the row function's array */
    int flag;
};

/* Read a TSV whose first line is exactly r->head: every data line of the
 * header's width goes to r->row, and to the page's table. */
static int read_rows(rp_data_t *d, rows_t *r, const char *path, char *text, size_t len)
{
    char *q = text, *end = text + len, *le, *line, *f[MAX_COLS];
    size_t ln = 0;
    while ((line = es_next_line(&q, end, &le))) {
        ln++;
        int nf = split_tabs(line, le, f, MAX_COLS);
        if (ln == 1) {
            int ok = nf == r->ncol;
            for (int c = 0; ok && c < nf; c++) ok = !strcmp(f[c], r->head[c]);
            if (!ok) {
                char want[256] = "";
                for (int c = 0; c < r->ncol; c++) {
                    strncat(want, c ? " " : "", sizeof want - strlen(want) - 1);
                    strncat(want, r->head[c], sizeof want - strlen(want) - 1);
                }
                es_error("%s line 1: expected the header %s", path, want);
                return ES_ERR_FORMAT;
            }
            if (r->tab) {
                r->tab->n_cols = r->ncol;
                if (table_keep(r->tab, f, r->ncol)) return ES_ERR_NOMEM;
                r->tab->n_total = 0;
            }
            continue;
        }
        if (le == line) continue;
        if (nf != r->ncol) {
            es_error("%s line %zu: expected %s", path, ln, r->expect);
            return ES_ERR_FORMAT;
        }
        int ret = r->row(d, r, path, ln, f);
        if (ret) return ret;
        if (r->tab && table_keep(r->tab, f, r->ncol)) return ES_ERR_NOMEM;
    }
    if (ln == 0) {
        es_error("%s: empty (not even a header line)", path);
        return ES_ERR_FORMAT;
    }
    return ES_OK;
}

static int bad_row(const rows_t *r, const char *path, size_t ln)
{
    es_error("%s line %zu: expected %s", path, ln, r->expect);
    return ES_ERR_FORMAT;
}

/* A p-value field: a number in [0, 1] or NA. */
static int parse_p(const char *s, double *out)
{
    return es_rp_parse_num(s, out) || (!isnan(*out) && (*out < 0 || *out > 1));
}

/* .select.tsv: RANK FEATURE SCORE RELEVANCE */
static int select_row(rp_data_t *d, rows_t *r, const char *path, size_t ln, char **f)
{
    rp_sel_t s;
    int64_t rank;
    if (es_rp_parse_pos(f[0], &rank) || rank < 1 || rank > UINT32_MAX || es_rp_parse_num(f[2], &s.score) ||
        es_rp_parse_num(f[3], &s.relevance))
        return bad_row(r, path, ln);
    s.rank = (uint32_t)rank;
    s.feature = f[1];
    if (grow((void **)&d->sel, d->n_sel, &r->cap, sizeof *d->sel)) return ES_ERR_NOMEM;
    d->sel[d->n_sel++] = s;
    return ES_OK;
}

static int read_select(rp_data_t *d, const char *path, char *text, size_t len)
{
    static const char *const head[] = {"RANK", "FEATURE", "SCORE", "RELEVANCE"};
    rows_t r = {head, 4, &d->sel_tab, select_row, "RANK FEATURE SCORE RELEVANCE (a rank and two numbers)", 0, 0};
    return read_rows(d, &r, path, text, len);
}

/* rules predict's OUT.metrics.tsv: METRIC VALUE, a number per row */
static int metrics_row(rp_data_t *d, rows_t *r, const char *path, size_t ln, char **f)
{
    (void)d;
    double v;
    return !*f[0] || es_rp_parse_num(f[1], &v) ? bad_row(r, path, ln) : ES_OK;
}

static int read_metrics(rp_data_t *d, const char *path, char *text, size_t len)
{
    static const char *const head[] = {"METRIC", "VALUE"};
    rows_t r = {head, 2, &d->metrics_tab, metrics_row, "METRIC VALUE (a name and a number)", 0, 0};
    return read_rows(d, &r, path, text, len);
}

/* mdfs's .mdfs.tsv (flag 0) or .relevant.tsv (flag 1: marks the variables it
 * lists, which must be in .mdfs.tsv): VARIABLE MAX_IG TUPLE P ADJ_P */
static int mdfs_row(rp_data_t *d, rows_t *r, const char *path, size_t ln, char **f)
{
    rp_mdfs_t x = {0};
    if (!*f[0] || es_rp_parse_num(f[1], &x.ig) || isnan(x.ig) || parse_p(f[3], &x.p) || parse_p(f[4], &x.adj_p))
        return bad_row(r, path, ln);
    if (r->flag) {
        size_t k = 0;
        while (k < d->n_mdfs && strcmp(d->mdfs[k].name, f[0])) k++;
        if (k == d->n_mdfs) {
            es_error("%s line %zu: variable '%s' is not in %s%s", path, ln, f[0], d->prefix, RP_SUF_MDFS);
            return ES_ERR_FORMAT;
        }
        d->mdfs[k].relevant = 1;
        return ES_OK;
    }
    x.name = f[0];
    if (grow((void **)&d->mdfs, d->n_mdfs, &r->cap, sizeof *d->mdfs)) return ES_ERR_NOMEM;
    d->mdfs[d->n_mdfs++] = x;
    return ES_OK;
}

static int read_mdfs(rp_data_t *d, const char *path, char *text, size_t len, int relevant)
{
    static const char *const head[] = {"VARIABLE", "MAX_IG", "TUPLE", "P", "ADJ_P"};
    rows_t r = {head, 5, relevant ? NULL : &d->mdfs_tab, mdfs_row,
                "VARIABLE MAX_IG TUPLE P ADJ_P (a name, a number, the tuple, two p-values or NA)", 0, relevant};
    return read_rows(d, &r, path, text, len);
}

/* nsga's .front.tsv: N_FEATURES F1 F2 FEATURES */
static int front_row(rp_data_t *d, rows_t *r, const char *path, size_t ln, char **f)
{
    rp_front_t x;
    int64_t n;
    if (es_rp_parse_pos(f[0], &n) || n > UINT32_MAX || es_rp_parse_num(f[1], &x.f1) || es_rp_parse_num(f[2], &x.f2) ||
        isnan(x.f1) || isnan(x.f2))
        return bad_row(r, path, ln);
    x.n_features = (uint32_t)n;
    if (grow((void **)&d->front, d->n_front, &r->cap, sizeof *d->front)) return ES_ERR_NOMEM;
    d->front[d->n_front++] = x;
    return ES_OK;
}

static int read_front(rp_data_t *d, const char *path, char *text, size_t len)
{
    static const char *const head[] = {"N_FEATURES", "F1", "F2", "FEATURES"};
    rows_t r = {head, 4, &d->front_tab, front_row,
                "N_FEATURES F1 F2 FEATURES (a count, two numbers, the features)", 0, 0};
    return read_rows(d, &r, path, text, len);
}

/* nsga's .hv.tsv: GENERATION HV, generations 0, 1, ... in order */
static int hv_row(rp_data_t *d, rows_t *r, const char *path, size_t ln, char **f)
{
    int64_t g;
    double v;
    if (es_rp_parse_pos(f[0], &g) || g != (int64_t)d->n_hv || es_rp_parse_num(f[1], &v) || isnan(v)) {
        es_error("%s line %zu: expected GENERATION HV (generation %zu, a number)", path, ln, d->n_hv);
        return ES_ERR_FORMAT;
    }
    if (grow((void **)&d->hv, d->n_hv, &r->cap, sizeof *d->hv)) return ES_ERR_NOMEM;
    d->hv[d->n_hv++] = v;
    return ES_OK;
}

static int read_hv(rp_data_t *d, const char *path, char *text, size_t len)
{
    static const char *const head[] = {"GENERATION", "HV"};
    rows_t r = {head, 2, NULL, hv_row, "GENERATION HV (a generation, a number)", 0, 0};
    return read_rows(d, &r, path, text, len);
}

/* The files of a run, in the order they are read: the log first (it names
 * the statistic, the tests and the .bim) */
enum {
    F_LOG, F_TOP, F_SIG, F_SUM, F_SEL, F_RULES, F_METRICS, F_MDFS, F_RELEVANT, F_FRONT, F_HV,
    F_EPI_CC, F_EPI_CC_SUM, F_EPI_QT, F_EPI_QT_SUM
};

/* Which of epistream's and PLINK's lists and summaries the run has: at most
 * one of each.  @return ES_OK or ES_ERR_FORMAT */
static int pick_lists(rp_data_t *d, char *const *path, int *sig, int *sum)
{
    static const int lists[] = {F_SIG, F_EPI_CC, F_EPI_QT}, sums[] = {F_SUM, F_EPI_CC_SUM, F_EPI_QT_SUM};
    const int *set[2] = {lists, sums};
    int *pick[2] = {sig, sum};
    for (int w = 0; w < 2; w++) {
        *pick[w] = -1;
        for (int k = 0; k < 3; k++) {
            if (!d->buf[set[w][k]]) continue;
            if (*pick[w] >= 0) {
                es_error("both %s and %s exist: they are the results of two runs; give the "
                         "report one run's prefix", path[*pick[w]], path[set[w][k]]);
                return ES_ERR_FORMAT;
            }
            *pick[w] = set[w][k];
        }
    }
    return ES_OK;
}

int es_rp_read(rp_data_t *d, const char *prefix, const char *bim)
{
    static const char *const suf[RP_N_FILES] = {
        RP_SUF_LOG,      RP_SUF_TOP,   RP_SUF_SIG,    RP_SUF_SUM,       RP_SUF_SEL,
        RP_SUF_RULES,    RP_SUF_METRICS, RP_SUF_MDFS, RP_SUF_RELEVANT,  RP_SUF_FRONT,
        RP_SUF_HV,       RP_SUF_EPI_CC, RP_SUF_EPI_CC_SUM, RP_SUF_EPI_QT, RP_SUF_EPI_QT_SUM};
    memset(d, 0, sizeof *d);
    d->prefix = prefix;
    d->list_thr = d->list_cut = NAN;
    char *path[RP_N_FILES] = {NULL};
    size_t len[RP_N_FILES] = {0};
    int ret = ES_OK, sig, sum;
    for (int k = 0; k < RP_N_FILES; k++)
        if ((ret = read_opt(prefix, suf[k], &path[k], &d->buf[k], &len[k],
                            k != F_SIG && k != F_EPI_CC && k != F_EPI_QT)))
            goto out;
    if ((ret = pick_lists(d, path, &sig, &sum))) goto out;
    d->sig_suf = suf[sig >= 0 ? sig : F_SIG];
    d->sum_suf = suf[sum >= 0 ? sum : F_SUM];
    int plink_list = sig == F_EPI_CC || sig == F_EPI_QT, plink_sum = sum == F_EPI_CC_SUM || sum == F_EPI_QT_SUM;
    d->have_log = d->buf[F_LOG] != NULL;
    d->have_top = d->buf[F_TOP] != NULL;
    d->have_sig = sig >= 0;
    d->have_sum = sum >= 0;
    d->have_sel = d->buf[F_SEL] != NULL;
    d->have_rules = d->buf[F_RULES] != NULL;
    d->have_metrics = d->buf[F_METRICS] != NULL;
    d->have_mdfs = d->buf[F_MDFS] != NULL;
    d->have_front = d->buf[F_FRONT] != NULL;
    d->have_hv = d->buf[F_HV] != NULL;
    if (!d->have_top && !d->have_sig && !d->have_sum && !d->have_sel && !d->have_rules && !d->have_metrics &&
        !d->have_mdfs && !d->have_front && !d->have_hv) {
        /* a file of the run given instead of its prefix */
        const char *hint = "";
        size_t pl = strlen(prefix);
        for (int k = 0; k < RP_N_FILES; k++) {
            size_t sl = strlen(suf[k]);
            if (pl > sl && !strcmp(prefix + pl - sl, suf[k])) hint = " (give the run's PREFIX, without the file's suffix)";
        }
        es_error("no results of a run under '%s': none of %s%s, %s%s, %s%s, %s%s, %s%s, %s%s, %s%s, %s%s, "
                 "%s%s, %s%s, %s%s exists%s", prefix, prefix, RP_SUF_TOP, prefix, RP_SUF_SIG, prefix, RP_SUF_SUM,
                 prefix, RP_SUF_SEL, prefix, RP_SUF_RULES, prefix, RP_SUF_METRICS, prefix, RP_SUF_MDFS, prefix,
                 RP_SUF_FRONT, prefix, RP_SUF_HV, prefix, RP_SUF_EPI_CC, prefix, RP_SUF_EPI_QT, hint);
        ret = ES_ERR_DATA;
        goto out;
    }
    if (d->have_log && (ret = read_log(d, path[F_LOG], d->buf[F_LOG], len[F_LOG]))) goto out;
    d->stat = es_rp_log(d, "statistic");
    d->has_p = !d->stat || strcmp(d->stat, "k2") != 0;
    /* the run's number of tests: boost's valid ones, else every pair (triple) */
    static const char *const test_keys[] = {"valid_tests", "pairs", "triples"};
    for (int k = 0; k < 3 && !d->n_tests; k++) {
        const char *v = es_rp_log(d, test_keys[k]);
        if (v && !parse_count(v, &d->n_tests)) d->tests_key = test_keys[k];
    }
    if (d->pk.log) es_rp_plink_log(d);
    else if (d->stat && (plink_list || plink_sum)) /* scan --format plink: the statistic of its list */
        d->pk.test = !strcmp(d->stat, "boost") ? RP_PK_BOOST : !strcmp(d->stat, "linear") ? RP_PK_LINEAR : RP_PK_OTHER;
    if (plink_list || plink_sum) {
        char why[600];
        snprintf(why, sizeof why, "%s names variants by chromosome and ID only", path[plink_list ? sig : sum]);
        if ((ret = es_rp_plink_bim(d, bim, why))) goto out;
    }
    if (d->have_top && (ret = read_top(d, path[F_TOP], d->buf[F_TOP], len[F_TOP]))) goto out;
    if (sig == F_SIG && (ret = read_sig(d, path[F_SIG]))) goto out;
    if (plink_list && (ret = es_rp_plink_list(d, path[sig]))) goto out;
    /* the QQ plot's values: the significant list's (a complete tail), else the top list's */
    d->qq_from_sig = d->n_qq > 0;
    if (!d->n_qq) {
        free(d->qq);
        if (!(d->qq = malloc((d->n_top ? d->n_top : 1) * sizeof *d->qq))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        for (size_t k = 0; k < d->n_top; k++)
            if (!isnan(d->top[k].log10p)) d->qq[d->n_qq++] = d->top[k].log10p;
    }
    es_rp_sort_desc(d->qq, d->n_qq);
    /* a log without a statistic line: k2 is the one whose P column is all NA */
    if (!d->stat && !d->pk.test && (d->n_top || d->n_sig)) {
        int any_p = 0;
        for (size_t k = 0; k < d->n_top && !any_p; k++) any_p = !isnan(d->top[k].p);
        any_p = any_p || d->n_qq > 0;
        d->has_p = any_p;
    }
    if (sum == F_SUM && (ret = read_summary(d, path[F_SUM], d->buf[F_SUM], len[F_SUM]))) goto out;
    if (plink_sum && (ret = es_rp_plink_summary(d, path[sum], d->buf[sum], len[sum]))) goto out;
    if (d->have_sel && (ret = read_select(d, path[F_SEL], d->buf[F_SEL], len[F_SEL]))) goto out;
    if (d->have_rules && (ret = read_rules(d, path[F_RULES], d->buf[F_RULES], len[F_RULES]))) goto out;
    if (d->have_metrics && (ret = read_metrics(d, path[F_METRICS], d->buf[F_METRICS], len[F_METRICS]))) goto out;
    if (d->have_mdfs && (ret = read_mdfs(d, path[F_MDFS], d->buf[F_MDFS], len[F_MDFS], 0))) goto out;
    if (d->buf[F_RELEVANT] && !d->have_mdfs) {
        es_error("%s: there is no %s%s to go with it", path[F_RELEVANT], prefix, RP_SUF_MDFS);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    if (d->buf[F_RELEVANT] && (ret = read_mdfs(d, path[F_RELEVANT], d->buf[F_RELEVANT], len[F_RELEVANT], 1)))
        goto out;
    if (d->have_front && (ret = read_front(d, path[F_FRONT], d->buf[F_FRONT], len[F_FRONT]))) goto out;
    if (d->have_hv && (ret = read_hv(d, path[F_HV], d->buf[F_HV], len[F_HV]))) goto out;
    ret = es_rp_layout(d);
out:
    for (int k = 0; k < RP_N_FILES; k++) free(path[k]);
    if (ret) es_rp_free(d);
    return ret;
}

void es_rp_free(rp_data_t *d)
{
    for (int k = 0; k < RP_N_FILES; k++) free(d->buf[k]);
    free(d->rules);
    free(d->metrics_tab.cell);
    free(d->mdfs);
    free(d->mdfs_tab.cell);
    free(d->front);
    free(d->front_tab.cell);
    free(d->hv);
    free(d->log_key);
    free(d->log_val);
    free(d->top);
    free(d->sig);
    free(d->qq);
    free(d->top_tab.cell);
    free(d->sel_tab.cell);
    free(d->var);
    free(d->hash);
    free(d->sel);
    free(d->chr);
    es_rp_plink_free(&d->pk);
    memset(d, 0, sizeof *d);
}

/* ---- the genome axis ------------------------------------------------------------ */

/* Natural order: 1..22 (a "chr" prefix ignored), X 23, Y 24, XY 25, MT/M 26,
 * then any other name after them, by name. */
static long chr_rank(const char *c)
{
    if (!strncmp(c, "chr", 3) || !strncmp(c, "CHR", 3) || !strncmp(c, "Chr", 3)) c += 3;
    if (*c >= '0' && *c <= '9') {
        char *e;
        long v = strtol(c, &e, 10);
        if (!*e && v >= 0 && v < 1000000) return v;
    }
    if (!strcmp(c, "X")) return 23;
    if (!strcmp(c, "Y")) return 24;
    if (!strcmp(c, "XY")) return 25;
    if (!strcmp(c, "MT") || !strcmp(c, "M")) return 26;
    return 2000000;
}

static int chr_cmp(const void *a, const void *b)
{
    const rp_chr_t *x = a, *y = b;
    long rx = chr_rank(x->name), ry = chr_rank(y->name);
    if (rx != ry) return rx < ry ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int chr_find(const rp_data_t *d, const char *name)
{
    size_t lo = 0, hi = d->n_chr;
    rp_chr_t key = {name, 0, 0, 0, 0};
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = chr_cmp(&key, &d->chr[mid]);
        if (!c) return (int)mid;
        if (c < 0) hi = mid;
        else lo = mid + 1;
    }
    return -1;
}

int es_rp_layout(rp_data_t *d)
{
    free(d->chr);
    d->chr = NULL;
    d->n_chr = 0;
    if (!d->n_var) return ES_OK;
    rp_chr_t *c = malloc(d->n_var * sizeof *c);
    if (!c) return ES_ERR_NOMEM;
    size_t n = 0;
    /* distinct names: sort the variants' names, then merge */
    for (size_t v = 0; v < d->n_var; v++)
        c[n++] = (rp_chr_t){d->var[v].chr, d->var[v].pos, d->var[v].pos, 0, 0};
    qsort(c, n, sizeof *c, chr_cmp);
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        if (m && !chr_cmp(&c[m - 1], &c[k])) {
            if (c[k].lo < c[m - 1].lo) c[m - 1].lo = c[k].lo;
            if (c[k].hi > c[m - 1].hi) c[m - 1].hi = c[k].hi;
        } else {
            c[m++] = c[k];
        }
    }
    d->chr = c;
    d->n_chr = m;
    /* widths: each chromosome's span, at least a tenth of the mean span, with
     * gaps of a hundredth of the whole between them */
    double total = 0;
    for (size_t k = 0; k < m; k++) total += (double)(c[k].hi - c[k].lo);
    double minw = total > 0 ? total / (double)m / 10 : 1;
    double sum = 0;
    for (size_t k = 0; k < m; k++) {
        double s = (double)(c[k].hi - c[k].lo);
        c[k].w = s > minw ? s : minw;
        sum += c[k].w;
    }
    double gap = m > 1 ? sum * 0.01 : 0, all = sum + gap * (double)(m - 1), off = 0;
    for (size_t k = 0; k < m; k++) {
        c[k].off = off / all;
        off += c[k].w + gap;
        c[k].w /= all;
    }
    return ES_OK;
}

size_t es_rp_chr_of(const rp_data_t *d, uint32_t v)
{
    int k = chr_find(d, d->var[v].chr);
    return k < 0 ? 0 : (size_t)k;
}

double es_rp_x(const rp_data_t *d, uint32_t v)
{
    const rp_var_t *x = &d->var[v];
    int k = chr_find(d, x->chr);
    if (k < 0) return 0;
    const rp_chr_t *c = &d->chr[k];
    double span = (double)(c->hi - c->lo);
    if (span <= 0) return c->off + c->w / 2;
    return c->off + c->w * (double)(x->pos - c->lo) / span;
}
