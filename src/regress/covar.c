/* covar.c -- PLINK 1.9 covariate files (--covar FILE [--covar-name LIST]).
 *
 * Format: whitespace-separated "FID IID c1 c2 ...", one sample a line, every line with as many
 * fields as the first.  An optional header line whose first two fields are FID (or #FID) and IID
 * names the covariates; without one they are COV1, COV2, ... as PLINK 1.9 names them.
 * Missing: -9 (PLINK's missing phenotype, by value: -9.0 too), NA and nan in any case; a sample
 * missing any selected covariate is flagged missing, as is an input sample with no line.
 *
 * Every value is checked to be a number, selected or not, on every line (a file is well-formed
 * or not whatever is selected; PLINK 1.9 refuses such files too).  Lines of samples that are
 * not in the input are ignored and counted in one warning; a sample on two lines is an error,
 * since which line holds the truth cannot be known.
 *
 * --covar-name: comma-separated entries, each a name, a range NAME1-NAME2 (the columns between
 * them, inclusive), or, where it is no header name, a 1-based covariate number or range of
 * numbers ("1-3"), as PLINK's covariate selection allows.  A name containing '-' matches whole
 * before being read as a range.  The selection keeps the file's column order, as PLINK's does. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "regress.h"

/* how many names an "available" list shows */
#define MAX_LISTED 20

void es_covar_free(es_covar_t *c)
{
    if (!c) return;
    if (c->names)
        for (uint32_t j = 0; j < c->k; j++) free(c->names[j]);
    free(c->names);
    free(c->val);
    free(c->missing);
    memset(c, 0, sizeof *c);
}

/* Parse one value: 0 a number (*v), 1 missing (*v = NAN), -1 not a number. */
static int covar_value(const char *s, double *v)
{
    if (strcasecmp(s, "NA") == 0 || strcasecmp(s, "nan") == 0) {
        *v = NAN;
        return 1;
    }
    char *e;
    errno = 0;
    double x = strtod(s, &e);
    if (e == s || *e != '\0' || !isfinite(x) || (errno == ERANGE && fabs(x) > 1)) return -1;
    if (x == -9.0) {
        *v = NAN;
        return 1;
    }
    *v = x;
    return 0;
}

/* A --covar-name item [s, s + len): a header name, else a 1-based number.  @return the 0-based
 * column, -1 when it is neither, -2 for a number out of range. */
static int resolve(const char *s, size_t len, char *const *names, int nc)
{
    for (int c = 0; c < nc; c++)
        if (strlen(names[c]) == len && strncmp(names[c], s, len) == 0) return c;
    if (len == 0 || len > 9) return len ? -2 : -1;
    int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v >= 1 && v <= nc ? v - 1 : -2;
}

static void list_names(char *buf, size_t cap, char *const *names, int nc)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int c = 0; c < nc && c < MAX_LISTED; c++) {
        int w = snprintf(buf + used, cap - used, "%s%s", c ? ", " : "", names[c]);
        if (w < 0 || (size_t)w >= cap - used) return;
        used += (size_t)w;
    }
    if (nc > MAX_LISTED) snprintf(buf + used, cap - used, ", ... (%d more)", nc - MAX_LISTED);
}

/* Mark the columns a --covar-name list selects in sel[nc].  @return ES_OK or ES_ERR_ARG */
static int select_columns(const char *path, const char *list, char *const *names, int nc,
                          uint8_t *sel)
{
    char avail[1024];
    const char *p = list;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0) {
            es_error("%s: --covar-name '%s' has an empty entry", path, list);
            return ES_ERR_ARG;
        }
        int c = resolve(p, len, names, nc);
        if (c >= 0) {
            sel[c] = 1;
        } else {
            /* a range: the first '-' (not the first character) with a column on either side */
            int lo = -1, hi = -1, bad_num = c == -2;
            for (size_t d = 1; d + 1 < len && lo < 0; d++) {
                if (p[d] != '-') continue;
                int l = resolve(p, d, names, nc), r = resolve(p + d + 1, len - d - 1, names, nc);
                if (l >= 0 && r >= 0) {
                    lo = l;
                    hi = r;
                } else if (l == -2 || r == -2) {
                    bad_num = 1;
                }
            }
            if (lo < 0) {
                list_names(avail, sizeof avail, names, nc);
                if (bad_num)
                    es_error("%s: --covar-name '%.*s': covariate number out of range; the file "
                             "has %d covariate%s", path, (int)len, p, nc, nc == 1 ? "" : "s");
                else
                    es_error("%s: --covar-name: no covariate '%.*s'; available: %s (or numbers "
                             "1..%d, ranges A-B)", path, (int)len, p, avail, nc);
                return ES_ERR_ARG;
            }
            if (lo > hi) {
                es_error("%s: --covar-name range '%.*s' runs backwards (%s is column %d, %s "
                         "column %d)", path, (int)len, p, names[lo], lo + 1, names[hi], hi + 1);
                return ES_ERR_ARG;
            }
            for (int j = lo; j <= hi; j++) sel[j] = 1;
        }
        if (!e) break;
        p = e + 1;
    }
    return ES_OK;
}

int es_covar_read(const char *path, const char *names, uint32_t n_samples,
                  const char *const *fid, const char *const *iid, es_covar_t *out)
{
    int ret = ES_OK;
    char *text = NULL;
    char **f = NULL, **cname = NULL;
    uint8_t *sel = NULL;
    uint64_t *line_of = NULL; /* per input sample: the line that gave its values (0: none) */
    es_strindex_t ix = {0};
    size_t len;
    int nf_expect = 0, nc = 0, has_header = 0;
    uint64_t unknown_ct = 0, line_unknown = 0, data_lines = 0;
    const char *unknown_fid = "", *unknown_iid = "";
    char b1[32], b2[32];

    if (out) memset(out, 0, sizeof *out);
    if (!path || !out || (n_samples && (!fid || !iid))) {
        es_error("no covariate file, sample IDs or output given");
        return ES_ERR_ARG;
    }
    if ((ret = es_text_read(path, "covariate file", &text, &len)) != ES_OK) goto out;
    if (!(line_of = calloc(n_samples ? n_samples : 1, sizeof *line_of)) ||
        !(out->missing = malloc(n_samples ? n_samples : 1))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    if ((ret = es_strindex_build(&ix, fid, iid, n_samples)) != ES_OK) goto out;

    char *q = text, *end = text + len, *ls, *le;
    for (uint64_t line = 1; (ls = es_next_line(&q, end, &le)) != NULL; line++) {
        if (nf_expect == 0) {
            /* the first non-blank line: the field count, and the names if it is a header */
            int nf;
            if ((ret = es_split_fields_alloc(ls, le, &f, &nf)) != ES_OK) goto out;
            if (nf == 0) continue;
            has_header = nf >= 2 && (strcasecmp(f[0], "FID") == 0 || strcasecmp(f[0], "#FID") == 0) &&
                         strcasecmp(f[1], "IID") == 0;
            if (nf < 3) {
                if (has_header)
                    es_error("%s: line %" PRIu64 ": the header names no covariate after FID IID",
                             path, line);
                else
                    es_error("%s: line %" PRIu64 ": expected 'FID IID covariate...' (at least 3 "
                             "fields) but found %d field%s", path, line, nf, nf == 1 ? "" : "s");
                ret = ES_ERR_FORMAT;
                goto out;
            }
            nf_expect = nf;
            nc = nf - 2;
            if (!(cname = calloc((size_t)nc, sizeof *cname)) || !(sel = calloc((size_t)nc, 1))) {
                ret = ES_ERR_NOMEM;
                goto out;
            }
            for (int c = 0; c < nc; c++) {
                char num[32];
                snprintf(num, sizeof num, "COV%d", c + 1);
                if (!(cname[c] = strdup(has_header ? f[2 + c] : num))) {
                    ret = ES_ERR_NOMEM;
                    goto out;
                }
                for (int d = 0; has_header && d < c; d++) {
                    if (strcmp(cname[d], cname[c]) == 0) {
                        es_error("%s: line %" PRIu64 ": covariate name '%s' appears twice in the "
                                 "header (columns %d and %d)", path, line, cname[c], d + 3, c + 3);
                        ret = ES_ERR_FORMAT;
                        goto out;
                    }
                }
            }
            if (names) {
                if ((ret = select_columns(path, names, cname, nc, sel)) != ES_OK) goto out;
            } else {
                memset(sel, 1, (size_t)nc);
            }
            for (int c = 0; c < nc; c++) out->k += sel[c];
            if (!(out->names = calloc(out->k, sizeof *out->names)) ||
                !(out->val = malloc((size_t)(n_samples ? n_samples : 1) * out->k * sizeof *out->val))) {
                ret = ES_ERR_NOMEM;
                goto out;
            }
            uint32_t j = 0;
            for (int c = 0; c < nc; c++) {
                if (sel[c] && !(out->names[j++] = strdup(cname[c]))) {
                    ret = ES_ERR_NOMEM;
                    goto out;
                }
            }
            for (size_t i = 0; i < (size_t)n_samples * out->k; i++) out->val[i] = NAN;
            if (has_header) continue;
        } else {
            int nf = es_split_fields(ls, le, f, nf_expect);
            if (nf == 0) continue;
            if (nf != nf_expect) {
                es_error("%s: line %" PRIu64 ": expected %d fields (FID IID and %d covariate%s, "
                         "as on the first line) but found %d", path, line, nf_expect, nc,
                         nc == 1 ? "" : "s", nf);
                ret = ES_ERR_FORMAT;
                goto out;
            }
        }
        data_lines++;
        double v[1];
        for (int c = 0; c < nc; c++) {
            if (covar_value(f[2 + c], v) < 0) {
                es_error("%s: line %" PRIu64 ", column %d (%s): '%s' is not a number (nor -9, NA "
                         "or nan for missing)", path, line, c + 3, cname[c], f[2 + c]);
                ret = ES_ERR_FORMAT;
                goto out;
            }
        }
        uint32_t s = es_strindex_find(&ix, f[0], f[1]);
        if (s == ES_NO_ITEM) {
            if (unknown_ct++ == 0) {
                unknown_fid = f[0];
                unknown_iid = f[1];
                line_unknown = line;
            }
            continue;
        }
        if (line_of[s]) {
            es_error("%s: line %" PRIu64 ": sample '%s %s' is listed again (first on line %" PRIu64
                     "); a sample must have one line", path, line, f[0], f[1], line_of[s]);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        for (; s != ES_NO_ITEM; s = ix.next[s]) {
            line_of[s] = line;
            uint32_t j = 0;
            for (int c = 0; c < nc; c++) {
                if (!sel[c]) continue;
                covar_value(f[2 + c], v);
                out->val[(size_t)s * out->k + j++] = v[0];
            }
        }
    }
    if (nf_expect == 0) {
        es_error("%s: empty covariate file (expected lines 'FID IID covariate...')", path);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    if (data_lines == 0) {
        es_error("%s: a header and no sample lines", path);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    out->n_samples = n_samples;
    uint64_t absent = 0;
    for (uint32_t s = 0; s < n_samples; s++) {
        int miss = line_of[s] == 0;
        absent += miss;
        for (uint32_t j = 0; !miss && j < out->k; j++) miss = isnan(out->val[(size_t)s * out->k + j]);
        out->missing[s] = (uint8_t)miss;
        out->n_missing += (uint32_t)miss;
    }
    if (unknown_ct)
        es_warn("%s: %s of %s sample line%s not in the input (ignored); first: '%s %s' on line "
                "%" PRIu64, path, es_fmt_count(unknown_ct, b1), es_fmt_count(data_lines, b2),
                data_lines == 1 ? "" : "s", unknown_fid, unknown_iid, line_unknown);
    if (out->n_missing)
        es_info("%s: %s of %u samples missing a covariate (%s with no line)", path,
                es_fmt_count(out->n_missing, b1), n_samples, es_fmt_count(absent, b2));
out:
    if (ret == ES_ERR_NOMEM) es_error("out of memory reading covariate file %s", path);
    if (ret != ES_OK) es_covar_free(out);
    if (cname)
        for (int c = 0; c < nc; c++) free(cname[c]);
    free(cname);
    free(sel);
    free(line_of);
    free(f);
    free(text);
    es_strindex_free(&ix);
    return ret;
}
