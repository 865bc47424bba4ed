/* read_plink.c -- PLINK's epistasis results as the report reads them: the pair
 * list (.epi.cc, .epi.qt) and its summary in the four layouts plink1.9
 * writes (--fast-epistasis boost: STAT DF P, as scan --format plink writes
 * it too; --fast-epistasis: STAT P; --epistasis: OR_INT STAT P on
 * case/control, BETA_INT STAT P on a quantitative trait), PLINK's log, and
 * the .bim that gives the variants the positions these files leave out.
 *
 * The files are blank-separated and name a variant by chromosome code (X is
 * 23, ...) and ID: each is looked up by ID in the .bim, the chromosome must
 * agree, and an ID that is missing, on another chromosome or there twice
 * stops the report with the file, the line and the ID (the .bim is the wrong
 * one, and every plot drawn from it would be wrong). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output.h"
#include "report_internal.h"
#include "stats.h"
#include "util.h"

#define PK_MAX_COLS 8

const char *es_rp_plink_test_name(rp_pk_test_t t)
{
    switch (t) {
    case RP_PK_BOOST: return "BOOST (--fast-epistasis boost), chi-square with the line's DF";
    case RP_PK_FAST: return "--fast-epistasis, chi-square with 1 df";
    case RP_PK_LOGISTIC: return "--epistasis on case/control (logistic), chi-square with 1 df";
    case RP_PK_LINEAR: return "--epistasis on a quantitative trait (linear), chi-square with 1 df";
    case RP_PK_OTHER: return "scan --format plink with another --stat than boost";
    default: return "unknown";
    }
}

/* BOOST's statistic has 4 df (fewer only when a table has empty cells: the
 * list's DF column says); PLINK's other tests have 1 */
int es_rp_plink_df(rp_pk_test_t t) { return t == RP_PK_BOOST ? 4 : 1; }

/* ---- the log ----------------------------------------------------------------- */

/* "  --opt ARGS" -> ARGS (the rest of the line), else NULL */
static const char *opt_arg(const char *line, const char *opt)
{
    while (*line == ' ') line++;
    size_t n = strlen(opt);
    if (strncmp(line, opt, n) || (line[n] != ' ' && line[n] != '\0')) return NULL;
    for (line += n; *line == ' ';) line++;
    return line;
}

void es_rp_plink_log(rp_data_t *d)
{
    double epi1 = NAN;
    for (size_t k = 0; k < d->n_log; k++) {
        const char *l = d->log_key[k], *a;
        if ((a = opt_arg(l, "--bfile")) && *a) d->pk.log_bfile = a;
        else if ((a = opt_arg(l, "--bim")) && *a) d->pk.log_bim = a;
        else if ((a = opt_arg(l, "--fast-epistasis")))
            d->pk.test = strstr(a, "boost") ? RP_PK_BOOST : RP_PK_FAST;
        else if (opt_arg(l, "--epistasis") && !d->pk.test) d->pk.test = RP_PK_LOGISTIC;
        else if ((a = opt_arg(l, "--epi1"))) {
            if (es_rp_parse_num(a, &epi1)) epi1 = NAN;
        } else if (!strncmp(l, "Working directory: ", 19)) d->pk.log_wd = l + 19;
        else if (!strncmp(l, "QT --epistasis", 14)) d->pk.test = RP_PK_LINEAR;
        else if (strstr(l, " valid tests performed")) {
            /* "499500 valid tests performed, summary written to ..." */
            char *e;
            unsigned long long v = strtoull(l, &e, 10);
            if (e != l && !strncmp(e, " valid tests performed", 22)) {
                d->n_tests = v;
                d->tests_key = "valid tests performed";
            }
        }
    }
    /* PLINK's --epi1 defaults: 5e-6 for BOOST, 1e-4 for the others */
    if (d->pk.test) {
        d->list_thr = !isnan(epi1) ? epi1 : d->pk.test == RP_PK_BOOST ? 5e-6 : 1e-4;
        /* a P <= list_thr, rounded to PLINK's 4 digits, is <= list_thr rounded */
        char b[32];
        snprintf(b, sizeof b, "%.4g", d->list_thr);
        d->list_cut = strtod(b, NULL);
    }
    d->has_p = 1;
}

/* ---- the .bim ------------------------------------------------------------------- */

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* s + suffix, malloc'd */
static char *cat3(const char *a, const char *b, const char *c)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s%s%s", a, b, c);
    return s;
}

/* The .bim the log names, as written, or under PLINK's working directory
 * when it is relative and not found from here.  *path NULL: the log names none. */
static int log_bim(const rp_data_t *d, char **path)
{
    const char *bfile = d->pk.log ? d->pk.log_bfile : es_rp_log(d, "bfile");
    const char *bim = d->pk.log ? d->pk.log_bim : NULL;
    *path = NULL;
    if (!bfile && !bim) return ES_OK;
    if (!(*path = bim ? strdup(bim) : cat3(bfile, ".bim", ""))) return ES_ERR_NOMEM;
    if (exists(*path) || **path == '/' || !d->pk.log_wd) return ES_OK;
    char *in_wd = cat3(d->pk.log_wd, "/", *path);
    if (!in_wd) return ES_ERR_NOMEM;
    if (exists(in_wd)) {
        free(*path);
        *path = in_wd;
    } else {
        free(in_wd);
    }
    return ES_OK;
}

int es_rp_plink_bim(rp_data_t *d, const char *bim, const char *why)
{
    rp_plink_t *pk = &d->pk;
    int ret;
    if (bim) {
        if (!(pk->bim_path = strdup(bim))) return ES_ERR_NOMEM;
        pk->bim_from = "given";
    } else {
        if ((ret = log_bim(d, &pk->bim_path))) return ret;
        pk->bim_from = "named by the run's log";
        if (!pk->bim_path) {
            const char *vcf = d->pk.log ? NULL : es_rp_log(d, "vcf");
            if (vcf)
                es_error("%s: their positions come from a .bim, and the run read a VCF (%s): give "
                         "report --bim FILE (epistream convert --vcf writes a fileset with one)", why, vcf);
            else
                es_error("%s: their positions come from a .bim, and %s: give report --bfile PREFIX "
                         "or --bim FILE", why, d->have_log ? "the run's log names none" : "the run has no log to name one");
            return ES_ERR_DATA;
        }
        if (!exists(pk->bim_path)) {
            es_error("%s: their positions come from the .bim the run's log names, %s, which is not "
                     "there: give report --bfile PREFIX or --bim FILE", why, pk->bim_path);
            return ES_ERR_IO;
        }
    }
    if ((ret = es_bim_open(&pk->bim, pk->bim_path))) return ret;
    if ((ret = es_strindex_build(&pk->ix, pk->bim->id, NULL, pk->bim->n_variants))) return ret;
    if (!(pk->var_of = calloc(pk->bim->n_variants, sizeof *pk->var_of))) return ES_ERR_NOMEM;
    return ES_OK;
}

/* Variant (chr, id) of a PLINK file, placed through the .bim: its index in
 * d->var (added when add, else *known = 0 when it is not there).
 * @return ES_OK, ES_ERR_FORMAT (logged: path, line, col) or ES_ERR_NOMEM */
static int place(rp_data_t *d, const char *path, size_t ln, const char *col, const char *chr, const char *id,
                 int add, uint32_t *v, int *known)
{
    rp_plink_t *pk = &d->pk;
    const es_fileset_t *b = pk->bim;
    uint32_t hit = ES_NO_ITEM, n_hit = 0;
    const char *code = es_plink_chr_code(chr), *other = NULL;
    for (uint32_t k = es_strindex_find(&pk->ix, id, NULL); k != ES_NO_ITEM; k = pk->ix.next[k]) {
        if (strcmp(es_plink_chr_code(b->chr[k]), code)) {
            other = b->chr[k];
            continue;
        }
        if (!n_hit++) hit = k;
    }
    if (n_hit != 1) {
        if (n_hit > 1)
            es_error("%s line %zu: %s '%s' is on chromosome %s %u times in %s: it cannot be placed", path,
                     ln, col, id, chr, n_hit, pk->bim_path);
        else if (other)
            es_error("%s line %zu: %s '%s' is on chromosome %s, but %s (%s) has it on %s: is that the "
                     "run's .bim?", path, ln, col, id, chr, pk->bim_path, pk->bim_from, other);
        else
            es_error("%s line %zu: %s '%s' is not in %s (%s), so it cannot be placed: is that the run's "
                     ".bim?", path, ln, col, id, pk->bim_path, pk->bim_from);
        return ES_ERR_FORMAT;
    }
    if (pk->var_of[hit]) {
        *v = pk->var_of[hit] - 1;
        return ES_OK;
    }
    if (!add) {
        if (es_rp_var_find(d, b->chr[hit], b->id[hit], b->pos[hit], v)) *known = 0;
        else pk->var_of[hit] = *v + 1;
        return ES_OK;
    }
    int ret = es_rp_var_get(d, b->chr[hit], b->id[hit], b->pos[hit], v);
    if (!ret) pk->var_of[hit] = *v + 1;
    return ret;
}

/* ---- the pair list ------------------------------------------------------------- */

/* The header's layout: the test, and the columns of coef (OR_INT, BETA_INT),
 * STAT, DF and P (-1: none).  @return 0, or -1 for a header that is none of them */
typedef struct {
    rp_pk_test_t test;
    int ncol, ccoef, cstat, cdf, cp;
} layout_t;

static int list_header(char **f, int nf, layout_t *L)
{
    static const struct {
        rp_pk_test_t test;
        int ncol;
        const char *tail[3];
    } known[] = {
        {RP_PK_BOOST, 7, {"STAT", "DF", "P"}},
        {RP_PK_FAST, 6, {"STAT", "P", NULL}},
        {RP_PK_LOGISTIC, 7, {"OR_INT", "STAT", "P"}},
        {RP_PK_LINEAR, 7, {"BETA_INT", "STAT", "P"}},
    };
    static const char *const head[] = {"CHR1", "SNP1", "CHR2", "SNP2"};
    if (nf < 6) return -1;
    for (int c = 0; c < 4; c++)
        if (strcmp(f[c], head[c])) return -1;
    for (size_t k = 0; k < sizeof known / sizeof *known; k++) {
        if (nf != known[k].ncol) continue;
        int ok = 1;
        for (int c = 4; c < nf && ok; c++) ok = !strcmp(f[c], known[k].tail[c - 4]);
        if (!ok) continue;
        *L = (layout_t){known[k].test, nf, -1, 4, -1, nf - 1};
        if (known[k].test == RP_PK_BOOST) L->cdf = 5;
        if (known[k].test >= RP_PK_LOGISTIC) {
            L->ccoef = 4;
            L->cstat = 5;
        }
        return 0;
    }
    return -1;
}

/* One line f[0..nf) into x.  @return ES_OK, ES_ERR_FORMAT (logged) or ES_ERR_NOMEM */
static int list_line(rp_data_t *d, const layout_t *L, const char *path, size_t ln, char **f, int nf, int add,
                     rp_hit_t *x, int *known)
{
    if (nf != L->ncol) {
        es_error("%s line %zu: %d fields, but the header has %d", path, ln, nf, L->ncol);
        return ES_ERR_FORMAT;
    }
    memset(x, 0, sizeof *x);
    *known = 1;
    int ret;
    if ((ret = place(d, path, ln, "SNP1", f[0], f[1], add, &x->v[0], known)) ||
        (ret = place(d, path, ln, "SNP2", f[2], f[3], add, &x->v[1], known)))
        return ret;
    if (es_rp_parse_num(f[L->cstat], &x->stat)) {
        es_error("%s line %zu: STAT '%s' is not a number, nan or NA", path, ln, f[L->cstat]);
        return ES_ERR_FORMAT;
    }
    x->coef = NAN;
    if (L->ccoef >= 0 && es_rp_parse_num(f[L->ccoef], &x->coef)) {
        es_error("%s line %zu: %s '%s' is not a number, nan or NA", path, ln,
                 L->test == RP_PK_LINEAR ? "BETA_INT" : "OR_INT", f[L->ccoef]);
        return ES_ERR_FORMAT;
    }
    int64_t df = es_rp_plink_df(L->test);
    /* BOOST's df is 4 at most; epistream's other statistics in its layout have more */
    int64_t max_df = d->pk.test == RP_PK_OTHER ? 1000 : 4;
    if (L->cdf >= 0 && (es_rp_parse_pos(f[L->cdf], &df) || df > max_df)) {
        es_error("%s line %zu: DF '%s' is not 0 to %d", path, ln, f[L->cdf], (int)max_df);
        return ES_ERR_FORMAT;
    }
    x->df = L->cdf >= 0 ? (int)df : -1;
    if (es_rp_parse_num(f[L->cp], &x->p) || (!isnan(x->p) && (x->p < 0 || x->p > 1))) {
        es_error("%s line %zu: P '%s' is not a p-value or NA", path, ln, f[L->cp]);
        return ES_ERR_FORMAT;
    }
    /* P as printed; a P printed as 0 (below the double range) from STAT */
    x->log10p = isnan(x->p) ? NAN
                : x->p > 0  ? -log10(x->p)
                : !isnan(x->stat) && df > 0 && d->pk.test != RP_PK_OTHER ? es_chi2_log10sf(x->stat, (int)df)
                                                                           : 323.3;
    return ES_OK;
}

/* smallest P first, NA last, ties in the file's order */
static int by_p(const void *a, const void *b)
{
    const rp_hit_t *x = *(const rp_hit_t *const *)a, *y = *(const rp_hit_t *const *)b;
    int nx = isnan(x->log10p), ny = isnan(y->log10p);
    if (nx != ny) return nx - ny;
    if (!nx && x->log10p != y->log10p) return x->log10p > y->log10p ? -1 : 1;
    return x < y ? -1 : x > y;
}

static const char *num_cell(char **s, double v, const char *fmt)
{
    const char *c = *s;
    *s += isnan(v) ? sprintf(*s, "NA") : sprintf(*s, fmt, v);
    *(*s)++ = '\0';
    return c;
}

/* The page's table of the list (no .top.tsv): its best RP_TABLE_MAX lines by
 * P, with positions, in PLINK's digits (STAT and the coefficient 6
 * significant, P 4). */
static int list_table(rp_data_t *d, const layout_t *L)
{
    rp_plink_t *pk = &d->pk;
    size_t n = d->n_sig < RP_TABLE_MAX ? d->n_sig : RP_TABLE_MAX;
    const rp_hit_t **o = malloc((d->n_sig ? d->n_sig : 1) * sizeof *o);
    static const char *const h2[] = {"CHR1", "SNP1", "POS1", "CHR2", "SNP2", "POS2"};
    int nc = 6 + L->ncol - 4, ret = ES_OK;
    rp_table_t *t = &pk->tab;
    t->cell = malloc((n + 1) * (size_t)nc * sizeof *t->cell);
    pk->arena = malloc(n * 160 + 1);
    if (!o || !t->cell || !pk->arena) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (size_t k = 0; k < d->n_sig; k++) o[k] = &d->sig[k];
    qsort(o, d->n_sig, sizeof *o, by_p);
    t->n_cols = nc;
    t->n_total = d->n_sig;
    t->best = 1;
    const char **c = t->cell;
    for (int k = 0; k < 6; k++) *c++ = h2[k];
    /* the list's own statistic columns, named as its header names them */
    static const char *const tails[][3] = {{"STAT", "DF", "P"}, {"STAT", "P", NULL}, {"OR_INT", "STAT", "P"},
                                           {"BETA_INT", "STAT", "P"}};
    for (int k = 0; k < L->ncol - 4; k++) *c++ = tails[L->test - RP_PK_BOOST][k];
    char *s = pk->arena;
    for (size_t r = 0; r < n; r++) {
        const rp_hit_t *x = o[r];
        for (int k = 0; k < 2; k++) {
            const rp_var_t *v = &d->var[x->v[k]];
            *c++ = v->chr;
            *c++ = v->id;
            *c++ = s;
            s += sprintf(s, "%lld", (long long)v->pos) + 1;
        }
        if (L->ccoef >= 0) *c++ = num_cell(&s, x->coef, "%.6g");
        *c++ = num_cell(&s, x->stat, "%.6g");
        if (L->cdf >= 0) {
            *c++ = s;
            s += sprintf(s, "%d", x->df) + 1;
        }
        *c++ = num_cell(&s, x->p, "%.4g");
    }
    t->n_rows = n + 1;
out:
    free(o);
    return ret;
}

/* the list's reading state: the list's, and its header's layout */
typedef struct {
    rp_sig_state_t st;
    layout_t L;
} list_ctx_t;

static int list_row(rp_data_t *d, void *ctx, const char *path, size_t ln, char *line, char *le)
{
    list_ctx_t *c = ctx;
    char *f[PK_MAX_COLS];
    int nf = es_split_fields(line, le, f, PK_MAX_COLS), known, ret;
    if (ln == 1) {
        if (list_header(f, nf, &c->L)) {
            es_error("%s line 1: expected the header of PLINK's epistasis list, CHR1 SNP1 CHR2 SNP2 "
                     "then STAT DF P (--fast-epistasis boost), STAT P (--fast-epistasis), OR_INT "
                     "STAT P or BETA_INT STAT P (--epistasis)", path);
            return ES_ERR_FORMAT;
        }
        if (d->order == 3) {
            es_error("%s: a 2-way list, but the run's other list is 3-way", path);
            return ES_ERR_FORMAT;
        }
        d->order = 2;
        /* epistream's other statistics write BOOST's layout */
        if (d->pk.test != RP_PK_OTHER || c->L.test != RP_PK_BOOST) d->pk.test = c->L.test;
        d->has_p = 1;
        return ES_OK;
    }
    if (!nf) return ES_OK; /* a blank line */
    rp_hit_t x;
    if ((ret = list_line(d, &c->L, path, ln, f, nf, c->st.add, &x, &known))) return ret;
    return es_rp_sig_keep(d, &c->st, &x, known);
}

int es_rp_plink_list(rp_data_t *d, const char *path)
{
    list_ctx_t c = {{!d->have_top, 0, 0}, {RP_PK_NONE, 0, -1, -1, -1, -1}};
    int ret = es_rp_stream(d, path, list_row, &c);
    if (!ret && !d->have_top) ret = list_table(d, &c.L);
    return ret;
}

/* ---- the summary -------------------------------------------------------------- */

int es_rp_plink_summary(rp_data_t *d, const char *path, char *text, size_t len)
{
    static const char *const head[] = {"CHR", "SNP", "N_SIG", "N_TOT", "PROP", "BEST_CHISQ", "BEST_CHR",
                                       "BEST_SNP"};
    char *q = text, *end = text + len, *le, *line, *f[PK_MAX_COLS + 1];
    size_t ln = 0;
    size_t sl = strlen(path), ql = strlen(RP_SUF_EPI_QT_SUM);
    if (!d->pk.test && sl >= ql && !strcmp(path + sl - ql, RP_SUF_EPI_QT_SUM)) d->pk.test = RP_PK_LINEAR;
    int df = es_rp_plink_df(d->pk.test);
    while ((line = es_next_line(&q, end, &le))) {
        ln++;
        int nf = es_split_fields(line, le, f, PK_MAX_COLS + 1);
        if (ln == 1) {
            int ok = nf == PK_MAX_COLS;
            for (int c = 0; ok && c < nf; c++) ok = !strcmp(f[c], head[c]);
            if (!ok) {
                es_error("%s line 1: expected PLINK's summary header CHR SNP N_SIG N_TOT PROP BEST_CHISQ "
                         "BEST_CHR BEST_SNP", path);
                return ES_ERR_FORMAT;
            }
            continue;
        }
        if (!nf) continue;
        if (nf != PK_MAX_COLS) {
            es_error("%s line %zu: %d fields, but the header has %d", path, ln, nf, PK_MAX_COLS);
            return ES_ERR_FORMAT;
        }
        int64_t n_sig, n_tot;
        double prop, chisq;
        if (es_rp_parse_pos(f[2], &n_sig) || es_rp_parse_pos(f[3], &n_tot) || n_sig > n_tot ||
            es_rp_parse_num(f[4], &prop) || es_rp_parse_num(f[5], &chisq) || (!isnan(chisq) && chisq < 0)) {
            es_error("%s line %zu: expected N_SIG <= N_TOT (counts), PROP and BEST_CHISQ (numbers, nan or "
                     "NA), found '%s' '%s' '%s' '%s'", path, ln, f[2], f[3], f[4], f[5]);
            return ES_ERR_FORMAT;
        }
        uint32_t v;
        int known = 1, ret = place(d, path, ln, "SNP", f[0], f[1], 1, &v, &known);
        if (ret) return ret;
        rp_var_t *x = &d->var[v];
        x->in_summary = 1;
        x->best = isnan(chisq) || !d->pk.test || d->pk.test == RP_PK_OTHER ? NAN : es_chi2_log10sf(chisq, df);
    }
    if (ln == 0) {
        es_error("%s: empty (not even a header line)", path);
        return ES_ERR_FORMAT;
    }
    return ES_OK;
}

void es_rp_plink_free(rp_plink_t *pk)
{
    es_fileset_close(pk->bim);
    es_strindex_free(&pk->ix);
    free(pk->bim_path);
    free(pk->var_of);
    free(pk->arena);
    free(pk->tab.cell);
    memset(pk, 0, sizeof *pk);
}
