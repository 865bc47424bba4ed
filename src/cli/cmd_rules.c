/* cmd_rules.c -- `epistream rules train|predict`: gradient-boosted multi-label
 * rules (BOOMER).  Argument parsing, reading the input, the progress line and
 * the output files; the learner is src/rules/. */
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
#include "rules.h"

static void input_usage(FILE *fp)
{
    fprintf(fp,
            "Input (one of):\n"
            "  --arff FILE          ARFF (dense or sparse rows; numeric and nominal attributes)\n"
            "  --labels-xml FILE    with --arff: the Mulan XML file naming the label attributes;\n"
            "                       without it, MEKA's \"-C n\" in the @relation name says\n"
            "                       which they are (n: the first n attributes, -n: the last n)\n"
            "  --table FILE         CSV/TSV with a header line (delimiter tab, comma or ';')\n"
            "  --labels COLS        with --table: the label columns, names or 1-based numbers,\n"
            "                       comma-separated; labels hold 0/1; every other column is a\n"
            "                       feature (missing values: empty, ?, NA, nan)\n"
            "  --libsvm FILE        multi-label LIBSVM: \"L1,L2,... I:V I:V ...\" a line (labels\n"
            "                       0-based numbers, or none; a value left out is 0); features\n"
            "                       f1..fD, labels label0..label(L-1)\n"
            "  --bfile PREFIX | --vcf FILE   genotypes: the features are variants (copies of\n"
            "                       A1: 0, 1, 2; a missing call a missing value), the labels\n"
            "                       case/control phenotypes (1/2, or 0/1 with --1), one row per\n"
            "                       sample; samples without every label are left out\n"
            "  --pheno FILE         with --bfile/--vcf: the phenotype file of the labels\n"
            "  --pheno-name A,B,... the phenotype columns that are the labels (default: one\n"
            "                       label, 'pheno': .fam column 6, or --pheno's first column)\n"
            "  --from FILE          train with --bfile/--vcf: the variants to learn from: a\n"
            "                       scan's .top.tsv/.sig.tsv (the variants of its pairs or\n"
            "                       triples) or a .select.tsv (predict takes the model's)\n"
            "  (--keep, --remove, --extract, --exclude, --chr, --maf, --geno, --mind, --hwe,\n"
            "  --1 and the other input options of scan apply to --bfile/--vcf)\n");
}

static void train_usage(FILE *fp)
{
    fprintf(fp,
            "Usage: epistream rules train (--arff FILE [--labels-xml FILE] | --table FILE --labels "
            "COLS |\n"
            "                             --libsvm FILE | --bfile PREFIX --from FILE ...) --out "
            "PREFIX [options]\n"
            "\n"
            "Learns gradient-boosted multi-label rules (BOOMER; the semantics of mlrl-boomer\n"
            "0.15.6, defaults those of its BoomerClassifier(): doc/RULES.md).\n"
            "\n");
    input_usage(fp);
    fprintf(fp,
            "Learning:\n"
            "  --max-rules N        rules to learn, the default rule included (default 1000)\n"
            "  --time-limit SECONDS stop adding rules once SECONDS have passed since the first\n"
            "                       rule after the default rule (checked before each rule; at\n"
            "                       least one rule is learned); 0 = none (default).  The model\n"
            "                       is valid; which rule it stops at depends on the machine\n"
            "  --head-type H        complete (default: a score for every label) or single (one\n"
            "                       label a rule)\n"
            "  --loss L             logistic (default; label-wise logistic loss),\n"
            "                       squared-error (label-wise) or logistic-example-wise\n"
            "                       (mlrl-boomer's logistic-non-decomposable, also accepted:\n"
            "                       complete heads solve a K x K system with LAPACK; binary\n"
            "                       predictions pick the closest training label vector)\n"
            "  --label-binning B    auto (default: equal-width for the example-wise loss's\n"
            "                       complete heads, none otherwise, as mlrl-boomer), none or\n"
            "                       equal-width (example-wise loss only)\n"
            "  --shrinkage X        learning rate in (0, 1] (default 0.3)\n"
            "  --l2 X               L2 regularization weight >= 0 (default 1.0)\n"
            "  --feature-sampling S without-replacement (default: floor(log2(F - 1) + 1) of the\n"
            "                       F features for each refinement) or none\n"
            "  --feature-binning B  none (default: the exact split search), equal-width or\n"
            "                       equal-frequency[{bin_ratio=X,min_bins=N,max_bins=N}]: the\n"
            "                       histogram search of the numeric features over ceil(X n)\n"
            "                       bins (defaults 0.33, 2, 0 = no maximum; mlrl-boomer's\n"
            "                       feature_binning)\n"
            "  --instance-sampling S none (default), with-replacement or without-replacement\n"
            "                       (66%% of the examples for each rule)\n"
            "  --rule-pruning P     none (default) or irep: each rule cut back to the prefix of\n"
            "                       its conditions that does best on the training examples the\n"
            "                       instance sampling left out (mlrl-boomer's rule_pruning;\n"
            "                       with --instance-sampling or --holdout; label-wise losses)\n"
            "  --holdout FRACTION   hold out this fraction of the examples (at random, e.g.\n"
            "                       0.33) and stop early when the loss on them stops improving\n"
            "                       (mlrl-boomer's holdout='random' with its default\n"
            "                       pre-pruning: after at least 100 rules, the mean of the last\n"
            "                       50 holdout losses improves on the 50 before by <= 0.5%%);\n"
            "                       the model keeps the rules of the best holdout loss\n"
            "  --label-sampling S   none (default), round-robin (the k-th rule after the\n"
            "                       default rule predicts label (k - 1) mod L alone) or\n"
            "                       without-replacement[{sample_size=X,\n"
            "                       min_samples=N,max_samples=N}] (for each rule, ceil(X L)\n"
            "                       labels, at least N and at most N (0: all); defaults 0.33,\n"
            "                       1, 1); mlrl-boomer's output_sampling\n"
            "  --seed N             random seed of the sampling and holdout (default 1)\n"
            "  --threads T          CPU threads (default: all); the model is the same for any\n"
            "                       number\n"
            "  --device D           where the split search runs: cpu (default), gpu (GPU 0),\n"
            "                       gpu:N, or auto (the GPU when one is visible, the data are\n"
            "                       large (examples x features x labels >= 10^8) and it takes\n"
            "                       them, else the CPU).  The GPU takes numerical features and\n"
            "                       the label-wise losses, the exact search (no\n"
            "                       --feature-binning) and no --rule-pruning; its model is\n"
            "                       the CPU's, byte for\n"
            "                       byte, unless two best candidates are tied within rounding\n"
            "  --gpu-float32        the GPU scores the candidates in float32 (faster; the\n"
            "                       chosen rule's head is float64 in any case; near-equal\n"
            "                       candidates may be picked in another order than float64's)\n"
            "Output:\n"
            "  --out PREFIX         writes PREFIX.model (the model, for rules predict) and\n"
            "                       PREFIX.rules.txt (one rule a line, the default rule first)\n"
            "  --quiet              only errors on stderr\n"
            "  --verbose            informational messages on stderr\n"
            "  -h, --help           this help\n");
}

static void predict_usage(FILE *fp)
{
    fprintf(fp,
            "Usage: epistream rules predict --model PREFIX.model (--arff FILE [--labels-xml "
            "FILE] |\n"
            "                               --table FILE [--labels COLS] | --libsvm FILE |\n"
            "                               --bfile PREFIX ...) --out OUT [options]\n"
            "\n"
            "Predicts every label of every example (by default 1 when its score is > 0; see\n"
            "--output).  The input must have the model's features in the model's order; its\n"
            "labels (the columns named by --labels-xml, MEKA's -C or --labels, else those\n"
            "named as the model's labels, when it has them all) are left out of the features\n"
            "and, when present, scored.  With --bfile/--vcf the features are the model's\n"
            "variants, found by ID; the labels are read when --pheno-name is given, or\n"
            "--pheno holds the model's label columns, or the model's one label is 'pheno'\n"
            "and the samples have a phenotype; OUT.pred.tsv then starts with FID and IID.\n"
            "\n");
    input_usage(fp);
    fprintf(fp,
            "Options:\n"
            "  --model FILE         a model written by 'epistream rules train'\n"
            "  --output O           what OUT.pred.tsv holds: binary (default: 1 when the\n"
            "                       label's score is > 0, else 0; the example-wise loss: the\n"
            "                       closest training label vector), scores (each label's\n"
            "                       score: the default rule's plus the heads of the rules\n"
            "                       covering the example; mlrl-boomer's decision_function) or\n"
            "                       probabilities (the logistic function of the scores, its\n"
            "                       predict_proba; the example-wise loss: its marginalized\n"
            "                       ones; logistic losses only); numbers are written\n"
            "                       with 17 significant digits\n"
            "  --out OUT            writes OUT.pred.tsv (one row per example, one column per\n"
            "                       label) and, when the input has labels,\n"
            "                       OUT.metrics.tsv (METRIC VALUE: hamming_loss,\n"
            "                       subset_accuracy, example_f1, micro_f1, macro_f1 in percent,\n"
            "                       as scikit-learn computes them with zero_division=1, from\n"
            "                       the binary predictions whatever --output is)\n"
            "  --threads T          CPU threads (default: all)\n"
            "  --quiet              only errors on stderr\n"
            "  -h, --help           this help\n");
}

/* rules predict --output */
enum { OUT_BINARY, OUT_SCORES, OUT_PROBABILITIES };

typedef struct {
    const char *arff, *labels_xml, *table, *labels, *libsvm, *from, *out, *model;
    es_cli_input_t ci; /* --bfile/--vcf and their options */
    int output; /* OUT_BINARY ... */
    es_rules_opt_t o;
    uint32_t threads;
    uint64_t seed;
    int quiet, verbose;
} rules_args_t;


static int set_shrinkage(void *ctx, const char *arg)
{
    return es_cli_double_in("shrinkage", arg, 0.0, 1.0, 1, &((rules_args_t *)ctx)->o.shrinkage);
}

static int set_l2(void *ctx, const char *arg)
{
    return es_cli_double_in("l2", arg, 0.0, 1e30, 0, &((rules_args_t *)ctx)->o.l2);
}

static int set_holdout(void *ctx, const char *arg)
{
    double v;
    if (es_cli_double("holdout", arg, &v)) return -1;
    if (!(v > 0.0 && v < 1.0)) {
        fprintf(stderr, "[E::options] --holdout: expected a fraction in (0, 1), got '%s'\n", arg);
        return -1;
    }
    ((rules_args_t *)ctx)->o.holdout = v;
    return 0;
}

/* --device cpu | gpu | gpu:N | auto */
static int set_device(void *ctx, const char *arg)
{
    es_rules_opt_t *o = &((rules_args_t *)ctx)->o;
    char *end = NULL;
    if (!strcmp(arg, "cpu")) o->device = ES_RULES_DEV_CPU;
    else if (!strcmp(arg, "auto")) o->device = ES_RULES_DEV_AUTO;
    else if (!strcmp(arg, "gpu")) o->device = ES_RULES_DEV_GPU, o->gpu = 0;
    else if (!strncmp(arg, "gpu:", 4) && arg[4] >= '0' && arg[4] <= '9' &&
             (o->gpu = (int)strtol(arg + 4, &end, 10), *end == '\0') && o->gpu < 1024)
        o->device = ES_RULES_DEV_GPU;
    else {
        fprintf(stderr, "[E::options] --device: expected cpu, gpu, gpu:N or auto, got '%s'\n", arg);
        return -1;
    }
    return 0;
}

static int set_time_limit(void *ctx, const char *arg)
{
    return es_cli_double_in("time-limit", arg, 0.0, 1e9, 0, &((rules_args_t *)ctx)->o.time_limit);
}

/* s among names[0..n): its index into *out.  @return 0 or -1 after a message */
static int pick(const char *opt, const char *s, const char *const *names, int n, int *out)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(s, names[k])) {
            *out = k;
            return 0;
        }
    fprintf(stderr, "[E::options] --%s: expected ", opt);
    for (int k = 0; k < n; k++) fprintf(stderr, "%s%s", k ? (k + 1 == n ? " or " : ", ") : "", names[k]);
    fprintf(stderr, ", got '%s'\n", s);
    return -1;
}

static int set_head(void *ctx, const char *arg)
{
    static const char *const names[] = {"complete", "single"};
    int k;
    if (pick("head-type", arg, names, 2, &k)) return -1;
    ((rules_args_t *)ctx)->o.head = (es_rules_head_t)k;
    return 0;
}

static int set_loss(void *ctx, const char *arg)
{
    /* the order of es_rules_loss_t; mlrl-boomer's name of the example-wise loss too */
    static const char *const names[] = {"logistic", "squared-error", "logistic-example-wise"};
    int k;
    if (!strcmp(arg, "logistic-non-decomposable")) arg = "logistic-example-wise";
    if (pick("loss", arg, names, 3, &k)) return -1;
    ((rules_args_t *)ctx)->o.loss = (es_rules_loss_t)k;
    return 0;
}

static int set_fsamp(void *ctx, const char *arg)
{
    static const char *const names[] = {"none", "without-replacement"};
    int k;
    if (pick("feature-sampling", arg, names, 2, &k)) return -1;
    ((rules_args_t *)ctx)->o.feat_samp = (es_rules_fsamp_t)k;
    return 0;
}

static int set_isamp(void *ctx, const char *arg)
{
    static const char *const names[] = {"none", "with-replacement", "without-replacement"};
    int k;
    if (pick("instance-sampling", arg, names, 3, &k)) return -1;
    ((rules_args_t *)ctx)->o.inst_samp = (es_rules_isamp_t)k;
    return 0;
}

static int set_rprune(void *ctx, const char *arg)
{
    static const char *const names[] = {"none", "irep"};
    int k;
    if (pick("rule-pruning", arg, names, 2, &k)) return -1;
    ((rules_args_t *)ctx)->o.rule_pruning = (es_rules_rprune_t)k;
    return 0;
}

static int set_output(void *ctx, const char *arg)
{
    static const char *const names[] = {"binary", "scores", "probabilities"};
    return pick("output", arg, names, 3, &((rules_args_t *)ctx)->output);
}

/* --label-sampling none | round-robin | without-replacement[{key=value,...}] with
 * mlrl-boomer's keys sample_size, min_samples, max_samples. */
static int set_lbin(void *ctx, const char *arg)
{
    static const char *const names[] = {"auto", "none", "equal-width"};
    int k;
    if (pick("label-binning", arg, names, 3, &k)) return -1;
    ((rules_args_t *)ctx)->o.label_binning = (es_rules_lbin_t)k;
    return 0;
}

/* mlrl-boomer's brace syntax NAME[{key=value,...}]: NAME among names into *k, the
 * text between the braces into *brace (NULL without), which only names[0..] from
 * first_opt may have (usage shows the form).  @return 0 or -1 after a message */
static int brace_value(const char *opt, const char *arg, const char *const *names, int n,
                       int first_opt, const char *usage, char *buf, size_t size, int *k, char **brace)
{
    if (strlen(arg) >= size) {
        fprintf(stderr, "[E::options] --%s: '%.40s...' is too long\n", opt, arg);
        return -1;
    }
    strcpy(buf, arg);
    if ((*brace = strchr(buf, '{'))) *(*brace)++ = '\0';
    if (pick(opt, buf, names, n, k)) return -1;
    if (!*brace) return 0;
    size_t len = strlen(*brace);
    if (*k < first_opt || !len || (*brace)[len - 1] != '}') {
        fprintf(stderr, "[E::options] --%s: options go as %s; got '%s'\n", opt, usage, arg);
        return -1;
    }
    (*brace)[len - 1] = '\0';
    return 0;
}

/* One key of a brace option: a fraction in (0, 1] (or (0, 1) with hi_open) into *d, or a
 * count >= umin into *u. */
typedef struct {
    const char *key;
    double *d;
    int hi_open;
    uint32_t *u, umin;
} brace_key_t;

/* The key=value,... text of a brace option, each key among keys[0..n).  @return 0 or -1
 * after a message */
static int brace_keys(const char *opt, char *brace, const brace_key_t *keys, int n)
{
    for (char *save = NULL, *kv = strtok_r(brace, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *v = strchr(kv, '='), name[64];
        int k = 0;
        if (v) *v++ = '\0';
        while (v && k < n && strcmp(kv, keys[k].key)) k++;
        if (!v || k == n) {
            fprintf(stderr, "[E::options] --%s: expected ", opt);
            for (int j = 0; j < n; j++)
                fprintf(stderr, "%s%s=%s", j ? (j + 1 == n ? " or " : ", ") : "", keys[j].key, keys[j].d ? "X" : "N");
            fprintf(stderr, ", got '%s'\n", kv);
            return -1;
        }
        snprintf(name, sizeof name, "%s %s", opt, kv);
        if (keys[k].d) {
            if (es_cli_double_in(name, v, 0.0, 1.0, 1, keys[k].d)) return -1;
            if (keys[k].hi_open && *keys[k].d >= 1.0) {
                fprintf(stderr, "[E::options] --%s: %s must be in (0, 1), got '%s'\n", opt, kv, v);
                return -1;
            }
        } else if (es_cli_u32(name, v, keys[k].umin, UINT32_MAX, keys[k].u)) {
            return -1;
        }
    }
    return 0;
}

/* --feature-binning none | equal-width | equal-frequency [{bin_ratio=X,min_bins=N,max_bins=N}] */
static int set_fbin(void *ctx, const char *arg)
{
    static const char *const names[] = {"none", "equal-width", "equal-frequency"};
    es_rules_opt_t *o = &((rules_args_t *)ctx)->o;
    const brace_key_t keys[] = {{"bin_ratio", &o->bin_ratio, 1, NULL, 0},
                                {"min_bins", NULL, 0, &o->min_bins, 2},
                                {"max_bins", NULL, 0, &o->max_bins, 0}};
    char buf[256], *brace;
    int k;
    if (brace_value("feature-binning", arg, names, 3, ES_RULES_FB_EQUAL_WIDTH,
                    "equal-width{bin_ratio=X,min_bins=N,max_bins=N} (or equal-frequency{...})", buf,
                    sizeof buf, &k, &brace))
        return -1;
    o->feat_binning = (es_rules_fbin_t)k;
    return brace ? brace_keys("feature-binning", brace, keys, 3) : 0;
}

/* --label-sampling none | round-robin | without-replacement[{sample_size=X,min_samples=N,
 * max_samples=N}] */
static int set_lsamp(void *ctx, const char *arg)
{
    static const char *const names[] = {"none", "round-robin", "without-replacement"};
    es_rules_opt_t *o = &((rules_args_t *)ctx)->o;
    const brace_key_t keys[] = {{"sample_size", &o->label_sample_size, 0, NULL, 0},
                                {"min_samples", NULL, 0, &o->label_min_samples, 1},
                                {"max_samples", NULL, 0, &o->label_max_samples, 0}};
    char buf[256], *brace;
    int k;
    if (brace_value("label-sampling", arg, names, 3, ES_RULES_LS_WITHOUT,
                    "without-replacement{sample_size=X,min_samples=N,max_samples=N} (without-replacement "
                    "only)", buf, sizeof buf, &k, &brace))
        return -1;
    o->label_samp = (es_rules_lsamp_t)k;
    return brace ? brace_keys("label-sampling", brace, keys, 3) : 0;
}

static const es_cli_opt_t input_opts[] = {
    ES_CLI_OPT_STR("arff", rules_args_t, arff),
    ES_CLI_OPT_STR("labels-xml", rules_args_t, labels_xml),
    ES_CLI_OPT_STR("table", rules_args_t, table),
    ES_CLI_OPT_STR("labels", rules_args_t, labels),
    ES_CLI_OPT_STR("libsvm", rules_args_t, libsvm),
    ES_CLI_OPT_STR("from", rules_args_t, from),
    ES_CLI_OPT_STR("out", rules_args_t, out),
    ES_CLI_OPT_U32("threads", rules_args_t, threads, 0, 4096),
    ES_CLI_OPT_FLAG("quiet", rules_args_t, quiet),
    ES_CLI_OPT_FLAG("verbose", rules_args_t, verbose),
};

static const es_cli_opt_t train_opts[] = {
    ES_CLI_OPT_U32("max-rules", rules_args_t, o.max_rules, 1, 100000000),
    ES_CLI_OPT_FUNC("head-type", set_head),
    ES_CLI_OPT_FUNC("loss", set_loss),
    ES_CLI_OPT_FUNC("shrinkage", set_shrinkage),
    ES_CLI_OPT_FUNC("l2", set_l2),
    ES_CLI_OPT_FUNC("feature-sampling", set_fsamp),
    ES_CLI_OPT_FUNC("instance-sampling", set_isamp),
    ES_CLI_OPT_FUNC("label-sampling", set_lsamp),
    ES_CLI_OPT_FUNC("label-binning", set_lbin),
    ES_CLI_OPT_FUNC("feature-binning", set_fbin),
    ES_CLI_OPT_FUNC("rule-pruning", set_rprune),
    ES_CLI_OPT_FUNC("time-limit", set_time_limit),
    ES_CLI_OPT_FUNC("holdout", set_holdout),
    ES_CLI_OPT_U64("seed", rules_args_t, seed),
    ES_CLI_OPT_FUNC("device", set_device),
    ES_CLI_OPT_FLAG("gpu-float32", rules_args_t, o.gpu_float32),
};

static const es_cli_opt_t predict_opts[] = {
    ES_CLI_OPT_STR("model", rules_args_t, model),
    ES_CLI_OPT_FUNC("output", set_output),
};

/* The input's checks shared by train and predict.  @return 0 or -1 after a message */
static int check_input(const rules_args_t *a, const char *cmd, int train)
{
    const char *why = NULL;
    int geno = a->ci.in.bfile || a->ci.in.vcf;
    int n_in = !!a->arff + !!a->table + !!a->libsvm + geno;
    if (!a->out || !*a->out) why = "--out is required";
    else if (n_in != 1) why = "give one input: --arff, --table, --libsvm, or --bfile/--vcf";
    else if (a->labels && !a->table) why = "--labels goes with --table (with --arff use --labels-xml)";
    else if (a->labels_xml && !a->arff) why = "--labels-xml goes with --arff (with --table use --labels)";
    else if (train && a->table && !a->labels) why = "--table needs --labels COLS";
    else if (a->labels && (!*a->labels || a->labels[0] == ',' ||
                           a->labels[strlen(a->labels) - 1] == ',' || strstr(a->labels, ",,")))
        why = "--labels: expected column names or 1-based numbers separated by commas";
    else if (a->from && !geno) why = "--from goes with --bfile/--vcf (the variants to learn from)";
    else if (train && geno && !a->from) why = "--bfile/--vcf need --from FILE (the variants to learn from)";
    else if (!train && a->from) why = "predict takes the model's variants: no --from";
    else if (!geno && (a->ci.in.pheno || a->ci.pheno_name || a->ci.mpheno || a->ci.in.keep ||
                       a->ci.in.remove || a->ci.in.extract || a->ci.in.exclude || a->ci.in.chr ||
                       a->ci.in.n_regions || a->ci.in.maf > 0 || a->ci.in.geno < 1 ||
                       a->ci.in.mind < 1 || a->ci.in.hwe > 0 || a->ci.in.snps))
        why = "the phenotype and selection options go with --bfile/--vcf";
    else if (a->ci.mpheno) why = "name the label columns with --pheno-name A,B,...";
    else if (a->ci.pheno_name && (!*a->ci.pheno_name || a->ci.pheno_name[0] == ',' ||
                                  a->ci.pheno_name[strlen(a->ci.pheno_name) - 1] == ',' ||
                                  strstr(a->ci.pheno_name, ",,")))
        why = "--pheno-name: expected column names or numbers separated by commas";
    if (why) {
        fprintf(stderr, "[E::options] %s: %s\n", cmd, why);
        return -1;
    }
    if (geno && es_cli_input_check(&a->ci, cmd)) return -1;
    return es_cli_out_prefix(cmd, a->out);
}

/* Split a comma-separated list into malloc'd strings.  @return 0 or -1 (no memory) */
static int split_list(const char *s, char ***out, uint32_t *n)
{
    uint32_t k = 1;
    for (const char *p = s; *p; p++) k += *p == ',';
    char **v = calloc(k, sizeof *v);
    if (!v) return -1;
    *out = v;
    *n = 0;
    for (;;) {
        size_t len = strcspn(s, ",");
        if (!(v[(*n)++] = strndup(s, len))) return -1;
        s += len;
        if (!*s++) return 0;
    }
}

static void free_list(char **v, uint32_t n)
{
    for (uint32_t k = 0; v && k < n; k++) free(v[k]);
    free(v);
}

/* Genotype input: the dataset, the variants (train: --from; predict: the
 * model's, by ID), the labels, into a table for es_rules_data_from_table().
 * *ds and *rows (the rows' input samples) stay for the caller.  @return ES_* */
static int geno_table(rules_args_t *a, const es_rules_model_t *m, es_dataset_t **ds,
                      es_ntable_t *t, char ***lab, uint32_t *n_lab, uint32_t **rows)
{
    uint32_t *var = NULL, n_var = 0, dropped = 0;
    int lab_default = 0, ret;
    es_input_opt_t in = a->ci.in;
    es_strindex_t ix;
    char **ids = NULL;
    memset(&ix, 0, sizeof ix);
    in.require_pheno = 0;
    in.pheno_name = NULL;
    /* the labels */
    if (a->ci.pheno_name) {
        if (split_list(a->ci.pheno_name, lab, n_lab)) return ES_ERR_NOMEM;
    } else if (!m) {
        lab_default = 1;
    } else if (m->n_lab == 1 && !strcmp(m->lab_name[0], "pheno")) {
        lab_default = 2; /* when the samples have a phenotype */
    } else if (a->ci.in.pheno) {
        if (!(*lab = calloc(m->n_lab, sizeof **lab))) return ES_ERR_NOMEM;
        for (uint32_t l = 0; l < m->n_lab; l++)
            if (!((*lab)[(*n_lab)++] = strdup(m->lab_name[l]))) return ES_ERR_NOMEM;
    }
    if (lab_default) in.pheno_name = NULL;
    else if (*n_lab) in.pheno_name = (*lab)[0]; /* its coding checked while opening */
    if ((ret = es_dataset_open(ds, &in))) return ret;
    uint32_t nv = es_dataset_n_variants(*ds), n_all = es_dataset_n_samples_total(*ds);
    if (lab_default == 2) {
        lab_default = 0;
        for (uint32_t s = 0; s < n_all && !lab_default; s++)
            lab_default = es_dataset_sample_used(*ds, s) && (*ds)->status[s] >= 0;
    }
    if (!m) {
        if ((ret = es_cli_variants_from(*ds, a->from, &var, &n_var))) goto out;
    } else {
        const char *path = a->ci.in.bfile ? a->ci.in.bfile : a->ci.in.vcf;
        if (!(ids = malloc((nv ? nv : 1) * sizeof *ids)) ||
            !(var = malloc((m->n_feat ? m->n_feat : 1) * sizeof *var))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        for (uint32_t v = 0; v < nv; v++) ids[v] = (char *)es_dataset_variant(*ds, v).id;
        if ((ret = es_strindex_build(&ix, (const char *const *)ids, NULL, nv))) goto out;
        for (uint32_t f = 0; f < m->n_feat; f++) {
            uint32_t v = es_strindex_find(&ix, m->feat_name[f], NULL);
            if (v == ES_NO_ITEM) {
                es_error("%s: the model's feature '%s' is not a variant of the input (after its "
                         "selection options)", path, m->feat_name[f]);
                ret = ES_ERR_DATA;
                goto out;
            }
            var[n_var++] = v;
        }
    }
    ret = es_rules_table_from_genotypes(*ds, var, n_var, a->ci.in.pheno, a->ci.in.pheno_01, *lab,
                                        *n_lab, lab_default, t, rows, &dropped);
    if (!ret && dropped)
        es_warn("%u samples left out: a label (phenotype) is missing", dropped);
    if (!ret && lab_default) {
        free_list(*lab, *n_lab);
        *n_lab = 1;
        if (!(*lab = calloc(1, sizeof **lab))) ret = ES_ERR_NOMEM;
        else if (!((*lab)[0] = strdup("pheno"))) ret = ES_ERR_NOMEM;
    }
out:
    es_strindex_free(&ix);
    free(ids);
    free(var);
    return ret;
}

/* Read the input into d (m: a model, for predict).  With genotypes, *ds and
 * *rows (the rows' input samples) are set for the caller to free. */
static int read_input(rules_args_t *a, const es_rules_model_t *m, es_rules_data_t *d,
                      es_dataset_t **ds, uint32_t **rows)
{
    es_ntable_t t;
    char **lab = NULL;
    uint32_t n_lab = 0;
    int ret;
    const char *path = a->arff ? a->arff : a->table ? a->table : a->libsvm ? a->libsvm
                       : a->ci.in.bfile ? a->ci.in.bfile : a->ci.in.vcf;
    const char *lab_file = a->labels_xml;
    memset(&t, 0, sizeof t);
    if (a->ci.in.bfile || a->ci.in.vcf) {
        ret = geno_table(a, m, ds, &t, &lab, &n_lab, rows);
        lab_file = "--pheno-name";
    } else if (a->libsvm) {
        ret = es_ntable_read_libsvm(path, m ? m->n_feat : 0, m ? m->n_lab : 0, &t, &n_lab);
        if (!ret && !(lab = calloc(n_lab ? n_lab : 1, sizeof *lab))) ret = ES_ERR_NOMEM;
        for (uint32_t l = 0; !ret && l < n_lab; l++)
            if (!(lab[l] = strdup(t.names[t.n_cols - n_lab + l]))) ret = ES_ERR_NOMEM;
        lab_file = "the LIBSVM labels";
    } else {
        if (a->labels_xml && (ret = es_mulan_labels_read(a->labels_xml, &lab, &n_lab))) return ret;
        ret = es_ntable_read(path, &t);
        if (!ret && a->arff && !a->labels_xml) {
            ret = es_rules_meka_labels(&t, path, &lab, &n_lab);
            if (!ret && !n_lab && !m) {
                es_error("%s: which attributes are labels? give --labels-xml FILE (Mulan) or put "
                         "MEKA's \"-C n\" in the @relation name", path);
                ret = ES_ERR_FORMAT;
            }
            lab_file = "MEKA's -C";
        }
    }
    if (!ret) {
        ret = es_rules_data_from_table(&t, path, n_lab ? lab : NULL, n_lab, lab_file, a->labels,
                                       m ? m->lab_name : NULL, m ? m->n_lab : 0,
                                       m ? m->feat_name : NULL, m ? m->n_feat : 0, d);
    }
    es_ntable_free(&t);
    free_list(lab, n_lab);
    if (!ret && m && d->y && d->n_lab != m->n_lab) {
        es_error("%s: %u labels but the model has %u", path, d->n_lab, m->n_lab);
        ret = ES_ERR_FORMAT;
    }
    if (!ret && m && d->y)
        for (uint32_t l = 0; l < m->n_lab && !ret; l++)
            if (strcmp(d->lab_name[l], m->lab_name[l])) {
                es_error("%s: label %u is '%s' but the model's is '%s'", path, l + 1,
                         d->lab_name[l], m->lab_name[l]);
                ret = ES_ERR_FORMAT;
            }
    return ret;
}

/* CPU seconds of the process, every thread (a busy machine stretches the wall
 * time, not this). */
static double cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)) return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The progress line (a terminal only). */
typedef struct {
    double t0, last;
    int open; /* a line without its newline (the training may stop before the last rule) */
} progress_t;

static void progress(void *ctx, uint32_t done, uint32_t total)
{
    progress_t *p = ctx;
    double now = es_time_now();
    if (done < total && now - p->last < 0.25) return;
    p->last = now;
    double eta = done ? (now - p->t0) * (double)(total - done) / done : 0.0;
    fprintf(stderr, "\r[rules] %u/%u rules, ETA %.0f s   ", done, total, eta);
    p->open = done < total;
    if (!p->open) fputc('\n', stderr);
}

static int train_run(rules_args_t *a)
{
    if (check_input(a, "rules train", 1)) {
        train_usage(stderr);
        return ES_EXIT_USAGE;
    }
    es_log_set_level(a->quiet ? ES_LOG_ERROR : a->verbose ? ES_LOG_INFO : ES_LOG_WARN);
    a->o.seed = a->seed;
    a->o.threads = (int)a->threads;
#ifdef _OPENMP
    if (a->threads) omp_set_num_threads((int)a->threads);
#endif
    if (es_rules_opt_check(&a->o)) return ES_EXIT_USAGE;
    es_rules_data_t d;
    es_rules_model_t m;
    es_out_t o_model, o_txt;
    es_dataset_t *ds = NULL;
    uint32_t *rows = NULL;
    progress_t pr = {es_time_now(), 0.0, 0};
    int ret;
    memset(&d, 0, sizeof d);
    memset(&m, 0, sizeof m);
    memset(&o_model, 0, sizeof o_model);
    o_txt = o_model;
    double t0 = es_time_now();
    static const char *const suffixes[] = {".model", ".rules.txt"};
    es_out_clear_tmp(a->out, suffixes, 2);
    if ((ret = es_out_open(&o_model, a->out, ".model"))) goto out;
    if ((ret = es_out_open(&o_txt, a->out, ".rules.txt"))) goto out;
    if ((ret = read_input(a, NULL, &d, &ds, &rows))) goto out;
    if (!a->quiet && isatty(2)) {
        a->o.progress = progress;
        a->o.progress_ctx = &pr;
    }
    double t1 = es_time_now(), c1 = cpu_now();
    ret = es_rules_train(&d, &a->o, &m);
    if (pr.open) fputc('\n', stderr);
    if (ret) goto out;
    double t_fit = es_time_now() - t1, c_fit = cpu_now() - c1;
    if ((ret = es_rules_model_write(&m, o_model.fp)) || es_out_failed(&o_model) ||
        (ret = es_rules_write_text(&m, o_txt.fp)) || es_out_failed(&o_txt)) {
        ret = ES_ERR_IO;
        goto out;
    }
    es_out_t *const all[] = {&o_model, &o_txt};
    if ((ret = es_out_commit_all(all, 2))) goto out;
    if (!a->quiet)
        fprintf(stderr,
                "[rules] %u rules (the default rule included) from %u examples, %u features, %u "
                "labels in %.2f s (fit %.2f s, %.2f s CPU%s)%s; %s.model, %s.rules.txt\n",
                m.n_rules + 1, d.n_ex, d.n_feat, d.n_lab, es_time_now() - t0, t_fit, c_fit,
                m.on_gpu ? (a->o.gpu_float32 ? ", split search on the GPU in float32"
                                             : ", split search on the GPU")
                         : "",
                m.stop == ES_RULES_STOP_TIME_LIMIT ? ", stopped early by --time-limit"
                : m.stop == ES_RULES_STOP_EARLY    ? ", early stopping on the --holdout set"
                                                   : "",
                a->out, a->out);
out:
    if (ret) {
        es_out_abort(&o_model);
        es_out_abort(&o_txt);
        if (ret != ES_ERR_IO) fprintf(stderr, "[E::rules] train failed: %s\n", es_strerror(ret));
    } else {
        es_out_close(&o_model);
        es_out_close(&o_txt);
    }
    es_rules_model_free(&m);
    es_rules_data_free(&d);
    es_dataset_destroy(ds);
    free(rows);
    return ret ? ES_EXIT_ERROR : ES_EXIT_OK;
}

static int predict_run(rules_args_t *a)
{
    if (!a->model) {
        fprintf(stderr, "[E::options] rules predict: --model is required\n");
        predict_usage(stderr);
        return ES_EXIT_USAGE;
    }
    if (check_input(a, "rules predict", 0)) {
        predict_usage(stderr);
        return ES_EXIT_USAGE;
    }
    es_log_set_level(a->quiet ? ES_LOG_ERROR : a->verbose ? ES_LOG_INFO : ES_LOG_WARN);
#ifdef _OPENMP
    if (a->threads) omp_set_num_threads((int)a->threads);
#endif
    es_rules_data_t d;
    es_rules_model_t m;
    es_out_t o_pred, o_met;
    es_dataset_t *ds = NULL;
    uint32_t *rows = NULL;
    double *s = NULL;
    uint8_t *p = NULL;
    int ret;
    memset(&d, 0, sizeof d);
    memset(&m, 0, sizeof m);
    memset(&o_pred, 0, sizeof o_pred);
    o_met = o_pred;
    static const char *const suffixes[] = {".pred.tsv", ".metrics.tsv"};
    es_out_clear_tmp(a->out, suffixes, 2);
    if ((ret = es_rules_model_read(a->model, &m))) goto out;
    if (a->output == OUT_PROBABILITIES && m.loss == ES_RULES_LOSS_SQUARED_ERROR) {
        fprintf(stderr,
                "[E::rules] predict: --output probabilities needs a model trained with the "
                "logistic loss (label-wise or example-wise), and %s has the %s loss (mlrl-boomer "
                "offers no probabilities for it either); use --output scores or binary\n",
                a->model, es_rules_loss_name(m.loss));
        es_rules_model_free(&m);
        return ES_EXIT_USAGE;
    }
    if ((ret = read_input(a, &m, &d, &ds, &rows))) goto out;
    size_t cells = (size_t)d.n_ex * m.n_lab;
    if (!(s = malloc((cells ? cells : 1) * sizeof *s)) || !(p = malloc(cells ? cells : 1))) {
        es_error("out of memory for %u x %u predictions", d.n_ex, m.n_lab);
        ret = ES_ERR_NOMEM;
        goto out;
    }
    es_rules_predict_scores(&m, &d, s);
    es_rules_predict_binary(&m, s, d.n_ex, p);
    if (a->output == OUT_PROBABILITIES && (ret = es_rules_probabilities(&m, s, cells, s))) goto out;
    if ((ret = es_out_open(&o_pred, a->out, ".pred.tsv"))) goto out;
    if (rows) fputs("FID\tIID\t", o_pred.fp); /* genotypes: the samples' IDs first */
    for (uint32_t l = 0; l < m.n_lab; l++) fprintf(o_pred.fp, "%s%s", l ? "\t" : "", m.lab_name[l]);
    fputc('\n', o_pred.fp);
    for (uint32_t i = 0; i < d.n_ex; i++) {
        if (rows) {
            const char *fid, *iid;
            es_dataset_sample(ds, rows[i], &fid, &iid);
            fprintf(o_pred.fp, "%s\t%s\t", fid, iid);
        }
        for (uint32_t l = 0; l < m.n_lab; l++) {
            size_t il = (size_t)i * m.n_lab + l;
            if (l) fputc('\t', o_pred.fp);
            /* %.17g: the double itself, the same text on every run and thread count */
            if (a->output == OUT_BINARY) fputc(p[il] ? '1' : '0', o_pred.fp);
            else fprintf(o_pred.fp, "%.17g", s[il] == 0.0 ? 0.0 : s[il]);
        }
        fputc('\n', o_pred.fp);
    }
    if (es_out_failed(&o_pred)) {
        ret = ES_ERR_IO;
        goto out;
    }
    double met[ES_RULES_N_METRICS] = {0};
    if (d.y) {
        es_rules_metrics(d.y, p, d.n_ex, m.n_lab, met);
        if ((ret = es_out_open(&o_met, a->out, ".metrics.tsv"))) goto out;
        fputs("METRIC\tVALUE\n", o_met.fp);
        for (int k = 0; k < ES_RULES_N_METRICS; k++)
            fprintf(o_met.fp, "%s\t%.4f\n", es_rules_metric_names[k], met[k]);
        if (es_out_failed(&o_met)) {
            ret = ES_ERR_IO;
            goto out;
        }
    }
    es_out_t *const all[] = {&o_pred, &o_met};
    if ((ret = es_out_commit_all(all, 2))) goto out;
    if (!a->quiet) {
        fprintf(stderr, "[rules] predicted %u labels of %u examples with %u rules; %s.pred.tsv",
                m.n_lab, d.n_ex, m.n_rules + 1, a->out);
        if (d.y)
            fprintf(stderr, ", %s.metrics.tsv (hamming_loss %.2f %%, subset_accuracy %.2f %%)",
                    a->out, met[ES_RULES_HAMMING], met[ES_RULES_SUBSET_ACC]);
        fputc('\n', stderr);
    }
out:
    if (ret) {
        es_out_abort(&o_pred);
        es_out_abort(&o_met);
        if (ret != ES_ERR_IO) fprintf(stderr, "[E::rules] predict failed: %s\n", es_strerror(ret));
    } else {
        es_out_close(&o_pred);
        es_out_close(&o_met);
    }
    free(s);
    free(p);
    es_rules_model_free(&m);
    es_rules_data_free(&d);
    es_dataset_destroy(ds);
    free(rows);
    return ret ? ES_EXIT_ERROR : ES_EXIT_OK;
}

static void rules_usage(FILE *fp)
{
    fprintf(fp, "Usage: epistream rules train ...    learn boosted multi-label rules\n"
                "       epistream rules predict ...  apply a learned model\n"
                "'epistream rules train --help' and 'epistream rules predict --help' list the "
                "options.\n");
}

int es_cmd_rules(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "[E::rules] expected 'train' or 'predict'\n");
        rules_usage(stderr);
        return ES_EXIT_USAGE;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
        rules_usage(stdout);
        return ES_EXIT_OK;
    }
    rules_args_t a;
    memset(&a, 0, sizeof a);
    es_cli_input_init(&a.ci);
    es_rules_opt_init(&a.o);
    a.seed = a.o.seed;
    if (!strcmp(sub, "train")) {
        const es_cli_group_t groups[] = {ES_CLI_GROUP(input_opts, &a), es_cli_input_group(&a.ci),
                                         ES_CLI_GROUP(train_opts, &a)};
        int r = es_cli_parse("rules train", argc - 1, argv + 1, groups, 3, train_usage);
        return r >= 0 ? r : train_run(&a);
    }
    if (!strcmp(sub, "predict")) {
        const es_cli_group_t groups[] = {ES_CLI_GROUP(input_opts, &a), es_cli_input_group(&a.ci),
                                         ES_CLI_GROUP(predict_opts, &a)};
        int r = es_cli_parse("rules predict", argc - 1, argv + 1, groups, 3, predict_usage);
        return r >= 0 ? r : predict_run(&a);
    }
    fprintf(stderr, "[E::rules] unknown subcommand '%s': expected 'train' or 'predict'\n", sub);
    rules_usage(stderr);
    return ES_EXIT_USAGE;
}
