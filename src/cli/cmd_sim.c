/* cmd_sim.c -- `epistream sim`: simulated case/control data with planted pairs. */
#include <getopt.h>
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
            "with planted interacting variant pairs that have no marginal effect, and the\n"
            "planted truth to PREFIX.truth.\n"
            "\n"
            "  --samples N      samples (>= 2)\n"
            "  --variants M     variants (>= 2 x pairs)\n"
            "  --pairs P        planted interacting pairs (default 1; 0 for null data)\n"
            "  --effect OR      interaction odds ratio of each planted pair (default 2.0)\n"
            "  --missing F      probability that a genotype call is missing (default 0)\n"
            "  --maf-min X      smallest minor allele frequency (default 0.05)\n"
            "  --maf-max X      largest minor allele frequency (default 0.5)\n"
            "  --seed S         random seed (default 1); same options give the same bytes\n"
            "  --out PREFIX     output prefix (ending in a file name: not DIR/)\n"
            "  -h, --help       this help\n");
}

int es_cmd_sim(int argc, char **argv)
{
    enum { O_SAMPLES = 256, O_VARIANTS, O_PAIRS, O_EFFECT, O_MISSING, O_MAFMIN, O_MAFMAX,
           O_SEED, O_OUT };
    static const struct option lopts[] = {
        {"samples", required_argument, 0, O_SAMPLES}, {"variants", required_argument, 0, O_VARIANTS},
        {"pairs", required_argument, 0, O_PAIRS},     {"effect", required_argument, 0, O_EFFECT},
        {"missing", required_argument, 0, O_MISSING}, {"maf-min", required_argument, 0, O_MAFMIN},
        {"maf-max", required_argument, 0, O_MAFMAX},  {"seed", required_argument, 0, O_SEED},
        {"out", required_argument, 0, O_OUT},         {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    es_sim_opt_t so;
    es_sim_opt_init(&so);
    const char *out = NULL;
    int have_n = 0, have_m = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
        switch (c) {
        case O_SAMPLES:
            if (es_cli_u32("samples", optarg, 0, UINT32_MAX, &so.n_samples)) return ES_EXIT_USAGE;
            have_n = 1;
            break;
        case O_VARIANTS:
            if (es_cli_u32("variants", optarg, 0, UINT32_MAX, &so.n_variants)) return ES_EXIT_USAGE;
            have_m = 1;
            break;
        case O_PAIRS:
            if (es_cli_u32("pairs", optarg, 0, UINT32_MAX, &so.n_pairs)) return ES_EXIT_USAGE;
            break;
        case O_EFFECT:
            if (es_cli_double("effect", optarg, &so.effect)) return ES_EXIT_USAGE;
            break;
        case O_MISSING:
            if (es_cli_double("missing", optarg, &so.missing)) return ES_EXIT_USAGE;
            break;
        case O_MAFMIN:
            if (es_cli_double("maf-min", optarg, &so.maf_min)) return ES_EXIT_USAGE;
            break;
        case O_MAFMAX:
            if (es_cli_double("maf-max", optarg, &so.maf_max)) return ES_EXIT_USAGE;
            break;
        case O_SEED:
            if (es_cli_u64("seed", optarg, &so.seed)) return ES_EXIT_USAGE;
            break;
        case O_OUT: out = optarg; break;
        case 'h': sim_usage(stdout); return ES_EXIT_OK;
        default:
            if (es_cli_bad_option("sim", argv[optind - 1])) sim_usage(stderr);
            return ES_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "[E::options] sim: unexpected argument '%s'\n", argv[optind]);
        return ES_EXIT_USAGE;
    }
    if (!have_n || !have_m || !out) {
        fprintf(stderr, "[E::options] sim: --samples, --variants and --out are required\n");
        sim_usage(stderr);
        return ES_EXIT_USAGE;
    }
    if (es_cli_out_prefix("sim", out)) return ES_EXIT_USAGE;
    int ret = es_sim_write(&so, out);
    if (ret) {
        fprintf(stderr, "[E::sim] failed: %s\n", es_strerror(ret));
        return ret == ES_ERR_ARG ? ES_EXIT_USAGE : ES_EXIT_ERROR;
    }
    return ES_EXIT_OK;
}
