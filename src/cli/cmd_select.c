/* cmd_select.c -- `epistream select`: mutual-information feature selection
 * (mRMR, JMI, DISR, CMIM, ICAP, CondMI, MIM) over a general table, or over the
 * variants that survived a scan (read from its .top.tsv or .summary.tsv).
 * Argument parsing only: reading the survivor files, the selection, the
 * table of survivors and the output lines are src/select/refine.c's, shared
 * with `scan --refine`; the --method and --refine parsers here are shared
 * too (declared in cli.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli.h"
#include "output.h"

#define K_MAX 100000000u

static void select_usage(FILE *fp)
{
    fprintf(fp,
            "Usage: epistream select --table FILE --method M --k K --out PREFIX [options]\n"
            "       epistream select (--bfile PREFIX | --vcf FILE --pheno FILE)\n"
            "                        (--from PREFIX.top.tsv | --from-summary PREFIX.summary.tsv "
            "--n N)\n"
            "                        --method M --k K --out PREFIX [options]\n"
            "\n"
            "Greedy mutual-information feature selection (FEAST semantics, logs base 2):\n"
            "picks K features one at a time, each maximising the method's score given the\n"
            "features already picked and the class.\n"
            "\n"
            "General data:\n"
            "  --table FILE         CSV/TSV with a header line (delimiter tab, comma or ';'),\n"
            "                       ARFF, or LIBSVM (format from .csv/.tsv/.txt/.arff/.libsvm/\n"
            "                       .svm, else sniffed); missing values (empty, NA, ?, nan) are\n"
            "                       a state of their own; LIBSVM indices are dense columns, so\n"
            "                       one over 1024 columns or cells per stored value (beyond\n"
            "                       65,536 columns or 2^26 cells) is refused\n"
            "  --class COL          class column: name or 1-based number (default: the last;\n"
            "                       LIBSVM: the label)\n"
            "  --bins B             equal-width bins for numeric columns that are not\n"
            "                       integer-coded (default 128)\n"
            "  --features LIST      only these columns are features: names or 1-based\n"
            "                       numbers as for --class, comma-separated (default: every\n"
            "                       column but the class)\n"
            "  --exclude-cols LIST  leave these columns out of the features (e.g. the other\n"
            "                       labels of a multi-label file, an ID column)\n"
            "Scan survivors (genotypes 0/1/2, a missing call is its own state; the class is\n"
            "case/control; use the same input and selection options as the scan):\n"
            "  --from FILE          the variants of the pairs (triples) in a .top.tsv or\n"
            "                       .epi.cc\n"
            "  --from-summary FILE  the N variants with the best BEST_STAT (higher first) of a\n"
            "                       .summary.tsv; with --n N\n"
            "\n");
    es_cli_input_usage(fp, 1);
    fprintf(fp,
            "Selection:\n"
            "  --method M           mrmr, jmi, disr, cmim, icap, condmi or mim\n"
            "  --k K                features to select (condmi may stop earlier)\n"
            "  --threads T          CPU threads (default: all)\n"
            "  --device D           auto (default: the CPU or GPU 0, whichever is estimated to\n"
            "                       finish sooner, opening the GPU included; the log says\n"
            "                       which and why), cpu, gpu (GPU 0) or gpu:N; every device\n"
            "                       writes the same bytes\n"
            "  --gpu-kernel K       pair-engine kernel for <= 4-state features: auto, wgmma,\n"
            "                       ws, mma or popc (tests and benchmarks)\n"
            "  --gpu-path P         auto (default: the pair engine when every feature has <= 4\n"
            "                       states and the class 2, else histogram kernels), hist or\n"
            "                       pairs (tests and benchmarks)\n"
            "  --fixed-point        entropies from a 16-bit fixed-point log2 table (Q5.11,\n"
            "                       exact sums; cuFEAST's low-precision variant); the double\n"
            "                       selection runs too and the log reports how far they agree\n"
            "Output:\n"
            "  --out PREFIX         writes PREFIX.select.tsv (RANK FEATURE SCORE RELEVANCE)\n"
            "                       and PREFIX.log (PREFIX ends in a file name: not DIR/)\n"
            "  --quiet              only errors on stderr, no progress line (on a terminal:\n"
            "                       picks made, picks/s, ETA)\n"
            "  --verbose            informational messages on stderr\n"
            "  -h, --help           this help\n");
}

/* ---- option parsers shared with scan --refine ---------------------------------- */

int es_cli_method(const char *opt, const char *s, es_mi_method_t *m)
{
    for (int k = 0; k <= (int)ES_MI_MIM; k++) {
        if (strcasecmp(s, es_mi_method_name((es_mi_method_t)k)) == 0) {
            *m = (es_mi_method_t)k;
            return 0;
        }
    }
    fprintf(stderr,
            "[E::options] --%s: expected mrmr, jmi, disr, cmim, icap, condmi or mim, got '%s'\n",
            opt, s);
    return -1;
}

int es_cli_refine(const char *s, es_mi_method_t *m, uint32_t *k)
{
    const char *colon = strchr(s, ':');
    char name[32];
    if (!colon || (size_t)(colon - s) >= sizeof name) {
        fprintf(stderr, "[E::options] --refine: expected METHOD:K (e.g. mrmr:20), got '%s'\n", s);
        return -1;
    }
    memcpy(name, s, (size_t)(colon - s));
    name[colon - s] = '\0';
    if (es_cli_method("refine", name, m)) return -1;
    return es_cli_u32("refine", colon + 1, 1, K_MAX, k);
}

int es_cli_gpu_path(const char *s, int *path)
{
    static const char *const names[] = {"auto", "hist", "pairs"};
    for (int k = 0; k < 3; k++)
        if (!strcmp(s, names[k])) {
            *path = k;
            return 0;
        }
    fprintf(stderr, "[E::options] --gpu-path: expected auto, hist or pairs, got '%s'\n", s);
    return -1;
}

/* ---- the subcommand ---------------------------------------------------------- */

static void write_log(FILE *fp, const char *cmdline, const char *table,
                      const es_table_opt_t *topt, const es_input_opt_t *in,
                      const char *from, const char *from_summary, uint32_t n, es_mi_method_t m,
                      uint32_t k, const es_select_info_t *info, const char *out, double t_read,
                      double t_total)
{
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    fprintf(fp, "epistream %s\n", ES_VERSION);
    fprintf(fp, "date\t%s\n", date);
    fprintf(fp, "command\t%s\n", cmdline ? cmdline : "");
    if (table) {
        fprintf(fp, "table\t%s\n", table);
        if (topt->features) fprintf(fp, "features\t%s\n", topt->features);
        if (topt->exclude_cols) fprintf(fp, "exclude_cols\t%s\n", topt->exclude_cols);
    } else {
        if (in->bfile) fprintf(fp, "bfile\t%s\n", in->bfile);
        else fprintf(fp, "vcf\t%s\n", in->vcf);
        fprintf(fp, "phenotype\t%s\n", in->pheno ? in->pheno : "(.fam column 6)");
        if (from) fprintf(fp, "from\t%s\n", from);
        else fprintf(fp, "from_summary\t%s\nn\t%u\n", from_summary, n);
    }
    es_select_write_log(fp, m, k, info);
    fprintf(fp, "seconds_read\t%.3f\n", t_read);
    fprintf(fp, "seconds_total\t%.3f\n", t_total);
    fprintf(fp, "output\t%s.select.tsv\n", out);
}

/* What the command line asked for. */
typedef struct {
    es_cli_input_t ci;
    const char *out, *table, *from, *from_summary;
    const char *kernel_arg, *path_arg; /* --gpu-kernel, --gpu-path as given */
    es_table_opt_t topt;
    es_mi_method_t method;
    uint32_t k, n_sum, threads;
    int have_method, have_bins, quiet, verbose;
    es_opt_t dev_opt; /* --device and --gpu-kernel, parsed as the scan does */
    es_select_opt_t so;
} select_args_t;

/* The handlers of the options that need more than storing the value (ctx:
 * the select_args_t). */

static int set_bins(void *ctx, const char *arg)
{
    select_args_t *a = ctx;
    a->have_bins = 1;
    return es_cli_u32("bins", arg, 2, 65535, &a->topt.bins);
}

static int set_method(void *ctx, const char *arg)
{
    select_args_t *a = ctx;
    a->have_method = 1;
    return es_cli_method("method", arg, &a->method);
}

static int set_device(void *ctx, const char *arg)
{
    return es_device_parse(arg, &((select_args_t *)ctx)->dev_opt) ? -1 : 0;
}

/* --features, --exclude-cols: the list's shape here; its columns are the
 * table reader's to check */
static int col_list(const char *opt, const char *arg, const char **out)
{
    size_t len = strlen(arg);
    if (!len || arg[0] == ',' || arg[len - 1] == ',' || strstr(arg, ",,")) {
        fprintf(stderr, "[E::options] --%s: expected column names or 1-based numbers separated "
                        "by commas, got '%s'\n", opt, arg);
        return -1;
    }
    *out = arg;
    return 0;
}

static int set_features(void *ctx, const char *arg)
{
    return col_list("features", arg, &((select_args_t *)ctx)->topt.features);
}

static int set_exclude_cols(void *ctx, const char *arg)
{
    return col_list("exclude-cols", arg, &((select_args_t *)ctx)->topt.exclude_cols);
}

static int set_gpu_kernel(void *ctx, const char *arg)
{
    select_args_t *a = ctx;
    a->kernel_arg = arg;
    return es_gpu_kernel_parse(arg, &a->dev_opt.gpu_kernel) ? -1 : 0;
}

static int set_gpu_path(void *ctx, const char *arg)
{
    select_args_t *a = ctx;
    a->path_arg = arg;
    return es_cli_gpu_path(arg, &a->so.gpu_path);
}

static const es_cli_opt_t select_opts[] = {
    ES_CLI_OPT_STR("table", select_args_t, table),
    ES_CLI_OPT_STR("class", select_args_t, topt.class_col),
    ES_CLI_OPT_FUNC("bins", set_bins),
    ES_CLI_OPT_FUNC("features", set_features),
    ES_CLI_OPT_FUNC("exclude-cols", set_exclude_cols),
    ES_CLI_OPT_STR("from", select_args_t, from),
    ES_CLI_OPT_STR("from-summary", select_args_t, from_summary),
    ES_CLI_OPT_U32("n", select_args_t, n_sum, 1, UINT32_MAX - 1),
    ES_CLI_OPT_FUNC("method", set_method),
    ES_CLI_OPT_U32("k", select_args_t, k, 1, K_MAX),
    ES_CLI_OPT_U32("threads", select_args_t, threads, 0, 4096),
    ES_CLI_OPT_FUNC("device", set_device),
    ES_CLI_OPT_FUNC("gpu-kernel", set_gpu_kernel),
    ES_CLI_OPT_FUNC("gpu-path", set_gpu_path),
    ES_CLI_OPT_FLAG("fixed-point", select_args_t, so.fixed_point),
    ES_CLI_OPT_STR("out", select_args_t, out),
    ES_CLI_OPT_FLAG("quiet", select_args_t, quiet),
    ES_CLI_OPT_FLAG("verbose", select_args_t, verbose),
};

/* Check the options across each other, then read and select (all or nothing).
 * @return the exit code */
static int select_run(select_args_t *a, int argc, char **argv)
{
    const char *why = NULL;
    int genotypes = a->ci.in.bfile || a->ci.in.vcf;
    if (!a->out || !*a->out) why = "--out is required";
    else if (!a->have_method) why = "--method is required";
    else if (!a->k) why = "--k is required";
    else if (!a->table == !genotypes) why = "give either --table or a genotype input (--bfile/--vcf)";
    else if (a->table && (a->from || a->from_summary || a->n_sum))
        why = "--from, --from-summary and --n go with --bfile/--vcf, not --table";
    else if (a->table && (a->ci.in.pheno || a->ci.in.keep || a->ci.in.remove || a->ci.in.extract ||
                       a->ci.in.exclude || a->ci.in.chr || a->ci.in.n_regions || a->ci.in.maf > 0 ||
                       a->ci.in.geno < 1))
        why = "the input and selection options go with --bfile/--vcf, not --table";
    else if (genotypes && (a->topt.class_col || a->have_bins))
        why = "--class and --bins go with --table (the class of genotypes is case/control)";
    else if (genotypes && (a->topt.features || a->topt.exclude_cols))
        why = "--features and --exclude-cols go with --table (for variants use --extract and "
              "--exclude)";
    else if (a->topt.features && a->topt.exclude_cols)
        why = "give --features or --exclude-cols, not both";
    else if (genotypes && !a->from == !a->from_summary)
        why = "give one of --from PREFIX.top.tsv and --from-summary PREFIX.summary.tsv";
    else if (a->from_summary && !a->n_sum) why = "--from-summary needs --n N";
    else if (a->from && a->n_sum) why = "--n goes with --from-summary";
    if (why) {
        fprintf(stderr, "[E::options] select: %s\n", why);
        select_usage(stderr);
        return ES_EXIT_USAGE;
    }
    if (es_cli_out_prefix("select", a->out)) return ES_EXIT_USAGE;
    if (genotypes && es_cli_input_check(&a->ci, "select")) return ES_EXIT_USAGE;
    /* the GPUs asked for exist and the GPU-only options have one to go to
     * (the registry's messages, as for scan) */
    char gpu_opt[64];
    gpu_opt[0] = '\0';
    if (a->dev_opt.gpu_kernel) snprintf(gpu_opt, sizeof gpu_opt, "--gpu-kernel %s", a->kernel_arg);
    else if (a->so.gpu_path) snprintf(gpu_opt, sizeof gpu_opt, "--gpu-path %s", a->path_arg);
    if (es_backend_check(a->dev_opt.device, a->dev_opt.gpu_mask, gpu_opt[0] ? gpu_opt : NULL)) return ES_EXIT_USAGE;
    es_log_set_level(a->quiet ? ES_LOG_ERROR : a->verbose ? ES_LOG_INFO : ES_LOG_WARN);
#ifdef _OPENMP
    if (a->threads) omp_set_num_threads((int)a->threads); /* the table reader's parallel steps */
#endif
    a->ci.in.threads = a->threads ? (int)a->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    a->so.threads = (int)a->threads;
    a->so.device = es_select_device(a->dev_opt.device, a->dev_opt.gpu_mask);
    a->so.gpu_kernel = a->dev_opt.gpu_kernel;
    es_cli_picks_t pp = {0, 0};
    if (!a->quiet && isatty(STDERR_FILENO)) {
        a->so.progress = es_cli_picks_progress;
        a->so.progress_ud = &pp;
    }

    int ret = ES_OK;
    es_dataset_t *ds = NULL;
    es_dtable_t d;
    uint32_t *var = NULL, n_var = 0;
    es_select_info_t info;
    es_out_t o_sel, o_log;
    memset(&d, 0, sizeof d);
    memset(&info, 0, sizeof info);
    memset(&o_sel, 0, sizeof o_sel);
    o_log = o_sel;
    char *cmdline = es_cli_join(argc, argv);
    double t0 = es_time_now(), t_read;

    /* create the outputs first so a bad --out fails before a long read */
    static const char *const suffixes[] = {".select.tsv", ".log"};
    es_out_clear_tmp(a->out, suffixes, 2);
    if ((ret = es_out_open(&o_sel, a->out, ".select.tsv"))) goto out;
    if ((ret = es_out_open(&o_log, a->out, ".log"))) goto out;
    if (a->table) {
        if ((ret = es_table_read(a->table, &a->topt, &d))) goto out;
        t_read = es_time_now() - t0;
        if (d.n_classes < 2)
            es_warn("%s: the class '%s' has a single value: every score is 0", a->table,
                    d.class_name ? d.class_name : "");
        if ((ret = es_select_table(&d, a->method, a->k, &a->so, o_sel.fp, &info))) goto out;
    } else {
        es_cli_input_progress(&a->ci, !a->quiet && isatty(STDERR_FILENO));
        if ((ret = es_dataset_open(&ds, &a->ci.in))) goto out;
        ret = a->from ? es_select_read_pairs(ds, a->from, &var, &n_var)
                      : es_select_read_summary(ds, a->from_summary, a->n_sum, &var, &n_var);
        if (ret) goto out;
        t_read = es_time_now() - t0;
        if ((ret = es_select_variants(ds, var, n_var, a->method, a->k, &a->so, o_sel.fp, &info)))
            goto out;
    }
    es_cli_picks_end(&pp);
    write_log(o_log.fp, cmdline, a->table, &a->topt, &a->ci.in, a->from, a->from_summary, a->n_sum, a->method, a->k, &info, a->out,
              t_read, es_time_now() - t0);
    es_out_t *const all[] = {&o_sel, &o_log};
    if ((ret = es_out_commit_all(all, 2))) goto out;
    if (!a->quiet) {
        char num[32];
        fprintf(stderr, "[select] %s picked %u of %u features (%s samples, %u classes) in %.2f s; "
                        "results in %s.select.tsv\n",
                es_mi_method_name(a->method), info.n_selected, info.n_features,
                es_fmt_count(info.n_samples, num), info.n_classes, es_time_now() - t0, a->out);
    }
out:
    es_cli_picks_end(&pp);
    if (ret) {
        es_out_abort(&o_sel);
        es_out_abort(&o_log);
        /* an I/O error was reported with its file and cause: no vaguer echo */
        if (ret != ES_ERR_IO) fprintf(stderr, "[E::select] failed: %s\n", es_strerror(ret));
    } else {
        es_out_close(&o_sel);
        es_out_close(&o_log);
    }
    es_dtable_free(&d);
    free(var);
    es_dataset_destroy(ds);
    free(cmdline);
    return ret ? ES_EXIT_ERROR : ES_EXIT_OK;
}

int es_cmd_select(int argc, char **argv)
{
    select_args_t a;
    memset(&a, 0, sizeof a);
    a.topt.bins = 128;
    a.method = ES_MI_MRMR;
    es_opt_init(&a.dev_opt);
    es_mi_opt_init(&a.so);
    es_cli_input_init(&a.ci);
    const es_cli_group_t groups[] = {es_cli_input_group(&a.ci), ES_CLI_GROUP(select_opts, &a)};
    int r = es_cli_parse("select", argc, argv, groups, sizeof groups / sizeof *groups,
                         select_usage);
    return r >= 0 ? r : select_run(&a, argc, argv);
}
