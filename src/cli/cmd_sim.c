/* cmd_sim.c -- `epistream sim`: simulated case/control or quantitative data with planted pairs
 * and triples, and covariates that confound. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void sim_usage(FILE *fp)
{
    fprintf(fp,
            "Usage: epistream sim --samples N --variants M --out PREFIX [options]\n"
            "\n"
            "Write a simulated case/control PLINK fileset PREFIX.bed/.bim/.fam (half cases)\n"
            "with planted interacting variant pairs that have no marginal effect, and/or\n"
            "planted triples with neither a marginal nor a 2-way effect, and the planted\n"
            "truth to PREFIX.truth (a header and a row per pair; with --triples, a second\n"
            "header SNP1 SNP2 SNP3 INDEX1 INDEX2 INDEX3 MAF1 MAF2 MAF3 EFFECT SCALE and a\n"
            "row per triple).  --qt makes the trait quantitative; --covariates K adds\n"
            "covariates that confound.\n"
            "\n"
            "  --samples N      samples (>= 2)\n"
            "  --variants M     variants (>= 2 x pairs + 3 x triples)\n"
            "  --pairs P        planted interacting pairs (default 1, or 0 with --triples;\n"
            "                   0 and no --triples for null data)\n"
            "  --triples T      planted purely 3-way interactions (default 0): three variants\n"
            "                   with MAF 0.5 each, risk set by the XOR of their three\n"
            "                   heterozygosity indicators, so no variant and no pair of them\n"
            "                   carries any signal; only the triple does\n"
            "  --effect OR      interaction odds ratio of each planted pair, and of each\n"
            "                   triple between XOR 1 and XOR 0 (default 2.0); with --qt the\n"
            "                   interaction coefficient instead (trait units, noise SD 1)\n"
            "  --qt             a quantitative trait, no ascertainment: y = EFFECT x sum over\n"
            "                   pairs of (a - E a)(b - E b) (no marginal effect; the a*b\n"
            "                   coefficient of y ~ 1 + a + b + a*b is EFFECT) + EFFECT x (+-1/2)\n"
            "                   per triple + covariate effects + N(0,1); written to .fam\n"
            "                   column 6 and PREFIX.pheno (FID IID QT)\n"
            "  --covariates K   write K covariates to PREFIX.covar (FID IID PC1 AGE SEX PC2\n"
            "                   ...; default 0).  PC1 = ancestry, AGE ~ 50 + 10 N(0,1), SEX 1/2\n"
            "                   (the .fam's too), PC2... noise; they shift the trait (or the\n"
            "                   log odds of being a case) by 0.5 PC1 + 0.02 (AGE - 50)\n"
            "                   + 0.3 (SEX - 1.5), and one non-planted variant in ten, listed\n"
            "                   in PREFIX.confounded, has an allele frequency that follows\n"
            "                   PC1: it confounds unless PC1 is a covariate\n"
            "  --missing F      probability that a genotype call is missing (default 0)\n"
            "  --maf-min X      smallest minor allele frequency (default 0.05)\n"
            "  --maf-max X      largest minor allele frequency (default 0.5; the MAF range\n"
            "                   does not apply to the variants of planted triples)\n"
            "  --seed S         random seed (default 1); same options give the same bytes\n"
            "  --out PREFIX     output prefix (ending in a file name: not DIR/)\n"
            "  -h, --help       this help\n");
}

typedef struct {
    es_sim_opt_t so;
    const char *out;
    int have_n, have_m, have_pairs;
} sim_args_t;

static int set_samples(void *ctx, const char *arg)
{
    sim_args_t *a = ctx;
    a->have_n = 1;
    return es_cli_u32("samples", arg, 0, UINT32_MAX, &a->so.n_samples);
}

static int set_variants(void *ctx, const char *arg)
{
    sim_args_t *a = ctx;
    a->have_m = 1;
    return es_cli_u32("variants", arg, 0, UINT32_MAX, &a->so.n_variants);
}

static int set_pairs(void *ctx, const char *arg)
{
    sim_args_t *a = ctx;
    a->have_pairs = 1;
    return es_cli_u32("pairs", arg, 0, UINT32_MAX, &a->so.n_pairs);
}

static const es_cli_opt_t sim_opts[] = {
    ES_CLI_OPT_FUNC("samples", set_samples),
    ES_CLI_OPT_FUNC("variants", set_variants),
    ES_CLI_OPT_FUNC("pairs", set_pairs),
    ES_CLI_OPT_U32("triples", sim_args_t, so.n_triples, 0, UINT32_MAX),
    ES_CLI_OPT_DOUBLE("effect", sim_args_t, so.effect),
    ES_CLI_OPT_DOUBLE("missing", sim_args_t, so.missing),
    ES_CLI_OPT_DOUBLE("maf-min", sim_args_t, so.maf_min),
    ES_CLI_OPT_DOUBLE("maf-max", sim_args_t, so.maf_max),
    ES_CLI_OPT_U64("seed", sim_args_t, so.seed),
    ES_CLI_OPT_FLAG("qt", sim_args_t, so.qt),
    ES_CLI_OPT_U32("covariates", sim_args_t, so.n_covariates, 0, 1000),
    ES_CLI_OPT_STR("out", sim_args_t, out),
};

int es_cmd_sim(int argc, char **argv)
{
    sim_args_t a;
    memset(&a, 0, sizeof a);
    es_sim_opt_init(&a.so);
    const es_cli_group_t groups[] = {ES_CLI_GROUP(sim_opts, &a)};
    int r = es_cli_parse("sim", argc, argv, groups, sizeof groups / sizeof *groups, sim_usage);
    if (r >= 0) return r;
    if (!a.have_n || !a.have_m || !a.out) {
        fprintf(stderr, "[E::options] sim: --samples, --variants and --out are required\n");
        sim_usage(stderr);
        return ES_EXIT_USAGE;
    }
    if (es_cli_out_prefix("sim", a.out)) return ES_EXIT_USAGE;
    /* --triples alone plants triples only: a default pair would give the data a 2-way signal */
    if (a.so.n_triples && !a.have_pairs) a.so.n_pairs = 0;
    unsigned long long need = 2 * (unsigned long long)a.so.n_pairs + 3 * (unsigned long long)a.so.n_triples;
    if (a.so.n_variants < need) {
        fprintf(stderr, "[E::options] sim: --pairs %u and --triples %u need --variants of at least %llu "
                "(2 a pair, 3 a triple, all distinct); got %u\n", a.so.n_pairs, a.so.n_triples, need,
                a.so.n_variants);
        return ES_EXIT_USAGE;
    }
    int ret = es_sim_write(&a.so, a.out);
    if (ret) {
        fprintf(stderr, "[E::sim] failed: %s\n", es_strerror(ret));
        return ret == ES_ERR_ARG ? ES_EXIT_USAGE : ES_EXIT_ERROR;
    }
    return ES_EXIT_OK;
}
