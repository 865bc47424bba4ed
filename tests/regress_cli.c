/* regress_cli.c -- a driver of src/regress for tests/regress.sh and tests/sim_qt.sh (a check
 * program, not installed).
 *
 *   regress_cli linear|logistic FILE   FILE: a TSV, an optional header line (first field not a
 *                                      number), then rows "y a b c1 ... ck" (NA: missing); prints
 *                                      "BETA SE STAT P LOG10P N STATUS" of the a*b term
 *   regress_cli resid FILE             rows "y c1 ... ck": prints y residualised on 1 + C, a line
 *                                      per row
 *   regress_cli tail                   lines "t df" on stdin ("inf" df: the normal): prints
 *                                      "sf logsf" of each
 *   regress_cli covar FILE NAMES IDS   reads IDS ("FID IID" lines) and FILE with --covar-name
 *                                      NAMES ("-": all): prints the names, then per sample the
 *                                      values and the missing flag; exit 2 on a read error
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regress.h"

#define MAX_COLS 64

typedef struct {
    uint32_t n, ncol;
    double *v; /* n x ncol */
} table_t;

static int read_table(const char *path, table_t *t)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "regress_cli: cannot open %s\n", path);
        return 1;
    }
    char line[1 << 16];
    size_t cap = 0;
    t->n = t->ncol = 0;
    t->v = NULL;
    int first = 1;
    while (fgets(line, sizeof line, fp)) {
        char *f[MAX_COLS], *save = NULL;
        uint32_t nf = 0;
        for (char *tok = strtok_r(line, " \t\r\n", &save); tok && nf < MAX_COLS;
             tok = strtok_r(NULL, " \t\r\n", &save))
            f[nf++] = tok;
        if (nf == 0) continue;
        char *e;
        strtod(f[0], &e);
        if (first && *e != '\0' && strcmp(f[0], "NA") != 0) { /* a header */
            first = 0;
            continue;
        }
        first = 0;
        if (t->ncol == 0) t->ncol = nf;
        if (nf != t->ncol) {
            fprintf(stderr, "regress_cli: %s: ragged row %u\n", path, t->n + 1);
            fclose(fp);
            return 1;
        }
        if ((size_t)(t->n + 1) * nf > cap) {
            cap = cap ? 2 * cap : 1024 * (size_t)nf;
            double *nv = realloc(t->v, cap * sizeof *nv);
            if (!nv) {
                fclose(fp);
                return 1;
            }
            t->v = nv;
        }
        for (uint32_t j = 0; j < nf; j++)
            t->v[(size_t)t->n * nf + j] = strcmp(f[j], "NA") == 0 ? NAN : strtod(f[j], NULL);
        t->n++;
    }
    fclose(fp);
    return 0;
}

static int fit(const char *kind, const char *path)
{
    table_t t;
    if (read_table(path, &t)) return 1;
    if (t.ncol < 3) {
        fprintf(stderr, "regress_cli: %s: need columns y a b [c...]\n", path);
        free(t.v);
        return 1;
    }
    uint32_t n = t.n, k = t.ncol - 3;
    double *y = malloc((n + 1) * sizeof *y), *a = malloc((n + 1) * sizeof *a),
           *b = malloc((n + 1) * sizeof *b), *C = malloc(((size_t)n * k + 1) * sizeof *C);
    es_reg_ws_t *ws = es_reg_ws_create();
    int rc = 1;
    if (!y || !a || !b || !C || !ws) goto out;
    for (uint32_t s = 0; s < n; s++) {
        const double *r = t.v + (size_t)s * t.ncol;
        y[s] = r[0];
        a[s] = r[1];
        b[s] = r[2];
        for (uint32_t j = 0; j < k; j++) C[(size_t)s * k + j] = r[3 + j];
    }
    es_reg_result_t res;
    int ret = strcmp(kind, "linear") == 0 ? es_reg_linear(ws, y, a, b, C, n, k, &res)
                                          : es_reg_logistic(ws, y, a, b, C, n, k, &res);
    if (ret != ES_OK) {
        fprintf(stderr, "regress_cli: %s\n", es_strerror(ret));
        goto out;
    }
    if (res.status == ES_REG_OK)
        printf("%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%u\tok\n", res.beta, res.se, res.stat, res.p,
               res.log10p, res.n);
    else
        printf("NA\tNA\tNA\tNA\tNA\t%u\t%s\n", res.n, es_reg_status_str(res.status));
    rc = 0;
out:
    es_reg_ws_destroy(ws);
    free(y);
    free(a);
    free(b);
    free(C);
    free(t.v);
    return rc;
}

static int resid(const char *path)
{
    table_t t;
    if (read_table(path, &t)) return 1;
    uint32_t n = t.n, k = t.ncol - 1;
    double *y = malloc((n + 1) * sizeof *y), *C = malloc(((size_t)n * k + 1) * sizeof *C),
           *r = malloc((n + 1) * sizeof *r);
    int rc = 1;
    if (!y || !C || !r) goto out;
    for (uint32_t s = 0; s < n; s++) {
        y[s] = t.v[(size_t)s * t.ncol];
        for (uint32_t j = 0; j < k; j++) C[(size_t)s * k + j] = t.v[(size_t)s * t.ncol + 1 + j];
    }
    if (es_reg_residualize(y, C, n, k, r) != ES_OK) goto out;
    for (uint32_t s = 0; s < n; s++) printf("%.17g\n", r[s]);
    rc = 0;
out:
    free(y);
    free(C);
    free(r);
    free(t.v);
    return rc;
}

static int tail(void)
{
    double t, df;
    while (scanf("%lf %lf", &t, &df) == 2)
        printf("%.17g\t%.17g\n", es_reg_t_sf(t, df), es_reg_t_logsf(t, df));
    return 0;
}

static int covar(const char *path, const char *names, const char *ids)
{
    FILE *fp = fopen(ids, "r");
    if (!fp) return 1;
    static char fbuf[4096][2][64];
    static char *fid[4096], *iid[4096];
    uint32_t n = 0;
    while (n < 4096 && fscanf(fp, "%63s %63s", fbuf[n][0], fbuf[n][1]) == 2) {
        fid[n] = fbuf[n][0];
        iid[n] = fbuf[n][1];
        n++;
    }
    fclose(fp);
    es_covar_t c;
    int ret = es_covar_read(path, strcmp(names, "-") == 0 ? NULL : names, n,
                            (const char *const *)fid, (const char *const *)iid, &c);
    if (ret != ES_OK) return 2;
    for (uint32_t j = 0; j < c.k; j++) printf("%s%s", j ? "\t" : "", c.names[j]);
    printf("\n");
    for (uint32_t s = 0; s < n; s++) {
        for (uint32_t j = 0; j < c.k; j++) printf("%.17g\t", c.val[(size_t)s * c.k + j]);
        printf("%d\n", c.missing[s]);
    }
    es_covar_free(&c);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && (strcmp(argv[1], "linear") == 0 || strcmp(argv[1], "logistic") == 0))
        return fit(argv[1], argv[2]);
    if (argc == 3 && strcmp(argv[1], "resid") == 0) return resid(argv[2]);
    if (argc == 2 && strcmp(argv[1], "tail") == 0) return tail();
    if (argc == 5 && strcmp(argv[1], "covar") == 0) return covar(argv[2], argv[3], argv[4]);
    fprintf(stderr, "usage: regress_cli linear|logistic FILE | resid FILE | tail | covar FILE "
                    "NAMES IDS\n");
    return 1;
}
