/* pheno.c -- PLINK alternate phenotype files (--pheno FILE [--pheno-name COL]).
 *
 * Format: whitespace-separated FID IID v1 v2 ..., one sample per line, with
 * an optional header line "FID IID name1 name2 ..." naming the value columns.
 * Only the selected column is interpreted (the others may be quantitative),
 * but every line must have as many fields as the first one.  Samples are
 * matched to the .fam by FID+IID through a hash table. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "es_internal.h"

#define NO_SAMPLE UINT32_MAX
/* how many column names an "available columns" message lists */
#define MAX_LISTED_COLUMNS 20

static inline int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Read the whole file into a NUL-terminated buffer (same contract as the
 * .bim/.fam reader in plink.c, kept private to each file). */
static int read_text(const char *path, char **text, size_t *len)
{
    int ret = ES_OK, fd = -1;
    char *buf = NULL;
    size_t cap, n = 0;
    struct stat st;

    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        es_error("%s: cannot open: %s", path, strerror(errno));
        ret = ES_ERR_IO;
        goto out;
    }
    if (fstat(fd, &st) != 0) {
        es_error("%s: cannot stat: %s", path, strerror(errno));
        ret = ES_ERR_IO;
        goto out;
    }
    if (S_ISDIR(st.st_mode)) {
        es_error("%s: is a directory, expected a phenotype file", path);
        ret = ES_ERR_IO;
        goto out;
    }
    cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 2 : 65536;
    if (!(buf = malloc(cap))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (;;) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                ret = ES_ERR_NOMEM;
                goto out;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0) {
            if (errno == EINTR) continue;
            es_error("%s: read failed: %s", path, strerror(errno));
            ret = ES_ERR_IO;
            goto out;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    const char *nul = memchr(buf, '\0', n);
    if (nul) {
        es_error("%s: NUL byte at offset %zu: expected a text file", path, (size_t)(nul - buf));
        ret = ES_ERR_FORMAT;
        goto out;
    }
    *text = buf;
    *len = n;
    buf = NULL;
out:
    free(buf);
    if (fd >= 0) close(fd);
    return ret;
}

/* Split [p, end) in place at blanks; first `max` fields to f[]; returns the count. */
static int split_fields(char *p, char *end, char **f, int max)
{
    int n = 0;
    while (p < end) {
        while (p < end && is_blank(*p)) p++;
        if (p == end) break;
        if (n < max) f[n] = p;
        n++;
        while (p < end && !is_blank(*p)) p++;
        *p = '\0';
        if (p < end) p++;
    }
    return n;
}

static uint64_t id_hash(const char *fid, const char *iid)
{
    const uint64_t prime = 1099511628211ULL;
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *s = (const unsigned char *)fid; *s; s++) h = (h ^ *s) * prime;
    h = (h ^ 0x1f) * prime; /* FID "ab" + IID "c" must differ from "a" + "bc" */
    for (const unsigned char *s = (const unsigned char *)iid; *s; s++) h = (h ^ *s) * prime;
    return h;
}

/* FID+IID -> .fam index.  Samples sharing an ID (the .fam reader warned)
 * are chained through next[] so each gets the phenotype. */
typedef struct {
    uint32_t *tab; /* first sample index + 1; 0 = empty */
    uint32_t *next;
    size_t mask;
} id_index_t;

static int id_index_build(id_index_t *ix, const es_plink_t *p)
{
    size_t cap = 16;
    while (cap < (size_t)p->n_samples * 2) cap <<= 1;
    ix->mask = cap - 1;
    ix->tab = calloc(cap, sizeof *ix->tab);
    ix->next = malloc((size_t)p->n_samples * sizeof *ix->next);
    if (!ix->tab || !ix->next) return ES_ERR_NOMEM;
    /* Insert in reverse so each chain runs in .fam order from its head. */
    for (uint32_t s = p->n_samples; s-- > 0;) {
        size_t h = (size_t)id_hash(p->fid[s], p->iid[s]) & ix->mask;
        ix->next[s] = NO_SAMPLE;
        for (;;) {
            uint32_t t = ix->tab[h];
            if (t == 0) {
                ix->tab[h] = s + 1;
                break;
            }
            if (strcmp(p->fid[t - 1], p->fid[s]) == 0 && strcmp(p->iid[t - 1], p->iid[s]) == 0) {
                ix->next[s] = t - 1;
                ix->tab[h] = s + 1;
                break;
            }
            h = (h + 1) & ix->mask;
        }
    }
    return ES_OK;
}

static uint32_t id_index_find(const id_index_t *ix, const es_plink_t *p, const char *fid,
                              const char *iid)
{
    size_t h = (size_t)id_hash(fid, iid) & ix->mask;
    for (;;) {
        uint32_t t = ix->tab[h];
        if (t == 0) return NO_SAMPLE;
        if (strcmp(p->fid[t - 1], fid) == 0 && strcmp(p->iid[t - 1], iid) == 0) return t - 1;
        h = (h + 1) & ix->mask;
    }
}

/* Phenotype value -> 0 control, 1 case, -1 missing; -1 return for anything
 * else (including quantitative values: this is a case/control tool). */
static int pheno_code(const char *s, int8_t *code)
{
    char *e;
    if (strcasecmp(s, "NA") == 0) {
        *code = -1;
        return 0;
    }
    errno = 0;
    double v = strtod(s, &e);
    if (e == s || *e != '\0' || errno == ERANGE || !isfinite(v)) return -1;
    if (v == 1.0) *code = 0;
    else if (v == 2.0) *code = 1;
    else if (v == 0.0 || v == -9.0) *code = -1;
    else return -1;
    return 0;
}

/* Log the "no such column" error with the names a user could have meant. */
static void report_unknown_column(const char *path, const char *name, char **f, int nf)
{
    char list[1024];
    size_t used = 0;
    int nv = nf - 2;
    list[0] = '\0';
    for (int c = 0; c < nv && c < MAX_LISTED_COLUMNS; c++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", c ? ", " : "", f[c + 2]);
        if (w < 0 || (size_t)w >= sizeof list - used) break;
        used += (size_t)w;
    }
    if (nv > MAX_LISTED_COLUMNS && used + 32 < sizeof list)
        snprintf(list + used, sizeof list - used, ", ... (%d more)", nv - MAX_LISTED_COLUMNS);
    es_error("%s: no phenotype column '%s'; available: %s (or a number 1..%d)", path, name, list,
             nv);
}

/* Choose the value column (0-based among the value columns) named by
 * pheno_name: a header name first, then a 1-based number. */
static int select_column(const char *path, const char *pheno_name, char **f, int nf,
                         int has_header, int *col)
{
    int nv = nf - 2;
    if (!pheno_name) {
        *col = 0;
        return ES_OK;
    }
    if (has_header) {
        for (int c = 0; c < nv; c++) {
            if (strcmp(f[c + 2], pheno_name) == 0) {
                *col = c;
                return ES_OK;
            }
        }
    }
    char *e;
    errno = 0;
    long v = strtol(pheno_name, &e, 10);
    if (e != pheno_name && *e == '\0' && errno == 0) {
        if (v >= 1 && v <= nv) {
            *col = (int)v - 1;
            return ES_OK;
        }
        es_error("%s: phenotype column %s out of range: the file has %d phenotype column%s", path,
                 pheno_name, nv, nv == 1 ? "" : "s");
        return ES_ERR_ARG;
    }
    if (has_header) report_unknown_column(path, pheno_name, f, nf);
    else
        es_error("%s: has no header line ('FID IID name ...') naming the columns, so the "
                 "phenotype column '%s' must be given as a number 1..%d", path, pheno_name, nv);
    return ES_ERR_ARG;
}

int es_pheno_read(const char *path, const char *pheno_name, const es_plink_t *p, int8_t *status)
{
    int ret = ES_OK;
    char *text = NULL;
    char **f = NULL;
    uint8_t *seen = NULL;
    id_index_t ix = {0};
    size_t len;
    int nf_expect = 0, col = 0, has_header = 0;
    uint64_t unknown_ct = 0, dup_ct = 0, line_unknown = 0, line_dup = 0, data_lines = 0;
    const char *unknown_fid = "", *unknown_iid = "", *dup_fid = "", *dup_iid = "";
    const char *col_name = NULL;
    char b1[32], b2[32];

    if (!path || !p || !status) {
        es_error("no phenotype file or fileset given");
        ret = ES_ERR_ARG;
        goto out;
    }
    for (uint32_t s = 0; s < p->n_samples; s++) status[s] = -1;
    if ((ret = read_text(path, &text, &len)) != ES_OK) goto out;
    if ((ret = id_index_build(&ix, p)) != ES_OK) goto out;
    if (!(seen = calloc(p->n_samples ? p->n_samples : 1, 1))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }

    char *q = text, *end = text + len;
    for (uint64_t line = 1; q < end; line++) {
        char *nl = memchr(q, '\n', (size_t)(end - q));
        char *le = nl ? nl : end;
        *le = '\0';
        char *ls = q;
        q = le + 1;
        if (nf_expect == 0) {
            /* First non-blank line: learn the field count (and the header). */
            int nf = 0;
            for (const char *c = ls; c < le; c++) /* count first, to size f[] */
                if (!is_blank(*c) && (c == ls || is_blank(c[-1]))) nf++;
            if (nf == 0) continue;
            if (nf < 3) {
                es_error("%s: line %" PRIu64 ": expected FID IID and at least one phenotype "
                         "column but found %d field%s", path, line, nf, nf == 1 ? "" : "s");
                ret = ES_ERR_FORMAT;
                goto out;
            }
            if (!(f = malloc((size_t)nf * sizeof *f))) {
                ret = ES_ERR_NOMEM;
                goto out;
            }
            split_fields(ls, le, f, nf);
            nf_expect = nf;
            has_header = (strcasecmp(f[0], "FID") == 0 || strcasecmp(f[0], "#FID") == 0) &&
                         strcasecmp(f[1], "IID") == 0;
            if ((ret = select_column(path, pheno_name, f, nf, has_header, &col)) != ES_OK)
                goto out;
            col_name = has_header ? f[col + 2] : NULL;
            if (has_header) continue;
        } else {
            int nf = split_fields(ls, le, f, nf_expect);
            if (nf == 0) continue;
            if (nf != nf_expect) {
                es_error("%s: line %" PRIu64 ": expected %d fields (FID IID and %d phenotype "
                         "column%s, as on the first line) but found %d", path, line, nf_expect,
                         nf_expect - 2, nf_expect == 3 ? "" : "s", nf);
                ret = ES_ERR_FORMAT;
                goto out;
            }
        }
        data_lines++;
        int8_t code;
        if (pheno_code(f[col + 2], &code) != 0) {
            es_error("%s: line %" PRIu64 ", column %d%s%s%s: phenotype '%s' is not 1 (control), "
                     "2 (case) or 0/-9/NA (missing)", path, line, col + 3,
                     col_name ? " (" : "", col_name ? col_name : "", col_name ? ")" : "",
                     f[col + 2]);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        uint32_t s = id_index_find(&ix, p, f[0], f[1]);
        if (s == NO_SAMPLE) {
            if (unknown_ct++ == 0) {
                unknown_fid = f[0];
                unknown_iid = f[1];
                line_unknown = line;
            }
            continue;
        }
        if (seen[s]) {
            if (dup_ct++ == 0) {
                dup_fid = f[0];
                dup_iid = f[1];
                line_dup = line;
            }
        }
        for (; s != NO_SAMPLE; s = ix.next[s]) {
            seen[s] = 1;
            status[s] = code;
        }
    }
    if (nf_expect == 0) {
        es_error("%s: empty phenotype file (expected lines 'FID IID value...')", path);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    if (unknown_ct)
        es_warn("%s: %s of %s sample%s %s not in %s (ignored); first: '%s %s' on line %" PRIu64,
                path, es_fmt_count(unknown_ct, b1), es_fmt_count(data_lines, b2),
                data_lines == 1 ? "" : "s", unknown_ct == 1 ? "is" : "are", p->fam_path,
                unknown_fid, unknown_iid, line_unknown);
    if (dup_ct)
        es_warn("%s: %s sample%s listed more than once; the last value is used; first: '%s %s' "
                "on line %" PRIu64, path, es_fmt_count(dup_ct, b1), dup_ct == 1 ? "" : "s",
                dup_fid, dup_iid, line_dup);
    uint64_t absent = 0;
    for (uint32_t s = 0; s < p->n_samples; s++) absent += !seen[s];
    if (absent)
        es_info("%s: %s of the %s samples in %s have no line (phenotype missing)", path,
                es_fmt_count(absent, b1), es_fmt_count(p->n_samples, b2), p->fam_path);
out:
    if (ret == ES_ERR_NOMEM) es_error("out of memory reading phenotype file %s", path);
    free(ix.tab);
    free(ix.next);
    free(seen);
    free(f);
    free(text);
    return ret;
}
