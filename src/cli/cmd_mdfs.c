/* cmd_mdfs.c -- `epistream mdfs`: multidimensional feature selection (the
 * MDFS package's run()) on a numeric table or on genotypes.  Argument
 * parsing, reading the input into variables and a binary decision, and the
 * output files; the engine is src/mdfs/. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli.h"
#include "data.h"
#include "mdfs.h"
#include "table.h"

static void mdfs_usage(FILE *fp)
{
    fprintf(fp,
            "Usage: epistream mdfs --table FILE [--class COL] --dim K --out PREFIX [options]\n"
            "       epistream mdfs (--bfile PREFIX | --vcf FILE --pheno FILE) --dim K --out PREFIX\n"
            "                      [options]\n"
            "\n"
            "Multidimensional feature selection (MDFS, Mnich & Rudnicki; the semantics of the\n"
            "MDFS package 1.5.2, doc/MDFS.md): every variable is discretised at random into\n"
            "divisions + 1 classes, many times; for every k-tuple of variables and every\n"
            "discretisation the information gain (IG) of each variable on the decision given\n"
            "the others is computed; a variable's score is its maximum IG, its p-value comes\n"
            "from the chi-square distribution refitted on contrast (shuffled) variables.\n"
            "\n"
            "Input:\n"
            "  --table FILE         CSV/TSV with a header line, or ARFF: numeric columns (an\n"
            "                       ARFF nominal column is its value's 0-based index); no\n"
            "                       missing values; or LIBSVM (.libsvm/.svm/.svmlight: the\n"
            "                       label is the decision; a feature's values enter as\n"
            "                       their ranks, exact for integer values, else 65,535\n"
            "                       equal-width bins)\n"
            "  --class COL          the decision column: name or 1-based number (default: the\n"
            "                       last); exactly two values (the lower one is class 0)\n"
            "  Genotypes instead (--bfile or --vcf, below): 0/1/2 used as they are (no\n"
            "                       discretisation: --divisions 2, one discretisation); no\n"
            "                       missing calls; the decision is case/control\n"
            "\n");
    es_cli_input_usage(fp, 1);
    fprintf(fp,
            "MDFS (the package's parameter names in brackets):\n"
            "  --dim K              tuple size 1 to 5 [dimensions] (default 1)\n"
            "  --divisions M        thresholds per variable 1 to 15 [divisions] (default 1)\n"
            "  --discretizations D  random discretisations [discretizations] (default 1)\n"
            "  --range R            threshold spread 0 to 1 [range_] (default: MDFS's\n"
            "                       suggested range for the sample size; 0 = equal frequency)\n"
            "  --seed S             0 to 2147483647 [seed] (default 0): the same seed gives\n"
            "                       the package's discretisations and contrast variables\n"
            "  --pseudocount XI     pseudocount xi > 0 [pc_xi] (default 0.25)\n"
            "  --contrast N         contrast variables [n_contrast] (default: none when --dim 1\n"
            "                       and one discretisation, else max(30, variables))\n"
            "  --adjust A           holm (default) or bh [p_adjust_method]\n"
            "  --level L            relevance level of the adjusted p-values (default 0.05)\n"
            "  --tuples N           also write the N best (tuple, variable) IGs\n"
            "  --threads T          CPU threads (default: all); the output is the same\n"
            "  --device D           auto (default: the GPUs for --dim 2 and 3 when there is\n"
            "                       enough work, else the CPU; --verbose says which and why),\n"
            "                       cpu, gpu (every visible GPU) or gpu:N[,N...]; the GPUs\n"
            "                       screen the tuples (on the tensor cores for --dim 2 with\n"
            "                       --divisions 1-3, --dim 3 with 1-2) and the CPU recomputes\n"
            "                       those near each variable's maximum exactly: the same\n"
            "                       bytes on every device (--tuples: CPU only)\n"
            "Output:\n"
            "  --out PREFIX         PREFIX.mdfs.tsv (VARIABLE MAX_IG TUPLE P ADJ_P, one row per\n"
            "                       variable in input order), PREFIX.relevant.tsv (the same\n"
            "                       columns, the variables whose ADJ_P passes --level) and with\n"
            "                       --tuples PREFIX.tuples.tsv (TUPLE VARIABLE IG\n"
            "                       DISCRETIZATION, best first)\n"
            "  --quiet              only errors on stderr\n"
            "  --verbose            more about the run on stderr\n"
            "  -h, --help           this help\n");
}

typedef struct {
    es_cli_input_t ci;
    const char *table, *class_col, *out;
    es_mdfs_opt_t o;
    uint32_t threads;
    int quiet, verbose;
    es_opt_t dev_opt; /* --device, parsed as the scan's */
} mdfs_args_t;

static int set_range(void *ctx, const char *arg)
{
    return es_cli_double_in("range", arg, 0.0, 1.0, 0, &((mdfs_args_t *)ctx)->o.range);
}

static int set_pseudo(void *ctx, const char *arg)
{
    return es_cli_double_in("pseudocount", arg, 0.0, 1e300, 1, &((mdfs_args_t *)ctx)->o.pc_xi);
}

static int set_level(void *ctx, const char *arg)
{
    return es_cli_double_in("level", arg, 0.0, 1.0, 1, &((mdfs_args_t *)ctx)->o.level);
}

static int set_adjust(void *ctx, const char *arg)
{
    mdfs_args_t *a = ctx;
    if (!strcmp(arg, "holm")) a->o.adjust = ES_MDFS_HOLM;
    else if (!strcmp(arg, "bh") || !strcmp(arg, "fdr_bh")) a->o.adjust = ES_MDFS_BH;
    else {
        fprintf(stderr, "[E::options] --adjust: expected holm or bh, got '%s'\n", arg);
        return -1;
    }
    return 0;
}

static int set_contrast(void *ctx, const char *arg)
{
    uint64_t v;
    if (es_cli_u64("contrast", arg, &v)) return -1;
    if (v > 100000000u) {
        fprintf(stderr, "[E::options] --contrast: at most 100,000,000 contrast variables, got '%s'\n", arg);
        return -1;
    }
    ((mdfs_args_t *)ctx)->o.n_contrast = (int64_t)v;
    return 0;
}

static int set_device(void *ctx, const char *arg)
{
    return es_device_parse(arg, &((mdfs_args_t *)ctx)->dev_opt) ? -1 : 0;
}

static const es_cli_opt_t mdfs_opts[] = {
    ES_CLI_OPT_STR("table", mdfs_args_t, table),
    ES_CLI_OPT_STR("class", mdfs_args_t, class_col),
    ES_CLI_OPT_INT("dim", mdfs_args_t, o.dim, 0, 1000),
    ES_CLI_OPT_INT("dimensions", mdfs_args_t, o.dim, 0, 1000),
    ES_CLI_OPT_INT("divisions", mdfs_args_t, o.divisions, 0, 1000),
    ES_CLI_OPT_INT("discretizations", mdfs_args_t, o.discretizations, 1, 1000000),
    ES_CLI_OPT_FUNC("range", set_range),
    ES_CLI_OPT_U32("seed", mdfs_args_t, o.seed, 0, 2147483647u),
    ES_CLI_OPT_FUNC("pseudocount", set_pseudo),
    ES_CLI_OPT_FUNC("pc-xi", set_pseudo),
    ES_CLI_OPT_FUNC("contrast", set_contrast),
    ES_CLI_OPT_FUNC("adjust", set_adjust),
    ES_CLI_OPT_FUNC("level", set_level),
    ES_CLI_OPT_U64("tuples", mdfs_args_t, o.n_tuples),
    ES_CLI_OPT_U32("threads", mdfs_args_t, threads, 0, 4096),
    ES_CLI_OPT_FUNC("device", set_device),
    ES_CLI_OPT_STR("out", mdfs_args_t, out),
    ES_CLI_OPT_FLAG("quiet", mdfs_args_t, quiet),
    ES_CLI_OPT_FLAG("verbose", mdfs_args_t, verbose),
};

/* The input as the engine wants it. */
typedef struct {
    double *x;     /* n_vars * n_obj, variable-major */
    uint8_t *y;    /* n_obj */
    char **names;  /* n_vars */
    uint32_t n_obj, n_vars;
} input_t;

static void input_free(input_t *in)
{
    for (uint32_t v = 0; in->names && v < in->n_vars; v++) free(in->names[v]);
    free(in->names), free(in->x), free(in->y);
    memset(in, 0, sizeof *in);
}

/* The column a --class value names: a column name first, then a 1-based
 * number.  @return its index or UINT32_MAX */
static uint32_t class_column(const es_ntable_t *t, const char *s)
{
    for (uint32_t c = 0; c < t->n_cols; c++)
        if (!strcmp(t->names[c], s)) return c;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*s >= '0' && *s <= '9' && !*end && v >= 1 && v <= t->n_cols) return (uint32_t)(v - 1);
    return UINT32_MAX;
}

/* A LIBSVM file by its extension (the numeric reader takes CSV/TSV/ARFF only). */
static int is_libsvm(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot && (!strcasecmp(dot, ".libsvm") || !strcasecmp(dot, ".svm") || !strcasecmp(dot, ".svmlight"));
}

/* LIBSVM through the selection's reader: each feature's values become their
 * rank among its distinct values (integer-valued features), or one of 65,535
 * equal-width bins: MDFS's discretisation depends only on the order of the
 * values, so ranks give the same classes (bins merge values closer than
 * (max - min) / 65,535). */
static int read_libsvm(const mdfs_args_t *a, input_t *in)
{
    es_table_opt_t topt = {a->class_col, 65535, NULL, NULL};
    es_dtable_t d;
    int ret = es_table_read(a->table, &topt, &d);
    if (ret) return ret;
    if (d.n_classes != 2) {
        es_error("%s: the label has %u value%s: MDFS needs a binary decision", a->table,
                 d.n_classes, d.n_classes == 1 ? "" : "s");
        ret = ES_ERR_FORMAT;
        goto out;
    }
    in->n_obj = d.n_samples, in->n_vars = d.n_features;
    in->x = malloc(sizeof(double) * ((size_t)in->n_vars * in->n_obj + 1));
    in->y = malloc(in->n_obj + 1);
    in->names = calloc(in->n_vars + 1, sizeof(char *));
    if (!in->x || !in->y || !in->names) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t o = 0; o < in->n_obj; o++) in->y[o] = d.y[o] != 0;
    for (size_t i = 0; i < (size_t)in->n_vars * in->n_obj; i++) in->x[i] = d.x[i];
    for (uint32_t f = 0; f < in->n_vars; f++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%u", f + 1);
        if (!(in->names[f] = strdup(d.names && d.names[f] ? d.names[f] : buf))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
    }
out:
    es_dtable_free(&d);
    if (ret) input_free(in);
    return ret;
}

static int read_table(const mdfs_args_t *a, input_t *in)
{
    if (is_libsvm(a->table)) return read_libsvm(a, in);
    es_ntable_t t;
    int ret = es_ntable_read(a->table, &t);
    if (ret) return ret;
    uint32_t cc = t.n_cols ? t.n_cols - 1 : 0;
    if (a->class_col && (cc = class_column(&t, a->class_col)) == UINT32_MAX) {
        es_error("%s: --class %s: no such column (%u columns)", a->table, a->class_col, t.n_cols);
        ret = ES_ERR_ARG;
        goto out;
    }
    if (t.n_cols < 2 || t.n_rows < 2) {
        es_error("%s: %u rows and %u columns: MDFS needs a decision column, at least one "
                 "variable and two objects", a->table, t.n_rows, t.n_cols);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    in->n_obj = t.n_rows, in->n_vars = t.n_cols - 1;
    in->x = malloc(sizeof(double) * (size_t)in->n_vars * in->n_obj);
    in->y = malloc(in->n_obj);
    in->names = calloc(in->n_vars, sizeof(char *));
    if (!in->x || !in->y || !in->names) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    /* the decision: two distinct values, the lower one class 0 */
    const float *yc = t.v + (size_t)cc * t.n_rows;
    if (t.kind[cc] == ES_NCOL_TEXT) {
        es_error("%s: the class column '%s' is text: MDFS needs a numeric (or ARFF nominal) "
                 "decision with two values", a->table, t.names[cc]);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    float lo = NAN, hi = NAN;
    for (uint32_t r = 0; r < t.n_rows; r++) {
        float v = yc[r];
        if (isnan(v)) {
            es_error("%s: the class column '%s' is missing in data row %u", a->table, t.names[cc], r + 1);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        if (isnan(lo)) lo = v;
        else if (v != lo && isnan(hi)) hi = v;
        else if (v != lo && v != hi) {
            es_error("%s: the class column '%s' has a third value (%g, data row %u): MDFS needs "
                     "a binary decision", a->table, t.names[cc], (double)v, r + 1);
            ret = ES_ERR_FORMAT;
            goto out;
        }
    }
    if (isnan(hi)) {
        es_error("%s: the class column '%s' has a single value (%g): both classes are needed",
                 a->table, t.names[cc], (double)lo);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    float one = hi > lo ? hi : lo;
    for (uint32_t r = 0; r < t.n_rows; r++) in->y[r] = yc[r] == one;
    for (uint32_t c = 0, v = 0; c < t.n_cols; c++) {
        if (c == cc) continue;
        if (t.kind[c] == ES_NCOL_TEXT) {
            es_error("%s: column '%s' is text: MDFS needs numeric variables (leave it out of the "
                     "file)", a->table, t.names[c]);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        const float *col = t.v + (size_t)c * t.n_rows;
        double *x = in->x + (size_t)v * in->n_obj;
        for (uint32_t r = 0; r < t.n_rows; r++) {
            if (isnan(col[r])) {
                es_error("%s: column '%s' is missing in data row %u: MDFS needs complete data",
                         a->table, t.names[c], r + 1);
                ret = ES_ERR_FORMAT;
                goto out;
            }
            x[r] = col[r];
        }
        if (!(in->names[v] = strdup(t.names[c]))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        v++;
    }
out:
    es_ntable_free(&t);
    if (ret) input_free(in);
    return ret;
}

static int read_genotypes(const mdfs_args_t *a, input_t *in)
{
    es_dataset_t *ds = NULL;
    uint8_t *g = NULL;
    int ret = es_dataset_open(&ds, &a->ci.in);
    if (ret) return ret;
    const uint32_t ns = es_dataset_n_samples_total(ds), nv = es_dataset_n_variants(ds);
    uint32_t n = 0;
    for (uint32_t s = 0; s < ns; s++) n += es_dataset_sample_used(ds, s) != 0;
    in->n_obj = n, in->n_vars = nv;
    in->x = malloc(sizeof(double) * ((size_t)nv * n + 1));
    in->y = malloc(n + 1);
    in->names = calloc(nv + 1, sizeof(char *));
    g = malloc(ns + 1);
    if (!in->x || !in->y || !in->names || !g) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t s = 0, o = 0; s < ns; s++)
        if (es_dataset_sample_used(ds, s)) in->y[o++] = ds->status[s] == 1;
    for (uint32_t v = 0; v < nv; v++) {
        es_variant_info_t vi = es_dataset_variant(ds, v);
        if ((ret = es_dataset_decode(ds, v, g))) goto out;
        double *x = in->x + (size_t)v * n;
        for (uint32_t s = 0, o = 0; s < ns; s++) {
            if (!es_dataset_sample_used(ds, s)) continue;
            if (g[s] > 2) {
                const char *fid, *iid;
                es_dataset_sample(ds, s, &fid, &iid);
                es_error("variant %s: a missing call (sample %s %s): MDFS needs complete "
                         "genotypes (filter with --geno 0, or --mind 0)", vi.id, fid, iid);
                ret = ES_ERR_DATA;
                goto out;
            }
            x[o++] = g[s];
        }
        if (!(in->names[v] = strdup(vi.id))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
    }
out:
    free(g);
    es_dataset_destroy(ds);
    if (ret) input_free(in);
    return ret;
}

/* A tuple's names joined by commas. */
static char *put_tuple(char *p, const input_t *in, const uint32_t *t, uint32_t k)
{
    for (uint32_t j = 0; j < k; j++) {
        if (j) *p++ = ',';
        size_t l = strlen(in->names[t[j]]);
        memcpy(p, in->names[t[j]], l);
        p += l;
    }
    return p;
}

static size_t max_name(const input_t *in)
{
    size_t m = 0;
    for (uint32_t v = 0; v < in->n_vars; v++) {
        size_t l = strlen(in->names[v]);
        m = l > m ? l : m;
    }
    return m;
}

static int write_vars(FILE *fp, const input_t *in, const es_mdfs_result_t *r, int only_relevant)
{
    es_wbuf_t b;
    int ret = es_wbuf_init(&b, fp, 1 << 16);
    if (ret) return ret;
    const size_t room = (max_name(in) + 1) * (r->dim + 1) + 128;
    char *p = es_wbuf_reserve(&b, 64);
    static const char hdr[] = "VARIABLE\tMAX_IG\tTUPLE\tP\tADJ_P\n";
    memcpy(p, hdr, sizeof hdr - 1);
    b.n += sizeof hdr - 1;
    for (uint32_t v = 0; v < in->n_vars && !ret; v++) {
        if (only_relevant && !r->relevant[v]) continue;
        char *s = es_wbuf_reserve(&b, room);
        if (!s) {
            ret = ES_ERR_IO;
            break;
        }
        p = s;
        size_t l = strlen(in->names[v]);
        memcpy(p, in->names[v], l);
        p += l;
        *p++ = '\t';
        p = es_fmt_g(p, r->max_ig[v], 10);
        *p++ = '\t';
        p = put_tuple(p, in, r->arg_tuple + (size_t)v * r->dim, r->dim);
        *p++ = '\t';
        p = es_fmt_g(p, r->p[v], 6);
        *p++ = '\t';
        p = es_fmt_g(p, r->adj_p[v], 6);
        *p++ = '\n';
        b.n += (size_t)(p - s);
    }
    if (!ret) ret = es_wbuf_flush(&b);
    es_wbuf_free(&b);
    return ret;
}

static int write_tuples(FILE *fp, const input_t *in, const es_mdfs_result_t *r)
{
    es_wbuf_t b;
    int ret = es_wbuf_init(&b, fp, 1 << 16);
    if (ret) return ret;
    const size_t room = (max_name(in) + 1) * (r->dim + 2) + 128;
    char *p = es_wbuf_reserve(&b, 64);
    static const char hdr[] = "TUPLE\tVARIABLE\tIG\tDISCRETIZATION\n";
    memcpy(p, hdr, sizeof hdr - 1);
    b.n += sizeof hdr - 1;
    for (uint64_t i = 0; i < r->n_tuples; i++) {
        const es_mdfs_tuple_t *e = &r->tuples[i];
        char *s = es_wbuf_reserve(&b, room);
        if (!s) {
            ret = ES_ERR_IO;
            break;
        }
        p = put_tuple(s, in, e->tuple, r->dim);
        *p++ = '\t';
        size_t l = strlen(in->names[e->var]);
        memcpy(p, in->names[e->var], l);
        p += l;
        *p++ = '\t';
        p = es_fmt_g(p, e->ig, 10);
        *p++ = '\t';
        p = es_fmt_u64(p, e->disc);
        *p++ = '\n';
        b.n += (size_t)(p - s);
    }
    if (!ret) ret = es_wbuf_flush(&b);
    es_wbuf_free(&b);
    return ret;
}

int es_cmd_mdfs(int argc, char **argv)
{
    mdfs_args_t a;
    memset(&a, 0, sizeof a);
    es_cli_input_init(&a.ci);
    es_mdfs_opt_init(&a.o);
    a.dev_opt.device = ES_DEVICE_AUTO;
    const es_cli_group_t groups[] = {es_cli_input_group(&a.ci), ES_CLI_GROUP(mdfs_opts, &a)};
    int rc = es_cli_parse("mdfs", argc, argv, groups, 2, mdfs_usage);
    if (rc >= 0) return rc;
    const int genotypes = a.ci.in.bfile || a.ci.in.vcf;
    const char *why = NULL;
    if (!a.out || !*a.out) why = "--out is required";
    else if (!a.table == !genotypes) why = "give either --table FILE or genotypes (--bfile or --vcf)";
    else if (genotypes && a.class_col) why = "--class goes with --table (genotypes: the phenotype)";
    else if (a.table && (a.ci.in.pheno || a.ci.in.keep || a.ci.in.remove || a.ci.in.extract ||
                         a.ci.in.exclude))
        why = "--pheno, --keep, --remove, --extract and --exclude go with genotypes, not --table";
    if (why) {
        fprintf(stderr, "[E::options] mdfs: %s\n", why);
        mdfs_usage(stderr);
        return ES_EXIT_USAGE;
    }
    if (es_cli_out_prefix("mdfs", a.out)) return ES_EXIT_USAGE;
    if (genotypes && es_cli_input_check(&a.ci, "mdfs")) return ES_EXIT_USAGE;
    if (genotypes) {
        if (a.o.divisions != 1 && a.o.divisions != 2) {
            fprintf(stderr, "[E::options] mdfs: --divisions %d with genotypes: they have 3 "
                            "classes (0/1/2), --divisions 2\n", a.o.divisions);
            return ES_EXIT_USAGE;
        }
        a.o.divisions = 2;
        a.o.discrete = 1;
    }
    a.o.device = a.dev_opt.device == ES_DEVICE_CPU   ? ES_MDFS_DEV_CPU
                 : a.dev_opt.device == ES_DEVICE_GPU ? ES_MDFS_DEV_GPU
                                                     : ES_MDFS_DEV_AUTO;
    a.o.gpu_mask = a.dev_opt.gpu_mask;
    es_log_set_level(a.quiet ? ES_LOG_ERROR : a.verbose ? ES_LOG_INFO : ES_LOG_WARN);
#ifdef _OPENMP
    if (a.threads) omp_set_num_threads((int)a.threads);
#endif
    /* the options that need no data, before reading it */
    if (es_mdfs_opt_check(&a.o, 2, ES_MDFS_MAX_DIM)) return ES_EXIT_USAGE;
    input_t in;
    es_mdfs_result_t r;
    es_out_t o_all, o_rel, o_tup;
    memset(&in, 0, sizeof in);
    memset(&r, 0, sizeof r);
    memset(&o_all, 0, sizeof o_all);
    o_rel = o_tup = o_all;
    double t0 = es_time_now();
    int ret = genotypes ? read_genotypes(&a, &in) : read_table(&a, &in);
    if (ret) goto out;
    if ((ret = es_mdfs_opt_check(&a.o, in.n_obj, in.n_vars))) goto out;
    double t_read = es_time_now() - t0;
    static const char *const suffixes[] = {".mdfs.tsv", ".relevant.tsv", ".tuples.tsv"};
    es_out_clear_tmp(a.out, suffixes, 3);
    if ((ret = es_mdfs_run(&a.o, in.x, in.n_obj, in.n_vars, in.y, &r))) goto out;
    double t_run = es_time_now() - t0 - t_read;
    if ((ret = es_out_open(&o_all, a.out, ".mdfs.tsv")) || (ret = es_out_open(&o_rel, a.out, ".relevant.tsv")))
        goto out;
    if (a.o.n_tuples && (ret = es_out_open(&o_tup, a.out, ".tuples.tsv"))) goto out;
    if ((ret = write_vars(o_all.fp, &in, &r, 0)) || es_out_failed(&o_all) ||
        (ret = write_vars(o_rel.fp, &in, &r, 1)) || es_out_failed(&o_rel) ||
        (a.o.n_tuples && ((ret = write_tuples(o_tup.fp, &in, &r)) || es_out_failed(&o_tup)))) {
        if (!ret) ret = ES_ERR_IO;
        goto out;
    }
    es_out_t *const all[] = {&o_all, &o_rel, &o_tup};
    if ((ret = es_out_commit_all(all, 3))) goto out;
    es_out_clear_stale(a.out, suffixes, 3, all, 3);
    if (!a.quiet) {
        uint32_t n_rel = 0;
        for (uint32_t v = 0; v < in.n_vars; v++) n_rel += r.relevant[v] != 0;
        char num[32];
        fprintf(stderr, "[mdfs] %dD, %u variables, %u objects, %d discretization%s, %u contrast: "
                        "%s tuples in %.3f s (%.3g tuples/s); p-values %s; %u relevant at %g; "
                        "results in %s.mdfs.tsv\n",
                a.o.dim, in.n_vars, in.n_obj, a.o.discretizations,
                a.o.discretizations == 1 ? "" : "s", r.n_contrast,
                es_fmt_count(r.tuples_done, num), t_run, t_run > 0 ? r.tuples_done / t_run : 0.0,
                r.fit, n_rel, a.o.level, a.out);
    }
out:
    if (ret) {
        es_out_abort(&o_all);
        es_out_abort(&o_rel);
        es_out_abort(&o_tup);
        if (ret != ES_ERR_IO) fprintf(stderr, "[E::mdfs] failed: %s\n", es_strerror(ret));
    } else {
        es_out_close(&o_all);
        es_out_close(&o_rel);
        es_out_close(&o_tup);
    }
    es_mdfs_result_free(&r);
    input_free(&in);
    return ret ? (ret == ES_ERR_ARG ? ES_EXIT_USAGE : ES_EXIT_ERROR) : ES_EXIT_OK;
}
