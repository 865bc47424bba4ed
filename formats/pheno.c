/* pheno.c -- PLINK alternate phenotype files (--pheno FILE [--pheno-name COL]).
 *
 * Format: whitespace-separated "FID IID v1 v2 ..." or "IID v1 v2 ...", one
 * sample per line.  An optional header line names the columns and says
 * which layout it is ("FID IID name..." or PLINK 2's "#FID IID ...";
 * "IID name..." or "#IID ...").  Without a header, a file whose lines all
 * have exactly two fields is "IID value"; anything else is "FID IID values".
 * Only the selected column is interpreted (the others may be quantitative),
 * but every line must have as many fields as the first one.
 *
 * Matching, through hash indexes (formats/select.c): FID+IID when the file
 * has FIDs, IID alone otherwise.  Input samples sharing an FID+IID all take
 * the value (the .fam reader warned about them).  An IID-only line whose IID
 * belongs to samples of different families is an error: a phenotype is one
 * person's, and guessing would silently attach it to several. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats.h"

/* how many column names an "available columns" message lists */
#define MAX_LISTED_COLUMNS 20

/* Phenotype value -> 0 control, 1 case, -1 missing; -1 return for anything
 * else (including quantitative values: this is a case/control tool).  Under
 * --1 (coding01) 0 is a control and 1 a case, and every other value is
 * missing, as PLINK 1.9 reads it: -2 return for the ones that are not -9/NA,
 * so that the caller can count them. */
static int pheno_code(const char *s, int coding01, int8_t *code)
{
    if (coding01) {
        char *e;
        *code = -1;
        if (strcasecmp(s, "NA") == 0) return 0;
        errno = 0;
        double v = strtod(s, &e);
        if (e == s || *e != '\0' || errno == ERANGE) return -2;
        if (v == 0.0) *code = 0;
        else if (v == 1.0) *code = 1;
        else if (v != -9.0) return -2;
        return 0;
    }

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

/* Log the "no such column" error with the names a user could have meant.
 * names: the header's nv value-column names. */
static void report_unknown_column(const char *path, const char *name, char **names, int nv)
{
    char list[1024];
    size_t used = 0;
    list[0] = '\0';
    for (int c = 0; c < nv && c < MAX_LISTED_COLUMNS; c++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", c ? ", " : "", names[c]);
        if (w < 0 || (size_t)w >= sizeof list - used) break;
        used += (size_t)w;
    }
    if (nv > MAX_LISTED_COLUMNS && used + 32 < sizeof list)
        snprintf(list + used, sizeof list - used, ", ... (%d more)", nv - MAX_LISTED_COLUMNS);
    es_error("%s: no phenotype column '%s'; available: %s (or a number 1..%d)", path, name, list,
             nv);
}

/* Choose the value column (0-based among the nv value columns) named by
 * pheno_name: a header name first, then a 1-based number. */
static int select_column(const char *path, const char *pheno_name, char **names, int nv,
                         int has_header, const char *ids, int *col)
{
    if (!pheno_name) {
        *col = 0;
        return ES_OK;
    }
    if (has_header) {
        for (int c = 0; c < nv; c++) {
            if (strcmp(names[c], pheno_name) == 0) {
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
    if (has_header) report_unknown_column(path, pheno_name, names, nv);
    else
        es_error("%s: has no header line ('%s name ...') naming the columns, so the "
                 "phenotype column '%s' must be given as a number 1..%d", path, ids, pheno_name,
                 nv);
    return ES_ERR_ARG;
}

/* The header of a file: 2 for "FID IID ..." / "#FID IID ...", 1 for
 * "IID ..." / "#IID ...", 0 when the first line is data. */
static int header_id_cols(char **f, int nf)
{
    if ((strcasecmp(f[0], "FID") == 0 || strcasecmp(f[0], "#FID") == 0) && nf >= 2 &&
        strcasecmp(f[1], "IID") == 0)
        return 2;
    if (strcasecmp(f[0], "IID") == 0 || strcasecmp(f[0], "#IID") == 0) return 1;
    return 0;
}

int es_pheno_read(const char *path, const char *pheno_name, const es_fileset_t *p, int8_t *status)
{
    return es_pheno_read_coded(path, pheno_name, 0, p, status);
}

/* The reader behind both entry points.  qt == NULL: case/control only (a
 * value that is not one is an error); else qt[s] also receives every value
 * as a number (NaN: -9, NA, nan, or no line) and *quant is set when a value
 * is not case/control coding (status -1 for it). */
static int pheno_read(const char *path, const char *pheno_name, int coding01, const es_fileset_t *p,
                      int8_t *status, double *qt, int *quant);

int es_pheno_read_coded(const char *path, const char *pheno_name, int coding01,
                        const es_fileset_t *p, int8_t *status)
{
    return pheno_read(path, pheno_name, coding01, p, status, NULL, NULL);
}

int es_pheno_read_values(const char *path, const char *pheno_name, int coding01,
                         const es_fileset_t *p, int8_t *status, double *qt, int *quant)
{
    *quant = 0;
    return pheno_read(path, pheno_name, coding01, p, status, qt, quant);
}

static int pheno_read(const char *path, const char *pheno_name, int coding01, const es_fileset_t *p,
                      int8_t *status, double *qt, int *quant)
{
    int ret = ES_OK;
    char *text = NULL;
    char **f = NULL;
    uint8_t *seen = NULL;
    es_strindex_t ix = {0};
    size_t len;
    int nf_expect = 0, col = 0, has_header = 0, id_cols = 2, guessed_iid = 0;
    uint64_t unknown_ct = 0, dup_ct = 0, line_unknown = 0, line_dup = 0, data_lines = 0;
    uint64_t other_ct = 0, line_other = 0; /* --1: values other than 0, 1, -9, NA */
    const char *other_val = "";
    /* first unknown and first repeated ID: a = FID (or the IID), b = IID (or "") */
    const char *unknown_a = "", *unknown_b = "", *dup_a = "", *dup_b = "", *ids = "FID IID";
    const char *col_name = NULL;
    const char *src = p && p->fam_path ? p->fam_path : "the input";
    char b1[32], b2[32];

    if (!path || !p || !status) {
        es_error("no phenotype file or fileset given");
        ret = ES_ERR_ARG;
        goto out;
    }
    for (uint32_t s = 0; s < p->n_samples; s++) status[s] = -1;
    if (qt)
        for (uint32_t s = 0; s < p->n_samples; s++) qt[s] = NAN;
    if ((ret = es_text_read(path, "phenotype file", &text, &len)) != ES_OK) goto out;
    if (!(seen = calloc(p->n_samples ? p->n_samples : 1, 1))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }

    char *q = text, *end = text + len;
    char *ls, *le;
    for (uint64_t line = 1; (ls = es_next_line(&q, end, &le)) != NULL; line++) {
        if (nf_expect == 0) {
            /* First non-blank line: learn the layout, the field count and the header. */
            int nf;
            if ((ret = es_split_fields_alloc(ls, le, &f, &nf)) != ES_OK) goto out;
            if (nf == 0) continue;
            id_cols = header_id_cols(f, nf);
            has_header = id_cols != 0;
            if (!has_header) {
                guessed_iid = nf == 2;
                id_cols = guessed_iid ? 1 : 2;
            }
            ids = id_cols == 2 ? "FID IID" : "IID";
            if (nf <= id_cols) {
                if (has_header)
                    es_error("%s: line %" PRIu64 ": the header names no phenotype column after "
                             "%s", path, line, ids);
                else
                    es_error("%s: line %" PRIu64 ": expected 'IID value' or 'FID IID values...' "
                             "but found 1 field", path, line);
                ret = ES_ERR_FORMAT;
                goto out;
            }
            nf_expect = nf;
            if ((ret = select_column(path, pheno_name, f + id_cols, nf - id_cols, has_header, ids,
                                     &col)) != ES_OK)
                goto out;
            col_name = has_header ? f[id_cols + col] : NULL;
            /* Index the input's IDs the way the file names them. */
            if (id_cols == 2)
                ret = es_strindex_build(&ix, p->fid, p->iid, p->n_samples);
            else
                ret = es_strindex_build(&ix, p->iid, NULL, p->n_samples);
            if (ret != ES_OK) goto out;
            if (has_header) continue;
        } else {
            int nf = es_split_fields(ls, le, f, nf_expect);
            if (nf == 0) continue;
            if (nf != nf_expect) {
                es_error("%s: line %" PRIu64 ": expected %d fields (%s and %d phenotype "
                         "column%s, as on the first line) but found %d", path, line, nf_expect,
                         ids, nf_expect - id_cols, nf_expect - id_cols == 1 ? "" : "s", nf);
                ret = ES_ERR_FORMAT;
                goto out;
            }
        }
        data_lines++;
        int8_t code;
        const char *val = f[id_cols + col];
        int pc = pheno_code(val, coding01, &code);
        if (pc == -2 && other_ct++ == 0) {
            other_val = val;
            line_other = line;
        }
        double value = NAN;
        if (qt && strcasecmp(val, "NA") != 0 && strcasecmp(val, "nan") != 0) {
            char *e;
            errno = 0;
            value = strtod(val, &e);
            if (e == val || *e != '\0' || errno == ERANGE || !isfinite(value)) {
                es_error("%s: line %" PRIu64 ", column %d%s%s%s: phenotype '%s' is not a number%s", path, line,
                         id_cols + col + 1, col_name ? " (" : "", col_name ? col_name : "", col_name ? ")" : "", val,
                         guessed_iid ? "; every line has 2 fields, so the file was read as 'IID value'" : "");
                ret = ES_ERR_FORMAT;
                goto out;
            }
            if (value == -9.0) value = NAN; /* PLINK's missing phenotype */
            if (pc == -1) {
                *quant = 1;
                pc = 0;
                code = -1;
            }
        }
        if (pc == -1) {
            es_error("%s: line %" PRIu64 ", column %d%s%s%s: phenotype '%s' is not 1 (control), "
                     "2 (case) or 0/-9/NA (missing)%s", path, line, id_cols + col + 1,
                     col_name ? " (" : "", col_name ? col_name : "", col_name ? ")" : "", val,
                     guessed_iid ? "; every line has 2 fields, so the file was read as 'IID "
                                   "value'"
                                 : "");
            ret = ES_ERR_FORMAT;
            goto out;
        }
        /* f[0] is the FID in a FID IID file, else the IID */
        uint32_t s = es_strindex_find(&ix, f[0], id_cols == 2 ? f[1] : NULL);
        if (s == ES_NO_ITEM) {
            if (unknown_ct++ == 0) {
                unknown_a = f[0];
                unknown_b = id_cols == 2 ? f[1] : "";
                line_unknown = line;
            }
            continue;
        }
        if (id_cols == 1) {
            for (uint32_t t = ix.next[s]; t != ES_NO_ITEM; t = ix.next[t]) {
                if (strcmp(p->fid[t], p->fid[s]) != 0) {
                    es_error("%s: line %" PRIu64 ": IID '%s' belongs to samples of more than "
                             "one family in %s ('%s %s' and '%s %s'); a phenotype is one "
                             "sample's: use a 'FID IID value' file", path, line, f[0], src,
                             p->fid[s], p->iid[s], p->fid[t], p->iid[t]);
                    ret = ES_ERR_FORMAT;
                    goto out;
                }
            }
        }
        if (seen[s] && dup_ct++ == 0) {
            dup_a = f[0];
            dup_b = id_cols == 2 ? f[1] : "";
            line_dup = line;
        }
        for (; s != ES_NO_ITEM; s = ix.next[s]) {
            seen[s] = 1;
            status[s] = code;
            if (qt) qt[s] = value;
        }
    }
    if (nf_expect == 0) {
        es_error("%s: empty phenotype file (expected lines 'FID IID value...' or 'IID value')",
                 path);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    if (unknown_ct)
        es_warn("%s: %s of %s sample%s %s not in %s (ignored); first: '%s%s%s' on line %" PRIu64
                "%s", path, es_fmt_count(unknown_ct, b1), es_fmt_count(data_lines, b2),
                data_lines == 1 ? "" : "s", unknown_ct == 1 ? "is" : "are", src, unknown_a,
                *unknown_b ? " " : "", unknown_b, line_unknown,
                unknown_ct == data_lines && id_cols == 2
                    ? " (no line matched: FID and IID must both match; a file of 'IID value' "
                      "lines matches on IID alone)"
                    : "");
    if (other_ct)
        es_warn("%s: %s phenotype value%s other than 0 (control), 1 (case), -9 or NA counted "
                "as missing (--1, as in PLINK 1.9); first: '%s' on line %" PRIu64, path,
                es_fmt_count(other_ct, b1), other_ct == 1 ? "" : "s", other_val, line_other);
    if (dup_ct)
        es_warn("%s: %s sample%s listed more than once; the last value is used; first: '%s%s%s' "
                "on line %" PRIu64, path, es_fmt_count(dup_ct, b1), dup_ct == 1 ? "" : "s",
                dup_a, *dup_b ? " " : "", dup_b, line_dup);
    uint64_t absent = 0;
    for (uint32_t s = 0; s < p->n_samples; s++) absent += !seen[s];
    if (absent)
        es_info("%s: %s of the %s samples in %s have no line (phenotype missing)", path,
                es_fmt_count(absent, b1), es_fmt_count(p->n_samples, b2), src);
out:
    if (ret == ES_ERR_NOMEM) es_error("out of memory reading phenotype file %s", path);
    es_strindex_free(&ix);
    free(seen);
    free(f);
    free(text);
    return ret;
}
