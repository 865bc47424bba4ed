/* input.c -- the input and selection options shared by scan, info, convert
 * and select, so every subcommand reads data the same way; PLINK 1.9's
 * filters and codings among them keep PLINK's names and meaning. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* PLINK 1.9 takes --mind, --geno and --maf without a value (0.1, 0.1, 0.01);
 * here the value is required, so a following option was taken for it. */
static void plink_default_note(const char *opt, const char *arg, const char *dflt)
{
    if (arg[0] == '-' && arg[1] == '-')
        fprintf(stderr, "[E::options] --%s: PLINK's --%s without a value means %s; write it: "
                        "--%s %s\n", opt, opt, dflt, opt, dflt);
}

/* A threshold in [lo, hi] (hi_open: [lo, hi)); prints the error. */
static int threshold(const char *opt, const char *arg, double lo, double hi, int hi_open,
                     double *out)
{
    if (es_cli_double(opt, arg, out)) return -1;
    if (!(*out >= lo && (hi_open ? *out < hi : *out <= hi))) {
        fprintf(stderr, "[E::options] --%s: must be in [%g, %g%c, got %s\n", opt, lo, hi,
                hi_open ? ')' : ']', arg);
        return -1;
    }
    return 0;
}

void es_cli_input_init(es_cli_input_t *ci)
{
    memset(ci, 0, sizeof *ci);
    es_input_opt_init(&ci->in);
    ci->in.regions = ci->regions;
}

int es_cli_input_option(es_cli_input_t *ci, int c, const char *arg)
{
    es_input_opt_t *in = &ci->in;
    switch (c) {
    case ES_OPT_BFILE: in->bfile = arg; return 1;
    case ES_OPT_VCF: in->vcf = arg; return 1;
    case ES_OPT_PHENO: in->pheno = arg; return 1;
    case ES_OPT_PHENO_NAME: in->pheno_name = ci->pheno_name = arg; return 1;
    case ES_OPT_KEEP: in->keep = arg; return 1;
    case ES_OPT_REMOVE: in->remove = arg; return 1;
    case ES_OPT_EXTRACT: in->extract = arg; return 1;
    case ES_OPT_EXCLUDE: in->exclude = arg; return 1;
    case ES_OPT_CHR: in->chr = arg; return 1;
    case ES_OPT_REGION:
        if (in->n_regions >= ES_CLI_MAX_REGIONS) {
            fprintf(stderr, "[E::options] --region: at most %d regions\n", ES_CLI_MAX_REGIONS);
            return -1;
        }
        ci->regions[in->n_regions++] = arg;
        return 1;
    case ES_OPT_MAF:
        if (es_cli_double("maf", arg, &in->maf)) {
            plink_default_note("maf", arg, "0.01");
            return -1;
        }
        if (in->maf < 0 || in->maf > 0.5) {
            fprintf(stderr, "[E::options] --maf: must be in [0, 0.5], got %s\n", arg);
            return -1;
        }
        return 1;
    case ES_OPT_GENO:
        if (es_cli_double("geno", arg, &in->geno)) {
            plink_default_note("geno", arg, "0.1");
            return -1;
        }
        if (in->geno < 0 || in->geno > 1) {
            fprintf(stderr, "[E::options] --geno: must be in [0, 1], got %s\n", arg);
            return -1;
        }
        return 1;
    case ES_OPT_MIND:
        if (es_cli_double("mind", arg, &in->mind)) {
            plink_default_note("mind", arg, "0.1");
            return -1;
        }
        return threshold("mind", arg, 0, 1, 0, &in->mind) ? -1 : 1;
    case ES_OPT_HWE:
        if (!strcmp(arg, "midp") || !strcmp(arg, "include-nonctrl")) {
            fprintf(stderr, "[E::options] --hwe: expected a p-value threshold, got '%s' (PLINK's "
                            "'include-nonctrl' is --hwe-all here; 'midp' is not supported)\n",
                    arg);
            return -1;
        }
        return threshold("hwe", arg, 0, 1, 1, &in->hwe) ? -1 : 1;
    case ES_OPT_HWE_ALL: in->hwe_all = 1; return 1;
    case ES_OPT_SNPS:
        if (!arg[strspn(arg, " \t,")]) {
            fprintf(stderr, "[E::options] --snps: expected variant IDs and spans such as "
                            "rs1-rs5,rs9, got '%s'\n", arg);
            return -1;
        }
        in->snps = arg;
        return 1;
    case ES_OPT_FROM: in->from = arg; return 1;
    case ES_OPT_TO: in->to = arg; return 1;
    case ES_OPT_MPHENO: {
        uint32_t col;
        if (es_cli_u32("mpheno", arg, 1, 2147483647u, &col)) return -1;
        /* --mpheno N is --pheno-name N: the Nth phenotype column */
        in->pheno_name = ci->mpheno = arg;
        return 1;
    }
    case ES_OPT_ONE: in->pheno_01 = 1; return 1;
    case ES_OPT_ALLOW_NO_SEX: return 1; /* sex never leaves a sample out: nothing to allow */
    default: return 0;
    }
}

int es_cli_input_check(const es_cli_input_t *ci, const char *cmd)
{
    const es_input_opt_t *in = &ci->in;
    if (!in->bfile == !in->vcf) {
        fprintf(stderr, "[E::options] %s: give exactly one of --bfile and --vcf\n", cmd);
        return -1;
    }
    if (ci->mpheno && ci->pheno_name) {
        fprintf(stderr, "[E::options] %s: give one of --mpheno and --pheno-name\n", cmd);
        return -1;
    }
    if (ci->mpheno && !in->pheno) {
        fprintf(stderr, "[E::options] %s: --mpheno needs --pheno (it picks a column of the "
                        "phenotype file)\n", cmd);
        return -1;
    }
    if (in->pheno_name && !in->pheno) {
        fprintf(stderr, "[E::options] %s: --pheno-name needs --pheno\n", cmd);
        return -1;
    }
    /* PLINK 1.9 refuses these combinations too */
    if ((in->from || in->to) && in->chr) {
        fprintf(stderr, "[E::options] %s: --from/--to pick their own chromosome; leave out "
                        "--chr\n", cmd);
        return -1;
    }
    if ((in->from || in->to) && in->snps) {
        fprintf(stderr, "[E::options] %s: give --snps or --from/--to, not both\n", cmd);
        return -1;
    }
    if (in->n_regions && !in->vcf) {
        fprintf(stderr, "[E::options] %s: --region needs --vcf (an indexed VCF/BCF); "
                        "use --chr or --extract with --bfile\n", cmd);
        return -1;
    }
    return 0;
}

void es_cli_input_usage(FILE *fp, int need_pheno)
{
    fprintf(fp,
            "Input (one of --bfile and --vcf):\n"
            "  --bfile PREFIX       PLINK 1 fileset PREFIX.bed/.bim/.fam (SNP-major .bed, a\n"
            "                       regular file: it is memory-mapped)\n"
            "  --vcf FILE           VCF, bgzipped VCF or BCF; GT as ALT dosage, biallelic\n"
            "                       diploid sites only (others skipped and counted)\n"
            "  --pheno FILE         phenotype file: FID IID values... or IID values...\n"
            "                       (header optional; 1 control, 2 case, 0/-9/NA missing);\n"
            "                       %s\n"
            "  --pheno-name COL     phenotype column name (header) or number (default: first)\n"
            "  --mpheno N           PLINK's name for --pheno-name N: the Nth phenotype column\n"
            "  --1                  case/control coded 0 control, 1 case (.fam column 6 and\n"
            "                       --pheno; any other value is missing), as in PLINK\n"
            "  --allow-no-sex       accepted, no effect: sex never leaves a sample out (as in\n"
            "                       PLINK with this flag); only --mind and --hwe read it\n"
            "Selection (applied while reading, in PLINK 1.9's order: samples, then variants\n"
            "by name and position, then --mind, then --geno, --hwe, --maf):\n"
            "  --keep FILE          only the samples listed (FID IID or IID per line)\n"
            "  --remove FILE        leave out the samples listed\n"
            "  --extract FILE       only the variant IDs listed (first field per line)\n"
            "  --exclude FILE       leave out the variant IDs listed\n"
            "  --chr LIST           only these chromosomes, e.g. 1-4,7,X\n"
            "  --from ID, --to ID   only the variants of ID's chromosome at positions from\n"
            "                       the --from variant's to the --to variant's (either alone:\n"
            "                       to the end / from the start), as in PLINK; not with --chr\n"
            "                       or --snps, nor in select (its --from is a scan result)\n"
            "  --snps LIST          only these variant IDs and spans in file order, e.g.\n"
            "                       rs1-rs5,rs9 (PLINK's --snps; every ID must exist)\n"
            "  --region CHR:FROM-TO only this region of an indexed VCF/BCF (repeatable)\n"
            "  --maf X              drop variants with minor allele frequency < X\n"
            "  --geno X             drop variants with missing-call rate > X\n"
            "  --mind X             drop samples with missing-call rate > X over the\n"
            "                       variants selected by name and position (chrY: males'\n"
            "                       calls only)\n"
            "  --hwe P              drop variants whose Hardy-Weinberg exact-test p < P in\n"
            "                       the founder controls (all founders when there are no\n"
            "                       controls; chrX: non-males; chrY, MT: not tested)\n"
            "  --hwe-all            --hwe in every founder, cases too (PLINK's\n"
            "                       'include-nonctrl')\n"
            "  Values are required: PLINK's bare --mind, --geno, --maf mean 0.1, 0.1, 0.01.\n",
            need_pheno ? "with --bfile the default is .fam column 6; required with --vcf"
                       : "optional (.fam column 6 with --bfile)");
}
