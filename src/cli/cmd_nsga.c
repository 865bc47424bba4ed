/* cmd_nsga.c -- `epistream nsga`: multi-objective feature selection with
 * NSGA-II over a table, or over variants a scan or a selection kept.
 * Argument parsing, reading the input, the progress line and the output
 * files; the algorithm and its devices are src/nsga/. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli.h"
#include "nsga.h"

static void nsga_usage(FILE *fp)
{
    fprintf(fp,
            "Usage: epistream nsga --table FILE [--class COL] [--features FILE | --from FILE]\n"
            "                      --out PREFIX [options]\n"
            "       epistream nsga (--bfile PREFIX | --vcf FILE --pheno FILE) --from FILE\n"
            "                      --out PREFIX [options]\n"
            "\n"
            "Multi-objective feature selection with NSGA-II (Deb et al. 2002): a population of\n"
            "feature subsets (bit masks) evolves towards the Pareto front of two minimised\n"
            "objectives; the fitness evaluations are spread over the CPU and GPUs: with one\n"
            "GPU each generation is planned from the times measured (the CPU's threads take\n"
            "a few heavy individuals when that ends the generation 5%% sooner, the GPU the\n"
            "rest in one launch and, once its values are back, what the CPU has not done);\n"
            "with several, one host thread per device claims chunks of\n"
            "individuals (the GPUs from the front, the CPU's threads from the back only what\n"
            "they would finish before the GPUs; each generation with the CPU or on the GPUs\n"
            "alone, whichever measured faster).\n"
            "The results are the same bytes for any --threads and --devices.\n"
            "\n"
            "Table:\n"
            "  --table FILE         CSV/TSV with a header line, or ARFF; features numeric and\n"
            "                       complete (z-scored before use)\n"
            "  --class COL          class column: name or 1-based number (default: the last)\n"
            "  --no-class           kmeans only: every column is a feature\n"
            "  --features FILE      only these features: one column name a line, or a\n"
            "                       .select.tsv (its FEATURE column)\n"
            "  --from FILE          the same as --features (e.g. PREFIX.select.tsv of\n"
            "                       'epistream select')\n"
            "Genotypes (features 0/1/2 copies of A1, a missing call the variant's mean; the\n"
            "class case/control; the input and selection options of 'epistream select'):\n"
            "  --from FILE          the variants: a .select.tsv (FEATURE = variant ID) or a\n"
            "                       scan's .top.tsv/.sig.tsv/.epi.cc (the variants of its pairs)\n"
            "\n");
    es_cli_input_usage(fp, 1);
    fprintf(fp,
            "Objectives:\n"
            "  --objectives O       knn-error,size (default): F1 = selected / all features,\n"
            "                       F2 = the pooled stratified k-fold CV error of k-NN;\n"
            "                       nc-error,size: the same with the nearest centroid;\n"
            "                       kmeans: F1 = the mean distance of a sample to its K-means\n"
            "                       centroid, F2 = minus the mean distance between centroids\n"
            "                       (initial centroids: the same random samples for every\n"
            "                       individual of a generation). An empty subset has F2 = 1\n"
            "                       (errors) or F1 = F2 = 0 (kmeans)\n"
            "  --knn-k K            neighbours of k-NN (default 5; ties by input order, votes\n"
            "                       to the lower class)\n"
            "  --folds F            CV folds (default 5), cut as scikit-learn's\n"
            "                       StratifiedKFold(shuffle=True, random_state=--cv-seed)\n"
            "  --cv-seed S          the folds' seed (default 0)\n"
            "  --clusters K         K of K-means (default 3)\n"
            "  --kmeans-iter I      Lloyd iterations at most (default 20)\n"
            "NSGA-II:\n"
            "  --population N       individuals, even (default 100)\n"
            "  --generations G      generations (default 100)\n"
            "  --seed S             random seed (default 1)\n"
            "  --crossover P        probability of uniform crossover of a pair (default 0.75)\n"
            "  --mutation P01,P10   bit-flip probabilities 0->1 and 1->0 (default 1/F,2/F for F\n"
            "                       features)\n"
            "  --max-ones M         initial subsets have 1..M features (default F); 0: each\n"
            "                       feature with probability 1/2\n"
            "Devices:\n"
            "  --threads T          CPU threads (default: all, less one per GPU listed)\n"
            "  --devices LIST       cpu, gpu:N, comma-separated (default cpu), e.g. cpu,gpu:0\n"
            "Output:\n"
            "  --out PREFIX         writes PREFIX.front.tsv (N_FEATURES F1 F2 FEATURES: the\n"
            "                       final Pareto front), PREFIX.hv.tsv (GENERATION HV:\n"
            "                       hypervolume of each generation's first front; reference\n"
            "                       point (1,1) for the errors, in the log) and PREFIX.log\n"
            "                       (per-device evaluations and times)\n"
            "  --quiet              only errors on stderr\n"
            "  --verbose            informational messages on stderr\n"
            "  -h, --help           this help\n");
}

typedef struct {
    es_cli_input_t ci;
    const char *out, *table, *from, *features, *objectives, *devices, *mutation;
    es_nsga_opt_t o;
    es_nsga_load_opt_t lo;
    const char *class_col;
    int no_class, quiet, verbose;
    uint32_t threads, folds, cv_seed, max_ones;
    int have_max_ones;
} nsga_args_t;

static int set_objectives(void *ctx, const char *arg)
{
    nsga_args_t *a = ctx;
    a->objectives = arg;
    if (es_nsga_obj_parse(arg, &a->o.obj) || a->o.obj == ES_NSGA_ZDT1) {
        fprintf(stderr, "[E::options] --objectives: expected knn-error,size, nc-error,size or "
                        "kmeans, got '%s'\n", arg);
        return -1;
    }
    return 0;
}

static int set_prob(const char *opt, const char *s, double *out)
{
    if (es_cli_double(opt, s, out)) return -1;
    if (!(*out >= 0.0 && *out <= 1.0)) {
        fprintf(stderr, "[E::options] --%s: expected a probability in [0, 1], got '%s'\n", opt, s);
        return -1;
    }
    return 0;
}

static int set_crossover(void *ctx, const char *arg)
{
    return set_prob("crossover", arg, &((nsga_args_t *)ctx)->o.crossover);
}

static int set_mutation(void *ctx, const char *arg)
{
    nsga_args_t *a = ctx;
    const char *c = strchr(arg, ',');
    char on[64];
    if (!c || (size_t)(c - arg) >= sizeof on || c == arg) {
        fprintf(stderr, "[E::options] --mutation: expected P01,P10 (e.g. 0.01,0.02), got '%s'\n", arg);
        return -1;
    }
    memcpy(on, arg, (size_t)(c - arg));
    on[c - arg] = '\0';
    return set_prob("mutation", on, &a->o.mut_on) || set_prob("mutation", c + 1, &a->o.mut_off) ? -1 : 0;
}

static int set_max_ones(void *ctx, const char *arg)
{
    nsga_args_t *a = ctx;
    a->have_max_ones = 1;
    return es_cli_u32("max-ones", arg, 0, UINT32_MAX - 1, &a->max_ones);
}

static const es_cli_opt_t nsga_opts[] = {
    ES_CLI_OPT_STR("table", nsga_args_t, table),
    ES_CLI_OPT_STR("class", nsga_args_t, class_col),
    ES_CLI_OPT_FLAG("no-class", nsga_args_t, no_class),
    ES_CLI_OPT_STR("features", nsga_args_t, features),
    ES_CLI_OPT_STR("from", nsga_args_t, from),
    ES_CLI_OPT_FUNC("objectives", set_objectives),
    ES_CLI_OPT_U32("knn-k", nsga_args_t, o.knn_k, 1, ES_NSGA_KNN_MAX),
    ES_CLI_OPT_U32("folds", nsga_args_t, folds, 2, 32),
    ES_CLI_OPT_U32("cv-seed", nsga_args_t, cv_seed, 0, UINT32_MAX),
    ES_CLI_OPT_U32("clusters", nsga_args_t, o.clusters, 1, 65535),
    ES_CLI_OPT_U32("kmeans-iter", nsga_args_t, o.kmeans_iter, 0, 100000),
    ES_CLI_OPT_U32("population", nsga_args_t, o.population, 4, 1000000),
    ES_CLI_OPT_U32("generations", nsga_args_t, o.generations, 0, 10000000),
    ES_CLI_OPT_U64("seed", nsga_args_t, o.seed),
    ES_CLI_OPT_FUNC("crossover", set_crossover),
    ES_CLI_OPT_FUNC("mutation", set_mutation),
    ES_CLI_OPT_FUNC("max-ones", set_max_ones),
    ES_CLI_OPT_U32("threads", nsga_args_t, threads, 0, 4096),
    ES_CLI_OPT_STR("devices", nsga_args_t, devices),
    ES_CLI_OPT_STR("out", nsga_args_t, out),
    ES_CLI_OPT_FLAG("quiet", nsga_args_t, quiet),
    ES_CLI_OPT_FLAG("verbose", nsga_args_t, verbose),
};

static void progress(uint32_t g, uint32_t total, double secs, void *ud)
{
    (void)ud;
    es_cli_progress("nsga", "generations", g, total, secs);
}

static void write_log(FILE *fp, const char *cmdline, const nsga_args_t *a, const es_nsga_data_t *d,
                      const es_nsga_result_t *r, double t_read)
{
    time_t now = time(NULL);
    char date[64], num[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    fprintf(fp, "epistream %s\n", ES_VERSION);
    fprintf(fp, "date\t%s\n", date);
    fprintf(fp, "command\t%s\n", cmdline ? cmdline : "");
    if (a->table) fprintf(fp, "table\t%s\n", a->table);
    else fprintf(fp, "%s\t%s\n", a->ci.in.bfile ? "bfile" : "vcf", a->ci.in.bfile ? a->ci.in.bfile : a->ci.in.vcf);
    if (a->from || a->features) fprintf(fp, "features_from\t%s\n", a->from ? a->from : a->features);
    fprintf(fp, "samples\t%u\nfeatures\t%u\nclasses\t%u\nfolds\t%u\n", d->n, d->p, d->n_classes,
            d->n_folds);
    fprintf(fp, "objectives\t%s\n", es_nsga_obj_name(a->o.obj));
    if (a->o.obj == ES_NSGA_KNN) fprintf(fp, "knn_k\t%u\n", a->o.knn_k);
    if (a->o.obj == ES_NSGA_KMEANS) fprintf(fp, "clusters\t%u\nkmeans_iter\t%u\n", a->o.clusters, a->o.kmeans_iter);
    if (d->n_folds) fprintf(fp, "cv_seed\t%u\n", a->lo.cv_seed);
    fprintf(fp, "population\t%u\ngenerations\t%u\nseed\t%llu\n", a->o.population, a->o.generations,
            (unsigned long long)a->o.seed);
    *es_fmt_g(num, a->o.crossover, 6) = '\0';
    fprintf(fp, "crossover\t%s\n", num);
    *es_fmt_g(num, a->o.mut_on >= 0 ? a->o.mut_on : 1.0 / d->p, 6) = '\0';
    fprintf(fp, "mutation_0to1\t%s\n", num);
    *es_fmt_g(num, a->o.mut_off >= 0 ? a->o.mut_off : (2.0 / d->p < 1 ? 2.0 / d->p : 1.0), 6) = '\0';
    fprintf(fp, "mutation_1to0\t%s\n", num);
    fprintf(fp, "max_ones\t%u\n", a->o.max_ones == UINT32_MAX ? d->p : a->o.max_ones);
    for (uint32_t k = 0; k < r->n_dev; k++)
        fprintf(fp, "device\t%s\tevaluations\t%llu\tchunks\t%llu\tseconds\t%.3f\n", r->dev[k].name,
                (unsigned long long)r->dev[k].evaluations, (unsigned long long)r->dev[k].chunks,
                r->dev[k].seconds);
    fprintf(fp, "evaluations\t%llu\n", (unsigned long long)r->evaluations);
    fprintf(fp, "seconds_evaluating\t%.3f\n", r->seconds_eval);
    fprintf(fp, "evaluations_per_second\t%.1f\n",
            r->seconds_eval > 0 ? (double)r->evaluations / r->seconds_eval : 0.0);
    char a0[64], a1[64];
    *es_fmt_g(a0, r->hv_ref[0], 10) = '\0';
    *es_fmt_g(a1, r->hv_ref[1], 10) = '\0';
    fprintf(fp, "hv_reference\t%s,%s\n", a0, a1);
    *es_fmt_g(num, r->n_hv ? r->hv[r->n_hv - 1] : 0.0, 10) = '\0';
    fprintf(fp, "hv_final\t%s\n", num);
    fprintf(fp, "front_size\t%u\n", r->n_front);
    fprintf(fp, "seconds_read\t%.3f\nseconds_total\t%.3f\n", t_read, t_read + r->seconds_total);
}

static int nsga_run(nsga_args_t *a, int argc, char **argv)
{
    const char *why = NULL;
    int genotypes = a->ci.in.bfile || a->ci.in.vcf;
    if (!a->out || !*a->out) why = "--out is required";
    else if (!a->table == !genotypes) why = "give either --table or a genotype input (--bfile/--vcf)";
    else if (genotypes && !a->from) why = "--bfile/--vcf need --from (the variants to select among)";
    else if (genotypes && (a->class_col || a->no_class || a->features))
        why = "--class, --no-class and --features go with --table";
    else if (a->from && a->features) why = "give --features or --from, not both";
    else if (a->no_class && a->class_col) why = "give --class or --no-class, not both";
    else if (a->no_class && a->o.obj != ES_NSGA_KMEANS)
        why = "--no-class goes with --objectives kmeans (the errors need a class)";
    else if (a->table && (a->ci.in.pheno || a->ci.in.keep || a->ci.in.remove || a->ci.in.extract ||
                          a->ci.in.exclude || a->ci.in.chr || a->ci.in.n_regions ||
                          a->ci.in.maf > 0 || a->ci.in.geno < 1))
        why = "the input and selection options go with --bfile/--vcf, not --table";
    if (why) {
        fprintf(stderr, "[E::options] nsga: %s\n", why);
        nsga_usage(stderr);
        return ES_EXIT_USAGE;
    }
    if (es_cli_out_prefix("nsga", a->out)) return ES_EXIT_USAGE;
    if (genotypes && es_cli_input_check(&a->ci, "nsga")) return ES_EXIT_USAGE;
    es_log_set_level(a->quiet ? ES_LOG_ERROR : a->verbose ? ES_LOG_INFO : ES_LOG_WARN);
#ifdef _OPENMP
    if (a->threads) omp_set_num_threads((int)a->threads);
#endif
    a->ci.in.threads = a->threads ? (int)a->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    a->o.threads = (int)a->threads;
    a->o.devices = a->devices;
    if (a->have_max_ones) a->o.max_ones = a->max_ones;
    a->lo.class_col = a->class_col;
    a->lo.no_class = a->no_class;
    a->lo.folds = a->o.obj == ES_NSGA_KMEANS ? 0 : a->folds;
    a->lo.cv_seed = a->cv_seed;
    if (!a->quiet && isatty(STDERR_FILENO)) a->o.progress = progress;

    int ret = ES_OK;
    es_dataset_t *ds = NULL;
    es_nsga_data_t d;
    es_nsga_result_t r;
    es_out_t o_front, o_hv, o_log;
    uint32_t *var = NULL, n_var = 0;
    memset(&d, 0, sizeof d);
    memset(&r, 0, sizeof r);
    memset(&o_front, 0, sizeof o_front);
    o_hv = o_log = o_front;
    char *cmdline = es_cli_join(argc, argv);
    double t0 = es_time_now(), t_read;
    static const char *const suffixes[] = {".front.tsv", ".hv.tsv", ".log"};
    es_out_clear_tmp(a->out, suffixes, 3);
    if ((ret = es_out_open(&o_front, a->out, ".front.tsv"))) goto out;
    if ((ret = es_out_open(&o_hv, a->out, ".hv.tsv"))) goto out;
    if ((ret = es_out_open(&o_log, a->out, ".log"))) goto out;
    if (a->table) {
        const char *list = a->from ? a->from : a->features;
        if (list && (ret = es_nsga_read_names(list, &a->lo.features, &a->lo.n_features))) goto out;
        if ((ret = es_nsga_data_from_table(a->table, &a->lo, &d))) goto out;
    } else {
        if ((ret = es_dataset_open(&ds, &a->ci.in))) goto out;
        if ((ret = es_cli_variants_from(ds, a->from, &var, &n_var))) goto out;
        if ((ret = es_nsga_data_from_variants(ds, var, n_var, &a->lo, &d))) goto out;
    }
    t_read = es_time_now() - t0;
    if ((ret = es_nsga_run(&d, &a->o, &r))) goto out;
    if ((ret = es_nsga_write_front(o_front.fp, &r, &d)) || (ret = es_nsga_write_hv(o_hv.fp, &r)))
        goto out;
    write_log(o_log.fp, cmdline, a, &d, &r, t_read);
    es_out_t *const all[] = {&o_front, &o_hv, &o_log};
    if ((ret = es_out_commit_all(all, 3))) goto out;
    if (!a->quiet) {
        char hv[64];
        *es_fmt_g(hv, r.n_hv ? r.hv[r.n_hv - 1] : 0.0, 6) = '\0';
        fprintf(stderr, "[nsga] %s: %u generations x %u, %llu evaluations (%.0f/s), front of %u, "
                        "hypervolume %s; results in %s.front.tsv\n",
                es_nsga_obj_name(a->o.obj), a->o.generations, a->o.population,
                (unsigned long long)r.evaluations,
                r.seconds_eval > 0 ? (double)r.evaluations / r.seconds_eval : 0.0, r.n_front, hv,
                a->out);
    }
out:
    if (ret) {
        es_out_abort(&o_front);
        es_out_abort(&o_hv);
        es_out_abort(&o_log);
        if (ret != ES_ERR_IO) fprintf(stderr, "[E::nsga] failed: %s\n", es_strerror(ret));
    } else {
        es_out_close(&o_front);
        es_out_close(&o_hv);
        es_out_close(&o_log);
    }
    if (a->lo.features) {
        for (uint32_t k = 0; k < a->lo.n_features; k++) free(a->lo.features[k]);
        free(a->lo.features);
    }
    es_nsga_result_free(&r);
    es_nsga_data_free(&d);
    es_dataset_destroy(ds);
    free(var);
    free(cmdline);
    return ret ? ES_EXIT_ERROR : ES_EXIT_OK;
}

int es_cmd_nsga(int argc, char **argv)
{
    nsga_args_t a;
    memset(&a, 0, sizeof a);
    es_nsga_opt_init(&a.o);
    a.folds = 5;
    es_cli_input_init(&a.ci);
    const es_cli_group_t groups[] = {es_cli_input_group(&a.ci), ES_CLI_GROUP(nsga_opts, &a)};
    int r = es_cli_parse("nsga", argc, argv, groups, sizeof groups / sizeof *groups, nsga_usage);
    return r >= 0 ? r : nsga_run(&a, argc, argv);
}
